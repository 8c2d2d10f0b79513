// max_by/min_by's serialized state (Accumulator::SerializeState): seen: u8, then when seen the
// value and the ordering, each grouping-encoded with floats' bits kept (exec/row_key.h
// EncodeValues; the value may be null, the ordering never is).

#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// max_by(x, ord)/min_by(x, ord): the x of the row whose ord is greatest (least); rows with a
// null ord are skipped; on ties the first row seen wins (Spark compares strictly).
class ValueByOrderingAccumulator final : public Accumulator {
 public:
  ValueByOrderingAccumulator(bool max, DataTypePtr value_type, DataTypePtr ordering_type,
                             MemoryPool* pool)
      : max_(max),
        value_type_(std::move(value_type)),
        ordering_type_(std::move(ordering_type)),
        seen_(pool),
        values_(pool),
        orderings_(pool) {}
  Status Resize(int64_t groups) override {
    encoded_.reset();
    best_keys_.resize(static_cast<size_t>(groups));
    TRIBUTARY_RETURN_NOT_OK(seen_.Resize(groups));
    TRIBUTARY_RETURN_NOT_OK(values_.Resize(groups));
    return orderings_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    encoded_.reset();
    return Fold(args[0], args[1], groups, rows);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    if (values_.Empty()) {
      return Column::MakeAllNull(type, groups, pool);
    }
    return values_.Gather(groups);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    if (seen_[group] == 0) {
      return Status::OK();
    }
    if (auto restored = restored_.find(group); restored != restored_.end()) {
      out->append(restored->second);
      return Status::OK();
    }
    if (!encoded_) {
      // Every group's pair encoded at once: the operator saves every group of a batch.
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values, values_.Gather(seen_.size()));
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr orderings, orderings_.Gather(seen_.size()));
      encoded_.emplace();
      const ColumnPtr columns[] = {values, orderings};
      EncodeValues(columns, seen_.size(), &*encoded_);
    }
    out->append(encoded_->Key(group));
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, max_ ? "max_by state" : "min_by state");
    uint8_t seen = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen));
    if (seen > 1) {
      return Status::Corruption(fmt::format("max_by/min_by state: seen flag {}", seen));
    }
    if (seen == 1) {
      const std::string_view pair = reader.Rest();
      std::string_view value;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*value_type_, &value));
      std::string_view ordering;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*ordering_type_, &ordering));
      restored_[group] = std::string(pair);
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    seen_[group] = seen;
    encoded_.reset();
    return Status::OK();
  }

 private:
  static constexpr OrderingDirection kAscending[] = {{}};

  Status Fold(const ColumnPtr& values, const ColumnPtr& orderings, const int32_t* groups,
              int64_t rows) {
    const ColumnPtr ordering_columns[] = {orderings};
    EncodeOrderingKeys(ordering_columns, kAscending, rows, &keys_);
    uint8_t* seen = seen_.data();
    pending_.clear();
    for (int64_t i = 0; i < rows; ++i) {
      if (!orderings->IsValid(i)) {
        continue;
      }
      const int32_t g = groups[i];
      std::string_view key = keys_.Key(i);
      std::string& best = best_keys_[static_cast<size_t>(g)];
      if (seen[g] == 0 || (max_ ? key > best : key < best)) {
        seen[g] = 1;
        best.assign(key);
        pending_.emplace_back(g, i);
      }
    }
    TRIBUTARY_RETURN_NOT_OK(values_.Commit(*values, pending_));
    return orderings_.Commit(*orderings, pending_);
  }

  // Moves the pairs DeserializeState kept as bytes into the stores, decoded in one go.
  Status CommitRestored() {
    if (restored_.empty()) {
      return Status::OK();
    }
    std::vector<std::string_view> bytes;
    std::vector<int32_t> groups;
    for (const auto& [group, pair] : restored_) {
      groups.push_back(group);
      bytes.push_back(pair);
    }
    const DataTypePtr types[] = {value_type_, ordering_type_};
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns,
                              DecodeGroupingKeys(types, bytes, columnar::DefaultMemoryPool()));
    // Restored groups start empty: the saved pair is their best so far.
    for (int32_t group : groups) {
      seen_[group] = 0;
    }
    TRIBUTARY_RETURN_NOT_OK(
        Fold(columns[0], columns[1], groups.data(), static_cast<int64_t>(groups.size())));
    restored_.clear();
    return Status::OK();
  }

  bool max_;
  DataTypePtr value_type_;
  DataTypePtr ordering_type_;
  PoolArray<uint8_t> seen_;
  ValueStore values_;
  ValueStore orderings_;
  std::vector<std::string> best_keys_;  // ordering keys of the best rows
  std::vector<std::pair<int32_t, int64_t>> pending_;
  EncodedKeys keys_;
  // Pairs of restored groups not yet moved into the stores (grouping-encoded), by group.
  std::unordered_map<int32_t, std::string> restored_;
  // SerializeState's encoding of every group's pair; reset when pairs change.
  mutable std::optional<EncodedKeys> encoded_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeValueByOrderingAccumulator(bool max, DataTypePtr value_type,
                                                            DataTypePtr ordering_type,
                                                            MemoryPool* pool) {
  return std::make_unique<ValueByOrderingAccumulator>(max, std::move(value_type),
                                                      std::move(ordering_type), pool);
}

}  // namespace tributary::exec::aggregate

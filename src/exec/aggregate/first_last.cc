// first/last's (and min/max of non-fixed-width types') serialized state
// (Accumulator::SerializeState): seen: u8, then when seen the value, grouping-encoded with
// floats' bits kept (exec/row_key.h EncodeValues; may be null: first/last without ignoreNulls).

#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// first/last of any type, min/max of strings, binary and nested types.
class SelectValueAccumulator final : public Accumulator {
 public:
  SelectValueAccumulator(AggregateKind kind, bool ignore_nulls, DataTypePtr type, MemoryPool* pool)
      : kind_(kind),
        ignore_nulls_(ignore_nulls),
        type_(std::move(type)),
        seen_(pool),
        store_(pool) {}
  Status Resize(int64_t groups) override {
    encoded_values_.reset();
    if (kind_ == AggregateKind::kMin || kind_ == AggregateKind::kMax) {
      best_keys_.resize(static_cast<size_t>(groups));
    }
    TRIBUTARY_RETURN_NOT_OK(seen_.Resize(groups));
    return store_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    encoded_values_.reset();
    const Column& arg = *args[0];
    uint8_t* seen = seen_.data();
    pending_.clear();
    switch (kind_) {
      case AggregateKind::kFirst:
        for (int64_t i = 0; i < rows; ++i) {
          const int32_t g = groups[i];
          if (seen[g] == 0 && (!ignore_nulls_ || arg.IsValid(i))) {
            seen[g] = 1;
            pending_.emplace_back(g, i);
          }
        }
        break;
      case AggregateKind::kLast:
        for (int64_t i = 0; i < rows; ++i) {
          if (!ignore_nulls_ || arg.IsValid(i)) {
            seen[groups[i]] = 1;
            pending_.emplace_back(groups[i], i);
          }
        }
        break;
      default: {
        const bool max = kind_ == AggregateKind::kMax;
        EncodeOrderingKeys(args.subspan(0, 1), kAscending, rows, &keys_);
        for (int64_t i = 0; i < rows; ++i) {
          if (!arg.IsValid(i)) {
            continue;
          }
          const int32_t g = groups[i];
          std::string_view key = keys_.Key(i);
          std::string& best = best_keys_[static_cast<size_t>(g)];
          if (seen[g] == 0 || (max ? key > best : key < best)) {
            seen[g] = 1;
            best.assign(key);
            pending_.emplace_back(g, i);
          }
        }
        break;
      }
    }
    return store_.Commit(arg, pending_);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    if (store_.Empty()) {
      return Column::MakeAllNull(type, groups, pool);
    }
    return store_.Gather(groups);
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
    if (!encoded_values_) {
      // Every group's value encoded at once: the operator saves every group of a batch.
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values, store_.Gather(seen_.size()));
      encoded_values_.emplace();
      const ColumnPtr columns[] = {values};
      EncodeValues(columns, seen_.size(), &*encoded_values_);
    }
    out->append(encoded_values_->Key(group));
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "first/last/min/max state");
    uint8_t seen = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen));
    if (seen > 1) {
      return Status::Corruption(fmt::format("first/last/min/max state: seen flag {}", seen));
    }
    if (seen == 1) {
      std::string_view value;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*type_, &value));
      restored_[group] = std::string(value);
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    seen_[group] = seen;
    encoded_values_.reset();
    return Status::OK();
  }

 private:
  static constexpr OrderingDirection kAscending[] = {{}};

  // Moves the values DeserializeState kept as bytes into the store, decoded in one go.
  Status CommitRestored() {
    if (restored_.empty()) {
      return Status::OK();
    }
    std::vector<std::string_view> bytes;
    pending_.clear();
    for (const auto& [group, value] : restored_) {
      pending_.emplace_back(group, static_cast<int64_t>(bytes.size()));
      bytes.push_back(value);
    }
    const DataTypePtr types[] = {type_};
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> values,
                              DecodeGroupingKeys(types, bytes, columnar::DefaultMemoryPool()));
    if (kind_ == AggregateKind::kMin || kind_ == AggregateKind::kMax) {
      EncodeOrderingKeys(values, kAscending, values[0]->Length(), &keys_);
      for (const auto& [group, row] : pending_) {
        best_keys_[static_cast<size_t>(group)].assign(keys_.Key(row));
      }
    }
    TRIBUTARY_RETURN_NOT_OK(store_.Commit(*values[0], pending_));
    restored_.clear();
    return Status::OK();
  }

  AggregateKind kind_;
  bool ignore_nulls_;
  DataTypePtr type_;
  PoolArray<uint8_t> seen_;
  ValueStore store_;
  std::vector<std::string> best_keys_;
  std::vector<std::pair<int32_t, int64_t>> pending_;
  EncodedKeys keys_;
  // Values of restored groups not yet moved into the store (grouping-encoded), by group.
  std::unordered_map<int32_t, std::string> restored_;
  // SerializeState's encoding of every group's value; reset when values change.
  mutable std::optional<EncodedKeys> encoded_values_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeSelectValueAccumulator(AggregateKind kind, bool ignore_nulls,
                                                        DataTypePtr type, MemoryPool* pool) {
  return std::make_unique<SelectValueAccumulator>(kind, ignore_nulls, std::move(type), pool);
}

}  // namespace tributary::exec::aggregate

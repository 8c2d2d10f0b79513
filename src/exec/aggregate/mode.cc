// mode's serialized state (Accumulator::SerializeState):
//   count: u32, then count entries of value (grouping-encoded with floats' bits kept,
//   exec/row_key.h EncodeValues), frequency: i64
// (the group's distinct non-null values in first-seen order).

#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// Counts each (group, value) pair in a hash table; Finish picks each group's most frequent
// value, the least one (in Spark's ordering) among equally frequent ones, which is what Spark's
// mode(x, true) and mode() WITHIN GROUP (ORDER BY x) return and one of the values mode(x) may
// return; `greatest`: the greatest one, as mode() WITHIN GROUP (ORDER BY x DESC).
class ModeAccumulator final : public Accumulator {
 public:
  ModeAccumulator(DataTypePtr type, bool greatest, MemoryPool* pool)
      : type_(std::move(type)),
        greatest_(greatest),
        pool_(pool),
        pairs_(pool),
        counts_(pool),
        pair_groups_(pool) {}
  Status Resize(int64_t) override { return Status::OK(); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    return Add(args[0], groups, rows, nullptr);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    if (chunks_.empty()) {
      return Column::MakeAllNull(type, groups, pool);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool));
    EncodedKeys keys;
    const ColumnPtr columns[] = {all};
    EncodeOrderingKeys(columns, kAscending, all->Length(), &keys);
    std::vector<int64_t> best(static_cast<size_t>(groups), -1);
    for (int64_t id = 0; id < pairs_.NumGroups(); ++id) {
      int64_t& current = best[static_cast<size_t>(pair_groups_[id])];
      if (current < 0 || counts_[id] > counts_[current] ||
          (counts_[id] == counts_[current] &&
           (greatest_ ? keys.Key(id) > keys.Key(current) : keys.Key(id) < keys.Key(current)))) {
        current = id;
      }
    }
    return TakeOrNull(*all, best, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    if (auto restored = restored_.find(group); restored != restored_.end()) {
      out->append(restored->second);
      return Status::OK();
    }
    if (!encoded_) {
      // Every pair encoded and indexed by group at once: the operator saves every group.
      encoded_.emplace();
      by_group_.clear();
      if (!chunks_.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool_));
        const ColumnPtr columns[] = {all};
        EncodeValues(columns, all->Length(), &*encoded_);
      }
      for (int64_t id = 0; id < pairs_.NumGroups(); ++id) {
        by_group_[pair_groups_[id]].push_back(id);
      }
    }
    auto ids = by_group_.find(group);
    const size_t count = ids == by_group_.end() ? 0 : ids->second.size();
    AppendRaw(out, static_cast<uint32_t>(count));
    for (size_t k = 0; k < count; ++k) {
      const int64_t id = ids->second[k];
      out->append(encoded_->Key(id));
      AppendRaw(out, counts_[id]);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "mode state");
    uint32_t count = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&count));
    for (uint32_t k = 0; k < count; ++k) {
      std::string_view value;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*type_, &value));
      int64_t frequency = 0;
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&frequency));
      if (frequency <= 0) {
        return Status::Corruption(
            fmt::format("mode state: frequency {} of entry {}", frequency, k));
      }
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    if (count > 0) {
      restored_[group] = std::string(bytes);
    }
    return Status::OK();
  }

 private:
  static constexpr OrderingDirection kAscending[] = {{}};

  // Counts the non-null values of `values` (row i `weights[i]` times; once when null) in their
  // groups.
  Status Add(ColumnPtr values, const int32_t* groups, int64_t rows, const int64_t* weights) {
    encoded_.reset();
    std::vector<int32_t> valid_groups;
    if (values->NullCount() > 0) {
      std::vector<int64_t> valid_rows;
      for (int64_t i = 0; i < rows; ++i) {
        if (values->IsValid(i)) {
          valid_rows.push_back(i);
          valid_groups.push_back(groups[i]);
        }
      }
      TRIBUTARY_ASSIGN_OR_RAISE(values, columnar::Take(*values, valid_rows, pool_));
      groups = valid_groups.data();
      rows = static_cast<int64_t>(valid_rows.size());
    }
    if (rows == 0) {
      return Status::OK();
    }
    const ColumnPtr args[] = {values};
    int64_t next_new = pairs_.NumGroups();
    TRIBUTARY_RETURN_NOT_OK(FindOrInsertPairs(pairs_, args, rows, groups, &ids_, &has_null_));
    TRIBUTARY_RETURN_NOT_OK(counts_.Resize(pairs_.NumGroups()));
    TRIBUTARY_RETURN_NOT_OK(pair_groups_.Resize(pairs_.NumGroups()));
    std::vector<int64_t> first_rows;
    for (int64_t i = 0; i < rows; ++i) {
      const int32_t id = ids_[static_cast<size_t>(i)];
      if (id == next_new) {
        ++next_new;
        first_rows.push_back(i);
        pair_groups_[id] = groups[i];
      }
      counts_[id] += weights == nullptr ? 1 : weights[i];
    }
    if (!first_rows.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(*values, first_rows, pool_));
      chunks_.push_back(std::move(chunk));
    }
    return Status::OK();
  }

  // Counts the pairs DeserializeState kept as bytes, decoded in one go.
  Status CommitRestored() {
    if (restored_.empty()) {
      return Status::OK();
    }
    std::vector<std::string_view> values;
    std::vector<int32_t> groups;
    std::vector<int64_t> weights;
    for (const auto& [group, bytes] : restored_) {
      StateReader reader(std::string_view(bytes).substr(sizeof(uint32_t)), "mode state");
      while (!reader.Rest().empty()) {
        std::string_view value;
        TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*type_, &value));
        int64_t frequency = 0;
        TRIBUTARY_RETURN_NOT_OK(reader.Read(&frequency));
        values.push_back(value);
        groups.push_back(group);
        weights.push_back(frequency);
      }
    }
    const DataTypePtr types[] = {type_};
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns,
                              DecodeGroupingKeys(types, values, pool_));
    TRIBUTARY_RETURN_NOT_OK(
        Add(columns[0], groups.data(), static_cast<int64_t>(groups.size()), weights.data()));
    restored_.clear();
    return Status::OK();
  }

  DataTypePtr type_;
  bool greatest_;
  MemoryPool* pool_;
  GroupTable pairs_;                // (group, value) -> pair id
  PoolArray<int64_t> counts_;       // per pair id
  PoolArray<int32_t> pair_groups_;  // per pair id: its group
  std::vector<ColumnPtr> chunks_;   // each pair's value, in id order
  std::vector<int32_t> ids_;        // per-batch scratch
  std::vector<uint8_t> has_null_;   // per-batch scratch
  // Saved states of restored groups not yet counted (SerializeState's bytes), by group.
  std::unordered_map<int32_t, std::string> restored_;
  // SerializeState's encoding of every pair's value and the pair ids of each group; reset
  // when pairs change.
  mutable std::optional<EncodedKeys> encoded_;
  mutable std::unordered_map<int32_t, std::vector<int64_t>> by_group_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeModeAccumulator(DataTypePtr type, bool greatest,
                                                 MemoryPool* pool) {
  return std::make_unique<ModeAccumulator>(std::move(type), greatest, pool);
}

}  // namespace tributary::exec::aggregate

// DISTINCT's serialized state (Accumulator::SerializeState):
//   inner: u32 length + the wrapped accumulator's state
//   seen:  count: u32, then count times u32 length + the grouping-encoded argument tuple
//          (exec/row_key.h) of a tuple the group has already passed on

#include "columnar/take.h"
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// Passes only the first occurrence of each (group, arguments) to the wrapped accumulator.
class DistinctAccumulator final : public Accumulator {
 public:
  DistinctAccumulator(std::unique_ptr<Accumulator> inner, MemoryPool* pool)
      : inner_(std::move(inner)), pool_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override { return inner_->Resize(groups); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    tuples_by_group_.reset();
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> selected,
                              FirstOccurrences(seen_, args, rows, groups, false));
    if (selected.empty()) {
      return Status::OK();
    }
    std::vector<ColumnPtr> taken;
    for (const ColumnPtr& arg : args) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Take(*arg, selected, pool_));
      taken.push_back(std::move(column));
    }
    std::vector<int32_t> taken_groups;
    taken_groups.reserve(selected.size());
    for (int64_t row : selected) {
      taken_groups.push_back(groups[row]);
    }
    return inner_->Update(taken, taken_groups.data(), static_cast<int64_t>(selected.size()), namer);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                           MemoryPool* pool) override {
    return inner_->Finish(groups, type, namer, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    std::string inner;
    TRIBUTARY_RETURN_NOT_OK(inner_->SerializeState(group, &inner));
    AppendLengthPrefixed(out, inner);
    if (!tuples_by_group_) {
      // Seen keys are (group: 4 bytes, tuple); listed per group once for every group saved.
      tuples_by_group_.emplace();
      for (int64_t id = 0; id < seen_.NumGroups(); ++id) {
        int32_t owner = 0;
        std::memcpy(&owner, seen_.KeyOf(id).data(), sizeof(owner));
        if (static_cast<size_t>(owner) >= tuples_by_group_->size()) {
          tuples_by_group_->resize(static_cast<size_t>(owner) + 1);
        }
        (*tuples_by_group_)[static_cast<size_t>(owner)].push_back(id);
      }
    }
    const auto g = static_cast<size_t>(group);
    const std::vector<int64_t> none;
    const std::vector<int64_t>& ids = g < tuples_by_group_->size() ? (*tuples_by_group_)[g] : none;
    AppendRaw(out, static_cast<uint32_t>(ids.size()));
    for (int64_t id : ids) {
      AppendLengthPrefixed(out, seen_.KeyOf(id).substr(sizeof(int32_t)));
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "DISTINCT state");
    std::string_view inner;
    TRIBUTARY_RETURN_NOT_OK(reader.ReadLengthPrefixed(&inner));
    TRIBUTARY_RETURN_NOT_OK(inner_->DeserializeState(group, inner));
    uint32_t count = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&count));
    EncodedKeys keys;
    keys.offsets.push_back(0);
    for (uint32_t k = 0; k < count; ++k) {
      std::string_view tuple;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadLengthPrefixed(&tuple));
      const auto* group_bytes = reinterpret_cast<const uint8_t*>(&group);
      keys.bytes.insert(keys.bytes.end(), group_bytes, group_bytes + sizeof(group));
      keys.bytes.insert(keys.bytes.end(), tuple.begin(), tuple.end());
      keys.offsets.push_back(static_cast<int64_t>(keys.bytes.size()));
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    for (int64_t i = 0; i < keys.NumRows(); ++i) {
      const std::string_view key = keys.Key(i);
      keys.hashes.push_back(HashBytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    }
    keys.has_null.assign(count, 0);
    std::vector<int32_t> ids(count);
    tuples_by_group_.reset();
    return seen_.FindOrInsert(keys, ids.data());
  }

 private:
  std::unique_ptr<Accumulator> inner_;
  MemoryPool* pool_;
  GroupTable seen_;
  // SerializeState's index: the seen ids of each group; reset when seen_ changes.
  mutable std::optional<std::vector<std::vector<int64_t>>> tuples_by_group_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeDistinctAccumulator(std::unique_ptr<Accumulator> inner,
                                                     MemoryPool* pool) {
  return std::make_unique<DistinctAccumulator>(std::move(inner), pool);
}

}  // namespace tributary::exec::aggregate

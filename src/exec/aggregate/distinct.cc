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

 private:
  std::unique_ptr<Accumulator> inner_;
  MemoryPool* pool_;
  GroupTable seen_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeDistinctAccumulator(std::unique_ptr<Accumulator> inner,
                                                     MemoryPool* pool) {
  return std::make_unique<DistinctAccumulator>(std::move(inner), pool);
}

}  // namespace tributary::exec::aggregate

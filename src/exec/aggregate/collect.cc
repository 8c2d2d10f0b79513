#include "columnar/take.h"
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

class CollectAccumulator final : public Accumulator {
 public:
  CollectAccumulator(bool set, MemoryPool* pool)
      : set_(set), pool_(pool), heads_(pool), tails_(pool), next_(pool), seen_values_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(heads_.Resize(groups));
    return tails_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    const Column& arg = *args[0];
    std::vector<int64_t> selected;
    if (set_) {
      TRIBUTARY_ASSIGN_OR_RAISE(selected, FirstOccurrences(seen_values_, args, rows, groups, true));
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        if (arg.IsValid(i)) {
          selected.push_back(i);
        }
      }
    }
    if (selected.empty()) {
      return Status::OK();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(arg, selected, pool_));
    TRIBUTARY_RETURN_NOT_OK(next_.Resize(stored_ + chunk->Length()));
    for (size_t k = 0; k < selected.size(); ++k) {
      const int32_t g = groups[selected[k]];
      const int64_t position = stored_ + static_cast<int64_t>(k) + 1;
      if (tails_[g] == 0) {
        heads_[g] = position;
      } else {
        next_[tails_[g] - 1] = position;
      }
      tails_[g] = position;
    }
    stored_ += chunk->Length();
    chunks_.push_back(std::move(chunk));
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((groups + 1) * 8, pool));
    int64_t* out_offsets = offsets->MutableDataAs<int64_t>();
    std::vector<int64_t> order;
    order.reserve(static_cast<size_t>(stored_));
    for (int64_t g = 0; g < groups; ++g) {
      out_offsets[g] = static_cast<int64_t>(order.size());
      for (int64_t p = heads_[g]; p != 0; p = next_[p - 1]) {
        order.push_back(p - 1);
      }
    }
    out_offsets[groups] = static_cast<int64_t>(order.size());
    ColumnPtr elements;
    if (chunks_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(elements, Column::MakeAllNull(type->ElementType(), 0, pool));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool));
      TRIBUTARY_ASSIGN_OR_RAISE(elements, columnar::Take(*all, order, pool));
    }
    return Column::Make(type, groups, nullptr, nullptr, std::move(offsets), {elements});
  }

 private:
  bool set_;
  MemoryPool* pool_;
  PoolArray<int64_t> heads_;  // first stored position + 1 per group; 0: none
  PoolArray<int64_t> tails_;
  PoolArray<int64_t> next_;  // per stored value: the next of its group + 1
  GroupTable seen_values_;   // collect_set: (group, value) pairs seen
  std::vector<ColumnPtr> chunks_;
  int64_t stored_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakeCollectAccumulator(bool set, MemoryPool* pool) {
  return std::make_unique<CollectAccumulator>(set, pool);
}

}  // namespace tributary::exec::aggregate

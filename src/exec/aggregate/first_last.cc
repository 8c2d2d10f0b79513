
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// first/last of any type, min/max of strings, binary and nested types.
class SelectValueAccumulator final : public Accumulator {
 public:
  SelectValueAccumulator(AggregateKind kind, bool ignore_nulls, MemoryPool* pool)
      : kind_(kind), ignore_nulls_(ignore_nulls), seen_(pool), store_(pool) {}
  Status Resize(int64_t groups) override {
    if (kind_ == AggregateKind::kMin || kind_ == AggregateKind::kMax) {
      best_keys_.resize(static_cast<size_t>(groups));
    }
    TRIBUTARY_RETURN_NOT_OK(seen_.Resize(groups));
    return store_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
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
        const ColumnPtr columns[] = {args[0]};
        const OrderingDirection ascending[] = {{}};
        EncodeOrderingKeys(columns, ascending, rows, &keys_);
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
    if (store_.Empty()) {
      return Column::MakeAllNull(type, groups, pool);
    }
    return store_.Gather(groups);
  }

 private:
  AggregateKind kind_;
  bool ignore_nulls_;
  PoolArray<uint8_t> seen_;
  ValueStore store_;
  std::vector<std::string> best_keys_;
  std::vector<std::pair<int32_t, int64_t>> pending_;
  EncodedKeys keys_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeSelectValueAccumulator(AggregateKind kind, bool ignore_nulls,
                                                        MemoryPool* pool) {
  return std::make_unique<SelectValueAccumulator>(kind, ignore_nulls, pool);
}

}  // namespace tributary::exec::aggregate

// count's serialized state (Accumulator::SerializeState): count: i64.

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

class CountAccumulator final : public Accumulator {
 public:
  CountAccumulator(AggregateKind kind, MemoryPool* pool) : kind_(kind), counts_(pool) {}
  Status Resize(int64_t groups) override { return counts_.Resize(groups); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    int64_t* counts = counts_.data();
    if (kind_ == AggregateKind::kCountIf) {
      const Column& arg = *args[0];
      const uint8_t* values = arg.Values<uint8_t>();
      const uint8_t* validity = arg.ValidityBits();
      for (int64_t i = 0; i < rows; ++i) {
        const bool valid = validity == nullptr || columnar::GetBit(validity, i);
        counts[groups[i]] += (valid && values[i] != 0) ? 1 : 0;
      }
      return Status::OK();
    }
    bool any_nulls = false;
    for (const ColumnPtr& arg : args) {
      any_nulls = any_nulls || arg->NullCount() > 0;
    }
    if (!any_nulls) {
      for (int64_t i = 0; i < rows; ++i) {
        ++counts[groups[i]];
      }
      return Status::OK();
    }
    for (int64_t i = 0; i < rows; ++i) {
      bool valid = true;
      for (const ColumnPtr& arg : args) {
        valid = valid && arg->IsValid(i);
      }
      counts[groups[i]] += valid ? 1 : 0;
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<int64_t>(type, counts_.data(), nullptr, groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, counts_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "count state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    return reader.Finish();
  }

 private:
  AggregateKind kind_;
  PoolArray<int64_t> counts_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeCountAccumulator(AggregateKind kind, MemoryPool* pool) {
  return std::make_unique<CountAccumulator>(kind, pool);
}

}  // namespace tributary::exec::aggregate

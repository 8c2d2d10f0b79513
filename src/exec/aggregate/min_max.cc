// min/max's serialized state (Accumulator::SerializeState) for fixed-width types: seen: u8,
// best: the value in its C++ type (1 to 16 bytes). Other types: first_last.cc.

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// min/max of fixed-width types, one typed loop per batch.
template <typename T>
class MinMaxAccumulator final : public Accumulator {
 public:
  MinMaxAccumulator(bool max, MemoryPool* pool) : max_(max), best_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(best_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    T* best = best_.data();
    uint8_t* seen = seen_.data();
    VisitValidAs<T>(*args[0], rows, [&](int64_t i, T v) {
      const int32_t g = groups[i];
      if (seen[g] == 0 || (max_ ? OrderedLess(best[g], v) : OrderedLess(v, best[g]))) {
        best[g] = v;
        seen[g] = 1;
      }
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<T>(type, best_.data(), seen_.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    AppendRaw(out, best_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, max_ ? "max state" : "min state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&best_[group]));
    return reader.Finish();
  }

 private:
  bool max_;
  PoolArray<T> best_;
  PoolArray<uint8_t> seen_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeMinMaxAccumulator(const DataTypePtr& type, bool max,
                                                   MemoryPool* pool) {
  switch (type->Id()) {
    case TypeId::kBoolean:
      return std::make_unique<MinMaxAccumulator<uint8_t>>(max, pool);
    case TypeId::kInt8:
      return std::make_unique<MinMaxAccumulator<int8_t>>(max, pool);
    case TypeId::kInt16:
      return std::make_unique<MinMaxAccumulator<int16_t>>(max, pool);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return std::make_unique<MinMaxAccumulator<int32_t>>(max, pool);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return std::make_unique<MinMaxAccumulator<int64_t>>(max, pool);
    case TypeId::kFloat32:
      return std::make_unique<MinMaxAccumulator<float>>(max, pool);
    case TypeId::kFloat64:
      return std::make_unique<MinMaxAccumulator<double>>(max, pool);
    case TypeId::kDecimal:
      return std::make_unique<MinMaxAccumulator<Int128>>(max, pool);
    default:
      return MakeSelectValueAccumulator(max ? AggregateKind::kMax : AggregateKind::kMin, false,
                                        type, pool);
  }
}

}  // namespace tributary::exec::aggregate

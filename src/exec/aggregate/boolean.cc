// bool_and/bool_or's serialized state (Accumulator::SerializeState): seen: u8, value: u8.

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

class BoolAccumulator final : public Accumulator {
 public:
  BoolAccumulator(bool all, MemoryPool* pool) : all_(all), values_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(values_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    uint8_t* values = values_.data();
    uint8_t* seen = seen_.data();
    VisitValidAs<uint8_t>(*args[0], rows, [&](int64_t i, uint8_t v) {
      const int32_t g = groups[i];
      values[g] = seen[g] == 0 ? v : (all_ ? (values[g] & v) : (values[g] | v));
      seen[g] = 1;
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<uint8_t>(type, values_.data(), seen_.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    AppendRaw(out, values_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, all_ ? "bool_and state" : "bool_or state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&values_[group]));
    return reader.Finish();
  }

 private:
  bool all_;
  PoolArray<uint8_t> values_;
  PoolArray<uint8_t> seen_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeBooleanAccumulator(bool all, MemoryPool* pool) {
  return std::make_unique<BoolAccumulator>(all, pool);
}

}  // namespace tributary::exec::aggregate

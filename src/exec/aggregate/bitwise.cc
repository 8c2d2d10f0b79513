// bit_and/bit_or/bit_xor's serialized state (Accumulator::SerializeState): seen: u8, value: the
// argument's integer (1, 2, 4 or 8 bytes).

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

enum class BitOp { kAnd, kOr, kXor };

// One typed loop per batch; a group with no non-null value stays null, as in Spark.
template <typename T, BitOp kOp>
class BitwiseAccumulator final : public Accumulator {
 public:
  explicit BitwiseAccumulator(MemoryPool* pool) : values_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(values_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    T* values = values_.data();
    uint8_t* seen = seen_.data();
    VisitValidAs<T>(*args[0], rows, [&](int64_t i, T v) {
      const int32_t g = groups[i];
      if (seen[g] == 0) {
        values[g] = v;
        seen[g] = 1;
        return;
      }
      if constexpr (kOp == BitOp::kAnd) {
        values[g] = static_cast<T>(values[g] & v);
      } else if constexpr (kOp == BitOp::kOr) {
        values[g] = static_cast<T>(values[g] | v);
      } else {
        values[g] = static_cast<T>(values[g] ^ v);
      }
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<T>(type, values_.data(), seen_.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    AppendRaw(out, values_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "bit_and/bit_or/bit_xor state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&values_[group]));
    if (seen_[group] > 1) {
      return Status::Corruption(
          fmt::format("bit_and/bit_or/bit_xor state: seen flag {}", seen_[group]));
    }
    return reader.Finish();
  }

 private:
  PoolArray<T> values_;
  PoolArray<uint8_t> seen_;
};

template <BitOp kOp>
std::unique_ptr<Accumulator> MakeForOp(const DataType& type, MemoryPool* pool) {
  switch (type.Id()) {
    case TypeId::kInt8:
      return std::make_unique<BitwiseAccumulator<int8_t, kOp>>(pool);
    case TypeId::kInt16:
      return std::make_unique<BitwiseAccumulator<int16_t, kOp>>(pool);
    case TypeId::kInt32:
      return std::make_unique<BitwiseAccumulator<int32_t, kOp>>(pool);
    default:
      return std::make_unique<BitwiseAccumulator<int64_t, kOp>>(pool);
  }
}

}  // namespace

std::unique_ptr<Accumulator> MakeBitwiseAccumulator(AggregateKind kind, const DataType& type,
                                                    MemoryPool* pool) {
  switch (kind) {
    case AggregateKind::kBitAnd:
      return MakeForOp<BitOp::kAnd>(type, pool);
    case AggregateKind::kBitOr:
      return MakeForOp<BitOp::kOr>(type, pool);
    default:
      return MakeForOp<BitOp::kXor>(type, pool);
  }
}

}  // namespace tributary::exec::aggregate

// sum/avg's serialized state (Accumulator::SerializeState), by input type:
//   integer sum   seen: u8, sum: i64
//   double        sum: f64, count: i64      (every avg but decimal's, floating-point sums)
//   decimal       sum: i128, count: i64     (unscaled, the input's scale)

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

class SumIntegerAccumulator final : public Accumulator {
 public:
  explicit SumIntegerAccumulator(MemoryPool* pool) : sums_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    int64_t* sums = sums_.data();
    uint8_t* seen = seen_.data();
    int64_t overflow_row = -1;
    VisitValidNative(*args[0], rows, [&](int64_t i, auto v) {
      const int32_t g = groups[i];
      seen[g] = 1;
      if (__builtin_add_overflow(sums[g], static_cast<int64_t>(v), &sums[g]) && overflow_row < 0) {
        overflow_row = i;
      }
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(
          fmt::format("[ARITHMETIC_OVERFLOW] sum overflows bigint in group {} (input row {} of "
                      "the batch)",
                      namer(groups[overflow_row]), overflow_row));
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<int64_t>(type, sums_.data(), seen_.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    AppendRaw(out, sums_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    return reader.Finish();
  }

 private:
  PoolArray<int64_t> sums_;
  PoolArray<uint8_t> seen_;
};

// sum and avg of integers and floating point: Spark adds them as double.
class SumDoubleAccumulator final : public Accumulator {
 public:
  SumDoubleAccumulator(bool average, MemoryPool* pool)
      : average_(average), sums_(pool), counts_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return counts_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    double* sums = sums_.data();
    int64_t* counts = counts_.data();
    VisitValidDoubles(*args[0], rows, [&](int64_t i, auto v) {
      sums[groups[i]] += static_cast<double>(v);
      ++counts[groups[i]];
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<double> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = counts_[g];
      seen[static_cast<size_t>(g)] = n > 0 ? 1 : 0;
      values[static_cast<size_t>(g)] =
          average_ && n > 0 ? sums_[g] / static_cast<double>(n) : sums_[g];
    }
    return MakeFixedColumn<double>(type, values.data(), seen.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, sums_[group]);
    AppendRaw(out, counts_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, average_ ? "avg state" : "sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    return reader.Finish();
  }

 private:
  bool average_;
  PoolArray<double> sums_;
  PoolArray<int64_t> counts_;
};

class SumDecimalAccumulator final : public Accumulator {
 public:
  SumDecimalAccumulator(bool average, int input_scale, MemoryPool* pool)
      : average_(average), input_scale_(input_scale), sums_(pool), counts_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return counts_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    Int128* sums = sums_.data();
    int64_t* counts = counts_.data();
    int64_t overflow_row = -1;
    VisitValidAs<Int128>(*args[0], rows, [&](int64_t i, Int128 v) {
      const int32_t g = groups[i];
      ++counts[g];
      if (__builtin_add_overflow(sums[g], v, &sums[g]) && overflow_row < 0) {
        overflow_row = i;
      }
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[ARITHMETIC_OVERFLOW] decimal sum overflows in group {}", namer(groups[overflow_row])));
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                           MemoryPool* pool) override {
    std::vector<Int128> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    const Int128 factor = columnar::PowerOfTen(type->Scale() - input_scale_);
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = counts_[g];
      if (n == 0) {
        continue;
      }
      seen[static_cast<size_t>(g)] = 1;
      Int128 value = sums_[g];
      if (average_) {
        Int128 scaled;
        if (__builtin_mul_overflow(value, factor, &scaled)) {
          return Status::InvalidArgument(
              fmt::format("[ARITHMETIC_OVERFLOW] avg overflows {} in group {}", type->ToString(),
                          namer(static_cast<int32_t>(g))));
        }
        // HALF_UP: round the quotient away from zero when the remainder is at least half.
        Int128 quotient = scaled / n;
        const Int128 remainder = scaled % n;
        const Int128 twice = remainder < 0 ? -2 * remainder : 2 * remainder;
        if (twice >= n) {
          quotient += scaled < 0 ? -1 : 1;
        }
        value = quotient;
      }
      if (!columnar::FitsPrecision(value, type->Precision())) {
        return Status::InvalidArgument(fmt::format(
            "[ARITHMETIC_OVERFLOW] {} result does not fit {} in group {}", average_ ? "avg" : "sum",
            type->ToString(), namer(static_cast<int32_t>(g))));
      }
      values[static_cast<size_t>(g)] = value;
    }
    return MakeFixedColumn<Int128>(type, values.data(), seen.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, sums_[group]);
    AppendRaw(out, counts_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, average_ ? "decimal avg state" : "decimal sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    return reader.Finish();
  }

 private:
  bool average_;
  int input_scale_;
  PoolArray<Int128> sums_;
  PoolArray<int64_t> counts_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeSumAccumulator(const DataType& input, bool average,
                                                MemoryPool* pool) {
  if (input.Id() == TypeId::kDecimal) {
    return std::make_unique<SumDecimalAccumulator>(average, input.Scale(), pool);
  }
  if (input.IsInteger() && !average) {
    return std::make_unique<SumIntegerAccumulator>(pool);
  }
  return std::make_unique<SumDoubleAccumulator>(average, pool);
}

}  // namespace tributary::exec::aggregate

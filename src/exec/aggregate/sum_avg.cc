// sum/avg's (and try_sum/try_avg's) serialized state (Accumulator::SerializeState), by input
// type:
//   integer sum   seen: u8, sum: i64        (seen 2: try_sum overflowed, the result is null)
//   double        sum: f64, count: i64      (every avg but decimal's, floating-point sums)
//   decimal       sum: i128, count: i64     (unscaled, the input's scale)
//                 [overflowed: u8]          (try_sum/try_avg only)
//   interval      sum: i64, count: i64, overflowed: u8
//                                           (months or microseconds; overflowed only under
//                                           try_sum/try_avg)

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// seen 0: no value yet; 1: sums_ holds the sum; 2 (try_sum): the sum overflowed, the result
// stays null whatever follows, as Spark's try_sum.
class SumIntegerAccumulator final : public Accumulator {
 public:
  SumIntegerAccumulator(bool try_mode, MemoryPool* pool)
      : try_(try_mode), sums_(pool), seen_(pool) {}
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
      if (seen[g] == 2) {
        return;
      }
      seen[g] = 1;
      if (__builtin_add_overflow(sums[g], static_cast<int64_t>(v), &sums[g])) {
        if (try_) {
          seen[g] = 2;
        } else if (overflow_row < 0) {
          overflow_row = i;
        }
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
    if (!try_) {
      return MakeFixedColumn<int64_t>(type, sums_.data(), seen_.data(), groups, pool);
    }
    std::vector<uint8_t> valid(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      valid[static_cast<size_t>(g)] = seen_[g] == 1 ? 1 : 0;
    }
    return MakeFixedColumn<int64_t>(type, sums_.data(), valid.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, seen_[group]);
    AppendRaw(out, sums_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, try_ ? "try_sum state" : "sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&seen_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    if (seen_[group] > (try_ ? 2 : 1)) {
      return Status::Corruption(fmt::format("sum state: seen flag {}", seen_[group]));
    }
    return reader.Finish();
  }

 private:
  bool try_;
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

// try_sum/try_avg (`try_mode`) turn every overflow into a null result for the group.
class SumDecimalAccumulator final : public Accumulator {
 public:
  SumDecimalAccumulator(bool average, bool try_mode, int input_scale, MemoryPool* pool)
      : average_(average),
        try_(try_mode),
        input_scale_(input_scale),
        sums_(pool),
        counts_(pool),
        overflowed_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    TRIBUTARY_RETURN_NOT_OK(overflowed_.Resize(try_ ? groups : 0));
    return counts_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    Int128* sums = sums_.data();
    int64_t* counts = counts_.data();
    int64_t overflow_row = -1;
    uint8_t* overflowed = overflowed_.data();
    VisitValidAs<Int128>(*args[0], rows, [&](int64_t i, Int128 v) {
      const int32_t g = groups[i];
      ++counts[g];
      if (__builtin_add_overflow(sums[g], v, &sums[g])) {
        if (try_) {
          overflowed[g] = 1;
        } else if (overflow_row < 0) {
          overflow_row = i;
        }
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
      if (n == 0 || (try_ && overflowed_[g] != 0)) {
        continue;
      }
      Int128 value = sums_[g];
      if (average_) {
        Int128 scaled;
        if (__builtin_mul_overflow(value, factor, &scaled)) {
          if (try_) {
            continue;
          }
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
        if (try_) {
          continue;
        }
        return Status::InvalidArgument(fmt::format(
            "[ARITHMETIC_OVERFLOW] {} result does not fit {} in group {}", average_ ? "avg" : "sum",
            type->ToString(), namer(static_cast<int32_t>(g))));
      }
      values[static_cast<size_t>(g)] = value;
      seen[static_cast<size_t>(g)] = 1;
    }
    return MakeFixedColumn<Int128>(type, values.data(), seen.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, sums_[group]);
    AppendRaw(out, counts_[group]);
    if (try_) {
      AppendRaw(out, overflowed_[group]);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, average_ ? "decimal avg state" : "decimal sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    if (try_) {
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&overflowed_[group]));
    }
    return reader.Finish();
  }

 private:
  bool average_;
  bool try_;
  int input_scale_;
  PoolArray<Int128> sums_;
  PoolArray<int64_t> counts_;
  PoolArray<uint8_t> overflowed_;  // try_ only: 1 once the group's sum overflowed
};

// sum and avg of year-month (int32 months) or day-time (int64 microseconds) intervals, as
// Spark's Sum and Average over ANSI intervals: the result has the input's type, a running sum
// outside that type's range is an error (try_sum/try_avg: a null result), and avg rounds the
// quotient half up (DivideYMInterval/DivideDTInterval).
class IntervalSumAccumulator final : public Accumulator {
 public:
  IntervalSumAccumulator(bool months, bool average, bool try_mode, MemoryPool* pool)
      : months_(months),
        average_(average),
        try_(try_mode),
        sums_(pool),
        counts_(pool),
        overflowed_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    TRIBUTARY_RETURN_NOT_OK(counts_.Resize(groups));
    return overflowed_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    int64_t* sums = sums_.data();
    int64_t* counts = counts_.data();
    uint8_t* overflowed = overflowed_.data();
    int64_t overflow_row = -1;
    auto add = [&](int64_t i, int64_t v) {
      const int32_t g = groups[i];
      ++counts[g];
      if (overflowed[g] != 0) {
        return;
      }
      int64_t sum = 0;
      const bool over = __builtin_add_overflow(sums[g], v, &sum) ||
                        (months_ && (sum < INT32_MIN || sum > INT32_MAX));
      if (!over) {
        sums[g] = sum;
      } else if (try_) {
        overflowed[g] = 1;
      } else if (overflow_row < 0) {
        overflow_row = i;
      }
    };
    if (months_) {
      VisitValidAs<int32_t>(*args[0], rows, add);
    } else {
      VisitValidAs<int64_t>(*args[0], rows, add);
    }
    if (overflow_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[INTERVAL_ARITHMETIC_OVERFLOW] {} overflow: the sum of {} overflows in group {} "
          "(input row {} of the batch). Use 'try_sum' to tolerate overflow and return NULL "
          "instead.",
          months_ ? "integer" : "long", args[0]->Type()->ToString(), namer(groups[overflow_row]),
          overflow_row));
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<int64_t> values(static_cast<size_t>(groups));
    std::vector<uint8_t> valid(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = counts_[g];
      const int64_t sum = sums_[g];
      valid[static_cast<size_t>(g)] = n > 0 && overflowed_[g] == 0 ? 1 : 0;
      int64_t value = sum;
      if (average_ && n > 0) {
        // Half up: a remainder of at least half the count moves the quotient away from zero.
        value = sum / n;
        const int64_t remainder = sum % n;
        const int64_t magnitude = remainder < 0 ? -remainder : remainder;
        if (magnitude != 0 && magnitude >= n - magnitude) {
          value += sum < 0 ? -1 : 1;
        }
      }
      values[static_cast<size_t>(g)] = value;
    }
    return MakeFixedColumn<int64_t>(type, values.data(), valid.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, sums_[group]);
    AppendRaw(out, counts_[group]);
    AppendRaw(out, overflowed_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, average_ ? "interval avg state" : "interval sum state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&sums_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&overflowed_[group]));
    if (overflowed_[group] > 1 || (overflowed_[group] == 1 && !try_)) {
      return Status::Corruption(
          fmt::format("interval sum state: overflowed flag {}", overflowed_[group]));
    }
    return reader.Finish();
  }

 private:
  bool months_;
  bool average_;
  bool try_;
  PoolArray<int64_t> sums_;
  PoolArray<int64_t> counts_;
  PoolArray<uint8_t> overflowed_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeSumAccumulator(const DataType& input, bool average, bool try_mode,
                                                MemoryPool* pool) {
  if (input.Id() == TypeId::kDecimal) {
    return std::make_unique<SumDecimalAccumulator>(average, try_mode, input.Scale(), pool);
  }
  if (input.Id() == TypeId::kYearMonthInterval || input.Id() == TypeId::kDayTimeInterval) {
    return std::make_unique<IntervalSumAccumulator>(input.Id() == TypeId::kYearMonthInterval,
                                                    average, try_mode, pool);
  }
  if (input.IsInteger() && !average) {
    return std::make_unique<SumIntegerAccumulator>(try_mode, pool);
  }
  return std::make_unique<SumDoubleAccumulator>(average, pool);
}

}  // namespace tributary::exec::aggregate

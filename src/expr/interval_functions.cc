// Interval constructors and arithmetic with Spark's semantics: make_dt_interval,
// make_ym_interval and make_interval (the calendar interval type); timestamp/date +/- interval,
// interval +/- interval and the scaling of intervals by numbers (BindIntervalArithmetic, which
// the expression binder calls for + and -), and unary minus of a calendar interval.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/calendar_interval.h"
#include "columnar/decimal.h"
#include "expr/calendar_fields.h"
#include "expr/date_arithmetic.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

using columnar::CalendarInterval;
using columnar::kMicrosPerSecond;

namespace {

// Spark's DATETIME_OVERFLOW for the first row of `call` whose result left its type's range.
Status DatetimeOverflow(int64_t row, const BoundExpression& call) {
  return Status::InvalidArgument(
      fmt::format("[DATETIME_OVERFLOW] row {}: {} overflows", row, call.SqlText()));
}

// ---- make_dt_interval ------------------------------------------------------------------------

// make_dt_interval([days[, hours[, mins[, secs]]]]) -> interval day to second; secs is
// decimal(18, 6), missing arguments are 0, overflow of 64-bit microseconds is an error.
Result<BoundExprPtr> BindMakeDtInterval(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 4));
  while (args.size() < 4) {
    args.push_back(MakeBound(Op::kLiteral, DataType::Int32(), {}, -1, Scalar::Int32(0)));
  }
  const DataType& seconds = *args[3]->Type();
  if (!seconds.IsNumeric() && seconds.Id() != TypeId::kNull) {
    return CallError(call, "the seconds must be a number, got " + seconds.ToString());
  }
  args[3] = CastTo(std::move(args[3]), DecimalOrDie(18, 6));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(
      call, &args, {DataType::Int32(), DataType::Int32(), DataType::Int32(), DecimalOrDie(18, 6)}));
  return MakeFunctionCall(
      call.Name(), DataType::DayTimeInterval(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        int64_t overflow_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
              const Int128 micros = (static_cast<Int128>(a[0]->Values<int32_t>()[i]) * 24 * 3600 +
                                     static_cast<Int128>(a[1]->Values<int32_t>()[i]) * 3600 +
                                     static_cast<Int128>(a[2]->Values<int32_t>()[i]) * 60) *
                                        kMicrosPerSecond +
                                    a[3]->Values<Int128>()[i];
              if (micros < std::numeric_limits<int64_t>::min() ||
                  micros > std::numeric_limits<int64_t>::max()) {
                overflow_row = overflow_row < 0 ? i : overflow_row;
                return int64_t{0};
              }
              return static_cast<int64_t>(micros);
            }));
        if (overflow_row >= 0) {
          return Status::InvalidArgument(fmt::format(
              "[ARITHMETIC_OVERFLOW] row {}: the interval does not fit 64-bit microseconds",
              overflow_row));
        }
        return result;
      }));
}

// make_ym_interval([years[, months]]) -> interval year to month; missing arguments are 0,
// a total beyond 32-bit months is an error (Spark's MakeYMInterval: Math.addExact over
// Math.multiplyExact).
Result<BoundExprPtr> BindMakeYmInterval(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 2));
  while (args.size() < 2) {
    args.push_back(MakeBound(Op::kLiteral, DataType::Int32(), {}, -1, Scalar::Int32(0)));
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Int32(), DataType::Int32()}));
  return MakeFunctionCall(
      call.Name(), DataType::YearMonthInterval(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        int64_t overflow_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
              int32_t months = 0;
              if (__builtin_mul_overflow(a[0]->Values<int32_t>()[i], 12, &months) ||
                  __builtin_add_overflow(months, a[1]->Values<int32_t>()[i], &months)) {
                overflow_row = overflow_row < 0 ? i : overflow_row;
                return int32_t{0};
              }
              return months;
            }));
        if (overflow_row >= 0) {
          return Status::InvalidArgument(fmt::format(
              "[ARITHMETIC_OVERFLOW] integer overflow at row {}: {} years and {} months do not "
              "fit an interval year to month",
              overflow_row, a[0]->Values<int32_t>()[overflow_row],
              a[1]->Values<int32_t>()[overflow_row]));
        }
        return result;
      }));
}

// make_interval([years[, months[, weeks[, days[, hours[, mins[, secs]]]]]]]) -> interval
// (Spark's MakeInterval over IntervalUtils.makeInterval): months = years * 12 + months,
// days = weeks * 7 + days, microseconds = secs (decimal(18, 6)) + hours and minutes, each
// with exact 32- or 64-bit arithmetic. Overflow is [ARITHMETIC_OVERFLOW]; try_make_interval
// makes the row null instead.
Result<BoundExprPtr> BindMakeInterval(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 7));
  while (args.size() < 6) {
    args.push_back(MakeBound(Op::kLiteral, DataType::Int32(), {}, -1, Scalar::Int32(0)));
  }
  if (args.size() < 7) {
    TRIBUTARY_ASSIGN_OR_RAISE(Scalar zero, Scalar::Decimal(0, 18, 6));
    args.push_back(MakeBound(Op::kLiteral, DecimalOrDie(18, 6), {}, -1, std::move(zero)));
  }
  const DataType& seconds = *args[6]->Type();
  if (!seconds.IsNumeric() && seconds.Id() != TypeId::kNull) {
    return CallError(call, "the seconds must be a number, got " + seconds.ToString());
  }
  args[6] = CastTo(std::move(args[6]), DecimalOrDie(18, 6));
  std::vector<DataTypePtr> types(6, DataType::Int32());
  types.push_back(DecimalOrDie(18, 6));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, types));
  const bool safe = call.Name() == "try_make_interval";
  return MakeFunctionCall(
      call.Name(), DataType::CalendarInterval(), std::move(args),
      Lambda([safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        auto field = [&](int arg, int64_t row) {
          return int64_t{a[arg]->Values<int32_t>()[row]};
        };
        std::vector<uint8_t> failed(static_cast<size_t>(a[0]->Length()), 0);
        int64_t overflow_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<CalendarInterval>(c.Type(), a, pool, [&](int64_t i) {
              const int64_t months = field(0, i) * 12 + field(1, i);
              const int64_t days = field(2, i) * 7 + field(3, i);
              const Int128 micros = static_cast<Int128>(a[6]->Values<Int128>()[i]) +
                                    static_cast<Int128>(field(4, i)) * 3600 * kMicrosPerSecond +
                                    static_cast<Int128>(field(5, i)) * 60 * kMicrosPerSecond;
              if (months < std::numeric_limits<int32_t>::min() ||
                  months > std::numeric_limits<int32_t>::max() ||
                  days < std::numeric_limits<int32_t>::min() ||
                  days > std::numeric_limits<int32_t>::max() ||
                  micros < std::numeric_limits<int64_t>::min() ||
                  micros > std::numeric_limits<int64_t>::max()) {
                failed[static_cast<size_t>(i)] = 1;
                overflow_row = overflow_row < 0 ? i : overflow_row;
                return CalendarInterval{};
              }
              return CalendarInterval{static_cast<int32_t>(months), static_cast<int32_t>(days),
                                      static_cast<int64_t>(micros)};
            }));
        if (overflow_row < 0) {
          return result;
        }
        if (!safe) {
          return Status::InvalidArgument(fmt::format(
              "[ARITHMETIC_OVERFLOW] integer overflow at row {}: the interval does not fit 32-bit "
              "months and days and 64-bit microseconds. Use 'try_make_interval' to tolerate "
              "overflow and return NULL instead.",
              overflow_row));
        }
        return NullWhere(std::move(result), pool,
                         [&](int64_t i) { return failed[static_cast<size_t>(i)] != 0; });
      }));
}

// ---- interval arithmetic ---------------------------------------------------------------------

// a + b or a - b over int64 microsecond values (timestamps, intervals), overflow an ANSI error.
class MicrosArithmetic final : public EagerFunction {
 public:
  explicit MicrosArithmetic(bool subtract) : subtract_(subtract) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t* a = args[0]->Values<int64_t>();
    const int64_t* b = args[1]->Values<int64_t>();
    int64_t overflow_row = -1;
    auto result = BuildFixed<int64_t>(call.Type(), args, context.pool, [&](int64_t i) {
      int64_t out = 0;
      const bool overflow = subtract_ ? __builtin_sub_overflow(a[i], b[i], &out)
                                      : __builtin_add_overflow(a[i], b[i], &out);
      if (overflow && overflow_row < 0) {
        overflow_row = i;
      }
      return out;
    });
    if (overflow_row >= 0) {
      return DatetimeOverflow(overflow_row, call);
    }
    return result;
  }

 private:
  bool subtract_;
};

// date +/- year-month interval (Spark's DateAddYMInterval) and timestamp +/- year-month
// interval (TimestampAddYMInterval): calendar months added to the date, or to the timestamp's
// wall clock in the session zone (timestamp_ntz: its own wall clock), the day clamped to the
// end of the month as add_months does. A result outside the type's range is an ANSI error.
class MonthsShift final : public EagerFunction {
 public:
  explicit MonthsShift(bool subtract) : subtract_(subtract) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int32_t* months = args[1]->Values<int32_t>();
    const int64_t sign = subtract_ ? -1 : 1;
    int64_t overflow_row = -1;
    auto fail = [&](int64_t i) {
      overflow_row = overflow_row < 0 ? i : overflow_row;
    };
    ColumnPtr result;
    if (call.Type()->Id() == TypeId::kDate) {
      const int32_t* days = args[0]->Values<int32_t>();
      TRIBUTARY_ASSIGN_OR_RAISE(
          result, BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
            const int64_t shifted = columnar::AddMonthsToDays(days[i], sign * months[i]);
            if (shifted < std::numeric_limits<int32_t>::min() ||
                shifted > std::numeric_limits<int32_t>::max()) {
              fail(i);
              return int32_t{0};
            }
            return static_cast<int32_t>(shifted);
          }));
    } else {
      const bool ntz = call.Type()->Id() == TypeId::kTimestampNtz;
      const TimeZone utc;
      const TimeZone& zone = ntz ? utc : context.session_time_zone;
      const int64_t* ts = args[0]->Values<int64_t>();
      TRIBUTARY_ASSIGN_OR_RAISE(
          result, BuildFixed<int64_t>(call.Type(), args, context.pool, [&](int64_t i) {
            int64_t local = 0;
            if (!columnar::AddMonthsToMicros(zone.LocalFromUtc(ts[i]), sign * months[i], &local)) {
              fail(i);
              return int64_t{0};
            }
            return zone.UtcFromLocal(local);
          }));
    }
    if (overflow_row >= 0) {
      return DatetimeOverflow(overflow_row, call);
    }
    return result;
  }

 private:
  bool subtract_;
};

// Spark's wider type of two intervals of one kind (a null operand takes the other's fields):
// the coarsest start and finest end field, so INTERVAL '1' YEAR + INTERVAL '1' MONTH is an
// INTERVAL YEAR TO MONTH and INTERVAL '1' YEAR + INTERVAL '1' YEAR stays an INTERVAL YEAR.
DataTypePtr WiderIntervalFields(const DataType& a, const DataType& b) {
  const bool a_interval = a.Id() != TypeId::kNull;
  const bool b_interval = b.Id() != TypeId::kNull;
  const DataType& kind = a_interval ? a : b;
  const int start = std::min(a_interval ? a.IntervalStartField() : b.IntervalStartField(),
                             b_interval ? b.IntervalStartField() : a.IntervalStartField());
  const int end = std::max(a_interval ? a.IntervalEndField() : b.IntervalEndField(),
                           b_interval ? b.IntervalEndField() : a.IntervalEndField());
  return kind.Id() == TypeId::kYearMonthInterval ? DataType::YearMonthInterval(start, end)
                                                 : DataType::DayTimeInterval(start, end);
}

// + and - with a year-month interval operand: interval +/- interval, date or timestamp
// +/- interval, interval + date or timestamp; anything else is Spark's type mismatch.
Result<BoundExprPtr> BindYearMonthArithmetic(const Expression& expr,
                                             std::vector<BoundExprPtr>& children) {
  const Op op = expr.GetOp();
  const TypeId a = children[0]->Type()->Id();
  const TypeId b = children[1]->Type()->Id();
  const bool a_months = a == TypeId::kYearMonthInterval;
  const bool b_months = b == TypeId::kYearMonthInterval;
  if ((a_months || a == TypeId::kNull) && (b_months || b == TypeId::kNull)) {
    // A null operand takes the interval's type, as Spark types INTERVAL '2' YEAR + NULL.
    const DataTypePtr type = WiderIntervalFields(*children[0]->Type(), *children[1]->Type());
    return MakeBound(op, type, {CastTo(children[0], type), CastTo(children[1], type)});
  }
  auto shift = [&](BoundExprPtr datetime, BoundExprPtr interval) -> BoundExprPtr {
    DataTypePtr type = datetime->Type();
    return std::make_shared<const BoundExpression>(
        op, std::move(type), std::vector<BoundExprPtr>{std::move(datetime), std::move(interval)},
        -1, Scalar::Null(), std::string(),
        std::make_shared<const MonthsShift>(op == Op::kSubtract));
  };
  if (IsDatetime(a) && b_months) {
    return shift(children[0], children[1]);
  }
  if (a_months && IsDatetime(b) && op == Op::kAdd) {
    return shift(children[1], children[0]);
  }
  return Status::InvalidArgument(fmt::format(
      "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] type mismatch in {}: cannot combine {} and {}",
      expr.ToString(), children[0]->Type()->ToString(), children[1]->Type()->ToString()));
}

// ---- calendar interval arithmetic ------------------------------------------------------------

// Adds `interval` (negated when `sign` is -1) to a datetime as Spark's TimeAdd, DateAddInterval
// and their timestamp_ntz form do: months (the day clamped to the month's end) then days on the
// wall clock in `zone`, then the microseconds on the instant. False when a field cannot be
// negated or the result leaves 64-bit microseconds.
bool ShiftMicrosByCalendarInterval(int64_t ts, const CalendarInterval& interval, int64_t sign,
                                   const TimeZone& zone, int64_t* out) {
  if (sign < 0 && (interval.months == std::numeric_limits<int32_t>::min() ||
                   interval.days == std::numeric_limits<int32_t>::min() ||
                   interval.microseconds == std::numeric_limits<int64_t>::min())) {
    return false;
  }
  int64_t local = zone.LocalFromUtc(ts);
  if (interval.months != 0 && !columnar::AddMonthsToMicros(local, sign * interval.months, &local)) {
    return false;
  }
  int64_t day_micros = 0;
  if (__builtin_mul_overflow(sign * interval.days, columnar::kMicrosPerDay, &day_micros) ||
      __builtin_add_overflow(local, day_micros, &local)) {
    return false;
  }
  const int64_t shifted =
      interval.months == 0 && interval.days == 0 ? ts : zone.UtcFromLocal(local);
  return !__builtin_add_overflow(shifted, sign * interval.microseconds, out);
}

// date/timestamp/timestamp_ntz +/- interval. A date keeps its type and takes no microseconds
// (Spark's ANSI DateAddInterval: [INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION]).
class CalendarIntervalShift final : public EagerFunction {
 public:
  explicit CalendarIntervalShift(bool subtract) : subtract_(subtract) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const CalendarInterval* intervals = args[1]->Values<CalendarInterval>();
    const int64_t sign = subtract_ ? -1 : 1;
    int64_t overflow_row = -1;
    int64_t micros_row = -1;
    ColumnPtr result;
    const TimeZone utc;
    if (call.Type()->Id() == TypeId::kDate) {
      const int32_t* days = args[0]->Values<int32_t>();
      TRIBUTARY_ASSIGN_OR_RAISE(
          result, BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
            const CalendarInterval& interval = intervals[i];
            if (interval.microseconds != 0) {
              micros_row = micros_row < 0 ? i : micros_row;
              return int32_t{0};
            }
            int64_t out = 0;
            if (!ShiftMicrosByCalendarInterval(int64_t{days[i]} * columnar::kMicrosPerDay, interval,
                                               sign, utc, &out)) {
              overflow_row = overflow_row < 0 ? i : overflow_row;
              return int32_t{0};
            }
            const int64_t shifted = columnar::FloorDiv(out, columnar::kMicrosPerDay);
            if (shifted < std::numeric_limits<int32_t>::min() ||
                shifted > std::numeric_limits<int32_t>::max()) {
              overflow_row = overflow_row < 0 ? i : overflow_row;
              return int32_t{0};
            }
            return static_cast<int32_t>(shifted);
          }));
    } else {
      const TimeZone& zone =
          call.Type()->Id() == TypeId::kTimestampNtz ? utc : context.session_time_zone;
      const int64_t* ts = args[0]->Values<int64_t>();
      TRIBUTARY_ASSIGN_OR_RAISE(
          result, BuildFixed<int64_t>(call.Type(), args, context.pool, [&](int64_t i) {
            int64_t out = 0;
            if (!ShiftMicrosByCalendarInterval(ts[i], intervals[i], sign, zone, &out)) {
              overflow_row = overflow_row < 0 ? i : overflow_row;
            }
            return out;
          }));
    }
    if (micros_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION] Cannot add an interval to a date because "
          "its microseconds part is not 0. (row {}: {})",
          micros_row, call.SqlText()));
    }
    if (overflow_row >= 0) {
      return DatetimeOverflow(overflow_row, call);
    }
    return result;
  }

 private:
  bool subtract_;
};

// interval +/- interval field by field with exact arithmetic (Spark's IntervalUtils.addExact
// and subtractExact under ANSI); -interval (negateExact) when there is one argument.
class CalendarIntervalSum final : public EagerFunction {
 public:
  explicit CalendarIntervalSum(bool subtract) : subtract_(subtract) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const CalendarInterval* a = args[0]->Values<CalendarInterval>();
    const CalendarInterval* b = args.size() > 1 ? args[1]->Values<CalendarInterval>() : nullptr;
    int64_t overflow_row = -1;
    auto result = BuildFixed<CalendarInterval>(call.Type(), args, context.pool, [&](int64_t i) {
      const CalendarInterval zero;
      const CalendarInterval& left = b == nullptr ? zero : a[i];
      const CalendarInterval& right = b == nullptr ? a[i] : b[i];
      CalendarInterval out;
      const bool overflow =
          subtract_
              ? __builtin_sub_overflow(left.months, right.months, &out.months) ||
                    __builtin_sub_overflow(left.days, right.days, &out.days) ||
                    __builtin_sub_overflow(left.microseconds, right.microseconds, &out.microseconds)
              : __builtin_add_overflow(left.months, right.months, &out.months) ||
                    __builtin_add_overflow(left.days, right.days, &out.days) ||
                    __builtin_add_overflow(left.microseconds, right.microseconds,
                                           &out.microseconds);
      if (overflow && overflow_row < 0) {
        overflow_row = i;
      }
      return out;
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[ARITHMETIC_OVERFLOW] integer overflow at row {}: {}", overflow_row, call.ToString()));
    }
    return result;
  }

 private:
  bool subtract_;
};

// + and - with a calendar interval operand: interval +/- interval (a NULL operand taking the
// interval type), date/timestamp/timestamp_ntz +/- interval and interval + datetime, as Spark's
// ResolveBinaryArithmetic binds them; other operands are a type mismatch.
Result<BoundExprPtr> BindCalendarIntervalArithmetic(const Expression& expr,
                                                    std::vector<BoundExprPtr>& children) {
  const Op op = expr.GetOp();
  const TypeId a = children[0]->Type()->Id();
  const TypeId b = children[1]->Type()->Id();
  const bool a_interval = a == TypeId::kCalendarInterval || a == TypeId::kNull;
  const bool b_interval = b == TypeId::kCalendarInterval || b == TypeId::kNull;
  const DataTypePtr interval = DataType::CalendarInterval();
  auto bound = [&](DataTypePtr type, BoundExprPtr left, BoundExprPtr right,
                   std::shared_ptr<const ScalarFunction> function) {
    return std::make_shared<const BoundExpression>(
        op, std::move(type), std::vector<BoundExprPtr>{std::move(left), std::move(right)}, -1,
        Scalar::Null(), std::string(), std::move(function));
  };
  if (a_interval && b_interval) {
    return bound(interval, CastTo(children[0], interval), CastTo(children[1], interval),
                 std::make_shared<const CalendarIntervalSum>(op == Op::kSubtract));
  }
  const auto shift = std::make_shared<const CalendarIntervalShift>(op == Op::kSubtract);
  if (IsDatetime(a) && b_interval) {
    DataTypePtr type = children[0]->Type();
    return bound(std::move(type), children[0], CastTo(children[1], interval), shift);
  }
  if (a_interval && IsDatetime(b) && op == Op::kAdd) {
    DataTypePtr type = children[1]->Type();
    return bound(std::move(type), children[1], CastTo(children[0], interval), shift);
  }
  return Status::InvalidArgument(fmt::format(
      "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] type mismatch in {}: cannot combine {} and {}",
      expr.ToString(), children[0]->Type()->ToString(), children[1]->Type()->ToString()));
}

}  // namespace

Result<BoundExprPtr> BindIntervalArithmetic(const Expression& expr,
                                            std::vector<BoundExprPtr>& children) {
  const Op op = expr.GetOp();
  if (op == Op::kMultiply || op == Op::kDivide) {
    return BindIntervalScale(expr, op, children, /*safe=*/false);
  }
  if (op != Op::kAdd && op != Op::kSubtract) {
    return BoundExprPtr();
  }
  TypeId a = children[0]->Type()->Id();
  TypeId b = children[1]->Type()->Id();
  if (a == TypeId::kCalendarInterval || b == TypeId::kCalendarInterval) {
    return BindCalendarIntervalArithmetic(expr, children);
  }
  if (a == TypeId::kYearMonthInterval || b == TypeId::kYearMonthInterval) {
    return BindYearMonthArithmetic(expr, children);
  }
  const bool a_interval = a == TypeId::kDayTimeInterval;
  const bool b_interval = b == TypeId::kDayTimeInterval;
  auto make = [&](DataTypePtr type, BoundExprPtr left, BoundExprPtr right) {
    return std::make_shared<const BoundExpression>(
        op, std::move(type), std::vector<BoundExprPtr>{std::move(left), std::move(right)}, -1,
        Scalar::Null(), std::string(),
        std::make_shared<const MicrosArithmetic>(op == Op::kSubtract));
  };
  auto as_timestamp = [](BoundExprPtr e) {
    return e->Type()->Id() == TypeId::kDate ? CastTo(std::move(e), DataType::Timestamp()) : e;
  };
  if (a_interval && b_interval) {
    return make(WiderIntervalFields(*children[0]->Type(), *children[1]->Type()), children[0],
                children[1]);
  }
  if (IsDatetime(a) && b_interval) {
    BoundExprPtr left = as_timestamp(children[0]);
    DataTypePtr type = left->Type();
    return make(std::move(type), std::move(left), children[1]);
  }
  if (a_interval && IsDatetime(b) && op == Op::kAdd) {
    BoundExprPtr right = as_timestamp(children[1]);
    DataTypePtr type = right->Type();
    return make(std::move(type), std::move(right), children[0]);
  }
  if (op == Op::kSubtract && (a == TypeId::kTimestamp || a == TypeId::kTimestampNtz) &&
      (b == TypeId::kTimestamp || b == TypeId::kTimestampNtz || b == TypeId::kDate)) {
    DataTypePtr common = a == TypeId::kTimestamp || b == TypeId::kTimestamp
                             ? DataType::Timestamp()
                             : DataType::TimestampNtz();
    return make(DataType::DayTimeInterval(), CastTo(children[0], common),
                CastTo(children[1], common));
  }
  if (op == Op::kSubtract && a == TypeId::kDate && b == TypeId::kDate) {
    // Spark's SubtractDates (ANSI): the whole days between them as an interval, the same in
    // every time zone (a DST change does not make a day 23 hours), so through timestamp_ntz.
    return make(DataType::DayTimeInterval(), CastTo(children[0], DataType::TimestampNtz()),
                CastTo(children[1], DataType::TimestampNtz()));
  }
  if (a_interval || b_interval) {
    return Status::InvalidArgument(fmt::format("type mismatch in {}: cannot combine {} and {}",
                                               expr.ToString(), children[0]->Type()->ToString(),
                                               children[1]->Type()->ToString()));
  }
  return BoundExprPtr();
}

BoundExprPtr BindCalendarIntervalNegate(BoundExprPtr operand) {
  DataTypePtr type = operand->Type();
  return std::make_shared<const BoundExpression>(
      Op::kNegate, std::move(type), std::vector<BoundExprPtr>{std::move(operand)}, -1,
      Scalar::Null(), std::string(), std::make_shared<const CalendarIntervalSum>(true));
}

void AddIntervalFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"make_dt_interval", BindMakeDtInterval},
                               {"make_ym_interval", BindMakeYmInterval},
                               {"make_interval", BindMakeInterval},
                               {"try_make_interval", BindMakeInterval}});
}

}  // namespace tributary::expr

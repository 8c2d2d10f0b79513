// Interval constructors and arithmetic with Spark's semantics: make_dt_interval and
// make_ym_interval; timestamp/date +/- interval, interval +/- interval and the scaling of
// intervals by numbers (BindIntervalArithmetic, which the expression binder calls for + and -).

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "expr/calendar_fields.h"
#include "expr/date_arithmetic.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

using columnar::kMicrosPerSecond;

namespace {

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
      return Status::InvalidArgument(
          fmt::format("[DATETIME_OVERFLOW] row {}: {} overflows", overflow_row, call.ToString()));
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
      return Status::InvalidArgument(
          fmt::format("[DATETIME_OVERFLOW] row {}: {} overflows", overflow_row, call.ToString()));
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

void AddIntervalFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"make_dt_interval", BindMakeDtInterval},
                               {"make_ym_interval", BindMakeYmInterval}});
}

}  // namespace tributary::expr

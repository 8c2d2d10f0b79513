// Functions that SQL operators and keywords parse into and that Spark defines in terms of other
// functions: ILIKE (LIKE on lowercased operands), DIV (integral division truncating toward
// zero) and EXTRACT/date_part (the date or time field functions).

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "common/ascii.h"
#include "expr/calendar_fields.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"

namespace tributary::expr {

Result<BoundExprPtr> BindAs(const std::string& name, const std::vector<ExprPtr>& unbound,
                            std::vector<BoundExprPtr> arguments) {
  return BindFunction(*Function(name, unbound), std::move(arguments));
}

namespace {

Result<BoundExprPtr> BindIlike(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  std::vector<BoundExprPtr> lowered;
  std::vector<ExprPtr> unbound;
  for (size_t i = 0; i < 2; ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr lower, BindAs("lower", {call.Child(i)}, {args[i]}));
    lowered.push_back(std::move(lower));
    unbound.push_back(Function("lower", {call.Child(i)}));
  }
  if (args.size() == 3) {
    lowered.push_back(args[2]);
    unbound.push_back(call.Child(2));
  }
  return BindAs("like", unbound, std::move(lowered));
}

Result<BoundExprPtr> BindIntegralDivide(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  // Spark's ANSI string promotion: a string operand is a bigint beside an integer, another
  // string or NULL (DIV's implicit cast to its long input), a double beside a fractional one.
  DataTypePtr promoted = StringPromotionType(args[0]->Type(), args[1]->Type());
  auto text_or_null = [](const BoundExprPtr& arg) {
    return arg->Type()->Id() == columnar::TypeId::kString ||
           arg->Type()->Id() == columnar::TypeId::kNull;
  };
  if (promoted == nullptr && text_or_null(args[0]) && text_or_null(args[1]) &&
      (args[0]->Type()->Id() == columnar::TypeId::kString ||
       args[1]->Type()->Id() == columnar::TypeId::kString)) {
    promoted = DataType::Int64();
  }
  if (promoted != nullptr && promoted->IsNumeric()) {
    for (BoundExprPtr& arg : args) {
      arg = CastTo(std::move(arg), promoted);
    }
  }
  for (const BoundExprPtr& arg : args) {
    const columnar::TypeId id = arg->Type()->Id();
    if (!arg->Type()->IsInteger() && id != columnar::TypeId::kDecimal &&
        id != columnar::TypeId::kNull) {
      return CallError(
          call, fmt::format("DIV takes integers or decimals, not {}", arg->Type()->ToString()));
    }
  }
  // Exact: both sides as decimals, divided (ANSI: by zero is an error), truncated to bigint.
  std::vector<BoundExprPtr> decimals;
  decimals.reserve(args.size());
  for (BoundExprPtr& arg : args) {
    const columnar::DataTypePtr type =
        arg->Type()->Id() == columnar::TypeId::kNull ? DataType::Int64() : arg->Type();
    decimals.push_back(CastTo(std::move(arg), AsDecimal(type)));
  }
  // 20 integer digits hold any bigint quotient; 18 fraction digits keep the rounding of the
  // quotient from reaching the units digit for any bigint divisor below 10^18.
  const DataTypePtr quotient_type = AdjustedDecimal(38, 18);
  auto quotient = MakeBound(Op::kDivide, quotient_type, std::move(decimals));
  return CastTo(std::move(quotient), DataType::Int64());
}

bool IsAnsiIntervalType(const DataType& type) {
  return type.Id() == columnar::TypeId::kYearMonthInterval ||
         type.Id() == columnar::TypeId::kDayTimeInterval;
}

// EXTRACT of a field of an ANSI interval (Spark's ExtractANSIIntervalYears, ...Months, ...Days,
// ...Hours, ...Minutes, ...Seconds): YEAR int and MONTH tinyint of a year-month interval; DAY
// int, HOUR and MINUTE tinyint, SECOND decimal(8,6) of a day-time one. Each part keeps the
// interval's sign (-13 months is -1 year and -1 month).
Result<BoundExprPtr> BindIntervalPart(const Expression& call, std::string_view field,
                                      BoundExprPtr interval) {
  using columnar::Int128;
  using columnar::kMicrosPerSecond;
  std::vector<BoundExprPtr> args{std::move(interval)};
  if (args[0]->Type()->Id() == columnar::TypeId::kYearMonthInterval) {
    if (field == "year") {
      return PerRowFixed<int32_t>(call, DataType::Int32(), std::move(args),
                                  [](const std::vector<ColumnPtr>& a, int64_t i) {
                                    return a[0]->Values<int32_t>()[i] / 12;
                                  });
    }
    if (field == "month") {
      return PerRowFixed<int8_t>(call, DataType::Int8(), std::move(args),
                                 [](const std::vector<ColumnPtr>& a, int64_t i) {
                                   return static_cast<int8_t>(a[0]->Values<int32_t>()[i] % 12);
                                 });
    }
    return CallError(call, fmt::format("[INVALID_EXTRACT_FIELD] cannot extract {} from an "
                                       "interval year to month: use YEAR or MONTH",
                                       field));
  }
  static constexpr int64_t kMinute = 60 * kMicrosPerSecond;
  static constexpr int64_t kHour = 60 * kMinute;
  if (field == "day") {
    return PerRowFixed<int32_t>(
        call, DataType::Int32(), std::move(args), [](const std::vector<ColumnPtr>& a, int64_t i) {
          return static_cast<int32_t>(a[0]->Values<int64_t>()[i] / (24 * kHour));
        });
  }
  if (field == "hour" || field == "minute") {
    const int64_t unit = field == "hour" ? kHour : kMinute;
    const int64_t per_next = field == "hour" ? 24 : 60;
    return PerRowFixed<int8_t>(
        call, DataType::Int8(), std::move(args),
        [unit, per_next](const std::vector<ColumnPtr>& a, int64_t i) {
          return static_cast<int8_t>(a[0]->Values<int64_t>()[i] / unit % per_next);
        });
  }
  if (field == "second") {
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, DataType::Decimal(8, 6));
    return PerRowFixed<Int128>(call, std::move(type), std::move(args),
                               [](const std::vector<ColumnPtr>& a, int64_t i) {
                                 return static_cast<Int128>(a[0]->Values<int64_t>()[i] % kMinute);
                               });
  }
  return CallError(call, fmt::format("[INVALID_EXTRACT_FIELD] cannot extract {} from an "
                                     "interval day to second: use DAY, HOUR, MINUTE or SECOND",
                                     field));
}

// EXTRACT(field FROM source) / date_part('field', source): Spark's field names and synonyms.
Result<BoundExprPtr> BindDatePart(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const Expression& field_expr = *call.Child(0);
  if (field_expr.GetOp() != Op::kLiteral || field_expr.Literal().IsNull() ||
      field_expr.Literal().Type()->Id() != columnar::TypeId::kString) {
    return CallError(call, "the field must be a string literal such as 'YEAR'");
  }
  const std::string field = AsciiLower(field_expr.Literal().BytesValue());
  if (!IsAnsiIntervalType(*args[1]->Type())) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr calendar, BindCalendarDatePart(call, field, args[1]));
    if (calendar != nullptr) {
      return calendar;
    }
  }
  struct Synonyms {
    std::vector<std::string_view> names;
    const char* function;
  };
  static const std::vector<Synonyms> kFields = {
      {{"year", "y", "years", "yr", "yrs"}, "year"},
      {{"quarter", "qtr"}, "quarter"},
      {{"month", "mon", "mons", "months"}, "month"},
      {{"day", "d", "days"}, "day"},
      {{"dayofweek", "dow"}, "dayofweek"},
      {{"doy"}, "dayofyear"},
      {{"hour", "h", "hours", "hr", "hrs"}, "hour"},
      {{"minute", "m", "min", "mins", "minutes"}, "minute"},
      {{"second", "s", "sec", "seconds", "secs"}, "second"},
  };
  for (const Synonyms& entry : kFields) {
    for (std::string_view name : entry.names) {
      if (field == name) {
        if (IsAnsiIntervalType(*args[1]->Type())) {
          return BindIntervalPart(call, entry.function, std::move(args[1]));
        }
        return BindAs(entry.function, {call.Child(1)}, {args[1]});
      }
    }
  }
  return CallError(call, fmt::format("[INVALID_EXTRACT_FIELD] unknown field '{}': use YEAR, "
                                     "YEAROFWEEK, QUARTER, MONTH, WEEK, DAY, DAYOFWEEK, "
                                     "DAYOFWEEK_ISO, DOY, HOUR, MINUTE or SECOND",
                                     field_expr.Literal().BytesValue()));
}

}  // namespace

void AddOperatorFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"ilike", BindIlike},
                               {"div", BindIntegralDivide},
                               {"date_part", BindDatePart},
                               {"datepart", BindDatePart},
                               {"extract", BindDatePart}});
}

}  // namespace tributary::expr

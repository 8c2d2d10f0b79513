// Functions that SQL operators and keywords parse into and that Spark defines in terms of other
// functions: ILIKE (LIKE on lowercased operands), DIV (integral division truncating toward
// zero) and EXTRACT/date_part (the date or time field functions).

#include <fmt/format.h>

#include "common/ascii.h"
#include "expr/coercion.h"
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

// EXTRACT(field FROM source) / date_part('field', source): Spark's field names and synonyms.
Result<BoundExprPtr> BindDatePart(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const Expression& field_expr = *call.Child(0);
  if (field_expr.GetOp() != Op::kLiteral || field_expr.Literal().IsNull() ||
      field_expr.Literal().Type()->Id() != columnar::TypeId::kString) {
    return CallError(call, "the field must be a string literal such as 'YEAR'");
  }
  const std::string field = AsciiLower(field_expr.Literal().BytesValue());
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
        return BindAs(entry.function, {call.Child(1)}, {args[1]});
      }
    }
  }
  return CallError(call, fmt::format("unknown field '{}': use YEAR, QUARTER, MONTH, DAY, "
                                     "DAYOFWEEK, DOY, HOUR, MINUTE or SECOND",
                                     field_expr.Literal().BytesValue()));
}

}  // namespace

void AddOperatorFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"ilike", BindIlike},
                               {"div", BindIntegralDivide},
                               {"date_part", BindDatePart},
                               {"extract", BindDatePart}});
}

}  // namespace tributary::expr

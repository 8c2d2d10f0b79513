// Date arithmetic with + and -: see date_arithmetic.h for the operand pairs bound here.

#include "expr/date_arithmetic.h"

#include <string>

#include "columnar/calendar.h"
#include "expr/coercion.h"
#include "expr/function_registry.h"

namespace tributary::expr {

using columnar::DataType;
using columnar::TypeId;

namespace {

// A day count operand of date_add/date_sub: numbers (date_add rejects all but tinyint,
// smallint and int with its own message) and NULL.
bool IsDayCountOperand(TypeId id) {
  return id == TypeId::kNull || id == TypeId::kInt8 || id == TypeId::kInt16 ||
         id == TypeId::kInt32 || id == TypeId::kInt64 || id == TypeId::kDecimal ||
         id == TypeId::kFloat32 || id == TypeId::kFloat64;
}

// Whether `e` is a non-null day-time interval literal of whole days; its (signed) day count
// goes to `days`.
bool WholeDayIntervalLiteral(const BoundExpression& e, int64_t* days) {
  if (e.GetOp() != Op::kLiteral || e.Type()->Id() != TypeId::kDayTimeInterval ||
      e.Literal().IsNull()) {
    return false;
  }
  const int64_t micros = e.Literal().IntValue();
  if (micros % columnar::kMicrosPerDay != 0) {
    return false;
  }
  *days = micros / columnar::kMicrosPerDay;
  return true;
}

}  // namespace

Result<BoundExprPtr> BindDateArithmetic(const Expression& expr,
                                        std::vector<BoundExprPtr>& children) {
  const Op op = expr.GetOp();
  if ((op != Op::kAdd && op != Op::kSubtract) || children.size() != 2) {
    return BoundExprPtr();
  }
  const TypeId a = children[0]->Type()->Id();
  const TypeId b = children[1]->Type()->Id();
  const std::vector<ExprPtr> unbound{expr.Child(0), expr.Child(1)};
  const std::string date_add = "date_add";
  const std::string date_sub = "date_sub";
  if (a == TypeId::kDate && IsDayCountOperand(b)) {
    return BindAs(op == Op::kAdd ? date_add : date_sub, unbound, {children[0], children[1]});
  }
  if (op == Op::kAdd && b == TypeId::kDate && IsDayCountOperand(a)) {
    return BindAs(date_add, {unbound[1], unbound[0]}, {children[1], children[0]});
  }
  int64_t days = 0;
  auto day_count = [&days] {
    return MakeBound(Op::kLiteral, DataType::Int32(), {}, -1,
                     Scalar::Int32(static_cast<int32_t>(days)));
  };
  if (a == TypeId::kDate && WholeDayIntervalLiteral(*children[1], &days) && days >= INT32_MIN &&
      days <= INT32_MAX) {
    return BindAs(op == Op::kAdd ? date_add : date_sub, unbound, {children[0], day_count()});
  }
  if (op == Op::kAdd && b == TypeId::kDate && WholeDayIntervalLiteral(*children[0], &days) &&
      days >= INT32_MIN && days <= INT32_MAX) {
    return BindAs(date_add, {unbound[1], unbound[0]}, {children[1], day_count()});
  }
  if (op == Op::kSubtract && b == TypeId::kDate && (a == TypeId::kString || a == TypeId::kNull)) {
    // Spark's SubtractDates with the left side implicitly cast to DATE.
    children[0] = CastTo(std::move(children[0]), DataType::Date());
  }
  if (op == Op::kSubtract && a == TypeId::kDate && b == TypeId::kString) {
    // The string is a date too (Spark casts it; '7' is an invalid date, not 7 days).
    children[1] = CastTo(std::move(children[1]), DataType::Date());
  }
  if (op == Op::kSubtract && a == TypeId::kDate &&
      (b == TypeId::kTimestamp || b == TypeId::kTimestampNtz)) {
    // Spark's SubtractTimestamps with the date cast to the other side's type.
    children[0] = CastTo(std::move(children[0]), children[1]->Type());
  }
  return BoundExprPtr();
}

}  // namespace tributary::expr

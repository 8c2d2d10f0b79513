#include <algorithm>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/decimal.h"
#include "common/ascii.h"
#include "expr/balanced_tree.h"
#include "expr/bound_expression.h"
#include "expr/coercion.h"
#include "expr/date_arithmetic.h"
#include "expr/function_registry.h"
#include "expr/higher_order_functions.h"
#include "expr/in_set.h"
#include "expr/nested_values.h"

namespace tributary::expr {

using columnar::TypeId;

BoundExpression::BoundExpression(Op op, DataTypePtr type, std::vector<BoundExprPtr> children,
                                 int index, Scalar literal, std::string name,
                                 std::shared_ptr<const ScalarFunction> function)
    : op_(op),
      type_(std::move(type)),
      children_(std::move(children)),
      index_(index),
      literal_(std::move(literal)),
      name_(std::move(name)),
      function_(std::move(function)) {}

BoundExprPtr BoundExpression::WithChildren(std::vector<BoundExprPtr> children) const {
  return std::make_shared<BoundExpression>(op_, type_, std::move(children), index_, literal_, name_,
                                           function_);
}

BoundExprPtr BoundExpression::WithIndex(int index) const {
  return std::make_shared<BoundExpression>(op_, type_, children_, index, literal_, name_,
                                           function_);
}

std::string BoundExpression::ToString() const {
  switch (op_) {
    case Op::kColumn:
      return name_;
    case Op::kGetField:
      return fmt::format("{}.{}", children_[0]->ToString(), name_);
    case Op::kLiteral:
      return literal_.ToString();
    default: {
      std::vector<std::string> operands;
      for (const BoundExprPtr& child : children_) {
        operands.push_back(child->ToString());
      }
      if (op_ == Op::kFunction) {
        return FormatFunctionCall(name_, operands, false);
      }
      return FormatOperator(op_, operands, type_.get());
    }
  }
}

std::string BoundExpression::SqlText() const {
  switch (op_) {
    case Op::kColumn: {
      const size_t hash = name_.rfind('#');
      return hash == std::string::npos ? name_ : name_.substr(0, hash);
    }
    case Op::kGetField:
      return fmt::format("{}.{}", children_[0]->SqlText(), name_);
    case Op::kLiteral:
      return literal_.SqlText();
    default: {
      std::vector<std::string> operands;
      operands.reserve(children_.size());
      for (const BoundExprPtr& child : children_) {
        operands.push_back(child->SqlText());
      }
      if (op_ == Op::kFunction) {
        return FormatFunctionCall(name_, operands, false);
      }
      return FormatOperator(op_, operands, type_.get());
    }
  }
}

bool CanCast(const DataType& from, const DataType& to) {
  if (from.SameShape(to) || from.Id() == TypeId::kNull) {
    return true;
  }
  const TypeId f = from.Id();
  const TypeId t = to.Id();
  const bool f_num = from.IsNumeric() || f == TypeId::kBoolean;
  const bool t_num = to.IsNumeric() || t == TypeId::kBoolean;
  const bool f_time = f == TypeId::kDate || f == TypeId::kTimestamp || f == TypeId::kTimestampNtz;
  const bool t_time = t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz;
  if (t == TypeId::kString) {
    return true;
  }
  if (f == TypeId::kString) {
    return t_num || t_time || t == TypeId::kBinary || t == TypeId::kYearMonthInterval ||
           t == TypeId::kDayTimeInterval || t == TypeId::kCalendarInterval;
  }
  // ANSI intervals <-> integral and decimal numbers, counted in the interval's end field.
  const bool f_interval = f == TypeId::kDayTimeInterval || f == TypeId::kYearMonthInterval;
  const bool t_interval = t == TypeId::kDayTimeInterval || t == TypeId::kYearMonthInterval;
  if ((f_interval && (to.IsInteger() || t == TypeId::kDecimal)) ||
      (t_interval && (from.IsInteger() || f == TypeId::kDecimal))) {
    return true;
  }
  if (f_num && t_num) {
    return true;
  }
  if (f_time && t_time) {
    return true;
  }
  // Integral seconds since the epoch <-> timestamp, as Spark.
  if ((from.IsInteger() && t == TypeId::kTimestamp) ||
      (f == TypeId::kTimestamp && to.IsInteger())) {
    return true;
  }
  if (f == TypeId::kStruct && t == TypeId::kStruct) {
    if (from.Fields().size() != to.Fields().size()) {
      return false;
    }
    for (size_t i = 0; i < from.Fields().size(); ++i) {
      if (!CanCast(*from.Fields()[i].Type(), *to.Fields()[i].Type())) {
        return false;
      }
    }
    return true;
  }
  if (f == TypeId::kArray && t == TypeId::kArray) {
    return CanCast(*from.ElementType(), *to.ElementType());
  }
  if (f == TypeId::kMap && t == TypeId::kMap) {
    return CanCast(*from.KeyType(), *to.KeyType()) && CanCast(*from.ValueType(), *to.ValueType());
  }
  return false;
}

namespace {

class Binder {
 public:
  explicit Binder(const columnar::Schema& schema, LambdaScope scope = {})
      : schema_(schema), scope_(std::move(scope)) {}

  Result<BoundExprPtr> Bind(const Expression& expr) {
    if (expr.GetOp() == Op::kWindow) {
      // The planner computes window calls in a window operator below the SELECT list; one
      // anywhere else (WHERE, GROUP BY, a join condition) has no window to run in.
      return Status::InvalidArgument(fmt::format(
          "window function '{}' is only allowed in the SELECT list and ORDER BY", expr.SqlText()));
    }
    if (expr.GetOp() == Op::kFunction && IsWindowOnlyFunctionName(expr.Name())) {
      return Status::InvalidArgument(
          fmt::format("window function '{}' requires an OVER clause", expr.SqlText()));
    }
    if (expr.GetOp() == Op::kFunction && (expr.Name() == "mod" || expr.Name() == "pmod")) {
      return BindModulo(expr);
    }
    if (expr.GetOp() == Op::kFunction &&
        std::any_of(expr.Children().begin(), expr.Children().end(),
                    [](const ExprPtr& child) { return child->GetOp() == Op::kLambda; })) {
      return BindHigherOrderCall(expr, schema_, scope_);
    }
    if (expr.GetOp() == Op::kLambda) {
      return Status::InvalidArgument(fmt::format(
          "a lambda function is only allowed as an argument of a higher-order function: {}",
          expr.SqlText()));
    }
    std::vector<BoundExprPtr> children;
    for (const ExprPtr& child : expr.Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto bound, Bind(*child));
      children.push_back(std::move(bound));
    }
    switch (expr.GetOp()) {
      case Op::kColumn:
        return BindColumn(expr);
      case Op::kGetField:
        return BindGetField(expr, std::move(children[0]));
      case Op::kLiteral:
        return MakeBound(Op::kLiteral, expr.Literal().Type(), {}, -1, expr.Literal());
      case Op::kAdd:
      case Op::kSubtract:
      case Op::kMultiply:
      case Op::kDivide:
      case Op::kRemainder:
        return BindArithmetic(expr, std::move(children));
      case Op::kNegate: {
        if (children[0]->Type()->Id() == TypeId::kCalendarInterval) {
          return BindCalendarIntervalNegate(std::move(children[0]));
        }
        if (children[0]->Type()->Id() == TypeId::kString) {
          // Spark's ANSI string promotion reads a negated string as a double.
          children[0] = CastTo(std::move(children[0]), DataType::Float64());
        }
        DataTypePtr type = children[0]->Type();
        // Spark's UnaryMinus also negates ANSI intervals (overflow is an error).
        const bool interval =
            type->Id() == TypeId::kDayTimeInterval || type->Id() == TypeId::kYearMonthInterval;
        if (!type->IsNumeric() && !interval) {
          return Mismatch(expr, "a numeric operand", *type);
        }
        return MakeBound(Op::kNegate, std::move(type), std::move(children));
      }
      case Op::kEqual:
      case Op::kNotEqual:
      case Op::kLess:
      case Op::kLessEqual:
      case Op::kGreater:
      case Op::kGreaterEqual:
      case Op::kNullSafeEqual:
        return BindComparison(expr, expr.GetOp(), std::move(children[0]), std::move(children[1]));
      case Op::kAnd:
      case Op::kOr:
        for (auto& child : children) {
          TRIBUTARY_ASSIGN_OR_RAISE(child, RequireBoolean(expr, std::move(child)));
        }
        return MakeBound(expr.GetOp(), DataType::Boolean(), std::move(children));
      case Op::kNot: {
        TRIBUTARY_ASSIGN_OR_RAISE(children[0], RequireBoolean(expr, std::move(children[0])));
        return MakeBound(Op::kNot, DataType::Boolean(), std::move(children));
      }
      case Op::kIsNull:
      case Op::kIsNotNull:
        return MakeBound(expr.GetOp(), DataType::Boolean(), std::move(children));
      case Op::kIn:
        return BindIn(expr, std::move(children));
      case Op::kBetween: {
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto low, BindComparison(expr, Op::kGreaterEqual, children[0], children[1]));
        TRIBUTARY_ASSIGN_OR_RAISE(auto high,
                                  BindComparison(expr, Op::kLessEqual, children[0], children[2]));
        return MakeBound(Op::kAnd, DataType::Boolean(), {std::move(low), std::move(high)});
      }
      case Op::kCast:
      case Op::kTryCast:
        // An explicit CAST also takes a timestamp to a fractional number of seconds
        // (Spark's Cast.canAnsiCast); implicit coercions do not.
        if (!CanCast(*children[0]->Type(), *expr.TargetType()) &&
            !(children[0]->Type()->Id() == TypeId::kTimestamp && expr.TargetType()->IsNumeric())) {
          return Status::InvalidArgument(
              fmt::format("cannot cast {} to {} in {}", children[0]->Type()->ToString(),
                          expr.TargetType()->ToString(), expr.SqlText()));
        }
        return MakeBound(expr.GetOp(), expr.TargetType(), std::move(children));
      case Op::kFunction:
        return BindFunction(expr, std::move(children));
      case Op::kCaseWhen:
        return BindCaseWhen(expr, std::move(children));
      case Op::kSubscript:
        return BindSubscript(expr, std::move(children[0]), std::move(children[1]));
      case Op::kWindow:
      case Op::kLambda:
        break;
      case Op::kLambdaVariable:
        return BindLambdaVariable(expr);
    }
    return Status::Internal("unhandled expression " + expr.ToString());
  }

 private:
  static Status Mismatch(const Expression& expr, std::string_view wanted, const DataType& got) {
    return Status::InvalidArgument(fmt::format("type mismatch in {}: needs {}, got {}",
                                               expr.SqlText(), wanted, got.ToString()));
  }

  Result<BoundExprPtr> RequireBoolean(const Expression& expr, BoundExprPtr child) {
    if (child->Type()->Id() == TypeId::kNull) {
      return CastTo(std::move(child), DataType::Boolean());
    }
    if (child->Type()->Id() != TypeId::kBoolean) {
      return Mismatch(expr, "boolean operands", *child->Type());
    }
    return child;
  }

  Result<BoundExprPtr> BindColumn(const Expression& expr) {
    int index = schema_.FieldIndex(expr.Name());
    if (index < 0) {
      TRIBUTARY_ASSIGN_OR_RAISE(index, schema_.FieldIndexIgnoreCase(expr.Name()));
    }
    if (index < 0) {
      std::string available;
      for (const auto& field : schema_.Fields()) {
        available += available.empty() ? "" : ", ";
        available += field.Name();
      }
      return Status::InvalidArgument(
          fmt::format("column '{}' not found; available: {}", expr.Name(), available));
    }
    const columnar::Field& field = schema_.FieldAt(index);
    return MakeBound(Op::kColumn, field.Type(), {}, index, Scalar::Null(), field.Name());
  }

  Result<BoundExprPtr> BindGetField(const Expression& expr, BoundExprPtr input) {
    const DataType& type = *input->Type();
    if (type.Id() != TypeId::kStruct) {
      return Status::InvalidArgument(
          fmt::format("cannot access field '{}' of {} ({} is not a struct)", expr.Name(),
                      input->ToString(), type.ToString()));
    }
    int index = type.FieldIndex(expr.Name());
    if (index < 0) {
      columnar::Schema fields(type.Fields());
      TRIBUTARY_ASSIGN_OR_RAISE(index, fields.FieldIndexIgnoreCase(expr.Name()));
    }
    if (index < 0) {
      return Status::InvalidArgument(fmt::format("struct {} of type {} has no field '{}'",
                                                 input->ToString(), type.ToString(), expr.Name()));
    }
    const columnar::Field& field = type.Fields()[static_cast<size_t>(index)];
    return MakeBound(Op::kGetField, field.Type(), {std::move(input)}, index, Scalar::Null(),
                     field.Name());
  }

  // Spark's ANSI string promotion for arithmetic: a string beside an integer is cast to bigint
  // and both operands computed as bigints; beside a float, double or decimal, both as doubles;
  // two strings (or a string and NULL) as doubles, the numeric type an arithmetic operator
  // implicitly casts to. A string that is no number fails the cast (CAST_INVALID_INPUT).
  static void PromoteArithmeticStrings(std::vector<BoundExprPtr>* children) {
    const DataTypePtr& a = (*children)[0]->Type();
    const DataTypePtr& b = (*children)[1]->Type();
    const bool a_text = a->Id() == TypeId::kString || a->Id() == TypeId::kNull;
    const bool b_text = b->Id() == TypeId::kString || b->Id() == TypeId::kNull;
    DataTypePtr type;
    if (a_text && b_text) {
      if (a->Id() == TypeId::kString || b->Id() == TypeId::kString) {
        type = DataType::Float64();
      }
    } else if (DataTypePtr promoted = StringPromotionType(a, b);
               promoted != nullptr && promoted->IsNumeric()) {
      type = promoted;
    }
    if (type != nullptr) {
      for (BoundExprPtr& child : *children) {
        child = CastTo(std::move(child), type);
      }
    }
  }

  Result<BoundExprPtr> BindArithmetic(const Expression& expr, std::vector<BoundExprPtr> children) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto dated, BindDateArithmetic(expr, children));
    if (dated != nullptr) {
      return dated;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto temporal, BindIntervalArithmetic(expr, children));
    if (temporal != nullptr) {
      return temporal;
    }
    PromoteArithmeticStrings(&children);
    DataTypePtr a = children[0]->Type();
    DataTypePtr b = children[1]->Type();
    if (a->Id() == TypeId::kNull) {
      a = b->Id() == TypeId::kNull ? DataType::Float64() : b;
    }
    if (b->Id() == TypeId::kNull) {
      b = a;
    }
    if (!a->IsNumeric() || !b->IsNumeric()) {
      // Spark first promotes a string to the other operand's type, then finds the types equal
      // but not numeric (BINARY_OP_WRONG_TYPE) or still different (BINARY_OP_DIFF_TYPES).
      const bool same = a->SameShape(*b) || StringPromotionType(a, b) != nullptr;
      return Status::InvalidArgument(
          fmt::format("[DATATYPE_MISMATCH.{}] type mismatch in {}: {} and {} are not both numeric",
                      same ? "BINARY_OP_WRONG_TYPE" : "BINARY_OP_DIFF_TYPES", expr.ToString(),
                      a->ToString(), b->ToString()));
    }
    const Op op = expr.GetOp();
    const bool decimal = (a->Id() == TypeId::kDecimal || b->Id() == TypeId::kDecimal) &&
                         !a->IsFloatingPoint() && !b->IsFloatingPoint();
    if (!decimal) {
      DataTypePtr type = WiderNumeric(a, b);
      if (op == Op::kDivide) {
        type = DataType::Float64();  // Spark's Divide is defined on double and decimal only.
      }
      return MakeBound(op, type, {CastTo(children[0], type), CastTo(children[1], type)});
    }
    // Spark's DecimalPrecision reads an integer literal beside a decimal as the narrowest
    // decimal holding it (10 as decimal(2,0), not int's decimal(10,0)), which keeps more scale.
    auto operand_decimal = [](const BoundExprPtr& child, const DataTypePtr& type) {
      if (child->GetOp() == Op::kLiteral && type->IsInteger() && !child->Literal().IsNull()) {
        const int64_t value = child->Literal().IntValue();
        uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
        int digits = 1;
        while (magnitude >= 10) {
          magnitude /= 10;
          ++digits;
        }
        return DecimalOrDie(digits, 0);
      }
      return AsDecimal(type);
    };
    const DataTypePtr da = operand_decimal(children[0], a);
    const DataTypePtr db = operand_decimal(children[1], b);
    const int p1 = da->Precision();
    const int s1 = da->Scale();
    const int p2 = db->Precision();
    const int s2 = db->Scale();
    DataTypePtr result;
    switch (op) {
      case Op::kAdd:
      case Op::kSubtract:
        result =
            AdjustedDecimal(std::max(p1 - s1, p2 - s2) + std::max(s1, s2) + 1, std::max(s1, s2));
        break;
      case Op::kMultiply:
        result = AdjustedDecimal(p1 + p2 + 1, s1 + s2);
        break;
      case Op::kDivide: {
        const int scale = std::max(6, s1 + p2 + 1);
        result = AdjustedDecimal(p1 - s1 + s2 + scale, scale);
        break;
      }
      default: {
        const int scale = std::max(s1, s2);
        result = AdjustedDecimal(std::min(p1 - s1, p2 - s2) + scale, scale);
        break;
      }
    }
    // Operands keep their own scales (the kernel aligns them); integers become decimals.
    return MakeBound(op, result, {CastTo(children[0], da), CastTo(children[1], db)});
  }

  Result<BoundExprPtr> BindComparison(const Expression& expr, Op op, BoundExprPtr left,
                                      BoundExprPtr right) {
    DataTypePtr type = ComparisonType(left->Type(), right->Type());
    if (type == nullptr) {
      return Status::InvalidArgument(fmt::format("cannot compare {} with {} in {}",
                                                 left->Type()->ToString(),
                                                 right->Type()->ToString(), expr.SqlText()));
    }
    if (type->Id() == TypeId::kNull) {
      type = DataType::Boolean();
    }
    if (!expr::IsOrderable(*type)) {
      // Spark orders structs field by field and arrays element by element; maps have no order
      // (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE).
      return Status::InvalidArgument(
          fmt::format("cannot compare {} values in {}", type->ToString(), expr.SqlText()));
    }
    return MakeBound(op, DataType::Boolean(),
                     {CastTo(std::move(left), type), CastTo(std::move(right), type)});
  }

  Result<BoundExprPtr> BindIn(const Expression& expr, std::vector<BoundExprPtr> children) {
    if (children.size() < 2) {
      return Status::InvalidArgument("IN needs at least one value in its list: " + expr.ToString());
    }
    std::vector<BoundExprPtr> equals;
    for (size_t i = 1; i < children.size(); ++i) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto equal,
                                BindComparison(expr, Op::kEqual, children[0], children[i]));
      equals.push_back(std::move(equal));
    }
    if (BoundExprPtr in_set = InSetFunction::MakeInSet(equals)) {
      return in_set;
    }
    // Otherwise ORed as a balanced tree: an IN list of thousands of values must not become a chain
    // deeper than the stack can walk.
    return BalancedTree(std::move(equals), [](BoundExprPtr left, BoundExprPtr right) {
      return MakeBound(Op::kOr, DataType::Boolean(), {std::move(left), std::move(right)});
    });
  }

  // mod(a, b) is a % b; pmod(a, b) is Spark's positive modulus: r = a % b, then (r + b) % b
  // when r < 0.
  Result<BoundExprPtr> BindModulo(const Expression& expr) {
    if (expr.Children().size() != 2) {
      return Status::InvalidArgument(fmt::format("{}: {} takes 2 arguments, got {}",
                                                 expr.ToString(), expr.Name(),
                                                 expr.Children().size()));
    }
    const ExprPtr& a = expr.Child(0);
    const ExprPtr& b = expr.Child(1);
    ExprPtr remainder = Call(Op::kRemainder, {a, b});
    if (expr.Name() == "mod") {
      return Bind(*remainder);
    }
    ExprPtr negative = Call(Op::kLess, {remainder, Lit(Scalar::Int32(0))});
    ExprPtr wrapped = Call(Op::kRemainder, {Call(Op::kAdd, {remainder, b}), b});
    return Bind(*CaseWhen({{negative, wrapped}}, remainder));
  }

  Result<BoundExprPtr> BindCaseWhen(const Expression& expr, std::vector<BoundExprPtr> children) {
    std::vector<DataTypePtr> value_types;
    const bool has_else = expr.HasElse();
    for (size_t i = 0; i < children.size(); ++i) {
      const bool is_condition = i % 2 == 0 && !(has_else && i + 1 == children.size());
      if (is_condition) {
        TRIBUTARY_ASSIGN_OR_RAISE(children[i], RequireBoolean(expr, std::move(children[i])));
      } else {
        value_types.push_back(children[i]->Type());
      }
    }
    DataTypePtr type = CommonType(value_types);
    if (type == nullptr) {
      std::string types;
      for (const DataTypePtr& t : value_types) {
        types += types.empty() ? "" : ", ";
        types += t->ToString();
      }
      return Status::InvalidArgument(
          fmt::format("the branches of {} have no common type ({})", expr.ToString(), types));
    }
    for (size_t i = 0; i < children.size(); ++i) {
      const bool is_condition = i % 2 == 0 && !(has_else && i + 1 == children.size());
      if (!is_condition) {
        children[i] = CastTo(std::move(children[i]), type);
      }
    }
    return MakeBound(Op::kCaseWhen, std::move(type), std::move(children));
  }

  Result<BoundExprPtr> BindSubscript(const Expression& expr, BoundExprPtr base, BoundExprPtr key) {
    const DataType& type = *base->Type();
    if (type.Id() == TypeId::kArray) {
      if (!key->Type()->IsInteger() && key->Type()->Id() != TypeId::kNull) {
        return Mismatch(expr, "an integer index", *key->Type());
      }
      return MakeBound(Op::kSubscript, type.ElementType(),
                       {std::move(base), CastTo(std::move(key), DataType::Int32())});
    }
    if (type.Id() == TypeId::kMap) {
      DataTypePtr key_type = ComparisonType(type.KeyType(), key->Type());
      if (key_type == nullptr || !key_type->SameShape(*type.KeyType())) {
        return Mismatch(expr, "a key of type " + type.KeyType()->ToString(), *key->Type());
      }
      return MakeBound(Op::kSubscript, type.ValueType(),
                       {std::move(base), CastTo(std::move(key), type.KeyType())});
    }
    return Status::InvalidArgument(fmt::format("cannot subscript {} of type {} in {}",
                                               base->ToString(), type.ToString(), expr.SqlText()));
  }

  // The innermost lambda parameter of that name (ignoring case), as the column holding it.
  Result<BoundExprPtr> BindLambdaVariable(const Expression& expr) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (EqualsIgnoreAsciiCase(it->first, expr.Name())) {
        const columnar::Field& field = schema_.FieldAt(it->second);
        return MakeBound(Op::kColumn, field.Type(), {}, it->second, Scalar::Null(), field.Name());
      }
    }
    return Status::InvalidArgument(
        fmt::format("lambda variable '{}' is used outside its lambda function", expr.Name()));
  }

  const columnar::Schema& schema_;
  LambdaScope scope_;
};

}  // namespace

Result<BoundExprPtr> Bind(const Expression& expr, const columnar::Schema& schema) {
  return Binder(schema).Bind(expr);
}

Result<BoundExprPtr> BindInScope(const Expression& expr, const columnar::Schema& schema,
                                 const LambdaScope& scope) {
  return Binder(schema, scope).Bind(expr);
}

}  // namespace tributary::expr

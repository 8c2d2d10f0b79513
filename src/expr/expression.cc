#include "expr/expression.h"

#include <fmt/format.h>

namespace tributary::expr {

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kColumn:
      return "column";
    case Op::kGetField:
      return "getfield";
    case Op::kLiteral:
      return "literal";
    case Op::kAdd:
      return "+";
    case Op::kSubtract:
      return "-";
    case Op::kMultiply:
      return "*";
    case Op::kDivide:
      return "/";
    case Op::kRemainder:
      return "%";
    case Op::kNegate:
      return "-";
    case Op::kEqual:
      return "=";
    case Op::kNotEqual:
      return "!=";
    case Op::kLess:
      return "<";
    case Op::kLessEqual:
      return "<=";
    case Op::kGreater:
      return ">";
    case Op::kGreaterEqual:
      return ">=";
    case Op::kNullSafeEqual:
      return "<=>";
    case Op::kAnd:
      return "AND";
    case Op::kOr:
      return "OR";
    case Op::kNot:
      return "NOT";
    case Op::kIsNull:
      return "IS NULL";
    case Op::kIsNotNull:
      return "IS NOT NULL";
    case Op::kIn:
      return "IN";
    case Op::kBetween:
      return "BETWEEN";
    case Op::kCast:
      return "CAST";
    case Op::kTryCast:
      return "TRY_CAST";
  }
  return "?";
}

bool IsComparison(Op op) {
  return op == Op::kEqual || op == Op::kNotEqual || op == Op::kLess || op == Op::kLessEqual ||
         op == Op::kGreater || op == Op::kGreaterEqual || op == Op::kNullSafeEqual;
}

Expression::Expression(Op op, std::vector<ExprPtr> children, std::string name, Scalar literal,
                       DataTypePtr target_type)
    : op_(op),
      children_(std::move(children)),
      name_(std::move(name)),
      literal_(std::move(literal)),
      target_type_(std::move(target_type)) {}

namespace {

std::string QuoteName(const std::string& name) {
  if (name.find_first_of(".` ") == std::string::npos && !name.empty()) {
    return name;
  }
  std::string out = "`";
  for (char c : name) {
    out.push_back(c);
    if (c == '`') {
      out.push_back(c);
    }
  }
  return out + "`";
}

ExprPtr Make(Op op, std::vector<ExprPtr> children, std::string name = {},
             Scalar literal = Scalar::Null(), DataTypePtr target = nullptr) {
  return std::make_shared<const Expression>(op, std::move(children), std::move(name),
                                            std::move(literal), std::move(target));
}

}  // namespace

std::string FormatOperator(Op op, const std::vector<std::string>& operands,
                           const DataType* cast_type) {
  switch (op) {
    case Op::kNegate:
      return fmt::format("(- {})", operands[0]);
    case Op::kNot:
      return fmt::format("(NOT {})", operands[0]);
    case Op::kIsNull:
    case Op::kIsNotNull:
      return fmt::format("({} {})", operands[0], OpName(op));
    case Op::kIn: {
      std::string out = fmt::format("({} IN (", operands[0]);
      for (size_t i = 1; i < operands.size(); ++i) {
        out += i > 1 ? ", " : "";
        out += operands[i];
      }
      return out + "))";
    }
    case Op::kBetween:
      return fmt::format("({} BETWEEN {} AND {})", operands[0], operands[1], operands[2]);
    case Op::kCast:
    case Op::kTryCast:
      return fmt::format("{}({} AS {})", OpName(op), operands[0],
                         cast_type ? cast_type->ToString() : "?");
    default:
      return operands.size() == 2 ? fmt::format("({} {} {})", operands[0], OpName(op), operands[1])
                                  : std::string(OpName(op));
  }
}

std::string Expression::ToString() const {
  switch (op_) {
    case Op::kColumn:
      return QuoteName(name_);
    case Op::kGetField:
      return fmt::format("{}.{}", children_[0]->ToString(), QuoteName(name_));
    case Op::kLiteral:
      return literal_.ToString();
    default: {
      std::vector<std::string> operands;
      for (const ExprPtr& child : children_) {
        operands.push_back(child->ToString());
      }
      return FormatOperator(op_, operands, target_type_.get());
    }
  }
}

ExprPtr Col(std::string_view path) {
  std::vector<std::string> parts;
  std::string current;
  bool quoted = false;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '`') {
      if (quoted && i + 1 < path.size() && path[i + 1] == '`') {
        current.push_back('`');
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  parts.push_back(std::move(current));
  ExprPtr expr = Make(Op::kColumn, {}, parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) {
    expr = GetField(std::move(expr), std::move(parts[i]));
  }
  return expr;
}

ExprPtr GetField(ExprPtr input, std::string name) {
  return Make(Op::kGetField, {std::move(input)}, std::move(name));
}
ExprPtr Lit(Scalar value) {
  return Make(Op::kLiteral, {}, {}, std::move(value));
}
ExprPtr Call(Op op, std::vector<ExprPtr> children) {
  return Make(op, std::move(children));
}
ExprPtr Cast(ExprPtr input, DataTypePtr type) {
  return Make(Op::kCast, {std::move(input)}, {}, Scalar::Null(), std::move(type));
}
ExprPtr TryCast(ExprPtr input, DataTypePtr type) {
  return Make(Op::kTryCast, {std::move(input)}, {}, Scalar::Null(), std::move(type));
}
ExprPtr In(ExprPtr value, std::vector<ExprPtr> list) {
  list.insert(list.begin(), std::move(value));
  return Make(Op::kIn, std::move(list));
}
ExprPtr Between(ExprPtr value, ExprPtr low, ExprPtr high) {
  return Make(Op::kBetween, {std::move(value), std::move(low), std::move(high)});
}
ExprPtr IsNull(ExprPtr input) {
  return Make(Op::kIsNull, {std::move(input)});
}
ExprPtr IsNotNull(ExprPtr input) {
  return Make(Op::kIsNotNull, {std::move(input)});
}
ExprPtr Not(ExprPtr input) {
  return Make(Op::kNot, {std::move(input)});
}
ExprPtr And(ExprPtr left, ExprPtr right) {
  return Make(Op::kAnd, {std::move(left), std::move(right)});
}
ExprPtr Or(ExprPtr left, ExprPtr right) {
  return Make(Op::kOr, {std::move(left), std::move(right)});
}

}  // namespace tributary::expr

#include "expr/expression.h"

#include <algorithm>
#include <array>
#include <iterator>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/decimal.h"
#include "common/ascii.h"
#include "expr/aggregate_signatures.h"
#include "expr/backquoted_name.h"

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
    case Op::kFunction:
      return "function";
    case Op::kCaseWhen:
      return "CASE";
    case Op::kSubscript:
      return "[]";
    case Op::kWindow:
      return "OVER";
    case Op::kLambda:
      return "->";
    case Op::kLambdaVariable:
      return "lambda variable";
  }
  return "?";
}

bool IsComparison(Op op) {
  return op == Op::kEqual || op == Op::kNotEqual || op == Op::kLess || op == Op::kLessEqual ||
         op == Op::kGreater || op == Op::kGreaterEqual || op == Op::kNullSafeEqual;
}

Expression::Expression(Op op, std::vector<ExprPtr> children, std::string name, Scalar literal,
                       DataTypePtr target_type, bool distinct,
                       std::shared_ptr<const WindowSpec> window)
    : op_(op),
      children_(std::move(children)),
      name_(std::move(name)),
      literal_(std::move(literal)),
      target_type_(std::move(target_type)),
      distinct_(distinct),
      window_(std::move(window)) {}

std::string BackquotedName(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    out.push_back(c);
    if (c == '`') {
      out.push_back(c);
    }
  }
  return out + "`";
}

namespace {

std::string QuoteName(const std::string& name) {
  if (name.find_first_of(".` ") == std::string::npos && !name.empty()) {
    return name;
  }
  return BackquotedName(name);
}

ExprPtr Make(Op op, std::vector<ExprPtr> children, std::string name = {},
             Scalar literal = Scalar::Null(), DataTypePtr target = nullptr, bool distinct = false) {
  return std::make_shared<const Expression>(op, std::move(children), std::move(name),
                                            std::move(literal), std::move(target), distinct);
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
    case Op::kCaseWhen: {
      std::string out = "CASE";
      size_t i = 0;
      for (; i + 1 < operands.size(); i += 2) {
        out += fmt::format(" WHEN {} THEN {}", operands[i], operands[i + 1]);
      }
      if (i < operands.size()) {
        out += " ELSE " + operands[i];
      }
      return out + " END";
    }
    case Op::kSubscript:
      return fmt::format("{}[{}]", operands[0], operands[1]);
    case Op::kLambda: {
      // Spark's text of a lambda: "x -> body" or "(x, y) -> body".
      std::string params;
      for (size_t i = 1; i < operands.size(); ++i) {
        params += i > 1 ? ", " : "";
        params += operands[i];
      }
      return operands.size() == 2 ? fmt::format("{} -> {}", params, operands[0])
                                  : fmt::format("({}) -> {}", params, operands[0]);
    }
    default:
      return operands.size() == 2 ? fmt::format("({} {} {})", operands[0], OpName(op), operands[1])
                                  : std::string(OpName(op));
  }
}

std::string FormatFunctionCall(std::string_view name, const std::vector<std::string>& arguments,
                               bool distinct) {
  std::string out = fmt::format("{}({}", name, distinct ? "DISTINCT " : "");
  for (size_t i = 0; i < arguments.size(); ++i) {
    out += i > 0 ? ", " : "";
    out += arguments[i];
  }
  return out + ")";
}

std::string Expression::ToString() const {
  return Text(false);
}

std::string Expression::SqlText() const {
  return Text(true);
}

std::string Expression::Text(bool sql_literals) const {
  switch (op_) {
    case Op::kColumn:
      return QuoteName(name_);
    case Op::kGetField:
      return fmt::format("{}.{}", children_[0]->Text(sql_literals), QuoteName(name_));
    case Op::kLiteral:
      return sql_literals ? literal_.SqlText() : literal_.ToString();
    case Op::kLambdaVariable:
      return QuoteName(name_);
    default: {
      std::vector<std::string> operands;
      for (const ExprPtr& child : children_) {
        operands.push_back(child->Text(sql_literals));
      }
      if (op_ == Op::kFunction) {
        return FormatFunctionCall(name_, operands, distinct_);
      }
      if (op_ == Op::kWindow) {
        const auto arguments = static_cast<std::ptrdiff_t>(window_->num_arguments);
        return fmt::format(
            "{} OVER ({})",
            FormatFunctionCall(name_, {operands.begin(), operands.begin() + arguments}, distinct_),
            window_->ToString({operands.begin() + arguments, operands.end()}));
      }
      return FormatOperator(op_, operands, target_type_.get());
    }
  }
}

namespace {

// A literal as Spark's usePrettyExpression shows it: strings and numbers by their values, NULL
// as NULL, the rest (dates, timestamps, binary, booleans) as their SQL literals.
std::string PrettyLiteral(const Scalar& value) {
  if (value.IsNull()) {
    return "NULL";
  }
  std::string out;
  switch (value.Type()->Id()) {
    case columnar::TypeId::kString:
      return value.BytesValue();
    case columnar::TypeId::kInt8:
    case columnar::TypeId::kInt16:
    case columnar::TypeId::kInt32:
    case columnar::TypeId::kInt64:
      return fmt::format("{}", value.IntValue());
    case columnar::TypeId::kFloat32:
    case columnar::TypeId::kFloat64:
      columnar::AppendJsonDouble(value.DoubleValue(),
                                 value.Type()->Id() == columnar::TypeId::kFloat32, &out);
      return out;
    case columnar::TypeId::kDecimal:
      columnar::AppendDecimal(value.DecimalValue(), value.Type()->Scale(), &out);
      return out;
    default:
      return value.ToString();
  }
}

// A window function call as Spark names it: its frame always written out, the default one
// resolved as Spark resolves it (ranking functions ROWS up to the current row, lag/lead a
// one-row frame at their offset, aggregates RANGE up to the current row when ordered, else the
// whole partition), and lag/lead with their default offset and value.
std::string PrettyWindowCall(const Expression& e, const std::vector<std::string>& operands) {
  const WindowSpec& spec = *e.Window();
  const auto arguments = static_cast<std::ptrdiff_t>(spec.num_arguments);
  std::vector<std::string> call(operands.begin(), operands.begin() + arguments);
  const std::vector<std::string> keys(operands.begin() + arguments, operands.end());
  static constexpr std::array<std::string_view, 6> kRanking = {
      "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"};
  std::string frame;
  auto bound_text = [](const WindowFrameBound& bound) -> std::string {
    switch (bound.kind) {
      case WindowFrameBound::Kind::kUnboundedPreceding:
        return "UNBOUNDED PRECEDING";
      case WindowFrameBound::Kind::kPreceding:
        return PrettyLiteral(bound.offset) + " PRECEDING";
      case WindowFrameBound::Kind::kCurrentRow:
        return "CURRENT ROW";
      case WindowFrameBound::Kind::kFollowing:
        return PrettyLiteral(bound.offset) + " FOLLOWING";
      case WindowFrameBound::Kind::kUnboundedFollowing:
        return "UNBOUNDED FOLLOWING";
    }
    return "?";
  };
  if ((e.Name() == "lag" || e.Name() == "lead") && !call.empty()) {
    if (call.size() < 2) {
      call.emplace_back("1");
    }
    if (call.size() < 3) {
      call.emplace_back("NULL");
    }
    std::string offset = call[1];
    if (e.Name() == "lag") {
      offset = offset.starts_with('-') ? offset.substr(1) : fmt::format("-{}", offset);
    }
    frame = fmt::format("ROWS BETWEEN {0} FOLLOWING AND {0} FOLLOWING", offset);
  } else if (spec.has_frame) {
    frame = fmt::format("{} BETWEEN {} AND {}",
                        spec.frame_type == WindowSpec::FrameType::kRows ? "ROWS" : "RANGE",
                        bound_text(spec.start), bound_text(spec.end));
  } else if (std::find(kRanking.begin(), kRanking.end(), e.Name()) != kRanking.end()) {
    frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
  } else if (!spec.order.empty()) {
    frame = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
  } else {
    frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING";
  }
  std::string over;
  for (size_t i = 0; i < spec.num_partition_keys; ++i) {
    over += i == 0 ? "PARTITION BY " : ", ";
    over += keys[i];
  }
  for (size_t i = 0; i < spec.order.size(); ++i) {
    over += i == 0 ? (over.empty() ? "ORDER BY " : " ORDER BY ") : ", ";
    over += fmt::format("{} {} NULLS {}", keys[spec.num_partition_keys + i],
                        spec.order[i].ascending ? "ASC" : "DESC",
                        spec.order[i].nulls_first ? "FIRST" : "LAST");
  }
  if (!over.empty()) {
    over.push_back(' ');
  }
  return fmt::format("{} OVER ({}{})", FormatFunctionCall(e.Name(), call, e.IsDistinct()), over,
                     frame);
}

bool IsNumericLiteral(const Expression& e) {
  return e.GetOp() == Op::kLiteral && !e.Literal().IsNull() && e.Literal().Type()->IsNumeric();
}

}  // namespace

std::string PrettyName(const Expression& e) {
  switch (e.GetOp()) {
    case Op::kColumn:
    case Op::kGetField:
    case Op::kLambdaVariable:
      return e.ToString();
    case Op::kLiteral:
      return PrettyLiteral(e.Literal());
    default:
      break;
  }
  std::vector<std::string> operands;
  operands.reserve(e.Children().size());
  for (const ExprPtr& child : e.Children()) {
    operands.push_back(PrettyName(*child));
  }
  switch (e.GetOp()) {
    case Op::kFunction:
      if (e.Name() == "count" && operands.empty()) {
        return "count(1)";
      }
      if (e.Name() == "if" && operands.size() == 3) {
        return fmt::format("(IF({}, {}, {}))", operands[0], operands[1], operands[2]);
      }
      if ((e.Name() == "like" || e.Name() == "rlike" || e.Name() == "regexp") &&
          operands.size() == 2) {
        return fmt::format("{} {} {}", operands[0], AsciiUpper(e.Name()), operands[1]);
      }
      if (e.Name() == "div" && operands.size() == 2) {
        return fmt::format("({} div {})", operands[0], operands[1]);
      }
      return FormatFunctionCall(e.Name(), operands, e.IsDistinct());
    case Op::kWindow:
      return PrettyWindowCall(e, operands);
    case Op::kNegate:
      // The parser reads -1 as one literal in Spark.
      if (IsNumericLiteral(*e.Child(0))) {
        return fmt::format("-{}", operands[0]);
      }
      return fmt::format("(- {})", operands[0]);
    case Op::kNotEqual:
      return fmt::format("(NOT ({} = {}))", operands[0], operands[1]);
    case Op::kCast:
    case Op::kTryCast:
      return fmt::format("{}({} AS {})", OpName(e.GetOp()), operands[0], e.TargetType()->Sql());
    default:
      return FormatOperator(e.GetOp(), operands, e.TargetType().get());
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

ExprPtr Function(const std::string& name, std::vector<ExprPtr> args, bool distinct) {
  return Make(Op::kFunction, std::move(args), AsciiLower(name), Scalar::Null(), nullptr, distinct);
}

ExprPtr CaseWhen(std::vector<std::pair<ExprPtr, ExprPtr>> branches, ExprPtr else_value) {
  std::vector<ExprPtr> children;
  for (std::pair<ExprPtr, ExprPtr>& branch : branches) {
    children.push_back(std::move(branch.first));
    children.push_back(std::move(branch.second));
  }
  if (else_value != nullptr) {
    children.push_back(std::move(else_value));
  }
  return Make(Op::kCaseWhen, std::move(children));
}

namespace {

// `e` with column references named in `params` turned into lambda variables.
ExprPtr ReplaceLambdaParams(const ExprPtr& e, const std::vector<std::string>& params) {
  if (e->GetOp() == Op::kColumn) {
    const bool is_param = std::any_of(params.begin(), params.end(), [&](const std::string& p) {
      return EqualsIgnoreAsciiCase(p, e->Name());
    });
    return is_param ? LambdaVariable(e->Name()) : e;
  }
  std::vector<ExprPtr> children;
  bool changed = false;
  for (const ExprPtr& child : e->Children()) {
    children.push_back(ReplaceLambdaParams(child, params));
    changed = changed || children.back() != child;
  }
  if (!changed) {
    return e;
  }
  return std::make_shared<const Expression>(e->GetOp(), std::move(children), e->Name(),
                                            e->Literal(), e->TargetType(), e->IsDistinct(),
                                            e->Window());
}

}  // namespace

ExprPtr LambdaExpr(std::vector<std::string> params, ExprPtr body) {
  body = ReplaceLambdaParams(body, params);
  std::vector<ExprPtr> children = {std::move(body)};
  for (std::string& param : params) {
    children.push_back(LambdaVariable(std::move(param)));
  }
  return Make(Op::kLambda, std::move(children));
}

ExprPtr LambdaVariable(std::string name) {
  return Make(Op::kLambdaVariable, {}, std::move(name));
}

ExprPtr Subscript(ExprPtr base, ExprPtr key) {
  return Make(Op::kSubscript, {std::move(base), std::move(key)});
}

bool IsAggregateFunctionName(std::string_view name) {
  return FindAggregateSignature(name) != nullptr;
}

bool ContainsAggregate(const Expression& e) {
  if (e.GetOp() == Op::kFunction && IsAggregateFunctionName(e.Name())) {
    return true;
  }
  return std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return ContainsAggregate(*child); });
}

bool ContainsWindow(const Expression& e) {
  return e.GetOp() == Op::kWindow ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return ContainsWindow(*child); });
}

bool IsWindowOnlyFunctionName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"row_number",   "rank",      "dense_rank",
                                                "percent_rank", "cume_dist", "ntile",
                                                "lag",          "lead",      "nth_value"};
  const std::string lower = AsciiLower(name);
  return std::find(std::begin(kNames), std::end(kNames), lower) != std::end(kNames);
}

ExprPtr WindowCall(const std::string& function, std::vector<ExprPtr> arguments, bool distinct,
                   std::vector<ExprPtr> keys, WindowSpec spec) {
  spec.num_arguments = arguments.size();
  for (ExprPtr& key : keys) {
    arguments.push_back(std::move(key));
  }
  return std::make_shared<Expression>(Op::kWindow, std::move(arguments), AsciiLower(function),
                                      Scalar::Null(), nullptr, distinct,
                                      std::make_shared<const WindowSpec>(std::move(spec)));
}

namespace {

std::string FrameBoundText(const WindowFrameBound& bound) {
  switch (bound.kind) {
    case WindowFrameBound::Kind::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case WindowFrameBound::Kind::kPreceding:
      return bound.offset.ToString() + " PRECEDING";
    case WindowFrameBound::Kind::kCurrentRow:
      return "CURRENT ROW";
    case WindowFrameBound::Kind::kFollowing:
      return bound.offset.ToString() + " FOLLOWING";
    case WindowFrameBound::Kind::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

}  // namespace

std::string WindowSpec::ToString(const std::vector<std::string>& keys) const {
  std::vector<std::string> parts;
  if (num_partition_keys > 0) {
    std::string text = "PARTITION BY ";
    for (size_t i = 0; i < num_partition_keys; ++i) {
      text += (i > 0 ? ", " : "") + keys[i];
    }
    parts.push_back(std::move(text));
  }
  if (!order.empty()) {
    std::string text = "ORDER BY ";
    for (size_t i = 0; i < order.size(); ++i) {
      text +=
          fmt::format("{}{} {} NULLS {}", i > 0 ? ", " : "", keys[num_partition_keys + i],
                      order[i].ascending ? "ASC" : "DESC", order[i].nulls_first ? "FIRST" : "LAST");
    }
    parts.push_back(std::move(text));
  }
  if (has_frame) {
    parts.push_back(fmt::format("{} BETWEEN {} AND {}",
                                frame_type == FrameType::kRows ? "ROWS" : "RANGE",
                                FrameBoundText(start), FrameBoundText(end)));
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    out += (i > 0 ? " " : "") + parts[i];
  }
  return out;
}

bool IsGeneratorFunctionName(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "explode",          "posexplode",   "inline",     "explode_outer",
      "posexplode_outer", "inline_outer", "json_tuple", "stack"};
  const std::string lower = AsciiLower(name);
  return std::find(std::begin(kNames), std::end(kNames), lower) != std::end(kNames);
}

}  // namespace tributary::expr

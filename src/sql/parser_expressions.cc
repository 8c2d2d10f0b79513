// The SQL parser's scalar expressions, loosest operator first (OR down to primaries: literals,
// CASE, CAST, function calls, subqueries, names), and its types (parser_internal.h).

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "columnar/sql_type_parser.h"
#include "common/ascii.h"
#include "common/closest_match.h"
#include "expr/backquoted_name.h"
#include "expr/csv_functions.h"
#include "formats/json/json_reader.h"
#include "formats/text/schema_hints.h"
#include "sql/keywords.h"
#include "sql/number_literal.h"
#include "sql/parser_internal.h"

namespace tributary::sql::internal {

// ---- types ----

// A type is one word, then a balanced (...) for decimal/varchar/char or <...> for
// array/map/struct; its text goes to the one Spark type parser (formats/text/schema_hints).
Result<columnar::DataTypePtr> Parser::ParseType() {
  const Token& first = Peek();
  if (first.kind != TokenKind::kWord && first.kind != TokenKind::kQuotedWord) {
    return Unexpected("a type");
  }
  Next();
  // INTERVAL YEAR TO MONTH, INTERVAL DAY, ...: the unit words belong to the type's text.
  if (first.IsKeyword("INTERVAL") && IsIntervalUnit(Peek())) {
    Next();
    if (Peek().IsKeyword("TO") && IsIntervalUnit(Peek(1))) {
      pos_ += 2;
    }
  }
  const std::string_view open =
      OneOf(first.text, {"array", "map", "struct"})                         ? "<"
      : OneOf(first.text, {"decimal", "dec", "numeric", "varchar", "char"}) ? "("
                                                                            : "";
  if (!open.empty() && Peek().IsOperator(open)) {
    const std::string_view close = open == "<" ? ">" : ")";
    int depth = 0;
    do {
      const Token& token = Peek();
      if (token.kind == TokenKind::kEnd) {
        return ErrorAt(first, fmt::format("unterminated type: no '{}' closes it", close));
      }
      if (token.IsOperator(open)) {
        ++depth;
      } else if (token.IsOperator(close)) {
        --depth;
      }
      Next();
    } while (depth > 0);
  }
  auto type = columnar::ParseSqlType(TextFrom(first));
  if (type.ok()) {
    return type;
  }
  const std::string_view match = ClosestMatch(first.text, kTypeNames);
  const bool known = std::any_of(kTypeNames.begin(), kTypeNames.end(), [&](std::string_view n) {
    return EqualsIgnoreAsciiCase(n, first.text);
  });
  if (!known && !match.empty()) {
    return ErrorAt(first, fmt::format("unknown type '{}' (did you mean {}?)", first.text, match));
  }
  return ErrorAt(first, type.status().Message());
}

// ---- expressions ----

Result<ExprPtr> Parser::ParseExpr() {
  DepthGuard guard(&depth_);
  TRIBUTARY_RETURN_NOT_OK(CheckDepth());
  const SourcePosition position = Peek().position;
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParseOr());
  return CheckHeight(std::move(result), position);
}

Result<ExprPtr> Parser::ParseOr() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseAnd());
  while (Peek().IsKeyword("OR")) {
    const SourcePosition position = Next().position;
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseAnd());
    TRIBUTARY_ASSIGN_OR_RAISE(
        left, CheckHeight(Track(expr::Or(std::move(left), std::move(right)), position), position));
  }
  return left;
}

Result<ExprPtr> Parser::ParseAnd() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseNot());
  while (Peek().IsKeyword("AND")) {
    const SourcePosition position = Next().position;
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseNot());
    TRIBUTARY_ASSIGN_OR_RAISE(
        left, CheckHeight(Track(expr::And(std::move(left), std::move(right)), position), position));
  }
  return left;
}

Result<ExprPtr> Parser::ParseNot() {
  const Token& token = Peek();
  if (token.IsKeyword("NOT")) {
    DepthGuard guard(&depth_);
    TRIBUTARY_RETURN_NOT_OK(CheckDepth());
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr operand, ParseNot());
    return Track(expr::Not(std::move(operand)), token.position);
  }
  // EXISTS (query); otherwise exists(array, x -> cond) is the higher-order function.
  if (token.IsKeyword("EXISTS") && Peek(1).IsOperator("(") && IsQueryStart(2)) {
    Next();
    return SubqueryCall(kExistsFunction, {}, token);
  }
  return ParsePredicate();
}

// `(query)` after the cursor's "(" as a placeholder call `name(args)` (ast.h).
Result<ExprPtr> Parser::SubqueryCall(std::string_view name, std::vector<ExprPtr> args,
                                     const Token& at) {
  if (!allow_subqueries_) {
    return ErrorAt(at, "subqueries are not allowed in a standalone expression");
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr query, ParseQuery());
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  ExprPtr call = Track(expr::Function(std::string(name), std::move(args)), at.position);
  sources_->subqueries.emplace(call.get(), std::move(query));
  return call;
}

Result<ExprPtr> Parser::ParsePredicate() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseComparison());
  const Token& token = Peek();
  const bool negated =
      token.IsKeyword("NOT") &&
      (Peek(1).IsKeyword("BETWEEN") || Peek(1).IsKeyword("IN") || Peek(1).IsKeyword("LIKE") ||
       Peek(1).IsKeyword("RLIKE") || Peek(1).IsKeyword("REGEXP") || Peek(1).IsKeyword("ILIKE"));
  if (negated) {
    Next();
  }
  const Token& op = Peek();
  ExprPtr result;
  if (op.IsKeyword("BETWEEN")) {
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr low, ParseComparison());
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AND"));
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr high, ParseComparison());
    result = expr::Between(std::move(value), std::move(low), std::move(high));
  } else if (op.IsKeyword("IN")) {
    Next();
    if (IsQueryStart(1) && Peek().IsOperator("(")) {
      TRIBUTARY_ASSIGN_OR_RAISE(result, SubqueryCall(kInSubqueryFunction, {value}, op));
    } else {
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
      std::vector<ExprPtr> list;
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr item, ParseExpr());
        list.push_back(std::move(item));
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      result = expr::In(std::move(value), std::move(list));
    }
  } else if (op.IsKeyword("LIKE") || op.IsKeyword("ILIKE") || op.IsKeyword("RLIKE") ||
             op.IsKeyword("REGEXP")) {
    Next();
    if (Peek().IsKeyword("ANY") || Peek().IsKeyword("ALL") || Peek().IsKeyword("SOME")) {
      if (op.IsKeyword("RLIKE") || op.IsKeyword("REGEXP")) {
        return ErrorAt(Peek(), fmt::format("{} {} is not supported", AsciiUpper(op.text),
                                           AsciiUpper(Peek().text)));
      }
      return ParseLikeQuantified(std::move(value), op, negated ? &token : nullptr);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr pattern, ParseComparison());
    std::vector<ExprPtr> args = {std::move(value), std::move(pattern)};
    const bool is_like = op.IsKeyword("LIKE") || op.IsKeyword("ILIKE");
    if (is_like && Peek().IsKeyword("ESCAPE")) {
      const Token& escape = Next();
      TRIBUTARY_ASSIGN_OR_RAISE(std::string escape_char, StringLiteral("an escape string"));
      if (escape_char.size() != 1) {
        return ErrorAt(escape, "the ESCAPE string must be one character");
      }
      args.push_back(Track(expr::Lit(Scalar::String(escape_char)), escape.position));
    }
    const std::string name = op.IsKeyword("LIKE")    ? "like"
                             : op.IsKeyword("ILIKE") ? "ilike"
                                                     : "rlike";
    result = expr::Function(name, std::move(args));
  } else if (op.IsKeyword("IS") && !negated) {
    Next();
    const bool is_not = AcceptKeyword("NOT");
    if (AcceptKeyword("NULL")) {
      result = is_not ? expr::IsNotNull(std::move(value)) : expr::IsNull(std::move(value));
    } else if (Peek().IsKeyword("TRUE") || Peek().IsKeyword("FALSE")) {
      const Token& truth = Next();
      ExprPtr literal = Track(expr::Lit(Scalar::Boolean(truth.IsKeyword("TRUE"))), truth.position);
      result = expr::Call(Op::kNullSafeEqual, {std::move(value), std::move(literal)});
      if (is_not) {
        result = expr::Not(Track(std::move(result), op.position));
      }
    } else if (Peek().IsKeyword("UNKNOWN")) {
      // Spark's IsUnknown/IsNotUnknown: whether a boolean is null ("b AND true" is null exactly
      // when b is, and requires a boolean as IsUnknown does).
      const Token& unknown = Next();
      ExprPtr truth = Track(expr::Lit(Scalar::Boolean(true)), unknown.position);
      ExprPtr boolean = Track(expr::And(std::move(value), std::move(truth)), op.position);
      result = is_not ? expr::IsNotNull(std::move(boolean)) : expr::IsNull(std::move(boolean));
    } else if (AcceptKeyword("DISTINCT")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr other, ParseComparison());
      result = expr::Call(Op::kNullSafeEqual, {std::move(value), std::move(other)});
      if (!is_not) {
        result = expr::Not(Track(std::move(result), op.position));
      }
    } else {
      return Unexpected("NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM",
                        {"NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT"});
    }
  } else {
    return value;
  }
  result = Track(std::move(result), op.position);
  if (negated) {
    result = Track(expr::Not(std::move(result)), token.position);
  }
  return result;
}

// `value [NOT] LIKE|ILIKE ANY|SOME|ALL (pattern, ...)` after the operator `op` (`negated`: the
// NOT token, or null): Spark's LikeAny/LikeAll and their NOT forms, as the like calls joined
// by OR (ANY) or AND (ALL), each negated for NOT, which gives their three-valued results.
Result<ExprPtr> Parser::ParseLikeQuantified(ExprPtr value, const Token& op, const Token* negated) {
  const Token& quantifier = Next();
  const bool all = quantifier.IsKeyword("ALL");
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  if (Peek().IsOperator(")")) {
    return ErrorAt(Peek(), fmt::format("[PARSE_SYNTAX_ERROR] {} {} needs at least one pattern",
                                       AsciiUpper(op.text), AsciiUpper(quantifier.text)));
  }
  const std::string name = op.IsKeyword("LIKE") ? "like" : "ilike";
  ExprPtr result;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr pattern, ParseExpr());
    ExprPtr match = Track(expr::Function(name, {value, std::move(pattern)}), op.position);
    if (negated != nullptr) {
      match = Track(expr::Not(std::move(match)), negated->position);
    }
    if (result == nullptr) {
      result = std::move(match);
    } else {
      result = Track(all ? expr::And(std::move(result), std::move(match))
                         : expr::Or(std::move(result), std::move(match)),
                     quantifier.position);
    }
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  return result;
}

// Left-associative binary levels, tightest last.
Result<ExprPtr> Parser::ParseComparison() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseBitOr());
  while (true) {
    const Token& token = Peek();
    Op op = Op::kEqual;
    if (token.IsOperator("=") || token.IsOperator("==")) {
      op = Op::kEqual;
    } else if (token.IsOperator("<>") || token.IsOperator("!=")) {
      op = Op::kNotEqual;
    } else if (token.IsOperator("<")) {
      op = Op::kLess;
    } else if (token.IsOperator("<=")) {
      op = Op::kLessEqual;
    } else if (token.IsOperator(">")) {
      op = Op::kGreater;
    } else if (token.IsOperator(">=")) {
      op = Op::kGreaterEqual;
    } else if (token.IsOperator("<=>")) {
      op = Op::kNullSafeEqual;
    } else {
      return left;
    }
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseBitOr());
    TRIBUTARY_ASSIGN_OR_RAISE(
        left,
        CheckHeight(Track(expr::Call(op, {std::move(left), std::move(right)}), token.position),
                    token.position));
  }
}

// One level of operators that are function calls: `symbol` -> Function(`name`).
Result<ExprPtr> Parser::ParseFunctionOperator(std::string_view symbol, std::string_view name,
                                              Result<ExprPtr> (Parser::*next_level)()) {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, (this->*next_level)());
  while (Peek().IsOperator(symbol)) {
    const SourcePosition position = Next().position;
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, (this->*next_level)());
    TRIBUTARY_ASSIGN_OR_RAISE(
        left,
        CheckHeight(
            Track(expr::Function(std::string(name), {std::move(left), std::move(right)}), position),
            position));
  }
  return left;
}

Result<ExprPtr> Parser::ParseBitOr() {
  return ParseFunctionOperator("|", "|", &Parser::ParseBitXor);
}

Result<ExprPtr> Parser::ParseBitXor() {
  return ParseFunctionOperator("^", "^", &Parser::ParseBitAnd);
}

Result<ExprPtr> Parser::ParseBitAnd() {
  return ParseFunctionOperator("&", "&", &Parser::ParseShift);
}

// <<, >> and >>> (Spark's shiftOperator, between & and the additive operators). The lexer
// keeps '<' and '>' single so that nested types (array<array<int>>) still close; a shift is
// those characters written without a gap.
Result<ExprPtr> Parser::ParseShift() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseAdditive());
  while (true) {
    const Token& token = Peek();
    const bool left_shift = token.IsOperator("<");
    if (!left_shift && !token.IsOperator(">")) {
      return left;
    }
    const auto adjacent = [&](size_t k) {
      const Token& next = Peek(k);
      return next.IsOperator(token.text) && next.position.offset == token.position.offset + k;
    };
    if (!adjacent(1)) {
      return left;
    }
    const bool unsigned_shift = !left_shift && adjacent(2);
    const char* name = left_shift       ? "shiftleft"
                       : unsigned_shift ? "shiftrightunsigned"
                                        : "shiftright";
    Next();
    Next();
    if (unsigned_shift) {
      Next();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseAdditive());
    TRIBUTARY_ASSIGN_OR_RAISE(
        left, CheckHeight(
                  Track(expr::Function(name, {std::move(left), std::move(right)}), token.position),
                  token.position));
  }
}

Result<ExprPtr> Parser::ParseAdditive() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseMultiplicative());
  while (true) {
    const Token& token = Peek();
    if (!token.IsOperator("+") && !token.IsOperator("-") && !token.IsOperator("||")) {
      return left;
    }
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseMultiplicative());
    left = token.IsOperator("||") ? expr::Function("concat", {std::move(left), std::move(right)})
                                  : expr::Call(token.IsOperator("+") ? Op::kAdd : Op::kSubtract,
                                               {std::move(left), std::move(right)});
    TRIBUTARY_ASSIGN_OR_RAISE(left,
                              CheckHeight(Track(std::move(left), token.position), token.position));
  }
}

Result<ExprPtr> Parser::ParseMultiplicative() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseUnary());
  while (true) {
    const Token& token = Peek();
    if (!token.IsOperator("*") && !token.IsOperator("/") && !token.IsOperator("%") &&
        !token.IsKeyword("DIV")) {
      return left;
    }
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseUnary());
    if (token.IsKeyword("DIV")) {
      left = expr::Function("div", {std::move(left), std::move(right)});
    } else {
      const Op op = token.IsOperator("*")   ? Op::kMultiply
                    : token.IsOperator("/") ? Op::kDivide
                                            : Op::kRemainder;
      left = expr::Call(op, {std::move(left), std::move(right)});
    }
    TRIBUTARY_ASSIGN_OR_RAISE(left,
                              CheckHeight(Track(std::move(left), token.position), token.position));
  }
}

Result<ExprPtr> Parser::ParseUnary() {
  const Token& token = Peek();
  const bool negative_number = token.IsOperator("-") && Peek(1).kind == TokenKind::kNumber;
  if (!negative_number &&
      (token.IsOperator("-") || token.IsOperator("+") || token.IsOperator("~"))) {
    DepthGuard guard(&depth_);
    TRIBUTARY_RETURN_NOT_OK(CheckDepth());
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr operand, ParseUnary());
    if (token.IsOperator("+")) {
      return operand;
    }
    return Track(token.IsOperator("-") ? expr::Call(Op::kNegate, {std::move(operand)})
                                       : expr::Function("~", {std::move(operand)}),
                 token.position);
  }
  return ParsePostfix();
}

Result<ExprPtr> Parser::ParsePostfix() {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParsePrimary());
  while (true) {
    const Token& token = Peek();
    if (token.IsOperator("[")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr key, ParseExpr());
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator("]"));
      value = Track(expr::Subscript(std::move(value), std::move(key)), token.position);
    } else if (token.IsOperator(".") &&
               (Peek(1).kind == TokenKind::kWord || Peek(1).kind == TokenKind::kQuotedWord)) {
      Next();
      value = Track(expr::GetField(std::move(value), Next().text), token.position);
    } else if (token.IsOperator("::")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::DataTypePtr type, ParseType());
      value = Track(expr::Cast(std::move(value), std::move(type)), token.position);
    } else {
      return value;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(value, CheckHeight(std::move(value), token.position));
  }
}

// The value of a literal function's Result, or a syntax error at `at` with its message.
template <typename T>
Result<T> Parser::LiteralOrError(Result<T> result, const Token& at) {
  if (!result.ok()) {
    return ErrorAt(at, result.status().Message());
  }
  return result;
}

// INTERVAL (value unit)+ | INTERVAL value unit TO unit | INTERVAL 'n unit ...'; a value is
// a number, -number or a string. The text goes to expr's interval literal parser.
Result<ExprPtr> Parser::IntervalLiteral(const Token& keyword) {
  std::vector<std::pair<std::string, std::string>> parts;
  while (true) {
    const bool minus = Peek().IsOperator("-");
    // A plus sign changes nothing: INTERVAL +'-1-1' YEAR TO MONTH is -1-1, as in Spark.
    const bool sign = minus || Peek().IsOperator("+");
    const Token& value = Peek(sign ? 1 : 0);
    const Token& unit = Peek(sign ? 2 : 1);
    if ((value.kind != TokenKind::kNumber && value.kind != TokenKind::kString) ||
        !IsIntervalUnit(unit)) {
      break;
    }
    pos_ += sign ? 3 : 2;
    // A minus sign negates the value: INTERVAL -'-1' DAY is one day, as in Spark.
    std::string text = value.text;
    if (minus && !text.empty() && text[0] == '-') {
      text.erase(0, 1);
    } else if (minus) {
      text.insert(0, 1, '-');
    }
    parts.emplace_back(std::move(text), AsciiUpper(unit.text));
  }
  std::string value;
  std::string unit;
  if (parts.empty()) {
    if (Peek().kind != TokenKind::kString) {
      return Unexpected("an interval value and unit (INTERVAL '10' MINUTE)", kIntervalUnits);
    }
    value = Next().text;
  } else if (parts.size() == 1) {
    value = parts[0].first;
    unit = parts[0].second;
    if (AcceptKeyword("TO")) {
      if (!IsIntervalUnit(Peek())) {
        return Unexpected("an interval unit", kIntervalUnits);
      }
      unit += " TO " + AsciiUpper(Next().text);
    }
  } else {
    for (const auto& [part_value, part_unit] : parts) {
      value += fmt::format("{}{} {}", value.empty() ? "" : " ", part_value, part_unit);
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(Scalar interval,
                            LiteralOrError(expr::ParseIntervalLiteral(value, unit), keyword));
  return expr::Lit(std::move(interval));
}

Result<ExprPtr> Parser::ParsePrimary() {
  const Token& token = Peek();
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParsePrimaryUntracked());
  if (sources_->positions.count(result.get()) == 0) {
    sources_->positions.emplace(result.get(), token.position);
  }
  return result;
}

Result<ExprPtr> Parser::ParsePrimaryUntracked() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kNumber:
      Next();
      return LiteralOrError(NumberLiteral(token), token);
    case TokenKind::kString: {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string value, StringLiteral("a string"));
      return expr::Lit(Scalar::String(std::move(value)));
    }
    case TokenKind::kBinary: {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(Scalar value,
                                LiteralOrError(expr::BinaryLiteral(token.text), token));
      return expr::Lit(std::move(value));
    }
    case TokenKind::kQuotedWord:
      Next();
      return expr::Col(QuoteIdentifier(token.text));
    case TokenKind::kOperator:
      if (token.IsOperator("(")) {
        return Parenthesized();
      }
      if (token.IsOperator("-") && Peek(1).kind == TokenKind::kNumber) {
        // -9223372036854775808 is one literal (a bigint), as Spark's grammar reads a
        // minus sign directly before a number.
        Next();
        const Token& number = Next();
        return LiteralOrError(NumberLiteral(number, /*negative=*/true), token);
      }
      return Unexpected("an expression");
    case TokenKind::kEnd:
      return Unexpected("an expression");
    case TokenKind::kWord:
      break;
  }
  const Token& after = Peek(1);
  if (token.IsKeyword("NULL")) {
    Next();
    return expr::Lit(Scalar::Null());
  }
  if (token.IsKeyword("TRUE") || token.IsKeyword("FALSE")) {
    Next();
    return expr::Lit(Scalar::Boolean(token.IsKeyword("TRUE")));
  }
  if (token.IsKeyword("CASE")) {
    return CaseExpression();
  }
  if ((token.IsKeyword("CAST") || token.IsKeyword("TRY_CAST")) && after.IsOperator("(")) {
    Next();
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::DataTypePtr type, ParseType());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return token.IsKeyword("CAST") ? expr::Cast(std::move(value), std::move(type))
                                   : expr::TryCast(std::move(value), std::move(type));
  }
  if (after.kind == TokenKind::kString) {
    if (token.IsKeyword("DATE")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a date"));
      TRIBUTARY_ASSIGN_OR_RAISE(Scalar value, LiteralOrError(expr::DateLiteral(text), token));
      return expr::Lit(std::move(value));
    }
    if (token.IsKeyword("TIMESTAMP") || token.IsKeyword("TIMESTAMP_LTZ")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a timestamp"));
      return LiteralOrError(expr::TimestampLiteral(text), token);
    }
    if (token.IsKeyword("TIMESTAMP_NTZ")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a timestamp"));
      TRIBUTARY_ASSIGN_OR_RAISE(Scalar value,
                                LiteralOrError(expr::TimestampNtzLiteral(text), token));
      return expr::Lit(std::move(value));
    }
  }
  // INTERVAL +'1' YEAR is a literal; `interval + x` (a column named interval) stays a sum.
  if (token.IsKeyword("INTERVAL") &&
      (after.kind == TokenKind::kString || after.kind == TokenKind::kNumber ||
       after.IsOperator("-") ||
       (after.IsOperator("+") &&
        (Peek(2).kind == TokenKind::kString || Peek(2).kind == TokenKind::kNumber) &&
        IsIntervalUnit(Peek(3))))) {
    Next();
    return IntervalLiteral(token);
  }
  if ((token.IsKeyword("CURRENT_DATE") || token.IsKeyword("CURRENT_TIMESTAMP")) &&
      !after.IsOperator("(")) {
    Next();
    return expr::Function(AsciiLower(token.text), {});
  }
  if (token.IsKeyword("EXTRACT") && after.IsOperator("(")) {
    Next();
    Next();
    const Token& field = Peek();
    TRIBUTARY_ASSIGN_OR_RAISE(std::string field_name, Identifier("a field (YEAR, MONTH, ...)"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr source, ParseExpr());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    ExprPtr field_literal =
        Track(expr::Lit(Scalar::String(AsciiUpper(field_name))), field.position);
    return expr::Function("date_part", {std::move(field_literal), std::move(source)});
  }
  if (after.IsOperator("(") &&
      (token.IsKeyword("POSITION") || token.IsKeyword("SUBSTRING") || token.IsKeyword("SUBSTR") ||
       token.IsKeyword("TRIM") || token.IsKeyword("OVERLAY"))) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<ExprPtr> special, KeywordArgumentCall());
    if (special.has_value()) {
      return *special;
    }
  }
  if (after.IsOperator("(") &&
      (!IsReservedWord(token.text) || token.IsKeyword("LEFT") || token.IsKeyword("RIGHT") ||
       token.IsKeyword("WINDOW") || token.IsKeyword("EXISTS") || token.IsKeyword("RLIKE") ||
       token.IsKeyword("REGEXP"))) {
    return FunctionCall();
  }
  // WINDOW is reserved for the WINDOW clause, but in an expression it is a name, as in Spark
  // (the column `window` that GROUP BY window(ts, '1 minute') makes, window.start).
  // LEFT and RIGHT too: Spark's examples name comparator parameters so,
  // array_sort(a, (left, right) -> ...).
  if (IsReservedWord(token.text) && !token.IsKeyword("WINDOW") && !token.IsKeyword("LEFT") &&
      !token.IsKeyword("RIGHT")) {
    return Unexpected("an expression");
  }
  Next();
  return expr::Col(QuoteIdentifier(token.text));
}

Result<ExprPtr> Parser::Parenthesized() {
  const Token& open = Peek();
  if (IsQueryStart(1) && !Failed(failed_scalar_subquery_, pos_)) {
    const size_t save = pos_;
    auto subquery = SubqueryCall(kScalarSubqueryFunction, {}, open);
    if (subquery.ok() || !tokens_[save + 1].IsOperator("(")) {
      return subquery;
    }
    // ((SELECT 1) + 1): an expression that starts with a subquery; remembered as above.
    MarkFailed(&failed_scalar_subquery_, save);
    pos_ = save;
  }
  Next();
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr first, ParseExpr());
  if (AcceptOperator(")")) {
    return first;
  }
  // A row of values, `(a, b)`, is a struct; `(0 AS sum, 0 AS n)` names its fields, as Spark's
  // rowConstructor does (the others as struct() names them).
  std::vector<ExprPtr> fields = {std::move(first)};
  std::vector<std::string> names(1);
  while (true) {
    if (AcceptKeyword("AS")) {
      TRIBUTARY_ASSIGN_OR_RAISE(names.back(), Identifier("a field name", true));
    }
    if (!AcceptOperator(",")) {
      break;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr field, ParseExpr());
    fields.push_back(std::move(field));
    names.emplace_back();
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  if (std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); })) {
    return expr::Function("struct", std::move(fields));
  }
  std::vector<ExprPtr> pairs;
  for (size_t i = 0; i < fields.size(); ++i) {
    const expr::Op op = fields[i]->GetOp();
    std::string name = !names[i].empty() ? names[i]
                       : op == expr::Op::kColumn || op == expr::Op::kGetField
                           ? fields[i]->Name()
                           : fmt::format("col{}", i + 1);
    pairs.push_back(expr::Lit(expr::Scalar::String(std::move(name))));
    pairs.push_back(std::move(fields[i]));
  }
  return expr::Function("named_struct", std::move(pairs));
}

Result<ExprPtr> Parser::CaseExpression() {
  Next();
  ExprPtr operand;
  if (!Peek().IsKeyword("WHEN")) {
    TRIBUTARY_ASSIGN_OR_RAISE(operand, ParseExpr());
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> branches;
  while (Peek().IsKeyword("WHEN")) {
    const Token& when = Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr condition, ParseExpr());
    if (operand != nullptr) {
      condition = Track(expr::Call(Op::kEqual, {operand, std::move(condition)}), when.position);
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("THEN"));
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr then, ParseExpr());
    branches.emplace_back(std::move(condition), std::move(then));
  }
  if (branches.empty()) {
    return Unexpected("WHEN", {"WHEN"});
  }
  ExprPtr else_value;
  if (AcceptKeyword("ELSE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(else_value, ParseExpr());
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("END"));
  return expr::CaseWhen(std::move(branches), std::move(else_value));
}

ExprPtr Parser::StarArgument() {
  const auto ends_argument = [this](size_t ahead) {
    return Peek(ahead).IsOperator(",") || Peek(ahead).IsOperator(")");
  };
  const SourcePosition position = Peek().position;
  if (Peek().IsOperator("*") && ends_argument(1)) {
    Next();
    return Track(expr::Col("*"), position);
  }
  if (Peek().IsOperator("(") && Peek(1).IsOperator("*") && Peek(2).IsOperator(")") &&
      ends_argument(3)) {
    pos_ += 3;
    return Track(expr::Col("*"), position);
  }
  const size_t length = QualifiedStarLength();
  if (length == 0 || !ends_argument(length)) {
    return nullptr;
  }
  ExprPtr path = expr::Col(QuoteIdentifier(Peek().text));
  for (size_t i = 2; i + 2 < length; i += 2) {
    path = expr::GetField(std::move(path), Peek(i).text);
  }
  pos_ += length;
  return Track(expr::GetField(std::move(path), "*"), position);
}

Result<ExprPtr> Parser::LambdaOrExpr() {
  std::vector<std::string> params;
  size_t arrow = 0;  // where the "->" is, tokens ahead
  if (Peek().kind == TokenKind::kWord && Peek(1).IsOperator("->")) {
    params.push_back(Peek().text);
    arrow = 1;
  } else if (Peek().IsOperator("(")) {
    size_t k = 1;
    while (Peek(k).kind == TokenKind::kWord &&
           (Peek(k + 1).IsOperator(",") || Peek(k + 1).IsOperator(")"))) {
      params.push_back(Peek(k).text);
      k += 2;
      if (Peek(k - 1).IsOperator(")")) {
        break;
      }
    }
    arrow = k > 1 && Peek(k - 1).IsOperator(")") && Peek(k).IsOperator("->") ? k : 0;
  }
  if (arrow == 0) {
    return ParseExpr();
  }
  for (size_t k = 0; k <= arrow; ++k) {
    Next();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr body, ParseExpr());
  return expr::LambdaExpr(std::move(params), std::move(body));
}

// percentile_cont(p)/percentile_disc(p)/mode() WITHIN GROUP (ORDER BY v [ASC|DESC]): the
// ordered value becomes the first argument and the direction a boolean literal after the
// others (mode(v, true, desc): mode's ties go to the least value, or the greatest for DESC).
Status Parser::WithinGroup(const Token& name, bool distinct, std::vector<ExprPtr>* args) {
  const Token& within = Next();
  Next();
  const bool percentile = name.IsKeyword("percentile_cont") || name.IsKeyword("percentile_disc");
  if (!percentile && !name.IsKeyword("mode")) {
    return ErrorAt(within, fmt::format("[INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX] {} "
                                       "does not support WITHIN GROUP (ORDER BY ...)",
                                       AsciiLower(name.text)));
  }
  if (distinct) {
    return ErrorAt(within, fmt::format("[INVALID_WITHIN_GROUP_EXPRESSION.DISTINCT_UNSUPPORTED] "
                                       "{} WITHIN GROUP does not take DISTINCT",
                                       AsciiLower(name.text)));
  }
  if (args->size() != (percentile ? 1u : 0u)) {
    return ErrorAt(name, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] {} takes {} arguments "
                                     "before WITHIN GROUP, got {}",
                                     AsciiLower(name.text), percentile ? 1 : 0, args->size()));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("ORDER"));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
  bool descending = false;
  if (AcceptKeyword("DESC")) {
    descending = true;
  } else {
    AcceptKeyword("ASC");
  }
  if (AcceptKeyword("NULLS") && !AcceptKeyword("FIRST")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("LAST"));
  }
  if (Peek().IsOperator(",")) {
    return ErrorAt(Peek(), fmt::format("[INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS] {} "
                                       "WITHIN GROUP takes one ORDER BY expression",
                                       AsciiLower(name.text)));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  args->insert(args->begin(), std::move(value));
  if (!percentile) {
    args->push_back(expr::Lit(expr::Scalar::Boolean(true)));
  }
  args->push_back(expr::Lit(expr::Scalar::Boolean(descending)));
  return Status::OK();
}

namespace {

// The field FilterArguments wraps a respecting-nulls first/last value in.
constexpr std::string_view kFilteredValueField = "value";

bool ReadsColumns(const expr::Expression& e) {
  return e.GetOp() == expr::Op::kColumn || e.GetOp() == expr::Op::kGetField ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return ReadsColumns(*child); });
}

// `agg(args) FILTER (WHERE condition)` as Spark runs it, feeding the aggregate only the rows
// where the condition is true, rewritten into the arguments: every aggregate but the
// respecting-nulls first/last skips a row whose (column) arguments are null, so each argument
// becomes CASE WHEN condition THEN arg END. The first argument is wrapped even when it is a
// constant (count(1), count(DISTINCT 2, 3)), later constants (a percentile's percentage, an
// ignoreNulls flag) are not. count(*) counts the rows where the condition holds.
// first/last/any_value respecting nulls take the first row that passes even if its value is
// null: they take the first non-null struct of the value instead, and the result is true when
// the caller must read field kFilteredValueField of the call's result.
bool FilterArguments(const std::string& name, const ExprPtr& condition,
                     std::vector<ExprPtr>* args) {
  const auto when = [&](ExprPtr value) {
    return expr::CaseWhen({{condition, std::move(value)}}, nullptr);
  };
  if (args->empty()) {
    args->push_back(when(expr::Lit(expr::Scalar::Int32(1))));
    return false;
  }
  const bool respects_nulls =
      OneOf(name, {"first", "first_value", "last", "last_value", "any_value"}) &&
      (args->size() == 1 ||
       ((*args)[1]->GetOp() == expr::Op::kLiteral && !(*args)[1]->Literal().IsNull() &&
        (*args)[1]->Literal().Type()->Id() == columnar::TypeId::kBoolean &&
        !(*args)[1]->Literal().BoolValue()));
  if (respects_nulls) {
    ExprPtr wrapped = expr::Function(
        "named_struct",
        {expr::Lit(expr::Scalar::String(std::string(kFilteredValueField))), std::move((*args)[0])});
    *args = {when(std::move(wrapped)), expr::Lit(expr::Scalar::Boolean(true))};
    return true;
  }
  for (size_t i = 0; i < args->size(); ++i) {
    if (i == 0 || ReadsColumns(*(*args)[i])) {
      (*args)[i] = when(std::move((*args)[i]));
    }
  }
  return false;
}

}  // namespace

namespace {

// The type a cast-alias function name stands for (Spark's FunctionRegistry castAlias list), or
// null for any other name. decimal(x) is DECIMAL(10,0), Spark's default decimal.
columnar::DataTypePtr TypeConstructorType(const std::string& function) {
  using columnar::DataType;
  static const std::pair<std::string_view, columnar::DataTypePtr (*)()> kTypes[] = {
      {"boolean", &DataType::Boolean},     {"tinyint", &DataType::Int8},
      {"smallint", &DataType::Int16},      {"int", &DataType::Int32},
      {"bigint", &DataType::Int64},        {"float", &DataType::Float32},
      {"double", &DataType::Float64},      {"date", &DataType::Date},
      {"timestamp", &DataType::Timestamp}, {"binary", &DataType::Binary},
      {"string", &DataType::String}};
  const std::string name = AsciiLower(function);
  if (name == "decimal") {
    return DataType::Decimal(10, 0).ValueOrDie();
  }
  for (const auto& [type_name, make] : kTypes) {
    if (name == type_name) {
      return make();
    }
  }
  return nullptr;
}

}  // namespace

// Spark's calls with keywords between their arguments: POSITION(substr IN str),
// SUBSTRING(str FROM pos [FOR len]), TRIM([BOTH | LEADING | TRAILING] [chars] FROM str),
// OVERLAY(str PLACING replacement FROM pos [FOR len]). Nullopt (nothing read) when the call
// is the plain comma form.
Result<std::optional<ExprPtr>> Parser::KeywordArgumentCall() {
  const size_t start = pos_;
  const Token& name = Next();
  Next();
  const std::string function = AsciiLower(name.text);
  auto finish = [&](const std::string& called,
                    std::vector<ExprPtr> args) -> Result<std::optional<ExprPtr>> {
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return std::optional<ExprPtr>(Track(expr::Function(called, std::move(args)), name.position));
  };
  auto plain = [&]() -> Result<std::optional<ExprPtr>> {
    pos_ = start;
    return std::optional<ExprPtr>();
  };
  if (function == "trim") {
    std::string trimmed = "trim";
    if (AcceptKeyword("BOTH")) {
      trimmed = "trim";
    } else if (AcceptKeyword("LEADING")) {
      trimmed = "ltrim";
    } else if (AcceptKeyword("TRAILING")) {
      trimmed = "rtrim";
    }
    const bool has_side = pos_ != start + 2;
    if (AcceptKeyword("FROM")) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr str, ParseExpr());
      return finish(trimmed, {std::move(str)});
    }
    if (!has_side && Peek().IsOperator(")")) {
      return plain();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr chars, ParseExpr());
    if (!AcceptKeyword("FROM")) {
      if (has_side) {
        return Unexpected("FROM", {"FROM"});
      }
      return plain();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr str, ParseExpr());
    // trim(chars, str): Spark's two-argument StringTrim takes the characters first.
    return finish(trimmed, {std::move(chars), std::move(str)});
  }
  if (Peek().IsOperator(")")) {
    return plain();
  }
  if (function == "position") {
    // The substring is a value expression: IN ends it rather than starting a predicate.
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr substring, ParseComparison());
    if (!AcceptKeyword("IN")) {
      return plain();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr str, ParseComparison());
    return finish("position", {std::move(substring), std::move(str)});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr str, ParseExpr());
  std::vector<ExprPtr> args = {std::move(str)};
  if (function == "overlay") {
    if (!AcceptKeyword("PLACING")) {
      return plain();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr replacement, ParseExpr());
    args.push_back(std::move(replacement));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
  } else if (!AcceptKeyword("FROM")) {
    return plain();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr position, ParseExpr());
  args.push_back(std::move(position));
  if (AcceptKeyword("FOR")) {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr length, ParseExpr());
    args.push_back(std::move(length));
  }
  return finish(function, std::move(args));
}

Result<ExprPtr> Parser::FunctionCall() {
  const Token& name = Next();
  Next();
  bool distinct = false;
  std::vector<ExprPtr> args;
  if (Peek().IsOperator("*") && Peek(1).IsOperator(")") &&
      (name.IsKeyword("count") || expr::IsAggregateFunctionName(name.text))) {
    if (!name.IsKeyword("count")) {
      return ErrorAt(Peek(), fmt::format("'*' is only an argument of count, not of {}",
                                         AsciiLower(name.text)));
    }
    Next();
  } else if (Peek().IsOperator(")") && name.IsKeyword("count")) {
    // count(*) reaches the planner without arguments too; count() names nothing to count.
    return ErrorAt(name,
                   "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `count` requires at least 1 "
                   "parameters but the actual number is 0.");
  } else if (!Peek().IsOperator(")")) {
    if (AcceptKeyword("DISTINCT")) {
      distinct = true;
    } else if (AtSetQuantifierAll()) {
      Next();
    }
    // timestampadd(HOUR, n, ts), datediff(DAY, a, b) and the like: Spark's datetimeUnit
    // keyword as the first of three arguments reaches the binder as a string literal. A word
    // that turns out not to start three arguments is a column after all.
    const Token* unit = nullptr;
    if (OneOf(AsciiLower(name.text),
              {"dateadd", "date_add", "timestampadd", "datediff", "date_diff", "timestampdiff"}) &&
        Peek().kind == TokenKind::kWord && Peek(1).IsOperator(",") &&
        OneOf(AsciiUpper(Peek().text),
              {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND",
               "MILLISECOND", "MICROSECOND"})) {
      unit = &Next();
      Next();
      args.push_back(expr::Lit(expr::Scalar::String(AsciiUpper(unit->text))));
    }
    // struct(a AS x, b): Spark's named fields; the others are named as struct() names them.
    const bool is_struct = name.IsKeyword("struct");
    std::vector<std::string> field_aliases;
    do {
      ExprPtr arg = StarArgument();
      if (arg == nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(arg, LambdaOrExpr());
      }
      args.push_back(std::move(arg));
      field_aliases.emplace_back();
      if (is_struct && AcceptKeyword("AS")) {
        TRIBUTARY_ASSIGN_OR_RAISE(field_aliases.back(), Identifier("a field name", true));
      }
    } while (AcceptOperator(","));
    if (unit != nullptr && args.size() != 3) {
      args[0] = Track(expr::Col(unit->text), unit->position);
    }
    if (std::any_of(field_aliases.begin(), field_aliases.end(),
                    [](const std::string& alias) { return !alias.empty(); })) {
      std::vector<ExprPtr> pairs;
      for (size_t i = 0; i < args.size(); ++i) {
        const expr::Op op = args[i]->GetOp();
        // A star's pair is ('*', star): the planner puts a pair per column or field there.
        std::string field = !field_aliases[i].empty() ? field_aliases[i]
                            : op == expr::Op::kColumn || op == expr::Op::kGetField
                                ? args[i]->Name()
                                : fmt::format("col{}", i + 1);
        pairs.push_back(expr::Lit(expr::Scalar::String(std::move(field))));
        pairs.push_back(args[i]);
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      return Track(expr::Function("named_struct", std::move(pairs)), name.position);
    }
  }
  // first/last/any_value(x IGNORE NULLS), first(x) IGNORE NULLS and nth_value(x, n) IGNORE
  // NULLS: Spark's spellings of their ignoreNulls argument (RESPECT NULLS is the default).
  const bool takes_ignore_nulls =
      (args.size() == 1 &&
       (name.IsKeyword("first") || name.IsKeyword("first_value") || name.IsKeyword("last") ||
        name.IsKeyword("last_value") || name.IsKeyword("any_value"))) ||
      (args.size() == 2 && name.IsKeyword("nth_value"));
  const auto accept_nulls_option = [&] {
    if (takes_ignore_nulls && (Peek().IsKeyword("IGNORE") || Peek().IsKeyword("RESPECT")) &&
        Peek(1).IsKeyword("NULLS")) {
      if (Next().IsKeyword("IGNORE")) {
        args.push_back(expr::Lit(expr::Scalar::Boolean(true)));
      }
      Next();
      return true;
    }
    return false;
  };
  const bool inside = accept_nulls_option();
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  if (!inside) {
    accept_nulls_option();
  }
  if (Peek().IsKeyword("WITHIN") && Peek(1).IsKeyword("GROUP")) {
    TRIBUTARY_RETURN_NOT_OK(WithinGroup(name, distinct, &args));
  } else if (name.IsKeyword("percentile_cont") || name.IsKeyword("percentile_disc")) {
    return ErrorAt(name, fmt::format("[INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING] {} "
                                     "takes WITHIN GROUP (ORDER BY ...)",
                                     AsciiLower(name.text)));
  }
  if (Peek().IsKeyword("FILTER") && Peek(1).IsOperator("(")) {
    const Token& filter = Next();
    Next();
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("WHERE"));
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr condition, ParseExpr());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    if (!expr::IsAggregateFunctionName(name.text)) {
      return ErrorAt(filter, fmt::format("FILTER predicate specified, but {} is not an aggregate "
                                         "function",
                                         AsciiLower(name.text)));
    }
    // Only a constant's type is known here; other non-boolean conditions fail in the binder.
    if (condition->GetOp() == expr::Op::kLiteral && !condition->Literal().IsNull() &&
        condition->Literal().Type()->Id() != columnar::TypeId::kBoolean) {
      return ErrorAt(filter,
                     fmt::format("[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] the FILTER "
                                 "expression {} of type {} is not a boolean",
                                 condition->ToString(), condition->Literal().Type()->ToString()));
    }
    if (expr::ContainsAggregate(*condition)) {
      return ErrorAt(filter, fmt::format("the FILTER condition of {} contains an aggregate "
                                         "function, which is not allowed",
                                         AsciiLower(name.text)));
    }
    if (Peek().IsKeyword("OVER")) {
      // Spark's windowAggregateFunctionWithFilterNotSupportedError.
      return ErrorAt(filter,
                     "[UNSUPPORTED_FEATURE] Window aggregate function with filter predicate is "
                     "not supported yet.");
    }
    if (FilterArguments(AsciiLower(name.text), condition, &args)) {
      ExprPtr call;
      if (Peek().IsKeyword("OVER")) {
        TRIBUTARY_ASSIGN_OR_RAISE(call, WindowClause(name, std::move(args), distinct));
      } else {
        call = expr::Function(name.text, std::move(args), distinct);
      }
      return expr::GetField(std::move(call), std::string(kFilteredValueField));
    }
  }
  if (Peek().IsKeyword("OVER")) {
    return WindowClause(name, std::move(args), distinct);
  }
  if (expr::IsWindowOnlyFunctionName(name.text)) {
    return ErrorAt(
        name, fmt::format("window function {} requires an OVER clause", AsciiLower(name.text)));
  }
  if (const columnar::DataTypePtr type = TypeConstructorType(name.text); type != nullptr) {
    // Spark's cast aliases: int(x) is CAST(x AS INT), named and evaluated as the cast.
    if (args.size() != 1 || distinct) {
      return ErrorAt(name, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `{}` requires 1 "
                                       "parameters but the actual number is {}.",
                                       AsciiLower(name.text), args.size()));
    }
    return expr::Cast(std::move(args[0]), type);
  }
  // The options argument of the JSON functions: Spark's map('name', 'value', ...) of string
  // literals, as name and value pairs.
  using Options = std::vector<std::pair<std::string, std::string>>;
  const auto options_of = [&](const expr::Expression& map) -> Result<Options> {
    if (map.GetOp() != expr::Op::kFunction || map.Name() != "map") {
      return ErrorAt(name, fmt::format("[INVALID_OPTIONS.NON_MAP_FUNCTION] Invalid options: Must "
                                       "use the `map()` function for options ({} options must "
                                       "be a map of string literals: map('mode', 'FAILFAST')).",
                                       AsciiLower(name.text)));
    }
    const bool literal_map =
        map.Children().size() % 2 == 0 &&
        std::all_of(map.Children().begin(), map.Children().end(), [](const expr::ExprPtr& e) {
          return e->GetOp() == expr::Op::kLiteral && !e->Literal().IsNull() &&
                 e->Literal().Type()->Id() == columnar::TypeId::kString;
        });
    if (!literal_map) {
      return ErrorAt(name, fmt::format("[INVALID_OPTIONS.NON_STRING_TYPE] Invalid options: A type "
                                       "of keys and values in `map()` must be string ({} options "
                                       "must be a map of string literals: map('mode', "
                                       "'FAILFAST')).",
                                       AsciiLower(name.text)));
    }
    Options options;
    for (size_t i = 0; i < map.Children().size(); i += 2) {
      options.emplace_back(map.Children()[i]->Literal().BytesValue(),
                           map.Children()[i + 1]->Literal().BytesValue());
    }
    return options;
  };
  if (name.IsKeyword("schema_of_json")) {
    // Spark's schema_of_json takes a constant: the schema is computed here, as a literal, so
    // that from_json(v, schema_of_json('{...}')) sees schema text.
    if (args.empty() || args.size() > 2) {
      return ErrorAt(name, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `schema_of_json` "
                                       "requires [1, 2] parameters but the actual number is {}.",
                                       args.size()));
    }
    if (args[0]->GetOp() != expr::Op::kLiteral) {
      return ErrorAt(name,
                     "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] schema_of_json takes one constant "
                     "JSON string: schema_of_json('{\"a\": 1}')");
    }
    if (args[0]->Literal().IsNull() ||
        args[0]->Literal().Type()->Id() != columnar::TypeId::kString) {
      return ErrorAt(name,
                     "[DATATYPE_MISMATCH.UNEXPECTED_NULL] schema_of_json takes one constant "
                     "JSON string, not null");
    }
    Options options;
    if (args.size() == 2) {
      TRIBUTARY_ASSIGN_OR_RAISE(options, options_of(*args[1]));
    }
    auto schema = SchemaOfJson(args[0]->Literal().BytesValue(), options);
    if (!schema.ok()) {
      return ErrorAt(name, fmt::format("schema_of_json: {}", schema.status().Message()));
    }
    return expr::Lit(expr::Scalar::String(*schema));
  }
  if (name.IsKeyword("schema_of_csv")) {
    // Like schema_of_json: a constant, computed here so from_csv(v, schema_of_csv('...'))
    // sees schema text.
    if (args.empty() || args.size() > 2) {
      return ErrorAt(name, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `schema_of_csv` "
                                       "requires [1, 2] parameters but the actual number is {}.",
                                       args.size()));
    }
    if (args[0]->GetOp() != expr::Op::kLiteral) {
      return ErrorAt(name,
                     "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] schema_of_csv takes one "
                     "constant CSV string: schema_of_csv('1,abc')");
    }
    if (args[0]->Literal().IsNull() ||
        args[0]->Literal().Type()->Id() != columnar::TypeId::kString) {
      return ErrorAt(name,
                     "[DATATYPE_MISMATCH.UNEXPECTED_NULL] schema_of_csv takes one constant "
                     "CSV string, not null");
    }
    Options options;
    if (args.size() == 2) {
      TRIBUTARY_ASSIGN_OR_RAISE(options, options_of(*args[1]));
    }
    auto type = expr::InferCsvSchema(args[0]->Literal().BytesValue(), options);
    if (!type.ok()) {
      return ErrorAt(name, fmt::format("schema_of_csv: {}", type.status().Message()));
    }
    return expr::Lit(expr::Scalar::String((*type)->Sql()));
  }
  if (name.IsKeyword("from_csv") && (args.size() == 2 || args.size() == 3)) {
    // from_csv(text, 'a INT, b STRING' [, map(...)]): the schema as a type, as from_json.
    if (args[1]->GetOp() != expr::Op::kLiteral || args[1]->Literal().IsNull() ||
        args[1]->Literal().Type()->Id() != columnar::TypeId::kString) {
      return ErrorAt(name, fmt::format("[INVALID_SCHEMA] The expression \"{}\" is not a valid "
                                       "schema string.",
                                       args[1]->ToString()));
    }
    auto type = FromJsonSchema(args[1]->Literal().BytesValue());
    if (!type.ok()) {
      return ErrorAt(name, fmt::format("from_csv schema: {}", type.status().Message()));
    }
    if ((*type)->Id() != columnar::TypeId::kStruct) {
      return ErrorAt(name, fmt::format("[INVALID_SCHEMA.NON_STRUCT_TYPE] The input schema {} "
                                       "must be a struct type.",
                                       args[1]->ToString()));
    }
    Options options;
    if (args.size() == 3) {
      TRIBUTARY_ASSIGN_OR_RAISE(options, options_of(*args[2]));
    }
    std::vector<ExprPtr> call = {std::move(args[0]), expr::Lit(Scalar::Null(*type))};
    for (auto& [key, value] : options) {
      call.push_back(expr::Lit(Scalar::String(key)));
      call.push_back(expr::Lit(Scalar::String(value)));
    }
    return expr::Function("from_csv", std::move(call));
  }
  if ((name.IsKeyword("to_json") || name.IsKeyword("to_csv")) && args.size() == 2) {
    TRIBUTARY_ASSIGN_OR_RAISE(Options options, options_of(*args[1]));
    args.pop_back();
    for (auto& [key, value] : options) {
      args.push_back(expr::Lit(expr::Scalar::String(key)));
      args.push_back(expr::Lit(expr::Scalar::String(value)));
    }
    return expr::Function(name.text, std::move(args));
  }
  if (name.IsKeyword("from_json") && (args.size() == 2 || args.size() == 3) &&
      args[1]->GetOp() == expr::Op::kLiteral && !args[1]->Literal().IsNull() &&
      args[1]->Literal().Type()->Id() == columnar::TypeId::kString) {
    // from_json(json, 'a INT, b STRING' | 'struct<...>' [, map('name', 'value', ...)]): the
    // schema text becomes the type, the options name and value pairs.
    auto type = FromJsonSchema(args[1]->Literal().BytesValue());
    if (!type.ok()) {
      return ErrorAt(name, fmt::format("from_json schema: {}", type.status().Message()));
    }
    Options options;
    if (args.size() == 3) {
      TRIBUTARY_ASSIGN_OR_RAISE(options, options_of(*args[2]));
    }
    return expr::FromJson(std::move(args[0]), *type, options);
  }
  return expr::Function(name.text, std::move(args), distinct);
}

Result<ExprPtr> Parser::WindowClause(const Token& name, std::vector<ExprPtr> args, bool distinct) {
  const Token& over = Next();
  expr::WindowSpec spec;
  std::vector<ExprPtr> keys;
  const bool parenthesized_name =
      Peek().IsOperator("(") &&
      (Peek(1).kind == TokenKind::kWord || Peek(1).kind == TokenKind::kQuotedWord) &&
      Peek(2).IsOperator(")");
  if (Peek().kind == TokenKind::kWord || Peek().kind == TokenKind::kQuotedWord ||
      parenthesized_name) {
    // OVER w or OVER (w): a name the query's WINDOW clause defines.
    if (parenthesized_name) {
      Next();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(spec.reference, Identifier("a window name"));
    if (parenthesized_name) {
      Next();
    }
  } else {
    if (!Peek().IsOperator("(")) {
      return ErrorAt(Peek(),
                     "OVER takes a window specification: OVER (PARTITION BY k ORDER "
                     "BY t) or OVER w");
    }
    Next();
    TRIBUTARY_RETURN_NOT_OK(WindowSpecification(&spec, &keys));
  }
  return Track(
      expr::WindowCall(name.text, std::move(args), distinct, std::move(keys), std::move(spec)),
      over.position);
}

Status Parser::WindowSpecification(expr::WindowSpec* out, std::vector<ExprPtr>* out_keys) {
  expr::WindowSpec spec;
  std::vector<ExprPtr> keys;
  if (AcceptKeyword("PARTITION") || AcceptKeyword("DISTRIBUTE")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr key, ParseExpr());
      keys.push_back(std::move(key));
    } while (AcceptOperator(","));
    spec.num_partition_keys = keys.size();
  }
  if (AcceptKeyword("ORDER") || AcceptKeyword("SORT")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(OrderItem item, ParseOrderItem());
      keys.push_back(std::move(item.expr));
      spec.order.push_back({item.ascending, item.nulls_first});
    } while (AcceptOperator(","));
  }
  if (Peek().IsKeyword("ROWS") || Peek().IsKeyword("RANGE")) {
    spec.has_frame = true;
    spec.frame_type = Next().IsKeyword("ROWS") ? expr::WindowSpec::FrameType::kRows
                                               : expr::WindowSpec::FrameType::kRange;
    if (AcceptKeyword("BETWEEN")) {
      TRIBUTARY_ASSIGN_OR_RAISE(spec.start, FrameBound());
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AND"));
      TRIBUTARY_ASSIGN_OR_RAISE(spec.end, FrameBound());
    } else {
      // `ROWS 2 PRECEDING` is BETWEEN 2 PRECEDING AND CURRENT ROW.
      TRIBUTARY_ASSIGN_OR_RAISE(spec.start, FrameBound());
      spec.end.kind = expr::WindowFrameBound::Kind::kCurrentRow;
    }
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  *out = std::move(spec);
  *out_keys = std::move(keys);
  return Status::OK();
}

Result<expr::WindowFrameBound> Parser::FrameBound() {
  using Kind = expr::WindowFrameBound::Kind;
  expr::WindowFrameBound bound;
  if (AcceptKeyword("UNBOUNDED")) {
    if (AcceptKeyword("PRECEDING")) {
      bound.kind = Kind::kUnboundedPreceding;
    } else if (AcceptKeyword("FOLLOWING")) {
      bound.kind = Kind::kUnboundedFollowing;
    } else {
      return Unexpected("PRECEDING or FOLLOWING", {"PRECEDING", "FOLLOWING"});
    }
    return bound;
  }
  if (AcceptKeyword("CURRENT")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("ROW"));
    bound.kind = Kind::kCurrentRow;
    return bound;
  }
  const Token& at = Peek();
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr offset, ParseAdditive());
  if (offset->GetOp() == expr::Op::kNegate && offset->Child(0)->GetOp() == expr::Op::kLiteral) {
    return ErrorAt(at, "a window frame boundary must not be negative");
  }
  if (offset->GetOp() != expr::Op::kLiteral || offset->Literal().IsNull()) {
    return ErrorAt(at,
                   "a window frame boundary must be a constant: UNBOUNDED PRECEDING, n "
                   "PRECEDING, CURRENT ROW, n FOLLOWING or UNBOUNDED FOLLOWING");
  }
  bound.offset = offset->Literal();
  if (AcceptKeyword("PRECEDING")) {
    bound.kind = Kind::kPreceding;
  } else if (AcceptKeyword("FOLLOWING")) {
    bound.kind = Kind::kFollowing;
  } else {
    return Unexpected("PRECEDING or FOLLOWING", {"PRECEDING", "FOLLOWING"});
  }
  return bound;
}

// Spark's JSON schema inference over the one value `json` (fields sorted by name, integers
// BIGINT, fractions DOUBLE, null-only STRING), as schema_of_json does.
// Options: Spark's `primitivesAsString`, `prefersDecimal` and `allowNumericLeadingZeros`; the
// rest are accepted and have no effect.
Result<std::string> Parser::SchemaOfJson(
    const std::string& json, const std::vector<std::pair<std::string, std::string>>& settings) {
  json::JsonReadOptions options;
  options.infer_column_types = true;
  options.multi_line = true;
  for (const auto& [key, value] : settings) {
    const std::string option = AsciiLower(key);
    const bool on = AsciiLower(value) == "true";
    if (option == "primitivesasstring") {
      options.infer_column_types = !on;
    } else if (option == "prefersdecimal") {
      options.prefers_decimal = on;
    } else if (option == "allownumericleadingzeros") {
      options.allow_numeric_leading_zeros = on;
    }
  }
  // The value as the one field of a record, so arrays and scalars are typed as they are.
  const std::string record = "{\"v\": " + json + "\n}";
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr schema,
                            json::InferJsonSchemaFromText({record}, options));
  if (schema->NumFields() != 1) {
    return Status::InvalidArgument(fmt::format("'{}' is not a JSON value", json));
  }
  return schema->FieldAt(0).Type()->Sql();
}

// A type name ("struct<a:int>", "array<string>") or a DDL column list ("a INT, b STRING").
Result<columnar::DataTypePtr> Parser::FromJsonSchema(const std::string& text) {
  auto type = columnar::ParseSqlType(text);
  if (type.ok()) {
    return type;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<text::SchemaHint> hints, text::ParseSchemaHints(text));
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr schema,
                            text::ApplySchemaHints(columnar::Schema({}), hints));
  return schema->AsStruct();
}

}  // namespace tributary::sql::internal

// to_number and try_to_number (text -> decimal) and to_char / to_varchar (decimal -> text)
// through a Spark number format (Spark's ToNumberParser); format_number (DecimalFormat's
// "#,##0.00" with a number of decimal places).
//
// Format grammar (each element optional, in this order; letters upper case):
//   format = ["PR" wraps it] [ "MI" | "S" ] [ "$" ] int-digits [ ("." | "D") frac-digits ]
//            [ "$" ] [ "PR" | "MI" | "S" ]
//   int-digits  = digit-run *( ("," | "G") digit-run )      digit-run = 1*("0" | "9")
//   frac-digits = digit-run
// A run that starts with '0' before the decimal point needs exactly that many input digits; any
// other run takes at most that many. The result is decimal(all digits, digits after the point).

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

enum class TokenKind {
  kDigitGroups,
  kPoint,
  kDollar,
  kPlusOrMinus,   // S
  kMinus,         // MI
  kOpenBracket,   // PR, before everything
  kCloseBracket,  // PR, after everything
  kInvalid,
};

// One element of a parsed format. For kDigitGroups, the runs of digits and separators from the
// last to the first, as input digit groups are counted from the right.
struct FormatToken {
  TokenKind kind;
  std::vector<int> digits;   // run lengths, last run first
  std::vector<bool> exact;   // per run: exactly (true) or at most (false) that many
  std::vector<char> layout;  // 'd' (a run) or ',' (a separator), last first
  char invalid = 0;
};

std::string_view TokenName(const FormatToken& token) {
  switch (token.kind) {
    case TokenKind::kDigitGroups:
      return "digit sequence";
    case TokenKind::kPoint:
      return ". or D";
    case TokenKind::kDollar:
      return "$";
    case TokenKind::kPlusOrMinus:
      return "S";
    case TokenKind::kMinus:
      return "MI";
    case TokenKind::kOpenBracket:
    case TokenKind::kCloseBracket:
      return "PR";
    case TokenKind::kInvalid:
      break;
  }
  return "character";
}

class NumberFormat {
 public:
  /// The parsed `format`, or INVALID_FORMAT naming what is wrong with it.
  static Result<NumberFormat> Make(std::string_view format) {
    NumberFormat result;
    result.text_ = std::string(format);
    TRIBUTARY_RETURN_NOT_OK(result.Tokenize());
    TRIBUTARY_RETURN_NOT_OK(result.Check());
    return result;
  }

  int Precision() const { return precision_; }
  int Scale() const { return scale_; }

  /// The decimal text of `input` read through the format ("-12454.8"), false when it does not
  /// match.
  bool Parse(std::string_view input, std::string* out) const {
    std::string before;
    std::string after;
    bool reached_point = false;
    bool opened = false;
    bool closed = false;
    bool negate = false;
    size_t at = 0;
    for (const FormatToken& token : tokens_) {
      const bool has = at < input.size();
      const char c = has ? input[at] : '\0';
      switch (token.kind) {
        case TokenKind::kDigitGroups:
          if (!ParseDigitGroups(token, input, reached_point, &at, &before, &after)) {
            return false;
          }
          break;
        case TokenKind::kPoint:
          if (has && c == '.') {
            reached_point = true;
            ++at;
          }
          break;
        case TokenKind::kDollar:
          if (has) {
            if (c != '$') {
              return false;
            }
            ++at;
          }
          break;
        case TokenKind::kPlusOrMinus:
          if (has && (c == '+' || c == '-')) {
            negate = negate != (c == '-');
            ++at;
          }
          break;
        case TokenKind::kMinus:
          if (has && c == '-') {
            negate = !negate;
            ++at;
          }
          break;
        case TokenKind::kOpenBracket:
          if (has && c == '<') {
            opened = true;
            ++at;
          }
          break;
        case TokenKind::kCloseBracket:
          if (has && c == '>') {
            if (!opened) {
              return false;
            }
            closed = true;
            negate = !negate;
            ++at;
          }
          break;
        case TokenKind::kInvalid:
          return false;
      }
    }
    if (at < input.size() || opened != closed || (before.empty() && after.empty())) {
      return false;
    }
    after.resize(static_cast<size_t>(std::max<int>(scale_, static_cast<int>(after.size()))), '0');
    out->clear();
    if (negate) {
      out->push_back('-');
    }
    if (before.empty()) {
      out->push_back('0');
    }
    out->append(before);
    if (!after.empty()) {
      out->push_back('.');
      out->append(after);
    }
    return true;
  }

  /// `plain`, a decimal's plain text ("-454.80"), written through the format (to_char). Digits
  /// the format has no room for print as '#'.
  std::string Format(std::string_view plain) const {
    const bool negative = !plain.empty() && plain[0] == '-';
    const size_t point = plain.find('.');
    std::string before(plain.substr(0, point));
    std::string after(point == std::string_view::npos ? std::string_view()
                                                      : plain.substr(point + 1));
    before.erase(0, before.find_first_not_of("-0") == std::string::npos
                        ? before.size()
                        : before.find_first_not_of("-0"));
    after.erase(after.find_last_not_of('0') + 1);
    const auto digits_before = static_cast<size_t>(precision_ - scale_);
    const auto digits_after = static_cast<size_t>(scale_);
    if (before.size() > digits_before || after.size() > digits_after) {
      before.assign(digits_before, '#');
      after.assign(digits_after, '#');
    }
    before.insert(0, digits_before - before.size(), ' ');
    after.append(digits_after - after.size(), '0');

    std::string out;
    size_t bi = 0;
    size_t ai = 0;
    bool reached_point = false;
    for (const FormatToken& token : tokens_) {
      switch (token.kind) {
        case TokenKind::kDigitGroups: {
          size_t run = token.digits.size();
          for (size_t k = token.layout.size(); k-- > 0;) {
            if (token.layout[k] == ',') {
              if (!out.empty() && out.back() >= '0' && out.back() <= '9') {
                out.push_back(',');
              } else {
                AddSpace(&out);
              }
              continue;
            }
            --run;
            for (int d = 0; d < token.digits[run]; ++d) {
              if (reached_point) {
                out.push_back(after[ai++]);
              } else if (before[bi] == ' ' && token.exact[run]) {
                out.push_back('0');
                ++bi;
              } else if (before[bi] == ' ') {
                AddSpace(&out);
                ++bi;
              } else {
                out.push_back(before[bi++]);
              }
            }
          }
          break;
        }
        case TokenKind::kPoint:
          if (!out.empty() && out.back() == ' ') {
            out.back() = '0';
          }
          out.push_back('.');
          reached_point = true;
          break;
        case TokenKind::kDollar:
          out.push_back('$');
          break;
        case TokenKind::kPlusOrMinus:
          StripLonePoint(&out);
          AddChar(&out, negative ? '-' : '+');
          break;
        case TokenKind::kMinus:
          if (negative) {
            StripLonePoint(&out);
            AddChar(&out, '-');
          } else {
            out.push_back(' ');
          }
          break;
        case TokenKind::kOpenBracket:
          if (negative) {
            out.push_back('<');
          }
          break;
        case TokenKind::kCloseBracket:
          StripLonePoint(&out);
          if (negative) {
            AddChar(&out, '>');
          } else {
            out += "  ";
          }
          break;
        case TokenKind::kInvalid:
          break;
      }
    }
    StripLonePoint(&out);
    if (out.empty() || out == "+" || out == "-") {
      return "0";
    }
    return out;
  }

 private:
  Status Invalid(std::string_view subclass, std::string_view detail) const {
    return Status::InvalidArgument(fmt::format(
        "[INVALID_FORMAT.{}] The format is invalid: '{}'. {}", subclass, text_, detail));
  }

  Status Tokenize() {
    std::vector<FormatToken> raw;
    bool reached_point = false;
    bool bracket = false;
    const std::string_view f = text_;
    for (size_t i = 0; i < f.size();) {
      const char c = f[i];
      if (c == '0' || c == '9') {
        const size_t start = i;
        while (i < f.size() && (f[i] == '0' || f[i] == '9')) {
          ++i;
        }
        FormatToken run{TokenKind::kDigitGroups,
                        {static_cast<int>(i - start)},
                        {c == '0' && !reached_point},
                        {'d'},
                        0};
        raw.push_back(std::move(run));
        continue;
      }
      if (c == '.' || c == 'D') {
        raw.push_back({TokenKind::kPoint, {}, {}, {}, 0});
        reached_point = true;
      } else if (c == ',' || c == 'G') {
        raw.push_back({TokenKind::kDigitGroups, {}, {}, {','}, 0});
      } else if (c == '$') {
        raw.push_back({TokenKind::kDollar, {}, {}, {}, 0});
      } else if (c == 'S') {
        raw.push_back({TokenKind::kPlusOrMinus, {}, {}, {}, 0});
      } else if (c == 'M' && i + 1 < f.size() && f[i + 1] == 'I') {
        raw.push_back({TokenKind::kMinus, {}, {}, {}, 0});
        ++i;
      } else if (c == 'P' && i + 1 < f.size() && f[i + 1] == 'R') {
        bracket = true;
        raw.push_back({TokenKind::kCloseBracket, {}, {}, {}, 0});
        ++i;
      } else {
        raw.push_back({TokenKind::kInvalid, {}, {}, {}, c});
      }
      ++i;
    }
    // Runs and separators next to each other form one digit-groups token.
    if (bracket) {
      tokens_.push_back({TokenKind::kOpenBracket, {}, {}, {}, 0});
    }
    for (FormatToken& token : raw) {
      if (token.kind == TokenKind::kDigitGroups && !tokens_.empty() &&
          tokens_.back().kind == TokenKind::kDigitGroups) {
        FormatToken& group = tokens_.back();
        group.digits.insert(group.digits.begin(), token.digits.begin(), token.digits.end());
        group.exact.insert(group.exact.begin(), token.exact.begin(), token.exact.end());
        group.layout.insert(group.layout.begin(), token.layout.begin(), token.layout.end());
      } else {
        tokens_.push_back(std::move(token));
      }
    }
    reached_point = false;
    for (const FormatToken& token : tokens_) {
      if (token.kind == TokenKind::kPoint) {
        reached_point = true;
      }
      for (const int n : token.digits) {
        precision_ += n;
        scale_ += reached_point ? n : 0;
      }
    }
    return Status::OK();
  }

  Status Check() const {
    if (text_.empty()) {
      return Invalid("EMPTY", "The number format string cannot be empty.");
    }
    auto index_of = [&](TokenKind kind) {
      for (size_t k = 0; k < tokens_.size(); ++k) {
        if (tokens_[k].kind == kind) {
          return static_cast<int>(k);
        }
      }
      return -1;
    };
    const int digits = index_of(TokenKind::kDigitGroups);
    const int dollar = index_of(TokenKind::kDollar);
    const int point = index_of(TokenKind::kPoint);
    if (digits < 0) {
      return Invalid("WRONG_NUM_DIGIT", "The format string requires at least one number digit.");
    }
    if (digits < dollar) {
      return Invalid("CUR_MUST_BEFORE_DIGIT",
                     "Currency characters must appear before any digits "
                     "in the number format.");
    }
    if (point >= 0 && point < dollar) {
      return Invalid("CUR_MUST_BEFORE_DEC",
                     "Currency characters must appear before any decimal "
                     "point in the number format.");
    }
    for (size_t k = 0; k < tokens_.size(); ++k) {
      const std::vector<char>& layout = tokens_[k].layout;
      const bool before_point = point < 0 || static_cast<int>(k) < point;
      for (size_t j = 0; j < layout.size(); ++j) {
        if (layout[j] != ',') {
          continue;
        }
        if (!before_point) {
          return Invalid("THOUSANDS_SEPS_MUST_BEFORE_DEC",
                         "Thousands separators (, or G) may not appear after the decimal point "
                         "in the number format.");
        }
        if (j == 0 || j + 1 == layout.size() || layout[j - 1] == ',' || layout[j + 1] == ',') {
          return Invalid("CONT_THOUSANDS_SEPS",
                         "Thousands separators (, or G) must have digits "
                         "in between them in the number format.");
        }
      }
    }
    for (const TokenKind kind : {TokenKind::kPoint, TokenKind::kPlusOrMinus, TokenKind::kMinus,
                                 TokenKind::kDollar, TokenKind::kCloseBracket}) {
      int count = 0;
      for (const FormatToken& token : tokens_) {
        count += token.kind == kind ? 1 : 0;
      }
      if (count > 1) {
        FormatToken named{kind, {}, {}, {}, 0};
        return Invalid(
            "WRONG_NUM_TOKEN",
            fmt::format("At most one {} is allowed in the number format.", TokenName(named)));
      }
    }
    // [PR] [MI | S] [$] [digits] [. | D] [digits] [$] [PR | MI | S]
    const std::vector<std::vector<TokenKind>> slots = {
        {TokenKind::kOpenBracket},
        {TokenKind::kMinus, TokenKind::kPlusOrMinus},
        {TokenKind::kDollar},
        {TokenKind::kDigitGroups},
        {TokenKind::kPoint},
        {TokenKind::kDigitGroups},
        {TokenKind::kDollar},
        {TokenKind::kMinus, TokenKind::kPlusOrMinus, TokenKind::kCloseBracket}};
    size_t next = 0;
    for (const auto& slot : slots) {
      if (next < tokens_.size() &&
          std::find(slot.begin(), slot.end(), tokens_[next].kind) != slot.end()) {
        ++next;
      }
    }
    if (next < tokens_.size()) {
      const FormatToken& token = tokens_[next];
      const std::string name = token.kind == TokenKind::kInvalid
                                   ? fmt::format("character '{}''", token.invalid)
                                   : std::string(TokenName(token));
      return Invalid("UNEXPECTED_TOKEN",
                     fmt::format("Found the unexpected {} in the format string; the structure of "
                                 "the format string must match: [MI|S] [$] [0|9|G|,]* [.|D] "
                                 "[0|9]* [$] [PR|MI|S].",
                                 name));
    }
    if (precision_ > 38) {
      return Invalid("WRONG_NUM_DIGIT", "The format has more digits than a decimal holds (38).");
    }
    return Status::OK();
  }

  // Appends `c`, moving it left past the spaces before it (a sign sits next to the digits).
  static void AddChar(std::string* out, char c) {
    out->push_back(c);
    for (size_t i = out->size() - 1; i >= 1 && (*out)[i - 1] == ' ' && (*out)[i] == c; --i) {
      std::swap((*out)[i - 1], (*out)[i]);
    }
  }

  // Appends a space, moving a sign or '<' before it right, next to the digits to come.
  static void AddSpace(std::string* out) {
    out->push_back(' ');
    for (size_t i = out->size() - 1;
         i >= 1 && (*out)[i] == ' ' &&
         ((*out)[i - 1] == '+' || (*out)[i - 1] == '-' || (*out)[i - 1] == '<');
         --i) {
      std::swap((*out)[i - 1], (*out)[i]);
    }
  }

  // A decimal point with no digit after it becomes a space.
  static void StripLonePoint(std::string* out) {
    const size_t i = out->find('.');
    if (i != std::string::npos && (i + 1 == out->size() || (*out)[i + 1] == ' ')) {
      (*out)[i] = ' ';
    }
  }

  // Consumes digits, ',' and white space from `*at`; the digit-group sizes, counted from the
  // right, must fit the format's runs.
  static bool ParseDigitGroups(const FormatToken& token, std::string_view input, bool reached_point,
                               size_t* at, std::string* before, std::string* after) {
    std::vector<int> sizes;  // last group first
    int current = 0;
    size_t i = *at;
    for (; i < input.size(); ++i) {
      const char c = input[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        continue;
      }
      if (c >= '0' && c <= '9') {
        ++current;
        (reached_point ? after : before)->push_back(c);
      } else if (c == ',') {
        sizes.insert(sizes.begin(), current);
        current = 0;
      } else {
        break;
      }
    }
    sizes.insert(sizes.begin(), current);
    if (sizes.size() > token.digits.size()) {
      return false;
    }
    for (size_t k = 0; k < token.digits.size(); ++k) {
      const int actual = k < sizes.size() ? sizes[k] : 0;
      if (token.exact[k] ? actual != token.digits[k] : actual > token.digits[k]) {
        return false;
      }
    }
    *at = i;
    return true;
  }

  std::string text_;
  std::vector<FormatToken> tokens_;
  int precision_ = 0;
  int scale_ = 0;
};

// to_number(expr, fmt) / try_to_number: fmt must be a constant string. A text the format does
// not match is an error for to_number and null for try_to_number.
Result<BoundExprPtr> BindToNumber(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String(), DataType::String()}));
  if (args[1]->GetOp() != Op::kLiteral) {
    return CallError(call,
                     "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input `format` should be "
                     "a foldable STRING expression");
  }
  if (args[1]->Literal().IsNull()) {
    return MakeBound(Op::kLiteral, DataType::Null(), {}, -1, Scalar::Null());
  }
  auto parsed = NumberFormat::Make(args[1]->Literal().BytesValue());
  if (!parsed.ok()) {
    return CallError(call, parsed.status().Message());
  }
  NumberFormat format = std::move(*parsed);
  TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type,
                            DataType::Decimal(format.Precision(), format.Scale()));
  const bool safe = call.Name() == "try_to_number";
  std::string format_text = args[1]->Literal().BytesValue();
  return MakeFunctionCall(
      call.Name(), type, std::move(args),
      Lambda([format, safe, format_text](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                         const EvalContext& context) -> Result<ColumnPtr> {
        Status status;
        const std::vector<ColumnPtr> input = {a[0]};
        TRIBUTARY_ASSIGN_OR_RAISE(
            ColumnPtr text,
            BuildBytes(DataType::String(), input, context.pool, [&](int64_t i, std::string* out) {
              if (format.Parse(a[0]->BytesAt(i), out)) {
                return true;
              }
              if (!safe) {
                status = Status::InvalidArgument(
                    fmt::format("[INVALID_FORMAT.MISMATCH_INPUT] The input \"STRING\" '{}' does "
                                "not match the format '{}'.",
                                a[0]->BytesAt(i), format_text));
              }
              return false;
            }));
        TRIBUTARY_RETURN_NOT_OK(status);
        return CastKernel(*text, c.Type(), false, context);
      }));
}

// to_char(number, fmt) / to_varchar: the decimal (or integer) written through the constant
// format; a value with more digits than the format holds prints as '#'s.
Result<BoundExprPtr> BindToChar(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const DataTypePtr& type = args[0]->Type();
  if (type->IsInteger()) {
    args[0] = CastTo(std::move(args[0]), AsDecimal(type));
  } else if (type->Id() != TypeId::kDecimal && type->Id() != TypeId::kNull) {
    return CallError(call,
                     fmt::format("to_char formats decimal numbers; got {}", type->ToString()));
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {args[0]->Type(), DataType::String()}));
  if (args[1]->GetOp() != Op::kLiteral) {
    return CallError(call,
                     "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input `format` should be "
                     "a foldable STRING expression");
  }
  if (args[1]->Literal().IsNull()) {
    return MakeBound(Op::kLiteral, DataType::String(), {}, -1, Scalar::Null(DataType::String()));
  }
  auto parsed = NumberFormat::Make(args[1]->Literal().BytesValue());
  if (!parsed.ok()) {
    return CallError(call, parsed.status().Message());
  }
  NumberFormat format = std::move(*parsed);
  return MakeFunctionCall(call.Name(), DataType::String(), std::move(args),
                          Lambda([format](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                          const EvalContext& context) -> Result<ColumnPtr> {
                            const std::vector<ColumnPtr> input = {a[0]};
                            std::string plain;
                            return BuildBytes(c.Type(), input, context.pool,
                                              [&](int64_t i, std::string* out) {
                                                plain.clear();
                                                AppendCastString(*a[0], i, context, &plain);
                                                *out = format.Format(plain);
                                                return true;
                                              });
                          }));
}

// Rounds the plain decimal text `plain` ("-1234.5678") to `scale` fractional digits, half to
// even (java.math.RoundingMode.HALF_EVEN), into sign, integer digits and fraction digits.
void RoundPlainHalfEven(std::string_view plain, int scale, bool* negative, std::string* integer,
                        std::string* fraction) {
  *negative = !plain.empty() && plain[0] == '-';
  if (*negative) {
    plain.remove_prefix(1);
  }
  const size_t point = plain.find('.');
  std::string whole(plain.substr(0, point));
  std::string frac(point == std::string_view::npos ? std::string_view() : plain.substr(point + 1));
  if (static_cast<int>(frac.size()) > scale) {
    const char next = frac[static_cast<size_t>(scale)];
    const bool rest_nonzero =
        frac.find_first_not_of('0', static_cast<size_t>(scale) + 1) != std::string::npos;
    frac.resize(static_cast<size_t>(scale));
    std::string digits = whole + frac;
    const bool odd = !digits.empty() && (digits.back() - '0') % 2 == 1;
    if (next > '5' || (next == '5' && (rest_nonzero || odd))) {
      size_t k = digits.size();
      while (k > 0 && digits[k - 1] == '9') {
        digits[--k] = '0';
      }
      if (k == 0) {
        digits.insert(digits.begin(), '1');
      } else {
        ++digits[k - 1];
      }
    }
    whole = digits.substr(0, digits.size() - frac.size());
    frac = digits.substr(whole.size());
  }
  frac.resize(static_cast<size_t>(scale), '0');
  whole.erase(0, std::min(whole.find_first_not_of('0'), whole.size()));
  *integer = whole.empty() ? "0" : whole;
  *fraction = frac;
}

// format_number(x, d): x rounded half to even to d decimal places with ',' grouping
// (java.text.DecimalFormat "#,##0.00...", which keeps the sign of a negative value that rounds
// to zero: "-0.00"); null for a negative d. Only the integer form of d is supported, not a
// DecimalFormat pattern.
Result<BoundExprPtr> BindFormatNumber(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const DataTypePtr type = args[0]->Type();
  if (!type->IsNumeric() && type->Id() != TypeId::kNull) {
    return CallError(call, fmt::format("argument 1 must be a number, got {}", type->ToString()));
  }
  if (args[1]->Type()->Id() == TypeId::kString) {
    return CallError(call,
                     "format_number with a DecimalFormat pattern is not supported; give the "
                     "number of decimal places");
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(
      call, &args, {type->Id() == TypeId::kNull ? DataType::Int32() : type, DataType::Int32()}));
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) -> Result<ColumnPtr> {
        std::string plain;
        std::string integer;
        std::string fraction;
        return BuildBytes(c.Type(), a, context.pool, [&](int64_t i, std::string* out) {
          const int64_t scale = IntAt(*a[1], i);
          if (scale < 0) {
            return false;
          }
          const Column& x = *a[0];
          plain.clear();
          if (x.Type()->IsFloatingPoint()) {
            const double v =
                x.Type()->Id() == TypeId::kFloat32 ? x.Values<float>()[i] : x.Values<double>()[i];
            if (std::isnan(v)) {
              *out = "NaN";
              return true;
            }
            if (std::isinf(v)) {
              *out = v < 0 ? "-\u221E" : "\u221E";
              return true;
            }
            // The exact binary value, so ties are real ties as DecimalFormat sees them.
            plain = fmt::format("{:.{}f}", v, std::min<int64_t>(scale, 340));
          } else {
            AppendCastString(x, i, context, &plain);
          }
          bool negative = false;
          if (x.Type()->IsFloatingPoint()) {
            negative = plain[0] == '-';
            const std::string_view body = std::string_view(plain).substr(negative ? 1 : 0);
            const size_t point = body.find('.');
            integer = std::string(body.substr(0, point));
            fraction = point == std::string_view::npos ? "" : std::string(body.substr(point + 1));
            fraction.resize(static_cast<size_t>(scale), '0');
          } else {
            RoundPlainHalfEven(plain, static_cast<int>(std::min<int64_t>(scale, 1000)), &negative,
                               &integer, &fraction);
          }
          out->clear();
          if (negative) {
            out->push_back('-');
          }
          for (size_t k = 0; k < integer.size(); ++k) {
            if (k > 0 && (integer.size() - k) % 3 == 0) {
              out->push_back(',');
            }
            out->push_back(integer[k]);
          }
          if (scale > 0) {
            out->push_back('.');
            out->append(fraction);
          }
          return true;
        });
      }));
}

}  // namespace

void AddNumberFormatFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"to_number", BindToNumber},
                               {"try_to_number", BindToNumber},
                               {"to_char", BindToChar},
                               {"to_varchar", BindToChar},
                               {"format_number", BindFormatNumber}});
}

}  // namespace tributary::expr

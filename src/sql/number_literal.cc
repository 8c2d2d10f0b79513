#include "sql/number_literal.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace tributary::sql {

using expr::Scalar;

namespace {

// A decimal in exponent form ("123.0E-28", Spark's 123.0E-28BD) written out in plain digits
// with the scale it stands for (0.00000000000000000000000001230); a negative scale becomes
// trailing zeros (1E2 is 100), as Spark does not keep negative scales. Other text unchanged.
std::string PlainDecimalText(const std::string& text) {
  const size_t e = text.find_first_of("eE");
  if (e == std::string::npos) {
    return text;
  }
  int exponent = 0;
  const char* begin = text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0);
  if (std::from_chars(begin, text.data() + text.size(), exponent).ec != std::errc() ||
      exponent > 1000 || exponent < -1000) {
    return text;  // DecimalLiteral reports it
  }
  std::string_view sign;
  std::string mantissa = text.substr(0, e);
  if (!mantissa.empty() && (mantissa[0] == '-' || mantissa[0] == '+')) {
    sign = mantissa[0] == '-' ? "-" : "";
    mantissa.erase(0, 1);
  }
  const size_t dot = mantissa.find('.');
  int scale = 0;
  if (dot != std::string::npos) {
    scale = static_cast<int>(mantissa.size() - dot - 1);
    mantissa.erase(dot, 1);
  }
  scale -= exponent;
  if (scale <= 0) {
    mantissa.append(static_cast<size_t>(-scale), '0');
  } else {
    if (static_cast<size_t>(scale) >= mantissa.size()) {
      mantissa.insert(0, static_cast<size_t>(scale) - mantissa.size() + 1, '0');
    }
    mantissa.insert(mantissa.size() - static_cast<size_t>(scale), 1, '.');
  }
  return fmt::format("{}{}", sign, mantissa);
}

}  // namespace

Result<expr::ExprPtr> NumberLiteral(const Token& token, bool negative) {
  const NumberKind kind = token.number_kind;
  const size_t suffix = kind == NumberKind::kBigDecimal ? 2
                        : kind == NumberKind::kInteger || kind == NumberKind::kDecimal ||
                                kind == NumberKind::kExponent
                            ? 0
                            : 1;
  std::string digits(negative ? "-" : "");
  digits.append(std::string_view(token.text).substr(0, token.text.size() - suffix));
  auto out_of_range = [&](std::string_view type, auto low, auto high) {
    return Status::InvalidArgument(
        fmt::format("numeric literal {} does not fit in range [{}, {}] for "
                    "type {}",
                    digits, low, high, type));
  };
  int64_t integer = 0;
  const bool fits_int64 =
      std::from_chars(digits.data(), digits.data() + digits.size(), integer).ec == std::errc();
  switch (kind) {
    case NumberKind::kInteger:
      if (fits_int64 && integer >= std::numeric_limits<int32_t>::min() &&
          integer <= std::numeric_limits<int32_t>::max()) {
        return expr::Lit(Scalar::Int32(static_cast<int32_t>(integer)));
      }
      if (fits_int64) {
        return expr::Lit(Scalar::Int64(integer));
      }
      [[fallthrough]];
    case NumberKind::kDecimal:
    case NumberKind::kBigDecimal: {
      TRIBUTARY_ASSIGN_OR_RAISE(Scalar value, expr::DecimalLiteral(PlainDecimalText(digits)));
      return expr::Lit(std::move(value));
    }
    case NumberKind::kBigint:
      if (!fits_int64) {
        return out_of_range("bigint", std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max());
      }
      return expr::Lit(Scalar::Int64(integer));
    case NumberKind::kSmallint:
      if (!fits_int64 || integer < std::numeric_limits<int16_t>::min() ||
          integer > std::numeric_limits<int16_t>::max()) {
        return out_of_range("smallint", std::numeric_limits<int16_t>::min(),
                            std::numeric_limits<int16_t>::max());
      }
      return expr::Lit(Scalar::Int16(static_cast<int16_t>(integer)));
    case NumberKind::kTinyint:
      if (!fits_int64 || integer < std::numeric_limits<int8_t>::min() ||
          integer > std::numeric_limits<int8_t>::max()) {
        return out_of_range("tinyint", static_cast<int>(std::numeric_limits<int8_t>::min()),
                            static_cast<int>(std::numeric_limits<int8_t>::max()));
      }
      return expr::Lit(Scalar::Int8(static_cast<int8_t>(integer)));
    case NumberKind::kExponent:
    case NumberKind::kDouble: {
      const double value = std::strtod(digits.c_str(), nullptr);
      if (std::isinf(value)) {
        return out_of_range("double", -std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::max());
      }
      return expr::Lit(Scalar::Float64(value));
    }
    case NumberKind::kFloat: {
      const float value = std::strtof(digits.c_str(), nullptr);
      if (std::isinf(value)) {
        return out_of_range("float", -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::max());
      }
      return expr::Lit(Scalar::Float32(value));
    }
  }
  return Status::InvalidArgument("unknown number literal");
}

}  // namespace tributary::sql

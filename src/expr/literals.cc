// Typed SQL literals (DATE '...', TIMESTAMP '...', X'..', 1.23BD, INTERVAL ...), as documented
// in expression.h.

#include <algorithm>

#include <fmt/format.h>

#include "columnar/decimal.h"
#include "expr/expression.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

Result<Scalar> DateLiteral(std::string_view text) {
  int32_t days = 0;
  if (!ParseDate(text, &days)) {
    return Status::InvalidArgument(fmt::format("invalid DATE literal '{}'", text));
  }
  return Scalar::Date(days);
}

Result<ExprPtr> TimestampLiteral(std::string_view text) {
  int64_t micros = 0;
  if (!ParseTimestamp(text, TimeZone(), /*ntz=*/false, &micros)) {
    return Status::InvalidArgument(fmt::format("invalid TIMESTAMP literal '{}'", text));
  }
  return Cast(Lit(Scalar::String(std::string(text))), DataType::Timestamp());
}

Result<Scalar> TimestampNtzLiteral(std::string_view text) {
  int64_t micros = 0;
  if (!ParseTimestamp(text, TimeZone(), /*ntz=*/true, &micros)) {
    return Status::InvalidArgument(fmt::format("invalid TIMESTAMP_NTZ literal '{}'", text));
  }
  return Scalar::TimestampNtz(micros);
}

Result<Scalar> BinaryLiteral(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  };
  std::string bytes;
  size_t i = 0;
  int pending = -1;
  if (hex.size() % 2 == 1) {
    pending = 0;  // an odd digit count reads as if led by a 0, as Spark's unhex
  }
  for (; i < hex.size(); ++i) {
    const int value = nibble(hex[i]);
    if (value < 0) {
      return Status::InvalidArgument(fmt::format(
          "invalid binary literal X'{}': '{}' at offset {} is not a hex digit", hex, hex[i], i));
    }
    if (pending < 0) {
      pending = value;
    } else {
      bytes.push_back(static_cast<char>(pending * 16 + value));
      pending = -1;
    }
  }
  return Scalar::Binary(std::move(bytes));
}

Result<Scalar> DecimalLiteral(std::string_view text) {
  std::string_view digits = text;
  if (digits.size() >= 2 &&
      (digits.substr(digits.size() - 2) == "BD" || digits.substr(digits.size() - 2) == "bd" ||
       digits.substr(digits.size() - 2) == "Bd" || digits.substr(digits.size() - 2) == "bD")) {
    digits.remove_suffix(2);
  }
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  Int128 unscaled = 0;
  int significant = 0;
  int scale = 0;
  bool seen_point = false;
  bool seen_digit = false;
  for (size_t i = 0; i < digits.size(); ++i) {
    const char c = digits[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') {
      return Status::InvalidArgument(
          fmt::format("invalid decimal literal {}: unexpected '{}' at offset {}", text, c, i));
    }
    seen_digit = true;
    if (significant > 0 || c != '0') {
      ++significant;
    }
    if (significant > columnar::kMaxDecimalPrecision) {
      return Status::InvalidArgument(fmt::format("decimal literal {} has more than {} digits", text,
                                                 columnar::kMaxDecimalPrecision));
    }
    unscaled = unscaled * 10 + (c - '0');
    scale += seen_point ? 1 : 0;
  }
  if (!seen_digit) {
    return Status::InvalidArgument(fmt::format("invalid decimal literal {}: no digits", text));
  }
  // Spark types a literal by its java.math.BigDecimal: precision = significant digits, at
  // least the scale (0.05 is decimal(2,2)).
  const int precision = std::max({significant, scale, 1});
  if (precision > columnar::kMaxDecimalPrecision) {
    return Status::InvalidArgument(fmt::format("decimal literal {} has more than {} digits", text,
                                               columnar::kMaxDecimalPrecision));
  }
  return Scalar::Decimal(negative ? -unscaled : unscaled, precision, scale);
}

}  // namespace tributary::expr

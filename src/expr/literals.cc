// Typed SQL literals (DATE '...', TIMESTAMP '...', X'..', 1.23BD, INTERVAL ...), as documented
// in expression.h.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "common/ascii.h"
#include "expr/expression.h"
#include "expr/interval_text.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

namespace {

// Removes a leading '+' or '-' from `text`; true for '-'.
bool TakeSign(std::string_view* text) {
  if (text->empty() || ((*text)[0] != '-' && (*text)[0] != '+')) {
    return false;
  }
  const bool negative = (*text)[0] == '-';
  text->remove_prefix(1);
  return negative;
}

}  // namespace

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
  std::string bytes;
  size_t i = 0;
  int pending = -1;
  if (hex.size() % 2 == 1) {
    pending = 0;  // an odd digit count reads as if led by a 0, as Spark's unhex
  }
  for (; i < hex.size(); ++i) {
    const int value = HexDigitValue(hex[i]);
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
  const bool negative = TakeSign(&digits);
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

namespace {

using columnar::kMicrosPerSecond;

// Microseconds per unit, 0 for an unknown unit, -1 for a year-month unit.
int64_t MicrosPerUnit(std::string unit) {
  if (unit.size() > 1 && unit.back() == 'S') {
    unit.pop_back();
  }
  if (unit == "WEEK") {
    return int64_t{7} * 86400 * kMicrosPerSecond;
  }
  if (unit == "DAY") {
    return 86400 * kMicrosPerSecond;
  }
  if (unit == "HOUR") {
    return 3600 * kMicrosPerSecond;
  }
  if (unit == "MINUTE") {
    return 60 * kMicrosPerSecond;
  }
  if (unit == "SECOND") {
    return kMicrosPerSecond;
  }
  if (unit == "MILLISECOND") {
    return 1000;
  }
  if (unit == "MICROSECOND") {
    return 1;
  }
  if (unit == "YEAR" || unit == "MONTH") {
    return -1;
  }
  return 0;
}

// [+-]digits[.digits] times `per_unit` microseconds; fractions only where they are whole
// microseconds. False on bad text or overflow.
bool ScaledNumber(std::string_view text, int64_t per_unit, __int128* out) {
  const bool negative = TakeSign(&text);
  __int128 whole = 0;
  __int128 fraction = 0;
  __int128 fraction_scale = 1;
  bool point = false;
  bool digit = false;
  for (char c : text) {
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9') {
      digit = true;
      if (point) {
        if (fraction_scale > 1000000000000) {
          return false;
        }
        fraction = fraction * 10 + (c - '0');
        fraction_scale *= 10;
      } else {
        whole = whole * 10 + (c - '0');
        if (whole > (static_cast<__int128>(1) << 64)) {
          return false;
        }
      }
    } else {
      return false;
    }
  }
  if (!digit) {
    return false;
  }
  const __int128 fraction_micros = fraction * per_unit;
  if (fraction_micros % fraction_scale != 0) {
    return false;  // finer than a microsecond
  }
  __int128 value = whole * per_unit + fraction_micros / fraction_scale;
  *out = negative ? -value : value;
  return true;
}

Result<Scalar> IntervalResult(__int128 micros, std::string_view value, std::string_view unit) {
  if (micros > INT64_MAX || micros < INT64_MIN) {
    return Status::InvalidArgument(
        fmt::format("interval literal '{}' {} is out of range", value, unit));
  }
  return Scalar::DayTimeInterval(static_cast<int64_t>(micros));
}

// 'd h:m:s'-style text for a `from TO to` unit range (DAY TO SECOND, HOUR TO MINUTE, ...).
Result<Scalar> ParseIntervalRange(std::string_view value, const std::string& from,
                                  const std::string& to, std::string_view unit) {
  static constexpr std::string_view kFields[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  static constexpr int64_t kMicros[] = {86400 * kMicrosPerSecond, 3600 * kMicrosPerSecond,
                                        60 * kMicrosPerSecond, kMicrosPerSecond};
  auto index = [](const std::string& name) {
    for (size_t i = 0; i < 4; ++i) {
      if (kFields[i] == name) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  const int first = index(from);
  const int last = index(to);
  auto fail = [&] {
    return Status::InvalidArgument(
        fmt::format("invalid interval literal '{}' for INTERVAL {}", value, unit));
  };
  if (first < 0 || last <= first) {
    return fail();
  }
  std::string_view text = value;
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  const bool negative = TakeSign(&text);
  __int128 total = 0;
  for (int field = first; field <= last; ++field) {
    const char separator = field == first ? '\0' : (field == 1 ? ' ' : ':');
    if (separator != '\0') {
      if (text.empty() || text[0] != separator) {
        return fail();
      }
      text.remove_prefix(1);
    }
    size_t end = 0;
    while (end < text.size() &&
           ((text[end] >= '0' && text[end] <= '9') || (field == 3 && text[end] == '.'))) {
      ++end;
    }
    __int128 part = 0;
    if (!ScaledNumber(text.substr(0, end), kMicros[field], &part)) {
      return fail();
    }
    total += part;
    text.remove_prefix(end);
  }
  if (!text.empty()) {
    return fail();
  }
  return IntervalResult(negative ? -total : total, value, unit);
}

}  // namespace

Result<Scalar> ParseIntervalLiteral(std::string_view value, std::string_view unit) {
  const std::string upper_unit = AsciiUpper(unit);
  if (const size_t to = upper_unit.find(" TO "); to != std::string::npos) {
    return ParseIntervalRange(value, upper_unit.substr(0, to), upper_unit.substr(to + 4), unit);
  }
  // Tokens: with a unit, one number; without, "<number> <unit>" pairs.
  std::vector<std::string_view> tokens;
  for (size_t i = 0; i < value.size();) {
    while (i < value.size() && value[i] == ' ') {
      ++i;
    }
    size_t end = i;
    while (end < value.size() && value[end] != ' ') {
      ++end;
    }
    if (end > i) {
      tokens.push_back(value.substr(i, end - i));
    }
    i = end;
  }
  if (!upper_unit.empty()) {
    tokens.push_back(unit);
  }
  if (!tokens.empty() && AsciiUpper(tokens[0]) == "INTERVAL") {
    tokens.erase(tokens.begin());
  }
  if (tokens.empty() || tokens.size() % 2 != 0) {
    return Status::InvalidArgument(fmt::format(
        "invalid interval literal '{}' {}: expected <number> <unit> pairs", value, unit));
  }
  __int128 total = 0;
  for (size_t i = 0; i < tokens.size(); i += 2) {
    const int64_t per_unit = MicrosPerUnit(AsciiUpper(tokens[i + 1]));
    if (per_unit < 0) {
      return Status::NotImplemented(
          fmt::format("year-month intervals are not supported: '{}' {}", value, tokens[i + 1]));
    }
    if (per_unit == 0) {
      return Status::InvalidArgument(
          fmt::format("invalid interval literal '{}': unknown unit '{}'", value, tokens[i + 1]));
    }
    __int128 part = 0;
    if (!ScaledNumber(tokens[i], per_unit, &part)) {
      return Status::InvalidArgument(fmt::format(
          "invalid interval literal '{}': '{}' is not a number of {} (or is finer than a "
          "microsecond)",
          value, tokens[i], tokens[i + 1]));
    }
    total += part;
  }
  return IntervalResult(total, value, unit);
}

Result<int64_t> ParseIntervalMicros(std::string_view text) {
  auto parsed = ParseIntervalLiteral(text, "");
  if (!parsed.ok()) {
    if (parsed.status().IsNotImplemented()) {
      return parsed.status();
    }
    return Status::InvalidArgument(
        fmt::format("[INVALID_INTERVAL_FORMAT] Error parsing '{}' to interval: {}", text,
                    parsed.status().Message()));
  }
  return parsed->IntValue();
}

std::string IntervalText(int64_t micros) {
  if (micros == 0) {
    return "0 seconds";
  }
  constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
  constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
  constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;
  std::string out;
  auto append = [&](int64_t value, std::string_view unit) {
    if (value != 0) {
      out += fmt::format("{}{} {}", out.empty() ? "" : " ", value, unit);
    }
  };
  int64_t rest = micros;
  append(rest / kMicrosPerDay, "days");
  rest %= kMicrosPerDay;
  append(rest / kMicrosPerHour, "hours");
  rest %= kMicrosPerHour;
  append(rest / kMicrosPerMinute, "minutes");
  rest %= kMicrosPerMinute;
  if (rest != 0) {
    // Seconds with the fraction's trailing zeros stripped, as BigDecimal.stripTrailingZeros.
    const int64_t magnitude = rest < 0 ? -rest : rest;
    std::string seconds = fmt::format("{}{}.{:06d}", rest < 0 ? "-" : "",
                                      magnitude / kMicrosPerSecond, magnitude % kMicrosPerSecond);
    while (seconds.back() == '0') {
      seconds.pop_back();
    }
    if (seconds.back() == '.') {
      seconds.pop_back();
    }
    out += (out.empty() ? "" : " ") + seconds + " seconds";
  }
  return out;
}

}  // namespace tributary::expr

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

// A year-month literal of `months`, or Spark's overflow error: the type holds int32 months.
Result<Scalar> MonthsResult(__int128 months, std::string_view value, std::string_view unit) {
  if (months > INT32_MAX || months < INT32_MIN) {
    return Status::InvalidArgument(fmt::format(
        "Error parsing interval year-month string: integer overflow ('{}' {})", value, unit));
  }
  return Scalar::YearMonthInterval(static_cast<int32_t>(months));
}

// Unsigned decimal digits (at most 18 of them, so the value fits); false otherwise.
bool YearMonthDigits(std::string_view text, __int128* out) {
  if (text.empty() || text.size() > 18) {
    return false;
  }
  __int128 value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

bool IsIntervalBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string_view TrimIntervalBlanks(std::string_view text) {
  while (!text.empty() && IsIntervalBlank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && IsIntervalBlank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

// '[+|-]y-m' with 0 <= m <= 11, as Spark's IntervalUtils.fromYearMonthString; months total.
bool ParseYearMonthPair(std::string_view text, __int128* months) {
  text = TrimIntervalBlanks(text);
  const bool negative = TakeSign(&text);
  const size_t dash = text.find('-');
  __int128 years = 0;
  __int128 month = 0;
  if (dash == std::string_view::npos || !YearMonthDigits(text.substr(0, dash), &years) ||
      !YearMonthDigits(text.substr(dash + 1), &month) || month > 11) {
    return false;
  }
  const __int128 total = years * 12 + month;
  *months = negative ? -total : total;
  return true;
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

// Spark's field of an interval unit name (plural or not): YEAR and MONTH are year-month
// fields, WEEK counts as DAY and MILLISECOND/MICROSECOND as SECOND; -1 for other words.
int IntervalUnitField(std::string unit) {
  unit = AsciiUpper(unit);
  if (unit.size() > 1 && unit.back() == 'S') {
    unit.pop_back();
  }
  if (unit == "YEAR" || unit == "WEEK" || unit == "DAY") {
    return unit == "YEAR" ? columnar::IntervalField::kYear : columnar::IntervalField::kDay;
  }
  if (unit == "MONTH") {
    return columnar::IntervalField::kMonth;
  }
  if (unit == "HOUR") {
    return columnar::IntervalField::kHour;
  }
  if (unit == "MINUTE") {
    return columnar::IntervalField::kMinute;
  }
  if (unit == "SECOND" || unit == "MILLISECOND" || unit == "MICROSECOND") {
    return columnar::IntervalField::kSecond;
  }
  return -1;
}

Result<Scalar> ParseIntervalLiteralValue(std::string_view value, std::string_view unit);

}  // namespace

// The literal's value, typed with Spark's start and end fields: the named range of
// `'...' DAY TO SECOND`, the one unit of `'10' DAY`, else the coarsest and finest units of
// `3 DAYS 1 SECOND` (INTERVAL DAY TO SECOND), as Spark's parser types them.
Result<Scalar> ParseIntervalLiteral(std::string_view value, std::string_view unit) {
  TRIBUTARY_ASSIGN_OR_RAISE(Scalar parsed, ParseIntervalLiteralValue(value, unit));
  std::vector<std::string> units;
  const std::string upper_unit = AsciiUpper(unit);
  if (const size_t to = upper_unit.find(" TO "); to != std::string::npos) {
    units = {upper_unit.substr(0, to), upper_unit.substr(to + 4)};
  } else if (!upper_unit.empty()) {
    units = {upper_unit};
  } else {
    // Unit-less text: "[INTERVAL] <number> <unit> ...", every second word a unit.
    std::vector<std::string> words;
    size_t i = 0;
    while (i < value.size()) {
      while (i < value.size() && value[i] == ' ') {
        ++i;
      }
      size_t end = i;
      while (end < value.size() && value[end] != ' ') {
        ++end;
      }
      if (end > i) {
        words.emplace_back(value.substr(i, end - i));
      }
      i = end;
    }
    if (!words.empty() && AsciiUpper(words[0]) == "INTERVAL") {
      words.erase(words.begin());
    }
    for (size_t w = 1; w < words.size(); w += 2) {
      units.push_back(words[w]);
    }
  }
  int start = 99;
  int end = -1;
  for (const std::string& name : units) {
    const int field = IntervalUnitField(name);
    if (field >= 0) {
      start = std::min(start, field);
      end = std::max(end, field);
    }
  }
  if (end < 0) {
    return parsed;
  }
  if (parsed.Type()->Id() == columnar::TypeId::kYearMonthInterval) {
    return Scalar::YearMonthInterval(static_cast<int32_t>(parsed.IntValue()), start, end);
  }
  return Scalar::DayTimeInterval(parsed.IntValue(), start, end);
}

namespace {

Result<Scalar> ParseIntervalLiteralValue(std::string_view value, std::string_view unit) {
  const std::string upper_unit = AsciiUpper(unit);
  if (const size_t to = upper_unit.find(" TO "); to != std::string::npos) {
    const std::string from = upper_unit.substr(0, to);
    const std::string last = upper_unit.substr(to + 4);
    if (from == "YEAR" || from == "MONTH") {
      if (from != "YEAR" || last != "MONTH") {
        return Status::InvalidArgument(
            fmt::format("Intervals FROM {} TO {} are not supported.", from, last));
      }
      __int128 months = 0;
      if (!ParseYearMonthPair(value, &months)) {
        return Status::InvalidArgument(
            fmt::format("Interval string does not match year-month format of `[+|-]y-m`, `INTERVAL "
                        "[+|-]'[+|-]y-m' YEAR TO MONTH` when cast to interval year to month: {}",
                        value));
      }
      return MonthsResult(months, value, unit);
    }
    return ParseIntervalRange(value, from, last, unit);
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
  __int128 months = 0;
  bool year_month = false;
  bool day_time = false;
  for (size_t i = 0; i < tokens.size(); i += 2) {
    const std::string upper = AsciiUpper(tokens[i + 1]);
    const int64_t per_unit = MicrosPerUnit(upper);
    if (per_unit < 0) {
      // YEAR or MONTH: a whole, signed number of them (Spark takes no fraction here).
      std::string_view number = tokens[i];
      const bool negative = TakeSign(&number);
      __int128 count = 0;
      if (!YearMonthDigits(number, &count)) {
        return Status::InvalidArgument(
            fmt::format("invalid interval literal '{}': '{}' is not a whole number of {}", value,
                        tokens[i], tokens[i + 1]));
      }
      count *= upper.rfind("YEAR", 0) == 0 ? 12 : 1;
      months += negative ? -count : count;
      year_month = true;
      continue;
    }
    day_time = true;
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
  if (year_month && day_time) {
    return Status::InvalidArgument(
        fmt::format("Cannot mix year-month and day-time fields: interval '{}'{}{}", value,
                    unit.empty() ? "" : " ", unit));
  }
  if (year_month) {
    return MonthsResult(months, value, unit);
  }
  return IntervalResult(total, value, unit);
}

}  // namespace

Result<int64_t> ParseIntervalMicros(std::string_view text) {
  auto parsed = ParseIntervalLiteral(text, "");
  if (parsed.ok() && parsed->Type()->Id() == columnar::TypeId::kYearMonthInterval) {
    return Status::NotImplemented(
        fmt::format("year-month intervals are not supported: '{}'", text));
  }
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

bool ParseDayTimeIntervalText(std::string_view text, int start_field, int end_field,
                              int64_t* micros) {
  static constexpr std::string_view kNames[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  text = TrimIntervalBlanks(text);
  std::string_view quoted = text;
  std::string unit(kNames[start_field]);
  if (end_field != start_field) {
    unit = fmt::format("{} TO {}", unit, kNames[end_field]);
  }
  bool outer_negative = false;
  if (text.size() >= 8 && AsciiUpper(text.substr(0, 8)) == "INTERVAL") {
    // INTERVAL [+|-]'<value>' <unit>: the form CAST(interval AS STRING) prints.
    text = TrimIntervalBlanks(text.substr(8));
    outer_negative = TakeSign(&text);
    const size_t close =
        text.size() < 2 || text[0] != '\'' ? std::string_view::npos : text.find('\'', 1);
    if (close == std::string_view::npos) {
      return false;
    }
    quoted = text.substr(1, close - 1);
    unit = AsciiUpper(TrimIntervalBlanks(text.substr(close + 1)));
  }
  auto parsed = ParseIntervalLiteralValue(quoted, unit);
  if (!parsed.ok() || parsed->Type()->Id() != columnar::TypeId::kDayTimeInterval ||
      (outer_negative && parsed->IntValue() == INT64_MIN)) {
    return false;
  }
  *micros = outer_negative ? -parsed->IntValue() : parsed->IntValue();
  return true;
}

bool ParseYearMonthIntervalText(std::string_view text, int32_t* months) {
  text = TrimIntervalBlanks(text);
  __int128 total = 0;
  if (text.size() < 8 || AsciiUpper(text.substr(0, 8)) != "INTERVAL") {
    if (!ParseYearMonthPair(text, &total)) {
      return false;
    }
  } else {
    // INTERVAL [+|-]'[+|-]<value>' <unit>: the form CAST(interval AS STRING) prints.
    text = TrimIntervalBlanks(text.substr(8));
    const bool outer_negative = TakeSign(&text);
    const size_t close =
        text.size() < 2 || text[0] != '\'' ? std::string_view::npos : text.find('\'', 1);
    if (close == std::string_view::npos) {
      return false;
    }
    const std::string_view quoted = text.substr(1, close - 1);
    const std::string unit = AsciiUpper(TrimIntervalBlanks(text.substr(close + 1)));
    if (unit == "YEAR TO MONTH") {
      if (!ParseYearMonthPair(quoted, &total)) {
        return false;
      }
    } else if (unit == "YEAR" || unit == "MONTH") {
      std::string_view number = TrimIntervalBlanks(quoted);
      const bool negative = TakeSign(&number);
      if (!YearMonthDigits(number, &total)) {
        return false;
      }
      total *= unit == "YEAR" ? 12 : 1;
      total = negative ? -total : total;
    } else {
      return false;
    }
    total = outer_negative ? -total : total;
  }
  if (total > INT32_MAX || total < INT32_MIN) {
    return false;
  }
  *months = static_cast<int32_t>(total);
  return true;
}

}  // namespace tributary::expr

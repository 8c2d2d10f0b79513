#include "expr/temporal_parsing.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "common/ascii.h"

namespace tributary::expr {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Reads 1..max_digits digits at text[*pos]; false when there are none or too many.
bool ReadNumber(std::string_view text, size_t* pos, size_t min_digits, size_t max_digits,
                int64_t* out) {
  size_t start = *pos;
  int64_t value = 0;
  while (*pos < text.size() && IsAsciiDigit(text[*pos])) {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
    if (*pos - start > max_digits) {
      return false;
    }
  }
  *out = value;
  return *pos - start >= min_digits;
}

// Parses the date part at text[0..); sets *pos past it.
bool ParseDatePart(std::string_view text, size_t* pos, int64_t* days) {
  size_t p = 0;
  int sign = 1;
  if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    sign = text[p] == '-' ? -1 : 1;
    ++p;
  }
  int64_t year = 0;
  int64_t month = 1;
  int64_t day = 1;
  if (!ReadNumber(text, &p, 4, 7, &year)) {
    return false;
  }
  if (p < text.size() && text[p] == '-') {
    ++p;
    if (!ReadNumber(text, &p, 1, 2, &month)) {
      return false;
    }
    if (p < text.size() && text[p] == '-') {
      ++p;
      if (!ReadNumber(text, &p, 1, 2, &day)) {
        return false;
      }
    }
  }
  year *= sign;
  if (month < 1 || month > 12 || day < 1 ||
      day > columnar::DaysInMonth(year, static_cast<int>(month))) {
    return false;
  }
  *days = columnar::DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  *pos = p;
  return true;
}

}  // namespace

bool ParseInt64(std::string_view text, int64_t* out) {
  text = Trim(text);
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') {
      return false;
    }
  }
  if (text.empty()) {
    return false;
  }
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

bool ParseDouble(std::string_view text, double* out) {
  text = Trim(text);
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
  }
  bool negative = false;
  std::string_view word = text;
  if (!word.empty() && word[0] == '-') {
    negative = true;
    word.remove_prefix(1);
  }
  if (EqualsIgnoreAsciiCase(word, "nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (EqualsIgnoreAsciiCase(word, "infinity") || EqualsIgnoreAsciiCase(word, "inf")) {
    *out = negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    return true;
  }
  if (text.empty() || !(IsAsciiDigit(text.back()) || text.back() == '.')) {
    return false;  // from_chars would accept "1e", Spark does not; also rejects "1d"/"1f".
  }
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (error == std::errc::result_out_of_range && end == text.data() + text.size()) {
    // Java's parseDouble, which Spark uses, rounds a magnitude beyond double's range to
    // Infinity and one below its smallest subnormal to 0.0 (signed); strtod does the same.
    const std::string copy(text);
    *out = std::strtod(copy.c_str(), nullptr);
    return true;
  }
  return error == std::errc() && end == text.data() + text.size();
}

bool ParseDecimal(std::string_view text, int precision, int scale, columnar::Int128* out) {
  text = Trim(text);
  size_t p = 0;
  bool negative = false;
  if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    negative = text[p] == '-';
    ++p;
  }
  // Significant digits, with the position of the decimal point.
  std::string digits;
  int fraction_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (; p < text.size(); ++p) {
    const char c = text[p];
    if (IsAsciiDigit(c)) {
      any_digit = true;
      if (!(digits.empty() && c == '0')) {
        digits.push_back(c);
      }
      if (seen_point) {
        ++fraction_digits;
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) {
    return false;
  }
  int64_t exponent = 0;
  if (p < text.size() && (text[p] == 'e' || text[p] == 'E')) {
    ++p;
    if (!ParseInt64(text.substr(p), &exponent) || exponent > 1000 || exponent < -1000) {
      return false;
    }
    p = text.size();
  }
  if (p != text.size()) {
    return false;
  }
  // value = digits * 10^(exponent - fraction_digits); we want it at `scale`.
  const int64_t shift = scale + exponent - fraction_digits;
  if (digits.empty()) {
    *out = 0;
    return true;
  }
  if (static_cast<int64_t>(digits.size()) + shift > precision) {
    return false;
  }
  columnar::Int128 value = 0;
  int64_t keep = static_cast<int64_t>(digits.size()) + std::min<int64_t>(shift, 0);
  for (int64_t i = 0; i < keep; ++i) {
    value = value * 10 + (digits[static_cast<size_t>(i)] - '0');
  }
  if (shift > 0) {
    value *= columnar::PowerOfTen(static_cast<int>(shift));
  } else if (keep >= 0 && keep < static_cast<int64_t>(digits.size()) &&
             digits[static_cast<size_t>(keep)] >= '5') {
    value += 1;  // Round half up on the first dropped digit.
  }
  if (!columnar::FitsPrecision(value, precision)) {
    return false;
  }
  *out = negative ? -value : value;
  return true;
}

bool ParseBoolean(std::string_view text, bool* out) {
  text = Trim(text);
  for (std::string_view word : {"true", "t", "yes", "y", "1"}) {
    if (EqualsIgnoreAsciiCase(text, word)) {
      *out = true;
      return true;
    }
  }
  for (std::string_view word : {"false", "f", "no", "n", "0"}) {
    if (EqualsIgnoreAsciiCase(text, word)) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseDate(std::string_view text, int32_t* days) {
  text = Trim(text);
  size_t pos = 0;
  int64_t value = 0;
  if (!ParseDatePart(text, &pos, &value)) {
    return false;
  }
  if (pos != text.size() && text[pos] != ' ' && text[pos] != 'T') {
    return false;
  }
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(value);
  return true;
}

bool ParseTimestamp(std::string_view text, const TimeZone& zone, bool ntz, int64_t* micros) {
  text = Trim(text);
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &pos, &days)) {
    return false;
  }
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  int64_t fraction = 0;
  if (pos < text.size() && (text[pos] == ' ' || text[pos] == 'T')) {
    ++pos;
    if (pos < text.size() && IsAsciiDigit(text[pos])) {
      if (!ReadNumber(text, &pos, 1, 2, &hour) || pos >= text.size() || text[pos] != ':') {
        return false;
      }
      ++pos;
      if (!ReadNumber(text, &pos, 1, 2, &minute)) {
        return false;
      }
      if (pos < text.size() && text[pos] == ':') {
        ++pos;
        if (!ReadNumber(text, &pos, 1, 2, &second)) {
          return false;
        }
        if (pos < text.size() && text[pos] == '.') {
          ++pos;
          size_t start = pos;
          while (pos < text.size() && IsAsciiDigit(text[pos])) {
            if (pos - start < 6) {
              fraction = fraction * 10 + (text[pos] - '0');
            }
            ++pos;
          }
          if (pos - start > 9) {
            return false;
          }
          for (size_t d = std::min<size_t>(pos - start, 6); d < 6; ++d) {
            fraction *= 10;
          }
        }
      }
    }
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return false;
  }
  std::string_view zone_text = Trim(text.substr(pos));
  int64_t local = 0;
  const int64_t seconds_of_day = hour * 3600 + minute * 60 + second;
  if (__builtin_mul_overflow(days, columnar::kMicrosPerDay, &local) ||
      __builtin_add_overflow(local, seconds_of_day * columnar::kMicrosPerSecond + fraction,
                             &local)) {
    return false;
  }
  if (zone_text.empty()) {
    *micros = ntz ? local : zone.UtcFromLocal(local);
    return true;
  }
  auto offset = ParseZoneOffset(zone_text);
  if (offset.ok()) {
    *micros = ntz ? local : local - *offset * columnar::kMicrosPerSecond;
    return true;
  }
  // A region or short id ("Europe/Paris", "PST"), as Spark's stringToTimestamp reads it
  // through ZoneId.of: the wall clock is read in that zone's rules at that date. The last
  // zone is kept per thread, since a column nearly always repeats one zone and loading its
  // rules reads a file.
  thread_local std::string cached_name;
  thread_local std::optional<TimeZone> cached_zone;
  if (!cached_zone.has_value() || cached_name != zone_text) {
    auto region = TimeZone::Make(zone_text);
    if (!region.ok()) {
      return false;
    }
    cached_zone = std::move(*region);
    cached_name = std::string(zone_text);
  }
  *micros = ntz ? local : cached_zone->UtcFromLocal(local);
  return true;
}

}  // namespace tributary::expr

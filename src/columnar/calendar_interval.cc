#include "columnar/calendar_interval.h"

#include <limits>

#include <fmt/format.h>

namespace tributary::columnar {
namespace {

constexpr int64_t kCalendarMicrosPerSecond = 1'000'000;
constexpr int64_t kCalendarMicrosPerMinute = 60 * kCalendarMicrosPerSecond;
constexpr int64_t kCalendarMicrosPerHour = 60 * kCalendarMicrosPerMinute;
// Nanoseconds of the first fraction digit, as Spark reads a second's fraction.
constexpr int64_t kFirstFractionDigitNanos = 100'000'000;

// Java's Character.isWhitespace over ASCII, which is what Spark's interval parser tests.
bool IsIntervalBlank(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

char LowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Whether `text` at `pos` starts with the lower-case `word`, ignoring case.
bool WordAt(std::string_view text, size_t pos, std::string_view word) {
  if (text.size() - pos < word.size()) {
    return false;
  }
  for (size_t i = 0; i < word.size(); ++i) {
    if (LowerAscii(text[pos + i]) != word[i]) {
      return false;
    }
  }
  return true;
}

bool FitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// Adds `count` units of `unit_micros` microseconds to `*micros`; false on 64-bit overflow.
bool AddMicros(int64_t count, int64_t unit_micros, int64_t* micros) {
  int64_t product = 0;
  return !__builtin_mul_overflow(count, unit_micros, &product) &&
         !__builtin_add_overflow(*micros, product, micros);
}

// Adds `count` units of `per_unit` to a 32-bit field; false when the result leaves int32.
bool AddToInt32Field(int64_t count, int64_t per_unit, int32_t* field) {
  int64_t product = 0;
  int64_t sum = 0;
  if (__builtin_mul_overflow(count, per_unit, &product) ||
      __builtin_add_overflow(int64_t{*field}, product, &sum) || !FitsInt32(sum)) {
    return false;
  }
  *field = static_cast<int32_t>(sum);
  return true;
}

enum class IntervalParseState {
  kBeforeSign,
  kSign,
  kBeforeValue,
  kValue,
  kFraction,
  kBeforeUnit,
  kUnit,
  kUnitSuffix,
  kUnitEnd,
};

}  // namespace

void AppendCalendarInterval(const CalendarInterval& value, std::string* out) {
  if (value.months == 0 && value.days == 0 && value.microseconds == 0) {
    *out += "0 seconds";
    return;
  }
  const size_t start = out->size();
  auto unit = [&](int64_t count, std::string_view name) {
    if (count != 0) {
      fmt::format_to(std::back_inserter(*out), "{} {} ", count, name);
    }
  };
  unit(value.months / 12, "years");
  unit(value.months % 12, "months");
  unit(value.days, "days");
  int64_t rest = value.microseconds;
  unit(rest / kCalendarMicrosPerHour, "hours");
  rest %= kCalendarMicrosPerHour;
  unit(rest / kCalendarMicrosPerMinute, "minutes");
  rest %= kCalendarMicrosPerMinute;
  if (rest != 0) {
    // BigDecimal.valueOf(rest, 6).stripTrailingZeros().toPlainString().
    const int64_t magnitude = rest < 0 ? -rest : rest;
    std::string seconds =
        fmt::format("{}{}.{:06d}", rest < 0 ? "-" : "", magnitude / kCalendarMicrosPerSecond,
                    magnitude % kCalendarMicrosPerSecond);
    while (seconds.back() == '0') {
      seconds.pop_back();
    }
    if (seconds.back() == '.') {
      seconds.pop_back();
    }
    *out += seconds;
    *out += " seconds ";
  }
  if (out->size() > start) {
    out->pop_back();
  }
}

bool ParseCalendarInterval(std::string_view text, CalendarInterval* out) {
  while (!text.empty() && IsIntervalBlank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && IsIntervalBlank(text.back())) {
    text.remove_suffix(1);
  }
  if (text.empty()) {
    return false;
  }
  size_t i = 0;
  if (WordAt(text, 0, "interval")) {
    if (text.size() == 8 || !IsIntervalBlank(text[8])) {
      return false;
    }
    i = 9;
  }
  CalendarInterval result;
  IntervalParseState state = IntervalParseState::kBeforeSign;
  bool negative = false;
  bool point_prefixed = false;
  int64_t value = 0;
  int64_t fraction = 0;         // nanoseconds, then microseconds once the number ends
  int64_t fraction_scale = -1;  // -1: no fraction seen
  while (i < text.size()) {
    const char b = LowerAscii(text[i]);
    switch (state) {
      case IntervalParseState::kBeforeSign:
      case IntervalParseState::kBeforeValue:
      case IntervalParseState::kBeforeUnit:
        if (IsIntervalBlank(b)) {
          ++i;
        } else {
          state = state == IntervalParseState::kBeforeSign    ? IntervalParseState::kSign
                  : state == IntervalParseState::kBeforeValue ? IntervalParseState::kValue
                                                              : IntervalParseState::kUnit;
        }
        break;
      case IntervalParseState::kSign:
        value = 0;
        fraction = 0;
        fraction_scale = -1;
        point_prefixed = false;
        negative = false;
        state = IntervalParseState::kBeforeValue;
        if (b == '-' || b == '+') {
          negative = b == '-';
          ++i;
        } else if (b == '.') {
          fraction_scale = kFirstFractionDigitNanos;
          point_prefixed = true;
          state = IntervalParseState::kFraction;
          ++i;
        } else if (b < '0' || b > '9') {
          return false;
        }
        break;
      case IntervalParseState::kValue:
        if (b >= '0' && b <= '9') {
          if (__builtin_mul_overflow(value, 10, &value) ||
              __builtin_add_overflow(value, b - '0', &value)) {
            return false;
          }
        } else if (IsIntervalBlank(b)) {
          state = IntervalParseState::kBeforeUnit;
        } else if (b == '.') {
          fraction_scale = kFirstFractionDigitNanos;
          state = IntervalParseState::kFraction;
        } else {
          return false;
        }
        ++i;
        break;
      case IntervalParseState::kFraction:
        if (b >= '0' && b <= '9' && fraction_scale > 0) {
          fraction += (b - '0') * fraction_scale;
          fraction_scale /= 10;
        } else if (IsIntervalBlank(b) &&
                   (!point_prefixed || fraction_scale < kFirstFractionDigitNanos)) {
          fraction /= 1000;
          state = IntervalParseState::kBeforeUnit;
        } else {
          return false;
        }
        ++i;
        break;
      case IntervalParseState::kUnit: {
        if (b != 's' && fraction_scale >= 0) {
          return false;  // only seconds take a fraction
        }
        if (negative) {
          value = -value;
          fraction = -fraction;
        }
        bool ok = false;
        std::string_view word;
        if (WordAt(text, i, "year")) {
          word = "year";
          ok = AddToInt32Field(value, 12, &result.months);
        } else if (WordAt(text, i, "month")) {
          word = "month";
          ok = AddToInt32Field(value, 1, &result.months) && FitsInt32(value);
        } else if (WordAt(text, i, "week")) {
          word = "week";
          ok = AddToInt32Field(value, 7, &result.days);
        } else if (WordAt(text, i, "day")) {
          word = "day";
          ok = FitsInt32(value) && AddToInt32Field(value, 1, &result.days);
        } else if (WordAt(text, i, "hour")) {
          word = "hour";
          ok = AddMicros(value, kCalendarMicrosPerHour, &result.microseconds);
        } else if (WordAt(text, i, "minute")) {
          word = "minute";
          ok = AddMicros(value, kCalendarMicrosPerMinute, &result.microseconds);
        } else if (WordAt(text, i, "second")) {
          word = "second";
          ok = AddMicros(value, kCalendarMicrosPerSecond, &result.microseconds) &&
               !__builtin_add_overflow(result.microseconds, fraction, &result.microseconds);
        } else if (WordAt(text, i, "millisecond")) {
          word = "millisecond";
          ok = AddMicros(value, 1000, &result.microseconds);
        } else if (WordAt(text, i, "microsecond")) {
          word = "microsecond";
          ok = AddMicros(value, 1, &result.microseconds);
        }
        if (!ok) {
          return false;
        }
        i += word.size();
        state = IntervalParseState::kUnitSuffix;
        break;
      }
      case IntervalParseState::kUnitSuffix:
        if (b == 's') {
          state = IntervalParseState::kUnitEnd;
        } else if (IsIntervalBlank(b)) {
          state = IntervalParseState::kBeforeSign;
        } else {
          return false;
        }
        ++i;
        break;
      case IntervalParseState::kUnitEnd:
        if (!IsIntervalBlank(b)) {
          return false;
        }
        ++i;
        state = IntervalParseState::kBeforeSign;
        break;
    }
  }
  if (state != IntervalParseState::kUnitSuffix && state != IntervalParseState::kUnitEnd &&
      state != IntervalParseState::kBeforeSign) {
    return false;
  }
  *out = result;
  return true;
}

}  // namespace tributary::columnar

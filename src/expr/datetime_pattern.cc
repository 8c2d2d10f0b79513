#include "expr/datetime_pattern.h"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "common/ascii.h"

namespace tributary::expr {

using Kind = DateTimePattern::Step::Kind;

namespace {

constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
// Monday first, as ISO and Java number days of the week.
constexpr std::array<std::string_view, 7> kDayNames = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 4> kQuarterNames = {"1st quarter", "2nd quarter",
                                                           "3rd quarter", "4th quarter"};
// Deepest nesting of optional sections.
constexpr int kMaxOptionalDepth = 8;

// The names java.time prints for pattern letter 'z' (short, zzz) and 'zzzz' (long) in the
// zones people use most; a zone not listed prints its id, as java.time does for fixed
// offsets. Daylight time is told from the offset: one hour east of the standard one.
struct ZoneDisplayNames {
  std::string_view id;
  int32_t standard_offset;
  std::string_view short_standard;
  std::string_view short_daylight;
  std::string_view long_standard;
  std::string_view long_daylight;
};

constexpr ZoneDisplayNames kZoneDisplayNames[] = {
    {"America/Los_Angeles", -8 * 3600, "PST", "PDT", "Pacific Standard Time",
     "Pacific Daylight Time"},
    {"America/Denver", -7 * 3600, "MST", "MDT", "Mountain Standard Time", "Mountain Daylight Time"},
    {"America/Phoenix", -7 * 3600, "MST", "MDT", "Mountain Standard Time",
     "Mountain Daylight Time"},
    {"America/Chicago", -6 * 3600, "CST", "CDT", "Central Standard Time", "Central Daylight Time"},
    {"America/New_York", -5 * 3600, "EST", "EDT", "Eastern Standard Time", "Eastern Daylight Time"},
    {"UTC", 0, "UTC", "UTC", "Coordinated Universal Time", "Coordinated Universal Time"},
    {"Etc/UTC", 0, "UTC", "UTC", "Coordinated Universal Time", "Coordinated Universal Time"},
    {"GMT", 0, "GMT", "GMT", "Greenwich Mean Time", "Greenwich Mean Time"},
    {"Europe/London", 0, "GMT", "BST", "Greenwich Mean Time", "British Summer Time"},
    {"Europe/Paris", 3600, "CET", "CEST", "Central European Standard Time",
     "Central European Summer Time"},
    {"Europe/Berlin", 3600, "CET", "CEST", "Central European Standard Time",
     "Central European Summer Time"},
    {"Europe/Amsterdam", 3600, "CET", "CEST", "Central European Standard Time",
     "Central European Summer Time"},
    {"Asia/Shanghai", 8 * 3600, "CST", "CDT", "China Standard Time", "China Daylight Time"},
    {"Asia/Tokyo", 9 * 3600, "JST", "JDT", "Japan Standard Time", "Japan Daylight Time"},
    {"Asia/Kolkata", 19800, "IST", "IST", "India Standard Time", "India Standard Time"},
};

void AppendZoneName(const std::string& zone_id, int64_t offset, bool long_form, std::string* out) {
  for (const ZoneDisplayNames& names : kZoneDisplayNames) {
    if (names.id == zone_id) {
      const bool daylight = offset == names.standard_offset + 3600;
      out->append(long_form ? (daylight ? names.long_daylight : names.long_standard)
                            : (daylight ? names.short_daylight : names.short_standard));
      return;
    }
  }
  out->append(zone_id);
}
// Most digits a year may have (Spark's timestamps end in year 294247).
constexpr uint8_t kMaxYearDigits = 9;

bool StartsWithIgnoreCase(std::string_view text, size_t pos, std::string_view word) {
  if (text.size() - pos < word.size()) {
    return false;
  }
  for (size_t i = 0; i < word.size(); ++i) {
    if (AsciiLower(text[pos + i]) != AsciiLower(word[i])) {
      return false;
    }
  }
  return true;
}

// Matches one of `names` (full, or its first three letters when `short_form`) at text[*pos].
template <size_t N>
bool ReadName(std::string_view text, size_t* pos, const std::array<std::string_view, N>& names,
              bool short_form, int* index) {
  for (size_t i = 0; i < N; ++i) {
    const std::string_view name = short_form ? names[i].substr(0, 3) : names[i];
    if (StartsWithIgnoreCase(text, *pos, name)) {
      *pos += name.size();
      *index = static_cast<int>(i);
      return true;
    }
  }
  return false;
}

// Reads exactly `digits` digits.
bool ReadFixed(std::string_view text, size_t* pos, int digits, int64_t* out) {
  if (text.size() - *pos < static_cast<size_t>(digits)) {
    return false;
  }
  int64_t value = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = text[*pos + static_cast<size_t>(i)];
    if (!IsAsciiDigit(c)) {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  *pos += static_cast<size_t>(digits);
  *out = value;
  return true;
}

// Reads an offset "+HH", "+HHMM", "+HH:MM", with optional seconds, at text[*pos].
// `minutes`: 0 none, 1 optional, 2 required; `seconds`: 0 none, 1 optional.
bool ReadOffset(std::string_view text, size_t* pos, bool colon, int minutes, int seconds,
                int64_t* out) {
  size_t p = *pos;
  if (p >= text.size() || (text[p] != '+' && text[p] != '-')) {
    return false;
  }
  const int64_t sign = text[p] == '-' ? -1 : 1;
  ++p;
  int64_t hh = 0;
  int64_t mm = 0;
  int64_t ss = 0;
  if (!ReadFixed(text, &p, 2, &hh)) {
    return false;
  }
  auto read_part = [&](int64_t* value) {
    size_t q = p;
    if (colon) {
      if (q >= text.size() || text[q] != ':') {
        return false;
      }
      ++q;
    }
    if (!ReadFixed(text, &q, 2, value)) {
      return false;
    }
    p = q;
    return true;
  };
  const bool have_minutes = minutes > 0 && read_part(&mm);
  if (minutes == 2 && !have_minutes) {
    return false;
  }
  if (seconds > 0 && have_minutes) {
    read_part(&ss);
  }
  if (hh > 18 || mm > 59 || ss > 59) {
    return false;
  }
  *pos = p;
  *out = sign * (hh * 3600 + mm * 60 + ss);
  return true;
}

// "GMT", "GMT+H", "GMT+HH", "GMT+H:MM", "GMT+HH:MM[:SS]" (`full` requires two-digit hours and
// minutes).
bool ReadLocalizedOffset(std::string_view text, size_t* pos, bool full, int64_t* out) {
  if (!StartsWithIgnoreCase(text, *pos, "GMT")) {
    return false;
  }
  size_t p = *pos + 3;
  if (p >= text.size() || (text[p] != '+' && text[p] != '-')) {
    *pos = p;
    *out = 0;
    return true;
  }
  const int64_t sign = text[p] == '-' ? -1 : 1;
  ++p;
  int64_t hh = 0;
  int64_t mm = 0;
  int64_t ss = 0;
  if (full) {
    if (!ReadFixed(text, &p, 2, &hh) || p >= text.size() || text[p] != ':') {
      return false;
    }
    ++p;
    if (!ReadFixed(text, &p, 2, &mm)) {
      return false;
    }
  } else {
    const int hour_digits = p + 1 < text.size() && IsAsciiDigit(text[p + 1]) ? 2 : 1;
    if (!ReadFixed(text, &p, hour_digits, &hh)) {
      return false;
    }
    if (p + 2 < text.size() && text[p] == ':' && IsAsciiDigit(text[p + 1])) {
      ++p;
      if (!ReadFixed(text, &p, 2, &mm)) {
        return false;
      }
    }
  }
  if (p + 2 < text.size() && text[p] == ':' && IsAsciiDigit(text[p + 1])) {
    ++p;
    if (!ReadFixed(text, &p, 2, &ss)) {
      return false;
    }
  }
  if (hh > 18 || mm > 59 || ss > 59) {
    return false;
  }
  *pos = p;
  *out = sign * (hh * 3600 + mm * 60 + ss);
  return true;
}

void AppendPadded(int64_t value, int width, std::string* out) {
  if (value < 0) {
    out->push_back('-');
    value = -value;
  }
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = n; i < width; ++i) {
    out->push_back('0');
  }
  while (n > 0) {
    out->push_back(digits[--n]);
  }
}

// `offset` in seconds as [+-]HH then, per flags, MM (always, or when non-zero) and SS (when
// non-zero), separated by `colon`.
void AppendOffset(int64_t offset, bool colon, bool minutes_always, bool seconds_allowed,
                  std::string* out) {
  out->push_back(offset < 0 ? '-' : '+');
  const int64_t a = offset < 0 ? -offset : offset;
  AppendPadded(a / 3600, 2, out);
  const int64_t mm = a / 60 % 60;
  const int64_t ss = a % 60;
  if (minutes_always || mm != 0 || (seconds_allowed && ss != 0)) {
    if (colon) {
      out->push_back(':');
    }
    AppendPadded(mm, 2, out);
  }
  if (seconds_allowed && ss != 0) {
    if (colon) {
      out->push_back(':');
    }
    AppendPadded(ss, 2, out);
  }
}

}  // namespace

// What a parse found. -1 marks a field the text did not give.
struct DateTimePattern::Fields {
  int64_t year = -1;
  int64_t year_two_digits = -1;
  int64_t era = -1;  // 0 BC, 1 AD
  int64_t day_of_year = -1;
  int64_t month = -1;
  int64_t day = -1;
  int64_t hour_of_day = -1;
  int64_t hour_of_am_pm = -1;
  int64_t am_pm = -1;  // 0 AM, 1 PM
  int64_t minute = -1;
  int64_t second = -1;
  int64_t micros = 0;
  bool has_fraction = false;
  bool has_offset = false;
  int64_t offset_seconds = 0;
  std::string_view zone_id;

  // Days since the epoch, or false when the fields do not name a valid date.
  bool ResolveDate(int64_t* days) const {
    int64_t y = 1970;
    if (year >= 0) {
      y = era == 0 ? 1 - year : year;
    } else if (year_two_digits >= 0) {
      y = 2000 + year_two_digits;
    }
    if (day_of_year >= 0) {
      const int64_t first = columnar::DaysFromCivil(y, 1, 1);
      const int64_t length = columnar::DaysFromCivil(y + 1, 1, 1) - first;
      if (day_of_year < 1 || day_of_year > length) {
        return false;
      }
      *days = first + day_of_year - 1;
      if (month >= 0 || day >= 0) {
        const columnar::CivilDate civil = columnar::CivilFromDays(*days);
        if ((month >= 0 && civil.month != month) || (day >= 0 && civil.day != day)) {
          return false;
        }
      }
      return true;
    }
    const int64_t m = month >= 0 ? month : 1;
    const int64_t d = day >= 0 ? day : 1;
    if (m < 1 || m > 12 || d < 1 || d > columnar::DaysInMonth(y, static_cast<int>(m))) {
      return false;
    }
    *days = columnar::DaysFromCivil(y, static_cast<int>(m), static_cast<int>(d));
    return true;
  }

  // Microseconds since midnight, or false for an invalid time.
  bool ResolveTime(int64_t* micros_of_day) const {
    int64_t h = 0;
    if (hour_of_am_pm >= 0) {
      if (hour_of_day >= 0 && hour_of_day % 12 != hour_of_am_pm) {
        return false;
      }
      h = hour_of_am_pm + (am_pm == 1 ? 12 : 0);
    } else if (hour_of_day >= 0) {
      if (am_pm >= 0 && (hour_of_day >= 12) != (am_pm == 1)) {
        return false;
      }
      h = hour_of_day;
    }
    const int64_t m = minute >= 0 ? minute : 0;
    const int64_t s = second >= 0 ? second : 0;
    *micros_of_day = ((h * 60 + m) * 60 + s) * columnar::kMicrosPerSecond + micros;
    return true;
  }
};

namespace {

using Fields = DateTimePattern::Fields;

// How a number step is read: the field it sets (none for the quarter, which is checked and
// ignored), its range, and the value that means 0 (24 for k, 12 for h), or -1.
struct NumberField {
  bool is_number = false;
  int64_t Fields::*field = nullptr;
  int64_t min = 0;
  int64_t max = 0;
  int64_t wraps_to_zero = -1;
};

constexpr auto kNumberFields = [] {
  std::array<NumberField, static_cast<size_t>(Kind::kZoneId) + 1> table{};
  auto set = [&](Kind kind, int64_t Fields::*field, int64_t min, int64_t max,
                 int64_t wraps_to_zero = -1) {
    table[static_cast<size_t>(kind)] = NumberField{true, field, min, max, wraps_to_zero};
  };
  set(Kind::kYear, &Fields::year, 0, 999'999'999);
  set(Kind::kYearTwoDigits, &Fields::year_two_digits, 0, 99);
  set(Kind::kDayOfYear, &Fields::day_of_year, 1, 366);
  set(Kind::kMonth, &Fields::month, 1, 12);
  set(Kind::kQuarter, nullptr, 1, 4);
  set(Kind::kAlignedDayOfWeekInMonth, nullptr, 1, 7);
  set(Kind::kDayOfMonth, &Fields::day, 1, 31);
  set(Kind::kHourOfDay, &Fields::hour_of_day, 0, 23);
  set(Kind::kClockHourOfDay, &Fields::hour_of_day, 1, 24, 24);
  set(Kind::kHourOfAmPm, &Fields::hour_of_am_pm, 0, 11);
  set(Kind::kClockHourOfAmPm, &Fields::hour_of_am_pm, 1, 12, 12);
  set(Kind::kMinute, &Fields::minute, 0, 59);
  set(Kind::kSecond, &Fields::second, 0, 59);
  return table;
}();

// The digits a step after a variable-width number keeps from it: those of a fixed-width number,
// or the most a fraction reads (so "yyyyMMddHHmmssSSS" reads). 0 ends the adjacent run.
uint8_t FixedWidth(const DateTimePattern::Step& step) {
  if (step.kind == Kind::kFraction) {
    return step.max_digits;
  }
  const bool fixed = step.min_digits == step.max_digits;
  return kNumberFields[static_cast<size_t>(step.kind)].is_number && fixed ? step.min_digits : 0;
}

}  // namespace

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern) {
  DateTimePattern compiled;
  compiled.pattern_ = std::string(pattern);
  auto invalid = [&](size_t pos, std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("invalid datetime pattern '{}' at position {}: {}", pattern, pos, why));
  };
  std::vector<Step>& steps = compiled.steps_;
  std::vector<size_t> open_sections;
  auto add_literal = [&](std::string_view text) {
    if (!steps.empty() && steps.back().kind == Kind::kLiteral &&
        steps.back().offset + steps.back().length == compiled.literals_.size()) {
      steps.back().length += static_cast<uint32_t>(text.size());
    } else {
      Step step;
      step.kind = Kind::kLiteral;
      step.offset = static_cast<uint32_t>(compiled.literals_.size());
      step.length = static_cast<uint32_t>(text.size());
      steps.push_back(step);
    }
    compiled.literals_.append(text);
  };

  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '\'') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
        add_literal("'");
        i += 2;
        continue;
      }
      size_t j = i + 1;
      std::string text;
      while (true) {
        if (j >= pattern.size()) {
          return invalid(i, "the quoted text is not closed");
        }
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            text.push_back('\'');
            j += 2;
            continue;
          }
          break;
        }
        text.push_back(pattern[j]);
        ++j;
      }
      if (!text.empty()) {
        add_literal(text);
      }
      i = j + 1;
      continue;
    }
    if (c == '[') {
      if (static_cast<int>(open_sections.size()) >= kMaxOptionalDepth) {
        return invalid(i, "optional sections nest too deeply");
      }
      open_sections.push_back(steps.size());
      Step step;
      step.kind = Kind::kOptionalBegin;
      steps.push_back(step);
      ++i;
      continue;
    }
    if (c == ']') {
      if (open_sections.empty()) {
        return invalid(i, "']' without a matching '['");
      }
      steps[open_sections.back()].offset = static_cast<uint32_t>(steps.size());
      open_sections.pop_back();
      Step step;
      step.kind = Kind::kOptionalEnd;
      steps.push_back(step);
      ++i;
      continue;
    }
    if (!IsAsciiLetter(c)) {
      add_literal(std::string_view(&c, 1));
      ++i;
      continue;
    }
    size_t count = 1;
    while (i + count < pattern.size() && pattern[i + count] == c) {
      ++count;
    }
    auto bad_count = [&]() {
      return invalid(i, fmt::format("too many pattern letters '{}' ({})", c, count));
    };
    Step step;
    step.count = static_cast<uint8_t>(std::min<size_t>(count, 255));
    auto number = [&](Kind kind, size_t max_count, uint8_t variable_max) {
      step.kind = kind;
      step.min_digits = static_cast<uint8_t>(count);
      step.max_digits = count == 1 ? variable_max : static_cast<uint8_t>(count);
      return count <= max_count;
    };
    bool ok = true;
    switch (c) {
      case 'G':
        step.kind = Kind::kEra;
        ok = count <= 4;
        break;
      case 'y':
        if (count == 2) {
          step.kind = Kind::kYearTwoDigits;
          step.min_digits = step.max_digits = 2;
        } else {
          step.kind = Kind::kYear;
          step.min_digits = static_cast<uint8_t>(count);
          step.max_digits = kMaxYearDigits;
          ok = count <= 6;
        }
        break;
      case 'D':
        ok = number(Kind::kDayOfYear, 3, 3);
        break;
      case 'M':
      case 'L':
        if (count >= 3) {
          step.kind = Kind::kMonthText;
          ok = count <= 4;
        } else {
          number(Kind::kMonth, 2, 2);
        }
        break;
      case 'Q':
      case 'q':
        if (count >= 3) {
          step.kind = Kind::kQuarterText;
          ok = count <= 4;
        } else {
          number(Kind::kQuarter, 2, 1);
        }
        break;
      case 'd':
        ok = number(Kind::kDayOfMonth, 2, 2);
        break;
      case 'E':
        step.kind = Kind::kDayOfWeekText;
        ok = count <= 4;
        break;
      case 'a':
        step.kind = Kind::kAmPm;
        ok = count == 1;
        break;
      case 'h':
        ok = number(Kind::kClockHourOfAmPm, 2, 2);
        break;
      case 'K':
        ok = number(Kind::kHourOfAmPm, 2, 2);
        break;
      case 'k':
        ok = number(Kind::kClockHourOfDay, 2, 2);
        break;
      case 'H':
        ok = number(Kind::kHourOfDay, 2, 2);
        break;
      case 'm':
        ok = number(Kind::kMinute, 2, 2);
        break;
      case 's':
        ok = number(Kind::kSecond, 2, 2);
        break;
      case 'S':
        step.kind = Kind::kFraction;
        step.min_digits = 1;
        step.max_digits = static_cast<uint8_t>(std::min<size_t>(count, 9));
        ok = count <= 9;
        break;
      case 'X':
        step.kind = Kind::kOffsetX;
        ok = count <= 5;
        break;
      case 'x':
        step.kind = Kind::kOffsetLowerX;
        ok = count <= 5;
        break;
      case 'Z':
        step.kind = Kind::kOffsetZ;
        ok = count <= 5;
        break;
      case 'O':
        step.kind = Kind::kOffsetLocalized;
        if (count != 1 && count != 4) {
          return invalid(i, "pattern letter 'O' must appear once or four times");
        }
        break;
      case 'V':
        step.kind = Kind::kZoneId;
        if (count != 2) {
          return invalid(i, "pattern letter 'V' must appear twice (VV)");
        }
        break;
      case 'z':
        step.kind = Kind::kZoneName;
        ok = count <= 4;
        break;
      case 'F':
        // java.time (and so Spark) binds 'F' to ALIGNED_DAY_OF_WEEK_IN_MONTH: (day - 1) % 7 + 1.
        ok = number(Kind::kAlignedDayOfWeekInMonth, 1, 1);
        break;
      case 'Y':
      case 'w':
      case 'W':
      case 'u':
      case 'e':
      case 'c':
        return invalid(i, fmt::format("week-based pattern letter '{}' is not supported (nor in "
                                      "Spark since 3.0)",
                                      c));
      default:
        return invalid(i, fmt::format("unsupported pattern letter '{}'", c));
    }
    if (!ok) {
      return bad_count();
    }
    steps.push_back(step);
    i += count;
  }
  if (!open_sections.empty()) {
    return invalid(pattern.size(), "'[' without a matching ']'");
  }
  // Adjacent value parsing: a variable-width number leaves the digits of the fixed-width
  // numbers right after it to them.
  for (size_t s = 0; s < steps.size(); ++s) {
    if (!kNumberFields[static_cast<size_t>(steps[s].kind)].is_number ||
        steps[s].min_digits == steps[s].max_digits) {
      continue;
    }
    int reserved = 0;
    for (size_t t = s + 1; t < steps.size(); ++t) {
      const uint8_t width = FixedWidth(steps[t]);
      if (width == 0) {
        break;
      }
      reserved += width;
    }
    steps[s].reserved_digits = static_cast<uint8_t>(std::min(reserved, 255));
  }
  return compiled;
}

bool DateTimePattern::Parse(std::string_view text, Fields* fields) const {
  struct Saved {
    size_t pos;
    Fields fields;
  };
  // Left uninitialized: only patterns with optional sections use it.
  union Slot {
    Slot() {}
    Saved value;
  };
  Slot saved[kMaxOptionalDepth];
  int depth = 0;
  size_t pos = 0;
  size_t s = 0;
  const size_t n = steps_.size();
  while (s < n) {
    const Step& step = steps_[s];
    bool ok = true;
    switch (step.kind) {
      case Kind::kLiteral:
        ok = StartsWithIgnoreCase(text, pos,
                                  std::string_view(literals_).substr(step.offset, step.length));
        pos += ok ? step.length : 0;
        break;
      case Kind::kOptionalBegin:
        saved[depth++].value = Saved{pos, *fields};
        break;
      case Kind::kOptionalEnd:
        --depth;
        break;
      case Kind::kEra: {
        static constexpr std::array<std::string_view, 2> kShort = {"BC", "AD"};
        static constexpr std::array<std::string_view, 2> kLong = {"Before Christ", "Anno Domini"};
        int index = 0;
        ok = step.count == 4 ? ReadName(text, &pos, kLong, false, &index)
                             : ReadName(text, &pos, kShort, false, &index);
        fields->era = index;
        break;
      }
      case Kind::kMonthText: {
        int index = 0;
        ok = ReadName(text, &pos, kMonthNames, step.count == 3, &index);
        fields->month = index + 1;
        break;
      }
      case Kind::kQuarterText: {
        static constexpr std::array<std::string_view, 4> kShort = {"Q1", "Q2", "Q3", "Q4"};
        int index = 0;
        ok = step.count == 4 ? ReadName(text, &pos, kQuarterNames, false, &index)
                             : ReadName(text, &pos, kShort, false, &index);
        break;
      }
      case Kind::kDayOfWeekText: {
        int index = 0;
        ok = ReadName(text, &pos, kDayNames, step.count <= 3, &index);
        break;
      }
      case Kind::kAmPm: {
        static constexpr std::array<std::string_view, 2> kNames = {"AM", "PM"};
        int index = 0;
        ok = ReadName(text, &pos, kNames, false, &index);
        fields->am_pm = index;
        break;
      }
      case Kind::kFraction: {
        size_t digits = 0;
        int64_t micros = 0;
        while (pos + digits < text.size() && digits < step.max_digits &&
               IsAsciiDigit(text[pos + digits])) {
          if (digits < 6) {
            micros = micros * 10 + (text[pos + digits] - '0');
          }
          ++digits;
        }
        ok = digits >= 1;
        for (size_t d = digits; d < 6; ++d) {
          micros *= 10;
        }
        // A field read twice must agree (java.time's resolver: "Conflict found").
        ok = ok && (!fields->has_fraction || fields->micros == micros);
        fields->micros = micros;
        fields->has_fraction = true;
        pos += digits;
        break;
      }
      case Kind::kOffsetX:
      case Kind::kOffsetLowerX: {
        if (step.kind == Kind::kOffsetX && pos < text.size() && AsciiLower(text[pos]) == 'z') {
          ++pos;
          fields->has_offset = true;
          fields->offset_seconds = 0;
          break;
        }
        const int c = step.count;
        ok = ReadOffset(text, &pos, c == 3 || c == 5, c == 1 ? 1 : 2, c >= 4 ? 1 : 0,
                        &fields->offset_seconds);
        fields->has_offset = ok;
        break;
      }
      case Kind::kOffsetZ:
        if (step.count == 4) {
          ok = ReadLocalizedOffset(text, &pos, true, &fields->offset_seconds);
        } else if (step.count == 5 && pos < text.size() && AsciiLower(text[pos]) == 'z') {
          ++pos;
          fields->offset_seconds = 0;
        } else {
          ok = ReadOffset(text, &pos, step.count == 5, 2, step.count == 5 ? 1 : 0,
                          &fields->offset_seconds);
        }
        fields->has_offset = ok;
        break;
      case Kind::kOffsetLocalized:
        ok = ReadLocalizedOffset(text, &pos, step.count == 4, &fields->offset_seconds);
        fields->has_offset = ok;
        break;
      case Kind::kZoneName:
      case Kind::kZoneId: {
        size_t end = pos;
        while (end < text.size() &&
               (IsAsciiLetter(text[end]) || IsAsciiDigit(text[end]) || text[end] == '/' ||
                text[end] == '_' || text[end] == '+' || text[end] == '-' || text[end] == ':')) {
          ++end;
        }
        ok = end > pos;
        fields->zone_id = text.substr(pos, end - pos);
        pos = end;
        break;
      }
      default: {
        // Numbers.
        size_t available = 0;
        while (pos + available < text.size() && IsAsciiDigit(text[pos + available])) {
          ++available;
        }
        size_t take = std::min<size_t>(available, step.max_digits);
        if (step.reserved_digits > 0) {
          take = available > step.reserved_digits
                     ? std::min<size_t>(take, available - step.reserved_digits)
                     : 0;
        }
        int64_t value = 0;
        const NumberField& target = kNumberFields[static_cast<size_t>(step.kind)];
        ok = take >= step.min_digits && ReadFixed(text, &pos, static_cast<int>(take), &value) &&
             value >= target.min && value <= target.max;
        if (ok && target.field != nullptr) {
          const int64_t resolved = value == target.wraps_to_zero ? 0 : value;
          ok = fields->*target.field < 0 || fields->*target.field == resolved;
          fields->*target.field = resolved;
        }
        break;
      }
    }
    if (ok) {
      ++s;
      continue;
    }
    if (depth == 0) {
      return false;
    }
    // Inside an optional section: undo it and continue after it.
    const Saved& undo = saved[--depth].value;
    pos = undo.pos;
    *fields = undo.fields;
    size_t begin = s;
    int nesting = 0;
    // Find the section's begin (the innermost open one), then continue past its end.
    while (true) {
      if (steps_[begin].kind == Kind::kOptionalEnd) {
        ++nesting;
      } else if (steps_[begin].kind == Kind::kOptionalBegin) {
        if (nesting == 0) {
          break;
        }
        --nesting;
      }
      --begin;
    }
    s = steps_[begin].offset + 1;
  }
  return pos == text.size();
}

bool DateTimePattern::ParseTimestamp(std::string_view text, const TimeZone& zone, bool ntz,
                                     int64_t* micros) const {
  Fields fields;
  int64_t days = 0;
  int64_t time = 0;
  if (!Parse(text, &fields) || !fields.ResolveDate(&days) || !fields.ResolveTime(&time)) {
    return false;
  }
  int64_t local = 0;
  if (__builtin_mul_overflow(days, columnar::kMicrosPerDay, &local) ||
      __builtin_add_overflow(local, time, &local)) {
    return false;
  }
  if (ntz) {
    *micros = local;
    return true;
  }
  if (fields.has_offset) {
    *micros = local - fields.offset_seconds * columnar::kMicrosPerSecond;
    return true;
  }
  if (!fields.zone_id.empty()) {
    auto offset = ParseZoneOffset(fields.zone_id);
    if (offset.ok()) {
      *micros = local - *offset * columnar::kMicrosPerSecond;
      return true;
    }
    auto region = TimeZone::Make(fields.zone_id);
    if (!region.ok()) {
      return false;
    }
    *micros = region->UtcFromLocal(local);
    return true;
  }
  *micros = zone.UtcFromLocal(local);
  return true;
}

bool DateTimePattern::ParseDate(std::string_view text, int32_t* days) const {
  Fields fields;
  int64_t value = 0;
  int64_t time = 0;
  if (!Parse(text, &fields) || !fields.ResolveDate(&value) || !fields.ResolveTime(&time) ||
      value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(value);
  return true;
}

void DateTimePattern::Format(int64_t micros, const TimeZone& zone, std::string* out) const {
  const int64_t local = zone.LocalFromUtc(micros);
  const int64_t offset = zone.OffsetAt(columnar::FloorDiv(micros, columnar::kMicrosPerSecond));
  const int64_t days = columnar::FloorDiv(local, columnar::kMicrosPerDay);
  const int64_t time = columnar::FloorMod(local, columnar::kMicrosPerDay);
  const columnar::CivilDate civil = columnar::CivilFromDays(days);
  const int64_t hour = time / (3600 * columnar::kMicrosPerSecond);
  const int64_t minute = time / (60 * columnar::kMicrosPerSecond) % 60;
  const int64_t second = time / columnar::kMicrosPerSecond % 60;
  const int64_t fraction = time % columnar::kMicrosPerSecond;
  const int64_t year_of_era = civil.year <= 0 ? 1 - civil.year : civil.year;
  for (const Step& step : steps_) {
    const int count = step.count;
    switch (step.kind) {
      case Kind::kLiteral:
        out->append(std::string_view(literals_).substr(step.offset, step.length));
        break;
      case Kind::kOptionalBegin:
      case Kind::kOptionalEnd:
        break;
      case Kind::kEra:
        out->append(civil.year <= 0 ? (count == 4 ? "Before Christ" : "BC")
                                    : (count == 4 ? "Anno Domini" : "AD"));
        break;
      case Kind::kYear: {
        int digits = 1;
        for (int64_t y = year_of_era; y >= 10; y /= 10) {
          ++digits;
        }
        if (count >= 4 && digits > count) {
          out->push_back('+');
        }
        AppendPadded(year_of_era, count == 1 ? 1 : count, out);
        break;
      }
      case Kind::kYearTwoDigits:
        AppendPadded(year_of_era % 100, 2, out);
        break;
      case Kind::kDayOfYear:
        AppendPadded(days - columnar::DaysFromCivil(civil.year, 1, 1) + 1, count, out);
        break;
      case Kind::kMonth:
        AppendPadded(civil.month, count, out);
        break;
      case Kind::kMonthText:
        out->append(count == 3 ? kMonthNames[static_cast<size_t>(civil.month - 1)].substr(0, 3)
                               : kMonthNames[static_cast<size_t>(civil.month - 1)]);
        break;
      case Kind::kQuarter:
        AppendPadded((civil.month - 1) / 3 + 1, count, out);
        break;
      case Kind::kQuarterText:
        if (count == 4) {
          out->append(kQuarterNames[static_cast<size_t>((civil.month - 1) / 3)]);
        } else {
          out->push_back('Q');
          AppendPadded((civil.month - 1) / 3 + 1, 1, out);
        }
        break;
      case Kind::kDayOfMonth:
        AppendPadded(civil.day, count, out);
        break;
      case Kind::kDayOfWeekText: {
        // 1970-01-01 was a Thursday (index 3, Monday first).
        const std::string_view name =
            kDayNames[static_cast<size_t>(columnar::FloorMod(days + 3, 7))];
        out->append(count == 4 ? name : name.substr(0, 3));
        break;
      }
      case Kind::kAmPm:
        out->append(hour < 12 ? "AM" : "PM");
        break;
      case Kind::kHourOfDay:
        AppendPadded(hour, count, out);
        break;
      case Kind::kClockHourOfDay:
        AppendPadded(hour == 0 ? 24 : hour, count, out);
        break;
      case Kind::kHourOfAmPm:
        AppendPadded(hour % 12, count, out);
        break;
      case Kind::kClockHourOfAmPm:
        AppendPadded(hour % 12 == 0 ? 12 : hour % 12, count, out);
        break;
      case Kind::kMinute:
        AppendPadded(minute, count, out);
        break;
      case Kind::kSecond:
        AppendPadded(second, count, out);
        break;
      case Kind::kFraction: {
        char digits[9];
        int64_t nanos = fraction * 1000;
        for (int d = 8; d >= 0; --d) {
          digits[d] = static_cast<char>('0' + nanos % 10);
          nanos /= 10;
        }
        out->append(digits, static_cast<size_t>(std::min(count, 9)));
        break;
      }
      case Kind::kOffsetX:
      case Kind::kOffsetLowerX:
        if (step.kind == Kind::kOffsetX && offset == 0) {
          out->push_back('Z');
        } else {
          AppendOffset(offset, count == 3 || count == 5, count != 1, count >= 4, out);
        }
        break;
      case Kind::kOffsetZ:
        if (count <= 3) {
          AppendOffset(offset, false, true, false, out);
        } else if (count == 4) {
          out->append("GMT");
          if (offset != 0) {
            AppendOffset(offset, true, true, true, out);
          }
        } else if (offset == 0) {
          out->push_back('Z');
        } else {
          AppendOffset(offset, true, true, true, out);
        }
        break;
      case Kind::kOffsetLocalized:
        out->append("GMT");
        if (offset != 0 && count == 4) {
          AppendOffset(offset, true, true, true, out);
        } else if (offset != 0) {
          const int64_t a = offset < 0 ? -offset : offset;
          out->push_back(offset < 0 ? '-' : '+');
          AppendPadded(a / 3600, 1, out);
          if (a % 3600 != 0) {
            out->push_back(':');
            AppendPadded(a / 60 % 60, 2, out);
          }
          if (a % 60 != 0) {
            out->push_back(':');
            AppendPadded(a % 60, 2, out);
          }
        }
        break;
      case Kind::kAlignedDayOfWeekInMonth:
        AppendPadded((civil.day - 1) % 7 + 1, count, out);
        break;
      case Kind::kZoneName:
        AppendZoneName(zone.Name(), offset, count == 4, out);
        break;
      case Kind::kZoneId:
        out->append(zone.Name());
        break;
    }
  }
}

}  // namespace tributary::expr

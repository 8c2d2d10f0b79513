#include "columnar/calendar.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace tributary::columnar {

// Days/civil conversions use the era-based method (400-year eras of 146097 days) described in
// Howard Hinnant's "chrono-Compatible Low-Level Date Algorithms".
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2;
  const int64_t era = FloorDiv(year, 400);
  const int64_t year_of_era = year - era * 400;
  const int64_t month_index = month > 2 ? month - 3 : month + 9;
  const int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const int month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  return {year_of_era + era * 400 + (month <= 2), month, day};
}

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

int64_t AddMonthsToDays(int64_t days, int64_t months) {
  const CivilDate date = CivilFromDays(days);
  const int64_t total = date.year * 12 + (date.month - 1) + months;
  const int64_t year = FloorDiv(total, 12);
  const int month = static_cast<int>(FloorMod(total, 12)) + 1;
  return DaysFromCivil(year, month, std::min(date.day, DaysInMonth(year, month)));
}

bool AddMonthsToMicros(int64_t local, int64_t months, int64_t* out) {
  const int64_t days = AddMonthsToDays(FloorDiv(local, kMicrosPerDay), months);
  const int64_t time = FloorMod(local, kMicrosPerDay);
  return !__builtin_mul_overflow(days, kMicrosPerDay, out) &&
         !__builtin_add_overflow(*out, time, out);
}

void AppendDate(int64_t days, std::string* out) {
  const CivilDate date = CivilFromDays(days);
  if (date.year >= 0 && date.year <= 9999) {
    fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}", date.year, date.month, date.day);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:+05}-{:02}-{:02}", date.year, date.month, date.day);
  }
}

namespace {

void AppendDateAndTime(int64_t micros, char separator, std::string* out, int64_t* fraction) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const int64_t micros_of_day = micros - days * kMicrosPerDay;
  AppendDate(days, out);
  const int64_t seconds = micros_of_day / kMicrosPerSecond;
  *fraction = micros_of_day % kMicrosPerSecond;
  fmt::format_to(std::back_inserter(*out), "{}{:02}:{:02}:{:02}", separator, seconds / 3600,
                 seconds / 60 % 60, seconds % 60);
}

}  // namespace

void AppendTimestampIso(int64_t micros, bool utc, std::string* out) {
  int64_t fraction = 0;
  AppendDateAndTime(micros, 'T', out, &fraction);
  fmt::format_to(std::back_inserter(*out), ".{:06}", fraction);
  if (utc) {
    out->push_back('Z');
  }
}

void AppendTimestampSpark(int64_t micros, std::string* out) {
  int64_t fraction = 0;
  AppendDateAndTime(micros, ' ', out, &fraction);
  if (fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    while (digits.back() == '0') {
      digits.pop_back();
    }
    out->push_back('.');
    *out += digits;
  }
}

void AppendDayTimeInterval(int64_t micros, std::string* out) {
  AppendDayTimeInterval(micros, 0, 3, out);
}

void AppendYearMonthInterval(int32_t months, std::string* out) {
  AppendYearMonthInterval(months, 0, 1, out);
}

void AppendDayTimeInterval(int64_t micros, int start_field, int end_field, std::string* out) {
  static constexpr std::string_view kNames[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  static constexpr uint64_t kUnitMicros[] = {86400000000ULL, 3600000000ULL, 60000000ULL,
                                             1000000ULL};
  static constexpr uint64_t kPerParent[] = {0, 24, 60, 60};
  const bool negative = micros < 0;
  // Magnitude in unsigned arithmetic: INT64_MIN has no positive counterpart.
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(micros) : static_cast<uint64_t>(micros);
  *out += "INTERVAL '";
  if (negative) {
    out->push_back('-');
  }
  for (int field = start_field; field <= end_field; ++field) {
    // The first field takes the whole magnitude in its unit; later ones their remainder.
    uint64_t value = magnitude / kUnitMicros[field];
    if (field != start_field) {
      value %= kPerParent[field];
      out->push_back(field == 1 ? ' ' : ':');
    }
    if (field == 0) {
      *out += fmt::format("{}", value);
    } else {
      *out += fmt::format("{:02}", value);
    }
    if (field == 3) {
      const uint64_t fraction = magnitude % 1000000;
      if (fraction != 0) {
        std::string digits = fmt::format("{:06}", fraction);
        digits.erase(digits.find_last_not_of('0') + 1);
        out->push_back('.');
        *out += digits;
      }
    }
  }
  *out += "' ";
  *out += kNames[start_field];
  if (end_field != start_field) {
    *out += " TO ";
    *out += kNames[end_field];
  }
}

void AppendYearMonthInterval(int32_t months, int start_field, int end_field, std::string* out) {
  // Magnitude in 64 bits: INT32_MIN months has no positive int32 counterpart.
  const int64_t magnitude = months < 0 ? -static_cast<int64_t>(months) : months;
  const char* sign = months < 0 ? "-" : "";
  if (start_field != end_field) {
    *out += fmt::format("INTERVAL '{}{}-{}' YEAR TO MONTH", sign, magnitude / 12, magnitude % 12);
  } else if (start_field == 0) {
    *out += fmt::format("INTERVAL '{}{}' YEAR", sign, magnitude / 12);
  } else {
    *out += fmt::format("INTERVAL '{}{}' MONTH", sign, magnitude);
  }
}

}  // namespace tributary::columnar

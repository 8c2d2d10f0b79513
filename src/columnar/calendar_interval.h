// Spark's CalendarIntervalType value (the SQL type `interval`): months, days and microseconds
// kept apart, because a month and a day have no fixed length until they are added to a date in
// a time zone. Only expressions produce it (make_interval, CAST(string AS interval)); no file
// format stores it.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tributary::columnar {

/// One calendar interval, the 16-byte physical value of an `interval` column (Spark's
/// org.apache.spark.unsafe.types.CalendarInterval). Fields are independent and may have
/// different signs.
struct CalendarInterval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t microseconds = 0;

  bool operator==(const CalendarInterval& other) const = default;
};
static_assert(sizeof(CalendarInterval) == 16, "an interval value is 16 bytes");

/// Appends Spark's CalendarInterval.toString: "1 years 2 months 25 days 5 hours 6 minutes
/// 7.008009 seconds" (zero units left out, months split into years and months, microseconds
/// into hours, minutes and seconds with the fraction's trailing zeros dropped; each part keeps
/// its sign), or "0 seconds".
void AppendCalendarInterval(const CalendarInterval& value, std::string* out);

/// Parses Spark's interval text (IntervalUtils.stringToInterval), as CAST(string AS interval)
/// reads it: an optional "interval" prefix, then one or more "[+|-]<number> <unit>" pairs,
/// any case, separated by whitespace. Units are year, month, week, day, hour, minute, second,
/// millisecond and microsecond, each optionally plural; only seconds take a fraction (up to
/// nine digits, truncated to microseconds). False when the text is not of this form or a field
/// overflows (months and days are 32-bit, microseconds 64-bit).
bool ParseCalendarInterval(std::string_view text, CalendarInterval* out);

}  // namespace tributary::columnar

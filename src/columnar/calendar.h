// Proleptic Gregorian calendar arithmetic for date (days since 1970-01-01) and timestamp
// (microseconds since 1970-01-01T00:00:00) values, as Spark and Delta use it.

#pragma once

#include <cstdint>
#include <string>

namespace tributary::columnar {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

/// Days since 1970-01-01 of a proleptic Gregorian date (any year; no range check).
int64_t DaysFromCivil(int64_t year, int month, int day);
/// The inverse of DaysFromCivil.
CivilDate CivilFromDays(int64_t days);
/// Days in `month` of `year`.
int DaysInMonth(int64_t year, int month);
/// Days since the epoch `days` plus `months` calendar months, the day of the month clamped to
/// the target month's last day (Spark's DateTimeUtils.dateAddMonths: 2020-01-31 plus one month
/// is 2020-02-29).
int64_t AddMonthsToDays(int64_t days, int64_t months);
/// Wall-clock microseconds `local` plus `months` the same way, the time of day kept; false when
/// the result leaves 64-bit microseconds.
bool AddMonthsToMicros(int64_t local, int64_t months, int64_t* out);

/// floor(a / b) and the matching non-negative remainder, for b > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && (a < 0));
}
inline int64_t FloorMod(int64_t a, int64_t b) {
  return a - FloorDiv(a, b) * b;
}

/// Appends "YYYY-MM-DD" (years outside 0..9999 get a sign and as many digits as they need).
void AppendDate(int64_t days, std::string* out);
/// Appends "YYYY-MM-DDTHH:MM:SS.ffffff", with a trailing 'Z' when `utc` is set.
void AppendTimestampIso(int64_t micros, bool utc, std::string* out);
/// Appends Spark's CAST(timestamp AS STRING) text: "YYYY-MM-DD HH:MM:SS" plus the fraction
/// with trailing zeros removed ("2024-05-01 10:00:00.25").
void AppendTimestampSpark(int64_t micros, std::string* out);

/// Appends a day-time interval of `micros` as Spark prints it:
/// INTERVAL '[-]d hh:mm:ss[.fraction]' DAY TO SECOND (fraction without trailing zeros).
void AppendDayTimeInterval(int64_t micros, std::string* out);
/// Appends a year-month interval of `months` as Spark prints it:
/// INTERVAL '[-]y-m' YEAR TO MONTH (-13 months is INTERVAL '-1-1' YEAR TO MONTH).
void AppendYearMonthInterval(int32_t months, std::string* out);
/// The same with Spark's start and end fields (IntervalField values), as Spark's ANSI-style
/// text names only those fields: INTERVAL '10' DAY, INTERVAL '26:03' HOUR TO MINUTE,
/// INTERVAL '-10.5' SECOND, INTERVAL '14' MONTH. Finer parts than the end field are dropped.
void AppendDayTimeInterval(int64_t micros, int start_field, int end_field, std::string* out);
void AppendYearMonthInterval(int32_t months, int start_field, int end_field, std::string* out);

}  // namespace tributary::columnar

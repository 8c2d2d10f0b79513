// Durations written as Spark's interval strings ("10 minutes", "1 hour 30 seconds",
// "INTERVAL 10 MINUTES"), as withWatermark's delay, window()'s sizes and the WATERMARK clause
// take them, and back to Spark's text for EXPLAIN. Implemented in literals.cc over the same
// unit table as INTERVAL literals (ParseIntervalLiteral), so every layer reads them alike.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::expr {

/// Microseconds of `text`: "[INTERVAL] <number> <unit> [<number> <unit>...]" (any case; units
/// WEEK, DAY, HOUR, MINUTE, SECOND with a fraction, MILLISECOND, MICROSECOND, singular or
/// plural; numbers may be signed), as Spark's IntervalUtils.stringToInterval. Year and month
/// units are NotImplemented (their length in microseconds depends on the calendar). Text that
/// does not parse is InvalidArgument "[INVALID_INTERVAL_FORMAT] Error parsing '<text>' to
/// interval: ...".
Result<int64_t> ParseIntervalMicros(std::string_view text);

/// Months of a year-month interval's text, as CAST(string AS INTERVAL YEAR TO MONTH) reads
/// it (Spark's castStringToYMInterval): "[+|-]y-m" or the SQL literal forms
/// "INTERVAL [+|-]'[+|-]y-m' YEAR TO MONTH", "INTERVAL '[+|-]n' YEAR" and
/// "INTERVAL '[+|-]n' MONTH" (any case). False when the text is none of these or overflows.
bool ParseYearMonthIntervalText(std::string_view text, int32_t* months);

/// Microseconds of a day-time interval's text, as CAST(string AS INTERVAL start TO end)
/// reads it: the value alone in the target's fields ('3 00:00:01' for DAY TO SECOND, '10.5'
/// for SECOND) or the SQL literal form "INTERVAL [+|-]'value' <fields>" (any case). False when
/// the text is neither or overflows.
bool ParseDayTimeIntervalText(std::string_view text, int start_field, int end_field,
                              int64_t* micros);

/// Spark's CalendarInterval text of a day-time duration: "10 minutes", "1 days 2 hours",
/// "1.5 seconds", "0 seconds".
std::string IntervalText(int64_t micros);

}  // namespace tributary::expr

// Text to values as Spark's CAST reads them: numbers, booleans, dates and timestamps.
// Every parser trims ASCII whitespace around the text and reports failure by returning false,
// so callers can mark rows in bulk instead of building a Status per value.

#pragma once

#include <cstdint>
#include <string_view>

#include "columnar/data_type.h"
#include "expr/time_zone.h"

namespace tributary::expr {

/// [+-]digits that fit int64.
bool ParseInt64(std::string_view text, int64_t* out);
/// Decimal or scientific text, plus NaN, Infinity, +Infinity, -Infinity, inf (any case).
bool ParseDouble(std::string_view text, double* out);
/// [+-]digits[.digits][e[+-]digits] as decimal(precision, scale), rounded half up to `scale`
/// digits; false when the value needs more than `precision` digits.
bool ParseDecimal(std::string_view text, int precision, int scale, columnar::Int128* out);
/// true/t/yes/y/1 and false/f/no/n/0, in any case.
bool ParseBoolean(std::string_view text, bool* out);
/// yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, optionally followed by ' ' or 'T' and anything; years of
/// 4 to 7 digits with an optional sign.
bool ParseDate(std::string_view text, int32_t* days);
/// A date as above, then [T ][h]h:[m]m[:[s]s[.fraction]] and an optional zone (Z, +hh:mm,
/// UTC, GMT+h...). Zone-less text is read in `zone`. With `ntz` the zone suffix is ignored and
/// the wall-clock time is returned as is. Fractions beyond microseconds are truncated.
bool ParseTimestamp(std::string_view text, const TimeZone& zone, bool ntz, int64_t* micros);

}  // namespace tributary::expr

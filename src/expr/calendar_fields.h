// Calendar fields Spark reads with date_part/extract that have no function of their own
// (YEAROFWEEK, DAYOFWEEK_ISO, SECOND with its fraction) and weekofyear.

#pragma once

#include <string_view>
#include <vector>

#include "expr/bound_expression.h"
#include "expr/expression.h"
#include "tributary/result.h"

namespace tributary::expr {

/// weekofyear(date): the ISO 8601 week of the year, 1 to 53 (weeks start on Monday; week 1
/// holds the year's first Thursday), as Spark's WeekOfYear.
Result<BoundExprPtr> BindWeekOfYear(const Expression& call, std::vector<BoundExprPtr> args);

/// date_part/extract of `source` (a date, timestamp, timestamp_ntz or string; not an interval)
/// for the fields bound here: "yearofweek" (the ISO week-based year), "dayofweek_iso" and
/// "dow_iso" (Monday = 1 ... Sunday = 7), and "second", "s", "sec", "seconds", "secs" (seconds
/// with microseconds as decimal(8,6), Spark's SecondWithFraction). `field` is lower case.
/// Null when `field` is none of these, so the caller binds it another way.
Result<BoundExprPtr> BindCalendarDatePart(const Expression& call, std::string_view field,
                                          BoundExprPtr source);

}  // namespace tributary::expr

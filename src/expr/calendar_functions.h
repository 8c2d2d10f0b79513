// Calendar functions of Spark's datetime library: add_months, last_day, months_between,
// dayname, monthname and convert_timezone (FunctionBinder signatures; registered by
// AddDatetimeFunctions).

#pragma once

#include <vector>

#include "expr/bound_expression.h"
#include "expr/expression.h"
#include "tributary/result.h"

namespace tributary::expr {

/// add_months(start_date, num_months): the date num_months calendar months later, the day
/// clamped to the end of a shorter month (Spark 3+: the last day of a month is not kept).
Result<BoundExprPtr> BindAddMonths(const Expression& call, std::vector<BoundExprPtr> args);

/// last_day(date): the last day of the date's month.
Result<BoundExprPtr> BindLastDay(const Expression& call, std::vector<BoundExprPtr> args);

/// months_between(timestamp1, timestamp2[, roundOff]): whole months when both days of month
/// are equal or both are the last of their months, otherwise months plus the remaining time
/// over 31-day months, rounded to 8 digits unless roundOff is false (Spark's
/// DateTimeUtils.monthsBetween, on wall clocks in the session time zone).
Result<BoundExprPtr> BindMonthsBetween(const Expression& call, std::vector<BoundExprPtr> args);

/// dayname(date) ("Mon" ... "Sun") and monthname(date) ("Jan" ... "Dec").
Result<BoundExprPtr> BindDayOrMonthName(const Expression& call, std::vector<BoundExprPtr> args);

/// convert_timezone([source_tz, ]target_tz, source_ts): the wall clock source_ts (a
/// timestamp_ntz; in source_tz, default the session time zone) shows in target_tz.
Result<BoundExprPtr> BindConvertTimezone(const Expression& call, std::vector<BoundExprPtr> args);

}  // namespace tributary::expr

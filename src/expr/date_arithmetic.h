// + and - with a DATE operand as Spark 4's ANSI rules bind them (its
// BinaryArithmeticWithDatetimeResolver): date +/- days, days + date, date +/- a whole-day
// interval and string - date.

#pragma once

#include <vector>

#include "expr/bound_expression.h"
#include "expr/expression.h"
#include "tributary/result.h"

namespace tributary::expr {

/// Binds `expr` (a + b or a - b over bound `children`) when a DATE operand makes it date
/// arithmetic that keeps a DATE:
///   date + n, n + date, date - n     date_add/date_sub (n: tinyint, smallint, int or NULL;
///                                    other numbers are date_add's type error)
///   date +/- interval, interval + date, where the interval is a literal of whole days
///                                    date_add/date_sub of that many days (Spark types
///                                    INTERVAL 'n' DAY as a DAY-only interval, whose sum with
///                                    a date is a date)
/// For string - date, date - string and NULL - date it casts the string or NULL operand to
/// DATE, and for date - timestamp the date to the timestamp's type, in `children`
/// (BindIntervalArithmetic binds the difference) and returns null, as it does for every other
/// operand pair.
Result<BoundExprPtr> BindDateArithmetic(const Expression& expr,
                                        std::vector<BoundExprPtr>& children);

}  // namespace tributary::expr

// Numeric literals as Spark types them: 42 int (bigint when it does not fit), 42L bigint,
// 42S smallint, 42Y tinyint, 1.5 exact decimal, 1.5BD decimal, 1e3 and 1.5D double, 1.5F float.

#pragma once

#include "expr/expression.h"
#include "sql/lexer.h"

namespace tributary::sql {

/// The literal of number token `token`, negated when `negative` (a minus sign directly before
/// the number is part of the literal, as in Spark's grammar: -2147483648 is an int,
/// -9223372036854775808 a bigint); InvalidArgument naming the value and the type's range
/// when it does not fit (the parser adds the position).
Result<expr::ExprPtr> NumberLiteral(const Token& token, bool negative = false);

}  // namespace tributary::sql

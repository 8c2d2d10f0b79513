// Higher-order functions (transform, filter, aggregate, ...) and the binding of the lambda
// functions they take (internal to the expr layer).
//
// A lambda body is bound against the enclosing schema followed by one column per lambda
// parameter, then narrowed to a schema of its own: the enclosing columns it reads (which
// become extra children of the call, so plan rewrites see and move them like any column
// reference) followed by the parameters. The body stays inside the call's ScalarFunction, and
// runs once over the elements of every row of a batch.

#pragma once

#include <string>
#include <utility>
#include <vector>

#include "expr/bound_expression.h"

namespace tributary::expr {

/// Lambda parameters visible where an expression is bound: each name with the index of the
/// column of the binding schema that holds its value, innermost last.
using LambdaScope = std::vector<std::pair<std::string, int>>;

/// Bind() where the lambda parameters of `scope` are columns of `schema` (binder.cc).
Result<BoundExprPtr> BindInScope(const Expression& expr, const columnar::Schema& schema,
                                 const LambdaScope& scope);

/// Binds a call that has lambda arguments: transform, filter, exists, forall, aggregate,
/// reduce, zip_with, array_sort, map_filter, transform_keys, transform_values, map_zip_with.
/// An InvalidArgument error names the call when its arguments do not fit.
Result<BoundExprPtr> BindHigherOrderCall(const Expression& call, const columnar::Schema& schema,
                                         const LambdaScope& scope);

}  // namespace tributary::expr

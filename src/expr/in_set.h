// `x IN (c1, ..., cn)` over many constants as one hash lookup per row (internal to the expr
// layer and the planner's skipping predicates). Spark's optimizer makes the same rewrite (In to
// InSet above spark.sql.optimizer.inSetConversionThreshold, 10 values): bound as n equalities
// joined by OR, a 100k-value list costs 100k comparisons and columns per batch.

#pragma once

#include <vector>

#include "expr/bound_expression.h"
#include "expr/function_registry.h"

namespace tributary::expr {

/// The name of the bound function node that MakeInSet returns.
inline constexpr const char* kInSetFunctionName = "in_set";

/// The lookup behind an `in_set` node: the list's distinct non-null values and whether the
/// list held a null. Results follow SQL's IN: null for a null value, true when the value is in
/// the list, else null when the list holds a null, else false. Equality is the `=` operator's
/// (NaN equals NaN, -0.0 equals 0.0, strings and binary by bytes).
class InSetFunction : public EagerFunction {
 public:
  Result<columnar::ColumnPtr> Compute(const BoundExpression& call,
                                      const std::vector<columnar::ColumnPtr>& args,
                                      const EvalContext& context) const override;

  /// The constants (literals, or casts of literals) of the list's smallest and largest values,
  /// for file skipping: a file whose values all lie outside them holds no match. Null when the
  /// list has no non-null value or holds NaN.
  const BoundExprPtr& MinConstant() const { return min_; }
  const BoundExprPtr& MaxConstant() const { return max_; }

  /// Builds the set from `equalities` (each `value = constant`, as the binder made them):
  /// nullptr when they do not fit (fewer than the threshold, different left sides, a constant
  /// that is not a literal or a context-free cast of one, a type without a set here), in which
  /// case the OR of the equalities stands.
  static BoundExprPtr MakeInSet(const std::vector<BoundExprPtr>& equalities);

  struct Keys;
  InSetFunction(std::shared_ptr<const Keys> keys, BoundExprPtr min, BoundExprPtr max)
      : keys_(std::move(keys)), min_(std::move(min)), max_(std::move(max)) {}

 private:
  std::shared_ptr<const Keys> keys_;
  BoundExprPtr min_;
  BoundExprPtr max_;
};

}  // namespace tributary::expr

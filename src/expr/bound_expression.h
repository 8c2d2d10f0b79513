// BoundExpression: an expression resolved against a schema, typed, with implicit casts made
// explicit; evaluated a whole batch at a time (evaluator.h).

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "expr/expression.h"

namespace tributary::expr {

class BoundExpression;
class ScalarFunction;
using BoundExprPtr = std::shared_ptr<const BoundExpression>;

/// A typed expression node. kIn and kBetween never appear: binding rewrites them into
/// comparisons joined by OR/AND, which gives SQL's three-valued results exactly, or a long IN
/// list of constants into one `in_set` call (in_set.h). kFunction
/// nodes carry the ScalarFunction that computes them; CASE WHEN children are already cast to
/// the result type (conditions to boolean).
///
/// Thread-safety: immutable, safe to share between threads.
class BoundExpression {
 public:
  BoundExpression(Op op, DataTypePtr type, std::vector<BoundExprPtr> children, int index,
                  Scalar literal, std::string name,
                  std::shared_ptr<const ScalarFunction> function = nullptr);

  Op GetOp() const { return op_; }
  /// The type of the values this node produces.
  const DataTypePtr& Type() const { return type_; }
  const std::vector<BoundExprPtr>& Children() const { return children_; }
  const BoundExpression& Child(size_t i) const { return *children_[i]; }
  /// kColumn: the column index in the batch; kGetField: the field index in the struct.
  int Index() const { return index_; }
  /// kLiteral only.
  const Scalar& Literal() const { return literal_; }
  /// kColumn/kGetField: the name resolved; kFunction: the function name.
  const std::string& Name() const { return name_; }
  /// kFunction only: what computes the call (function_registry.h).
  const ScalarFunction* Function() const { return function_.get(); }
  /// kCaseWhen only: whether the last child is the ELSE value.
  bool HasElse() const { return op_ == Op::kCaseWhen && children_.size() % 2 == 1; }

  /// SQL-like text with the planner's column names (`a#0`), for plans.
  std::string ToString() const;
  /// The expression as SQL text for error messages: columns by their names without the
  /// planner's `#index`, numbers without their type suffixes (`1.5`, not `1.5BD`).
  std::string SqlText() const;

  /// This node over other children (same types), for plan rewrites.
  BoundExprPtr WithChildren(std::vector<BoundExprPtr> children) const;
  /// This node with another index (kColumn: the column moved), for plan rewrites.
  BoundExprPtr WithIndex(int index) const;

 private:
  Op op_;
  DataTypePtr type_;
  std::vector<BoundExprPtr> children_;
  int index_;
  Scalar literal_;
  std::string name_;
  std::shared_ptr<const ScalarFunction> function_;
};

/// Resolves `expr` against `schema`: column names (exact match first, then ignoring case as
/// Spark does), struct fields, operand types and implicit casts (Spark's type coercion:
/// numeric widening, decimal precision rules, strings compared with dates, timestamps or
/// numbers are cast to that type). An InvalidArgument error names the unresolved column or the
/// mismatched types and the expression.
Result<BoundExprPtr> Bind(const Expression& expr, const columnar::Schema& schema);

/// Whether CAST(from AS to) is defined (it may still fail for particular values).
bool CanCast(const DataType& from, const DataType& to);

}  // namespace tributary::expr

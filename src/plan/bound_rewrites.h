// Rewrites of bound expressions that plan construction and optimization share: moving column
// references when a node's input columns change, and splitting or joining conjunctions.

#pragma once

#include <vector>

#include "expr/bound_expression.h"

namespace tributary::plan {

/// `e` with every column reference i replaced by mapping[i] (null stays null).
expr::BoundExprPtr RemapColumns(const expr::BoundExprPtr& e, const std::vector<int>& mapping);
/// `e` with every column reference i replaced by i + delta.
expr::BoundExprPtr ShiftColumns(const expr::BoundExprPtr& e, int delta);
/// Marks used[i] for every column i `e` references.
void MarkColumns(const expr::BoundExpression& e, std::vector<bool>* used);
/// The smallest and largest column index `e` references; (INT_MAX, -1) when none.
std::pair<int, int> ColumnRange(const expr::BoundExpression& e);
/// The operands of a tree of ANDs, left to right.
void SplitConjuncts(const expr::BoundExprPtr& e, std::vector<expr::BoundExprPtr>* out);
/// The AND of `conjuncts`; null when empty.
expr::BoundExprPtr Conjoin(const std::vector<expr::BoundExprPtr>& conjuncts);

}  // namespace tributary::plan

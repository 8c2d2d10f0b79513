// Joining many operands with one binary operator (AND, OR) as a balanced tree, for unbound
// (Expression) and bound (BoundExpression) trees alike: the binder's IN lists, the planner's
// conjunctions and the data-skipping predicates pushed into a scan.

#pragma once

#include <utility>
#include <vector>

namespace tributary::expr {

/// `operands` joined pairwise by `join(left, right)` into a balanced tree, left to right: n
/// operands are about log2(n) levels deep where a chain would be n levels for every recursive
/// pass over the tree (and the stack it runs on) to go through. One operand is returned as it
/// is; none gives null. `NodePtr` is ExprPtr or BoundExprPtr; `join` returns one.
template <typename NodePtr, typename Join>
NodePtr BalancedTree(std::vector<NodePtr> operands, const Join& join) {
  if (operands.empty()) {
    return nullptr;
  }
  while (operands.size() > 1) {
    std::vector<NodePtr> next;
    next.reserve((operands.size() + 1) / 2);
    for (size_t i = 0; i + 1 < operands.size(); i += 2) {
      next.push_back(join(std::move(operands[i]), std::move(operands[i + 1])));
    }
    if (operands.size() % 2 == 1) {
      next.push_back(std::move(operands.back()));
    }
    operands = std::move(next);
  }
  return std::move(operands.front());
}

}  // namespace tributary::expr

#include "plan/bound_rewrites.h"

#include <climits>
#include <functional>

#include "expr/balanced_tree.h"

namespace tributary::plan {

namespace {

using expr::BoundExprPtr;
using expr::Op;

BoundExprPtr MapColumns(const BoundExprPtr& e, const std::function<int(int)>& map) {
  if (e == nullptr) {
    return e;
  }
  if (e->GetOp() == Op::kColumn) {
    return e->WithIndex(map(e->Index()));
  }
  if (e->Children().empty()) {
    return e;
  }
  std::vector<BoundExprPtr> children;
  children.reserve(e->Children().size());
  for (const BoundExprPtr& child : e->Children()) {
    children.push_back(MapColumns(child, map));
  }
  return e->WithChildren(std::move(children));
}

}  // namespace

BoundExprPtr RemapColumns(const BoundExprPtr& e, const std::vector<int>& mapping) {
  return MapColumns(e, [&](int i) { return mapping[static_cast<size_t>(i)]; });
}

BoundExprPtr ShiftColumns(const BoundExprPtr& e, int delta) {
  return MapColumns(e, [delta](int i) { return i + delta; });
}

void MarkColumns(const expr::BoundExpression& e, std::vector<bool>* used) {
  if (e.GetOp() == Op::kColumn) {
    (*used)[static_cast<size_t>(e.Index())] = true;
  }
  for (const BoundExprPtr& child : e.Children()) {
    MarkColumns(*child, used);
  }
}

std::pair<int, int> ColumnRange(const expr::BoundExpression& e) {
  std::pair<int, int> range{INT_MAX, -1};
  if (e.GetOp() == Op::kColumn) {
    range = {e.Index(), e.Index()};
  }
  for (const BoundExprPtr& child : e.Children()) {
    const auto [low, high] = ColumnRange(*child);
    range.first = std::min(range.first, low);
    range.second = std::max(range.second, high);
  }
  return range;
}

void SplitConjuncts(const BoundExprPtr& e, std::vector<BoundExprPtr>* out) {
  if (e->GetOp() == Op::kAnd) {
    SplitConjuncts(e->Children()[0], out);
    SplitConjuncts(e->Children()[1], out);
    return;
  }
  out->push_back(e);
}

BoundExprPtr Conjoin(const std::vector<BoundExprPtr>& conjuncts) {
  // Balanced: a filter of many conjuncts must not become a chain deeper than the stack can walk.
  return expr::BalancedTree(conjuncts, [](BoundExprPtr left, BoundExprPtr right) {
    return std::make_shared<expr::BoundExpression>(
        Op::kAnd, columnar::DataType::Boolean(),
        std::vector<BoundExprPtr>{std::move(left), std::move(right)}, -1, expr::Scalar::Null(),
        std::string{});
  });
}

}  // namespace tributary::plan

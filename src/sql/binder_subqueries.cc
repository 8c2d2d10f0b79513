// Expression rewrites for decorrelating subqueries (see binder_internal.h).

#include <algorithm>
#include <utility>

#include "expr/expression.h"
#include "sql/binder_internal.h"

namespace tributary::sql::internal {

using expr::ExprPtr;

ExprPtr RewriteExpression(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& replace) {
  if (ExprPtr replaced = replace(e); replaced != nullptr) {
    return replaced;
  }
  std::vector<ExprPtr> children;
  bool changed = false;
  for (const ExprPtr& child : e->Children()) {
    ExprPtr rewritten = RewriteExpression(child, replace);
    changed = changed || rewritten != child;
    children.push_back(std::move(rewritten));
  }
  if (!changed) {
    return e;
  }
  return std::make_shared<expr::Expression>(e->GetOp(), std::move(children), e->Name(),
                                            e->Literal(), e->TargetType(), e->IsDistinct(),
                                            e->Window());
}

ExprPtr AggregatesOverMatchedRows(const ExprPtr& value, const ExprPtr& matched) {
  return RewriteExpression(value, [&](const ExprPtr& e) -> ExprPtr {
    if (e->GetOp() != expr::Op::kFunction || !expr::IsAggregateFunctionName(e->Name())) {
      return nullptr;
    }
    // A group of the outer-row domain joined with the subquery's rows either has only matched
    // rows or one row padded with nulls: the first argument of the padded row becomes null,
    // which every aggregate skips, so it sees no rows (count(*) counts a constant instead).
    std::vector<ExprPtr> args = e->Children();
    const ExprPtr when_matched_one =
        expr::CaseWhen({{matched, expr::Lit(expr::Scalar::Int32(1))}}, nullptr);
    if (args.empty()) {
      args.push_back(when_matched_one);
    } else {
      args[0] = expr::CaseWhen({{matched, args[0]}}, nullptr);
    }
    return std::make_shared<expr::Expression>(e->GetOp(), std::move(args), e->Name(), e->Literal(),
                                              e->TargetType(), e->IsDistinct(), e->Window());
  });
}

namespace {

// A column, or fields of one (`t1.c1` parses as field c1 of column t1 until it is resolved).
bool IsColumnPathForSubquery(const expr::Expression& e) {
  return e.GetOp() == expr::Op::kColumn ||
         (e.GetOp() == expr::Op::kGetField && IsColumnPathForSubquery(*e.Child(0)));
}

}  // namespace

void CollectColumnReferences(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (IsColumnPathForSubquery(*e)) {
    const bool seen = std::any_of(out->begin(), out->end(), [&](const ExprPtr& column) {
      return column->ToString() == e->ToString();
    });
    if (!seen) {
      out->push_back(e);
    }
    return;
  }
  for (const ExprPtr& child : e->Children()) {
    CollectColumnReferences(child, out);
  }
}

}  // namespace tributary::sql::internal

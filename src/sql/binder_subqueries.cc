// Subqueries in a query's expressions, rewritten into joins as Spark's optimizer rewrites them
// (SubqueryRewriter), and the expression rewrites they use (see binder_internal.h).

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "columnar/record_batch.h"
#include "expr/expression.h"
#include "plan/delta_commands.h"
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

Result<plan::LogicalPlanPtr> OneRowPlan() {
  auto schema = std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{});
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch,
                            columnar::RecordBatch::Make(schema, 1, {}));
  return plan::ValuesPlan(std::move(batch), "one row");
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

namespace {

using expr::ContainsAggregate;
using expr::Op;
using plan::LogicalPlanPtr;

// The rewrites of SubqueryRewriter, each a member so that they share the statement, the binder
// and the numbering of the columns they add.
class SubqueryRewriterImpl final : public SubqueryRewriter {
 public:
  SubqueryRewriterImpl(const Statement& statement, QueryBinder* binder)
      : statement_(statement), binder_(binder) {}

  Status At(const Status& status, const SourcePosition& position) const {
    return StatusAt(statement_, status, position);
  }
  Status At(const Status& status, const expr::Expression& node) const {
    return StatusAt(statement_, status, node);
  }

  // WHERE conjuncts `x [NOT] IN (query)`, `EXISTS (query)` and `NOT EXISTS (query)`
  // (uncorrelated) become left semi/anti joins of `*input` with the subquery, as Spark rewrites
  // them; returns the other conjuncts (null when none are left).
  Result<ExprPtr> SubqueryJoins(const ExprPtr& condition, LogicalPlanPtr* input) override {
    if (condition->GetOp() == Op::kAnd) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, SubqueryJoins(condition->Child(0), input));
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, SubqueryJoins(condition->Child(1), input));
      return left == nullptr ? right : right == nullptr ? left : expr::And(left, right);
    }
    const bool negated = condition->GetOp() == Op::kNot;
    const ExprPtr& call = negated ? condition->Child(0) : condition;
    if (statement_.sources == nullptr) {
      return condition;
    }
    auto found = statement_.sources->subqueries.find(call.get());
    if (found == statement_.sources->subqueries.end()) {
      return condition;
    }
    auto bound = binder_->BindQuery(*found->second);
    ExprPtr correlation;
    if (!bound.ok() && IsUnresolvedColumn(bound.status())) {
      auto decorrelated =
          Decorrelated(*found->second, call->Name() == kInSubqueryFunction, &correlation);
      if (decorrelated.ok() && *decorrelated == nullptr) {
        binder_->PushScope();
        decorrelated = CorrelatedAggregatePredicate(
            *found->second, call->Name() == kInSubqueryFunction, *input, *call, &correlation);
        binder_->PopScope();
      }
      if (decorrelated.ok() && *decorrelated != nullptr) {
        bound = *std::move(decorrelated);
      } else if (!decorrelated.ok()) {
        return decorrelated.status();
      }
    }
    TRIBUTARY_RETURN_NOT_OK(bound.status());
    LogicalPlanPtr sub = *std::move(bound);
    const std::string alias = fmt::format("__subquery_{}", ++subquery_count_);
    ExprPtr on;
    exec::JoinType type = negated ? exec::JoinType::kLeftAnti : exec::JoinType::kLeftSemi;
    if (call->Name() == kInSubqueryFunction && correlation != nullptr) {
      const columnar::Schema& columns = *sub->Schema();
      on = expr::Call(
          Op::kEqual,
          {call->Child(0), plan::ExactColumn(columns.FieldAt(columns.NumFields() - 1).Name())});
      if (negated) {
        on = expr::Or(on, expr::IsNull(on));
      }
    } else if (call->Name() == kInSubqueryFunction) {
      if (sub->Schema()->NumFields() != 1) {
        return At(Status::InvalidArgument(
                      fmt::format("the IN subquery returns {} columns; it must return one",
                                  sub->Schema()->NumFields())),
                  *call);
      }
      // The subquery's names were resolved in its own scope; its one column is renamed so
      // that the value's names resolve in the outer query only (`id IN (SELECT id FROM t)`
      // has an `id` on both sides of the join).
      auto renamed = plan::Select(
          sub, {{expr::Col(QuoteIdentifier(sub->Schema()->FieldAt(0).Name())), alias}});
      if (!renamed.ok()) {
        return At(renamed.status(), *call);
      }
      sub = *std::move(renamed);
      on = expr::Call(Op::kEqual, {call->Child(0), expr::Col(QuoteIdentifier(alias) + "." +
                                                             QuoteIdentifier(alias))});
      if (negated) {
        // Spark's null-aware anti join: x NOT IN (subquery) is false or null, and the row goes,
        // when some value equals x or compares to it as null (x null, or a null value); an
        // empty subquery keeps every row.
        on = expr::Or(on, expr::IsNull(on));
      }
    } else if (call->Name() != kExistsFunction) {
      return condition;
    }
    if (correlation != nullptr) {
      // The correlated conjuncts name the subquery's own tables: its qualifiers stay.
      on = on == nullptr ? correlation : expr::And(on, correlation);
    } else {
      sub = sub->WithAlias(alias);
    }
    auto joined = plan::Join(*input, std::move(sub), type, on);
    if (!joined.ok()) {
      return At(joined.status(), *call);
    }
    *input = *std::move(joined);
    return ExprPtr();
  }

  bool IsScalarSubquery(const expr::Expression& e) const {
    return e.GetOp() == Op::kFunction && e.Name() == kScalarSubqueryFunction &&
           statement_.sources != nullptr && statement_.sources->subqueries.count(&e) > 0;
  }

  // An [NOT] EXISTS or IN subquery placeholder in `e`.
  bool HasPredicateSubquery(const ExprPtr& e) const {
    if (e == nullptr || statement_.sources == nullptr) {
      return false;
    }
    if ((e->Name() == kExistsFunction || e->Name() == kInSubqueryFunction) &&
        statement_.sources->subqueries.count(e.get()) > 0) {
      return true;
    }
    return std::any_of(e->Children().begin(), e->Children().end(),
                       [&](const ExprPtr& c) { return HasPredicateSubquery(c); });
  }

  bool HasScalarSubquery(const ExprPtr& e) const {
    return e != nullptr && (IsScalarSubquery(*e) ||
                            std::any_of(e->Children().begin(), e->Children().end(),
                                        [&](const ExprPtr& c) { return HasScalarSubquery(c); }));
  }

  // Uncorrelated scalar subqueries in the SELECT list, WHERE and HAVING of `query`: each
  // becomes a one-row, one-column plan cross-joined into `*input` (Spark runs them once, before
  // the query), and the placeholder a reference to its column. Returns the query with the
  // references; nullopt when it has no scalar subquery there.
  Result<std::optional<sql::Query>> ScalarSubqueries(const sql::Query& query,
                                                     LogicalPlanPtr* input) override {
    const bool any =
        HasScalarSubquery(query.where) || HasScalarSubquery(query.having) ||
        std::any_of(query.select.begin(), query.select.end(), [&](const SelectItem& item) {
          return HasScalarSubquery(item.expr) || HasPredicateSubquery(item.expr);
        });
    if (!any) {
      return std::nullopt;
    }
    const columnar::SchemaPtr before = plan::ResolutionSchema(**input);
    const int input_columns = (*input)->Schema()->NumFields();
    bool aggregates = query.having != nullptr || !query.group_by.empty();
    for (const SelectItem& item : query.select) {
      aggregates = aggregates || (!item.IsStar() && ContainsAggregate(*item.expr));
    }
    sql::Query rewritten = query;
    if (query.where != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(rewritten.where,
                                ScalarSubqueryColumns(query.where, input, false, false));
    }
    if (query.having != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(rewritten.having,
                                ScalarSubqueryColumns(query.having, input, true, false));
    }
    rewritten.select.clear();
    for (const SelectItem& item : query.select) {
      if (item.IsStar() && item.star_qualifier.empty()) {
        // `*` is the input's columns, not the subqueries' joined after them.
        for (int i = 0; i < input_columns; ++i) {
          SelectItem column;
          column.expr = plan::ExactColumn(before->FieldAt(i).Name());
          column.alias = (*input)->Schema()->FieldAt(i).Name();
          column.position = item.position;
          rewritten.select.push_back(std::move(column));
        }
        continue;
      }
      SelectItem copy = item;
      if (!item.IsStar()) {
        TRIBUTARY_ASSIGN_OR_RAISE(copy.expr,
                                  ScalarSubqueryColumns(item.expr, input, aggregates, false,
                                                        /*predicates=*/true));
        if (copy.alias.empty() && copy.expr != item.expr) {
          copy.alias = plan::DerivedName(*item.expr);
        }
      }
      rewritten.select.push_back(std::move(copy));
    }
    return std::optional<sql::Query>(std::move(rewritten));
  }

  // `e` with each scalar subquery placeholder replaced by a column of a one-row plan joined
  // into `*input`. In an aggregating query (`aggregates`) a reference outside an aggregate call
  // is wrapped in any_value: the column is constant, so any row of the group gives it.
  // With `predicates` (a SELECT item), [NOT] EXISTS and IN subqueries become boolean columns
  // the same way (PredicateSubqueryValue).
  Result<ExprPtr> ScalarSubqueryColumns(const ExprPtr& e, LogicalPlanPtr* input, bool aggregates,
                                        bool inside_aggregate, bool predicates = false) {
    if (predicates && (e->Name() == kExistsFunction || e->Name() == kInSubqueryFunction) &&
        statement_.sources->subqueries.count(e.get()) > 0) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          ExprPtr column,
          PredicateSubqueryValue(*statement_.sources->subqueries.at(e.get()), e, input));
      return aggregates && !inside_aggregate ? expr::Function("any_value", {column}) : column;
    }
    if (IsScalarSubquery(*e)) {
      const QueryPtr& query = statement_.sources->subqueries.at(e.get());
      auto sub = binder_->BindQuery(*query);
      if (!sub.ok() && IsUnresolvedColumn(sub.status())) {
        binder_->PushScope();
        auto column = CorrelatedScalar(*query, *e, input);
        if (column.ok() && *column == nullptr) {
          column = CorrelatedScalarOverDomain(*query, *e, input);
        }
        binder_->PopScope();
        if (!column.ok() || *column != nullptr) {
          TRIBUTARY_RETURN_NOT_OK(column.status());
          return aggregates && !inside_aggregate ? expr::Function("any_value", {*column}) : *column;
        }
        return At(Status::NotImplemented(
                      "correlated scalar subqueries are supported only as an expression of "
                      "aggregates over a FROM clause whose WHERE names the outer query (without "
                      "WITH, GROUP BY, HAVING or LIMIT)"),
                  *e);
      }
      TRIBUTARY_RETURN_NOT_OK(sub.status());
      const int columns = (*sub)->Schema()->NumFields();
      if (columns != 1) {
        return At(Status::InvalidArgument(fmt::format(
                      "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_"
                      "COLUMN] Invalid subquery: Scalar subquery must return only one column, but "
                      "got {}.",
                      columns)),
                  *e);
      }
      const std::string name = fmt::format("__scalar_{}", ++subquery_count_);
      // One row whatever the subquery returns: its first value (null when it is empty),
      // checked to be its only one.
      const ExprPtr value = plan::ExactColumn(plan::ResolutionSchema(**sub)->FieldAt(0).Name());
      const ExprPtr checked = expr::Function(
          "scalar_subquery_value", {expr::Function("count", {}), expr::Function("first", {value})});
      auto one_row = plan::Aggregate(*sub, {}, {{checked, name}}, nullptr);
      if (!one_row.ok()) {
        return At(one_row.status(), *e);
      }
      auto joined = plan::Join(*input, *std::move(one_row), exec::JoinType::kCross, nullptr);
      if (!joined.ok()) {
        return At(joined.status(), *e);
      }
      *input = *std::move(joined);
      ExprPtr column = plan::ExactColumn(name);
      return aggregates && !inside_aggregate ? expr::Function("any_value", {column}) : column;
    }
    const bool aggregate_call =
        e->GetOp() == Op::kFunction && expr::IsAggregateFunctionName(e->Name());
    std::vector<ExprPtr> children;
    bool changed = false;
    for (const ExprPtr& child : e->Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          ExprPtr replaced, ScalarSubqueryColumns(child, input, aggregates,
                                                  inside_aggregate || aggregate_call, predicates));
      changed = changed || replaced != child;
      children.push_back(std::move(replaced));
    }
    if (!changed) {
      return e;
    }
    return std::make_shared<expr::Expression>(e->GetOp(), std::move(children), e->Name(),
                                              e->Literal(), e->TargetType(), e->IsDistinct(),
                                              e->Window());
  }

  // A correlated scalar subquery `SELECT agg FROM r WHERE local AND inner = outer AND ...`,
  // decorrelated as Spark does: `r` filtered by the local conjuncts, grouped by the inner sides
  // of the equalities, left-joined into `*input` on them. A row without a group gets the
  // aggregate's value over no rows (count is 0, not null: the "count bug"), computed by a
  // second one-row plan. Returns the expression that reads the value; null when the subquery
  // has another shape.
  Result<ExprPtr> CorrelatedScalar(const sql::Query& query, const expr::Expression& at,
                                   LogicalPlanPtr* input) {
    const bool simple = query.kind == QueryKind::kSelect && query.with.empty() &&
                        query.from != nullptr && query.where != nullptr && query.group_by.empty() &&
                        query.having == nullptr && query.qualify == nullptr &&
                        query.limit == nullptr && query.select.size() == 1 &&
                        !query.select[0].IsStar() && ContainsAggregate(*query.select[0].expr);
    if (!simple) {
      return ExprPtr();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr plan, binder_->BindFromItem(*query.from));
    std::vector<ExprPtr> conjuncts;
    Conjuncts(query.where, &conjuncts);
    std::vector<std::pair<ExprPtr, ExprPtr>> keys;  // inner, outer
    const auto resolves = [&](const ExprPtr& side) {
      return plan::Select(plan, {{side, "__probe"}}).ok();
    };
    for (const ExprPtr& conjunct : conjuncts) {
      TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(conjunct));
      auto filtered = plan::Filter(plan, conjunct);
      if (filtered.ok()) {
        plan = *std::move(filtered);
        continue;
      }
      if (!IsUnresolvedColumn(filtered.status()) || conjunct->GetOp() != Op::kEqual) {
        return ExprPtr();
      }
      const bool left_inner = resolves(conjunct->Child(0));
      const bool right_inner = resolves(conjunct->Child(1));
      if (left_inner == right_inner) {
        return ExprPtr();
      }
      keys.emplace_back(left_inner ? conjunct->Child(0) : conjunct->Child(1),
                        left_inner ? conjunct->Child(1) : conjunct->Child(0));
    }
    if (keys.empty()) {
      return ExprPtr();
    }
    const int number = ++subquery_count_;
    const std::string value = fmt::format("__scalar_{}", number);
    const std::string empty_value = fmt::format("__scalar_empty_{}", number);
    std::vector<ExprPtr> group;
    std::vector<plan::NamedExpr> items;
    for (size_t i = 0; i < keys.size(); ++i) {
      group.push_back(keys[i].first);
      items.push_back({keys[i].first, fmt::format("__scalar_key_{}_{}", number, i)});
    }
    items.push_back({query.select[0].expr, value});
    auto grouped = plan::Aggregate(plan, group, items, nullptr);
    auto none = plan::Filter(plan, expr::Lit(expr::Scalar::Boolean(false)));
    if (!grouped.ok() || !none.ok()) {
      return At(grouped.ok() ? none.status() : grouped.status(), at);
    }
    auto over_nothing = plan::Aggregate(*none, {}, {{query.select[0].expr, empty_value}}, nullptr);
    if (!over_nothing.ok()) {
      return At(over_nothing.status(), at);
    }
    ExprPtr on;
    for (size_t i = 0; i < keys.size(); ++i) {
      ExprPtr equal = expr::Call(
          Op::kEqual,
          {keys[i].second, plan::ExactColumn(fmt::format("__scalar_key_{}_{}", number, i))});
      on = on == nullptr ? equal : expr::And(on, equal);
    }
    auto joined = plan::Join(*input, *std::move(grouped), exec::JoinType::kLeft, on);
    if (!joined.ok()) {
      return At(joined.status(), at);
    }
    joined =
        plan::Join(*std::move(joined), *std::move(over_nothing), exec::JoinType::kCross, nullptr);
    if (!joined.ok()) {
      return At(joined.status(), at);
    }
    *input = *std::move(joined);
    return expr::CaseWhen(
        {{expr::IsNull(plan::ExactColumn(fmt::format("__scalar_key_{}_0", number))),
          plan::ExactColumn(empty_value)}},
        plan::ExactColumn(value));
  }

  // The outer side of correlated conjuncts over a subquery's relation `inner`: the outer
  // columns they read (references that resolve in `*input` and not in `inner`), the distinct
  // values of those in `input` as columns __domain_<number>_<i>, and the conjuncts with the
  // outer columns read from them. nullopt when the conjuncts read no outer column.
  struct CorrelationDomain {
    std::vector<ExprPtr> outer;
    std::vector<plan::NamedExpr> items;
    LogicalPlanPtr plan;
    ExprPtr on;
    std::vector<ExprPtr> rewritten;  // each conjunct with the outer columns read from the domain
  };

  Result<std::optional<CorrelationDomain>> DomainOf(const std::vector<ExprPtr>& correlated,
                                                    const LogicalPlanPtr& inner,
                                                    const LogicalPlanPtr& input, int number,
                                                    const expr::Expression& at,
                                                    bool allow_empty = false) {
    std::vector<ExprPtr> references;
    for (const ExprPtr& conjunct : correlated) {
      internal::CollectColumnReferences(conjunct, &references);
    }
    CorrelationDomain domain;
    for (const ExprPtr& reference : references) {
      if (plan::Select(inner, {{reference, "__probe"}}).ok()) {
        continue;
      }
      auto probe = plan::Select(input, {{reference, "__probe"}});
      if (!probe.ok()) {
        return At(probe.status(), *reference);
      }
      domain.items.push_back({reference, fmt::format("__domain_{}_{}", number,
                                                     static_cast<int>(domain.outer.size()))});
      domain.outer.push_back(reference);
    }
    if (domain.outer.empty() && !allow_empty) {
      return std::optional<CorrelationDomain>();
    }
    const auto outer_to_domain = [&](const ExprPtr& e) -> ExprPtr {
      for (size_t i = 0; i < domain.outer.size(); ++i) {
        if (e->GetOp() == domain.outer[i]->GetOp() &&
            e->ToString() == domain.outer[i]->ToString()) {
          return plan::ExactColumn(domain.items[i].alias);
        }
      }
      return nullptr;
    };
    for (const ExprPtr& conjunct : correlated) {
      ExprPtr rewritten = internal::RewriteExpression(conjunct, outer_to_domain);
      domain.on = domain.on == nullptr ? rewritten : expr::And(domain.on, rewritten);
      domain.rewritten.push_back(std::move(rewritten));
    }
    Result<LogicalPlanPtr> values = OneRowPlan();
    if (!domain.outer.empty()) {
      values = plan::Select(input, domain.items);
      if (values.ok()) {
        values = plan::Distinct(*std::move(values));
      }
    }
    if (!values.ok()) {
      return At(values.status(), at);
    }
    domain.plan = *std::move(values);
    return std::optional<CorrelationDomain>(std::move(domain));
  }

  // The plan of `query`'s FROM item filtered by the WHERE conjuncts that resolve in it (in
  // `*plan`), and the conjuncts that name the outer query (returned).
  Result<std::vector<ExprPtr>> LocalAndCorrelated(const sql::Query& query, LogicalPlanPtr* plan) {
    TRIBUTARY_ASSIGN_OR_RAISE(*plan, binder_->BindFromItem(*query.from));
    std::vector<ExprPtr> conjuncts;
    Conjuncts(query.where, &conjuncts);
    std::vector<ExprPtr> correlated;
    for (const ExprPtr& conjunct : conjuncts) {
      TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(conjunct));
      auto filtered = plan::Filter(*plan, conjunct);
      if (filtered.ok()) {
        *plan = *std::move(filtered);
      } else if (IsUnresolvedColumn(filtered.status())) {
        correlated.push_back(conjunct);
      } else {
        return At(filtered.status(), *conjunct);
      }
    }
    return correlated;
  }

  // A correlated scalar subquery `SELECT f(aggregates) FROM r WHERE local AND correlated` whose
  // correlated conjuncts are any predicates (t1.c1 > t2.c1, ORs), decorrelated as Spark does
  // for them: the distinct values of the outer columns they read (the domain) are left-joined
  // with `r` filtered by the local conjuncts on the correlated ones, with the outer columns
  // read from the domain; the join is grouped by the domain and joined back into `*input` on
  // null-safe equality. A domain row without matches gives the aggregates over no rows.
  // Returns the expression that reads the value; null when the subquery has another shape.
  Result<ExprPtr> CorrelatedScalarOverDomain(const sql::Query& query, const expr::Expression& at,
                                             LogicalPlanPtr* input) {
    const bool shape = query.kind == QueryKind::kSelect && query.with.empty() &&
                       query.from != nullptr && query.where != nullptr && query.group_by.empty() &&
                       query.having == nullptr && query.qualify == nullptr &&
                       query.limit == nullptr && query.select.size() == 1 &&
                       !query.select[0].IsStar() && ContainsAggregate(*query.select[0].expr);
    if (!shape) {
      return ExprPtr();
    }
    LogicalPlanPtr plan;
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ExprPtr> correlated, LocalAndCorrelated(query, &plan));
    if (correlated.empty()) {
      return ExprPtr();
    }
    const int number = ++subquery_count_;
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<CorrelationDomain> domain,
                              DomainOf(correlated, plan, *input, number, at));
    if (!domain.has_value()) {
      return ExprPtr();
    }
    const std::vector<ExprPtr>& outer = domain->outer;
    const std::vector<plan::NamedExpr>& domain_items = domain->items;
    const ExprPtr& on = domain->on;
    const std::string matched = fmt::format("__matched_{}", number);
    const std::string value = fmt::format("__scalar_{}", number);
    auto marked = plan::WithColumn(plan, matched, expr::Lit(expr::Scalar::Boolean(true)));
    if (!marked.ok()) {
      return At(marked.status(), at);
    }
    auto joined = plan::Join(domain->plan, *std::move(marked), exec::JoinType::kLeft, on);
    if (!joined.ok()) {
      return At(joined.status(), at);
    }
    std::vector<ExprPtr> keys;
    std::vector<plan::NamedExpr> items;
    for (size_t i = 0; i < outer.size(); ++i) {
      keys.push_back(plan::ExactColumn(domain_items[i].alias));
      items.push_back({keys.back(), fmt::format("__scalar_key_{}_{}", number, i)});
    }
    items.push_back({internal::AggregatesOverMatchedRows(query.select[0].expr,
                                                         expr::Col(QuoteIdentifier(matched))),
                     value});
    auto grouped = plan::Aggregate(*std::move(joined), keys, items, nullptr);
    if (!grouped.ok()) {
      return At(grouped.status(), at);
    }
    ExprPtr back;
    for (size_t i = 0; i < outer.size(); ++i) {
      ExprPtr same =
          expr::Call(Op::kNullSafeEqual,
                     {outer[i], plan::ExactColumn(fmt::format("__scalar_key_{}_{}", number, i))});
      back = back == nullptr ? same : expr::And(back, same);
    }
    auto result = plan::Join(*input, *std::move(grouped), exec::JoinType::kLeft, back);
    if (!result.ok()) {
      return At(result.status(), at);
    }
    *input = *std::move(result);
    return plan::ExactColumn(value);
  }

  // A correlated EXISTS or IN subquery that aggregates (`SELECT max(b) FROM r WHERE local AND
  // correlated GROUP BY g HAVING h`), with the correlation pulled up over the aggregate as
  // Spark does: the domain of outer values joined with `r`, grouped by the domain and `g`. The
  // plan's columns are the domain keys, then for IN the selected value, last; `*correlation`
  // matches the keys with the outer columns (null-safe). Without GROUP BY an outer row without
  // matches still has its one group (max over no rows is null). Null for another shape.
  Result<LogicalPlanPtr> CorrelatedAggregatePredicate(const sql::Query& query, bool in_subquery,
                                                      const LogicalPlanPtr& input,
                                                      const expr::Expression& at,
                                                      ExprPtr* correlation) {
    const bool shape =
        query.kind == QueryKind::kSelect && query.with.empty() && query.from != nullptr &&
        query.where != nullptr && query.qualify == nullptr && query.limit == nullptr &&
        !query.distinct && !query.select.empty() &&
        std::none_of(query.select.begin(), query.select.end(),
                     [](const SelectItem& item) { return item.IsStar(); }) &&
        (!query.group_by.empty() || query.having != nullptr ||
         std::any_of(query.select.begin(), query.select.end(),
                     [](const SelectItem& item) { return ContainsAggregate(*item.expr); }));
    if (!shape || (in_subquery && query.select.size() != 1)) {
      return LogicalPlanPtr();
    }
    LogicalPlanPtr plan;
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ExprPtr> correlated, LocalAndCorrelated(query, &plan));
    if (correlated.empty()) {
      return LogicalPlanPtr();
    }
    const int number = ++subquery_count_;
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<CorrelationDomain> domain,
                              DomainOf(correlated, plan, input, number, at));
    if (!domain.has_value()) {
      return LogicalPlanPtr();
    }
    const bool global = query.group_by.empty();
    const std::string matched = fmt::format("__matched_{}", number);
    ExprPtr having = query.having;
    ExprPtr value = in_subquery ? query.select[0].expr : nullptr;
    if (global) {
      auto marked = plan::WithColumn(plan, matched, expr::Lit(expr::Scalar::Boolean(true)));
      if (!marked.ok()) {
        return At(marked.status(), at);
      }
      plan = *std::move(marked);
      const ExprPtr matched_column = expr::Col(QuoteIdentifier(matched));
      value =
          value == nullptr ? nullptr : internal::AggregatesOverMatchedRows(value, matched_column);
      having =
          having == nullptr ? nullptr : internal::AggregatesOverMatchedRows(having, matched_column);
    }
    auto joined = plan::Join(domain->plan, plan,
                             global ? exec::JoinType::kLeft : exec::JoinType::kInner, domain->on);
    if (!joined.ok()) {
      return At(joined.status(), at);
    }
    std::vector<ExprPtr> keys;
    std::vector<plan::NamedExpr> items;
    for (size_t i = 0; i < domain->outer.size(); ++i) {
      keys.push_back(plan::ExactColumn(domain->items[i].alias));
      const std::string key = fmt::format("__in_key_{}_{}", number, i);
      items.push_back({keys.back(), key});
      ExprPtr same = expr::Call(Op::kNullSafeEqual, {domain->outer[i], plan::ExactColumn(key)});
      *correlation = *correlation == nullptr ? same : expr::And(*correlation, same);
    }
    for (const ExprPtr& key : query.group_by) {
      keys.push_back(key);
    }
    if (value != nullptr) {
      items.push_back({value, fmt::format("__in_value_{}", number)});
    }
    auto grouped = plan::Aggregate(*std::move(joined), keys, items, having);
    if (!grouped.ok()) {
      return At(grouped.status(), at);
    }
    return grouped;
  }

  // `e` with each [NOT] EXISTS and IN subquery left in it (under OR, NOT, CASE: not a WHERE
  // conjunct) replaced by a boolean column joined into `*input`, Spark's existence join: the
  // distinct outer values the subquery reads are left-joined with its rows and grouped, and
  // `x IN (...)` is true when a row equals x, null when none does but one compares as null,
  // false otherwise (also for an empty subquery, whatever x is).
  Result<ExprPtr> PredicateSubqueryValues(const ExprPtr& e, LogicalPlanPtr* input) override {
    Status status;
    ExprPtr rewritten = internal::RewriteExpression(e, [&](const ExprPtr& node) -> ExprPtr {
      if (!status.ok() || statement_.sources == nullptr ||
          (node->Name() != kExistsFunction && node->Name() != kInSubqueryFunction)) {
        return nullptr;
      }
      auto found = statement_.sources->subqueries.find(node.get());
      if (found == statement_.sources->subqueries.end()) {
        return nullptr;
      }
      auto value = PredicateSubqueryValue(*found->second, node, input);
      if (!value.ok()) {
        status = value.status();
        return node;
      }
      return *value;
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return rewritten;
  }

  Result<ExprPtr> PredicateSubqueryValue(const sql::Query& query, const ExprPtr& call,
                                         LogicalPlanPtr* input) {
    const bool in_subquery = call->Name() == kInSubqueryFunction;
    auto bound = binder_->BindQuery(query);
    ExprPtr correlation;
    if (!bound.ok() && IsUnresolvedColumn(bound.status())) {
      auto decorrelated = Decorrelated(query, in_subquery, &correlation);
      if (decorrelated.ok() && *decorrelated == nullptr) {
        binder_->PushScope();
        decorrelated =
            CorrelatedAggregatePredicate(query, in_subquery, *input, *call, &correlation);
        binder_->PopScope();
      }
      if (!decorrelated.ok() || *decorrelated != nullptr) {
        bound = std::move(decorrelated);
      }
    }
    TRIBUTARY_RETURN_NOT_OK(bound.status());
    LogicalPlanPtr sub = *std::move(bound);
    const int number = ++subquery_count_;
    ExprPtr value;
    if (in_subquery) {
      if (correlation == nullptr && sub->Schema()->NumFields() != 1) {
        return At(Status::InvalidArgument(
                      fmt::format("the IN subquery returns {} columns; it must return one",
                                  sub->Schema()->NumFields())),
                  *call);
      }
      const std::string alias = fmt::format("__exists_value_{}", number);
      const columnar::SchemaPtr columns = plan::ResolutionSchema(*sub);
      auto added = plan::WithColumn(
          sub, alias, plan::ExactColumn(columns->FieldAt(columns->NumFields() - 1).Name()));
      if (!added.ok()) {
        return At(added.status(), *call);
      }
      sub = *std::move(added);
      value = expr::Col(QuoteIdentifier(alias));
    }
    const std::string matched = fmt::format("__exists_matched_{}", number);
    auto marked = plan::WithColumn(sub, matched, expr::Lit(expr::Scalar::Boolean(true)));
    if (!marked.ok()) {
      return At(marked.status(), *call);
    }
    sub = *std::move(marked);
    std::vector<ExprPtr> conjuncts;
    if (correlation != nullptr) {
      conjuncts.push_back(correlation);
    }
    if (in_subquery) {
      // x is the outer query's (it may share a name with a subquery column): a column of it.
      const std::string probe = fmt::format("__exists_probe_{}", number);
      auto with_probe = plan::WithColumn(*input, probe, call->Child(0));
      if (!with_probe.ok()) {
        return At(with_probe.status(), *call->Child(0));
      }
      *input = *std::move(with_probe);
      conjuncts.push_back(expr::Call(Op::kEqual, {expr::Col(QuoteIdentifier(probe)), value}));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<CorrelationDomain> domain,
                              DomainOf(conjuncts, sub, *input, number, *call, true));
    // The correlation joins; the IN comparison is evaluated per joined row, in the aggregate.
    // An empty subquery still leaves each domain row, padded with nulls.
    const ExprPtr on =
        correlation != nullptr ? domain->rewritten.front() : expr::Lit(expr::Scalar::Boolean(true));
    auto joined = plan::Join(domain->plan, sub, exec::JoinType::kLeft, on);
    if (!joined.ok()) {
      return At(joined.status(), *call);
    }
    LogicalPlanPtr rows = *std::move(joined);
    const ExprPtr matched_column = expr::Col(QuoteIdentifier(matched));
    const auto rows_where = [&](ExprPtr condition) {
      return expr::Call(
          Op::kGreater,
          {expr::Function("count", {expr::CaseWhen({{condition, expr::Lit(expr::Scalar::Int32(1))}},
                                                   nullptr)}),
           expr::Lit(expr::Scalar::Int64(0))});
    };
    ExprPtr result;
    if (in_subquery) {
      const ExprPtr equal = domain->rewritten.back();
      result = expr::CaseWhen(
          {{rows_where(expr::And(matched_column, equal)), expr::Lit(expr::Scalar::Boolean(true))},
           {rows_where(expr::And(matched_column, expr::IsNull(equal))),
            expr::Lit(expr::Scalar::Null(columnar::DataType::Boolean()))}},
          expr::Lit(expr::Scalar::Boolean(false)));
    } else {
      result = rows_where(matched_column);
    }
    const std::string name = fmt::format("__exists_{}", number);
    std::vector<ExprPtr> keys;
    std::vector<plan::NamedExpr> items;
    ExprPtr back;
    for (size_t i = 0; i < domain->outer.size(); ++i) {
      keys.push_back(plan::ExactColumn(domain->items[i].alias));
      const std::string key = fmt::format("__exists_key_{}_{}", number, i);
      items.push_back({keys.back(), key});
      ExprPtr same = expr::Call(Op::kNullSafeEqual, {domain->outer[i], plan::ExactColumn(key)});
      back = back == nullptr ? same : expr::And(back, same);
    }
    items.push_back({result, name});
    auto grouped = plan::Aggregate(std::move(rows), keys, items, nullptr);
    if (!grouped.ok()) {
      return At(grouped.status(), *call);
    }
    auto result_joined =
        back == nullptr ? plan::Join(*input, *std::move(grouped), exec::JoinType::kCross, nullptr)
                        : plan::Join(*input, *std::move(grouped), exec::JoinType::kLeft, back);
    if (!result_joined.ok()) {
      return At(result_joined.status(), *call);
    }
    *input = *std::move(result_joined);
    return plan::ExactColumn(name);
  }

  static bool IsUnresolvedColumn(const Status& status) {
    return status.Message().find("cannot resolve column") != std::string::npos ||
           status.Message().find("UNRESOLVED_COLUMN") != std::string::npos;
  }

  static void Conjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
    if (e->GetOp() == Op::kAnd) {
      Conjuncts(e->Child(0), out);
      Conjuncts(e->Child(1), out);
    } else {
      out->push_back(e);
    }
  }

  // A correlated EXISTS or IN subquery, `SELECT ... FROM r WHERE local AND correlated`, as Spark
  // decorrelates it: the plan of `r` filtered by the conjuncts that resolve inside it, and in
  // `*correlation` the conjuncts that name the outer query, for the semi/anti join's condition.
  // For IN (`in_subquery`) the plan is `r`'s columns plus the one selected value, last. Null
  // when the subquery has another shape (aggregates, grouping, set operations, LIMIT), whose
  // correlation is not supported.
  Result<LogicalPlanPtr> Decorrelated(const sql::Query& query, bool in_subquery,
                                      ExprPtr* correlation) {
    const bool simple =
        query.kind == QueryKind::kSelect && query.with.empty() && query.from != nullptr &&
        query.where != nullptr && query.group_by.empty() && query.having == nullptr &&
        query.qualify == nullptr && query.limit == nullptr && !query.distinct &&
        std::none_of(query.select.begin(), query.select.end(), [](const SelectItem& item) {
          return !item.IsStar() && ContainsAggregate(*item.expr);
        });
    if (!simple || (in_subquery && (query.select.size() != 1 || query.select[0].IsStar()))) {
      return LogicalPlanPtr();
    }
    binder_->PushScope();
    auto plan = DecorrelatedFrom(query, in_subquery, correlation);
    binder_->PopScope();
    return plan;
  }

  Result<LogicalPlanPtr> DecorrelatedFrom(const sql::Query& query, bool in_subquery,
                                          ExprPtr* correlation) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr plan, binder_->BindFromItem(*query.from));
    std::vector<ExprPtr> conjuncts;
    Conjuncts(query.where, &conjuncts);
    for (ExprPtr conjunct : conjuncts) {
      if (HasPredicateSubquery(conjunct)) {
        // A nested [NOT] EXISTS or IN correlated with this subquery's own relation: a semi or
        // anti join into it, as at the top level.
        TRIBUTARY_ASSIGN_OR_RAISE(conjunct, SubqueryJoins(conjunct, &plan));
        if (conjunct == nullptr) {
          continue;
        }
      }
      TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(conjunct));
      auto filtered = plan::Filter(plan, conjunct);
      if (filtered.ok()) {
        plan = *std::move(filtered);
      } else if (IsUnresolvedColumn(filtered.status())) {
        *correlation = *correlation == nullptr ? conjunct : expr::And(*correlation, conjunct);
      } else {
        return At(filtered.status(), *conjunct);
      }
    }
    if (*correlation == nullptr) {
      return LogicalPlanPtr();
    }
    if (in_subquery) {
      const std::string name = fmt::format("__in_value_{}", subquery_count_ + 1);
      auto added = plan::WithColumn(plan, name, query.select[0].expr);
      if (!added.ok()) {
        return LogicalPlanPtr();
      }
      plan = *std::move(added);
    }
    return plan;
  }

 private:
  const Statement& statement_;
  QueryBinder* binder_;
  // Subqueries turned into joins so far (the columns they add are numbered).
  int subquery_count_ = 0;
};

}  // namespace

std::unique_ptr<SubqueryRewriter> SubqueryRewriter::Make(const Statement& statement,
                                                         QueryBinder* binder) {
  return std::make_unique<SubqueryRewriterImpl>(statement, binder);
}

}  // namespace tributary::sql::internal

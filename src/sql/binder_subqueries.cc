// Subqueries in a query's expressions, rewritten into joins as Spark's optimizer rewrites them
// (SubqueryRewriter), and the expression rewrites they use (see binder_internal.h).

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "columnar/record_batch.h"
#include "common/ascii.h"
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
    const bool counts_rows =
        args.empty() || (e->Name() == "count" && args.size() == 1 &&
                         args[0]->GetOp() == expr::Op::kColumn && args[0]->Name() == "*");
    if (counts_rows) {
      args = {when_matched_one};
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

bool CarriesDomain(const plan::LogicalPlan& plan, const OuterDomain& domain) {
  const columnar::Schema& schema = *plan.Schema();
  return !domain.names.empty() &&
         std::all_of(domain.names.begin(), domain.names.end(), [&](const std::string& name) {
           for (int i = 0; i < schema.NumFields(); ++i) {
             if (schema.FieldAt(i).Name() == name) {
               return true;
             }
           }
           return false;
         });
}

bool IsDomainColumnName(const std::string& name) {
  return name.rfind("__outer_", 0) == 0;
}

ExprPtr OuterReferencesToDomain(const ExprPtr& e, const plan::LogicalPlanPtr& input,
                                const OuterDomain& domain, const ExpressionSources* sources,
                                bool* reads) {
  if (e == nullptr) {
    return e;
  }
  return RewriteExpression(e, [&](const ExprPtr& node) -> ExprPtr {
    if (sources != nullptr && sources->subqueries.count(node.get()) > 0) {
      return node;
    }
    if (!IsColumnPathForSubquery(*node)) {
      return nullptr;
    }
    const std::string text = node->ToString();
    for (size_t i = 0; i < domain.outer.size(); ++i) {
      if (!EqualsIgnoreAsciiCase(domain.outer[i]->ToString(), text)) {
        continue;
      }
      if (plan::Select(input, {{node, "__probe"}}).ok()) {
        return node;
      }
      *reads = true;
      return plan::ExactColumn(domain.names[i]);
    }
    return node;
  });
}

Result<plan::LogicalPlanPtr> RenameDomainColumns(plan::LogicalPlanPtr plan,
                                                 const OuterDomain& domain, int suffix,
                                                 ExprPtr* equal) {
  std::vector<std::string> names;
  for (const columnar::Field& field : plan->Schema()->Fields()) {
    names.push_back(field.Name());
  }
  for (size_t d = 0; d < domain.names.size(); ++d) {
    const std::string renamed = fmt::format("{}_{}", domain.names[d], suffix);
    for (std::string& name : names) {
      if (name == domain.names[d]) {
        name = renamed;
      }
    }
    ExprPtr same = expr::Call(expr::Op::kNullSafeEqual,
                              {plan::ExactColumn(domain.names[d]), plan::ExactColumn(renamed)});
    *equal = *equal == nullptr ? same : expr::And(*equal, same);
  }
  return plan::Rename(std::move(plan), names);
}

namespace {

// The column references anywhere in `query` (its WITH queries, FROM items, clauses and the
// subqueries in them), appended to `*out` once each.
void CollectQueryReferences(const sql::Query& query, const ExpressionSources* sources,
                            std::vector<ExprPtr>* out);

void CollectReferencesWithSubqueries(const ExprPtr& e, const ExpressionSources* sources,
                                     std::vector<ExprPtr>* out) {
  if (e == nullptr) {
    return;
  }
  if (sources != nullptr) {
    if (auto found = sources->subqueries.find(e.get()); found != sources->subqueries.end()) {
      CollectQueryReferences(*found->second, sources, out);
    }
  }
  if (IsColumnPathForSubquery(*e)) {
    CollectColumnReferences(e, out);
    return;
  }
  for (const ExprPtr& child : e->Children()) {
    CollectReferencesWithSubqueries(child, sources, out);
  }
}

void CollectRelationReferences(const sql::Relation& relation, const ExpressionSources* sources,
                               std::vector<ExprPtr>* out) {
  if (relation.subquery != nullptr) {
    CollectQueryReferences(*relation.subquery, sources, out);
  }
  if (relation.left != nullptr) {
    CollectRelationReferences(*relation.left, sources, out);
  }
  if (relation.right != nullptr) {
    CollectRelationReferences(*relation.right, sources, out);
  }
  CollectReferencesWithSubqueries(relation.condition, sources, out);
}

void CollectQueryReferences(const sql::Query& query, const ExpressionSources* sources,
                            std::vector<ExprPtr>* out) {
  for (const CommonTableExpression& cte : query.with) {
    CollectQueryReferences(*cte.query, sources, out);
  }
  for (const SelectItem& item : query.select) {
    CollectReferencesWithSubqueries(item.expr, sources, out);
  }
  if (query.from != nullptr) {
    CollectRelationReferences(*query.from, sources, out);
  }
  CollectReferencesWithSubqueries(query.where, sources, out);
  CollectReferencesWithSubqueries(query.having, sources, out);
  for (const ExprPtr& key : query.group_by) {
    CollectReferencesWithSubqueries(key, sources, out);
  }
  if (query.left != nullptr) {
    CollectQueryReferences(*query.left, sources, out);
  }
  if (query.right != nullptr) {
    CollectQueryReferences(*query.right, sources, out);
  }
}

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
    // `(a, b) IN (SELECT x, y ...)`: the row of values is a struct, compared field by field.
    const std::vector<ExprPtr> values = call->Name() == kInSubqueryFunction
                                            ? InValues(*call, *found->second)
                                            : std::vector<ExprPtr>{};
    if (!bound.ok() && IsUnresolvedColumn(bound.status())) {
      auto decorrelated = Decorrelated(*found->second, call->Name() == kInSubqueryFunction,
                                       &correlation, std::max<size_t>(values.size(), 1));
      if (decorrelated.ok() && *decorrelated == nullptr) {
        binder_->PushScope();
        decorrelated = CorrelatedAggregatePredicate(
            *found->second, call->Name() == kInSubqueryFunction, *input, *call, &correlation);
        binder_->PopScope();
      }
      if (decorrelated.ok() ? *decorrelated == nullptr
                            : IsUnresolvedColumn(decorrelated.status())) {
        // Another shape, or an aggregate one whose HAVING reads the outer query too.
        correlation = nullptr;
        binder_->PushScope();
        auto over_domain = PredicateOverDomain(*found->second, call->Name() == kInSubqueryFunction,
                                               *input, *call, &correlation);
        binder_->PopScope();
        if (!over_domain.ok() || *over_domain != nullptr || decorrelated.ok()) {
          decorrelated = std::move(over_domain);
        }
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
      const int first = columns.NumFields() - static_cast<int>(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        ExprPtr equal = expr::Call(
            Op::kEqual,
            {values[i], plan::ExactColumn(columns.FieldAt(first + static_cast<int>(i)).Name())});
        on = on == nullptr ? equal : expr::And(on, equal);
      }
      if (negated) {
        on = expr::Or(on, expr::IsNull(on));
      }
    } else if (call->Name() == kInSubqueryFunction) {
      const int columns = sub->Schema()->NumFields();
      const std::vector<ExprPtr> row = columns > 1 && values.size() == static_cast<size_t>(columns)
                                           ? values
                                           : std::vector{call->Child(0)};
      if (static_cast<int>(row.size()) != columns) {
        return At(Status::InvalidArgument(fmt::format(
                      "the IN subquery returns {} columns; it must return {}", columns,
                      row.size() == 1 ? std::string("one") : std::to_string(row.size()))),
                  *call);
      }
      // The subquery's names were resolved in its own scope; its columns are renamed so that
      // the value's names resolve in the outer query only (`id IN (SELECT id FROM t)` has an
      // `id` on both sides of the join).
      const columnar::SchemaPtr resolution = plan::ResolutionSchema(*sub);
      std::vector<plan::NamedExpr> renames;
      renames.reserve(static_cast<size_t>(columns));
      for (int i = 0; i < columns; ++i) {
        renames.push_back({plan::ExactColumn(resolution->FieldAt(i).Name()),
                           i == 0 ? alias : fmt::format("{}_{}", alias, i)});
      }
      auto renamed = plan::Select(sub, renames);
      if (!renamed.ok()) {
        return At(renamed.status(), *call);
      }
      sub = *std::move(renamed);
      for (int i = 0; i < columns; ++i) {
        ExprPtr equal = expr::Call(
            Op::kEqual, {row[static_cast<size_t>(i)],
                         expr::Col(QuoteIdentifier(alias) + "." +
                                   QuoteIdentifier(renames[static_cast<size_t>(i)].alias))});
        on = on == nullptr ? equal : expr::And(on, equal);
      }
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

  // The values `call` (an IN subquery placeholder) compares: the fields of a row `(a, b)` when
  // `query` selects as many columns (or `*`), else its one value. Spark compares a row
  // field by field; NOT IN's null-aware condition covers the conjunction.
  static std::vector<ExprPtr> InValues(const expr::Expression& call, const sql::Query& query) {
    const ExprPtr& value = call.Child(0);
    if (value->GetOp() == Op::kFunction && value->Name() == "struct" &&
        value->Children().size() > 1 &&
        (value->Children().size() == query.select.size() ||
         std::any_of(query.select.begin(), query.select.end(),
                     [](const SelectItem& item) { return item.IsStar(); }))) {
      return value->Children();
    }
    return {value};
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
    const bool having_predicates = HavingPredicatesOverKeys(query, *input);
    const bool any =
        HasScalarSubquery(query.where) || HasScalarSubquery(query.having) || having_predicates ||
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
      TRIBUTARY_ASSIGN_OR_RAISE(rewritten.having, ScalarSubqueryColumns(query.having, input, true,
                                                                        false, having_predicates));
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

  // Whether `query`'s HAVING has [NOT] EXISTS / IN subqueries that read no aggregate and of
  // the rows of `input` (before grouping) only GROUP BY keys: each is then constant within a
  // group, a boolean column computed per row (PredicateSubqueryValue) and read with any_value.
  // Spark evaluates them over the groups; a subquery that reads an aggregate of the outer
  // query is not supported.
  bool HavingPredicatesOverKeys(const sql::Query& query, const LogicalPlanPtr& input) const {
    if (query.having == nullptr || !HasPredicateSubquery(query.having) || query.group_by.empty() ||
        !query.grouping_sets.empty() || query.group_by_all) {
      return false;
    }
    bool over_keys = true;
    internal::RewriteExpression(query.having, [&](const ExprPtr& node) -> ExprPtr {
      if ((node->Name() != kExistsFunction && node->Name() != kInSubqueryFunction) ||
          statement_.sources->subqueries.count(node.get()) == 0) {
        return nullptr;
      }
      if (!node->Children().empty() && ContainsAggregate(*node->Child(0))) {
        over_keys = false;
      }
      std::vector<ExprPtr> references;
      CollectReferencesWithSubqueries(node, statement_.sources.get(), &references);
      for (const ExprPtr& reference : references) {
        const bool key =
            std::any_of(query.group_by.begin(), query.group_by.end(), [&](const ExprPtr& k) {
              return EqualsIgnoreAsciiCase(k->ToString(), reference->ToString());
            });
        if (!key && plan::Select(input, {{reference, "__probe"}}).ok()) {
          over_keys = false;
        }
      }
      return node;
    });
    return over_keys;
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
        // The aggregate shapes first; a FROM item that reads the outer query too is left to
        // the general rewrite.
        auto column = CorrelatedScalar(*query, *e, input);
        if (!column.ok() && IsUnresolvedColumn(column.status())) {
          column = ExprPtr();
        }
        if (column.ok() && *column == nullptr) {
          column = CorrelatedScalarOverDomain(*query, *e, input);
        }
        if (!column.ok() && IsUnresolvedColumn(column.status())) {
          column = ExprPtr();
        }
        if (column.ok() && *column == nullptr) {
          column = CorrelatedScalarPerDomainRow(*query, *e, input);
        }
        binder_->PopScope();
        if (!column.ok() || *column != nullptr) {
          TRIBUTARY_RETURN_NOT_OK(column.status());
          return aggregates && !inside_aggregate ? expr::Function("any_value", {*column}) : *column;
        }
        // No column of the outer query resolves the name either.
        return sub.status();
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
          "scalar_subquery_value", {expr::Function("count", {expr::Lit(expr::Scalar::Int32(1))}),
                                    expr::Function("first", {value})});
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
                        query.limit == nullptr && query.offset == nullptr &&
                        query.select.size() == 1 && !query.select[0].IsStar() &&
                        ContainsAggregate(*query.select[0].expr);
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

  // A correlated subquery bound for every row of its outer domain at once.
  struct DomainRows {
    OuterDomain domain;
    LogicalPlanPtr rows;  // the query's columns, then domain.names
  };

  // The domain of the outer values `query` reads (the distinct values, in `input`, of every
  // column reference in it that resolves there, named __outer_<number>_<i>; one that resolves
  // inside too only makes the domain finer) and `query` bound over it
  // (QueryBinder::BindQueryOverDomain). Nullopt when it reads no column of `input`.
  Result<std::optional<DomainRows>> BindOverOuterDomain(const sql::Query& query,
                                                        const LogicalPlanPtr& input, int number,
                                                        const expr::Expression& at) {
    std::vector<ExprPtr> references;
    CollectQueryReferences(query, statement_.sources.get(), &references);
    DomainRows bound;
    std::vector<plan::NamedExpr> items;
    for (const ExprPtr& reference : references) {
      if (!plan::Select(input, {{reference, "__probe"}}).ok()) {
        continue;
      }
      bound.domain.outer.push_back(reference);
      bound.domain.names.push_back(fmt::format("__outer_{}_{}", number, bound.domain.names.size()));
      items.push_back({reference, bound.domain.names.back()});
    }
    if (bound.domain.outer.empty()) {
      return std::nullopt;
    }
    auto values = plan::Select(input, items);
    if (values.ok()) {
      values = plan::Distinct(*std::move(values));
    }
    if (!values.ok()) {
      return At(values.status(), at);
    }
    bound.domain.plan = *std::move(values);
    TRIBUTARY_ASSIGN_OR_RAISE(bound.rows, binder_->BindQueryOverDomain(query, bound.domain));
    if (!CarriesDomain(*bound.rows, bound.domain)) {
      return std::nullopt;
    }
    return bound;
  }

  // A correlated scalar subquery of any other shape, decorrelated over the domain of the outer
  // values it reads (Spark's and DuckDB's general rewrite): the distinct values of every outer
  // column the subquery may read (a column reference in it that resolves in `*input`; one that
  // resolves inside too only makes the domain finer), the subquery bound for all domain rows at
  // once (QueryBinder::BindQueryOverDomain), grouped by the domain columns into its one value
  // (Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS for a second row) and left-joined into `*input` on
  // null-safe equality, so that a domain row without rows reads null. Null when the subquery
  // reads no column of `*input`.
  Result<ExprPtr> CorrelatedScalarPerDomainRow(const sql::Query& query, const expr::Expression& at,
                                               LogicalPlanPtr* input) {
    const int number = ++subquery_count_;
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<DomainRows> bound,
                              BindOverOuterDomain(query, *input, number, at));
    if (!bound.has_value()) {
      return ExprPtr();
    }
    const OuterDomain& domain = bound->domain;
    LogicalPlanPtr rows = std::move(bound->rows);
    const int columns = rows->Schema()->NumFields() - static_cast<int>(domain.names.size());
    if (columns != 1) {
      return At(Status::InvalidArgument(fmt::format(
                    "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_"
                    "COLUMN] Invalid subquery: Scalar subquery must return only one column, but "
                    "got {}.",
                    columns)),
                at);
    }
    const std::string name = fmt::format("__scalar_{}", number);
    const ExprPtr value = plan::ExactColumn(plan::ResolutionSchema(*rows)->FieldAt(0).Name());
    std::vector<ExprPtr> keys;
    std::vector<plan::NamedExpr> outputs;
    ExprPtr back;
    for (size_t i = 0; i < domain.names.size(); ++i) {
      keys.push_back(plan::ExactColumn(domain.names[i]));
      const std::string key = fmt::format("__outer_key_{}_{}", number, i);
      outputs.push_back({keys.back(), key});
      ExprPtr same = expr::Call(Op::kNullSafeEqual, {domain.outer[i], plan::ExactColumn(key)});
      back = back == nullptr ? same : expr::And(back, same);
    }
    outputs.push_back({expr::Function("scalar_subquery_value",
                                      {expr::Function("count", {expr::Lit(expr::Scalar::Int32(1))}),
                                       expr::Function("first", {value})}),
                       name});
    auto grouped = plan::Aggregate(std::move(rows), keys, outputs, nullptr);
    if (!grouped.ok()) {
      return At(grouped.status(), at);
    }
    auto joined = plan::Join(*input, *std::move(grouped), exec::JoinType::kLeft, back);
    if (!joined.ok()) {
      return At(joined.status(), at);
    }
    *input = *std::move(joined);
    return plan::ExactColumn(name);
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
                       query.limit == nullptr && query.offset == nullptr &&
                       query.select.size() == 1 && !query.select[0].IsStar() &&
                       ContainsAggregate(*query.select[0].expr);
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
        query.offset == nullptr && !query.distinct && !query.select.empty() &&
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

  // A correlated EXISTS or IN subquery of any other shape (LIMIT, OFFSET, DISTINCT, a FROM
  // item that reads the outer query), decorrelated over the domain of the outer values it reads
  // as CorrelatedScalarPerDomainRow does: the subquery bound for every domain row at once
  // (QueryBinder::BindQueryOverDomain, which applies LIMIT per domain row). The plan's columns
  // are the domain keys, then for IN the one selected value, last; `*correlation` matches the
  // keys with the outer columns (null-safe). Null when the subquery reads no outer column.
  Result<LogicalPlanPtr> PredicateOverDomain(const sql::Query& query, bool in_subquery,
                                             const LogicalPlanPtr& input,
                                             const expr::Expression& at, ExprPtr* correlation) {
    if (!in_subquery && (query.limit != nullptr || query.offset != nullptr)) {
      // Spark pulls EXISTS's correlation up through a LIMIT (Decorrelated) and supports no
      // other shape of it.
      return LogicalPlanPtr();
    }
    const int number = ++subquery_count_;
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<DomainRows> bound,
                              BindOverOuterDomain(query, input, number, at));
    if (!bound.has_value()) {
      return LogicalPlanPtr();
    }
    const OuterDomain& domain = bound->domain;
    LogicalPlanPtr rows = std::move(bound->rows);
    const int columns = rows->Schema()->NumFields() - static_cast<int>(domain.names.size());
    if (in_subquery && columns != 1) {
      return At(Status::InvalidArgument(
                    fmt::format("the IN subquery returns {} columns; it must return one", columns)),
                at);
    }
    const columnar::SchemaPtr resolution = plan::ResolutionSchema(*rows);
    std::vector<plan::NamedExpr> outputs;
    for (size_t i = 0; i < domain.names.size(); ++i) {
      const std::string key = fmt::format("__in_key_{}_{}", number, i);
      outputs.push_back({plan::ExactColumn(domain.names[i]), key});
      ExprPtr same = expr::Call(Op::kNullSafeEqual, {domain.outer[i], plan::ExactColumn(key)});
      *correlation = *correlation == nullptr ? same : expr::And(*correlation, same);
    }
    if (in_subquery) {
      outputs.push_back(
          {plan::ExactColumn(resolution->FieldAt(0).Name()), fmt::format("__in_value_{}", number)});
    }
    auto projected = plan::Select(std::move(rows), outputs);
    if (!projected.ok()) {
      return At(projected.status(), at);
    }
    return projected;
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
      if (decorrelated.ok() ? *decorrelated == nullptr
                            : IsUnresolvedColumn(decorrelated.status())) {
        correlation = nullptr;
        binder_->PushScope();
        auto over_domain = PredicateOverDomain(query, in_subquery, *input, *call, &correlation);
        binder_->PopScope();
        if (!over_domain.ok() || *over_domain != nullptr || decorrelated.ok()) {
          decorrelated = std::move(over_domain);
        }
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
                                      ExprPtr* correlation, size_t in_values = 1) {
    // EXISTS over `... ORDER BY k LIMIT n` (n a literal): Spark pulls the correlated conjuncts
    // up through the limit, which so applies to the rows of the local conjuncts, for all outer
    // rows at once (exists-orderby-limit.sql.out). IN's LIMIT is per outer row instead
    // (PredicateOverDomain); an OFFSET under correlation is not supported in EXISTS.
    const bool exists_limit =
        !in_subquery && query.limit != nullptr && query.limit->GetOp() == Op::kLiteral &&
        !query.limit->Literal().IsNull() && query.limit->Literal().Type()->IsInteger() &&
        query.limit->Literal().IntValue() >= 0;
    const bool simple =
        query.kind == QueryKind::kSelect && query.with.empty() && query.from != nullptr &&
        query.where != nullptr && query.group_by.empty() && query.having == nullptr &&
        query.qualify == nullptr && (query.limit == nullptr || exists_limit) &&
        query.offset == nullptr && (!query.distinct || (!in_subquery && query.limit == nullptr)) &&
        std::none_of(query.select.begin(), query.select.end(), [](const SelectItem& item) {
          return !item.IsStar() && ContainsAggregate(*item.expr);
        });
    if (!simple ||
        (in_subquery && (query.select.size() != in_values ||
                         std::any_of(query.select.begin(), query.select.end(),
                                     [](const SelectItem& item) { return item.IsStar(); })))) {
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
      if (HasScalarSubquery(conjunct)) {
        // A scalar subquery in the conjunct (correlated with this subquery's relation or not):
        // a column joined into the relation first.
        TRIBUTARY_ASSIGN_OR_RAISE(conjunct, ScalarSubqueryColumns(conjunct, &plan, false, false));
      }
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
    if (query.limit != nullptr) {
      // EXISTS only (Decorrelated): the limit of the rows the local conjuncts keep.
      if (!query.order_by.empty()) {
        std::vector<plan::SortItem> items;
        for (const OrderItem& order : query.order_by) {
          items.push_back({order.expr, order.ascending, order.nulls_first});
        }
        auto sorted = plan::OrderBy(plan, items);
        if (!sorted.ok()) {
          return LogicalPlanPtr();
        }
        plan = *std::move(sorted);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(plan, plan::Limit(plan, query.limit->Literal().IntValue(), 0));
    }
    for (size_t i = 0; in_subquery && i < query.select.size(); ++i) {
      // The selected values, last (`(a, b) IN (SELECT x, y ...)` has two).
      const std::string name = i == 0 ? fmt::format("__in_value_{}", subquery_count_ + 1)
                                      : fmt::format("__in_value_{}_{}", subquery_count_ + 1, i);
      auto added = plan::WithColumn(plan, name, query.select[i].expr);
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

void CollectQueryColumnReferences(const sql::Query& query, const ExpressionSources* sources,
                                  std::vector<ExprPtr>* out) {
  CollectQueryReferences(query, sources, out);
}

std::unique_ptr<SubqueryRewriter> SubqueryRewriter::Make(const Statement& statement,
                                                         QueryBinder* binder) {
  return std::make_unique<SubqueryRewriterImpl>(statement, binder);
}

}  // namespace tributary::sql::internal

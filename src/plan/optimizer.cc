#include "plan/optimizer.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "expr/balanced_tree.h"
#include "expr/in_set.h"
#include "plan/bound_rewrites.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

using expr::BoundExpression;
using expr::Op;

bool IsNondeterministic(const BoundExpression& e) {
  if (e.GetOp() == Op::kFunction) {
    const std::string& name = e.Name();
    if (name == "rand" || name == "randn" || name == "random" || name == "uniform" ||
        name == "randstr" || name == "uuid" || name == "shuffle") {
      return true;
    }
  }
  return std::any_of(e.Children().begin(), e.Children().end(),
                     [](const BoundExprPtr& c) { return IsNondeterministic(*c); });
}

bool HasColumns(const BoundExpression& e) {
  return e.GetOp() == Op::kColumn ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const BoundExprPtr& c) { return HasColumns(*c); });
}

// Row 0 of a primitive column as a Scalar; nullopt for types literals cannot hold.
std::optional<expr::Scalar> ScalarAt(const columnar::Column& column) {
  using columnar::TypeId;
  const columnar::DataTypePtr& type = column.Type();
  if (column.IsNull(0)) {
    return expr::Scalar::Null(type);
  }
  switch (type->Id()) {
    case TypeId::kBoolean:
      return expr::Scalar::Boolean(column.Values<uint8_t>()[0] != 0);
    case TypeId::kInt8:
      return expr::Scalar::Int8(column.Values<int8_t>()[0]);
    case TypeId::kInt16:
      return expr::Scalar::Int16(column.Values<int16_t>()[0]);
    case TypeId::kInt32:
      return expr::Scalar::Int32(column.Values<int32_t>()[0]);
    case TypeId::kInt64:
      return expr::Scalar::Int64(column.Values<int64_t>()[0]);
    case TypeId::kFloat32:
      return expr::Scalar::Float32(column.Values<float>()[0]);
    case TypeId::kFloat64:
      return expr::Scalar::Float64(column.Values<double>()[0]);
    case TypeId::kDecimal: {
      auto value = expr::Scalar::Decimal(column.Values<columnar::Int128>()[0], type->Precision(),
                                         type->Scale());
      return value.ok() ? std::optional<expr::Scalar>(*value) : std::nullopt;
    }
    case TypeId::kString:
      return expr::Scalar::String(std::string(column.BytesAt(0)));
    case TypeId::kBinary:
      return expr::Scalar::Binary(std::string(column.BytesAt(0)));
    case TypeId::kDate:
      return expr::Scalar::Date(column.Values<int32_t>()[0]);
    case TypeId::kTimestamp:
      return expr::Scalar::Timestamp(column.Values<int64_t>()[0]);
    case TypeId::kTimestampNtz:
      return expr::Scalar::TimestampNtz(column.Values<int64_t>()[0]);
    case TypeId::kDayTimeInterval:
      return expr::Scalar::DayTimeInterval(column.Values<int64_t>()[0]);
    case TypeId::kYearMonthInterval:
      return expr::Scalar::YearMonthInterval(column.Values<int32_t>()[0]);
    default:
      return std::nullopt;
  }
}

BoundExprPtr Fold(const BoundExprPtr& e, const expr::EvalContext& context) {
  if (e == nullptr || e->GetOp() == Op::kLiteral || e->GetOp() == Op::kColumn) {
    return e;
  }
  if (!HasColumns(*e) && !IsNondeterministic(*e)) {
    // Evaluate over a one-row batch without columns. A failure (an ANSI error such as 1/0)
    // is left for execution to report, where it names the row, as Spark does.
    auto schema = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{});
    auto batch = columnar::RecordBatch::Make(schema, 1, {});
    if (batch.ok()) {
      auto column = expr::Evaluate(*e, **batch, context);
      if (column.ok()) {
        std::optional<expr::Scalar> value = ScalarAt(**column);
        if (value.has_value() && value->Type()->Equals(*e->Type())) {
          return std::make_shared<BoundExpression>(Op::kLiteral, e->Type(),
                                                   std::vector<BoundExprPtr>{}, -1,
                                                   std::move(*value), std::string{});
        }
      }
    }
  }
  std::vector<BoundExprPtr> children;
  for (const BoundExprPtr& child : e->Children()) {
    children.push_back(Fold(child, context));
  }
  return e->WithChildren(std::move(children));
}

LogicalPlanPtr FoldConstants(const LogicalPlanPtr& plan, const expr::EvalContext& context) {
  std::vector<LogicalPlanPtr> inputs;
  for (const LogicalPlanPtr& input : plan->Inputs()) {
    inputs.push_back(FoldConstants(input, context));
  }
  switch (plan->Kind()) {
    case PlanKind::kFilter:
      return std::make_shared<FilterNode>(inputs[0],
                                          Fold(plan->As<FilterNode>().Condition(), context));
    case PlanKind::kProject: {
      const auto& project = plan->As<ProjectNode>();
      std::vector<BoundExprPtr> expressions;
      std::vector<std::string> names;
      for (size_t i = 0; i < project.Expressions().size(); ++i) {
        expressions.push_back(Fold(project.Expressions()[i], context));
        names.push_back(plan->Schema()->FieldAt(static_cast<int>(i)).Name());
      }
      return std::make_shared<ProjectNode>(inputs[0], std::move(expressions), std::move(names),
                                           plan->Qualifiers());
    }
    default:
      return plan->Inputs().empty() ? plan : plan->WithInputs(std::move(inputs));
  }
}

// ---- 2. predicate pushdown

// The part of a bound condition over a scan's columns that file skipping understands, as an
// unbound expression over the source's column names; null when nothing is usable.
expr::ExprPtr ToSkippingPredicate(const BoundExpression& e, const ScanNode& scan) {
  switch (e.GetOp()) {
    case Op::kColumn:
      return ExactColumn(
          scan.Source().FieldAt(scan.Columns()[static_cast<size_t>(e.Index())]).Name());
    case Op::kLiteral:
      return expr::Lit(e.Literal());
    case Op::kCast: {
      expr::ExprPtr child = ToSkippingPredicate(e.Child(0), scan);
      return child == nullptr ? nullptr : expr::Cast(child, e.Type());
    }
    case Op::kEqual:
    case Op::kNotEqual:
    case Op::kLess:
    case Op::kLessEqual:
    case Op::kGreater:
    case Op::kGreaterEqual:
    case Op::kNullSafeEqual:
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot:
    case Op::kIsNull:
    case Op::kIsNotNull: {
      std::vector<expr::ExprPtr> children;
      for (const BoundExprPtr& child : e.Children()) {
        expr::ExprPtr converted = ToSkippingPredicate(*child, scan);
        if (converted == nullptr) {
          return nullptr;
        }
        children.push_back(std::move(converted));
      }
      return expr::Call(e.GetOp(), std::move(children));
    }
    case Op::kFunction: {
      // A long IN list: files whose values all lie outside the list's range are skipped.
      const auto* in_set = dynamic_cast<const expr::InSetFunction*>(e.Function());
      if (in_set == nullptr || in_set->MinConstant() == nullptr) {
        return nullptr;
      }
      expr::ExprPtr value = ToSkippingPredicate(e.Child(0), scan);
      expr::ExprPtr min = ToSkippingPredicate(*in_set->MinConstant(), scan);
      expr::ExprPtr max = ToSkippingPredicate(*in_set->MaxConstant(), scan);
      if (value == nullptr || min == nullptr || max == nullptr) {
        return nullptr;
      }
      return expr::And(expr::Call(Op::kGreaterEqual, {value, std::move(min)}),
                       expr::Call(Op::kLessEqual, {value, std::move(max)}));
    }
    default:
      return nullptr;
  }
}

LogicalPlanPtr PushDown(const LogicalPlanPtr& plan);

// `conjuncts` (over `plan`'s columns) applied to `plan`, pushed as deep as they go.
LogicalPlanPtr FilterWith(const LogicalPlanPtr& plan, const std::vector<BoundExprPtr>& conjuncts) {
  if (conjuncts.empty()) {
    return PushDown(plan);
  }
  return PushDown(std::make_shared<FilterNode>(plan, Conjoin(conjuncts)));
}

LogicalPlanPtr PushFilter(const FilterNode& filter) {
  const LogicalPlanPtr& input = filter.Inputs()[0];
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(filter.Condition(), &conjuncts);
  switch (input->Kind()) {
    case PlanKind::kFilter: {
      std::vector<BoundExprPtr> merged;
      SplitConjuncts(input->As<FilterNode>().Condition(), &merged);
      merged.insert(merged.end(), conjuncts.begin(), conjuncts.end());
      return FilterWith(input->Inputs()[0], merged);
    }
    case PlanKind::kJoin: {
      const auto& join = input->As<JoinNode>();
      const int nl = join.Input(0).Schema()->NumFields();
      const exec::JoinType type = join.Type();
      const bool to_left = type == exec::JoinType::kInner || type == exec::JoinType::kCross ||
                           type == exec::JoinType::kLeft || type == exec::JoinType::kLeftSemi ||
                           type == exec::JoinType::kLeftAnti;
      const bool to_right = type == exec::JoinType::kInner || type == exec::JoinType::kCross ||
                            type == exec::JoinType::kRight;
      std::vector<BoundExprPtr> left;
      std::vector<BoundExprPtr> right;
      std::vector<BoundExprPtr> kept;
      std::vector<int> shift(static_cast<size_t>(input->Schema()->NumFields()));
      for (size_t i = 0; i < shift.size(); ++i) {
        shift[i] = static_cast<int>(i) - nl;
      }
      for (const BoundExprPtr& c : conjuncts) {
        const auto [low, high] = ColumnRange(*c);
        // A conjunct without columns, or a nondeterministic one, stays above the join.
        const bool movable = high >= 0 && !IsNondeterministic(*c);
        if (movable && high < nl && to_left) {
          left.push_back(c);
        } else if (movable && low >= nl && to_right) {
          right.push_back(RemapColumns(c, shift));
        } else {
          kept.push_back(c);
        }
      }
      LogicalPlanPtr joined = join.WithInputs(
          {FilterWith(input->Inputs()[0], left), FilterWith(input->Inputs()[1], right)});
      return kept.empty() ? joined : std::make_shared<FilterNode>(joined, Conjoin(kept));
    }
    case PlanKind::kScan: {
      const auto& scan = input->As<ScanNode>();
      if (scan.Source().kind != ScanSource::Kind::kDelta) {
        return std::make_shared<FilterNode>(input, filter.Condition());
      }
      std::vector<expr::ExprPtr> skipping;
      if (scan.PushedFilter() != nullptr) {
        skipping.push_back(scan.PushedFilter());
      }
      for (const BoundExprPtr& c : conjuncts) {
        if (expr::ExprPtr converted = ToSkippingPredicate(*c, scan)) {
          skipping.push_back(std::move(converted));
        }
      }
      // ANDed as a balanced tree, as Conjoin.
      expr::ExprPtr pushed = expr::BalancedTree(std::move(skipping), expr::And);
      std::vector<int> columns = scan.Columns();
      auto new_scan = std::make_shared<ScanNode>(scan.Source(), std::move(columns), std::string{},
                                                 pushed, scan.IsStreaming());
      LogicalPlanPtr qualified = new_scan;
      // Keep the scan's qualifiers (all the same: the table name or alias).
      if (!scan.Qualifiers().empty() && !scan.Qualifiers().front().empty()) {
        qualified = new_scan->WithAlias(scan.Qualifiers().front());
      }
      return std::make_shared<FilterNode>(qualified, filter.Condition());
    }
    case PlanKind::kWatermark: {
      // Spark pushes a filter below EventTimeWatermark only where it does not read the event
      // time: the watermark must see every event time the input has.
      const auto& watermark = input->As<WatermarkNode>();
      std::vector<BoundExprPtr> below;
      std::vector<BoundExprPtr> kept;
      for (const BoundExprPtr& c : conjuncts) {
        std::vector<bool> used(static_cast<size_t>(input->Schema()->NumFields()), false);
        MarkColumns(*c, &used);
        const bool reads_event_time = used[static_cast<size_t>(watermark.EventTimeIndex())];
        (reads_event_time || IsNondeterministic(*c) ? kept : below).push_back(c);
      }
      LogicalPlanPtr moved = watermark.WithInputs({FilterWith(input->Inputs()[0], below)});
      return kept.empty() ? moved : std::make_shared<FilterNode>(moved, Conjoin(kept));
    }
    default:
      return std::make_shared<FilterNode>(PushDown(input), filter.Condition());
  }
}

LogicalPlanPtr PushDown(const LogicalPlanPtr& plan) {
  if (plan->Kind() == PlanKind::kFilter) {
    return PushFilter(plan->As<FilterNode>());
  }
  if (plan->Inputs().empty()) {
    return plan;
  }
  std::vector<LogicalPlanPtr> inputs;
  for (const LogicalPlanPtr& input : plan->Inputs()) {
    inputs.push_back(PushDown(input));
  }
  return plan->WithInputs(std::move(inputs));
}

// ---- 3. limit into sort

LogicalPlanPtr LimitIntoSort(const LogicalPlanPtr& plan) {
  std::vector<LogicalPlanPtr> inputs;
  for (const LogicalPlanPtr& input : plan->Inputs()) {
    inputs.push_back(LimitIntoSort(input));
  }
  LogicalPlanPtr rebuilt = inputs.empty() ? plan : plan->WithInputs(inputs);
  if (plan->Kind() != PlanKind::kLimit || inputs[0]->Kind() != PlanKind::kSort) {
    return rebuilt;
  }
  const auto& limit = plan->As<LimitNode>();
  // OFFSET without LIMIT (the largest count that does not overflow) keeps a full sort.
  if (limit.Limit() >= std::numeric_limits<int64_t>::max() - limit.Offset()) {
    return rebuilt;
  }
  const auto& sort = inputs[0]->As<SortNode>();
  const int64_t n = limit.Limit() + limit.Offset();
  const int64_t top = sort.Limit() ? std::min(*sort.Limit(), n) : n;
  auto top_n = std::make_shared<SortNode>(sort.Inputs()[0], sort.Keys(), top);
  return std::make_shared<LimitNode>(top_n, limit.Limit(), limit.Offset());
}

// ---- 4. window group limit

// The column a rank-like value is compared with and the largest value the conjunct keeps:
// `c <= k`, `c < k`, `c = k` (or the same with the operands swapped), for an integer column
// (maybe widened by a cast) and an integer literal.
std::optional<std::pair<int, int64_t>> RankBound(const BoundExpression& conjunct) {
  Op op = conjunct.GetOp();
  if ((op != Op::kLessEqual && op != Op::kLess && op != Op::kEqual && op != Op::kGreaterEqual &&
       op != Op::kGreater) ||
      conjunct.Children().size() != 2) {
    return std::nullopt;
  }
  const BoundExpression* column = conjunct.Children()[0].get();
  const BoundExpression* literal = conjunct.Children()[1].get();
  if (column->GetOp() == Op::kLiteral) {
    std::swap(column, literal);
    op = op == Op::kGreaterEqual ? Op::kLessEqual
         : op == Op::kGreater    ? Op::kLess
         : op == Op::kLessEqual  ? Op::kGreaterEqual
         : op == Op::kLess       ? Op::kGreater
                                 : op;
  }
  if (op == Op::kGreaterEqual || op == Op::kGreater) {
    return std::nullopt;
  }
  if (column->GetOp() == Op::kCast && column->Type()->IsInteger()) {
    column = column->Children()[0].get();
  }
  if (column->GetOp() != Op::kColumn || !column->Type()->IsInteger() ||
      literal->GetOp() != Op::kLiteral || literal->Literal().IsNull() ||
      !literal->Type()->IsInteger()) {
    return std::nullopt;
  }
  const int64_t value = literal->Literal().IntValue();
  return std::make_pair(column->Index(), op == Op::kLess ? value - 1 : value);
}

// `plan` with `limit` on the window function that computes its output `column`, when that is
// the only function of its window, rank-like and ordered, and reaches `column` through
// projections and filters only; null otherwise.
LogicalPlanPtr WithGroupLimit(const LogicalPlanPtr& plan, int column, int64_t limit) {
  switch (plan->Kind()) {
    case PlanKind::kProject: {
      const BoundExprPtr& e = plan->As<ProjectNode>().Expressions()[static_cast<size_t>(column)];
      if (e->GetOp() != Op::kColumn) {
        return nullptr;
      }
      LogicalPlanPtr input = WithGroupLimit(plan->Inputs()[0], e->Index(), limit);
      return input == nullptr ? nullptr : plan->WithInputs({std::move(input)});
    }
    case PlanKind::kFilter: {
      LogicalPlanPtr input = WithGroupLimit(plan->Inputs()[0], column, limit);
      return input == nullptr ? nullptr : plan->WithInputs({std::move(input)});
    }
    case PlanKind::kWindow: {
      const auto& window = plan->As<WindowNode>();
      if (window.Functions().size() != 1 || column != plan->Input().Schema()->NumFields()) {
        return nullptr;
      }
      exec::WindowFunction function = window.Functions().front();
      if ((function.function != "row_number" && function.function != "rank" &&
           function.function != "dense_rank") ||
          function.order_keys.empty()) {
        return nullptr;
      }
      function.group_limit = std::min(limit, function.group_limit.value_or(limit));
      return window.With(plan->Inputs()[0], {std::move(function)});
    }
    default:
      return nullptr;
  }
}

// Spark's InferWindowGroupLimit: a filter keeping a rank-like window value at most k (`rn <=
// 10`, also from QUALIFY) lets the window drop, before it sorts, every row that cannot rank
// within the first k of its partition.
LogicalPlanPtr InferWindowGroupLimit(const LogicalPlanPtr& plan) {
  std::vector<LogicalPlanPtr> inputs;
  for (const LogicalPlanPtr& input : plan->Inputs()) {
    inputs.push_back(InferWindowGroupLimit(input));
  }
  if (plan->Kind() != PlanKind::kFilter) {
    return inputs.empty() ? plan : plan->WithInputs(std::move(inputs));
  }
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(plan->As<FilterNode>().Condition(), &conjuncts);
  for (const BoundExprPtr& conjunct : conjuncts) {
    if (auto bound = RankBound(*conjunct)) {
      if (LogicalPlanPtr limited = WithGroupLimit(inputs[0], bound->first, bound->second)) {
        inputs[0] = std::move(limited);
      }
    }
  }
  return plan->WithInputs(std::move(inputs));
}

// ---- 5. column pruning

struct Pruned {
  LogicalPlanPtr plan;
  /// Old output column -> new output column (-1: dropped).
  std::vector<int> mapping;
};

std::vector<int> Identity(int n) {
  std::vector<int> mapping(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    mapping[static_cast<size_t>(i)] = i;
  }
  return mapping;
}

Pruned Prune(const LogicalPlanPtr& plan, std::vector<bool> required);

Pruned PruneChildAll(const LogicalPlanPtr& plan) {
  return Prune(plan, std::vector<bool>(static_cast<size_t>(plan->Schema()->NumFields()), true));
}

// One function per node kind, so that the frame the recursion stacks up per plan level is
// only as large as that kind needs (a plan may be a thousand levels deep).
[[gnu::noinline]] Pruned PruneScan(const LogicalPlanPtr& plan, std::vector<bool> required, int n) {
  const auto& scan = plan->As<ScanNode>();
  std::vector<int> columns;
  std::vector<int> mapping(static_cast<size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (required[static_cast<size_t>(i)]) {
      mapping[static_cast<size_t>(i)] = static_cast<int>(columns.size());
      columns.push_back(scan.Columns()[static_cast<size_t>(i)]);
    }
  }
  if (columns.empty() && n > 0) {
    // Something must be read to count rows: the first column.
    mapping[0] = 0;
    columns.push_back(scan.Columns()[0]);
  }
  if (static_cast<int>(columns.size()) == n) {
    return {plan, Identity(n)};
  }
  auto pruned = std::make_shared<ScanNode>(scan.Source(), std::move(columns), std::string{},
                                           scan.PushedFilter(), scan.IsStreaming());
  const std::string qualifier = scan.Qualifiers().empty() ? "" : scan.Qualifiers().front();
  return {qualifier.empty() ? LogicalPlanPtr(pruned) : pruned->WithAlias(qualifier),
          std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneFilter(const LogicalPlanPtr& plan, std::vector<bool> required,
                                     int /*n*/) {
  const auto& filter = plan->As<FilterNode>();
  MarkColumns(*filter.Condition(), &required);
  Pruned child = Prune(plan->Inputs()[0], required);
  return {std::make_shared<FilterNode>(child.plan, RemapColumns(filter.Condition(), child.mapping)),
          child.mapping};
}

[[gnu::noinline]] Pruned PruneProject(const LogicalPlanPtr& plan, std::vector<bool> required,
                                      int n) {
  const auto& project = plan->As<ProjectNode>();
  std::vector<bool> child_required(static_cast<size_t>(plan->Input().Schema()->NumFields()), false);
  std::vector<int> kept;
  for (int i = 0; i < n; ++i) {
    if (required[static_cast<size_t>(i)]) {
      kept.push_back(i);
    }
  }
  if (kept.empty() && n > 0) {
    kept.push_back(0);
  }
  for (int i : kept) {
    MarkColumns(*project.Expressions()[static_cast<size_t>(i)], &child_required);
  }
  Pruned child = Prune(plan->Inputs()[0], child_required);
  std::vector<BoundExprPtr> expressions;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  std::vector<int> mapping(static_cast<size_t>(n), -1);
  for (int i : kept) {
    mapping[static_cast<size_t>(i)] = static_cast<int>(expressions.size());
    expressions.push_back(
        RemapColumns(project.Expressions()[static_cast<size_t>(i)], child.mapping));
    names.push_back(plan->Schema()->FieldAt(i).Name());
    qualifiers.push_back(plan->Qualifiers()[static_cast<size_t>(i)]);
  }
  return {std::make_shared<ProjectNode>(child.plan, std::move(expressions), std::move(names),
                                        std::move(qualifiers)),
          std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneAggregate(const LogicalPlanPtr& plan,
                                        const std::vector<bool>& required, int n) {
  const auto& aggregate = plan->As<AggregateNode>();
  const size_t num_keys = aggregate.Keys().size();
  // Every key stays (the keys make the groups). A batch aggregation drops the aggregates
  // nothing above reads, as Spark's ColumnPruning does (an unused avg(x) no longer makes the
  // scan decode x); a streaming one keeps them all: they are its state's schema, which must
  // not depend on what the query reads of them. One stays when there are no keys, so that
  // the global aggregation still yields its row.
  const bool prunable = !plan->IsStreaming() && !aggregate.Execution().has_value();
  std::vector<size_t> kept_calls;
  for (size_t a = 0; a < aggregate.Aggregates().size(); ++a) {
    if (!prunable || required[num_keys + a]) {
      kept_calls.push_back(a);
    }
  }
  if (kept_calls.empty() && num_keys == 0 && !aggregate.Aggregates().empty()) {
    kept_calls.push_back(0);
  }
  std::vector<bool> child_required(static_cast<size_t>(plan->Input().Schema()->NumFields()), false);
  for (const BoundExprPtr& key : aggregate.Keys()) {
    MarkColumns(*key, &child_required);
  }
  for (size_t a : kept_calls) {
    for (const BoundExprPtr& argument : aggregate.Aggregates()[a].arguments) {
      MarkColumns(*argument, &child_required);
    }
  }
  Pruned child = Prune(plan->Inputs()[0], child_required);
  std::vector<BoundExprPtr> keys;
  for (const BoundExprPtr& key : aggregate.Keys()) {
    keys.push_back(RemapColumns(key, child.mapping));
  }
  std::vector<exec::AggregateCall> calls;
  std::vector<int> mapping = Identity(n);
  SchemaPtr schema = plan->Schema();
  if (kept_calls.size() == aggregate.Aggregates().size()) {
    calls = aggregate.Aggregates();
  } else {
    std::vector<columnar::Field> fields;
    for (size_t k = 0; k < num_keys; ++k) {
      fields.push_back(plan->Schema()->FieldAt(static_cast<int>(k)));
    }
    std::fill(mapping.begin() + static_cast<std::ptrdiff_t>(num_keys), mapping.end(), -1);
    for (size_t a : kept_calls) {
      mapping[num_keys + a] = static_cast<int>(num_keys + calls.size());
      calls.push_back(aggregate.Aggregates()[a]);
      fields.push_back(plan->Schema()->FieldAt(static_cast<int>(num_keys + a)));
    }
    schema = std::make_shared<columnar::Schema>(std::move(fields), plan->Schema()->Metadata());
  }
  for (exec::AggregateCall& call : calls) {
    for (BoundExprPtr& argument : call.arguments) {
      argument = RemapColumns(argument, child.mapping);
    }
  }
  // The stateful execution stays as it is: its event-time key is an index among the keys.
  return {std::make_shared<AggregateNode>(child.plan, std::move(keys), std::move(calls),
                                          std::move(schema), aggregate.Execution()),
          std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneJoin(const LogicalPlanPtr& plan, std::vector<bool> required, int n) {
  const auto& join = plan->As<JoinNode>();
  const int nl = join.Input(0).Schema()->NumFields();
  const int nr = join.Input(1).Schema()->NumFields();
  std::vector<bool> all(static_cast<size_t>(nl + nr), false);
  for (int i = 0; i < n; ++i) {
    all[static_cast<size_t>(i)] = required[static_cast<size_t>(i)];
  }
  if (join.Residual() != nullptr) {
    MarkColumns(*join.Residual(), &all);
  }
  std::vector<bool> left_required(all.begin(), all.begin() + nl);
  std::vector<bool> right_required(all.begin() + nl, all.end());
  for (const BoundExprPtr& key : join.LeftKeys()) {
    MarkColumns(*key, &left_required);
  }
  for (const BoundExprPtr& key : join.RightKeys()) {
    MarkColumns(*key, &right_required);
  }
  Pruned left = Prune(plan->Inputs()[0], left_required);
  Pruned right = Prune(plan->Inputs()[1], right_required);
  const int new_nl = left.plan->Schema()->NumFields();
  std::vector<int> combined(static_cast<size_t>(nl + nr), -1);
  for (int i = 0; i < nl; ++i) {
    combined[static_cast<size_t>(i)] = left.mapping[static_cast<size_t>(i)];
  }
  for (int j = 0; j < nr; ++j) {
    const int m = right.mapping[static_cast<size_t>(j)];
    combined[static_cast<size_t>(nl) + static_cast<size_t>(j)] = m < 0 ? -1 : new_nl + m;
  }
  std::vector<BoundExprPtr> left_keys;
  std::vector<BoundExprPtr> right_keys;
  for (const BoundExprPtr& key : join.LeftKeys()) {
    left_keys.push_back(RemapColumns(key, left.mapping));
  }
  for (const BoundExprPtr& key : join.RightKeys()) {
    right_keys.push_back(RemapColumns(key, right.mapping));
  }
  auto rebuilt =
      std::make_shared<JoinNode>(left.plan, right.plan, join.Type(), std::move(left_keys),
                                 std::move(right_keys), RemapColumns(join.Residual(), combined));
  combined.resize(static_cast<size_t>(n));
  return {rebuilt, std::move(combined)};
}

[[gnu::noinline]] Pruned PruneSort(const LogicalPlanPtr& plan, std::vector<bool> required,
                                   int /*n*/) {
  const auto& sort = plan->As<SortNode>();
  for (const exec::SortKey& key : sort.Keys()) {
    MarkColumns(*key.expression, &required);
  }
  Pruned child = Prune(plan->Inputs()[0], required);
  std::vector<exec::SortKey> keys = sort.Keys();
  for (exec::SortKey& key : keys) {
    key.expression = RemapColumns(key.expression, child.mapping);
  }
  return {std::make_shared<SortNode>(child.plan, std::move(keys), sort.Limit()), child.mapping};
}

[[gnu::noinline]] Pruned PruneLimit(const LogicalPlanPtr& plan, std::vector<bool> required,
                                    int /*n*/) {
  Pruned child = Prune(plan->Inputs()[0], std::move(required));
  return {plan->WithInputs({child.plan}), child.mapping};
}

[[gnu::noinline]] Pruned PruneGenerate(const LogicalPlanPtr& plan, std::vector<bool> required,
                                       int n) {
  const auto& generate = plan->As<GenerateNode>();
  const int inputs = plan->Input().Schema()->NumFields();
  std::vector<bool> child_required(required.begin(), required.begin() + inputs);
  MarkColumns(*generate.Spec().collection, &child_required);
  Pruned child = Prune(plan->Inputs()[0], child_required);
  const int new_inputs = child.plan->Schema()->NumFields();
  std::vector<int> mapping(child.mapping);
  for (int j = inputs; j < n; ++j) {
    mapping.push_back(new_inputs + (j - inputs));
  }
  return {generate.With(child.plan, RemapColumns(generate.Spec().collection, child.mapping)),
          std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneExpand(const LogicalPlanPtr& plan, const std::vector<bool>& required,
                                     int n) {
  // Each output column is kept when needed above, in every projection alike; the input keeps
  // the columns the kept expressions read.
  const auto& expand = plan->As<ExpandNode>();
  std::vector<int> mapping(static_cast<size_t>(n), -1);
  std::vector<bool> child_required(static_cast<size_t>(plan->Input().Schema()->NumFields()), false);
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  int kept = 0;
  for (int c = 0; c < n; ++c) {
    if (!required[static_cast<size_t>(c)]) {
      continue;
    }
    mapping[static_cast<size_t>(c)] = kept++;
    names.push_back(plan->Schema()->FieldAt(c).Name());
    qualifiers.push_back(plan->Qualifiers()[static_cast<size_t>(c)]);
    for (const std::vector<BoundExprPtr>& projection : expand.Projections()) {
      MarkColumns(*projection[static_cast<size_t>(c)], &child_required);
    }
  }
  Pruned child = Prune(plan->Inputs()[0], child_required);
  std::vector<std::vector<BoundExprPtr>> projections;
  for (const std::vector<BoundExprPtr>& projection : expand.Projections()) {
    std::vector<BoundExprPtr> remapped;
    for (int c = 0; c < n; ++c) {
      if (required[static_cast<size_t>(c)]) {
        remapped.push_back(RemapColumns(projection[static_cast<size_t>(c)], child.mapping));
      }
    }
    projections.push_back(std::move(remapped));
  }
  return {std::make_shared<ExpandNode>(child.plan, std::move(projections), names,
                                       std::move(qualifiers)),
          std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneWindow(const LogicalPlanPtr& plan, std::vector<bool> required,
                                     int n) {
  // The input keeps the columns needed above and those the functions read; every function
  // stays (one unused costs its computation, not a wrong result).
  const auto& window = plan->As<WindowNode>();
  const int inputs = plan->Input().Schema()->NumFields();
  std::vector<bool> child_required(required.begin(), required.begin() + inputs);
  auto mark_all = [&](const std::vector<BoundExprPtr>& expressions) {
    for (const BoundExprPtr& e : expressions) {
      MarkColumns(*e, &child_required);
    }
  };
  for (const exec::WindowFunction& function : window.Functions()) {
    mark_all(function.arguments);
    mark_all(function.partition_keys);
    for (const exec::SortKey& key : function.order_keys) {
      MarkColumns(*key.expression, &child_required);
    }
  }
  Pruned child = Prune(plan->Inputs()[0], child_required);
  auto remap_all = [&](std::vector<BoundExprPtr>* expressions) {
    for (BoundExprPtr& e : *expressions) {
      e = RemapColumns(e, child.mapping);
    }
  };
  std::vector<exec::WindowFunction> functions = window.Functions();
  for (exec::WindowFunction& function : functions) {
    remap_all(&function.arguments);
    remap_all(&function.partition_keys);
    for (exec::SortKey& key : function.order_keys) {
      key.expression = RemapColumns(key.expression, child.mapping);
    }
  }
  const int new_inputs = child.plan->Schema()->NumFields();
  std::vector<int> mapping(child.mapping);
  for (int j = inputs; j < n; ++j) {
    mapping.push_back(new_inputs + (j - inputs));
  }
  return {window.With(child.plan, std::move(functions)), std::move(mapping)};
}

[[gnu::noinline]] Pruned PruneWatermark(const LogicalPlanPtr& plan, std::vector<bool> required,
                                        int /*n*/) {
  // The event-time column stays, read or not: the watermark is computed from it.
  const auto& watermark = plan->As<WatermarkNode>();
  required[static_cast<size_t>(watermark.EventTimeIndex())] = true;
  Pruned child = Prune(plan->Inputs()[0], std::move(required));
  const int event_time = child.mapping[static_cast<size_t>(watermark.EventTimeIndex())];
  return {watermark.With(child.plan, event_time), child.mapping};
}

[[gnu::noinline]] Pruned PruneUnion(const LogicalPlanPtr& plan,
                                    const std::vector<bool>& /*required*/, int n) {
  // Inputs line up by position: they keep every column (their insides still prune).
  std::vector<LogicalPlanPtr> inputs;
  for (const LogicalPlanPtr& input : plan->Inputs()) {
    Pruned child = PruneChildAll(input);
    inputs.push_back(child.plan);
  }
  return {plan->WithInputs(std::move(inputs)), Identity(n)};
}

Pruned Prune(const LogicalPlanPtr& plan, std::vector<bool> required) {
  const int n = plan->Schema()->NumFields();
  switch (plan->Kind()) {
    case PlanKind::kScan:
      return PruneScan(plan, std::move(required), n);
    case PlanKind::kFilter:
      return PruneFilter(plan, std::move(required), n);
    case PlanKind::kProject:
      return PruneProject(plan, std::move(required), n);
    case PlanKind::kAggregate:
      return PruneAggregate(plan, required, n);
    case PlanKind::kJoin:
      if (plan->As<JoinNode>().Execution()) {
        // A stream-stream join keeps both inputs' columns: they are its state's rows.
        return PruneUnion(plan, required, n);
      }
      return PruneJoin(plan, std::move(required), n);
    case PlanKind::kSort:
      return PruneSort(plan, std::move(required), n);
    case PlanKind::kLimit:
      return PruneLimit(plan, std::move(required), n);
    case PlanKind::kGenerate:
      return PruneGenerate(plan, std::move(required), n);
    case PlanKind::kUnion:
      return PruneUnion(plan, required, n);
    case PlanKind::kWatermark:
      return PruneWatermark(plan, std::move(required), n);
    case PlanKind::kDeduplicate:
      // A row's key needs every input column.
      return PruneUnion(plan, required, n);
    case PlanKind::kWindow:
      return PruneWindow(plan, std::move(required), n);
    case PlanKind::kExpand:
      return PruneExpand(plan, required, n);
  }
  return {plan, Identity(n)};
}

}  // namespace

Result<LogicalPlanPtr> Optimize(const LogicalPlanPtr& plan, const expr::EvalContext& context) {
  LogicalPlanPtr current = FoldConstants(plan, context);
  current = PushDown(current);
  current = LimitIntoSort(current);
  current = InferWindowGroupLimit(current);
  Pruned pruned = PruneChildAll(current);
  // With every output column required, each node keeps all of its outputs in order.
  return pruned.plan;
}

}  // namespace tributary::plan

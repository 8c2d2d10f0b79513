#include "streaming/stateful_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/ascii.h"
#include "exec/session_window.h"

namespace tributary::streaming {
namespace {

using EventTimes = std::vector<std::optional<EventTimeColumn>>;

/// Spark's window struct: struct<start: timestamp, end: timestamp>.
bool IsWindowType(const columnar::DataType& type) {
  if (type.Id() != columnar::TypeId::kStruct || type.Fields().size() != 2) {
    return false;
  }
  const auto& fields = type.Fields();
  return fields[0].Name() == "start" && fields[1].Name() == "end" &&
         fields[1].Type()->Id() == columnar::TypeId::kTimestamp;
}

/// The first column carrying a watermark (Spark's `output.find(_.metadata.contains(delayKey))`).
std::optional<int> FirstEventTime(const EventTimes& times) {
  for (size_t c = 0; c < times.size(); ++c) {
    if (times[c]) {
      return static_cast<int>(c);
    }
  }
  return std::nullopt;
}

void CollectColumns(const expr::BoundExpression& e, std::vector<int>* out) {
  if (e.GetOp() == expr::Op::kColumn) {
    out->push_back(e.Index());
    return;
  }
  for (const expr::BoundExprPtr& child : e.Children()) {
    CollectColumns(*child, out);
  }
}

/// The event time of a window struct (or windows) computed from `e`'s columns: a window of the
/// largest delay when every column `e` reads carries a watermark.
std::optional<EventTimeColumn> WindowEventTime(const expr::BoundExpression& e,
                                               const EventTimes& input) {
  std::vector<int> columns;
  CollectColumns(e, &columns);
  if (columns.empty()) {
    return std::nullopt;
  }
  EventTimeColumn window{0, true};
  for (int column : columns) {
    const std::optional<EventTimeColumn>& source = input[static_cast<size_t>(column)];
    if (!source) {
      return std::nullopt;
    }
    window.delay_micros = std::max(window.delay_micros, source->delay_micros);
  }
  return window;
}

/// The watermark an expression's value carries: a column passed through, or a window computed
/// from event-time columns only.
std::optional<EventTimeColumn> ExpressionEventTime(const expr::BoundExpression& e,
                                                   const EventTimes& input) {
  if (e.GetOp() == expr::Op::kColumn) {
    return input[static_cast<size_t>(e.Index())];
  }
  if (!IsWindowType(*e.Type())) {
    return std::nullopt;
  }
  return WindowEventTime(e, input);
}

bool IsStreamStreamJoin(const plan::LogicalPlan& node) {
  return node.Kind() == plan::PlanKind::kJoin && node.Input(0).IsStreaming() &&
         node.Input(1).IsStreaming();
}

bool IsStatefulOnStream(const plan::LogicalPlan& node) {
  switch (node.Kind()) {
    case plan::PlanKind::kAggregate:
    case plan::PlanKind::kDeduplicate:
      return node.Input().IsStreaming();
    case plan::PlanKind::kJoin:
      return IsStreamStreamJoin(node);
    default:
      return false;
  }
}

/// Whether `node` or a streaming node below it aggregates.
bool HasStreamingAggregate(const plan::LogicalPlan& node) {
  if (node.Kind() == plan::PlanKind::kAggregate && node.Input().IsStreaming()) {
    return true;
  }
  return std::any_of(node.Inputs().begin(), node.Inputs().end(),
                     [](const plan::LogicalPlanPtr& input) {
                       return input->IsStreaming() && HasStreamingAggregate(*input);
                     });
}

void CollectStateful(const plan::LogicalPlan& node, std::vector<const plan::LogicalPlan*>* out) {
  if (IsStatefulOnStream(node)) {
    out->push_back(&node);
  }
  for (const plan::LogicalPlanPtr& input : node.Inputs()) {
    if (input->IsStreaming()) {
      CollectStateful(*input, out);
    }
  }
}

bool HasEventTimeKey(const plan::AggregateNode& aggregate) {
  const EventTimes input = EventTimeColumns(aggregate.Input());
  return std::any_of(
      aggregate.Keys().begin(), aggregate.Keys().end(),
      [&](const expr::BoundExprPtr& key) { return ExpressionEventTime(*key, input).has_value(); });
}

bool IsSessionWindow(const expr::BoundExpression& e) {
  if (e.GetOp() == expr::Op::kFunction && EqualsIgnoreAsciiCase(e.Name(), "session_window")) {
    return true;
  }
  return std::any_of(e.Children().begin(), e.Children().end(),
                     [](const expr::BoundExprPtr& child) { return IsSessionWindow(*child); });
}

/// Spark's JoinType names, as its messages print them.
std::string_view SparkJoinTypeName(exec::JoinType type) {
  switch (type) {
    case exec::JoinType::kInner:
      return "Inner";
    case exec::JoinType::kLeft:
      return "LeftOuter";
    case exec::JoinType::kRight:
      return "RightOuter";
    case exec::JoinType::kFull:
      return "FullOuter";
    case exec::JoinType::kLeftSemi:
      return "LeftSemi";
    case exec::JoinType::kLeftAnti:
      return "LeftAnti";
    case exec::JoinType::kCross:
      return "Cross";
  }
  return "Inner";
}

/// Spark's OutputMode names in messages.
std::string_view SparkOutputModeName(exec::OutputMode mode) {
  switch (mode) {
    case exec::OutputMode::kAppend:
      return "Append";
    case exec::OutputMode::kUpdate:
      return "Update";
    case exec::OutputMode::kComplete:
      return "Complete";
  }
  return "Append";
}

/// One term of a join condition's sum (Spark's StreamingJoinHelper.collectTerms): a column of
/// left ++ right, or a constant in microseconds.
struct TimeTerm {
  std::optional<int> column;
  double constant_micros = 0;
  bool negated = false;
};

/// Appends the terms of `e` as a sum of columns and constants; false when it is not one
/// (another function, a cast to a non-numeric type, a null).
bool CollectTimeTerms(const expr::BoundExpression& e, bool negate, std::vector<TimeTerm>* out) {
  switch (e.GetOp()) {
    case expr::Op::kAdd:
      return CollectTimeTerms(e.Child(0), negate, out) && CollectTimeTerms(e.Child(1), negate, out);
    case expr::Op::kSubtract:
      return CollectTimeTerms(e.Child(0), negate, out) &&
             CollectTimeTerms(e.Child(1), !negate, out);
    case expr::Op::kNegate:
      return CollectTimeTerms(e.Child(0), !negate, out);
    case expr::Op::kCast:
    case expr::Op::kTryCast: {
      const columnar::TypeId to = e.Type()->Id();
      if (!e.Type()->IsNumeric() && to != columnar::TypeId::kTimestamp &&
          to != columnar::TypeId::kTimestampNtz) {
        return false;
      }
      return CollectTimeTerms(e.Child(0), negate, out);
    }
    case expr::Op::kColumn:
      out->push_back({e.Index(), 0, negate});
      return true;
    case expr::Op::kLiteral: {
      const expr::Scalar& literal = e.Literal();
      if (literal.IsNull()) {
        return false;
      }
      const columnar::DataType& type = *literal.Type();
      double micros = 0;
      if (type.Id() == columnar::TypeId::kDayTimeInterval ||
          type.Id() == columnar::TypeId::kTimestamp ||
          type.Id() == columnar::TypeId::kTimestampNtz) {
        micros = static_cast<double>(literal.IntValue());
      } else if (type.IsInteger()) {
        // Spark reads a plain number as seconds.
        micros = static_cast<double>(literal.IntValue()) * 1e6;
      } else if (type.IsFloatingPoint()) {
        micros = literal.DoubleValue() * 1e6;
      } else {
        return false;
      }
      out->push_back({std::nullopt, micros, negate});
      return true;
    }
    default:
      return false;
  }
}

/// Solves `less < greater` (`<=` when `inclusive`) for the time of `side` (columns
/// [begin, end) of left ++ right) from the other side's event-time columns `times` (Spark's
/// getStateWatermarkFromLessThenPredicate): the side's column must appear once, on the
/// greater side, the other side's at most once and with a watermark.
std::optional<JoinValueBound> SolveLessThan(const expr::BoundExpression& less,
                                            const expr::BoundExpression& greater, bool inclusive,
                                            int begin, int end, const EventTimes& times) {
  std::vector<TimeTerm> terms;
  if (!CollectTimeTerms(less, false, &terms) || !CollectTimeTerms(greater, true, &terms)) {
    return std::nullopt;
  }
  const TimeTerm* constraint = nullptr;
  std::optional<int> other_column;
  JoinValueBound bound;
  bound.inclusive = inclusive;
  for (const TimeTerm& term : terms) {
    if (!term.column) {
      bound.constant_micros += term.negated ? -term.constant_micros : term.constant_micros;
      continue;
    }
    const int column = *term.column;
    if (column >= begin && column < end) {
      if (constraint != nullptr) {
        return std::nullopt;
      }
      constraint = &term;
      continue;
    }
    // The other side: one column, replaced by the watermark, so it must carry one.
    if ((other_column && *other_column != column) || !times[static_cast<size_t>(column)]) {
      return std::nullopt;
    }
    other_column = column;
    bound.watermark_coefficient += term.negated ? -1.0 : 1.0;
  }
  // `-sideTime + rest < 0` bounds the side's time from below; `sideTime + rest < 0` does not.
  if (constraint == nullptr || !constraint->negated) {
    return std::nullopt;
  }
  return bound;
}

void SplitConjuncts(const expr::BoundExpression& e,
                    std::vector<const expr::BoundExpression*>* out) {
  if (e.GetOp() == expr::Op::kAnd) {
    SplitConjuncts(e.Child(0), out);
    SplitConjuncts(e.Child(1), out);
    return;
  }
  out->push_back(&e);
}

/// The bounds the join condition puts on `side`'s time from the other side's watermark (Spark's
/// getStateValueWatermark); none when the other side carries no watermark.
std::vector<JoinValueBound> JoinValueBounds(const plan::JoinNode& join, int side) {
  std::vector<JoinValueBound> bounds;
  if (join.Residual() == nullptr) {
    return bounds;
  }
  EventTimes times = EventTimeColumns(join.Input(0));
  const EventTimes right = EventTimeColumns(join.Input(1));
  const int num_left = static_cast<int>(times.size());
  times.insert(times.end(), right.begin(), right.end());
  const int begin = side == 0 ? 0 : num_left;
  const int end = side == 0 ? num_left : static_cast<int>(times.size());
  bool other_has_watermark = false;
  for (int c = 0; c < static_cast<int>(times.size()); ++c) {
    other_has_watermark =
        other_has_watermark || ((c < begin || c >= end) && times[static_cast<size_t>(c)]);
  }
  if (!other_has_watermark) {
    return bounds;
  }
  std::vector<const expr::BoundExpression*> conjuncts;
  SplitConjuncts(*join.Residual(), &conjuncts);
  for (const expr::BoundExpression* conjunct : conjuncts) {
    std::optional<JoinValueBound> bound;
    switch (conjunct->GetOp()) {
      case expr::Op::kLess:
        bound = SolveLessThan(conjunct->Child(0), conjunct->Child(1), false, begin, end, times);
        break;
      case expr::Op::kLessEqual:
        bound = SolveLessThan(conjunct->Child(0), conjunct->Child(1), true, begin, end, times);
        break;
      case expr::Op::kGreater:
        bound = SolveLessThan(conjunct->Child(1), conjunct->Child(0), false, begin, end, times);
        break;
      case expr::Op::kGreaterEqual:
        bound = SolveLessThan(conjunct->Child(1), conjunct->Child(0), true, begin, end, times);
        break;
      default:
        break;
    }
    if (bound) {
      bounds.push_back(*bound);
    }
  }
  return bounds;
}

/// The first join key (left keys first, then right) that is a column carrying a watermark
/// (Spark's findJoinKeyOrdinalForWatermark).
std::optional<int> WatermarkedJoinKey(const plan::JoinNode& join) {
  for (int side = 0; side < 2; ++side) {
    const EventTimes times = EventTimeColumns(join.Input(static_cast<size_t>(side)));
    const std::vector<expr::BoundExprPtr>& keys = side == 0 ? join.LeftKeys() : join.RightKeys();
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k]->GetOp() == expr::Op::kColumn &&
          times[static_cast<size_t>(keys[k]->Index())].has_value()) {
        return static_cast<int>(k);
      }
    }
  }
  return std::nullopt;
}

/// Spark's checks of a join of two streams.
Status CheckStreamStreamJoin(const plan::JoinNode& join, exec::OutputMode mode) {
  if (mode != exec::OutputMode::kAppend) {
    return Status::InvalidArgument(
        fmt::format("Join between two streaming DataFrames/Datasets is not supported in {} "
                    "output mode, only in Append output mode",
                    SparkOutputModeName(mode)));
  }
  const exec::JoinType type = join.Type();
  bool range = false;
  switch (type) {
    case exec::JoinType::kInner:
    case exec::JoinType::kCross:
      return Status::OK();
    case exec::JoinType::kLeftAnti:
      return Status::InvalidArgument(
          "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported");
    case exec::JoinType::kLeft:
    case exec::JoinType::kLeftSemi:
      range = !JoinValueBounds(join, 0).empty();
      break;
    case exec::JoinType::kRight:
      range = !JoinValueBounds(join, 1).empty();
      break;
    case exec::JoinType::kFull:
      range = !JoinValueBounds(join, 0).empty() || !JoinValueBounds(join, 1).empty();
      break;
  }
  if (!range && !WatermarkedJoinKey(join)) {
    return Status::InvalidArgument(fmt::format(
        "Stream-stream {} join between two streaming DataFrame/Datasets is not supported "
        "without a watermark in the join keys, or a watermark on the nullable side and an "
        "appropriate range condition",
        SparkJoinTypeName(type)));
  }
  return Status::OK();
}

/// The index of an aggregation's session_window(...) key, if it groups by one.
std::optional<int> SessionWindowKey(const plan::AggregateNode& aggregate) {
  for (size_t k = 0; k < aggregate.Keys().size(); ++k) {
    if (IsSessionWindow(*aggregate.Keys()[k])) {
      return static_cast<int>(k);
    }
  }
  return std::nullopt;
}

/// The checks of one node whose own rules do not depend on the rest of the plan.
Status CheckNode(const plan::LogicalPlan& plan, exec::OutputMode mode) {
  switch (plan.Kind()) {
    case plan::PlanKind::kAggregate: {
      if (!plan.Input().IsStreaming()) {
        return Status::OK();
      }
      const auto& aggregate = plan.As<plan::AggregateNode>();
      for (const exec::AggregateCall& call : aggregate.Aggregates()) {
        if (call.distinct) {
          return Status::InvalidArgument(
              "Distinct aggregations are not supported on streaming DataFrames/Datasets. "
              "Consider using approx_count_distinct() instead.");
        }
      }
      if (SessionWindowKey(aggregate)) {
        // Spark's UnsupportedOperationChecker, then its planner (AggUtils).
        if (mode == exec::OutputMode::kUpdate) {
          return Status::InvalidArgument(
              "Update output mode not supported for session window on streaming "
              "DataFrames/DataSets");
        }
        if (aggregate.Keys().size() == 1) {
          return Status::InvalidArgument(
              "Global aggregation with session window in streaming query is not supported.");
        }
      }
      if (mode == exec::OutputMode::kAppend && !HasEventTimeKey(aggregate)) {
        return Status::InvalidArgument(
            "Append output mode not supported when there are streaming aggregations on "
            "streaming DataFrames/DataSets without watermark (group by a window of, or the "
            "column of, a WithWatermark event time; or use the update or complete output "
            "mode)");
      }
      return Status::OK();
    }
    case plan::PlanKind::kDeduplicate: {
      const auto& dedup = plan.As<plan::DeduplicateNode>();
      if (dedup.WithinWatermark() && plan.Input().IsStreaming()) {
        const EventTimes input = EventTimeColumns(plan.Input());
        if (std::none_of(input.begin(), input.end(),
                         [](const auto& column) { return column.has_value(); })) {
          return Status::InvalidArgument(
              "dropDuplicatesWithinWatermark is not supported in streaming DataFrames/Datasets "
              "without watermark");
        }
      }
      return Status::OK();
    }
    case plan::PlanKind::kSort:
      if (mode != exec::OutputMode::kComplete || !HasStreamingAggregate(plan.Input())) {
        return Status::InvalidArgument(
            "Sorting is not supported on streaming DataFrames/Datasets, unless it is on "
            "aggregated DataFrame/Dataset in Complete output mode");
      }
      return Status::OK();
    case plan::PlanKind::kLimit:
      return Status::InvalidArgument("LIMIT is not supported on a streaming DataFrame");
    case plan::PlanKind::kWindow:
      if (!plan.Input().IsStreaming()) {
        return Status::OK();
      }
      // Spark's UnsupportedOperationChecker: OVER windows need the whole input.
      return Status::InvalidArgument(
          "Non-time-based windows are not supported on streaming DataFrames/Datasets");
    case plan::PlanKind::kJoin: {
      const auto& join = plan.As<plan::JoinNode>();
      const bool left = plan.Input(0).IsStreaming();
      const bool right = plan.Input(1).IsStreaming();
      if (left && right) {
        return CheckStreamStreamJoin(join, mode);
      }
      const exec::JoinType type = join.Type();
      const bool left_preserved_only =
          type == exec::JoinType::kInner || type == exec::JoinType::kCross ||
          type == exec::JoinType::kLeft || type == exec::JoinType::kLeftSemi ||
          type == exec::JoinType::kLeftAnti;
      const bool right_preserved_only = type == exec::JoinType::kInner ||
                                        type == exec::JoinType::kCross ||
                                        type == exec::JoinType::kRight;
      if ((left && !left_preserved_only) || (right && !right_preserved_only)) {
        return Status::InvalidArgument(fmt::format(
            "{} join with a streaming DataFrame on the {} side and a static one on the other "
            "is not supported (the static side's unmatched rows would depend on the whole "
            "stream)",
            exec::JoinTypeName(type), left ? "left" : "right"));
      }
      return Status::OK();
    }
    default:
      return Status::OK();
  }
}

Status CheckTree(const plan::LogicalPlan& plan, exec::OutputMode mode) {
  // Static inputs (the table of a stream-static join) may hold anything a batch query may.
  for (const plan::LogicalPlanPtr& input : plan.Inputs()) {
    if (input->IsStreaming()) {
      TRIBUTARY_RETURN_NOT_OK(CheckTree(*input, mode));
    }
  }
  return CheckNode(plan, mode);
}

std::string StatefulName(const plan::LogicalPlan& node) {
  if (node.Kind() == plan::PlanKind::kDeduplicate) {
    return node.As<plan::DeduplicateNode>().WithinWatermark() ? "dedupeWithinWatermark" : "dedupe";
  }
  if (node.Kind() == plan::PlanKind::kJoin) {
    return "symmetricHashJoin";
  }
  if (node.Kind() == plan::PlanKind::kAggregate &&
      SessionWindowKey(node.As<plan::AggregateNode>())) {
    return "sessionWindowStateStoreSaveExec";
  }
  return "stateStoreSave";
}

columnar::SchemaPtr FieldsAt(const columnar::Schema& schema, const std::vector<int>& columns) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (int column : columns) {
    fields.push_back(schema.FieldAt(column));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

class StatefulRewriter {
 public:
  explicit StatefulRewriter(exec::OutputMode mode) : mode_(mode) {}

  Result<plan::LogicalPlanPtr> Rewrite(const plan::LogicalPlanPtr& node) {
    if (!node->IsStreaming()) {
      return node;
    }
    // Pre-order: the operator gets its id before the ones below it (Spark's numbering).
    std::optional<size_t> slot;
    if (IsStatefulOnStream(*node)) {
      slot = result_.operators.size();
      result_.operators.emplace_back();
    }
    std::optional<size_t> watermark_slot;
    if (node->Kind() == plan::PlanKind::kWatermark) {
      watermark_slot = result_.watermarks.size();
      result_.watermarks.emplace_back();
    }
    std::vector<plan::LogicalPlanPtr> inputs;
    bool changed = false;
    for (const plan::LogicalPlanPtr& input : node->Inputs()) {
      TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr rewritten, Rewrite(input));
      changed = changed || rewritten != input;
      inputs.push_back(std::move(rewritten));
    }
    plan::LogicalPlanPtr current = changed ? node->WithInputs(inputs) : node;
    if (watermark_slot) {
      const auto& watermark = current->As<plan::WatermarkNode>();
      WatermarkPoint& point = result_.watermarks[*watermark_slot];
      point.delay_micros = watermark.DelayMicros();
      point.stats = std::make_shared<exec::EventTimeStats>();
      return watermark.WithStats(point.stats);
    }
    if (!slot) {
      return current;
    }
    StatefulOperator& op = result_.operators[*slot];
    op.name = StatefulName(*current);
    op.runtime = std::make_shared<exec::StatefulOperatorRuntime>();
    op.runtime->operator_id = static_cast<int64_t>(*slot);
    op.runtime->output_mode = mode_;
    if (current->Kind() == plan::PlanKind::kJoin) {
      return PlanJoin(current->As<plan::JoinNode>(), &op);
    }
    const EventTimes input_times = EventTimeColumns(current->Input());
    const columnar::Schema& input_schema = *current->Input().Schema();
    plan::StatefulExecution execution;
    execution.runtime = op.runtime;
    if (current->Kind() == plan::PlanKind::kDeduplicate) {
      const auto& dedup = current->As<plan::DeduplicateNode>();
      if (dedup.WithinWatermark()) {
        // The watermark's own column (not a window of it): the first one the input carries.
        for (size_t c = 0; c < input_times.size(); ++c) {
          if (input_times[c] && !input_times[c]->window) {
            execution.event_time = static_cast<int>(c);
            execution.delay_micros = input_times[c]->delay_micros;
            break;
          }
        }
      } else {
        for (int key : dedup.KeyColumns()) {
          if (input_times[static_cast<size_t>(key)]) {
            execution.event_time = key;
            execution.delay_micros = input_times[static_cast<size_t>(key)]->delay_micros;
            break;
          }
        }
      }
      op.key_schema = FieldsAt(input_schema, dedup.KeyColumns());
      // What exec/streaming_deduplicate.cc stores after the format byte: nothing, or for
      // dropDuplicatesWithinWatermark the expiry (Spark's expiresAtMicros).
      op.value_schema = std::make_shared<columnar::Schema>(
          dedup.WithinWatermark() ? std::vector<columnar::Field>{columnar::Field(
                                        "expiresAtMicros", columnar::DataType::Int64(), false)}
                                  : std::vector<columnar::Field>{});
      op.uses_watermark = execution.event_time.has_value();
      op.state_unbounded = !op.uses_watermark;
      return dedup.WithExecution(std::move(execution));
    }
    if (current->Kind() == plan::PlanKind::kAggregate) {
      const auto& aggregate = current->As<plan::AggregateNode>();
      for (size_t k = 0; k < aggregate.Keys().size(); ++k) {
        if (std::optional<EventTimeColumn> time =
                ExpressionEventTime(*aggregate.Keys()[k], input_times)) {
          execution.event_time = static_cast<int>(k);
          execution.delay_micros = time->delay_micros;
          break;
        }
      }
      std::vector<int> keys;
      std::vector<int> values;
      const int num_keys = static_cast<int>(aggregate.Keys().size());
      for (int c = 0; c < current->Schema()->NumFields(); ++c) {
        (c < num_keys ? keys : values).push_back(c);
      }
      op.key_schema = FieldsAt(*current->Schema(), keys);
      // What exec/stateful_aggregate.cc stores after the format byte: each aggregate's
      // serialized accumulator state, as a binary column named after the aggregate.
      std::vector<columnar::Field> states;
      states.reserve(values.size());
      for (int c : values) {
        states.emplace_back(current->Schema()->FieldAt(c).Name(), columnar::DataType::Binary(),
                            false);
      }
      op.value_schema = std::make_shared<columnar::Schema>(std::move(states));
      if (const std::optional<int> session = SessionWindowKey(aggregate)) {
        // exec/session_window.cc keeps one state row per key besides the session: its open
        // sessions with their rows' aggregate arguments.
        keys.erase(keys.begin() + *session);
        op.key_schema = FieldsAt(*current->Schema(), keys);
        const columnar::DataTypePtr& session_type = current->Schema()->FieldAt(*session).Type();
        op.value_schema =
            std::make_shared<columnar::Schema>(std::vector<columnar::Field>{columnar::Field(
                "sessions", exec::SessionWindowStateType(session_type->Fields()[0].Type()),
                false)});
      }
      // Complete mode keeps every group: the watermark only drops late rows.
      op.uses_watermark = execution.event_time.has_value() && mode_ != exec::OutputMode::kComplete;
      op.state_unbounded = !op.uses_watermark;
      return aggregate.WithExecution(std::move(execution));
    }
    return Status::NotImplemented(
        fmt::format("stateful operator {} on a stream", current->ToString()));
  }

  /// A join of two streams: the key its state is partitioned by, each side's rows as values.
  static plan::LogicalPlanPtr PlanJoin(const plan::JoinNode& join, StatefulOperator* op) {
    JoinWatermarks watermarks = PlanJoinWatermarks(join);
    plan::StreamJoinExecution execution;
    execution.runtime = op->runtime;
    execution.eviction = watermarks.eviction;
    for (size_t side = 0; side < 2; ++side) {
      execution.late_event_time_columns[side] = FirstEventTime(EventTimeColumns(join.Input(side)));
    }
    std::vector<columnar::Field> keys;
    keys.reserve(join.LeftKeys().size());
    for (size_t k = 0; k < join.LeftKeys().size(); ++k) {
      const expr::BoundExpression& key = *join.LeftKeys()[k];
      keys.emplace_back(key.GetOp() == expr::Op::kColumn
                            ? join.Input(0).Schema()->FieldAt(key.Index()).Name()
                            : fmt::format("key{}", k),
                        key.Type(), true);
    }
    op->key_schema = std::make_shared<columnar::Schema>(std::move(keys));
    // What exec/streaming_join.cc stores per row (after its format and matched bytes): the
    // side's input row.
    op->value_schema = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{
        columnar::Field("left", columnar::DataType::Struct(join.Input(0).Schema()->Fields()), true),
        columnar::Field("right", columnar::DataType::Struct(join.Input(1).Schema()->Fields()),
                        true)});
    const auto evicts = [](const exec::JoinStateEviction& eviction) {
      return eviction.kind != exec::JoinStateEviction::Kind::kNone;
    };
    op->uses_watermark =
        std::any_of(watermarks.eviction.begin(), watermarks.eviction.end(), evicts);
    // Spark's warning case: a side nothing evicts keeps every row it ever read.
    op->state_unbounded =
        !std::all_of(watermarks.eviction.begin(), watermarks.eviction.end(), evicts);
    op->join = std::move(watermarks);
    return join.WithExecution(std::move(execution));
  }

  StatefulPlan Take(plan::LogicalPlanPtr plan) {
    result_.plan = std::move(plan);
    return std::move(result_);
  }

 private:
  exec::OutputMode mode_;
  StatefulPlan result_;
};

}  // namespace

Result<exec::OutputMode> ParseOutputMode(std::string_view text) {
  const std::string mode = AsciiLower(text);
  if (mode == "append") {
    return exec::OutputMode::kAppend;
  }
  if (mode == "update") {
    return exec::OutputMode::kUpdate;
  }
  if (mode == "complete") {
    return exec::OutputMode::kComplete;
  }
  return Status::InvalidArgument(fmt::format(
      "Unknown output mode {}. Accepted output modes are 'append', 'complete', 'update'", text));
}

EventTimes EventTimeColumns(const plan::LogicalPlan& plan) {
  const size_t n = static_cast<size_t>(plan.Schema()->NumFields());
  switch (plan.Kind()) {
    case plan::PlanKind::kScan:
      return EventTimes(n);
    case plan::PlanKind::kWatermark: {
      EventTimes times = EventTimeColumns(plan.Input());
      const auto& watermark = plan.As<plan::WatermarkNode>();
      const int column = watermark.EventTimeIndex();
      times[static_cast<size_t>(column)] =
          EventTimeColumn{watermark.DelayMicros(),
                          plan.Schema()->FieldAt(column).Type()->Id() == columnar::TypeId::kStruct};
      return times;
    }
    case plan::PlanKind::kFilter:
    case plan::PlanKind::kSort:
    case plan::PlanKind::kLimit:
    case plan::PlanKind::kDeduplicate:
      return EventTimeColumns(plan.Input());
    case plan::PlanKind::kWindow: {
      EventTimes times = EventTimeColumns(plan.Input());
      times.resize(n);
      return times;
    }
    case plan::PlanKind::kProject: {
      const EventTimes input = EventTimeColumns(plan.Input());
      EventTimes times;
      times.reserve(n);
      for (const expr::BoundExprPtr& e : plan.As<plan::ProjectNode>().Expressions()) {
        times.push_back(ExpressionEventTime(*e, input));
      }
      return times;
    }
    case plan::PlanKind::kAggregate: {
      const EventTimes input = EventTimeColumns(plan.Input());
      const std::vector<expr::BoundExprPtr>& keys = plan.As<plan::AggregateNode>().Keys();
      EventTimes times(n);
      for (size_t k = 0; k < keys.size() && k < n; ++k) {
        times[k] = ExpressionEventTime(*keys[k], input);
      }
      return times;
    }
    case plan::PlanKind::kJoin: {
      EventTimes times = EventTimeColumns(plan.Input(0));
      const EventTimes right = EventTimeColumns(plan.Input(1));
      times.insert(times.end(), right.begin(), right.end());
      times.resize(n);
      return times;
    }
    case plan::PlanKind::kGenerate: {
      const EventTimes input = EventTimeColumns(plan.Input());
      EventTimes times = input;
      times.resize(n);
      // A sliding window (explode of time_windows(ts, ...), plan_builder's TimeWindowing) has
      // the watermark of its time column, as Spark's TimeWindowing marks it.
      const expr::BoundExpression& collection = *plan.As<plan::GenerateNode>().Spec().collection;
      for (size_t c = input.size(); c < n; ++c) {
        if (IsWindowType(*plan.Schema()->FieldAt(static_cast<int>(c)).Type())) {
          times[c] = WindowEventTime(collection, input);
        }
      }
      return times;
    }
    case plan::PlanKind::kExpand: {
      // As a union of projections: a column carries a watermark when every projection's does.
      const EventTimes input = EventTimeColumns(plan.Input());
      const auto& projections = plan.As<plan::ExpandNode>().Projections();
      EventTimes times(n);
      for (size_t c = 0; c < n; ++c) {
        times[c] = ExpressionEventTime(*projections.front()[c], input);
        for (const std::vector<expr::BoundExprPtr>& projection : projections) {
          if (!ExpressionEventTime(*projection[c], input)) {
            times[c].reset();
          }
        }
      }
      return times;
    }
    case plan::PlanKind::kUnion: {
      // A column carries a watermark only when it does in every input.
      EventTimes times = EventTimeColumns(plan.Input(0));
      for (size_t i = 1; i < plan.Inputs().size(); ++i) {
        const EventTimes other = EventTimeColumns(plan.Input(i));
        for (size_t c = 0; c < n; ++c) {
          if (!other[c]) {
            times[c].reset();
          }
        }
      }
      return times;
    }
  }
  return EventTimes(n);
}

Status CheckStreamingPlan(const plan::LogicalPlan& plan, exec::OutputMode mode) {
  if (!plan.IsStreaming()) {
    return Status::InvalidArgument(
        "WriteStream can be called only on a streaming DataFrame (from ReadStream); use Write "
        "for a batch DataFrame");
  }
  TRIBUTARY_RETURN_NOT_OK(CheckTree(plan, mode));
  if (mode == exec::OutputMode::kComplete && !HasStreamingAggregate(plan)) {
    return Status::InvalidArgument(
        "Complete output mode not supported when there are no streaming aggregations on "
        "streaming DataFrames/Datasets");
  }
  std::vector<const plan::LogicalPlan*> stateful;
  CollectStateful(plan, &stateful);
  if (stateful.size() > 1 && mode != exec::OutputMode::kAppend) {
    std::string names;
    for (const plan::LogicalPlan* node : stateful) {
      names += (names.empty() ? "" : ", ") + StatefulName(*node);
    }
    return Status::InvalidArgument(fmt::format(
        "Multiple stateful operators on streaming DataFrames/Datasets are supported only in "
        "Append output mode, not {} (found: {})",
        OutputModeName(mode), names));
  }
  return Status::OK();
}

Result<StatefulPlan> PlanStatefulOperators(const plan::LogicalPlanPtr& plan,
                                           exec::OutputMode mode) {
  StatefulRewriter rewriter(mode);
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr rewritten, rewriter.Rewrite(plan));
  return rewriter.Take(std::move(rewritten));
}

JoinWatermarks PlanJoinWatermarks(const plan::JoinNode& join) {
  JoinWatermarks result;
  const std::optional<int> key = WatermarkedJoinKey(join);
  for (size_t side = 0; side < 2; ++side) {
    exec::JoinStateEviction& eviction = result.eviction[side];
    if (key) {
      // A watermarked key bounds both sides: the other side's equal key is as old.
      const std::vector<expr::BoundExprPtr>& keys = side == 0 ? join.LeftKeys() : join.RightKeys();
      eviction.kind = exec::JoinStateEviction::Kind::kKey;
      eviction.column = *key;
      eviction.window = IsWindowType(*keys[static_cast<size_t>(*key)]->Type());
      continue;
    }
    const EventTimes times = EventTimeColumns(join.Input(side));
    const std::optional<int> column = FirstEventTime(times);
    if (!column) {
      continue;
    }
    std::vector<JoinValueBound> bounds = JoinValueBounds(join, static_cast<int>(side));
    if (bounds.empty()) {
      continue;
    }
    eviction.kind = exec::JoinStateEviction::Kind::kValue;
    eviction.column = *column;
    eviction.window = times[static_cast<size_t>(*column)]->window;
    result.value_bounds[side] = std::move(bounds);
  }
  return result;
}

std::optional<int64_t> StateValueWatermarkMs(const std::vector<JoinValueBound>& bounds,
                                             int64_t watermark_ms) {
  std::optional<int64_t> result;
  for (const JoinValueBound& bound : bounds) {
    const double micros =
        bound.watermark_coefficient * (static_cast<double>(watermark_ms) * 1000.0) +
        bound.constant_micros;
    // Scala's Double.toLong: toward zero, saturating.
    const double truncated = std::trunc(micros / 1000.0);
    int64_t ms = 0;
    if (truncated >= 9.2233720368547758e18) {
      ms = std::numeric_limits<int64_t>::max();
    } else if (truncated <= -9.2233720368547758e18) {
      ms = std::numeric_limits<int64_t>::min();
    } else {
      ms = static_cast<int64_t>(truncated);
    }
    // The state watermark removes rows at or below it: a bound a row may equal is one lower.
    if (bound.inclusive && ms != std::numeric_limits<int64_t>::min()) {
      --ms;
    }
    result = result ? std::min(*result, ms) : ms;
  }
  return result;
}

std::array<std::optional<int64_t>, 2> JoinStateWatermarksMs(const JoinWatermarks& join,
                                                            int64_t input_watermark_ms) {
  std::array<std::optional<int64_t>, 2> result;
  for (size_t side = 0; side < 2; ++side) {
    switch (join.eviction[side].kind) {
      case exec::JoinStateEviction::Kind::kNone:
        break;
      case exec::JoinStateEviction::Kind::kKey:
        result[side] = input_watermark_ms;
        break;
      case exec::JoinStateEviction::Kind::kValue:
        result[side] = StateValueWatermarkMs(join.value_bounds[side], input_watermark_ms);
        break;
    }
  }
  return result;
}

namespace {

/// PropagateWatermarks' walk, inputs before the node (Spark's post-order simulation).
class WatermarkPropagation {
 public:
  WatermarkPropagation(const StatefulPlan& plan, int64_t global_ms)
      : plan_(plan), global_ms_(global_ms), inputs_(plan.operators.size()) {}

  /// The watermark `node` outputs; none when no watermark reaches it.
  std::optional<int64_t> Output(const plan::LogicalPlan& node) {
    if (!node.IsStreaming()) {
      return std::nullopt;
    }
    std::optional<int64_t> input;
    for (const plan::LogicalPlanPtr& child : node.Inputs()) {
      const std::optional<int64_t> output = Output(*child);
      if (output) {
        input = input ? std::min(*input, *output) : *output;
      }
    }
    if (node.Kind() == plan::PlanKind::kWatermark) {
      return global_ms_;
    }
    const std::optional<int64_t> id = OperatorId(node);
    if (!id || static_cast<size_t>(*id) >= inputs_.size()) {
      return input;
    }
    inputs_[static_cast<size_t>(*id)] = input;
    const StatefulOperator& op = plan_.operators[static_cast<size_t>(*id)];
    if (!op.join || !input) {
      return input;
    }
    std::optional<int64_t> output;
    for (const std::optional<int64_t>& state : JoinStateWatermarksMs(*op.join, *input)) {
      if (state) {
        output = output ? std::min(*output, *state) : *state;
      }
    }
    return output ? output : input;
  }

  std::vector<std::optional<int64_t>> Take() { return std::move(inputs_); }

 private:
  static std::optional<int64_t> OperatorId(const plan::LogicalPlan& node) {
    const exec::StatefulOperatorRuntime* runtime = nullptr;
    switch (node.Kind()) {
      case plan::PlanKind::kAggregate:
        if (const auto& execution = node.As<plan::AggregateNode>().Execution()) {
          runtime = execution->runtime.get();
        }
        break;
      case plan::PlanKind::kDeduplicate:
        if (const auto& execution = node.As<plan::DeduplicateNode>().Execution()) {
          runtime = execution->runtime.get();
        }
        break;
      case plan::PlanKind::kJoin:
        if (const auto& execution = node.As<plan::JoinNode>().Execution()) {
          runtime = execution->runtime.get();
        }
        break;
      default:
        break;
    }
    return runtime == nullptr ? std::nullopt : std::optional<int64_t>(runtime->operator_id);
  }

  const StatefulPlan& plan_;
  int64_t global_ms_;
  std::vector<std::optional<int64_t>> inputs_;
};

}  // namespace

std::vector<std::optional<int64_t>> PropagateWatermarks(const StatefulPlan& plan,
                                                        int64_t global_ms) {
  WatermarkPropagation propagation(plan, global_ms);
  (void)propagation.Output(*plan.plan);
  return propagation.Take();
}

void SetOperatorWatermarks(const StatefulPlan& plan, std::optional<int64_t> late_rows_ms,
                           std::optional<int64_t> eviction_ms) {
  const size_t n = plan.operators.size();
  const std::vector<std::optional<int64_t>> late = late_rows_ms
                                                       ? PropagateWatermarks(plan, *late_rows_ms)
                                                       : std::vector<std::optional<int64_t>>(n);
  const std::vector<std::optional<int64_t>> eviction = eviction_ms
                                                           ? PropagateWatermarks(plan, *eviction_ms)
                                                           : std::vector<std::optional<int64_t>>(n);
  auto micros = [](std::optional<int64_t> ms) {
    return ms ? std::optional<int64_t>(*ms * 1000) : std::nullopt;
  };
  for (size_t id = 0; id < n; ++id) {
    const StatefulOperator& op = plan.operators[id];
    exec::StatefulOperatorRuntime& runtime = *op.runtime;
    runtime.late_rows_watermark_micros = micros(late[id]);
    runtime.eviction_watermark_micros = micros(eviction[id]);
    runtime.join_state_watermark_micros = {};
    if (op.join && eviction[id]) {
      const std::array<std::optional<int64_t>, 2> states =
          JoinStateWatermarksMs(*op.join, *eviction[id]);
      for (size_t side = 0; side < 2; ++side) {
        runtime.join_state_watermark_micros[side] = micros(states[side]);
      }
    }
  }
}

bool WatermarkAdvancesState(const StatefulPlan& plan, int64_t previous_ms, int64_t next_ms) {
  const std::vector<std::optional<int64_t>> before = PropagateWatermarks(plan, previous_ms);
  const std::vector<std::optional<int64_t>> after = PropagateWatermarks(plan, next_ms);
  for (size_t id = 0; id < plan.operators.size(); ++id) {
    if (plan.operators[id].uses_watermark && after[id] &&
        (!before[id] || *after[id] > *before[id])) {
      return true;
    }
  }
  return false;
}

}  // namespace tributary::streaming

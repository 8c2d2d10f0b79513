#include "streaming/stateful_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/ascii.h"

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

void CollectColumns(const expr::BoundExpression& e, std::vector<int>* out) {
  if (e.GetOp() == expr::Op::kColumn) {
    out->push_back(e.Index());
    return;
  }
  for (const expr::BoundExprPtr& child : e.Children()) {
    CollectColumns(*child, out);
  }
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
      for (const expr::BoundExprPtr& key : aggregate.Keys()) {
        if (IsSessionWindow(*key)) {
          return Status::NotImplemented(
              "session windows on streaming DataFrames are not implemented yet (tumbling and "
              "sliding window() are)");
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
    case plan::PlanKind::kJoin: {
      const auto& join = plan.As<plan::JoinNode>();
      const bool left = plan.Input(0).IsStreaming();
      const bool right = plan.Input(1).IsStreaming();
      if (left && right) {
        return Status::NotImplemented(
            "stream-stream joins are not implemented yet (stream-static joins are)");
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
      // Complete mode keeps every group: the watermark only drops late rows.
      op.uses_watermark = execution.event_time.has_value() && mode_ != exec::OutputMode::kComplete;
      return aggregate.WithExecution(std::move(execution));
    }
    return Status::NotImplemented(
        fmt::format("stateful operator {} on a stream", current->ToString()));
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
      EventTimes times = EventTimeColumns(plan.Input());
      times.resize(n);
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

}  // namespace tributary::streaming

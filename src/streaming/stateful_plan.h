// What a streaming query's plan may contain for an output mode (Spark's
// UnsupportedOperationChecker, for the operators tributary has), and the rewrite that turns its
// stateful parts into operators with state: each streaming aggregation and deduplication gets
// an operator id and a runtime the engine fills per batch, each withWatermark point a
// statistics object the engine reads after the batch.
//
// Event time: a column carries a watermark when it is the column of a withWatermark below it,
// passed through unchanged, or a window struct computed from such a column (Spark marks these
// with the watermark delay metadata). An aggregation whose keys include one can emit and evict
// by the watermark; so can a deduplication keyed on one.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/event_time_watermark.h"
#include "exec/stateful_operator.h"
#include "plan/logical_plan.h"

namespace tributary::streaming {

/// "append", "update" or "complete", any case; InvalidArgument with Spark's message otherwise.
Result<exec::OutputMode> ParseOutputMode(std::string_view text);

/// A column that carries a watermark.
struct EventTimeColumn {
  int64_t delay_micros = 0;
  /// A window struct <start, end> of the event time (judged by its end).
  bool window = false;
};

/// Per output column of `plan`, whether it carries a watermark.
std::vector<std::optional<EventTimeColumn>> EventTimeColumns(const plan::LogicalPlan& plan);

/// Checks that `plan` can run as a streaming query in `mode`: it reads a stream; aggregations
/// run in update and complete mode, and in append mode only grouped by an event-time column
/// with a watermark (or a window of it); complete mode needs an aggregation; sorting only
/// after an aggregation in complete mode; several stateful operators only in append mode; no
/// distinct aggregates, LIMIT, stream-stream joins or session windows (not implemented);
/// stream-static joins keep the stream on the preserved side. InvalidArgument with Spark's
/// wording, NotImplemented for what tributary lacks.
Status CheckStreamingPlan(const plan::LogicalPlan& plan,
                          exec::OutputMode mode = exec::OutputMode::kAppend);

/// One stateful operator of a started query.
struct StatefulOperator {
  /// Spark's progress names: "stateStoreSave" (aggregation), "dedupe",
  /// "dedupeWithinWatermark".
  std::string name;
  std::shared_ptr<exec::StatefulOperatorRuntime> runtime;
  /// The schemas recorded in state/<id>/_metadata: the key columns, and the values kept per
  /// key (an aggregation's aggregate columns; a deduplication's event time, if any).
  columnar::SchemaPtr key_schema;
  columnar::SchemaPtr value_schema;
  /// Whether the operator's state can shrink or emit when the watermark moves (a no-data batch
  /// is then worth running).
  bool uses_watermark = false;
};

/// One withWatermark point of a started query.
struct WatermarkPoint {
  int64_t delay_micros = 0;
  std::shared_ptr<exec::EventTimeStats> stats;
};

/// A checked plan with its stateful operators in place.
struct StatefulPlan {
  plan::LogicalPlanPtr plan;
  /// Index = operator id: depth first from the root, inputs left to right (Spark's numbering).
  std::vector<StatefulOperator> operators;
  /// In plan order.
  std::vector<WatermarkPoint> watermarks;
};

/// Rewrites `plan` (checked) for `mode`: streaming aggregations and deduplications get their
/// StatefulExecution, each with a new runtime; withWatermark
/// points get statistics. Static subtrees are left alone.
Result<StatefulPlan> PlanStatefulOperators(const plan::LogicalPlanPtr& plan, exec::OutputMode mode);

}  // namespace tributary::streaming

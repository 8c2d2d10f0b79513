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

#include <array>
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
/// distinct aggregates or LIMIT; a session window needs another grouping key and append or
/// complete mode; stream-static joins keep the stream on the preserved side; stream-stream
/// joins run in append mode only, and an outer or semi one needs a watermarked join key or a
/// time-range condition bounding the preserved side by the other side's watermark (Spark's
/// checkForStreamStreamJoinWatermark).
/// InvalidArgument with Spark's wording, NotImplemented for what tributary lacks.
Status CheckStreamingPlan(const plan::LogicalPlan& plan,
                          exec::OutputMode mode = exec::OutputMode::kAppend);

/// One conjunct of a stream-stream join's condition, `leftTime + c1 <op> rightTime + c2` (any
/// arrangement of sums and differences of one column of each side and constants), solved for
/// one side's time given the other side's watermark W (Spark's StreamingJoinHelper): the
/// side's time must exceed coefficient * W + constant, so its state at or below that value
/// can never match again.
struct JoinValueBound {
  /// How often the other side's watermark counts: 1, -1, or 0 when the conjunct bounds the
  /// side by a constant.
  double watermark_coefficient = 0;
  double constant_micros = 0;
  /// From `<=`/`>=`: a row exactly at the bound may still match.
  bool inclusive = false;
};

/// How a stream-stream join's state watermarks follow from its input watermark (Spark's
/// StreamingSymmetricHashJoinHelper.getStateWatermarkPredicates): when a join key carries a
/// watermark, both sides evict by that key at the input watermark; otherwise a side with an
/// event-time column evicts by it at the lowest value its condition bounds give.
struct JoinWatermarks {
  std::array<exec::JoinStateEviction, 2> eviction;
  /// Per side, for kValue: the bounds the condition puts on the side's time.
  std::array<std::vector<JoinValueBound>, 2> value_bounds;
};

/// The eviction of each side of `join` (a join of two streams).
JoinWatermarks PlanJoinWatermarks(const plan::JoinNode& join);

/// Spark's getStateValueWatermark for one side: the minimum over `bounds` of the value each
/// gives for the other side's watermark `watermark_ms`, in milliseconds as Spark computes it
/// (the sum in double microseconds, divided by 1000 and truncated toward zero; one less for an
/// inclusive bound). None without bounds.
std::optional<int64_t> StateValueWatermarkMs(const std::vector<JoinValueBound>& bounds,
                                             int64_t watermark_ms);

/// Spark's getStateWatermark: per side (0 left, 1 right) the state watermark (ms) for the
/// join's input watermark; none for a side that keeps its state.
std::array<std::optional<int64_t>, 2> JoinStateWatermarksMs(const JoinWatermarks& join,
                                                            int64_t input_watermark_ms);

/// One stateful operator of a started query.
struct StatefulOperator {
  /// Spark's progress names: "stateStoreSave" (aggregation), "dedupe",
  /// "dedupeWithinWatermark", "symmetricHashJoin", "sessionWindowStateStoreSaveExec"
  /// (an aggregation grouped by a session window).
  std::string name;
  std::shared_ptr<exec::StatefulOperatorRuntime> runtime;
  /// The schemas recorded in state/<id>/_metadata: the key columns, and the values kept per
  /// key (an aggregation's aggregate columns; a deduplication's event time, if any).
  columnar::SchemaPtr key_schema;
  columnar::SchemaPtr value_schema;
  /// Whether the operator's state can shrink or emit when the watermark moves (a no-data batch
  /// is then worth running).
  bool uses_watermark = false;
  /// Whether some of its state is never removed, so it grows with the input for as long as the
  /// query runs: a deduplication or aggregation without an event-time key, an aggregation in
  /// complete mode, a stream-stream join with a side no watermark evicts. Progress says so
  /// (customMetrics stateGrowsWithoutBound = 1): unbounded state is easy to miss until memory
  /// or disk runs out.
  bool state_unbounded = false;
  /// A stream-stream join: how its state watermarks follow from its input watermark.
  std::optional<JoinWatermarks> join;
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
/// StatefulExecution, joins of two streams their StreamJoinExecution, each with a new runtime;
/// withWatermark points get statistics. Static subtrees are left alone.
Result<StatefulPlan> PlanStatefulOperators(const plan::LogicalPlanPtr& plan, exec::OutputMode mode);

/// Spark 3.5's watermark propagation between stateful operators (PropagateWatermarkSimulator)
/// for a batch whose global watermark is `global_ms`: per operator (index = id), its input
/// watermark, the minimum of what its inputs output. A withWatermark point outputs the global
/// watermark; an aggregation or deduplication outputs its input watermark; a join the minimum
/// of its state watermarks, or its input watermark when it has none; any other node the
/// minimum over its inputs. None for an operator no watermark reaches.
std::vector<std::optional<int64_t>> PropagateWatermarks(const StatefulPlan& plan,
                                                        int64_t global_ms);

/// Sets every operator's watermarks for a batch from the global ones, each propagated:
/// late_rows_watermark_micros from `late_rows_ms` (the previous batch's; none before the
/// first), eviction_watermark_micros from `eviction_ms` (this batch's), and a join's
/// join_state_watermark_micros from its eviction input watermark.
void SetOperatorWatermarks(const StatefulPlan& plan, std::optional<int64_t> late_rows_ms,
                           std::optional<int64_t> eviction_ms);

/// Whether moving the global watermark from `previous_ms` to `next_ms` raises the input
/// watermark of an operator that emits or evicts by it (Spark's shouldRunAnotherBatch).
bool WatermarkAdvancesState(const StatefulPlan& plan, int64_t previous_ms, int64_t next_ms);

}  // namespace tributary::streaming

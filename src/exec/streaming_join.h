// Stream-stream join: Spark's StreamingSymmetricHashJoinExec. Both inputs' rows are kept in
// the operator's state stores across micro-batches; each new row of one side is joined with
// the other side's state, and state the watermark has made useless is dropped, emitting the
// outer join's unmatched rows when their match can no longer arrive.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// Spark's progress name of the operator.
inline constexpr std::string_view kStreamingJoinOperatorName = "symmetricHashJoin";

/// One micro-batch of a stream-stream join (the node's kInner, kLeft, kRight, kFull or
/// kLeftSemi; others are InvalidArgument). Per batch, with the node's runtime:
///  - each side's rows whose late event-time column is older than late_rows_watermark_micros
///    are dropped first and counted in num_rows_dropped_by_watermark;
///  - the left input is joined with the right state (key equality, NULL keys never match, then
///    the residual over left ++ right); each row is stored with whether it matched, unless it
///    is already at or below the left state watermark (or, left semi, it matched: it was
///    emitted, once, at its first match);
///  - the right input is joined likewise with the left state, which holds this batch's left
///    rows; the state rows it matches are marked matched (left semi: a left row already
///    matched is not emitted again);
///  - each side's state at or below its join_state_watermark_micros (by key or value, per the
///    node's eviction) is removed; an outer side's removed rows that never matched are emitted
///    with NULLs for the other side, each exactly once over the query's life.
/// Output: the node's schema; joined pairs of the left input, then of the right input, then
/// the outer rows. Metrics: num_rows_total (state rows of both sides after the batch),
/// num_rows_updated (rows stored), num_rows_removed (rows evicted), dropped by watermark, times.
/// Errors: InvalidArgument for a bad node or a runtime without partitions, Corruption for
/// state it cannot read.
class StreamingJoinOperator final : public Operator {
 public:
  StreamingJoinOperator(std::shared_ptr<const StreamingJoinNode> node, OperatorPtr left,
                        OperatorPtr right, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {left_.get(), right_.get()}; }

 private:
  /// What changes during the batch: whether the inputs are done, and the rows waiting to be
  /// returned.
  struct State {
    bool started = false;
    bool left_done = false;
    bool right_done = false;
    bool evicted = false;
    std::vector<RecordBatchPtr> pending;
  };

  std::shared_ptr<const StreamingJoinNode> node_;
  OperatorPtr left_;
  OperatorPtr right_;
  const ExecContext& context_;
  State state_;
};

}  // namespace tributary::exec

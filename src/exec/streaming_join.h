// Stream-stream join: Spark's StreamingSymmetricHashJoinExec. Both inputs' rows are kept in
// the operator's state stores across micro-batches; each new row of one side is joined with
// the other side's state, and state the watermark has made useless is dropped, emitting the
// outer join's unmatched rows when their match can no longer arrive.

#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// Spark's progress name of the operator.
inline constexpr std::string_view kStreamingJoinOperatorName = "symmetricHashJoin";

/// A stream-stream join's state kept in memory from one micro-batch to the next (in its
/// runtime), so a batch probes, appends and evicts rows without reading the stores; it still
/// writes every change to them, entry for entry as without it. A copy of the stores' rows at
/// one version, used only by the batch that loads that version: any other (a re-run after a
/// failure, a restart) rebuilds it with one scan of each partition. Dropped for good once it
/// outgrows kStateCacheMaxBytes.
struct JoinStateCache {
  /// Per side (0 left, 1 right): the key's row entries' values as stored (format, matched,
  /// row), by index.
  using KeyRows = std::array<std::vector<std::string>, 2>;
  /// What a key costs beside its bytes: a std::map node and the vectors' headers.
  static constexpr int64_t kKeyOverhead = 128;
  /// What a row costs beside its value bytes: a string header.
  static constexpr int64_t kRowOverhead = 32;
  /// The store version the rows are; -1 while a batch changes them (stale if it fails).
  int64_t version = -1;
  /// Set once the state outgrew kStateCacheMaxBytes: never rebuilt again.
  bool disabled = false;
  /// Per partition: grouping-encoded join key -> its rows, in key byte order.
  std::vector<std::map<std::string, KeyRows, std::less<>>> partitions;
  /// Keys, values and overheads.
  int64_t bytes = 0;
};

/// One micro-batch of a stream-stream join (the node's kInner, kLeft, kRight, kFull or
/// kLeftSemi; others are InvalidArgument). Per batch, with the node's runtime:
///  - each side's rows whose late event-time column is at or before late_rows_watermark_micros
///    are dropped first and counted in num_rows_dropped_by_watermark;
///  - the left input is joined with the right state: equal keys (a NULL in a key never
///    matches), then the residual over left ++ right; the right state rows it matches are
///    marked matched. Each left row is stored with whether it matched, even when already at
///    or below the left state watermark (this batch's right rows have not met it yet; Spark
///    4.0's rule, SPARK-49829), except that left semi emits a matched left row once, at once,
///    and does not store it;
///  - the right input is joined likewise with the left state, which now holds this batch's
///    left rows (left semi: emits each left state row at its first match only). A right row
///    is stored unless its state is removed in this batch, where an unmatched row of an outer
///    right side is still stored so that the removal emits it;
///  - each side's state at or below its join_state_watermark_micros (by key or value, per the
///    node's eviction) is removed; an outer side's removed rows that never matched are emitted
///    with NULLs for the other side, each exactly once over the query's life.
/// Rows with a NULL key are stored only on outer sides (they are emitted when evicted).
/// Output: the node's schema; joined pairs of the left input, then of the right input, then
/// the left side's outer rows, then the right side's. Metrics: num_rows_total (rows of both
/// sides in state after the batch, as Spark counts keyWithIndexToValue's keys),
/// num_rows_updated (rows stored), num_rows_removed (rows evicted), dropped by watermark, times.
/// With a runtime state_version the rows also live in runtime.join_cache across batches.
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
  /// Which input the batch is consuming.
  enum class Phase { kLeft, kRight, kDone };
  /// What changes during the batch: the phase and the output batches waiting to be returned.
  struct State {
    bool started = false;
    Phase phase = Phase::kLeft;
    std::vector<RecordBatchPtr> pending;
    size_t next_pending = 0;
    /// Per partition, rows stored minus rows removed by this batch.
    std::vector<int64_t> row_delta;
  };

  Status Start();
  /// Sets cache_ to the runtime's cache made valid for this batch (rebuilt from the stores
  /// when its version is not the one loaded) and marks it stale until the batch succeeds;
  /// none without a state version or once disabled.
  Status TakeCache();
  /// Joins one input batch of `side` (0 left, 1 right) with the other side's state, updates
  /// the matched flags, stores the batch's rows and queues the output.
  Status JoinBatch(int side, RecordBatchPtr batch);
  /// Removes each side's state at or below its state watermark, in one pass over each
  /// partition, queueing the unmatched rows removed from outer sides.
  Status Evict();
  /// Queues the rows left_rows[i] of `left` ++ right_rows[i] of `right` (null: NULLs; left
  /// semi has no right columns).
  Status QueueRows(const columnar::RecordBatch* left, std::span<const int64_t> left_rows,
                   const columnar::RecordBatch* right, std::span<const int64_t> right_rows);
  /// Updates the partitions' row totals and the store metrics.
  Status FinishBatch();
  /// The partition of a grouping-encoded join key.
  size_t PartitionIndex(std::string_view key) const;
  /// Whether unmatched rows of `side` are output (the outer sides).
  bool OuterSide(int side) const;

  std::shared_ptr<const StreamingJoinNode> node_;
  OperatorPtr left_;
  OperatorPtr right_;
  const ExecContext& context_;
  StatefulOperatorRuntime* runtime_;
  SchemaPtr pair_schema_;
  std::array<SchemaPtr, 2> side_schemas_;
  std::array<std::vector<DataTypePtr>, 2> side_types_;
  std::vector<DataTypePtr> key_types_;
  /// The runtime's cache while this batch may use it, else nullptr.
  JoinStateCache* cache_ = nullptr;
  State state_;
};

}  // namespace tributary::exec

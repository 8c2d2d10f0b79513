// Streaming aggregation: a GROUP BY whose groups live in state stores across micro-batches,
// emitted by Spark's output modes and evicted by the watermark (Spark's StateStoreRestoreExec
// + StateStoreSaveExec pair, in one operator).

#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/aggregate/aggregate_function.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// A streaming aggregation's state kept in memory from one micro-batch to the next (in its
/// runtime), so a batch neither looks its groups up in the stores nor scans them for what the
/// watermark evicts. It is a copy of the stores' content at one version, used only by the
/// batch that loads that version: any other (a batch re-run after a failure, a restart)
/// rebuilds it from the stores with one scan. Dropped for good once the state outgrows
/// kStateCacheMaxBytes: state larger than memory lives in the stores alone.
struct AggregateStateCache {
  struct Group {
    /// The event time in the key (a window by its end); nullopt when null or not keyed by one.
    std::optional<int64_t> event_time;
    /// The state value, as stored.
    std::string value;
  };
  /// What a group costs beside its key and value bytes: a std::map node, two string headers.
  static constexpr int64_t kGroupOverhead = 96;
  /// The store version the groups are; -1 while a batch changes them (stale if it fails).
  int64_t version = -1;
  /// Set once the state outgrew kStateCacheMaxBytes: never rebuilt again.
  bool disabled = false;
  /// Per partition: key -> group, in key byte order (the stores' ForEach order).
  std::vector<std::map<std::string, Group, std::less<>>> partitions;
  /// Keys, values and a node's overhead for each group.
  int64_t bytes = 0;
};

/// One micro-batch of a streaming aggregation. Consumes the batch's input, then returns rows
/// shaped as HashAggregateNode's (key columns, then one column per aggregate, by the node's
/// schema). Per batch, with the node's runtime (StatefulOperatorRuntime):
///  - drops input groups whose event-time key is at or before late_rows_watermark_micros
///    (append and update; complete never drops, as Spark), counting the dropped groups in
///    num_rows_dropped_by_watermark (Spark evaluates the predicate on the aggregated rows);
///  - loads each group's accumulator states from its partition's store (partition =
///    StablePartition(grouping key)), folds this batch's rows in, and writes every touched
///    group back;
///  - emits: update, the groups this batch touched (first appearance order), then removes
///    without emitting the groups at or before eviction_watermark_micros; complete, every group
///    of every partition (partition order, then key byte order); append, removes and emits the
///    groups at or before eviction_watermark_micros (same order).
/// With a runtime state_version the groups also live in runtime.aggregate_cache across
/// batches (AggregateStateCache). Without keys the one group exists from the first batch on (an
/// aggregate without GROUP BY has one row). Errors: those of HashAggregateOperator, InvalidArgument
/// for append without an event-time key or a runtime without partitions, Corruption for state it
/// cannot read. Accumulators and the group table are allocated from `context.pool`.
class StatefulAggregateOperator final : public Operator {
 public:
  StatefulAggregateOperator(std::shared_ptr<const StatefulAggregateNode> node, OperatorPtr input,
                            const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  /// What one batch builds: the groups its input touched (ids in order of appearance), their
  /// accumulators, then the rows to emit.
  struct State {
    explicit State(MemoryPool* pool) : touched(pool), late(pool) {}
    bool consumed = false;
    GroupTable touched;
    /// Per touched group: the state partition of its key, and whether that partition held
    /// state for it when the batch began (LoadState read it).
    std::vector<int32_t> partition;
    std::vector<uint8_t> existed;
    /// Distinct keys of the late rows dropped.
    GroupTable late;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
    std::vector<ColumnPtr> result_columns;
    int64_t result_rows = 0;
    int64_t emitted_rows = 0;
  };

  Status Consume();
  /// Sets cache_ to the runtime's cache made valid for this batch (rebuilt from the stores
  /// when its version is not the one loaded) and marks it stale until the batch succeeds;
  /// none without a state version or once disabled.
  Status TakeCache();
  /// Records `value` as the state of `key` in cache_ partition `partition`; drops the cache
  /// when it outgrows its limit.
  Status CacheGroup(size_t partition, std::string_view key, std::string_view value);
  Status ConsumeInput();
  Status LoadState(int64_t first_group);
  Status SaveState();
  /// Accumulators over `keys` restored from their state `values`; result columns from them.
  Status FinishFromState(const std::vector<std::string>& keys,
                         const std::vector<std::string>& values);
  Status FinishTouched();
  /// Calls `visit(key, value)` for every state row at or before the eviction watermark and
  /// removes it; none without a watermark or an event-time key, and none when the watermark
  /// did not move since the last batch (that batch evicted everything at or below it, and
  /// this batch dropped every row of a group at or below it as late).
  Status Evict(const std::function<void(std::string_view, std::string_view)>& visit);
  Result<std::vector<std::unique_ptr<Accumulator>>> MakeAccumulators() const;
  Status Deserialize(std::vector<std::unique_ptr<Accumulator>>& accumulators, int32_t group,
                     std::string_view key, std::string_view value) const;

  std::shared_ptr<const StatefulAggregateNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  StatefulOperatorRuntime* runtime_;
  std::vector<DataTypePtr> key_types_;
  std::vector<size_t> value_arguments_;
  /// The runtime's cache while this batch may use it, else nullptr.
  AggregateStateCache* cache_ = nullptr;
  State state_;
};

}  // namespace tributary::exec

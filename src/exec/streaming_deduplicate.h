// Streaming deduplication: Spark's dropDuplicates and dropDuplicatesWithinWatermark on a
// stream (StreamingDeduplicateExec, StreamingDeduplicateWithinWatermarkExec), with the keys
// seen so far in state stores across micro-batches.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// One micro-batch of a streaming deduplication: passes the first row of each key (the node's
/// key columns; NULLs equal, as grouping) never seen before, in input order, and remembers the
/// key in its partition's store (StablePartition of the grouping-encoded key). Per batch, with
/// the node's runtime:
///  - with an event-time column and late_rows_watermark_micros, input rows at or before it are
///    dropped first and counted in num_rows_dropped_by_watermark (Spark filters the input with
///    watermarkPredicateForDataForLateEvents whether or not the event time is a key);
///  - after the input, eviction_watermark_micros removes state: dropDuplicates when the
///    event-time column is a key, the keys whose event time is at or before it;
///    dropDuplicatesWithinWatermark, the keys whose expiry (first row's event time + the
///    node's delay) is at or before it.
/// Rows with a key already seen count in num_dropped_duplicate_rows. Output: the input's
/// schema, one batch per input batch that keeps rows. Errors: InvalidArgument for a runtime
/// without partitions or a bad event-time column, Corruption for state it cannot read.
class StreamingDeduplicateOperator final : public Operator {
 public:
  StreamingDeduplicateOperator(std::shared_ptr<const StreamingDeduplicateNode> node,
                               OperatorPtr input, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  /// What changes during the batch: the keys this batch has met (passed or found in the
  /// store: later rows with them are duplicates without another store lookup) and whether the
  /// input is done.
  struct State {
    explicit State(MemoryPool* pool) : seen(pool) {}
    bool started = false;
    bool finished = false;
    GroupTable seen;
  };

  Status Start();
  Result<RecordBatchPtr> Deduplicate(const RecordBatchPtr& batch);
  Status Evict();

  std::shared_ptr<const StreamingDeduplicateNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  StatefulOperatorRuntime* runtime_;
  std::vector<columnar::DataTypePtr> key_types_;
  /// Position of the event-time column among the keys (dropDuplicates with it as a key).
  std::optional<size_t> event_time_key_;
  State state_;
};

}  // namespace tributary::exec

// Sinks of a streaming query: where each micro-batch's rows go.
//
// Exactly-once output rests on the sink: the engine may hand it the same batch id twice (a
// batch re-run after a crash between the sink's commit and `commits/<batchId>`), and the sink
// must then write nothing new. The Delta sink does it with the table's txn(appId = query id,
// version = batch id); foreachBatch users get the batch id to do the same.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "exec/operator.h"
#include "exec/stateful_operator.h"
#include "plan/logical_plan.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// One micro-batch as a sink receives it.
struct MicroBatch {
  /// The query's stable id (checkpoint `metadata`), the same across restarts.
  std::string query_id;
  int64_t batch_id = 0;
  /// The batch's rows: the query's plan with every source replaced by this batch's data
  /// (resolved, not yet optimized).
  plan::LogicalPlanPtr plan;
  /// File system, session time zone, and the batch timestamp as current_timestamp().
  const exec::ExecContext* context = nullptr;
  /// Complete: the rows are the whole result, replacing what the sink holds; append and
  /// update: rows to add.
  exec::OutputMode output_mode = exec::OutputMode::kAppend;

  /// Optimizes and plans `plan`: the root operator to pull the rows from.
  Result<exec::OperatorPtr> Execute() const;
  /// Every row of the batch.
  Result<std::vector<columnar::RecordBatchPtr>> Collect() const;
};

/// Thread-safety: called from the query's thread only.
class Sink {
 public:
  virtual ~Sink() = default;
  /// Writes the batch; a batch id already written is skipped. The number of rows written
  /// (progress `sink.numOutputRows`), or -1 when the sink cannot tell.
  virtual Result<int64_t> AddBatch(const MicroBatch& batch) = 0;
  /// Progress `sink.description`, also the sink's identity in the checkpoint:
  /// "DeltaSink[/data/tables/events]".
  virtual std::string Description() const = 0;
};

}  // namespace tributary::streaming

// Pipeline parallelism for operators written for one thread: a ReadAheadOperator pulls its input
// on a thread of its own and keeps a few batches ready, so a scan (with the filters and
// projections above it) decodes the next batches while the operator above consumes this one.
// The input subtree is only ever touched by that thread, and batches are immutable, so no
// operator needs to be thread-safe. Order is kept: batches come out exactly as the input returned
// them, an error in its place.

#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exec/operator.h"

namespace tributary::exec {

/// Batches a read-ahead keeps ready by default: one being consumed, one decoded behind it.
inline constexpr int kReadAheadDepth = 2;

/// Runs `input` ahead on its own thread, up to `depth` batches ahead of the consumer. The thread
/// starts at the first Next() (so a plan instantiated only to be explained does no work) and is
/// stopped and joined by the destructor. EXPLAIN shows the input alone: read-ahead is how the
/// plan runs, not what it computes, and a plan's text should not depend on the machine's cores.
class ReadAheadOperator final : public Operator {
 public:
  ReadAheadOperator(OperatorPtr input, int depth);
  ~ReadAheadOperator() override;
  ReadAheadOperator(const ReadAheadOperator&) = delete;
  ReadAheadOperator& operator=(const ReadAheadOperator&) = delete;

  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return input_->ToString(); }
  std::vector<const Operator*> Children() const override { return input_->Children(); }

 private:
  void Produce();

  OperatorPtr input_;
  const SchemaPtr schema_;
  const size_t depth_;
  std::thread producer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Guarded by mutex_: batches ready, the end (null) or an error last.
  std::deque<Result<RecordBatchPtr>> ready_;
  bool stopping_ = false;  // the consumer is gone: the producer stops at its next batch
  // Consumer side only.
  bool started_ = false;
  bool finished_ = false;  // the end or an error was returned; Next() returns the end after
};

/// `root`, the root of a plan whose batches a writer consumes, read ahead on a thread of its own
/// when `context` has threads and `root` does not already hand out batches made on other threads
/// (a ParallelScanOperator): the plan decodes and filters the next batches while the writer
/// encodes and compresses this one.
OperatorPtr AheadOfWriter(OperatorPtr root, const ExecContext& context);

}  // namespace tributary::exec

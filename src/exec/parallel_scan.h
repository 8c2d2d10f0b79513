// Morsel-driven parallelism for a scan pipeline (a file or Delta scan with the filters,
// projections and generators above it): the scan's files (or a Parquet file's row groups) are
// its parts, worker threads each
// take the next part and run their own copy of the pipeline over it, and the consumer receives
// the parts' batches in part order, an error in its place. Results are therefore exactly those
// of one thread. Each copy is only touched by its worker and batches are immutable, so the
// pipeline's operators need not be thread-safe; what the spec's callbacks would have been told
// (unknown fields, corrupt files) is collected per part and passed on, in order, on the
// consumer's thread.

#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exec/operator.h"
#include "exec/scan.h"

namespace tributary::exec {

/// Reads a scan pipeline's parts on `workers` threads, handing out their batches in part order.
/// The threads start at the first Next() (a plan instantiated to be explained does no work) and
/// are stopped and joined by the destructor; a part ahead of the one being consumed holds at
/// most about kAheadRows rows before its worker waits, and at most 2 x workers parts are taken
/// at once. EXPLAIN shows the pipeline as one thread runs it.
class ParallelScanOperator final : public Operator {
 public:
  /// The pipeline over `part`, made on the worker that reads it.
  using OpenPart = std::function<Result<OperatorPtr>(const ScanPart& part)>;
  /// What the scan reports, called on the consumer's thread: each corrupt file once its part is
  /// consumed, then the unknown fields of all parts (distinct, in order of first appearance)
  /// once after the last part, whose error becomes the scan's. Either may be empty.
  struct Reports {
    std::function<void(const std::string& path, const Status& error)> on_corrupt_file;
    std::function<Status(const std::vector<std::string>& unknown_fields)> on_unknown_fields;
  };

  /// Rows a part ahead of the consumed one may hold before its worker waits: most files and
  /// row groups are read ahead whole, a huge one stays bounded.
  static constexpr int64_t kAheadRows = int64_t{1} << 18;

  /// `whole`: the pipeline over every part, for EXPLAIN only. `parts`, in order, without
  /// reports: each is opened with its own.
  ParallelScanOperator(OperatorPtr whole, std::vector<ScanPart> parts, int workers, OpenPart open,
                       Reports reports);
  ~ParallelScanOperator() override;
  ParallelScanOperator(const ParallelScanOperator&) = delete;
  ParallelScanOperator& operator=(const ParallelScanOperator&) = delete;

  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return whole_->ToString(); }
  std::vector<const Operator*> Children() const override { return whole_->Children(); }

 private:
  /// A part taken by a worker: its batches not yet consumed, and how it ended.
  struct Part {
    std::deque<RecordBatchPtr> batches;
    int64_t rows = 0;  // in `batches`
    bool done = false;
    Status status;          // the part's error, after its batches
    ScanPartReport report;  // written by the part's pipeline before `done`
  };

  void Work();
  /// Runs part `index` into `part`; returns false when the operator is stopping.
  bool ReadPart(size_t index, Part& part);
  /// Passes a consumed part's corrupt files on and gathers its unknown fields.
  void PassOn(ScanPartReport report);

  OperatorPtr whole_;
  const SchemaPtr schema_;
  const std::vector<ScanPart> parts_;
  const size_t num_parts_;
  const size_t num_workers_;
  const OpenPart open_;
  const Reports reports_;
  std::vector<std::thread> workers_;

  std::mutex mutex_;
  std::condition_variable changed_;
  // Guarded by mutex_. window_[k] is part current_ + k; parts are taken in order.
  std::deque<Part> window_;
  size_t current_ = 0;             // the part being consumed
  size_t next_part_ = 0;           // the next part a worker takes
  size_t failed_part_ = SIZE_MAX;  // the first part that failed: no part after it is taken
  bool stopping_ = false;

  // Consumer side only.
  bool started_ = false;
  bool finished_ = false;
  std::vector<std::string> unknown_fields_;
};

}  // namespace tributary::exec

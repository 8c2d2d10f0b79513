// The Delta sink: each micro-batch is one commit to a Delta table, made idempotent by the
// table's transaction identifiers (../shared/notes/streaming-semantics.md §2.6): the commit
// carries txn(appId = query id, version = batch id), and a batch whose id the table already
// holds for the query is skipped, so a batch re-run after a crash is written once.

#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delta/snapshot.h"
#include "delta/table_writes.h"
#include "streaming/sink.h"

namespace tributary::streaming {

struct DeltaSinkOptions {
  /// Partition columns of the table the first batch creates (checked against an existing
  /// table's). Option "partitionBy": comma-separated names. Default: none.
  std::vector<std::string> partition_by;
  /// Table properties of a created table: every option whose key starts with "delta.".
  /// Default: none.
  std::map<std::string, std::string> properties;
  /// mergeSchema: columns a batch has and the table lacks are added to the table. Without it
  /// such a batch fails with an error naming those columns. Default: false.
  bool merge_schema = false;
  /// Retries of a batch whose commit lost to a concurrent change the transaction layer cannot
  /// commit on top of (another writer created the table, or changed its schema). Default: 10.
  int conflict_retries = 10;

  /// Options from a writer's option map (keys compare ignoring case; unknown keys ignored).
  static Result<DeltaSinkOptions> FromMap(const std::map<std::string, std::string>& options);
};

/// Append-mode Delta sink. Several sinks (queries with different ids) may append to one table
/// at once: blind appends commute, and the transaction layer commits each on top of the others.
///
/// Thread-safety: AddBatch from one thread at a time (the query's).
class DeltaSink final : public Sink {
 public:
  /// A sink for the table at `table_root` (written through each batch's file system) with the
  /// writer's `options` (DeltaSinkOptions::FromMap) and partition columns (`partition_by`, else
  /// the partitionBy option). InvalidArgument for a bad option.
  static Result<std::unique_ptr<DeltaSink>> Make(std::string table_root,
                                                 const std::map<std::string, std::string>& options,
                                                 std::vector<std::string> partition_by = {});

  /// Executes the batch and commits its rows with txn(query id, batch id) and commitInfo
  /// operation "STREAMING UPDATE" (outputMode, queryId, epochId), creating the table on the
  /// first batch; in complete output mode the commit also removes every file the table had
  /// (an overwrite). Returns the rows written, 0 for a batch the table already holds.
  Result<int64_t> AddBatch(const MicroBatch& batch) override;
  /// "DeltaSink[<table root>]".
  std::string Description() const override;

 private:
  DeltaSink(std::string table_root, DeltaSinkOptions options);

  std::string table_root_;
  DeltaSinkOptions options_;
  /// The table as of the last batch (null before the table exists), updated per batch.
  std::shared_ptr<const delta::Snapshot> snapshot_;
};

}  // namespace tributary::streaming

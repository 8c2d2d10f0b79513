// Table maintenance: OPTIMIZE (bin-packing small files) and VACUUM (deleting data files no
// version within the retention period needs), as Delta Spark defines them.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "delta/file_writer.h"
#include "delta/transaction.h"
#include "storage/file_system.h"

namespace tributary::delta {

struct OptimizeOptions {
  /// Files smaller than this are compacted; bins are filled up to it. Default: 1 GiB
  /// (spark.databricks.delta.optimize.maxFileSize).
  int64_t target_file_size = int64_t{1} << 30;
  /// Only partitions whose values equal these (column -> value). Default: every partition.
  std::map<std::string, std::string> partition_filter;
  DataWriteOptions data;
  TransactionOptions transaction;
};

struct OptimizeResult {
  int64_t version = -1;  // -1 when nothing needed compacting
  int64_t files_removed = 0;
  int64_t files_added = 0;
  int64_t rows = 0;
};

/// Compacts, per partition, files smaller than the target into files up to the target, in one
/// commit with dataChange=false (streams reading the table skip it). Files with deletion
/// vectors are rewritten without their deleted rows.
Result<OptimizeResult> Optimize(storage::FileSystem& fs, const std::string& table_root,
                                const OptimizeOptions& options = {});

struct VacuumOptions {
  /// Keep files needed by versions younger than this. Default: 168 hours (7 days,
  /// delta.deletedFileRetentionDuration), also the smallest allowed unless `force`.
  int64_t retention_hours = 168;
  /// Allow a retention below 168 hours (Spark's retentionDurationCheck=false). Default: false.
  bool force = false;
  /// List what would be deleted without deleting. Default: false.
  bool dry_run = false;
  /// "Now", for tests. Default: the wall clock.
  std::optional<int64_t> now_ms;
};

struct VacuumResult {
  /// Files deleted (or that would be, in a dry run), relative to the table root.
  std::vector<std::string> files;
};

/// Deletes files under the table that the latest version does not reference and no tombstone
/// younger than the retention protects, skipping `_delta_log`, hidden (`.`, `_` prefixed)
/// entries and files modified within the retention period. The staging file of a data file
/// whose writer died (storage::StagingPath of a visible name) counts as that data file: never
/// referenced, it goes once older than the retention. InvalidArgument ("... is not a Delta
/// table") when `table_root` has no Delta log, deleting nothing.
Result<VacuumResult> Vacuum(storage::FileSystem& fs, const std::string& table_root,
                            const VacuumOptions& options = {});

}  // namespace tributary::delta

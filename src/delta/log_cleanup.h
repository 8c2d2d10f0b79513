// Expired log cleanup (PROTOCOL.md "Metadata Cleanup"; Delta Spark's MetadataCleanup): deletes
// the oldest log files once they are older than `delta.logRetentionDuration`, in whole
// versions and only below a checkpoint, so every version from the earliest remaining
// checkpoint on stays reconstructable.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "delta/snapshot.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// What a cleanup did.
struct LogCleanupResult {
  /// The oldest version a reader can still load: the checkpoint the deletion stopped at, or
  /// -1 when nothing was deleted.
  int64_t earliest_version = -1;
  /// The deleted files (commits, checkpoints, .crc, compactions), oldest version first.
  std::vector<std::string> deleted;
};

/// Deletes the expired files of the log of `snapshot`'s table, as Spark does after writing a
/// checkpoint, unless `delta.enableExpiredLogCleanup` is false (Default: true).
///
/// A file is expired when its modification time is at or before the cutoff: `now_ms` minus
/// `delta.logRetentionDuration` (Default: "interval 30 days"), rounded down to midnight UTC
/// as Spark rounds it to the day. The boundary is the newest complete checkpoint at or below
/// `snapshot.Version()` such that every log file of every older version is expired; the files
/// of versions below it are deleted (a compaction when its range starts below it), oldest
/// first, so a crash midway leaves a contiguous log. The boundary checkpoint, its commit and
/// everything newer stay; so does `_last_checkpoint`. Without such a checkpoint nothing is
/// deleted.
///
/// Errors: InvalidArgument naming the property when the retention does not parse (nothing is
/// deleted); IOError from listing or deleting, naming the file.
///
/// Thread-safety: safe to run concurrently with readers and writers of versions at or after
/// the boundary; a reader still replaying a version below it may fail with NotFound.
Result<LogCleanupResult> CleanUpExpiredLogs(storage::FileSystem& fs, const Snapshot& snapshot,
                                            int64_t now_ms);

}  // namespace tributary::delta

// Commit history of a Delta table: versions, their timestamps and commitInfo (PROTOCOL.md
// "Commit Provenance Information", "In-Commit Timestamps").

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/file_system.h"

namespace tributary::delta {

/// One commit as `DESCRIBE HISTORY` shows it.
struct CommitEntry {
  int64_t version = 0;
  /// Milliseconds since the epoch: inCommitTimestamp when present, else the commit file's
  /// modification time made monotonic (each at least the previous + 1), as Delta Spark does.
  int64_t timestamp_ms = 0;
  /// commitInfo.operation, operationParameters (JSON), engineInfo; empty when absent.
  std::string operation;
  std::string operation_parameters;
  std::string engine_info;
  /// The raw commitInfo JSON, or empty.
  std::string commit_info;
};

/// Every commit file still in the log, ascending by version.
Result<std::vector<CommitEntry>> ReadHistory(storage::FileSystem& fs,
                                             const std::string& table_root);

/// The newest version whose commit timestamp is at or before `timestamp_ms`. NotFound when the
/// timestamp is before the first commit; InvalidArgument when it is after the latest commit, as
/// Delta ("The provided timestamp (...) is after the latest version available to this table").
Result<int64_t> VersionAtTimestamp(storage::FileSystem& fs, const std::string& table_root,
                                   int64_t timestamp_ms);

}  // namespace tributary::delta

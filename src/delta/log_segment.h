// The files of `_delta_log/` that make up one version of a table (PROTOCOL.md "Delta Log
// Entries", "Checkpoints", "Last Checkpoint File"): the newest complete checkpoint at or below
// the version, then every commit after it, contiguous.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/file_system.h"

namespace tributary::delta {

/// One file of the log, classified by its name.
struct LogFile {
  enum class Kind : uint8_t {
    kCommit,               // <v>.json
    kClassicCheckpoint,    // <v>.checkpoint.parquet
    kMultiPartCheckpoint,  // <v>.checkpoint.<part>.<parts>.parquet
    kUuidCheckpoint,       // <v>.checkpoint.<uuid>.json|parquet (V2)
    kCompaction,           // <v>.<end>.compacted.json
  };
  Kind kind = Kind::kCommit;
  int64_t version = 0;
  /// kMultiPartCheckpoint: part number (1-based) and part count; kCompaction: end version.
  int64_t part = 0;
  int64_t parts = 0;
  std::string path;
  int64_t size = 0;
  int64_t modification_time_ms = 0;
};

/// Classifies a file name of `_delta_log/`; nullopt for anything else (.crc, _last_checkpoint,
/// temporary files).
std::optional<LogFile> ParseLogFileName(const std::string& name);

/// "_delta_log/00000000000000000007.json" for version 7 under `log_dir`.
std::string CommitPath(const std::string& log_dir, int64_t version);

/// What replaying one version reads.
struct LogSegment {
  int64_t version = -1;
  /// The checkpoint's files (all parts of a multi-part one), empty when replay starts at 0.
  std::vector<LogFile> checkpoint;
  int64_t checkpoint_version = -1;
  /// Commits after the checkpoint, ascending, contiguous, ending at `version`.
  std::vector<LogFile> commits;
  /// Every commit file listed (for history and timestamps), ascending.
  std::vector<LogFile> all_commits;
};

/// Lists `<table>/_delta_log` and builds the segment for `version` (the latest when absent).
/// `_last_checkpoint` is only a hint: when it is stale, corrupt or missing, the listing decides.
/// NotFound when the table has no log or the version does not exist; Corruption
/// ("missing_commit: ...") when a commit between the checkpoint and the version is missing.
Result<LogSegment> BuildLogSegment(storage::FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version);

}  // namespace tributary::delta

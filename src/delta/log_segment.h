// The files of `_delta_log/` that make up one version of a table (PROTOCOL.md "Delta Log
// Entries", "Checkpoints", "Last Checkpoint File"): the newest complete checkpoint at or below
// the version, then every commit after it, contiguous.

#pragma once

#include <cstdint>
#include <map>
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
    kChecksum,             // <v>.crc
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

/// Classifies a file name of `_delta_log/`; nullopt for anything else (_last_checkpoint,
/// temporary files).
std::optional<LogFile> ParseLogFileName(const std::string& name);

/// "_delta_log/00000000000000000007.json" for version 7 under `log_dir`.
std::string CommitPath(const std::string& log_dir, int64_t version);

/// The classified files of `_delta_log/`.
struct LogListing {
  /// Commit files, ascending by version.
  std::vector<LogFile> commits;
  /// Complete checkpoints by version, each as the files replay reads: one UUID-named (V2) or
  /// classic file, else every part of a complete multi-part set. Incomplete sets and empty
  /// files are left out (PROTOCOL.md: readers ignore a multi-part checkpoint with missing
  /// parts).
  std::map<int64_t, std::vector<LogFile>> checkpoints;
  /// Every classified file (commits, checkpoint files complete or not, compactions, .crc),
  /// ascending by version: what expired log cleanup chooses from.
  std::vector<LogFile> files;
};

/// Lists `log_dir` (a table's `_delta_log`), from `from_version` on when given (a listing that
/// starts after `from_version - 1`'s names; object stores list from a key cheaply).
/// NotFound when the directory does not exist.
Result<LogListing> ListLog(storage::FileSystem& fs, const std::string& log_dir,
                           std::optional<int64_t> from_version = {});

/// The version `<log_dir>/_last_checkpoint` names, or nullopt when the file is missing or is
/// not a JSON object with an integer "version" (it is only a hint). IOError from `fs`.
Result<std::optional<int64_t>> ReadLastCheckpointVersion(storage::FileSystem& fs,
                                                         const std::string& log_dir);

/// What replaying one version reads.
struct LogSegment {
  int64_t version = -1;
  /// The checkpoint's files (all parts of a multi-part one), empty when replay starts at 0.
  std::vector<LogFile> checkpoint;
  int64_t checkpoint_version = -1;
  /// Commits after the checkpoint, ascending, contiguous, ending at `version`.
  std::vector<LogFile> commits;
};

/// Builds the segment for `version` (the latest when absent) of the table at `table_root`.
/// When `_last_checkpoint` names a checkpoint at or below the wanted version, the log is listed
/// from that version on; when that listing has no complete checkpoint there (a stale, corrupt
/// or dangling hint) or cannot build the segment, the whole log is listed, which decides.
/// Empty (zero-byte) checkpoint files count as missing. With `checkpoint_before`, only
/// checkpoints older than it are used (none: replay from version 0): what a reader falls back
/// on when the newer checkpoint turns out unreadable.
/// NotFound when the table has no log or the version does not exist, or when the version's
/// commits were removed by log cleanup ("missing_commit: ...", naming the earliest version
/// still available); Corruption ("missing_commit: ...") when another commit between the
/// checkpoint and the version is missing.
Result<LogSegment> BuildLogSegment(storage::FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version,
                                   std::optional<int64_t> checkpoint_before = std::nullopt);

/// Whether `table_root` holds a `_delta_log` directory: what makes a directory a Delta table to
/// the catalog and the API (with or without commits yet).
bool HasDeltaLog(storage::FileSystem& fs, const std::string& table_root);

}  // namespace tributary::delta

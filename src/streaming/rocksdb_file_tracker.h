// Auto Loader's file tracking: the files a cloudFiles source took, in a RocksDB store inside the
// checkpoint (`<checkpoint>/sources/<n>/rocksdb/`), as Databricks keeps them. Lookups are point
// reads with a bloom filter, so memory stays bounded whatever the number of files and a trigger
// costs one lookup per listed file. The store records the newest source log batch it holds in
// the same write as that batch's files, so on open the source replays only the log entries
// after it (a crash between the log write and the store write loses nothing).

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "streaming/file_source.h"

namespace rocksdb {
class DB;
}

namespace tributary::streaming {

/// Options of a RocksDbFileTracker.
struct RocksDbFileTrackerOptions {
  /// `cloudFiles.allowOverwrites`: a known file whose modification time or size changed is new
  /// again. Default: false.
  bool allow_overwrites = false;
  /// `cloudFiles.maxFileAge`: files modified longer ago than this (by the clock of SetClockMs)
  /// are not new, and Purge deletes their entries; nullopt keeps every entry. Default: none.
  std::optional<int64_t> max_file_age_ms;
  /// Entries Purge deletes at most per call, so a trigger's cost stays bounded when many
  /// entries expire at once (the rest go in later triggers). Default: 10000.
  size_t max_expired_per_purge = 10000;
};

/// A committed file waiting for cleanSource.
struct CleanCandidate {
  std::string path;
  int64_t modification_time_ms = 0;
};

/// A FileTracker on RocksDB.
///
/// Thread-safety: used from the query's thread only.
class RocksDbFileTracker final : public FileTracker {
 public:
  /// Opens (creating) the store in local directory `dir`.
  static Result<std::unique_ptr<RocksDbFileTracker>> Open(const std::string& dir,
                                                          RocksDbFileTrackerOptions options);
  ~RocksDbFileTracker() override;
  RocksDbFileTracker(const RocksDbFileTracker&) = delete;
  RocksDbFileTracker& operator=(const RocksDbFileTracker&) = delete;

  bool IsNew(const storage::FileInfo& file) const override;
  /// Records `files` and the batch in one atomic, synced write.
  Status Add(std::span<const FileEntry> files) override;
  int64_t LastBatchRecorded() const override { return last_batch_; }
  /// Deletes the entries of files modified before (clock of SetClockMs - maxFileAge), oldest
  /// first, at most max_expired_per_purge of them, and records that instant in the same write:
  /// from then on IsNew refuses every file modified before it, whatever the clock or options
  /// say later, so a file whose entry is gone is never taken again. Nothing without a maximum
  /// age or a clock.
  Status Purge() override;
  int64_t NumTracked() const override { return num_tracked_; }

  /// The instant Purge measures ages from, milliseconds since the epoch.
  void SetClockMs(int64_t now_ms) { now_ms_ = now_ms; }

  /// Whether the source has started on this checkpoint before (includeExistingFiles is
  /// evaluated on the first start only).
  bool Started() const { return started_; }
  /// Marks the first start done, recording `existing` as already taken (includeExistingFiles =
  /// false); one atomic write.
  Status MarkStarted(std::span<const storage::FileInfo> existing);

  /// The newest log batch whose files were queued for cleanSource (-1: none).
  int64_t LastBatchQueuedForClean() const { return clean_queued_through_; }
  /// Queues the files of committed log batches up to `through_batch` for cleanSource.
  Status QueueForClean(std::span<const FileEntry> files, int64_t through_batch);
  /// Queued files modified at or before `cutoff_ms`, oldest first, at most `limit`.
  Result<std::vector<CleanCandidate>> CleanCandidates(int64_t cutoff_ms, size_t limit) const;
  /// Removes `done` from the queue.
  Status Dequeue(std::span<const CleanCandidate> done);

 private:
  RocksDbFileTracker(std::unique_ptr<rocksdb::DB> db, std::string dir,
                     RocksDbFileTrackerOptions options);
  Status LoadState();

  std::unique_ptr<rocksdb::DB> db_;
  std::string dir_;
  RocksDbFileTrackerOptions options_;
  int64_t last_batch_ = -1;
  int64_t num_tracked_ = 0;
  int64_t clean_queued_through_ = -1;
  bool started_ = false;
  std::optional<int64_t> now_ms_;
  /// Files modified before this were expired by a Purge (persisted); never new again.
  std::optional<int64_t> expired_below_ms_;
  /// Where the next Purge resumes its scan of the expiry index: the entries before it are
  /// deleted, so the scan does not wade through their tombstones again. Empty: the start.
  std::string expiry_scan_from_;
};

}  // namespace tributary::streaming

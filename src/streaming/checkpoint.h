// A streaming query's checkpoint location, laid out as Spark's so people who know one know the
// other:
//
//   <checkpoint>/metadata        the query id (stable across restarts) and what the query reads
//                                and writes, to detect a checkpoint reused by another query
//   <checkpoint>/offsets/<N>     write-ahead log: batch N's end offsets, written before it runs
//   <checkpoint>/commits/<N>     batch N is in the sink
//   <checkpoint>/sources/<n>/    source n's own metadata (file lists, pinned starts)
//   <checkpoint>/state/<op>/     stateful operators' state (state/state_store.h)
//   <checkpoint>/progress.jsonl  one progress record per batch (tributary's addition)
//   <checkpoint>/.lock           held (flock) by the one live query using the checkpoint
//
// Every log file is written whole by put-if-absent, so a crash leaves either the complete file
// or none; the grammars of `metadata`, `offsets/N` and `commits/N` are in checkpoint.cc.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storage/file_system.h"
#include "streaming/source.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// The `metadata` file.
struct CheckpointMetadata {
  /// The query id (a UUID), Spark's `id`.
  std::string id;
  /// Source identities in source order, and the sink's description, as first written.
  std::vector<std::string> sources;
  std::string sink;
};

/// One entry of the offset log.
struct OffsetSeq {
  int64_t batch_watermark_ms = 0;
  /// The batch's current_timestamp(), kept so a re-run batch computes the same values.
  int64_t batch_timestamp_ms = 0;
  /// Session settings fixed for the checkpoint's life (spark.sql.shuffle.partitions: the
  /// number of state partitions), as Spark records them.
  std::map<std::string, std::string> conf;
  /// Per source, its end offset for this batch (nullopt: the source had no data yet, "-").
  std::vector<std::optional<Offset>> offsets;
};

/// The lock that keeps a checkpoint to one live query. The kernel releases it when the holder
/// exits or dies, so a restart right after a crash is never blocked.
class CheckpointLock {
 public:
  /// Takes the lock of `checkpoint_location` (its local directory, Checkpoint::LocalDir,
  /// created if missing) and
  /// records `holder` ("query 'x' (id ..., run ...), pid 1234 on host") in it. AlreadyExists
  /// naming the current holder when another live query has it.
  static Result<CheckpointLock> Acquire(const std::string& checkpoint_location,
                                        const std::string& holder);
  CheckpointLock(CheckpointLock&& other) noexcept;
  CheckpointLock& operator=(CheckpointLock&& other) noexcept;
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;
  ~CheckpointLock();

 private:
  explicit CheckpointLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// Reads and writes the logs of one checkpoint location. Thread-safety: one writer (the
/// query's thread); reads may happen from any thread.
class Checkpoint {
 public:
  Checkpoint(storage::FileSystem* fs, std::string location);

  const std::string& Location() const { return location_; }
  /// The local directory for what cannot live in an object store (the lock, progress.jsonl,
  /// RocksDB caches): the location itself when it is local, else a working directory on this
  /// machine (storage::LocalWorkingDir below $TMPDIR/tributary-checkpoints) whose loss loses
  /// nothing: everything in it is rebuilt from the checkpoint.
  const std::string& LocalDir() const { return local_dir_; }
  /// `<location>/sources/<n>`.
  std::string SourceDir(int source_index) const;
  /// `<LocalDir()>/sources/<n>`: the source's local caches.
  std::string SourceLocalDir(int source_index) const;
  /// Makes LocalDir() hold caches of the query `query_id` (the metadata's id) only: when it is
  /// a working directory that last served another query (the checkpoint was deleted and made
  /// again) or none, the sources' caches in it are deleted. Does nothing for a local checkpoint,
  /// whose caches go with it.
  Status ClaimLocalDir(const std::string& query_id) const;

  /// The metadata file, nullopt for a new checkpoint.
  Result<std::optional<CheckpointMetadata>> ReadMetadata() const;
  /// Creates the metadata file (put-if-absent).
  Status WriteMetadata(const CheckpointMetadata& metadata) const;

  /// The highest batch id in offsets/ (commits/), nullopt when empty.
  Result<std::optional<int64_t>> LatestOffsetBatch() const;
  Result<std::optional<int64_t>> LatestCommitBatch() const;

  /// offsets/<batch_id>; NotFound naming the file when missing.
  Result<OffsetSeq> ReadOffsets(int64_t batch_id) const;
  /// Writes offsets/<batch_id> (put-if-absent: AlreadyExists when another writer has it).
  Status WriteOffsets(int64_t batch_id, const OffsetSeq& offsets) const;
  /// Writes commits/<batch_id> with the watermark for the next batch.
  Status WriteCommit(int64_t batch_id, int64_t next_batch_watermark_ms) const;
  /// The watermark recorded in commits/<batch_id>.
  Result<int64_t> ReadCommitWatermark(int64_t batch_id) const;

  /// Deletes offsets and commits of batches below `first_retained`.
  Status Purge(int64_t first_retained) const;

  /// Appends one JSON line to progress.jsonl in LocalDir() (object stores cannot append).
  Status AppendProgress(const std::string& json_line) const;

 private:
  Result<std::optional<int64_t>> LatestBatch(const std::string& dir) const;

  storage::FileSystem* fs_;
  std::string location_;
  std::string local_dir_;
};

}  // namespace tributary::streaming

// The versioned state store of stateful streaming operators: one (operator, partition) of one
// checkpoint, on RocksDB, durable in the checkpoint through storage::FileSystem.
//
// Versions are Spark's: batch N loads version N and commits version N+1; a re-run of batch N
// reloads version N and overwrites version N+1; version 0 is empty state. In the checkpoint,
// `<checkpoint>/state/<operatorId>/<partitionId>/` holds `<v>.changelog` for every committed
// version v (the writes of the batch that made it) and `<v>.snapshot` every
// min_deltas_for_snapshot versions (every live key and value), as Spark's RocksDB store with
// changelog checkpointing keeps them. Files no longer needed to load one of the last
// min_batches_to_retain versions are deleted after each commit.
//
// The local RocksDB directory of a partition is a cache: it records the version it holds and is
// reused when that version can be rolled forward to the one asked for with the changelogs in
// the checkpoint; otherwise (deleted, too new, damaged, or left mid-batch by a crash) it is
// rebuilt from the latest snapshot at or below the version plus the changelogs after it.
// A batch's writes go into that cache as they come (its memory is the block cache and the
// memtables, not the batch or the state), and an aborted batch is rolled back in place.
//
// `<checkpoint>/state/<operatorId>/_metadata/metadata` describes an operator's state (name,
// partitions, key and value schemas) so tools can decode it (`tributary state`).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "exec/state_store.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::state {

/// How state stores of a query keep their files and memory.
struct StateStoreConf {
  /// `spark.sql.streaming.stateStore.minDeltasForSnapshot`: a snapshot every this many
  /// versions. Default: 10.
  int64_t min_deltas_for_snapshot = 10;
  /// `spark.sql.streaming.minBatchesToRetain`: the newest this many versions stay loadable
  /// (at least 2: a batch whose commits/N was not written re-runs from the version before).
  /// Default: 100.
  int64_t min_batches_to_retain = 100;
  /// `spark.sql.streaming.stateStore.rocksdb.blockCacheSizeMB` (in bytes here): the RocksDB
  /// block cache of one store. Default: 8 MiB.
  int64_t block_cache_bytes = 8 << 20;
  /// `spark.sql.streaming.stateStore.rocksdb.writeBufferSizeMB` (in bytes here): one memtable
  /// of a store. Default: 4 MiB (Spark leaves RocksDB's 64 MiB; a query here has a store per
  /// operator and partition on one machine).
  int64_t write_buffer_bytes = 4 << 20;
  /// `spark.sql.streaming.stateStore.rocksdb.maxWriteBufferNumber`: memtables a store keeps
  /// before writes wait for a flush. Default: 2.
  int64_t max_write_buffer_number = 2;
  /// `spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage`: every store of the process
  /// shares one block cache of max_memory_usage_bytes, which their memtables are charged to
  /// too (up to half of it), instead of a cache and memtables each. Default: false.
  bool bounded_memory_usage = false;
  /// `spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB` (in bytes here): that shared
  /// budget. Default: 500 MiB.
  int64_t max_memory_usage_bytes = int64_t{500} << 20;
  /// `tributary.state.localDir`: root of the local RocksDB caches (deletable at any time).
  /// Empty: `$TMPDIR/tributary-state` (or /tmp/tributary-state).
  std::string local_dir;

  /// The conf from session settings; keys absent keep the defaults. InvalidArgument naming the
  /// key when a value is not a positive integer (a boolean for boundedMemoryUsage).
  static Result<StateStoreConf> FromSessionConfig(
      const std::map<std::string, std::string>& settings);
};

/// The session config keys FromSessionConfig reads.
inline constexpr const char* kMinDeltasForSnapshotKey =
    "spark.sql.streaming.stateStore.minDeltasForSnapshot";
inline constexpr const char* kMinBatchesToRetainKey = "spark.sql.streaming.minBatchesToRetain";
inline constexpr const char* kBlockCacheSizeMbKey =
    "spark.sql.streaming.stateStore.rocksdb.blockCacheSizeMB";
inline constexpr const char* kWriteBufferSizeMbKey =
    "spark.sql.streaming.stateStore.rocksdb.writeBufferSizeMB";
inline constexpr const char* kMaxWriteBufferNumberKey =
    "spark.sql.streaming.stateStore.rocksdb.maxWriteBufferNumber";
inline constexpr const char* kBoundedMemoryUsageKey =
    "spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage";
inline constexpr const char* kMaxMemoryUsageMbKey =
    "spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB";
inline constexpr const char* kLocalDirKey = "tributary.state.localDir";

/// One loaded version V of a partition's state, being updated into V+1 by one batch. Reads see
/// version V plus this store's own writes, which are written to the local cache (and a local
/// changelog) at once; memory does not grow with them. Exactly one of Commit or Abort ends its use
/// (the destructor aborts); after either the store may not be used, and the provider may Load
/// again.
///
/// Thread-safety: one thread at a time.
class VersionedStateStore : public exec::StateStore {
 public:
  /// The version loaded (V).
  virtual int64_t Version() const = 0;
  /// Makes version V+1 durable: writes `<V+1>.changelog` (replacing one a failed run left),
  /// records V+1 as the local cache's version, writes `<V+1>.snapshot` when due, then deletes
  /// the files retention no longer needs (a failed deletion is retried by the next commit, not
  /// reported). On error version V+1 may or may not exist; version V is intact either way (the
  /// cache is rolled back, or rebuilt by the next Load) and a re-run of the batch overwrites
  /// V+1. Crash points `state.after_changelog` and `state.after_snapshot`.
  virtual Status Commit() = 0;
  /// Discards the writes (the cache puts back version V's values of the keys written, or is
  /// rebuilt by the next Load when that fails); version V+1 is not written.
  virtual void Abort() = 0;
};

/// The state of one (operator, partition) of one checkpoint. Loads one version at a time (a
/// store from Load must be committed or aborted before the next Load).
///
/// Thread-safety: one thread at a time; providers of different partitions are independent.
class StateStoreProvider {
 public:
  /// Opens the provider; touches no file until Load.
  static Result<std::unique_ptr<StateStoreProvider>> Open(storage::FileSystem* fs,
                                                          std::string checkpoint_location,
                                                          int64_t operator_id, int32_t partition_id,
                                                          StateStoreConf conf);
  ~StateStoreProvider();
  StateStoreProvider(const StateStoreProvider&) = delete;
  StateStoreProvider& operator=(const StateStoreProvider&) = delete;

  /// Version `version` of the state (0: empty). NotFound or Corruption naming the checkpoint
  /// file when a snapshot or changelog it needs is missing or damaged.
  Result<std::unique_ptr<VersionedStateStore>> Load(int64_t version);

  /// `<checkpoint>/state/<operatorId>/<partitionId>`.
  const std::string& CheckpointDir() const;
  /// The local RocksDB cache directory of this partition.
  const std::string& LocalDir() const;

  /// Defined in state_store.cc (the loaded stores call back into it).
  class Impl;

 private:
  explicit StateStoreProvider(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// `<checkpoint>/state/<operatorId>/<partitionId>`.
std::string StatePartitionDir(const std::string& checkpoint, int64_t operator_id,
                              int32_t partition_id);

/// What a stateful operator's state holds, for tools and restart checks.
struct OperatorStateMetadata {
  int64_t operator_id = 0;
  /// Spark's operator name, e.g. "stateStoreSave", "dedupe".
  std::string operator_name;
  int32_t num_partitions = 0;
  /// Columns of the keys (grouping encoding of exec/row_key.h).
  columnar::SchemaPtr key_schema;
  /// Columns of the values (after the leading state format version byte).
  columnar::SchemaPtr value_schema;
  /// The first byte of every value.
  int32_t format_version = 1;
};

/// Writes `<checkpoint>/state/<operatorId>/_metadata/metadata` (JSON; replaces).
Status WriteOperatorMetadata(storage::FileSystem* fs, const std::string& checkpoint,
                             const OperatorStateMetadata& metadata);
/// Reads it back; nullopt when the operator has no metadata file. Corruption naming the file
/// when it cannot be parsed.
Result<std::optional<OperatorStateMetadata>> ReadOperatorMetadata(storage::FileSystem* fs,
                                                                  const std::string& checkpoint,
                                                                  int64_t operator_id);

}  // namespace tributary::state

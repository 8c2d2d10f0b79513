// How tributary opens RocksDB stores (the state store, Auto Loader's file tracking): bounded
// memory, no info log, and RocksDB's statuses as tributary's.

#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <rocksdb/cache.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>
#include <rocksdb/write_buffer_manager.h>

#include "tributary/status.h"

namespace tributary::state {

/// Options of a store whose memory is bounded whatever its size: small memtables, the block
/// cache `block_cache` holding index and filter blocks too (partitioned, so a lookup loads one
/// partition of each, not a table's whole filter), a bloom filter per table so a lookup of an
/// absent key mostly reads no data block, a capped number of open files, one
/// background job, and no info log (Debian's RocksDB, built with assertions, aborts when the
/// LOG file cannot be written on a full disk; every failure that matters reaches us as a
/// Status anyway). Creates the store when missing.
rocksdb::Options BoundedMemoryRocksDbOptions(std::shared_ptr<rocksdb::Cache> block_cache);

/// What bounds one store's memory besides its tables on disk.
struct RocksDbMemoryLimits {
  /// Data, index and filter blocks read.
  std::shared_ptr<rocksdb::Cache> block_cache;
  /// Bytes of one memtable (RocksDB's write_buffer_size) ...
  size_t write_buffer_bytes = 4 << 20;
  /// ... and how many of them a column family keeps before writes wait for a flush.
  int max_write_buffer_number = 2;
  /// When set, the memtables of every store sharing it count against its limit, charged to
  /// `block_cache` (one memory budget for all stores of a process).
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffer_manager;
};

/// BoundedMemoryRocksDbOptions with the memtables and caches `limits` gives.
rocksdb::Options BoundedMemoryRocksDbOptions(const RocksDbMemoryLimits& limits);

/// OK, or `context` + ": " + RocksDB's message as Corruption (damaged files) or IOError (a full
/// disk says so and how to resume).
Status FromRocksDbStatus(const rocksdb::Status& status, std::string_view context);

}  // namespace tributary::state

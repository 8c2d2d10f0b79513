// How tributary opens RocksDB stores (the state store, Auto Loader's file tracking): bounded
// memory, no info log, and RocksDB's statuses as tributary's.

#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <rocksdb/cache.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>

#include "tributary/status.h"

namespace tributary::state {

/// Options of a store whose memory is bounded whatever its size: small memtables, the block
/// cache `block_cache` holding index and filter blocks too, a bloom filter per table so a
/// lookup of an absent key mostly reads no block, a capped number of open files, one
/// background job, and no info log (Debian's RocksDB, built with assertions, aborts when the
/// LOG file cannot be written on a full disk; every failure that matters reaches us as a
/// Status anyway). Creates the store when missing.
rocksdb::Options BoundedMemoryRocksDbOptions(std::shared_ptr<rocksdb::Cache> block_cache);

/// OK, or `context` + ": " + RocksDB's message as Corruption (damaged files) or IOError (a full
/// disk says so and how to resume).
Status FromRocksDbStatus(const rocksdb::Status& status, std::string_view context);

}  // namespace tributary::state

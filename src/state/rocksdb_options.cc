#include "state/rocksdb_options.h"

#include <cstdarg>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

namespace tributary::state {

namespace {

/// RocksDB's info log, discarded (see BoundedMemoryRocksDbOptions).
class DiscardingLogger final : public rocksdb::Logger {
 public:
  DiscardingLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::HEADER_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
  void Logv(const rocksdb::InfoLogLevel /*level*/, const char* /*format*/,
            va_list /*ap*/) override {}
  void LogHeader(const char* /*format*/, va_list /*ap*/) override {}
};

}  // namespace

rocksdb::Options BoundedMemoryRocksDbOptions(std::shared_ptr<rocksdb::Cache> block_cache) {
  RocksDbMemoryLimits limits;
  limits.block_cache = std::move(block_cache);
  return BoundedMemoryRocksDbOptions(limits);
}

rocksdb::Options BoundedMemoryRocksDbOptions(const RocksDbMemoryLimits& limits) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = limits.write_buffer_bytes;
  options.max_write_buffer_number = limits.max_write_buffer_number;
  options.write_buffer_manager = limits.write_buffer_manager;
  // A bloom filter over each memtable's keys (a tenth of its size): a lookup of an absent key,
  // the common case of a dedup or a new group, skips the memtables' skip lists.
  options.memtable_prefix_bloom_size_ratio = 0.1;
  options.memtable_whole_key_filtering = true;
  options.max_open_files = 64;
  options.keep_log_file_num = 2;
  options.max_background_jobs = 1;
  options.info_log = std::make_shared<DiscardingLogger>();
  rocksdb::BlockBasedTableOptions table_options;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.block_cache = limits.block_cache;
  table_options.cache_index_and_filter_blocks = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  // Index and filter in partitions of a block each, behind a small top level: the filter of
  // one large table (megabytes for millions of keys) would not fit a small cache, and a lookup
  // would read it all from disk again; a partition costs one block.
  table_options.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table_options.partition_filters = true;
  table_options.pin_top_level_index_and_filter = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  return options;
}

Status FromRocksDbStatus(const rocksdb::Status& status, std::string_view context) {
  if (status.ok()) {
    return Status::OK();
  }
  const std::string message = fmt::format("{}: {}", context, status.ToString());
  if (status.IsCorruption()) {
    return Status::Corruption(message);
  }
  if (status.IsNoSpace()) {
    return Status::IOError(message +
                           " (the disk is full: free space and run again; the stream "
                           "resumes where it stopped)");
  }
  return Status::IOError(message);
}

}  // namespace tributary::state

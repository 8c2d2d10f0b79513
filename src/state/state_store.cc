// The RocksDB state store: see state_store.h for versions and the checkpoint layout, and
// state_files.cc for the changelog and snapshot format.
//
// The local cache of a partition is one RocksDB store with two column families: "default"
// holds the state's keys and values as they are, "tributary_meta" the key "version", whose
// value records what the data is (written in the same WriteBatch as the last data it
// describes, so after any crash the two agree), and while a batch writes, the key "writing":
//
//   version value = version:i64 num_keys:i64 source:u8 (0 none | 1 changelog | 2 snapshot)
//                   checksum:u32          (little-endian)
//   writing value = the version being written:i64
//
// `source` and `checksum` name the checkpoint file that produced the version (version 0 has
// none); Load reuses the cache only while that file is still the one in the checkpoint, so a
// cache never outlives a rewrite of the version it holds. A cache without "version" (being
// rebuilt when the process died) or with "writing" (a batch's writes half applied) is rebuilt.
//
// A batch's writes go into RocksDB as they come, so a state and a batch larger than memory
// only cost disk: memory is the block cache and the memtables, whatever the number of keys.
// Each write is also appended to the batch's changelog in the local directory (`<local
// dir>.changelog`, streamed through a StateFileWriter), which Commit copies into the
// checkpoint under the header that needs the batch's final key count. Before its first write
// the batch marks the cache "writing" and takes a RocksDB snapshot of version V; Abort (or a
// failed Commit) puts back, for every key of the local changelog, its value in that snapshot,
// then clears the mark, so the cache holds version V again without a reload. Commit clears
// the mark together with the new version record. The cache skips RocksDB's write-ahead log
// (the checkpoint's changelogs are the durable log): after a crash it holds whatever was
// flushed, which the "version" and "writing" records describe (atomic_flush).

#include "state/state_store.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <set>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include "common/ascii.h"
#include "common/crash_point.h"
#include "exec/row_key.h"
#include "state/rocksdb_options.h"
#include "state/state_files.h"
#include "storage/local_file_system.h"
#include "storage/local_path.h"
#include "storage/path.h"

namespace tributary::state {

namespace {

constexpr const char* kMetaFamily = "tributary_meta";
constexpr std::string_view kVersionKey = "version";
constexpr std::string_view kWritingKey = "writing";
/// Bytes of a rebuild's WriteBatch before it is written (a snapshot may exceed memory).
constexpr size_t kRebuildBatchBytes = 4 << 20;
/// Bytes (keys, values and a per-entry estimate of the map's own) of a batch's writes held
/// before they go into RocksDB.
constexpr size_t kUnappliedWritesBytes = 8 << 20;
constexpr size_t kUnappliedEntryOverhead = 64;

/// Lookups by string_view in a map of strings.
struct StringHash {
  using is_transparent = void;  // NOLINT(readability-identifier-naming): the std protocol name
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
};

/// Writes to the local cache skip RocksDB's write-ahead log: the checkpoint's changelogs are
/// the durable log, and a cache that lost its unflushed writes in a crash records the older
/// version it holds (data and version record are flushed together: atomic_flush) and rolls
/// forward from the changelogs. Saves a WAL write per commit and its replay on every open.
rocksdb::WriteOptions CacheWriteOptions() {
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  return options;
}

/// The positive integer `settings[key]`, or nullopt when absent.
Result<std::optional<int64_t>> PositiveSetting(const std::map<std::string, std::string>& settings,
                                               const char* key) {
  const auto found = settings.find(key);
  if (found == settings.end()) {
    return std::optional<int64_t>();
  }
  const std::string& text = found->second;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
    return Status::InvalidArgument(
        fmt::format("{} must be a positive integer, got '{}'", key, text));
  }
  return std::optional<int64_t>(value);
}

/// What the local cache holds (its "version" record).
struct CacheVersion {
  enum class Source : uint8_t { kNone = 0, kChangelog = 1, kSnapshot = 2 };
  int64_t version = 0;
  int64_t num_keys = 0;
  Source source = Source::kNone;
  uint32_t checksum = 0;
};

std::string EncodeCacheVersion(const CacheVersion& cached) {
  std::string out;
  const auto append = [&out](uint64_t value, size_t width) {
    for (size_t i = 0; i < width; ++i) {
      out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
    }
  };
  append(static_cast<uint64_t>(cached.version), 8);
  append(static_cast<uint64_t>(cached.num_keys), 8);
  append(static_cast<uint64_t>(cached.source), 1);
  append(cached.checksum, 4);
  return out;
}

std::optional<CacheVersion> DecodeCacheVersion(std::string_view bytes) {
  if (bytes.size() != 21) {
    return std::nullopt;
  }
  const auto read = [bytes](size_t offset, size_t width) {
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) {
      value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
    }
    return value;
  };
  CacheVersion cached;
  cached.version = static_cast<int64_t>(read(0, 8));
  cached.num_keys = static_cast<int64_t>(read(8, 8));
  cached.source = static_cast<CacheVersion::Source>(read(16, 1));
  cached.checksum = static_cast<uint32_t>(read(17, 4));
  return cached;
}

/// The block cache and memtable budget every store of the process shares under
/// boundedMemoryUsage (one per budget size).
struct SharedMemoryBudget {
  std::shared_ptr<rocksdb::Cache> cache;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers;
};

SharedMemoryBudget SharedBudget(int64_t bytes) {
  static std::mutex mutex;
  static std::map<int64_t, SharedMemoryBudget> budgets;
  const std::lock_guard lock(mutex);
  SharedMemoryBudget& budget = budgets[bytes];
  if (budget.cache == nullptr) {
    budget.cache = rocksdb::NewLRUCache(static_cast<size_t>(bytes));
    // Spark's writeBufferCacheRatio: memtables may take half of the budget.
    budget.write_buffers =
        std::make_shared<rocksdb::WriteBufferManager>(static_cast<size_t>(bytes / 2), budget.cache);
  }
  return budget;
}

/// The versions of the changelogs and snapshots in a partition's checkpoint directory.
struct CheckpointFiles {
  std::set<int64_t> changelogs;
  std::set<int64_t> snapshots;
};

}  // namespace

Result<StateStoreConf> StateStoreConf::FromSessionConfig(
    const std::map<std::string, std::string>& settings) {
  StateStoreConf conf;
  TRIBUTARY_ASSIGN_OR_RAISE(auto min_deltas, PositiveSetting(settings, kMinDeltasForSnapshotKey));
  if (min_deltas.has_value()) {
    conf.min_deltas_for_snapshot = *min_deltas;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto retain, PositiveSetting(settings, kMinBatchesToRetainKey));
  if (retain.has_value()) {
    conf.min_batches_to_retain = *retain;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto cache_mb, PositiveSetting(settings, kBlockCacheSizeMbKey));
  if (cache_mb.has_value()) {
    conf.block_cache_bytes = *cache_mb << 20;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto buffer_mb, PositiveSetting(settings, kWriteBufferSizeMbKey));
  if (buffer_mb.has_value()) {
    conf.write_buffer_bytes = *buffer_mb << 20;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto buffers, PositiveSetting(settings, kMaxWriteBufferNumberKey));
  if (buffers.has_value()) {
    conf.max_write_buffer_number = *buffers;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto budget_mb, PositiveSetting(settings, kMaxMemoryUsageMbKey));
  if (budget_mb.has_value()) {
    conf.max_memory_usage_bytes = *budget_mb << 20;
  }
  if (const auto bounded = settings.find(kBoundedMemoryUsageKey); bounded != settings.end()) {
    if (EqualsIgnoreAsciiCase(bounded->second, "true")) {
      conf.bounded_memory_usage = true;
    } else if (EqualsIgnoreAsciiCase(bounded->second, "false")) {
      conf.bounded_memory_usage = false;
    } else {
      return Status::InvalidArgument(fmt::format("{} must be true or false, got '{}'",
                                                 kBoundedMemoryUsageKey, bounded->second));
    }
  }
  const auto local_dir = settings.find(kLocalDirKey);
  if (local_dir != settings.end()) {
    conf.local_dir = local_dir->second;
  }
  return conf;
}

std::string StatePartitionDir(const std::string& checkpoint, int64_t operator_id,
                              int32_t partition_id) {
  return storage::JoinPath(
      storage::JoinPath(storage::JoinPath(checkpoint, "state"), std::to_string(operator_id)),
      std::to_string(partition_id));
}

// ---------------------------------------------------------------------------------------------

class StateStoreProvider::Impl {
 public:
  Impl(storage::FileSystem* fs, std::string checkpoint_dir, std::string local_dir,
       StateStoreConf conf)
      : fs_(fs),
        checkpoint_dir_(std::move(checkpoint_dir)),
        local_dir_(std::move(local_dir)),
        conf_(std::move(conf)) {
    if (conf_.bounded_memory_usage) {
      const SharedMemoryBudget budget = SharedBudget(conf_.max_memory_usage_bytes);
      block_cache_ = budget.cache;
      write_buffers_ = budget.write_buffers;
    } else {
      block_cache_ = rocksdb::NewLRUCache(static_cast<size_t>(conf_.block_cache_bytes));
    }
  }

  ~Impl() {
    EndStore();
    CloseDb();
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  Result<std::unique_ptr<VersionedStateStore>> Load(int64_t version);

  /// What the store of a loaded version calls.
  Result<std::optional<std::string>> Get(std::string_view key) const;
  /// Writes `key` (removes it when `value` is null) into the cache and the local changelog of
  /// version `version` + 1.
  Status Write(int64_t version, std::string_view key, const std::string_view* value);
  Status ForEach(const std::function<Status(std::string_view, std::string_view)>& visit);
  Status Commit(int64_t version, int64_t num_keys);
  /// Puts the cache back to the version loaded (or marks it for a rebuild).
  void Abort();
  /// Ends the use of a loaded store.
  void EndStore();
  int64_t MemoryUsedBytes() const;

  const std::string& CheckpointDir() const { return checkpoint_dir_; }
  const std::string& LocalDir() const { return local_dir_; }

 private:
  std::string Context(std::string_view what) const {
    return fmt::format("state store {} (local cache {}): {}", checkpoint_dir_, local_dir_, what);
  }
  /// The local changelog of the batch being written.
  std::string LocalChangelogPath() const { return local_dir_ + ".changelog"; }
  Status OpenDb();
  void CloseDb();
  Status DestroyDb();
  Result<std::optional<CacheVersion>> ReadCacheVersion() const;
  Result<CheckpointFiles> ListCheckpointFiles() const;
  /// Whether the file the cache's version came from is still the checkpoint's.
  Result<bool> CacheMatchesCheckpoint(const CacheVersion& cached) const;
  Status Rebuild(int64_t version, const CheckpointFiles& files);
  /// Writes the records of a checkpoint file into the cache, then its version record.
  Status Replay(StateFileKind kind, int64_t version);
  /// Before a batch's first write: marks the cache, snapshots version `version`, opens the
  /// local changelog.
  Status BeginWrites(int64_t version);
  /// The local changelog of the batch, finished, to read back.
  Result<std::unique_ptr<StateFileReader>> ReadLocalChangelog();
  /// Copies the local changelog into the checkpoint's changelog of `next`.
  Status WriteChangelog(int64_t next, int64_t num_keys, uint32_t* checksum);
  /// Abort's work; an error leaves the cache marked for a rebuild.
  Status RollBack();
  /// Moves the unapplied writes into RocksDB, in key order.
  Status ApplyWrites();
  Status WriteSnapshot(int64_t version, int64_t num_keys);
  Status Purge(int64_t newest);

  storage::FileSystem* fs_;
  std::string checkpoint_dir_;
  std::string local_dir_;
  StateStoreConf conf_;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* data_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  /// What the cache holds; nullopt when it must be rebuilt.
  std::optional<CacheVersion> cached_;
  bool store_open_ = false;
  /// The local changelog is a cache file too: written where the cache lives, whatever
  /// file system holds the checkpoint.
  storage::LocalFileSystem local_fs_;
  /// While a loaded store has written: the local changelog (null once finished) ...
  std::unique_ptr<StateFileWriter> local_changelog_;
  bool writing_ = false;
  int64_t writing_version_ = 0;
  /// ... and version V as it was loaded, which Abort restores keys from.
  const rocksdb::Snapshot* loaded_ = nullptr;
  /// The batch's latest writes not yet in RocksDB (a value, or nullopt for a removal), at
  /// most kUnappliedWritesBytes: a memtable's skip list takes keys in order several times
  /// faster than at random, and operators write in row order.
  std::unordered_map<std::string, std::optional<std::string>, StringHash, std::equal_to<>>
      unapplied_;
  size_t unapplied_bytes_ = 0;
};

namespace {

/// One loaded version; see VersionedStateStore.
class RocksDbStateStore final : public VersionedStateStore {
 public:
  RocksDbStateStore(StateStoreProvider::Impl* provider, int64_t version, int64_t num_keys)
      : provider_(provider), version_(version), num_keys_(num_keys) {}
  ~RocksDbStateStore() override { Abort(); }
  RocksDbStateStore(const RocksDbStateStore&) = delete;
  RocksDbStateStore& operator=(const RocksDbStateStore&) = delete;

  Result<std::optional<std::string>> Get(std::string_view key) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> value, provider_->Get(key));
    last_read_key_.assign(key);
    last_read_found_ = value.has_value();
    return value;
  }

  Status Put(std::string_view key, std::string_view value) override {
    TRIBUTARY_ASSIGN_OR_RAISE(const bool existed, Exists(key));
    TRIBUTARY_RETURN_NOT_OK(provider_->Write(version_, key, &value));
    if (!existed) {
      ++num_keys_;
    }
    Remember(key, true);
    return Status::OK();
  }

  Status Remove(std::string_view key) override {
    TRIBUTARY_ASSIGN_OR_RAISE(const bool existed, Exists(key));
    if (!existed) {
      return Status::OK();
    }
    TRIBUTARY_RETURN_NOT_OK(provider_->Write(version_, key, nullptr));
    --num_keys_;
    Remember(key, false);
    return Status::OK();
  }

  // The caller knows whether the key holds a value (exec/state_store.h): no lookup.
  Status PutKnown(std::string_view key, std::string_view value, bool exists) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    TRIBUTARY_RETURN_NOT_OK(provider_->Write(version_, key, &value));
    if (!exists) {
      ++num_keys_;
    }
    Remember(key, true);
    return Status::OK();
  }

  Status RemoveExisting(std::string_view key) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    TRIBUTARY_RETURN_NOT_OK(provider_->Write(version_, key, nullptr));
    --num_keys_;
    Remember(key, false);
    return Status::OK();
  }

  Status ForEach(
      const std::function<Status(std::string_view key, std::string_view value)>& visit) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    return provider_->ForEach(visit);
  }

  int64_t NumKeys() const override { return num_keys_; }

  int64_t MemoryUsedBytes() const override { return provider_->MemoryUsedBytes(); }

  int64_t Version() const override { return version_; }

  Status Commit() override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    Status committed = provider_->Commit(version_, num_keys_);
    finished_ = true;
    provider_->EndStore();
    return committed;
  }

  void Abort() override {
    if (!finished_) {
      finished_ = true;
      provider_->Abort();
      provider_->EndStore();
    }
  }

 private:
  Status CheckOpen() const {
    if (finished_) {
      return Status::InvalidArgument(
          fmt::format("state store version {} was already committed or aborted", version_));
    }
    return Status::OK();
  }

  /// Whether `key` holds a value; a write right after a Get of its key (an operator's
  /// read-modify-write) needs no second lookup.
  Result<bool> Exists(std::string_view key) {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen());
    if (last_read_valid_ && key == last_read_key_) {
      return last_read_found_;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<std::string> value, provider_->Get(key));
    return value.has_value();
  }

  void Remember(std::string_view key, bool found) {
    last_read_key_.assign(key);
    last_read_found_ = found;
    last_read_valid_ = true;
  }

  StateStoreProvider::Impl* provider_;
  int64_t version_;
  int64_t num_keys_;
  /// The key last read or written and whether it holds a value now.
  std::string last_read_key_;
  bool last_read_found_ = false;
  bool last_read_valid_ = false;
  bool finished_ = false;
};

}  // namespace

Status StateStoreProvider::Impl::OpenDb() {
  std::error_code error;
  std::filesystem::create_directories(local_dir_, error);
  if (error) {
    return Status::IOError(
        Context(fmt::format("cannot create the directory: {}", error.message())));
  }
  RocksDbMemoryLimits limits;
  limits.block_cache = block_cache_;
  limits.write_buffer_bytes = static_cast<size_t>(conf_.write_buffer_bytes);
  limits.max_write_buffer_number = static_cast<int>(conf_.max_write_buffer_number);
  limits.write_buffer_manager = write_buffers_;
  rocksdb::Options options = BoundedMemoryRocksDbOptions(limits);
  options.create_missing_column_families = true;
  // Without a WAL, the data and version families must reach disk at the same point.
  options.atomic_flush = true;
  const rocksdb::ColumnFamilyOptions family_options(options);
  const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, family_options}, {kMetaFamily, family_options}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(
      rocksdb::DB::Open(rocksdb::DBOptions(options), local_dir_, families, &handles, &raw),
      Context("open")));
  db_.reset(raw);
  data_ = handles[0];
  meta_ = handles[1];
  return Status::OK();
}

void StateStoreProvider::Impl::CloseDb() {
  if (db_ == nullptr) {
    return;
  }
  // The outcome is ignored: the cache is rebuilt whenever it does not match the checkpoint.
  (void)db_->DestroyColumnFamilyHandle(data_);
  (void)db_->DestroyColumnFamilyHandle(meta_);
  (void)db_->Close();
  db_.reset();
  data_ = nullptr;
  meta_ = nullptr;
  cached_.reset();
}

Status StateStoreProvider::Impl::DestroyDb() {
  CloseDb();
  std::error_code error;
  std::filesystem::remove_all(local_dir_, error);
  if (error) {
    return Status::IOError(Context(fmt::format("cannot delete the cache: {}", error.message())));
  }
  return Status::OK();
}

Result<std::optional<CacheVersion>> StateStoreProvider::Impl::ReadCacheVersion() const {
  std::string value;
  // A batch was writing when the process died: its writes are half in the data.
  rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), meta_, kWritingKey, &value);
  if (got.ok()) {
    return std::optional<CacheVersion>();
  }
  if (!got.IsNotFound()) {
    return FromRocksDbStatus(got, Context("reading the cached version"));
  }
  got = db_->Get(rocksdb::ReadOptions(), meta_, kVersionKey, &value);
  if (got.IsNotFound()) {
    return std::optional<CacheVersion>();
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(got, Context("reading the cached version")));
  return DecodeCacheVersion(value);
}

Result<CheckpointFiles> StateStoreProvider::Impl::ListCheckpointFiles() const {
  CheckpointFiles files;
  auto listed = fs_->List(checkpoint_dir_, storage::ListOptions());
  if (!listed.ok() && listed.status().IsNotFound()) {
    return files;
  }
  TRIBUTARY_RETURN_NOT_OK(listed.status());
  for (const storage::FileInfo& info : *listed) {
    if (info.is_directory) {
      continue;
    }
    const auto parsed = ParseStateFileName(storage::BaseName(info.path));
    if (!parsed.has_value()) {
      continue;
    }
    (parsed->kind == StateFileKind::kChangelog ? files.changelogs : files.snapshots)
        .insert(parsed->version);
  }
  return files;
}

Result<bool> StateStoreProvider::Impl::CacheMatchesCheckpoint(const CacheVersion& cached) const {
  if (cached.source == CacheVersion::Source::kNone) {
    return cached.version == 0;
  }
  const StateFileKind kind = cached.source == CacheVersion::Source::kChangelog
                                 ? StateFileKind::kChangelog
                                 : StateFileKind::kSnapshot;
  auto checksum = ReadStateFileChecksum(fs_, StateFilePath(checkpoint_dir_, kind, cached.version));
  if (!checksum.ok()) {
    if (checksum.status().IsNotFound() || checksum.status().IsCorruption()) {
      return false;
    }
    return checksum.status();
  }
  return *checksum == cached.checksum;
}

Result<std::unique_ptr<VersionedStateStore>> StateStoreProvider::Impl::Load(int64_t version) {
  if (store_open_) {
    return Status::InvalidArgument(Context(
        "a loaded version was neither committed nor aborted; end it before loading another"));
  }
  if (version < 0) {
    return Status::InvalidArgument(Context(fmt::format("no state version {}", version)));
  }
  if (db_ == nullptr) {
    Status opened = OpenDb();
    if (opened.IsCorruption()) {
      // A damaged cache is only a cache.
      TRIBUTARY_RETURN_NOT_OK(DestroyDb());
      opened = OpenDb();
    }
    TRIBUTARY_RETURN_NOT_OK(opened);
    TRIBUTARY_ASSIGN_OR_RAISE(cached_, ReadCacheVersion());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const CheckpointFiles files, ListCheckpointFiles());
  bool reuse = cached_.has_value() && cached_->version <= version;
  if (reuse) {
    TRIBUTARY_ASSIGN_OR_RAISE(reuse, CacheMatchesCheckpoint(*cached_));
  }
  for (int64_t v = reuse ? cached_->version + 1 : version + 1; v <= version && reuse; ++v) {
    reuse = files.changelogs.count(v) > 0;
  }
  if (reuse) {
    for (int64_t v = cached_->version + 1; v <= version; ++v) {
      TRIBUTARY_RETURN_NOT_OK(Replay(StateFileKind::kChangelog, v));
    }
  } else {
    TRIBUTARY_RETURN_NOT_OK(Rebuild(version, files));
  }
  store_open_ = true;
  return std::unique_ptr<VersionedStateStore>(
      new RocksDbStateStore(this, version, cached_->num_keys));
}

Status StateStoreProvider::Impl::Rebuild(int64_t version, const CheckpointFiles& files) {
  // The newest snapshot at or below the version, then every changelog after it.
  int64_t base = 0;
  const auto above = files.snapshots.upper_bound(version);
  if (above != files.snapshots.begin()) {
    base = *std::prev(above);
  }
  for (int64_t v = base + 1; v <= version; ++v) {
    if (files.changelogs.count(v) == 0) {
      return Status::NotFound(fmt::format(
          "state file {} is missing: version {} of the state in {} needs {} and the changelogs "
          "{}..{} (the checkpoint lost files, or they were purged by "
          "spark.sql.streaming.minBatchesToRetain)",
          StateFilePath(checkpoint_dir_, StateFileKind::kChangelog, v), version, checkpoint_dir_,
          base == 0 ? std::string("no snapshot")
                    : fmt::format("snapshot {}",
                                  StateFilePath(checkpoint_dir_, StateFileKind::kSnapshot, base)),
          base + 1, version));
    }
  }
  TRIBUTARY_RETURN_NOT_OK(DestroyDb());
  TRIBUTARY_RETURN_NOT_OK(OpenDb());
  if (base > 0) {
    TRIBUTARY_RETURN_NOT_OK(Replay(StateFileKind::kSnapshot, base));
  } else {
    const CacheVersion empty;
    TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(
        db_->Put(CacheWriteOptions(), meta_, kVersionKey, EncodeCacheVersion(empty)),
        Context("recording version 0")));
    cached_ = empty;
  }
  for (int64_t v = base + 1; v <= version; ++v) {
    TRIBUTARY_RETURN_NOT_OK(Replay(StateFileKind::kChangelog, v));
  }
  return Status::OK();
}

Status StateStoreProvider::Impl::Replay(StateFileKind kind, int64_t version) {
  const std::string path = StateFilePath(checkpoint_dir_, kind, version);
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, StateFileReader::Open(fs_, path, kind, version));
  // A changelog goes in one WriteBatch with the version record, so the cache moves from
  // version-1 to version at once. A snapshot, which may exceed memory, goes into an empty
  // cache in several writes; the version record comes with the last.
  const size_t flush_bytes =
      kind == StateFileKind::kSnapshot ? kRebuildBatchBytes : std::numeric_limits<size_t>::max();
  rocksdb::WriteBatch batch;
  StateFileRecord record;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(const bool more, reader->Next(&record));
    if (!more) {
      break;
    }
    const rocksdb::Slice key(record.key.data(), record.key.size());
    if (record.is_delete) {
      batch.Delete(data_, key);
    } else {
      batch.Put(data_, key, rocksdb::Slice(record.value.data(), record.value.size()));
    }
    if (batch.GetDataSize() >= flush_bytes) {
      TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(db_->Write(CacheWriteOptions(), &batch),
                                                Context(fmt::format("loading {}", path))));
      batch.Clear();
    }
  }
  const CacheVersion replayed{version, reader->Header().num_keys,
                              kind == StateFileKind::kSnapshot ? CacheVersion::Source::kSnapshot
                                                               : CacheVersion::Source::kChangelog,
                              reader->Checksum()};
  batch.Put(meta_, kVersionKey, EncodeCacheVersion(replayed));
  const rocksdb::Status written = db_->Write(CacheWriteOptions(), &batch);
  if (!written.ok()) {
    cached_.reset();
    return FromRocksDbStatus(written, Context(fmt::format("loading {}", path)));
  }
  cached_ = replayed;
  return Status::OK();
}

Result<std::optional<std::string>> StateStoreProvider::Impl::Get(std::string_view key) const {
  if (const auto found = unapplied_.find(key); found != unapplied_.end()) {
    return found->second;
  }
  std::string value;
  const rocksdb::Status got =
      db_->Get(rocksdb::ReadOptions(), data_, rocksdb::Slice(key.data(), key.size()), &value);
  if (got.IsNotFound()) {
    return std::optional<std::string>();
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(got, Context("get")));
  return std::optional<std::string>(std::move(value));
}

Status StateStoreProvider::Impl::BeginWrites(int64_t version) {
  // The mark first: once any write may reach the data on disk, a crash must find it.
  std::string writing;
  for (size_t i = 0; i < 8; ++i) {
    writing.push_back(static_cast<char>((static_cast<uint64_t>(version + 1) >> (8 * i)) & 0xFF));
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(
      db_->Put(CacheWriteOptions(), meta_, kWritingKey, writing), Context("marking a batch")));
  writing_ = true;
  writing_version_ = version + 1;
  loaded_ = db_->GetSnapshot();
  TRIBUTARY_ASSIGN_OR_RAISE(
      local_changelog_,
      StateFileWriter::Open(&local_fs_, LocalChangelogPath(),
                            {StateFileKind::kChangelog, version + 1, /*num_keys=*/0}));
  return Status::OK();
}

Status StateStoreProvider::Impl::Write(int64_t version, std::string_view key,
                                       const std::string_view* value) {
  if (!writing_) {
    TRIBUTARY_RETURN_NOT_OK(BeginWrites(version));
  }
  if (local_changelog_ == nullptr) {
    return Status::InvalidArgument(Context("the batch's changelog was already finished"));
  }
  // The changelog first: Abort restores every key it names, so a key must be named before
  // the data changes.
  TRIBUTARY_RETURN_NOT_OK(value != nullptr ? local_changelog_->Put(key, *value)
                                           : local_changelog_->Delete(key));
  auto found = unapplied_.find(key);
  if (found == unapplied_.end()) {
    found = unapplied_.emplace(std::string(key), std::nullopt).first;
    unapplied_bytes_ += key.size() + kUnappliedEntryOverhead;
  } else if (found->second.has_value()) {
    unapplied_bytes_ -= found->second->size();
  }
  if (value != nullptr) {
    found->second.emplace(*value);
    unapplied_bytes_ += value->size();
  } else {
    found->second.reset();
  }
  return unapplied_bytes_ >= kUnappliedWritesBytes ? ApplyWrites() : Status::OK();
}

Status StateStoreProvider::Impl::ApplyWrites() {
  if (unapplied_.empty()) {
    return Status::OK();
  }
  using Entry = std::pair<const std::string, std::optional<std::string>>;
  std::vector<const Entry*> sorted;
  sorted.reserve(unapplied_.size());
  for (const Entry& entry : unapplied_) {
    sorted.push_back(&entry);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->first < b->first; });
  rocksdb::WriteBatch batch;
  for (const Entry* entry : sorted) {
    if (entry->second.has_value()) {
      batch.Put(data_, entry->first, *entry->second);
    } else {
      batch.Delete(data_, entry->first);
    }
  }
  unapplied_.clear();
  unapplied_bytes_ = 0;
  return FromRocksDbStatus(db_->Write(CacheWriteOptions(), &batch), Context("writing"));
}

Status StateStoreProvider::Impl::ForEach(
    const std::function<Status(std::string_view, std::string_view)>& visit) {
  TRIBUTARY_RETURN_NOT_OK(ApplyWrites());
  // An iterator reads the data as of its creation: writes `visit` makes are not seen.
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), data_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    TRIBUTARY_RETURN_NOT_OK(visit(std::string_view(it->key().data(), it->key().size()),
                                  std::string_view(it->value().data(), it->value().size())));
  }
  return FromRocksDbStatus(it->status(), Context("iterating"));
}

Result<std::unique_ptr<StateFileReader>> StateStoreProvider::Impl::ReadLocalChangelog() {
  if (local_changelog_ != nullptr) {
    const Status finished = local_changelog_->Finish();
    local_changelog_.reset();
    TRIBUTARY_RETURN_NOT_OK(finished);
  }
  return StateFileReader::Open(&local_fs_, LocalChangelogPath(), StateFileKind::kChangelog,
                               writing_version_);
}

Status StateStoreProvider::Impl::WriteChangelog(int64_t next, int64_t num_keys,
                                                uint32_t* checksum) {
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer,
      StateFileWriter::Open(fs_, StateFilePath(checkpoint_dir_, StateFileKind::kChangelog, next),
                            {StateFileKind::kChangelog, next, num_keys}));
  if (writing_) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto reader, ReadLocalChangelog());
    StateFileRecord record;
    while (true) {
      TRIBUTARY_ASSIGN_OR_RAISE(const bool more, reader->Next(&record));
      if (!more) {
        break;
      }
      TRIBUTARY_RETURN_NOT_OK(record.is_delete ? writer->Delete(record.key)
                                               : writer->Put(record.key, record.value));
    }
  }
  TRIBUTARY_RETURN_NOT_OK(writer->Finish());
  *checksum = writer->Checksum();
  return Status::OK();
}

Status StateStoreProvider::Impl::Commit(int64_t version, int64_t num_keys) {
  const int64_t next = version + 1;
  // 1. The changelog, durable and atomic: it replaces the one a failed run of this batch left.
  uint32_t checksum = 0;
  Status written = ApplyWrites();
  if (written.ok()) {
    written = WriteChangelog(next, num_keys, &checksum);
  }
  if (!written.ok()) {
    Abort();
    return written;
  }
  CrashPoint("state.after_changelog");
  // 2. The cache, which holds the batch's writes already, becomes version `next`.
  const CacheVersion committed{next, num_keys, CacheVersion::Source::kChangelog, checksum};
  rocksdb::WriteBatch batch;
  batch.Put(meta_, kVersionKey, EncodeCacheVersion(committed));
  batch.Delete(meta_, kWritingKey);
  const rocksdb::Status recorded = db_->Write(CacheWriteOptions(), &batch);
  if (!recorded.ok()) {
    cached_.reset();
    return FromRocksDbStatus(recorded, Context(fmt::format("recording version {}", next)));
  }
  writing_ = false;
  cached_ = committed;
  // 3. A snapshot when due, then the files retention no longer needs. Version `next` is
  // durable by now, so a failed purge does not fail the commit (the next one deletes them).
  if (next % conf_.min_deltas_for_snapshot == 0) {
    TRIBUTARY_RETURN_NOT_OK(WriteSnapshot(next, num_keys));
    CrashPoint("state.after_snapshot");
  }
  (void)Purge(next);
  return Status::OK();
}

void StateStoreProvider::Impl::Abort() {
  if (!writing_) {
    return;
  }
  if (!RollBack().ok()) {
    // The cache is only a cache: the next Load rebuilds it from the checkpoint.
    cached_.reset();
  }
}

Status StateStoreProvider::Impl::RollBack() {
  unapplied_.clear();
  unapplied_bytes_ = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, ReadLocalChangelog());
  rocksdb::ReadOptions as_loaded;
  as_loaded.snapshot = loaded_;
  rocksdb::WriteBatch batch;
  StateFileRecord record;
  std::string value;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(const bool more, reader->Next(&record));
    if (!more) {
      break;
    }
    const rocksdb::Slice key(record.key.data(), record.key.size());
    const rocksdb::Status got = db_->Get(as_loaded, data_, key, &value);
    if (got.ok()) {
      batch.Put(data_, key, value);
    } else if (got.IsNotFound()) {
      batch.Delete(data_, key);
    } else {
      return FromRocksDbStatus(got, Context("rolling back"));
    }
    if (batch.GetDataSize() >= kRebuildBatchBytes) {
      TRIBUTARY_RETURN_NOT_OK(
          FromRocksDbStatus(db_->Write(CacheWriteOptions(), &batch), Context("rolling back")));
      batch.Clear();
    }
  }
  // The mark goes with the last restored keys.
  batch.Delete(meta_, kWritingKey);
  TRIBUTARY_RETURN_NOT_OK(
      FromRocksDbStatus(db_->Write(CacheWriteOptions(), &batch), Context("rolling back")));
  writing_ = false;
  return Status::OK();
}

void StateStoreProvider::Impl::EndStore() {
  store_open_ = false;
  if (writing_) {
    // Neither committed nor rolled back: the cache holds part of a batch.
    cached_.reset();
    writing_ = false;
  }
  local_changelog_.reset();
  unapplied_.clear();
  unapplied_bytes_ = 0;
  if (loaded_ != nullptr) {
    db_->ReleaseSnapshot(loaded_);
    loaded_ = nullptr;
  }
  (void)local_fs_.DeleteFile(LocalChangelogPath());
}

Status StateStoreProvider::Impl::WriteSnapshot(int64_t version, int64_t num_keys) {
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer,
      StateFileWriter::Open(fs_, StateFilePath(checkpoint_dir_, StateFileKind::kSnapshot, version),
                            {StateFileKind::kSnapshot, version, num_keys}));
  rocksdb::ReadOptions read_options;
  // A scan reads every block once: keep it from evicting the blocks point reads need.
  read_options.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options, data_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    TRIBUTARY_RETURN_NOT_OK(writer->Put(std::string_view(it->key().data(), it->key().size()),
                                        std::string_view(it->value().data(), it->value().size())));
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocksDbStatus(it->status(), Context("writing a snapshot")));
  return writer->Finish();
}

Status StateStoreProvider::Impl::Purge(int64_t newest) {
  TRIBUTARY_ASSIGN_OR_RAISE(const CheckpointFiles files, ListCheckpointFiles());
  // Loading the oldest retained version needs the newest snapshot at or below it and every
  // changelog after that snapshot; older files are not needed by any retained version. Files
  // above `newest` are left by runs whose batch never committed: no version loads them. The
  // version before `newest` is always kept: until the streaming layer writes commits/N, a
  // crash re-runs the batch from it.
  const int64_t oldest = newest - std::max<int64_t>(conf_.min_batches_to_retain, 2) + 1;
  int64_t base = -1;
  const auto above = files.snapshots.upper_bound(oldest);
  if (oldest > 0 && above != files.snapshots.begin()) {
    base = *std::prev(above);
  }
  const auto remove = [this](StateFileKind kind, int64_t v) -> Status {
    const Status deleted = fs_->DeleteFile(StateFilePath(checkpoint_dir_, kind, v));
    return deleted.IsNotFound() ? Status::OK() : deleted;
  };
  for (const int64_t v : files.snapshots) {
    if (v < base || v > newest) {
      TRIBUTARY_RETURN_NOT_OK(remove(StateFileKind::kSnapshot, v));
    }
  }
  for (const int64_t v : files.changelogs) {
    if (v <= base || v > newest) {
      TRIBUTARY_RETURN_NOT_OK(remove(StateFileKind::kChangelog, v));
    }
  }
  return Status::OK();
}

int64_t StateStoreProvider::Impl::MemoryUsedBytes() const {
  uint64_t memtables = 0;
  uint64_t readers = 0;
  if (db_ != nullptr) {
    db_->GetIntProperty(data_, rocksdb::DB::Properties::kCurSizeAllMemTables, &memtables);
    db_->GetIntProperty(data_, rocksdb::DB::Properties::kEstimateTableReadersMem, &readers);
  }
  if (write_buffers_ != nullptr) {
    // boundedMemoryUsage: the memtables are charged to the shared cache already.
    memtables = 0;
  }
  return static_cast<int64_t>(block_cache_->GetUsage() + memtables + readers + unapplied_bytes_);
}

// ---------------------------------------------------------------------------------------------

StateStoreProvider::StateStoreProvider(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateStoreProvider::~StateStoreProvider() = default;

Result<std::unique_ptr<StateStoreProvider>> StateStoreProvider::Open(
    storage::FileSystem* fs, std::string checkpoint_location, int64_t operator_id,
    int32_t partition_id, StateStoreConf conf) {
  if (conf.min_deltas_for_snapshot <= 0 || conf.min_batches_to_retain <= 0 ||
      conf.block_cache_bytes <= 0) {
    return Status::InvalidArgument(
        "state store: minDeltasForSnapshot, minBatchesToRetain and the block cache size must be "
        "positive");
  }
  const std::string root =
      conf.local_dir.empty() ? storage::DefaultLocalRoot("tributary-state") : conf.local_dir;
  const uint64_t hash = exec::HashBytes(
      reinterpret_cast<const uint8_t*>(checkpoint_location.data()), checkpoint_location.size());
  std::string local_dir =
      storage::JoinPath(storage::JoinPath(storage::JoinPath(root, fmt::format("{:016x}", hash)),
                                          std::to_string(operator_id)),
                        std::to_string(partition_id));
  std::string checkpoint_dir = StatePartitionDir(checkpoint_location, operator_id, partition_id);
  return std::unique_ptr<StateStoreProvider>(new StateStoreProvider(std::make_unique<Impl>(
      fs, std::move(checkpoint_dir), std::move(local_dir), std::move(conf))));
}

Result<std::unique_ptr<VersionedStateStore>> StateStoreProvider::Load(int64_t version) {
  return impl_->Load(version);
}

const std::string& StateStoreProvider::CheckpointDir() const {
  return impl_->CheckpointDir();
}
const std::string& StateStoreProvider::LocalDir() const {
  return impl_->LocalDir();
}

}  // namespace tributary::state

// The RocksDB store of Auto Loader's seen files.
//
// Keys and values (all integers fixed 8-byte little-endian, "be20" a 20-digit zero-padded
// decimal so that keys sort by it):
//
//   "f" <path>                  -> <mtime ms><size bytes><log batch>   a taken file
//   "m:last_batch"              -> <log batch>   newest source log batch whose files are here
//   "m:count"                   -> <n>           number of "f" keys
//   "m:started"                 -> ""            the source started on this checkpoint before
//   "m:clean_through"           -> <log batch>   newest committed batch queued for cleanSource
//   "q" <be20 mtime> "/" <path> -> ""            a committed file waiting for cleanSource
//   "e" <be20 mtime> "/" <path> -> ""            expiry index: the "f" key of <path>, by age
//   "m:expired_below"           -> <ms>          Purge deleted the entries of files modified
//                                                before this instant
//
// Every Add writes a log batch's "f" keys ("e" keys too with maxFileAge), "m:count" and
// "m:last_batch" in one WriteBatch with sync, so the store is at a batch boundary after any crash;
// the source replays the log entries after "m:last_batch" on open.
//
// Expiry (cloudFiles.maxFileAge, as Databricks expires its file state). Purge range-scans the
// "e" keys below the cutoff (clock - maxFileAge), oldest first and a bounded number per call,
// and deletes each with its "f" key (unless the "f" key was rewritten with another
// modification time, when only the stale "e" key goes), writing "m:expired_below" = cutoff in
// the same WriteBatch. IsNew checks a listed file's modification time against
// "m:expired_below" (and against clock - maxFileAge) before looking its path up, so a deleted
// entry's file, if still present, is refused by age and never ingested twice, even after a
// restart with an earlier clock or without the option. The cost of a trigger is the entries
// that expired, not the store's size. "e" keys are written only while maxFileAge is set (a
// stream without it pays nothing), so entries recorded before the option was set are never
// deleted; they are still refused by age.

#include "streaming/rocksdb_file_tracker.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "state/rocksdb_options.h"

namespace tributary::streaming {

namespace {

constexpr std::string_view kLastBatchKey = "m:last_batch";
constexpr std::string_view kCountKey = "m:count";
constexpr std::string_view kStartedKey = "m:started";
constexpr std::string_view kCleanThroughKey = "m:clean_through";
constexpr std::string_view kExpiredBelowKey = "m:expired_below";
constexpr char kFilePrefix = 'f';
constexpr char kCleanQueuePrefix = 'q';
constexpr char kExpiryPrefix = 'e';
/// Bytes before the path in a "q" or "e" key: the prefix, 20 digits and "/".
constexpr size_t kTimeKeyPathStart = 22;

void AppendInt64(int64_t value, std::string* out) {
  char bytes[8];
  auto bits = static_cast<uint64_t>(value);
  for (char& byte : bytes) {
    byte = static_cast<char>(bits & 0xff);
    bits >>= 8;
  }
  out->append(bytes, sizeof(bytes));
}

int64_t ReadInt64(std::string_view bytes, size_t at) {
  uint64_t bits = 0;
  for (size_t i = 0; i < 8; ++i) {
    bits |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return static_cast<int64_t>(bits);
}

std::string EncodedInt64(int64_t value) {
  std::string out;
  AppendInt64(value, &out);
  return out;
}

std::string FileKey(std::string_view path) {
  std::string key(1, kFilePrefix);
  key += path;
  return key;
}

/// A key ordered by modification time: `prefix`, the time as 20 digits (negative: 0), "/",
/// `path`.
std::string TimeKey(char prefix, int64_t mtime_ms, std::string_view path) {
  return fmt::format("{}{:020}/{}", prefix, std::max<int64_t>(mtime_ms, 0), path);
}

std::string CleanQueueKey(int64_t mtime_ms, std::string_view path) {
  return TimeKey(kCleanQueuePrefix, mtime_ms, path);
}

std::string ExpiryKey(int64_t mtime_ms, std::string_view path) {
  return TimeKey(kExpiryPrefix, mtime_ms, path);
}

/// The modification time of a "q" or "e" key; -1 when the key is not one.
int64_t TimeOfKey(std::string_view key) {
  if (key.size() < kTimeKeyPathStart || key[kTimeKeyPathStart - 1] != '/') {
    return -1;
  }
  int64_t mtime = 0;
  for (size_t i = 1; i < kTimeKeyPathStart - 1; ++i) {
    if (key[i] < '0' || key[i] > '9') {
      return -1;
    }
    mtime = mtime * 10 + (key[i] - '0');
  }
  return mtime;
}

Status FromRocks(const rocksdb::Status& status, std::string_view what, const std::string& dir) {
  return state::FromRocksDbStatus(status, fmt::format("file tracking store {}: {}", dir, what));
}

}  // namespace

RocksDbFileTracker::RocksDbFileTracker(std::unique_ptr<rocksdb::DB> db, std::string dir,
                                       RocksDbFileTrackerOptions options)
    : db_(std::move(db)), dir_(std::move(dir)), options_(options) {}

RocksDbFileTracker::~RocksDbFileTracker() {
  // Close explicitly and ignore the outcome: after a failed write (a full disk) closing may fail
  // too, and nothing is left to do about it here; every Add was synced or reported.
  if (db_ != nullptr) {
    const rocksdb::Status closed = db_->Close();
    (void)closed;
  }
}

Result<std::unique_ptr<RocksDbFileTracker>> RocksDbFileTracker::Open(
    const std::string& dir, RocksDbFileTrackerOptions options) {
  // Bounded memory: an 8 MiB block cache; a lookup of a path never seen mostly reads no block.
  const rocksdb::Options db_options =
      state::BoundedMemoryRocksDbOptions(rocksdb::NewLRUCache(8 << 20));
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status opened = rocksdb::DB::Open(db_options, dir, &raw);
  TRIBUTARY_RETURN_NOT_OK(FromRocks(opened, "open", dir));
  auto tracker = std::unique_ptr<RocksDbFileTracker>(
      new RocksDbFileTracker(std::unique_ptr<rocksdb::DB>(raw), dir, options));
  TRIBUTARY_RETURN_NOT_OK(tracker->LoadState());
  return tracker;
}

Status RocksDbFileTracker::LoadState() {
  const auto read_int = [&](std::string_view key, int64_t fallback) -> Result<int64_t> {
    std::string value;
    const rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key), &value);
    if (got.IsNotFound()) {
      return fallback;
    }
    TRIBUTARY_RETURN_NOT_OK(FromRocks(got, key, dir_));
    if (value.size() != 8) {
      return Status::Corruption(fmt::format("file tracking store {}: key {} holds {} bytes, not 8",
                                            dir_, key, value.size()));
    }
    return ReadInt64(value, 0);
  };
  TRIBUTARY_ASSIGN_OR_RAISE(last_batch_, read_int(kLastBatchKey, -1));
  TRIBUTARY_ASSIGN_OR_RAISE(num_tracked_, read_int(kCountKey, 0));
  TRIBUTARY_ASSIGN_OR_RAISE(clean_queued_through_, read_int(kCleanThroughKey, -1));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t expired_below,
                            read_int(kExpiredBelowKey, std::numeric_limits<int64_t>::min()));
  if (expired_below != std::numeric_limits<int64_t>::min()) {
    expired_below_ms_ = expired_below;
  }
  std::string ignored;
  const rocksdb::Status started =
      db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(kStartedKey), &ignored);
  if (!started.IsNotFound()) {
    TRIBUTARY_RETURN_NOT_OK(FromRocks(started, kStartedKey, dir_));
    started_ = true;
  }
  return Status::OK();
}

bool RocksDbFileTracker::IsNew(const storage::FileInfo& file) const {
  // Age first: an expired entry may be gone, and its file must still not be new.
  if (expired_below_ms_.has_value() && file.modification_time_ms < *expired_below_ms_) {
    return false;
  }
  if (options_.max_file_age_ms.has_value() && now_ms_.has_value() &&
      file.modification_time_ms < *now_ms_ - *options_.max_file_age_ms) {
    return false;
  }
  std::string value;
  const rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), FileKey(file.path), &value);
  if (got.IsNotFound()) {
    return true;
  }
  if (!got.ok() || value.size() != 24) {
    // Reported as new so that Add, which rereads the key, fails the batch with the error
    // rather than a file being skipped silently.
    return true;
  }
  if (!options_.allow_overwrites) {
    return false;
  }
  const int64_t size = ReadInt64(value, 8);
  return ReadInt64(value, 0) != file.modification_time_ms || (size >= 0 && size != file.size);
}

Status RocksDbFileTracker::Add(std::span<const FileEntry> files) {
  rocksdb::WriteBatch batch;
  int64_t count = num_tracked_;
  int64_t last_batch = last_batch_;
  const bool index_expiry = options_.max_file_age_ms.has_value();
  for (const FileEntry& file : files) {
    const std::string key = FileKey(file.path);
    std::string existing;
    const rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), key, &existing);
    if (got.IsNotFound()) {
      ++count;
    } else {
      TRIBUTARY_RETURN_NOT_OK(FromRocks(got, fmt::format("reading {}", file.path), dir_));
      if (index_expiry && existing.size() == 24 &&
          ReadInt64(existing, 0) != file.modification_time_ms) {
        TRIBUTARY_RETURN_NOT_OK(FromRocks(
            batch.Delete(ExpiryKey(ReadInt64(existing, 0), file.path)), "staging a file", dir_));
      }
    }
    std::string value;
    AppendInt64(file.modification_time_ms, &value);
    AppendInt64(file.size, &value);
    AppendInt64(file.batch_id, &value);
    TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Put(key, value), "staging a file", dir_));
    if (index_expiry) {
      TRIBUTARY_RETURN_NOT_OK(FromRocks(
          batch.Put(ExpiryKey(file.modification_time_ms, file.path), ""), "staging a file", dir_));
    }
    last_batch = std::max(last_batch, file.batch_id);
  }
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(batch.Put(kCountKey, EncodedInt64(count)), "staging the count", dir_));
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(batch.Put(kLastBatchKey, EncodedInt64(last_batch)), "staging the batch", dir_));
  rocksdb::WriteOptions write_options;
  write_options.sync = true;
  TRIBUTARY_RETURN_NOT_OK(FromRocks(db_->Write(write_options, &batch),
                                    fmt::format("recording log batch {}", last_batch), dir_));
  num_tracked_ = count;
  last_batch_ = last_batch;
  return Status::OK();
}

Status RocksDbFileTracker::Purge() {
  if (!options_.max_file_age_ms.has_value() || !now_ms_.has_value()) {
    return Status::OK();
  }
  const int64_t cutoff = *now_ms_ - *options_.max_file_age_ms;
  if (cutoff <= 0) {
    return Status::OK();
  }
  const std::string upper = ExpiryKey(cutoff, "");
  if (!expiry_scan_from_.empty() && expiry_scan_from_ >= upper) {
    return Status::OK();
  }
  rocksdb::ReadOptions read_options;
  const rocksdb::Slice upper_bound(upper);
  read_options.iterate_upper_bound = &upper_bound;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options));
  rocksdb::WriteBatch batch;
  int64_t count = num_tracked_;
  size_t expired = 0;
  it->Seek(expiry_scan_from_.empty() ? std::string(1, kExpiryPrefix) : expiry_scan_from_);
  for (; it->Valid() && expired < options_.max_expired_per_purge; it->Next(), ++expired) {
    const std::string_view key(it->key().data(), it->key().size());
    const int64_t mtime = TimeOfKey(key);
    if (key.empty() || key[0] != kExpiryPrefix || mtime < 0) {
      return Status::Corruption(
          fmt::format("file tracking store {}: malformed expiry key {}", dir_, key));
    }
    const std::string_view path = key.substr(kTimeKeyPathStart);
    std::string value;
    const rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), FileKey(path), &value);
    if (!got.IsNotFound()) {
      TRIBUTARY_RETURN_NOT_OK(FromRocks(got, fmt::format("reading {}", path), dir_));
      // A file rewritten since (allowOverwrites) keeps its newer entry and its own "e" key.
      if (value.size() == 24 && std::max<int64_t>(ReadInt64(value, 0), 0) == mtime) {
        TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Delete(FileKey(path)), "staging", dir_));
        --count;
      }
    }
    TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Delete(it->key()), "staging", dir_));
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocks(it->status(), "scanning the expiry index", dir_));
  // Resume after the last key deleted, or at the cutoff when everything below it went.
  std::string resume = it->Valid() ? it->key().ToString() : upper;
  it.reset();
  const int64_t expired_below = std::max(cutoff, expired_below_ms_.value_or(cutoff));
  if (expired == 0) {
    expiry_scan_from_ = std::move(resume);
    return Status::OK();
  }
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(batch.Put(kExpiredBelowKey, EncodedInt64(expired_below)), "staging", dir_));
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(batch.Put(kCountKey, EncodedInt64(count)), "staging the count", dir_));
  TRIBUTARY_RETURN_NOT_OK(FromRocks(db_->Write(rocksdb::WriteOptions(), &batch),
                                    fmt::format("expiring {} entries older than {} ms since the "
                                                "epoch (cloudFiles.maxFileAge)",
                                                expired, cutoff),
                                    dir_));
  num_tracked_ = count;
  expired_below_ms_ = expired_below;
  expiry_scan_from_ = std::move(resume);
  return Status::OK();
}

Status RocksDbFileTracker::MarkStarted(std::span<const storage::FileInfo> existing) {
  rocksdb::WriteBatch batch;
  for (const storage::FileInfo& file : existing) {
    std::string value;
    AppendInt64(file.modification_time_ms, &value);
    AppendInt64(file.size, &value);
    AppendInt64(-1, &value);
    TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Put(FileKey(file.path), value), "staging", dir_));
    if (options_.max_file_age_ms.has_value()) {
      TRIBUTARY_RETURN_NOT_OK(FromRocks(
          batch.Put(ExpiryKey(file.modification_time_ms, file.path), ""), "staging", dir_));
    }
  }
  const int64_t count = num_tracked_ + static_cast<int64_t>(existing.size());
  TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Put(kCountKey, EncodedInt64(count)), "staging", dir_));
  TRIBUTARY_RETURN_NOT_OK(FromRocks(batch.Put(kStartedKey, ""), "staging", dir_));
  rocksdb::WriteOptions write_options;
  write_options.sync = true;
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(db_->Write(write_options, &batch), "recording the first start", dir_));
  num_tracked_ = count;
  started_ = true;
  return Status::OK();
}

Status RocksDbFileTracker::QueueForClean(std::span<const FileEntry> files, int64_t through_batch) {
  rocksdb::WriteBatch batch;
  for (const FileEntry& file : files) {
    TRIBUTARY_RETURN_NOT_OK(FromRocks(
        batch.Put(CleanQueueKey(file.modification_time_ms, file.path), ""), "staging", dir_));
  }
  TRIBUTARY_RETURN_NOT_OK(
      FromRocks(batch.Put(kCleanThroughKey, EncodedInt64(through_batch)), "staging", dir_));
  rocksdb::WriteOptions write_options;
  write_options.sync = true;
  TRIBUTARY_RETURN_NOT_OK(FromRocks(db_->Write(write_options, &batch),
                                    fmt::format("queueing batch {} for cleanSource", through_batch),
                                    dir_));
  clean_queued_through_ = through_batch;
  return Status::OK();
}

Result<std::vector<CleanCandidate>> RocksDbFileTracker::CleanCandidates(int64_t cutoff_ms,
                                                                        size_t limit) const {
  std::vector<CleanCandidate> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  const std::string prefix(1, kCleanQueuePrefix);
  for (it->Seek(prefix); it->Valid() && out.size() < limit; it->Next()) {
    const std::string_view key(it->key().data(), it->key().size());
    const int64_t mtime = TimeOfKey(key);
    if (key.empty() || key[0] != kCleanQueuePrefix || mtime < 0 || mtime > cutoff_ms) {
      break;
    }
    out.push_back({std::string(key.substr(kTimeKeyPathStart)), mtime});
  }
  TRIBUTARY_RETURN_NOT_OK(FromRocks(it->status(), "scanning the cleanSource queue", dir_));
  return out;
}

Status RocksDbFileTracker::Dequeue(std::span<const CleanCandidate> done) {
  rocksdb::WriteBatch batch;
  for (const CleanCandidate& file : done) {
    TRIBUTARY_RETURN_NOT_OK(FromRocks(
        batch.Delete(CleanQueueKey(file.modification_time_ms, file.path)), "staging", dir_));
  }
  return FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "dequeueing cleaned files", dir_);
}

}  // namespace tributary::streaming

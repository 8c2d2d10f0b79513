// FileSystem: the one seam through which tributary touches storage (DESIGN.md, "Atomic storage
// primitive"). Every layer above talks to this interface, so it runs unchanged over the local
// disk, an object store or the fault injector of tests.
//
// Guarantees every implementation gives:
//
// 1. Paths. A path is a '/'-separated string. Directories may be implicit (object stores): a
//    directory exists when something exists under it, CreateDir may do nothing, and writes
//    create missing parent directories.
// 2. Atomic visibility. WriteFile and OutputStream::Close publish a whole file at once: a reader
//    sees either no file (or, for WriteMode::kReplace, the previous file) or the complete new
//    one, never a prefix. A stream that is not closed publishes nothing.
// 3. Put-if-absent. WriteMode::kPutIfAbsent publishes only when the path is free; of several
//    writers racing for one path, in one process or many, on one machine or many, exactly one
//    succeeds and every other fails with AlreadyExists, leaving the winner's file untouched.
//    This is the only coordination tributary relies on: there are no locks. "Free" means no
//    file at that exact path; object stores (S3's If-None-Match) do not also refuse a path
//    that is an implicit directory or lies below a file, as local file systems do.
// 4. Durability. A mutating operation that returns OK is durable: its effect survives a crash
//    or power loss from then on (files and directory entries are synced before returning).
// 5. Unknown outcomes. A mutating operation that fails with an IOError may still have taken
//    effect (the file was published but syncing its directory failed; an object store timed
//    out after committing). Callers that must know re-read. AlreadyExists, NotFound and
//    InvalidArgument are certain: nothing was changed.
// 6. Listing. List returns entries sorted by path (bytewise, as object stores do) with size and
//    modification time, and hides the staging files of writes in flight.
// 7. Errors. NotFound when a path does not exist, AlreadyExists as above, IOError otherwise
//    with the retryable bit set for transient failures (interrupted, busy, timed out). Every
//    message names the path (and offset where relevant) and the operating system's reason.
// 8. Thread-safety. FileSystem methods may be called concurrently from any thread. A
//    RandomAccessFile serves concurrent reads. An OutputStream is used by one thread at a time.
//
// Staging files. Implementations that stage whole-file writes next to their target name the
// staging file StagingPath(target, nonce): "<dir>/<name>.<16 hex digits>.tmp", with a leading dot
// when the target or its directory is hidden. A crash may leave one behind; it is never visible
// under the target's name, List hides it unless asked, and a visible one is an unreferenced file
// that VACUUM collects.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// What List and GetFileInfo report about one path.
struct FileInfo {
  /// The full path: the listed directory joined with the entry's relative path.
  std::string path;
  /// Bytes in the file; 0 for a directory.
  int64_t size = 0;
  /// Last modification, milliseconds since the Unix epoch.
  int64_t modification_time_ms = 0;
  /// True for a directory (on object stores: a common prefix of a non-recursive listing).
  bool is_directory = false;
  /// True for an entry that is neither a regular file nor a directory: a FIFO, socket or
  /// device, which OpenForRead refuses (reading one may never end). Data file listings skip
  /// these.
  bool is_special = false;

  bool operator==(const FileInfo& other) const = default;
};

/// What List returns.
struct ListOptions {
  /// List every file below the directory, at any depth, without directory entries. When false,
  /// list the immediate children, files and directories. Default: false.
  bool recursive = false;
  /// Return only entries whose path relative to the listed directory sorts strictly after this
  /// one, e.g. "00000000000000000010" lists `_delta_log/` from version 10 on. Default: "" (all).
  std::string start_after;
  /// Also return staging files that crashed writers left behind (for cleanup). Default: false.
  bool include_staging_files = false;
};

/// Requests an object store served, cumulative since its FileSystem was made, so a caller can
/// show what an interval cost (the difference of two readings). Retries count: they are billed.
struct StorageRequestCounts {
  /// ListObjectsV2 pages.
  int64_t list_requests = 0;
  /// GetObject (whole or ranged) and HeadObject.
  int64_t get_requests = 0;
  /// PutObject, CopyObject and the requests of a multipart upload.
  int64_t put_requests = 0;
  /// DeleteObject, and DeleteObjects once per batch.
  int64_t delete_requests = 0;
  /// Bytes of response bodies received by GETs.
  int64_t bytes_read = 0;
  /// Bytes of request bodies sent by PUTs.
  int64_t bytes_written = 0;

  StorageRequestCounts& operator+=(const StorageRequestCounts& other);
  /// The requests made between reading `earlier` and reading this.
  StorageRequestCounts operator-(const StorageRequestCounts& earlier) const;
  bool operator==(const StorageRequestCounts& other) const = default;
};

/// How a whole-file write treats an existing file at its path.
enum class WriteMode : int8_t {
  /// Fail with AlreadyExists when the path exists: commits, offsets, data files.
  kPutIfAbsent,
  /// Atomically replace the file at the path, if any: pointers such as `_last_checkpoint`.
  kReplace,
};

/// A file open for reading at arbitrary offsets (footers, column chunks).
///
/// Thread-safety: ReadInto, ReadAt and Size may be called concurrently.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  /// The path the file was opened with.
  virtual const std::string& Path() const = 0;

  /// The file's length in bytes.
  virtual Result<int64_t> Size() const = 0;

  /// Fills `out` with the bytes at [offset, offset + out.size()). A range that does not lie
  /// wholly inside the file is an InvalidArgument error naming the path, offset and file end;
  /// there are no short reads.
  virtual Status ReadInto(int64_t offset, std::span<char> out) const = 0;

  /// The `length` bytes at `offset`, under ReadInto's rules. Checks the range against Size()
  /// before allocating, so a length taken from a damaged file cannot exhaust memory.
  Result<std::string> ReadAt(int64_t offset, int64_t length) const;
};

/// A file being written sequentially, invisible until Close publishes it whole (guarantee 2).
/// Destroying a stream that was not closed abandons it like Abort.
///
/// After any failed call the stream is dead: Append and Close fail and nothing is published
/// (except when Close itself fails after publishing; guarantee 5).
///
/// Thread-safety: one thread at a time.
class OutputStream {
 public:
  virtual ~OutputStream() = default;

  /// The path the stream publishes to.
  virtual const std::string& Path() const = 0;

  /// Bytes appended so far.
  virtual int64_t Position() const = 0;

  /// Adds `data` at the end of the file.
  virtual Status Append(std::string_view data) = 0;

  /// Makes the file durable and publishes it under Path(): with WriteMode::kPutIfAbsent fails
  /// with AlreadyExists (publishing nothing) when the path exists. Closing again after success
  /// returns OK; closing an aborted or failed stream is an InvalidArgument error.
  virtual Status Close() = 0;

  /// Discards everything appended; nothing becomes visible. Does nothing on a closed stream.
  virtual Status Abort() = 0;
};

/// A store of files addressed by path. See the guarantees at the top of this file.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Opens the file at `path` for ranged reads. NotFound when it does not exist;
  /// InvalidArgument, without blocking, when it is not a regular file (FileInfo::is_special).
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;

  /// Size, modification time and kind of `path`. NotFound when it does not exist.
  virtual Result<FileInfo> GetFileInfo(const std::string& path) = 0;

  /// The entries below the directory `dir`, sorted by path, per `options`. NotFound when `dir`
  /// does not exist (on object stores: when nothing exists below it).
  virtual Result<std::vector<FileInfo>> List(const std::string& dir,
                                             const ListOptions& options) = 0;

  /// Creates the directory `path` and any missing parents; OK when it already exists.
  /// AlreadyExists when `path` or a parent is a file.
  virtual Status CreateDir(const std::string& path) = 0;

  /// Deletes the file at `path`. NotFound when it does not exist.
  virtual Status DeleteFile(const std::string& path) = 0;

  /// Deletes every file in `paths`; a path already gone is no error (VACUUM, cleanup). Object
  /// stores batch the requests (S3's DeleteObjects takes 1000 keys); the default deletes one by
  /// one. On an error some of the files may be deleted.
  virtual Status DeleteFiles(const std::vector<std::string>& paths);

  /// Deletes the directory at `path`: with `recursive` everything below it too, otherwise it
  /// must be empty. NotFound when it does not exist.
  virtual Status DeleteDir(const std::string& path, bool recursive) = 0;

  /// Moves the file or directory `src` to `dst`, creating `dst`'s parents. Never replaces:
  /// AlreadyExists when `dst` exists. NotFound when `src` does not exist. Atomic on local
  /// file systems; on object stores a copy then a delete, so not atomic there.
  virtual Status Rename(const std::string& src, const std::string& dst) = 0;

  /// Writes `data` as the whole file at `path`, creating parent directories, atomically and
  /// durably per `mode` (guarantees 2 to 4). With kPutIfAbsent: AlreadyExists when `path`
  /// exists, and the existing file is left as it was.
  virtual Status WriteFile(const std::string& path, std::string_view data, WriteMode mode) = 0;

  /// Opens a stream that publishes at `path` per `mode` when closed, creating parent
  /// directories. The stream does not depend on this object staying alive.
  virtual Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path,
                                                                 WriteMode mode) = 0;

  /// Requests made so far to an object store; all zero for the local disk.
  virtual StorageRequestCounts RequestCounts() const { return {}; }

  /// The whole file at `path`. NotFound when it does not exist.
  Result<std::string> ReadFile(const std::string& path);

  /// Whether something exists at `path`; errors other than NotFound are passed on.
  Result<bool> Exists(const std::string& path);
};

/// The staging file for a write to `path`: "<dir>/<name>.<nonce as 16 hex digits>.tmp", or
/// "<dir>/.<name>.<nonce>.tmp" when the name or its directory is hidden (starts with '.' or
/// '_', as `_delta_log`).
std::string StagingPath(std::string_view path, uint64_t nonce);

/// Whether `name`, a last path component, has the form StagingPath gives.
bool IsStagingFileName(std::string_view name);

/// The last path component a staging file named `name` was written for; empty when `name` is
/// no staging file's name.
std::string_view StagingTargetName(std::string_view name);

}  // namespace tributary::storage

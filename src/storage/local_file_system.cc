#include "storage/local_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "storage/local_path.h"
#include "storage/output_stream_state.h"
#include "storage/path.h"

namespace tributary::storage {

namespace {

/// Appends smaller than this are gathered before reaching write(2).
constexpr size_t kStreamBufferSize = size_t{64} * 1024;
/// Attempts at a fresh staging name when a random one is taken.
constexpr int kMaxStagingAttempts = 8;
constexpr mode_t kFileMode = 0644;
constexpr mode_t kDirMode = 0755;

bool IsTransient(int err) {
  return err == EINTR || err == EAGAIN || err == EWOULDBLOCK || err == EBUSY || err == ETIMEDOUT;
}

/// `message` followed by the reason for `err`, with the code the guarantees promise.
Status ErrnoStatus(int err, std::string_view message) {
  std::string text = fmt::format("{}: {}", message, std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(std::move(text));
    case EEXIST:
      return Status::AlreadyExists(std::move(text));
    default:
      return Status::IOError(std::move(text), IsTransient(err));
  }
}

template <typename F>
auto RetryOnEintr(F&& f) {
  auto result = f();
  while (result == -1 && errno == EINTR) {
    result = f();
  }
  return result;
}

/// Closes `fd`. Linux releases the descriptor even when close(2) fails, so EINTR is not retried.
int CloseFd(int fd) {
  int rc = ::close(fd);
  return (rc == -1 && errno == EINTR) ? 0 : rc;
}

std::string DirOrCurrent(std::string_view dir) {
  return dir.empty() ? "." : std::string(dir);
}

/// The POSIX path `path` names (a file URI's path part); InvalidArgument for an empty path or
/// a URI of another scheme.
Result<std::string> CheckPath(const std::string& path, std::string_view operation) {
  if (path.empty()) {
    return Status::InvalidArgument(fmt::format("cannot {} '': empty path", operation));
  }
  return LocalPath(path);
}

/// Whole-file writes need a file name: "a/" or "/" name a directory.
Result<std::string> CheckFilePath(const std::string& path, std::string_view operation) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string local, CheckPath(path, operation));
  if (local.back() == '/' || BaseName(local).empty()) {
    return Status::InvalidArgument(
        fmt::format("cannot {} '{}': the path names a directory", operation, path));
  }
  return local;
}

int64_t ModificationTimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

FileInfo MakeFileInfo(std::string path, const struct stat& st) {
  bool is_directory = S_ISDIR(st.st_mode);
  FileInfo info{std::move(path), is_directory ? 0 : static_cast<int64_t>(st.st_size),
                ModificationTimeMs(st), is_directory};
  info.is_special = !is_directory && !S_ISREG(st.st_mode);
  return info;
}

/// A nonce distinct across threads and processes, including children forked after a thread
/// drew from its generator; O_EXCL catches the rare collision anyway.
uint64_t NewNonce() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 generator{std::random_device{}()};
  uint64_t pid = static_cast<uint64_t>(::getpid());
  return generator() ^ (pid * 0x9e3779b97f4a7c15ULL) ^ counter.fetch_add(1);
}

/// fsyncs the directory `dir` so that entries added to or removed from it are durable.
Status SyncDir(std::string_view dir) {
  std::string path = DirOrCurrent(dir);
  int fd = RetryOnEintr([&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (fd == -1) {
    return ErrnoStatus(errno, fmt::format("cannot open directory '{}' to sync it", path));
  }
  int rc = ::fsync(fd);
  int err = errno;
  CloseFd(fd);
  // Some file systems cannot sync directories (EINVAL); their entries are durable as they go.
  if (rc == -1 && err != EINVAL) {
    return ErrnoStatus(err, fmt::format("cannot sync directory '{}'", path));
  }
  return Status::OK();
}

/// mkdir -p that syncs the parent of each directory it creates.
Status MakeDirs(std::string_view dir) {
  if (dir.empty() || dir == "/" || dir == ".") {
    return Status::OK();
  }
  std::string path(dir);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (::mkdir(path.c_str(), kDirMode) == 0) {
      return SyncDir(ParentPath(path));
    }
    int err = errno;
    if (err == EEXIST) {
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return Status::OK();
      }
      return Status::AlreadyExists(
          fmt::format("cannot create directory '{}': a file exists at that path", path));
    }
    if (err == ENOTDIR) {
      return Status::AlreadyExists(
          fmt::format("cannot create directory '{}': a parent is not a directory", path));
    }
    if (err != ENOENT || attempt > 0) {
      return ErrnoStatus(err, fmt::format("cannot create directory '{}'", path));
    }
    TRIBUTARY_RETURN_NOT_OK(MakeDirs(ParentPath(path)));
  }
  return Status::Internal(fmt::format("cannot create directory '{}': unreachable", path));
}

/// Moves `src` to `dst` unless `dst` exists; returns 0 or the errno. Uses
/// renameat2(RENAME_NOREPLACE), or link(2) then unlink(2) where the file system lacks it; a
/// failure to unlink `src` then is reported only when `require_source_removed`.
int MoveNoReplace(const std::string& src, const std::string& dst, bool require_source_removed) {
  int rc = RetryOnEintr(
      [&] { return ::renameat2(AT_FDCWD, src.c_str(), AT_FDCWD, dst.c_str(), RENAME_NOREPLACE); });
  if (rc == 0) {
    return 0;
  }
  int err = errno;
  if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP) {
    return err;
  }
  if (RetryOnEintr([&] { return ::link(src.c_str(), dst.c_str()); }) == -1) {
    return errno;
  }
  if (::unlink(src.c_str()) == -1 && require_source_removed) {
    return errno;
  }
  return 0;
}

class LocalRandomAccessFile final : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalRandomAccessFile() override { CloseFd(fd_); }
  LocalRandomAccessFile(const LocalRandomAccessFile&) = delete;
  LocalRandomAccessFile& operator=(const LocalRandomAccessFile&) = delete;

  const std::string& Path() const override { return path_; }

  Result<int64_t> Size() const override {
    struct stat st {};
    if (::fstat(fd_, &st) == -1) {
      return ErrnoStatus(errno, fmt::format("cannot stat '{}'", path_));
    }
    return static_cast<int64_t>(st.st_size);
  }

  Status ReadInto(int64_t offset, std::span<char> out) const override {
    if (offset < 0) {
      return Status::InvalidArgument(fmt::format(
          "cannot read {} bytes at offset {} of '{}': negative offset", out.size(), offset, path_));
    }
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = RetryOnEintr([&] {
        return ::pread(fd_, out.data() + done, out.size() - done,
                       static_cast<off_t>(offset + static_cast<int64_t>(done)));
      });
      if (n == -1) {
        return ErrnoStatus(
            errno, fmt::format("cannot read {} bytes at offset {} of '{}'", out.size() - done,
                               offset + static_cast<int64_t>(done), path_));
      }
      if (n == 0) {
        return Status::InvalidArgument(
            fmt::format("cannot read {} bytes at offset {} of '{}': file ends at byte {}",
                        out.size(), offset, path_, offset + static_cast<int64_t>(done)));
      }
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_;
};

/// Appends to a staging file; Close syncs it and publishes it under the target path.
class LocalOutputStream final : public OutputStream {
 public:
  LocalOutputStream(std::string path, WriteMode mode, std::string staging_path, int fd)
      : path_(std::move(path)), staging_path_(std::move(staging_path)), mode_(mode), fd_(fd) {}
  ~LocalOutputStream() override { Discard(); }
  LocalOutputStream(const LocalOutputStream&) = delete;
  LocalOutputStream& operator=(const LocalOutputStream&) = delete;

  /// Creates the staging file for `path`, and its parent directories when they are missing.
  static Result<std::unique_ptr<LocalOutputStream>> Open(const std::string& target,
                                                         WriteMode mode) {
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckFilePath(target, "write"));
    bool made_parents = false;
    for (int attempt = 0;; ++attempt) {
      std::string staging_path = StagingPath(path, NewNonce());
      int fd = RetryOnEintr([&] {
        return ::open(staging_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode);
      });
      if (fd >= 0) {
        return std::make_unique<LocalOutputStream>(path, mode, std::move(staging_path), fd);
      }
      int err = errno;
      if (err == ENOENT && !made_parents) {
        TRIBUTARY_RETURN_NOT_OK(MakeDirs(ParentPath(path)));
        made_parents = true;
        continue;
      }
      if (err == EEXIST && attempt + 1 < kMaxStagingAttempts) {
        continue;
      }
      return ErrnoStatus(
          err, fmt::format("cannot create staging file '{}' for '{}'", staging_path, path));
    }
  }

  const std::string& Path() const override { return path_; }

  int64_t Position() const override { return position_; }

  Status Append(std::string_view data) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen("append to"));
    if (buffer_.size() + data.size() <= kStreamBufferSize) {
      buffer_.append(data);
    } else {
      TRIBUTARY_RETURN_NOT_OK(Flush());
      if (data.size() >= kStreamBufferSize) {
        TRIBUTARY_RETURN_NOT_OK(WriteAll(data));
      } else {
        buffer_.append(data);
      }
    }
    position_ += static_cast<int64_t>(data.size());
    return Status::OK();
  }

  Status Close() override {
    if (state_ == OutputStreamState::kClosed) {
      return Status::OK();
    }
    TRIBUTARY_RETURN_NOT_OK(CheckOpen("close"));
    TRIBUTARY_RETURN_NOT_OK(Flush());
    if (::fsync(fd_) == -1) {
      return Fail(ErrnoStatus(
          errno, fmt::format("cannot sync staging file '{}' for '{}'", staging_path_, path_)));
    }
    int rc = CloseFd(fd_);
    fd_ = -1;
    if (rc == -1) {
      return Fail(ErrnoStatus(
          errno, fmt::format("cannot close staging file '{}' for '{}'", staging_path_, path_)));
    }
    TRIBUTARY_RETURN_NOT_OK(MoveIntoPlace());
    // Published: from here on a failure leaves the file visible but perhaps not durable.
    Status synced = SyncDir(ParentPath(path_));
    state_ = synced.ok() ? OutputStreamState::kClosed : OutputStreamState::kFailed;
    return synced;
  }

  Status Abort() override {
    if (state_ != OutputStreamState::kClosed) {
      Discard();
      if (state_ == OutputStreamState::kOpen) {
        state_ = OutputStreamState::kAborted;
      }
    }
    return Status::OK();
  }

 private:
  Status CheckOpen(std::string_view operation) const {
    return CheckOutputStreamOpen(state_, operation, path_);
  }

  Status Flush() {
    if (buffer_.empty()) {
      return Status::OK();
    }
    Status status = WriteAll(buffer_);
    buffer_.clear();
    return status;
  }

  Status WriteAll(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = RetryOnEintr([&] { return ::write(fd_, data.data(), data.size()); });
      if (n == -1) {
        return Fail(ErrnoStatus(
            errno, fmt::format("cannot write {} bytes at offset {} of staging file '{}' for '{}'",
                               data.size(), written_, staging_path_, path_)));
      }
      data.remove_prefix(static_cast<size_t>(n));
      written_ += n;
    }
    return Status::OK();
  }

  /// Renames the synced staging file to the target per mode_.
  Status MoveIntoPlace() {
    if (mode_ == WriteMode::kReplace) {
      if (RetryOnEintr([&] { return ::rename(staging_path_.c_str(), path_.c_str()); }) == -1) {
        return Fail(ErrnoStatus(errno, fmt::format("cannot replace '{}' with staging file '{}'",
                                                   path_, staging_path_)));
      }
    } else {
      int err = MoveNoReplace(staging_path_, path_, /*require_source_removed=*/false);
      if (err != 0) {
        return Fail(ErrnoStatus(err, fmt::format("cannot create '{}'", path_)));
      }
    }
    staging_exists_ = false;
    return Status::OK();
  }

  /// Discards the stream and returns `status`.
  Status Fail(Status status) {
    Discard();
    state_ = OutputStreamState::kFailed;
    return status;
  }

  /// Closes the descriptor and removes the staging file, ignoring errors: nothing refers to it.
  void Discard() {
    if (fd_ != -1) {
      CloseFd(fd_);
      fd_ = -1;
    }
    if (staging_exists_) {
      ::unlink(staging_path_.c_str());
      staging_exists_ = false;
    }
    buffer_.clear();
  }

  std::string path_;
  std::string staging_path_;
  WriteMode mode_;
  int fd_;
  bool staging_exists_ = true;
  OutputStreamState state_ = OutputStreamState::kOpen;
  std::string buffer_;
  int64_t position_ = 0;
  int64_t written_ = 0;
};

/// Collects the entries below root/relative_dir into `out`, unsorted.
Status ListInto(const std::string& root, const std::string& relative_dir,
                const ListOptions& options, std::vector<FileInfo>* out) {
  std::string dir = relative_dir.empty() ? root : JoinPath(root, relative_dir);
  int fd = RetryOnEintr([&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (fd == -1) {
    return ErrnoStatus(errno, fmt::format("cannot list '{}'", dir));
  }
  DIR* stream = ::fdopendir(fd);
  if (stream == nullptr) {
    int err = errno;
    CloseFd(fd);
    return ErrnoStatus(err, fmt::format("cannot list '{}'", dir));
  }
  std::unique_ptr<DIR, int (*)(DIR*)> closer(stream, ::closedir);
  while (true) {
    errno = 0;
    struct dirent* entry = ::readdir(stream);
    if (entry == nullptr) {
      if (errno != 0) {
        return ErrnoStatus(errno, fmt::format("cannot list '{}'", dir));
      }
      return Status::OK();
    }
    std::string_view name = entry->d_name;
    if (name == "." || name == ".." ||
        (!options.include_staging_files && IsStagingFileName(name))) {
      continue;
    }
    struct stat st {};
    if (::fstatat(fd, entry->d_name, &st, 0) == -1) {
      if (errno == ENOENT) {
        continue;  // Deleted while listing, or a dangling symbolic link.
      }
      return ErrnoStatus(errno, fmt::format("cannot stat '{}'", JoinPath(dir, name)));
    }
    std::string relative = JoinPath(relative_dir, name);
    bool is_directory = S_ISDIR(st.st_mode);
    if (is_directory && options.recursive) {
      if (entry->d_type == DT_LNK) {
        continue;
      }
      Status status = ListInto(root, relative, options, out);
      if (!status.ok() && !status.IsNotFound()) {
        return status;
      }
      continue;
    }
    if (relative > options.start_after) {
      out->push_back(MakeFileInfo(JoinPath(root, relative), st));
    }
  }
}

/// rm -r without following symbolic links; does not sync.
Status RemoveTree(const std::string& dir) {
  int fd = RetryOnEintr(
      [&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
  if (fd == -1) {
    return ErrnoStatus(errno, fmt::format("cannot delete directory '{}'", dir));
  }
  DIR* stream = ::fdopendir(fd);
  if (stream == nullptr) {
    int err = errno;
    CloseFd(fd);
    return ErrnoStatus(err, fmt::format("cannot delete directory '{}'", dir));
  }
  std::unique_ptr<DIR, int (*)(DIR*)> closer(stream, ::closedir);
  std::vector<std::string> subdirs;
  while (true) {
    errno = 0;
    struct dirent* entry = ::readdir(stream);
    if (entry == nullptr) {
      if (errno != 0) {
        return ErrnoStatus(errno, fmt::format("cannot list '{}' to delete it", dir));
      }
      break;
    }
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    struct stat st {};
    if (::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
      if (errno == ENOENT) {
        continue;
      }
      return ErrnoStatus(errno, fmt::format("cannot stat '{}'", JoinPath(dir, name)));
    }
    if (S_ISDIR(st.st_mode)) {
      subdirs.push_back(JoinPath(dir, name));
    } else if (::unlinkat(fd, entry->d_name, 0) == -1 && errno != ENOENT) {
      return ErrnoStatus(errno, fmt::format("cannot delete '{}'", JoinPath(dir, name)));
    }
  }
  for (const std::string& subdir : subdirs) {
    Status status = RemoveTree(subdir);
    if (!status.ok() && !status.IsNotFound()) {
      return status;
    }
  }
  if (::rmdir(dir.c_str()) == -1) {
    return ErrnoStatus(errno, fmt::format("cannot delete directory '{}'", dir));
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<RandomAccessFile>> LocalFileSystem::OpenForRead(const std::string& target) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckPath(target, "open"));
  // O_NONBLOCK: opening a FIFO without a writer (or a device) would otherwise wait forever;
  // such files are refused below, and regular files ignore the flag.
  int fd = RetryOnEintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK); });
  if (fd == -1) {
    return ErrnoStatus(errno, fmt::format("cannot open '{}' for reading", path));
  }
  struct stat st {};
  int err = ::fstat(fd, &st) == -1 ? errno : (S_ISDIR(st.st_mode) ? EISDIR : 0);
  if (err != 0) {
    CloseFd(fd);
    return ErrnoStatus(err, fmt::format("cannot open '{}' for reading", path));
  }
  if (!S_ISREG(st.st_mode)) {
    CloseFd(fd);
    return Status::InvalidArgument(fmt::format(
        "cannot open '{}' for reading: not a regular file (a FIFO, socket or device)", path));
  }
  return std::unique_ptr<RandomAccessFile>(std::make_unique<LocalRandomAccessFile>(path, fd));
}

Result<FileInfo> LocalFileSystem::GetFileInfo(const std::string& target) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckPath(target, "stat"));
  struct stat st {};
  if (::stat(path.c_str(), &st) == -1) {
    return ErrnoStatus(errno, fmt::format("cannot stat '{}'", path));
  }
  return MakeFileInfo(path, st);
}

Result<std::vector<FileInfo>> LocalFileSystem::List(const std::string& dir,
                                                    const ListOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string root, CheckPath(dir, "list"));
  while (root.size() > 1 && root.back() == '/') {
    root.pop_back();
  }
  std::vector<FileInfo> entries;
  TRIBUTARY_RETURN_NOT_OK(ListInto(root, "", options, &entries));
  std::sort(entries.begin(), entries.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  return entries;
}

Status LocalFileSystem::CreateDir(const std::string& target) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckPath(target, "create directory"));
  return MakeDirs(path);
}

Status LocalFileSystem::DeleteFile(const std::string& target) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckFilePath(target, "delete"));
  if (::unlink(path.c_str()) == -1) {
    return ErrnoStatus(errno, fmt::format("cannot delete '{}'", path));
  }
  return SyncDir(ParentPath(path));
}

Status LocalFileSystem::DeleteDir(const std::string& target, bool recursive) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, CheckPath(target, "delete directory"));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == -1) {
    return ErrnoStatus(errno, fmt::format("cannot delete directory '{}'", path));
  }
  if (!S_ISDIR(st.st_mode)) {
    return ErrnoStatus(ENOTDIR, fmt::format("cannot delete directory '{}'", path));
  }
  if (recursive) {
    TRIBUTARY_RETURN_NOT_OK(RemoveTree(path));
  } else if (::rmdir(path.c_str()) == -1) {
    return ErrnoStatus(errno, fmt::format("cannot delete directory '{}'", path));
  }
  return SyncDir(ParentPath(path));
}

Status LocalFileSystem::Rename(const std::string& source, const std::string& destination) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string src, CheckPath(source, "rename"));
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string dst, CheckPath(destination, "rename to"));
  int err = MoveNoReplace(src, dst, /*require_source_removed=*/true);
  if (err == ENOENT) {
    struct stat st {};
    if (::lstat(src.c_str(), &st) == -1) {
      return ErrnoStatus(errno, fmt::format("cannot rename '{}' to '{}'", src, dst));
    }
    TRIBUTARY_RETURN_NOT_OK(MakeDirs(ParentPath(dst)));
    err = MoveNoReplace(src, dst, /*require_source_removed=*/true);
  }
  if (err != 0) {
    return ErrnoStatus(err, fmt::format("cannot rename '{}' to '{}'", src, dst));
  }
  TRIBUTARY_RETURN_NOT_OK(SyncDir(ParentPath(dst)));
  if (ParentPath(src) != ParentPath(dst)) {
    TRIBUTARY_RETURN_NOT_OK(SyncDir(ParentPath(src)));
  }
  return Status::OK();
}

Status LocalFileSystem::WriteFile(const std::string& path, std::string_view data, WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<LocalOutputStream> stream,
                            LocalOutputStream::Open(path, mode));
  TRIBUTARY_RETURN_NOT_OK(stream->Append(data));
  return stream->Close();
}

Result<std::unique_ptr<OutputStream>> LocalFileSystem::OpenOutputStream(const std::string& path,
                                                                        WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<LocalOutputStream> stream,
                            LocalOutputStream::Open(path, mode));
  return std::unique_ptr<OutputStream>(std::move(stream));
}

}  // namespace tributary::storage

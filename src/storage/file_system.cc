#include "storage/file_system.h"

#include <fmt/format.h>

#include "storage/path.h"

namespace tributary::storage {

namespace {

constexpr std::string_view kStagingSuffix = ".tmp";
constexpr size_t kNonceDigits = 16;

bool IsLowerHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool IsHiddenName(std::string_view name) {
  return !name.empty() && (name.front() == '.' || name.front() == '_');
}

}  // namespace

// ".<target>.<16 hex digits>.tmp" for a hidden target (or one in a hidden directory),
// "<target>.<16 hex digits>.tmp" for a visible one.
std::string_view StagingTargetName(std::string_view name) {
  constexpr size_t kTail = 1 + kNonceDigits + kStagingSuffix.size();
  if (name.size() <= kTail || !name.ends_with(kStagingSuffix)) {
    return {};
  }
  std::string_view tail = name.substr(name.size() - kTail);
  if (tail.front() != '.') {
    return {};
  }
  for (char c : tail.substr(1, kNonceDigits)) {
    if (!IsLowerHexDigit(c)) {
      return {};
    }
  }
  std::string_view target = name.substr(0, name.size() - kTail);
  if (target.starts_with('.')) {
    target.remove_prefix(1);
    return target;
  }
  return IsHiddenName(target) ? std::string_view() : target;
}

StorageRequestCounts& StorageRequestCounts::operator+=(const StorageRequestCounts& other) {
  list_requests += other.list_requests;
  get_requests += other.get_requests;
  put_requests += other.put_requests;
  delete_requests += other.delete_requests;
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  return *this;
}

StorageRequestCounts StorageRequestCounts::operator-(const StorageRequestCounts& earlier) const {
  StorageRequestCounts difference = *this;
  difference.list_requests -= earlier.list_requests;
  difference.get_requests -= earlier.get_requests;
  difference.put_requests -= earlier.put_requests;
  difference.delete_requests -= earlier.delete_requests;
  difference.bytes_read -= earlier.bytes_read;
  difference.bytes_written -= earlier.bytes_written;
  return difference;
}

Status FileSystem::DeleteFiles(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    Status deleted = DeleteFile(path);
    if (!deleted.ok() && !deleted.IsNotFound()) {
      return deleted;
    }
  }
  return Status::OK();
}

Result<std::string> RandomAccessFile::ReadAt(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0) {
    return Status::InvalidArgument(
        fmt::format("cannot read {} bytes at offset {} of '{}': "
                    "negative offset or length",
                    length, offset, Path()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t size, Size());
  if (offset > size || length > size - offset) {
    return Status::InvalidArgument(
        fmt::format("cannot read {} bytes at offset {} of '{}': file ends at byte {}", length,
                    offset, Path(), size));
  }
  std::string data(static_cast<size_t>(length), '\0');
  TRIBUTARY_RETURN_NOT_OK(ReadInto(offset, std::span<char>(data.data(), data.size())));
  return data;
}

Result<std::string> FileSystem::ReadFile(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<RandomAccessFile> file, OpenForRead(path));
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t size, file->Size());
  return file->ReadAt(0, size);
}

Result<bool> FileSystem::Exists(const std::string& path) {
  Result<FileInfo> info = GetFileInfo(path);
  if (info.ok()) {
    return true;
  }
  if (info.status().IsNotFound()) {
    return false;
  }
  return info.status();
}

std::string StagingPath(std::string_view path, uint64_t nonce) {
  // Staging keeps the target's visibility. A visible data file's staging copy is visible too,
  // so a writer that died mid-file leaves an ordinary unreferenced file that any Delta
  // engine's VACUUM deletes once past the retention (Spark's writers leave plain part-* files
  // the same way). Log, checkpoint and other hidden targets stage hidden, as Spark's
  // CheckpointFileManager does, where no reader's listing may take them for real entries.
  const std::string_view parent = ParentPath(path);
  const std::string_view name = BaseName(path);
  const bool hidden = IsHiddenName(name) || IsHiddenName(BaseName(parent));
  return JoinPath(parent,
                  fmt::format("{}{}.{:016x}{}", hidden ? "." : "", name, nonce, kStagingSuffix));
}

bool IsStagingFileName(std::string_view name) {
  return !StagingTargetName(name).empty();
}

}  // namespace tributary::storage

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

}  // namespace

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
  return JoinPath(ParentPath(path),
                  fmt::format(".{}.{:016x}{}", BaseName(path), nonce, kStagingSuffix));
}

bool IsStagingFileName(std::string_view name) {
  // "." + name + "." + 16 hex digits + ".tmp", where name is not empty.
  constexpr size_t kTail = 1 + kNonceDigits + kStagingSuffix.size();
  if (name.size() < 1 + 1 + kTail || name.front() != '.' || !name.ends_with(kStagingSuffix)) {
    return false;
  }
  std::string_view tail = name.substr(name.size() - kTail);
  if (tail.front() != '.') {
    return false;
  }
  for (char c : tail.substr(1, kNonceDigits)) {
    if (!IsLowerHexDigit(c)) {
      return false;
    }
  }
  return true;
}

}  // namespace tributary::storage

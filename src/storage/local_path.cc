#include "storage/local_path.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::storage {

namespace {

bool IsSchemeChar(char c) {
  return IsAsciiLetter(c) || IsAsciiDigit(c) || c == '+' || c == '-' || c == '.';
}

bool IsFileScheme(std::string_view scheme) {
  return EqualsIgnoreAsciiCase(scheme, "file");
}

bool IsS3Scheme(std::string_view scheme) {
  return EqualsIgnoreAsciiCase(scheme, "s3") || EqualsIgnoreAsciiCase(scheme, "s3a");
}

Status UnsupportedScheme(std::string_view scheme, std::string_view path) {
  return Status::InvalidArgument(
      fmt::format("unsupported URI scheme '{}' in '{}': tributary reads and writes local paths, "
                  "file://, s3:// and s3a:// URIs",
                  scheme, path));
}

// S3's rules for bucket names that a URI can carry: 3 to 63 lower-case letters, digits, '.'
// and '-', starting and ending with a letter or digit.
bool IsValidBucketName(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) {
    return false;
  }
  for (char c : bucket) {
    if (!(IsAsciiDigit(c) || (c >= 'a' && c <= 'z') || c == '.' || c == '-')) {
      return false;
    }
  }
  return bucket.front() != '.' && bucket.front() != '-' && bucket.back() != '.' &&
         bucket.back() != '-';
}

// "s3a://b/x//y/" -> "s3://b/x/y": one spelling of the scheme, empty key segments dropped.
Result<std::string> ObjectStorePath(std::string_view scheme, std::string_view path) {
  std::string_view rest = path.substr(scheme.size() + 1);
  if (!rest.starts_with("//")) {
    return Status::InvalidArgument(fmt::format(
        "object store URI '{}' has no bucket (give {}://bucket/key)", path, AsciiLower(scheme)));
  }
  rest.remove_prefix(2);
  const size_t slash = rest.find('/');
  const std::string_view bucket = rest.substr(0, slash);
  if (!IsValidBucketName(bucket)) {
    return Status::InvalidArgument(fmt::format(
        "object store URI '{}': '{}' is not a valid bucket name (3 to 63 lower-case letters, "
        "digits, '.' and '-')",
        path, bucket));
  }
  // s3a:// (Hadoop's spelling) names the same objects as s3://; one spelling everywhere, so the
  // identities a checkpoint records and the paths Auto Loader tracks do not change with it.
  std::string out = "s3://" + std::string(bucket);
  std::string_view key = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  while (!key.empty()) {
    const size_t start = key.find_first_not_of('/');
    if (start == std::string_view::npos) {
      break;
    }
    key.remove_prefix(start);
    const size_t end = key.find('/');
    out += '/';
    out += key.substr(0, end);
    key = end == std::string_view::npos ? std::string_view() : key.substr(end);
  }
  return out;
}

}  // namespace

std::string_view UriScheme(std::string_view path) {
  if (path.empty() || !IsAsciiLetter(path[0])) {
    return {};
  }
  size_t end = 1;
  while (end < path.size() && IsSchemeChar(path[end])) {
    ++end;
  }
  if (end + 1 >= path.size() || path[end] != ':' || path[end + 1] != '/') {
    return {};
  }
  return path.substr(0, end);
}

Result<std::string> LocalPath(std::string_view path) {
  const std::string_view scheme = UriScheme(path);
  if (scheme.empty()) {
    return std::string(path);
  }
  if (IsS3Scheme(scheme)) {
    return Status::InvalidArgument(fmt::format(
        "unsupported URI scheme '{}' in '{}' for the local file system: an object store URI",
        scheme, path));
  }
  if (!IsFileScheme(scheme)) {
    return UnsupportedScheme(scheme, path);
  }
  std::string_view rest = path.substr(scheme.size() + 1);
  // file:///data -> /data; file://localhost/data -> /data; file:/data -> /data.
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") {
      return Status::InvalidArgument(
          fmt::format("unsupported file URI '{}': host '{}' is not this machine (use file:///path)",
                      path, host));
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  // No path, or only the root: most likely a location built from an empty variable
  // ('file://${DIR}'), which must not name the whole file system.
  if (rest.find_first_not_of('/') == std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("file URI '{}' has no path after the host (give file:///path)", path));
  }
  std::string local;
  local.reserve(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != '%') {
      local.push_back(rest[i]);
      continue;
    }
    const int high = i + 2 < rest.size() ? HexDigitValue(rest[i + 1]) : -1;
    const int low = high >= 0 ? HexDigitValue(rest[i + 2]) : -1;
    if (low < 0) {
      return Status::InvalidArgument(fmt::format(
          "invalid percent-escape '{}' at byte {} of file URI '{}' (give %XX, XX hexadecimal)",
          rest.substr(i, 3), path.size() - rest.size() + i, path));
    }
    local.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return local;
}

bool IsObjectStorePath(std::string_view path) {
  return IsS3Scheme(UriScheme(path));
}

Result<std::string> StoragePath(std::string_view path) {
  const std::string_view scheme = UriScheme(path);
  if (IsS3Scheme(scheme)) {
    return ObjectStorePath(scheme, path);
  }
  return LocalPath(path);
}

Status CheckSupportedScheme(std::string_view path) {
  return StoragePath(path).status();
}

std::string DefaultLocalRoot(std::string_view name) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  return base + "/" + std::string(name);
}

std::string LocalWorkingDir(std::string_view root, std::string_view location) {
  // FNV-1a: stable across processes and builds, which std::hash is not promised to be.
  uint64_t hash = 14695981039346656037ULL;
  for (char c : location) {
    hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  }
  return fmt::format("{}/{:016x}", root, hash);
}

namespace {

// `path` without ".", ".." and repeated or trailing '/'.
std::string NormalSpelling(const std::filesystem::path& path) {
  std::string out = path.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

}  // namespace

Result<std::string> AbsolutePath(std::string_view path) {
  if (IsObjectStorePath(path)) {
    return StoragePath(path);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string local, LocalPath(path));
  if (local.empty()) {
    return Status::InvalidArgument("cannot resolve an empty path");
  }
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(local, error);
  if (error) {
    return Status::IOError(fmt::format("cannot make '{}' absolute: {}", local, error.message()));
  }
  return NormalSpelling(absolute);
}

Result<std::string> CanonicalPath(std::string_view path) {
  if (IsObjectStorePath(path)) {
    return StoragePath(path);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string absolute, AbsolutePath(path));
  std::error_code error;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, error);
  if (error) {
    return Status::IOError(
        fmt::format("cannot resolve '{}' (symbolic links): {}", absolute, error.message()));
  }
  return NormalSpelling(canonical);
}

Result<bool> IsSameOrInside(std::string_view path, std::string_view dir) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string inner, CanonicalPath(path));
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string outer, CanonicalPath(dir));
  if (inner == outer || outer == "/") {
    return true;
  }
  return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/';
}

}  // namespace tributary::storage

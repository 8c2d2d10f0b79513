#include "storage/local_path.h"

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
  if (!IsFileScheme(scheme)) {
    return Status::InvalidArgument(
        fmt::format("unsupported URI scheme '{}' in '{}': supported are file:// and local paths "
                    "(object storage is not supported yet)",
                    scheme, path));
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

Status CheckSupportedScheme(std::string_view path) {
  return LocalPath(path).status();
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

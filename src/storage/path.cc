#include "storage/path.h"

namespace tributary::storage {

namespace {

std::string_view DropTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  return path;
}

}  // namespace

std::string JoinPath(std::string_view base, std::string_view name) {
  while (!name.empty() && name.front() == '/') {
    name.remove_prefix(1);
  }
  if (base.empty()) {
    return std::string(name);
  }
  base = DropTrailingSlashes(base);
  std::string joined(base);
  if (joined.back() != '/') {
    joined.push_back('/');
  }
  joined.append(name);
  return joined;
}

std::string_view ParentPath(std::string_view path) {
  path = DropTrailingSlashes(path);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return {};
  }
  if (slash == 0) {
    return path.substr(0, 1);
  }
  return DropTrailingSlashes(path.substr(0, slash));
}

std::string_view BaseName(std::string_view path) {
  path = DropTrailingSlashes(path);
  if (path == "/") {
    return {};
  }
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace tributary::storage

// Small helpers of FileSystem tests (tests/storage/*file_system*_test.cc).

#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "storage/file_system.h"

namespace tributary::testing {

/// `size` bytes made of `tag` repeated, so a prefix or a mix of two contents is detectable.
inline std::string RepeatedContent(const std::string& tag, size_t size) {
  std::string data;
  data.reserve(size + tag.size());
  while (data.size() < size) {
    data += tag;
  }
  data.resize(size);
  return data;
}

/// The paths of `entries`, in order.
inline std::vector<std::string> EntryPaths(const std::vector<storage::FileInfo>& entries) {
  std::vector<std::string> paths;
  paths.reserve(entries.size());
  for (const storage::FileInfo& entry : entries) {
    paths.push_back(entry.path);
  }
  return paths;
}

}  // namespace tributary::testing

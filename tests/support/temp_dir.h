// A fresh directory under /tmp for one test, removed with everything in it afterwards (the
// fixture every layer's tests write real files into).

#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <gtest/gtest.h>

namespace tributary::testing {

/// Owns a directory made by mkdtemp(3); the destructor deletes it recursively.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/tributary-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed for " << pattern;
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The directory's absolute path, without a trailing '/'.
  const std::string& Path() const { return path_; }

  /// `relative` below the directory.
  std::string Join(std::string_view relative) const { return path_ + "/" + std::string(relative); }

 private:
  std::string path_;
};

}  // namespace tributary::testing

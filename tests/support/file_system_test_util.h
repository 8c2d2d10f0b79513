// Helpers of FileSystem tests (tests/storage/*file_system*_test.cc).

#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

/// Forks `count` children that wait until all are forked, then each run `body(i)` and exit
/// with its return value. Collects the exit codes in child order.
class ForkedRace {
 public:
  explicit ForkedRace(int count) : count_(count) {}

  template <typename Body>
  std::vector<int> Run(Body body) {
    int gate[2];
    if (::pipe(gate) != 0) {
      ADD_FAILURE() << "pipe failed";
      return {};
    }
    std::vector<pid_t> children;
    for (int i = 0; i < count_; ++i) {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::close(gate[1]);
        char byte;
        // Blocks until the parent closes its end: every child starts together.
        while (::read(gate[0], &byte, 1) == -1 && errno == EINTR) {
        }
        ::_exit(body(i));
      }
      children.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);
    std::vector<int> codes;
    for (pid_t pid : children) {
      int wstatus = 0;
      ::waitpid(pid, &wstatus, 0);
      codes.push_back(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 100 + WTERMSIG(wstatus));
    }
    return codes;
  }

 private:
  int count_;
};

}  // namespace tributary::testing

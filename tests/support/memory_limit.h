// Runs a test body in a child process whose address space may grow by a bounded amount, so that
// an allocation sized by an untrusted number fails (and the child aborts) instead of passing
// unnoticed on a machine with memory to spare.

#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace tributary::testing {

/// The exit code RunUnderMemoryLimit returns for a child killed by a signal: kChildKilledBase +
/// the signal number.
constexpr int kChildKilledBase = 100;
/// The exit code of a child whose body threw (std::bad_alloc from an allocation past the limit).
constexpr int kChildThrew = 99;

/// The calling process's address space in bytes (VmSize), or 0 when /proc cannot tell.
inline int64_t AddressSpaceBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      int64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    std::getline(status, key);
  }
  return 0;
}

/// Runs `body` (returning an exit code 0..98) in a forked child whose address space may grow by
/// `headroom_bytes` beyond what it has at the fork (RLIMIT_AS; relative, so sanitizer shadow
/// mappings do not count against it). Returns the child's exit code, kChildThrew when `body`
/// threw, or kChildKilledBase + the signal that killed it.
template <typename Body>
int RunUnderMemoryLimit(int64_t headroom_bytes, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const auto limit = static_cast<rlim_t>(AddressSpaceBytes() + headroom_bytes);
    struct rlimit rl = {limit, limit};
    ::setrlimit(RLIMIT_AS, &rl);
    // The child must end here: an exception reaching GoogleTest would run the remaining tests.
    int code = kChildThrew;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (WIFSIGNALED(wstatus)) {
    return kChildKilledBase + WTERMSIG(wstatus);
  }
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : kChildKilledBase;
}

}  // namespace tributary::testing

#include "common/crash_point.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tributary::crash_point_internal {

namespace {

struct CrashTarget {
  std::string name;
  int64_t visit = 0;
};

/// The point armed by environment variable `variable` (TRIBUTARY_CRASH_AT or
/// TRIBUTARY_HANG_AT), parsed once before main; an empty name when unset or malformed.
CrashTarget ParseCrashTarget(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) {
    return {};
  }
  const std::string_view text(value);
  const size_t colon = text.rfind(':');
  int64_t visit = 0;
  if (colon != std::string_view::npos && colon > 0) {
    const char* begin = text.data() + colon + 1;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(begin, end, visit);
    if (error == std::errc() && stop == end && begin != end && visit >= 1) {
      return {std::string(text.substr(0, colon)), visit};
    }
  }
  std::fprintf(stderr, "%s=\"%s\" ignored: expected <crash point name>:<visit number, 1 or more>\n",
               variable, value);
  return {};
}

const CrashTarget kCrashTarget = ParseCrashTarget("TRIBUTARY_CRASH_AT");
std::atomic<int64_t> crash_target_visits{0};
// TRIBUTARY_HANG_AT=<name>:<n>: the n-th visit blocks its thread forever instead, as a read from
// a dead network mount would (tests of stopping a run that is stuck in I/O).
const CrashTarget kHangTarget = ParseCrashTarget("TRIBUTARY_HANG_AT");
std::atomic<int64_t> hang_target_visits{0};
// TRIBUTARY_PAUSE_AT=<name>:<n> with TRIBUTARY_PAUSE_FILE=<path>: the n-th visit creates
// <path>.reached and waits until <path> exists, then goes on. Tests of concurrent writers
// stop one process at a known instant (a DML holding its actions before its commit), let
// another commit, and release the first: the interleaving is chosen, not raced for.
const CrashTarget kPauseTarget = ParseCrashTarget("TRIBUTARY_PAUSE_AT");
std::atomic<int64_t> pause_target_visits{0};

void PauseUntilReleased() {
  const char* release = std::getenv("TRIBUTARY_PAUSE_FILE");
  if (release == nullptr) {
    std::fprintf(stderr, "TRIBUTARY_PAUSE_AT needs TRIBUTARY_PAUSE_FILE; not pausing\n");
    return;
  }
  const std::string reached = std::string(release) + ".reached";
  const int fd = ::open(reached.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ::close(fd);
  }
  const timespec interval{0, 5'000'000};
  while (::access(release, F_OK) != 0) {
    ::nanosleep(&interval, nullptr);
  }
}

}  // namespace

std::atomic<bool> armed{!kCrashTarget.name.empty() || !kHangTarget.name.empty() ||
                        !kPauseTarget.name.empty()};

void Reach(std::string_view name) {
  if (name == kPauseTarget.name &&
      pause_target_visits.fetch_add(1, std::memory_order_relaxed) + 1 == kPauseTarget.visit) {
    PauseUntilReleased();
  }
  if (name == kHangTarget.name &&
      hang_target_visits.fetch_add(1, std::memory_order_relaxed) + 1 == kHangTarget.visit) {
    while (true) {
      ::pause();
    }
  }
  if (name != kCrashTarget.name) {
    return;
  }
  if (crash_target_visits.fetch_add(1, std::memory_order_relaxed) + 1 == kCrashTarget.visit) {
    ::kill(::getpid(), SIGKILL);
    // SIGKILL cannot be caught or blocked, so this is not reached; if it were, dying
    // differently is better than running on past the crash.
    std::abort();
  }
}

}  // namespace tributary::crash_point_internal

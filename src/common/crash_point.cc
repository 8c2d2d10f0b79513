#include "common/crash_point.h"

#include <signal.h>
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

}  // namespace

std::atomic<bool> armed{!kCrashTarget.name.empty() || !kHangTarget.name.empty()};

void Reach(std::string_view name) {
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

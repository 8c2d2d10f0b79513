#include "common/thread_count.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

namespace tributary {

Result<int> ResolveThreadCount(int requested) {
  if (requested < 0) {
    return Status::InvalidArgument("thread count must be positive, got " +
                                   std::to_string(requested));
  }
  if (requested > 0) {
    return requested;
  }
  if (const char* env = std::getenv(kThreadsEnvVar); env != nullptr && *env != '\0') {
    std::string_view text(env);
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
      return Status::InvalidArgument(std::string(kThreadsEnvVar) +
                                     " must be a positive integer, got '" + env + "'");
    }
    return value;
  }
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace tributary

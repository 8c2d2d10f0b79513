#include "common/thread_count.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace tributary {

namespace {

// `text` as a positive int, or nullopt.
std::optional<int> PositiveInt(std::string_view text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Result<int> ResolveThreadCount(int requested) {
  if (requested < 0) {
    return Status::InvalidArgument("thread count must be positive, got " +
                                   std::to_string(requested));
  }
  if (requested > 0) {
    return requested;
  }
  if (const char* env = std::getenv(kThreadsEnvVar); env != nullptr && *env != '\0') {
    const std::optional<int> value = PositiveInt(env);
    if (!value.has_value()) {
      return Status::InvalidArgument(std::string(kThreadsEnvVar) +
                                     " must be a positive integer, got '" + env + "'");
    }
    return *value;
  }
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

Result<int> ResolveThreadCount(const std::map<std::string, std::string>& config) {
  auto it = config.find(kThreadsConfigKey);
  if (it == config.end()) {
    return ResolveThreadCount(0);
  }
  const std::optional<int> value = PositiveInt(it->second);
  if (!value.has_value()) {
    return Status::InvalidArgument(std::string(kThreadsConfigKey) +
                                   " must be a positive integer, got '" + it->second + "'");
  }
  return *value;
}

}  // namespace tributary

// What the streaming benchmarks share: `--name value` options, percentiles and the log-shaped
// JSON records their data sets are made of.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace tributary::bench {

/// Options of the form --name value from argv[first] on, keyed by name without the dashes.
inline std::map<std::string, std::string> ParseOptions(int argc, char** argv, int first) {
  std::map<std::string, std::string> options;
  for (int i = first; i + 1 < argc; i += 2) {
    std::string_view key = argv[i];
    if (key.starts_with("--")) {
      key.remove_prefix(2);
    }
    options[std::string(key)] = argv[i + 1];
  }
  return options;
}

inline int64_t IntOption(const std::map<std::string, std::string>& options, const std::string& name,
                         int64_t fallback) {
  auto it = options.find(name);
  return it == options.end() ? fallback : std::atoll(it->second.c_str());
}

/// The p-th percentile (0..1, nearest rank) of `values`; NaN when there are none.
inline double Percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return NAN;
  }
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(std::lround(p * static_cast<double>(values.size() - 1)));
  return values[std::min(index, values.size() - 1)];
}

/// The i-th log line (one JSON object, about 200 bytes): ts (211 ms apart from 2025-11-29),
/// user_id, status (about 40% 'active'), country, latency_ms, path, bytes.
inline std::string LogLine(std::mt19937_64& rng, int64_t i) {
  static constexpr const char* kStatus[] = {"active",  "active", "inactive",
                                            "pending", "active", "banned"};
  static constexpr const char* kCountry[] = {"US", "DE", "FR", "BR", "IN", "JP", "GB", "NG"};
  static constexpr const char* kPath[] = {"/api/v1/orders", "/api/v1/users/profile",
                                          "/static/app.js", "/checkout/confirm",
                                          "/search?q=lakehouse+streaming"};
  const int64_t micros = 1764374400000000LL + i * 211000;
  const int64_t seconds = micros / 1000000;
  return fmt::format(
      R"({{"ts":"2025-11-{:02}T{:02}:{:02}:{:02}.{:06}Z","user_id":{},"status":"{}",)"
      R"("country":"{}","latency_ms":{:.3f},"path":"{}","bytes":{}}})",
      1 + seconds / 86400 % 28, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60,
      micros % 1000000, rng() % 1000000, kStatus[rng() % 6], kCountry[rng() % 8],
      static_cast<double>(rng() % 100000) / 97.0, kPath[rng() % 5], rng() % 5000000);
}

}  // namespace tributary::bench

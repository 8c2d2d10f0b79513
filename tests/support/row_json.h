// Rows from the public API as JSON lines: what the api, pipeline and differential tests compare.

#pragma once

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tributary/row.h"

namespace tributary::testing {

/// Each row's ToJson(), in the order given.
inline std::vector<std::string> Json(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    out.push_back(row.ToJson());
  }
  return out;
}

/// Each row's ToJson(), sorted: for results whose row order is not defined.
inline std::vector<std::string> SortedJson(const std::vector<Row>& rows) {
  std::vector<std::string> out = Json(rows);
  std::sort(out.begin(), out.end());
  return out;
}

/// `lines` sorted: an expected result to compare with SortedJson.
inline std::vector<std::string> Sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

/// A timestamp (microseconds since the epoch, UTC) as Row::ToJson prints it:
/// "2024-05-01T10:00:07.000000Z".
inline std::string IsoText(int64_t micros) {
  constexpr int64_t kMicrosPerSecond = 1000000;
  const auto seconds = static_cast<std::time_t>(micros / kMicrosPerSecond);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros % kMicrosPerSecond);
}

}  // namespace tributary::testing

// Rows from the public API as JSON lines: what the api, pipeline and differential tests compare.

#pragma once

#include <algorithm>
#include <string>
#include <vector>

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

}  // namespace tributary::testing

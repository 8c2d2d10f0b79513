// The rows of a Delta table as sorted canonical JSON lines: what the delta tests compare.

#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"

namespace tributary::testing {

/// Every row of `snapshot`'s table; a read error fails the test and gives no rows.
inline std::vector<std::string> SortedRows(storage::FileSystem& fs,
                                           const delta::Snapshot& snapshot) {
  std::vector<std::string> rows;
  auto batches = delta::ReadTable(fs, snapshot);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) {
    return rows;
  }
  for (const auto& batch : *batches) {
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Every row of the table at `root` at `version` (the latest when absent).
inline std::vector<std::string> SortedRows(storage::FileSystem& fs, const std::string& root,
                                           std::optional<int64_t> version = {}) {
  auto snapshot = delta::Snapshot::Load(fs, root, version);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  return snapshot.ok() ? SortedRows(fs, **snapshot) : std::vector<std::string>{};
}

}  // namespace tributary::testing

// The Delta conformance suite: every table of ../shared/testdata/manifest.json, at every
// version with a known outcome, read through the snapshot and table reader, and through a query's
// Delta scan on one thread and on four. Rows must equal the expected canonical JSON lines, live
// file sets must equal the expected ones, and tables that must not load must fail with the expected
// reason. Prints "N passed, M failed".

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "columnar/canonical_json.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "exec/physical_plan.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"

namespace tributary::delta {
namespace {

using nlohmann::json;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) {
      lines.push_back(line);
    }
  }
  return lines;
}

// Sorted canonical rows of the table at `version`, or the error.
Result<std::vector<std::string>> TableRows(const std::string& root, int64_t version,
                                           const std::string& zone) {
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, root, version));
  TableReadOptions options;
  TRIBUTARY_ASSIGN_OR_RAISE(options.session_time_zone, expr::TimeZone::Make(zone));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ReadTable(fs, *snapshot, options));
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The rows of the table at `version` as a query reads them, in the order it returns them: a
// Delta scan of every column run on `threads` threads (its files split across them).
Result<std::vector<std::string>> ScannedRows(const std::string& root, int64_t version,
                                             const std::string& zone, int threads) {
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, root, version));
  exec::ExecContext context;
  context.fs = &fs;
  context.threads = threads;
  TRIBUTARY_ASSIGN_OR_RAISE(context.eval.session_time_zone, expr::TimeZone::Make(zone));
  TRIBUTARY_ASSIGN_OR_RAISE(auto scan, exec::DeltaScanNode::Make(snapshot, {}, nullptr, context));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root_operator,
                            exec::InstantiateOperators(scan, context));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, exec::Drain(*root_operator));
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// The live files at `version` in the shape of expected/v<N>.files.jsonl, sorted by path.
Result<std::vector<json>> TableFiles(const std::string& root, int64_t version) {
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, root, version));
  std::vector<json> files;
  for (const AddFile& add : snapshot->Files()) {
    json partitions = json::object();
    for (const auto& [key, value] : add.partition_values) {
      partitions[key] = value ? json(*value) : json();
    }
    files.push_back(
        {{"path", add.path},
         {"partitionValues", partitions},
         {"size", add.size},
         {"deletionVector", add.deletion_vector ? json(add.deletion_vector->UniqueId()) : json()}});
  }
  std::sort(files.begin(), files.end(),
            [](const json& a, const json& b) { return a["path"] < b["path"]; });
  return files;
}

struct Tally {
  int passed = 0;
  int failed = 0;
  std::vector<std::string> failures;

  void Check(bool ok, const std::string& what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      failures.push_back(what);
    }
  }
};

TEST(DeltaConformanceTest, EveryManifestTableReadsAsExpected) {
  const std::string dir = testing::TestdataDir();
  json manifest = json::parse(ReadText(dir + "/manifest.json"), nullptr, false);
  ASSERT_FALSE(manifest.is_discarded()) << "cannot parse " << dir << "/manifest.json";
  Tally tally;
  int tables = 0;
  for (const json& table : manifest["tables"]) {
    ++tables;
    const std::string name = table["name"].get<std::string>();
    const std::string root = dir + "/" + table["table_root"].get<std::string>();
    const std::string zone = table.value("partition_tz", std::string("UTC"));
    const std::string kind = table["expected_kind"].get<std::string>();
    const int64_t latest = table["latest_version"].get<int64_t>();
    for (const auto& [version_text, expected] : table["oracle"].items()) {
      const int64_t version = std::stoll(version_text);
      const std::string label = fmt::format("{} v{}", name, version_text);
      if (expected.contains("error") && expected["error"].is_string()) {
        const std::string error = expected["error"].get<std::string>();
        auto rows = TableRows(root, version, zone);
        const std::string reason = error.substr(0, error.find(':'));
        const bool ok = !rows.ok() && (reason == "invalid_metadata" ||
                                       rows.status().Message().find(reason) != std::string::npos);
        tally.Check(ok, fmt::format("{}: expected error '{}', got {}", label, error,
                                    rows.ok() ? "rows" : rows.status().ToString()));
        continue;
      }
      if (expected.contains("files") && expected["files"].is_string()) {
        std::vector<json> want;
        for (const std::string& line :
             Lines(ReadText(dir + "/" + expected["files"].get<std::string>()))) {
          want.push_back(json::parse(line));
        }
        std::sort(want.begin(), want.end(),
                  [](const json& a, const json& b) { return a["path"] < b["path"]; });
        auto got = TableFiles(root, version);
        tally.Check(got.ok() && *got == want,
                    label + " files: " + (got.ok() ? "differ" : got.status().ToString()));
      }
      std::string rows_file;
      if (expected.contains("file") && expected["file"].is_string()) {
        rows_file = dir + "/" + expected["file"].get<std::string>();
      } else if (version == latest && (kind == "spark-parquet" || kind == "not-computed")) {
        // Deletion vectors and column mapping: Spark's expected rows in canonical form.
        const std::string spark = root + "/../expected/latest/table_content.jsonl";
        if (std::ifstream(spark).good()) {
          rows_file = spark;
        }
      }
      if (rows_file.empty()) {
        continue;  // log-only tables, or rows nobody knows: the file set above is the check
      }
      std::vector<std::string> want = Lines(ReadText(rows_file));
      std::sort(want.begin(), want.end());
      auto got = TableRows(root, version, zone);
      std::string detail = got.ok() ? "" : got.status().ToString();
      if (got.ok() && *got != want) {
        detail = "rows differ: got " + std::to_string(got->size()) + ", want " +
                 std::to_string(want.size());
        for (size_t i = 0; i < std::min(got->size(), want.size()); ++i) {
          if ((*got)[i] != want[i]) {
            detail += "; first difference: got " + (*got)[i] + " want " + want[i];
            break;
          }
        }
      }
      tally.Check(got.ok() && *got == want, fmt::format("{} rows: {}", label, detail));
      // A query's scan gives the same rows on one thread and on several, in the same order.
      auto serial = ScannedRows(root, version, zone, 1);
      auto parallel = ScannedRows(root, version, zone, 4);
      std::vector<std::string> sorted_serial = serial.ok() ? *serial : std::vector<std::string>{};
      std::sort(sorted_serial.begin(), sorted_serial.end());
      tally.Check(serial.ok() && parallel.ok() && *serial == *parallel && sorted_serial == want,
                  fmt::format("{} scanned rows on 1 and 4 threads: {}", label,
                              !serial.ok()     ? serial.status().ToString()
                              : !parallel.ok() ? parallel.status().ToString()
                                               : "differ"));
    }
  }
  for (const std::string& failure : tally.failures) {
    ADD_FAILURE() << failure;
  }
  std::printf("delta conformance: %d tables, %d passed, %d failed\n", tables, tally.passed,
              tally.failed);
  EXPECT_EQ(tables, 62);
  EXPECT_EQ(tally.failed, 0);
}

}  // namespace
}  // namespace tributary::delta

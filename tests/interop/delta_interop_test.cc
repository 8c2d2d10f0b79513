// Tables tributary writes, checked independently: DuckDB replays our _delta_log itself (newest
// action per path wins, as PROTOCOL.md "Action Reconciliation" says), reads the live data files
// and must find exactly the rows our snapshot reader returns; DuckDB also reads our checkpoint.

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/maintenance.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;

TEST(DeltaInteropTest, DuckDBReplayOfOurLogGivesOurRows) {
  char pattern[] = "/tmp/tributary-delta-interop-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string root = dir + "/t";
  storage::LocalFileSystem fs;
  auto schema = testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                                     Field("v", DataType::Float64())});
  TableWriteOptions options;
  options.mode = SaveMode::kAppend;
  options.partition_by = {"p"};
  options.properties = {{"delta.checkpointInterval", "3"}};
  // Versions 0..5: appends, an overwrite, more appends, then OPTIMIZE; a checkpoint at 3.
  for (int i = 0; i < 3; ++i) {
    auto batch = testing::BatchFromJson(schema, "[[" + std::to_string(i) + ", \"a b\", 1.5], [" +
                                                    std::to_string(i + 10) + ", \"c/d\", null]]")
                     .ValueOrDie();
    ASSERT_OK(WriteTable(fs, root, schema, {batch}, options));
  }
  TableWriteOptions overwrite = options;
  overwrite.mode = SaveMode::kOverwrite;
  ASSERT_OK(WriteTable(
      fs, root, schema,
      {testing::BatchFromJson(schema, R"([[100, "a b", 2.5], [101, "x", 3.5]])").ValueOrDie()},
      overwrite));
  ASSERT_OK(WriteTable(fs, root, schema,
                       {testing::BatchFromJson(schema, R"([[102, "x", 4.5]])").ValueOrDie()},
                       options));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(fs, root));
  EXPECT_EQ(optimized.version, 5);

  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root));
  ASSERT_OK_AND_ASSIGN(auto batches, ReadTable(fs, *snapshot));
  std::vector<std::string> ours;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      ours.push_back(row);
    }
  }
  std::sort(ours.begin(), ours.end());
  ASSERT_EQ(ours.size(), 3u);

  // DuckDB's own replay: every add/remove with its version from the file name; the newest
  // action per path decides; live files are read with their partition value from the log.
  const std::string log = root + "/_delta_log/0*.json";
  const std::string replay =
      "WITH actions AS (SELECT CAST(regexp_extract(filename, '(\\d{20})\\.json', 1) AS BIGINT) "
      "AS version, add, remove FROM read_json('" +
      log +
      "', filename=true, "
      "format='newline_delimited', union_by_name=true, maximum_object_size=16777216)), "
      "events AS (SELECT version, add.path AS path, true AS live, add.partitionValues AS pv "
      "FROM actions WHERE add IS NOT NULL UNION ALL SELECT version, remove.path, false, NULL "
      "FROM actions WHERE remove IS NOT NULL), "
      "latest AS (SELECT path, arg_max(live, version) AS live, arg_max(pv, version) AS pv FROM "
      "events GROUP BY path) "
      "SELECT path, json_extract_string(to_json(pv), '$.p') AS p FROM latest WHERE live "
      "ORDER BY path";
  ASSERT_OK_AND_ASSIGN(auto live, testing::OracleQuery(replay));
  ASSERT_EQ(live.size(), snapshot->Files().size());
  std::vector<std::string> theirs;
  for (const std::string& line : live) {
    // {"path":"...","p":"..."}: paths in the log are URIs; decode them for the file name.
    auto path_start = line.find("\"path\":\"") + 8;
    auto path_end = line.find("\",\"p\":");
    std::string path = line.substr(path_start, path_end - path_start);
    ASSERT_OK_AND_ASSIGN(std::string decoded, DecodeUriPath(path));
    std::string p = line.substr(path_end + 7, line.size() - path_end - 9);
    ASSERT_OK_AND_ASSIGN(
        auto rows, testing::OracleQuery("SELECT id, '" + p + "' AS p, v FROM read_parquet('" +
                                        root + "/" + decoded + "', hive_partitioning=false)"));
    for (auto& row : rows) {
      theirs.push_back(row);
    }
  }
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(theirs, ours);

  // DuckDB reads our checkpoint Parquet: version 3's live adds.
  ASSERT_OK_AND_ASSIGN(auto adds,
                       testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" + root +
                                            "/_delta_log/00000000000000000003.checkpoint.parquet') "
                                            "WHERE add IS NOT NULL"));
  ASSERT_OK_AND_ASSIGN(auto v3, Snapshot::Load(fs, root, 3));
  EXPECT_EQ(adds, std::vector<std::string>{"{\"n\":" + std::to_string(v3->Files().size()) + "}"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tributary::delta

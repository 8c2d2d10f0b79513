// Tables tributary writes, checked independently: DuckDB replays our _delta_log itself (newest
// action per path wins, as PROTOCOL.md "Action Reconciliation" says), reads the live data files
// and must find exactly the rows our snapshot reader returns; DuckDB also reads our checkpoint.

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// Schema evolution and statistics, checked by DuckDB: after appends, a mergeSchema append that
// adds a column and an overwriteSchema-free overwrite of one partition, DuckDB reads every live
// file (by name, filling the column older files lack) and must find our rows; the min, max,
// count and null count it computes per file must equal our stats JSON; and it reads the
// checkpoint, whose stats_parsed must agree with the stats JSON.
TEST(DeltaInteropTest, DuckDBAgreesWithOurStatsAndEvolvedSchema) {
  char pattern[] = "/tmp/tributary-delta-interop-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string root = dir + "/t";
  storage::LocalFileSystem fs;
  auto narrow = testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                                     Field("v", DataType::Float64())});
  auto wide =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                           Field("v", DataType::Float64()), Field("note", DataType::String())});
  TableWriteOptions options;
  options.mode = SaveMode::kAppend;
  options.partition_by = {"p"};
  options.properties = {{"delta.checkpointInterval", "3"}};
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK(
        WriteTable(fs, root, narrow,
                   {testing::BatchFromJson(narrow, "[[" + std::to_string(i) + ", \"a\", 1.5], [" +
                                                       std::to_string(i + 10) + ", \"b\", null]]")
                        .ValueOrDie()},
                   options));
  }
  TableWriteOptions merge = options;
  merge.merge_schema = true;
  ASSERT_OK(
      WriteTable(fs, root, wide,
                 {testing::BatchFromJson(wide, R"([[20, "a", 2.5, "x"], [21, "c", null, null]])")
                      .ValueOrDie()},
                 merge));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root));
  ASSERT_EQ(snapshot->Version(), 2);
  ASSERT_EQ(snapshot->Schema()->NumFields(), 4);
  ASSERT_OK_AND_ASSIGN(auto batches, ReadTable(fs, *snapshot));
  std::vector<std::string> ours;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      ours.push_back(row);
    }
  }
  std::sort(ours.begin(), ours.end());

  std::vector<std::string> files;
  std::vector<std::string> theirs_stats;
  std::vector<std::string> our_stats;
  for (const AddFile& add : snapshot->Files()) {
    files.push_back("'" + root + "/" + add.path + "'");
    ASSERT_OK_AND_ASSIGN(
        auto stats, testing::OracleQuery("SELECT count(*) AS n, min(id) AS lo, max(id) AS hi, "
                                         "count(*) - count(v) AS v_nulls FROM read_parquet('" +
                                         root + "/" + add.path + "', hive_partitioning=false)"));
    ASSERT_EQ(stats.size(), 1u);
    theirs_stats.push_back(stats[0]);
    auto json = nlohmann::json::parse(*add.stats);
    our_stats.push_back(fmt::format(R"({{"n":{},"lo":{},"hi":{},"v_nulls":{}}})",
                                    json["numRecords"].dump(), json["minValues"]["id"].dump(),
                                    json["maxValues"]["id"].dump(), json["nullCount"]["v"].dump()));
  }
  EXPECT_EQ(our_stats, theirs_stats);
  // Every live file at once, by column name; the partition value comes from the log.
  std::string pv_cases = "CASE";
  for (const AddFile& add : snapshot->Files()) {
    pv_cases += " WHEN filename = '" + root + "/" + add.path + "' THEN '" +
                *add.partition_values.at("p") + "'";
  }
  pv_cases += " END";
  ASSERT_OK_AND_ASSIGN(
      auto theirs,
      testing::OracleQuery("SELECT id, " + pv_cases + " AS p, v, note FROM read_parquet([" +
                           fmt::format("{}", fmt::join(files, ", ")) +
                           "], union_by_name=true, filename=true, hive_partitioning=false)"));
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(theirs, ours);

  // The checkpoint of version 3 (one more append) as DuckDB reads it: stats_parsed agrees with
  // the stats JSON for every add, and the new column is in the checkpoint's schemaString.
  ASSERT_OK(WriteTable(fs, root, wide,
                       {testing::BatchFromJson(wide, R"([[30, "a", 3.5, "y"]])").ValueOrDie()},
                       merge));
  const std::string checkpoint = root + "/_delta_log/00000000000000000003.checkpoint.parquet";
  ASSERT_OK_AND_ASSIGN(
      auto disagreeing,
      testing::OracleQuery(
          "SELECT count(*) AS n FROM read_parquet('" + checkpoint +
          "') WHERE add IS NOT NULL AND (add.stats_parsed.numRecords IS DISTINCT FROM "
          "CAST(json_extract(add.stats, '$.numRecords') AS BIGINT) OR "
          "add.stats_parsed.minValues.id IS DISTINCT FROM "
          "CAST(json_extract(add.stats, '$.minValues.id') AS BIGINT) OR "
          "add.stats_parsed.maxValues.note IS DISTINCT FROM "
          "json_extract_string(add.stats, '$.maxValues.note') OR "
          "add.partitionValues_parsed.p IS DISTINCT FROM add.partitionValues['p'])"));
  EXPECT_EQ(disagreeing, std::vector<std::string>{R"({"n":0})"});
  ASSERT_OK_AND_ASSIGN(
      auto schema, testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" + checkpoint +
                                        "') WHERE metaData.schemaString LIKE '%\"note\"%'"));
  EXPECT_EQ(schema, std::vector<std::string>{R"({"n":1})"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tributary::delta

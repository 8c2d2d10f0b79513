// Typed statistics in checkpoints: our checkpoints carry add.stats_parsed and
// add.partitionValues_parsed as Spark writes them by default (checked by DuckDB reading the
// checkpoint), the table properties turn either form off, and replay takes statistics from
// stats_parsed when a checkpoint has no JSON stats, so data skipping still works.

#include "delta/stats_parsed.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/checkpoint_writer.h"
#include "delta/data_skipping.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;
using expr::Call;
using expr::Col;
using expr::Lit;
using expr::Op;
using expr::Scalar;

class StatsParsedTest : public ::testing::Test {
 protected:
  std::string Root() const { return dir_.Join("t"); }
  std::string Checkpoint(int64_t version) const {
    return fmt::format("{}/_delta_log/{:020}.checkpoint.parquet", Root(), version);
  }

  // Three appends of two rows, partitioned by p, then a checkpoint of version 2.
  void MakeTable(const std::map<std::string, std::string>& properties = {}) {
    auto schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                             Field("name", DataType::String()), Field("day", DataType::Date()),
                             Field("s", DataType::Struct({Field("x", DataType::Int32()),
                                                          Field("b", DataType::Boolean())}))});
    for (int i = 0; i < 3; ++i) {
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      options.partition_by = {"p"};
      options.properties = properties;
      const std::string rows = fmt::format(
          R"([[{0}, "p{1}", "n{0}", {0}, [{0}, true]], [{2}, "p{1}", null, {2}, null]])", i * 10, i,
          i * 10 + 5);
      ASSERT_OK(WriteTable(fs_, Root(), schema, {testing::BatchFromJson(schema, rows).ValueOrDie()},
                           options));
    }
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root()));
    ASSERT_OK(WriteCheckpoint(fs_, *snapshot));
  }

  void DeleteCommitsBefore(int64_t version) {
    for (const auto& entry : fs::directory_iterator(Root() + "/_delta_log")) {
      auto file = ParseLogFileName(entry.path().filename().string());
      if (file && file->kind == LogFile::Kind::kCommit && file->version < version) {
        fs::remove(entry.path());
      }
    }
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

TEST_F(StatsParsedTest, CheckpointsCarryTypedStatsAndPartitionValuesByDefault) {
  MakeTable();
  ASSERT_OK_AND_ASSIGN(
      auto rows,
      testing::OracleQuery(
          "SELECT add.stats_parsed.numRecords AS n, add.stats_parsed.minValues.id AS lo, "
          "add.stats_parsed.maxValues.id AS hi, add.stats_parsed.minValues.name AS name, "
          "add.stats_parsed.maxValues.day AS day, add.stats_parsed.minValues.s.x AS x, "
          "add.stats_parsed.nullCount.name AS nulls, add.stats_parsed.nullCount.s.b AS b_nulls, "
          "add.partitionValues_parsed.p AS p, "
          "CAST(json_extract(add.stats, '$.numRecords') AS BIGINT) AS json_n FROM read_parquet('" +
          Checkpoint(2) + "') WHERE add IS NOT NULL ORDER BY lo"));
  std::vector<std::string> expected;
  expected.reserve(3);
  for (int i = 0; i < 3; ++i) {
    expected.push_back(fmt::format(
        R"({{"n":2,"lo":{0},"hi":{1},"name":"n{0}","day":"1970-01-{2:02}","x":{0},"nulls":1,)"
        R"("b_nulls":1,"p":"p{3}","json_n":2}})",
        i * 10, i * 10 + 5, i * 10 + 6, i));
  }
  EXPECT_EQ(rows, expected);
  // Booleans have no min/max statistics, so s.b is only in nullCount.
  ASSERT_OK_AND_ASSIGN(auto leaves,
                       testing::OracleQuery("SELECT count(*) AS n FROM parquet_schema('" +
                                            Checkpoint(2) + "') WHERE name = 'b'"));
  EXPECT_EQ(leaves, std::vector<std::string>{R"({"n":1})"});
}

TEST_F(StatsParsedTest, WriteStatsAsStructFalseLeavesTheTypedFieldsOut) {
  MakeTable({{"delta.checkpoint.writeStatsAsStruct", "false"}});
  ASSERT_OK_AND_ASSIGN(
      auto parsed,
      testing::OracleQuery("SELECT count(*) AS n FROM parquet_schema('" + Checkpoint(2) +
                           "') WHERE name IN ('stats_parsed', 'partitionValues_parsed')"));
  EXPECT_EQ(parsed, std::vector<std::string>{R"({"n":0})"});
  ASSERT_OK_AND_ASSIGN(auto with_stats,
                       testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" +
                                            Checkpoint(2) + "') WHERE add.stats IS NOT NULL"));
  EXPECT_EQ(with_stats, std::vector<std::string>{R"({"n":3})"});
}

TEST_F(StatsParsedTest, ReplayTakesStatsFromStatsParsedWhenTheJsonStatsAreOff) {
  MakeTable({{"delta.checkpoint.writeStatsAsJson", "false"}});
  ASSERT_OK_AND_ASSIGN(auto json_stats,
                       testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" +
                                            Checkpoint(2) + "') WHERE add.stats IS NOT NULL"));
  EXPECT_EQ(json_stats, std::vector<std::string>{R"({"n":0})"});
  DeleteCommitsBefore(3);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root()));
  ASSERT_EQ(snapshot->Segment().checkpoint_version, 2);
  ASSERT_TRUE(snapshot->Segment().commits.empty());
  for (const AddFile& add : snapshot->Files()) {
    ASSERT_TRUE(add.stats.has_value()) << add.path;
    auto stats = nlohmann::json::parse(*add.stats);
    EXPECT_EQ(stats["numRecords"], 2) << *add.stats;
  }
  ASSERT_OK_AND_ASSIGN(
      auto kept,
      PruneFiles(*snapshot, *Call(Op::kGreaterEqual, {Col("id"), Lit(Scalar::Int64(20))})));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0]->partition_values.at("p"), "p2");
  ASSERT_OK_AND_ASSIGN(
      auto none, PruneFiles(*snapshot, *Call(Op::kEqual, {Col("day"), Lit(Scalar::Date(7))})));
  EXPECT_TRUE(none.empty());
}

// A Databricks table whose checkpoint (three parts) has stats_parsed and no add.stats field.
TEST(StatsParsedCorpusTest, StatsOnlyInStructFormAreReadAndUsedForSkipping) {
  const std::string root = testing::TestdataDir() +
                           "/golden/kernel-rs-v1-multi-part-partitioned-struct-stats-only/delta";
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root, 5));
  ASSERT_EQ(snapshot->Segment().checkpoint.size(), 3u);
  std::vector<std::string> ours;
  int64_t max_id = INT64_MIN;
  for (const AddFile& add : snapshot->Files()) {
    ASSERT_TRUE(add.stats.has_value()) << add.path;
    auto stats = nlohmann::json::parse(*add.stats);
    ours.push_back(fmt::format(R"({{"n":{},"lo":{},"hi":{}}})", stats["numRecords"].dump(),
                               stats["minValues"]["id"].dump(), stats["maxValues"]["id"].dump()));
    max_id = std::max(max_id, stats["maxValues"]["id"].get<int64_t>());
  }
  std::sort(ours.begin(), ours.end());
  ASSERT_OK_AND_ASSIGN(
      auto theirs,
      testing::OracleQuery("SELECT add.stats_parsed.numRecords AS n, add.stats_parsed.minValues.id "
                           "AS lo, add.stats_parsed.maxValues.id AS hi FROM read_parquet('" +
                           root +
                           "/_delta_log/00000000000000000005.checkpoint.*.parquet') WHERE add IS "
                           "NOT NULL ORDER BY 1, 2, 3"));
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(ours, theirs);
  ASSERT_OK_AND_ASSIGN(
      auto beyond,
      PruneFiles(*snapshot, *Call(Op::kGreater, {Col("id"), Lit(Scalar::Int64(max_id))})));
  EXPECT_TRUE(beyond.empty());
  ASSERT_OK_AND_ASSIGN(
      auto all,
      PruneFiles(*snapshot, *Call(Op::kLessEqual, {Col("id"), Lit(Scalar::Int64(max_id))})));
  EXPECT_FALSE(all.empty());
}

// delta-rs wrote this checkpoint with stats_parsed only: typed decimal, date and timestamp
// bounds must survive as stats a reader can skip with (a bound that did not convert would keep
// every file).
TEST(StatsParsedCorpusTest, TypedTimestampDateAndDecimalBoundsPruneFiles) {
  const std::string root =
      testing::TestdataDir() + "/golden/delta-rs-delta-1.2.1-only-struct-stats/delta";
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root, 10));
  ASSERT_EQ(snapshot->Segment().checkpoint_version, 10);
  ASSERT_TRUE(snapshot->Segment().commits.empty());
  const size_t files = snapshot->Files().size();
  ASSERT_GT(files, 1u);
  for (const char* column : {"timestamp", "date", "decimal"}) {
    SCOPED_TRACE(column);
    const auto& type = snapshot->Schema()->FieldAt(snapshot->Schema()->FieldIndex(column)).Type();
    // The smallest minimum and the largest maximum over all files, typed.
    std::vector<std::optional<std::string>> texts;
    for (const AddFile& add : snapshot->Files()) {
      ASSERT_TRUE(add.stats.has_value()) << add.path;
      auto stats = nlohmann::json::parse(*add.stats);
      ASSERT_TRUE(stats["minValues"][column].is_string()) << *add.stats;
      texts.emplace_back(stats["minValues"][column].get<std::string>());
      texts.emplace_back(stats["maxValues"][column].get<std::string>());
    }
    ASSERT_OK_AND_ASSIGN(auto values, ColumnFromTexts(texts, type));
    ASSERT_EQ(values->NullCount(), 0);
    // `above` moves a timestamp past the millisecond its maximum was cut to (readers widen a
    // timestamp maximum by 999 microseconds).
    auto scalar = [&](int64_t row, bool above = false) -> Scalar {
      switch (type->Id()) {
        case columnar::TypeId::kTimestamp:
          return Scalar::Timestamp(values->Values<int64_t>()[row] + (above ? 1000 : 0));
        case columnar::TypeId::kDate:
          return Scalar::Date(values->Values<int32_t>()[row]);
        default:
          return Scalar::Decimal(values->Values<columnar::Int128>()[row], type->Precision(),
                                 type->Scale())
              .ValueOrDie();
      }
    };
    int64_t lowest = 0;
    int64_t highest = 0;
    for (int64_t row = 1; row < values->Length(); ++row) {
      auto less = [&](int64_t a, int64_t b) {
        switch (type->Id()) {
          case columnar::TypeId::kTimestamp:
            return values->Values<int64_t>()[a] < values->Values<int64_t>()[b];
          case columnar::TypeId::kDate:
            return values->Values<int32_t>()[a] < values->Values<int32_t>()[b];
          default:
            return values->Values<columnar::Int128>()[a] < values->Values<columnar::Int128>()[b];
        }
      };
      lowest = less(row, lowest) ? row : lowest;
      highest = less(highest, row) ? row : highest;
    }
    ASSERT_OK_AND_ASSIGN(
        auto below, PruneFiles(*snapshot, *Call(Op::kLess, {Col(column), Lit(scalar(lowest))})));
    EXPECT_TRUE(below.empty());
    ASSERT_OK_AND_ASSIGN(
        auto above,
        PruneFiles(*snapshot, *Call(Op::kGreater, {Col(column), Lit(scalar(highest, true))})));
    EXPECT_TRUE(above.empty());
    ASSERT_OK_AND_ASSIGN(
        auto all,
        PruneFiles(*snapshot, *Call(Op::kGreaterEqual, {Col(column), Lit(scalar(lowest))})));
    EXPECT_EQ(all.size(), files);
  }
}

}  // namespace
}  // namespace tributary::delta

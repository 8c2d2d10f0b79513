// The change data feed: change data files as Delta lays them out, and ReadChanges over the
// corpus CDF tables, checked against DuckDB reading the same Parquet files the log names.

#include "delta/change_data.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "columnar/take.h"
#include "delta/actions.h"
#include "delta/table_reader.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Corpus(const std::string& table) {
  return testing::TestdataDir() + "/golden/" + table + "/delta";
}

/// Rows of `batches` without _commit_timestamp (the last column), sorted unless `sorted` is
/// false (then in ReadChanges' order, which is version order).
std::vector<std::string> RowsWithoutTimestamp(const std::vector<columnar::RecordBatchPtr>& batches,
                                              bool sorted = true) {
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    std::vector<int> keep;
    for (int c = 0; c + 1 < batch->NumColumns(); ++c) {
      keep.push_back(c);
    }
    std::vector<Field> fields;
    std::vector<columnar::ColumnPtr> columns;
    for (int c : keep) {
      fields.push_back(batch->Schema()->FieldAt(c));
      columns.push_back(batch->ColumnAt(c));
    }
    auto projected = columnar::RecordBatch::Make(testing::MakeSchema(fields), batch->NumRows(),
                                                 std::move(columns))
                         .ValueOrDie();
    for (auto& row : columnar::CanonicalJsonRows(*projected)) {
      rows.push_back(std::move(row));
    }
  }
  if (sorted) {
    std::sort(rows.begin(), rows.end());
  }
  return rows;
}

/// What DuckDB reads for version `version` of the table at `root`, independently of our log
/// replay: the commit's cdc files when it has any (their _change_type), else its dataChange
/// adds as inserts. `select` lists the table's columns in our order.
std::vector<std::string> OracleVersionRows(const std::string& root, int64_t version,
                                           const std::string& select) {
  const std::string commit = fmt::format("{}/_delta_log/{:020}.json", root, version);
  auto cdc =
      testing::OracleQuery(fmt::format("SELECT json_extract_string(json, '$.cdc.path') AS p FROM "
                                       "read_json_objects('{}', format='newline_delimited') "
                                       "WHERE json_extract(json, '$.cdc') IS NOT NULL",
                                       commit));
  EXPECT_TRUE(cdc.ok()) << cdc.status().ToString();
  std::vector<std::string> paths;
  std::string change_type = "_change_type";
  auto lines = cdc.ok() ? *cdc : std::vector<std::string>{};
  if (lines.empty()) {
    auto adds =
        testing::OracleQuery(fmt::format("SELECT json_extract_string(json, '$.add.path') AS p FROM "
                                         "read_json_objects('{}', format='newline_delimited') "
                                         "WHERE json_extract(json, '$.add.dataChange')::BOOLEAN",
                                         commit));
    EXPECT_TRUE(adds.ok()) << adds.status().ToString();
    lines = adds.ok() ? *adds : std::vector<std::string>{};
    change_type = "'insert'";
  }
  paths.reserve(lines.size());
  for (const std::string& line : lines) {
    // {"p":"..."}
    paths.push_back(fmt::format("'{}/{}'", root, line.substr(6, line.size() - 8)));
  }
  if (paths.empty()) {
    return {};
  }
  std::string list;
  for (const auto& p : paths) {
    list += (list.empty() ? "" : ", ") + p;
  }
  auto rows = testing::OracleQuery(
      fmt::format("SELECT {}, {} AS _change_type, CAST({} AS BIGINT) AS _commit_version FROM "
                  "read_parquet([{}], hive_partitioning=true)",
                  select, change_type, version, list));
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<std::string>{};
}

TEST(ChangeDataTest, ParsesCdcActions) {
  ASSERT_OK_AND_ASSIGN(
      Action action,
      ParseAction(R"({"cdc":{"path":"_change_data/a%20b.parquet","partitionValues":{"p":"x"},)"
                  R"("size":7,"tags":{"t":"v"},"dataChange":false}})",
                  "test"));
  ASSERT_TRUE(action.cdc.has_value());
  EXPECT_EQ(action.cdc->path, "_change_data/a b.parquet");
  EXPECT_EQ(action.cdc->partition_values.at("p"), "x");
  EXPECT_EQ(action.cdc->size, 7);
  EXPECT_FALSE(action.cdc->data_change);
  EXPECT_EQ(action.cdc->tags.at("t"), "v");
  EXPECT_FALSE(action.add.has_value());
}

TEST(ChangeDataTest, FeedSchemaAppendsTheThreeColumns) {
  auto schema = ChangeFeedSchema(
      *testing::MakeSchema({Field("id", DataType::Int32()), Field("name", DataType::String())}));
  ASSERT_EQ(schema->NumFields(), 5);
  EXPECT_EQ(schema->FieldAt(2).Name(), "_change_type");
  EXPECT_EQ(schema->FieldAt(3).Name(), "_commit_version");
  EXPECT_EQ(schema->FieldAt(3).Type()->Id(), columnar::TypeId::kInt64);
  EXPECT_EQ(schema->FieldAt(4).Name(), "_commit_timestamp");
  EXPECT_EQ(schema->FieldAt(4).Type()->Id(), columnar::TypeId::kTimestamp);
}

TEST(ChangeDataTest, WritesChangeDataFilesAsDeltaLaysThemOut) {
  testing::TempDir dir;
  storage::LocalFileSystem fs;
  const std::string root = dir.Join("t");
  auto schema =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String())});
  auto file_schema =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                           Field("_change_type", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(file_schema, R"([
      [1, "a", "delete"], [2, "b", "update_preimage"], [2, "b", "update_postimage"],
      [3, null, "insert"]])"));
  ASSERT_OK_AND_ASSIGN(auto files, WriteChangeDataFiles(fs, root, schema, {"p"}, {batch}));
  ASSERT_EQ(files.size(), 3U);
  std::map<std::string, std::string> type_by_partition;
  int64_t rows = 0;
  for (const AddCdcFile& file : files) {
    EXPECT_THAT(file.path, StartsWith("_change_data/p="));
    EXPECT_THAT(std::filesystem::path(file.path).filename().string(), StartsWith("cdc-"));
    EXPECT_THAT(file.path, ::testing::EndsWith(".c000.snappy.parquet"));
    EXPECT_FALSE(file.data_change);
    EXPECT_EQ(file.size, static_cast<int64_t>(std::filesystem::file_size(root + "/" + file.path)));
    // DuckDB reads the file: data columns (no partition column) and _change_type.
    ASSERT_OK_AND_ASSIGN(auto oracle_rows, testing::OracleCatParquet(root + "/" + file.path));
    rows += static_cast<int64_t>(oracle_rows.size());
    for (const auto& row : oracle_rows) {
      EXPECT_THAT(row, HasSubstr("\"_change_type\":"));
      EXPECT_THAT(row, ::testing::Not(HasSubstr("\"p\":")));
    }
  }
  EXPECT_EQ(rows, 4);
  const AddCdcFile* null_partition = nullptr;
  for (const AddCdcFile& file : files) {
    if (!file.partition_values.at("p").has_value()) {
      null_partition = &file;
    }
  }
  ASSERT_NE(null_partition, nullptr);
  EXPECT_THAT(null_partition->path, HasSubstr("p=__HIVE_DEFAULT_PARTITION__/"));
}

TEST(ChangeDataTest, CdfTableMatchesDuckDbReadingTheFilesTheLogNames) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("delta-rs-cdf-table");
  ASSERT_OK_AND_ASSIGN(auto batches, ReadChanges(fs, root, 0, std::nullopt));
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches.front()->Schema()->NumFields(), 6);
  std::vector<std::string> expected;
  for (int64_t v = 0; v <= 3; ++v) {
    for (auto& row : OracleVersionRows(root, v, "id, name, birthday")) {
      expected.push_back(std::move(row));
    }
  }
  std::sort(expected.begin(), expected.end());
  const auto ours = RowsWithoutTimestamp(batches);
  EXPECT_EQ(ours, expected);
  // v0 inserts the 10 rows; v1/v2 are UPDATEs (pre/post images), v3 a DELETE.
  std::map<std::string, int> by_type;
  for (const auto& row : ours) {
    for (const char* type : {"insert", "delete", "update_preimage", "update_postimage"}) {
      if (row.find(fmt::format("\"_change_type\":\"{}\"", type)) != std::string::npos) {
        ++by_type[type];
      }
    }
  }
  EXPECT_EQ(by_type["insert"], 10);
  EXPECT_GT(by_type["update_preimage"], 0);
  EXPECT_EQ(by_type["update_preimage"], by_type["update_postimage"]);
  EXPECT_GT(by_type["delete"], 0);
}

TEST(ChangeDataTest, VersionRangeAndCommitTimestamps) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("delta-rs-cdf-table");
  ASSERT_OK_AND_ASSIGN(auto batches, ReadChanges(fs, root, 1, 2));
  std::set<int64_t> versions;
  for (const auto& batch : batches) {
    const auto& column = *batch->ColumnAt(batch->NumColumns() - 2);
    for (int64_t i = 0; i < batch->NumRows(); ++i) {
      versions.insert(column.Values<int64_t>()[i]);
    }
  }
  EXPECT_EQ(versions, (std::set<int64_t>{1, 2}));
  EXPECT_THAT(ReadChanges(fs, root, 2, 1).status().Message(),
              HasSubstr("End cannot be before start"));
  EXPECT_THAT(ReadChanges(fs, root, 9, std::nullopt).status().Message(),
              HasSubstr("Start version cannot be greater than the latest version"));
}

TEST(ChangeDataTest, InCommitTimestampsAreTheCommitTimestamps) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("delta-rs-cdc_ict_table");
  ASSERT_OK_AND_ASSIGN(auto batches, ReadChanges(fs, root, 0, std::nullopt));
  // Every commit of this table carries commitInfo.inCommitTimestamp.
  std::map<int64_t, int64_t> ict_by_version;
  for (int64_t v = 0;; ++v) {
    auto text = fs.ReadFile(fmt::format("{}/_delta_log/{:020}.json", root, v));
    if (!text.ok()) {
      break;
    }
    ASSERT_OK_AND_ASSIGN(auto actions, ParseCommit(*text, "commit"));
    for (const auto& action : actions) {
      if (action.in_commit_timestamp) {
        ict_by_version[v] = *action.in_commit_timestamp;
      }
    }
  }
  ASSERT_FALSE(ict_by_version.empty());
  int64_t rows = 0;
  for (const auto& batch : batches) {
    const int n = batch->NumColumns();
    for (int64_t i = 0; i < batch->NumRows(); ++i) {
      const int64_t version = batch->ColumnAt(n - 2)->Values<int64_t>()[i];
      ASSERT_TRUE(ict_by_version.count(version)) << version;
      EXPECT_EQ(batch->ColumnAt(n - 1)->Values<int64_t>()[i], ict_by_version[version] * 1000);
      ++rows;
    }
  }
  EXPECT_GT(rows, 0);
}

TEST(ChangeDataTest, DeletionVectorDeletesWithoutChangeFilesAreTheNewlyDeletedRows) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("kernel-rs-compacted-log-files-table");
  // Version 2 is a DELETE that only added a deletion vector (no cdc file): its changes are
  // the rows live at version 1 and gone at version 2.
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChanges(fs, root, 2, 2));
  auto live = [&](int64_t version) {
    std::vector<std::string> rows;
    auto snapshot = Snapshot::Load(fs, root, version).ValueOrDie();
    for (const auto& batch : ReadTable(fs, *snapshot).ValueOrDie()) {
      for (auto& row : columnar::CanonicalJsonRows(*batch)) {
        rows.push_back(std::move(row));
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  const auto before = live(1);
  const auto after = live(2);
  std::vector<std::string> gone;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(gone));
  ASSERT_FALSE(gone.empty());
  std::vector<std::string> deleted;
  for (const auto& row : RowsWithoutTimestamp(changes)) {
    const std::string suffix = ",\"_change_type\":\"delete\",\"_commit_version\":2}";
    ASSERT_THAT(row, ::testing::EndsWith(suffix));
    deleted.push_back(row.substr(0, row.size() - suffix.size()) + "}");
  }
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, gone);
}

TEST(ChangeDataTest, CompactedTableReadsEveryVersion) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("kernel-rs-compacted-log-files-table");
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChanges(fs, root, 0, std::nullopt));
  // Net effect of all changes = the latest table: inserts/postimages minus deletes/preimages.
  std::multiset<std::string> net;
  for (const auto& row : RowsWithoutTimestamp(changes, /*sorted=*/false)) {
    const auto type_at = row.find(",\"_change_type\":\"");
    const std::string data = row.substr(0, type_at) + "}";
    const bool adds = row.find("\"insert\"", type_at) != std::string::npos ||
                      row.find("\"update_postimage\"", type_at) != std::string::npos;
    if (adds) {
      net.insert(data);
    } else {
      auto it = net.find(data);
      ASSERT_NE(it, net.end()) << "removed a row never added: " << row;
      net.erase(it);
    }
  }
  auto snapshot = Snapshot::Load(fs, root).ValueOrDie();
  std::multiset<std::string> latest;
  for (const auto& batch : ReadTable(fs, *snapshot).ValueOrDie()) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      latest.insert(std::move(row));
    }
  }
  EXPECT_EQ(net, latest);
}

TEST(ChangeDataTest, TableWithoutChangeDataFeedIsRefused) {
  storage::LocalFileSystem fs;
  const std::string root = Corpus("delta-deltalog-getChanges");
  // CDF is off on this table (no configuration): Delta refuses the range.
  EXPECT_THAT(ReadChanges(fs, root, 0, std::nullopt).status().Message(),
              HasSubstr("change data was not recorded for version [0]"));
}

}  // namespace
}  // namespace tributary::delta

// DELETE, UPDATE and MERGE INTO on real Delta tables (local files), with deletion vectors on
// and off: the rows after each statement (hand-computed, and for MERGE also what DuckDB's own
// MERGE INTO makes of the same rows), the metrics Delta reports, partition pruning, the
// multiple-match error, schema evolution, store assignment casts and the change rows.

#include "plan/delta_dml.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/change_data.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "delta/table_writes.h"
#include "plan/plan_builder.h"
#include "sql/parser.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::plan {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

ExprPtr Sql(const std::string& text) {
  auto parsed = sql::ParseExpression(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : nullptr;
}

DmlAssignment Set(const std::string& column, const std::string& value) {
  return {column, Sql(value)};
}

std::vector<std::string> Rows(const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Each case runs with deletion vectors on (true) and off (copy-on-write).
class DeltaDmlTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    catalog_.fs = &fs_;
    catalog_.warehouse = dir_.Join("warehouse");
  }

  bool DeletionVectors() const { return GetParam(); }

  // A table of (id BIGINT, name STRING, v INT, part STRING) written as one file per element of
  // `files` (JSON rows), partitioned by part when asked.
  void CreateTable(const std::vector<std::string>& files, bool partitioned = false,
                   bool change_feed = false) {
    for (const std::string& rows : files) {
      ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema_, rows));
      delta::TableWriteOptions options;
      options.mode = delta::SaveMode::kAppend;
      if (partitioned) {
        options.partition_by = {"part"};
      }
      if (DeletionVectors()) {
        options.properties["delta.enableDeletionVectors"] = "true";
      }
      if (change_feed) {
        options.properties["delta.enableChangeDataFeed"] = "true";
      }
      ASSERT_OK(delta::WriteTable(fs_, path_, schema_, {batch}, options).status());
    }
  }

  std::shared_ptr<const delta::Snapshot> Snapshot() {
    auto snapshot = delta::Snapshot::Load(fs_, path_);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    return snapshot.ok() ? *snapshot : nullptr;
  }

  std::vector<std::string> TableRows() {
    auto snapshot = Snapshot();
    auto batches = delta::ReadTable(fs_, *snapshot);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    return batches.ok() ? Rows(*batches) : std::vector<std::string>{};
  }

  // A source relation of (id BIGINT, name STRING, v INT, part STRING) rows, qualified `s`.
  LogicalPlanPtr Source(const std::string& rows, columnar::SchemaPtr schema = nullptr) {
    if (schema == nullptr) {
      schema = schema_;
    }
    auto batch = testing::BatchFromJson(schema, rows);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    ScanSource source;
    source.kind = ScanSource::Kind::kValues;
    source.schema = schema;
    source.batches = {*batch};
    source.description = "source";
    return Scan(std::move(source), "s");
  }

  MergeSpec Merge(LogicalPlanPtr source, const std::string& on) {
    MergeSpec spec;
    spec.target_path = path_;
    spec.target_alias = "t";
    spec.source = std::move(source);
    spec.source_alias = "s";
    spec.on = Sql(on);
    return spec;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.Join("t");
  storage::LocalFileSystem fs_;
  Catalog catalog_;
  columnar::SchemaPtr schema_ =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                           Field("v", DataType::Int32()), Field("part", DataType::String())});
};

constexpr const char* kFileA = R"([[1,"a",10,"x"],[2,"b",20,"x"],[3,"c",30,"y"]])";
constexpr const char* kFileB = R"([[4,"d",40,"y"],[5,"e",50,"x"]])";

std::string Row(int64_t id, const std::string& name, int v, const std::string& part) {
  return fmt::format(R"({{"id":{},"name":"{}","v":{},"part":"{}"}})", id, name, v, part);
}

TEST_P(DeltaDmlTest, DeleteRemovesTheMatchingRowsAndReportsDeltasMetrics) {
  CreateTable({kFileA, kFileB});
  ASSERT_OK_AND_ASSIGN(DmlResult result,
                       DeleteFromTable(catalog_, path_, "", Sql("v >= 20 AND v < 50")));
  EXPECT_EQ(result.version, 2);
  EXPECT_THAT(TableRows(), ElementsAre(Row(1, "a", 10, "x"), Row(5, "e", 50, "x")));
  EXPECT_EQ(result.metrics.at("numDeletedRows"), 3);
  // Copy-on-write rewrites both files with their surviving rows; deletion vectors keep them.
  EXPECT_EQ(result.metrics.at("numCopiedRows"), DeletionVectors() ? 0 : 2);
  EXPECT_EQ(result.metrics.at("numRemovedFiles"), DeletionVectors() ? 0 : 2);
  auto snapshot = Snapshot();
  ASSERT_FALSE(snapshot->Files().empty());
  if (DeletionVectors()) {
    ASSERT_EQ(snapshot->Files().size(), 2u);
  }
  for (const delta::AddFile& file : snapshot->Files()) {
    EXPECT_EQ(file.deletion_vector.has_value(), DeletionVectors()) << file.path;
  }
}

TEST_P(DeltaDmlTest, DeleteWithoutConditionEmptiesTheTable) {
  CreateTable({kFileA, kFileB});
  ASSERT_OK_AND_ASSIGN(DmlResult result, DeleteFromTable(catalog_, path_, "", nullptr));
  EXPECT_TRUE(TableRows().empty());
  EXPECT_EQ(result.metrics.at("numDeletedRows"), 5);
  EXPECT_TRUE(Snapshot()->Files().empty());
}

TEST_P(DeltaDmlTest, DeleteMatchingNothingCommitsNothing) {
  CreateTable({kFileA});
  ASSERT_OK_AND_ASSIGN(DmlResult result, DeleteFromTable(catalog_, path_, "t", Sql("t.v > 1000")));
  EXPECT_EQ(result.version, -1);
  EXPECT_EQ(result.metrics.at("numDeletedRows"), 0);
  EXPECT_EQ(Snapshot()->Version(), 0);
}

TEST_P(DeltaDmlTest, DeleteOnAPartitionLeavesTheOtherPartitionsFilesAlone) {
  CreateTable({kFileA, kFileB}, /*partitioned=*/true);
  auto before = Snapshot();
  std::vector<std::string> y_files;
  for (const delta::AddFile& file : before->Files()) {
    if (file.partition_values.at("part") == "y") {
      y_files.push_back(file.path);
    }
  }
  ASSERT_EQ(y_files.size(), 2u);
  ASSERT_OK_AND_ASSIGN(DmlResult result,
                       DeleteFromTable(catalog_, path_, "t", Sql("t.part = 'x' AND t.id > 1")));
  EXPECT_EQ(result.metrics.at("numDeletedRows"), 2);
  EXPECT_THAT(TableRows(),
              ElementsAre(Row(1, "a", 10, "x"), Row(3, "c", 30, "y"), Row(4, "d", 40, "y")));
  const auto after_delete = Snapshot();
  for (const delta::AddFile& file : after_delete->Files()) {
    if (file.partition_values.at("part") == "y") {
      EXPECT_FALSE(file.deletion_vector.has_value());
      EXPECT_NE(std::find(y_files.begin(), y_files.end(), file.path), y_files.end());
    }
  }
  // Only the x files were candidates: copy-on-write copies row 1 alone.
  EXPECT_EQ(result.metrics.at("numCopiedRows"), DeletionVectors() ? 0 : 1);
}

TEST_P(DeltaDmlTest, UpdateSetsAssignedColumnsAndCastsToTheColumnType) {
  CreateTable({kFileA, kFileB});
  ASSERT_OK_AND_ASSIGN(
      DmlResult result,
      UpdateTable(catalog_, path_, "t", {Set("v", "t.v + 1"), Set("name", "upper(name)")},
                  Sql("id IN (2, 4)")));
  EXPECT_EQ(result.metrics.at("numUpdatedRows"), 2);
  EXPECT_THAT(TableRows(),
              ElementsAre(Row(1, "a", 10, "x"), Row(2, "B", 21, "x"), Row(3, "c", 30, "y"),
                          Row(4, "D", 41, "y"), Row(5, "e", 50, "x")));
  // A BIGINT value is stored into the INT column by an ANSI cast.
  ASSERT_OK(
      UpdateTable(catalog_, path_, "", {Set("v", "CAST(7 AS BIGINT)")}, Sql("id = 1")).status());
  EXPECT_EQ(TableRows().front(), Row(1, "a", 7, "x"));
}

TEST_P(DeltaDmlTest, UpdateRefusesOverflowAndUnsafeCastsAndUnknownColumns) {
  CreateTable({kFileA});
  auto overflow = UpdateTable(catalog_, path_, "", {Set("v", "3000000000")}, Sql("id = 1"));
  ASSERT_FALSE(overflow.ok());
  auto string_to_int = UpdateTable(catalog_, path_, "", {Set("v", "'12'")}, nullptr);
  ASSERT_RAISES(InvalidArgument, string_to_int);
  EXPECT_THAT(string_to_int.status().ToString(), HasSubstr("CANNOT_SAFELY_CAST"));
  ASSERT_RAISES(InvalidArgument, UpdateTable(catalog_, path_, "", {Set("nope", "1")}, nullptr));
  ASSERT_RAISES(InvalidArgument,
                UpdateTable(catalog_, path_, "", {Set("v", "1"), Set("V", "2")}, nullptr));
  EXPECT_EQ(Snapshot()->Version(), 0);
}

TEST_P(DeltaDmlTest, TxnMakesARepeatedStatementANoOp) {
  CreateTable({kFileA});
  DmlOptions options;
  options.txn = std::make_pair(std::string("app"), int64_t{7});
  ASSERT_OK_AND_ASSIGN(DmlResult first,
                       UpdateTable(catalog_, path_, "", {Set("v", "v * 2")}, nullptr, options));
  EXPECT_EQ(first.version, 1);
  ASSERT_OK_AND_ASSIGN(DmlResult again,
                       UpdateTable(catalog_, path_, "", {Set("v", "v * 2")}, nullptr, options));
  EXPECT_EQ(again.version, -1);
  EXPECT_EQ(again.metrics.at("numUpdatedRows"), 0);
  EXPECT_THAT(TableRows(),
              ElementsAre(Row(1, "a", 20, "x"), Row(2, "b", 40, "x"), Row(3, "c", 60, "y")));
}

TEST_P(DeltaDmlTest, MergeUpsertUpdatesMatchedAndInsertsTheRest) {
  CreateTable({kFileA, kFileB});
  MergeSpec spec =
      Merge(Source(R"([[2,"B",21,"x"],[6,"f",60,"y"],[7,"g",70,"x"]])"), "t.id = s.id");
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  spec.clauses.push_back({MergeMatch::kNotMatchedByTarget, nullptr, MergeAction::kInsertAll, {}});
  ASSERT_OK_AND_ASSIGN(DmlResult result, MergeIntoTable(catalog_, spec));
  EXPECT_THAT(TableRows(),
              ElementsAre(Row(1, "a", 10, "x"), Row(2, "B", 21, "x"), Row(3, "c", 30, "y"),
                          Row(4, "d", 40, "y"), Row(5, "e", 50, "x"), Row(6, "f", 60, "y"),
                          Row(7, "g", 70, "x")));
  EXPECT_EQ(result.metrics.at("numSourceRows"), 3);
  EXPECT_EQ(result.metrics.at("numTargetRowsInserted"), 2);
  EXPECT_EQ(result.metrics.at("numTargetRowsUpdated"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsMatchedUpdated"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsDeleted"), 0);
  // Copy-on-write rewrites the file of row 2 (rows 1 and 3 copied).
  EXPECT_EQ(result.metrics.at("numTargetRowsCopied"), DeletionVectors() ? 0 : 2);
  EXPECT_EQ(result.metrics.at("numOutputRows"), DeletionVectors() ? 3 : 5);
}

// Every clause kind, with conditions and more than one clause of a kind, checked against
// hand-computed rows and against DuckDB's MERGE INTO over the same rows.
TEST_P(DeltaDmlTest, MergeWithEveryClauseKindMatchesDuckDb) {
  CreateTable({kFileA, kFileB});
  const std::string source_rows =
      R"([[1,"s1",11,"x"],[2,"s2",200,"x"],[3,"s3",31,"y"],[8,"s8",80,"y"],[9,"s9",5,"x"]])";
  MergeSpec spec = Merge(Source(source_rows), "t.id = s.id");
  spec.clauses.push_back({MergeMatch::kMatched, Sql("s.v > 100"), MergeAction::kDelete, {}});
  spec.clauses.push_back({MergeMatch::kMatched,
                          Sql("t.id <> 3"),
                          MergeAction::kUpdate,
                          {Set("v", "t.v + s.v"), Set("t.name", "s.name")}});
  spec.clauses.push_back(
      {MergeMatch::kNotMatchedByTarget,
       Sql("s.v > 10"),
       MergeAction::kInsert,
       {Set("id", "s.id"), Set("name", "'new'"), Set("v", "s.v"), Set("part", "s.part")}});
  spec.clauses.push_back(
      {MergeMatch::kNotMatchedBySource, Sql("t.v = 40"), MergeAction::kDelete, {}});
  spec.clauses.push_back(
      {MergeMatch::kNotMatchedBySource, nullptr, MergeAction::kUpdate, {Set("v", "-t.v")}});
  ASSERT_OK_AND_ASSIGN(DmlResult result, MergeIntoTable(catalog_, spec));
  const std::vector<std::string> expected = {Row(1, "s1", 21, "x"), Row(3, "c", 30, "y"),
                                             Row(5, "e", -50, "x"), Row(8, "new", 80, "y")};
  EXPECT_THAT(TableRows(), ElementsAre(expected[0], expected[1], expected[2], expected[3]));
  EXPECT_EQ(result.metrics.at("numSourceRows"), 5);
  EXPECT_EQ(result.metrics.at("numTargetRowsMatchedUpdated"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsMatchedDeleted"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsNotMatchedBySourceUpdated"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsNotMatchedBySourceDeleted"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsInserted"), 1);
  EXPECT_EQ(result.metrics.at("numTargetRowsUpdated"), 2);
  EXPECT_EQ(result.metrics.at("numTargetRowsDeleted"), 2);

  ASSERT_OK_AND_ASSIGN(
      auto oracle,
      testing::OracleQueryMany(
          {"CREATE TABLE t AS SELECT * FROM (VALUES (1::BIGINT,'a',10,'x'),(2,'b',20,'x'),"
           "(3,'c',30,'y'),(4,'d',40,'y'),(5,'e',50,'x')) v(id, name, v, part)",
           "CREATE TABLE s AS SELECT * FROM (VALUES (1::BIGINT,'s1',11,'x'),(2,'s2',200,'x'),"
           "(3,'s3',31,'y'),(8,'s8',80,'y'),(9,'s9',5,'x')) v(id, name, v, part)",
           "MERGE INTO t USING s ON t.id = s.id "
           "WHEN MATCHED AND s.v > 100 THEN DELETE "
           "WHEN MATCHED AND t.id <> 3 THEN UPDATE SET v = t.v + s.v, name = s.name "
           "WHEN NOT MATCHED AND s.v > 10 THEN INSERT (id, name, v, part) "
           "VALUES (s.id, 'new', s.v, s.part) "
           "WHEN NOT MATCHED BY SOURCE AND t.v = 40 THEN DELETE "
           "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = -t.v",
           "SELECT * FROM t ORDER BY id"}));
  ASSERT_EQ(oracle.size(), 4u);
  ASSERT_OK(oracle[2].status());
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> duckdb_rows, std::move(oracle[3]));
  EXPECT_EQ(duckdb_rows, expected);
}

TEST_P(DeltaDmlTest, MergeOnAPartitionPrunesTheOtherPartitionsFiles) {
  CreateTable({kFileA, kFileB}, /*partitioned=*/true);
  MergeSpec spec =
      Merge(Source(R"([[4,"D",41,"y"],[9,"i",90,"y"]])"), "t.id = s.id AND t.part = 'y'");
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  spec.clauses.push_back({MergeMatch::kNotMatchedByTarget, nullptr, MergeAction::kInsertAll, {}});
  std::vector<std::string> x_files;
  const auto before_merge = Snapshot();
  for (const delta::AddFile& file : before_merge->Files()) {
    if (file.partition_values.at("part") == "x") {
      x_files.push_back(file.path);
    }
  }
  ASSERT_OK_AND_ASSIGN(DmlResult result, MergeIntoTable(catalog_, spec));
  EXPECT_THAT(TableRows(),
              ElementsAre(Row(1, "a", 10, "x"), Row(2, "b", 20, "x"), Row(3, "c", 30, "y"),
                          Row(4, "D", 41, "y"), Row(5, "e", 50, "x"), Row(9, "i", 90, "y")));
  std::vector<std::string> x_after;
  const auto after_merge = Snapshot();
  for (const delta::AddFile& file : after_merge->Files()) {
    if (file.partition_values.at("part") == "x") {
      x_after.push_back(file.path);
      EXPECT_FALSE(file.deletion_vector.has_value());
    }
  }
  EXPECT_THAT(x_after, UnorderedElementsAreArray(x_files));
  // Row 4 was alone in its file: nothing to copy either way.
  EXPECT_EQ(result.metrics.at("numTargetRowsCopied"), 0);
}

TEST_P(DeltaDmlTest, MultipleSourceRowsMatchingOneTargetRowIsDeltasError) {
  CreateTable({kFileA});
  MergeSpec spec = Merge(Source(R"([[1,"p",1,"x"],[1,"q",2,"x"]])"), "t.id = s.id");
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  auto result = MergeIntoTable(catalog_, spec);
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_THAT(result.status().ToString(),
              HasSubstr("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
  EXPECT_EQ(Snapshot()->Version(), 0);

  // Not an error when the one MATCHED clause is an unconditional DELETE: the row goes once.
  MergeSpec deleting = Merge(Source(R"([[1,"p",1,"x"],[1,"q",2,"x"]])"), "t.id = s.id");
  deleting.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kDelete, {}});
  ASSERT_OK_AND_ASSIGN(DmlResult deleted, MergeIntoTable(catalog_, deleting));
  EXPECT_EQ(deleted.metrics.at("numTargetRowsDeleted"), 1);
  EXPECT_THAT(TableRows(), ElementsAre(Row(2, "b", 20, "x"), Row(3, "c", 30, "y")));

  // A second match a clause condition rules out is no conflict.
  MergeSpec conditional = Merge(Source(R"([[2,"p",1,"x"],[2,"q",2,"x"]])"), "t.id = s.id");
  conditional.clauses.push_back(
      {MergeMatch::kMatched, Sql("s.v = 2"), MergeAction::kUpdate, {Set("name", "s.name")}});
  ASSERT_OK(MergeIntoTable(catalog_, conditional).status());
  EXPECT_THAT(TableRows(), ElementsAre(Row(2, "q", 20, "x"), Row(3, "c", 30, "y")));
}

TEST_P(DeltaDmlTest, MergeClauseRulesAreChecked) {
  CreateTable({kFileA});
  MergeSpec spec = Merge(Source(R"([[1,"p",1,"x"]])"), "t.id = s.id");
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kDelete, {}});
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  ASSERT_RAISES(InvalidArgument, MergeIntoTable(catalog_, spec));
  MergeSpec insert_matched = Merge(Source(R"([[1,"p",1,"x"]])"), "t.id = s.id");
  insert_matched.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kInsertAll, {}});
  ASSERT_RAISES(InvalidArgument, MergeIntoTable(catalog_, insert_matched));
}

TEST_P(DeltaDmlTest, SchemaEvolutionAddsTheSourcesNewColumns) {
  CreateTable({kFileA});
  auto wide =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                           Field("v", DataType::Int32()), Field("part", DataType::String()),
                           Field("extra", DataType::String())});
  const std::string rows = R"([[1,"A",11,"x","e1"],[9,"i",90,"y","e9"]])";
  // Without evolution the extra column is not written.
  MergeSpec plain = Merge(Source(rows, wide), "t.id = s.id");
  plain.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  ASSERT_OK(MergeIntoTable(catalog_, plain).status());
  EXPECT_EQ(Snapshot()->Schema()->NumFields(), 4);
  EXPECT_EQ(TableRows().front(), Row(1, "A", 11, "x"));

  MergeSpec evolving = Merge(Source(rows, wide), "t.id = s.id");
  evolving.schema_evolution = true;
  evolving.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  evolving.clauses.push_back(
      {MergeMatch::kNotMatchedByTarget, nullptr, MergeAction::kInsertAll, {}});
  ASSERT_OK(MergeIntoTable(catalog_, evolving).status());
  auto snapshot = Snapshot();
  ASSERT_EQ(snapshot->Schema()->NumFields(), 5);
  EXPECT_EQ(snapshot->Schema()->FieldAt(4).Name(), "extra");
  EXPECT_THAT(TableRows(), ElementsAre(R"({"id":1,"name":"A","v":11,"part":"x","extra":"e1"})",
                                       R"({"id":2,"name":"b","v":20,"part":"x","extra":null})",
                                       R"({"id":3,"name":"c","v":30,"part":"y","extra":null})",
                                       R"({"id":9,"name":"i","v":90,"part":"y","extra":"e9"})"));

  // Without evolution, SET * needs every target column in the source.
  auto narrow = testing::MakeSchema({Field("id", DataType::Int64())});
  MergeSpec missing = Merge(Source(R"([[1]])", narrow), "t.id = s.id");
  missing.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  ASSERT_RAISES(InvalidArgument, MergeIntoTable(catalog_, missing));
}

TEST_P(DeltaDmlTest, ChangeRowsDescribeEachChange) {
  CreateTable({kFileA}, /*partitioned=*/false, /*change_feed=*/true);
  MergeSpec spec = Merge(Source(R"([[1,"A",11,"x"],[7,"g",70,"x"]])"), "t.id = s.id");
  spec.clauses.push_back({MergeMatch::kMatched, nullptr, MergeAction::kUpdateAll, {}});
  spec.clauses.push_back({MergeMatch::kNotMatchedByTarget, nullptr, MergeAction::kInsertAll, {}});
  spec.clauses.push_back(
      {MergeMatch::kNotMatchedBySource, Sql("t.id = 3"), MergeAction::kDelete, {}});
  ASSERT_OK_AND_ASSIGN(DmlResult result, MergeIntoTable(catalog_, spec));
  ASSERT_EQ(result.version, 1);
  ASSERT_OK_AND_ASSIGN(auto changes, delta::ReadChanges(fs_, path_, 1, 1));
  std::vector<std::string> rows;
  for (const auto& batch : changes) {
    ASSERT_OK_AND_ASSIGN(auto projected, batch->SelectColumns({0, 1, 2, 3, 4}));
    for (std::string& row : columnar::CanonicalJsonRows(*projected)) {
      rows.push_back(std::move(row));
    }
  }
  EXPECT_THAT(rows,
              UnorderedElementsAreArray(std::vector<std::string>{
                  R"({"id":1,"name":"a","v":10,"part":"x","_change_type":"update_preimage"})",
                  R"({"id":1,"name":"A","v":11,"part":"x","_change_type":"update_postimage"})",
                  R"({"id":3,"name":"c","v":30,"part":"y","_change_type":"delete"})",
                  R"({"id":7,"name":"g","v":70,"part":"x","_change_type":"insert"})"}));
}

TEST_P(DeltaDmlTest, DeleteAndUpdateWriteTheirChangeRows) {
  CreateTable({kFileA, kFileB}, /*partitioned=*/true, /*change_feed=*/true);
  ASSERT_OK_AND_ASSIGN(DmlResult deleted, DeleteFromTable(catalog_, path_, "", Sql("id = 2")));
  ASSERT_OK_AND_ASSIGN(DmlResult updated,
                       UpdateTable(catalog_, path_, "", {Set("v", "v + 5")}, Sql("part = 'y'")));
  ASSERT_EQ(deleted.version, 2);
  ASSERT_EQ(updated.version, 3);
  ASSERT_OK_AND_ASSIGN(auto changes, delta::ReadChanges(fs_, path_, 2, 3));
  std::vector<std::string> rows;
  for (const auto& batch : changes) {
    ASSERT_OK_AND_ASSIGN(auto projected, batch->SelectColumns({0, 2, 4, 5}));
    for (std::string& row : columnar::CanonicalJsonRows(*projected)) {
      rows.push_back(std::move(row));
    }
  }
  EXPECT_THAT(rows,
              UnorderedElementsAreArray(std::vector<std::string>{
                  R"({"id":2,"v":20,"_change_type":"delete","_commit_version":2})",
                  R"({"id":3,"v":30,"_change_type":"update_preimage","_commit_version":3})",
                  R"({"id":3,"v":35,"_change_type":"update_postimage","_commit_version":3})",
                  R"({"id":4,"v":40,"_change_type":"update_preimage","_commit_version":3})",
                  R"({"id":4,"v":45,"_change_type":"update_postimage","_commit_version":3})"}));
}

TEST_P(DeltaDmlTest, NestedFieldsAreAssignedByPath) {
  auto schema = testing::MakeSchema(
      {Field("id", DataType::Int64()),
       Field("s",
             DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::String())}))});
  ASSERT_OK_AND_ASSIGN(
      auto batch, testing::BatchFromJson(schema, R"([[1,{"a":1,"b":"x"}],[2,{"a":2,"b":"y"}]])"));
  delta::TableWriteOptions options;
  if (DeletionVectors()) {
    options.properties["delta.enableDeletionVectors"] = "true";
  }
  ASSERT_OK(delta::WriteTable(fs_, path_, schema, {batch}, options).status());
  ASSERT_OK(UpdateTable(catalog_, path_, "t", {Set("t.s.a", "s.a + 10")}, Sql("id = 1")).status());
  EXPECT_THAT(TableRows(),
              ElementsAre(R"({"id":1,"s":{"a":11,"b":"x"}})", R"({"id":2,"s":{"a":2,"b":"y"}})"));
  MergeSpec spec = Merge(Source(R"([[2,"z",0,"x"]])"), "t.id = s.id");
  spec.clauses.push_back(
      {MergeMatch::kMatched, nullptr, MergeAction::kUpdate, {Set("s.b", "s.name")}});
  ASSERT_OK(MergeIntoTable(catalog_, spec).status());
  EXPECT_THAT(TableRows(),
              ElementsAre(R"({"id":1,"s":{"a":11,"b":"x"}})", R"({"id":2,"s":{"a":2,"b":"z"}})"));
  ASSERT_RAISES(InvalidArgument, UpdateTable(catalog_, path_, "", {Set("s.nope", "1")}, nullptr));
  ASSERT_RAISES(InvalidArgument,
                UpdateTable(catalog_, path_, "", {Set("s", "s"), Set("s.a", "1")}, nullptr));
}

INSTANTIATE_TEST_SUITE_P(DeletionVectors, DeltaDmlTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "DeletionVectors" : "CopyOnWrite";
                         });

}  // namespace
}  // namespace tributary::plan

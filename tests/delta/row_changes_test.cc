// Row-level changes committed by CommitRowChanges on real tables: deletion vectors written,
// merged with the file's old vector and read back (rows by the row index column), copy-on-write
// rewrites, change data files, schema changes, idempotent txn, the commit's actions and
// operationMetrics, and the read set's conflicts with concurrent commits.

#include "delta/row_changes.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/deletion_vector.h"
#include "delta/log_segment.h"
#include "delta/table_reader.h"
#include "delta/table_rows.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/delta_replay.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using nlohmann::json;

class RowChangesTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = dir_.Join("t"); }

  static columnar::SchemaPtr Schema() {
    return testing::MakeSchema(
        {Field("id", DataType::Int64()), Field("country", DataType::String())});
  }

  // Ten rows, ids 0..9, "fr" for even ids and "de" for odd ones.
  columnar::RecordBatchPtr TenRows() {
    std::string text = "[";
    for (int i = 0; i < 10; ++i) {
      text += fmt::format("{}[{}, \"{}\"]", i ? "," : "", i, i % 2 ? "de" : "fr");
    }
    auto batch = testing::BatchFromJson(Schema(), text + "]");
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return *batch;
  }

  void Create(std::map<std::string, std::string> properties,
              std::vector<std::string> partition_by = {}) {
    TableWriteOptions options;
    options.properties = std::move(properties);
    options.partition_by = std::move(partition_by);
    ASSERT_OK(WriteTable(fs_, root_, Schema(), {TenRows()}, options).status());
  }

  std::shared_ptr<const Snapshot> Latest() {
    auto snapshot = Snapshot::Load(fs_, root_);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    return snapshot.ok() ? *snapshot : nullptr;
  }

  // The deletes of rows whose id satisfies `pred`, found by reading each file with the row
  // index column (as a DML read does).
  std::vector<FileRowDeletes> DeletesWhere(const Snapshot& snapshot,
                                           const std::function<bool(int64_t)>& pred) {
    std::vector<FileRowDeletes> out;
    for (const AddFile& add : snapshot.Files()) {
      TableReadOptions read;
      read.row_index_column = "_row";
      auto batches = ReadDataFile(fs_, snapshot, add, read);
      EXPECT_TRUE(batches.ok()) << batches.status().ToString();
      FileRowDeletes deletes;
      deletes.file = add;
      for (const auto& batch : *batches) {
        const int64_t* ids = batch->ColumnAt(0)->Values<int64_t>();
        const int64_t* rows = batch->ColumnAt(batch->NumColumns() - 1)->Values<int64_t>();
        for (int64_t r = 0; r < batch->NumRows(); ++r) {
          if (pred(ids[r])) {
            deletes.rows.push_back(static_cast<uint64_t>(rows[r]));
          }
        }
      }
      if (!deletes.rows.empty()) {
        out.push_back(std::move(deletes));
      }
    }
    return out;
  }

  std::vector<std::string> Ids() {
    std::vector<std::string> ids;
    for (const std::string& row : testing::SortedRows(fs_, root_)) {
      ids.push_back(json::parse(row)["id"].dump());
    }
    std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) {
      return std::stoll(a) < std::stoll(b);
    });
    return ids;
  }

  // Our rows of the latest version equal an independent replay's (DuckDB over the log JSON and
  // the Parquet files, deletion vectors decoded from disk by the test support's own reader).
  void ExpectReplayAgrees() {
    ASSERT_OK_AND_ASSIGN(auto replayed, testing::ReplayDeltaTable(root_));
    EXPECT_EQ(replayed.version, Latest()->Version());
    EXPECT_EQ(replayed.rows, testing::SortedRows(fs_, root_));
  }

  // The actions of commit `version`, one JSON object per line.
  std::vector<json> CommitActions(int64_t version) {
    auto text = fs_.ReadFile(CommitPath(root_ + "/_delta_log", version));
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    std::vector<json> out;
    std::istringstream lines(text.ok() ? *text : "");
    std::string line;
    while (std::getline(lines, line)) {
      out.push_back(json::parse(line));
    }
    return out;
  }

  json CommitInfo(int64_t version) {
    for (const json& action : CommitActions(version)) {
      if (action.contains("commitInfo")) {
        return action["commitInfo"];
      }
    }
    return {};
  }

  int Count(int64_t version, const char* kind) {
    int n = 0;
    for (const json& action : CommitActions(version)) {
      n += action.contains(kind) ? 1 : 0;
    }
    return n;
  }

  static RowChangeOptions Delete() {
    RowChangeOptions options;
    options.operation = "DELETE";
    options.operation_parameters = {{"predicate", "[\"(id = 1)\"]"}};
    return options;
  }

  storage::LocalFileSystem fs_;
  testing::TempDir dir_;
  std::string root_;
};

TEST_F(RowChangesTest, NewTablesWithDeletionVectorsAndChangeDataFeedGetTheirProtocol) {
  Create({{"delta.enableDeletionVectors", "true"}});
  auto dv = Latest();
  EXPECT_EQ(dv->GetProtocol().min_reader_version, 3);
  EXPECT_EQ(dv->GetProtocol().min_writer_version, 7);
  ASSERT_TRUE(dv->GetProtocol().reader_features.has_value());
  ASSERT_TRUE(dv->GetProtocol().writer_features.has_value());
  EXPECT_EQ(*dv->GetProtocol().reader_features, std::vector<std::string>{"deletionVectors"});
  const auto& writer = *dv->GetProtocol().writer_features;
  EXPECT_NE(std::find(writer.begin(), writer.end(), "deletionVectors"), writer.end());
  EXPECT_TRUE(DeletionVectorsEnabled(dv->GetMetadata()));

  // Change data feed alone: legacy writer version 4 (PROTOCOL.md "Change Data Feed").
  root_ = dir_.Join("cdf");
  Create({{"delta.enableChangeDataFeed", "true"}});
  auto cdf = Latest();
  EXPECT_EQ(cdf->GetProtocol().min_reader_version, 1);
  EXPECT_EQ(cdf->GetProtocol().min_writer_version, 4);
  EXPECT_FALSE(cdf->GetProtocol().writer_features.has_value());
  // Appending to it is allowed and writes no change data.
  TableWriteOptions append;
  append.mode = SaveMode::kAppend;
  ASSERT_OK(WriteTable(fs_, root_, Schema(), {TenRows()}, append).status());
  EXPECT_EQ(Count(1, "cdc"), 0);

  // Both: table features with changeDataFeed as a writer feature.
  root_ = dir_.Join("both");
  Create({{"delta.enableChangeDataFeed", "true"}, {"delta.enableDeletionVectors", "true"}});
  auto both_snapshot = Latest();
  ASSERT_TRUE(both_snapshot->GetProtocol().writer_features.has_value());
  const auto& both = *both_snapshot->GetProtocol().writer_features;
  EXPECT_NE(std::find(both.begin(), both.end(), "changeDataFeed"), both.end());
  EXPECT_NE(std::find(both.begin(), both.end(), "deletionVectors"), both.end());
}

// Deleting rows of a file of a DV table: a deletion vector on the same file, then a second
// delete merges the old vector with the new rows, then deleting the rest removes the file.
TEST_F(RowChangesTest, DeletionVectorsAreAddedUpdatedAndTheFileRemovedWhenEmpty) {
  Create({{"delta.enableDeletionVectors", "true"}});
  auto v0 = Latest();
  ASSERT_EQ(v0->Files().size(), 1u);
  RowChanges changes;
  changes.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 2 || id == 5; });
  RowChangeOptions options = Delete();
  options.operation_metrics = {{"numDeletedRows", 2}};
  ASSERT_OK_AND_ASSIGN(auto first, CommitRowChanges(fs_, v0, changes, {}, options));
  EXPECT_TRUE(first.committed);
  EXPECT_EQ(first.version, 1);
  EXPECT_EQ(Ids(), (std::vector<std::string>{"0", "1", "3", "4", "6", "7", "8", "9"}));
  auto v1 = Latest();
  ASSERT_EQ(v1->Files().size(), 1u);
  const AddFile& file = v1->Files()[0];
  EXPECT_EQ(file.path, v0->Files()[0].path);
  ASSERT_TRUE(file.deletion_vector.has_value());
  EXPECT_EQ(file.deletion_vector->storage_type, "u");
  EXPECT_EQ(file.deletion_vector->cardinality, 2);
  ASSERT_OK_AND_ASSIGN(auto deleted, LoadDeletedRows(fs_, root_, *file.deletion_vector));
  EXPECT_EQ(deleted, (std::vector<uint64_t>{2, 5}));
  const json stats = json::parse(*file.stats);
  EXPECT_EQ(stats["numRecords"], 10);  // physical rows
  EXPECT_EQ(stats["tightBounds"], false);
  // remove(old file, no DV) + add(same path, DV), both dataChange.
  for (const json& action : CommitActions(1)) {
    if (action.contains("remove")) {
      EXPECT_EQ(action["remove"]["dataChange"], true);
      EXPECT_EQ(action["remove"]["extendedFileMetadata"], true);
      EXPECT_TRUE(action["remove"].contains("deletionTimestamp"));
      EXPECT_FALSE(action["remove"].contains("deletionVector"));
    }
  }
  EXPECT_EQ(Count(1, "remove"), 1);
  EXPECT_EQ(Count(1, "add"), 1);
  json info = CommitInfo(1);
  EXPECT_EQ(info["operation"], "DELETE");
  EXPECT_EQ(info["operationParameters"]["predicate"], "[\"(id = 1)\"]");
  EXPECT_EQ(info["operationMetrics"]["numDeletedRows"], "2");
  EXPECT_EQ(info["operationMetrics"]["numDeletionVectorsAdded"], "1");
  EXPECT_EQ(info["operationMetrics"]["numDeletionVectorsUpdated"], "0");
  EXPECT_EQ(info["operationMetrics"]["numRemovedFiles"], "0");
  EXPECT_EQ(info["operationMetrics"]["numAddedFiles"], "0");
  EXPECT_EQ(info["isBlindAppend"], false);

  // Second delete: the new vector holds the old rows and the new ones; the remove names the
  // old vector.
  changes.deletes = DeletesWhere(*v1, [](int64_t id) { return id == 9 || id == 0; });
  ASSERT_EQ(changes.deletes.size(), 1u);
  EXPECT_EQ(changes.deletes[0].rows, (std::vector<uint64_t>{0, 9}));
  ASSERT_OK(CommitRowChanges(fs_, v1, changes, {}, Delete()).status());
  EXPECT_EQ(Ids(), (std::vector<std::string>{"1", "3", "4", "6", "7", "8"}));
  auto v2 = Latest();
  ASSERT_OK_AND_ASSIGN(deleted, LoadDeletedRows(fs_, root_, *v2->Files()[0].deletion_vector));
  EXPECT_EQ(deleted, (std::vector<uint64_t>{0, 2, 5, 9}));
  for (const json& action : CommitActions(2)) {
    if (action.contains("remove")) {
      EXPECT_EQ(action["remove"]["deletionVector"]["cardinality"], 2);
    }
  }
  EXPECT_EQ(CommitInfo(2)["operationMetrics"]["numDeletionVectorsUpdated"], "1");
  ExpectReplayAgrees();

  // The rest: the file goes, with no new vector.
  changes.deletes = DeletesWhere(*v2, [](int64_t) { return true; });
  ASSERT_OK(CommitRowChanges(fs_, v2, changes, {}, Delete()).status());
  EXPECT_TRUE(Ids().empty());
  EXPECT_TRUE(Latest()->Files().empty());
  EXPECT_EQ(Count(3, "add"), 0);
  EXPECT_EQ(CommitInfo(3)["operationMetrics"]["numRemovedFiles"], "1");
  EXPECT_EQ(CommitInfo(3)["operationMetrics"]["numDeletionVectorsRemoved"], "1");
}

// A file read without stats (another writer's) still gets numRecords on its new vector's add,
// from the Parquet footer: the protocol requires it on files with deletion vectors.
TEST_F(RowChangesTest, DeletionVectorOnAFileWithoutStatsCountsItsRowsFromTheFooter) {
  Create({{"delta.enableDeletionVectors", "true"}});
  auto v0 = Latest();
  RowChanges changes;
  changes.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 3; });
  ASSERT_EQ(changes.deletes.size(), 1u);
  changes.deletes[0].file.stats.reset();
  ASSERT_OK(CommitRowChanges(fs_, v0, changes, {}, Delete()).status());
  auto v1 = Latest();
  ASSERT_EQ(v1->Files().size(), 1u);
  ASSERT_TRUE(v1->Files()[0].stats.has_value());
  EXPECT_EQ(json::parse(*v1->Files()[0].stats),
            json::parse(R"({"numRecords":10,"tightBounds":false})"));
  ExpectReplayAgrees();
}

// Without deletion vectors a file with deleted rows is rewritten: its survivors in new files,
// updated rows added, files of other partitions untouched.
TEST_F(RowChangesTest, CopyOnWriteRewritesOnlyTheFilesWithDeletedRows) {
  Create({}, {"country"});
  auto v0 = Latest();
  ASSERT_EQ(v0->Files().size(), 2u);
  RowChanges changes;
  // UPDATE SET id = id + 100 WHERE id = 3: row 3 deleted, its new value added.
  changes.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 3; });
  ASSERT_EQ(changes.deletes.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto updated, testing::BatchFromJson(Schema(), R"([[103, "de"]])"));
  changes.new_rows = {updated};
  RowChangeOptions options;
  options.operation = "UPDATE";
  ASSERT_OK_AND_ASSIGN(auto result, CommitRowChanges(fs_, v0, changes, {}, options));
  EXPECT_EQ(result.files_removed, 1);
  EXPECT_EQ(result.files_added, 1);
  EXPECT_EQ(Ids(), (std::vector<std::string>{"0", "1", "2", "4", "5", "6", "7", "8", "9", "103"}));
  auto v1 = Latest();
  std::set<std::string> paths;
  for (const AddFile& add : v1->Files()) {
    paths.insert(add.path);
    EXPECT_FALSE(add.deletion_vector.has_value());
  }
  const std::string& fr = *v0->Files()[0].partition_values.at("country") == "fr"
                              ? v0->Files()[0].path
                              : v0->Files()[1].path;
  const std::string& de = fr == v0->Files()[0].path ? v0->Files()[1].path : v0->Files()[0].path;
  EXPECT_TRUE(paths.count(fr));
  EXPECT_FALSE(paths.count(de));
  json info = CommitInfo(1);
  EXPECT_EQ(info["operationMetrics"]["numRemovedFiles"], "1");
  EXPECT_EQ(info["operationMetrics"]["numAddedFiles"], "1");
  EXPECT_EQ(info["operationMetrics"]["numDeletionVectorsAdded"], "0");
  ExpectReplayAgrees();
}

// A table with the change data feed: the change rows go to _change_data/ files named by cdc
// actions of the same commit; a MERGE's file metrics are the target's.
TEST_F(RowChangesTest, ChangeRowsBecomeCdcFilesOfTheCommit) {
  Create({{"delta.enableChangeDataFeed", "true"}, {"delta.enableDeletionVectors", "true"}});
  auto v0 = Latest();
  RowChanges changes;
  changes.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 4; });
  auto change_schema =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("_change_type", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto change_rows,
                       testing::BatchFromJson(change_schema, R"([[4, "fr", "delete"]])"));
  changes.change_rows = {change_rows};
  RowChangeOptions options;
  options.operation = "MERGE";
  ASSERT_OK(CommitRowChanges(fs_, v0, changes, {}, options).status());
  int cdc = 0;
  for (const json& action : CommitActions(1)) {
    if (action.contains("cdc")) {
      ++cdc;
      EXPECT_EQ(action["cdc"]["dataChange"], false);
      const std::string path = action["cdc"]["path"];
      EXPECT_EQ(path.rfind("_change_data/", 0), 0u) << path;
      EXPECT_TRUE(std::filesystem::exists(root_ + "/" + path)) << path;
      EXPECT_EQ(action["cdc"]["size"], std::filesystem::file_size(root_ + "/" + path));
    }
  }
  EXPECT_EQ(cdc, 1);
  json metrics = CommitInfo(1)["operationMetrics"];
  EXPECT_EQ(metrics["numTargetChangeFilesAdded"], "1");
  EXPECT_EQ(metrics["numTargetDeletionVectorsAdded"], "1");
  EXPECT_EQ(metrics["numTargetFilesAdded"], "0");
  EXPECT_FALSE(metrics.contains("numAddedFiles"));
  // Without the change data feed the change rows are ignored.
  root_ = dir_.Join("plain");
  Create({});
  auto plain = Latest();
  changes.deletes = DeletesWhere(*plain, [](int64_t id) { return id == 4; });
  ASSERT_OK(CommitRowChanges(fs_, plain, changes, {}, options).status());
  EXPECT_EQ(Count(1, "cdc"), 0);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/_change_data"));
}

// MERGE schema evolution: a wider schema updates the metadata; old rows read the new column
// as null. The txn makes a second run of the same change a no-op.
TEST_F(RowChangesTest, WiderSchemaUpdatesMetadataAndTxnMakesItIdempotent) {
  Create({});
  auto v0 = Latest();
  auto wider =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("note", DataType::String())});
  RowChanges changes;
  changes.schema = wider;
  ASSERT_OK_AND_ASSIGN(auto inserted, testing::BatchFromJson(wider, R"([[10, "it", "new"]])"));
  changes.new_rows = {inserted};
  RowChangeOptions options;
  options.operation = "MERGE";
  options.txn = std::make_pair(std::string("app"), int64_t{7});
  ASSERT_OK_AND_ASSIGN(auto first, CommitRowChanges(fs_, v0, changes, {}, options));
  EXPECT_TRUE(first.committed);
  auto v1 = Latest();
  EXPECT_EQ(v1->Schema()->NumFields(), 3);
  EXPECT_EQ(v1->Transactions().at("app"), 7);
  const auto rows = testing::SortedRows(fs_, *v1);
  ASSERT_EQ(rows.size(), 11u);
  EXPECT_EQ(rows[0], R"({"id":0,"country":"fr","note":null})");
  ASSERT_OK_AND_ASSIGN(auto again, CommitRowChanges(fs_, v1, changes, {}, options));
  EXPECT_FALSE(again.committed);
  EXPECT_EQ(Latest()->Version(), 1);
  // Nothing to do and no txn: no commit.
  ASSERT_OK_AND_ASSIGN(auto nothing, CommitRowChanges(fs_, v1, RowChanges{}, {}, Delete()));
  EXPECT_FALSE(nothing.committed);
}

// Two row-level changes from the same snapshot: removing a file the other read is
// ConcurrentDeleteReadException; a concurrent append conflicts under Serializable when it
// could match, and a blind one never under WriteSerializable.
TEST_F(RowChangesTest, ReadSetConflictsFollowDeltasRules) {
  Create({{"delta.enableDeletionVectors", "true"}}, {"country"});
  auto v0 = Latest();
  const auto fr_only = [](const AddFile& add) {
    return add.partition_values.count("country") && add.partition_values.at("country") == "fr";
  };
  RowChanges winner;
  winner.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 2; });
  ASSERT_OK(CommitRowChanges(fs_, v0, winner, {}, Delete()).status());
  RowChanges loser;
  loser.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 4; });  // same fr file
  RowChangeReads reads;
  reads.files_read = {loser.deletes[0].file.path};
  reads.could_match = fr_only;
  auto conflict = CommitRowChanges(fs_, v0, loser, reads, Delete());
  ASSERT_RAISES(Conflict, conflict);
  EXPECT_NE(conflict.status().Message().find("ConcurrentDeleteReadException"), std::string::npos)
      << conflict.status().Message();
  // The de file was not touched: a change reading only it commits on top of the winner.
  RowChanges disjoint;
  disjoint.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 3; });
  reads.files_read = {disjoint.deletes[0].file.path};
  reads.could_match = [](const AddFile& add) {
    return add.partition_values.at("country") == "de";
  };
  ASSERT_OK(CommitRowChanges(fs_, v0, disjoint, reads, Delete()).status());
  EXPECT_EQ(Ids(), (std::vector<std::string>{"0", "1", "4", "5", "6", "7", "8", "9"}));

  // A blind append to "fr" after the read: no conflict under WriteSerializable (the table's
  // default), a conflict under Serializable, none when the added file cannot match.
  auto v2 = Latest();
  TableWriteOptions append;
  append.mode = SaveMode::kAppend;
  ASSERT_OK_AND_ASSIGN(auto fr_row, testing::BatchFromJson(Schema(), R"([[20, "fr"]])"));
  ASSERT_OK(WriteTable(fs_, root_, Schema(), {fr_row}, append).status());
  RowChanges later;
  later.deletes = DeletesWhere(*v2, [](int64_t id) { return id == 6; });
  reads.files_read = {later.deletes[0].file.path};
  reads.could_match = fr_only;
  RowChangeOptions serializable = Delete();
  serializable.transaction.isolation = IsolationLevel::kSerializable;
  auto appended = CommitRowChanges(fs_, v2, later, reads, serializable);
  ASSERT_RAISES(Conflict, appended);
  EXPECT_NE(appended.status().Message().find("ConcurrentAppendException"), std::string::npos);
  reads.could_match = [](const AddFile& add) {
    return add.partition_values.at("country") == "de";
  };
  ASSERT_OK(CommitRowChanges(fs_, v2, later, reads, serializable).status());
  EXPECT_EQ(CommitInfo(Latest()->Version())["isolationLevel"], "Serializable");
  auto v4 = Latest();
  ASSERT_OK(WriteTable(fs_, root_, Schema(), {fr_row}, append).status());
  later.deletes = DeletesWhere(*v4, [](int64_t id) { return id == 8; });
  reads.files_read = {later.deletes[0].file.path};
  reads.could_match = fr_only;
  ASSERT_OK(CommitRowChanges(fs_, v4, later, reads, Delete()).status());
  EXPECT_EQ(CommitInfo(Latest()->Version())["isolationLevel"], "WriteSerializable");
  EXPECT_EQ(Ids(), (std::vector<std::string>{"0", "1", "4", "5", "7", "9", "20", "20"}));
  ExpectReplayAgrees();
}

// Under WriteSerializable, an add by a commit that is not a blind append (an insert-only MERGE
// read the table) conflicts with a change that could have matched the added file.
TEST_F(RowChangesTest, NonBlindAddsConflictUnderWriteSerializable) {
  Create({{"delta.enableDeletionVectors", "true"}}, {"country"});
  auto v0 = Latest();
  RowChanges insert;
  ASSERT_OK_AND_ASSIGN(auto fr_row, testing::BatchFromJson(Schema(), R"([[30, "fr"]])"));
  insert.new_rows = {fr_row};
  RowChangeReads whole_table;
  for (const AddFile& add : v0->Files()) {
    whole_table.files_read.push_back(add.path);
  }
  RowChangeOptions merge;
  merge.operation = "MERGE";
  ASSERT_OK(CommitRowChanges(fs_, v0, insert, whole_table, merge).status());
  EXPECT_EQ(CommitInfo(1)["isBlindAppend"], false);
  RowChanges loser;
  loser.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 0; });
  RowChangeReads reads;
  reads.files_read = {loser.deletes[0].file.path};
  reads.could_match = [](const AddFile& add) {
    return add.partition_values.at("country") == "fr";
  };
  auto conflict = CommitRowChanges(fs_, v0, loser, reads, Delete());
  ASSERT_RAISES(Conflict, conflict);
  EXPECT_NE(conflict.status().Message().find("ConcurrentAppendException"), std::string::npos)
      << conflict.status().Message();
  // A file it could not have matched: no conflict.
  reads.could_match = [](const AddFile& add) {
    return add.partition_values.at("country") == "de";
  };
  ASSERT_OK(CommitRowChanges(fs_, v0, loser, reads, Delete()).status());
  ExpectReplayAgrees();
}

// delta.isolationLevel = Serializable on the table is the default of its transactions.
TEST_F(RowChangesTest, TableIsolationLevelIsTheDefault) {
  Create({{"delta.isolationLevel", "Serializable"}});
  auto v0 = Latest();
  TableWriteOptions append;
  append.mode = SaveMode::kAppend;
  ASSERT_OK(WriteTable(fs_, root_, Schema(), {TenRows()}, append).status());
  EXPECT_EQ(CommitInfo(1)["isolationLevel"], "Serializable");
  RowChanges changes;
  changes.deletes = DeletesWhere(*v0, [](int64_t id) { return id == 1; });
  RowChangeReads reads;
  reads.files_read = {changes.deletes[0].file.path};
  auto conflict = CommitRowChanges(fs_, v0, changes, reads, Delete());
  ASSERT_RAISES(Conflict, conflict);
  EXPECT_NE(conflict.status().Message().find("ConcurrentAppendException"), std::string::npos);
}

}  // namespace
}  // namespace tributary::delta

// The Delta stream source: initial snapshot then commits, starting positions, rate limits that
// split commits, skipped and refused commits, schema changes and restarts, lost commits.

#include "streaming/delta_source.h"

#include <sys/time.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/checkpoint_writer.h"
#include "delta/log_segment.h"
#include "delta/maintenance.h"
#include "delta/table_reader.h"
#include "delta/transaction.h"
#include "streaming/delta_tables.h"
#include "streaming/schema_change.h"
#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::AppendRows;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SortedRows;

class DeltaSourceTest : public ::testing::Test {
 protected:
  int64_t Append(const std::string& rows, std::vector<std::string> partition_by = {}) {
    auto version = AppendRows(fs_, root_, schema_, rows, std::move(partition_by));
    EXPECT_TRUE(version.ok()) << version.status().ToString();
    return version.ok() ? *version : -1;
  }

  std::unique_ptr<Source> Open(const std::map<std::string, std::string>& options = {},
                               const std::string& checkpoint = "ckpt") {
    return testing::OpenDeltaSource(fs_, root_, options, dir_.Join(checkpoint), &definition_);
  }

  // Rows of (start, end] of `source`.
  std::vector<std::string> Rows(Source& source, const std::optional<Offset>& start,
                                const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) {
      return {};
    }
    EXPECT_EQ(batch->kind, plan::ScanSource::Kind::kDelta);
    auto rows = SortedRows(fs_, *batch);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // The offset after `start` (which must exist).
  Offset Next(Source& source, const std::optional<Offset>& start, bool respect_limits = true) {
    auto latest = source.LatestOffset(start, respect_limits);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_TRUE(latest.ok() && latest->has_value());
    return latest.ok() && latest->has_value() ? **latest : Offset();
  }

  // (reservoirVersion, index, isStartingVersion) of an offset.
  static std::tuple<int64_t, int64_t, bool> Fields(const Offset& offset) {
    auto parsed = nlohmann::json::parse(offset);
    return {parsed["reservoirVersion"].get<int64_t>(), parsed["index"].get<int64_t>(),
            parsed["isStartingVersion"].get<bool>()};
  }

  static std::string Row(int64_t id, const std::string& p) {
    return "{\"id\":" + std::to_string(id) + ",\"p\":\"" + p + "\"}";
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::string root_ = dir_.Join("table");
  columnar::SchemaPtr schema_ = tributary::testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("p", DataType::String())});
  std::shared_ptr<const DeltaSourceDefinition> definition_;
};

TEST_F(DeltaSourceTest, ReadsTheInitialSnapshotThenEachNewCommit) {
  Append(R"([[1, "a"], [2, "a"]])");
  Append(R"([[3, "b"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(definition_->Description(), "DeltaSource[" + root_ + "]");
  EXPECT_TRUE(definition_->Schema()->Equals(*schema_));

  const Offset first = Next(*source, std::nullopt);
  // Delta's offset JSON: the whole snapshot at version 1 is read, so the next read starts
  // before version 2.
  EXPECT_EQ(first, R"({"index":-1,"isStartingVersion":false,"reservoirId":")" +
                       definition_->SnapshotAtDefinition()->GetMetadata().id +
                       R"(","reservoirVersion":2,"sourceVersion":1})");
  EXPECT_THAT(Rows(*source, std::nullopt, first),
              ElementsAre(Row(1, "a"), Row(2, "a"), Row(3, "b")));
  // Nothing new: the latest offset is the start.
  EXPECT_EQ(Next(*source, first), first);

  Append(R"([[4, "c"]])");
  Append(R"([[5, "c"]])");
  const Offset second = Next(*source, first);
  EXPECT_EQ(Fields(second), std::make_tuple(int64_t{4}, int64_t{-1}, false));
  EXPECT_THAT(Rows(*source, first, second), ElementsAre(Row(4, "c"), Row(5, "c")));
  ASSERT_OK(source->Commit(second));
  // Replayable: the same range gives the same rows after the source forgot its caches.
  EXPECT_THAT(Rows(*source, first, second), ElementsAre(Row(4, "c"), Row(5, "c")));
}

TEST_F(DeltaSourceTest, EmptyTableHasNoOffsetUntilTheFirstAppend) {
  ASSERT_OK(delta::WriteTable(fs_, root_, schema_, {}, delta::TableWriteOptions{}));
  auto source = Open();
  ASSERT_NE(source, nullptr);
  ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(none.has_value());
  Append(R"([[1, "a"]])");
  const Offset first = Next(*source, std::nullopt);
  EXPECT_THAT(Rows(*source, std::nullopt, first), ElementsAre(Row(1, "a")));
}

TEST_F(DeltaSourceTest, StartingVersionReadsChangesFromThatCommit) {
  Append(R"([[1, "a"]])");
  Append(R"([[2, "a"]])");
  Append(R"([[3, "a"]])");
  auto source = Open({{"startingVersion", "1"}});
  ASSERT_NE(source, nullptr);
  const Offset end = Next(*source, std::nullopt);
  EXPECT_EQ(Fields(end), std::make_tuple(int64_t{3}, int64_t{-1}, false));
  EXPECT_THAT(Rows(*source, std::nullopt, end), ElementsAre(Row(2, "a"), Row(3, "a")));

  auto bad = Open({{"startingVersion", "7"}}, "other");
  ASSERT_NE(bad, nullptr);
  auto refused = bad->LatestOffset(std::nullopt, true);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr("startingVersion 7"));
  EXPECT_THAT(refused.status().Message(), HasSubstr("[0, 2]"));
  ASSERT_RAISES(InvalidArgument,
                DeltaSourceDefinition::Make(fs_, root_, {{"startingVersion", "x"}}));
  ASSERT_RAISES(InvalidArgument,
                DeltaSourceDefinition::Make(
                    fs_, root_, {{"startingVersion", "1"}, {"startingTimestamp", "2024-01-01"}}));
}

TEST_F(DeltaSourceTest, StartingVersionLatestIsPinnedAtTheFirstStart) {
  Append(R"([[1, "a"]])");
  {
    auto source = Open({{"startingVersion", "latest"}});
    ASSERT_NE(source, nullptr);
    ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
    EXPECT_FALSE(none.has_value());
  }
  // The query restarts after a commit: "latest" still means the version at the first start,
  // so the commit made in between is read.
  Append(R"([[2, "b"]])");
  auto restarted = Open({{"startingVersion", "latest"}});
  ASSERT_NE(restarted, nullptr);
  const Offset end = Next(*restarted, std::nullopt);
  EXPECT_THAT(Rows(*restarted, std::nullopt, end), ElementsAre(Row(2, "b")));
}

TEST_F(DeltaSourceTest, StartingTimestampStartsAtTheFirstCommitAtOrAfterIt) {
  for (int i = 0; i < 3; ++i) {
    Append("[[" + std::to_string(i) + ", \"a\"]]");
    // Commit i at 1000 * (i + 1) seconds after the epoch.
    const time_t seconds = time_t{1000} * (i + 1);
    const timeval times[2] = {{seconds, 0}, {seconds, 0}};
    ASSERT_EQ(::utimes(delta::CommitPath(root_ + "/_delta_log", i).c_str(), times), 0);
  }
  auto at = Open({{"startingTimestamp", "1970-01-01 00:33:20"}}, "at");  // 2000 s: version 1
  ASSERT_NE(at, nullptr);
  EXPECT_THAT(Rows(*at, std::nullopt, Next(*at, std::nullopt)),
              ElementsAre(Row(1, "a"), Row(2, "a")));
  auto between = Open({{"startingTimestamp", "1970-01-01 00:40:00"}}, "between");  // 2400 s
  ASSERT_NE(between, nullptr);
  EXPECT_THAT(Rows(*between, std::nullopt, Next(*between, std::nullopt)), ElementsAre(Row(2, "a")));
  auto before = Open({{"startingTimestamp", "1970-01-01"}}, "before");
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(Rows(*before, std::nullopt, Next(*before, std::nullopt)).size(), 3u);
  auto after = Open({{"startingTimestamp", "2001-01-01"}}, "after");
  ASSERT_NE(after, nullptr);
  auto refused = after->LatestOffset(std::nullopt, true);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr("after the latest commit"));
}

TEST_F(DeltaSourceTest, MaxFilesPerTriggerSplitsTheSnapshotAndACommit) {
  // One commit with three files (one per partition), the initial snapshot.
  Append(R"([[1, "a"], [2, "b"], [3, "c"]])", {"p"});
  auto source = Open({{"maxFilesPerTrigger", "2"}});
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  EXPECT_EQ(Fields(first), std::make_tuple(int64_t{0}, int64_t{1}, true));
  EXPECT_EQ(source->Metrics().at("numFilesOutstanding"), "1");
  EXPECT_NE(source->Metrics().at("numBytesOutstanding"), "0");
  const Offset second = Next(*source, first);
  EXPECT_EQ(source->Metrics().at("numFilesOutstanding"), "0");
  EXPECT_EQ(Fields(second), std::make_tuple(int64_t{1}, int64_t{-1}, false));
  auto batch_one = Rows(*source, std::nullopt, first);
  auto batch_two = Rows(*source, first, second);
  EXPECT_EQ(batch_one.size(), 2u);
  EXPECT_EQ(batch_two.size(), 1u);
  batch_one.insert(batch_one.end(), batch_two.begin(), batch_two.end());
  std::sort(batch_one.begin(), batch_one.end());
  EXPECT_THAT(batch_one, ElementsAre(Row(1, "a"), Row(2, "b"), Row(3, "c")));

  // A later commit of three files is split the same way, by its add actions' order.
  Append(R"([[4, "a"], [5, "b"], [6, "c"]])", {"p"});
  const Offset third = Next(*source, second);
  EXPECT_EQ(Fields(third), std::make_tuple(int64_t{1}, int64_t{1}, false));
  const Offset fourth = Next(*source, third);
  EXPECT_EQ(Fields(fourth), std::make_tuple(int64_t{2}, int64_t{-1}, false));
  EXPECT_EQ(Rows(*source, second, third).size(), 2u);
  EXPECT_EQ(Rows(*source, third, fourth).size(), 1u);
  // Without limits (Trigger.Once) everything at once.
  EXPECT_EQ(Next(*source, second, /*respect_limits=*/false), fourth);
}

TEST_F(DeltaSourceTest, MaxBytesPerTriggerIsSoftAndTakesAtLeastOneFile) {
  Append(R"([[1, "a"], [2, "b"], [3, "c"]])", {"p"});
  auto source = Open({{"maxBytesPerTrigger", "1b"}});
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  EXPECT_EQ(Fields(first), std::make_tuple(int64_t{0}, int64_t{0}, true));
  EXPECT_EQ(Rows(*source, std::nullopt, first).size(), 1u);
  ASSERT_RAISES(InvalidArgument,
                DeltaSourceDefinition::Make(fs_, root_, {{"maxBytesPerTrigger", "lots"}}));
  ASSERT_RAISES(InvalidArgument,
                DeltaSourceDefinition::Make(fs_, root_, {{"maxFilesPerTrigger", "0"}}));
}

TEST_F(DeltaSourceTest, OptimizeCommitsAreSkipped) {
  Append(R"([[1, "a"]])");
  Append(R"([[2, "a"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto optimized, delta::Optimize(fs_, root_));
  ASSERT_EQ(optimized.version, 2);
  EXPECT_EQ(Next(*source, first), first);  // OPTIMIZE rewrote files but changed no data
  Append(R"([[3, "a"]])");
  const Offset second = Next(*source, first);
  EXPECT_THAT(Rows(*source, first, second), ElementsAre(Row(3, "a")));
}

class DeltaSourceChangesTest : public DeltaSourceTest {
 protected:
  // Version 0: rows 1 and 2 in partition a, row 3 in partition b. Version 1: a delete of
  // partition b's file. Version 2: an overwrite (an update of every row). Version 3: an append.
  void SetUp() override {
    Append(R"([[1, "a"], [2, "a"], [3, "b"]])", {"p"});
    ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs_, root_));
    ASSERT_OK_AND_ASSIGN(auto txn, delta::Transaction::Begin(fs_, root_));
    for (const delta::AddFile& file : snapshot->Files()) {
      if (file.partition_values.at("p") == "b") {
        delta::RemoveFile remove;
        remove.path = file.path;
        remove.partition_values = file.partition_values;
        remove.size = file.size;
        txn->RemoveFile(remove);
      }
    }
    txn->SetOperation("DELETE", {{"predicate", "[\"(p = 'b')\"]"}});
    ASSERT_OK_AND_ASSIGN(int64_t deleted, txn->Commit());
    ASSERT_EQ(deleted, 1);
    delta::TableWriteOptions overwrite;
    overwrite.mode = delta::SaveMode::kOverwrite;
    ASSERT_OK_AND_ASSIGN(auto batch, tributary::testing::BatchFromJson(schema_, R"([[10, "a"]])"));
    ASSERT_OK(delta::WriteTable(fs_, root_, schema_, {batch}, overwrite));
    Append(R"([[4, "a"]])");
  }
};

// Which commit stops the stream with which options, and what the error says.
struct RefusedChange {
  std::map<std::string, std::string> options;
  const char* names_version_and_operation;
  const char* suggests;
};

class DeltaSourceRefusedChangeTest : public DeltaSourceChangesTest,
                                     public ::testing::WithParamInterface<RefusedChange> {};

TEST_P(DeltaSourceRefusedChangeTest, TheBatchEndsBeforeTheCommitAndTheNextOneFails) {
  std::map<std::string, std::string> options = GetParam().options;
  options["startingVersion"] = "0";
  auto source = Open(options);
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  EXPECT_EQ(Fields(first), std::make_tuple(int64_t{1}, int64_t{-1}, false));
  EXPECT_THAT(Rows(*source, std::nullopt, first),
              ElementsAre(Row(1, "a"), Row(2, "a"), Row(3, "b")));
  auto refused = source->LatestOffset(first, true);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr(GetParam().names_version_and_operation));
  EXPECT_THAT(refused.status().Message(), HasSubstr(GetParam().suggests));
}

INSTANTIATE_TEST_SUITE_P(
    DeletesAndUpdates, DeltaSourceRefusedChangeTest,
    ::testing::Values(
        RefusedChange{{}, "version 1 (DELETE) deletes existing data", "ignoreDeletes"},
        // ignoreDeletes lets the delete through, but not the overwrite that rewrites rows.
        RefusedChange{{{"ignoreDeletes", "true"}},
                      "version 2 (WRITE) updates existing data",
                      "skipChangeCommits"}));

TEST_F(DeltaSourceChangesTest, SkipChangeCommitsSkipsDeletesAndUpdates) {
  auto source = Open({{"startingVersion", "0"}, {"skipChangeCommits", "true"}});
  ASSERT_NE(source, nullptr);
  const Offset end = Next(*source, std::nullopt);
  EXPECT_EQ(Fields(end), std::make_tuple(int64_t{4}, int64_t{-1}, false));
  // Version 0's rows and version 3's append; the overwrite's row 10 is not emitted.
  EXPECT_THAT(Rows(*source, std::nullopt, end),
              ElementsAre(Row(1, "a"), Row(2, "a"), Row(3, "b"), Row(4, "a")));
}

TEST_F(DeltaSourceChangesTest, IgnoreChangesReEmitsRewrittenFiles) {
  auto source = Open({{"startingVersion", "0"}, {"ignoreChanges", "true"}});
  ASSERT_NE(source, nullptr);
  const Offset end = Next(*source, std::nullopt);
  // The overwrite's new file (row 10) comes through as new data: duplicates are the caller's.
  EXPECT_THAT(Rows(*source, std::nullopt, end),
              ElementsAre(Row(1, "a"), Row(10, "a"), Row(2, "a"), Row(3, "b"), Row(4, "a")));
}

TEST_F(DeltaSourceChangesTest, TheInitialSnapshotIsTheTableAfterTheChanges) {
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const Offset end = Next(*source, std::nullopt);
  EXPECT_THAT(Rows(*source, std::nullopt, end), ElementsAre(Row(10, "a"), Row(4, "a")));
}

TEST_F(DeltaSourceTest, AdditiveSchemaChangeStopsAndARestartReadsTheNewColumn) {
  Append(R"([[1, "a"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  Append(R"([[2, "a"]])");
  auto wider = tributary::testing::MakeSchema({Field("id", DataType::Int64()),
                                               Field("p", DataType::String()),
                                               Field("note", DataType::String())});
  ASSERT_OK(AppendRows(fs_, root_, wider, R"([[3, "a", "new"]])", {}, /*merge_schema=*/true));
  // The batch ends before the schema change...
  const Offset second = Next(*source, first);
  EXPECT_EQ(Fields(second), std::make_tuple(int64_t{2}, int64_t{-1}, false));
  EXPECT_THAT(Rows(*source, first, second), ElementsAre(Row(2, "a")));
  // ...and the next one stops the stream, naming the version and the new column.
  auto stopped = source->LatestOffset(second, true);
  ASSERT_TRUE(IsSchemaChange(stopped.status())) << stopped.status().ToString();
  EXPECT_THAT(stopped.status().Message(), HasSubstr("version 2"));
  EXPECT_THAT(stopped.status().Message(), HasSubstr("note string"));

  // A restart defines the source again (with the new schema) and continues from the offset.
  auto restarted = Open();
  ASSERT_NE(restarted, nullptr);
  const Offset third = Next(*restarted, second);
  EXPECT_EQ(Fields(third), std::make_tuple(int64_t{3}, int64_t{-1}, false));
  EXPECT_THAT(Rows(*restarted, second, third), ElementsAre(R"({"id":3,"p":"a","note":"new"})"));
  // Older files read with the new schema give nulls in the new column.
  EXPECT_THAT(Rows(*restarted, first, second), ElementsAre(R"({"id":2,"p":"a","note":null})"));
}

TEST_F(DeltaSourceTest, IncompatibleSchemaChangeIsAnError) {
  Append(R"([[1, "a"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);
  auto retyped = tributary::testing::MakeSchema(
      {Field("id", DataType::String()), Field("p", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto batch, tributary::testing::BatchFromJson(retyped, R"([["x", "a"]])"));
  delta::TableWriteOptions overwrite;
  overwrite.mode = delta::SaveMode::kOverwrite;
  overwrite.overwrite_schema = true;
  ASSERT_OK(delta::WriteTable(fs_, root_, retyped, {batch}, overwrite));
  auto refused = source->LatestOffset(first, true);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr("incompatibly at version 1"));
  EXPECT_THAT(refused.status().Message(), HasSubstr("id is string in the table but bigint"));
}

TEST_F(DeltaSourceTest, CommitsRemovedByLogCleanupFailTheStreamUnlessFailOnDataLossIsOff) {
  Append(R"([[1, "a"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const Offset first = Next(*source, std::nullopt);  // up to version 1, exclusive
  Append(R"([[2, "a"]])");                           // version 1
  Append(R"([[3, "a"]])");                           // version 2
  Append(R"([[4, "a"]])");                           // version 3
  ASSERT_OK_AND_ASSIGN(auto at2, delta::Snapshot::Load(fs_, root_, 2));
  ASSERT_OK(delta::WriteCheckpoint(fs_, *at2));
  for (int v = 0; v <= 2; ++v) {
    std::filesystem::remove(delta::CommitPath(root_ + "/_delta_log", v));
  }
  auto lost = source->LatestOffset(first, true);
  ASSERT_RAISES(NotFound, lost);
  EXPECT_THAT(lost.status().Message(), HasSubstr("commits 1 to 2"));
  EXPECT_THAT(lost.status().Message(), HasSubstr("failOnDataLoss"));

  auto lenient = Open({{"failOnDataLoss", "false"}});
  ASSERT_NE(lenient, nullptr);
  const Offset end = Next(*lenient, first);
  EXPECT_THAT(Rows(*lenient, first, end), ElementsAre(Row(4, "a")));
}

TEST_F(DeltaSourceTest, AvailableNowStopsAtTheDataPresentWhenPrepared) {
  Append(R"([[1, "a"], [2, "b"]])", {"p"});
  auto source = Open({{"maxFilesPerTrigger", "1"}});
  ASSERT_NE(source, nullptr);
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  const Offset first = Next(*source, std::nullopt);
  Append(R"([[3, "c"]])", {"p"});  // arrives after the trigger started
  const Offset second = Next(*source, first);
  EXPECT_EQ(Fields(second), std::make_tuple(int64_t{1}, int64_t{-1}, false));
  EXPECT_EQ(Next(*source, second), second);  // caught up: the query stops
}

TEST_F(DeltaSourceTest, OffsetsOfAnotherTableAreRefused) {
  Append(R"([[1, "a"]])");
  auto source = Open();
  ASSERT_NE(source, nullptr);
  const std::string foreign =
      R"({"sourceVersion":1,"reservoirId":"other","reservoirVersion":1,"index":-1,"isStartingVersion":false})";
  auto refused = source->LatestOffset(foreign, true);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr("id other"));
  ASSERT_RAISES(InvalidArgument, source->GetBatch(std::nullopt, "{\"index\":1}"));
  ASSERT_RAISES(NotFound, DeltaSourceDefinition::Make(fs_, dir_.Join("missing"), {}));
}

// Every table of the Delta corpus our batch reader loads, streamed from its initial snapshot in
// one batch, gives the batch read's rows: deletion vectors, column mapping, partition values
// and checkpoints are read the same way.
TEST(DeltaSourceCorpusTest, TheInitialSnapshotOfEveryCorpusTableEqualsTheBatchRead) {
  const std::string dir = tributary::testing::TestdataDir();
  std::ifstream in(dir + "/manifest.json");
  ASSERT_TRUE(in.good()) << dir;
  auto manifest = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(manifest.is_discarded());
  storage::LocalFileSystem fs;
  testing::TempDir checkpoints;
  int compared = 0;
  int with_deletion_vectors = 0;
  for (const auto& table : manifest["tables"]) {
    const std::string root = dir + "/" + table["table_root"].get<std::string>();
    auto snapshot = delta::Snapshot::Load(fs, root);
    if (!snapshot.ok()) {
      continue;  // tables the batch reader refuses are the conformance suite's business
    }
    auto batches = delta::ReadTable(fs, **snapshot);
    if (!batches.ok()) {
      continue;
    }
    std::vector<std::string> expected;
    for (const auto& batch : *batches) {
      for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
        expected.push_back(std::move(row));
      }
    }
    std::sort(expected.begin(), expected.end());
    SCOPED_TRACE(root);
    ASSERT_OK_AND_ASSIGN(auto definition, DeltaSourceDefinition::Make(fs, root, {}));
    SourceContext context;
    context.fs = &fs;
    context.metadata_dir = checkpoints.Join(std::to_string(compared));
    ASSERT_OK_AND_ASSIGN(auto source, definition->Open(context));
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, /*respect_limits=*/false));
    std::vector<std::string> streamed;
    if (end) {
      ASSERT_OK_AND_ASSIGN(auto batch, source->GetBatch(std::nullopt, *end));
      ASSERT_OK_AND_ASSIGN(streamed, SortedRows(fs, batch));
    }
    EXPECT_EQ(streamed, expected);
    ++compared;
    for (const delta::AddFile& file : (*snapshot)->Files()) {
      if (file.deletion_vector) {
        ++with_deletion_vectors;
        break;
      }
    }
  }
  EXPECT_GE(compared, 40);
  EXPECT_GE(with_deletion_vectors, 2);
}

}  // namespace
}  // namespace tributary::streaming

// The Delta stream source with readChangeFeed: the initial snapshot as inserts, then each
// commit's changes (cdc files of UPDATE/DELETE, inserts of appends), startingVersion, and a
// re-run of batch 0 after a restart reading what it read the first time.

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/change_data.h"
#include "streaming/delta_source.h"
#include "streaming/delta_tables.h"
#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

namespace tributary::streaming {
namespace {

using ::testing::AllOf;
using ::testing::Each;
using ::testing::HasSubstr;

class DeltaChangeFeedSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(testing::TestdataDir() + "/golden/delta-rs-cdf-table/delta", root_,
                          std::filesystem::copy_options::recursive);
  }

  std::unique_ptr<Source> Open(const std::map<std::string, std::string>& options,
                               const std::string& checkpoint = "ckpt") {
    return testing::OpenDeltaSource(fs_, root_, options, dir_.Join(checkpoint), &definition_);
  }

  Offset Next(Source& source, const std::optional<Offset>& start) {
    auto latest = source.LatestOffset(start, true);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_TRUE(latest.ok() && latest->has_value());
    return latest.ok() && latest->has_value() ? **latest : Offset();
  }

  std::vector<std::string> Rows(Source& source, const std::optional<Offset>& start,
                                const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) {
      return {};
    }
    EXPECT_EQ(batch->kind, plan::ScanSource::Kind::kValues);
    auto rows = testing::SortedRows(fs_, *batch);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // Rows without the last column (_commit_timestamp, the copy's file times for old commits).
  static std::vector<std::string> WithoutTimestamp(std::vector<std::string> rows) {
    for (std::string& row : rows) {
      row = row.substr(0, row.rfind(",\"_commit_timestamp\"")) + "}";
    }
    return rows;
  }

  testing::TempDir dir_;
  std::string root_ = dir_.Join("t");
  storage::LocalFileSystem fs_;
  std::shared_ptr<const DeltaSourceDefinition> definition_;
};

TEST_F(DeltaChangeFeedSourceTest, InitialSnapshotAsInsertsThenEachCommitsChanges) {
  auto source = Open({{"readChangeFeed", "true"}});
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(definition_->Schema()->NumFields(), 6);
  EXPECT_EQ(definition_->Schema()->FieldAt(3).Name(), "_change_type");
  const Offset first = Next(*source, std::nullopt);
  const auto initial = WithoutTimestamp(Rows(*source, std::nullopt, first));
  // The latest version (3) as inserts: the table's 9 rows.
  auto table = testing::DeltaTableRows(fs_, root_);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(initial.size(), table->size());
  EXPECT_THAT(initial, Each(HasSubstr(R"("_change_type":"insert","_commit_version":3})")));
  ASSERT_OK(source->Commit(first));
  // Nothing new: the offset stays.
  auto same = source->LatestOffset(first, true);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->value_or(""), first);
  // An append is version 4: its rows as inserts.
  auto schema = definition_->SnapshotAtDefinition()->Schema();
  ASSERT_TRUE(
      testing::AppendRows(fs_, root_, schema, R"([[100, "Zed", 19723]])", {"birthday"}).ok());
  const Offset second = Next(*source, first);
  EXPECT_THAT(WithoutTimestamp(Rows(*source, first, second)),
              ::testing::ElementsAre(R"({"id":100,"name":"Zed","birthday":"2024-01-01",)"
                                     R"("_change_type":"insert","_commit_version":4})"));
}

TEST_F(DeltaChangeFeedSourceTest, StartingVersionReadsTheFeedFromThatCommit) {
  auto source = Open({{"readChangeFeed", "true"}, {"startingVersion", "1"}});
  ASSERT_NE(source, nullptr);
  const Offset end = Next(*source, std::nullopt);
  const auto rows = Rows(*source, std::nullopt, end);
  // The same rows a batch read of versions 1 to 3 gives.
  auto expected = delta::ReadChanges(fs_, root_, 1, 3);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::vector<std::string> expected_rows;
  for (const auto& batch : *expected) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      expected_rows.push_back(std::move(row));
    }
  }
  std::sort(expected_rows.begin(), expected_rows.end());
  EXPECT_EQ(rows, expected_rows);
  EXPECT_THAT(rows, ::testing::Contains(HasSubstr(R"("_change_type":"update_postimage")")));
  EXPECT_THAT(rows, ::testing::Contains(HasSubstr(R"("_change_type":"delete")")));
  EXPECT_THAT(rows, ::testing::Not(::testing::Contains(HasSubstr(R"("_commit_version":0)"))));
}

TEST_F(DeltaChangeFeedSourceTest, RestartReRunsBatchZeroFromThePinnedStart) {
  std::vector<std::string> first_run;
  Offset end;
  {
    auto source = Open({{"readChangeFeed", "true"}});
    ASSERT_NE(source, nullptr);
    end = Next(*source, std::nullopt);
    first_run = Rows(*source, std::nullopt, end);
  }
  // The table moves on before the restart; batch 0 still reads the snapshot of version 3.
  auto schema = delta::Snapshot::Load(fs_, root_).ValueOrDie()->Schema();
  ASSERT_TRUE(
      testing::AppendRows(fs_, root_, schema, R"([[101, "Amy", 19724]])", {"birthday"}).ok());
  auto restarted = Open({{"readChangeFeed", "true"}});
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(Rows(*restarted, std::nullopt, end), first_run);
  const Offset next = Next(*restarted, end);
  EXPECT_THAT(
      Rows(*restarted, end, next),
      ::testing::ElementsAre(AllOf(HasSubstr(R"("id":101)"), HasSubstr(R"("_commit_version":4)"))));
}

}  // namespace
}  // namespace tributary::streaming

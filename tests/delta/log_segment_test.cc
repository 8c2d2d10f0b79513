// Replay around an unreadable checkpoint: a zero-byte or corrupt checkpoint is only a missing
// shortcut while the commits it summarizes exist, so the snapshot is built from an older
// checkpoint or from version 0, as Delta does; with no complete way left it is an error.

#include "delta/log_segment.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "storage/temp_dir.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::HasSubstr;

class UnreadableCheckpointTest : public ::testing::Test {
 protected:
  // Appends of one row each, versions 0 .. `versions` - 1; every tenth version checkpoints.
  void Write(int versions) {
    auto schema = testing::MakeSchema({Field("id", DataType::Int64())});
    for (int i = 0; i < versions; ++i) {
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      auto batch = testing::BatchFromJson(schema, fmt::format("[[{}]]", i)).ValueOrDie();
      ASSERT_OK(WriteTable(fs_, root_, schema, {batch}, options));
    }
  }

  std::string LogFile(const std::string& name) const { return root_ + "/_delta_log/" + name; }
  std::string Checkpoint(int64_t version) const {
    return LogFile(fmt::format("{:020}.checkpoint.parquet", version));
  }

  static void Overwrite(const std::string& path, const std::string& bytes) {
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  storage::TempDir dir_;
  std::string root_ = dir_.Join("t");
  storage::LocalFileSystem fs_;
};

TEST_F(UnreadableCheckpointTest, ZeroByteCheckpointIsSkippedForTheCommits) {
  Write(12);  // checkpoint at 10, named by _last_checkpoint
  Overwrite(Checkpoint(10), "");
  ASSERT_OK_AND_ASSIGN(LogSegment segment, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(segment.version, 11);
  EXPECT_EQ(segment.checkpoint_version, -1);
  EXPECT_EQ(segment.commits.size(), 12u);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 11);
  EXPECT_EQ(testing::SortedRows(fs_, *snapshot).size(), 12u);
}

TEST_F(UnreadableCheckpointTest, CorruptCheckpointFallsBackToTheCommits) {
  Write(12);
  Overwrite(Checkpoint(10), std::string(4096, 'x'));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 11);
  EXPECT_EQ(snapshot->Segment().checkpoint_version, -1);
  EXPECT_EQ(snapshot->Files().size(), 12u);
  EXPECT_EQ(testing::SortedRows(fs_, *snapshot).size(), 12u);
  // Time travel to the checkpoint's own version falls back alike.
  ASSERT_OK_AND_ASSIGN(auto at_ten, Snapshot::Load(fs_, root_, 10));
  EXPECT_EQ(at_ten->Files().size(), 11u);
}

TEST_F(UnreadableCheckpointTest, CorruptCheckpointFallsBackToAnOlderCheckpoint) {
  Write(22);  // checkpoints at 10 and 20
  Overwrite(Checkpoint(20), std::string(4096, 'x'));
  // The older checkpoint is enough even without the commits before it.
  for (int v = 0; v < 10; ++v) {
    std::filesystem::remove(LogFile(fmt::format("{:020}.json", v)));
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 21);
  EXPECT_EQ(snapshot->Segment().checkpoint_version, 10);
  EXPECT_EQ(snapshot->Segment().commits.size(), 11u);
  EXPECT_EQ(testing::SortedRows(fs_, *snapshot).size(), 22u);
}

TEST_F(UnreadableCheckpointTest, CorruptCheckpointWithoutTheCommitsBeforeItIsAnError) {
  Write(12);
  Overwrite(Checkpoint(10), std::string(4096, 'x'));
  std::filesystem::remove(LogFile(fmt::format("{:020}.json", 3)));
  auto snapshot = Snapshot::Load(fs_, root_);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_THAT(snapshot.status().Message(), HasSubstr("checkpoint of version 10 is unreadable"));
  EXPECT_THAT(snapshot.status().Message(), HasSubstr(Checkpoint(10)));
}

}  // namespace
}  // namespace tributary::delta

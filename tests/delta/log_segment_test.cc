// The log segment of a version: which files of `_delta_log/` are named what, which commits and
// checkpoint one version's replay reads (gaps, cleaned-up commits, incomplete checkpoints, stale
// `_last_checkpoint` hints), and replay around an unreadable checkpoint: a zero-byte or corrupt
// checkpoint is only a missing shortcut while the commits it summarizes exist, so the snapshot
// is built from an older checkpoint or from version 0, as Delta does; with no complete way left
// it is an error.

#include "delta/log_segment.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/checkpoint_writer.h"
#include "delta/hand_written_log.h"
#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

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

  testing::TempDir dir_;
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
  ASSERT_RAISES(Corruption, snapshot);
  EXPECT_THAT(snapshot.status().Message(), HasSubstr("checkpoint of version 10 is unreadable"));
  EXPECT_THAT(snapshot.status().Message(), HasSubstr(Checkpoint(10)));
}

TEST(LogFileNameTest, ClassifiesEachKindOfLogFile) {
  auto commit = ParseLogFileName("00000000000000000007.json");
  ASSERT_TRUE(commit.has_value());
  EXPECT_EQ(commit->kind, LogFile::Kind::kCommit);
  EXPECT_EQ(commit->version, 7);
  auto classic = ParseLogFileName("00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(classic.has_value());
  EXPECT_EQ(classic->kind, LogFile::Kind::kClassicCheckpoint);
  EXPECT_EQ(classic->version, 10);
  auto part = ParseLogFileName("00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->kind, LogFile::Kind::kMultiPartCheckpoint);
  EXPECT_EQ(part->part, 2);
  EXPECT_EQ(part->parts, 3);
  auto v2 =
      ParseLogFileName("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->kind, LogFile::Kind::kUuidCheckpoint);
  auto compaction = ParseLogFileName("00000000000000000004.00000000000000000006.compacted.json");
  ASSERT_TRUE(compaction.has_value());
  EXPECT_EQ(compaction->kind, LogFile::Kind::kCompaction);
  EXPECT_EQ(compaction->version, 4);
  EXPECT_EQ(compaction->part, 6);
  auto checksum = ParseLogFileName("00000000000000000003.crc");
  ASSERT_TRUE(checksum.has_value());
  EXPECT_EQ(checksum->kind, LogFile::Kind::kChecksum);
  EXPECT_FALSE(ParseLogFileName("_last_checkpoint").has_value());
  EXPECT_FALSE(ParseLogFileName("7.json").has_value());
  EXPECT_FALSE(ParseLogFileName("00000000000000000010.checkpoint.x.parquet").has_value());
}

class LogSegmentTest : public testing::HandWrittenLogTest {};

TEST_F(LogSegmentTest, ATableWithoutALogIsNotFound) {
  ASSERT_RAISES(NotFound, BuildLogSegment(fs_, root_, std::nullopt));
  ASSERT_RAISES(NotFound, ListLog(fs_, LogDir()));
}

TEST_F(LogSegmentTest, AVersionPastTheLatestIsNotFound) {
  WriteAppends(3);
  ASSERT_RAISES(NotFound, BuildLogSegment(fs_, root_, 4));
  ASSERT_RAISES(NotFound, BuildLogSegment(fs_, root_, -1));
}

TEST_F(LogSegmentTest, WithoutACheckpointTheSegmentIsEveryCommitUpToTheVersion) {
  WriteAppends(3);
  ASSERT_OK_AND_ASSIGN(LogSegment latest, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(latest.version, 3);
  EXPECT_EQ(latest.checkpoint_version, -1);
  EXPECT_TRUE(latest.checkpoint.empty());
  ASSERT_EQ(latest.commits.size(), 4u);
  for (size_t i = 0; i < latest.commits.size(); ++i) {
    EXPECT_EQ(latest.commits[i].version, static_cast<int64_t>(i));
    EXPECT_EQ(latest.commits[i].path, LogPath(CommitName(static_cast<int64_t>(i))));
  }
  ASSERT_OK_AND_ASSIGN(LogSegment at_one, BuildLogSegment(fs_, root_, 1));
  EXPECT_EQ(at_one.version, 1);
  EXPECT_EQ(at_one.commits.size(), 2u);
}

TEST_F(LogSegmentTest, AMissingCommitBeforeTheVersionIsCorruption) {
  WriteAppends(4);
  RemoveLogFile(CommitName(2));
  ASSERT_RAISES(Corruption, BuildLogSegment(fs_, root_, std::nullopt));
  ASSERT_RAISES(Corruption, BuildLogSegment(fs_, root_, 3));
  // The gap lies after version 1: its segment is whole.
  ASSERT_OK_AND_ASSIGN(LogSegment at_one, BuildLogSegment(fs_, root_, 1));
  EXPECT_EQ(at_one.commits.size(), 2u);
}

TEST_F(LogSegmentTest, TheNewestCheckpointAtOrBelowTheVersionStartsTheSegment) {
  WriteAppends(5);
  ASSERT_OK_AND_ASSIGN(auto at_three, Snapshot::Load(fs_, root_, 3));
  ASSERT_OK(WriteCheckpoint(fs_, *at_three));
  ASSERT_OK_AND_ASSIGN(LogSegment latest, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(latest.version, 5);
  EXPECT_EQ(latest.checkpoint_version, 3);
  ASSERT_EQ(latest.checkpoint.size(), 1u);
  EXPECT_EQ(latest.checkpoint[0].kind, LogFile::Kind::kClassicCheckpoint);
  ASSERT_EQ(latest.commits.size(), 2u);
  EXPECT_EQ(latest.commits[0].version, 4);
  EXPECT_EQ(latest.commits[1].version, 5);
  // Below the checkpoint, replay starts at version 0 again.
  ASSERT_OK_AND_ASSIGN(LogSegment at_two, BuildLogSegment(fs_, root_, 2));
  EXPECT_EQ(at_two.checkpoint_version, -1);
  EXPECT_EQ(at_two.commits.size(), 3u);
  // With `checkpoint_before`, the checkpoint is not used.
  ASSERT_OK_AND_ASSIGN(LogSegment without, BuildLogSegment(fs_, root_, std::nullopt, 3));
  EXPECT_EQ(without.checkpoint_version, -1);
  EXPECT_EQ(without.commits.size(), 6u);
}

TEST_F(LogSegmentTest, CommitsCleanedUpBeforeTheCheckpointAreNotFoundNotCorruption) {
  WriteAppends(5);
  ASSERT_OK_AND_ASSIGN(auto at_three, Snapshot::Load(fs_, root_, 3));
  ASSERT_OK(WriteCheckpoint(fs_, *at_three));
  for (int64_t v = 0; v <= 2; ++v) {
    RemoveLogFile(CommitName(v));
  }
  ASSERT_RAISES(NotFound, BuildLogSegment(fs_, root_, 1));
  ASSERT_OK_AND_ASSIGN(LogSegment at_three_again, BuildLogSegment(fs_, root_, 3));
  EXPECT_EQ(at_three_again.checkpoint_version, 3);
  EXPECT_TRUE(at_three_again.commits.empty());
  ASSERT_OK_AND_ASSIGN(LogSegment latest, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(latest.version, 5);
}

TEST_F(LogSegmentTest, AnIncompleteMultiPartCheckpointIsIgnored) {
  WriteAppends(3);
  WriteLogFile("00000000000000000002.checkpoint.0000000001.0000000002.parquet", "part one");
  ASSERT_OK_AND_ASSIGN(LogListing listing, ListLog(fs_, LogDir()));
  EXPECT_TRUE(listing.checkpoints.empty());
  EXPECT_EQ(listing.commits.size(), 4u);
  EXPECT_EQ(listing.files.size(), 5u);  // the part is still a log file (cleanup sees it)
  ASSERT_OK_AND_ASSIGN(LogSegment latest, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(latest.checkpoint_version, -1);
  EXPECT_EQ(latest.commits.size(), 4u);
}

TEST_F(LogSegmentTest, AStaleOrUnreadableLastCheckpointHintIsOnlyAHint) {
  WriteAppends(3);
  WriteLogFile("_last_checkpoint", R"({"version":2,"size":4})");  // no such checkpoint
  ASSERT_OK_AND_ASSIGN(auto hint, ReadLastCheckpointVersion(fs_, LogDir()));
  EXPECT_EQ(hint, std::optional<int64_t>(2));
  ASSERT_OK_AND_ASSIGN(LogSegment stale, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(stale.version, 3);
  EXPECT_EQ(stale.checkpoint_version, -1);
  EXPECT_EQ(stale.commits.size(), 4u);
  WriteLogFile("_last_checkpoint", "not json");
  ASSERT_OK_AND_ASSIGN(auto garbled, ReadLastCheckpointVersion(fs_, LogDir()));
  EXPECT_FALSE(garbled.has_value());
  ASSERT_OK_AND_ASSIGN(LogSegment unread, BuildLogSegment(fs_, root_, std::nullopt));
  EXPECT_EQ(unread.version, 3);
}

TEST_F(LogSegmentTest, ListingFromAVersionSkipsTheCommitsBeforeIt) {
  WriteAppends(4);
  ASSERT_OK_AND_ASSIGN(LogListing listing, ListLog(fs_, LogDir(), 2));
  ASSERT_EQ(listing.commits.size(), 3u);
  EXPECT_EQ(listing.commits.front().version, 2);
  EXPECT_EQ(listing.commits.back().version, 4);
}

}  // namespace
}  // namespace tributary::delta

// Snapshot replay over hand-written logs: the state at a version (files, tombstones, protocol,
// metadata, transactions), replay from a checkpoint, incremental Update, and the typed errors
// of tables that cannot be read.

#include "delta/snapshot.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "delta/checkpoint_writer.h"
#include "delta/hand_written_log.h"
#include "support/status_matchers.h"

namespace tributary::delta {
namespace {

class SnapshotTest : public testing::HandWrittenLogTest {
 protected:
  static std::vector<std::string> Paths(const Snapshot& snapshot) {
    std::vector<std::string> paths;
    for (const AddFile& add : snapshot.Files()) {
      paths.push_back(add.path);
    }
    return paths;
  }
};

TEST_F(SnapshotTest, LoadsTheLatestVersionOrTheOneAskedFor) {
  WriteAppends(3);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, root_));
  EXPECT_EQ(latest->Version(), 3);
  EXPECT_EQ(latest->TableRoot(), root_);
  EXPECT_EQ(Paths(*latest), (std::vector<std::string>{"1.parquet", "2.parquet", "3.parquet"}));
  ASSERT_OK_AND_ASSIGN(auto at_one, Snapshot::Load(fs_, root_, 1));
  EXPECT_EQ(at_one->Version(), 1);
  EXPECT_EQ(Paths(*at_one), (std::vector<std::string>{"1.parquet"}));
  ASSERT_OK_AND_ASSIGN(auto at_zero, Snapshot::Load(fs_, root_, 0));
  EXPECT_TRUE(at_zero->Files().empty());
}

TEST_F(SnapshotTest, ARemoveEndsTheFileAndLeavesATombstone) {
  WriteAppends(3);
  WriteCommit(4, {RemoveLine("2.parquet")});
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, root_));
  EXPECT_EQ(Paths(*latest), (std::vector<std::string>{"1.parquet", "3.parquet"}));
  ASSERT_EQ(latest->Tombstones().size(), 1u);
  EXPECT_EQ(latest->Tombstones()[0].path, "2.parquet");
  ASSERT_OK_AND_ASSIGN(auto before, Snapshot::Load(fs_, root_, 3));
  EXPECT_EQ(before->Files().size(), 3u);
  EXPECT_TRUE(before->Tombstones().empty());
}

TEST_F(SnapshotTest, TheLastProtocolAndMetadataInTheLogWin) {
  WriteAppends(1);
  WriteCommit(2, {ProtocolLine(1, 4), MetadataLine("renamed", R"({"delta.appendOnly":"true"})")});
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, root_));
  EXPECT_EQ(latest->GetProtocol().min_reader_version, 1);
  EXPECT_EQ(latest->GetProtocol().min_writer_version, 4);
  ASSERT_EQ(latest->Schema()->NumFields(), 1);
  EXPECT_EQ(latest->Schema()->FieldAt(0).Name(), "renamed");
  EXPECT_EQ(latest->GetMetadata().configuration.at("delta.appendOnly"), "true");
  // The files survive a metadata change.
  EXPECT_EQ(Paths(*latest), (std::vector<std::string>{"1.parquet"}));
  ASSERT_OK_AND_ASSIGN(auto before, Snapshot::Load(fs_, root_, 1));
  EXPECT_EQ(before->GetProtocol().min_writer_version, 2);
  EXPECT_EQ(before->Schema()->FieldAt(0).Name(), "id");
  EXPECT_TRUE(before->GetMetadata().configuration.empty());
}

TEST_F(SnapshotTest, TransactionsKeepTheLatestVersionPerApplication) {
  WriteAppends(1);
  WriteCommit(2, {R"({"txn":{"appId":"query-a","version":3}})"});
  WriteCommit(3, {R"({"txn":{"appId":"query-a","version":4}})",
                  R"({"txn":{"appId":"query-b","version":0}})"});
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, root_));
  EXPECT_EQ(latest->Transactions(),
            (std::map<std::string, int64_t>{{"query-a", 4}, {"query-b", 0}}));
  ASSERT_OK_AND_ASSIGN(auto at_two, Snapshot::Load(fs_, root_, 2));
  EXPECT_EQ(at_two->Transactions(), (std::map<std::string, int64_t>{{"query-a", 3}}));
}

TEST_F(SnapshotTest, ReplayFromACheckpointEqualsReplayFromTheCommits) {
  WriteAppends(4);
  WriteCommit(5, {RemoveLine("1.parquet")});
  ASSERT_OK_AND_ASSIGN(auto at_five, Snapshot::Load(fs_, root_));
  ASSERT_OK(WriteCheckpoint(fs_, *at_five));
  WriteCommit(6, {AddLine("6.parquet")});
  ASSERT_OK_AND_ASSIGN(auto from_checkpoint, Snapshot::Load(fs_, root_));
  EXPECT_EQ(from_checkpoint->Segment().checkpoint_version, 5);
  EXPECT_EQ(Paths(*from_checkpoint),
            (std::vector<std::string>{"2.parquet", "3.parquet", "4.parquet", "6.parquet"}));
  EXPECT_EQ(from_checkpoint->Schema()->FieldAt(0).Name(), "id");
}

TEST_F(SnapshotTest, UpdateReadsTheNewCommitsAndReturnsThePreviousWhenNothingIsNew) {
  WriteAppends(2);
  ASSERT_OK_AND_ASSIGN(auto old, Snapshot::Load(fs_, root_));
  ASSERT_OK_AND_ASSIGN(auto same, Snapshot::Update(fs_, old));
  EXPECT_EQ(same.get(), old.get());
  WriteCommit(3, {AddLine("3.parquet")});
  WriteCommit(4, {RemoveLine("1.parquet")});
  ASSERT_OK_AND_ASSIGN(auto updated, Snapshot::Update(fs_, old));
  ASSERT_OK_AND_ASSIGN(auto loaded, Snapshot::Load(fs_, root_));
  EXPECT_EQ(updated->Version(), 4);
  EXPECT_EQ(Paths(*updated), Paths(*loaded));
  ASSERT_OK_AND_ASSIGN(auto at_three, Snapshot::Update(fs_, old, 3));
  EXPECT_EQ(Paths(*at_three), (std::vector<std::string>{"1.parquet", "2.parquet", "3.parquet"}));
}

TEST_F(SnapshotTest, AMissingTableOrVersionIsNotFound) {
  ASSERT_RAISES(NotFound, Snapshot::Load(fs_, root_));
  WriteAppends(1);
  ASSERT_RAISES(NotFound, Snapshot::Load(fs_, root_, 2));
}

TEST_F(SnapshotTest, ALogWithoutProtocolOrMetadataIsCorruption) {
  WriteCommit(0, {MetadataLine()});
  ASSERT_RAISES(Corruption, Snapshot::Load(fs_, root_));
  WriteCommit(0, {ProtocolLine()});
  ASSERT_RAISES(Corruption, Snapshot::Load(fs_, root_));
}

TEST_F(SnapshotTest, AnUnparsableCommitIsCorruption) {
  WriteAppends(1);
  WriteCommit(2, {"{\"add\": not json"});
  ASSERT_RAISES(Corruption, Snapshot::Load(fs_, root_));
  // The versions before it still load.
  ASSERT_OK(Snapshot::Load(fs_, root_, 1).status());
}

TEST_F(SnapshotTest, UnsupportedReaderVersionsAndFeaturesAreNotImplemented) {
  WriteCommit(0, {ProtocolLine(4, 7), MetadataLine()});
  ASSERT_RAISES(NotImplemented, Snapshot::Load(fs_, root_));
  WriteCommit(0, {R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)"
                  R"("readerFeatures":["aFeatureFromTheFuture"],)"
                  R"("writerFeatures":["aFeatureFromTheFuture"]}})",
                  MetadataLine()});
  ASSERT_RAISES(NotImplemented, Snapshot::Load(fs_, root_));
}

}  // namespace
}  // namespace tributary::delta

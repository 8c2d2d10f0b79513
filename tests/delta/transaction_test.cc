// Transactions over hand-written logs: a commit writes the next version, a version another
// writer won is retried on top of it unless the winner conflicts (metadata, protocol, table
// creation, appends a delete read, removes of files read), and the retries are bounded. Every
// refusal is checked by its status code.

#include "delta/transaction.h"

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "delta/hand_written_log.h"
#include "storage/file_system.h"
#include "support/status_matchers.h"

namespace tributary::delta {
namespace {

constexpr const char* kBlindAppendInfo = R"({"commitInfo":{"isBlindAppend":true}})";

class TransactionTest : public testing::HandWrittenLogTest {
 protected:
  std::unique_ptr<Transaction> Begin(TransactionOptions options = {}) {
    auto txn = Transaction::Begin(fs_, root_, std::move(options));
    EXPECT_TRUE(txn.ok()) << txn.status().ToString();
    return txn.ok() ? std::move(*txn) : nullptr;
  }

  static delta::AddFile Add(const std::string& path) {
    delta::AddFile add;
    add.path = path;
    add.size = 1;
    return add;
  }

  // A transaction that read the whole table and removes every file of it (a DELETE).
  std::unique_ptr<Transaction> Deleter(TransactionOptions options = {}) {
    auto txn = Begin(std::move(options));
    txn->ReadWholeTable();
    for (const delta::AddFile& add : txn->ReadSnapshot()->Files()) {
      delta::RemoveFile remove;
      remove.path = add.path;
      txn->RemoveFile(remove);
    }
    txn->SetOperation("DELETE", {});
    return txn;
  }

  bool CommitExists(int64_t version) const {
    return std::filesystem::exists(LogPath(CommitName(version)));
  }
};

TEST_F(TransactionTest, TheFirstCommitNeedsProtocolAndMetadata) {
  auto txn = Begin();
  EXPECT_EQ(txn->ReadVersion(), -1);
  EXPECT_EQ(txn->ReadSnapshot(), nullptr);
  txn->AddFile(Add("a.parquet"));
  ASSERT_RAISES(InvalidArgument, txn->Commit());
  EXPECT_FALSE(CommitExists(0));
}

TEST_F(TransactionTest, CommitsCreateTheTableAndThenEachNextVersion) {
  auto create = Begin();
  create->SetProtocol(Protocol{});
  Metadata metadata;
  metadata.id = "00000000-0000-0000-0000-000000000002";
  metadata.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
  create->SetMetadata(metadata);
  ASSERT_OK_AND_ASSIGN(int64_t created, create->Commit());
  EXPECT_EQ(created, 0);
  for (int64_t expected = 1; expected <= 2; ++expected) {
    auto append = Begin();
    EXPECT_EQ(append->ReadVersion(), expected - 1);
    append->AddFile(Add(std::to_string(expected) + ".parquet"));
    ASSERT_OK_AND_ASSIGN(int64_t version, append->Commit());
    EXPECT_EQ(version, expected);
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 2);
  EXPECT_EQ(snapshot->Files().size(), 2u);
}

TEST_F(TransactionTest, AVersionAnotherWriterWonIsRetriedOnTopOfIt) {
  WriteAppends(1);
  auto append = Begin();
  append->AddFile(Add("mine.parquet"));
  WriteCommit(2, {kBlindAppendInfo, AddLine("theirs.parquet")});
  ASSERT_OK_AND_ASSIGN(int64_t version, append->Commit());
  EXPECT_EQ(version, 3);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Files().size(), 3u);  // 1.parquet, theirs, mine
}

TEST_F(TransactionTest, RetriesStopAfterMaxAttempts) {
  WriteAppends(1);
  TransactionOptions once;
  once.max_attempts = 1;
  auto gives_up = Begin(once);
  gives_up->AddFile(Add("mine.parquet"));
  auto retries = Begin();
  retries->AddFile(Add("also-mine.parquet"));
  WriteCommit(2, {kBlindAppendInfo, AddLine("theirs.parquet")});
  ASSERT_RAISES(Conflict, gives_up->Commit());
  EXPECT_FALSE(CommitExists(3));
  ASSERT_OK_AND_ASSIGN(int64_t version, retries->Commit());
  EXPECT_EQ(version, 3);
}

TEST_F(TransactionTest, AConcurrentMetadataOrProtocolChangeConflicts) {
  WriteAppends(1);
  auto before_metadata = Begin();
  before_metadata->AddFile(Add("mine.parquet"));
  WriteCommit(2, {MetadataLine("renamed")});
  ASSERT_RAISES(Conflict, before_metadata->Commit());
  EXPECT_FALSE(CommitExists(3));

  auto before_protocol = Begin();
  before_protocol->AddFile(Add("mine.parquet"));
  WriteCommit(3, {ProtocolLine(1, 4)});
  ASSERT_RAISES(Conflict, before_protocol->Commit());
  EXPECT_FALSE(CommitExists(4));
}

TEST_F(TransactionTest, CreatingATableSomeoneElseCreatedConflicts) {
  auto late = Begin();
  late->SetProtocol(Protocol{});
  Metadata metadata;
  metadata.id = "00000000-0000-0000-0000-000000000003";
  metadata.schema_string = R"({"type":"struct","fields":[]})";
  late->SetMetadata(metadata);
  WriteCommit(0, {ProtocolLine(), MetadataLine()});
  ASSERT_RAISES(Conflict, late->Commit());
  EXPECT_FALSE(CommitExists(1));
}

TEST_F(TransactionTest, AConcurrentAppendUnderADeleteDependsOnIsolationAndBlindness) {
  // WriteSerializable (the default): a blind append commits under a delete that read the table.
  WriteAppends(2);
  auto deleter = Deleter();
  WriteCommit(3, {kBlindAppendInfo, AddLine("blind.parquet")});
  ASSERT_OK_AND_ASSIGN(int64_t deleted, deleter->Commit());
  EXPECT_EQ(deleted, 4);

  // An append that is not blind (it read the table) conflicts with the delete.
  auto second = Deleter();
  WriteCommit(5, {AddLine("read-then-written.parquet")});
  ASSERT_RAISES(Conflict, second->Commit());

  // Serializable: even a blind append conflicts.
  TransactionOptions serializable;
  serializable.isolation = IsolationLevel::kSerializable;
  auto strict = Deleter(serializable);
  WriteCommit(6, {kBlindAppendInfo, AddLine("blind-again.parquet")});
  ASSERT_RAISES(Conflict, strict->Commit());
  EXPECT_FALSE(CommitExists(7));
}

TEST_F(TransactionTest, AConcurrentRemoveOfAFileReadOrRemovedConflicts) {
  WriteAppends(2);
  // This transaction read the whole table; the winner removed one of its files.
  auto reader = Begin();
  reader->ReadWholeTable();
  reader->AddFile(Add("derived.parquet"));
  // This one removes the same file as the winner.
  auto remover = Begin();
  delta::RemoveFile remove;
  remove.path = "2.parquet";
  remover->RemoveFile(remove);
  WriteCommit(3, {RemoveLine("2.parquet")});
  ASSERT_RAISES(Conflict, reader->Commit());
  ASSERT_RAISES(Conflict, remover->Commit());
  EXPECT_FALSE(CommitExists(4));
}

TEST_F(TransactionTest, TheSameApplicationCommittingConcurrentlyConflicts) {
  WriteAppends(1);
  auto txn = Begin();
  txn->SetTransaction("query", 7);
  txn->AddFile(Add("mine.parquet"));
  WriteCommit(2, {kBlindAppendInfo, R"({"txn":{"appId":"query","version":7}})"});
  ASSERT_RAISES(Conflict, txn->Commit());
  // Another application's transaction does not.
  auto other = Begin();
  other->SetTransaction("another-query", 0);
  other->AddFile(Add("other.parquet"));
  WriteCommit(3, {kBlindAppendInfo, R"({"txn":{"appId":"query","version":8}})"});
  ASSERT_OK_AND_ASSIGN(int64_t version, other->Commit());
  EXPECT_EQ(version, 4);
}

TEST_F(TransactionTest, AnAppendOnlyTableRefusesRemoves) {
  WriteCommit(0, {ProtocolLine(), MetadataLine("id", R"({"delta.appendOnly":"true"})")});
  WriteCommit(1, {AddLine("1.parquet")});
  auto txn = Begin();
  delta::RemoveFile remove;
  remove.path = "1.parquet";
  txn->RemoveFile(remove);
  ASSERT_RAISES(InvalidArgument, txn->Commit());
  EXPECT_FALSE(CommitExists(2));
}

}  // namespace
}  // namespace tributary::delta

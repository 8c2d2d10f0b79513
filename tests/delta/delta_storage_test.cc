// Delta tables on every storage backend (support/storage_backend.h): the same suite runs on the
// local disk and on S3 (the moto server), and checks what it wrote through an independent
// reader (the standard library or the AWS SDK for JavaScript, and DuckDB for the Parquet data
// files): writes and read-back, checkpoints, time travel, schema evolution, OPTIMIZE, VACUUM,
// log listing from a version, history, and writers racing for a version in threads and in
// separate processes.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/checkpoint_writer.h"
#include "delta/file_writer.h"
#include "delta/history.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "delta/maintenance.h"
#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "delta/table_writes.h"
#include "delta/transaction.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/storage_backend.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::SortedRows;

columnar::SchemaPtr EventSchema() {
  return testing::MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                              Field("amount", DataType::Float64())});
}

columnar::RecordBatchPtr Events(const std::string& rows) {
  return testing::BatchFromJson(EventSchema(), rows).ValueOrDie();
}

/// One row {id, country, amount = id}.
columnar::RecordBatchPtr Event(int64_t id, const std::string& country) {
  return Events(fmt::format(R"([[{}, "{}", {}.0]])", id, country, id));
}

TableWriteOptions Mode(SaveMode mode, std::map<std::string, std::string> properties = {}) {
  TableWriteOptions options;
  options.mode = mode;
  options.partition_by = {"country"};
  options.properties = std::move(properties);
  return options;
}

std::string CommitName(int64_t version) {
  return fmt::format("_delta_log/{:020}.json", version);
}

class DeltaStorageTest : public testing::StorageBackendTest {
 protected:
  const std::string& Root() const { return Backend().Root(); }

  /// The ids of the table's rows at `version` (the latest when absent), sorted.
  std::vector<int64_t> Ids(std::optional<int64_t> version = {}) {
    std::vector<int64_t> ids;
    for (const std::string& row : SortedRows(Fs(), Root(), version)) {
      // Canonical rows begin {"id":N,
      ids.push_back(std::stoll(row.substr(6)));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  /// The table's files below its root, listed independently, without the log.
  std::vector<std::string> DataFilesListed() {
    auto listed = Backend().IndependentList("");
    EXPECT_OK(listed.status());
    std::vector<std::string> files;
    for (const std::string& name : listed.ok() ? *listed : std::vector<std::string>{}) {
      if (name.rfind("_delta_log/", 0) != 0) {
        files.push_back(name);
      }
    }
    return files;
  }

  /// The live files of the latest snapshot, relative to the root, sorted.
  std::vector<std::string> LiveFiles() {
    auto snapshot = Snapshot::Load(Fs(), Root());
    EXPECT_OK(snapshot.status());
    std::vector<std::string> files;
    if (snapshot.ok()) {
      for (const AddFile& add : (*snapshot)->Files()) {
        files.push_back(add.path);
      }
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  /// Appends one row per id, each its own commit, to a table partitioned by country.
  void AppendEach(const std::vector<int64_t>& ids,
                  const std::map<std::string, std::string>& properties = {}) {
    for (int64_t id : ids) {
      ASSERT_OK(WriteTable(Fs(), Root(), EventSchema(), {Event(id, id % 2 ? "odd" : "even")},
                           Mode(SaveMode::kAppend, properties)));
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, DeltaStorageTest,
                         ::testing::ValuesIn(testing::StorageBackendKinds()),
                         testing::StorageBackendName);

TEST_P(DeltaStorageTest, CreateAppendOverwriteReadBackAndHistory) {
  ASSERT_OK_AND_ASSIGN(
      auto created, WriteTable(Fs(), Root(), EventSchema(),
                               {Events(R"([[1, "fr", 1.5], [2, "a/b %c", null], [3, null, 2.0]])")},
                               Mode(SaveMode::kErrorIfExists)));
  EXPECT_EQ(created.version, 0);
  EXPECT_EQ(created.files_added, 3);  // one file per partition, the null one included
  ASSERT_RAISES(AlreadyExists,
                WriteTable(Fs(), Root(), EventSchema(), {}, Mode(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto ignored, WriteTable(Fs(), Root(), EventSchema(), {Event(9, "x")},
                                                Mode(SaveMode::kIgnore)));
  EXPECT_FALSE(ignored.committed);
  ASSERT_OK_AND_ASSIGN(auto appended, WriteTable(Fs(), Root(), EventSchema(), {Event(4, "fr")},
                                                 Mode(SaveMode::kAppend)));
  EXPECT_EQ(appended.version, 1);
  EXPECT_EQ(
      SortedRows(Fs(), Root()),
      (std::vector<std::string>{
          R"({"id":1,"country":"fr","amount":1.5})", R"({"id":2,"country":"a/b %c","amount":null})",
          R"({"id":3,"country":null,"amount":2.0})", R"({"id":4,"country":"fr","amount":4.0})"}));
  // Every live data file and both commits are there for an independent reader, under the
  // Hive-escaped partition directories.
  const std::vector<std::string> listed = DataFilesListed();
  EXPECT_EQ(listed, LiveFiles());
  EXPECT_THAT(listed, Contains(HasSubstr("country=a%2Fb %25c/part-")));
  EXPECT_THAT(listed, Contains(HasSubstr("country=__HIVE_DEFAULT_PARTITION__/part-")));
  ASSERT_OK_AND_ASSIGN(std::string commit1, Backend().IndependentRead(CommitName(1)));
  EXPECT_THAT(commit1, HasSubstr(R"("add":)"));

  ASSERT_OK_AND_ASSIGN(auto overwritten, WriteTable(Fs(), Root(), EventSchema(), {Event(5, "de")},
                                                    Mode(SaveMode::kOverwrite)));
  EXPECT_EQ(overwritten.version, 2);
  EXPECT_EQ(overwritten.files_removed, 4);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{5}));
  EXPECT_EQ(Ids(0), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Ids(1), (std::vector<int64_t>{1, 2, 3, 4}));
  // Overwritten files stay until VACUUM: time travel reads them.
  EXPECT_EQ(DataFilesListed().size(), 5u);

  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(Fs(), Root()));
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].operation, "CREATE TABLE AS SELECT");
  EXPECT_EQ(history[1].operation, "WRITE");
  EXPECT_THAT(history[2].operation_parameters, HasSubstr("Overwrite"));
  for (size_t v = 0; v < history.size(); ++v) {
    EXPECT_EQ(history[v].version, static_cast<int64_t>(v));
    if (v > 0) {
      EXPECT_GT(history[v].timestamp_ms, history[v - 1].timestamp_ms);
    }
  }
}

// A table root whose name S3 keys and URIs must carry as they are (spaces, '=', '+', '%').
TEST_P(DeltaStorageTest, TableRootWithReservedCharactersRoundTrips) {
  const std::string root = Backend().Path("lake dir/t=1+x%41");
  ASSERT_OK(
      WriteTable(Fs(), root, EventSchema(), {Event(1, "fr")}, Mode(SaveMode::kErrorIfExists)));
  ASSERT_OK(WriteTable(Fs(), root, EventSchema(), {Event(2, "d e")}, Mode(SaveMode::kAppend)));
  EXPECT_EQ(SortedRows(Fs(), root),
            (std::vector<std::string>{R"({"id":1,"country":"fr","amount":1.0})",
                                      R"({"id":2,"country":"d e","amount":2.0})"}));
  ASSERT_OK_AND_ASSIGN(auto log, Backend().IndependentList("lake dir/t=1+x%41/_delta_log"));
  EXPECT_THAT(log, ElementsAre("00000000000000000000.json", "00000000000000000001.json"));
}

TEST_P(DeltaStorageTest, DuckDBReadsEveryDataFileWeWrite) {
  ASSERT_OK(WriteTable(Fs(), Root(), EventSchema(),
                       {Events(R"([[1, "fr", 1.5], [2, "de", null], [3, "fr", 3.25]])")},
                       Mode(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Fs(), Root()));
  ASSERT_EQ(snapshot->Files().size(), 2u);
  std::vector<std::string> oracle_rows;
  for (const AddFile& add : snapshot->Files()) {
    // Partition values live in the path, not the file.
    ASSERT_OK_AND_ASSIGN(auto rows, Backend().OracleParquetRows(add.path, {"id", "amount"}));
    oracle_rows.insert(oracle_rows.end(), rows.begin(), rows.end());
  }
  std::sort(oracle_rows.begin(), oracle_rows.end());
  EXPECT_THAT(oracle_rows, ElementsAre(R"({"id":1,"amount":1.5})", R"({"id":2,"amount":null})",
                                       R"({"id":3,"amount":3.25})"));
}

TEST_P(DeltaStorageTest, CheckpointsAreWrittenAndLoadedWithLastCheckpoint) {
  const std::map<std::string, std::string> every_three = {{"delta.checkpointInterval", "3"}};
  AppendEach({0, 1, 2, 3, 4, 5, 6, 7}, every_three);  // versions 0..7
  ASSERT_OK_AND_ASSIGN(auto listed, Backend().IndependentList("_delta_log"));
  EXPECT_THAT(listed, Contains("00000000000000000003.checkpoint.parquet"));
  EXPECT_THAT(listed, Contains("00000000000000000006.checkpoint.parquet"));
  EXPECT_THAT(listed, Contains("_last_checkpoint"));
  ASSERT_OK_AND_ASSIGN(std::string last, Backend().IndependentRead("_delta_log/_last_checkpoint"));
  EXPECT_THAT(last, HasSubstr(R"("version":6)"));
  ASSERT_OK_AND_ASSIGN(auto hint, ReadLastCheckpointVersion(Fs(), Root() + "/_delta_log"));
  EXPECT_EQ(hint, 6);

  // The latest version replays the checkpoint of 6 and one commit; version 4 the one of 3.
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Fs(), Root()));
  EXPECT_EQ(latest->Version(), 7);
  EXPECT_EQ(latest->Segment().checkpoint_version, 6);
  ASSERT_EQ(latest->Segment().commits.size(), 1u);
  EXPECT_EQ(latest->Segment().commits[0].version, 7);
  ASSERT_OK_AND_ASSIGN(auto v4, Snapshot::Load(Fs(), Root(), 4));
  EXPECT_EQ(v4->Segment().checkpoint_version, 3);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Ids(4), (std::vector<int64_t>{0, 1, 2, 3, 4}));

  // The checkpoint alone holds the table: DuckDB reads its add actions.
  ASSERT_OK_AND_ASSIGN(
      auto actions,
      Backend().OracleParquetRows("_delta_log/00000000000000000006.checkpoint.parquet", {"add"}));
  EXPECT_EQ(std::count_if(actions.begin(), actions.end(),
                          [](const std::string& row) { return row != R"({"add":null})"; }),
            7);

  // An explicit checkpoint of the latest version moves the hint on.
  ASSERT_OK_AND_ASSIGN(int64_t written, WriteCheckpoint(Fs(), *latest));
  EXPECT_EQ(written, 7);
  ASSERT_OK_AND_ASSIGN(hint, ReadLastCheckpointVersion(Fs(), Root() + "/_delta_log"));
  EXPECT_EQ(hint, 7);
  ASSERT_OK_AND_ASSIGN(auto reloaded, Snapshot::Load(Fs(), Root()));
  EXPECT_EQ(reloaded->Segment().checkpoint_version, 7);
  EXPECT_THAT(reloaded->Segment().commits, IsEmpty());
  EXPECT_EQ(SortedRows(Fs(), *reloaded), SortedRows(Fs(), *latest));
}

// Expired log cleanup deletes whole versions below the newest checkpoint whose older files all
// expired: the latest version still loads, an older one is gone.
TEST_P(DeltaStorageTest, ExpiredLogCleanupKeepsEveryVersionFromTheBoundaryCheckpoint) {
  AppendEach({0, 1, 2, 3, 4, 5, 6, 7}, {{"delta.checkpointInterval", "3"}});
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Fs(), Root()));
  const int64_t in_forty_days = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count() +
                                40LL * 24 * 3600 * 1000;
  ASSERT_OK_AND_ASSIGN(LogCleanupResult cleaned, CleanUpExpiredLogs(Fs(), *latest, in_forty_days));
  EXPECT_EQ(cleaned.earliest_version, 6);
  ASSERT_OK_AND_ASSIGN(auto listed, Backend().IndependentList("_delta_log"));
  EXPECT_THAT(listed,
              ElementsAre("00000000000000000006.checkpoint.parquet", "00000000000000000006.json",
                          "00000000000000000007.json", "_last_checkpoint"));
  EXPECT_EQ(cleaned.deleted.size(), 7u);  // commits 0-5 and the checkpoint of 3
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Ids(6), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  ASSERT_RAISES(NotFound, Snapshot::Load(Fs(), Root(), 2));
}

TEST_P(DeltaStorageTest, LogListingStartsAfterAVersionInOneRequest) {
  AppendEach({0, 1, 2, 3, 4, 5});  // versions 0..5
  const std::string log_dir = Root() + "/_delta_log";
  const storage::StorageRequestCounts before = Fs().RequestCounts();
  ASSERT_OK_AND_ASSIGN(LogListing listing, ListLog(Fs(), log_dir, 4));
  const storage::StorageRequestCounts cost = Fs().RequestCounts() - before;
  std::vector<int64_t> versions;
  for (const LogFile& commit : listing.commits) {
    versions.push_back(commit.version);
  }
  EXPECT_THAT(versions, ElementsAre(4, 5));
  // On S3 the listing starts at the version (ListObjectsV2 start-after): one page, whatever the
  // log's length. The local disk makes no requests.
  EXPECT_EQ(cost.list_requests, IsS3() ? 1 : 0);
  EXPECT_EQ(cost.get_requests, 0);

  storage::ListOptions options;
  options.start_after = "00000000000000000003.json";
  ASSERT_OK_AND_ASSIGN(auto entries, Fs().List(log_dir, options));
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const storage::FileInfo& entry : entries) {
    names.push_back(entry.path.substr(log_dir.size() + 1));
  }
  EXPECT_THAT(names, ElementsAre("00000000000000000004.json", "00000000000000000005.json"));
}

TEST_P(DeltaStorageTest, TimeTravelByVersionAndTimestamp) {
  AppendEach({10, 11, 12, 13});
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(Fs(), Root()));
  ASSERT_EQ(history.size(), 4u);
  for (const CommitEntry& entry : history) {
    ASSERT_OK_AND_ASSIGN(int64_t version, VersionAtTimestamp(Fs(), Root(), entry.timestamp_ms));
    EXPECT_EQ(version, entry.version);
    EXPECT_EQ(Ids(version).size(), static_cast<size_t>(version + 1));
  }
  ASSERT_RAISES(NotFound, VersionAtTimestamp(Fs(), Root(), history[0].timestamp_ms - 1));
  ASSERT_RAISES(InvalidArgument,
                VersionAtTimestamp(Fs(), Root(), history.back().timestamp_ms + 3'600'000));
  ASSERT_RAISES(NotFound, Snapshot::Load(Fs(), Root(), 4));
}

TEST_P(DeltaStorageTest, MergeSchemaAddsColumnsOtherwiseTheWriteIsRefused) {
  AppendEach({1});
  const columnar::SchemaPtr wider = testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("country", DataType::String()),
       Field("amount", DataType::Float64()), Field("note", DataType::String())});
  auto batch = testing::BatchFromJson(wider, R"([[2, "fr", 2.0, "new"]])").ValueOrDie();
  auto refused = WriteTable(Fs(), Root(), wider, {batch}, Mode(SaveMode::kAppend));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().Message(), HasSubstr("note"));
  TableWriteOptions merge = Mode(SaveMode::kAppend);
  merge.merge_schema = true;
  ASSERT_OK_AND_ASSIGN(auto merged, WriteTable(Fs(), Root(), wider, {batch}, merge));
  EXPECT_EQ(merged.version, 1);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Fs(), Root()));
  EXPECT_EQ(snapshot->Schema()->NumFields(), 4);
  EXPECT_EQ(SortedRows(Fs(), *snapshot),
            (std::vector<std::string>{R"({"id":1,"country":"odd","amount":1.0,"note":null})",
                                      R"({"id":2,"country":"fr","amount":2.0,"note":"new"})"}));
}

TEST_P(DeltaStorageTest, OptimizeThenVacuumDeletesOnlyWhatNoVersionNeeds) {
  AppendEach({0, 1, 2, 3, 4, 5});  // six small files, three per partition
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(Fs(), Root()));
  EXPECT_EQ(optimized.version, 6);
  EXPECT_EQ(optimized.files_removed, 6);
  EXPECT_EQ(optimized.files_added, 2);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Ids(5), Ids());
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(Fs(), Root()));
  EXPECT_EQ(history.back().operation, "OPTIMIZE");
  EXPECT_EQ(DataFilesListed().size(), 8u);

  // Within the retention every compacted file is protected.
  ASSERT_OK_AND_ASSIGN(auto now, Vacuum(Fs(), Root()));
  EXPECT_THAT(now.files, IsEmpty());
  VacuumOptions too_short;
  too_short.retention_hours = 1;
  ASSERT_RAISES(InvalidArgument, Vacuum(Fs(), Root(), too_short));

  // Eight days later: a dry run lists the six, deleting nothing.
  VacuumOptions later;
  later.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count() +
                 8LL * 24 * 3600 * 1000;
  later.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto dry, Vacuum(Fs(), Root(), later));
  EXPECT_EQ(dry.files.size(), 6u);
  EXPECT_EQ(DataFilesListed().size(), 8u);

  later.dry_run = false;
  const storage::StorageRequestCounts before = Fs().RequestCounts();
  ASSERT_OK_AND_ASSIGN(auto vacuumed, Vacuum(Fs(), Root(), later));
  const storage::StorageRequestCounts cost = Fs().RequestCounts() - before;
  std::vector<std::string> deleted = vacuumed.files;
  std::sort(deleted.begin(), deleted.end());
  std::vector<std::string> expected = dry.files;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(deleted, expected);
  // S3 deletes the six in one DeleteObjects request.
  EXPECT_EQ(cost.delete_requests, IsS3() ? 1 : 0);
  EXPECT_EQ(DataFilesListed(), LiveFiles());
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

// Two transactions read version 0 and race for version 1 through the FileSystem's put-if-absent:
// the winner gets it, and the loser, per Delta's rules, retries on top (blind appends) or fails
// with Conflict (a delete of files the winner also deleted).
TEST_P(DeltaStorageTest, TwoWritersRacingForAVersionGetOneCommitEach) {
  AppendEach({0});
  const auto appender = [&](int64_t id) {
    auto txn = Transaction::Begin(Fs(), Root()).ValueOrDie();
    auto adds =
        WriteDataFiles(Fs(), Root(), EventSchema(), {"country"}, {Event(id, "fr")}).ValueOrDie();
    txn->AddFile(adds[0]);
    return txn;
  };
  auto first = appender(1);
  auto second = appender(2);
  ASSERT_OK_AND_ASSIGN(int64_t won, first->Commit());
  ASSERT_OK_AND_ASSIGN(int64_t retried, second->Commit());
  EXPECT_EQ(won, 1);
  EXPECT_EQ(retried, 2);
  ASSERT_OK_AND_ASSIGN(std::string commit1, Backend().IndependentRead(CommitName(1)));
  ASSERT_OK_AND_ASSIGN(std::string commit2, Backend().IndependentRead(CommitName(2)));
  // Each commit holds its own writer's one file.
  const auto adds = [](const std::string& commit) {
    int count = 0;
    for (size_t at = commit.find(R"({"add":)"); at != std::string::npos;
         at = commit.find(R"({"add":)", at + 1)) {
      ++count;
    }
    return count;
  };
  EXPECT_EQ(adds(commit1), 1);
  EXPECT_EQ(adds(commit2), 1);
  EXPECT_NE(commit1, commit2);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2}));

  const auto deleter = [&] {
    auto txn = Transaction::Begin(Fs(), Root()).ValueOrDie();
    txn->ReadWholeTable();
    for (const AddFile& add : txn->ReadSnapshot()->Files()) {
      RemoveFile remove;
      remove.path = add.path;
      remove.partition_values = add.partition_values;
      txn->RemoveFile(remove);
    }
    txn->SetOperation("DELETE", {});
    return txn;
  };
  auto delete_a = deleter();
  auto delete_b = deleter();
  ASSERT_OK_AND_ASSIGN(int64_t deleted, delete_a->Commit());
  EXPECT_EQ(deleted, 3);
  auto lost = delete_b->Commit();
  ASSERT_RAISES(Conflict, lost);
  EXPECT_THAT(lost.status().Message(), HasSubstr("conflicts with version 3"));
  ASSERT_RAISES(NotFound, Backend().IndependentRead(CommitName(4)));
  EXPECT_THAT(Ids(), IsEmpty());
}

// Eight threads commit blind appends at once: every one commits, each version exactly once.
TEST_P(DeltaStorageTest, ThreadsRacingForVersionsCommitEachExactlyOnce) {
  AppendEach({0});
  constexpr int kWriters = 8;
  std::vector<int64_t> versions(kWriters, -1);
  std::vector<Status> statuses(kWriters);
  std::atomic<int> waiting{kWriters};
  std::vector<std::thread> threads;
  threads.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto txn = Transaction::Begin(Fs(), Root());
      auto adds = WriteDataFiles(Fs(), Root(), EventSchema(), {"country"}, {Event(100 + w, "t")});
      waiting.fetch_sub(1);
      while (waiting.load() > 0) {
        std::this_thread::yield();
      }
      if (!txn.ok() || !adds.ok()) {
        statuses[w] = txn.ok() ? adds.status() : txn.status();
        return;
      }
      (*txn)->AddFile((*adds)[0]);
      auto version = (*txn)->Commit();
      statuses[w] = version.status();
      versions[w] = version.ok() ? *version : -1;
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const Status& status : statuses) {
    EXPECT_OK(status);
  }
  std::sort(versions.begin(), versions.end());
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(versions[w], w + 1);
  }
  std::vector<int64_t> expected = {0};
  for (int w = 0; w < kWriters; ++w) {
    expected.push_back(100 + w);
  }
  EXPECT_EQ(Ids(), expected);
}

// Four OS processes append to one table at once while one of them also compacts it: every
// write succeeds through Delta's retries, versions are contiguous from 0 and every row of every
// writer is in the table once.
TEST_P(DeltaStorageTest, ConcurrentAppendsFromSeveralProcesses) {
  AppendEach({0});
  constexpr int kProcesses = 4;
  constexpr int kAppendsEach = 5;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The child shares nothing with the parent's FileSystem (its own S3 connections).
      char go;
      close(ready[1]);
      if (read(ready[0], &go, 1) != 0) {
        _exit(3);
      }
      auto fs = Backend().NewFileSystem();
      if (!fs.ok()) {
        _exit(4);
      }
      if (p == 0 && !Optimize(**fs, Root()).ok()) {
        _exit(2);
      }
      for (int i = 0; i < kAppendsEach; ++i) {
        auto result = WriteTable(**fs, Root(), EventSchema(), {Event(1 + p * 100 + i, "p")},
                                 Mode(SaveMode::kAppend));
        if (!result.ok()) {
          _exit(1);
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  close(ready[0]);
  close(ready[1]);  // releases every child at once
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(Fs(), Root()));
  int writes = 0;
  for (size_t v = 0; v < history.size(); ++v) {
    EXPECT_EQ(history[v].version, static_cast<int64_t>(v));
    writes += history[v].operation == "WRITE" ? 1 : 0;
  }
  EXPECT_EQ(writes, kProcesses * kAppendsEach);
  ASSERT_OK_AND_ASSIGN(auto listed, Backend().IndependentList("_delta_log"));
  const auto commits = std::count_if(listed.begin(), listed.end(), [](const std::string& name) {
    return name.size() == 25 && name.substr(20) == ".json";
  });
  EXPECT_EQ(commits, static_cast<int64_t>(history.size()));
  std::vector<int64_t> expected = {0};
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kAppendsEach; ++i) {
      expected.push_back(1 + p * 100 + i);
    }
  }
  EXPECT_EQ(Ids(), expected);
}

}  // namespace
}  // namespace tributary::delta

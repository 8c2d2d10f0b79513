#include "streaming/cloud_files_source.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "formats/parquet/writer.h"
#include "plan/data_sources.h"
#include "streaming/rocksdb_file_tracker.h"
#include "streaming/schema_change.h"
#include "streaming/source_factory.h"
#include "streaming/source_fixture.h"
#include "support/batch_from_json.h"
#include "support/sanitizers.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary::streaming {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kDay = int64_t{24} * 3600 * 1000;
// 2026-01-01T00:00:00Z: a fixed base for modification times.
constexpr int64_t kBase = 1'767'225'600'000;

Offset LogOffset(int64_t id) {
  return "{\"logOffset\":" + std::to_string(id) + "}";
}

class CloudFilesSourceTest : public testing::SourceTest {
 protected:
  void SetUp() override {
    SourceTest::SetUp();
    input_ = dir_ + "/in";
    ASSERT_OK(fs_.CreateDir(input_));
  }

  std::shared_ptr<const CloudFilesSourceDefinition> Define(formats::OptionMap options = {},
                                                           const std::string& path = "") {
    options.emplace("cloudFiles.format", "json");
    auto schema = plan::ParseSchemaDdl("id INT");
    EXPECT_TRUE(schema.ok());
    auto definition = CloudFilesSourceDefinition::Make(fs_, path.empty() ? input_ : path, options,
                                                       *schema, {}, {}, [this] { return now_ms_; });
    EXPECT_TRUE(definition.ok()) << definition.status().ToString();
    return definition.ok() ? *definition : nullptr;
  }

  void WriteInput(const std::string& name, const std::vector<int>& ids, int64_t mtime_ms = kBase) {
    std::string text;
    for (int id : ids) {
      text += "{\"id\":" + std::to_string(id) + "}\n";
    }
    WriteFile("in/" + name, text, mtime_ms);
  }

  /// Rows without the rescued-data column, whose presence is the schema step's business
  /// (cloud_files_schema.h), not discovery's.
  std::vector<std::string> DataRows(const plan::ScanSource& batch) {
    std::vector<std::string> rows = Rows(batch);
    for (std::string& row : rows) {
      row = WithoutRescuedData(std::move(row));
    }
    return rows;
  }

  static std::string WithoutRescuedData(std::string row) {
    const std::string rescued = ",\"_rescued_data\":null";
    if (const size_t at = row.find(rescued); at != std::string::npos) {
      row.erase(at, rescued.size());
    }
    return row;
  }

  /// Opens `definition` over the fresh source directory `<checkpoint><source_dir>` into
  /// `*source` and returns the scan of its first batch.
  plan::ScanSource FirstBatch(const SourceDefinition& definition, const std::string& source_dir,
                              std::unique_ptr<Source>* source) {
    context_.metadata_dir = context_.checkpoint_location + source_dir;
    EXPECT_OK(fs_.CreateDir(context_.metadata_dir));
    *source = Open(definition);
    auto latest = (*source)->LatestOffset(std::nullopt, true);
    EXPECT_OK(latest.status());
    auto batch = (*source)->GetBatch(std::nullopt, **latest);
    EXPECT_OK(batch.status());
    return batch.ok() ? *batch : plan::ScanSource{};
  }

  /// The file names (relative to in/) of the batch (start, end], in order.
  std::vector<std::string> BatchFiles(Source& source, const std::optional<Offset>& start,
                                      const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    std::vector<std::string> names;
    if (batch.ok()) {
      for (const std::string& path : batch->files.paths) {
        names.push_back(path.substr(input_.size() + 1));
      }
    }
    return names;
  }

  /// The files the next trigger after `start` takes (none: empty), advancing `start`.
  std::vector<std::string> NextFiles(Source& source, std::optional<Offset>& start) {
    auto latest = source.LatestOffset(start, true);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    if (!latest.ok() || !latest->has_value() || *latest == start) {
      return {};
    }
    std::vector<std::string> files = BatchFiles(source, start, **latest);
    EXPECT_OK(source.Commit(**latest));
    start = *latest;
    return files;
  }

  std::string input_;
  int64_t now_ms_ = kBase + kDay;
};

TEST_F(CloudFilesSourceTest, ListsRecursivelySkippingHiddenFilesAndReadsRows) {
  WriteInput("a.json", {1, 2}, kBase);
  WriteInput("sub/b.json", {3}, kBase + 1);
  WriteInput("_tmp/c.json", {4}, kBase + 2);
  WriteInput(".d.json", {5}, kBase + 3);
  WriteInput("_e.json", {6}, kBase + 4);
  auto definition = Define();
  EXPECT_EQ(definition->Description(), "CloudFilesSource[json " + input_ + "]");
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  auto latest = source->LatestOffset(std::nullopt, true);
  ASSERT_OK(latest.status());
  ASSERT_EQ(**latest, LogOffset(0));
  auto batch = source->GetBatch(std::nullopt, **latest);
  ASSERT_OK(batch.status());
  EXPECT_THAT(DataRows(*batch), ElementsAre("{\"id\":1}", "{\"id\":2}", "{\"id\":3}"));
  // The log entries carry sizes (allowOverwrites compares them).
  ASSERT_OK_AND_ASSIGN(std::vector<FileEntry> logged,
                       FileSourceLog(fs_, context_.metadata_dir).Read(0));
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[0].size, 18);
  std::optional<Offset> start = *latest;
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
}

TEST_F(CloudFilesSourceTest, GlobPatternsInThePath) {
  WriteInput("x/2024-01/a.json", {1}, kBase);
  WriteInput("y/2024-02/deep/b.json", {2}, kBase + 1);
  WriteInput("y/2023-12/c.json", {3}, kBase + 2);
  WriteInput("top.json", {4}, kBase + 3);
  auto source = Open(*Define({}, input_ + "/*/2024-*/"));
  std::optional<Offset> start;
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("x/2024-01/a.json", "y/2024-02/deep/b.json"));

  const GlobbedPath globbed = SplitGlobbedPath("/landing/*/2024-*/");
  EXPECT_EQ(globbed.base, "/landing");
  EXPECT_THAT(globbed.patterns, ElementsAre("*", "2024-*"));
  EXPECT_TRUE(MatchesGlobbedPath(SplitGlobbedPath("/l/*.json"), "/l/a.json"));
  EXPECT_FALSE(MatchesGlobbedPath(SplitGlobbedPath("/l/*.json"), "/l/a.csv"));
}

TEST_F(CloudFilesSourceTest, PathGlobFilterAndModificationWindow) {
  WriteInput("a.json", {1}, kBase);
  WriteInput("b.txt", {2}, kBase + 1000);
  WriteInput("c.json", {3}, kBase + 2000);
  WriteInput("d.json", {4}, kBase + 3000);
  auto source = Open(*Define({{"pathGlobFilter", "*.json"},
                              {"modifiedAfter", "2026-01-01T00:00:00"},
                              {"modifiedBefore", "2026-01-01T00:00:03"}}));
  std::optional<Offset> start;
  // a.json is not strictly after the lower bound, d.json not before the upper one.
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("c.json"));
}

// Inference reads exactly what the stream would take first: files outside the glob, the
// pathGlobFilter, the modification window or maxFileAge, and hidden ones, shape nothing (and a
// file that is not JSON among them cannot break it); the sample size counts ingested files.
TEST_F(CloudFilesSourceTest, InferenceSamplesOnlyTheFilesTheSourceIngests) {
  WriteFile("in/x/outside-glob.json", "{\"glob\":1}\n", kBase - 5000);
  WriteFile("in/y/2026/not-json.txt", "not json at all {", kBase - 4000);
  WriteFile("in/y/2026/_hidden.json", "{\"hidden\":1}\n", kBase - 3000);
  WriteFile("in/y/.tmp/partial.json", "{\"temporary\":1}\n", kBase - 2000);
  WriteFile("in/y/2026/too-old.json", "{\"old\":1}\n", kBase - 10 * kDay);
  WriteFile("in/y/2026/too-late.json", "{\"late\":1}\n", kBase + 2 * kDay);
  WriteFile("in/y/2026/first.json", "{\"a\":1}\n", kBase);
  WriteFile("in/y/2026/second.json", "{\"b\":1}\n", kBase + 1000);
  const auto infer = [&](const std::string& location,
                         const std::map<std::string, std::string>& config) {
    auto definition =
        CloudFilesSourceDefinition::Make(fs_, input_ + "/y/*",
                                         {{"cloudFiles.format", "json"},
                                          {"cloudFiles.schemaLocation", dir_ + "/" + location},
                                          {"pathGlobFilter", "*.json"},
                                          {"modifiedBefore", "2026-01-02T12:00:00"},
                                          {"cloudFiles.maxFileAge", "7 days"}},
                                         nullptr, config, {}, [this] { return now_ms_; });
    EXPECT_OK(definition.status());
    std::vector<std::string> names;
    if (definition.ok()) {
      for (const columnar::Field& field : (*definition)->Schema()->Fields()) {
        if (field.Name() != "_metadata") {  // the file metadata column, not inferred
          names.push_back(field.Name());
        }
      }
    }
    return names;
  };
  EXPECT_THAT(infer("schema1", {}), ElementsAre("a", "b", "_rescued_data"));
  // One file sampled: the first the stream ingests, not the oldest below the base directory.
  EXPECT_THAT(
      infer("schema2", {{"spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", "1"}}),
      ElementsAre("a", "_rescued_data"));
}

TEST_F(CloudFilesSourceTest, IncludeExistingFilesFalseSkipsFilesOfTheFirstStartOnly) {
  WriteInput("old.json", {1}, kBase);
  auto definition = Define({{"cloudFiles.includeExistingFiles", "false"}});
  std::optional<Offset> start;
  {
    auto source = Open(*definition);
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
    WriteInput("new1.json", {2}, kBase + 1);
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("new1.json"));
  }
  // A restart does not evaluate the option again: a file that landed while stopped is read.
  WriteInput("new2.json", {3}, kBase + 2);
  auto source = Open(*definition);
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("new2.json"));
}

TEST_F(CloudFilesSourceTest, RateLimitsWhicheverFirstAndOutstandingMetrics) {
  for (int i = 0; i < 5; ++i) {
    WriteInput("f" + std::to_string(i) + ".json", {i}, kBase + i);  // 9 bytes each
  }
  auto source = Open(
      *Define({{"cloudFiles.maxFilesPerTrigger", "3"}, {"cloudFiles.maxBytesPerTrigger", "18"}}));
  std::optional<Offset> start;
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("f0.json", "f1.json"));  // bytes first
  EXPECT_EQ(source->Metrics()["numFilesOutstanding"], "3");
  EXPECT_EQ(source->Metrics()["numBytesOutstanding"], "27");
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("f2.json", "f3.json"));
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("f4.json"));
  EXPECT_EQ(source->Metrics()["numFilesOutstanding"], "0");

  auto by_files = CloudFilesOptionsFromMap({{"cloudFiles.format", "json"},
                                            {"cloudFiles.maxFilesPerTrigger", "2"},
                                            {"cloudFiles.maxBytesPerTrigger", "10g"}},
                                           {});
  ASSERT_OK(by_files.status());
  EXPECT_EQ(by_files->max_files_per_trigger, 2);
  EXPECT_EQ(by_files->max_bytes_per_trigger, int64_t{10} << 30);
  auto defaults = CloudFilesOptionsFromMap({{"cloudFiles.format", "json"}}, {});
  ASSERT_OK(defaults.status());
  EXPECT_EQ(defaults->max_files_per_trigger, 1000);
  EXPECT_TRUE(defaults->include_existing_files);
  EXPECT_EQ(defaults->clean_retention_ms, 30 * kDay);
}

// Trigger.AvailableNow takes the files up to the newest present when it was prepared (by
// modification time, then path; no set of paths is held), cut by the rate limits; a file
// landing later waits for the next run.
TEST_F(CloudFilesSourceTest, AvailableNowTakesTheFilesUpToTheNewestPresentWhenPrepared) {
  for (int i = 0; i < 5; ++i) {
    WriteInput("f" + std::to_string(i) + ".json", {i}, kBase + i);  // 9 bytes each
  }
  auto definition = Define({{"cloudFiles.maxFilesPerTrigger", "2"}});
  std::optional<Offset> start;
  {
    auto source = Open(*definition);
    ASSERT_OK(source->PrepareForTriggerAvailableNow());
    WriteInput("late.json", {5}, kBase + 5);
    WriteInput("f4b.json", {6}, kBase + 4);  // same time as f4.json, after it by path
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("f0.json", "f1.json"));
    EXPECT_EQ(source->Metrics()["numFilesOutstanding"], "3");
    EXPECT_EQ(source->Metrics()["numBytesOutstanding"], "27");
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("f2.json", "f3.json"));
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("f4.json"));
    EXPECT_EQ(source->Metrics()["numFilesOutstanding"], "0");
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  }
  // The next run takes the files that came late, once.
  auto source = Open(*definition);
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("f4b.json", "late.json"));
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
}

TEST_F(CloudFilesSourceTest, AllowOverwritesReadsAChangedFileAgain) {
  WriteInput("a.json", {1}, kBase);
  auto plain = Define();
  std::optional<Offset> start;
  {
    auto source = Open(*plain);
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("a.json"));
    WriteInput("a.json", {1, 2}, kBase + 5);
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  }
  auto source = Open(*Define({{"cloudFiles.allowOverwrites", "true"}}));
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("a.json"));
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
}

// maxFileAge deletes expired entries from the store; a file whose entry went, still present,
// is not taken again: not by the same run, nor after a restart, nor with the clock set back or
// the option dropped (the store remembers the instant it expired up to).
TEST_F(CloudFilesSourceTest, MaxFileAgeDeletesExpiredEntriesAndNeverReingests) {
  now_ms_ = kBase + kDay;
  WriteInput("old.json", {1}, kBase);
  WriteInput("new.json", {2}, kBase + kDay - 1000);
  auto definition = Define({{"cloudFiles.maxFileAge", "2 days"}});
  std::optional<Offset> start;
  const std::string store = context_.metadata_dir + "/rocksdb";
  {
    auto source = Open(*definition);
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("old.json", "new.json"));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto tracker, RocksDbFileTracker::Open(store, {}));
    EXPECT_EQ(tracker->NumTracked(), 2);
  }
  now_ms_ = kBase + 2 * kDay + kDay / 2;  // old.json is 2.5 days old, new.json 1.5
  {
    auto source = Open(*definition);
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  }
  {
    ASSERT_OK_AND_ASSIGN(auto tracker, RocksDbFileTracker::Open(store, {}));
    EXPECT_EQ(tracker->NumTracked(), 1);
    // Without maxFileAge or a clock, the store still refuses old.json (by its age), and knows
    // new.json (by its entry).
    EXPECT_FALSE(tracker->IsNew({input_ + "/old.json", 9, kBase, false}));
    EXPECT_FALSE(tracker->IsNew({input_ + "/new.json", 9, kBase + kDay - 1000, false}));
    EXPECT_TRUE(tracker->IsNew({input_ + "/other.json", 9, kBase + kDay, false}));
  }
  now_ms_ = kBase;  // the clock set back
  {
    auto source = Open(*Define());
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  }
  // The expiry scan deletes a bounded number of entries per trigger; the rest go later.
  ASSERT_OK_AND_ASSIGN(
      auto tracker, RocksDbFileTracker::Open(
                        dir_ + "/bounded", {.max_file_age_ms = kDay, .max_expired_per_purge = 2}));
  std::vector<FileEntry> entries;
  entries.reserve(5);
  for (int i = 0; i < 5; ++i) {
    entries.push_back({"/l/f" + std::to_string(i), kBase + i, 0, 9});
  }
  ASSERT_OK(tracker->Add(entries));
  tracker->SetClockMs(kBase + kDay + 3);  // f0, f1, f2 expired
  ASSERT_OK(tracker->Purge());
  EXPECT_EQ(tracker->NumTracked(), 3);
  ASSERT_OK(tracker->Purge());
  EXPECT_EQ(tracker->NumTracked(), 2);
  ASSERT_OK(tracker->Purge());
  EXPECT_EQ(tracker->NumTracked(), 2);
  EXPECT_FALSE(tracker->IsNew({"/l/f4", 9, kBase + 4, false}));
}

TEST_F(CloudFilesSourceTest, RocksDbTrackerReopensAndRepairsFromTheLog) {
  WriteInput("a.json", {1}, kBase);
  auto definition = Define();
  std::optional<Offset> start;
  {
    auto source = Open(*definition);
    EXPECT_THAT(NextFiles(*source, start), ElementsAre("a.json"));
  }
  // A crash after the log entry of batch 1 and before the store recorded it.
  WriteInput("b.json", {2}, kBase + 1);
  FileSourceLog log(fs_, context_.metadata_dir);
  const FileEntry entry{input_ + "/b.json", kBase + 1, 1, 8};
  ASSERT_OK(log.Write(1, std::span(&entry, 1)));
  {
    auto source = Open(*definition);
    // The logged batch is the next one, and b.json is not taken again after it.
    auto latest = source->LatestOffset(start, true);
    ASSERT_OK(latest.status());
    EXPECT_EQ(**latest, LogOffset(1));
    EXPECT_THAT(BatchFiles(*source, start, **latest), ElementsAre("b.json"));
    start = *latest;
    EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  }
  ASSERT_OK_AND_ASSIGN(auto tracker,
                       RocksDbFileTracker::Open(context_.metadata_dir + "/rocksdb", {}));
  EXPECT_EQ(tracker->LastBatchRecorded(), 1);
  EXPECT_EQ(tracker->NumTracked(), 2);
  EXPECT_FALSE(tracker->IsNew({input_ + "/b.json", 8, kBase + 1, false}));
  EXPECT_TRUE(tracker->IsNew({input_ + "/c.json", 8, kBase + 1, false}));
}

TEST_F(CloudFilesSourceTest, FullDiskFailsTheTrackerWithAnIOErrorAndClosesItWithoutAborting) {
  // In a child whose files may not grow past 16 KiB (RLIMIT_FSIZE: writes past it fail with
  // EFBIG, as on a full disk; RocksDB's LOG file, written from the start, hits it first). The
  // store used to abort the process (SIGABRT from RocksDB's info logger, assertions on).
  const std::string store = dir_ + "/full/rocksdb";
  ASSERT_OK(fs_.CreateDir(dir_ + "/full"));
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {16 << 10, 16 << 10};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 10;
    {
      auto tracker = RocksDbFileTracker::Open(store, {});
      if (!tracker.ok()) {
        ::_exit(tracker.status().IsIOError() ? 11 : 12);
      }
      for (int64_t batch = 0; batch < 10000; ++batch) {
        std::vector<FileEntry> entries;
        entries.reserve(20);
        for (int i = 0; i < 20; ++i) {
          entries.push_back(
              {fmt::format("{}/landing/{:0>200}", dir_, batch * 20 + i), kBase + i, batch, 1000});
        }
        const Status added = (*tracker)->Add(entries);
        if (!added.ok()) {
          code = added.IsIOError() &&
                         added.Message().find("file tracking store") != std::string::npos &&
                         added.Message().find(store) != std::string::npos
                     ? 0
                     : 13;
          break;
        }
      }
    }  // the store closes here
    ::_exit(code);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus)) << "killed by signal " << WTERMSIG(wstatus);
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
  // No LOG file: RocksDB's info log goes nowhere.
  EXPECT_FALSE(std::filesystem::exists(store + "/LOG"));
  // With space again, the store opens and holds what its successful writes recorded.
  ASSERT_OK_AND_ASSIGN(auto reopened, RocksDbFileTracker::Open(store, {}));
  EXPECT_GT(reopened->NumTracked(), 0);
}

TEST_F(CloudFilesSourceTest, NotificationsWithBackfill) {
  WriteInput("existing.json", {1}, kBase);
  auto source = Open(*Define(
      {{"cloudFiles.useNotifications", "true"}, {"cloudFiles.backfillInterval", "1 minute"}}));
  std::optional<Offset> start;
  // The watch is set up, then one full listing finds what is there.
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("existing.json"));
  // A file written (closed or moved in) is announced; so is one in a new subdirectory.
  WriteInput("n1.json", {2}, kBase + 1);
  WriteInput("newdir/n2.json", {3}, kBase + 2);
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("n1.json", "newdir/n2.json"));
  // A hard link raises no close or move event: notifications miss it (as a lost cloud
  // notification) until the backfill listing.
  WriteFile("elsewhere.json", "{\"id\":4}\n", kBase + 3);
  ASSERT_EQ(link((dir_ + "/elsewhere.json").c_str(), (input_ + "/linked.json").c_str()), 0);
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  now_ms_ += 61'000;
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("linked.json"));
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
}

TEST_F(CloudFilesSourceTest, NotifiedFilesBeyondTheRateLimitStayPending) {
  auto source = Open(
      *Define({{"cloudFiles.useNotifications", "true"}, {"cloudFiles.maxFilesPerTrigger", "1"}}));
  std::optional<Offset> start;
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  WriteInput("a.json", {1}, kBase);
  WriteInput("b.json", {2}, kBase + 1);
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("a.json"));
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("b.json"));
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
}

TEST_F(CloudFilesSourceTest, CleanSourceDeleteOnlyCommittedFilesPastRetention) {
  now_ms_ = kBase + 10 * kDay;
  WriteInput("old.json", {1}, kBase);
  WriteInput("recent.json", {2}, now_ms_ - 1000);
  auto source = Open(*Define({{"cloudFiles.cleanSource", "DELETE"},
                              {"cloudFiles.cleanSource.retentionDuration", "1 day"}}));
  auto latest = source->LatestOffset(std::nullopt, true);
  ASSERT_OK(latest.status());
  // Not committed yet: nothing is touched.
  EXPECT_TRUE(*fs_.Exists(input_ + "/old.json"));
  ASSERT_OK(source->Commit(**latest));
  EXPECT_FALSE(*fs_.Exists(input_ + "/old.json"));
  EXPECT_TRUE(*fs_.Exists(input_ + "/recent.json"));
  EXPECT_EQ(source->Metrics()["numFilesCleaned"], "1");
  // Once old enough, a later commit cleans it (the queue survives in the store).
  now_ms_ += 2 * kDay;
  ASSERT_OK(source->Commit(**latest));
  EXPECT_FALSE(*fs_.Exists(input_ + "/recent.json"));
}

TEST_F(CloudFilesSourceTest, CleanSourceMoveKeepsTheRelativePathAndReportsFailures) {
  now_ms_ = kBase + 40 * kDay;
  WriteInput("sub/a.json", {1}, kBase);
  WriteInput("b.json", {2}, kBase);
  const std::string archive = dir_ + "/archive";
  WriteFile("archive/b.json", "taken", kBase);  // the move of b.json will fail
  auto source = Open(*Define(
      {{"cloudFiles.cleanSource", "move"}, {"cloudFiles.cleanSource.moveDestination", archive}}));
  std::optional<Offset> start;
  EXPECT_THAT(NextFiles(*source, start), ElementsAre("b.json", "sub/a.json"));
  EXPECT_TRUE(*fs_.Exists(archive + "/sub/a.json"));
  EXPECT_FALSE(*fs_.Exists(input_ + "/sub/a.json"));
  EXPECT_TRUE(*fs_.Exists(input_ + "/b.json"));
  EXPECT_EQ(source->Metrics()["numCleanSourceFailures"], "1");
  EXPECT_THAT(source->Metrics()["lastCleanSourceFailure"], HasSubstr("b.json"));

  auto inside = CloudFilesSourceDefinition::Make(
      fs_, input_,
      {{"cloudFiles.format", "json"},
       {"cloudFiles.cleanSource", "MOVE"},
       {"cloudFiles.cleanSource.moveDestination", input_ + "/done"}},
      *plan::ParseSchemaDdl("id INT"), {}, {});
  EXPECT_THAT(inside.status().ToString(), HasSubstr("inside the source directory"));
}

TEST_F(CloudFilesSourceTest, CleanSourceMoveRefusesEveryDestinationSpelledInsideTheSource) {
  std::filesystem::create_directory_symlink(input_, dir_ + "/link");
  auto define = [&](const std::string& destination) {
    return CloudFilesSourceDefinition::Make(
        fs_, input_,
        {{"cloudFiles.format", "json"},
         {"cloudFiles.cleanSource", "MOVE"},
         {"cloudFiles.cleanSource.moveDestination", destination}},
        *plan::ParseSchemaDdl("id INT"), {}, {});
  };
  for (const std::string& destination :
       {input_ + "//archive", dir_ + "/other/../in/archive", dir_ + "//in/./archive/",
        dir_ + "/link/archive", "file://" + input_ + "/archive", input_}) {
    auto inside = define(destination);
    ASSERT_RAISES(InvalidArgument, inside);
    EXPECT_THAT(inside.status().ToString(), HasSubstr("inside the source directory"))
        << destination;
  }
  // A relative spelling, against the working directory.
  const std::string saved = std::filesystem::current_path().string();
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  auto relative = define("in/archive");
  ASSERT_EQ(::chdir(saved.c_str()), 0);
  EXPECT_THAT(relative.status().ToString(), HasSubstr("inside the source directory"));
  // A sibling whose name only starts like the source is outside it.
  ASSERT_OK(define(dir_ + "/in-archive").status());
}

TEST_F(CloudFilesSourceTest, FifosInTheLandingDirectoryAreSkippedAndCounted) {
  WriteInput("a.json", {1}, kBase);
  WriteInput("sub/b.json", {2}, kBase + 1);
  ASSERT_EQ(::mkfifo((input_ + "/pipe.json").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((input_ + "/sub/pipe.json").c_str(), 0644), 0);
  auto source = Open(*Define());
  auto latest = source->LatestOffset(std::nullopt, true);
  ASSERT_OK(latest.status());
  // Checked before reading: a FIFO in the batch used to block the read in open() forever.
  ASSERT_THAT(BatchFiles(*source, std::nullopt, **latest), ElementsAre("a.json", "sub/b.json"));
  EXPECT_EQ(source->Metrics()["numNonRegularFilesSkipped"], "2");
  auto batch = source->GetBatch(std::nullopt, **latest);
  ASSERT_OK(batch.status());
  EXPECT_THAT(DataRows(*batch), ElementsAre(R"({"id":1})", R"({"id":2})"));
  // Schema inference samples regular files only.
  auto inferred = CloudFilesSourceDefinition::Make(
      fs_, input_,
      {{"cloudFiles.format", "json"}, {"cloudFiles.schemaLocation", dir_ + "/schemas"}}, nullptr,
      {}, {});
  ASSERT_OK(inferred.status());
  EXPECT_GE((*inferred)->Schema()->FieldIndex("id"), 0);
}

TEST_F(CloudFilesSourceTest, MissingAndCorruptFiles) {
  WriteInput("a.json", {1}, kBase);
  WriteInput("b.json", {2}, kBase + 1);
  auto tolerant = Open(*Define({{"ignoreMissingFiles", "true"}}));
  auto latest = tolerant->LatestOffset(std::nullopt, true);
  ASSERT_OK(latest.status());
  ASSERT_OK(fs_.DeleteFile(input_ + "/a.json"));
  auto batch = tolerant->GetBatch(std::nullopt, **latest);
  ASSERT_OK(batch.status());
  EXPECT_THAT(DataRows(*batch), ElementsAre("{\"id\":2}"));

  // Without the option, the batch fails naming the missing file.
  auto strict = Define();
  context_.metadata_dir = context_.checkpoint_location + "/sources/1";
  ASSERT_OK(fs_.CreateDir(context_.metadata_dir));
  WriteInput("a.json", {1}, kBase);
  auto source = Open(*strict);
  latest = source->LatestOffset(std::nullopt, true);
  ASSERT_OK(latest.status());
  ASSERT_OK(fs_.DeleteFile(input_ + "/a.json"));
  batch = source->GetBatch(std::nullopt, **latest);
  ASSERT_OK(batch.status());
  plan::LogicalPlanPtr scan = plan::Scan(*batch, "");
  exec::ExecContext exec_context;
  exec_context.fs = &fs_;
  auto root = plan::CreatePhysicalPlan(*scan, exec_context);
  Status read = root.ok() ? exec::Drain(**root).status() : root.status();
  EXPECT_THAT(read.ToString(), HasSubstr("a.json"));
}

TEST_F(CloudFilesSourceTest, CorruptFilesFailTheBatchNamingThemUnlessIgnored) {
  auto schema =
      ::tributary::testing::MakeSchema({columnar::Field("id", columnar::DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto rows, ::tributary::testing::BatchFromJson(schema, "[[1],[2]]"));
  ASSERT_OK(parquet::WriteParquetFile(fs_, input_ + "/a.parquet", {rows}, schema));
  WriteFile("in/b.parquet", "this is not a parquet file", kBase);
  // Reads everything one source takes; returns the rows or the error, and the skipped count
  // the source reports (-1: not reported).
  const auto read_all = [&](bool ignore) -> std::pair<Result<std::vector<std::string>>, int64_t> {
    auto definition = CloudFilesSourceDefinition::Make(
        fs_, input_,
        {{"cloudFiles.format", "parquet"}, {"ignoreCorruptFiles", ignore ? "true" : "false"}},
        schema, {}, {});
    EXPECT_OK(definition.status());
    std::unique_ptr<Source> source;
    auto batch = FirstBatch(**definition, ignore ? "/sources/1" : "/sources/2", &source);
    exec::ExecContext exec_context;
    exec_context.fs = &fs_;
    auto root = plan::CreatePhysicalPlan(*plan::Scan(batch, ""), exec_context);
    EXPECT_OK(root.status());
    auto drained = exec::Drain(**root);
    const std::string skipped = source->Metrics()["numCorruptFilesSkipped"];
    const int64_t count = skipped.empty() ? -1 : std::stoll(skipped);
    if (!drained.ok()) {
      return {drained.status(), count};
    }
    std::vector<std::string> out;
    for (const auto& part : *drained) {
      for (std::string& row : columnar::CanonicalJsonRows(*part)) {
        out.push_back(WithoutRescuedData(std::move(row)));
      }
    }
    return {out, count};
  };
  auto [strict, strict_count] = read_all(false);
  ASSERT_FALSE(strict.ok());
  EXPECT_THAT(strict.status().ToString(), HasSubstr("b.parquet"));
  EXPECT_EQ(strict_count, -1);
  auto [tolerant, skipped] = read_all(true);
  ASSERT_OK(tolerant.status());
  EXPECT_THAT(*tolerant, ElementsAre("{\"id\":1}", "{\"id\":2}"));
  EXPECT_EQ(skipped, 1);
}

TEST_F(CloudFilesSourceTest, IgnoreCorruptFilesAlsoSkipsThemInSchemaInference) {
  // A truncated .json.gz beside a good file; a zero-byte .parquet beside a good one.
  WriteFile("json/a.json", "{\"id\":1,\"name\":\"x\"}\n", kBase);
  WriteFile("json/b.json.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x4b", 11),
            kBase + 1);
  auto schema =
      ::tributary::testing::MakeSchema({columnar::Field("id", columnar::DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto rows, ::tributary::testing::BatchFromJson(schema, "[[1],[2]]"));
  ASSERT_OK(fs_.CreateDir(dir_ + "/parquet"));
  ASSERT_OK(parquet::WriteParquetFile(fs_, dir_ + "/parquet/a.parquet", {rows}, schema));
  WriteFile("parquet/b.parquet", "", kBase + 1);
  for (const std::string format : {"json", "parquet"}) {
    const auto define = [&](bool ignore) {
      return CloudFilesSourceDefinition::Make(
          fs_, dir_ + "/" + format,
          {{"cloudFiles.format", format},
           {"cloudFiles.schemaLocation", dir_ + "/schemas-" + format + (ignore ? "-i" : "")},
           {"ignoreCorruptFiles", ignore ? "true" : "false"}},
          nullptr, {}, {});
    };
    auto strict = define(false);
    ASSERT_FALSE(strict.ok()) << format;
    EXPECT_THAT(strict.status().ToString(), HasSubstr("b." + format)) << format;
    auto tolerant = define(true);
    ASSERT_OK(tolerant.status());
    EXPECT_GE((*tolerant)->Schema()->FieldIndex("id"), 0) << format;
  }
}

TEST_F(CloudFilesSourceTest, TextAndBinaryFileFormats) {
  WriteFile("in/a.txt", "first\r\nsecond\n\nlast", kBase);
  WriteFile("in/b.txt", "", kBase + 1);
  const auto read = [&](const formats::OptionMap& options, const std::string& source_dir) {
    auto definition = CloudFilesSourceDefinition::Make(fs_, input_, options, nullptr, {}, {},
                                                       [this] { return now_ms_; });
    EXPECT_OK(definition.status());
    std::unique_ptr<Source> source;
    auto batch = FirstBatch(**definition, source_dir, &source);
    return std::make_pair((*definition)->Schema()->ToString(), Rows(batch));
  };
  auto [text_schema, lines] = read({{"cloudFiles.format", "text"}}, "/sources/1");
  EXPECT_EQ(text_schema, "value: string\n");
  EXPECT_THAT(lines, ElementsAre("{\"value\":\"first\"}", "{\"value\":\"second\"}",
                                 "{\"value\":\"\"}", "{\"value\":\"last\"}"));
  auto [whole_schema, files] =
      read({{"cloudFiles.format", "text"}, {"wholeText", "true"}}, "/sources/2");
  EXPECT_THAT(files,
              ElementsAre("{\"value\":\"first\\r\\nsecond\\n\\nlast\"}", "{\"value\":\"\"}"));
  auto [binary_schema, blobs] =
      read({{"cloudFiles.format", "binaryFile"}, {"pathGlobFilter", "a.*"}}, "/sources/3");
  EXPECT_EQ(binary_schema,
            "path: string\nmodificationTime: timestamp\nlength: bigint\ncontent: binary\n");
  ASSERT_EQ(blobs.size(), 1u);
  EXPECT_THAT(blobs[0], HasSubstr("\"path\":\"" + input_ + "/a.txt\""));
  EXPECT_THAT(blobs[0], HasSubstr("\"length\":19"));
  EXPECT_THAT(blobs[0], HasSubstr("2026-01-01"));
}

TEST_F(CloudFilesSourceTest, DefinedThroughDefineSourceWithInference) {
  WriteInput("a.json", {7}, kBase);
  SourceRequest request;
  request.format = "cloudFiles";
  request.path = input_;
  request.options = {{"cloudFiles.format", "json"}, {"cloudFiles.inferColumnTypes", "true"}};
  request.fs = &fs_;
  // Inference needs a schema location (where the schema is stored and evolved).
  EXPECT_THAT(DefineSource(request).status().ToString(), HasSubstr("cloudFiles.schemaLocation"));
  request.options["cloudFiles.schemaLocation"] = dir_ + "/schema";
  ASSERT_OK_AND_ASSIGN(auto definition, DefineSource(request));
  EXPECT_THAT(definition->Description(), HasSubstr("CloudFilesSource[json"));
  EXPECT_EQ(definition->Schema()->FieldAt(0).Name(), "id");

  request.options = {};
  EXPECT_THAT(DefineSource(request).status().ToString(), HasSubstr("cloudFiles.format"));
  request.options = {{"cloudFiles.format", "avro"}};
  EXPECT_THAT(DefineSource(request).status().ToString(), HasSubstr("avro"));
}

// Through the public API and the engine into Delta: several rate-limited batches, a restart
// that reopens the RocksDB store and reads only the files that arrived meanwhile, rows exactly
// once; progress carries the backlog metrics.
TEST_F(CloudFilesSourceTest, IntoDeltaExactlyOnceAcrossRestarts) {
  ASSERT_OK_AND_ASSIGN(auto session, Session::Builder().TimeZone("UTC").Build());
  const std::string table = dir_ + "/table";
  const auto run = [&]() -> std::vector<StreamingQueryProgress> {
    auto query = session->ReadStream()
                     .Format("cloudFiles")
                     .Option("cloudFiles.format", "json")
                     .Option("cloudFiles.maxFilesPerTrigger", "2")
                     .Schema("id BIGINT")
                     .Load(input_)
                     .WriteStream()
                     .Format("delta")
                     .Option("checkpointLocation", dir_ + "/cp")
                     .Trigger(Trigger::AvailableNow())
                     .Start(table);
    EXPECT_OK(query.status());
    if (!query.ok()) {
      return {};
    }
    EXPECT_OK(query->AwaitTermination());
    return query->RecentProgress();
  };
  const auto ids = [&] {
    auto rows = session->Read().Format("delta").Load(table).Collect();
    EXPECT_OK(rows.status());
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(WithoutRescuedData(row.ToJson()));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  for (int i = 0; i < 5; ++i) {
    WriteInput("f" + std::to_string(i) + ".json", {i}, kBase + i);
  }
  std::vector<StreamingQueryProgress> first = run();
  ASSERT_EQ(first.size(), 3u);  // 2 + 2 + 1 files
  EXPECT_EQ(first[0].sources[0].metrics.at("numFilesOutstanding"), "3");
  EXPECT_EQ(ids(), (std::vector<std::string>{"{\"id\":0}", "{\"id\":1}", "{\"id\":2}", "{\"id\":3}",
                                             "{\"id\":4}"}));
  WriteInput("f5.json", {5}, kBase + 5);
  WriteInput("sub/f6.json", {6}, kBase + 6);
  std::vector<StreamingQueryProgress> second = run();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].num_input_rows, 2);
  EXPECT_EQ(ids().size(), 7u);
  EXPECT_TRUE(run().empty());
  EXPECT_EQ(ids().size(), 7u);
}

// Parquet files carry their schema: a file with a column outside the stored schema is a new
// column, found from its footer, typed by it (not a string), for every evolution mode through
// restarts into Delta; files lacking a column read it as null.
TEST_F(CloudFilesSourceTest, ParquetNewColumnsInEveryEvolutionMode) {
  ASSERT_OK_AND_ASSIGN(auto session, Session::Builder().TimeZone("UTC").Build());
  const auto write_parquet = [&](const std::string& name, std::vector<columnar::Field> fields,
                                 const std::string& rows_json, int64_t mtime) {
    auto schema = ::tributary::testing::MakeSchema(std::move(fields));
    auto rows = ::tributary::testing::BatchFromJson(schema, rows_json);
    ASSERT_OK(rows.status());
    ASSERT_OK(parquet::WriteParquetFile(fs_, input_ + "/" + name, {*rows}, schema));
    SetModificationTime(input_ + "/" + name, mtime);
  };
  const auto run = [&](const std::string& mode) -> Status {
    auto query = session->ReadStream()
                     .Format("cloudFiles")
                     .Option("cloudFiles.format", "parquet")
                     .Option("cloudFiles.schemaLocation", dir_ + "/schema-" + mode)
                     .Option("cloudFiles.schemaEvolutionMode", mode)
                     .Load(input_)
                     .WriteStream()
                     .Format("delta")
                     .Option("checkpointLocation", dir_ + "/cp-" + mode)
                     .Option("mergeSchema", "true")
                     .Trigger(Trigger::AvailableNow())
                     .Start(dir_ + "/table-" + mode);
    if (!query.ok()) {
      return query.status();
    }
    return query->AwaitTermination();
  };
  const auto rows = [&](const std::string& mode) {
    auto collected = session->Read().Format("delta").Load(dir_ + "/table-" + mode).Collect();
    EXPECT_OK(collected.status());
    std::vector<std::string> out;
    for (const Row& row : collected.ok() ? *collected : std::vector<Row>{}) {
      out.push_back(WithoutRescuedData(row.ToJson()));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  write_parquet("p1.parquet", {columnar::Field("id", columnar::DataType::Int64())}, "[[1],[2]]",
                kBase);
  for (const std::string mode : {"addNewColumns", "rescue", "failOnNewColumns", "none"}) {
    ASSERT_OK(run(mode));
  }
  write_parquet("p2.parquet",
                {columnar::Field("id", columnar::DataType::Int64()),
                 columnar::Field("score", columnar::DataType::Float64())},
                "[[3,0.5]]", kBase + 1000);
  write_parquet("p3.parquet", {columnar::Field("id", columnar::DataType::Int64())}, "[[4]]",
                kBase + 2000);
  // A type mismatch: the value goes to the rescued-data column, the column reads null.
  write_parquet("p4.parquet", {columnar::Field("id", columnar::DataType::String())}, "[[\"x5\"]]",
                kBase + 3000);

  // addNewColumns: stops naming the column, stores the schema with it (a double, from the
  // footer), and the restart re-reads the batch; the file without it reads null.
  Status stopped = run("addNewColumns");
  EXPECT_TRUE(IsSchemaChange(stopped)) << stopped.ToString();
  EXPECT_THAT(stopped.ToString(), HasSubstr("score"));
  ASSERT_OK_AND_ASSIGN(std::string stored, fs_.ReadFile(dir_ + "/schema-addNewColumns/_schemas/1"));
  EXPECT_THAT(stored, HasSubstr(R"(\"name\":\"score\",\"nullable\":true,\"type\":\"double\")"));
  ASSERT_OK(run("addNewColumns"));
  std::vector<std::string> evolved = rows("addNewColumns");
  ASSERT_EQ(evolved.size(), 5u);
  EXPECT_EQ(evolved[0], R"({"id":1,"score":null})");
  EXPECT_EQ(evolved[2], R"({"id":3,"score":0.5})");
  EXPECT_EQ(evolved[3], R"({"id":4,"score":null})");
  EXPECT_THAT(evolved[4],
              HasSubstr(R"({"id":null,"_rescued_data":"{\"id\":\"x5\",\"_file_path\":)"));
  EXPECT_THAT(evolved[4], HasSubstr("p4.parquet"));
  // rescue: the schema stays; the new column's values are rescued as JSON keyed by its name.
  ASSERT_OK(run("rescue"));
  std::vector<std::string> rescued = rows("rescue");
  ASSERT_EQ(rescued.size(), 5u);
  EXPECT_EQ(rescued[0], R"({"id":1})");
  EXPECT_THAT(rescued[2], HasSubstr(R"({"id":3,"_rescued_data":"{\"score\":0.5,\"_file_path\":)"));
  EXPECT_THAT(rescued[2], HasSubstr("p2.parquet"));
  EXPECT_EQ(rescued[3], R"({"id":4})");
  EXPECT_FALSE(*fs_.Exists(dir_ + "/schema-rescue/_schemas/1"));
  // failOnNewColumns: stops with the schema unchanged, and stays stopped.
  for (int attempt = 0; attempt < 2; ++attempt) {
    Status failed = run("failOnNewColumns");
    EXPECT_THAT(failed.ToString(), HasSubstr("failOnNewColumns"));
    EXPECT_THAT(failed.ToString(), HasSubstr("score"));
  }
  EXPECT_FALSE(*fs_.Exists(dir_ + "/schema-failOnNewColumns/_schemas/1"));
  // none: the schema stays and the stream goes on (what the schema lacks is rescued, as for
  // JSON, while the rescued-data column exists).
  ASSERT_OK(run("none"));
  std::vector<std::string> ignored = rows("none");
  ASSERT_EQ(ignored.size(), 5u);
  EXPECT_EQ(ignored[0], R"({"id":1})");
  EXPECT_EQ(ignored[3], R"({"id":4})");
}

int64_t PeakRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Scale: 200,000 files tracked in RocksDB in 200 batches; lookups stay point reads. Prints the
// tracking cost per trigger and the peak RSS for the notes (no timing decides the result).
TEST_F(CloudFilesSourceTest, TracksTwoHundredThousandFilesWithBoundedMemory) {
  constexpr int kBatches = 200;
  constexpr int kPerBatch = 1000;
  const int64_t rss_before = PeakRssKb();
  ASSERT_OK_AND_ASSIGN(auto tracker, RocksDbFileTracker::Open(dir_ + "/scale", {}));
  const auto path_of = [](int i) {
    return "/landing/raw-logs/2026/01/" + std::to_string(i % 97) + "/part-" + std::to_string(i) +
           ".json";
  };
  const auto add_start = std::chrono::steady_clock::now();
  for (int b = 0; b < kBatches; ++b) {
    std::vector<FileEntry> entries;
    for (int i = b * kPerBatch; i < (b + 1) * kPerBatch; ++i) {
      entries.push_back({path_of(i), kBase + i, b, 1000});
    }
    ASSERT_OK(tracker->Add(entries));
  }
  const auto add_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - add_start)
          .count();
  EXPECT_EQ(tracker->NumTracked(), kBatches * kPerBatch);
  EXPECT_EQ(tracker->LastBatchRecorded(), kBatches - 1);
  // A trigger's lookups: 1000 listed files of which half are known.
  const auto lookup_start = std::chrono::steady_clock::now();
  int new_files = 0;
  for (int i = 0; i < 1000; ++i) {
    const int id = i % 2 == 0 ? i * 199 : kBatches * kPerBatch + i;
    new_files += tracker->IsNew({path_of(id), 1000, kBase + id, false}) ? 1 : 0;
  }
  const auto lookup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lookup_start)
          .count();
  EXPECT_EQ(new_files, 500);
  tracker.reset();
  ASSERT_OK_AND_ASSIGN(tracker, RocksDbFileTracker::Open(dir_ + "/scale", {}));
  EXPECT_EQ(tracker->NumTracked(), kBatches * kPerBatch);
  EXPECT_FALSE(tracker->IsNew({path_of(123'456), 1000, kBase + 123'456, false}));
  const int64_t rss_growth_kb = PeakRssKb() - rss_before;
  // The paths alone are ~10 MB; an in-memory set would hold them all. The store keeps a few MB
  // of memtable and cache.
  // AddressSanitizer's quarantine keeps freed memory resident: the bound holds only without it.
  if (!tributary::testing::kUnderAddressSanitizer) {
    EXPECT_LT(rss_growth_kb, 64 * 1024);
  }
  std::printf(
      "[scale] %d files tracked: %.1f ms per 1000-file trigger to record, %.3f ms per 1000 "
      "lookups, peak RSS growth %lld KB (peak %lld KB)\n",
      kBatches * kPerBatch, add_ms / kBatches, lookup_ms, static_cast<long long>(rss_growth_kb),
      static_cast<long long>(PeakRssKb()));
}

// A real listing with the store: 5,000 files, all taken, then a trigger lists them again and
// takes none; prints the per-trigger cost.
TEST_F(CloudFilesSourceTest, ListingTriggerCostWithManyIngestedFiles) {
  constexpr int kFiles = 5000;
  // Written directly, without WriteFile's fsync per file, to keep the test quick.
  for (int i = 0; i < kFiles; ++i) {
    std::string dir = input_;
    dir.append("/d").append(std::to_string(i % 50));
    std::filesystem::create_directories(dir);
    std::string name = "f";
    name.append(std::to_string(i)).append(".json");
    std::ofstream(std::filesystem::path(dir) / name) << "{\"id\":1}\n";
  }
  auto source = Open(*Define({{"cloudFiles.maxFilesPerTrigger", "100000"}}));
  std::optional<Offset> start;
  EXPECT_EQ(NextFiles(*source, start).size(), static_cast<size_t>(kFiles));
  const auto trigger_start = std::chrono::steady_clock::now();
  EXPECT_THAT(NextFiles(*source, start), IsEmpty());
  const auto trigger_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - trigger_start)
          .count();
  std::printf("[scale] a trigger over %d listed, already-ingested files: %.1f ms\n", kFiles,
              trigger_ms);
}

}  // namespace
}  // namespace tributary::streaming

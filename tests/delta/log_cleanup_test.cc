// Expired log cleanup and log listing: cleanup deletes only whole versions below a checkpoint
// whose older files are all expired, time travel past it names the earliest version left, and
// `_last_checkpoint` shortens the listing without ever deciding the result.

#include "delta/log_cleanup.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_properties.h"
#include "delta/table_reader.h"
#include "delta/table_rows.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;

constexpr int64_t kDay = 24LL * 3600 * 1000;
// A fixed "now" (2026-01-15 12:00 UTC) so that ages do not depend on the clock.
constexpr int64_t kNow = 1768478400000;

// Counts the calls of List and the start_after each used.
class ListingSpy : public storage::FileSystem {
 public:
  explicit ListingSpy(storage::FileSystem& base) : base_(base) {}
  std::vector<std::string> starts;

  Result<std::unique_ptr<storage::RandomAccessFile>> OpenForRead(const std::string& p) override {
    return base_.OpenForRead(p);
  }
  Result<storage::FileInfo> GetFileInfo(const std::string& p) override {
    return base_.GetFileInfo(p);
  }
  Result<std::vector<storage::FileInfo>> List(const std::string& dir,
                                              const storage::ListOptions& options) override {
    starts.push_back(options.start_after);
    return base_.List(dir, options);
  }
  Status CreateDir(const std::string& p) override { return base_.CreateDir(p); }
  Status DeleteFile(const std::string& p) override { return base_.DeleteFile(p); }
  Status DeleteDir(const std::string& p, bool recursive) override {
    return base_.DeleteDir(p, recursive);
  }
  Status Rename(const std::string& a, const std::string& b) override { return base_.Rename(a, b); }
  Status WriteFile(const std::string& p, std::string_view data, storage::WriteMode mode) override {
    return base_.WriteFile(p, data, mode);
  }
  Result<std::unique_ptr<storage::OutputStream>> OpenOutputStream(
      const std::string& p, storage::WriteMode mode) override {
    return base_.OpenOutputStream(p, mode);
  }

 private:
  storage::FileSystem& base_;
};

class LogCleanupTest : public ::testing::Test {
 protected:
  std::string Root() const { return dir_.Join("t"); }
  std::string LogDir() const { return dir_.Join("t/_delta_log"); }
  std::string LogFileName(int64_t version, const char* suffix) const {
    return fmt::format("{}/{:020}{}", LogDir(), version, suffix);
  }

  // Versions 0..versions-1, one row each, with `properties`; a checkpoint every 3 versions.
  void MakeTable(int versions, std::map<std::string, std::string> properties = {}) {
    properties.emplace("delta.checkpointInterval", "3");
    auto schema = testing::MakeSchema({Field("id", DataType::Int64())});
    for (int i = 0; i < versions; ++i) {
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      options.properties = properties;
      auto batch = testing::BatchFromJson(schema, "[[" + std::to_string(i) + "]]").ValueOrDie();
      ASSERT_OK(WriteTable(fs_, Root(), schema, {batch}, options));
    }
  }

  // Sets the modification time of every log file of a version in [first, last] to `ms`.
  void SetAge(int64_t first, int64_t last, int64_t ms) {
    for (const auto& entry : fs::directory_iterator(LogDir())) {
      auto file = ParseLogFileName(entry.path().filename().string());
      if (file && file->version >= first && file->version <= last) {
        struct timespec times[2];
        times[0].tv_sec = times[1].tv_sec = ms / 1000;
        times[0].tv_nsec = times[1].tv_nsec = (ms % 1000) * 1000000;
        ASSERT_EQ(::utimensat(AT_FDCWD, entry.path().c_str(), times, 0), 0);
      }
    }
  }

  std::set<std::string> LogNames() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(LogDir())) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  std::vector<std::string> Rows(std::optional<int64_t> version = {}) {
    return testing::SortedRows(fs_, Root(), version);
  }

  Result<LogCleanupResult> CleanUp(int64_t now_ms = kNow) {
    auto snapshot = Snapshot::Load(fs_, Root());
    if (!snapshot.ok()) {
      return snapshot.status();
    }
    return CleanUpExpiredLogs(fs_, **snapshot, now_ms);
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

TEST(IntervalTest, ParsesSparkIntervals) {
  EXPECT_EQ(ParseIntervalMillis("interval 30 days").ValueOrDie(), 30 * kDay);
  EXPECT_EQ(ParseIntervalMillis("interval 1 week").ValueOrDie(), 7 * kDay);
  EXPECT_EQ(ParseIntervalMillis("INTERVAL 1 day 2 hours").ValueOrDie(),
            kDay + int64_t{2} * 3600000);
  EXPECT_EQ(ParseIntervalMillis("45 minutes").ValueOrDie(), 45 * 60000);
  EXPECT_EQ(ParseIntervalMillis("interval 1500 microseconds").ValueOrDie(), 1);
  ASSERT_RAISES(InvalidArgument, ParseIntervalMillis("interval 1 month"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalMillis("interval"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalMillis("interval thirty days"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalMillis("interval 3"));
}

TEST_F(LogCleanupTest, DeletesWholeVersionsBelowTheNewestCheckpointWhenAllAreExpired) {
  MakeTable(11);  // checkpoints at 3, 6, 9
  ASSERT_OK(fs_.WriteFile(LogFileName(2, ".crc"), "{}", storage::WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(LogDir() + "/00000000000000000001.00000000000000000002.compacted.json",
                          "", storage::WriteMode::kPutIfAbsent));
  const auto rows = Rows();
  SetAge(0, 10, kNow - 40 * kDay);
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_EQ(result.earliest_version, 9);
  std::set<std::string> expected = {"_last_checkpoint", "00000000000000000009.json",
                                    "00000000000000000009.checkpoint.parquet",
                                    "00000000000000000010.json"};
  EXPECT_EQ(LogNames(), expected);
  EXPECT_EQ(result.deleted.size(), 9 + 2 + 2);  // commits 0-8, checkpoints 3 and 6, crc, compaction
  EXPECT_EQ(Rows(), rows);
  EXPECT_EQ(Rows(9).size(), 10u);
  // Time travel before the boundary names the earliest version left.
  auto old = Snapshot::Load(fs_, Root(), 5);
  ASSERT_RAISES(NotFound, old);
  EXPECT_NE(old.status().Message().find("earliest version available is 9"), std::string::npos)
      << old.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(fs_, Root()));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history.front().version, 9);
}

TEST_F(LogCleanupTest, StopsAtTheNewestCheckpointBelowTheFirstUnexpiredFile) {
  MakeTable(11);
  SetAge(0, 4, kNow - 40 * kDay);
  SetAge(5, 10, kNow - 10 * kDay);
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_EQ(result.earliest_version, 3);
  for (int64_t v = 0; v < 3; ++v) {
    EXPECT_FALSE(fs::exists(LogFileName(v, ".json"))) << v;
  }
  for (int64_t v = 3; v <= 10; ++v) {
    EXPECT_TRUE(fs::exists(LogFileName(v, ".json"))) << v;
    EXPECT_EQ(Rows(v).size(), static_cast<size_t>(v + 1)) << v;
  }
  EXPECT_TRUE(fs::exists(LogFileName(3, ".checkpoint.parquet")));
}

TEST_F(LogCleanupTest, KeepsFilesYoungerThanTheDefaultThirtyDays) {
  MakeTable(11);
  SetAge(0, 10, kNow - 29 * kDay);
  ASSERT_OK_AND_ASSIGN(auto kept, CleanUp());
  EXPECT_EQ(kept.earliest_version, -1);
  EXPECT_TRUE(kept.deleted.empty());
  // A day later than the retention the same files go.
  ASSERT_OK_AND_ASSIGN(auto deleted, CleanUp(kNow + 2 * kDay));
  EXPECT_EQ(deleted.earliest_version, 9);
}

TEST_F(LogCleanupTest, FollowsLogRetentionDuration) {
  MakeTable(11, {{"delta.logRetentionDuration", "interval 2 days"}});
  SetAge(0, 10, kNow - 3 * kDay);
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_EQ(result.earliest_version, 9);
}

TEST_F(LogCleanupTest, DoesNothingWhenDisabled) {
  MakeTable(11, {{"delta.enableExpiredLogCleanup", "false"}});
  SetAge(0, 10, kNow - 400 * kDay);
  const auto before = LogNames();
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_TRUE(result.deleted.empty());
  EXPECT_EQ(LogNames(), before);
}

TEST_F(LogCleanupTest, RefusesAnUnparsableRetention) {
  MakeTable(2, {{"delta.logRetentionDuration", "interval 1 month"}});
  auto result = CleanUp();
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_NE(result.status().Message().find("delta.logRetentionDuration"), std::string::npos);
}

TEST_F(LogCleanupTest, NeverDeletesWithoutACheckpoint) {
  MakeTable(3, {{"delta.checkpointInterval", "100"}});
  SetAge(0, 2, kNow - 400 * kDay);
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_TRUE(result.deleted.empty());
  EXPECT_EQ(Rows(0).size(), 1u);
}

TEST_F(LogCleanupTest, IgnoresAnIncompleteMultiPartCheckpoint) {
  MakeTable(8);  // checkpoints at 3 and 6
  ASSERT_OK(fs_.WriteFile(LogFileName(7, ".checkpoint.0000000001.0000000002.parquet"), "x",
                          storage::WriteMode::kPutIfAbsent));
  SetAge(0, 7, kNow - 40 * kDay);
  ASSERT_OK_AND_ASSIGN(auto result, CleanUp());
  EXPECT_EQ(result.earliest_version, 6);
  EXPECT_EQ(Rows(6).size(), 7u);
  EXPECT_EQ(Rows().size(), 8u);
}

TEST_F(LogCleanupTest, RunsAfterTheCheckpointOfACommit) {
  MakeTable(9);
  SetAge(0, 8, kNow - 40 * kDay);
  ASSERT_TRUE(fs::exists(LogFileName(0, ".json")));
  MakeTable(1);  // version 9: checkpoint, then cleanup with the real clock
  EXPECT_FALSE(fs::exists(LogFileName(0, ".json")));
  EXPECT_FALSE(fs::exists(LogFileName(6, ".checkpoint.parquet")));
  EXPECT_TRUE(fs::exists(LogFileName(9, ".checkpoint.parquet")));
  EXPECT_EQ(Rows().size(), 10u);
}

// Log listing with the `_last_checkpoint` hint.

TEST_F(LogCleanupTest, ListsTheLogFromTheHintedCheckpoint) {
  MakeTable(8);  // checkpoint 6 in _last_checkpoint
  ListingSpy spy(fs_);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(spy, Root()));
  EXPECT_EQ(latest->Version(), 7);
  EXPECT_EQ(latest->Segment().checkpoint_version, 6);
  EXPECT_EQ(spy.starts, std::vector<std::string>{"00000000000000000006"});
  // Time travel before the hint lists everything.
  spy.starts.clear();
  ASSERT_OK_AND_ASSIGN(auto old, Snapshot::Load(spy, Root(), 4));
  EXPECT_EQ(old->Segment().checkpoint_version, 3);
  EXPECT_EQ(spy.starts, std::vector<std::string>{""});
}

TEST_F(LogCleanupTest, FallsBackToTheFullListingWhenTheHintIsWrong) {
  MakeTable(8);
  const auto rows = Rows();
  const std::string hint = LogDir() + "/_last_checkpoint";
  const std::vector<std::string> bad_hints = {
      "{\"version\":5,\"size\":7}",   // no checkpoint at 5
      "{\"version\":40,\"size\":7}",  // newer than the log
      "{\"vers",                      // corrupt
      "[1,2]",
      "{\"version\":-3}",
  };
  for (const std::string& text : bad_hints) {
    SCOPED_TRACE(text);
    ASSERT_OK(fs_.WriteFile(hint, text, storage::WriteMode::kReplace));
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root()));
    EXPECT_EQ(snapshot->Version(), 7);
    EXPECT_EQ(snapshot->Segment().checkpoint_version, 6);
    EXPECT_EQ(Rows(), rows);
  }
  // A hint at an older checkpoint still finds the newer one after it.
  ASSERT_OK(fs_.WriteFile(hint, "{\"version\":3,\"size\":5}", storage::WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(auto stale, Snapshot::Load(fs_, Root()));
  EXPECT_EQ(stale->Segment().checkpoint_version, 6);
  // A hint at a checkpoint whose file is gone.
  ASSERT_OK(fs_.WriteFile(hint, "{\"version\":6,\"size\":8}", storage::WriteMode::kReplace));
  ASSERT_OK(fs_.DeleteFile(LogFileName(6, ".checkpoint.parquet")));
  ASSERT_OK_AND_ASSIGN(auto dangling, Snapshot::Load(fs_, Root()));
  EXPECT_EQ(dangling->Segment().checkpoint_version, 3);
  EXPECT_EQ(Rows(), rows);
}

TEST_F(LogCleanupTest, IncompleteMultiPartCheckpointsNeitherCountNorInflateTheLatestVersion) {
  MakeTable(5);  // checkpoint at 3, commits 0..4
  // Part 1 of 2 at version 12 (a checkpointer that died), and the hint pointing at it.
  ASSERT_OK(fs_.WriteFile(LogFileName(12, ".checkpoint.0000000001.0000000002.parquet"), "x",
                          storage::WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(LogDir() + "/_last_checkpoint", "{\"version\":12,\"parts\":2}",
                          storage::WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, Root()));
  EXPECT_EQ(latest->Version(), 4);
  ASSERT_RAISES(NotFound, Snapshot::Load(fs_, Root(), 12));
  // And an incomplete set at a version that has a commit is not used for it.
  ASSERT_OK(fs_.WriteFile(LogFileName(4, ".checkpoint.0000000002.0000000003.parquet"), "x",
                          storage::WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(auto four, Snapshot::Load(fs_, Root(), 4));
  EXPECT_EQ(four->Segment().checkpoint_version, 3);
  EXPECT_EQ(Rows().size(), 5u);
}

TEST_F(LogCleanupTest, AMissingCommitAfterTheCheckpointIsCorruption) {
  MakeTable(8);
  ASSERT_OK(fs_.DeleteFile(LogFileName(5, ".json")));
  auto loaded = Snapshot::Load(fs_, Root(), 5);
  ASSERT_RAISES(Corruption, loaded);
  EXPECT_NE(loaded.status().Message().find("missing_commit: commit 5 missing"), std::string::npos)
      << loaded.status().ToString();
}

}  // namespace
}  // namespace tributary::delta

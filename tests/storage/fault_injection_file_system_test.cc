#include "storage/fault_injection_file_system.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/local_file_system.h"
#include "storage/path.h"
#include "support/file_system_test_util.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::tributary::testing::EntryPaths;

class FaultInjectionFileSystemTest : public ::testing::Test {
 protected:
  std::string Path(std::string_view relative) const { return dir_.Join(relative); }

  /// The file as the wrapped file system holds it, bypassing the injector.
  std::string BaseRead(const std::string& path) {
    Result<std::string> data = base_->ReadFile(path);
    return data.ok() ? *data : fmt::format("<{}>", data.status().ToString());
  }

  bool BaseExists(const std::string& path) { return base_->Exists(path).ValueOr(false); }

  testing::TempDir dir_;
  std::shared_ptr<LocalFileSystem> base_ = std::make_shared<LocalFileSystem>();
  FaultInjectionFileSystem fs_{base_};
};

TEST_F(FaultInjectionFileSystemTest, PassesOperationsThroughWhenNoFaultIsArmed) {
  ASSERT_OK(fs_.CreateDir(Path("d")));
  ASSERT_OK(fs_.WriteFile(Path("d/a"), "alpha", WriteMode::kPutIfAbsent));
  ASSERT_RAISES(AlreadyExists, fs_.WriteFile(Path("d/a"), "beta", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("d/p"), "pointer", WriteMode::kReplace));
  ASSERT_OK(fs_.Rename(Path("d/p"), Path("d/q")));
  ASSERT_OK(fs_.DeleteFile(Path("d/q")));
  ASSERT_OK_AND_ASSIGN(std::string read, fs_.ReadFile(Path("d/a")));
  EXPECT_EQ(read, "alpha");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_.OpenForRead(Path("d/a")));
  ASSERT_OK_AND_ASSIGN(std::string range, file->ReadAt(1, 3));
  EXPECT_EQ(range, "lph");
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(Path("d/a")));
  EXPECT_EQ(info.size, 5);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("d"), {}));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("d/a")));
  ASSERT_OK(fs_.DeleteDir(Path("d"), /*recursive=*/true));
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(Path("d")));
  EXPECT_FALSE(exists);
}

TEST_F(FaultInjectionFileSystemTest, CountsEveryMutationAndStreamCallButNoRead) {
  EXPECT_EQ(fs_.WriteCount(), 0);
  ASSERT_OK(fs_.CreateDir(Path("d")));
  EXPECT_EQ(fs_.WriteCount(), 1);
  ASSERT_OK(fs_.WriteFile(Path("d/a"), "a", WriteMode::kPutIfAbsent));
  EXPECT_EQ(fs_.WriteCount(), 2);
  ASSERT_OK(fs_.ReadFile(Path("d/a")));
  ASSERT_OK(fs_.List(Path("d"), {}));
  ASSERT_OK(fs_.GetFileInfo(Path("d/a")));
  EXPECT_EQ(fs_.WriteCount(), 2);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_.OpenOutputStream(Path("d/s"), WriteMode::kReplace));
  EXPECT_EQ(fs_.WriteCount(), 3);
  ASSERT_OK(stream->Append("x"));
  ASSERT_OK(stream->Append("y"));
  EXPECT_EQ(fs_.WriteCount(), 5);
  ASSERT_OK(stream->Close());
  ASSERT_OK(stream->Close());
  EXPECT_EQ(fs_.WriteCount(), 6);
  ASSERT_OK(fs_.Rename(Path("d/s"), Path("d/t")));
  ASSERT_OK(fs_.DeleteFile(Path("d/t")));
  ASSERT_OK(fs_.DeleteDir(Path("d"), /*recursive=*/true));
  EXPECT_EQ(fs_.WriteCount(), 9);
}

TEST_F(FaultInjectionFileSystemTest, FailNthWriteFailsThatWriteOnlyAndWithoutEffect) {
  for (bool retryable : {false, true}) {
    std::string prefix = retryable ? "r" : "n";
    fs_.FailNthWrite(2, retryable);
    ASSERT_OK(fs_.WriteFile(Path(prefix + "1"), "one", WriteMode::kPutIfAbsent));
    int64_t failing_write = fs_.WriteCount() + 1;
    Status status = fs_.WriteFile(Path(prefix + "2"), "two", WriteMode::kPutIfAbsent);
    ASSERT_RAISES(IOError, status);
    EXPECT_EQ(status.IsRetryable(), retryable);
    EXPECT_THAT(status.Message(), HasSubstr(Path(prefix + "2")));
    EXPECT_THAT(status.Message(), HasSubstr(fmt::format("#{}", failing_write)));
    EXPECT_FALSE(BaseExists(Path(prefix + "2")));
    EXPECT_FALSE(fs_.IsCrashed());
    ASSERT_OK(fs_.WriteFile(Path(prefix + "2"), "two", WriteMode::kPutIfAbsent));
    EXPECT_EQ(BaseRead(Path(prefix + "2")), "two");
  }
}

TEST_F(FaultInjectionFileSystemTest, FailedAppendKillsTheStream) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_.OpenOutputStream(Path("s"), WriteMode::kPutIfAbsent));
  ASSERT_OK(stream->Append("a"));
  fs_.FailNthWrite(1, /*retryable=*/true);
  ASSERT_RAISES(IOError, stream->Append("b"));
  ASSERT_RAISES(InvalidArgument, stream->Close());
  EXPECT_FALSE(BaseExists(Path("s")));
}

TEST_F(FaultInjectionFileSystemTest, TearNotAppliedLeavesTargetAsItWasAndCrashes) {
  ASSERT_OK(fs_.WriteFile(Path("d/pointer"), "old", WriteMode::kReplace));
  fs_.TearNthWrite(1, TornWriteOutcome::kNotApplied);
  Status status = fs_.WriteFile(Path("d/pointer"), "new content", WriteMode::kReplace);
  ASSERT_RAISES(IOError, status);
  EXPECT_FALSE(status.IsRetryable());
  EXPECT_THAT(status.Message(), HasSubstr("simulated crash"));
  EXPECT_THAT(status.Message(), HasSubstr(Path("d/pointer")));
  EXPECT_TRUE(fs_.IsCrashed());
  EXPECT_EQ(BaseRead(Path("d/pointer")), "old");

  // What a crashed writer leaves: a staging file with part of the data.
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> visible, base_->List(Path("d"), {}));
  EXPECT_THAT(EntryPaths(visible), ElementsAre(Path("d/pointer")));
  ListOptions options;
  options.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> all, base_->List(Path("d"), options));
  ASSERT_EQ(all.size(), 2u);
  // Sorted by name: the target, then its staging file ("pointer.<nonce>.tmp").
  EXPECT_TRUE(IsStagingFileName(BaseName(all[1].path))) << all[1].path;
  EXPECT_EQ(BaseRead(all[1].path), "new c");

  fs_.Restart();
  EXPECT_FALSE(fs_.IsCrashed());
  ASSERT_OK(fs_.WriteFile(Path("d/pointer"), "new content", WriteMode::kReplace));
  EXPECT_EQ(BaseRead(Path("d/pointer")), "new content");
}

TEST_F(FaultInjectionFileSystemTest, TearAppliedPublishesButReportsFailure) {
  fs_.TearNthWrite(1, TornWriteOutcome::kApplied);
  Status status = fs_.WriteFile(Path("commit"), "data", WriteMode::kPutIfAbsent);
  ASSERT_RAISES(IOError, status);
  EXPECT_TRUE(fs_.IsCrashed());
  EXPECT_EQ(BaseRead(Path("commit")), "data");
  fs_.Restart();
  // The retry learns that its earlier attempt won.
  ASSERT_RAISES(AlreadyExists, fs_.WriteFile(Path("commit"), "data", WriteMode::kPutIfAbsent));
}

TEST_F(FaultInjectionFileSystemTest, CrashFailsEveryLaterOperationUntilRestart) {
  ASSERT_OK(fs_.WriteFile(Path("f"), "data", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_.OpenForRead(Path("f")));
  int64_t writes = fs_.WriteCount();
  fs_.Crash();
  EXPECT_TRUE(fs_.IsCrashed());
  Status write = fs_.WriteFile(Path("g"), "x", WriteMode::kPutIfAbsent);
  ASSERT_RAISES(IOError, write);
  EXPECT_THAT(write.Message(), HasSubstr(Path("g")));
  ASSERT_RAISES(IOError, fs_.ReadFile(Path("f")));
  ASSERT_RAISES(IOError, fs_.GetFileInfo(Path("f")));
  ASSERT_RAISES(IOError, fs_.List(dir_.Path(), {}));
  ASSERT_RAISES(IOError, fs_.CreateDir(Path("d")));
  ASSERT_RAISES(IOError, fs_.DeleteFile(Path("f")));
  ASSERT_RAISES(IOError, fs_.DeleteDir(Path("d"), true));
  ASSERT_RAISES(IOError, fs_.Rename(Path("f"), Path("h")));
  ASSERT_RAISES(IOError, fs_.OpenOutputStream(Path("s"), WriteMode::kReplace));
  ASSERT_RAISES(IOError, file->ReadAt(0, 1));
  EXPECT_EQ(fs_.WriteCount(), writes);
  EXPECT_FALSE(BaseExists(Path("g")));
  EXPECT_EQ(BaseRead(Path("f")), "data");

  fs_.Restart();
  ASSERT_OK_AND_ASSIGN(std::string read, fs_.ReadFile(Path("f")));
  EXPECT_EQ(read, "data");
  // A file opened before the crash belongs to the dead process.
  ASSERT_RAISES(IOError, file->ReadAt(0, 1));
}

TEST_F(FaultInjectionFileSystemTest, StreamOpenBeforeCrashNeverPublishesItsUnsyncedData) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_.OpenOutputStream(Path("data/part-0"), WriteMode::kPutIfAbsent));
  ASSERT_OK(stream->Append("appended but never synced"));
  fs_.Crash();
  fs_.Restart();
  Status status = stream->Close();
  ASSERT_RAISES(IOError, status);
  EXPECT_THAT(status.Message(), HasSubstr("before a simulated crash"));
  EXPECT_FALSE(BaseExists(Path("data/part-0")));
  ListOptions options;
  options.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, base_->List(Path("data"), options));
  EXPECT_TRUE(entries.empty());
}

TEST_F(FaultInjectionFileSystemTest, TornStreamCloseObeysOutcome) {
  for (TornWriteOutcome outcome : {TornWriteOutcome::kNotApplied, TornWriteOutcome::kApplied}) {
    std::string path = Path(outcome == TornWriteOutcome::kApplied ? "applied" : "not_applied");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_.OpenOutputStream(path, WriteMode::kPutIfAbsent));
    ASSERT_OK(stream->Append("part one, "));
    ASSERT_OK(stream->Append("part two"));
    fs_.TearNthWrite(1, outcome);
    ASSERT_RAISES(IOError, stream->Close());
    EXPECT_TRUE(fs_.IsCrashed());
    if (outcome == TornWriteOutcome::kApplied) {
      EXPECT_EQ(BaseRead(path), "part one, part two");
    } else {
      EXPECT_FALSE(BaseExists(path));
    }
    fs_.Restart();
  }
}

TEST_F(FaultInjectionFileSystemTest, LoseNextPutIfAbsentPublishesTheWinnerOnce) {
  fs_.LoseNextPutIfAbsent("the other writer's commit");
  ASSERT_OK(fs_.WriteFile(Path("pointer"), "replace is not affected", WriteMode::kReplace));
  Status status = fs_.WriteFile(Path("00.json"), "our commit", WriteMode::kPutIfAbsent);
  ASSERT_RAISES(AlreadyExists, status);
  EXPECT_THAT(status.Message(), HasSubstr(Path("00.json")));
  ASSERT_OK_AND_ASSIGN(std::string read, fs_.ReadFile(Path("00.json")));
  EXPECT_EQ(read, "the other writer's commit");
  ASSERT_OK(fs_.WriteFile(Path("01.json"), "our commit", WriteMode::kPutIfAbsent));

  fs_.LoseNextPutIfAbsent("competing stream");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_.OpenOutputStream(Path("02.json"), WriteMode::kPutIfAbsent));
  ASSERT_OK(stream->Append("ours"));
  ASSERT_RAISES(AlreadyExists, stream->Close());
  EXPECT_EQ(BaseRead(Path("02.json")), "competing stream");
}

TEST_F(FaultInjectionFileSystemTest, ClearFaultsDisarmsEverything) {
  fs_.FailNthWrite(1, false);
  fs_.LoseNextPutIfAbsent("winner");
  fs_.ClearFaults();
  ASSERT_OK(fs_.WriteFile(Path("a"), "mine", WriteMode::kPutIfAbsent));
  EXPECT_EQ(BaseRead(Path("a")), "mine");
  fs_.TearNthWrite(1, TornWriteOutcome::kApplied);
  fs_.ClearFaults();
  ASSERT_OK(fs_.WriteFile(Path("b"), "mine", WriteMode::kPutIfAbsent));
  EXPECT_FALSE(fs_.IsCrashed());
}

TEST_F(FaultInjectionFileSystemTest, CountsWritesFromConcurrentThreads) {
  constexpr int kThreads = 4;
  constexpr int kWritesEach = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWritesEach; ++i) {
        if (!fs_.WriteFile(Path(fmt::format("t{}/{}", t, i)), "x", WriteMode::kPutIfAbsent).ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(fs_.WriteCount(), kThreads * kWritesEach);
}

/// One file a crash-safety workload writes, and every content it may legitimately hold.
struct Target {
  std::string relative_path;
  WriteMode mode;
  bool via_stream;
  std::vector<std::string> versions;
};

/// A commit protocol in miniature: commits (put-if-absent), a data file streamed in pieces, a
/// pointer replaced twice and an offsets file streamed with put-if-absent.
std::vector<Target> Workload() {
  return {
      {"_delta_log/00000000000000000000.json",
       WriteMode::kPutIfAbsent,
       false,
       {std::string(5000, 'a') + "commit 0"}},
      {"part-00000.parquet", WriteMode::kPutIfAbsent, true, {std::string(300000, 'p') + "PAR1"}},
      {"_delta_log/00000000000000000001.json",
       WriteMode::kPutIfAbsent,
       false,
       {std::string(7000, 'b') + "commit 1"}},
      {"_delta_log/_last_checkpoint",
       WriteMode::kReplace,
       false,
       {"{\"version\":0}", "{\"version\":1,\"size\":2}"}},
      {"checkpoint/offsets/0",
       WriteMode::kPutIfAbsent,
       true,
       {"v1\n{\"batchWatermarkMs\":0}\n{\"offset\":42}"}},
  };
}

/// Writes `data` as the whole file at `path` in three appends.
Status StreamFile(FileSystem& fs, const std::string& path, const std::string& data,
                  WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<OutputStream> stream, fs.OpenOutputStream(path, mode));
  size_t third = data.size() / 3;
  TRIBUTARY_RETURN_NOT_OK(stream->Append(std::string_view(data).substr(0, third)));
  TRIBUTARY_RETURN_NOT_OK(stream->Append(std::string_view(data).substr(third, third)));
  TRIBUTARY_RETURN_NOT_OK(stream->Append(std::string_view(data).substr(2 * third)));
  return stream->Close();
}

/// Runs the workload, idempotently: a put-if-absent that finds its own complete content in
/// place (an earlier attempt took effect) counts as done.
Status RunWorkload(FileSystem& fs, const testing::TempDir& dir) {
  for (const Target& target : Workload()) {
    std::string path = dir.Join(target.relative_path);
    for (const std::string& data : target.versions) {
      Status status = target.via_stream ? StreamFile(fs, path, data, target.mode)
                                        : fs.WriteFile(path, data, target.mode);
      if (status.IsAlreadyExists()) {
        TRIBUTARY_ASSIGN_OR_RAISE(std::string existing, fs.ReadFile(path));
        if (existing == data) {
          continue;
        }
      }
      TRIBUTARY_RETURN_NOT_OK(status);
    }
  }
  return Status::OK();
}

/// Checks guarantee 2: every target is absent or holds one of its versions whole, and listings
/// show nothing else.
void ExpectOnlyCompleteFiles(FileSystem& fs, const testing::TempDir& dir,
                             const std::string& context) {
  std::vector<std::string> expected_visible;
  for (const Target& target : Workload()) {
    std::string path = dir.Join(target.relative_path);
    Result<std::string> data = fs.ReadFile(path);
    if (data.status().IsNotFound()) {
      continue;
    }
    ASSERT_OK(data);
    bool complete = false;
    for (const std::string& version : target.versions) {
      complete = complete || *data == version;
    }
    EXPECT_TRUE(complete) << context << ": '" << path << "' holds " << data->size()
                          << " bytes that are no complete version";
    expected_visible.push_back(path);
  }
  ListOptions options;
  options.recursive = true;
  Result<std::vector<FileInfo>> listed = fs.List(dir.Path(), options);
  ASSERT_OK(listed);
  std::sort(expected_visible.begin(), expected_visible.end());
  EXPECT_EQ(EntryPaths(*listed), expected_visible) << context;
}

enum class Fault { kFail, kFailRetryable, kTearNotApplied, kTearApplied };

std::string FaultName(const ::testing::TestParamInfo<Fault>& info) {
  switch (info.param) {
    case Fault::kFail:
      return "Fail";
    case Fault::kFailRetryable:
      return "FailRetryable";
    case Fault::kTearNotApplied:
      return "TearNotApplied";
    case Fault::kTearApplied:
      return "TearApplied";
  }
  return "Unknown";
}

class CrashSafetyTest : public ::testing::TestWithParam<Fault> {};

TEST_P(CrashSafetyTest, FaultAtEveryWriteLeavesOnlyCompleteFilesAndRetrySucceeds) {
  int64_t clean_writes = 0;
  {
    testing::TempDir dir;
    FaultInjectionFileSystem fs(std::make_shared<LocalFileSystem>());
    ASSERT_OK(RunWorkload(fs, dir));
    clean_writes = fs.WriteCount();
    ExpectOnlyCompleteFiles(fs, dir, "clean run");
  }
  // 4 whole-file writes, and 2 streams of 5 writes each (open, 3 appends, close).
  ASSERT_EQ(clean_writes, 14);

  for (int64_t n = 1; n <= clean_writes; ++n) {
    std::string context = fmt::format("fault at write #{} of {}", n, clean_writes);
    testing::TempDir dir;
    FaultInjectionFileSystem fs(std::make_shared<LocalFileSystem>());
    switch (GetParam()) {
      case Fault::kFail:
      case Fault::kFailRetryable:
        fs.FailNthWrite(n, GetParam() == Fault::kFailRetryable);
        break;
      case Fault::kTearNotApplied:
        fs.TearNthWrite(n, TornWriteOutcome::kNotApplied);
        break;
      case Fault::kTearApplied:
        fs.TearNthWrite(n, TornWriteOutcome::kApplied);
        break;
    }
    SCOPED_TRACE(context);
    Status status = RunWorkload(fs, dir);
    ASSERT_RAISES(IOError, status);
    EXPECT_EQ(fs.WriteCount(), n) << context << ": the workload went on after the fault";
    fs.Restart();
    ExpectOnlyCompleteFiles(fs, dir, context);

    ASSERT_OK(RunWorkload(fs, dir));
    ExpectOnlyCompleteFiles(fs, dir, context + ", after retry");
    for (const Target& target : Workload()) {
      ASSERT_OK_AND_ASSIGN(std::string data, fs.ReadFile(dir.Join(target.relative_path)));
      EXPECT_TRUE(data == target.versions.back()) << context << ": " << target.relative_path;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllFaults, CrashSafetyTest,
                         ::testing::Values(Fault::kFail, Fault::kFailRetryable,
                                           Fault::kTearNotApplied, Fault::kTearApplied),
                         FaultName);

}  // namespace
}  // namespace tributary::storage

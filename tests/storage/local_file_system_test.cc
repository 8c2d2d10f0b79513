// LocalFileSystem beyond the FileSystem contract (file_system_contract_test.cc runs that on every
// implementation): POSIX reasons in errors, modification times, FIFOs, symbolic links, staging
// files, races across processes, writes failing midway and killed writers.

#include "storage/local_file_system.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/path.h"
#include "support/file_system_test_util.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::tributary::testing::EntryPaths;
using ::tributary::testing::RepeatedContent;

/// The file's bytes read with the standard library, independent of the code under test.
std::string RawRead(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool RawExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

/// Sets the modification time of `path` to `ms` milliseconds after the epoch.
void SetModificationTimeMs(const std::string& path, int64_t ms) {
  struct timespec times[2];
  times[0].tv_sec = ms / 1000;
  times[0].tv_nsec = (ms % 1000) * 1000000;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

class LocalFileSystemTest : public ::testing::Test {
 protected:
  std::string Path(std::string_view relative) const { return dir_.Join(relative); }

  testing::TempDir dir_;
  LocalFileSystem fs_;
};

TEST_F(LocalFileSystemTest, ReadFileOfMissingPathIsNotFoundNamingPath) {
  std::string path = Path("missing.json");
  Result<std::string> read = fs_.ReadFile(path);
  ASSERT_RAISES(NotFound, read);
  EXPECT_THAT(read.status().Message(), HasSubstr(path));
  EXPECT_THAT(read.status().Message(), HasSubstr("No such file or directory"));
}

TEST_F(LocalFileSystemTest, ReadPastEndOfFileIsInvalidArgumentNamingPathAndOffset) {
  std::string path = Path("short");
  ASSERT_OK(fs_.WriteFile(path, "12345", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_.OpenForRead(path));

  Result<std::string> read = file->ReadAt(3, 4);
  ASSERT_RAISES(InvalidArgument, read);
  EXPECT_THAT(read.status().Message(), HasSubstr(path));
  EXPECT_THAT(read.status().Message(), HasSubstr("offset 3"));
  EXPECT_THAT(read.status().Message(), HasSubstr("ends at byte 5"));

  ASSERT_RAISES(InvalidArgument, file->ReadAt(6, 0));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(-1, 1));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(0, -1));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(1, INT64_MAX));

  std::string buffer(4, '\0');
  Status status = file->ReadInto(2, std::span<char>(buffer.data(), buffer.size()));
  ASSERT_RAISES(InvalidArgument, status);
  EXPECT_THAT(status.Message(), HasSubstr("offset 2"));
  EXPECT_THAT(status.Message(), HasSubstr(path));
}

TEST_F(LocalFileSystemTest, OpenForReadOfDirectoryFailsNamingPath) {
  Result<std::unique_ptr<RandomAccessFile>> file = fs_.OpenForRead(dir_.Path());
  ASSERT_RAISES(IOError, file);
  EXPECT_THAT(file.status().Message(), HasSubstr(dir_.Path()));
  ASSERT_RAISES(NotFound, fs_.OpenForRead(Path("missing")));
}

TEST_F(LocalFileSystemTest, FifoIsListedAsSpecialAndRefusedByOpenForReadWithoutBlocking) {
  ASSERT_OK(fs_.WriteFile(Path("land/a.json"), "{}", WriteMode::kPutIfAbsent));
  ASSERT_EQ(::mkfifo(Path("land/pipe.json").c_str(), 0644), 0);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("land"), {}));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0].is_special);
  EXPECT_TRUE(entries[1].is_special);
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(Path("land/pipe.json")));
  EXPECT_TRUE(info.is_special);
  // In a child with a deadline: opening a FIFO that has no writer used to wait forever.
  const std::string fifo = Path("land/pipe.json");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(20);
    LocalFileSystem fs;
    Result<std::unique_ptr<RandomAccessFile>> file = fs.OpenForRead(fifo);
    const bool refused = file.status().IsInvalidArgument() &&
                         file.status().Message().find("not a regular file") != std::string::npos &&
                         file.status().Message().find(fifo) != std::string::npos;
    ::_exit(refused ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus)) << "the child was killed by signal " << WTERMSIG(wstatus)
                                  << " (SIGALRM: it blocked opening the FIFO)";
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
}

TEST_F(LocalFileSystemTest, FileUrisNameLocalPathsAndOtherSchemesAreRefused) {
  ASSERT_OK(fs_.WriteFile("file://" + Path("u/a.txt"), "via uri", WriteMode::kPutIfAbsent));
  EXPECT_EQ(RawRead(Path("u/a.txt")), "via uri");
  ASSERT_OK_AND_ASSIGN(std::string text, fs_.ReadFile("file:" + Path("u/a.txt")));
  EXPECT_EQ(text, "via uri");
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List("file://" + Path("u"), {}));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("u/a.txt")));
  for (const std::string& uri :
       {std::string("s3://bucket/land"), std::string("abfss://c@a/x"), std::string("gs://b/k")}) {
    Result<std::vector<FileInfo>> listed = fs_.List(uri, {});
    ASSERT_RAISES(InvalidArgument, listed);
    EXPECT_THAT(listed.status().Message(), HasSubstr("unsupported URI scheme"));
    EXPECT_THAT(listed.status().Message(), HasSubstr(uri));
    ASSERT_RAISES(InvalidArgument, fs_.GetFileInfo(uri));
    ASSERT_RAISES(InvalidArgument, fs_.CreateDir(uri));
    ASSERT_RAISES(InvalidArgument, fs_.WriteFile(uri + "/f", "x", WriteMode::kReplace));
  }
  // Nothing was created under a directory named after the scheme.
  EXPECT_FALSE(RawExists("s3:"));
}

TEST_F(LocalFileSystemTest, RejectsEmptyAndDirectoryPaths) {
  ASSERT_RAISES(InvalidArgument, fs_.WriteFile("", "x", WriteMode::kReplace));
  ASSERT_RAISES(InvalidArgument, fs_.WriteFile(Path("dir/"), "x", WriteMode::kReplace));
  ASSERT_RAISES(InvalidArgument, fs_.OpenOutputStream("/", WriteMode::kReplace));
  ASSERT_RAISES(InvalidArgument, fs_.GetFileInfo(""));
  ASSERT_RAISES(InvalidArgument, fs_.List("", {}));
}

TEST_F(LocalFileSystemTest, GetFileInfoReportsSizeModificationTimeAndKind) {
  std::string path = Path("sub/file");
  ASSERT_OK(fs_.WriteFile(path, "hello", WriteMode::kPutIfAbsent));
  SetModificationTimeMs(path, 1700000000123);
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(path));
  EXPECT_EQ(info, (FileInfo{path, 5, 1700000000123, false}));

  SetModificationTimeMs(Path("sub"), 1600000000456);
  ASSERT_OK_AND_ASSIGN(FileInfo dir_info, fs_.GetFileInfo(Path("sub")));
  EXPECT_EQ(dir_info, (FileInfo{Path("sub"), 0, 1600000000456, true}));

  Result<FileInfo> missing = fs_.GetFileInfo(Path("nope"));
  ASSERT_RAISES(NotFound, missing);
  EXPECT_THAT(missing.status().Message(), HasSubstr(Path("nope")));
}

TEST_F(LocalFileSystemTest, ListReturnsImmediateChildrenSortedWithSizesAndTimes) {
  ASSERT_OK(fs_.WriteFile(Path("t/b.json"), "bb", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("t/a.json"), "a", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("t/_delta_log/0.json"), "{}", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("t/c.json"), "ccc", WriteMode::kPutIfAbsent));
  SetModificationTimeMs(Path("t/a.json"), 1000);
  SetModificationTimeMs(Path("t/b.json"), 2000);
  SetModificationTimeMs(Path("t/c.json"), 3000);
  SetModificationTimeMs(Path("t/_delta_log"), 4000);

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("t"), {}));
  EXPECT_THAT(entries, ElementsAre(FileInfo{Path("t/_delta_log"), 0, 4000, true},
                                   FileInfo{Path("t/a.json"), 1, 1000, false},
                                   FileInfo{Path("t/b.json"), 2, 2000, false},
                                   FileInfo{Path("t/c.json"), 3, 3000, false}));

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> with_slash, fs_.List(Path("t/"), {}));
  EXPECT_EQ(with_slash, entries);
}

TEST_F(LocalFileSystemTest, ListHidesStagingFilesUnlessAsked) {
  ASSERT_OK(fs_.WriteFile(Path("d/visible"), "x", WriteMode::kPutIfAbsent));
  std::string staging = StagingPath(Path("d/visible2"), 0xabcdef);
  EXPECT_EQ(staging, Path("d/visible2.0000000000abcdef.tmp"));
  ASSERT_OK(fs_.WriteFile(staging, "partial", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("d/.hidden_but_ours_to_list"), "x", WriteMode::kPutIfAbsent));

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("d"), {}));
  EXPECT_THAT(EntryPaths(entries),
              ElementsAre(Path("d/.hidden_but_ours_to_list"), Path("d/visible")));

  ListOptions options;
  options.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(entries, fs_.List(Path("d"), options));
  EXPECT_THAT(EntryPaths(entries),
              ElementsAre(Path("d/.hidden_but_ours_to_list"), Path("d/visible"), staging));
}

TEST(StagingFileNameTest, StagingKeepsTheTargetsVisibility) {
  EXPECT_EQ(StagingPath("/t/p=1/part-0.parquet", 0xab),
            "/t/p=1/part-0.parquet.00000000000000ab.tmp");
  EXPECT_EQ(StagingPath("/t/_delta_log/00001.json", 1),
            "/t/_delta_log/.00001.json.0000000000000001.tmp");
  EXPECT_EQ(StagingPath("/t/.hidden", 2), "/t/..hidden.0000000000000002.tmp");
  EXPECT_EQ(StagingPath("/t/_last_checkpoint", 3), "/t/._last_checkpoint.0000000000000003.tmp");
  EXPECT_EQ(StagingTargetName("part-0.parquet.00000000000000ab.tmp"), "part-0.parquet");
  EXPECT_EQ(StagingTargetName(".00001.json.0000000000000001.tmp"), "00001.json");
  EXPECT_EQ(StagingTargetName("part-0.parquet"), "");
}

TEST(StagingFileNameTest, RecognizesOnlyTheStagingShape) {
  EXPECT_TRUE(IsStagingFileName(".x.0123456789abcdef.tmp"));
  EXPECT_TRUE(IsStagingFileName(".00001.json.0123456789abcdef.tmp"));
  EXPECT_TRUE(IsStagingFileName("x.0123456789abcdef.tmp"));
  EXPECT_FALSE(IsStagingFileName("_x.0123456789abcdef.tmp"));
  EXPECT_FALSE(IsStagingFileName(".0123456789abcdef.tmp"));
  EXPECT_FALSE(IsStagingFileName("..0123456789abcdef.tmp"));
  EXPECT_FALSE(IsStagingFileName(".x.0123456789abcdeg.tmp"));
  EXPECT_FALSE(IsStagingFileName(".x.0123456789ABCDEF.tmp"));
  EXPECT_FALSE(IsStagingFileName(".x.0123456789abcdef.tmpx"));
  EXPECT_FALSE(IsStagingFileName(".x_0123456789abcdef.tmp"));
  EXPECT_FALSE(IsStagingFileName(".tmp"));
}

TEST_F(LocalFileSystemTest, ListOfMissingDirectoryIsNotFoundAndEmptyDirectoryIsEmpty) {
  Result<std::vector<FileInfo>> missing = fs_.List(Path("missing"), {});
  ASSERT_RAISES(NotFound, missing);
  EXPECT_THAT(missing.status().Message(), HasSubstr(Path("missing")));
  ASSERT_OK(fs_.CreateDir(Path("empty")));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("empty"), {}));
  EXPECT_TRUE(entries.empty());
}

TEST_F(LocalFileSystemTest, CreateDirCreatesParentsAndAcceptsExisting) {
  ASSERT_OK(fs_.CreateDir(Path("a/b/c")));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.GetFileInfo(Path("a/b/c")));
  EXPECT_TRUE(info.is_directory);
  ASSERT_OK(fs_.CreateDir(Path("a/b/c")));
  ASSERT_OK(fs_.CreateDir(Path("a/b/c/")));
}

TEST_F(LocalFileSystemTest, CreateDirOverFileIsAlreadyExists) {
  ASSERT_OK(fs_.WriteFile(Path("file"), "x", WriteMode::kPutIfAbsent));
  Status status = fs_.CreateDir(Path("file"));
  ASSERT_RAISES(AlreadyExists, status);
  EXPECT_THAT(status.Message(), HasSubstr(Path("file")));
  ASSERT_RAISES(AlreadyExists, fs_.CreateDir(Path("file/sub")));
}

TEST_F(LocalFileSystemTest, DeleteDirNeedsRecursiveForNonEmptyDirectory) {
  ASSERT_OK(fs_.WriteFile(Path("d/x/y"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.WriteFile(Path("d/z"), "2", WriteMode::kPutIfAbsent));
  Status status = fs_.DeleteDir(Path("d"), /*recursive=*/false);
  ASSERT_RAISES(IOError, status);
  EXPECT_THAT(status.Message(), HasSubstr(Path("d")));
  EXPECT_TRUE(RawExists(Path("d/x/y")));

  ASSERT_OK(fs_.DeleteDir(Path("d"), /*recursive=*/true));
  EXPECT_FALSE(RawExists(Path("d")));
  ASSERT_RAISES(NotFound, fs_.DeleteDir(Path("d"), /*recursive=*/true));

  ASSERT_OK(fs_.CreateDir(Path("e")));
  ASSERT_OK(fs_.DeleteDir(Path("e"), /*recursive=*/false));
  EXPECT_FALSE(RawExists(Path("e")));
}

TEST_F(LocalFileSystemTest, DeleteDirRecursiveDoesNotFollowSymbolicLinks) {
  ASSERT_OK(fs_.WriteFile(Path("outside/precious"), "keep me", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.CreateDir(Path("d")));
  ASSERT_EQ(::symlink(Path("outside").c_str(), Path("d/link").c_str()), 0);
  ASSERT_OK(fs_.DeleteDir(Path("d"), /*recursive=*/true));
  EXPECT_FALSE(RawExists(Path("d")));
  EXPECT_EQ(RawRead(Path("outside/precious")), "keep me");
}

TEST_F(LocalFileSystemTest, RenameMovesDirectory) {
  ASSERT_OK(fs_.WriteFile(Path("a/f"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_.Rename(Path("a"), Path("b")));
  EXPECT_EQ(RawRead(Path("b/f")), "1");
  EXPECT_FALSE(RawExists(Path("a")));
}

TEST_F(LocalFileSystemTest, WriteFileUnderAFileFails) {
  ASSERT_OK(fs_.WriteFile(Path("file"), "x", WriteMode::kPutIfAbsent));
  Status status = fs_.WriteFile(Path("file/child"), "y", WriteMode::kPutIfAbsent);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.Message(), HasSubstr(Path("file")));
}

TEST_F(LocalFileSystemTest, OutputStreamPublishesOnlyOnClose) {
  std::string path = Path("data/part-00000.parquet");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_.OpenOutputStream(path, WriteMode::kPutIfAbsent));
  EXPECT_EQ(stream->Path(), path);
  // Small appends are buffered, large ones bypass the buffer: the order must survive both.
  std::string expected;
  for (int i = 0; i < 50; ++i) {
    std::string piece =
        (i % 7 == 0) ? RepeatedContent(std::to_string(i), 200000) : std::to_string(i);
    ASSERT_OK(stream->Append(piece));
    expected += piece;
  }
  EXPECT_EQ(stream->Position(), static_cast<int64_t>(expected.size()));
  EXPECT_FALSE(RawExists(path));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> visible, fs_.List(Path("data"), {}));
  EXPECT_TRUE(visible.empty());

  ASSERT_OK(stream->Close());
  EXPECT_EQ(RawRead(path), expected);
  ASSERT_OK(stream->Close());
  ASSERT_RAISES(InvalidArgument, stream->Append("more"));
  ListOptions options;
  options.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("data"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(path));
}

TEST_F(LocalFileSystemTest, AbandonedOutputStreamLeavesNothing) {
  ListOptions options;
  options.include_staging_files = true;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_.OpenOutputStream(Path("d/destroyed"), WriteMode::kPutIfAbsent));
    ASSERT_OK(stream->Append(RepeatedContent("x", 100000)));
    ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> staged, fs_.List(Path("d"), options));
    EXPECT_EQ(staged.size(), 1u);
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> aborted,
                       fs_.OpenOutputStream(Path("d/aborted"), WriteMode::kReplace));
  ASSERT_OK(aborted->Append("abc"));
  ASSERT_OK(aborted->Abort());
  ASSERT_RAISES(InvalidArgument, aborted->Close());
  ASSERT_RAISES(InvalidArgument, aborted->Append("x"));
  ASSERT_OK(aborted->Abort());

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("d"), options));
  EXPECT_TRUE(entries.empty()) << entries.size();
}

/// The exit code of a killed writer's child that failed before it was killed.
constexpr int kFailed = 2;

/// What a child that ran out of file-size quota reports to its parent.
constexpr int kFailedAsExpected = 0;
constexpr int kWrongOutcome = 1;

/// Runs `body` in a child limited to files of 4096 bytes, so a larger write fails midway with
/// EFBIG like a full disk would; returns the child's exit code.
template <typename Body>
int RunWithFileSizeLimit(Body body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::_exit(body());
  }
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 100;
}

TEST_F(LocalFileSystemTest, WriteFailingMidwayLeavesTargetUntouchedAndNoStagingFile) {
  std::string big = RepeatedContent("0123456789", 1 << 20);
  ASSERT_OK(fs_.WriteFile(Path("d/pointer"), "old pointer", WriteMode::kReplace));
  for (WriteMode mode : {WriteMode::kPutIfAbsent, WriteMode::kReplace}) {
    std::string path = Path(mode == WriteMode::kPutIfAbsent ? "d/commit" : "d/pointer");
    int code = RunWithFileSizeLimit([&] {
      LocalFileSystem fs;
      Status status = fs.WriteFile(path, big, mode);
      bool expected = status.IsIOError() && status.Message().find(path) != std::string::npos &&
                      status.Message().find("File too large") != std::string::npos;
      return expected ? kFailedAsExpected : kWrongOutcome;
    });
    EXPECT_EQ(code, kFailedAsExpected);
  }
  int stream_code = RunWithFileSizeLimit([&] {
    LocalFileSystem fs;
    Result<std::unique_ptr<OutputStream>> stream =
        fs.OpenOutputStream(Path("d/stream"), WriteMode::kPutIfAbsent);
    if (!stream.ok()) {
      return kWrongOutcome;
    }
    Status status;
    for (int i = 0; i < 100 && status.ok(); ++i) {
      status = (*stream)->Append(big.substr(0, 1000));
    }
    if (status.ok()) {
      status = (*stream)->Close();
    }
    bool dead = !(*stream)->Close().ok();
    return status.IsIOError() && dead ? kFailedAsExpected : kWrongOutcome;
  });
  EXPECT_EQ(stream_code, kFailedAsExpected);

  EXPECT_FALSE(RawExists(Path("d/commit")));
  EXPECT_FALSE(RawExists(Path("d/stream")));
  EXPECT_EQ(RawRead(Path("d/pointer")), "old pointer");
  ListOptions options;
  options.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_.List(Path("d"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("d/pointer")));
  ASSERT_OK(fs_.WriteFile(Path("d/commit"), big, WriteMode::kPutIfAbsent));
  EXPECT_TRUE(RawRead(Path("d/commit")) == big);
}

TEST_F(LocalFileSystemTest, KilledWriterLeavesOnlyCompleteFiles) {
  // A child alternately commits a version and replaces a pointer. Before each write, with the
  // data already built, it tells the parent, which kills it on the k-th such message: so the
  // kill lands inside the k-th write. Every file that exists afterwards must be whole.
  constexpr size_t kSize = 1 << 20;
  auto commit = [](int version) {
    return RepeatedContent(fmt::format("commit {};", version), kSize);
  };
  auto pointer = [](int version) {
    return RepeatedContent(fmt::format("pointer {};", version), kSize);
  };
  for (int kill_at = 1; kill_at <= 8; ++kill_at) {
    SCOPED_TRACE(fmt::format("killed during write #{}", kill_at));
    std::string log = Path(fmt::format("round{}/_delta_log", kill_at));
    std::string pointer_path = JoinPath(log, "_last_checkpoint");
    int reports[2];
    ASSERT_EQ(::pipe(reports), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(reports[0]);
      LocalFileSystem fs;
      char byte = 'w';
      for (int version = 0;; ++version) {
        std::string data = commit(version);
        std::string name = JoinPath(log, fmt::format("{:020}.json", version));
        if (::write(reports[1], &byte, 1) != 1 ||
            !fs.WriteFile(name, data, WriteMode::kPutIfAbsent).ok()) {
          ::_exit(kFailed);
        }
        data = pointer(version);
        if (::write(reports[1], &byte, 1) != 1 ||
            !fs.WriteFile(pointer_path, data, WriteMode::kReplace).ok()) {
          ::_exit(kFailed);
        }
      }
    }
    ::close(reports[1]);
    int announced = 0;
    char byte;
    while (announced < kill_at && ::read(reports[0], &byte, 1) == 1) {
      ++announced;
    }
    ::kill(pid, SIGKILL);
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    ::close(reports[0]);
    ASSERT_EQ(announced, kill_at) << "the writer failed before being killed";
    ASSERT_TRUE(WIFSIGNALED(wstatus));

    Result<std::vector<FileInfo>> entries = fs_.List(log, {});
    if (entries.status().IsNotFound()) {
      continue;  // Killed before the first write created the directory.
    }
    ASSERT_OK(entries);
    int latest = -1;
    for (const FileInfo& entry : *entries) {
      if (BaseName(entry.path) != "_last_checkpoint") {
        int version = std::stoi(std::string(BaseName(entry.path)));
        EXPECT_TRUE(RawRead(entry.path) == commit(version)) << entry.path << " is torn";
        latest = std::max(latest, version);
      }
    }
    EXPECT_GE(latest, (kill_at - 1) / 2 - 1);
    if (RawExists(pointer_path)) {
      std::string last = RawRead(pointer_path);
      EXPECT_TRUE(last == pointer(latest) || last == pointer(latest - 1)) << "the pointer is torn";
    }
    // What the killed writer left behind does not stand in the way of the next commit.
    std::string next = JoinPath(log, fmt::format("{:020}.json", latest + 1));
    ASSERT_OK(fs_.WriteFile(next, commit(latest + 1), WriteMode::kPutIfAbsent));
  }
}

}  // namespace
}  // namespace tributary::storage

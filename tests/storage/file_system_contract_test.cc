// The FileSystem contract (storage/file_system.h, guarantees 1-8) as one suite run on every
// implementation: the local disk and S3 (S3FileSystem against the moto server). Each instance
// checks what it wrote through a reader independent of the code under test: the standard
// library on local files, the AWS SDK for JavaScript on S3 (support/s3_test_server.h).
//
// What only one implementation does (POSIX errors, symbolic links, FIFOs, staging files, fault
// injection) is tested beside it: local_file_system_test.cc, s3_file_system_test.cc.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/aws_config.h"
#include "storage/file_system.h"
#include "storage/local_file_system.h"
#include "storage/s3_file_system.h"
#include "support/file_system_test_util.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::tributary::testing::EntryPaths;
using ::tributary::testing::RepeatedContent;

constexpr const char* kBucket = "contract";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class FileSystemContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (IsS3()) {
      testing::S3TestServer& server = testing::S3TestServer::Get();
      server.Reset();
      server.CreateBucket(kBucket);
      std::map<std::string, std::string> options = server.Options();
      // Streams above 5 MiB (S3's smallest part) go multipart, so the stream tests below cover
      // both single PUTs and multipart uploads.
      options["fs.s3a.multipart.threshold"] = "5M";
      options["fs.s3a.multipart.size"] = "5M";
      // Nothing from this machine's environment or ~/.aws: only the options above.
      Result<S3Config> config =
          ResolveS3Config(options, [](const std::string&) { return std::optional<std::string>(); });
      ASSERT_OK(config);
      s3_config_ = *config;
      Result<std::shared_ptr<S3FileSystem>> s3 = S3FileSystem::Make(*config);
      ASSERT_OK(s3);
      s3_ = *s3;
      fs_ = s3_;
      root_ = fmt::format("s3://{}/root", kBucket);
    } else {
      fs_ = std::make_shared<LocalFileSystem>();
      root_ = dir_.Path() + "/root";
    }
  }

  bool IsS3() const { return GetParam() == "s3"; }

  /// A FileSystem of this test's kind sharing nothing with fs_: what another process makes.
  Result<std::shared_ptr<FileSystem>> NewFileSystem() const {
    if (IsS3()) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<S3FileSystem> s3, S3FileSystem::Make(s3_config_));
      return std::shared_ptr<FileSystem>(std::move(s3));
    }
    return std::shared_ptr<FileSystem>(std::make_shared<LocalFileSystem>());
  }

  std::string Path(std::string_view relative) const { return root_ + "/" + std::string(relative); }

  /// The object key of Path(relative) on S3.
  static std::string Key(std::string_view relative) { return "root/" + std::string(relative); }

  /// The bytes at Path(relative), read without the code under test. NotFound when absent.
  Result<std::string> IndependentRead(std::string_view relative) const {
    if (IsS3()) {
      return testing::OracleGet(kBucket, Key(relative));
    }
    std::ifstream in(Path(relative), std::ios::binary);
    if (!in) {
      return Status::NotFound("no file " + Path(relative));
    }
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  /// Every file below Path(relative) at any depth (staging files included), relative to it and
  /// sorted, read without the code under test; on S3 also the keys of multipart uploads in
  /// progress, marked "(upload) key". What a write that published nothing must not leave.
  std::vector<std::string> IndependentLeftovers(std::string_view relative) const {
    std::vector<std::string> names;
    if (IsS3()) {
      const std::string prefix = Key(relative) + "/";
      Result<std::vector<std::string>> keys = testing::OracleList(kBucket, prefix);
      EXPECT_OK(keys);
      if (keys.ok()) {
        for (const std::string& key : *keys) {
          names.push_back(key.substr(prefix.size()));
        }
      }
      Result<std::vector<S3MultipartUpload>> uploads =
          s3_->Client()->ListMultipartUploads(kBucket, prefix);
      EXPECT_OK(uploads);
      if (uploads.ok()) {
        for (const S3MultipartUpload& upload : *uploads) {
          names.push_back("(upload) " + upload.key.substr(prefix.size()));
        }
      }
    } else {
      std::error_code error;
      const std::filesystem::path dir(Path(relative));
      for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
           !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file()) {
          names.push_back(std::filesystem::relative(it->path(), dir).string());
        }
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  testing::TempDir dir_;
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<S3FileSystem> s3_;
  S3Config s3_config_;
  std::string root_;
};

INSTANTIATE_TEST_SUITE_P(Implementations, FileSystemContractTest,
                         ::testing::Values(std::string("local"), std::string("s3")),
                         [](const ::testing::TestParamInfo<std::string>& implementation) {
                           return implementation.param;
                         });

// ---- Whole-file writes and reads ----

TEST_P(FileSystemContractTest, WriteFileThenReadFileRoundTripsInBothModes) {
  const std::string data("binary\0data\n\xff", 13);
  ASSERT_OK(fs_->WriteFile(Path("absent.bin"), data, WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("replace.bin"), data, WriteMode::kReplace));
  ASSERT_OK(fs_->WriteFile(Path("empty"), "", WriteMode::kPutIfAbsent));
  for (const char* name : {"absent.bin", "replace.bin"}) {
    ASSERT_OK_AND_ASSIGN(std::string read, fs_->ReadFile(Path(name)));
    EXPECT_EQ(read, data);
    ASSERT_OK_AND_ASSIGN(std::string independent, IndependentRead(name));
    EXPECT_EQ(independent, data);
  }
  ASSERT_OK_AND_ASSIGN(std::string empty, fs_->ReadFile(Path("empty")));
  EXPECT_EQ(empty, "");
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(Path("empty")));
  EXPECT_EQ(info.size, 0);
  EXPECT_FALSE(info.is_directory);
}

TEST_P(FileSystemContractTest, NamesWithSpacesAndReservedCharactersRoundTrip) {
  // Partition values and user file names reach object keys as they are: URI encoding and
  // signing must get every one of these right.
  const std::vector<std::string> names = {"p=a b/x+y=z.json", "p=%41/caf\xc3\xa9 #1.json",
                                          "p=~tilde/(paren)!*'.json", "p=a,b;c/&@$.json"};
  for (const std::string& name : names) {
    ASSERT_OK(fs_->WriteFile(Path(name), name, WriteMode::kPutIfAbsent));
  }
  for (const std::string& name : names) {
    ASSERT_OK_AND_ASSIGN(std::string read, fs_->ReadFile(Path(name)));
    EXPECT_EQ(read, name);
    ASSERT_OK_AND_ASSIGN(std::string independent, IndependentRead(name));
    EXPECT_EQ(independent, name);
  }
  ListOptions recursive;
  recursive.recursive = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(root_, recursive));
  std::vector<std::string> expected;
  expected.reserve(names.size());
  for (const std::string& name : names) {
    expected.push_back(Path(name));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_THAT(EntryPaths(entries), ElementsAreArray(expected));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> partition, fs_->List(Path("p=a b"), {}));
  EXPECT_THAT(EntryPaths(partition), ElementsAre(Path("p=a b/x+y=z.json")));
}

TEST_P(FileSystemContractTest, ReadOfMissingFileIsNotFoundNamingPath) {
  Result<std::string> read = fs_->ReadFile(Path("missing.json"));
  ASSERT_RAISES(NotFound, read);
  EXPECT_THAT(read.status().Message(), HasSubstr(Path("missing.json")));
  Result<std::unique_ptr<RandomAccessFile>> opened = fs_->OpenForRead(Path("missing.json"));
  ASSERT_RAISES(NotFound, opened);
  EXPECT_THAT(opened.status().Message(), HasSubstr(Path("missing.json")));
}

TEST_P(FileSystemContractTest, PutIfAbsentOnExistingPathIsAlreadyExistsAndKeepsOriginal) {
  const std::string path = Path("_delta_log/00000000000000000000.json");
  ASSERT_OK(fs_->WriteFile(path, "winner", WriteMode::kPutIfAbsent));
  Status status = fs_->WriteFile(path, "loser", WriteMode::kPutIfAbsent);
  ASSERT_RAISES(AlreadyExists, status);
  EXPECT_THAT(status.Message(), HasSubstr(path));
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("_delta_log/00000000000000000000.json"));
  EXPECT_EQ(read, "winner");
  EXPECT_THAT(IndependentLeftovers("_delta_log"), ElementsAre("00000000000000000000.json"));
}

TEST_P(FileSystemContractTest, ReplaceOverwrites) {
  const std::string path = Path("_delta_log/_last_checkpoint");
  ASSERT_OK(fs_->WriteFile(path, R"({"version":10})", WriteMode::kReplace));
  ASSERT_OK(fs_->WriteFile(path, R"({"version":20})", WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("_delta_log/_last_checkpoint"));
  EXPECT_EQ(read, R"({"version":20})");
  EXPECT_THAT(IndependentLeftovers("_delta_log"), ElementsAre("_last_checkpoint"));
}

TEST_P(FileSystemContractTest, WriteFileCreatesParentDirectories) {
  ASSERT_OK(fs_->WriteFile(Path("x/y/z/part-0.parquet"), "data", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("x/y/z/part-0.parquet"));
  EXPECT_EQ(read, "data");
  for (const char* dir : {"x", "x/y", "x/y/z"}) {
    ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(Path(dir)));
    EXPECT_TRUE(info.is_directory) << dir;
  }
}

TEST_P(FileSystemContractTest, CreateDirAcceptsNewAndExistingDirectories) {
  ASSERT_OK(fs_->CreateDir(Path("a/b/c")));
  ASSERT_OK(fs_->CreateDir(Path("a/b/c")));
  ASSERT_OK(fs_->CreateDir(Path("a/b/c/")));
  ASSERT_OK(fs_->WriteFile(Path("a/b/c/f"), "x", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->CreateDir(Path("a/b")));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("a/b/c"), {}));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("a/b/c/f")));
}

TEST_P(FileSystemContractTest, PutIfAbsentRaceAcrossThreadsHasExactlyOneWinner) {
  constexpr int kThreads = 8;
  for (int round = 0; round < 4; ++round) {
    const std::string name = fmt::format("_delta_log/{:020}.json", round);
    std::atomic<bool> go{false};
    std::vector<StatusCode> codes(kThreads);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) {
          std::this_thread::yield();
        }
        codes[t] = fs_->WriteFile(Path(name), RepeatedContent(std::to_string(t), 100000),
                                  WriteMode::kPutIfAbsent)
                       .Code();
      });
    }
    go.store(true);
    for (std::thread& thread : threads) {
      thread.join();
    }
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (codes[t] == StatusCode::kOk) {
        ASSERT_EQ(winner, -1) << "two winners: " << winner << " and " << t;
        winner = t;
      } else {
        ASSERT_EQ(codes[t], StatusCode::kAlreadyExists) << "thread " << t;
      }
    }
    ASSERT_NE(winner, -1) << "no winner";
    ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead(name));
    EXPECT_TRUE(read == RepeatedContent(std::to_string(winner), 100000))
        << "the file is not the winner's, complete";
  }
  EXPECT_EQ(IndependentLeftovers("_delta_log").size(), 4u);
}

TEST_P(FileSystemContractTest, ReplaceRaceAcrossThreadsLeavesOneCompleteVersion) {
  constexpr int kThreads = 6;
  auto content = [](int t) {
    return RepeatedContent(fmt::format("#{}#", t), 400000);
  };
  std::atomic<bool> go{false};
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) {
        std::this_thread::yield();
      }
      statuses[t] = fs_->WriteFile(Path("_last_checkpoint"), content(t), WriteMode::kReplace);
    });
  }
  go.store(true);
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const Status& status : statuses) {
    ASSERT_OK(status);
  }
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("_last_checkpoint"));
  bool complete = false;
  for (int t = 0; t < kThreads; ++t) {
    complete = complete || read == content(t);
  }
  EXPECT_TRUE(complete) << "the file mixes or truncates versions";
}

// Exit codes of the children of ForkedRace.
constexpr int kWon = 0;
constexpr int kLost = 1;
constexpr int kFailed = 2;

TEST_P(FileSystemContractTest, PutIfAbsentRaceAcrossProcessesHasExactlyOneWinner) {
  constexpr int kProcesses = 8;
  constexpr int kRounds = 16;
  for (int round = 0; round < kRounds; ++round) {
    const std::string name = fmt::format("_delta_log/{:020}.json", round);
    // Small enough that the writers reach the publishing step together, large enough that a
    // torn or mixed file would show.
    auto content = [round](int child) {
      return RepeatedContent(fmt::format("[round {} child {}]", round, child), size_t{16} * 1024);
    };
    std::vector<int> codes = testing::ForkedRace(kProcesses).Run([&](int child) {
      Result<std::shared_ptr<FileSystem>> fs = NewFileSystem();
      if (!fs.ok()) {
        return kFailed;
      }
      Status status = (*fs)->WriteFile(Path(name), content(child), WriteMode::kPutIfAbsent);
      return status.ok() ? kWon : status.IsAlreadyExists() ? kLost : kFailed;
    });
    ASSERT_EQ(codes.size(), static_cast<size_t>(kProcesses));
    int winner = -1;
    for (int child = 0; child < kProcesses; ++child) {
      ASSERT_TRUE(codes[child] == kWon || codes[child] == kLost)
          << "child " << child << " exited with " << codes[child];
      if (codes[child] == kWon) {
        ASSERT_EQ(winner, -1) << "two winners: " << winner << " and " << child;
        winner = child;
      }
    }
    ASSERT_NE(winner, -1) << "no winner";
    ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead(name));
    EXPECT_TRUE(read == content(winner)) << "content is not the winner's, complete";
  }
  EXPECT_EQ(IndependentLeftovers("_delta_log").size(), static_cast<size_t>(kRounds))
      << "staging files left behind";
}

TEST_P(FileSystemContractTest, OutputStreamPutIfAbsentRaceAcrossProcessesHasExactlyOneWinner) {
  constexpr int kProcesses = 6;
  auto content = [](int child) {
    return RepeatedContent(fmt::format("<{}>", child), 300000);
  };
  std::vector<int> codes = testing::ForkedRace(kProcesses).Run([&](int child) {
    Result<std::shared_ptr<FileSystem>> fs = NewFileSystem();
    if (!fs.ok()) {
      return kFailed;
    }
    Result<std::unique_ptr<OutputStream>> stream =
        (*fs)->OpenOutputStream(Path("offsets/7"), WriteMode::kPutIfAbsent);
    if (!stream.ok() || !(*stream)->Append(content(child)).ok()) {
      return kFailed;
    }
    Status status = (*stream)->Close();
    return status.ok() ? kWon : status.IsAlreadyExists() ? kLost : kFailed;
  });
  int winners = 0;
  int winner = -1;
  for (int child = 0; child < kProcesses; ++child) {
    ASSERT_TRUE(codes[child] == kWon || codes[child] == kLost) << codes[child];
    if (codes[child] == kWon) {
      ++winners;
      winner = child;
    }
  }
  ASSERT_EQ(winners, 1);
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("offsets/7"));
  EXPECT_TRUE(read == content(winner));
  EXPECT_THAT(IndependentLeftovers("offsets"), ElementsAre("7"));
}

TEST_P(FileSystemContractTest, ReplaceRaceAcrossProcessesLeavesOneCompleteVersion) {
  constexpr int kProcesses = 6;
  auto content = [](int child) {
    return RepeatedContent(fmt::format("#{}#", child), 400000);
  };
  std::vector<int> codes = testing::ForkedRace(kProcesses).Run([&](int child) {
    Result<std::shared_ptr<FileSystem>> fs = NewFileSystem();
    return fs.ok() && (*fs)
                          ->WriteFile(Path("_last_checkpoint"), content(child), WriteMode::kReplace)
                          .ok()
               ? kWon
               : kFailed;
  });
  for (int code : codes) {
    ASSERT_EQ(code, kWon);
  }
  ASSERT_OK_AND_ASSIGN(std::string final_content, IndependentRead("_last_checkpoint"));
  bool complete = false;
  for (int child = 0; child < kProcesses; ++child) {
    complete = complete || final_content == content(child);
  }
  EXPECT_TRUE(complete) << "the file mixes or truncates versions";
}

// ---- Ranged reads ----

TEST_P(FileSystemContractTest, OpenForReadServesRangedReads) {
  const std::string path = Path("data.parquet");
  ASSERT_OK(fs_->WriteFile(path, "0123456789PAR1", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_->OpenForRead(path));
  EXPECT_EQ(file->Path(), path);
  ASSERT_OK_AND_ASSIGN(int64_t size, file->Size());
  EXPECT_EQ(size, 14);
  ASSERT_OK_AND_ASSIGN(std::string footer, file->ReadAt(size - 4, 4));
  EXPECT_EQ(footer, "PAR1");
  ASSERT_OK_AND_ASSIGN(std::string middle, file->ReadAt(3, 5));
  EXPECT_EQ(middle, "34567");
  ASSERT_OK_AND_ASSIGN(std::string whole, file->ReadAt(0, size));
  EXPECT_EQ(whole, "0123456789PAR1");
  ASSERT_OK_AND_ASSIGN(std::string nothing, file->ReadAt(size, 0));
  EXPECT_EQ(nothing, "");
  std::string buffer(3, '\0');
  ASSERT_OK(file->ReadInto(7, std::span<char>(buffer.data(), buffer.size())));
  EXPECT_EQ(buffer, "789");
}

TEST_P(FileSystemContractTest, ReadOutsideTheFileIsInvalidArgumentNamingPathAndOffset) {
  const std::string path = Path("short");
  ASSERT_OK(fs_->WriteFile(path, "12345", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_->OpenForRead(path));
  const StorageRequestCounts counts_before_errors = fs_->RequestCounts();

  Result<std::string> read = file->ReadAt(3, 4);
  ASSERT_RAISES(InvalidArgument, read);
  EXPECT_THAT(read.status().Message(), HasSubstr(path));
  EXPECT_THAT(read.status().Message(), HasSubstr("offset 3"));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(6, 0));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(-1, 1));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(0, -1));
  ASSERT_RAISES(InvalidArgument, file->ReadAt(1, INT64_MAX));
  std::string buffer(4, '\0');
  Status status = file->ReadInto(2, std::span<char>(buffer.data(), buffer.size()));
  ASSERT_RAISES(InvalidArgument, status);
  EXPECT_THAT(status.Message(), HasSubstr("offset 2"));
  EXPECT_THAT(status.Message(), HasSubstr(path));
  // A range that cannot be served is refused before anything is fetched.
  EXPECT_EQ(fs_->RequestCounts().bytes_read, counts_before_errors.bytes_read);
}

TEST_P(FileSystemContractTest, ServesConcurrentRangedReadsFromThreads) {
  const std::string path = Path("shared");
  const std::string data = RepeatedContent("abcdefghijklmnopqrstuvwxyz0123456789", 1 << 20);
  ASSERT_OK(fs_->WriteFile(path, data, WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_->OpenForRead(path));
  std::atomic<int> mismatches{0};
  std::atomic<int> reads{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t offset = int64_t{t} * 1000; offset + 4096 <= static_cast<int64_t>(data.size());
           offset += 131071) {
        Result<std::string> chunk = file->ReadAt(offset, 4096);
        ++reads;
        if (!chunk.ok() || *chunk != data.substr(static_cast<size_t>(offset), 4096)) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(mismatches.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_GT(reads.load(), 20);
}

// ---- File information and listing ----

TEST_P(FileSystemContractTest, GetFileInfoReportsFilesAndImplicitDirectories) {
  const int64_t before_ms = NowMs();
  ASSERT_OK(fs_->WriteFile(Path("sub/file"), "hello", WriteMode::kPutIfAbsent));
  const int64_t after_ms = NowMs();
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(Path("sub/file")));
  EXPECT_EQ(info.path, Path("sub/file"));
  EXPECT_EQ(info.size, 5);
  EXPECT_FALSE(info.is_directory);
  EXPECT_FALSE(info.is_special);
  // S3 keeps whole seconds; the server runs on this machine's clock.
  EXPECT_GE(info.modification_time_ms, before_ms - 2000);
  EXPECT_LE(info.modification_time_ms, after_ms + 2000);

  ASSERT_OK_AND_ASSIGN(FileInfo dir, fs_->GetFileInfo(Path("sub")));
  EXPECT_EQ(dir.path, Path("sub"));
  EXPECT_TRUE(dir.is_directory);
  EXPECT_EQ(dir.size, 0);

  Result<FileInfo> missing = fs_->GetFileInfo(Path("nope"));
  ASSERT_RAISES(NotFound, missing);
  EXPECT_THAT(missing.status().Message(), HasSubstr(Path("nope")));
  // A name that only prefixes an existing one is not a directory.
  ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path("su")));
  ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path("sub/fil")));
}

TEST_P(FileSystemContractTest, ExistsDistinguishesPresentFromMissing) {
  ASSERT_OK(fs_->WriteFile(Path("dir/here"), "x", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(bool here, fs_->Exists(Path("dir/here")));
  ASSERT_OK_AND_ASSIGN(bool dir, fs_->Exists(Path("dir")));
  ASSERT_OK_AND_ASSIGN(bool gone, fs_->Exists(Path("gone")));
  ASSERT_OK_AND_ASSIGN(bool under_file, fs_->Exists(Path("dir/here/below")));
  EXPECT_TRUE(here);
  EXPECT_TRUE(dir);
  EXPECT_FALSE(gone);
  EXPECT_FALSE(under_file);
}

TEST_P(FileSystemContractTest, ListReturnsImmediateChildrenSortedWithSizes) {
  ASSERT_OK(fs_->WriteFile(Path("t/b.json"), "bb", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/a.json"), "a", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/_delta_log/0.json"), "{}", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/a/nested.json"), "{}", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/c.json"), "ccc", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("tt/not-below-t"), "x", WriteMode::kPutIfAbsent));

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("t"), {}));
  // Sorted by path: the directory "a" before "a.json" (a prefix sorts first), although S3
  // lists the common prefix "a/" after the key "a.json".
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("t/_delta_log"), Path("t/a"), Path("t/a.json"),
                                               Path("t/b.json"), Path("t/c.json")));
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_TRUE(entries[0].is_directory);
  EXPECT_TRUE(entries[1].is_directory);
  EXPECT_EQ(entries[1].size, 0);
  for (size_t i = 2; i < entries.size(); ++i) {
    EXPECT_FALSE(entries[i].is_directory) << entries[i].path;
    EXPECT_EQ(entries[i].size, static_cast<int64_t>(i - 1)) << entries[i].path;
    EXPECT_GT(entries[i].modification_time_ms, 0) << entries[i].path;
  }
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> with_slash, fs_->List(Path("t/"), {}));
  EXPECT_THAT(EntryPaths(with_slash), ElementsAreArray(EntryPaths(entries)));
}

TEST_P(FileSystemContractTest, ListRecursiveReturnsFilesAtEveryDepthSortedByPath) {
  for (const char* name : {"t/z", "t/a/b/c", "t/a.b", "t/a/x", "t/m/n"}) {
    ASSERT_OK(fs_->WriteFile(Path(name), name, WriteMode::kPutIfAbsent));
  }
  ASSERT_OK(fs_->CreateDir(Path("t/empty/dir")));
  ListOptions options;
  options.recursive = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("t"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("t/a.b"), Path("t/a/b/c"), Path("t/a/x"),
                                               Path("t/m/n"), Path("t/z")));
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[1].size, 7);
  for (const FileInfo& entry : entries) {
    EXPECT_FALSE(entry.is_directory) << entry.path;
  }
}

TEST_P(FileSystemContractTest, ListSortsByBytesNotByLocale) {
  // Upper case before lower case, '~' (0x7e) before any UTF-8 lead byte (0xc3 for 'é').
  for (const char* name : {"s/\xc3\xa9t\xc3\xa9", "s/a", "s/Z", "s/~", "s/B/1"}) {
    ASSERT_OK(fs_->WriteFile(Path(name), "", WriteMode::kPutIfAbsent));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("s"), {}));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("s/B"), Path("s/Z"), Path("s/a"), Path("s/~"),
                                               Path("s/\xc3\xa9t\xc3\xa9")));
  ListOptions options;
  options.start_after = "a";
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(Path("s"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("s/~"), Path("s/\xc3\xa9t\xc3\xa9")));
}

TEST_P(FileSystemContractTest, ListStartAfterReturnsLaterEntriesOnly) {
  const std::vector<std::string> names = {
      "00000000000000000009.json", "00000000000000000010.checkpoint.parquet",
      "00000000000000000010.json", "00000000000000000011.json", "_last_checkpoint"};
  for (const std::string& name : names) {
    ASSERT_OK(fs_->WriteFile(Path("_delta_log/" + name), "{}", WriteMode::kPutIfAbsent));
  }
  ListOptions options;
  options.start_after = "00000000000000000010";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("_delta_log"), options));
  EXPECT_THAT(EntryPaths(entries),
              ElementsAre(Path("_delta_log/00000000000000000010.checkpoint.parquet"),
                          Path("_delta_log/00000000000000000010.json"),
                          Path("_delta_log/00000000000000000011.json"),
                          Path("_delta_log/_last_checkpoint")));
  options.start_after = "00000000000000000010.json";
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(Path("_delta_log"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("_delta_log/00000000000000000011.json"),
                                               Path("_delta_log/_last_checkpoint")));
  options.start_after = "~";
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(Path("_delta_log"), options));
  EXPECT_THAT(entries, IsEmpty());

  ASSERT_OK(fs_->WriteFile(Path("t/a/1"), "", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/b/1"), "", WriteMode::kPutIfAbsent));
  options.recursive = true;
  options.start_after = "a/1";
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(Path("t"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("t/b/1")));
}

TEST_P(FileSystemContractTest, ListStartAfterComparesDirectoriesByTheirPaths) {
  // start_after compares each entry's relative path, a directory's without a trailing '/'. On
  // S3 the common prefix "a/" sorts after the keys "a" and "a.json" (the start-after S3 is
  // sent), so it must be filtered out here.
  ASSERT_OK(fs_->WriteFile(Path("t/a/1"), "", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/a.json"), "", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("t/b/1"), "", WriteMode::kPutIfAbsent));
  ListOptions options;
  options.start_after = "a";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("t"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("t/a.json"), Path("t/b")));
  options.start_after = "a.json";
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(Path("t"), options));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(Path("t/b")));
}

TEST_P(FileSystemContractTest, ListsAndDescribesTheStoreRoot) {
  // The root of the local store is the test's directory; on S3 it is the bucket.
  const std::string store_root = IsS3() ? fmt::format("s3://{}", kBucket) : dir_.Path();
  ASSERT_OK(fs_->WriteFile(Path("f"), "x", WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(store_root, {}));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(store_root + "/root"));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].is_directory);
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(store_root));
  EXPECT_TRUE(info.is_directory);
  ListOptions recursive;
  recursive.recursive = true;
  ASSERT_OK_AND_ASSIGN(entries, fs_->List(store_root, recursive));
  EXPECT_THAT(EntryPaths(entries), ElementsAre(store_root + "/root/f"));
}

TEST_P(FileSystemContractTest, ListOfMissingDirectoryIsNotFoundNamingPath) {
  ASSERT_OK(fs_->WriteFile(Path("other/file"), "x", WriteMode::kPutIfAbsent));
  Result<std::vector<FileInfo>> missing = fs_->List(Path("missing"), {});
  ASSERT_RAISES(NotFound, missing);
  EXPECT_THAT(missing.status().Message(), HasSubstr(Path("missing")));
  ListOptions recursive;
  recursive.recursive = true;
  ASSERT_RAISES(NotFound, fs_->List(Path("missing"), recursive));
  // "oth" only prefixes "other": no directory.
  ASSERT_RAISES(NotFound, fs_->List(Path("oth"), {}));
}

TEST_P(FileSystemContractTest, ListAndDeleteFilesHandleMoreThanOnePageOfEntries) {
  // S3 lists 1000 keys a page and deletes 1000 keys a request.
  constexpr int kFiles = 1010;
  constexpr int kThreads = 8;
  std::vector<std::string> names;
  names.reserve(kFiles);
  for (int i = 0; i < kFiles; ++i) {
    names.push_back(fmt::format("many/f{:05}", i));
  }
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kFiles; i += kThreads) {
        if (!fs_->WriteFile(Path(names[i]), names[i], WriteMode::kPutIfAbsent).ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  ASSERT_EQ(failures.load(), 0);

  const StorageRequestCounts before_list = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("many"), {}));
  const StorageRequestCounts list_cost = fs_->RequestCounts() - before_list;
  std::vector<std::string> expected;
  expected.reserve(names.size());
  for (const std::string& name : names) {
    expected.push_back(Path(name));
  }
  EXPECT_THAT(EntryPaths(entries), ElementsAreArray(expected));
  ListOptions after;
  after.start_after = "f01000";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> tail, fs_->List(Path("many"), after));
  EXPECT_THAT(EntryPaths(tail), ElementsAreArray(expected.end() - 9, expected.end()));

  std::vector<std::string> doomed(expected.begin(), expected.begin() + 1005);
  doomed.push_back(Path("many/never-existed"));
  const StorageRequestCounts before_delete = fs_->RequestCounts();
  ASSERT_OK(fs_->DeleteFiles(doomed));
  const StorageRequestCounts delete_cost = fs_->RequestCounts() - before_delete;
  EXPECT_THAT(IndependentLeftovers("many"),
              ElementsAre("f01005", "f01006", "f01007", "f01008", "f01009"));
  if (IsS3()) {
    EXPECT_EQ(list_cost.list_requests, 2);
    EXPECT_EQ(delete_cost.delete_requests, 2);
  } else {
    EXPECT_EQ(list_cost, StorageRequestCounts{});
    EXPECT_EQ(delete_cost, StorageRequestCounts{});
  }
}

// ---- Deleting and renaming ----

TEST_P(FileSystemContractTest, DeleteFileRemovesOnlyThatFile) {
  ASSERT_OK(fs_->WriteFile(Path("d/keep"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("d/drop"), "2", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->DeleteFile(Path("d/drop")));
  EXPECT_THAT(IndependentLeftovers("d"), ElementsAre("keep"));
  ASSERT_RAISES(NotFound, fs_->ReadFile(Path("d/drop")));
  Status again = fs_->DeleteFile(Path("d/drop"));
  ASSERT_RAISES(NotFound, again);
  EXPECT_THAT(again.Message(), HasSubstr(Path("d/drop")));
}

TEST_P(FileSystemContractTest, DeleteDirNeedsRecursiveForNonEmptyDirectory) {
  ASSERT_OK(fs_->WriteFile(Path("d/x/y"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("d/z"), "2", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("d2/sibling"), "3", WriteMode::kPutIfAbsent));
  Status status = fs_->DeleteDir(Path("d"), /*recursive=*/false);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.Message(), HasSubstr(Path("d")));
  EXPECT_THAT(IndependentLeftovers("d"), ElementsAre("x/y", "z"));

  ASSERT_OK(fs_->DeleteDir(Path("d"), /*recursive=*/true));
  EXPECT_THAT(IndependentLeftovers("d"), IsEmpty());
  ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path("d")));
  ASSERT_RAISES(NotFound, fs_->DeleteDir(Path("d"), /*recursive=*/true));
  // "d2" shares the prefix "d" but is no part of it.
  EXPECT_THAT(IndependentLeftovers("d2"), ElementsAre("sibling"));
}

TEST_P(FileSystemContractTest, RenameMovesADirectoryWithEverythingBelowIt) {
  ASSERT_OK(fs_->WriteFile(Path("a/f"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("a/sub/g"), "2", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->Rename(Path("a"), Path("b")));
  EXPECT_THAT(IndependentLeftovers("b"), ElementsAre("f", "sub/g"));
  EXPECT_THAT(IndependentLeftovers("a"), IsEmpty());
  ASSERT_OK_AND_ASSIGN(std::string moved, IndependentRead("b/sub/g"));
  EXPECT_EQ(moved, "2");
}

TEST_P(FileSystemContractTest, RenameMovesFileNeverReplacesAndNeedsASource) {
  ASSERT_OK(fs_->WriteFile(Path("src"), "payload", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->Rename(Path("src"), Path("new/parent/dst")));
  ASSERT_RAISES(NotFound, IndependentRead("src"));
  ASSERT_OK_AND_ASSIGN(std::string moved, IndependentRead("new/parent/dst"));
  EXPECT_EQ(moved, "payload");

  ASSERT_OK(fs_->WriteFile(Path("other"), "old", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Path("src2"), "new", WriteMode::kPutIfAbsent));
  Status status = fs_->Rename(Path("src2"), Path("other"));
  ASSERT_RAISES(AlreadyExists, status);
  EXPECT_THAT(status.Message(), HasSubstr(Path("other")));
  ASSERT_OK_AND_ASSIGN(std::string kept_source, IndependentRead("src2"));
  ASSERT_OK_AND_ASSIGN(std::string kept_target, IndependentRead("other"));
  EXPECT_EQ(kept_source, "new");
  EXPECT_EQ(kept_target, "old");

  Status missing = fs_->Rename(Path("missing"), Path("dst"));
  ASSERT_RAISES(NotFound, missing);
  EXPECT_THAT(missing.Message(), HasSubstr(Path("missing")));
  ASSERT_RAISES(NotFound, IndependentRead("dst"));
}

// ---- Output streams ----

TEST_P(FileSystemContractTest, OutputStreamPublishesOnlyOnClose) {
  // 12 MiB: above the S3 instance's multipart threshold, so there it is a multipart upload.
  for (const int64_t size : {int64_t{300000}, int64_t{12} << 20}) {
    SCOPED_TRACE(fmt::format("{} bytes", size));
    const std::string name = fmt::format("data/part-{}.parquet", size);
    const StorageRequestCounts before = fs_->RequestCounts();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_->OpenOutputStream(Path(name), WriteMode::kPutIfAbsent));
    EXPECT_EQ(stream->Path(), Path(name));
    std::string expected;
    for (int i = 0; static_cast<int64_t>(expected.size()) < size; ++i) {
      // Small and large appends mixed: the order must survive buffering and parts.
      const std::string piece =
          i % 3 == 0 ? RepeatedContent(fmt::format("<{}>", i), 1 << 20) : fmt::format("[{}]", i);
      ASSERT_OK(stream->Append(piece));
      expected += piece;
    }
    EXPECT_EQ(stream->Position(), static_cast<int64_t>(expected.size()));
    ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path(name)));
    ASSERT_RAISES(NotFound, IndependentRead(name));

    ASSERT_OK(stream->Close());
    const StorageRequestCounts cost = fs_->RequestCounts() - before;
    ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead(name));
    EXPECT_TRUE(read == expected) << "published " << read.size() << " bytes of " << expected.size();
    if (IsS3()) {
      // The data, plus CompleteMultipartUpload's list of parts.
      EXPECT_GE(cost.bytes_written, static_cast<int64_t>(expected.size()));
      EXPECT_LE(cost.bytes_written, static_cast<int64_t>(expected.size()) + 4096);
      // One PutObject, or create + 3 parts + complete for the multipart upload.
      EXPECT_EQ(cost.put_requests, size > (int64_t{5} << 20) ? 5 : 1);
    }
    ASSERT_OK(stream->Close());
    ASSERT_RAISES(InvalidArgument, stream->Append("more"));
  }
  EXPECT_THAT(IndependentLeftovers("data"),
              ElementsAre("part-12582912.parquet", "part-300000.parquet"));
}

TEST_P(FileSystemContractTest, AbortedOrAbandonedOutputStreamPublishesNothing) {
  for (const int64_t size : {int64_t{1000}, int64_t{11} << 20}) {
    SCOPED_TRACE(fmt::format("{} bytes", size));
    {
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                           fs_->OpenOutputStream(Path("d/destroyed"), WriteMode::kPutIfAbsent));
      ASSERT_OK(stream->Append(RepeatedContent("x", static_cast<size_t>(size))));
    }
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> aborted,
                         fs_->OpenOutputStream(Path("d/aborted"), WriteMode::kReplace));
    ASSERT_OK(aborted->Append(RepeatedContent("y", static_cast<size_t>(size))));
    ASSERT_OK(aborted->Abort());
    ASSERT_RAISES(InvalidArgument, aborted->Close());
    ASSERT_RAISES(InvalidArgument, aborted->Append("x"));
    ASSERT_OK(aborted->Abort());
    ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path("d/destroyed")));
    ASSERT_RAISES(NotFound, fs_->GetFileInfo(Path("d/aborted")));
    EXPECT_THAT(IndependentLeftovers("d"), IsEmpty());
  }
}

TEST_P(FileSystemContractTest, OutputStreamPutIfAbsentLosesToExistingFile) {
  for (const int64_t size : {int64_t{6}, int64_t{11} << 20}) {
    SCOPED_TRACE(fmt::format("{} bytes", size));
    const std::string name = fmt::format("d/commit-{}", size);
    ASSERT_OK(fs_->WriteFile(Path(name), "first", WriteMode::kPutIfAbsent));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_->OpenOutputStream(Path(name), WriteMode::kPutIfAbsent));
    ASSERT_OK(stream->Append(RepeatedContent("second", static_cast<size_t>(size))));
    Status status = stream->Close();
    ASSERT_RAISES(AlreadyExists, status);
    EXPECT_THAT(status.Message(), HasSubstr(Path(name)));
    ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead(name));
    EXPECT_EQ(read, "first");
    ASSERT_RAISES(InvalidArgument, stream->Close());
  }
  EXPECT_THAT(IndependentLeftovers("d"), ElementsAre("commit-11534336", "commit-6"));
}

TEST_P(FileSystemContractTest, OutputStreamWithoutAppendsPublishesAnEmptyFile) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_->OpenOutputStream(Path("d/empty"), WriteMode::kPutIfAbsent));
  EXPECT_EQ(stream->Position(), 0);
  ASSERT_OK(stream->Close());
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("d/empty"));
  EXPECT_EQ(read, "");
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(Path("d/empty")));
  EXPECT_EQ(info.size, 0);
  EXPECT_FALSE(info.is_directory);
}

TEST_P(FileSystemContractTest, OutputStreamReplaceOverwritesOnClose) {
  ASSERT_OK(fs_->WriteFile(Path("pointer"), "old", WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_->OpenOutputStream(Path("pointer"), WriteMode::kReplace));
  ASSERT_OK(stream->Append("new"));
  ASSERT_OK_AND_ASSIGN(std::string before, IndependentRead("pointer"));
  EXPECT_EQ(before, "old");
  ASSERT_OK(stream->Close());
  ASSERT_OK_AND_ASSIGN(std::string after, IndependentRead("pointer"));
  EXPECT_EQ(after, "new");
}

TEST_P(FileSystemContractTest, OutputStreamOutlivesItsFileSystem) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> small,
                       fs_->OpenOutputStream(Path("late/small"), WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> large,
                       fs_->OpenOutputStream(Path("late/large"), WriteMode::kPutIfAbsent));
  ASSERT_OK(large->Append(RepeatedContent("L", size_t{6} << 20)));
  fs_.reset();
  s3_.reset();
  ASSERT_OK(small->Append("tail"));
  ASSERT_OK(large->Append("tail"));
  ASSERT_OK(small->Close());
  ASSERT_OK(large->Close());
  ASSERT_OK_AND_ASSIGN(std::string read_small, IndependentRead("late/small"));
  EXPECT_EQ(read_small, "tail");
  ASSERT_OK_AND_ASSIGN(std::string read_large, IndependentRead("late/large"));
  EXPECT_TRUE(read_large == RepeatedContent("L", size_t{6} << 20) + "tail");
}

TEST_P(FileSystemContractTest, OutputStreamPutIfAbsentRaceAcrossThreadsHasExactlyOneWinner) {
  constexpr int kThreads = 6;
  auto content = [](int t) {
    return RepeatedContent(fmt::format("<{}>", t), 300000);
  };
  std::vector<std::unique_ptr<OutputStream>> streams;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_->OpenOutputStream(Path("offsets/7"), WriteMode::kPutIfAbsent));
    ASSERT_OK(stream->Append(content(t)));
    streams.push_back(std::move(stream));
  }
  std::atomic<bool> go{false};
  std::vector<StatusCode> codes(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) {
        std::this_thread::yield();
      }
      codes[t] = streams[t]->Close().Code();
    });
  }
  go.store(true);
  for (std::thread& thread : threads) {
    thread.join();
  }
  int winner = -1;
  for (int t = 0; t < kThreads; ++t) {
    if (codes[t] == StatusCode::kOk) {
      ASSERT_EQ(winner, -1) << "two winners";
      winner = t;
    } else {
      ASSERT_EQ(codes[t], StatusCode::kAlreadyExists) << "stream " << t;
    }
  }
  ASSERT_NE(winner, -1);
  ASSERT_OK_AND_ASSIGN(std::string read, IndependentRead("offsets/7"));
  EXPECT_TRUE(read == content(winner));
}

// ---- Request counts ----

TEST_P(FileSystemContractTest, RequestCountsAreZeroLocallyAndCountEachS3Request) {
  const StorageRequestCounts start = fs_->RequestCounts();
  // Above the size S3FileSystem reads whole (1 MiB), so reads are ranged.
  const std::string data = RepeatedContent("0123456789", 1500000);
  ASSERT_OK(fs_->WriteFile(Path("c/file"), data, WriteMode::kPutIfAbsent));
  const StorageRequestCounts after_write = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file, fs_->OpenForRead(Path("c/file")));
  ASSERT_OK_AND_ASSIGN(std::string footer, file->ReadAt(1499990, 10));
  EXPECT_EQ(footer, "0123456789");
  const StorageRequestCounts after_read = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs_->List(Path("c"), {}));
  EXPECT_EQ(entries.size(), 1u);
  const StorageRequestCounts after_list = fs_->RequestCounts();
  ASSERT_OK(fs_->DeleteFile(Path("c/file")));
  const StorageRequestCounts after_delete = fs_->RequestCounts();

  if (!IsS3()) {
    EXPECT_EQ(after_delete, StorageRequestCounts{});
    return;
  }
  const StorageRequestCounts write = after_write - start;
  EXPECT_EQ(write.put_requests, 1);
  EXPECT_EQ(write.bytes_written, 1500000);
  EXPECT_EQ(write.list_requests + write.get_requests + write.delete_requests, 0);
  const StorageRequestCounts read = after_read - after_write;
  EXPECT_GE(read.get_requests, 1);
  EXPECT_LE(read.get_requests, 2);  // a HEAD for the size, at most, and the ranged GET
  EXPECT_EQ(read.bytes_read, 10) << "a ranged read fetches only its range";
  EXPECT_EQ(read.put_requests + read.list_requests + read.delete_requests, 0);
  const StorageRequestCounts list = after_list - after_read;
  EXPECT_EQ(list.list_requests, 1);
  EXPECT_EQ(list.put_requests + list.delete_requests, 0);
  const StorageRequestCounts deleted = after_delete - after_list;
  EXPECT_GE(deleted.delete_requests, 1);
  EXPECT_EQ(deleted.put_requests, 0);
}

}  // namespace
}  // namespace tributary::storage

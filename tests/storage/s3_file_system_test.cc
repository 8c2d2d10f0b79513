// S3FileSystem's S3-specific behaviour against a real S3 API server (moto over loopback HTTP):
// multipart streams, what failures and abandoned streams leave behind, commits whose response
// was lost, implicit directories and objects other tools wrote. The semantics every FileSystem
// shares are in file_system_contract_test.cc, which runs over S3 too.

#include "storage/s3_file_system.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/faulty_http_transport.h"
#include "support/file_system_test_util.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::tributary::testing::OracleGet;
using ::tributary::testing::OracleList;
using ::tributary::testing::OraclePut;
using ::tributary::testing::RepeatedContent;
using ::tributary::testing::S3TestServer;

constexpr const char* kBucket = "fs-test";
constexpr int64_t kMiB = int64_t{1} << 20;

std::string Uri(std::string_view key) {
  return fmt::format("s3://{}/{}", kBucket, key);
}

class S3FileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    S3TestServer::Get().CreateBucket(kBucket);
    fs_ = Make(nullptr);
  }

  /// A file system whose streams go multipart above 5 MiB in 5 MiB parts, two at a time.
  static std::shared_ptr<S3FileSystem> Make(std::shared_ptr<HttpTransport> transport) {
    S3Config config;
    config.credentials = {"testing", "testing", ""};
    config.region = "us-east-1";
    config.endpoint = S3TestServer::Get().Endpoint();
    config.path_style = true;
    config.max_attempts = 3;
    config.multipart_threshold_bytes = 5 * kMiB;
    config.part_size_bytes = 5 * kMiB;
    config.upload_parallelism = 2;
    return S3FileSystem::Make(config, std::move(transport)).ValueOrDie();
  }

  /// The keys of multipart uploads in progress.
  std::vector<std::string> Uploads() {
    std::vector<std::string> keys;
    Result<std::vector<S3MultipartUpload>> uploads =
        fs_->Client()->ListMultipartUploads(kBucket, "");
    EXPECT_OK(uploads.status());
    for (const S3MultipartUpload& upload : uploads.ValueOr({})) {
      keys.push_back(upload.key);
    }
    return keys;
  }

  std::vector<std::string> Keys() { return OracleList(kBucket, "").ValueOr({"(oracle failed)"}); }

  std::shared_ptr<S3FileSystem> fs_;
};

TEST(ParseS3UriTest, SplitsBucketAndKeyOfBothSchemes) {
  ASSERT_OK_AND_ASSIGN(S3Location location, ParseS3Uri("s3://bucket/a/b.json"));
  EXPECT_EQ(location, (S3Location{"bucket", "a/b.json"}));
  ASSERT_OK_AND_ASSIGN(location, ParseS3Uri("s3a://bucket/dir/"));
  EXPECT_EQ(location, (S3Location{"bucket", "dir"}));
  ASSERT_OK_AND_ASSIGN(location, ParseS3Uri("s3://bucket"));
  EXPECT_EQ(location, (S3Location{"bucket", ""}));
  EXPECT_EQ(location.ToString(), "s3://bucket");
  ASSERT_RAISES(InvalidArgument, ParseS3Uri("gs://bucket/key").status());
  ASSERT_RAISES(InvalidArgument, ParseS3Uri("s3:///key").status());
  ASSERT_RAISES(InvalidArgument, ParseS3Uri("/local/path").status());
}

// A small object (a Delta checkpoint, a Parquet file of a few column chunks) is fetched with one
// GET on the first read, and every later read of it is served from that.
TEST_F(S3FileSystemTest, ReadsOfASmallObjectCostOneGet) {
  const std::string data = RepeatedContent("abcdefghij", 200000);
  ASSERT_OK(fs_->WriteFile(Uri("small.parquet"), data, WriteMode::kPutIfAbsent));
  const StorageRequestCounts before = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RandomAccessFile> file,
                       fs_->OpenForRead(Uri("small.parquet")));
  ASSERT_OK_AND_ASSIGN(std::string footer, file->ReadAt(199990, 10));
  EXPECT_EQ(footer, "abcdefghij");
  for (int64_t offset : {0, 12345, 150000}) {
    ASSERT_OK_AND_ASSIGN(std::string chunk, file->ReadAt(offset, 25));
    EXPECT_EQ(chunk, data.substr(static_cast<size_t>(offset), 25));
  }
  ASSERT_RAISES(InvalidArgument, file->ReadAt(199995, 10).status());
  const StorageRequestCounts cost = fs_->RequestCounts() - before;
  EXPECT_EQ(cost.get_requests, 2);  // the HEAD of OpenForRead and one GET
  EXPECT_EQ(cost.bytes_read, 200000);
}

TEST_F(S3FileSystemTest, LargeStreamUploadsPartsAndPublishesOnlyOnClose) {
  const std::string data =
      RepeatedContent("part 1;", 17 * kMiB + 123);  // parts of 5, 5, 5 and 2 MiB
  const StorageRequestCounts before = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_->OpenOutputStream(Uri("data/big.parquet"), WriteMode::kPutIfAbsent));
  constexpr size_t kAppendSize = size_t{1000} * 1000;
  for (size_t offset = 0; offset < data.size(); offset += kAppendSize) {
    ASSERT_OK(stream->Append(std::string_view(data).substr(offset, kAppendSize)));
  }
  EXPECT_EQ(stream->Position(), static_cast<int64_t>(data.size()));
  EXPECT_THAT(Uploads(), ElementsAre("data/big.parquet")) << "parts go up before Close";
  ASSERT_RAISES(NotFound, fs_->GetFileInfo(Uri("data/big.parquet")).status());
  ASSERT_OK(stream->Close());
  ASSERT_OK(stream->Close());

  const StorageRequestCounts cost = fs_->RequestCounts() - before;
  EXPECT_EQ(cost.put_requests, 1 + 4 + 1) << "create, four parts, complete";
  // The parts, and the Complete request's small XML body.
  EXPECT_GT(cost.bytes_written, static_cast<int64_t>(data.size()));
  EXPECT_LT(cost.bytes_written, static_cast<int64_t>(data.size()) + 1000);
  ASSERT_OK_AND_ASSIGN(std::string read_back, OracleGet(kBucket, "data/big.parquet"));
  EXPECT_TRUE(read_back == data) << "the AWS SDK reads the multipart object back whole";
  EXPECT_TRUE(fs_->Client()->HeadObject({kBucket, "data/big.parquet"})->etag.ends_with("-4"));
  EXPECT_THAT(Uploads(), IsEmpty());
}

TEST_F(S3FileSystemTest, PartsGoUpInParallelUpToTheConfiguredParallelism) {
  auto transport = std::make_shared<FaultyTransport>();
  std::shared_ptr<S3FileSystem> fs = Make(transport);  // upload_parallelism 2
  transport->Rendezvous("partNumber=", 2);
  const std::string data = RepeatedContent("part 9;", 21 * kMiB);
  ASSERT_OK(fs->WriteFile(Uri("parallel"), data, WriteMode::kPutIfAbsent));
  EXPECT_EQ(transport->MostConcurrent(), 2);
  ASSERT_OK_AND_ASSIGN(std::string read_back, fs->ReadFile(Uri("parallel")));
  EXPECT_TRUE(read_back == data);
}

TEST_F(S3FileSystemTest, LargeWriteFileGoesMultipart) {
  const std::string data = RepeatedContent("part 2;", 6 * kMiB);
  ASSERT_OK(fs_->WriteFile(Uri("big"), data, WriteMode::kReplace));
  EXPECT_TRUE(fs_->Client()->HeadObject({kBucket, "big"})->etag.ends_with("-2"));
  ASSERT_OK_AND_ASSIGN(std::string read_back, fs_->ReadFile(Uri("big")));
  EXPECT_TRUE(read_back == data);
  EXPECT_THAT(Uploads(), IsEmpty());
}

TEST_F(S3FileSystemTest, MultipartPutIfAbsentLosesToAnExistingObjectAndLeavesNoUpload) {
  ASSERT_OK(OraclePut(kBucket, "_delta_log/00000000000000000003.checkpoint.parquet", "theirs"));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<OutputStream> stream,
      fs_->OpenOutputStream(Uri("_delta_log/00000000000000000003.checkpoint.parquet"),
                            WriteMode::kPutIfAbsent));
  ASSERT_OK(stream->Append(RepeatedContent("part 3;", 11 * kMiB)));
  ASSERT_RAISES(AlreadyExists, stream->Close());
  ASSERT_RAISES(InvalidArgument, stream->Close());
  EXPECT_EQ(OracleGet(kBucket, "_delta_log/00000000000000000003.checkpoint.parquet").ValueOr(""),
            "theirs");
  EXPECT_THAT(Uploads(), IsEmpty());
}

TEST_F(S3FileSystemTest, AbandonedOrAbortedMultipartStreamsLeaveNoParts) {
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                         fs_->OpenOutputStream(Uri("dropped"), WriteMode::kReplace));
    ASSERT_OK(stream->Append(RepeatedContent("part 4;", 12 * kMiB)));
    EXPECT_THAT(Uploads(), ElementsAre("dropped"));
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs_->OpenOutputStream(Uri("aborted"), WriteMode::kReplace));
  ASSERT_OK(stream->Append(RepeatedContent("part 5;", 7 * kMiB)));
  ASSERT_OK(stream->Abort());
  ASSERT_RAISES(InvalidArgument, stream->Append("more"));
  EXPECT_THAT(Uploads(), IsEmpty());
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(S3FileSystemTest, FailedPartAbortsTheUploadWithARetryableError) {
  auto transport = std::make_shared<FaultyTransport>();
  std::shared_ptr<S3FileSystem> fs = Make(transport);
  transport->Arm("PUT", "partNumber=2", Fault::kInternalError, 3);  // every attempt of part 2
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> stream,
                       fs->OpenOutputStream(Uri("failing"), WriteMode::kPutIfAbsent));
  Status appended = stream->Append(RepeatedContent("part 6;", 16 * kMiB));
  Status closed = appended.ok() ? stream->Close() : appended;
  ASSERT_RAISES(IOError, closed);
  EXPECT_TRUE(closed.IsRetryable()) << closed.ToString();
  EXPECT_THAT(closed.Message(),
              ::testing::HasSubstr("S3 UploadPart s3://fs-test/failing: HTTP 500 InternalError"));
  EXPECT_EQ(transport->ArmedFaults(), 0);
  EXPECT_THAT(Uploads(), IsEmpty());
  EXPECT_THAT(Keys(), IsEmpty());
  ASSERT_RAISES(InvalidArgument, stream->Close());
}

TEST_F(S3FileSystemTest, CommitWhoseResponseWasLostSucceedsOnceAndAConflictStaysAConflict) {
  auto transport = std::make_shared<FaultyTransport>();
  std::shared_ptr<S3FileSystem> fs = Make(transport);
  const std::string commit = Uri("table/_delta_log/00000000000000000007.json");
  transport->Arm("PUT", "00000000000000000007.json", Fault::kLoseResponse);
  ASSERT_OK(fs->WriteFile(commit, R"({"commitInfo":{"txnId":"ours"}})", WriteMode::kPutIfAbsent));
  EXPECT_EQ(OracleGet(kBucket, "table/_delta_log/00000000000000000007.json").ValueOr(""),
            R"({"commitInfo":{"txnId":"ours"}})");
  EXPECT_THAT(Keys(), ElementsAre("table/_delta_log/00000000000000000007.json"));

  // The next version: another writer's commit is there first; losing our response must not
  // turn its 412 into our success.
  const std::string next = Uri("table/_delta_log/00000000000000000008.json");
  ASSERT_OK(OraclePut(kBucket, "table/_delta_log/00000000000000000008.json", "theirs"));
  transport->Arm("PUT", "00000000000000000008.json", Fault::kLoseResponse);
  ASSERT_RAISES(AlreadyExists, fs->WriteFile(next, "ours", WriteMode::kPutIfAbsent));
  EXPECT_EQ(fs->ReadFile(next).ValueOr(""), "theirs");
}

TEST_F(S3FileSystemTest, ThrottledAndDroppedRequestsAreRetriedTransparently) {
  auto transport = std::make_shared<FaultyTransport>();
  std::shared_ptr<S3FileSystem> fs = Make(transport);
  ASSERT_OK(fs->WriteFile(Uri("dir/a"), "a", WriteMode::kPutIfAbsent));
  transport->Arm("GET", "list-type=2", Fault::kSlowDown);
  transport->Arm("GET", "list-type=2", Fault::kDropConnection);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, fs->List(Uri("dir"), {}));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(fs->RequestCounts().list_requests, 3);
  transport->Arm("HEAD", "/fs-test/dir/a", Fault::kInternalError);
  transport->Arm("GET", "/fs-test/dir/a", Fault::kDropConnection);
  EXPECT_EQ(fs->ReadFile(Uri("dir/a")).ValueOr(""), "a");
  EXPECT_EQ(transport->ArmedFaults(), 0);
}

TEST_F(S3FileSystemTest, DirectoriesAreImplicitAndMarkersOfOtherToolsAreHidden) {
  // Objects landed by another client, with the "dir/" marker objects consoles and Hadoop make.
  ASSERT_OK(OraclePut(kBucket, "landing/", ""));
  ASSERT_OK(OraclePut(kBucket, "landing/2024/", ""));
  ASSERT_OK(OraclePut(kBucket, "landing/2024/a.json", "{\"a\":1}\n"));
  ASSERT_OK(OraclePut(kBucket, "landing/b.json", "{\"b\":2}\n"));
  ASSERT_OK(OraclePut(kBucket, "empty/", ""));

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> children, fs_->List("s3a://fs-test/landing", {}));
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children[0], (FileInfo{"s3a://fs-test/landing/2024", 0, 0, true}));
  EXPECT_EQ(children[1].path, "s3a://fs-test/landing/b.json");
  EXPECT_EQ(children[1].size, 8);
  EXPECT_FALSE(children[1].is_directory);
  ListOptions recursive;
  recursive.recursive = true;
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> files, fs_->List(Uri("landing/"), recursive));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, Uri("landing/2024/a.json"));
  EXPECT_EQ(files[1].path, Uri("landing/b.json"));

  // A marker alone makes an empty directory; nothing at all is NotFound.
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> empty, fs_->List(Uri("empty"), {}));
  EXPECT_THAT(empty, IsEmpty());
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->GetFileInfo(Uri("landing/2024")));
  EXPECT_TRUE(info.is_directory);
  ASSERT_RAISES(NotFound, fs_->List(Uri("nothing"), {}).status());
  ASSERT_RAISES(NotFound, fs_->GetFileInfo(Uri("landing/20")).status());

  // The bucket itself is a directory; a missing bucket is NotFound.
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> top, fs_->List("s3://fs-test", {}));
  EXPECT_EQ(top.size(), 2u);
  ASSERT_OK_AND_ASSIGN(info, fs_->GetFileInfo("s3://fs-test"));
  EXPECT_TRUE(info.is_directory);
  ASSERT_RAISES(NotFound, fs_->List("s3://no-such-bucket/x", {}).status());

  // A directory whose entries all sort before start_after exists and lists nothing.
  ListOptions later;
  later.start_after = "zzz";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> none, fs_->List(Uri("landing"), later));
  EXPECT_THAT(none, IsEmpty());
  ASSERT_RAISES(NotFound, fs_->List(Uri("nothing"), later).status());

  // Deleting the last object deletes the directory; a marker left alone does not count.
  ASSERT_OK(fs_->DeleteDir(Uri("landing"), /*recursive=*/true));
  ASSERT_RAISES(NotFound, fs_->List(Uri("landing"), {}).status());
  ASSERT_OK(fs_->DeleteDir(Uri("empty"), /*recursive=*/false));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(S3FileSystemTest, PollingAfterTheLastEntryCostsOneList) {
  for (std::string_view name :
       {"00000000000000000000.json", "00000000000000000001.json",
        "00000000000000000001.checkpoint.parquet", "00000000000000000002.json"}) {
    ASSERT_OK(
        fs_->WriteFile(Uri(fmt::format("t/_delta_log/{}", name)), "{}", WriteMode::kPutIfAbsent));
  }
  ListOptions after_version_1;
  after_version_1.start_after = "00000000000000000001.json";
  StorageRequestCounts before = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> newer,
                       fs_->List(Uri("t/_delta_log"), after_version_1));
  ASSERT_EQ(newer.size(), 1u);
  EXPECT_EQ(newer[0].path, Uri("t/_delta_log/00000000000000000002.json"));
  EXPECT_EQ((fs_->RequestCounts() - before).list_requests, 1);

  ListOptions after_last;
  after_last.start_after = "00000000000000000002.json";
  before = fs_->RequestCounts();
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> none, fs_->List(Uri("t/_delta_log"), after_last));
  EXPECT_THAT(none, IsEmpty());
  EXPECT_EQ((fs_->RequestCounts() - before).list_requests, 1) << "no second LIST to prove the "
                                                                 "directory exists";
  ListOptions after_version_prefix;
  after_version_prefix.start_after = "00000000000000000001";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> from_1,
                       fs_->List(Uri("t/_delta_log"), after_version_prefix));
  ASSERT_EQ(from_1.size(), 3u);
  EXPECT_EQ(from_1[0].path, Uri("t/_delta_log/00000000000000000001.checkpoint.parquet"));
}

TEST_F(S3FileSystemTest, DeleteDirDeletesMoreThanOneBatch) {
  constexpr int kFiles = 1003;
  for (int i = 0; i < kFiles; ++i) {
    ASSERT_OK(
        fs_->WriteFile(Uri(fmt::format("vacuum/part-{:05}", i)), "x", WriteMode::kPutIfAbsent));
  }
  ASSERT_OK(fs_->WriteFile(Uri("keep"), "k", WriteMode::kPutIfAbsent));
  ASSERT_RAISES(IOError, fs_->DeleteDir(Uri("vacuum"), /*recursive=*/false));
  const StorageRequestCounts before = fs_->RequestCounts();
  ASSERT_OK(fs_->DeleteDir(Uri("vacuum"), /*recursive=*/true));
  const StorageRequestCounts cost = fs_->RequestCounts() - before;
  EXPECT_EQ(cost.list_requests, 2);
  EXPECT_EQ(cost.delete_requests, 2);
  EXPECT_THAT(Keys(), ElementsAre("keep"));
}

TEST_F(S3FileSystemTest, RenameMovesAFileOrEveryObjectOfADirectory) {
  ASSERT_OK(fs_->WriteFile(Uri("in/a b.json"), "1", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Uri("in/sub/c+d.json"), "2", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->WriteFile(Uri("single"), "3", WriteMode::kPutIfAbsent));
  ASSERT_OK(fs_->Rename(Uri("single"), Uri("archive/single")));
  ASSERT_OK(fs_->Rename(Uri("in"), Uri("archive/in")));
  EXPECT_THAT(Keys(),
              ElementsAre("archive/in/a b.json", "archive/in/sub/c+d.json", "archive/single"));
  EXPECT_EQ(fs_->ReadFile(Uri("archive/in/sub/c+d.json")).ValueOr(""), "2");
  ASSERT_RAISES(AlreadyExists, fs_->Rename(Uri("archive/single"), Uri("archive/in")));
  ASSERT_RAISES(NotFound, fs_->Rename(Uri("in"), Uri("elsewhere")));
}

TEST_F(S3FileSystemTest, FilePathsNamingADirectoryOrTheBucketAreRefused) {
  ASSERT_RAISES(InvalidArgument, fs_->WriteFile(Uri("dir/"), "x", WriteMode::kReplace));
  ASSERT_RAISES(InvalidArgument, fs_->WriteFile("s3://fs-test", "x", WriteMode::kReplace));
  ASSERT_RAISES(InvalidArgument, fs_->OpenForRead("s3://fs-test/").status());
  ASSERT_RAISES(InvalidArgument, fs_->WriteFile("file:///tmp/x", "x", WriteMode::kReplace));
  EXPECT_EQ(fs_->RequestCounts(), StorageRequestCounts{});
}

}  // namespace
}  // namespace tributary::storage

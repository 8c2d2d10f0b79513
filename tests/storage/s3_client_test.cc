// S3Client against a real S3 API server (moto, over loopback HTTP) and, for the network's
// failures, through a transport that injects them: throttling, 500s, dropped connections and
// responses lost after the server acted.

#include "storage/s3_client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "storage/faulty_http_transport.h"
#include "support/file_system_test_util.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"

namespace tributary::storage {
namespace {

using ::tributary::testing::RepeatedContent;
using ::tributary::testing::S3TestServer;

constexpr const char* kBucket = "client-test";
/// A secret no message may contain (the server checks no signatures).
constexpr const char* kSecret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
constexpr int64_t kMiB = int64_t{1} << 20;

S3Config TestConfig() {
  S3Config config;
  config.credentials = {"AKIDEXAMPLE", kSecret, ""};
  config.region = "us-east-1";
  config.endpoint = S3TestServer::Get().Endpoint();
  config.path_style = true;
  config.max_attempts = 4;
  config.part_size_bytes = 5 * kMiB;
  config.multipart_threshold_bytes = 5 * kMiB;
  return config;
}

class S3ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    S3TestServer::Get().CreateBucket(kBucket);
    ASSERT_OK_AND_ASSIGN(client_, S3Client::Make(TestConfig()));
  }

  /// A client sending through `transport_`.
  std::shared_ptr<S3Client> FaultyClient(int max_attempts = 4) {
    S3Config config = TestConfig();
    config.max_attempts = max_attempts;
    return S3Client::Make(config, transport_).ValueOrDie();
  }

  std::string Read(const S3Location& object) {
    S3ObjectInfo info = client_->HeadObject(object).ValueOrDie();
    std::string bytes(static_cast<size_t>(info.size), '\0');
    EXPECT_OK(client_->GetObjectRange(object, 0, bytes, ""));
    return bytes;
  }

  std::vector<std::string> Keys(const std::string& prefix) {
    S3ListRequest request;
    request.prefix = prefix;
    Result<S3ListPage> page = client_->ListObjectsV2(kBucket, request);
    EXPECT_OK(page.status());
    std::vector<std::string> keys;
    for (const S3ObjectInfo& object : page.ValueOr(S3ListPage()).objects) {
      keys.push_back(object.key);
    }
    return keys;
  }

  std::shared_ptr<S3Client> client_;
  std::shared_ptr<FaultyTransport> transport_ = std::make_shared<FaultyTransport>();
};

TEST_F(S3ClientTest, PutHeadGetRoundTripsKeysThatNeedEncoding) {
  // Spaces, '+', '=', '%', non-ASCII and dot segments all survive encoding and signing.
  for (std::string key : {"plain.txt", "a b/c+d=e%f.json", "dir/./x/../é ü", "k~!'()*,;:@&$"}) {
    S3Location object{kBucket, key};
    std::string body = RepeatedContent(key, 1000);
    ASSERT_OK(client_->PutObject(object, body, WriteMode::kReplace));
    ASSERT_OK_AND_ASSIGN(S3ObjectInfo info, client_->HeadObject(object));
    EXPECT_EQ(info.size, 1000);
    EXPECT_GT(info.modification_time_ms, 1700000000000);
    EXPECT_EQ(Read(object), body) << key;
    std::string middle(10, '\0');
    ASSERT_OK(client_->GetObjectRange(object, 500, middle, info.etag));
    EXPECT_EQ(middle, body.substr(500, 10));
    ASSERT_OK_AND_ASSIGN(std::string oracle_bytes, testing::OracleGet(kBucket, key));
    EXPECT_EQ(oracle_bytes, body) << "the AWS SDK reads what we wrote under '" << key << "'";
  }
  EXPECT_EQ(Keys(""), (std::vector<std::string>{"a b/c+d=e%f.json", "dir/./x/../é ü",
                                                "k~!'()*,;:@&$", "plain.txt"}));
}

TEST_F(S3ClientTest, EmptyAndLargeBodiesArriveWhole) {
  // A body above 1 MiB is where curl would ask "Expect: 100-continue"; a form content type
  // would make the server store it empty.
  std::string large = RepeatedContent("L|", 3 * kMiB + 7);
  ASSERT_OK(client_->PutObject({kBucket, "large"}, large, WriteMode::kReplace));
  ASSERT_OK(client_->PutObject({kBucket, "empty"}, "", WriteMode::kReplace));
  EXPECT_EQ(Read({kBucket, "large"}), large);
  EXPECT_EQ(client_->HeadObject({kBucket, "empty"})->size, 0);
}

TEST_F(S3ClientTest, ListsPageByPageWithStartAfterAndDelimiter) {
  for (std::string key : {"log/001.json", "log/002.json", "log/003.json", "log/004.json",
                          "log/005.json", "log/sub/x", "other"}) {
    ASSERT_OK(client_->PutObject({kBucket, key}, key, WriteMode::kReplace));
  }
  S3ListRequest request;
  request.prefix = "log/";
  request.delimiter = "/";
  request.start_after = "log/001.json";
  request.max_keys = 2;
  std::vector<std::string> seen;
  int pages = 0;
  do {
    ASSERT_OK_AND_ASSIGN(S3ListPage page, client_->ListObjectsV2(kBucket, request));
    ++pages;
    for (const S3ObjectInfo& object : page.objects) {
      seen.push_back(object.key);
      EXPECT_EQ(object.size, static_cast<int64_t>(object.key.size()));
    }
    for (const std::string& common_prefix : page.common_prefixes) {
      seen.push_back(common_prefix);
    }
    request.continuation_token = page.next_continuation_token;
  } while (!request.continuation_token.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"log/002.json", "log/003.json", "log/004.json",
                                            "log/005.json", "log/sub/"}));
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(client_->RequestCounts().list_requests, 3);
}

TEST_F(S3ClientTest, ConditionalPutFailsWhenTheKeyExists) {
  S3Location object{kBucket, "_delta_log/00000000000000000000.json"};
  ASSERT_OK(client_->PutObject(object, "first", WriteMode::kPutIfAbsent));
  Status second = client_->PutObject(object, "second", WriteMode::kPutIfAbsent);
  ASSERT_RAISES(AlreadyExists, second);
  EXPECT_NE(second.Message().find("S3 PutObject s3://client-test/_delta_log/"
                                  "00000000000000000000.json: HTTP 412 PreconditionFailed"),
            std::string::npos)
      << second.Message();
  EXPECT_EQ(Read(object), "first");
  ASSERT_OK(client_->PutObject(object, "replaced", WriteMode::kReplace));
  EXPECT_EQ(Read(object), "replaced");
}

TEST_F(S3ClientTest, ErrorsNameOperationObjectAndS3CodeButNoSecret) {
  Result<S3ObjectInfo> missing = client_->HeadObject({kBucket, "no/such key"});
  ASSERT_RAISES(NotFound, missing.status());
  EXPECT_NE(missing.status().Message().find("S3 HeadObject s3://client-test/no/such key: HTTP 404"),
            std::string::npos)
      << missing.status().Message();

  S3ListRequest request;
  Result<S3ListPage> no_bucket = client_->ListObjectsV2("no-such-bucket", request);
  ASSERT_RAISES(NotFound, no_bucket.status());
  EXPECT_NE(no_bucket.status().Message().find(
                "S3 ListObjectsV2 s3://no-such-bucket: HTTP 404 NoSuchBucket: "),
            std::string::npos)
      << no_bucket.status().Message();

  std::string out(4, '\0');
  Status no_key = client_->GetObjectRange({kBucket, "gone"}, 0, out, "");
  ASSERT_RAISES(NotFound, no_key);
  EXPECT_NE(no_key.Message().find("HTTP 404 NoSuchKey"), std::string::npos) << no_key.Message();
  for (const Status& status : {missing.status(), no_bucket.status(), no_key}) {
    EXPECT_EQ(status.ToString().find(kSecret), std::string::npos);
    EXPECT_FALSE(status.IsRetryable());
  }
}

TEST_F(S3ClientTest, ReadOfAReplacedObjectFailsInsteadOfMixingVersions) {
  S3Location object{kBucket, "_last_checkpoint"};
  ASSERT_OK(client_->PutObject(object, "version one", WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(S3ObjectInfo info, client_->HeadObject(object));
  ASSERT_OK(client_->PutObject(object, "version two", WriteMode::kReplace));
  std::string out(7, '\0');
  Status read = client_->GetObjectRange(object, 0, out, info.etag);
  ASSERT_RAISES(IOError, read);
  EXPECT_NE(read.Message().find("HTTP 412"), std::string::npos) << read.Message();
}

TEST_F(S3ClientTest, MultipartUploadCompletesWithTheMultipartEtag) {
  S3Location object{kBucket, "data/part-0.parquet"};
  std::string first = RepeatedContent("a|", 5 * kMiB);
  std::string last = RepeatedContent("b|", 1234);
  ASSERT_OK_AND_ASSIGN(std::string upload_id, client_->CreateMultipartUpload(object));
  ASSERT_OK_AND_ASSIGN(std::string etag1, client_->UploadPart(object, upload_id, 1, first));
  ASSERT_OK_AND_ASSIGN(std::string etag2, client_->UploadPart(object, upload_id, 2, last));
  ASSERT_OK_AND_ASSIGN(std::vector<S3MultipartUpload> uploads,
                       client_->ListMultipartUploads(kBucket, ""));
  ASSERT_EQ(uploads.size(), 1u);
  EXPECT_EQ(uploads[0].upload_id, upload_id);
  std::vector<std::string> etags = {etag1, etag2};
  ASSERT_OK(client_->CompleteMultipartUpload(object, upload_id, etags, WriteMode::kPutIfAbsent));
  EXPECT_EQ(Read(object), first + last);
  EXPECT_TRUE(client_->HeadObject(object)->etag.ends_with("-2"));
  EXPECT_TRUE(client_->ListMultipartUploads(kBucket, "")->empty());

  // A second conditional upload to the same key loses; aborting it leaves no parts.
  ASSERT_OK_AND_ASSIGN(std::string second_id, client_->CreateMultipartUpload(object));
  ASSERT_OK_AND_ASSIGN(std::string etag, client_->UploadPart(object, second_id, 1, "other"));
  std::vector<std::string> second_etags = {etag};
  ASSERT_RAISES(AlreadyExists, client_->CompleteMultipartUpload(object, second_id, second_etags,
                                                                WriteMode::kPutIfAbsent));
  ASSERT_OK(client_->AbortMultipartUpload(object, second_id));
  EXPECT_TRUE(client_->ListMultipartUploads(kBucket, "")->empty());
  EXPECT_EQ(Read(object), first + last);
}

TEST_F(S3ClientTest, DeleteObjectsRemovesEveryKeyOfABatch) {
  std::vector<std::string> keys;
  for (int i = 0; i < 25; ++i) {
    keys.push_back("batch/" + std::to_string(i) + (i % 2 ? " odd&<>" : ""));
    ASSERT_OK(client_->PutObject({kBucket, keys.back()}, "x", WriteMode::kReplace));
  }
  ASSERT_OK(client_->PutObject({kBucket, "keep"}, "x", WriteMode::kReplace));
  ASSERT_OK(client_->DeleteObjects(kBucket, keys));
  EXPECT_EQ(Keys(""), std::vector<std::string>{"keep"});
  EXPECT_EQ(client_->RequestCounts().delete_requests, 1);
}

TEST_F(S3ClientTest, CountsEveryRequestAndByte) {
  ASSERT_OK(client_->PutObject({kBucket, "a"}, "12345", WriteMode::kReplace));
  ASSERT_OK(client_->HeadObject({kBucket, "a"}).status());
  std::string out(3, '\0');
  ASSERT_OK(client_->GetObjectRange({kBucket, "a"}, 1, out, ""));
  S3ListRequest request;
  ASSERT_OK(client_->ListObjectsV2(kBucket, request).status());
  ASSERT_OK(client_->CopyObject({kBucket, "a"}, {kBucket, "b"}));
  ASSERT_OK(client_->DeleteObject({kBucket, "a"}));
  StorageRequestCounts expected;
  expected.put_requests = 2;
  expected.get_requests = 2;
  expected.list_requests = 1;
  expected.delete_requests = 1;
  expected.bytes_read = 3;
  expected.bytes_written = 5;
  EXPECT_EQ(client_->RequestCounts(), expected);
  EXPECT_EQ(Read({kBucket, "b"}), "12345");
}

TEST_F(S3ClientTest, RetriesThrottlingAndServerErrorsThenSucceeds) {
  std::shared_ptr<S3Client> client = FaultyClient();
  transport_->Arm("PUT", "/client-test/k", Fault::kSlowDown, 2);
  transport_->Arm("PUT", "/client-test/k", Fault::kInternalError);
  ASSERT_OK(client->PutObject({kBucket, "k"}, "value", WriteMode::kPutIfAbsent));
  EXPECT_EQ(transport_->ArmedFaults(), 0);
  EXPECT_EQ(client->RequestCounts().put_requests, 4) << "retries count as requests";
  EXPECT_EQ(Read({kBucket, "k"}), "value");
}

TEST_F(S3ClientTest, GivesUpAfterMaxAttemptsWithARetryableError) {
  std::shared_ptr<S3Client> client = FaultyClient(/*max_attempts=*/3);
  transport_->Arm("GET", "list-type=2", Fault::kSlowDown, 3);
  S3ListRequest request;
  Result<S3ListPage> page = client->ListObjectsV2(kBucket, request);
  ASSERT_RAISES(IOError, page.status());
  EXPECT_TRUE(page.status().IsRetryable());
  EXPECT_EQ(page.status().Message(),
            "S3 ListObjectsV2 s3://client-test: HTTP 503 SlowDown: Please reduce your request "
            "rate. (after 3 attempts)");
  EXPECT_EQ(client->RequestCounts().list_requests, 3);
}

TEST_F(S3ClientTest, RetriesDroppedConnections) {
  std::shared_ptr<S3Client> client = FaultyClient();
  ASSERT_OK(client_->PutObject({kBucket, "k"}, "value", WriteMode::kReplace));
  transport_->Arm("HEAD", "/client-test/k", Fault::kDropConnection, 3);
  ASSERT_OK_AND_ASSIGN(S3ObjectInfo info, client->HeadObject({kBucket, "k"}));
  EXPECT_EQ(info.size, 5);
  EXPECT_EQ(transport_->Delivered(), 1);
}

TEST_F(S3ClientTest, ConditionalPutWhoseResponseIsLostIsRecognizedAsOurs) {
  std::shared_ptr<S3Client> client = FaultyClient();
  S3Location object{kBucket, "_delta_log/00000000000000000001.json"};
  transport_->Arm("PUT", "00000000000000000001.json", Fault::kLoseResponse);
  // The first attempt creates the object; the retry gets 412, and the object is ours.
  ASSERT_OK(client->PutObject(object, "our commit", WriteMode::kPutIfAbsent));
  EXPECT_EQ(transport_->Delivered(), 3) << "PUT, PUT (412), HEAD";
  EXPECT_EQ(Read(object), "our commit");
  EXPECT_EQ(Keys("_delta_log/"), std::vector<std::string>{object.key});
}

TEST_F(S3ClientTest, ConditionalPutWhoseResponseIsLostStillLosesToAnotherWriter) {
  std::shared_ptr<S3Client> client = FaultyClient();
  S3Location object{kBucket, "_delta_log/00000000000000000001.json"};
  ASSERT_OK(client_->PutObject(object, "their commit", WriteMode::kPutIfAbsent));
  transport_->Arm("PUT", "00000000000000000001.json", Fault::kLoseResponse);
  ASSERT_RAISES(AlreadyExists, client->PutObject(object, "our commit", WriteMode::kPutIfAbsent));
  EXPECT_EQ(Read(object), "their commit");
}

TEST_F(S3ClientTest, CompleteWhoseResponseIsLostIsRecognizedAsOurs) {
  // moto answers a repeated Complete with 200; S3 may answer 412 or 404 NoSuchUpload, which
  // the transport plays for the retry. Either way the object is recognized as ours by its
  // multipart ETag; another writer's object is not.
  for (Fault retry_answer : {Fault::kPreconditionFailed, Fault::kNoSuchUpload}) {
    std::shared_ptr<S3Client> client = FaultyClient();
    S3Location object{kBucket, "big"};
    std::string part1 = RepeatedContent("1|", 5 * kMiB);
    std::string part2 = RepeatedContent("2|", 100);
    ASSERT_OK_AND_ASSIGN(std::string upload_id, client->CreateMultipartUpload(object));
    ASSERT_OK_AND_ASSIGN(std::string etag1, client->UploadPart(object, upload_id, 1, part1));
    ASSERT_OK_AND_ASSIGN(std::string etag2, client->UploadPart(object, upload_id, 2, part2));
    transport_->Arm("POST", "uploadId=", Fault::kLoseResponse);
    transport_->Arm("POST", "uploadId=", retry_answer);
    std::vector<std::string> etags = {etag1, etag2};
    ASSERT_OK(client->CompleteMultipartUpload(object, upload_id, etags, WriteMode::kPutIfAbsent));
    EXPECT_EQ(transport_->ArmedFaults(), 0);
    EXPECT_EQ(Read(object), part1 + part2);
    EXPECT_TRUE(client_->ListMultipartUploads(kBucket, "")->empty());

    ASSERT_OK(client_->PutObject(object, part1 + part2, WriteMode::kReplace));  // single-part
    ASSERT_OK_AND_ASSIGN(upload_id, client->CreateMultipartUpload(object));
    ASSERT_OK_AND_ASSIGN(etag1, client->UploadPart(object, upload_id, 1, part1));
    ASSERT_OK_AND_ASSIGN(etag2, client->UploadPart(object, upload_id, 2, part2));
    transport_->Arm("POST", "uploadId=", Fault::kInternalError);
    transport_->Arm("POST", "uploadId=", retry_answer);
    etags = {etag1, etag2};
    Status lost =
        client->CompleteMultipartUpload(object, upload_id, etags, WriteMode::kPutIfAbsent);
    EXPECT_FALSE(lost.ok()) << "the object there has the same bytes but is not our upload";
    ASSERT_OK(client->AbortMultipartUpload(object, upload_id));
    ASSERT_OK(client_->DeleteObject(object));
  }
}

TEST_F(S3ClientTest, ConnectionFailuresAreRetryableAfterTheLastAttempt) {
  // A port nothing listens on, and a server that closes every connection without answering.
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  const int port = ntohs(address.sin_port);
  std::atomic<int> accepted{0};
  std::thread closer([&] {
    for (int i = 0; i < 2; ++i) {
      int connection = ::accept(listener, nullptr, nullptr);
      if (connection >= 0) {
        ++accepted;
        ::close(connection);
      }
    }
  });
  S3Config config = TestConfig();
  config.max_attempts = 2;
  config.endpoint = "http://127.0.0.1:" + std::to_string(port);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<S3Client> dropping, S3Client::Make(config));
  Status dropped = dropping->PutObject({kBucket, "k"}, "value", WriteMode::kPutIfAbsent);
  closer.join();
  ::close(listener);
  EXPECT_EQ(accepted.load(), 2);
  ASSERT_RAISES(IOError, dropped);
  EXPECT_TRUE(dropped.IsRetryable()) << dropped.ToString();
  EXPECT_NE(dropped.Message().find("S3 PutObject s3://client-test/k: "), std::string::npos);
  EXPECT_NE(dropped.Message().find("(after 2 attempts)"), std::string::npos) << dropped.Message();

  // The listener is closed now: connection refused.
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<S3Client> refused, S3Client::Make(config));
  Result<S3ObjectInfo> head = refused->HeadObject({kBucket, "k"});
  ASSERT_RAISES(IOError, head.status());
  EXPECT_TRUE(head.status().IsRetryable()) << head.status().ToString();
  EXPECT_EQ(refused->RequestCounts().get_requests, 2);
}

TEST_F(S3ClientTest, RefusesPartsBelowFiveMiBAndMalformedEndpoints) {
  S3Config config = TestConfig();
  config.part_size_bytes = kMiB;
  ASSERT_RAISES(InvalidArgument, S3Client::Make(config).status());
  config = TestConfig();
  config.endpoint = "ftp://host";
  ASSERT_RAISES(InvalidArgument, S3Client::Make(config).status());
  config.endpoint = "http://host/path";
  ASSERT_RAISES(InvalidArgument, S3Client::Make(config).status());
}

}  // namespace
}  // namespace tributary::storage

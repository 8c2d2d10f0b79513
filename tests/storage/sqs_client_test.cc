// SqsClient and S3ObjectCreatedQueue against moto, which serves SQS on the S3 endpoint and
// delivers S3 event notifications to SQS queues as S3 does; objects land through the AWS SDK for
// JavaScript (the oracle), so the events come from an independent client's writes.

#include "storage/sqs_client.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/aws_config.h"
#include "storage/faulty_http_transport.h"
#include "storage/s3_event_queue.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"

namespace tributary::storage {
namespace {

using ::tributary::testing::OraclePut;
using ::tributary::testing::S3TestServer;

constexpr const char* kBucket = "events-test";
constexpr const char* kSecret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";

/// The server's configuration as sessions resolve it, with a secret no message may contain.
S3Config TestConfig() {
  S3Config config = ResolveS3Config(S3TestServer::Get().Options()).ValueOrDie();
  config.credentials.secret_access_key = kSecret;
  return config;
}

class SqsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    S3TestServer::Get().CreateBucket(kBucket);
  }
};

std::vector<std::string> Sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

TEST(ParseS3CreatedObjectsTest, DecodesKeysAndIgnoresTestAndOtherEvents) {
  // The documented message format: keys URL-encoded with '+' for a space.
  ASSERT_OK_AND_ASSIGN(
      std::vector<S3Location> created,
      ParseS3CreatedObjects(
          R"({"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","eventName":"ObjectCreated:Put",
               "s3":{"bucket":{"name":"b"},"object":{"key":"landing/a+b%2Bc%3D1.json","size":2}}},
              {"eventName":"ObjectRemoved:Delete","s3":{"bucket":{"name":"b"},"object":{"key":"gone"}}},
              {"eventName":"ObjectCreated:CompleteMultipartUpload",
               "s3":{"bucket":{"name":"b"},"object":{"key":"landing%2Fbig.json"}}}]})"));
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0], (S3Location{"b", "landing/a b+c=1.json"}));
  EXPECT_EQ(created[1], (S3Location{"b", "landing/big.json"}));
  ASSERT_OK_AND_ASSIGN(created, ParseS3CreatedObjects(R"({"Service":"Amazon S3",
      "Event":"s3:TestEvent","Time":"2024-01-01T00:00:00.000Z","Bucket":"b"})"));
  EXPECT_TRUE(created.empty());
  EXPECT_TRUE(ParseS3CreatedObjects("not json").status().IsInvalidArgument());
  EXPECT_TRUE(ParseS3CreatedObjects(R"({"hello":1})").status().IsInvalidArgument());
}

TEST_F(SqsClientTest, CreatedObjectsUnderThePrefixArriveOnceThroughTheQueue) {
  ASSERT_OK_AND_ASSIGN(auto queue,
                       S3ObjectCreatedQueue::Open(TestConfig(), "s3://events-test/landing/", "",
                                                  "tributary-auto-ingest-test"));
  // Opening again finds the same queue and replaces the notification instead of adding one
  // (else every object would be announced twice).
  ASSERT_OK_AND_ASSIGN(auto again,
                       S3ObjectCreatedQueue::Open(TestConfig(), "s3://events-test/landing", "",
                                                  "tributary-auto-ingest-test"));
  EXPECT_EQ(again->QueueUrl(), queue->QueueUrl());

  ASSERT_OK(OraclePut(kBucket, "landing/a b+c.json", "{}"));
  ASSERT_OK(OraclePut(kBucket, "landing/day=1/x.json", "{}"));
  ASSERT_OK(OraclePut(kBucket, "landingzone/no.json", "{}"));
  ASSERT_OK(OraclePut(kBucket, "other/no.json", "{}"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> uris, queue->Receive(100));
  EXPECT_EQ(Sorted(uris), (std::vector<std::string>{"s3://events-test/landing/a b+c.json",
                                                    "s3://events-test/landing/day=1/x.json"}));
  // The received messages were deleted.
  ASSERT_OK_AND_ASSIGN(uris, again->Receive(100));
  EXPECT_TRUE(uris.empty());
}

TEST_F(SqsClientTest, AGivenQueueIsReadAsIsAndSpelledUnderTheBase) {
  ASSERT_OK_AND_ASSIGN(auto sqs, SqsClient::Make(TestConfig()));
  ASSERT_OK_AND_ASSIGN(std::string url, sqs->CreateQueue("given"));
  ASSERT_OK_AND_ASSIGN(
      auto queue, S3ObjectCreatedQueue::Open(TestConfig(), "s3a://events-test/in", url, "unused"));
  // Nothing was set up: objects landing now announce nothing.
  ASSERT_OK(OraclePut(kBucket, "in/a.json", "{}"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> uris, queue->Receive(100));
  EXPECT_TRUE(uris.empty());
  // Whoever set the queue up sends the events; another bucket's are dropped.
  ASSERT_OK_AND_ASSIGN(std::string arn, sqs->GetQueueArn(url));
  ASSERT_OK_AND_ASSIGN(auto s3, S3Client::Make(TestConfig()));
  ASSERT_OK(s3->PutBucketQueueNotification(kBucket, "theirs", arn, ""));
  ASSERT_OK(OraclePut(kBucket, "in/b.json", "{}"));
  ASSERT_OK(OraclePut(kBucket, "top.json", "{}"));
  ASSERT_OK_AND_ASSIGN(uris, queue->Receive(100));
  EXPECT_EQ(uris, (std::vector<std::string>{"s3a://events-test/in/b.json"}));
}

TEST_F(SqsClientTest, ErrorsNameOperationQueueAndCodeAndTransientFailuresAreRetried) {
  auto transport = std::make_shared<FaultyTransport>();
  S3Config config = TestConfig();
  ASSERT_OK_AND_ASSIGN(auto sqs, SqsClient::Make(config, transport));
  ASSERT_OK_AND_ASSIGN(std::string url, sqs->CreateQueue("retried"));
  transport->Arm("POST", "/", Fault::kDropConnection, 2);
  const int64_t before = sqs->RequestCount();
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> messages, sqs->ReceiveMessages(url));
  EXPECT_TRUE(messages.empty());
  EXPECT_EQ(sqs->RequestCount() - before, 3);

  const std::string missing = url + "-missing";
  Status status = sqs->ReceiveMessages(missing).status();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.Message().find("SQS ReceiveMessage " + missing + ": HTTP 400"),
            std::string::npos)
      << status.ToString();
  EXPECT_NE(status.Message().find("QueueDoesNotExist: The specified queue does not exist"),
            std::string::npos)
      << status.ToString();
  EXPECT_EQ(status.Message().find(kSecret), std::string::npos);
  EXPECT_FALSE(status.IsRetryable());
}

/// Answers every request with an empty queue and records the URLs asked.
class RecordingTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request) override {
    urls.push_back(request.url);
    return HttpResponse{200, {}, "{}"};
  }
  std::vector<std::string> urls;
};

TEST(SqsEndpointTest, AnEmulatorsEndpointIsSharedButAwsS3EndpointsAreS3s) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "https://sqs.eu-west-1.amazonaws.com/"},
      {"https://s3.eu-west-1.amazonaws.com", "https://sqs.eu-west-1.amazonaws.com/"},
      {"http://127.0.0.1:5000/", "http://127.0.0.1:5000/"},
      {"minio.internal:9000", "https://minio.internal:9000/"}};
  for (const auto& [s3_endpoint, sqs_url] : cases) {
    S3Config config;
    config.region = "eu-west-1";
    config.endpoint = s3_endpoint;
    auto transport = std::make_shared<RecordingTransport>();
    ASSERT_OK_AND_ASSIGN(auto sqs, SqsClient::Make(config, transport));
    ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> messages, sqs->ReceiveMessages("q"));
    EXPECT_TRUE(messages.empty());
    EXPECT_EQ(transport->urls, std::vector<std::string>{sqs_url}) << s3_endpoint;
  }
}

}  // namespace
}  // namespace tributary::storage

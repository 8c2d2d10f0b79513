// Auto Loader's notification mode on S3 against moto, which delivers S3 event notifications to
// SQS queues as S3 does: files landed before the start are found by the listing at start, later
// ones through the queue with no listing (ListObjectsV2 requests stay put), a given
// cloudFiles.queueUrl is read as is, and backfillInterval lists again to find what the queue
// missed. Objects land through the AWS SDK for JavaScript (support/s3_test_server.h).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/data_sources.h"
#include "storage/s3_client.h"
#include "storage/sigv4.h"
#include "storage/sqs_client.h"
#include "storage/uri_file_system.h"
#include "streaming/cloud_files_source.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::streaming {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using ::tributary::testing::OraclePut;
using ::tributary::testing::S3TestServer;

constexpr const char* kBucket = "notified";
constexpr int64_t kStartMs = 1'767'225'600'000;

class CloudFilesNotificationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    S3TestServer::Get().CreateBucket(kBucket);
    fs_ = std::make_unique<storage::UriFileSystem>(S3TestServer::Get().Options());
    context_.fs = fs_.get();
    context_.checkpoint_location = dir_.Join("checkpoint");
    context_.metadata_dir = context_.checkpoint_location + "/sources/0";
    context_.session_config = S3TestServer::Get().Options();
    ASSERT_OK(fs_->CreateDir(context_.metadata_dir));
    config_ = storage::ResolveS3Config(S3TestServer::Get().Options()).ValueOrDie();
  }

  std::unique_ptr<Source> OpenSource(formats::OptionMap options,
                                     const std::string& path = kLanding) {
    options.emplace("cloudFiles.format", "json");
    options.emplace("cloudFiles.useNotifications", "true");
    auto definition =
        CloudFilesSourceDefinition::Make(*fs_, path, options, *plan::ParseSchemaDdl("id INT"),
                                         context_.session_config, {}, [this] { return now_ms_; });
    EXPECT_OK(definition.status());
    auto source = (*definition)->Open(context_);
    EXPECT_OK(source.status());
    return source.ok() ? std::move(*source) : nullptr;
  }

  /// The files (below landing/) the next trigger takes, committing it.
  std::vector<std::string> NextFiles(Source& source) {
    auto latest = source.LatestOffset(start_, true);
    EXPECT_OK(latest.status());
    if (!latest.ok() || !latest->has_value() || *latest == start_) {
      return {};
    }
    auto batch = source.GetBatch(start_, **latest);
    EXPECT_OK(batch.status());
    std::vector<std::string> names;
    for (const std::string& path : batch->files.paths) {
      names.push_back(path.substr(std::string(kLanding).size() + 1));
    }
    EXPECT_OK(source.Commit(**latest));
    start_ = *latest;
    return names;
  }

  int64_t ListRequests() const { return fs_->RequestCounts().list_requests; }

  static constexpr const char* kLanding = "s3://notified/landing";

  testing::TempDir dir_;
  std::unique_ptr<storage::UriFileSystem> fs_;
  SourceContext context_;
  storage::S3Config config_;
  std::optional<Offset> start_;
  int64_t now_ms_ = kStartMs;
};

TEST_F(CloudFilesNotificationTest, ListsAtStartThenTakesAnnouncedFilesWithoutListing) {
  ASSERT_OK(OraclePut(kBucket, "landing/before.json", "{\"id\":1}\n"));
  auto source = OpenSource({{"cloudFiles.backfillInterval", "1 minute"}});
  ASSERT_NE(source, nullptr);
  EXPECT_THAT(NextFiles(*source), ElementsAre("before.json"));
  EXPECT_EQ(source->Metrics()["numFullListings"], "1");

  const int64_t lists = ListRequests();
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(OraclePut(kBucket, "landing/n" + std::to_string(i) + ".json", "{\"id\":2}\n"));
    ASSERT_OK(OraclePut(kBucket, "landing/day=" + std::to_string(i) + "/a b+c.json", "{}\n"));
    ASSERT_OK(OraclePut(kBucket, "elsewhere/x" + std::to_string(i) + ".json", "{}\n"));
    const std::string n = std::to_string(i);
    EXPECT_THAT(NextFiles(*source),
                UnorderedElementsAre("day=" + n + "/a b+c.json", "n" + n + ".json"));
  }
  EXPECT_THAT(NextFiles(*source), IsEmpty());
  EXPECT_EQ(ListRequests(), lists);
  EXPECT_EQ(source->Metrics()["numFullListings"], "1");

  // An event the queue lost (its message taken by someone else) is found by the backfill
  // listing once backfillInterval has passed, and only then.
  ASSERT_OK(OraclePut(kBucket, "landing/missed.json", "{\"id\":3}\n"));
  ASSERT_OK_AND_ASSIGN(auto sqs, storage::SqsClient::Make(config_));
  const std::string queue_name =
      "tributary-auto-ingest-" + storage::Sha256Hex(context_.metadata_dir).substr(0, 16);
  ASSERT_OK_AND_ASSIGN(std::string queue_url, sqs->CreateQueue(queue_name));
  ASSERT_OK_AND_ASSIGN(std::vector<storage::SqsMessage> stolen, sqs->ReceiveMessages(queue_url));
  ASSERT_EQ(stolen.size(), 1u);
  EXPECT_THAT(stolen[0].body, HasSubstr("missed.json"));
  ASSERT_OK(sqs->DeleteMessages(queue_url, stolen));
  EXPECT_THAT(NextFiles(*source), IsEmpty());
  EXPECT_EQ(ListRequests(), lists);
  now_ms_ += 61'000;
  EXPECT_THAT(NextFiles(*source), ElementsAre("missed.json"));
  EXPECT_GT(ListRequests(), lists);
  EXPECT_EQ(source->Metrics()["numFullListings"], "2");
}

TEST_F(CloudFilesNotificationTest, AGivenQueueUrlIsUsedAsIsAndNothingIsSetUp) {
  ASSERT_OK_AND_ASSIGN(auto sqs, storage::SqsClient::Make(config_));
  ASSERT_OK_AND_ASSIGN(std::string queue_url, sqs->CreateQueue("theirs"));
  auto source = OpenSource({{"cloudFiles.queueUrl", queue_url}});
  ASSERT_NE(source, nullptr);
  EXPECT_THAT(NextFiles(*source), IsEmpty());
  // No notification was configured: a landed file announces nothing anywhere.
  ASSERT_OK(OraclePut(kBucket, "landing/unannounced.json", "{\"id\":1}\n"));
  EXPECT_THAT(NextFiles(*source), IsEmpty());
  // Once its owner points the bucket at the queue, files arrive through it.
  ASSERT_OK_AND_ASSIGN(std::string arn, sqs->GetQueueArn(queue_url));
  ASSERT_OK_AND_ASSIGN(auto s3, storage::S3Client::Make(config_));
  ASSERT_OK(s3->PutBucketQueueNotification(kBucket, "theirs", arn, "landing/"));
  const int64_t lists = ListRequests();
  ASSERT_OK(OraclePut(kBucket, "landing/announced.json", "{\"id\":2}\n"));
  EXPECT_THAT(NextFiles(*source), ElementsAre("announced.json"));
  EXPECT_EQ(ListRequests(), lists);
  EXPECT_EQ(source->Metrics()["numFullListings"], "1");
}

TEST_F(CloudFilesNotificationTest, AQueueUrlOnALocalDirectoryIsRefused) {
  ASSERT_OK(fs_->CreateDir(dir_.Join("in")));
  auto source = OpenSource({{"cloudFiles.queueUrl", "https://sqs.us-east-1.amazonaws.com/1/q"}},
                           dir_.Join("in"));
  ASSERT_NE(source, nullptr);
  Status status = source->LatestOffset(std::nullopt, true).status();
  EXPECT_TRUE(status.IsInvalidArgument()) << status.ToString();
  EXPECT_THAT(status.ToString(), HasSubstr("cloudFiles.queueUrl applies to S3 paths"));
}

}  // namespace
}  // namespace tributary::streaming

// KinesisClient against moto's Kinesis (the S3 test server's port), with records put, shards
// split and merged by botocore (support/kinesis_oracle.h), an independent client.

#include "storage/kinesis_client.h"

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/aws_config.h"
#include "storage/faulty_http_transport.h"
#include "support/kinesis_oracle.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::tributary::testing::KinesisOracleCreateStream;
using ::tributary::testing::KinesisOracleMerge;
using ::tributary::testing::KinesisOraclePut;
using ::tributary::testing::KinesisOracleSplit;
using ::tributary::testing::KinesisPut;
using ::tributary::testing::S3TestServer;

constexpr const char* kSecret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
using Type = KinesisIteratorStart::Type;

S3Config TestConfig() {
  S3Config config = ResolveS3Config(S3TestServer::Get().Options()).ValueOrDie();
  config.credentials.secret_access_key = kSecret;
  return config;
}

class KinesisClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    ASSERT_OK_AND_ASSIGN(client_, KinesisClient::Make(TestConfig()));
  }

  /// Every record of the shard from `start`, page by page of `limit`.
  std::vector<KinesisRecord> ReadAll(const std::string& stream, const std::string& shard,
                                     const KinesisIteratorStart& start, int64_t limit = 10000) {
    std::vector<KinesisRecord> records;
    auto iterator = client_->GetShardIterator(stream, shard, start);
    EXPECT_OK(iterator.status());
    std::string next = iterator.ok() ? *iterator : "";
    for (int page = 0; page < 1000 && !next.empty(); ++page) {
      auto got = client_->GetRecords(stream, shard, next, limit);
      EXPECT_OK(got.status());
      if (!got.ok()) {
        break;
      }
      const bool empty = got->records.empty();
      for (KinesisRecord& record : got->records) {
        records.push_back(std::move(record));
      }
      next = got->next_iterator;
      if (empty) {
        break;
      }
    }
    return records;
  }

  static std::vector<std::string> Data(const std::vector<KinesisRecord>& records) {
    std::vector<std::string> out;
    out.reserve(records.size());
    for (const KinesisRecord& record : records) {
      out.push_back(record.data);
    }
    return out;
  }

  std::shared_ptr<KinesisClient> client_;
};

TEST(KinesisSequenceNumberTest, ComparesAsNumbers) {
  EXPECT_LT(CompareKinesisSequenceNumbers("9", "10"), 0);
  EXPECT_GT(
      CompareKinesisSequenceNumbers("49590338271490256608559692538361571095921575989136588898",
                                    "49590338271490256608559692538361571095921575989136588897"),
      0);
  EXPECT_EQ(CompareKinesisSequenceNumbers("007", "7"), 0);
  EXPECT_LT(CompareKinesisSequenceNumbers("0", "1"), 0);
}

TEST_F(KinesisClientTest, ReadsWhatBotocorePutFromEveryIteratorType) {
  ASSERT_OK(KinesisOracleCreateStream("events", 1));
  std::string binary;
  for (int byte = 0; byte < 256; ++byte) {
    binary.push_back(static_cast<char>(byte));
  }
  ASSERT_OK_AND_ASSIGN(
      std::vector<KinesisPut> puts,
      KinesisOraclePut("events",
                       {{"k1", "a"}, {"k2", "bb"}, {"k3", binary}, {"k4", "dddd"}, {"k5", ""}}));
  ASSERT_EQ(puts.size(), 5u);
  const std::string shard = puts[0].shard_id;
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisShard> shards, client_->ListShards("events"));
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_EQ(shards[0].shard_id, shard);
  EXPECT_FALSE(shards[0].Closed());
  ASSERT_OK_AND_ASSIGN(std::string status, client_->StreamStatus("events"));
  EXPECT_EQ(status, "ACTIVE");

  std::vector<KinesisRecord> all = ReadAll("events", shard, {Type::kTrimHorizon, "", 0}, 2);
  EXPECT_THAT(Data(all), ElementsAre("a", "bb", binary, "dddd", ""));
  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].sequence_number, puts[i].sequence_number);
    EXPECT_EQ(all[i].partition_key, "k" + std::to_string(i + 1));
    EXPECT_GT(all[i].approximate_arrival_micros, int64_t{1'600'000'000} * 1'000'000);
    // The test server's arrival times (what the AT_TIMESTAMP check below relies on): whole
    // milliseconds, each later than the one before.
    EXPECT_EQ(all[i].approximate_arrival_micros % 1000, 0);
    if (i > 0) {
      EXPECT_GT(all[i].approximate_arrival_micros, all[i - 1].approximate_arrival_micros);
    }
  }
  EXPECT_THAT(
      Data(ReadAll("events", shard, {Type::kAfterSequenceNumber, puts[1].sequence_number, 0})),
      ElementsAre(binary, "dddd", ""));
  EXPECT_THAT(Data(ReadAll("events", shard, {Type::kAtSequenceNumber, puts[1].sequence_number, 0})),
              ElementsAre("bb", binary, "dddd", ""));

  // LATEST sees only what comes after the iterator was taken.
  ASSERT_OK_AND_ASSIGN(std::string latest,
                       client_->GetShardIterator("events", shard, {Type::kLatest, "", 0}));
  ASSERT_OK_AND_ASSIGN(KinesisRecordsPage nothing,
                       client_->GetRecords("events", shard, latest, 100));
  EXPECT_TRUE(nothing.records.empty());
  EXPECT_FALSE(nothing.next_iterator.empty());
  ASSERT_OK(KinesisOraclePut("events", {{"k6", "after"}}).status());
  ASSERT_OK_AND_ASSIGN(KinesisRecordsPage after,
                       client_->GetRecords("events", shard, nothing.next_iterator, 100));
  EXPECT_THAT(Data(after.records), ElementsAre("after"));

  // AT_TIMESTAMP: the records that arrived at or after the time. The test server stamps each
  // record a whole millisecond after the one before, so a record put now arrives at or after
  // one past the last arrival.
  const int64_t last_arrival_ms = after.records[0].approximate_arrival_micros / 1000;
  const int64_t now_ms = last_arrival_ms + 1;
  ASSERT_OK(KinesisOraclePut("events", {{"k7", "timed"}}).status());
  EXPECT_THAT(Data(ReadAll("events", shard, {Type::kAtTimestamp, "", now_ms})),
              ElementsAre("timed"));
  EXPECT_THAT(Data(ReadAll("events", shard, {Type::kAtTimestamp, "", 0})),
              ElementsAre("a", "bb", binary, "dddd", "", "after", "timed"));
}

TEST_F(KinesisClientTest, ListsShardsPageByPageWithParentsAndEndsOfClosedShards) {
  ASSERT_OK(KinesisOracleCreateStream("resharded", 3));
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisShard> shards, client_->ListShards("resharded", 1));
  ASSERT_EQ(shards.size(), 3u);
  ASSERT_OK_AND_ASSIGN(
      std::vector<KinesisPut> puts,
      KinesisOraclePut("resharded",
                       {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"f", "6"}}));
  ASSERT_OK(KinesisOracleSplit("resharded", shards[0].shard_id, "1000"));
  ASSERT_OK(KinesisOracleMerge("resharded", shards[1].shard_id, shards[2].shard_id));
  ASSERT_OK_AND_ASSIGN(shards, client_->ListShards("resharded", 2));
  ASSERT_EQ(shards.size(), 6u);
  EXPECT_TRUE(shards[0].Closed());
  EXPECT_TRUE(shards[1].Closed());
  EXPECT_TRUE(shards[2].Closed());
  EXPECT_EQ(shards[3].parent_shard_id, shards[0].shard_id);
  EXPECT_EQ(shards[4].parent_shard_id, shards[0].shard_id);
  EXPECT_EQ(shards[5].parent_shard_id, shards[1].shard_id);
  EXPECT_EQ(shards[5].adjacent_parent_shard_id, shards[2].shard_id);
  EXPECT_FALSE(shards[5].Closed());
  // A closed shard keeps its records, and reading it to its end ends the iterator.
  size_t in_parents = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(
        std::string iterator,
        client_->GetShardIterator("resharded", shards[i].shard_id, {Type::kTrimHorizon, "", 0}));
    ASSERT_OK_AND_ASSIGN(KinesisRecordsPage page,
                         client_->GetRecords("resharded", shards[i].shard_id, iterator, 100));
    in_parents += page.records.size();
    EXPECT_TRUE(page.next_iterator.empty()) << shards[i].shard_id;
    if (!page.records.empty()) {
      EXPECT_EQ(page.records.back().sequence_number, shards[i].ending_sequence_number);
    }
  }
  EXPECT_EQ(in_parents, puts.size());
  // New records go to the open children only.
  ASSERT_OK_AND_ASSIGN(puts, KinesisOraclePut("resharded", {{"g", "7"}, {"h", "8"}}));
  for (const KinesisPut& put : puts) {
    EXPECT_THAT(put.shard_id,
                ::testing::AnyOf(shards[3].shard_id, shards[4].shard_id, shards[5].shard_id));
  }
}

TEST_F(KinesisClientTest, ErrorsNameOperationStreamAndCodeAndTransientFailuresAreRetried) {
  Status missing = client_->ListShards("nope").status();
  EXPECT_TRUE(missing.IsIOError()) << missing.ToString();
  EXPECT_THAT(missing.ToString(), HasSubstr("Kinesis ListShards nope: HTTP 400"));
  EXPECT_THAT(missing.ToString(), HasSubstr("ResourceNotFoundException"));
  EXPECT_THAT(missing.ToString(), Not(HasSubstr(kSecret)));

  ASSERT_OK(KinesisOracleCreateStream("flaky", 1));
  auto transport = std::make_shared<FaultyTransport>();
  ASSERT_OK_AND_ASSIGN(auto flaky, KinesisClient::Make(TestConfig(), transport));
  transport->Arm("POST", "/", Fault::kDropConnection, 2);
  const int64_t before = flaky->RequestCount();
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisShard> shards, flaky->ListShards("flaky"));
  EXPECT_EQ(shards.size(), 1u);
  EXPECT_EQ(flaky->RequestCount() - before, 3);

  Status bad_iterator =
      client_->GetShardIterator("flaky", "shardId-000000000009", {Type::kTrimHorizon, "", 0})
          .status();
  EXPECT_THAT(bad_iterator.ToString(),
              HasSubstr("Kinesis GetShardIterator flaky/shardId-000000000009"));
  EXPECT_THAT(bad_iterator.ToString(), HasSubstr("ResourceNotFoundException"));
}

}  // namespace
}  // namespace tributary::storage

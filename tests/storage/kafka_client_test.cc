// The Kafka consumer (storage/kafka_client.h) against the test broker (librdkafka's mock
// cluster in tools/kafka_test_broker), with records produced by kcat, an independent client.

#include "storage/kafka_client.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/kafka_numbered_records.h"
#include "support/kafka_test_cluster.h"
#include "support/status_matchers.h"

namespace tributary::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::KafkaTestCluster;
using ::testing::StartsWith;

class KafkaClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = KafkaTestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
  }

  std::unique_ptr<KafkaConsumer> Consumer(KafkaClientConfig extra = {}) {
    extra["bootstrap.servers"] = cluster_->BootstrapServers();
    auto consumer = KafkaConsumer::Make(std::move(extra));
    EXPECT_TRUE(consumer.ok()) << consumer.status().ToString();
    return consumer.ok() ? std::move(*consumer) : nullptr;
  }

  /// `count` records "k<i>" -> "v<i>" for i = first.. to `partition` of `topic`, by kcat.
  void Produce(const std::string& topic, int partition, int first, int count,
               const std::map<std::string, std::string>& headers = {}) {
    ASSERT_OK(cluster_->ProduceWithKcat(
        topic, testing::NumberedKafkaRecords(partition, first, count, headers)));
  }

  static Result<std::vector<KafkaRecord>> Read(
      KafkaConsumer& consumer, const KafkaTopicPartition& tp, int64_t start, int64_t end,
      std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::vector<KafkaRecord> records;
    TRIBUTARY_RETURN_NOT_OK(
        consumer.ReadRange(tp, start, end, timeout, [&records](const KafkaRecord& record) {
          records.push_back(record);
          return Status::OK();
        }));
    return records;
  }

  std::unique_ptr<KafkaTestCluster> cluster_;
};

std::vector<int64_t> Offsets(const std::vector<KafkaRecord>& records) {
  std::vector<int64_t> offsets;
  offsets.reserve(records.size());
  for (const KafkaRecord& record : records) {
    offsets.push_back(record.offset);
  }
  return offsets;
}

TEST(KafkaClientConfigTest, TakesTheKafkaPrefixedOptionsAndRefusesSparksForbiddenOnes) {
  ASSERT_OK_AND_ASSIGN(KafkaClientConfig config,
                       KafkaClientConfigFromOptions({{"kafka.bootstrap.servers", "h:9092"},
                                                     {"KAFKA.client.id", "me"},
                                                     {"subscribe", "t"},
                                                     {"kafka.", "ignored: no property name"}}));
  EXPECT_EQ(config, (KafkaClientConfig{{"bootstrap.servers", "h:9092"}, {"client.id", "me"}}));

  for (const char* refused :
       {"kafka.auto.offset.reset", "kafka.enable.auto.commit", "kafka.key.deserializer",
        "Kafka.Value.Deserializer", "kafka.interceptor.classes"}) {
    auto result = KafkaClientConfigFromOptions({{refused, "x"}});
    ASSERT_FALSE(result.ok()) << refused;
    EXPECT_TRUE(result.status().IsInvalidArgument());
    EXPECT_THAT(result.status().Message(), HasSubstr(refused));
  }
}

TEST(KafkaClientConfigTest, ConsumerNeedsBootstrapServersAndRefusesUnknownProperties) {
  auto missing = KafkaConsumer::Make({});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsInvalidArgument());
  EXPECT_THAT(missing.status().Message(), HasSubstr("kafka.bootstrap.servers"));

  auto unknown = KafkaConsumer::Make({{"bootstrap.servers", "127.0.0.1:1"}, {"no.such", "1"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(unknown.status().IsInvalidArgument());
  EXPECT_THAT(unknown.status().Message(), HasSubstr("'kafka.no.such'"));
}

TEST(KafkaClientConfigTest, TopicPartitionPrintsAsKafkaDoes) {
  EXPECT_EQ((KafkaTopicPartition{"events", 3}).ToString(), "events-3");
}

TEST_F(KafkaClientTest, ListsPartitionsByNameAndByWholeNamePattern) {
  ASSERT_OK(cluster_->CreateTopic("events", 3));
  ASSERT_OK(cluster_->CreateTopic("events-eu", 1));
  ASSERT_OK(cluster_->CreateTopic("audit", 2));
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);

  ASSERT_OK_AND_ASSIGN(auto named, consumer->ListPartitions({"events", "audit", "missing"}));
  EXPECT_THAT(named, ElementsAre(KafkaTopicPartition{"audit", 0}, KafkaTopicPartition{"audit", 1},
                                 KafkaTopicPartition{"events", 0}, KafkaTopicPartition{"events", 1},
                                 KafkaTopicPartition{"events", 2}));

  // A whole-name match: "events" alone does not match "events-eu".
  ASSERT_OK_AND_ASSIGN(auto matching, consumer->ListPartitionsMatching("ev.*-eu|audit"));
  EXPECT_THAT(matching,
              ElementsAre(KafkaTopicPartition{"audit", 0}, KafkaTopicPartition{"audit", 1},
                          KafkaTopicPartition{"events-eu", 0}));
  ASSERT_OK_AND_ASSIGN(auto none, consumer->ListPartitionsMatching("event"));
  EXPECT_TRUE(none.empty());

  auto bad = consumer->ListPartitionsMatching("(unclosed");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_THAT(bad.status().Message(), HasSubstr("(unclosed"));
}

TEST_F(KafkaClientTest, ReadsExactlyTheRequestedRangeWithKeysValuesHeadersAndTimestamps) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 1, 0, 5, {{"source", "kcat"}});
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);

  ASSERT_OK_AND_ASSIGN(auto marks, consumer->WatermarkOffsets({"events", 1}));
  EXPECT_EQ(marks, std::make_pair(int64_t{0}, int64_t{5}));
  ASSERT_OK_AND_ASSIGN(auto empty, consumer->WatermarkOffsets({"events", 0}));
  EXPECT_EQ(empty, std::make_pair(int64_t{0}, int64_t{0}));

  ASSERT_OK_AND_ASSIGN(auto middle, Read(*consumer, {"events", 1}, 1, 4));
  EXPECT_THAT(Offsets(middle), ElementsAre(1, 2, 3));
  for (const KafkaRecord& record : middle) {
    EXPECT_EQ(record.topic, "events");
    EXPECT_EQ(record.partition, 1);
    EXPECT_EQ(record.key, fmt::format("k{}", record.offset));
    EXPECT_EQ(record.value, fmt::format("v{}", record.offset));
    EXPECT_EQ(record.timestamp_type, 0);  // CreateTime, set by kcat's producer
    EXPECT_GT(record.timestamp_ms, 0);
    ASSERT_EQ(record.headers.size(), 1u);
    EXPECT_EQ(record.headers[0].key, "source");
    EXPECT_EQ(record.headers[0].value, "kcat");
  }

  // The same consumer reads another range next, and an empty range reads nothing.
  ASSERT_OK_AND_ASSIGN(auto all, Read(*consumer, {"events", 1}, 0, 5));
  EXPECT_THAT(Offsets(all), ElementsAre(0, 1, 2, 3, 4));
  // Nothing of the earlier assignment (its records, its end-of-partition event) leaks into a
  // read of a shorter range after it.
  ASSERT_OK_AND_ASSIGN(auto again, Read(*consumer, {"events", 1}, 1, 3));
  EXPECT_THAT(Offsets(again), ElementsAre(1, 2));
  ASSERT_OK_AND_ASSIGN(auto nothing, Read(*consumer, {"events", 1}, 3, 3));
  EXPECT_TRUE(nothing.empty());
}

TEST_F(KafkaClientTest, ReadingBelowTheEarliestOffsetIsOffsetOutOfRange) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 3);
  ASSERT_OK(cluster_->DeleteRecordsBefore("events", 0, 3));
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);
  ASSERT_OK_AND_ASSIGN(auto marks, consumer->WatermarkOffsets({"events", 0}));
  ASSERT_GT(marks.first, 0);

  Status read = Read(*consumer, {"events", 0}, 0, marks.second).status();
  EXPECT_TRUE(read.IsIOError()) << read.ToString();
  EXPECT_THAT(read.Message(), StartsWith("offset out of range"));
  EXPECT_THAT(read.Message(), HasSubstr("events-0"));
}

TEST_F(KafkaClientTest, AReadPastTheEndWaitsForTheTimeoutThenFailsRetryably) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 2);
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);
  // The first read connects and fetches, which under a loaded sanitizer build can take longer
  // than the short timeout below: done first with a long one, so that only the wait past the
  // end is timed.
  std::vector<int64_t> seen;
  ASSERT_OK(consumer->ReadRange({"events", 0}, 0, 2, std::chrono::seconds(30),
                                [&seen](const KafkaRecord& record) {
                                  seen.push_back(record.offset);
                                  return Status::OK();
                                }));
  ASSERT_THAT(seen, ElementsAre(0, 1));
  seen.clear();
  Status read = consumer->ReadRange({"events", 0}, 0, 4, std::chrono::milliseconds(1000),
                                    [&seen](const KafkaRecord& record) {
                                      seen.push_back(record.offset);
                                      return Status::OK();
                                    });
  EXPECT_THAT(seen, ElementsAre(0, 1));
  EXPECT_TRUE(read.IsIOError()) << read.ToString();
  EXPECT_TRUE(read.IsRetryable());
  EXPECT_THAT(read.Message(), HasSubstr("no record at offset 2"));
}

TEST_F(KafkaClientTest, AnErrorOfTheCallbackEndsTheRead) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 4);
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);
  int calls = 0;
  Status read = consumer->ReadRange(
      {"events", 0}, 0, 4, std::chrono::seconds(30), [&calls](const KafkaRecord& record) {
        ++calls;
        return record.offset == 1 ? Status::Cancelled("enough") : Status::OK();
      });
  EXPECT_EQ(read.Code(), StatusCode::kCancelled);
  EXPECT_EQ(calls, 2);
  // The consumer is unassigned and reads again.
  ASSERT_OK_AND_ASSIGN(auto all, Read(*consumer, {"events", 0}, 2, 4));
  EXPECT_THAT(Offsets(all), ElementsAre(2, 3));
}

// librdkafka's mock cluster answers every ListOffsets by timestamp with -1 ("FIXME: by
// timestamp" in rdkafka_mock_handlers.c), so only the no-match answer is checked against it.
TEST_F(KafkaClientTest, OffsetsForTimesAfterTheLastRecordIsMinusOne) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 3);
  auto consumer = Consumer();
  ASSERT_NE(consumer, nullptr);
  ASSERT_OK_AND_ASSIGN(auto records, Read(*consumer, {"events", 0}, 0, 3));
  ASSERT_EQ(records.size(), 3u);
  const int64_t later = records.back().timestamp_ms + 3'600'000;
  ASSERT_OK_AND_ASSIGN(auto found,
                       consumer->OffsetsForTimes({{{"events", 0}, later}, {{"events", 1}, later}}));
  EXPECT_EQ(found,
            (std::map<KafkaTopicPartition, int64_t>{{{"events", 0}, -1}, {{"events", 1}, -1}}));
  ASSERT_OK_AND_ASSIGN(auto none, consumer->OffsetsForTimes({}));
  EXPECT_TRUE(none.empty());
}

TEST_F(KafkaClientTest, CommittedOffsetsAreThoseTheGroupCommitted) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 3);
  Produce("events", 1, 0, 1);
  const KafkaClientConfig config{{"bootstrap.servers", cluster_->BootstrapServers()}};
  const std::vector<KafkaTopicPartition> partitions{{"events", 0}, {"events", 1}};
  ASSERT_OK_AND_ASSIGN(auto none, KafkaCommittedOffsets(config, "readers", partitions));
  EXPECT_TRUE(none.empty());

  // kcat, an independent consumer, reads everything in group "readers" and commits as it
  // closes.
  testing::ChildOptions kcat;
  kcat.args = {"/usr/bin/kcat",
               "-b",
               cluster_->BootstrapServers(),
               "-G",
               "readers",
               "-e",
               "-q",
               "-X",
               "auto.offset.reset=earliest",
               "events"};
  const testing::ChildResult result = testing::RunChild(kcat);
  ASSERT_EQ(result.exit_code, 0) << result.Describe();

  ASSERT_OK_AND_ASSIGN(auto committed, KafkaCommittedOffsets(config, "readers", partitions));
  EXPECT_EQ(committed,
            (std::map<KafkaTopicPartition, int64_t>{{{"events", 0}, 3}, {{"events", 1}, 1}}));
  ASSERT_OK_AND_ASSIGN(auto other, KafkaCommittedOffsets(config, "others", partitions));
  EXPECT_TRUE(other.empty());
}

}  // namespace
}  // namespace tributary::storage

// The Kafka sink (Spark's Kafka sink columns, at least once, exactly once with
// kafka.transactional.id) against the test broker, its output read back by kafkajs; and the
// test cluster itself (broker commands, kcat and kafkajs as independent clients).

#include "streaming/kafka_sink.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/plan_builder.h"
#include "storage/kafka_client.h"
#include "support/batch_from_json.h"
#include "support/kafka_test_cluster.h"
#include "support/status_matchers.h"

namespace tributary::testing {
namespace {

using columnar::DataType;
using columnar::Field;
using streaming::KafkaSink;
using streaming::MicroBatch;
using ::testing::HasSubstr;

TEST(KafkaTestClusterTest, KcatAndKafkajsRoundTripWithKeysHeadersAndPartitions) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<KafkaTestCluster> cluster, KafkaTestCluster::Start());
  ASSERT_OK(cluster->CreateTopic("events", 2));
  KafkaTestRecord first;
  first.key = "k1";
  first.value = "{\"a\":1}\nsecond line";
  first.partition = 1;
  first.headers = {{"h", "x"}};
  KafkaTestRecord second;
  second.value = "{\"a\":2}";
  second.partition = 1;
  KafkaTestRecord third;
  third.key = "k3";
  third.partition = 0;
  ASSERT_OK(cluster->ProduceWithKcat("events", {first, second, third}));
  KafkaTestRecord fourth;
  fourth.key = "k4";
  fourth.value = "v4";
  fourth.partition = 0;
  fourth.headers = {{"origin", "kafkajs"}};
  ASSERT_OK(cluster->ProduceWithKafkajs("events", {fourth}));

  ASSERT_OK_AND_ASSIGN(std::vector<KafkaTestRecord> read, cluster->ConsumeWithKafkajs("events"));
  ASSERT_EQ(read.size(), 4U);
  EXPECT_EQ(read[0].partition, 0);
  EXPECT_EQ(read[0].offset, 0);
  EXPECT_EQ(read[0].key, "k3");
  EXPECT_EQ(read[0].value, std::nullopt);
  EXPECT_EQ(read[1].key, "k4");
  EXPECT_EQ(read[1].value, "v4");
  EXPECT_EQ(read[1].headers, (std::map<std::string, std::string>{{"origin", "kafkajs"}}));
  EXPECT_EQ(read[2].partition, 1);
  EXPECT_EQ(read[2].key, "k1");
  EXPECT_EQ(read[2].value, "{\"a\":1}\nsecond line");
  EXPECT_EQ(read[2].headers, (std::map<std::string, std::string>{{"h", "x"}}));
  EXPECT_EQ(read[3].key, std::nullopt);
  EXPECT_EQ(read[3].value, "{\"a\":2}");
  EXPECT_EQ(read[3].offset, 1);
}

TEST(KafkaTestClusterTest, CommandsAndRetention) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<KafkaTestCluster> cluster, KafkaTestCluster::Start(3));
  EXPECT_THAT(cluster->BootstrapServers(),
              ::testing::MatchesRegex(R"(127\.0\.0\.1:[0-9]+(,127\.0\.0\.1:[0-9]+){2})"));
  ASSERT_OK(cluster->CreateTopic("t", 1));
  ASSERT_OK(cluster->SetPartitionLeader("t", 0, 2));
  ASSERT_OK(cluster->SetBrokerDown(3, true));
  ASSERT_OK(cluster->SetBrokerDown(3, false));
  ASSERT_OK(cluster->PushRequestErrors(/*api_key=*/3, /*error_code=*/6, /*count=*/0));

  std::vector<KafkaTestRecord> records(5);
  for (int i = 0; i < 5; ++i) {
    records[i].value = "v" + std::to_string(i);
    records[i].partition = 0;
  }
  ASSERT_OK(cluster->ProduceWithKcat("t", records));
  ASSERT_OK_AND_ASSIGN(auto marks, cluster->Watermarks("t", 0));
  EXPECT_EQ(marks, std::make_pair(int64_t{0}, int64_t{5}));
  // Only the whole log can go.
  EXPECT_FALSE(cluster->DeleteRecordsBefore("t", 0, 3).ok());
  ASSERT_OK(cluster->DeleteRecordsBefore("t", 0, 5));
  ASSERT_OK_AND_ASSIGN(marks, cluster->Watermarks("t", 0));
  EXPECT_EQ(marks, std::make_pair(int64_t{7}, int64_t{7}));
  ASSERT_OK(cluster->ProduceWithKcat("t", {records[0]}));
  ASSERT_OK_AND_ASSIGN(std::vector<KafkaTestRecord> read, cluster->ConsumeWithKafkajs("t"));
  ASSERT_EQ(read.size(), 1U);
  EXPECT_EQ(read[0].offset, 7);
  EXPECT_EQ(read[0].value, "v0");
}

columnar::DataTypePtr KafkaHeadersType() {
  return DataType::Array(
      DataType::Struct({Field("key", DataType::String()), Field("value", DataType::Binary())}));
}

class KafkaSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = KafkaTestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
  }

  std::map<std::string, std::string> Options(std::map<std::string, std::string> extra = {}) {
    extra["kafka.bootstrap.servers"] = cluster_->BootstrapServers();
    return extra;
  }

  // Batch `batch_id` of rows `rows_json` of `schema` through `sink`.
  static Result<int64_t> Write(KafkaSink& sink, int64_t batch_id, const columnar::SchemaPtr& schema,
                               const std::string& rows_json) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto rows, BatchFromJson(schema, rows_json));
    plan::ScanSource values;
    values.kind = plan::ScanSource::Kind::kValues;
    values.schema = schema;
    values.batches = {rows};
    values.description = "VALUES";
    exec::ExecContext context;
    MicroBatch batch;
    batch.query_id = "kafka-sink-test";
    batch.batch_id = batch_id;
    batch.plan = plan::Scan(std::move(values), "");
    batch.context = &context;
    return sink.AddBatch(batch);
  }

  static std::vector<std::string> Values(const std::vector<KafkaTestRecord>& records) {
    std::vector<std::string> values;
    values.reserve(records.size());
    for (const KafkaTestRecord& record : records) {
      values.push_back(record.value.value_or("<null>"));
    }
    return values;
  }

  std::unique_ptr<KafkaTestCluster> cluster_;
};

TEST_F(KafkaSinkTest, WritesValueKeyPartitionAndHeadersReadBackByKafkajs) {
  ASSERT_OK(cluster_->CreateTopic("out", 3));
  ASSERT_OK_AND_ASSIGN(auto sink, KafkaSink::Make(Options({{"topic", "out"}})));
  EXPECT_EQ(sink->Description(), "KafkaSink[out]");
  const auto schema =
      MakeSchema({Field("key", DataType::String()), Field("value", DataType::Binary()),
                  Field("partition", DataType::Int32()), Field("headers", KafkaHeadersType())});
  ASSERT_OK_AND_ASSIGN(int64_t written, Write(*sink, 0, schema,
                                              R"([{"key": "a", "value": "v1", "partition": 2,
                 "headers": [{"key": "h1", "value": "x"}, {"key": "h2", "value": "y"}]},
                {"value": "v2", "partition": 2},
                {"key": "c", "partition": 0}])"));
  EXPECT_EQ(written, 3);
  ASSERT_OK_AND_ASSIGN(auto read, cluster_->ConsumeWithKafkajs("out"));
  ASSERT_EQ(read.size(), 3U);
  EXPECT_EQ(read[0].partition, 0);
  EXPECT_EQ(read[0].key, "c");
  EXPECT_EQ(read[0].value, std::nullopt);
  EXPECT_EQ(read[1].partition, 2);
  EXPECT_EQ(read[1].offset, 0);
  EXPECT_EQ(read[1].key, "a");
  EXPECT_EQ(read[1].value, "v1");
  EXPECT_EQ(read[1].headers, (std::map<std::string, std::string>{{"h1", "x"}, {"h2", "y"}}));
  EXPECT_EQ(read[2].partition, 2);
  EXPECT_EQ(read[2].key, std::nullopt);
  EXPECT_EQ(read[2].value, "v2");
}

TEST_F(KafkaSinkTest, TopicColumnRoutesRowsAndTheTopicOptionOverridesIt) {
  ASSERT_OK(cluster_->CreateTopic("left", 1));
  ASSERT_OK(cluster_->CreateTopic("right", 1));
  const auto schema =
      MakeSchema({Field("topic", DataType::String()), Field("value", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto by_column, KafkaSink::Make(Options()));
  EXPECT_EQ(by_column->Description(), "KafkaSink[topic column]");
  ASSERT_OK(Write(*by_column, 0, schema,
                  R"([{"topic": "left", "value": "1"}, {"topic": "right", "value": "2"},
                      {"topic": "left", "value": "3"}])")
                .status());
  ASSERT_OK_AND_ASSIGN(auto overridden, KafkaSink::Make(Options({{"topic", "right"}})));
  ASSERT_OK(Write(*overridden, 0, schema, R"([{"topic": "left", "value": "4"}])").status());

  ASSERT_OK_AND_ASSIGN(auto left, cluster_->ConsumeWithKafkajs("left"));
  EXPECT_EQ(Values(left), (std::vector<std::string>{"1", "3"}));
  ASSERT_OK_AND_ASSIGN(auto right, cluster_->ConsumeWithKafkajs("right"));
  EXPECT_EQ(Values(right), (std::vector<std::string>{"2", "4"}));
}

TEST_F(KafkaSinkTest, BadColumnsAndOptionsAreErrorsNamingThem) {
  const auto check = [&](const columnar::SchemaPtr& schema, const std::string& rows,
                         const std::map<std::string, std::string>& options,
                         const std::string& message) {
    auto sink = KafkaSink::Make(options);
    ASSERT_OK(sink.status());
    auto written = Write(**sink, 0, schema, rows);
    ASSERT_FALSE(written.ok()) << message;
    EXPECT_TRUE(written.status().IsInvalidArgument()) << written.status().ToString();
    EXPECT_THAT(written.status().ToString(), HasSubstr(message));
  };
  const auto topic = Options({{"topic", "t"}});
  check(MakeSchema({Field("key", DataType::String())}), R"([{"key": "a"}])", topic,
        "Required attribute 'value' not found");
  check(MakeSchema({Field("value", DataType::Int64())}), R"([{"value": 1}])", topic,
        "value attribute type must be a StringType or BinaryType");
  check(MakeSchema({Field("value", DataType::String()), Field("key", DataType::Int32())}),
        R"([{"value": "v", "key": 1}])", topic,
        "key attribute type must be a StringType or BinaryType");
  check(MakeSchema({Field("value", DataType::String()), Field("partition", DataType::Int64())}),
        R"([{"value": "v", "partition": 1}])", topic,
        "partition attribute type must be an IntegerType");
  check(MakeSchema({Field("value", DataType::String()),
                    Field("headers", DataType::Array(DataType::String()))}),
        R"([{"value": "v", "headers": ["x"]}])", topic, "headers attribute type must be");
  check(MakeSchema({Field("value", DataType::String()), Field("extra", DataType::String())}),
        R"([{"value": "v", "extra": "e"}])", topic, "column 'extra'");
  check(MakeSchema({Field("value", DataType::String())}), R"([{"value": "v"}])", Options(),
        "topic option required when no 'topic' attribute is present");
  check(MakeSchema({Field("topic", DataType::String()), Field("value", DataType::String())}),
        R"([{"value": "v"}])", Options(), "null topic present in the data");

  auto missing_servers = KafkaSink::Make({{"topic", "t"}});
  ASSERT_FALSE(missing_servers.ok());
  EXPECT_THAT(missing_servers.status().ToString(), HasSubstr("kafka.bootstrap.servers"));
  auto serializer = KafkaSink::Make(Options({{"kafka.value.serializer", "x"}}));
  ASSERT_FALSE(serializer.ok());
  EXPECT_THAT(serializer.status().ToString(), HasSubstr("kafka.value.serializer"));
}

TEST_F(KafkaSinkTest, ExactlyOnceSkipsABatchIdAlreadyDelivered) {
  ASSERT_OK(cluster_->CreateTopic("eos", 2));
  const auto schema = MakeSchema({Field("value", DataType::String())});
  const auto options = Options({{"topic", "eos"}, {"kafka.transactional.id", "query-1"}});
  {
    ASSERT_OK_AND_ASSIGN(auto sink, KafkaSink::Make(options));
    ASSERT_OK_AND_ASSIGN(int64_t written, Write(*sink, 0, schema, R"([{"value": "b0"}])"));
    EXPECT_EQ(written, 1);
    ASSERT_OK_AND_ASSIGN(written, Write(*sink, 1, schema, R"([{"value": "b1"}])"));
    EXPECT_EQ(written, 1);
    // The same batch again within the run: skipped.
    ASSERT_OK_AND_ASSIGN(written, Write(*sink, 1, schema, R"([{"value": "b1"}])"));
    EXPECT_EQ(written, 0);
  }
  // A restarted query re-runs batch 1 (crash before its commits/1): skipped, batch 2 written.
  ASSERT_OK_AND_ASSIGN(auto restarted, KafkaSink::Make(options));
  ASSERT_OK_AND_ASSIGN(int64_t written, Write(*restarted, 1, schema, R"([{"value": "b1"}])"));
  EXPECT_EQ(written, 0);
  ASSERT_OK_AND_ASSIGN(written, Write(*restarted, 2, schema, R"([{"value": "b2"}])"));
  EXPECT_EQ(written, 1);

  std::vector<std::string> values = Values(*cluster_->ConsumeWithKafkajs("eos"));
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<std::string>{"b0", "b1", "b2"}));
  // The batch id as the group's committed offset, as an independent reader finds it.
  ASSERT_OK_AND_ASSIGN(auto committed, storage::KafkaCommittedOffsets(
                                           {{"bootstrap.servers", cluster_->BootstrapServers()}},
                                           "query-1", {storage::KafkaTopicPartition{"eos", 0}}));
  const storage::KafkaTopicPartition partition0{"eos", 0};
  EXPECT_EQ(committed[partition0], 3);
}

// The transactional producer's calls in turn: an aborted transaction leaves the producer
// usable for the next. (Whether a read_committed reader hides aborted records, and whether a
// second producer with the same transactional.id fences the first, is the cluster's part:
// librdkafka 2.0.2's mock cluster does neither, see tools/kafka_test_broker/main.cc.)
TEST_F(KafkaSinkTest, TransactionalProducerAbortsAndCommitsInTurn) {
  ASSERT_OK(cluster_->CreateTopic("txn", 1));
  const storage::KafkaClientConfig config = {{"bootstrap.servers", cluster_->BootstrapServers()},
                                             {"transactional.id", "txn-producer"}};
  ASSERT_OK_AND_ASSIGN(auto producer, storage::KafkaProducer::Make(config));
  EXPECT_TRUE(producer->Transactional());
  storage::KafkaRecord record;
  record.topic = "txn";
  record.key = "k";
  record.headers = {{"h", std::string("v")}, {"empty", std::nullopt}};
  ASSERT_OK(producer->BeginTransaction());
  record.value = "aborted";
  ASSERT_OK(producer->Produce(record));
  ASSERT_OK(producer->AbortTransaction());
  ASSERT_OK(producer->BeginTransaction());
  record.value = "committed";
  ASSERT_OK(producer->Produce(record));
  ASSERT_OK(producer->CommitTransaction("txn-producer", {{{"txn", 0}, 42}}));

  ASSERT_OK_AND_ASSIGN(auto read, cluster_->ConsumeWithKafkajs("txn"));
  ASSERT_FALSE(read.empty());
  EXPECT_EQ(read.back().value, "committed");
  EXPECT_EQ(read.back().key, "k");
  EXPECT_EQ(read.back().headers, (std::map<std::string, std::string>{{"empty", ""}, {"h", "v"}}));

  // A plain producer refuses the transaction calls.
  ASSERT_OK_AND_ASSIGN(auto plain, storage::KafkaProducer::Make(
                                       {{"bootstrap.servers", cluster_->BootstrapServers()}}));
  EXPECT_FALSE(plain->Transactional());
  EXPECT_TRUE(plain->BeginTransaction().IsInvalidArgument());
  // A record for a partition the topic does not have fails at delivery, naming it.
  record.partition = 7;
  ASSERT_OK(plain->Produce(record));
  const Status flushed = plain->Flush(std::chrono::seconds(30));
  ASSERT_FALSE(flushed.ok());
  EXPECT_THAT(flushed.ToString(), HasSubstr("txn"));
}

TEST_F(KafkaSinkTest, WriteKafkaWritesEveryRowOnce) {
  ASSERT_OK(cluster_->CreateTopic("batch", 1));
  const auto schema = MakeSchema({Field("value", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto rows, BatchFromJson(schema, R"([{"value": "x"}, {"value": "y"}])"));
  ASSERT_OK_AND_ASSIGN(int64_t written,
                       streaming::WriteKafka({rows}, Options({{"topic", "batch"}})));
  EXPECT_EQ(written, 2);
  ASSERT_OK_AND_ASSIGN(
      written, streaming::WriteKafka(
                   {rows}, Options({{"topic", "batch"}, {"kafka.transactional.id", "batch-tx"}})));
  EXPECT_EQ(written, 2);
  ASSERT_OK_AND_ASSIGN(auto read, cluster_->ConsumeWithKafkajs("batch"));
  EXPECT_EQ(Values(read), (std::vector<std::string>{"x", "y", "x", "y"}));
}

}  // namespace
}  // namespace tributary::testing

// Kafka through the public API and SQL, against the test broker (librdkafka's mock cluster)
// with kcat and kafkajs as the independent producer and consumer: batch reads with Spark's
// Kafka columns, a SQL pipeline read_kafka -> bronze -> gold (from_json with a rescued-data
// column) run twice as `tributary run` runs it, streaming and batch writes read back by kafkajs,
// and the errors for bad formats, options and named arguments.

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/kafka_test_cluster.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::KafkaTestCluster;
using testing::KafkaTestRecord;
using testing::TempDir;

KafkaTestRecord Record(std::string key, std::string value, int32_t partition) {
  KafkaTestRecord record;
  record.key = std::move(key);
  record.value = std::move(value);
  record.partition = partition;
  return record;
}

class KafkaApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(cluster_, KafkaTestCluster::Start());
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
  }

  const std::string& Servers() const { return cluster_->BootstrapServers(); }

  // The rows of `frame` as JSON, sorted.
  static std::vector<std::string> Rows(const DataFrame& frame) {
    auto rows = frame.Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? testing::SortedJson(*rows) : std::vector<std::string>{};
  }
  std::vector<std::string> SqlRows(const std::string& sql) const {
    return Rows(session_->Sql(sql));
  }
  std::string SqlError(const std::string& sql) const {
    return session_->Sql(sql).Status().ToString();
  }

  // The values kafkajs reads (read_committed) from `topic`, sorted.
  std::vector<std::string> ConsumedValues(const std::string& topic) const {
    auto records = cluster_->ConsumeWithKafkajs(topic);
    EXPECT_TRUE(records.ok()) << records.status().ToString();
    std::vector<std::string> values;
    for (const KafkaTestRecord& record : records.ok() ? *records : std::vector<KafkaTestRecord>{}) {
      values.push_back(record.key.value_or("<null>") + "=" + record.value.value_or("<null>"));
    }
    std::sort(values.begin(), values.end());
    return values;
  }

  std::string ReadKafkaArguments(const std::string& topic) const {
    return fmt::format("bootstrapServers => '{}', subscribe => '{}', startingOffsets => 'earliest'",
                       Servers(), topic);
  }

  TempDir dir_;
  std::unique_ptr<KafkaTestCluster> cluster_;
  std::shared_ptr<Session> session_;
};

TEST_F(KafkaApiTest, BatchReadHasSparksColumnsAndReadsBetweenOffsets) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  KafkaTestRecord with_header = Record("b", "two", 1);
  with_header.headers["source"] = "web";
  ASSERT_OK(cluster_->ProduceWithKcat(
      "events", {Record("a", "one", 0), with_header, Record("c", "three", 0)}));

  DataFrame all = session_->Read()
                      .Format("kafka")
                      .Option("kafka.bootstrap.servers", Servers())
                      .Option("subscribe", "events")
                      .Load();
  ASSERT_OK(all.Status());
  std::vector<std::string> columns;
  for (const StructField& field : all.Schema().fields) {
    columns.push_back(field.name + " " + field.type);
  }
  EXPECT_THAT(columns, ElementsAre("key binary", "value binary", "topic string", "partition int",
                                   "offset bigint", "timestamp timestamp", "timestampType int"));
  EXPECT_THAT(
      Rows(all.SelectExpr({"CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic",
                           "partition", "offset", "timestampType"})),
      ElementsAre(
          R"({"k":"a","v":"one","topic":"events","partition":0,"offset":0,"timestampType":0})",
          R"({"k":"b","v":"two","topic":"events","partition":1,"offset":0,"timestampType":0})",
          R"({"k":"c","v":"three","topic":"events","partition":0,"offset":1,"timestampType":0})"));

  // endingOffsets (exclusive) and startingOffsets as Spark's JSON; -2 is earliest.
  DataFrame range = session_->Read()
                        .Format("kafka")
                        .Option("kafka.bootstrap.servers", Servers())
                        .Option("subscribe", "events")
                        .Option("startingOffsets", R"({"events":{"0":1,"1":-2}})")
                        .Option("endingOffsets", R"({"events":{"0":2,"1":0}})")
                        .Load();
  EXPECT_THAT(Rows(range.SelectExpr({"CAST(value AS STRING) AS v"})),
              ElementsAre(R"({"v":"three"})"));

  // The same through SQL's read_kafka, with the headers column asked for.
  EXPECT_THAT(SqlRows(fmt::format("SELECT CAST(value AS STRING) AS v, headers[0].key AS h, "
                                  "CAST(headers[0].value AS STRING) AS hv FROM "
                                  "read_kafka({}, includeHeaders => true) WHERE partition = 1",
                                  ReadKafkaArguments("events"))),
              ElementsAre(R"({"v":"two","h":"source","hv":"web"})"));
}

TEST_F(KafkaApiTest, SqlPipelineReadsKafkaIntoBronzeAndParsesJsonIntoGold) {
  ASSERT_OK(cluster_->CreateTopic("orders", 2));
  ASSERT_OK(cluster_->ProduceWithKcat(
      "orders", {Record("1", R"({"id": 1, "item": "tea", "qty": 2})", 0),
                 Record("2", R"({"id": 2, "item": "cake", "qty": "many"})", 1),
                 Record("3", R"({"id": 3, "item": "jam", "qty": 1, "gift": true})", 0),
                 Record("4", "not json at all", 1)}));
  const std::string sql = fmt::format(
      "CREATE OR REFRESH STREAMING TABLE gold AS\n"
      "  SELECT key, from_json(payload, schema_of_json('{{\"id\": 0, \"item\": \"\", \"qty\": "
      "0}}'),\n"
      "                        map('rescuedDataColumn', '_rescued_data')) AS evt\n"
      "  FROM STREAM(bronze);\n"
      "CREATE OR REFRESH STREAMING TABLE bronze AS\n"
      "  SELECT CAST(key AS STRING) AS key, CAST(value AS STRING) AS payload, topic, partition,\n"
      "         offset\n"
      "  FROM STREAM read_kafka({}, maxOffsetsPerTrigger => 3);\n",
      ReadKafkaArguments("orders"));
  auto run = [&]() {
    ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Parse(session_, sql));
    EXPECT_THAT(pipeline->Tables(), ElementsAre("bronze", "gold"));
    ASSERT_OK(pipeline->Run());
  };
  run();
  EXPECT_THAT(
      SqlRows("SELECT key, payload, partition, offset FROM bronze WHERE key IN ('1', '4')"),
      ElementsAre(
          R"({"key":"1","payload":"{\"id\": 1, \"item\": \"tea\", \"qty\": 2}","partition":0,"offset":0})",
          R"({"key":"4","payload":"not json at all","partition":1,"offset":1})"));
  EXPECT_THAT(
      SqlRows("SELECT key, evt.id, evt.item, evt.qty, evt._rescued_data FROM gold"),
      ElementsAre(
          R"({"key":"1","id":1,"item":"tea","qty":2,"_rescued_data":null})",
          R"({"key":"2","id":2,"item":"cake","qty":null,"_rescued_data":"{\"qty\":\"many\"}"})",
          R"({"key":"3","id":3,"item":"jam","qty":1,"_rescued_data":"{\"gift\":true}"})",
          R"({"key":"4","id":null,"item":null,"qty":null,"_rescued_data":"{\"_corrupt_record\":\"not json at all\"}"})"));

  // A second run reads only what was produced since (offsets in each table's checkpoint).
  ASSERT_OK(cluster_->ProduceWithKafkajs(
      "orders", {Record("5", R"({"id": 5, "item": "tea", "qty": 9})", 1)}));
  run();
  EXPECT_THAT(SqlRows("SELECT count(*) AS n, count(DISTINCT key) AS keys FROM bronze"),
              ElementsAre(R"({"n":5,"keys":5})"));
  EXPECT_THAT(SqlRows("SELECT key, evt.qty FROM gold WHERE key = '5'"),
              ElementsAre(R"({"key":"5","qty":9})"));
}

// One pipeline file run by two `tributary run` processes at once over one warehouse, each with
// its own checkpoints (--checkpoints) and its share of the partitions (--conf): the table holds
// every record once, and a second round reads only what was produced since.
// A pipeline file run by `tributary run` as process `index` of `count`, sharing the warehouse
// and the checkpoint root with the other processes.
class KafkaPipelineProcessesTest : public KafkaApiTest {
 protected:
  void SetUp() override {
    KafkaApiTest::SetUp();
    ASSERT_OK(cluster_->CreateTopic("clicks", 4));
    pipeline_ = dir_.Join("clicks.sql");
    std::ofstream(pipeline_) << fmt::format(
        "CREATE OR REFRESH STREAMING TABLE clicks_bronze AS\n"
        "  SELECT CAST(key AS STRING) AS key, partition, offset\n"
        "  FROM STREAM read_kafka({});\n"
        "CREATE OR REFRESH STREAMING TABLE clicks_even AS\n"
        "  SELECT key FROM STREAM(clicks_bronze) WHERE CAST(key AS INT) % 2 = 0;\n",
        ReadKafkaArguments("clicks"));
  }

  // `count` records with keys next_, next_ + 1, ..., round robin over the 4 partitions.
  void Produce(int count) {
    std::vector<KafkaTestRecord> records;
    for (int i = 0; i < count; ++i, ++next_) {
      records.push_back(
          Record(std::to_string(next_), fmt::format(R"({{"n":{}}})", next_), next_ % 4));
    }
    ASSERT_OK(cluster_->ProduceWithKcat("clicks", records));
  }

  testing::ChildOptions Process(int index, const std::string& trigger = "available-now") {
    testing::ChildOptions child;
    child.args = {TRIBUTARY_CLI,
                  "run",
                  pipeline_,
                  "--warehouse",
                  dir_.Join("warehouse"),
                  "--checkpoints",
                  dir_.Join("checkpoints"),
                  "--trigger",
                  trigger,
                  "--conf",
                  "tributary.kafka.processCount=2",
                  "--conf",
                  fmt::format("tributary.kafka.processIndex={}", index),
                  "--conf",
                  "tributary.kafka.takeoverInterval=20ms"};
    child.stdout_path = dir_.Join(fmt::format("run-{}-{}.stdout", index, runs_));
    child.stderr_path = dir_.Join(fmt::format("run-{}-{}.stderr", index, runs_));
    child.kill_after_ms = 120000;  // a hang guard only
    ++runs_;
    return child;
  }

  // Both processes at once, each to the end of what is there.
  void RunBoth() {
    std::vector<testing::ChildOptions> children = {Process(0), Process(1)};
    std::vector<testing::ChildResult> results(2);
    std::thread other([&] { results[1] = testing::RunChild(children[1]); });
    results[0] = testing::RunChild(children[0]);
    other.join();
    for (const testing::ChildResult& result : results) {
      // Both processes' reports: a failure of one often comes of what the other did.
      EXPECT_EQ(result.exit_code, 0) << result.Describe() << "\nprocess 0 printed:\n"
                                     << results[0].stdout_text << "\nprocess 1 printed:\n"
                                     << results[1].stdout_text;
    }
  }

  // "n=<rows>, keys=<distinct keys>" of the bronze table.
  std::vector<std::string> BronzeCounts() const {
    return SqlRows("SELECT count(*) AS n, count(DISTINCT key) AS keys FROM clicks_bronze");
  }

  std::string ShareCheckpoint(int share) const {
    return dir_.Join(fmt::format("checkpoints/clicks_bronze/share-{}", share));
  }

  std::string pipeline_;
  int next_ = 0;
  int runs_ = 0;
};

TEST_F(KafkaPipelineProcessesTest, OnePipelineRunAsTwoProcessesReadsEveryRecordOnce) {
  Produce(40);
  RunBoth();
  EXPECT_THAT(
      SqlRows("SELECT count(*) AS n, count(DISTINCT key) AS keys, min(CAST(key AS INT)) AS low, "
              "max(CAST(key AS INT)) AS high FROM clicks_bronze"),
      ElementsAre(R"({"n":40,"keys":40,"low":0,"high":39})"));
  Produce(20);
  RunBoth();
  EXPECT_THAT(BronzeCounts(), ElementsAre(R"({"n":60,"keys":60})"));
  // Each share's checkpoint pinned its share.
  for (int index = 0; index < 2; ++index) {
    std::ifstream in(ShareCheckpoint(index) + "/sources/0/assignment");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, fmt::format("v1\n{{\"processIndex\":{},\"processCount\":2}}", index));
  }
  // The table downstream is one stream, process 0's: after a last run has drained everything,
  // it has each even key once.
  Produce(2);
  ASSERT_EQ(testing::RunChild(Process(0)).exit_code, 0);
  EXPECT_THAT(SqlRows("SELECT count(*) AS n, count(DISTINCT key) AS keys FROM clicks_even"),
              ElementsAre(R"({"n":31,"keys":31})"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("checkpoints/clicks_even/share-0")));
  // A run that changes the number of processes is refused before it reads anything: each
  // share's offsets cover its own partitions only.
  testing::ChildOptions three = Process(0);
  three.args[10] = "tributary.kafka.processCount=3";
  const testing::ChildResult refused = testing::RunChild(three);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.stderr_text, HasSubstr("processCount"));
  testing::ChildOptions one = Process(0);
  one.args[10] = "tributary.kafka.processCount=1";
  const testing::ChildResult unshared = testing::RunChild(one);
  EXPECT_NE(unshared.exit_code, 0);
  EXPECT_THAT(unshared.stderr_text, HasSubstr("made by processes reading a share"));
  EXPECT_THAT(BronzeCounts(), ElementsAre(R"({"n":62,"keys":62})"));
}

// Whether process `pid` (a child not reaped yet) has ended.
bool ChildEnded(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(stat, line);
  const size_t state = line.rfind(')');
  return state == std::string::npos || state + 2 >= line.size() || line[state + 2] == 'Z';
}

TEST_F(KafkaPipelineProcessesTest, ADeadProcessesSharesAreTakenOverAndHandedBack) {
  Produce(40);
  RunBoth();
  ASSERT_THAT(BronzeCounts(), ElementsAre(R"({"n":40,"keys":40})"));

  // Process 1 is away: process 0, streaming, takes its share over from its checkpoint.
  Produce(20);
  const testing::ChildOptions streaming = Process(0, "processing-time=0");
  const testing::StartedChild zero = testing::StartChild(streaming);
  ASSERT_GT(zero.pid, 0) << zero.failure.Describe();
  const auto zero_ended = [&] {
    return ChildEnded(zero.pid);
  };
  for (int share = 0; share < 2; ++share) {
    EXPECT_TRUE(testing::WaitForFile(ShareCheckpoint(share) + "/commits/1", zero_ended))
        << "share " << share;
  }
  EXPECT_THAT(BronzeCounts(), ElementsAre(R"({"n":60,"keys":60})"));

  // Process 1 comes back: process 0 hands its share back after the batch in progress, and
  // process 1 (available-now) reads it to the end and exits.
  Produce(20);
  const testing::ChildResult one = testing::RunChild(Process(1));
  EXPECT_EQ(one.exit_code, 0) << one.Describe();
  EXPECT_THAT(one.stdout_text, HasSubstr("clicks_bronze (share 1): stream finished"));

  // Process 0 dies (kill -9) wherever it is; process 1, run again, takes over its share and
  // every record is in the table once.
  ::kill(zero.pid, SIGKILL);
  const testing::ChildResult killed = testing::FinishChild(zero.pid, streaming);
  EXPECT_TRUE(killed.killed_by_sigkill) << killed.Describe();
  EXPECT_THAT(killed.stdout_text,
              HasSubstr("clicks_bronze (share 1): taking over from process 1, which is not "
                        "running"));
  EXPECT_THAT(killed.stdout_text,
              HasSubstr("clicks_bronze (share 1): handing back to process 1, running again"));
  Produce(10);
  const testing::ChildResult again = testing::RunChild(Process(1));
  EXPECT_EQ(again.exit_code, 0) << again.Describe();
  EXPECT_THAT(again.stdout_text,
              HasSubstr("clicks_bronze (share 0): taking over from process 0, which is not "
                        "running"));
  EXPECT_THAT(BronzeCounts(), ElementsAre(R"({"n":90,"keys":90})"));
  EXPECT_THAT(SqlRows("SELECT count(*) AS n, count(DISTINCT key) AS keys FROM clicks_even"),
              ElementsAre(R"({"n":45,"keys":45})"));
}

TEST_F(KafkaApiTest, StreamingWriteToKafkaIsReadBackByKafkajs) {
  ASSERT_OK(cluster_->CreateTopic("in", 2));
  ASSERT_OK(cluster_->CreateTopic("out", 1));
  ASSERT_OK(cluster_->ProduceWithKcat(
      "in", {Record("a", "1", 0), Record("b", "2", 1), Record("c", "3", 0)}));
  // Kafka -> Kafka: the value doubled, the key kept; the topic from the option. Each start
  // runs available-now from the same checkpoint.
  auto run = [&]() {
    DataFrame in = session_->ReadStream()
                       .Format("kafka")
                       .Option("kafka.bootstrap.servers", Servers())
                       .Option("subscribe", "in")
                       .Option("startingOffsets", "earliest")
                       .Load();
    ASSERT_OK_AND_ASSIGN(
        StreamingQuery query,
        in.SelectExpr({"key", "CAST(CAST(CAST(value AS STRING) AS INT) * 2 AS STRING) AS value"})
            .WriteStream()
            .Format("kafka")
            .Option("kafka.bootstrap.servers", Servers())
            .Option("topic", "out")
            .Option("checkpointLocation", dir_.Join("checkpoint"))
            .Trigger(Trigger::AvailableNow())
            .Start());
    ASSERT_OK(query.AwaitTermination());
  };
  run();
  EXPECT_THAT(ConsumedValues("out"), ElementsAre("a=2", "b=4", "c=6"));

  // A restart from the checkpoint writes only the new record.
  ASSERT_OK(cluster_->ProduceWithKcat("in", {Record("d", "4", 1)}));
  run();
  EXPECT_THAT(ConsumedValues("out"), ElementsAre("a=2", "b=4", "c=6", "d=8"));
}

TEST_F(KafkaApiTest, BatchWriteToKafkaTakesTheTopicColumn) {
  ASSERT_OK(cluster_->CreateTopic("left", 1));
  ASSERT_OK(cluster_->CreateTopic("right", 1));
  DataFrame rows = session_->Sql(
      "SELECT * FROM (SELECT 'left' AS topic, 'k1' AS key, 'v1' AS value UNION ALL "
      "SELECT 'right', 'k2', 'v2' UNION ALL SELECT 'left', NULL, 'v3')");
  ASSERT_OK(rows.Write().Format("kafka").Option("kafka.bootstrap.servers", Servers()).Save());
  EXPECT_THAT(ConsumedValues("left"), ElementsAre("<null>=v3", "k1=v1"));
  EXPECT_THAT(ConsumedValues("right"), ElementsAre("k2=v2"));

  // Spark's save modes for Kafka: append and errorifexists only.
  Status overwrite = rows.Write()
                         .Format("kafka")
                         .Mode("overwrite")
                         .Option("kafka.bootstrap.servers", Servers())
                         .Save();
  EXPECT_THAT(overwrite.ToString(), HasSubstr("Save mode overwrite not allowed for Kafka"));
  Status with_path =
      rows.Write().Format("kafka").Option("kafka.bootstrap.servers", Servers()).Save("/tmp/x");
  EXPECT_THAT(with_path.ToString(), HasSubstr("a kafka write takes no path"));
}

TEST_F(KafkaApiTest, ErrorsNameTheOptionOrArgument) {
  auto reader = [&]() {
    DataFrameReader kafka_reader = session_->Read();
    kafka_reader.Format("kafka").Option("kafka.bootstrap.servers", Servers());
    return kafka_reader;
  };
  EXPECT_THAT(reader().Option("subscribe", "t").Load("/some/path").Status().ToString(),
              HasSubstr("a kafka read takes no path"));
  EXPECT_THAT(reader().Option("subscribe", "t").Schema("a INT").Load().Status().ToString(),
              HasSubstr("Kafka source has a fixed schema"));
  EXPECT_THAT(reader().Load().Status().ToString(), HasSubstr("subscribe"));

  DataFrame stream = session_->ReadStream()
                         .Format("kafka")
                         .Option("kafka.bootstrap.servers", Servers())
                         .Option("subscribe", "t")
                         .Load();
  ASSERT_OK(stream.Status());
  auto no_checkpoint =
      stream.WriteStream().Format("kafka").Option("kafka.bootstrap.servers", Servers()).Start();
  EXPECT_THAT(no_checkpoint.status().ToString(), HasSubstr("checkpointLocation"));
  auto unknown = stream.WriteStream().Format("kafak").Start();
  EXPECT_THAT(unknown.status().ToString(),
              HasSubstr("(delta, kafka, console, memory, foreachBatch)"));

  // SQL: read_kafka takes named arguments only, as Databricks SQL.
  EXPECT_THAT(SqlError("SELECT * FROM read_kafka('localhost:9092')"),
              HasSubstr("read_kafka takes only named arguments"));
  EXPECT_THAT(
      SqlError(fmt::format("SELECT * FROM read_kafka(bootstrapServers => '{}', "
                           "subscrbe => 't')",
                           Servers())),
      HasSubstr("unknown option 'subscrbe' for the Kafka source; did you mean 'subscribe'?"));
  EXPECT_THAT(SqlError("SELECT * FROM read_kafka(subscribe => 't')"),
              HasSubstr("read_kafka needs bootstrapServers"));
  EXPECT_THAT(SqlError(fmt::format("SELECT * FROM read_kafka(bootstrapServers => '{}', "
                                   "subscribe => lower('T'))",
                                   Servers())),
              HasSubstr("read_kafka argument 'subscribe' must be a constant"));
  EXPECT_THAT(SqlError(fmt::format("SELECT * FROM STREAM read_kafka({})", ReadKafkaArguments("t"))),
              HasSubstr("only the query of CREATE [OR REFRESH] STREAMING TABLE"));
  EXPECT_THAT(SqlError("SELECT * FROM read_kinesis(streamName => 's', region => 'us-east-1')"),
              HasSubstr("read_kinesis reads a stream"));
  // STREAM read_kinesis goes to the Kinesis source, which checks its options.
  EXPECT_THAT(SqlError("CREATE OR REFRESH STREAMING TABLE k AS SELECT * FROM STREAM "
                       "read_kinesis(region => 'us-east-1', initialPosition => 'trim_horizon')"),
              HasSubstr("the Kinesis source needs the option 'streamName'"));
  // kafka.* client settings pass through under their dotted names, in backquotes.
  EXPECT_THAT(SqlError(fmt::format("SELECT * FROM read_kafka(bootstrapServers => '{}', "
                                   "subscribe => 't', `kafka.no.such.setting` => 'x')",
                                   Servers())),
              HasSubstr("kafka.no.such.setting"));
}

}  // namespace
}  // namespace tributary

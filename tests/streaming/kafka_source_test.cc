// The Kafka source (streaming/kafka_source.h) against the test broker (librdkafka's mock cluster
// held by tools/kafka_test_broker), with every record produced by kcat, an independent client:
// options, offsets JSON, starting offsets, rate limits, new partitions, data loss, restarts,
// batch reads, and a query through the public API into a Delta table.

#include "streaming/kafka_source.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/path.h"
#include "streaming/source_fixture.h"
#include "support/kafka_numbered_records.h"
#include "support/kafka_test_cluster.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary::streaming {
namespace {

using ::testing::HasSubstr;
using testing::KafkaTestCluster;
using testing::KafkaTestRecord;

using Options = std::map<std::string, std::string>;

int64_t KafkaSourceTestNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "topic-partition@offset key=value" per row, plus " [h=v,...]" with headers, in scan order.
std::vector<std::string> KafkaRows(const plan::ScanSource& source) {
  std::vector<std::string> rows;
  for (const columnar::RecordBatchPtr& batch : source.batches) {
    const auto& key = batch->ColumnAt(0);
    const auto& value = batch->ColumnAt(1);
    const auto& topic = batch->ColumnAt(2);
    const int32_t* partition = batch->ColumnAt(3)->Values<int32_t>();
    const int64_t* offset = batch->ColumnAt(4)->Values<int64_t>();
    for (int64_t i = 0; i < batch->NumRows(); ++i) {
      std::string row = fmt::format("{}-{}@{} {}={}", topic->BytesAt(i), partition[i], offset[i],
                                    key->IsNull(i) ? "null" : key->BytesAt(i),
                                    value->IsNull(i) ? "null" : value->BytesAt(i));
      if (batch->NumColumns() > 7) {
        const auto& headers = batch->ColumnAt(7);
        const auto& entries = headers->Child(0);
        std::vector<std::string> pairs;
        for (int64_t h = headers->Offsets()[i]; h < headers->Offsets()[i + 1]; ++h) {
          pairs.push_back(
              fmt::format("{}={}", entries->Child(0)->BytesAt(h), entries->Child(1)->BytesAt(h)));
        }
        row += fmt::format(" [{}]", fmt::join(pairs, ","));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// The rows "<topic>-<partition>@<i> k<i>=v<i>" for i in [first, first + count).
std::vector<std::string> Expected(const std::string& topic, int partition, int first, int count) {
  std::vector<std::string> rows;
  for (int i = first; i < first + count; ++i) {
    rows.push_back(fmt::format("{}-{}@{} k{}=v{}", topic, partition, i, i, i));
  }
  return rows;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(KafkaOffsetsTest, PrintsSparksJsonSortedByTopicThenPartitionNumber) {
  const KafkaPartitionOffsets offsets{{{"b", 10}, 7}, {{"b", 2}, 5}, {{"a\"x", 0}, 1}};
  const std::string json = KafkaOffsetsToJson(offsets);
  EXPECT_EQ(json, R"({"a\"x":{"0":1},"b":{"2":5,"10":7}})");
  ASSERT_OK_AND_ASSIGN(KafkaPartitionOffsets parsed, ParseKafkaOffsets(json));
  EXPECT_EQ(parsed, offsets);
  EXPECT_EQ(KafkaOffsetsToJson({}), "{}");
  ASSERT_OK_AND_ASSIGN(KafkaPartitionOffsets empty, ParseKafkaOffsets("{}"));
  EXPECT_TRUE(empty.empty());
}

TEST(KafkaOffsetsTest, RefusesMalformedOffsetsQuotingThem) {
  for (const char* bad : {"nope", R"({"t":[1]})", R"({"t":{"x":1}})", R"({"t":{"0":"1"}})",
                          R"({"t":{"0":-1}})", R"({"t":{"0":1.5}})", "[]"}) {
    auto parsed = ParseKafkaOffsets(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_TRUE(parsed.status().IsInvalidArgument()) << bad;
    EXPECT_THAT(parsed.status().Message(), HasSubstr(bad));
  }
}

TEST(KafkaSourceOptionsTest, ReadsSparksOptionsIgnoringCase) {
  ASSERT_OK_AND_ASSIGN(KafkaSourceOptions options,
                       KafkaSourceOptions::FromMap({{"kafka.bootstrap.servers", "h:1"},
                                                    {"SUBSCRIBE", " b, a ,a"},
                                                    {"startingOffsets", "earliest"},
                                                    {"maxOffsetsPerTrigger", "100"},
                                                    {"minOffsetsPerTrigger", "10"},
                                                    {"maxTriggerDelay", "2m"},
                                                    {"failOnDataLoss", "FALSE"},
                                                    {"includeHeaders", "true"},
                                                    {"kafkaConsumer.pollTimeoutMs", "500"},
                                                    {"kafka.isolation.level", "read_committed"}},
                                                   /*streaming=*/true));
  EXPECT_EQ(options.subscribe, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(options.client.at("bootstrap.servers"), "h:1");
  EXPECT_EQ(options.client.at("isolation.level"), "read_committed");
  EXPECT_EQ(options.max_offsets_per_trigger, 100);
  EXPECT_EQ(options.min_offsets_per_trigger, 10);
  EXPECT_EQ(options.max_trigger_delay_ms, 120000);
  EXPECT_FALSE(options.fail_on_data_loss);
  EXPECT_TRUE(options.include_headers);
  EXPECT_EQ(options.poll_timeout_ms, 500);

  ASSERT_OK_AND_ASSIGN(
      KafkaSourceOptions assign,
      KafkaSourceOptions::FromMap(
          {{"kafka.bootstrap.servers", "h:1"}, {"assign", R"({"t":[1,0],"u":[3]})"}}, true));
  EXPECT_EQ(assign.assign, (KafkaPartitionOffsets{{{"t", 0}, 0}, {{"t", 1}, 0}, {{"u", 3}, 0}}));
}

TEST(KafkaSourceOptionsTest, RefusesMissingConflictingUnknownAndMisplacedOptions) {
  const auto refused = [](const Options& options, bool streaming, const std::string& fragment) {
    auto parsed = KafkaSourceOptions::FromMap(options, streaming);
    ASSERT_FALSE(parsed.ok()) << fragment;
    EXPECT_TRUE(parsed.status().IsInvalidArgument()) << parsed.status().ToString();
    EXPECT_THAT(parsed.status().Message(), HasSubstr(fragment));
  };
  refused({{"subscribe", "t"}}, true, "kafka.bootstrap.servers");
  refused({{"kafka.bootstrap.servers", "h:1"}}, true, "subscribe, subscribePattern, assign");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"subscribePattern", "t.*"}},
          true, "Only one of");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", " , "}}, true, "No topics");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"maxOffsetPerTrigger", "1"}},
          true, "did you mean 'maxOffsetsPerTrigger'");
  refused(
      {{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"kafka.auto.offset.reset", "x"}},
      true, "kafka.auto.offset.reset");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"endingOffsets", "latest"}},
          true, "endingOffsets");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"startingOffsets", "latest"}},
          false, "cannot be latest");
  refused({{"kafka.bootstrap.servers", "h:1"},
           {"subscribe", "t"},
           {"startingOffsets", R"({"t":{"0":-1}})"}},
          false, "cannot be latest");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"endingOffsets", "earliest"}},
          false, "cannot be earliest");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"startingOffsets", "{"}}, true,
          "startingOffsets");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"assign", R"({"t":"0"})"}}, true, "assign");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"maxOffsetsPerTrigger", "0"}},
          true, "maxOffsetsPerTrigger");
  refused({{"kafka.bootstrap.servers", "h:1"},
           {"subscribe", "t"},
           {"startingOffsetsByTimestampStrategy", "skip"}},
          true, "startingOffsetsByTimestampStrategy");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"processCount", "2"}}, true,
          "'processIndex' must be given");
  refused({{"kafka.bootstrap.servers", "h:1"},
           {"subscribe", "t"},
           {"processCount", "2"},
           {"processIndex", "2"}},
          true, "must be 0 to 1");
  refused({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"}, {"processCount", "0"}}, true,
          "processCount");
}

// The owners by partition were computed apart from the code, with Java's String.hashCode in a
// Python script, for Flink's rule.
TEST(KafkaSourceOptionsTest, PartitionOwnersFollowFlinksRule) {
  const auto owners = [](const std::string& topic, int32_t count) {
    std::vector<int32_t> out;
    out.reserve(6);
    for (int32_t partition = 0; partition < 6; ++partition) {
      out.push_back(KafkaPartitionOwner({topic, partition}, count));
    }
    return out;
  };
  EXPECT_EQ(owners("events", 1), std::vector<int32_t>(6, 0));
  EXPECT_EQ(owners("events", 2), (std::vector<int32_t>{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(owners("events", 3), (std::vector<int32_t>{2, 0, 1, 2, 0, 1}));
  EXPECT_EQ(owners("orders", 3), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

TEST(KafkaSourceOptionsTest, DescribesItselfAsSparkDoes) {
  ASSERT_OK_AND_ASSIGN(auto subscribe,
                       KafkaSourceDefinition::Make(
                           {{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "events,audit"}}));
  EXPECT_EQ(subscribe->Description(), "KafkaV2[Subscribe[audit, events]]");
  EXPECT_EQ(subscribe->Identity(), "kafka:subscribe=audit,events");
  ASSERT_OK_AND_ASSIGN(auto assign, KafkaSourceDefinition::Make({{"kafka.bootstrap.servers", "h:1"},
                                                                 {"assign", R"({"t":[0,1]})"}}));
  EXPECT_EQ(assign->Description(), "KafkaV2[Assign[t-0, t-1]]");
  ASSERT_OK_AND_ASSIGN(auto pattern,
                       KafkaSourceDefinition::Make(
                           {{"kafka.bootstrap.servers", "h:1"}, {"subscribePattern", "ev.*"}}));
  EXPECT_EQ(pattern->Description(), "KafkaV2[SubscribePattern[ev.*]]");
  EXPECT_EQ(subscribe->Schema()->ToString(), KafkaSchema(false)->ToString());
  EXPECT_EQ(KafkaSchema(true)->NumFields(), 8);
}

class KafkaSourceTest : public testing::SourceTest {
 protected:
  void SetUp() override {
    testing::SourceTest::SetUp();
    auto cluster = KafkaTestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
  }

  Options With(Options options) const {
    options["kafka.bootstrap.servers"] = cluster_->BootstrapServers();
    return options;
  }

  std::shared_ptr<const KafkaSourceDefinition> Define(const Options& options) const {
    auto definition = KafkaSourceDefinition::Make(With(options));
    EXPECT_TRUE(definition.ok()) << definition.status().ToString();
    return definition.ok() ? *definition : nullptr;
  }

  // Records "k<i>" -> "v<i>" for i in [first, first + count) to `partition`, by kcat.
  void Produce(const std::string& topic, int partition, int first, int count,
               const std::map<std::string, std::string>& headers = {}) {
    ASSERT_OK(cluster_->ProduceWithKcat(
        topic, testing::NumberedKafkaRecords(partition, first, count, headers)));
  }

  // LatestOffset's offset, "" when it has none.
  static std::string Latest(Source& source, const std::optional<Offset>& start,
                            bool respect_limits = true) {
    auto latest = source.LatestOffset(start, respect_limits);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    return latest.ok() && latest->has_value() ? **latest : "";
  }

  static std::vector<std::string> Batch(Source& source, const std::optional<Offset>& start,
                                        const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? KafkaRows(*batch) : std::vector<std::string>{};
  }

  // The source of `options` (with the bootstrap servers) opened over the temp checkpoint.
  std::unique_ptr<Source> OpenKafka(const Options& options) {
    auto definition = Define(options);
    return definition == nullptr ? nullptr : Open(*definition);
  }

  std::string PinnedStart() {
    auto text = fs_.ReadFile(storage::JoinPath(context_.metadata_dir, "0"));
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "";
  }

  std::unique_ptr<KafkaTestCluster> cluster_;
};

TEST_F(KafkaSourceTest, EarliestReadsEveryRecordAndPinsTheStartInTheMetadataLog) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 3);
  Produce("events", 1, 0, 2);
  auto source = OpenKafka({{"subscribe", "events"}, {"startingOffsets", "earliest"}});
  ASSERT_NE(source, nullptr);

  const std::string end = Latest(*source, std::nullopt);
  EXPECT_EQ(end, R"({"events":{"0":3,"1":2}})");
  EXPECT_EQ(PinnedStart(),
            "v1\n"
            R"({"events":{"0":0,"1":0}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end),
            Concat(Expected("events", 0, 0, 3), Expected("events", 1, 0, 2)));

  // Every column, through a scan of the batch: Spark's row shape.
  ASSERT_OK_AND_ASSIGN(plan::ScanSource scan, source->GetBatch(std::nullopt, end));
  const std::vector<std::string> rows = Rows(scan);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_THAT(rows[0], HasSubstr(R"("key":"6b30","value":"7630","topic":"events","partition":0,)"
                                 R"("offset":0,"timestamp":)"));
  EXPECT_THAT(rows[0], HasSubstr(R"("timestampType":0)"));

  // Nothing new: the same offset again.
  EXPECT_EQ(Latest(*source, end), end);
}

TEST_F(KafkaSourceTest, LatestStartsAfterWhatIsThereAndARestartReplaysTheSameRows) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 2);
  auto definition = Define({{"subscribe", "events"}});
  ASSERT_NE(definition, nullptr);
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(Latest(*source, std::nullopt), "");  // nothing after the pinned start
  EXPECT_EQ(PinnedStart(),
            "v1\n"
            R"({"events":{"0":2}})");

  Produce("events", 0, 2, 3);
  const std::string end = Latest(*source, std::nullopt);
  EXPECT_EQ(end, R"({"events":{"0":5}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end), Expected("events", 0, 2, 3));

  // A new run over the same checkpoint: the pinned start, the same rows.
  Produce("events", 0, 5, 1);
  auto restarted = Open(*definition);
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(Batch(*restarted, std::nullopt, end), Expected("events", 0, 2, 3));
  EXPECT_EQ(Latest(*restarted, end), R"({"events":{"0":6}})");
  EXPECT_EQ(Batch(*restarted, end, R"({"events":{"0":6}})"), Expected("events", 0, 5, 1));
}

TEST_F(KafkaSourceTest, AssignReadsOnlyTheAssignedPartitions) {
  ASSERT_OK(cluster_->CreateTopic("events", 3));
  for (int p = 0; p < 3; ++p) {
    Produce("events", p, 0, 2);
  }
  auto source = OpenKafka({{"assign", R"({"events":[2,0]})"}, {"startingOffsets", "earliest"}});
  ASSERT_NE(source, nullptr);
  const std::string end = Latest(*source, std::nullopt);
  EXPECT_EQ(end, R"({"events":{"0":2,"2":2}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end),
            Concat(Expected("events", 0, 0, 2), Expected("events", 2, 0, 2)));
}

// Scale-out: each process reads its share only, and its checkpoint keeps that share.
TEST_F(KafkaSourceTest, AProcessReadsItsShareOfThePartitionsAndItsCheckpointKeepsIt) {
  ASSERT_OK(cluster_->CreateTopic("events", 4));
  for (int p = 0; p < 4; ++p) {
    Produce("events", p, 0, 2);
  }
  const Options share0 = {{"subscribe", "events"},
                          {"startingOffsets", "earliest"},
                          {"processCount", "2"},
                          {"processIndex", "0"}};
  auto source = OpenKafka(share0);
  ASSERT_NE(source, nullptr);
  const std::string end = Latest(*source, std::nullopt);
  EXPECT_EQ(end, R"({"events":{"1":2,"3":2}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end),
            Concat(Expected("events", 1, 0, 2), Expected("events", 3, 0, 2)));
  auto recorded = fs_.ReadFile(storage::JoinPath(context_.metadata_dir, "assignment"));
  ASSERT_OK(recorded.status());
  EXPECT_EQ(*recorded,
            "v1\n"
            R"({"processIndex":0,"processCount":2})");

  // The same share opens again; another share, or none, is refused on this checkpoint.
  EXPECT_NE(OpenKafka(share0), nullptr);
  for (const Options& other :
       {Options{{"subscribe", "events"}, {"processCount", "2"}, {"processIndex", "1"}},
        Options{{"subscribe", "events"}}}) {
    auto definition = Define(other);
    ASSERT_NE(definition, nullptr);
    auto opened = definition->Open(context_);
    ASSERT_FALSE(opened.ok());
    EXPECT_TRUE(opened.status().IsInvalidArgument()) << opened.status().ToString();
    EXPECT_THAT(opened.status().Message(), HasSubstr("needs a new checkpoint"));
  }
}

// One pipeline definition on several processes: the share comes from the session settings
// when the options give none, and a bad setting is refused by its name.
TEST_F(KafkaSourceTest, TheShareComesFromTheSessionWhenTheOptionsGiveNone) {
  ASSERT_OK(cluster_->CreateTopic("events", 4));
  for (int p = 0; p < 4; ++p) {
    Produce("events", p, 0, 1);
  }
  context_.session_config = {{std::string(kKafkaProcessCountKey), "2"},
                             {std::string(kKafkaProcessIndexKey), "1"}};
  auto source = OpenKafka({{"subscribe", "events"}, {"startingOffsets", "earliest"}});
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(Latest(*source, std::nullopt), R"({"events":{"0":1,"2":1}})");

  context_.session_config[std::string(kKafkaProcessIndexKey)] = "2";
  auto definition = Define({{"subscribe", "events"}});
  ASSERT_NE(definition, nullptr);
  auto opened = definition->Open(context_);
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().Message(),
              HasSubstr("session setting 'tributary.kafka.processIndex' is 2"));
}

TEST_F(KafkaSourceTest, NewTopicsOfAPatternAndNewSubscribedTopicsStartAtTheirEarliestOffset) {
  ASSERT_OK(cluster_->CreateTopic("ev-a", 1));
  ASSERT_OK(cluster_->CreateTopic("other", 1));
  Produce("ev-a", 0, 0, 2);
  Produce("other", 0, 0, 2);
  auto pattern = Define({{"subscribePattern", "ev-.*"}});
  auto listed = Define({{"subscribe", "ev-a,ev-b"}});
  ASSERT_NE(pattern, nullptr);
  ASSERT_NE(listed, nullptr);
  auto by_pattern = Open(*pattern);
  context_.metadata_dir = context_.checkpoint_location + "/sources/1";
  ASSERT_OK(fs_.CreateDir(context_.metadata_dir));
  auto by_name = Open(*listed);
  ASSERT_NE(by_pattern, nullptr);
  ASSERT_NE(by_name, nullptr);
  EXPECT_EQ(Latest(*by_pattern, std::nullopt), "");  // latest: after ev-a's two records
  EXPECT_EQ(Latest(*by_name, std::nullopt), "");

  ASSERT_OK(cluster_->CreateTopic("ev-b", 2));
  Produce("ev-b", 1, 0, 3);
  Produce("ev-a", 0, 2, 1);
  const std::string start = R"({"ev-a":{"0":2}})";
  for (Source* source : {by_pattern.get(), by_name.get()}) {
    const std::string end = Latest(*source, start);
    EXPECT_EQ(end, R"({"ev-a":{"0":3},"ev-b":{"0":0,"1":3}})");
    EXPECT_EQ(Batch(*source, start, end),
              Concat(Expected("ev-a", 0, 2, 1), Expected("ev-b", 1, 0, 3)));
  }
}

TEST_F(KafkaSourceTest, StartingOffsetsJsonTakesOffsetsEarliestAndLatestPerPartition) {
  ASSERT_OK(cluster_->CreateTopic("events", 3));
  for (int p = 0; p < 3; ++p) {
    Produce("events", p, 0, 4);
  }
  auto definition =
      Define({{"subscribe", "events"}, {"startingOffsets", R"({"events":{"0":1,"1":-2,"2":-1}})"}});
  ASSERT_NE(definition, nullptr);
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  const std::string end = Latest(*source, std::nullopt);
  EXPECT_EQ(PinnedStart(),
            "v1\n"
            R"({"events":{"0":1,"1":0,"2":4}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end),
            Concat(Expected("events", 0, 1, 3), Expected("events", 1, 0, 4)));

  // Spark's rule: per-partition offsets name every partition of the subscription.
  TearDown();
  SetUp();
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  auto opened = OpenKafka({{"subscribe", "events"}, {"startingOffsets", R"({"events":{"0":0}})"}});
  ASSERT_NE(opened, nullptr);
  auto latest = opened->LatestOffset(std::nullopt, true);
  ASSERT_FALSE(latest.ok());
  EXPECT_TRUE(latest.status().IsInvalidArgument());
  EXPECT_THAT(latest.status().Message(), HasSubstr("every partition"));
  EXPECT_THAT(latest.status().Message(), HasSubstr("events-1"));
}

// A timestamp without a record at or after it: an error by default, the latest offset with
// startingOffsetsByTimestampStrategy "latest". (librdkafka's mock cluster answers every lookup
// by timestamp with "none", so the lookup of an existing record cannot be checked against it.)
TEST_F(KafkaSourceTest, StartingTimestampWithoutARecordAfterItFailsOrStartsAtTheLatestOffset) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 2);
  const std::string future = std::to_string(KafkaSourceTestNowMs() + 3'600'000);
  auto failing = OpenKafka({{"subscribe", "events"},
                            {"startingOffsetsByTimestamp", R"({"events":{"0":)" + future + "}}"}});
  ASSERT_NE(failing, nullptr);
  auto refused = failing->LatestOffset(std::nullopt, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().Message(), HasSubstr("events-0"));
  EXPECT_THAT(refused.status().Message(), HasSubstr("startingOffsetsByTimestampStrategy"));

  TearDown();
  SetUp();
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 2);
  auto at_latest = OpenKafka({{"subscribe", "events"},
                              {"startingTimestamp", future},
                              {"startingOffsetsByTimestampStrategy", "latest"}});
  ASSERT_NE(at_latest, nullptr);
  EXPECT_EQ(Latest(*at_latest, std::nullopt), "");
  EXPECT_EQ(PinnedStart(),
            "v1\n"
            R"({"events":{"0":2}})");
  Produce("events", 0, 2, 1);
  const std::string end = Latest(*at_latest, std::nullopt);
  EXPECT_EQ(Batch(*at_latest, std::nullopt, end), Expected("events", 0, 2, 1));

  // Per-partition timestamps name every partition, as offsets do.
  context_.metadata_dir = context_.checkpoint_location + "/sources/1";
  ASSERT_OK(fs_.CreateDir(context_.metadata_dir));
  auto partial = KafkaSourceDefinition::Make(With(
      {{"assign", R"({"events":[0]})"}, {"startingOffsetsByTimestamp", R"({"other":{"0":1}})"}}));
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  auto opened = Open(**partial);
  ASSERT_NE(opened, nullptr);
  auto mismatch = opened->LatestOffset(std::nullopt, true);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().Message(), HasSubstr("every partition"));
}

TEST_F(KafkaSourceTest, MaxOffsetsPerTriggerSplitsTheLimitInProportionWithoutStarvingAnyone) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 6);
  Produce("events", 1, 0, 2);
  auto definition = Define(
      {{"subscribe", "events"}, {"startingOffsets", "earliest"}, {"maxOffsetsPerTrigger", "4"}});
  ASSERT_NE(definition, nullptr);
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  // 4 * 6/8 = 3 and 4 * 2/8 = 1.
  const std::string first = Latest(*source, std::nullopt);
  EXPECT_EQ(first, R"({"events":{"0":3,"1":1}})");
  const std::string second = Latest(*source, first);
  EXPECT_EQ(second, R"({"events":{"0":6,"1":2}})");
  EXPECT_EQ(Batch(*source, std::nullopt, first),
            Concat(Expected("events", 0, 0, 3), Expected("events", 1, 0, 1)));
  EXPECT_EQ(Batch(*source, first, second),
            Concat(Expected("events", 0, 3, 3), Expected("events", 1, 1, 1)));
  // Without limits (Trigger.Once) everything at once.
  EXPECT_EQ(Latest(*source, std::nullopt, /*respect_limits=*/false), second);

  // A share below one rounds up: 1 * 6/8 and 1 * 2/8 both become 1.
  TearDown();
  SetUp();
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 6);
  Produce("events", 1, 0, 2);
  auto one = Define(
      {{"subscribe", "events"}, {"startingOffsets", "earliest"}, {"maxOffsetsPerTrigger", "1"}});
  ASSERT_NE(one, nullptr);
  auto limited = Open(*one);
  ASSERT_NE(limited, nullptr);
  EXPECT_EQ(Latest(*limited, std::nullopt), R"({"events":{"0":1,"1":1}})");

  // The metrics of the last batch: offsets behind the latest ones.
  const std::string end = R"({"events":{"0":1,"1":1}})";
  ASSERT_OK(limited->GetBatch(std::nullopt, end).status());
  EXPECT_EQ(limited->Metrics(),
            (std::map<std::string, std::string>{{"avgOffsetsBehindLatest", "3.0"},
                                                {"maxOffsetsBehindLatest", "5"},
                                                {"minOffsetsBehindLatest", "1"}}));
}

TEST_F(KafkaSourceTest, MinOffsetsPerTriggerHoldsBatchesBackUntilEnoughOrTheDelayPassed) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 1);
  auto source = OpenKafka({{"subscribe", "events"},
                           {"startingOffsets", "earliest"},
                           {"minOffsetsPerTrigger", "3"},
                           {"maxTriggerDelay", "1h"}});
  ASSERT_NE(source, nullptr);
  // Spark's first batch is never held back.
  const std::string first = Latest(*source, std::nullopt);
  EXPECT_EQ(first, R"({"events":{"0":1}})");
  Produce("events", 0, 1, 2);
  EXPECT_EQ(Latest(*source, first), first);  // 2 new < 3: wait
  // Without limits (Trigger.Once) there is no wait.
  EXPECT_EQ(Latest(*source, first, /*respect_limits=*/false), R"({"events":{"0":3}})");
  Produce("events", 0, 3, 1);
  EXPECT_EQ(Latest(*source, first), R"({"events":{"0":4}})");

  // With no delay allowed, a batch goes whatever its size.
  TearDown();
  SetUp();
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 1);
  auto opened = OpenKafka({{"subscribe", "events"},
                           {"startingOffsets", "earliest"},
                           {"minOffsetsPerTrigger", "100"},
                           {"maxTriggerDelay", "0s"}});
  ASSERT_NE(opened, nullptr);
  const std::string start = Latest(*opened, std::nullopt);
  Produce("events", 0, 1, 1);
  EXPECT_EQ(Latest(*opened, start), R"({"events":{"0":2}})");
}

TEST_F(KafkaSourceTest, AvailableNowStopsAtTheOffsetsPresentWhenItWasPrepared) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 3);
  auto definition = Define(
      {{"subscribe", "events"}, {"startingOffsets", "earliest"}, {"maxOffsetsPerTrigger", "2"}});
  ASSERT_NE(definition, nullptr);
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  Produce("events", 0, 3, 5);
  const std::string first = Latest(*source, std::nullopt);
  EXPECT_EQ(first, R"({"events":{"0":2}})");  // the rate limit still applies
  const std::string second = Latest(*source, first);
  EXPECT_EQ(second, R"({"events":{"0":3}})");
  EXPECT_EQ(Latest(*source, second), second);
}

TEST_F(KafkaSourceTest, HeadersComeAsAnArrayOfKeyValueStructsWhenAsked) {
  ASSERT_OK(cluster_->CreateTopic("events", 1));
  Produce("events", 0, 0, 2, {{"trace", "t1"}, {"origin", "kcat"}});
  auto definition = Define(
      {{"subscribe", "events"}, {"startingOffsets", "earliest"}, {"includeHeaders", "true"}});
  ASSERT_NE(definition, nullptr);
  EXPECT_EQ(definition->Schema()->FieldAt(7).Name(), "headers");
  auto source = Open(*definition);
  ASSERT_NE(source, nullptr);
  const std::vector<std::string> rows = Batch(*source, std::nullopt, Latest(*source, std::nullopt));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], HasSubstr("events-0@0 k0=v0 ["));
  EXPECT_THAT(rows[0], HasSubstr("trace=t1"));
  EXPECT_THAT(rows[0], HasSubstr("origin=kcat"));
}

TEST_F(KafkaSourceTest, RecordsDeletedBeforeTheyWereReadFailNamingTheLostRangeOrAreSkipped) {
  for (const bool fail : {true, false}) {
    TearDown();
    SetUp();
    ASSERT_OK(cluster_->CreateTopic("events", 1));
    Produce("events", 0, 0, 3);
    auto definition = Define({{"subscribe", "events"},
                              {"startingOffsets", "earliest"},
                              {"failOnDataLoss", fail ? "true" : "false"}});
    ASSERT_NE(definition, nullptr);
    auto source = Open(*definition);
    ASSERT_NE(source, nullptr);
    const std::string end = Latest(*source, std::nullopt);
    ASSERT_EQ(end, R"({"events":{"0":3}})");

    // Retention deletes offsets 0..2 (and the broker's own two eviction records) before the
    // batch reads them.
    ASSERT_OK(cluster_->DeleteRecordsBefore("events", 0, 3));
    ASSERT_OK_AND_ASSIGN(auto marks, cluster_->Watermarks("events", 0));
    Produce("events", 0, static_cast<int>(marks.second), 2);
    auto batch = source->GetBatch(std::nullopt, end);
    if (fail) {
      ASSERT_FALSE(batch.ok());
      EXPECT_TRUE(batch.status().IsNotFound()) << batch.status().ToString();
      EXPECT_THAT(batch.status().Message(), HasSubstr("offsets [0, 3) of partition events-0"));
      EXPECT_THAT(batch.status().Message(), HasSubstr("failOnDataLoss"));
      continue;
    }
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_TRUE(KafkaRows(*batch).empty());
    const std::string next = Latest(*source, end);
    EXPECT_EQ(next, fmt::format(R"({{"events":{{"0":{}}}}})", marks.second + 2));
    EXPECT_EQ(Batch(*source, end, next), Expected("events", 0, static_cast<int>(marks.second), 2));
  }
}

// A leader moving between LatestOffset calls, and offset requests failing with leader
// errors: the source refreshes its metadata and retries (fetchOffset.numRetries, bounded by
// kafkaConsumer.pollTimeoutMs) instead of failing the batch.
TEST_F(KafkaSourceTest, OffsetQueriesSurviveLeaderMovesAndLeaderErrors) {
  auto three = KafkaTestCluster::Start(3);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  cluster_ = std::move(*three);
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 2);
  Produce("events", 1, 0, 2);
  auto source = OpenKafka({{"subscribe", "events"}, {"startingOffsets", "earliest"}});
  ASSERT_NE(source, nullptr);
  const std::string first = Latest(*source, std::nullopt);
  ASSERT_EQ(first, R"({"events":{"0":2,"1":2}})");

  for (int leader = 1; leader <= 3; ++leader) {
    for (int p = 0; p < 2; ++p) {
      ASSERT_OK(cluster_->SetPartitionLeader("events", p, leader));
    }
    Produce("events", 0, 2 + leader - 1, 1);
    const std::string end = Latest(*source, first);
    EXPECT_EQ(end, fmt::format(R"({{"events":{{"0":{},"1":2}}}})", 2 + leader)) << leader;
  }
  // ListOffsets (API key 2) answered NOT_LEADER_FOR_PARTITION (6) three times in a row.
  ASSERT_OK(cluster_->PushRequestErrors(2, 6, 3));
  const std::string end = Latest(*source, first);
  EXPECT_EQ(end, R"({"events":{"0":5,"1":2}})");
  EXPECT_EQ(Batch(*source, std::nullopt, end),
            Concat(Expected("events", 0, 0, 5), Expected("events", 1, 0, 2)));
}

TEST_F(KafkaSourceTest, BatchReadsTakeStartingAndEndingOffsets) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  Produce("events", 0, 0, 4);
  Produce("events", 1, 0, 3);
  const auto rows = [](const std::vector<columnar::RecordBatchPtr>& batches) {
    plan::ScanSource source;
    source.batches = batches;
    return KafkaRows(source);
  };
  ASSERT_OK_AND_ASSIGN(auto all, ReadKafkaBatch(With({{"subscribe", "events"}})));
  EXPECT_EQ(rows(all), Concat(Expected("events", 0, 0, 4), Expected("events", 1, 0, 3)));

  ASSERT_OK_AND_ASSIGN(auto some,
                       ReadKafkaBatch(With({{"subscribe", "events"},
                                            {"startingOffsets", R"({"events":{"0":1,"1":-2}})"},
                                            {"endingOffsets", R"({"events":{"0":3,"1":-1}})"}})));
  EXPECT_EQ(rows(some), Concat(Expected("events", 0, 1, 2), Expected("events", 1, 0, 3)));

  auto refused = ReadKafkaBatch(With({{"subscribe", "events"}, {"startingOffsets", "latest"}}));
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
}

// A query through the public API: kcat's records into a Delta table, each exactly once,
// across a restart from the checkpoint.
TEST_F(KafkaSourceTest, AStreamingQueryWritesEveryRecordToDeltaExactlyOnceAcrossRestarts) {
  ASSERT_OK(cluster_->CreateTopic("events", 2));
  std::vector<KafkaTestRecord> records;
  for (int i = 0; i < 10; ++i) {
    KafkaTestRecord record;
    record.key = fmt::format("k{}", i);
    record.value = fmt::format(R"({{"id":{}}})", i);
    record.partition = i % 2;
    records.push_back(std::move(record));
  }
  ASSERT_OK(cluster_->ProduceWithKcat("events", records));

  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Session> session,
                       Session::Builder().Warehouse(dir.Join("warehouse")).Build());
  const std::string table = dir.Join("table");
  const auto run = [&]() -> Result<StreamingQuery> {
    TRIBUTARY_ASSIGN_OR_RAISE(
        StreamingQuery query,
        session->ReadStream()
            .Format("kafka")
            .Option("kafka.bootstrap.servers", cluster_->BootstrapServers())
            .Option("subscribe", "events")
            .Option("startingOffsets", "earliest")
            .Option("maxOffsetsPerTrigger", "4")
            .Load()
            .SelectExpr({"CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value",
                         "partition", "offset"})
            .WriteStream()
            .Format("delta")
            .Option("checkpointLocation", dir.Join("checkpoint"))
            .Trigger(Trigger::AvailableNow())
            .Start(table));
    TRIBUTARY_RETURN_NOT_OK(query.AwaitTermination());
    return query;
  };
  ASSERT_OK_AND_ASSIGN(StreamingQuery first, run());
  const std::vector<StreamingQueryProgress> progress = first.RecentProgress();
  ASSERT_EQ(progress.size(), 3u);  // 4 + 4 + 2 records
  EXPECT_EQ(progress[0].sources[0].description, "KafkaV2[Subscribe[events]]");
  EXPECT_EQ(progress[0].sources[0].end_offset, R"({"events":{"0":2,"1":2}})");
  EXPECT_EQ(progress[0].sources[0].metrics.at("maxOffsetsBehindLatest"), "3");

  std::vector<KafkaTestRecord> more;
  for (int i = 10; i < 15; ++i) {
    KafkaTestRecord record;
    record.key = fmt::format("k{}", i);
    record.value = fmt::format(R"({{"id":{}}})", i);
    record.partition = i % 2;
    more.push_back(std::move(record));
  }
  ASSERT_OK(cluster_->ProduceWithKcat("events", more));
  ASSERT_OK_AND_ASSIGN(StreamingQuery second, run());
  EXPECT_EQ(second.Id(), first.Id());

  ASSERT_OK_AND_ASSIGN(auto rows, session->Read().Format("delta").Load(table).Collect());
  std::vector<std::string> expected;
  expected.reserve(15);
  for (int i = 0; i < 15; ++i) {
    expected.push_back(fmt::format(R"({{"key":"k{}","value":"{{\"id\":{}}}","partition":{},)"
                                   R"("offset":{}}})",
                                   i, i, i % 2, i / 2));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(testing::SortedJson(rows), expected);
}

}  // namespace
}  // namespace tributary::streaming

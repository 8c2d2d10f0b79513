// The Kinesis source against moto's Kinesis (the S3 test server's port): records put, shards
// split and merged by botocore (support/kinesis_oracle.h), read by
// ReadStream().Format("kinesis") into Delta tables through the public API, every record exactly
// once across restarts, each initialPosition, and resharding with parents drained before
// children (checked in every offsets/N the query wrote).

#include "streaming/kinesis_source.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "storage/local_file_system.h"
#include "support/kinesis_oracle.h"
#include "support/row_json.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::tributary::testing::KinesisOracleCreateStream;
using ::tributary::testing::KinesisOracleLastArrivalMs;
using ::tributary::testing::KinesisOracleMerge;
using ::tributary::testing::KinesisOraclePut;
using ::tributary::testing::KinesisOracleShards;
using ::tributary::testing::KinesisOracleSplit;
using ::tributary::testing::KinesisPut;
using ::tributary::testing::S3TestServer;
using Json = nlohmann::json;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class KinesisSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
  }

  std::map<std::string, std::string> Options(const std::string& stream,
                                             const std::string& initial_position) const {
    return {{"streamName", stream},
            {"region", testing::kS3TestRegion},
            {"endpoint", S3TestServer::Get().Endpoint()},
            {"awsAccessKey", testing::kS3TestAccessKey},
            {"awsSecretKey", testing::kS3TestSecretKey},
            {"initialPosition", initial_position}};
  }

  Result<StreamingQuery> StartQuery(const std::map<std::string, std::string>& options,
                                    tributary::Trigger trigger) {
    return session_->ReadStream()
        .Format("kinesis")
        .Options(options)
        .Load()
        .SelectExpr({"partitionKey", "CAST(data AS STRING) AS value", "stream", "shardId",
                     "sequenceNumber", "approximateArrivalTimestamp IS NOT NULL AS arrived"})
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", checkpoint_)
        .Trigger(trigger)
        .Start(table_);
  }

  /// The table's rows as "<partitionKey>=<value>@<shardId>/<sequenceNumber>", sorted.
  std::vector<std::string> TableRows() const {
    if (!std::filesystem::exists(table_ + "/_delta_log")) {
      return {};
    }
    return Formatted(session_->Read().Format("delta").Load(table_));
  }

  /// The rows of `rows` (the columns StartQuery selects) in TableRows' form, sorted.
  std::vector<std::string> Formatted(const DataFrame& rows) const {
    auto collected = rows.Collect();
    EXPECT_OK(collected.status());
    std::vector<std::string> out;
    for (const std::string& line :
         collected.ok() ? testing::Json(*collected) : std::vector<std::string>{}) {
      const Json row = Json::parse(line);
      EXPECT_EQ(row["stream"], stream_);
      EXPECT_EQ(row["arrived"], true);
      out.push_back(fmt::format("{}={}@{}/{}", row["partitionKey"].get<std::string>(),
                                row["value"].get<std::string>(), row["shardId"].get<std::string>(),
                                row["sequenceNumber"].get<std::string>()));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// What botocore put, in TableRows' form.
  static std::vector<std::string> Expected(
      const std::vector<std::pair<std::string, std::string>>& records,
      const std::vector<KinesisPut>& puts) {
    std::vector<std::string> out;
    for (size_t i = 0; i < records.size(); ++i) {
      out.push_back(fmt::format("{}={}@{}/{}", records[i].first, records[i].second,
                                puts[i].shard_id, puts[i].sequence_number));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// The source offsets of every offsets/N the query wrote, in batch order.
  std::vector<Json> OffsetLog() const {
    std::vector<Json> offsets;
    for (int batch = 0;; ++batch) {
      const std::string path = checkpoint_ + "/offsets/" + std::to_string(batch);
      if (!std::filesystem::exists(path)) {
        break;
      }
      const std::string text = ReadText(path);
      std::string last_line = text.substr(text.find_last_of('\n', text.size() - 2) + 1);
      offsets.push_back(Json::parse(last_line));
    }
    return offsets;
  }

  static std::vector<std::pair<std::string, std::string>> Records(const std::string& prefix,
                                                                  int count) {
    std::vector<std::pair<std::string, std::string>> records;
    records.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      records.emplace_back(fmt::format("key{}", i % 7), fmt::format("{}{}", prefix, i));
    }
    return records;
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  std::string stream_ = "events";
  std::string checkpoint_ = dir_.Join("checkpoint");
  std::string table_ = dir_.Join("table");
};

TEST_F(KinesisSourceTest, TrimHorizonIntoDeltaEveryRecordOnceAcrossRestarts) {
  ASSERT_OK(KinesisOracleCreateStream(stream_, 3));
  auto first = Records("a", 40);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> first_puts, KinesisOraclePut(stream_, first));
  std::map<std::string, std::string> options = Options(stream_, "TRIM_HORIZON");
  options["maxRecordsPerFetch"] = "5";
  {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartQuery(options, Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
  }
  EXPECT_THAT(TableRows(), ElementsAreArray(Expected(first, first_puts)));
  // At most maxRecordsPerFetch records of a shard per batch: several batches.
  const std::vector<Json> offsets = OffsetLog();
  EXPECT_GE(offsets.size(), 40u / (3 * 5));
  // The last offset holds each shard's last sequence number.
  std::map<std::string, std::string> last_put;
  for (const KinesisPut& put : first_puts) {
    last_put[put.shard_id] = put.sequence_number;
  }
  for (const auto& [shard, sequence_number] : last_put) {
    EXPECT_EQ(offsets.back()[shard]["iteratorType"], "AFTER_SEQUENCE_NUMBER");
    EXPECT_EQ(offsets.back()[shard]["iteratorPosition"], sequence_number);
    EXPECT_EQ(offsets.back()[shard]["closed"], false);
  }

  // Restarted on the same checkpoint: only the new records, each once.
  auto second = Records("b", 25);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> second_puts, KinesisOraclePut(stream_, second));
  {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartQuery(options, Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
  }
  first.insert(first.end(), second.begin(), second.end());
  first_puts.insert(first_puts.end(), second_puts.begin(), second_puts.end());
  EXPECT_THAT(TableRows(), ElementsAreArray(Expected(first, first_puts)));

  // A running query takes what arrives, then a third run finds nothing new.
  {
    ASSERT_OK_AND_ASSIGN(
        StreamingQuery query,
        StartQuery(options, Trigger::ProcessingTime(std::chrono::milliseconds(0))));
    ASSERT_OK(query.ProcessAllAvailable());
    auto third = Records("c", 12);
    ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> third_puts, KinesisOraclePut(stream_, third));
    ASSERT_OK(query.ProcessAllAvailable());
    query.Stop();
    first.insert(first.end(), third.begin(), third.end());
    first_puts.insert(first_puts.end(), third_puts.begin(), third_puts.end());
  }
  const size_t batches = OffsetLog().size();
  {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartQuery(options, Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
  }
  EXPECT_EQ(OffsetLog().size(), batches);
  EXPECT_THAT(TableRows(), ElementsAreArray(Expected(first, first_puts)));
}

// SQL: a pipeline's STREAM read_kinesis(...) with Databricks' argument names into a streaming
// table of the warehouse; a second run reads only what was put since.
TEST_F(KinesisSourceTest, SqlPipelineReadsKinesisIntoAStreamingTable) {
  ASSERT_OK(KinesisOracleCreateStream(stream_, 2));
  auto records = Records("a", 10);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> puts, KinesisOraclePut(stream_, records));
  const std::string sql = fmt::format(
      "CREATE OR REFRESH STREAMING TABLE raw AS\n"
      "  SELECT partitionKey, CAST(data AS STRING) AS value, stream, shardId, sequenceNumber,\n"
      "         approximateArrivalTimestamp IS NOT NULL AS arrived\n"
      "  FROM STREAM read_kinesis(streamName => '{}', region => '{}', endpoint => '{}',\n"
      "                           awsAccessKey => '{}', awsSecretKey => '{}',\n"
      "                           initialPosition => 'trim_horizon');\n",
      stream_, testing::kS3TestRegion, S3TestServer::Get().Endpoint(), testing::kS3TestAccessKey,
      testing::kS3TestSecretKey);
  const auto run = [&] {
    ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Parse(session_, sql));
    ASSERT_OK(pipeline->Run());
  };
  const auto rows = [&] {
    return Formatted(session_->Sql(
        "SELECT partitionKey, value, stream, shardId, sequenceNumber, arrived FROM raw"));
  };
  run();
  EXPECT_EQ(rows(), Expected(records, puts));

  auto more = Records("b", 5);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> more_puts, KinesisOraclePut(stream_, more));
  run();
  records.insert(records.end(), more.begin(), more.end());
  puts.insert(puts.end(), more_puts.begin(), more_puts.end());
  EXPECT_EQ(rows(), Expected(records, puts));
}

TEST_F(KinesisSourceTest, LatestStartsAfterWhatWasThereAndAtTimestampAtTheGivenTime) {
  ASSERT_OK(KinesisOracleCreateStream(stream_, 2));
  ASSERT_OK(KinesisOraclePut(stream_, Records("old", 6)).status());
  {
    // latest is the default.
    std::map<std::string, std::string> options = Options(stream_, "latest");
    options.erase("initialPosition");
    ASSERT_OK_AND_ASSIGN(
        StreamingQuery query,
        StartQuery(options, Trigger::ProcessingTime(std::chrono::milliseconds(0))));
    ASSERT_OK(query.ProcessAllAvailable());
    EXPECT_THAT(TableRows(), IsEmpty());
    auto fresh = Records("new", 5);
    ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> puts, KinesisOraclePut(stream_, fresh));
    ASSERT_OK(query.ProcessAllAvailable());
    query.Stop();
    EXPECT_THAT(TableRows(), ElementsAreArray(Expected(fresh, puts)));
  }

  // at_timestamp, with a format and without (CAST's forms, UTC): a millisecond after every
  // record so far, which the test server's arrival times make at or before the later ones'.
  ASSERT_OK_AND_ASSIGN(const int64_t last_ms, KinesisOracleLastArrivalMs(stream_));
  const int64_t at_ms = last_ms + 1;
  auto later = Records("later", 4);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> later_puts, KinesisOraclePut(stream_, later));
  const std::time_t seconds = at_ms / 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &utc);
  const std::string time = fmt::format("{}.{:03d}", text, at_ms % 1000);
  for (const std::string& position :
       {fmt::format(R"({{"at_timestamp": "{}", "format": "yyyy-MM-dd HH:mm:ss.SSS"}})", time),
        fmt::format(R"({{"at_timestamp": "{}Z"}})", time)}) {
    SCOPED_TRACE(position);
    checkpoint_ = dir_.Join("checkpoint-" + std::to_string(position.size()));
    table_ = dir_.Join("table-" + std::to_string(position.size()));
    ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                         StartQuery(Options(stream_, position), Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
    EXPECT_THAT(TableRows(), ElementsAreArray(Expected(later, later_puts)));
  }
}

TEST_F(KinesisSourceTest, ReshardedParentsAreDrainedBeforeTheirChildren) {
  ASSERT_OK(KinesisOracleCreateStream(stream_, 1));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> shards, KinesisOracleShards(stream_));
  ASSERT_EQ(shards.size(), 1u);
  auto records = Records("parent", 14);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> puts, KinesisOraclePut(stream_, records));
  // Split in two halves, write to both, merge them again, write to the merged shard.
  ASSERT_OK(KinesisOracleSplit(stream_, shards[0], "170141183460469231731687303715884105728"));
  auto children = Records("child", 14);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> children_puts, KinesisOraclePut(stream_, children));
  ASSERT_OK_AND_ASSIGN(shards, KinesisOracleShards(stream_));
  ASSERT_EQ(shards.size(), 3u);
  ASSERT_OK(KinesisOracleMerge(stream_, shards[1], shards[2]));
  auto merged = Records("merged", 9);
  ASSERT_OK_AND_ASSIGN(std::vector<KinesisPut> merged_puts, KinesisOraclePut(stream_, merged));
  ASSERT_OK_AND_ASSIGN(shards, KinesisOracleShards(stream_));
  ASSERT_EQ(shards.size(), 4u);
  for (const KinesisPut& put : merged_puts) {
    EXPECT_EQ(put.shard_id, shards[3]);
  }

  std::map<std::string, std::string> options = Options(stream_, "earliest");
  options["maxRecordsPerFetch"] = "4";
  {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartQuery(options, Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
  }
  records.insert(records.end(), children.begin(), children.end());
  records.insert(records.end(), merged.begin(), merged.end());
  puts.insert(puts.end(), children_puts.begin(), children_puts.end());
  puts.insert(puts.end(), merged_puts.begin(), merged_puts.end());
  EXPECT_THAT(TableRows(), ElementsAreArray(Expected(records, puts)));

  // In every offset, a shard has been read only when each of its parents was drained then.
  const std::vector<Json> offsets = OffsetLog();
  ASSERT_GE(offsets.size(), 4u);
  std::vector<std::string> read_order;
  for (const Json& offset : offsets) {
    for (const auto& [shard, position] : offset.items()) {
      if (position["iteratorType"] != "AFTER_SEQUENCE_NUMBER") {
        continue;
      }
      if (std::find(read_order.begin(), read_order.end(), shard) == read_order.end()) {
        read_order.push_back(shard);
      }
      for (const Json& parent : position["parents"]) {
        EXPECT_EQ(offset[parent.get<std::string>()]["drained"], true)
            << shard << " read before its parent " << parent << " was drained: " << offset;
      }
    }
  }
  EXPECT_EQ(read_order.front(), shards[0]);
  EXPECT_EQ(read_order.back(), shards[3]);
  for (const std::string& shard : {shards[0], shards[1], shards[2]}) {
    EXPECT_EQ(offsets.back()[shard]["closed"], true);
    EXPECT_EQ(offsets.back()[shard]["drained"], true);
  }
  EXPECT_EQ(offsets.back()[shards[3]]["drained"], false);
  EXPECT_THAT(offsets.back()[shards[3]]["parents"], ElementsAre(shards[1], shards[2]));
}

// streamName as a list: one query reads several streams, each row naming its stream, and the
// offsets keep each stream's shards apart (shard ids repeat across streams).
TEST_F(KinesisSourceTest, SeveralStreamsAreReadAsOneEachRecordOnceNamingItsStream) {
  ASSERT_OK(KinesisOracleCreateStream("events", 2));
  ASSERT_OK(KinesisOracleCreateStream("clicks", 1));
  std::vector<std::string> expected;
  const auto put = [&](const std::string& stream, const std::string& prefix, int count) {
    auto records = Records(prefix, count);
    auto puts = KinesisOraclePut(stream, records);
    ASSERT_OK(puts.status());
    for (size_t i = 0; i < records.size(); ++i) {
      expected.push_back(fmt::format("{}:{}@{}/{}", stream, records[i].second, (*puts)[i].shard_id,
                                     (*puts)[i].sequence_number));
    }
  };
  const auto rows = [&] {
    auto collected = session_->Read().Format("delta").Load(table_).Collect();
    EXPECT_OK(collected.status());
    std::vector<std::string> out;
    for (const std::string& line :
         collected.ok() ? testing::Json(*collected) : std::vector<std::string>{}) {
      const Json row = Json::parse(line);
      out.push_back(fmt::format("{}:{}@{}/{}", row["stream"].get<std::string>(),
                                row["value"].get<std::string>(), row["shardId"].get<std::string>(),
                                row["sequenceNumber"].get<std::string>()));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  put("events", "e", 30);
  put("clicks", "c", 12);
  std::map<std::string, std::string> options = Options("events, clicks", "TRIM_HORIZON");
  options["maxRecordsPerFetch"] = "7";
  for (const char* prefix : {"first", "second"}) {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartQuery(options, Trigger::AvailableNow()));
    ASSERT_OK(query.AwaitTermination());
    std::sort(expected.begin(), expected.end());
    EXPECT_THAT(rows(), ElementsAreArray(expected)) << prefix << " run";
    put("events", std::string(prefix) + "-e", 5);
    put("clicks", std::string(prefix) + "-c", 4);
  }
  // Both streams' shards in every offset, under their stream; clicks' one shard has the id of
  // one of events' shards.
  const Json last = OffsetLog().back();
  ASSERT_TRUE(last.contains("events") && last.contains("clicks")) << last;
  EXPECT_EQ(last["events"].size(), 2u);
  ASSERT_EQ(last["clicks"].size(), 1u);
  EXPECT_TRUE(last["events"].contains(last["clicks"].items().begin().key())) << last;
  EXPECT_EQ(last["clicks"].items().begin().value()["iteratorType"], "AFTER_SEQUENCE_NUMBER");
}

TEST_F(KinesisSourceTest, AReplayedBatchAfterARestartHasTheSameRows) {
  ASSERT_OK(KinesisOracleCreateStream(stream_, 2));
  ASSERT_OK(KinesisOraclePut(stream_, Records("x", 30)).status());
  storage::LocalFileSystem fs;
  streaming::SourceContext context;
  context.fs = &fs;
  context.checkpoint_location = checkpoint_;
  context.metadata_dir = checkpoint_ + "/sources/0";
  ASSERT_OK(fs.CreateDir(context.metadata_dir));
  std::map<std::string, std::string> options = Options(stream_, "trim_horizon");
  options["maxRecordsPerFetch"] = "6";
  ASSERT_OK_AND_ASSIGN(auto definition, streaming::KinesisSourceDefinition::Make(options, {}));
  const auto rows_of = [](const plan::ScanSource& scan) {
    std::vector<std::string> rows;
    for (const auto& batch : scan.batches) {
      for (int64_t i = 0; i < batch->NumRows(); ++i) {
        rows.push_back(fmt::format("{} {} {}", batch->ColumnAt(3)->BytesAt(i),
                                   batch->ColumnAt(4)->BytesAt(i), batch->ColumnAt(1)->BytesAt(i)));
      }
    }
    return rows;
  };
  ASSERT_OK_AND_ASSIGN(auto source, definition->Open(context));
  ASSERT_OK_AND_ASSIGN(std::optional<streaming::Offset> first, source->LatestOffset({}, true));
  ASSERT_TRUE(first.has_value());
  ASSERT_OK_AND_ASSIGN(plan::ScanSource batch0, source->GetBatch({}, *first));
  ASSERT_OK(source->Commit(*first));
  ASSERT_OK_AND_ASSIGN(std::optional<streaming::Offset> second, source->LatestOffset(first, true));
  ASSERT_TRUE(second.has_value());
  ASSERT_OK_AND_ASSIGN(plan::ScanSource batch1, source->GetBatch(first, *second));
  // At most maxRecordsPerFetch records of each of the two shards per batch.
  EXPECT_LE(rows_of(batch0).size(), 12u);
  EXPECT_LE(rows_of(batch1).size(), 12u);
  EXPECT_FALSE(rows_of(batch1).empty());

  // A new process: the same ranges read again from Kinesis give the same rows.
  ASSERT_OK_AND_ASSIGN(auto restarted, definition->Open(context));
  ASSERT_OK_AND_ASSIGN(plan::ScanSource again1, restarted->GetBatch(first, *second));
  EXPECT_EQ(rows_of(again1), rows_of(batch1));
  ASSERT_OK_AND_ASSIGN(plan::ScanSource again0, restarted->GetBatch({}, *first));
  EXPECT_EQ(rows_of(again0), rows_of(batch0));
  // Without limits, the rest in one batch.
  ASSERT_OK_AND_ASSIGN(std::optional<streaming::Offset> rest,
                       restarted->LatestOffset(second, false));
  ASSERT_OK_AND_ASSIGN(plan::ScanSource batch2, restarted->GetBatch(second, *rest));
  EXPECT_EQ(rows_of(batch0).size() + rows_of(batch1).size() + rows_of(batch2).size(), 30u);
  ASSERT_OK_AND_ASSIGN(std::optional<streaming::Offset> none, restarted->LatestOffset(rest, false));
  EXPECT_EQ(none, rest);
}

TEST(KinesisSourceOptionsTest, DatabricksNamesIgnoringCaseAndRefusals) {
  ASSERT_OK_AND_ASSIGN(auto options,
                       streaming::KinesisSourceOptions::FromMap({{"STREAMNAME", "s"},
                                                                 {"initialposition", "Earliest"},
                                                                 {"maxrecordsperfetch", "100"},
                                                                 {"Region", "eu-west-1"}}));
  EXPECT_THAT(options.stream_names, ElementsAre("s"));
  EXPECT_EQ(options.initial_position, "trim_horizon");
  EXPECT_EQ(options.max_records_per_fetch, 100);
  EXPECT_EQ(options.region, "eu-west-1");
  ASSERT_OK_AND_ASSIGN(options, streaming::KinesisSourceOptions::FromMap(
                                    {{"streamName", "s"},
                                     {"initialPosition",
                                      R"({"at_timestamp": "06/25/2020 10:23:45 -0700",
                                          "format": "MM/dd/yyyy HH:mm:ss Z"})"}}));
  EXPECT_EQ(options.initial_position, "at_timestamp");
  EXPECT_EQ(options.at_timestamp_ms, int64_t{1593105825000});

  const auto error = [](const std::map<std::string, std::string>& given) {
    return streaming::KinesisSourceOptions::FromMap(given).status();
  };
  // streamName: a comma-separated list, trimmed, each stream once, in the order given.
  ASSERT_OK_AND_ASSIGN(options,
                       streaming::KinesisSourceOptions::FromMap({{"streamName", "b, a ,b,"}}));
  EXPECT_THAT(options.stream_names, ElementsAre("b", "a"));
  EXPECT_THAT(error({{"streamName", " , "}}).ToString(), HasSubstr("no stream name"));
  EXPECT_THAT(error({{"region", "x"}}).ToString(), HasSubstr("streamName"));
  EXPECT_TRUE(
      error({{"streamName", "s"}, {"roleArn", "arn:aws:iam::1:role/r"}}).IsNotImplemented());
  EXPECT_THAT(error({{"streamName", "s"}, {"streamNam", "t"}}).ToString(), HasSubstr("streamName"));
  EXPECT_THAT(error({{"streamName", "s"}, {"initialPosition", "middle"}}).ToString(),
              HasSubstr("initialPosition"));
  EXPECT_THAT(error({{"streamName", "s"}, {"maxRecordsPerFetch", "0"}}).ToString(),
              HasSubstr("maxRecordsPerFetch"));
  EXPECT_THAT(error({{"streamName", "s"}, {"awsAccessKey", "k"}}).ToString(),
              HasSubstr("awsSecretKey"));
}

}  // namespace
}  // namespace tributary

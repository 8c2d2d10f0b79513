// The micro-batch engine over a memory source and a recording sink: batches, the checkpoint's
// logs, recovery of an uncommitted batch with its recorded offsets, triggers, the checkpoint
// guard and the query identity check.

#include "streaming/stream_execution.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/plan_builder.h"
#include "storage/local_file_system.h"
#include "streaming/memory_source.h"
#include "streaming/trigger_text.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;

// Keeps every batch id and row count it receives; fails the batches listed in `fail`.
class RecordingSink final : public Sink {
 public:
  struct Shared {
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> batches;  // (batch id, rows)
    std::vector<int64_t> values;                       // column 0 of every row
    std::set<int64_t> fail;
  };
  explicit RecordingSink(std::shared_ptr<Shared> shared, std::string name = "RecordingSink")
      : shared_(std::move(shared)), name_(std::move(name)) {}

  Result<int64_t> AddBatch(const MicroBatch& batch) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto rows, batch.Collect());
    std::lock_guard lock(shared_->mutex);
    if (shared_->fail.count(batch.batch_id) != 0) {
      return Status::IOError("injected sink failure");
    }
    int64_t count = 0;
    for (const auto& b : rows) {
      count += b->NumRows();
      for (int64_t r = 0; r < b->NumRows(); ++r) {
        shared_->values.push_back(b->ColumnAt(0)->Values<int64_t>()[r]);
      }
    }
    shared_->batches.emplace_back(batch.batch_id, count);
    return count;
  }
  std::string Description() const override { return name_; }

 private:
  std::shared_ptr<Shared> shared_;
  std::string name_;
};

class StreamExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = testing::MakeSchema({Field("id", DataType::Int64()), Field("s", DataType::String())});
    stream_ = std::make_shared<MemoryStream>(schema_);
    definition_ = MemoryStream::Definition(stream_);
    shared_ = std::make_shared<RecordingSink::Shared>();
  }

  void Add(std::string_view rows) {
    ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema_, rows));
    ASSERT_OK(stream_->AddData({batch}).status());
  }

  // SELECT * WHERE id > 0 over the memory stream.
  plan::LogicalPlanPtr Plan() {
    auto filtered = plan::Filter(
        StreamScan(definition_),
        expr::Call(expr::Op::kGreater, {expr::Col("id"), expr::Lit(expr::Scalar::Int64(0))}));
    EXPECT_OK(filtered.status());
    return *filtered;
  }

  QueryOptions Options(Trigger trigger = Trigger()) {
    QueryOptions options;
    options.name = "test_query";
    options.checkpoint_location = dir_ + "/checkpoint";
    options.trigger = trigger;
    return options;
  }

  Result<std::shared_ptr<StreamExecution>> Start(QueryOptions options,
                                                 const std::string& sink_name = "RecordingSink") {
    return StreamExecution::Start(Plan(), std::make_unique<RecordingSink>(shared_, sink_name),
                                  std::move(options), fs_);
  }

  testing::TempDir temp_;
  std::string dir_ = temp_.Path();
  std::shared_ptr<storage::FileSystem> fs_ = std::make_shared<storage::LocalFileSystem>();
  columnar::SchemaPtr schema_;
  std::shared_ptr<MemoryStream> stream_;
  std::shared_ptr<const SourceDefinition> definition_;
  std::shared_ptr<RecordingSink::Shared> shared_;
};

TEST(FormatIsoTimestampTest, PrintsUtcMillisecondsBeforeAndAfter1970) {
  EXPECT_EQ(FormatIsoTimestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIsoTimestamp(1764374400123), "2025-11-29T00:00:00.123Z");
  // Event times and watermarks before 1970 (a watermark of the first rows minus the delay).
  EXPECT_EQ(FormatIsoTimestamp(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIsoTimestamp(-1500), "1969-12-31T23:59:58.500Z");
  EXPECT_EQ(FormatIsoTimestamp(-86400000), "1969-12-31T00:00:00.000Z");
}

TEST_F(StreamExecutionTest, RunsABatchPerNewBlockAndWritesSparksCheckpointLayout) {
  Add(R"([{"id": 1, "s": "a"}, {"id": -1, "s": "dropped"}])");
  ASSERT_OK_AND_ASSIGN(auto query, Start(Options()));
  ASSERT_OK(query->ProcessAllAvailable());
  Add(R"([{"id": 2, "s": "b"}, {"id": 3, "s": "c"}])");
  ASSERT_OK(query->ProcessAllAvailable());
  query->Stop();
  EXPECT_FALSE(query->IsActive());
  EXPECT_OK(query->Exception());

  EXPECT_EQ(shared_->values, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(shared_->batches.size(), 2U);
  EXPECT_EQ(shared_->batches[0], std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(shared_->batches[1], std::make_pair(int64_t{1}, int64_t{2}));

  const std::string checkpoint = dir_ + "/checkpoint";
  for (const char* file :
       {"metadata", "offsets/0", "offsets/1", "commits/0", "commits/1", "progress.jsonl"}) {
    EXPECT_TRUE(std::filesystem::exists(checkpoint + "/" + file)) << file;
  }
  ASSERT_OK_AND_ASSIGN(std::string offsets, fs_->ReadFile(checkpoint + "/offsets/1"));
  EXPECT_TRUE(offsets.starts_with("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":")) << offsets;
  EXPECT_TRUE(offsets.ends_with("\n{\"offset\":1}")) << offsets;
  ASSERT_OK_AND_ASSIGN(std::string commit, fs_->ReadFile(checkpoint + "/commits/0"));
  EXPECT_EQ(commit, "v1\n{\"nextBatchWatermarkMs\":0}");

  // Progress: one record per batch, Spark's fields.
  const auto progress = query->RecentProgress();
  ASSERT_EQ(progress.size(), 2U);
  EXPECT_EQ(progress[1].batch_id, 1);
  EXPECT_EQ(progress[1].num_input_rows, 2);
  EXPECT_EQ(progress[0].num_input_rows, 2);  // input rows are counted before the filter
  EXPECT_EQ(progress[0].sink.num_output_rows, 1);
  EXPECT_EQ(progress[1].id, query->Id());
  EXPECT_EQ(progress[1].name, "test_query");
  ASSERT_EQ(progress[1].sources.size(), 1U);
  EXPECT_EQ(progress[1].sources[0].start_offset, "{\"offset\":0}");
  EXPECT_EQ(progress[1].sources[0].end_offset, "{\"offset\":1}");
  for (const char* key : {"latestOffset", "walCommit", "getBatch", "queryPlanning", "addBatch",
                          "commitOffsets", "triggerExecution"}) {
    EXPECT_EQ(progress[1].duration_ms.count(key), 1U) << key;
  }
  const std::string json = progress[1].Json();
  for (const char* field :
       {"\"id\"", "\"runId\"", "\"name\"", "\"timestamp\"", "\"batchId\"", "\"numInputRows\"",
        "\"inputRowsPerSecond\"", "\"processedRowsPerSecond\"", "\"durationMs\"", "\"sources\"",
        "\"startOffset\"", "\"endOffset\"", "\"latestOffset\"", "\"sink\"", "\"numOutputRows\""}) {
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
  }
  std::ifstream log(checkpoint + "/progress.jsonl");
  int lines = 0;
  for (std::string line; std::getline(log, line);) {
    ++lines;
  }
  EXPECT_EQ(lines, 2);
}

TEST_F(StreamExecutionTest, RestartKeepsTheQueryIdAndContinuesAfterTheLastCommit) {
  Add(R"([{"id": 1, "s": "a"}])");
  std::string id;
  {
    ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::AvailableNow())));
    EXPECT_TRUE(query->AwaitTermination());
    EXPECT_OK(query->Exception());
    id = query->Id();
  }
  Add(R"([{"id": 2, "s": "b"}])");
  ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::AvailableNow())));
  EXPECT_TRUE(query->AwaitTermination());
  EXPECT_OK(query->Exception());
  EXPECT_EQ(query->Id(), id);
  EXPECT_EQ(shared_->values, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(shared_->batches.size(), 2U);
  EXPECT_EQ(shared_->batches[1].first, 1);
}

TEST_F(StreamExecutionTest, AFailedBatchIsRerunWithTheSameOffsetsAndBatchId) {
  Add(R"([{"id": 1, "s": "a"}])");
  Add(R"([{"id": 2, "s": "b"}])");
  shared_->fail.insert(0);
  {
    ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::AvailableNow())));
    EXPECT_TRUE(query->AwaitTermination());
    EXPECT_TRUE(query->Exception().IsIOError()) << query->Exception();
    EXPECT_NE(query->Exception().Message().find("batch 0"), std::string::npos);
  }
  ASSERT_OK_AND_ASSIGN(std::string logged, fs_->ReadFile(dir_ + "/checkpoint/offsets/0"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/checkpoint/commits/0"));
  // More data arrives; the re-run batch must still be exactly the logged one.
  Add(R"([{"id": 3, "s": "c"}])");
  shared_->fail.clear();
  ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::AvailableNow())));
  EXPECT_TRUE(query->AwaitTermination());
  EXPECT_OK(query->Exception());
  ASSERT_OK_AND_ASSIGN(std::string rerun, fs_->ReadFile(dir_ + "/checkpoint/offsets/0"));
  EXPECT_EQ(rerun, logged);
  ASSERT_EQ(shared_->batches.size(), 2U);
  EXPECT_EQ(shared_->batches[0], std::make_pair(int64_t{0}, int64_t{2}));
  EXPECT_EQ(shared_->batches[1], std::make_pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(shared_->values, (std::vector<int64_t>{1, 2, 3}));
}

TEST_F(StreamExecutionTest, OnceRunsOneBatchWithEverythingAvailable) {
  Add(R"([{"id": 1, "s": "a"}])");
  Add(R"([{"id": 2, "s": "b"}])");
  ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::Once())));
  EXPECT_TRUE(query->AwaitTermination());
  EXPECT_OK(query->Exception());
  ASSERT_EQ(shared_->batches.size(), 1U);
  EXPECT_EQ(shared_->batches[0].second, 2);
}

TEST_F(StreamExecutionTest, ASecondLiveQueryOnTheCheckpointFailsNamingTheHolder) {
  ASSERT_OK_AND_ASSIGN(auto first, Start(Options()));
  QueryOptions second_options = Options();
  second_options.name = "second";
  auto second = Start(second_options);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsAlreadyExists()) << second.status();
  EXPECT_NE(second.status().Message().find("query 'test_query'"), std::string::npos)
      << second.status();
  EXPECT_NE(second.status().Message().find("pid"), std::string::npos) << second.status();
  first->Stop();
  // Released with the query: a restart works at once.
  ASSERT_OK_AND_ASSIGN(auto again, Start(Options()));
  again->Stop();
}

TEST_F(StreamExecutionTest, ACheckpointOfAnotherSinkIsRefused) {
  {
    ASSERT_OK_AND_ASSIGN(auto query, Start(Options(Trigger::AvailableNow())));
    query->AwaitTermination();
  }
  auto other = Start(Options(Trigger::AvailableNow()), "OtherSink");
  ASSERT_FALSE(other.ok());
  EXPECT_TRUE(other.status().IsInvalidArgument()) << other.status();
  EXPECT_NE(other.status().Message().find("OtherSink"), std::string::npos) << other.status();
}

TEST_F(StreamExecutionTest, OldLogEntriesArePurgedBeyondMinBatchesToRetain) {
  QueryOptions options = Options();
  options.min_batches_to_retain = 2;
  ASSERT_OK_AND_ASSIGN(auto query, Start(options));
  for (int i = 1; i <= 5; ++i) {
    Add(fmt::format(R"([{{"id": {}, "s": "x"}}])", i));
    ASSERT_OK(query->ProcessAllAvailable());
  }
  query->Stop();
  const std::string checkpoint = dir_ + "/checkpoint";
  EXPECT_FALSE(std::filesystem::exists(checkpoint + "/offsets/0"));
  EXPECT_FALSE(std::filesystem::exists(checkpoint + "/offsets/2"));
  EXPECT_TRUE(std::filesystem::exists(checkpoint + "/offsets/3"));
  EXPECT_TRUE(std::filesystem::exists(checkpoint + "/offsets/4"));
  EXPECT_EQ(shared_->values.size(), 5U);
}

TEST(CheckStreamingPlanTest, AggregationsByOutputModeAndBatchPlans) {
  auto schema = testing::MakeSchema({Field("id", DataType::Int64())});
  auto stream = std::make_shared<MemoryStream>(schema);
  auto scan = StreamScan(MemoryStream::Definition(stream));
  ASSERT_OK_AND_ASSIGN(auto aggregated, plan::Aggregate(scan, {expr::Col("id")},
                                                        {{expr::Col("id"), "id"}}, nullptr));
  // Append mode needs a watermark on an event-time key; update and complete take any keys.
  const Status append = CheckStreamingPlan(*aggregated);
  EXPECT_TRUE(append.IsInvalidArgument());
  EXPECT_THAT(append.Message(), ::testing::HasSubstr("Append output mode not supported when "
                                                     "there are streaming aggregations"));
  EXPECT_OK(CheckStreamingPlan(*aggregated, exec::OutputMode::kUpdate));
  EXPECT_OK(CheckStreamingPlan(*aggregated, exec::OutputMode::kComplete));
  EXPECT_TRUE(CheckStreamingPlan(*scan, exec::OutputMode::kComplete).IsInvalidArgument());
  ASSERT_OK_AND_ASSIGN(auto limited, plan::Limit(scan, 1, 0));
  EXPECT_TRUE(CheckStreamingPlan(*limited).IsInvalidArgument());
  plan::ScanSource values;
  values.schema = schema;
  EXPECT_TRUE(CheckStreamingPlan(*plan::Scan(values, "")).IsInvalidArgument());
  EXPECT_OK(CheckStreamingPlan(*scan));
}

TEST(ParseTriggerTest, TheCliForms) {
  ASSERT_OK_AND_ASSIGN(Trigger available, ParseTrigger("available-now"));
  EXPECT_EQ(available.GetKind(), Trigger::Kind::kAvailableNow);
  ASSERT_OK_AND_ASSIGN(Trigger once, ParseTrigger("once"));
  EXPECT_EQ(once.GetKind(), Trigger::Kind::kOnce);
  for (const auto& [text, millis] :
       std::vector<std::pair<std::string, int64_t>>{{"processing-time", 0},
                                                    {"processing-time=0", 0},
                                                    {"processing-time=100ms", 100},
                                                    {"processing-time=10s", 10'000},
                                                    {"processing-time=1m", 60'000},
                                                    {"processing-time=1h", 3'600'000},
                                                    {"processing-time=10 seconds", 10'000}}) {
    ASSERT_OK_AND_ASSIGN(Trigger trigger, ParseTrigger(text));
    EXPECT_EQ(trigger.GetKind(), Trigger::Kind::kProcessingTime) << text;
    EXPECT_EQ(trigger.Interval().count(), millis) << text;
  }
  // A negative interval too, as Spark's ProcessingTime ("should not be negative").
  for (const char* bad :
       {"sometimes", "processing-time=soon", "processing-time=10 fortnights", "processing-time=-1s",
        "processing-time=-1", "processing-time=-5 seconds"}) {
    EXPECT_TRUE(ParseTrigger(bad).status().IsInvalidArgument()) << bad;
  }
}

}  // namespace
}  // namespace tributary::streaming

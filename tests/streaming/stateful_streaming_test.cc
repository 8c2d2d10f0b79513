// Stateful streaming through the public API: output modes checked at Start with Spark's rules,
// watermarks computed from the event times each batch saw (recorded in offsets/N and
// commits/N, kept across restarts, combined by spark.sql.streaming.multipleWatermarkPolicy),
// progress eventTime, and dropDuplicates in batch queries.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "state/state_inspection.h"
#include "storage/local_file_system.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;

/// Line 2 of a checkpoint log file as JSON (offsets/N's batch metadata, commits/N's).
nlohmann::json LogMetadata(const std::string& path) {
  std::ifstream in(path);
  std::string version;
  std::string metadata;
  std::getline(in, version);
  std::getline(in, metadata);
  return nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
}

/// The state rows of operator 0 at the checkpoint's last committed version, as JSON objects
/// (what `tributary state CHECKPOINT --operator 0` prints).
std::vector<nlohmann::json> StateRows(const std::string& checkpoint) {
  storage::LocalFileSystem fs;
  std::vector<nlohmann::json> rows;
  const Result<std::optional<int64_t>> batch = state::LastCommittedBatch(&fs, checkpoint);
  EXPECT_TRUE(batch.ok() && batch->has_value());
  if (!batch.ok() || !batch->has_value()) {
    return rows;
  }
  const Status read =
      state::ReadStateRows(&fs, checkpoint, 0, **batch + 1, [&](std::string_view line) {
        rows.push_back(nlohmann::json::parse(line));
        return Status::OK();
      });
  EXPECT_TRUE(read.ok()) << read.ToString();
  return rows;
}

class StatefulStreamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  }

  Result<MemoryStream> Events() const {
    return MemoryStream::Make(session_, "id BIGINT, country STRING, ts TIMESTAMP");
  }

  static std::string Event(int64_t id, const std::string& country, const std::string& time) {
    return R"({"id":)" + std::to_string(id) + R"(,"country":")" + country +
           R"(","ts":"2026-12-01T)" + time + R"(Z"})";
  }

  Result<StreamingQuery> StartMemory(const DataFrame& frame, const std::string& mode,
                                     const std::string& name) const {
    return frame.WriteStream()
        .Format("memory")
        .QueryName(name)
        .OutputMode(mode)
        .Option("checkpointLocation", dir_.Join("cp_" + name))
        .Start();
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
};

TEST_F(StatefulStreamingTest, OutputModesFollowSparksUnsupportedOperationChecker) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  const DataFrame events = stream.ToDF();
  const DataFrame watermarked = events.WithWatermark("ts", "10 minutes");

  // An aggregation without an event-time key: update and complete only.
  const DataFrame by_country = events.GroupBy({Col("country")}).Count();
  auto append = StartMemory(by_country, "append", "a1");
  ASSERT_FALSE(append.ok());
  EXPECT_TRUE(append.status().IsInvalidArgument());
  EXPECT_THAT(append.status().Message(),
              HasSubstr("Append output mode not supported when there are streaming "
                        "aggregations on streaming DataFrames/DataSets without watermark"));
  // A watermark on a column that is not a key does not make append possible.
  EXPECT_FALSE(StartMemory(watermarked.GroupBy({Col("country")}).Count(), "append", "a2").ok());
  for (const char* mode : {"update", "complete"}) {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartMemory(by_country, mode, mode));
    query.Stop();
    EXPECT_OK(query.Exception());
  }
  // Grouped by a window of the watermarked column, or the column itself: append is fine.
  int started = 0;
  for (const DataFrame& frame :
       {watermarked.GroupBy({Window(Col("ts"), "1 minute"), Col("country")}).Count(),
        watermarked.GroupBy({Col("ts")}).Count()}) {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                         StartMemory(frame, "append", "windowed" + std::to_string(started++)));
    query.Stop();
    EXPECT_OK(query.Exception());
  }

  // Complete mode needs an aggregation; sorting only after one, in complete mode.
  auto complete = StartMemory(events, "complete", "c1");
  ASSERT_FALSE(complete.ok());
  EXPECT_THAT(complete.status().Message(),
              HasSubstr("Complete output mode not supported when there are no streaming "
                        "aggregations on streaming DataFrames/Datasets"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery sorted,
                       StartMemory(by_country.OrderBy({Col("country")}), "complete", "sorted"));
  sorted.Stop();
  auto sorted_update = StartMemory(by_country.OrderBy({Col("country")}), "update", "s2");
  ASSERT_FALSE(sorted_update.ok());
  EXPECT_THAT(sorted_update.status().Message(), HasSubstr("Sorting is not supported"));
  // OVER windows need the whole input: refused on a stream, as Spark refuses them.
  auto ranked = StartMemory(
      events.Select({Col("country"), RowNumber().Over(WindowSpec().OrderBy({Col("ts")}))}),
      "append", "ranked");
  ASSERT_FALSE(ranked.ok());
  EXPECT_THAT(ranked.status().Message(),
              HasSubstr("Non-time-based windows are not supported on streaming"));

  // Several stateful operators: append only.
  const DataFrame chained =
      watermarked.DropDuplicates({"id", "ts"}).GroupBy({Window(Col("ts"), "1 minute")}).Count();
  auto chained_update = StartMemory(chained, "update", "m1");
  ASSERT_FALSE(chained_update.ok());
  EXPECT_THAT(chained_update.status().Message(), HasSubstr("Multiple stateful operators"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery chained_append, StartMemory(chained, "append", "m2"));
  chained_append.Stop();

  // Distinct aggregates, stream-stream joins outside append mode, and
  // dropDuplicatesWithinWatermark without a watermark are refused up front.
  auto distinct = StartMemory(events.GroupBy({Col("country")}).Agg({CountDistinct({Col("id")})}),
                              "update", "d1");
  ASSERT_FALSE(distinct.ok());
  EXPECT_THAT(distinct.status().Message(), HasSubstr("Distinct aggregations are not supported"));
  ASSERT_OK_AND_ASSIGN(MemoryStream other, Events());
  auto joined = StartMemory(events.Join(other.ToDF(), {"id"}), "update", "j1");
  ASSERT_FALSE(joined.ok());
  EXPECT_TRUE(joined.status().IsInvalidArgument());
  EXPECT_THAT(joined.status().Message(),
              HasSubstr("Join between two streaming DataFrames/Datasets is not supported in "
                        "Update output mode, only in Append output mode"));
  auto within = StartMemory(events.DropDuplicatesWithinWatermark({"id"}), "append", "w1");
  ASSERT_FALSE(within.ok());
  EXPECT_THAT(within.status().Message(), HasSubstr("without watermark"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("cp_w1")));
}

TEST_F(StatefulStreamingTest, WatermarkIsMaxEventTimeMinusDelayRecordedPerBatchAndKept) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  const DataFrame frame = stream.ToDF().WithWatermark("ts", "10 seconds");
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartMemory(frame, "append", "wm"));
  ASSERT_OK(stream.AddJson({Event(1, "DE", "10:00:00"), Event(2, "FR", "10:00:30")}));
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(stream.AddJson({Event(3, "DE", "10:00:05")}));  // late, but no stateful operator
  ASSERT_OK(query.ProcessAllAvailable());
  const std::vector<StreamingQueryProgress> progress = query.RecentProgress();
  query.Stop();
  ASSERT_OK(query.Exception());
  ASSERT_EQ(progress.size(), 2U);

  const std::string cp = dir_.Join("cp_wm");
  // 2026-12-01T10:00:30Z - 10 s, in epoch milliseconds.
  const int64_t after_first = 1796119220000;
  EXPECT_EQ(LogMetadata(cp + "/offsets/0")["batchWatermarkMs"], 0);
  EXPECT_EQ(LogMetadata(cp + "/commits/0")["nextBatchWatermarkMs"], after_first);
  EXPECT_EQ(LogMetadata(cp + "/offsets/1")["batchWatermarkMs"], after_first);
  // A later batch with older events never moves it back.
  EXPECT_EQ(LogMetadata(cp + "/commits/1")["nextBatchWatermarkMs"], after_first);

  EXPECT_EQ(progress[0].event_time.at("min"), "2026-12-01T10:00:00.000Z");
  EXPECT_EQ(progress[0].event_time.at("max"), "2026-12-01T10:00:30.000Z");
  EXPECT_EQ(progress[0].event_time.at("avg"), "2026-12-01T10:00:15.000Z");
  EXPECT_EQ(progress[0].event_time.at("watermark"), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(progress[1].event_time.at("watermark"), "2026-12-01T10:00:20.000Z");
  EXPECT_THAT(progress[1].Json(), HasSubstr(R"("eventTime":{)"));

  // A restart continues from the recorded watermark.
  ASSERT_OK_AND_ASSIGN(StreamingQuery restarted, StartMemory(frame, "append", "wm"));
  ASSERT_OK(stream.AddJson({Event(4, "US", "10:00:01")}));
  ASSERT_OK(restarted.ProcessAllAvailable());
  restarted.Stop();
  ASSERT_OK(restarted.Exception());
  EXPECT_EQ(LogMetadata(cp + "/offsets/2")["batchWatermarkMs"], after_first);
}

TEST_F(StatefulStreamingTest, SeveralWatermarksCombineByTheMultipleWatermarkPolicy) {
  const auto with_policy = [&](const std::string& policy) {
    auto session = Session::Builder()
                       .Warehouse(dir_.Join("warehouse"))
                       .TimeZone("UTC")
                       .Config("spark.sql.streaming.multipleWatermarkPolicy", policy)
                       .Build();
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  };
  for (const char* policy : {"min", "max"}) {
    with_policy(policy);
    ASSERT_OK_AND_ASSIGN(MemoryStream fast, Events());
    ASSERT_OK_AND_ASSIGN(MemoryStream slow, Events());
    const DataFrame both = fast.ToDF()
                               .WithWatermark("ts", "10 seconds")
                               .Union(slow.ToDF().WithWatermark("ts", "1 minute"));
    const std::string name = std::string("policy_") + policy;
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartMemory(both, "append", name));
    // One batch each, the slow input first (the watermark never goes back).
    ASSERT_OK(slow.AddJson({Event(2, "FR", "10:05:00")}));
    ASSERT_OK(query.ProcessAllAvailable());
    ASSERT_OK(fast.AddJson({Event(1, "DE", "10:05:00")}));
    ASSERT_OK(query.ProcessAllAvailable());
    query.Stop();
    ASSERT_OK(query.Exception());
    const int64_t watermark =
        LogMetadata(dir_.Join("cp_" + name) + "/commits/1")["nextBatchWatermarkMs"];
    // 10:05:00 - 60 s (min) or - 10 s (max).
    EXPECT_EQ(watermark, std::string(policy) == "min" ? 1796119440000 : 1796119490000) << policy;
  }
  with_policy("median");
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  auto bad = StartMemory(stream.ToDF().WithWatermark("ts", "1 second"), "append", "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().Message(), HasSubstr("multipleWatermarkPolicy"));
}

// The per-minute, per-country counts of a windowed append query, as JSON rows.
DataFrame MinuteCounts(const DataFrame& events) {
  return events.WithWatermark("ts", "10 seconds")
      .GroupBy({Window(Col("ts"), "1 minute"), Col("country")})
      .Count()
      .Select({Col("window.start").Alias("start"), Col("country"), Col("count")});
}

/// Feeds the windowed-count scenario: rows in order, with late ones, in five batches.
const std::vector<std::vector<std::string>>& MinuteBatches() {
  static const auto* batches = new std::vector<std::vector<std::string>>{
      {R"({"id":1,"country":"DE","ts":"2026-12-01T10:00:05Z"})",
       R"({"id":2,"country":"DE","ts":"2026-12-01T10:00:20Z"})",
       R"({"id":3,"country":"FR","ts":"2026-12-01T10:00:50Z"})"},
      {R"({"id":4,"country":"US","ts":"2026-12-01T10:01:30Z"})"},
      // Late: the watermark is 10:01:20 by now.
      {R"({"id":5,"country":"DE","ts":"2026-12-01T10:00:10Z"})",
       R"({"id":6,"country":"US","ts":"2026-12-01T10:01:40Z"})"},
      {R"({"id":7,"country":"FR","ts":"2026-12-01T10:03:00Z"})"},
      {R"({"id":8,"country":"FR","ts":"2026-12-01T10:05:00Z"})"}};
  return *batches;
}

const std::vector<std::string> kMinuteCountsEmitted = {
    R"({"start":"2026-12-01T10:00:00.000000Z","country":"DE","count":2})",
    R"({"start":"2026-12-01T10:00:00.000000Z","country":"FR","count":1})",
    R"({"start":"2026-12-01T10:01:00.000000Z","country":"US","count":2})",
    R"({"start":"2026-12-01T10:03:00.000000Z","country":"FR","count":1})"};

TEST_F(StatefulStreamingTest, WindowedCountInAppendModeEmitsEachWindowOnceTheWatermarkPassesIt) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartMemory(MinuteCounts(stream.ToDF()), "append", "minutes"));
  int64_t dropped = 0;
  for (const std::vector<std::string>& batch : MinuteBatches()) {
    ASSERT_OK(stream.AddJson(batch));
    ASSERT_OK(query.ProcessAllAvailable());
  }
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    ASSERT_EQ(progress.state_operators.size(), 1U);
    EXPECT_EQ(progress.state_operators[0].operator_name, "stateStoreSave");
    EXPECT_EQ(progress.state_operators[0].num_shuffle_partitions, 4);
    dropped += progress.state_operators[0].num_rows_dropped_by_watermark;
  }
  query.Stop();
  ASSERT_OK(query.Exception());
  EXPECT_EQ(dropped, 1);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("minutes").Collect());
  EXPECT_EQ(testing::SortedJson(rows), kMinuteCountsEmitted);
  // The state partitions are the checkpoint's, in offsets/N's conf.
  const std::string cp = dir_.Join("cp_minutes");
  EXPECT_EQ(LogMetadata(cp + "/offsets/0")["conf"]["spark.sql.shuffle.partitions"], "4");
  EXPECT_TRUE(std::filesystem::exists(cp + "/state/0/_metadata/metadata"));
  // The groups still in state decode by the operator's metadata: the window and country key,
  // the count's accumulator state as bytes.
  const std::vector<nlohmann::json> state_rows = StateRows(cp);
  ASSERT_EQ(static_cast<int64_t>(state_rows.size()),
            query.RecentProgress().back().state_operators[0].num_rows_total);
  ASSERT_FALSE(state_rows.empty());
  for (const nlohmann::json& row : state_rows) {
    EXPECT_TRUE(row["key"]["window"].contains("start")) << row.dump();
    EXPECT_TRUE(row["key"]["country"].is_string()) << row.dump();
    ASSERT_EQ(row["value"].size(), 1U) << row.dump();
    EXPECT_TRUE(row["value"].begin()->is_string()) << row.dump();
  }
}

TEST_F(StatefulStreamingTest, RestartingMidStreamGivesTheUninterruptedOutput) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  const DataFrame counts = MinuteCounts(stream.ToDF());
  size_t fed = 0;
  for (int run = 0; run < 3; ++run) {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartMemory(counts, "append", "restarted"));
    for (int i = 0; i < 2 && fed < MinuteBatches().size(); ++i, ++fed) {
      ASSERT_OK(stream.AddJson(MinuteBatches()[fed]));
      ASSERT_OK(query.ProcessAllAvailable());
    }
    query.Stop();
    ASSERT_OK(query.Exception());
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("restarted").Collect());
  EXPECT_EQ(testing::SortedJson(rows), kMinuteCountsEmitted);
}

TEST_F(StatefulStreamingTest, UpdateModeEmitsChangedGroupsAndCompleteModeTheWholeResult) {
  for (const char* mode : {"update", "complete"}) {
    ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
    const DataFrame by_country = stream.ToDF().GroupBy({Col("country")}).Count();
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, StartMemory(by_country, mode, mode));
    ASSERT_OK(stream.AddJson(
        {Event(1, "DE", "10:00:00"), Event(2, "DE", "10:00:01"), Event(3, "FR", "10:00:02")}));
    ASSERT_OK(query.ProcessAllAvailable());
    ASSERT_OK(stream.AddJson({Event(4, "DE", "10:00:03")}));
    ASSERT_OK(query.ProcessAllAvailable());
    query.Stop();
    ASSERT_OK(query.Exception());
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table(mode).Collect());
    if (std::string(mode) == "update") {
      EXPECT_EQ(testing::SortedJson(rows),
                (std::vector<std::string>{R"({"country":"DE","count":2})",
                                          R"({"country":"DE","count":3})",
                                          R"({"country":"FR","count":1})"}));
    } else {
      EXPECT_EQ(testing::SortedJson(rows),
                (std::vector<std::string>{R"({"country":"DE","count":3})",
                                          R"({"country":"FR","count":1})"}));
    }
  }
}

TEST_F(StatefulStreamingTest, CompleteModeOverwritesTheDeltaTableEachBatchAndForeachBatchSeesIt) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  const DataFrame by_country = stream.ToDF().GroupBy({Col("country")}).Count();
  const std::string table = dir_.Join("counts");
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       by_country.WriteStream()
                           .OutputMode("complete")
                           .Option("checkpointLocation", dir_.Join("cp_delta"))
                           .Start(table));
  // A MemoryStream feeds one query: the foreachBatch query reads its own copy of the rows.
  ASSERT_OK_AND_ASSIGN(MemoryStream copy, Events());
  std::vector<std::vector<std::string>> seen;
  ASSERT_OK_AND_ASSIGN(
      StreamingQuery each,
      copy.ToDF()
          .GroupBy({Col("country")})
          .Count()
          .WriteStream()
          .OutputMode("complete")
          .Option("checkpointLocation", dir_.Join("cp_each"))
          .ForeachBatch([&](const DataFrame& batch, int64_t /*batch_id*/) -> tributary::Status {
            TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, batch.Collect());
            seen.push_back(testing::SortedJson(rows));
            return tributary::Status::OK();
          })
          .Start());
  for (const MemoryStream* input : {&stream, &copy}) {
    ASSERT_OK(input->AddJson({Event(1, "DE", "10:00:00"), Event(2, "FR", "10:00:01")}));
  }
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(each.ProcessAllAvailable());
  for (const MemoryStream* input : {&stream, &copy}) {
    ASSERT_OK(input->AddJson({Event(3, "DE", "10:00:02")}));
  }
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(each.ProcessAllAvailable());
  query.Stop();
  each.Stop();
  ASSERT_OK(query.Exception());
  ASSERT_OK(each.Exception());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows,
                       session_->Read().Format("delta").Load(table).Collect());
  const std::vector<std::string> final_counts = {R"({"country":"DE","count":2})",
                                                 R"({"country":"FR","count":1})"};
  EXPECT_EQ(testing::SortedJson(rows), final_counts);
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[1], final_counts);
  // One commit per batch, each recorded as a complete-mode streaming update.
  std::ifstream log(table + "/_delta_log/00000000000000000001.json");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(R"("outputMode":"Complete")"));
  EXPECT_THAT(text.str(), HasSubstr(R"("remove")"));
}

TEST_F(StatefulStreamingTest, DropDuplicatesOnAStreamPassesTheFirstRowOfEachKeyOnce) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, Events());
  ASSERT_OK_AND_ASSIGN(
      StreamingQuery query,
      StartMemory(stream.ToDF().DropDuplicates({"id"}).Select({Col("id"), Col("country")}),
                  "append", "dedup"));
  ASSERT_OK(stream.AddJson(
      {Event(1, "DE", "10:00:00"), Event(2, "FR", "10:00:01"), Event(1, "US", "10:00:02")}));
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(stream.AddJson({Event(2, "US", "10:00:03"), Event(3, "US", "10:00:04")}));
  ASSERT_OK(query.ProcessAllAvailable());
  const std::optional<StreamingQueryProgress> last = query.LastProgress();
  query.Stop();
  ASSERT_OK(query.Exception());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("dedup").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{R"({"id":1,"country":"DE"})", R"({"id":2,"country":"FR"})",
                                      R"({"id":3,"country":"US"})"}));
  ASSERT_TRUE(last.has_value());
  ASSERT_EQ(last->state_operators.size(), 1U);
  EXPECT_EQ(last->state_operators[0].operator_name, "dedupe");
  EXPECT_EQ(last->state_operators[0].num_rows_total, 3);
  // Each key seen once, with nothing stored beside it (no watermark).
  std::vector<int64_t> ids;
  for (const nlohmann::json& row : StateRows(dir_.Join("cp_dedup"))) {
    ids.push_back(row["key"]["id"].get<int64_t>());
    EXPECT_TRUE(row["value"].empty()) << row.dump();
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3}));
}

TEST_F(StatefulStreamingTest, DropDuplicatesInBatchKeepsTheFirstRowOfEachKey) {
  const std::string raw = dir_.Join("raw");
  std::filesystem::create_directories(raw);
  {
    std::ofstream out(raw + "/part-0.json");
    out << Event(1, "DE", "10:00:00") << "\n"
        << Event(2, "DE", "10:00:01") << "\n"
        << Event(3, "FR", "10:00:02") << "\n"
        << Event(1, "US", "10:00:03") << "\n";
  }
  const DataFrame events =
      session_->Read().Format("json").Schema("id BIGINT, country STRING, ts TIMESTAMP").Load(raw);
  ASSERT_OK_AND_ASSIGN(
      std::vector<Row> by_country,
      events.DropDuplicates({"COUNTRY"}).Select({Col("id"), Col("country")}).Collect());
  EXPECT_EQ(testing::SortedJson(by_country),
            (std::vector<std::string>{R"({"id":1,"country":"DE"})", R"({"id":1,"country":"US"})",
                                      R"({"id":3,"country":"FR"})"}));
  ASSERT_OK_AND_ASSIGN(int64_t distinct_ids, events.DropDuplicates({"id"}).Count());
  EXPECT_EQ(distinct_ids, 3);
  ASSERT_OK_AND_ASSIGN(int64_t all_rows, events.DropDuplicatesWithinWatermark().Count());
  EXPECT_EQ(all_rows, 4);
  const DataFrame unknown = events.DropDuplicates({"nope"});
  ASSERT_FALSE(unknown.Status().ok());
  EXPECT_THAT(unknown.Status().Message(),
              HasSubstr(R"(Cannot resolve column name "nope" among (id, country, ts))"));
}

}  // namespace
}  // namespace tributary

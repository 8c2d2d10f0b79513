// Stream-stream joins end to end: two folders of JSON files read as streams (Auto Loader's
// STREAM read_files in a SQL pipeline, the file source in the DataFrame API), joined with their
// state in RocksDB under the checkpoint, each step of input run to completion by an
// available-now run (so every step restarts the query from its checkpoint, and the no-data
// batch after a watermark move runs). Per batch the tests know how many rows it wrote (the
// progress of a pipeline's Delta sink) or which rows (foreachBatch), so they can say in which
// batch a row came out: joined pairs as their match arrives, an outer row once, in the batch
// whose state watermark passes it. Also chained stateful operators (an aggregation after a
// join, a dedup before an aggregation) with Spark 3.5's watermark propagation, and a restart
// mid-stream against an uninterrupted run.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
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
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

/// What a query emitted, per batch id (each batch's rows sorted, with foreachBatch), and its
/// progress.
struct Emitted {
  std::map<int64_t, std::vector<std::string>> batches;
  std::vector<StreamingQueryProgress> progress;

  /// Rows written per batch, by the sink's progress.
  std::vector<int64_t> OutputRows() const {
    std::vector<int64_t> rows;
    for (const StreamingQueryProgress& p : progress) {
      rows.push_back(p.sink.num_output_rows);
    }
    return rows;
  }

  /// Every emitted row, sorted.
  std::vector<std::string> All() const {
    std::vector<std::string> rows;
    for (const auto& [batch, batch_rows] : batches) {
      rows.insert(rows.end(), batch_rows.begin(), batch_rows.end());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }
  /// The rows of `batch`; none when it emitted nothing.
  std::vector<std::string> Batch(int64_t batch) const {
    auto it = batches.find(batch);
    return it == batches.end() ? std::vector<std::string>{} : it->second;
  }
  int64_t DroppedByWatermark() const {
    int64_t dropped = 0;
    for (const StreamingQueryProgress& p : progress) {
      for (const StateOperatorProgress& op : p.state_operators) {
        dropped += op.num_rows_dropped_by_watermark;
      }
    }
    return dropped;
  }
};

class StreamJoinTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeSession({}); }

  void MakeSession(const std::map<std::string, std::string>& config) {
    Session::Builder builder;
    builder.Warehouse(dir_.Join("warehouse")).TimeZone("UTC");
    for (const auto& [key, value] : config) {
      builder.Config(key, value);
    }
    auto session = builder.Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  }

  /// A JSON file of `lines` in folder `side` ("left" or "right"), published by a rename, each
  /// file newer than the ones before it (the file source reads them in that order).
  void Write(const std::string& side, const std::vector<std::string>& lines) {
    const std::string folder = dir_.Join(side);
    std::filesystem::create_directories(folder);
    const std::string name = "part-" + std::to_string(files_written_) + ".json";
    const std::string hidden = folder + "/." + name;
    {
      std::ofstream out(hidden);
      for (const std::string& line : lines) {
        out << line << "\n";
      }
    }
    std::filesystem::last_write_time(hidden, std::filesystem::file_time_type::clock::now() -
                                                 std::chrono::hours(1) +
                                                 std::chrono::seconds(files_written_));
    std::filesystem::rename(hidden, folder + "/" + name);
    ++files_written_;
  }

  static std::string Left(int64_t id, const std::string& time, const std::string& value) {
    return R"({"id":)" + std::to_string(id) + R"(,"lts":"2026-12-01T)" + time + R"(Z","lv":")" +
           value + R"("})";
  }
  static std::string Right(int64_t id, const std::string& time, const std::string& value) {
    return R"({"id":)" + std::to_string(id) + R"(,"rts":"2026-12-01T)" + time + R"(Z","rv":")" +
           value + R"("})";
  }

  /// `STREAM read_files(<side>) WATERMARK <time> DELAY OF INTERVAL 10 MINUTES AS <alias>`.
  std::string StreamOf(const std::string& side) const {
    const bool left = side == "left";
    return "STREAM read_files('" + dir_.Join(side) + "', format => 'json', schema => 'id BIGINT, " +
           (left ? "lts TIMESTAMP, lv STRING" : "rts TIMESTAMP, rv STRING") +
           "', maxFilesPerTrigger => 1) WATERMARK " + (left ? "lts" : "rts") +
           " DELAY OF INTERVAL 10 MINUTES AS " + (left ? "l" : "r");
  }

  /// The pipeline `CREATE OR REFRESH STREAMING TABLE <table> AS <query>`, run to completion
  /// (available-now), its batches' progress added to `emitted`.
  void RunPipeline(const std::string& table, const std::string& query, Emitted* emitted) {
    const std::string sql = "CREATE OR REFRESH STREAMING TABLE " + table + " AS " + query + ";";
    auto pipeline = Pipeline::Parse(session_, sql, PipelineOptions());
    ASSERT_OK(pipeline.status());
    (*pipeline)->OnEvent([emitted](const PipelineEvent& event) {
      if (event.kind == PipelineEvent::Kind::kBatch) {
        emitted->progress.push_back(*event.progress);
      }
    });
    ASSERT_OK((*pipeline)->Run());
  }

  /// The rows of warehouse table `table`, sorted.
  std::vector<std::string> TableRows(const std::string& table) const {
    auto rows = session_->Table(table).Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? testing::SortedJson(*rows) : std::vector<std::string>{};
  }

  /// SELECT `columns` FROM the left stream `join` the right stream ON the ids and a time range
  /// (a right row within 5 minutes after its left row).
  std::string JoinSql(const std::string& columns, const std::string& join) const {
    return "SELECT " + columns + " FROM " + StreamOf("left") + " " + join + " " +
           StreamOf("right") +
           " ON l.id = r.id AND r.rts BETWEEN l.lts AND l.lts + INTERVAL 5 MINUTES";
  }

  /// Runs `frame` with Trigger.AvailableNow into foreachBatch until it stops, adding what it
  /// emitted to `emitted`.
  void Run(const DataFrame& frame, const std::string& name, Emitted* emitted) {
    auto batches = std::make_shared<std::map<int64_t, std::vector<std::string>>>();
    auto query = frame.WriteStream()
                     .OutputMode("append")
                     .Option("checkpointLocation", Checkpoint(name))
                     .Trigger(Trigger::AvailableNow())
                     .ForeachBatch([batches](const DataFrame& batch, int64_t batch_id) -> Status {
                       TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, batch.Collect());
                       (*batches)[batch_id] = testing::SortedJson(rows);
                       return Status::OK();
                     })
                     .Start();
    ASSERT_OK(query.status());
    ASSERT_OK(query->AwaitTermination());
    for (auto& [batch, rows] : *batches) {
      if (!rows.empty()) {
        emitted->batches[batch] = std::move(rows);
      }
    }
    for (StreamingQueryProgress& progress : query->RecentProgress()) {
      emitted->progress.push_back(std::move(progress));
    }
  }

  std::string Checkpoint(const std::string& name) const { return dir_.Join("cp_" + name); }

  /// The first three steps of the time-range scenario; `step` 0, 1 or 2.
  void WriteStep(int step) {
    switch (step) {
      case 0:
        Write("left",
              {Left(1, "10:00:00", "a"), Left(2, "10:01:00", "b"), Left(3, "10:02:00", "c")});
        // 1 matches a; 9 never matches.
        Write("right", {Right(1, "10:03:00", "x"), Right(9, "10:04:00", "z")});
        break;
      case 1:
        Write("left", {Left(4, "10:20:00", "d")});
        // 2 is too late for b (10:01 + 5 minutes); 4 matches d.
        Write("right", {Right(2, "10:21:00", "y"), Right(4, "10:22:00", "w")});
        break;
      default:
        Write("left", {Left(5, "10:40:00", "e")});
        // Older than the watermark of the batch before: dropped (it would have matched c).
        Write("right", {Right(3, "10:02:30", "late")});
        break;
    }
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  int files_written_ = 0;
};

// The batches of the time-range scenario, each step one AvailableNow run: batch 0 reads step 0
// (watermark 0), no-data batch 1 moves to 09:52 (min over both sides of max - 10 minutes);
// batch 2 reads step 1, no-data batch 3 moves to 10:10 and evicts the left rows at or below
// 10:10 - 5 minutes - 1 ms and the right ones at or below 10:10 - 1 ms; batch 4 reads step 2
// (its right row is older than the previous batch's watermark 10:10, and dropped). The
// watermark then stays 10:10: as Spark's WatermarkTracker, a restarted query keeps the global
// watermark but not each input's, and this run saw 09:52:30 on the right.

TEST_F(StreamJoinTest, InnerJoinEmitsEachPairOnceWhenItsMatchArrives) {
  Emitted emitted;
  std::vector<std::vector<std::string>> after_step;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    RunPipeline("inner_pairs", JoinSql("l.id, l.lv, r.rv", "JOIN"), &emitted);
    after_step.push_back(TableRows("inner_pairs"));
  }
  EXPECT_THAT(after_step[0], ElementsAre(R"({"id":1,"lv":"a","rv":"x"})"));
  EXPECT_THAT(after_step[2],
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":4,"lv":"d","rv":"w"})"));
  EXPECT_THAT(emitted.OutputRows(), ElementsAre(1, 0, 1, 0, 0));
  EXPECT_EQ(emitted.DroppedByWatermark(), 1);
  ASSERT_EQ(emitted.progress.size(), 5U);
  for (const StreamingQueryProgress& progress : emitted.progress) {
    ASSERT_EQ(progress.state_operators.size(), 1U);
    EXPECT_EQ(progress.state_operators[0].operator_name, "symmetricHashJoin");
  }
  // Batch 3 evicts a, b and c (left) and x and z (right): d on the left, y and w on the right
  // stay; batch 4 adds e.
  EXPECT_EQ(emitted.progress[3].state_operators[0].num_rows_removed, 5);
  EXPECT_EQ(emitted.progress[4].state_operators[0].num_rows_total, 4);
}

TEST_F(StreamJoinTest, LeftOuterJoinEmitsAnUnmatchedRowOnceTheWatermarkPassesIt) {
  Emitted emitted;
  std::vector<std::vector<std::string>> after_step;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    RunPipeline("left_outer", JoinSql("l.id, l.lv, r.rv", "LEFT OUTER JOIN"), &emitted);
    after_step.push_back(TableRows("left_outer"));
  }
  EXPECT_THAT(after_step[0], ElementsAre(R"({"id":1,"lv":"a","rv":"x"})"));
  // b and c can no longer match once the watermark is 10:10 (no-data batch 3): emitted with
  // NULLs, once.
  EXPECT_THAT(after_step[1],
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":2,"lv":"b","rv":null})",
                          R"({"id":3,"lv":"c","rv":null})", R"({"id":4,"lv":"d","rv":"w"})"));
  EXPECT_EQ(after_step[2], after_step[1]);
  EXPECT_THAT(emitted.OutputRows(), ElementsAre(1, 0, 1, 2, 0));
  EXPECT_EQ(emitted.DroppedByWatermark(), 1);

  // What the state remembers: d and e on the left, y and w on the right, readable.
  storage::LocalFileSystem fs;
  const std::string checkpoint = dir_.Join("warehouse/_checkpoints/left_outer");
  ASSERT_OK_AND_ASSIGN(auto batch, state::LastCommittedBatch(&fs, checkpoint));
  ASSERT_TRUE(batch.has_value());
  std::vector<std::string> remembered;
  ASSERT_OK(state::ReadStateRows(&fs, checkpoint, 0, *batch + 1, [&](std::string_view line) {
    const auto row = nlohmann::json::parse(line);
    remembered.push_back(row["value"]["side"].get<std::string>() + " " +
                         row["value"]["row"]["id"].dump() + " " + row["value"]["matched"].dump() +
                         " key " + row["key"]["id"].dump());
    return Status::OK();
  }));
  std::sort(remembered.begin(), remembered.end());
  EXPECT_THAT(remembered, ElementsAre("left 4 true key 4", "left 5 false key 5",
                                      "right 2 false key 2", "right 4 true key 4"));
}

TEST_F(StreamJoinTest, FullOuterJoinEmitsBothSidesUnmatchedRows) {
  Emitted emitted;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    RunPipeline("full_outer", JoinSql("l.id AS lid, l.lv, r.id AS rid, r.rv", "FULL OUTER JOIN"),
                &emitted);
  }
  EXPECT_THAT(TableRows("full_outer"), ElementsAre(R"({"lid":1,"lv":"a","rid":1,"rv":"x"})",
                                                   R"({"lid":2,"lv":"b","rid":null,"rv":null})",
                                                   R"({"lid":3,"lv":"c","rid":null,"rv":null})",
                                                   R"({"lid":4,"lv":"d","rid":4,"rv":"w"})",
                                                   R"({"lid":null,"lv":null,"rid":9,"rv":"z"})"));
  EXPECT_THAT(emitted.OutputRows(), ElementsAre(1, 0, 1, 3, 0));
}

TEST_F(StreamJoinTest, RightOuterJoinEmitsTheRightSidesUnmatchedRows) {
  Emitted emitted;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    RunPipeline("right_outer", JoinSql("l.lv, r.id, r.rv", "RIGHT OUTER JOIN"), &emitted);
  }
  // z can no longer match at 10:10 (right rows at or below 10:10 - 1 ms go); y (10:21) waits.
  EXPECT_THAT(TableRows("right_outer"),
              ElementsAre(R"({"lv":"a","id":1,"rv":"x"})", R"({"lv":"d","id":4,"rv":"w"})",
                          R"({"lv":null,"id":9,"rv":"z"})"));
  EXPECT_THAT(emitted.OutputRows(), ElementsAre(1, 0, 1, 1, 0));
}

TEST_F(StreamJoinTest, LeftSemiJoinEmitsALeftRowOnceAtItsFirstMatch) {
  Emitted emitted;
  Write("left", {Left(1, "10:00:00", "a"), Left(2, "10:01:00", "b")});
  // Two matches for a in one batch.
  Write("right", {Right(1, "10:03:00", "x"), Right(1, "10:04:00", "x2")});
  RunPipeline("semi_rows", JoinSql("l.id, l.lv", "LEFT SEMI JOIN"), &emitted);
  // A third match for a later: a is not emitted again; b's first match emits it.
  Write("left", {Left(3, "10:02:00", "c")});
  Write("right", {Right(1, "10:04:30", "x3"), Right(2, "10:05:00", "y")});
  RunPipeline("semi_rows", JoinSql("l.id, l.lv", "LEFT SEMI JOIN"), &emitted);
  EXPECT_THAT(TableRows("semi_rows"), ElementsAre(R"({"id":1,"lv":"a"})", R"({"id":2,"lv":"b"})"));
}

TEST_F(StreamJoinTest, AnAggregationAfterAJoinReadsTheJoinsStateWatermark) {
  // Per 10-minute window of the left time, the pairs joined. The join's output can be as old
  // as its lowest state watermark (left: watermark - 5 minutes - 1 ms), so the window
  // [10:00, 10:10) closes only when the global watermark passes 10:15, not at 10:10.
  const std::string query = "SELECT window.start AS start, count(*) AS pairs FROM (" +
                            JoinSql("l.id, l.lts, r.rv", "JOIN") +
                            ") j GROUP BY window(lts, '10 minutes')";
  Emitted emitted;
  WriteStep(0);
  WriteStep(1);
  // Batches 0 and 1 read a file per side each; no-data batch 2 runs at watermark 10:10 (the
  // aggregation's input watermark: 10:04:59.999).
  RunPipeline("after_join", query, &emitted);
  EXPECT_THAT(TableRows("after_join"), IsEmpty());
  Write("left", {Left(6, "10:26:00", "f")});
  Write("right", {Right(6, "10:27:00", "v")});
  RunPipeline("after_join", query, &emitted);
  // Watermark 10:16 now: [10:00, 10:10) closes with its one pair (a, x); [10:20, 10:30) holds
  // d-w and f-v and stays open.
  EXPECT_THAT(TableRows("after_join"),
              ElementsAre(R"({"start":"2026-12-01T10:00:00.000000Z","pairs":1})"));
  ASSERT_FALSE(emitted.progress.empty());
  const StreamingQueryProgress& last = emitted.progress.back();
  ASSERT_EQ(last.state_operators.size(), 2U);
  EXPECT_EQ(last.state_operators[0].operator_name, "stateStoreSave");
  EXPECT_EQ(last.state_operators[1].operator_name, "symmetricHashJoin");
}

TEST_F(StreamJoinTest, ADedupBeforeAnAggregationCountsEachEventOnce) {
  Write("left", {Left(1, "10:00:00", "a"), Left(1, "10:00:00", "a"), Left(2, "10:03:00", "b")});
  Write("left", {Left(2, "10:03:00", "b"), Left(3, "10:12:00", "c")});
  Write("left", {Left(4, "10:25:00", "d")});
  const DataFrame events = session_->ReadStream()
                               .Format("json")
                               .Schema("id BIGINT, lts TIMESTAMP, lv STRING")
                               .Option("maxFilesPerTrigger", "1")
                               .Load(dir_.Join("left"));
  const DataFrame counted = events.WithWatermark("lts", "5 minutes")
                                .DropDuplicates({"id", "lts"})
                                .GroupBy({Window(Col("lts"), "10 minutes")})
                                .Count()
                                .Select({Col("window.start").Alias("start"), Col("count")});
  Emitted emitted;
  Run(counted, "dedup_count", &emitted);
  // Watermark 10:20 at the end: [10:00, 10:10) and [10:10, 10:20) are closed, each event
  // counted once.
  EXPECT_THAT(emitted.All(), ElementsAre(R"({"start":"2026-12-01T10:00:00.000000Z","count":2})",
                                         R"({"start":"2026-12-01T10:10:00.000000Z","count":1})"));
}

TEST_F(StreamJoinTest, DataFrameJoinOnAWatermarkedKey) {
  // Equal times on both sides, the key carrying the left side's watermark: both sides evict by
  // it, so a left outer join needs no range condition.
  Write("left", {Left(1, "10:00:00", "a"), Left(2, "10:01:00", "b")});
  Write("right", {R"({"id":1,"rts":"2026-12-01T10:00:00Z","rv":"x"})"});
  Write("left", {Left(3, "10:30:00", "c")});
  Write("right", {R"({"id":3,"rts":"2026-12-01T10:30:00Z","rv":"z"})"});
  const auto read = [&](const std::string& side, const std::string& schema) {
    return session_->ReadStream()
        .Format("json")
        .Schema(schema)
        .Option("maxFilesPerTrigger", "1")
        .Load(dir_.Join(side));
  };
  const DataFrame left = read("left", "id BIGINT, lts TIMESTAMP, lv STRING")
                             .WithWatermark("lts", "5 minutes")
                             .Alias("l");
  const DataFrame right = read("right", "id BIGINT, rts TIMESTAMP, rv STRING").Alias("r");
  const DataFrame joined =
      left.Join(right, Col("l.id") == Col("r.id") && Col("l.lts") == Col("r.rts"), "left_outer")
          .Select({Col("l.id"), Col("lv"), Col("rv")});
  Emitted emitted;
  Run(joined, "keyed", &emitted);
  // Batch 0: a-x; batch 1 (watermark 09:56) c-z; no-data batch 2 at 10:25 evicts a and b: b
  // unmatched, emitted once.
  EXPECT_THAT(emitted.All(),
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":2,"lv":"b","rv":null})",
                          R"({"id":3,"lv":"c","rv":"z"})"));
  EXPECT_THAT(emitted.Batch(2), ElementsAre(R"({"id":2,"lv":"b","rv":null})"));
}

TEST_F(StreamJoinTest, DataFrameTimeRangeJoinThroughExprMatchesTheSqlPipeline) {
  // The time-range left outer join of LeftOuterJoinEmitsAnUnmatchedRowOnceTheWatermarkPasses
  // It, written with the DataFrame API: the range condition as a SQL expression (Expr, Spark's
  // functions.expr), each step one AvailableNow run on one checkpoint.
  const auto read = [&](const std::string& side, const std::string& schema, const std::string& time,
                        const std::string& alias) {
    return session_->ReadStream()
        .Format("json")
        .Schema(schema)
        .Option("maxFilesPerTrigger", "1")
        .Load(dir_.Join(side))
        .WithWatermark(time, "10 minutes")
        .Alias(alias);
  };
  Emitted emitted;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    const DataFrame left = read("left", "id BIGINT, lts TIMESTAMP, lv STRING", "lts", "l");
    const DataFrame right = read("right", "id BIGINT, rts TIMESTAMP, rv STRING", "rts", "r");
    const DataFrame joined =
        left.Join(right,
                  Col("l.id") == Col("r.id") &&
                      Expr("r.rts BETWEEN l.lts AND l.lts + INTERVAL 5 MINUTES"),
                  "left_outer")
            .Select({Col("l.id"), Col("l.lv"), Col("r.rv")});
    Run(joined, "expr_range", &emitted);
  }
  EXPECT_THAT(emitted.All(),
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":2,"lv":"b","rv":null})",
                          R"({"id":3,"lv":"c","rv":null})", R"({"id":4,"lv":"d","rv":"w"})"));
  EXPECT_EQ(emitted.DroppedByWatermark(), 1);
}

TEST_F(StreamJoinTest, AnInnerJoinWithoutWatermarksSaysItsStateGrowsWithoutBound) {
  // Without watermarks nothing is ever evicted: every row read stays in state, and progress
  // says so; the time-range join of the other tests evicts both sides and does not.
  Write("left", {Left(1, "10:00:00", "a"), Left(2, "10:01:00", "b")});
  Write("right", {Right(1, "10:03:00", "x")});
  Write("left", {Left(3, "11:00:00", "c")});
  Write("right", {Right(3, "11:01:00", "z")});
  const auto read = [&](const std::string& side, const std::string& schema,
                        const std::string& alias) {
    return session_->ReadStream()
        .Format("json")
        .Schema(schema)
        .Option("maxFilesPerTrigger", "1")
        .Load(dir_.Join(side))
        .Alias(alias);
  };
  const DataFrame joined = read("left", "id BIGINT, lts TIMESTAMP, lv STRING", "l")
                               .Join(read("right", "id BIGINT, rts TIMESTAMP, rv STRING", "r"),
                                     Col("l.id") == Col("r.id"))
                               .Select({Col("l.id"), Col("lv"), Col("rv")});
  Emitted unbounded;
  Run(joined, "unbounded", &unbounded);
  EXPECT_THAT(unbounded.All(),
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":3,"lv":"c","rv":"z"})"));
  ASSERT_EQ(unbounded.progress.size(), 2U);
  for (const StreamingQueryProgress& progress : unbounded.progress) {
    ASSERT_EQ(progress.state_operators.size(), 1U);
    EXPECT_EQ(progress.state_operators[0].custom_metrics.count("stateGrowsWithoutBound"), 1U);
  }
  EXPECT_EQ(unbounded.progress.back().state_operators[0].num_rows_total, 5);

  WriteStep(0);
  Emitted bounded;
  RunPipeline("bounded", JoinSql("l.id, l.lv, r.rv", "JOIN"), &bounded);
  ASSERT_FALSE(bounded.progress.empty());
  EXPECT_EQ(bounded.progress[0].state_operators[0].custom_metrics.count("stateGrowsWithoutBound"),
            0U);
}

TEST_F(StreamJoinTest, RestartingMidStreamGivesTheUninterruptedOutput) {
  // Without no-data batches a run's batches are the same whether it stops between steps or
  // not: batch k reads step k's files.
  MakeSession({{"spark.sql.streaming.noDataMicroBatches.enabled", "false"}});
  const std::string query = JoinSql("l.id, l.lv, r.rv", "LEFT OUTER JOIN");
  Emitted restarted;
  for (int step = 0; step < 3; ++step) {
    WriteStep(step);
    RunPipeline("restarted", query, &restarted);
  }
  Emitted uninterrupted;
  RunPipeline("uninterrupted", query, &uninterrupted);
  EXPECT_THAT(restarted.OutputRows(), ElementsAre(1, 1, 2));
  EXPECT_EQ(uninterrupted.OutputRows(), restarted.OutputRows());
  // Batch 2 runs at 10:10 with 09:52 for late rows: c meets its late match, b is emitted alone.
  EXPECT_THAT(TableRows("uninterrupted"),
              ElementsAre(R"({"id":1,"lv":"a","rv":"x"})", R"({"id":2,"lv":"b","rv":null})",
                          R"({"id":3,"lv":"c","rv":"late"})", R"({"id":4,"lv":"d","rv":"w"})"));
  EXPECT_EQ(TableRows("restarted"), TableRows("uninterrupted"));
}

}  // namespace
}  // namespace tributary

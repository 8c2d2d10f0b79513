// Session windows on streams through the public API, with real state (RocksDB, checkpoint):
// sessions of a key that span micro-batches merge (a late-arriving row bridging two stored
// sessions joins them), append mode emits each session once when the watermark passes its
// end, late rows are dropped by Spark's rule (the row's own session ends at or before the
// watermark), a restart resumes from the checkpoint's state, complete mode shows every session,
// and update mode and a session window without another key are refused with Spark's errors.

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
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

using ::testing::HasSubstr;

std::string Event(int64_t id, const std::string& user, const std::string& time) {
  return R"({"id":)" + std::to_string(id) + R"(,"user":")" + user + R"(","ts":"2026-12-01T)" +
         time + R"(Z"})";
}

// Gap 30 seconds, watermark delay 2 minutes. By hand:
//   batch 0: u1 10:00:00, 10:00:20 -> [10:00:00, 10:00:50); u2 10:00:05 -> [10:00:05, 10:00:35)
//   batch 1: u1 10:01:10 -> a second session [10:01:10, 10:01:40); u2 10:00:30 extends u2 to
//            [10:00:05, 10:01:00)
//   batch 2: u1 10:00:45 -> [10:00:45, 10:01:15) overlaps both stored sessions of u1: one
//            session [10:00:00, 10:01:40) of 4 rows
//   batch 3: u3 10:05:00: the watermark becomes 10:03:00, past u1's and u2's sessions
//   batch 4: u2 09:58:00: its session [09:58:00, 09:58:30) ends before the watermark: late
//   batch 5: u3 10:10:00: the watermark becomes 10:08:00, past u3's first session
const std::vector<std::vector<std::string>>& SessionBatches() {
  static const auto* batches = new std::vector<std::vector<std::string>>{
      {Event(1, "u1", "10:00:00"), Event(2, "u1", "10:00:20"), Event(3, "u2", "10:00:05")},
      {Event(4, "u1", "10:01:10"), Event(5, "u2", "10:00:30")},
      {Event(6, "u1", "10:00:45")},
      {Event(7, "u3", "10:05:00")},
      {Event(8, "u2", "09:58:00")},
      {Event(9, "u3", "10:10:00")}};
  return *batches;
}

std::string SessionRow(const std::string& user, const std::string& start, const std::string& end,
                       int n, int sum) {
  return R"({"user":")" + user + R"(","start":"2026-12-01T)" + start +
         R"(.000000Z","end":"2026-12-01T)" + end + R"(.000000Z","n":)" + std::to_string(n) +
         R"(,"ids":)" + std::to_string(sum) + "}";
}

class SessionWindowStreamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
    auto stream = MemoryStream::Make(session_, "id BIGINT, user STRING, ts TIMESTAMP");
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    stream_ = std::make_unique<MemoryStream>(std::move(*stream));
  }

  DataFrame Sessions() const {
    return stream_->ToDF()
        .WithWatermark("ts", "2 minutes")
        .GroupBy({Col("user"), SessionWindow(Col("ts"), "30 seconds")})
        .Agg({Count().Alias("n"), Sum(Col("id")).Alias("ids")})
        .Select({Col("user"), Col("session_window.start").Alias("start"),
                 Col("session_window.end").Alias("end"), Col("n"), Col("ids")});
  }

  Result<StreamingQuery> Start(const DataFrame& frame, const std::string& mode,
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
  std::unique_ptr<MemoryStream> stream_;
};

TEST_F(SessionWindowStreamingTest, AppendEmitsEachMergedSessionOnceAfterTheWatermark) {
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, Start(Sessions(), "append", "sessions"));
  for (size_t b = 0; b < SessionBatches().size(); ++b) {
    ASSERT_OK(stream_->AddJson(SessionBatches()[b]));
    ASSERT_OK(query.ProcessAllAvailable());
    if (b == 2) {
      // Nothing passed the watermark yet: the sessions wait in state.
      ASSERT_OK_AND_ASSIGN(std::vector<Row> early, session_->Table("sessions").Collect());
      EXPECT_TRUE(early.empty()) << testing::SortedJson(early).front();
    }
  }
  int64_t dropped = 0;
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    ASSERT_EQ(progress.state_operators.size(), 1U);
    EXPECT_EQ(progress.state_operators[0].operator_name, "sessionWindowStateStoreSaveExec");
    dropped += progress.state_operators[0].num_rows_dropped_by_watermark;
  }
  query.Stop();
  ASSERT_OK(query.Exception());
  EXPECT_EQ(dropped, 1);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("sessions").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{SessionRow("u1", "10:00:00", "10:01:40", 4, 13),
                                      SessionRow("u2", "10:00:05", "10:01:00", 2, 8),
                                      SessionRow("u3", "10:05:00", "10:05:30", 1, 7)}));
  // What the state still holds decodes by the operator's metadata: u3's open session.
  storage::LocalFileSystem fs;
  const std::string cp = dir_.Join("cp_sessions");
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> batch, state::LastCommittedBatch(&fs, cp));
  ASSERT_TRUE(batch.has_value());
  std::vector<nlohmann::json> state_rows;
  ASSERT_OK(state::ReadStateRows(&fs, cp, 0, *batch + 1, [&](std::string_view line) {
    state_rows.push_back(nlohmann::json::parse(line));
    return Status::OK();
  }));
  ASSERT_EQ(state_rows.size(), 1U);
  EXPECT_EQ(state_rows[0]["key"]["user"], "u3") << state_rows[0].dump();
  ASSERT_EQ(state_rows[0]["value"]["sessions"].size(), 1U) << state_rows[0].dump();
  EXPECT_EQ(state_rows[0]["value"]["sessions"][0]["start"], "2026-12-01T10:10:00.000000Z")
      << state_rows[0].dump();
}

TEST_F(SessionWindowStreamingTest, RestartsResumeTheSessionsFromTheCheckpoint) {
  const DataFrame sessions = Sessions();
  size_t fed = 0;
  for (int run = 0; run < 3; ++run) {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, Start(sessions, "append", "restarted"));
    for (int i = 0; i < 2 && fed < SessionBatches().size(); ++i, ++fed) {
      ASSERT_OK(stream_->AddJson(SessionBatches()[fed]));
      ASSERT_OK(query.ProcessAllAvailable());
    }
    query.Stop();
    ASSERT_OK(query.Exception());
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("restarted").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{SessionRow("u1", "10:00:00", "10:01:40", 4, 13),
                                      SessionRow("u2", "10:00:05", "10:01:00", 2, 8),
                                      SessionRow("u3", "10:05:00", "10:05:30", 1, 7)}));
}

TEST_F(SessionWindowStreamingTest, CompleteModeShowsEverySessionAndStillDropsLateRows) {
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, Start(Sessions(), "complete", "all_sessions"));
  for (size_t b = 0; b < 3; ++b) {
    ASSERT_OK(stream_->AddJson(SessionBatches()[b]));
    ASSERT_OK(query.ProcessAllAvailable());
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("all_sessions").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{SessionRow("u1", "10:00:00", "10:01:40", 4, 13),
                                      SessionRow("u2", "10:00:05", "10:01:00", 2, 8)}));
  // Complete mode keeps every session, but Spark's SessionWindowStateStoreRestoreExec drops
  // late rows in any mode: u2's 09:58:00 never shows.
  for (size_t b = 3; b < SessionBatches().size(); ++b) {
    ASSERT_OK(stream_->AddJson(SessionBatches()[b]));
    ASSERT_OK(query.ProcessAllAvailable());
  }
  int64_t dropped = 0;
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    dropped += progress.state_operators[0].num_rows_dropped_by_watermark;
  }
  query.Stop();
  ASSERT_OK(query.Exception());
  EXPECT_EQ(dropped, 1);
  ASSERT_OK_AND_ASSIGN(rows, session_->Table("all_sessions").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{SessionRow("u1", "10:00:00", "10:01:40", 4, 13),
                                      SessionRow("u2", "10:00:05", "10:01:00", 2, 8),
                                      SessionRow("u3", "10:05:00", "10:05:30", 1, 7),
                                      SessionRow("u3", "10:10:00", "10:10:30", 1, 9)}));
}

TEST_F(SessionWindowStreamingTest, SqlPipelineGroupsAStreamOfFilesBySessionWindow) {
  // Every event in one file: one batch merges them (no watermark yet, so 09:58:00 is not late),
  // then the no-data batch at the watermark 10:08:00 emits the sessions that ended by then.
  const std::string landing = dir_.Join("landing");
  std::filesystem::create_directories(landing);
  {
    std::ofstream out(landing + "/events.json");
    for (const std::vector<std::string>& batch : SessionBatches()) {
      for (const std::string& event : batch) {
        out << event << "\n";
      }
    }
  }
  // A SQL pipeline's streaming table (append mode), run to completion.
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE sql_sessions AS\n"
      "  SELECT user, session_window.start AS start, session_window.end AS end, count(*) AS n,\n"
      "    sum(id) AS ids\n"
      "  FROM STREAM read_files('" +
      landing +
      "', format => 'json', schema => 'id BIGINT, user STRING, ts TIMESTAMP')\n"
      "    WATERMARK ts DELAY OF INTERVAL 2 MINUTES AS e\n"
      "  GROUP BY user, session_window(ts, '30 seconds');\n";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline, Pipeline::Parse(session_, sql, {}));
  ASSERT_OK(pipeline->Run());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table("sql_sessions").Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{SessionRow("u1", "10:00:00", "10:01:40", 4, 13),
                                      SessionRow("u2", "09:58:00", "09:58:30", 1, 8),
                                      SessionRow("u2", "10:00:05", "10:01:00", 2, 8),
                                      SessionRow("u3", "10:05:00", "10:05:30", 1, 7)}));
}

TEST_F(SessionWindowStreamingTest, CompleteModeOverShuffledBatchesEqualsTheBatchQuery) {
  // 600 rows of 5 users over 30 minutes with a 20-second gap, in a shuffled order cut into 9
  // batches: sessions keep meeting rows (and bridging stored sessions) from later batches.
  // With no watermark nothing is late, so the last complete output is the batch result.
  uint64_t state = 42;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  std::vector<std::string> events;
  for (int i = 0; i < 600; ++i) {
    const uint64_t second = next() % 1800;
    const std::string time = fmt::format("10:{:02}:{:02}", second / 60, second % 60);
    events.push_back(Event(i, fmt::format("u{}", next() % 5), time));
  }
  for (size_t i = events.size() - 1; i > 0; --i) {
    std::swap(events[i], events[next() % (i + 1)]);
  }
  const std::string all = dir_.Join("all");
  std::filesystem::create_directories(all);
  {
    std::ofstream out(all + "/events.json");
    for (const std::string& event : events) {
      out << event << "\n";
    }
  }
  const auto sessions = [](const DataFrame& rows) {
    return rows.GroupBy({Col("user"), SessionWindow(Col("ts"), "20 seconds")})
        .Agg({Count().Alias("n"), Sum(Col("id")).Alias("ids"), Max(Col("id")).Alias("top")})
        .Select({Col("user"), Col("session_window.start").Alias("start"),
                 Col("session_window.end").Alias("end"), Col("n"), Col("ids"), Col("top")});
  };
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       Start(sessions(stream_->ToDF()), "complete", "shuffled"));
  for (size_t begin = 0; begin < events.size();) {
    const size_t end = std::min(events.size(), begin + 1 + next() % 130);
    ASSERT_OK(stream_->AddJson({events.begin() + static_cast<std::ptrdiff_t>(begin),
                                events.begin() + static_cast<std::ptrdiff_t>(end)}));
    ASSERT_OK(query.ProcessAllAvailable());
    begin = end;
  }
  query.Stop();
  ASSERT_OK(query.Exception());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> streamed, session_->Table("shuffled").Collect());
  ASSERT_OK_AND_ASSIGN(
      std::vector<Row> batch,
      sessions(
          session_->Read().Format("json").Schema("id BIGINT, user STRING, ts TIMESTAMP").Load(all))
          .Collect());
  EXPECT_EQ(testing::SortedJson(streamed), testing::SortedJson(batch));
  EXPECT_GT(batch.size(), 50U);
}

TEST_F(SessionWindowStreamingTest, UpdateModeAndAGlobalSessionAreRefusedAtStart) {
  auto update = Start(Sessions(), "update", "updated");
  ASSERT_FALSE(update.ok());
  EXPECT_THAT(update.status().Message(),
              HasSubstr("Update output mode not supported for session window on streaming "
                        "DataFrames/DataSets"));
  const DataFrame global = stream_->ToDF()
                               .WithWatermark("ts", "2 minutes")
                               .GroupBy({SessionWindow(Col("ts"), "30 seconds")})
                               .Count();
  auto started = Start(global, "append", "global");
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(started.status().Message(),
              HasSubstr("Global aggregation with session window in streaming query is not "
                        "supported."));
}

}  // namespace
}  // namespace tributary

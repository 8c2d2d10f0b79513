// The public streaming API end to end (issue 7): real JSON files streamed into real Delta
// tables, memory, console and foreachBatch sinks, through every trigger, the checkpoint guards,
// progress records and listener events. No test depends on timing: each waits on
// ProcessAllAvailable, AwaitTermination or a trigger that ends by itself.

#include "tributary/streaming.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/delta_table.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SortedJson;

// "<prefix><index, two digits>.json": file names that list in index order.
std::string NumberedFile(std::string_view prefix, int index) {
  std::ostringstream name;
  name << prefix << std::setw(2) << std::setfill('0') << index << ".json";
  return name.str();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Captures what the process prints on stdout until Take(), or until destroyed, so that a failed
// assertion in between does not leave the test runner's own output captured.
class StdoutCapture {
 public:
  StdoutCapture() { ::testing::internal::CaptureStdout(); }
  ~StdoutCapture() {
    if (!taken_) {
      (void)::testing::internal::GetCapturedStdout();
    }
  }
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  std::string Take() {
    taken_ = true;
    return ::testing::internal::GetCapturedStdout();
  }

 private:
  bool taken_ = false;
};

// Records every listener event; the waits end when the event arrived.
class RecordingListener final : public StreamingQueryListener {
 public:
  void OnQueryStarted(const QueryStartedEvent& event) override {
    std::lock_guard lock(mutex);
    started.push_back(event);
    changed.notify_all();
  }
  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    std::lock_guard lock(mutex);
    progress_events.push_back(progress);
    changed.notify_all();
  }
  void OnQueryTerminated(const QueryTerminatedEvent& event) override {
    std::lock_guard lock(mutex);
    terminated.push_back(event);
    changed.notify_all();
  }
  // The listener is called on the query's thread, possibly after AwaitTermination returned;
  // the minute is only a bound for a broken query, never reached by a passing test.
  bool WaitForTerminated(size_t count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::minutes(1),
                            [&] { return terminated.size() >= count; });
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<QueryStartedEvent> started;
  std::vector<StreamingQueryProgress> progress_events;
  std::vector<QueryTerminatedEvent> terminated;
};

class StreamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
    in_ = dir_.Join("in");
    std::filesystem::create_directories(in_);
  }

  // Writes `lines` as the file `name` of `dir`: under a hidden name first, then renamed, so a
  // running stream never lists a half-written file.
  void WriteFile(const std::string& dir, const std::string& name,
                 const std::vector<std::string>& lines) const {
    std::filesystem::create_directories(dir);
    const std::string hidden = dir + "/." + name + ".tmp";
    {
      std::ofstream out(hidden, std::ios::binary);
      for (const std::string& line : lines) {
        out << line << '\n';
      }
    }
    std::filesystem::rename(hidden, dir + "/" + name);
  }

  // File `name` in in_ with events id = first .. first + count - 1.
  void WriteEvents(const std::string& name, int first, int count,
                   const std::string& dir = "") const {
    std::vector<std::string> lines;
    for (int id = first; id < first + count; ++id) {
      lines.push_back("{\"id\":" + std::to_string(id) + ",\"status\":\"" +
                      (id % 2 == 0 ? "active" : "idle") + "\"}");
    }
    WriteFile(dir.empty() ? in_ : dir, name, lines);
  }

  DataFrame Events(const std::map<std::string, std::string>& options = {},
                   const std::string& dir = "") const {
    return session_->ReadStream()
        .Format("json")
        .Schema("id BIGINT, status STRING")
        .Options(options)
        .Load(dir.empty() ? in_ : dir);
  }

  std::vector<std::string> TableRows(const std::string& path) const {
    auto rows = session_->Read().Format("delta").Load(path).Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? SortedJson(*rows) : std::vector<std::string>{};
  }

  static std::vector<std::string> EventRows(int first, int count) {
    std::vector<std::string> rows;
    for (int id = first; id < first + count; ++id) {
      rows.push_back("{\"id\":" + std::to_string(id) + ",\"status\":\"" +
                     (id % 2 == 0 ? "active" : "idle") + "\"}");
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  Result<StreamingQuery> StartDelta(const DataFrame& frame, const std::string& checkpoint,
                                    const std::string& table,
                                    tributary::Trigger trigger = tributary::Trigger(),
                                    const std::string& name = "") const {
    return frame.WriteStream()
        .Format("delta")
        .Option("checkpointLocation", checkpoint)
        .Trigger(trigger)
        .QueryName(name)
        .Start(table);
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  std::string in_;
};

TEST_F(StreamingTest, DefaultTriggerIngestsEachNewFileAndStopEndsTheQuery) {
  WriteEvents("a.json", 0, 3);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events(), dir_.Join("cp"), dir_.Join("table")));
  EXPECT_TRUE(Events().IsStreaming());
  ASSERT_OK(query.ProcessAllAvailable());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 3));
  EXPECT_TRUE(query.IsActive());

  WriteEvents("b.json", 3, 2);
  ASSERT_OK(query.ProcessAllAvailable());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 5));
  // A default-trigger query never ends by itself.
  EXPECT_FALSE(query.AwaitTermination(std::chrono::milliseconds(1)));

  query.Stop();
  EXPECT_FALSE(query.IsActive());
  EXPECT_TRUE(query.AwaitTermination(std::chrono::milliseconds(0)));
  EXPECT_OK(query.AwaitTermination());
  EXPECT_OK(query.Exception());
  EXPECT_EQ(query.Status().message, "Stopped");
  EXPECT_FALSE(query.Status().is_trigger_active);
}

// ProcessAllAvailable must cover data that arrived before the call, even when a trigger that
// had already looked (and found nothing) ends during the call.
TEST_F(StreamingTest, ProcessAllAvailableAlwaysCoversDataAddedBeforeTheCall) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, MemoryStream::Make(session_, "id BIGINT"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       stream.ToDF().WriteStream().Format("memory").QueryName("seen").Start());
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(stream.AddJson({"{\"id\":" + std::to_string(i) + "}"}));
    ASSERT_OK(query.ProcessAllAvailable());
    ASSERT_OK_AND_ASSIGN(int64_t count, session_->Table("seen").Count());
    ASSERT_EQ(count, i + 1) << "after adding row " << i;
  }
  query.Stop();
}

TEST_F(StreamingTest, ProcessingTimeTriggerIngestsNewFiles) {
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events(), dir_.Join("cp"), dir_.Join("table"),
                                  Trigger::ProcessingTime(std::chrono::milliseconds(20))));
  WriteEvents("a.json", 0, 4);
  ASSERT_OK(query.ProcessAllAvailable());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 4));
  WriteEvents("b.json", 4, 4);
  ASSERT_OK(query.ProcessAllAvailable());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 8));
  query.Stop();
  EXPECT_OK(query.Exception());
}

// Stop and ProcessAllAvailable do not wait for the next trigger time (which here would be an
// hour away): a hang would fail the test by its timeout.
TEST_F(StreamingTest, StopAndProcessAllAvailableDoNotWaitForTheNextTrigger) {
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events(), dir_.Join("cp"), dir_.Join("table"),
                                  Trigger::ProcessingTime(std::chrono::hours(1)), "hourly"));
  EXPECT_EQ(query.Name(), "hourly");
  WriteEvents("a.json", 0, 4);
  ASSERT_OK(query.ProcessAllAvailable());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 4));
  query.Stop();
  EXPECT_FALSE(query.IsActive());
  EXPECT_OK(query.Exception());
}

TEST_F(StreamingTest, OnceTriggerTakesEverythingInOneBatchIgnoringRateLimitsThenStops) {
  for (int f = 0; f < 3; ++f) {
    WriteEvents(NumberedFile("f", f), f * 10, 10);
  }
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events({{"maxFilesPerTrigger", "1"}}), dir_.Join("cp"),
                                  dir_.Join("table"), Trigger::Once()));
  ASSERT_OK(query.AwaitTermination());
  EXPECT_FALSE(query.IsActive());
  const std::vector<StreamingQueryProgress> progress = query.RecentProgress();
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].num_input_rows, 30);
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 30));
}

TEST_F(StreamingTest, AvailableNowRunsSeveralBatchesUnderMaxFilesPerTriggerThenStops) {
  for (int f = 0; f < 5; ++f) {
    WriteEvents(NumberedFile("f", f), f * 10, 10);
  }
  const std::string checkpoint = dir_.Join("cp");
  const std::string table = dir_.Join("table");
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events({{"maxFilesPerTrigger", "2"}}), checkpoint, table,
                                  Trigger::AvailableNow()));
  ASSERT_OK(query.AwaitTermination());
  std::vector<int64_t> ids;
  std::vector<int64_t> rows;
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    ids.push_back(progress.batch_id);
    rows.push_back(progress.num_input_rows);
  }
  EXPECT_THAT(ids, ElementsAre(0, 1, 2));
  EXPECT_THAT(rows, ElementsAre(20, 20, 10));
  EXPECT_EQ(TableRows(table), EventRows(0, 50));

  // A restart from the checkpoint continues with the files that arrived since, under the same
  // query id and a new run id.
  WriteEvents("f5.json", 50, 10);
  ASSERT_OK_AND_ASSIGN(StreamingQuery again,
                       StartDelta(Events({{"maxFilesPerTrigger", "2"}}), checkpoint, table,
                                  Trigger::AvailableNow()));
  ASSERT_OK(again.AwaitTermination());
  EXPECT_EQ(again.Id(), query.Id());
  EXPECT_NE(again.RunId(), query.RunId());
  ASSERT_EQ(again.RecentProgress().size(), 1u);
  EXPECT_EQ(again.RecentProgress()[0].batch_id, 3);
  EXPECT_EQ(TableRows(table), EventRows(0, 60));
}

TEST_F(StreamingTest, SecondQueryOnALiveCheckpointFailsAtOnceNamingTheHolder) {
  const std::string checkpoint = dir_.Join("cp");
  const std::string table = dir_.Join("table");
  WriteEvents("a.json", 0, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery first,
                       StartDelta(Events(), checkpoint, table, Trigger(), "first_holder"));
  ASSERT_OK(first.ProcessAllAvailable());

  auto second = StartDelta(Events(), checkpoint, table, Trigger(), "second");
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().ToString(), HasSubstr("first_holder"));
  EXPECT_THAT(second.status().ToString(), HasSubstr(first.RunId()));
  EXPECT_THAT(second.status().ToString(), HasSubstr(checkpoint));
  EXPECT_TRUE(first.IsActive());

  first.Stop();
  WriteEvents("b.json", 2, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery restarted,
                       StartDelta(Events(), checkpoint, table, Trigger(), "second"));
  ASSERT_OK(restarted.ProcessAllAvailable());
  EXPECT_EQ(restarted.Id(), first.Id());
  EXPECT_EQ(TableRows(table), EventRows(0, 4));
  restarted.Stop();
}

TEST_F(StreamingTest, CheckpointOfAnotherQueryIsRefusedNamingIt) {
  const std::string checkpoint = dir_.Join("cp");
  const std::string table = dir_.Join("table");
  WriteEvents("a.json", 0, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events(), checkpoint, table, Trigger::AvailableNow()));
  ASSERT_OK(query.AwaitTermination());

  // Another source directory.
  const std::string other_in = dir_.Join("other_in");
  WriteEvents("x.json", 100, 2, other_in);
  auto other_source = StartDelta(Events({}, other_in), checkpoint, table, Trigger::AvailableNow());
  ASSERT_FALSE(other_source.ok());
  EXPECT_THAT(other_source.status().Message(), HasSubstr("belongs to another query"));
  EXPECT_THAT(other_source.status().Message(), HasSubstr(in_));
  EXPECT_THAT(other_source.status().Message(), HasSubstr(other_in));

  // Another sink table.
  auto other_sink =
      StartDelta(Events(), checkpoint, dir_.Join("other_table"), Trigger::AvailableNow());
  ASSERT_FALSE(other_sink.ok());
  EXPECT_THAT(other_sink.status().Message(), HasSubstr("belongs to another query"));
  EXPECT_THAT(other_sink.status().Message(), HasSubstr(table));
  EXPECT_THAT(other_sink.status().Message(), HasSubstr(dir_.Join("other_table")));

  // Neither attempt touched the checkpoint: the query itself still restarts.
  ASSERT_OK_AND_ASSIGN(StreamingQuery again,
                       StartDelta(Events(), checkpoint, table, Trigger::AvailableNow()));
  EXPECT_OK(again.AwaitTermination());
  EXPECT_EQ(TableRows(table), EventRows(0, 2));
}

TEST_F(StreamingTest, DurableSinksNeedACheckpointWhileDebuggingSinksGetATemporaryOne) {
  auto delta = Events().WriteStream().Format("delta").Start(dir_.Join("table"));
  ASSERT_FALSE(delta.ok());
  EXPECT_TRUE(delta.status().IsInvalidArgument());
  EXPECT_THAT(delta.status().Message(), HasSubstr("checkpointLocation"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("table")));

  auto foreach = Events()
                     .WriteStream()
                     .ForeachBatch([](const DataFrame&, int64_t) { return Status::OK(); })
                     .Start();
  ASSERT_FALSE(foreach.ok());
  EXPECT_THAT(foreach.status().Message(), HasSubstr("checkpointLocation"));

  WriteEvents("a.json", 0, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery memory,
                       Events().WriteStream().Format("memory").QueryName("debug").Start());
  ASSERT_OK(memory.ProcessAllAvailable());
  memory.Stop();
  ASSERT_OK_AND_ASSIGN(auto rows, session_->Table("debug").Collect());
  EXPECT_EQ(SortedJson(rows), EventRows(0, 2));

  StdoutCapture captured;
  ASSERT_OK_AND_ASSIGN(StreamingQuery console,
                       Events().WriteStream().Format("console").Trigger(Trigger::Once()).Start());
  EXPECT_OK(console.AwaitTermination());
  EXPECT_THAT(captured.Take(), HasSubstr("Batch: 0"));
}

TEST_F(StreamingTest, MemorySinkIsQueryableByNameThroughTableAndSql) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, MemoryStream::Make(session_, "id BIGINT, s STRING"));
  EXPECT_TRUE(stream.ToDF().IsStreaming());
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, stream.ToDF()
                                                 .Filter("id > 1")
                                                 .WriteStream()
                                                 .Format("memory")
                                                 .QueryName("Recent_Events")
                                                 .Start());
  ASSERT_OK(stream.AddJson({R"({"id":1,"s":"a"})", R"({"id":2,"s":"b"})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(stream.AddJson({R"({"id":3,"s":"c"})"}));
  ASSERT_OK(query.ProcessAllAvailable());

  ASSERT_OK_AND_ASSIGN(auto rows, session_->Table("recent_events").Collect());
  EXPECT_THAT(SortedJson(rows), ElementsAre(R"({"id":2,"s":"b"})", R"({"id":3,"s":"c"})"));
  ASSERT_OK_AND_ASSIGN(
      auto counted,
      session_->Sql("SELECT count(*) AS n, max(s) AS top FROM Recent_Events").Collect());
  EXPECT_THAT(SortedJson(counted), ElementsAre(R"({"n":2,"top":"c"})"));
  query.Stop();

  auto unnamed = stream.ToDF().WriteStream().Format("memory").Start();
  ASSERT_FALSE(unnamed.ok());
  EXPECT_THAT(unnamed.status().Message(), HasSubstr("QueryName"));
}

TEST_F(StreamingTest, ConsoleSinkPrintsEachBatchAsSparkDoes) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, MemoryStream::Make(session_, "id BIGINT, s STRING"));
  StdoutCapture captured;
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, stream.ToDF().WriteStream().Format("console").Start());
  ASSERT_OK(stream.AddJson({R"({"id":1,"s":"a"})", R"({"id":22,"s":null})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(stream.AddJson({R"({"id":3,"s":"ccc"})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  query.Stop();
  const std::string printed = captured.Take();
  EXPECT_EQ(printed,
            "-------------------------------------------\n"
            "Batch: 0\n"
            "-------------------------------------------\n"
            "+---+----+\n"
            "| id|   s|\n"
            "+---+----+\n"
            "|  1|   a|\n"
            "| 22|NULL|\n"
            "+---+----+\n"
            "\n"
            "-------------------------------------------\n"
            "Batch: 1\n"
            "-------------------------------------------\n"
            "+---+---+\n"
            "| id|  s|\n"
            "+---+---+\n"
            "|  3|ccc|\n"
            "+---+---+\n"
            "\n");
}

TEST_F(StreamingTest, ConsoleSinkHonoursNumRowsAndTruncate) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, MemoryStream::Make(session_, "id BIGINT, s STRING"));
  StdoutCapture captured;
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, stream.ToDF()
                                                 .WriteStream()
                                                 .Format("console")
                                                 .Option("numRows", "1")
                                                 .Option("truncate", "false")
                                                 .Start());
  ASSERT_OK(stream.AddJson(
      {R"({"id":1,"s":"a value longer than twenty characters"})", R"({"id":2,"s":"b"})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  query.Stop();
  EXPECT_EQ(captured.Take(),
            "-------------------------------------------\n"
            "Batch: 0\n"
            "-------------------------------------------\n"
            "+---+-------------------------------------+\n"
            "|id |s                                    |\n"
            "+---+-------------------------------------+\n"
            "|1  |a value longer than twenty characters|\n"
            "+---+-------------------------------------+\n"
            "only showing top 1 row\n"
            "\n");
}

TEST_F(StreamingTest, ForeachBatchGetsBatchIdsAndDataFrames) {
  ASSERT_OK_AND_ASSIGN(MemoryStream stream, MemoryStream::Make(session_, "id BIGINT"));
  std::mutex mutex;
  std::vector<std::pair<int64_t, std::vector<std::string>>> seen;
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       stream.ToDF()
                           .WithColumn("doubled", Col("id") * Lit(2))
                           .WriteStream()
                           .Option("checkpointLocation", dir_.Join("cp"))
                           .ForeachBatch([&](const DataFrame& batch, int64_t batch_id) -> Status {
                             TRIBUTARY_ASSIGN_OR_RAISE(auto rows, batch.Collect());
                             std::lock_guard lock(mutex);
                             seen.emplace_back(batch_id, SortedJson(rows));
                             return Status::OK();
                           })
                           .Start());
  ASSERT_OK(stream.AddJson({R"({"id":1})", R"({"id":2})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK(stream.AddJson({R"({"id":5})"}));
  ASSERT_OK(query.ProcessAllAvailable());
  query.Stop();
  std::lock_guard lock(mutex);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, 0);
  EXPECT_THAT(seen[0].second, ElementsAre(R"({"id":1,"doubled":2})", R"({"id":2,"doubled":4})"));
  EXPECT_EQ(seen[1].first, 1);
  EXPECT_THAT(seen[1].second, ElementsAre(R"({"id":5,"doubled":10})"));
  // foreachBatch cannot know what the function wrote.
  EXPECT_EQ(query.LastProgress()->sink.num_output_rows, -1);
}

TEST_F(StreamingTest, ForeachBatchWritesWithTxnOptionsAreIdempotent) {
  const std::string table = dir_.Join("table");
  const std::string checkpoint = dir_.Join("cp");
  // Every batch is written twice, as after a crash between the write and commits/<N>: the
  // second write of a (txnAppId, txnVersion) is skipped.
  auto write = [&](const DataFrame& batch, int64_t batch_id) -> Status {
    for (int attempt = 0; attempt < 2; ++attempt) {
      TRIBUTARY_RETURN_NOT_OK(batch.Write()
                                  .Format("delta")
                                  .Mode("append")
                                  .Option("txnAppId", "events-job")
                                  .Option("txnVersion", std::to_string(batch_id))
                                  .Save(table));
    }
    return Status::OK();
  };
  WriteEvents("a.json", 0, 3);
  WriteEvents("b.json", 3, 3);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, Events({{"maxFilesPerTrigger", "1"}})
                                                 .WriteStream()
                                                 .Option("checkpointLocation", checkpoint)
                                                 .Trigger(Trigger::AvailableNow())
                                                 .ForeachBatch(write)
                                                 .Start());
  ASSERT_OK(query.AwaitTermination());
  EXPECT_EQ(query.RecentProgress().size(), 2u);
  EXPECT_EQ(TableRows(table), EventRows(0, 6));
  ASSERT_OK_AND_ASSIGN(DeltaTable delta, DeltaTable::ForPath(*session_, table));
  ASSERT_OK_AND_ASSIGN(int64_t commits, delta.History().Count());
  EXPECT_EQ(commits, 2);

  // The same batch ids from a new run of the function (a replay of the whole job) add nothing.
  ASSERT_OK(write(session_->Read().Format("json").Schema("id BIGINT, status STRING").Load(in_), 1));
  EXPECT_EQ(TableRows(table), EventRows(0, 6));
}

TEST_F(StreamingTest, TwoQueriesAppendToOneDeltaTableAtOnce) {
  const std::string table = dir_.Join("table");
  const std::string in_a = dir_.Join("in_a");
  const std::string in_b = dir_.Join("in_b");
  for (int f = 0; f < 8; ++f) {
    WriteEvents(NumberedFile("a", f), f * 10, 10, in_a);
    WriteEvents(NumberedFile("b", f), 1000 + f * 10, 10, in_b);
  }
  // One file per batch, so the two queries' commits interleave.
  ASSERT_OK_AND_ASSIGN(StreamingQuery a,
                       StartDelta(Events({{"maxFilesPerTrigger", "1"}}, in_a), dir_.Join("cp_a"),
                                  table, Trigger::AvailableNow()));
  ASSERT_OK_AND_ASSIGN(StreamingQuery b,
                       StartDelta(Events({{"maxFilesPerTrigger", "1"}}, in_b), dir_.Join("cp_b"),
                                  table, Trigger::AvailableNow()));
  ASSERT_OK(a.AwaitTermination());
  ASSERT_OK(b.AwaitTermination());
  EXPECT_NE(a.Id(), b.Id());
  EXPECT_EQ(a.RecentProgress().size(), 8u);
  EXPECT_EQ(b.RecentProgress().size(), 8u);
  std::vector<std::string> expected = EventRows(0, 80);
  for (const std::string& row : EventRows(1000, 80)) {
    expected.push_back(row);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(TableRows(table), expected);
}

TEST_F(StreamingTest, BatchReadsAndOptimizeWhileAStreamCommitsSeeOnlyWholeCommits) {
  constexpr int kFiles = 24;
  constexpr int kRowsPerFile = 50;
  const std::string table = dir_.Join("table");
  WriteEvents("f00.json", 0, kRowsPerFile);
  ASSERT_OK_AND_ASSIGN(StreamingQuery first,
                       StartDelta(Events(), dir_.Join("cp"), table, Trigger::AvailableNow()));
  ASSERT_OK(first.AwaitTermination());
  for (int f = 1; f < kFiles; ++f) {
    WriteEvents(NumberedFile("f", f), f * kRowsPerFile, kRowsPerFile);
  }

  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events({{"maxFilesPerTrigger", "1"}}), dir_.Join("cp"), table,
                                  Trigger::AvailableNow()));
  ASSERT_OK_AND_ASSIGN(DeltaTable delta, DeltaTable::ForPath(*session_, table));
  std::vector<int64_t> counts;
  int optimizations = 0;
  bool ended = false;
  while (!ended) {
    ended = !query.IsActive();  // one more read after the end sees the final table
    ASSERT_OK_AND_ASSIGN(int64_t count, session_->Read().Format("delta").Load(table).Count());
    counts.push_back(count);
    ASSERT_OK_AND_ASSIGN(auto rows, session_->Read().Format("delta").Load(table).Collect());
    ASSERT_EQ(static_cast<int64_t>(rows.size()) % kRowsPerFile, 0) << rows.size();
    if (counts.size() % 4 == 0) {
      ASSERT_OK(delta.Optimize().Collect().status());
      ++optimizations;
    }
  }
  ASSERT_OK(query.AwaitTermination());
  for (size_t i = 0; i < counts.size(); ++i) {
    EXPECT_EQ(counts[i] % kRowsPerFile, 0) << "read " << i << " saw " << counts[i] << " rows";
    if (i > 0) {
      EXPECT_GE(counts[i], counts[i - 1]);
    }
  }
  EXPECT_EQ(counts.back(), kFiles * kRowsPerFile);
  EXPECT_EQ(TableRows(table), EventRows(0, kFiles * kRowsPerFile));
  EXPECT_GT(optimizations, 0);
}

TEST_F(StreamingTest, SchemaChangeFailsWithoutMergeSchemaNamingTheColumnAndEvolvesWithIt) {
  const std::string checkpoint = dir_.Join("cp");
  const std::string table = dir_.Join("table");
  WriteEvents("a.json", 0, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery first,
                       StartDelta(Events(), checkpoint, table, Trigger::AvailableNow()));
  ASSERT_OK(first.AwaitTermination());

  // The same query, now with a column more (schema evolution is not a change of query).
  WriteFile(in_, "b.json", {R"({"id":7,"status":"active","region":"eu"})"});
  const auto wider = [&](const std::map<std::string, std::string>& writer_options) {
    return session_->ReadStream()
        .Format("json")
        .Schema("id BIGINT, status STRING, region STRING")
        .Load(in_)
        .WriteStream()
        .Format("delta")
        .Options(writer_options)
        .Option("checkpointLocation", checkpoint)
        .Trigger(Trigger::AvailableNow())
        .Start(table);
  };
  ASSERT_OK_AND_ASSIGN(StreamingQuery refused, wider({}));
  const Status error = refused.AwaitTermination();
  ASSERT_FALSE(error.ok());
  EXPECT_THAT(error.ToString(), HasSubstr("region"));
  EXPECT_THAT(error.ToString(), HasSubstr("mergeSchema"));
  EXPECT_EQ(refused.Exception().ToString(), error.ToString());
  // The failed batch left the table and the commit log as they were; its offsets stay logged
  // for the re-run.
  EXPECT_EQ(TableRows(table), EventRows(0, 2));
  EXPECT_TRUE(std::filesystem::exists(checkpoint + "/offsets/1"));
  EXPECT_FALSE(std::filesystem::exists(checkpoint + "/commits/1"));
  EXPECT_FALSE(refused.ProcessAllAvailable().ok());

  ASSERT_OK_AND_ASSIGN(StreamingQuery merged, wider({{"mergeSchema", "true"}}));
  ASSERT_OK(merged.AwaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, session_->Read().Format("delta").Load(table).Collect());
  EXPECT_THAT(SortedJson(rows), ElementsAre(R"({"id":0,"status":"active","region":null})",
                                            R"({"id":1,"status":"idle","region":null})",
                                            R"({"id":7,"status":"active","region":"eu"})"));
}

TEST_F(StreamingTest, ProgressRecordsCarrySparksFieldsAndGoToProgressJsonl) {
  const std::string checkpoint = dir_.Join("cp");
  WriteEvents("a.json", 0, 4);
  WriteEvents("b.json", 4, 6);
  ASSERT_OK_AND_ASSIGN(
      StreamingQuery query,
      StartDelta(Events({{"maxFilesPerTrigger", "1"}}).Filter("status = 'active'"), checkpoint,
                 dir_.Join("table"), Trigger::AvailableNow(), "progress_query"));
  ASSERT_OK(query.AwaitTermination());
  const std::vector<StreamingQueryProgress> progress = query.RecentProgress();
  ASSERT_EQ(progress.size(), 2u);
  ASSERT_TRUE(query.LastProgress().has_value());
  EXPECT_EQ(query.LastProgress()->batch_id, 1);

  const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  const int64_t input_rows[] = {4, 6};
  const int64_t output_rows[] = {2, 3};
  const char* start_offsets[] = {"null", R"({"logOffset":0})"};
  const char* end_offsets[] = {R"({"logOffset":0})", R"({"logOffset":1})"};
  for (size_t b = 0; b < progress.size(); ++b) {
    SCOPED_TRACE("batch " + std::to_string(b));
    const nlohmann::json json = nlohmann::json::parse(progress[b].Json());
    EXPECT_EQ(json["id"], query.Id());
    EXPECT_EQ(json["runId"], query.RunId());
    EXPECT_EQ(json["name"], "progress_query");
    EXPECT_TRUE(std::regex_match(json["timestamp"].get<std::string>(), iso)) << json["timestamp"];
    EXPECT_EQ(json["batchId"], static_cast<int64_t>(b));
    EXPECT_EQ(json["numInputRows"], input_rows[b]);
    EXPECT_TRUE(json["inputRowsPerSecond"].is_number());
    EXPECT_TRUE(json["processedRowsPerSecond"].is_number());
    EXPECT_GT(json["processedRowsPerSecond"].get<double>(), 0);
    for (const char* key : {"latestOffset", "walCommit", "getBatch", "queryPlanning", "addBatch",
                            "commitOffsets", "triggerExecution"}) {
      EXPECT_TRUE(json["durationMs"].contains(key)) << key;
    }
    EXPECT_TRUE(json["stateOperators"].is_array());
    ASSERT_EQ(json["sources"].size(), 1u);
    const nlohmann::json& source = json["sources"][0];
    EXPECT_THAT(source["description"].get<std::string>(), HasSubstr(in_));
    EXPECT_EQ(source["startOffset"].dump(), start_offsets[b]);
    EXPECT_EQ(source["endOffset"].dump(), end_offsets[b]);
    EXPECT_EQ(source["latestOffset"].dump(), end_offsets[b]);
    EXPECT_EQ(source["numInputRows"], input_rows[b]);
    EXPECT_EQ(json["sink"]["numOutputRows"], output_rows[b]);
    EXPECT_THAT(json["sink"]["description"].get<std::string>(), HasSubstr(dir_.Join("table")));
    // The struct says the same as its JSON.
    EXPECT_EQ(progress[b].num_input_rows, input_rows[b]);
    EXPECT_EQ(progress[b].sink.num_output_rows, output_rows[b]);
    EXPECT_EQ(progress[b].sources[0].num_input_rows, input_rows[b]);
  }
  EXPECT_EQ(nlohmann::json::parse(progress[0].PrettyJson()),
            nlohmann::json::parse(progress[0].Json()));

  // progress.jsonl: one line per batch, each the record's JSON.
  std::istringstream lines(ReadText(checkpoint + "/progress.jsonl"));
  std::vector<std::string> logged;
  for (std::string line; std::getline(lines, line);) {
    logged.push_back(line);
  }
  EXPECT_THAT(logged, ElementsAre(progress[0].Json(), progress[1].Json()));
}

TEST_F(StreamingTest, ListenersReceiveStartedProgressAndTerminatedEvents) {
  auto listener = std::make_shared<RecordingListener>();
  session_->AddStreamingListener(listener);
  WriteEvents("a.json", 0, 2);
  WriteEvents("b.json", 2, 2);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(Events({{"maxFilesPerTrigger", "1"}}), dir_.Join("cp"),
                                  dir_.Join("table"), Trigger::AvailableNow(), "listened"));
  ASSERT_OK(query.AwaitTermination());
  ASSERT_TRUE(listener->WaitForTerminated(1));
  {
    std::lock_guard lock(listener->mutex);
    ASSERT_EQ(listener->started.size(), 1u);
    EXPECT_EQ(listener->started[0].id, query.Id());
    EXPECT_EQ(listener->started[0].run_id, query.RunId());
    EXPECT_EQ(listener->started[0].name, "listened");
    ASSERT_EQ(listener->progress_events.size(), 2u);
    EXPECT_EQ(listener->progress_events[0].batch_id, 0);
    EXPECT_EQ(listener->progress_events[1].batch_id, 1);
    EXPECT_EQ(listener->progress_events[1].Json(), query.LastProgress()->Json());
    ASSERT_EQ(listener->terminated.size(), 1u);
    EXPECT_EQ(listener->terminated[0].id, query.Id());
    EXPECT_EQ(listener->terminated[0].run_id, query.RunId());
    EXPECT_FALSE(listener->terminated[0].exception.has_value());
  }

  // A failing query reports its error in the terminated event.
  WriteFile(in_, "c.json", {R"({"id":9,"status":"idle","extra":1})"});
  ASSERT_OK_AND_ASSIGN(StreamingQuery failing, session_->ReadStream()
                                                   .Format("json")
                                                   .Schema("id BIGINT, status STRING, extra BIGINT")
                                                   .Load(in_)
                                                   .WriteStream()
                                                   .Option("checkpointLocation", dir_.Join("cp"))
                                                   .Trigger(Trigger::AvailableNow())
                                                   .Start(dir_.Join("table")));
  EXPECT_FALSE(failing.AwaitTermination().ok());
  ASSERT_TRUE(listener->WaitForTerminated(2));
  std::lock_guard lock(listener->mutex);
  ASSERT_TRUE(listener->terminated[1].exception.has_value());
  EXPECT_THAT(*listener->terminated[1].exception, HasSubstr("extra"));
}

TEST_F(StreamingTest, StreamStaticJoinRereadsTheDeltaTableWhenItChanges) {
  const std::string dims = dir_.Join("dims");
  const auto write_dims = [&](const std::string& mode, const std::string& json) {
    const std::string file = dir_.Join("dims.json");
    {
      std::ofstream out(file);
      out << json;
    }
    return session_->Read()
        .Format("json")
        .Schema("code STRING, name STRING")
        .Load(file)
        .Write()
        .Format("delta")
        .Mode(mode)
        .Save(dims);
  };
  ASSERT_OK(write_dims("overwrite", "{\"code\":\"DE\",\"name\":\"Germany\"}\n"));
  const std::string events_in = dir_.Join("events");
  WriteFile(events_in, "a.json", {R"({"id":1,"code":"DE"})", R"({"id":2,"code":"FR"})"});
  DataFrame events =
      session_->ReadStream().Format("json").Schema("id BIGINT, code STRING").Load(events_in);
  DataFrame names = session_->Read().Format("delta").Load(dims);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, events.Join(names, {"code"})
                                                 .Select({"id", "name"})
                                                 .WriteStream()
                                                 .Format("memory")
                                                 .QueryName("named")
                                                 .Start());
  ASSERT_OK(query.ProcessAllAvailable());
  ASSERT_OK_AND_ASSIGN(auto rows, session_->Table("named").Collect());
  EXPECT_THAT(SortedJson(rows), ElementsAre(R"({"id":1,"name":"Germany"})"));

  // The static table gains France; the next batch joins with the new version.
  ASSERT_OK(write_dims("append", "{\"code\":\"FR\",\"name\":\"France\"}\n"));
  WriteFile(events_in, "b.json", {R"({"id":3,"code":"FR"})", R"({"id":4,"code":"DE"})"});
  ASSERT_OK(query.ProcessAllAvailable());
  query.Stop();
  ASSERT_OK(query.Exception());
  ASSERT_OK_AND_ASSIGN(rows, session_->Table("named").Collect());
  EXPECT_THAT(SortedJson(rows),
              ElementsAre(R"({"id":1,"name":"Germany"})", R"({"id":3,"name":"France"})",
                          R"({"id":4,"name":"Germany"})"));
}

// Delta to Delta through the warehouse, by table names, with the checkpoint under the session's
// spark.sql.streaming.checkpointLocation root named after the query.
TEST_F(StreamingTest, WarehouseTablesStreamByNameWithTheCheckpointUnderTheSessionRoot) {
  const std::string root = dir_.Join("checkpoints");
  ASSERT_OK_AND_ASSIGN(auto session, Session::Builder()
                                         .Warehouse(dir_.Join("warehouse"))
                                         .TimeZone("UTC")
                                         .Config("spark.sql.streaming.checkpointLocation", root)
                                         .Build());
  const auto append_bronze = [&](int first) {
    WriteEvents(NumberedFile("bronze", first), first, 4, dir_.Join("raw"));
    return session->Read()
        .Format("json")
        .Schema("id BIGINT, status STRING")
        .Load(dir_.Join("raw") + "/" + NumberedFile("bronze", first))
        .Write()
        .Format("delta")
        .Mode("append")
        .SaveAsTable("bronze");
  };
  const auto run_silver = [&]() -> Status {
    TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query, session->ReadStream()
                                                        .Table("bronze")
                                                        .Filter("status = 'active'")
                                                        .WriteStream()
                                                        .QueryName("silver_job")
                                                        .Trigger(Trigger::AvailableNow())
                                                        .ToTable("silver"));
    return query.AwaitTermination();
  };
  ASSERT_OK(append_bronze(0));
  ASSERT_OK(run_silver());
  EXPECT_TRUE(std::filesystem::exists(root + "/silver_job/metadata"));
  ASSERT_OK(append_bronze(4));
  ASSERT_OK(run_silver());
  ASSERT_OK_AND_ASSIGN(auto rows, session->Table("silver").Collect());
  EXPECT_THAT(SortedJson(rows),
              ElementsAre(R"({"id":0,"status":"active"})", R"({"id":2,"status":"active"})",
                          R"({"id":4,"status":"active"})", R"({"id":6,"status":"active"})"));

  auto console = session->ReadStream().Table("bronze").WriteStream().Format("console").ToTable("x");
  ASSERT_FALSE(console.ok());
  EXPECT_THAT(console.status().Message(), HasSubstr("console"));
}

TEST_F(StreamingTest, UnsupportedUriSchemesAreErrorsAndFileUrisAreLocalPaths) {
  // A source under another scheme used to run as an empty stream (its "directory" was missing).
  for (const std::string format : {"json", "cloudFiles", "delta"}) {
    DataStreamReader reader = session_->ReadStream().Format(format);
    if (format == "cloudFiles") {
      reader.Option("cloudFiles.format", "json");
    }
    if (format != "delta") {
      reader.Schema("id BIGINT");
    }
    DataFrame frame = reader.Load("gs://bucket/landing");
    ASSERT_RAISES(InvalidArgument, frame.Status());
    EXPECT_THAT(frame.Status().Message(),
                HasSubstr("unsupported URI scheme 'gs' in 'gs://bucket/landing'"))
        << format;
  }
  auto sink = Events()
                  .WriteStream()
                  .Format("delta")
                  .Option("checkpointLocation", dir_.Join("cp"))
                  .Start("abfss://container@account/table");
  ASSERT_RAISES(InvalidArgument, sink);
  EXPECT_THAT(sink.status().Message(), HasSubstr("unsupported URI scheme 'abfss'"));
  auto checkpoint = StartDelta(Events(), "gs://bucket/checkpoint", dir_.Join("table"));
  ASSERT_RAISES(InvalidArgument, checkpoint);
  EXPECT_THAT(checkpoint.status().Message(), HasSubstr("checkpointLocation"));
  EXPECT_THAT(checkpoint.status().Message(), HasSubstr("unsupported URI scheme 'gs'"));

  // file:// names the local disk, for the source, the sink and the checkpoint alike.
  WriteEvents("a.json", 0, 3);
  DataFrame uri_source = session_->ReadStream()
                             .Format("json")
                             .Schema("id BIGINT, status STRING")
                             .Load("file://" + in_);
  ASSERT_OK_AND_ASSIGN(StreamingQuery query,
                       StartDelta(uri_source, "file://" + dir_.Join("cp"),
                                  "file://" + dir_.Join("table"), Trigger::AvailableNow()));
  ASSERT_OK(query.AwaitTermination());
  EXPECT_EQ(TableRows(dir_.Join("table")), EventRows(0, 3));
  EXPECT_TRUE(std::filesystem::exists(dir_.Join("cp/offsets/0")));
}

TEST_F(StreamingTest, OutputModesTheQueryOrSinkCannotTakeAreRefusedAtStart) {
  // Delta takes no changed rows (Delta's own error); complete needs an aggregation (Spark's).
  auto update = Events()
                    .WriteStream()
                    .OutputMode("update")
                    .Option("checkpointLocation", dir_.Join("cp"))
                    .Start(dir_.Join("table"));
  ASSERT_FALSE(update.ok());
  EXPECT_TRUE(update.status().IsInvalidArgument()) << update.status().ToString();
  EXPECT_THAT(update.status().Message(),
              HasSubstr("Data source delta does not support Update output mode"));
  for (const char* mode : {"complete", "Complete"}) {
    auto query = Events()
                     .WriteStream()
                     .OutputMode(mode)
                     .Option("checkpointLocation", dir_.Join("cp"))
                     .Start(dir_.Join("table"));
    ASSERT_FALSE(query.ok()) << mode;
    EXPECT_TRUE(query.status().IsInvalidArgument()) << query.status().ToString();
    EXPECT_THAT(query.status().Message(),
                HasSubstr("Complete output mode not supported when there are no streaming "
                          "aggregations"));
  }
  auto unknown = Events()
                     .WriteStream()
                     .OutputMode("sometimes")
                     .Option("checkpointLocation", dir_.Join("cp"))
                     .Start(dir_.Join("table"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(unknown.status().IsInvalidArgument());
  EXPECT_THAT(unknown.status().Message(), HasSubstr("sometimes"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("cp")));
}

TEST_F(StreamingTest, StatefulAndBatchOnlyOperationsOnAStreamAreRefused) {
  const auto start = [&](const DataFrame& frame) {
    return frame.WriteStream()
        .Option("checkpointLocation", dir_.Join("cp"))
        .Start(dir_.Join("table"));
  };
  // Append mode: an aggregation needs a watermark on an event-time key (Spark's rule).
  auto aggregated = start(Events().GroupBy({Col("status")}).Count());
  ASSERT_FALSE(aggregated.ok());
  EXPECT_TRUE(aggregated.status().IsInvalidArgument());
  EXPECT_THAT(aggregated.status().Message(), HasSubstr("aggregations"));
  EXPECT_THAT(aggregated.status().Message(), HasSubstr("without watermark"));

  auto sorted = start(Events().OrderBy({Col("id")}));
  ASSERT_FALSE(sorted.ok());
  EXPECT_THAT(sorted.status().Message(), HasSubstr("Sorting"));

  auto batch = start(session_->Read().Format("json").Schema("id BIGINT").Load(in_));
  ASSERT_FALSE(batch.ok());
  EXPECT_THAT(batch.status().Message(), HasSubstr("streaming DataFrame"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("table")));
}

}  // namespace
}  // namespace tributary

// SQL pipelines (tributary/pipeline.h) end to end: JSON files -> bronze -> silver -> gold Delta
// tables in dependency order, tables created empty first, incremental reruns, schema-change
// restarts and a processing-time run stopped from another thread. No test depends on timing:
// each waits for an event of the run.

#include "tributary/pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
    landing_ = dir_.Join("landing");
    std::filesystem::create_directories(landing_);
  }

  // A file of order events in the landing folder, published by a rename.
  void WriteOrders(const std::string& name, const std::vector<std::string>& lines) const {
    const std::string hidden = landing_ + "/." + name;
    {
      std::ofstream out(hidden, std::ios::binary);
      for (const std::string& line : lines) {
        out << line << '\n';
      }
    }
    std::filesystem::rename(hidden, landing_ + "/" + name);
  }

  // Downstream tables first in the file: the pipeline orders them.
  std::string MedallionSql() const {
    return "CREATE OR REFRESH STREAMING TABLE gold AS\n"
           "  SELECT country, id, amount FROM STREAM(silver) WHERE amount >= 10;\n"
           "CREATE OR REFRESH STREAMING TABLE silver AS\n"
           "  SELECT id, country, amount FROM STREAM silver_input WHERE status = 'ok';\n"
           "CREATE OR REFRESH STREAMING TABLE silver_input PARTITIONED BY (country) AS\n"
           "  SELECT * FROM STREAM read_files('" +
           landing_ +
           "', format => 'json',\n"
           "    schema => 'id BIGINT, status STRING, country STRING, amount INT',\n"
           "    maxFilesPerTrigger => 1);\n";
  }

  std::vector<std::string> Rows(const std::string& sql) const {
    auto rows = session_->Sql(sql).Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Runs `sql` with `options`, recording its events.
  Status RunPipeline(const std::string& sql, std::vector<PipelineEvent>* events,
                     PipelineOptions options = {}) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Pipeline> pipeline,
                              Pipeline::Parse(session_, sql, std::move(options)));
    pipeline->OnEvent([events](const PipelineEvent& event) { events->push_back(event); });
    return pipeline->Run();
  }

  static std::vector<std::string> Summary(const std::vector<PipelineEvent>& events) {
    std::vector<std::string> out;
    for (const PipelineEvent& event : events) {
      switch (event.kind) {
        case PipelineEvent::Kind::kTableCreated:
          out.push_back("created " + event.table);
          break;
        case PipelineEvent::Kind::kStreamStarted:
          out.push_back("started " + event.table);
          break;
        case PipelineEvent::Kind::kBatch: {
          std::ostringstream line;
          line << "batch " << event.table << " " << event.progress->batch_id;
          if (event.backlog.has_value()) {
            line << " " << event.backlog->done << "/" << event.backlog->total << " "
                 << event.backlog->unit;
          }
          out.push_back(line.str());
          break;
        }
        case PipelineEvent::Kind::kSchemaRestart:
          out.push_back("restart " + event.table);
          break;
        case PipelineEvent::Kind::kStreamFinished:
          out.push_back("finished " + event.table);
          break;
        case PipelineEvent::Kind::kShare:
          out.push_back("share " + event.table);
          break;
      }
    }
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  std::string landing_;
};

TEST_F(PipelineTest, OrdersTablesByWhatTheyRead) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline,
                       Pipeline::Parse(session_, MedallionSql()));
  EXPECT_THAT(pipeline->Tables(), ElementsAre("silver_input", "silver", "gold"));
}

TEST_F(PipelineTest, RejectsCyclesAndTablesDefinedTwice) {
  auto cycle = Pipeline::Parse(session_,
                               "CREATE STREAMING TABLE a AS SELECT * FROM STREAM(b);"
                               "CREATE STREAMING TABLE b AS SELECT * FROM STREAM(a)");
  ASSERT_FALSE(cycle.ok());
  EXPECT_THAT(cycle.status().ToString(), HasSubstr("the streaming tables a, b read each other"));
  auto twice = Pipeline::Parse(session_,
                               "CREATE STREAMING TABLE a AS SELECT * FROM STREAM(x);\n"
                               "CREATE STREAMING TABLE A AS SELECT * FROM STREAM(y)");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().ToString(), HasSubstr("a is defined twice (again at line 2)"));
  auto syntax = Pipeline::Parse(session_, "SELECT 1;\nCREATE STREAMING TABLE a SELECT");
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().ToString(), HasSubstr("the statement at line 2"));
}

TEST_F(PipelineTest, CreatesEveryTableEmptyThenRunsEachInOrder) {
  // No input yet: every table is created, empty, with its query's columns and partitioning.
  std::vector<PipelineEvent> events;
  ASSERT_OK(RunPipeline(MedallionSql(), &events));
  EXPECT_THAT(Summary(events),
              ElementsAre("created silver_input", "created silver", "created gold",
                          "started silver_input", "finished silver_input", "started silver",
                          "finished silver", "started gold", "finished gold"));
  // STREAM read_files is an Auto Loader source: the rescued-data column comes with it.
  EXPECT_EQ(events[0].message,
            "id bigint, status string, country string, amount int, _rescued_data string");
  EXPECT_EQ(events[2].message, "country string, id bigint, amount int");
  EXPECT_THAT(session_->ListTables().ValueOr({}), ElementsAre("gold", "silver", "silver_input"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Join("warehouse/_checkpoints/silver")));
  EXPECT_THAT(Rows("SELECT count(*) AS n FROM gold"), ElementsAre(R"({"n":0})"));

  WriteOrders("a.json", {R"({"id":1,"status":"ok","country":"DE","amount":5})",
                         R"({"id":2,"status":"ok","country":"FR","amount":50})"});
  WriteOrders("b.json", {R"({"id":3,"status":"bad","country":"DE","amount":70})",
                         R"({"id":4,"status":"ok","country":"DE","amount":40})"});
  events.clear();
  ASSERT_OK(RunPipeline(MedallionSql(), &events));
  // One file per batch (maxFilesPerTrigger), with the backlog of files counted down.
  EXPECT_THAT(Summary(events),
              ElementsAre("started silver_input", "batch silver_input 0 1/2 files",
                          "batch silver_input 1 2/2 files", "finished silver_input",
                          "started silver", "batch silver 0", "finished silver", "started gold",
                          "batch gold 0", "finished gold"));
  EXPECT_THAT(Rows("SELECT * FROM gold"), ElementsAre(R"({"country":"DE","id":4,"amount":40})",
                                                      R"({"country":"FR","id":2,"amount":50})"));
  EXPECT_THAT(Rows("SELECT DISTINCT country FROM silver_input WHERE id = 3"),
              ElementsAre(R"({"country":"DE"})"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Join("warehouse/silver_input/country=DE")));

  // A rerun reads only the new file, through every table.
  WriteOrders("c.json", {R"({"id":5,"status":"ok","country":"IT","amount":99})"});
  events.clear();
  ASSERT_OK(RunPipeline(MedallionSql(), &events));
  EXPECT_THAT(Summary(events),
              ElementsAre("started silver_input", "batch silver_input 2 1/1 files",
                          "finished silver_input", "started silver", "batch silver 1",
                          "finished silver", "started gold", "batch gold 1", "finished gold"));
  EXPECT_THAT(Rows("SELECT id FROM gold"),
              ElementsAre(R"({"id":2})", R"({"id":4})", R"({"id":5})"));
  EXPECT_THAT(Rows("SELECT count(*) AS n FROM silver_input"), ElementsAre(R"({"n":5})"));
}

TEST_F(PipelineTest, OnceReadsEverythingInOneBatchPerTable) {
  WriteOrders("a.json", {R"({"id":1,"status":"ok","country":"DE","amount":15})"});
  WriteOrders("b.json", {R"({"id":2,"status":"ok","country":"FR","amount":25})"});
  PipelineOptions options;
  options.trigger = Trigger::Once();
  std::vector<PipelineEvent> events;
  ASSERT_OK(RunPipeline(MedallionSql(), &events, options));
  // Trigger.Once ignores maxFilesPerTrigger, and no backlog is reported.
  EXPECT_THAT(Summary(events),
              ElementsAre("created silver_input", "created silver", "created gold",
                          "started silver_input", "batch silver_input 0", "finished silver_input",
                          "started silver", "batch silver 0", "finished silver", "started gold",
                          "batch gold 0", "finished gold"));
  EXPECT_THAT(Rows("SELECT id FROM gold"), ElementsAre(R"({"id":1})", R"({"id":2})"));
}

TEST_F(PipelineTest, RunsPlainStatementsFirstForStaticJoins) {
  WriteOrders("a.json", {R"({"id":1,"status":"ok","country":"DE","amount":5})",
                         R"({"id":2,"status":"ok","country":"XX","amount":50})"});
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE named AS SELECT o.id, c.name FROM STREAM read_files('" +
      landing_ +
      "', format => 'json', schema => 'id BIGINT, country STRING') o JOIN countries c ON "
      "o.country = c.code;\n"
      "CREATE TABLE IF NOT EXISTS countries (code STRING, name STRING);\n"
      "INSERT INTO countries VALUES ('DE', 'Germany');\n";
  std::vector<PipelineEvent> events;
  ASSERT_OK(RunPipeline(sql, &events));
  EXPECT_THAT(Rows("SELECT * FROM named"), ElementsAre(R"({"id":1,"name":"Germany"})"));
}

TEST_F(PipelineTest, RerunRefreshesATableDefinedByAQueryInOneCommit) {
  ASSERT_OK(session_->Sql("CREATE TABLE src (id BIGINT) USING DELTA").Status());
  ASSERT_OK(session_->Sql("INSERT INTO src VALUES (1), (2)").Status());
  const std::string sql =
      "CREATE TABLE totals AS SELECT count(*) AS n FROM src;\n"
      "CREATE TABLE notes (note STRING);\n";
  std::vector<PipelineEvent> events;
  ASSERT_OK(RunPipeline(sql, &events));
  EXPECT_THAT(Rows("SELECT * FROM totals"), ElementsAre(R"({"n":2})"));
  ASSERT_OK(session_->Sql("INSERT INTO src VALUES (3)").Status());
  ASSERT_OK(session_->Sql("INSERT INTO notes VALUES ('kept')").Status());
  // The second run recomputes the query's table and leaves the declared one as it is.
  ASSERT_OK(RunPipeline(sql, &events));
  EXPECT_THAT(Rows("SELECT * FROM totals"), ElementsAre(R"({"n":3})"));
  EXPECT_THAT(Rows("SELECT * FROM notes"), ElementsAre(R"({"note":"kept"})"));
  const std::string log = dir_.Join("warehouse/totals/_delta_log/");
  EXPECT_TRUE(std::filesystem::exists(log + "00000000000000000001.json"));
  EXPECT_FALSE(std::filesystem::exists(log + "00000000000000000002.json"));
}

TEST_F(PipelineTest, RestartsAStreamWhoseSourceGainsAColumnWhileItRuns) {
  ASSERT_OK(session_->Sql("CREATE TABLE raw (id BIGINT) USING DELTA").Status());
  ASSERT_OK(session_->Sql("INSERT INTO raw VALUES (1), (2)").Status());
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE copy AS SELECT * FROM STREAM(raw) WHERE id > 1";
  PipelineOptions options;
  options.trigger = Trigger::ProcessingTime(std::chrono::milliseconds(0));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline, Pipeline::Parse(session_, sql, options));
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<PipelineEvent> events;
  pipeline->OnEvent([&](const PipelineEvent& event) {
    std::lock_guard lock(mutex);
    events.push_back(event);
    changed.notify_all();
  });
  // Waits for a batch of copy that read rows, the n-th such batch.
  const auto wait_for_rows = [&](size_t n) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] {
      return static_cast<size_t>(std::count_if(events.begin(), events.end(), [](const auto& e) {
               return e.kind == PipelineEvent::Kind::kBatch && e.progress->num_input_rows > 0;
             })) >= n;
    });
  };
  Status result;
  std::thread runner([&] { result = pipeline->Run(); });
  wait_for_rows(1);
  // raw gains a column through mergeSchema: the running stream over it stops with a schema
  // change; the runner binds the SQL again (SELECT * now has the column) and restarts it.
  DataFrame wider = session_->Sql("SELECT CAST(3 AS BIGINT) AS id, 'new' AS tag");
  ASSERT_OK(wider.Write()
                .Format("delta")
                .Mode("append")
                .Option("mergeSchema", "true")
                .SaveAsTable("raw"));
  wait_for_rows(2);
  pipeline->Stop();
  runner.join();
  ASSERT_OK(result);
  // No batch ran over the changed commit: the restarted stream reads it as batch 1.
  EXPECT_THAT(Summary(events),
              ElementsAre("created copy", "started copy", "batch copy 0", "restart copy",
                          "started copy", "batch copy 1", "finished copy"));
  const auto restart = std::find_if(events.begin(), events.end(), [](const auto& event) {
    return event.kind == PipelineEvent::Kind::kSchemaRestart;
  });
  ASSERT_NE(restart, events.end());
  EXPECT_THAT(restart->message, HasSubstr("new columns tag"));
  EXPECT_THAT(Rows("SELECT id, tag FROM copy"),
              ElementsAre(R"({"id":2,"tag":null})", R"({"id":3,"tag":"new"})"));

  // A later run binds the new schema at start: no restart needed.
  ASSERT_OK(session_->Sql("INSERT INTO raw VALUES (4, 'x')").Status());
  events.clear();
  ASSERT_OK(RunPipeline(sql, &events));
  EXPECT_THAT(Summary(events), ElementsAre("started copy", "batch copy 2", "finished copy"));
  EXPECT_THAT(Rows("SELECT count(*) AS n FROM copy WHERE tag IS NOT NULL"),
              ElementsAre(R"({"n":2})"));
}

TEST_F(PipelineTest, ProcessingTimeRunsAllTablesUntilStopped) {
  WriteOrders("a.json", {R"({"id":1,"status":"ok","country":"DE","amount":15})"});
  PipelineOptions options;
  options.trigger = Trigger::ProcessingTime(std::chrono::milliseconds(0));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline,
                       Pipeline::Parse(session_, MedallionSql(), options));
  // Stop once the row has reached gold (the callback only signals: Stop waits for the
  // streams, which would wait for the callback).
  std::promise<void> reached_gold;
  bool signalled = false;
  pipeline->OnEvent([&](const PipelineEvent& event) {
    if (event.kind == PipelineEvent::Kind::kBatch && event.table == "gold" &&
        event.progress->num_input_rows > 0 && !signalled) {
      signalled = true;
      reached_gold.set_value();
    }
  });
  Status result;
  std::thread runner([&] { result = pipeline->Run(); });
  reached_gold.get_future().wait();
  pipeline->Stop();
  runner.join();
  ASSERT_OK(result);
  EXPECT_THAT(Rows("SELECT id FROM gold"), ElementsAre(R"({"id":1})"));
}

TEST_F(PipelineTest, SessionSqlRefreshesAStreamingTableOnce) {
  WriteOrders("a.json", {R"({"id":1,"status":"ok","country":"DE","amount":15})"});
  const std::string create =
      "CREATE OR REFRESH STREAMING TABLE orders AS SELECT id FROM STREAM read_files('" + landing_ +
      "', format => 'json', schema => 'id BIGINT')";
  ASSERT_OK(session_->Sql(create).Status());
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre(R"({"id":1})"));
  WriteOrders("b.json", {R"({"id":2})"});
  ASSERT_OK(session_->Sql(create).Status());
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre(R"({"id":1})", R"({"id":2})"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Join("warehouse/_checkpoints/orders")));
}

}  // namespace
}  // namespace tributary

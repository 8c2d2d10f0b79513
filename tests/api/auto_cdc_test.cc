// AUTO CDC flows (api/auto_cdc.h) end to end: change events appended to a Delta table, read
// as a stream and applied to a target table by key and sequence, one available-now run per
// step. Out-of-order events within and across batches, deletes and their tombstones, SCD
// types 1 and 2, COLUMNS EXCEPT, IGNORE NULL UPDATES, and a batch run twice.

#include "api/auto_cdc.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/api_state.h"
#include "sql/parser.h"
#include "storage/path.h"
#include "streaming/stream_execution.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/delta_table.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class AutoCdcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
    ASSERT_OK(session_
                  ->Sql("CREATE TABLE events (id BIGINT, name STRING, city STRING, op STRING, "
                        "seq BIGINT)")
                  .Collect()
                  .status());
  }

  void Insert(const std::string& values) {
    ASSERT_OK(session_->Sql("INSERT INTO events VALUES " + values).Collect().status());
  }

  // The flow into `target` with `clauses` after its KEYS.
  static std::string Flow(const std::string& clauses = kClauses) {
    return "AUTO CDC INTO target FROM STREAM(events) KEYS (id) " + clauses;
  }
  static constexpr const char* kClauses =
      "APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq)";

  std::string Checkpoint() const { return dir_.Join("checkpoints/target"); }

  // One available-now run of the flow over the events not yet applied.
  Status Run(const std::string& sql) {
    const SessionState& state = *ApiAccess::State(*session_);
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(sql));
    TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow,
                              BindAutoCdcFlow(state, statement, Checkpoint()));
    TRIBUTARY_RETURN_NOT_OK(
        CreateAutoCdcTarget(state, flow, {}, "CREATE STREAMING TABLE").status());
    streaming::QueryOptions query;
    query.checkpoint_location = Checkpoint();
    query.trigger = Trigger::AvailableNow();
    query.session_config = state.config;
    query.eval = state.MakeCatalog(0).eval;
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto execution, streaming::StreamExecution::Start(flow.plan, MakeAutoCdcSink(state, flow),
                                                          std::move(query), state.fs));
    execution->AwaitTermination();
    return execution->Exception();
  }

  std::vector<std::string> Rows(const std::string& sql) const {
    auto rows = session_->Sql(sql).Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return testing::SortedJson(rows.ok() ? *rows : std::vector<Row>{});
  }

  int64_t TargetVersion() const {
    auto rows = session_->Sql("DESCRIBE HISTORY target").Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? static_cast<int64_t>(rows->size()) - 1 : -1;
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
};

TEST_F(AutoCdcTest, Type1UpsertsAndDeletesResolveOutOfOrderWithinABatch) {
  Insert(
      "(1, 'a', 'Paris', 'UPSERT', 1), (1, 'b', 'Rome', 'UPSERT', 3), (1, 'c', 'Oslo', 'UPSERT', "
      "2), (2, 'x', 'Lima', 'UPSERT', 1), (2, NULL, NULL, 'DELETE', 2), "
      "(3, 'y', 'Kyiv', 'UPSERT', 5), (3, NULL, NULL, 'DELETE', 4)");
  ASSERT_OK(Run(Flow()));
  // The target has the source's columns but the excluded ones.
  EXPECT_THAT(Rows("SELECT * FROM target"), ElementsAre(R"({"id":1,"name":"b","city":"Rome"})",
                                                        R"({"id":3,"name":"y","city":"Kyiv"})"));
}

TEST_F(AutoCdcTest, Type1OlderEventsAcrossBatchesChangeNothingIncludingAfterADelete) {
  Insert("(1, 'a', 'Paris', 'UPSERT', 10), (2, 'x', 'Lima', 'UPSERT', 10)");
  ASSERT_OK(Run(Flow()));
  Insert("(2, NULL, NULL, 'DELETE', 20), (3, 'z', 'Baku', 'UPSERT', 10)");
  ASSERT_OK(Run(Flow()));
  EXPECT_THAT(Rows("SELECT id, name FROM target"),
              ElementsAre(R"({"id":1,"name":"a"})", R"({"id":3,"name":"z"})"));
  // Late: an older upsert of 1, an upsert of deleted 2 older than its delete (the tombstone
  // keeps it deleted), an older delete of 3.
  Insert(
      "(1, 'old', 'Nice', 'UPSERT', 5), (2, 'late', 'Lima', 'UPSERT', 15), "
      "(3, NULL, NULL, 'DELETE', 9)");
  ASSERT_OK(Run(Flow()));
  EXPECT_THAT(Rows("SELECT id, name FROM target"),
              ElementsAre(R"({"id":1,"name":"a"})", R"({"id":3,"name":"z"})"));
  // Newer events apply: 2 comes back, 1 changes, 3 goes.
  Insert(
      "(1, 'new', 'Nice', 'UPSERT', 11), (2, 'back', 'Lima', 'UPSERT', 21), "
      "(3, NULL, NULL, 'DELETE', 11)");
  ASSERT_OK(Run(Flow()));
  EXPECT_THAT(Rows("SELECT id, name FROM target"),
              ElementsAre(R"({"id":1,"name":"new"})", R"({"id":2,"name":"back"})"));
}

TEST_F(AutoCdcTest, ColumnsListKeepsOnlyThoseColumns) {
  const std::string cdc =
      Flow("APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS id, city");
  Insert("(1, 'a', 'Paris', 'UPSERT', 1)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT * FROM target"), ElementsAre(R"({"id":1,"city":"Paris"})"));
}

TEST_F(AutoCdcTest, IgnoreNullUpdatesKeepsTheTargetsValues) {
  const std::string cdc = Flow(std::string(kClauses) + " IGNORE NULL UPDATES");
  Insert("(1, 'a', 'Paris', 'UPSERT', 1), (2, 'b', 'Rome', 'UPSERT', 1)");
  ASSERT_OK(Run(cdc));
  // Across batches (1) and within one, out of order (2: the city of seq 3, the name of seq 2).
  Insert(
      "(1, NULL, 'Oslo', 'UPSERT', 2), (2, NULL, 'Kyiv', 'UPSERT', 3), "
      "(2, 'c', NULL, 'UPSERT', 2), (3, 'd', NULL, 'UPSERT', 1)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT * FROM target"), ElementsAre(R"({"id":1,"name":"a","city":"Oslo"})",
                                                        R"({"id":2,"name":"c","city":"Kyiv"})",
                                                        R"({"id":3,"name":"d","city":null})"));
  // After a delete within the batch, nulls are nulls: nothing is kept from before it.
  Insert("(1, NULL, NULL, 'DELETE', 3), (1, NULL, 'Riga', 'UPSERT', 4)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT * FROM target WHERE id = 1"),
              ElementsAre(R"({"id":1,"name":null,"city":"Riga"})"));
}

TEST_F(AutoCdcTest, Type2KeepsHistoryWithStartAndEndSequences) {
  const std::string cdc = Flow(std::string(kClauses) + " STORED AS SCD TYPE 2");
  // Out of order within the batch; 2 is deleted after two versions.
  Insert(
      "(1, 'b', 'Rome', 'UPSERT', 2), (1, 'a', 'Paris', 'UPSERT', 1), "
      "(2, 'x', 'Lima', 'UPSERT', 1), (2, NULL, NULL, 'DELETE', 3), (2, 'y', 'Lima', 'UPSERT', "
      "2)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT * FROM target"),
              ElementsAre(R"({"id":1,"name":"a","city":"Paris","__START_AT":1,"__END_AT":2})",
                          R"({"id":1,"name":"b","city":"Rome","__START_AT":2,"__END_AT":null})",
                          R"({"id":2,"name":"x","city":"Lima","__START_AT":1,"__END_AT":2})",
                          R"({"id":2,"name":"y","city":"Lima","__START_AT":2,"__END_AT":3})"));
  // Across batches: 1 changes again; an unchanged row adds no history; 2 comes back; an old
  // event of 1 changes nothing.
  Insert(
      "(1, 'c', 'Rome', 'UPSERT', 5), (1, 'c', 'Rome', 'UPSERT', 6), "
      "(2, 'z', 'Lima', 'UPSERT', 4), (1, 'old', 'Rome', 'UPSERT', 1)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT id, name, __START_AT, __END_AT FROM target"),
              ElementsAre(R"({"id":1,"name":"a","__START_AT":1,"__END_AT":2})",
                          R"({"id":1,"name":"b","__START_AT":2,"__END_AT":5})",
                          R"({"id":1,"name":"c","__START_AT":5,"__END_AT":null})",
                          R"({"id":2,"name":"x","__START_AT":1,"__END_AT":2})",
                          R"({"id":2,"name":"y","__START_AT":2,"__END_AT":3})",
                          R"({"id":2,"name":"z","__START_AT":4,"__END_AT":null})"));
}

TEST_F(AutoCdcTest, Type2TrackHistoryOnUpdatesOtherColumnsInPlace) {
  const std::string cdc =
      Flow(std::string(kClauses) + " STORED AS SCD TYPE 2 TRACK HISTORY ON name");
  Insert("(1, 'a', 'Paris', 'UPSERT', 1)");
  ASSERT_OK(Run(cdc));
  // A city change is not history; a name change is.
  Insert("(1, 'a', 'Rome', 'UPSERT', 2)");
  ASSERT_OK(Run(cdc));
  Insert("(1, 'b', 'Oslo', 'UPSERT', 3)");
  ASSERT_OK(Run(cdc));
  EXPECT_THAT(Rows("SELECT * FROM target"),
              ElementsAre(R"({"id":1,"name":"a","city":"Rome","__START_AT":1,"__END_AT":3})",
                          R"({"id":1,"name":"b","city":"Oslo","__START_AT":3,"__END_AT":null})"));
}

TEST_F(AutoCdcTest, ABatchRunAgainAfterARestartHasNoSecondEffect) {
  Insert("(1, 'a', 'Paris', 'UPSERT', 1), (2, 'b', 'Rome', 'UPSERT', 1)");
  ASSERT_OK(Run(Flow()));
  Insert(
      "(1, NULL, NULL, 'DELETE', 2), (2, 'c', 'Rome', 'UPSERT', 2), (3, 'd', 'Oslo', "
      "'UPSERT', 1)");
  ASSERT_OK(Run(Flow()));
  const int64_t version = TargetVersion();
  const std::vector<std::string> rows = Rows("SELECT * FROM target");
  EXPECT_THAT(rows, ElementsAre(R"({"id":2,"name":"c","city":"Rome"})",
                                R"({"id":3,"name":"d","city":"Oslo"})"));
  // As after a crash between the MERGEs and the batch's commit: the commit is gone, so the
  // restarted query runs batch 1 again; the target (and the state) already hold its txn.
  const std::string commit = storage::JoinPath(Checkpoint(), "commits/1");
  ASSERT_TRUE(std::filesystem::exists(commit));
  std::filesystem::remove(commit);
  ASSERT_OK(Run(Flow()));
  EXPECT_EQ(TargetVersion(), version);
  EXPECT_EQ(Rows("SELECT * FROM target"), rows);
  EXPECT_TRUE(std::filesystem::exists(commit));

  // As after a crash between the target's MERGE and the state's: the state is back at batch
  // 0, so the re-run folds batch 1 as the first run did and finds the events new; the
  // target's txn makes its MERGE a no-op (no new version), and the state catches up.
  const std::string state_log = storage::JoinPath(Checkpoint(), "cdc_state/_delta_log");
  std::string last;
  for (const auto& entry : std::filesystem::directory_iterator(state_log)) {
    if (entry.path().extension() == ".json") {
      last = std::max(last, entry.path().string());
    }
  }
  ASSERT_FALSE(last.empty());
  std::filesystem::remove(last);
  std::filesystem::remove(commit);
  ASSERT_OK(Run(Flow()));
  EXPECT_EQ(TargetVersion(), version);
  EXPECT_EQ(Rows("SELECT * FROM target"), rows);
  EXPECT_TRUE(std::filesystem::exists(last));
  // The state holds batch 1 again: an event older than the delete of 1 stays ignored.
  Insert("(1, 'late', 'Nice', 'UPSERT', 1)");
  ASSERT_OK(Run(Flow()));
  EXPECT_EQ(Rows("SELECT * FROM target"), rows);
}

TEST_F(AutoCdcTest, NullKeysAndSequencesFailTheBatch) {
  Insert("(NULL, 'a', 'Paris', 'UPSERT', 1)");
  Status status = Run(Flow());
  EXPECT_THAT(status.ToString(), HasSubstr("AUTOCDC_MICROBATCH_VALIDATION"));
  EXPECT_THAT(status.ToString(), HasSubstr("NULL_KEY"));
}

TEST_F(AutoCdcTest, UnsupportedClausesAreRefusedBeforeAnyBatch) {
  EXPECT_THAT(
      Run(Flow(std::string(kClauses) + " STORED AS SCD TYPE 2 IGNORE NULL UPDATES")).ToString(),
      HasSubstr("IGNORE NULL UPDATES with STORED AS SCD TYPE 2"));
  EXPECT_THAT(
      Run(Flow(std::string(kClauses) + " APPLY AS TRUNCATE WHEN op = 'TRUNCATE'")).ToString(),
      HasSubstr("APPLY AS TRUNCATE WHEN"));
}

// The pipeline form, as the README's example: JSON files of change events, a declared
// streaming table with the change data feed on and a flow into it (APPLY CHANGES, the older
// spelling); each run applies the files not yet applied, and the feed shows what changed.
TEST_F(AutoCdcTest, PipelineAppliesChangeEventFilesToADeclaredTable) {
  const std::string landing = dir_.Join("landing");
  std::filesystem::create_directories(landing);
  auto write = [&](const std::string& name, const std::string& lines) {
    std::ofstream(landing + "/." + name) << lines;
    std::filesystem::rename(landing + "/." + name, landing + "/" + name);
  };
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE customers\n"
      "  TBLPROPERTIES (delta.enableChangeDataFeed = true);\n"
      "CREATE FLOW customers_cdc AS APPLY CHANGES INTO customers\n"
      "  FROM STREAM read_files('" +
      landing +
      "', format => 'json',\n"
      "    schema => 'id BIGINT, name STRING, city STRING, op STRING, seq BIGINT')\n"
      "  KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq\n"
      "  COLUMNS * EXCEPT (op, seq, _rescued_data) STORED AS SCD TYPE 1;\n";
  auto run = [&]() -> Status {
    PipelineOptions options;
    options.checkpoint_root = dir_.Join("pipeline_checkpoints");
    TRIBUTARY_ASSIGN_OR_RAISE(auto pipeline, Pipeline::Parse(session_, sql, options));
    return pipeline->Run();
  };
  write("1.json", R"({"id":1,"name":"Ada","city":"London","op":"UPSERT","seq":1})"
                  "\n"
                  R"({"id":2,"name":"Bob","city":"Paris","op":"UPSERT","seq":1})"
                  "\n"
                  R"({"id":1,"name":"Ada","city":"Cambridge","op":"UPSERT","seq":3})"
                  "\n");
  ASSERT_OK(run());
  EXPECT_THAT(Rows("SELECT * FROM customers"),
              ElementsAre(R"({"id":1,"name":"Ada","city":"Cambridge"})",
                          R"({"id":2,"name":"Bob","city":"Paris"})"));
  // A late update of 1 (seq 2 < 3), a delete of 2, a new 3, and an update of 2 older than
  // its delete.
  write("2.json", R"({"id":1,"name":"Ada","city":"Oxford","op":"UPSERT","seq":2})"
                  "\n"
                  R"({"id":2,"op":"DELETE","seq":2})"
                  "\n"
                  R"({"id":3,"name":"Cy","city":"Oslo","op":"UPSERT","seq":1})"
                  "\n"
                  R"({"id":2,"name":"Bob","city":"Lyon","op":"UPSERT","seq":1})"
                  "\n");
  ASSERT_OK(run());
  EXPECT_THAT(Rows("SELECT * FROM customers"),
              ElementsAre(R"({"id":1,"name":"Ada","city":"Cambridge"})",
                          R"({"id":3,"name":"Cy","city":"Oslo"})"));
  EXPECT_THAT(
      Rows("SELECT id, city, _change_type, _commit_version "
           "FROM table_changes('customers', 1)"),
      ElementsAre(R"({"id":1,"city":"Cambridge","_change_type":"insert","_commit_version":1})",
                  R"({"id":2,"city":"Paris","_change_type":"delete","_commit_version":2})",
                  R"({"id":2,"city":"Paris","_change_type":"insert","_commit_version":1})",
                  R"({"id":3,"city":"Oslo","_change_type":"insert","_commit_version":2})"));
  // A downstream stream reads the same changes from the target's change data feed.
  auto changes = session_->ReadStream()
                     .Format("delta")
                     .Option("readChangeFeed", "true")
                     .Option("startingVersion", "1")
                     .Table("customers")
                     .Select({"id", "city", "_change_type", "_commit_version"})
                     .WriteStream()
                     .Format("memory")
                     .QueryName("customer_changes")
                     .Trigger(Trigger::AvailableNow())
                     .Option("checkpointLocation", dir_.Join("checkpoints/customer_changes"))
                     .Start();
  ASSERT_OK(changes.status());
  ASSERT_OK(changes->AwaitTermination());
  EXPECT_EQ(Rows("SELECT * FROM customer_changes"),
            Rows("SELECT id, city, _change_type, _commit_version "
                 "FROM table_changes('customers', 1)"));

  auto undeclared = Pipeline::Parse(session_,
                                    "AUTO CDC INTO t FROM STREAM(events) KEYS (id) "
                                    "SEQUENCE BY seq");
  EXPECT_THAT(undeclared.status().ToString(),
              HasSubstr("the target needs a CREATE STREAMING TABLE t without a query"));
}

// foreachBatch with MERGE (Delta's documented pattern): each batch's MERGE runs with the
// session settings txnAppId/txnVersion = batch id, so a batch the engine runs again after a
// restart finds its version in the table and the MERGE changes nothing. The MERGE adds the
// source's seq to a running total, so a second effect would show.
TEST_F(AutoCdcTest, ForeachBatchMergeWithTxnSettingsIsIdempotent) {
  ASSERT_OK(session_->Sql("CREATE TABLE totals (id BIGINT, total BIGINT)").Collect().status());
  std::vector<int64_t> calls;
  std::vector<int64_t> updated;
  auto upsert = [&](const DataFrame& batch, int64_t batch_id) -> Status {
    calls.push_back(batch_id);
    // As spark.conf.set(...) before the MERGE: a session with the two settings.
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto txn_session,
        Session::Builder()
            .Warehouse(session_->WarehouseDirectory())
            .TimeZone("UTC")
            .Config("spark.databricks.delta.write.txnAppId", "totals-upsert")
            .Config("spark.databricks.delta.write.txnVersion", std::to_string(batch_id))
            .Build());
    TRIBUTARY_ASSIGN_OR_RAISE(DeltaTable totals, DeltaTable::ForName(*txn_session, "totals"));
    TRIBUTARY_ASSIGN_OR_RAISE(DataFrame metrics,
                              totals.As("t")
                                  .Merge(batch.Select({"id", "seq"}).Alias("s"), "t.id = s.id")
                                  .WhenMatched()
                                  .UpdateExpr({{"total", "t.total + s.seq"}})
                                  .WhenNotMatched()
                                  .InsertExpr({{"id", "s.id"}, {"total", "s.seq"}})
                                  .Execute());
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, metrics.Collect());
    updated.push_back(
        rows.empty() ? -1 : rows[0].ToJson().find("\"num_affected_rows\":0") == std::string::npos);
    return Status::OK();
  };
  const std::string checkpoint = dir_.Join("checkpoints/totals");
  auto run = [&]() -> Status {
    TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query, session_->ReadStream()
                                                        .Table("events")
                                                        .WriteStream()
                                                        .ForeachBatch(upsert)
                                                        .Option("checkpointLocation", checkpoint)
                                                        .Trigger(Trigger::AvailableNow())
                                                        .Start());
    return query.AwaitTermination();
  };
  Insert("(1, 'a', 'Paris', 'UPSERT', 10), (2, 'b', 'Rome', 'UPSERT', 20)");
  ASSERT_OK(run());
  Insert("(1, 'a', 'Paris', 'UPSERT', 5)");
  ASSERT_OK(run());
  const std::vector<std::string> rows = Rows("SELECT * FROM totals");
  EXPECT_THAT(rows, ElementsAre(R"({"id":1,"total":15})", R"({"id":2,"total":20})"));
  const int64_t versions = Rows("DESCRIBE HISTORY totals").size();

  // The batch's commit is lost: the restarted query hands batch 1 to the function again.
  std::filesystem::remove(storage::JoinPath(checkpoint, "commits/1"));
  ASSERT_OK(run());
  EXPECT_THAT(calls, ElementsAre(0, 1, 1));
  EXPECT_THAT(updated, ElementsAre(1, 1, 0));
  EXPECT_EQ(Rows("SELECT * FROM totals"), rows);
  EXPECT_EQ(static_cast<int64_t>(Rows("DESCRIBE HISTORY totals").size()), versions);
}

}  // namespace
}  // namespace tributary

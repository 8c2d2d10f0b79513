#include "sql/binder.h"

#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/table_writes.h"
#include "exec/operator.h"
#include "plan/optimizer.h"
#include "plan/physical_planner.h"
#include "sql/parser.h"
#include "storage/local_file_system.h"
#include "support/memory_limit.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"

namespace tributary::sql {
namespace {

class BinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The death tests run their statement in a fresh process (the test re-run up to it), not
    // in a fork of this one, whose other threads a fork would leave behind mid-operation.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    char pattern[] = "/tmp/tributary_sql_binder_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    catalog_.fs = &fs_;
    catalog_.warehouse = dir_ + "/warehouse";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<std::vector<std::string>> Execute(const plan::LogicalPlanPtr& plan) {
    exec::ExecContext context;
    context.fs = &fs_;
    TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr optimized, plan::Optimize(plan, context.eval));
    TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root,
                              plan::CreatePhysicalPlan(*optimized, context));
    TRIBUTARY_ASSIGN_OR_RAISE(auto batches, exec::Drain(*root));
    std::vector<std::string> rows;
    for (const auto& batch : batches) {
      for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

  // Runs one statement: a query returns its rows as canonical JSON; CREATE TABLE and INSERT
  // are written as the API's session writes them (their result is no rows).
  Result<std::vector<std::string>> Run(std::string_view text) {
    TRIBUTARY_ASSIGN_OR_RAISE(Statement statement, ParseStatement(text));
    TRIBUTARY_ASSIGN_OR_RAISE(BoundStatement bound, Bind(statement, catalog_));
    if (bound.kind == BoundKind::kQuery) {
      return Execute(bound.plan);
    }
    delta::TableWriteOptions options;
    std::vector<columnar::RecordBatchPtr> batches;
    columnar::SchemaPtr schema = bound.schema;
    if (bound.plan != nullptr) {
      exec::ExecContext context;
      context.fs = &fs_;
      TRIBUTARY_ASSIGN_OR_RAISE(auto optimized, plan::Optimize(bound.plan, context.eval));
      TRIBUTARY_ASSIGN_OR_RAISE(auto root, plan::CreatePhysicalPlan(*optimized, context));
      TRIBUTARY_ASSIGN_OR_RAISE(batches, exec::Drain(*root));
      schema = bound.plan->Schema();
    }
    if (bound.kind == BoundKind::kCreateTable) {
      options.mode =
          bound.create.if_not_exists ? delta::SaveMode::kIgnore : delta::SaveMode::kErrorIfExists;
      options.partition_by = bound.create.partition_by;
      options.properties.insert(bound.create.properties.begin(), bound.create.properties.end());
    } else if (bound.kind == BoundKind::kInsert) {
      options.mode =
          bound.insert.overwrite ? delta::SaveMode::kOverwrite : delta::SaveMode::kAppend;
    } else {
      return Status::NotImplemented("DROP TABLE is the session's");
    }
    TRIBUTARY_RETURN_NOT_OK(delta::WriteTable(fs_, bound.path, schema, batches, options).status());
    return std::vector<std::string>{};
  }

  std::string ErrorOf(std::string_view text) {
    auto rows = Run(text);
    EXPECT_FALSE(rows.ok()) << text;
    return rows.ok() ? "" : rows.status().ToString();
  }

  // Ends a death test's child. In the "threadsafe" style the child ran SetUp itself, so the
  // directory it removes is its own, not the parent's.
  [[noreturn]] void EndDeathTestChild(int code) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    std::_Exit(code);
  }

  void CreateEvents() {
    ASSERT_OK(
        Run("CREATE TABLE events (id BIGINT, status STRING, amount DECIMAL(10,2)) "
            "USING DELTA PARTITIONED BY (status)"));
    ASSERT_OK(
        Run("INSERT INTO events VALUES (1, 'new', 10.5), (2, 'done', 3), "
            "(3, 'new', 1.25), (4, NULL, 7)"));
  }

  storage::LocalFileSystem fs_;
  std::string dir_;
  plan::Catalog catalog_;
};

using Rows = std::vector<std::string>;

TEST_F(BinderTest, SelectWithoutFromAndValues) {
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT 1 + 1 AS two, 'x' || 'y' AS xy"));
  EXPECT_EQ(rows, (Rows{R"j({"two":2,"xy":"xy"})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("VALUES (1, 'a'), (2, NULL)"));
  EXPECT_EQ(rows, (Rows{R"j({"col1":1,"col2":"a"})j", R"j({"col1":2,"col2":null})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT col2 AS s FROM (VALUES (1, 'a'), (2, 'b')) v "
                                 "WHERE v.col1 > 1"));
  EXPECT_EQ(rows, (Rows{R"j({"s":"b"})j"}));
}

TEST_F(BinderTest, CreateInsertAndQueryATableByName) {
  CreateEvents();
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT id, amount FROM events WHERE status = 'new' "
                                      "ORDER BY id DESC"));
  EXPECT_EQ(rows, (Rows{R"j({"id":3,"amount":"1.25"})j", R"j({"id":1,"amount":"10.50"})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT status, count(*) AS n, sum(amount) AS total FROM events "
                                 "GROUP BY 1 HAVING count(*) >= 1 ORDER BY 1 NULLS LAST"));
  EXPECT_EQ(rows, (Rows{R"j({"status":"done","n":1,"total":"3.00"})j",
                        R"j({"status":"new","n":2,"total":"11.75"})j",
                        R"j({"status":null,"n":1,"total":"7.00"})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT upper(status) AS s FROM events GROUP BY s ORDER BY s "
                                 "LIMIT 1"));
  EXPECT_EQ(rows, (Rows{R"j({"s":null})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM events VERSION AS OF 0"));
  EXPECT_EQ(rows, (Rows{R"j({"n":0})j"}));
}

TEST_F(BinderTest, InsertByColumnListFillsOthersWithNull) {
  CreateEvents();
  ASSERT_OK(Run("INSERT INTO events (status, id) SELECT 'late', 9"));
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT id, status, amount FROM events WHERE id = 9"));
  EXPECT_EQ(rows, (Rows{R"j({"id":9,"status":"late","amount":null})j"}));
  ASSERT_OK(Run("INSERT OVERWRITE events SELECT id, status, amount FROM events WHERE id < 3"));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM events"));
  EXPECT_EQ(rows, (Rows{R"j({"n":2})j"}));
  EXPECT_EQ(ErrorOf("INSERT INTO events VALUES (1, 'x')"),
            "Invalid argument: INSERT into events gives 2 columns, the table has 3 at line 1, "
            "column 20:\nINSERT INTO events VALUES (1, 'x')\n                   ^");
}

TEST_F(BinderTest, JoinsCtesAndUnions) {
  CreateEvents();
  const std::string labels =
      "WITH labels AS (SELECT col1 AS status, col2 AS label FROM (VALUES ('new', 'N'), "
      "('done', 'D'))) ";
  ASSERT_OK_AND_ASSIGN(Rows rows, Run(labels + "SELECT e.id, l.label FROM events e JOIN labels l "
                                               "ON e.status = l.status ORDER BY e.id"));
  EXPECT_EQ(rows, (Rows{R"j({"id":1,"label":"N"})j", R"j({"id":2,"label":"D"})j",
                        R"j({"id":3,"label":"N"})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run(labels + "SELECT id, label FROM events JOIN labels USING "
                                          "(status) ORDER BY id"));
  EXPECT_EQ(rows.size(), 3u);
  ASSERT_OK_AND_ASSIGN(rows, Run(labels + "SELECT e.id, l.label FROM events e LEFT JOIN labels l "
                                          "ON e.status = l.status WHERE e.id = 4"));
  EXPECT_EQ(rows, (Rows{R"j({"id":4,"label":null})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run(labels + "SELECT id FROM events LEFT ANTI JOIN labels USING "
                                          "(status)"));
  EXPECT_EQ(rows, (Rows{R"j({"id":4})j"}));
  ASSERT_OK_AND_ASSIGN(rows,
                       Run("SELECT id FROM events WHERE id < 2 UNION ALL SELECT 10 ORDER BY id"));
  EXPECT_EQ(rows, (Rows{R"j({"id":1})j", R"j({"id":10})j"}));
  ASSERT_OK_AND_ASSIGN(rows,
                       Run("SELECT status FROM events WHERE status = 'new' UNION SELECT 'new'"));
  EXPECT_EQ(rows, (Rows{R"j({"status":"new"})j"}));
}

TEST_F(BinderTest, InAndExistsSubqueriesInWhereAreSemiAndAntiJoins) {
  CreateEvents();
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT id FROM events WHERE id IN (SELECT col1 FROM "
                                      "(VALUES 2, 3, 5)) AND status = 'new'"));
  EXPECT_EQ(rows, (Rows{R"j({"id":3})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM events WHERE EXISTS (SELECT 1)"));
  EXPECT_EQ(rows, (Rows{R"j({"n":4})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM events WHERE NOT EXISTS (SELECT 1)"));
  EXPECT_EQ(rows, (Rows{R"j({"n":0})j"}));
  EXPECT_NE(ErrorOf("SELECT id FROM events WHERE id IN (SELECT 1, 2)")
                .find("the IN subquery returns 2 columns; it must return one at line 1, column 32"),
            std::string::npos);
}

TEST_F(BinderTest, DescribeAndShowTables) {
  CreateEvents();
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("DESCRIBE events"));
  EXPECT_EQ(rows, (Rows{R"j({"col_name":"id","data_type":"bigint","comment":""})j",
                        R"j({"col_name":"status","data_type":"string","comment":""})j",
                        R"j({"col_name":"amount","data_type":"decimal(10,2)","comment":""})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SHOW TABLES"));
  EXPECT_EQ(rows, (Rows{R"j({"namespace":"default","tableName":"events","isTemporary":false})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SHOW TABLES LIKE 'x*|ev*'"));
  EXPECT_EQ(rows.size(), 1u);
  ASSERT_OK_AND_ASSIGN(rows, Run("SHOW TABLES LIKE 'x*'"));
  EXPECT_TRUE(rows.empty());
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM (SELECT 1) t"));
  EXPECT_EQ(rows, (Rows{R"j({"n":1})j"}));
}

TEST_F(BinderTest, ErrorsPointAtTheSqlText) {
  CreateEvents();
  EXPECT_NE(ErrorOf("SELECT id, nope + 1 FROM events")
                .find("at line 1, column 12:\nSELECT id, nope + 1 FROM events\n           ^"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT id\nFROM events\nWHERE staus = 'new'").find("at line 3, column 7"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM missing")
                .find("at line 1, column 15:\nSELECT * FROM missing\n"
                      "              ^"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("SELECT * FROM events a JOIN events b ON a.id IN (SELECT 1)"),
            "Not implemented: only [NOT] EXISTS and [NOT] IN subqueries in WHERE and SELECT and "
            "scalar subqueries in SELECT, WHERE and HAVING are supported at line 1, column 46:\n"
            "SELECT * FROM events a JOIN events b ON a.id IN (SELECT 1)\n"
            "                                             ^");
  EXPECT_NE(ErrorOf("SELECT * FROM read_file('/x')").find("(did you mean read_files?)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM read_files('/x')").find("read_files needs format =>"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT id FROM events ORDER BY 3")
                .find("ORDER BY position 3 is not in the "
                      "select list (1 to 1)"),
            std::string::npos);
}

TEST_F(BinderTest, ReadFilesAndFormatPaths) {
  const std::string path = dir_ + "/landing";
  std::filesystem::create_directories(path);
  std::ofstream(path + "/a.json") << "{\"a\": 1, \"b\": \"x\"}\n{\"a\": 2, \"b\": \"y\"}\n";
  ASSERT_OK_AND_ASSIGN(
      Rows rows, Run("SELECT a, b FROM read_files('" + path + "', format => 'json') WHERE a > 1"));
  EXPECT_EQ(rows, (Rows{R"j({"a":2,"b":"y"})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT sum(a) AS s FROM json.`" + path + "`"));
  EXPECT_EQ(rows, (Rows{R"j({"s":3})j"}));
}

// The plan's stream sources' descriptions, leaves first from the left.
void StreamDescriptions(const plan::LogicalPlan& node, std::vector<std::string>* out) {
  if (node.Kind() == plan::PlanKind::kScan) {
    const auto& scan = static_cast<const plan::ScanNode&>(node);
    if (scan.Source().kind == plan::ScanSource::Kind::kStream) {
      out->push_back(scan.Source().description);
    }
  }
  for (const plan::LogicalPlanPtr& input : node.Inputs()) {
    StreamDescriptions(*input, out);
  }
}

TEST_F(BinderTest, StreamingTableBindsItsStreamsPathPartitioningAndProperties) {
  CreateEvents();
  const std::string landing = dir_ + "/landing";
  std::filesystem::create_directories(landing);
  ASSERT_OK_AND_ASSIGN(
      Statement statement,
      ParseStatement("CREATE OR REFRESH STREAMING TABLE active PARTITIONED BY (status) "
                     "TBLPROPERTIES ('delta.appendOnly' = 'true') AS SELECT e.id, e.status, f.note "
                     "FROM STREAM(events) e LEFT JOIN STREAM read_files('" +
                     landing +
                     "', format => 'json', schema => 'id BIGINT, note STRING', "
                     "maxFilesPerTrigger => 1) f ON e.id = f.id WHERE e.status = 'new'"));
  // Two streams outer joined without watermarks are refused by the streaming layer's check,
  // naming why.
  auto joined = Bind(statement, catalog_);
  ASSERT_FALSE(joined.ok());
  EXPECT_NE(joined.status().Message().find("Stream-stream LeftOuter join between two streaming "
                                           "DataFrame/Datasets is not supported without a "
                                           "watermark"),
            std::string::npos)
      << joined.status().ToString();

  ASSERT_OK_AND_ASSIGN(
      statement,
      ParseStatement("CREATE OR REFRESH STREAMING TABLE active PARTITIONED BY (status) "
                     "TBLPROPERTIES ('delta.appendOnly' = 'true') AS SELECT e.id, e.status "
                     "FROM STREAM(events) e WHERE e.status = 'new'"));
  ASSERT_OK_AND_ASSIGN(BoundStatement bound, Bind(statement, catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kCreateStreamingTable);
  EXPECT_EQ(bound.path, catalog_.warehouse + "/active");
  ASSERT_NE(bound.plan, nullptr);
  EXPECT_TRUE(bound.plan->IsStreaming());
  EXPECT_EQ(bound.plan->Schema()->ToString(), "id: bigint\nstatus: string\n");
  EXPECT_EQ(bound.create.partition_by, (std::vector<std::string>{"status"}));
  ASSERT_EQ(bound.create.properties.size(), 1u);
  EXPECT_EQ(bound.create.properties[0].first, "delta.appendOnly");
  std::vector<std::string> streams;
  StreamDescriptions(*bound.plan, &streams);
  EXPECT_EQ(streams, (std::vector<std::string>{"DeltaSource[" + catalog_.warehouse + "/events]"}));

  ASSERT_OK_AND_ASSIGN(statement, ParseStatement("CREATE STREAMING TABLE raw AS SELECT * FROM "
                                                 "STREAM read_files('" +
                                                 landing +
                                                 "', format => 'csv', schema => 'a INT, b "
                                                 "STRING', header => true)"));
  ASSERT_OK_AND_ASSIGN(bound, Bind(statement, catalog_));
  // An Auto Loader source: the given columns and the rescued-data column.
  EXPECT_EQ(bound.plan->Schema()->NumFields(), 3);
  streams.clear();
  StreamDescriptions(*bound.plan, &streams);
  EXPECT_EQ(streams, (std::vector<std::string>{"CloudFilesSource[csv " + landing + "]"}));
}

TEST_F(BinderTest, StreamSourcesAreErrorsOutsideStreamingTables) {
  CreateEvents();
  EXPECT_NE(ErrorOf("SELECT * FROM STREAM(events)")
                .find("only the query of CREATE [OR REFRESH] STREAMING TABLE ... AS can do; drop "
                      "STREAM for a batch read at line 1, column 15"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM STREAM events").find("drop STREAM for a batch read"),
            std::string::npos);
  EXPECT_NE(ErrorOf("INSERT INTO events SELECT * FROM STREAM read_files('/x', format => "
                    "'json', schema => 'id BIGINT')")
                .find("drop STREAM for a batch read"),
            std::string::npos);
  EXPECT_NE(ErrorOf("CREATE TABLE copy AS SELECT * FROM STREAM(events)")
                .find("drop STREAM for a batch read"),
            std::string::npos);
}

TEST_F(BinderTest, StreamingTableErrorsNameTheCause) {
  CreateEvents();
  const auto bind_error = [&](const std::string& text) -> std::string {
    auto statement = ParseStatement(text);
    if (!statement.ok()) {
      return statement.status().ToString();
    }
    auto bound = Bind(*statement, catalog_);
    EXPECT_FALSE(bound.ok()) << text;
    return bound.ok() ? "" : bound.status().ToString();
  };
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s AS SELECT * FROM events")
                .find("the query of streaming table s reads no stream"),
            std::string::npos);
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s AS SELECT * FROM STREAM(nope)")
                .find("STREAM(nope): no Delta table at " + catalog_.warehouse + "/nope"),
            std::string::npos);
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s AS SELECT * FROM STREAM read_files('/x', "
                       "format => 'json')")
                .find("inferring the schema needs cloudFiles.schemaLocation"),
            std::string::npos);
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s AS SELECT status, count(*) FROM STREAM(events) "
                       "GROUP BY status")
                .find("streaming aggregations"),
            std::string::npos);
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s PARTITIONED BY (day) AS SELECT * FROM "
                       "STREAM(events)")
                .find("PARTITIONED BY column 'day' is not a column of the query"),
            std::string::npos);
  EXPECT_NE(bind_error("CREATE STREAMING TABLE s (id BIGINT) AS SELECT id FROM STREAM(events)")
                .find("a column list on CREATE STREAMING TABLE is not supported yet"),
            std::string::npos);
}

// The first WatermarkNode of `node`'s tree, or null.
const plan::WatermarkNode* FindWatermark(const plan::LogicalPlan& node) {
  if (node.Kind() == plan::PlanKind::kWatermark) {
    return &node.As<plan::WatermarkNode>();
  }
  for (const plan::LogicalPlanPtr& input : node.Inputs()) {
    if (const plan::WatermarkNode* found = FindWatermark(*input)) {
      return found;
    }
  }
  return nullptr;
}

TEST_F(BinderTest, WatermarkClauseMarksTheEventTimeAndDelay) {
  ASSERT_OK(Run("CREATE TABLE clicks (id BIGINT, ts TIMESTAMP, raw STRING) USING DELTA"));
  ASSERT_OK(
      Run("INSERT INTO clicks VALUES (1, TIMESTAMP '2024-05-01 10:00:00', "
          "'2024-05-01 10:00:05'), (2, TIMESTAMP '2024-05-01 11:00:00', 'x')"));
  const auto bind = [&](const std::string& text) -> Result<plan::LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(Statement statement, ParseStatement(text));
    TRIBUTARY_ASSIGN_OR_RAISE(BoundStatement bound, Bind(statement, catalog_));
    return bound.plan;
  };

  // A column of the table, the alias after the clause qualifying it.
  const std::string by_column =
      "SELECT c.id FROM clicks WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS c ORDER BY c.id";
  ASSERT_OK_AND_ASSIGN(plan::LogicalPlanPtr plan, bind(by_column));
  const plan::WatermarkNode* watermark = FindWatermark(*plan);
  ASSERT_NE(watermark, nullptr);
  EXPECT_EQ(watermark->EventTimeColumn(), "ts");
  EXPECT_EQ(watermark->DelayMicros(), int64_t{10} * 60 * 1000 * 1000);
  // A batch query plans straight through it, as Spark ignores withWatermark in batch.
  ASSERT_OK_AND_ASSIGN(Rows rows, Run(by_column));
  EXPECT_EQ(rows, (Rows{R"j({"id":1})j", R"j({"id":2})j"}));

  // An expression becomes the named column, which the query can read.
  const std::string by_expression =
      "SELECT id, event FROM clicks WATERMARK to_timestamp(raw) AS event DELAY OF INTERVAL '1' "
      "HOUR WHERE clicks.event IS NOT NULL";
  ASSERT_OK_AND_ASSIGN(plan, bind(by_expression));
  watermark = FindWatermark(*plan);
  ASSERT_NE(watermark, nullptr);
  EXPECT_EQ(watermark->EventTimeColumn(), "event");
  EXPECT_EQ(watermark->DelayMicros(), int64_t{3600} * 1000 * 1000);
  EXPECT_EQ(watermark->Input().Schema()->FieldAt(watermark->EventTimeIndex()).Type()->Id(),
            columnar::TypeId::kTimestamp);

  // After a subquery, with a delay of several units.
  ASSERT_OK_AND_ASSIGN(plan, bind("SELECT * FROM (SELECT ts FROM clicks) WATERMARK ts DELAY OF "
                                  "INTERVAL 1 MINUTE 30 SECONDS q"));
  watermark = FindWatermark(*plan);
  ASSERT_NE(watermark, nullptr);
  EXPECT_EQ(watermark->DelayMicros(), int64_t{90} * 1000 * 1000);

  // In a streaming table, over STREAM(name) and STREAM read_files(...).
  const std::string landing = dir_ + "/landing";
  std::filesystem::create_directories(landing);
  ASSERT_OK_AND_ASSIGN(plan, bind("CREATE STREAMING TABLE late AS SELECT s.id FROM STREAM(clicks) "
                                  "WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS s"));
  EXPECT_TRUE(plan->IsStreaming());
  watermark = FindWatermark(*plan);
  ASSERT_NE(watermark, nullptr);
  EXPECT_EQ(watermark->EventTimeColumn(), "ts");
  EXPECT_EQ(watermark->DelayMicros(), int64_t{10} * 60 * 1000 * 1000);
  ASSERT_OK_AND_ASSIGN(plan, bind("CREATE STREAMING TABLE landed AS SELECT * FROM STREAM "
                                  "read_files('" +
                                  landing +
                                  "', format => 'json', schema => 'id BIGINT, at TIMESTAMP') "
                                  "WATERMARK at DELAY OF INTERVAL 5 SECONDS"));
  watermark = FindWatermark(*plan);
  ASSERT_NE(watermark, nullptr);
  EXPECT_EQ(watermark->EventTimeColumn(), "at");
  EXPECT_EQ(watermark->DelayMicros(), int64_t{5} * 1000 * 1000);

  // Errors, placed at the event time: a column the relation lacks, one that is no timestamp, a
  // negative delay.
  const std::string missing =
      ErrorOf("SELECT * FROM clicks WATERMARK nope DELAY OF INTERVAL 1 MINUTE");
  EXPECT_NE(missing.find("nope"), std::string::npos) << missing;
  EXPECT_NE(missing.find("line 1, column 32"), std::string::npos) << missing;
  const std::string not_timestamp =
      ErrorOf("SELECT * FROM clicks WATERMARK raw DELAY OF INTERVAL 1 MINUTE");
  EXPECT_NE(not_timestamp.find("[EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE] The event time `raw` has "
                               "the invalid type \"STRING\", but expected \"TIMESTAMP\"."),
            std::string::npos)
      << not_timestamp;
  EXPECT_NE(not_timestamp.find("line 1, column 32"), std::string::npos) << not_timestamp;
  EXPECT_NE(ErrorOf("SELECT * FROM clicks WATERMARK id + 1 AS n DELAY OF INTERVAL 1 MINUTE")
                .find("EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM clicks WATERMARK ts DELAY OF INTERVAL -1 MINUTE")
                .find("should not be negative"),
            std::string::npos);
  // A bad interval is the parser's error.
  EXPECT_NE(ErrorOf("SELECT * FROM clicks WATERMARK ts DELAY OF INTERVAL 1 MONTH").find("MONTH"),
            std::string::npos);
}

// GROUP BY window(ts, ...): Spark's TimeWindowing names the window column `window`, which the
// SELECT list reads; a sliding window puts a row in each of its windows.
TEST_F(BinderTest, GroupByTimeWindowReadsTheWindowColumn) {
  ASSERT_OK(Run("CREATE TABLE clicks (id BIGINT, ts TIMESTAMP) USING DELTA"));
  ASSERT_OK(
      Run("INSERT INTO clicks VALUES (1, TIMESTAMP '2024-05-01 10:00:10'), "
          "(2, TIMESTAMP '2024-05-01 10:00:50'), (3, TIMESTAMP '2024-05-01 10:01:05')"));
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT window, count(*) AS n FROM clicks GROUP BY "
                                      "window(ts, '1 minute') ORDER BY window"));
  EXPECT_EQ(
      rows,
      (Rows{
          R"j({"window":{"start":"2024-05-01T10:00:00.000000Z","end":"2024-05-01T10:01:00.000000Z"},"n":2})j",
          R"j({"window":{"start":"2024-05-01T10:01:00.000000Z","end":"2024-05-01T10:02:00.000000Z"},"n":1})j"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT w.window.start AS s, w.total FROM (SELECT window, sum(id) "
                                 "AS total FROM clicks WATERMARK ts DELAY OF INTERVAL 1 MINUTE "
                                 "GROUP BY window(ts, '1 minute', '30 seconds')) w ORDER BY s"));
  EXPECT_EQ(rows, (Rows{R"j({"s":"2024-05-01T09:59:30.000000Z","total":1})j",
                        R"j({"s":"2024-05-01T10:00:00.000000Z","total":3})j",
                        R"j({"s":"2024-05-01T10:00:30.000000Z","total":5})j",
                        R"j({"s":"2024-05-01T10:01:00.000000Z","total":3})j"}));
  // Fields of the grouped window struct, as Spark reads them.
  ASSERT_OK_AND_ASSIGN(rows,
                       Run("SELECT window.start AS minute, window.end AS until, count(*) "
                           "AS n FROM clicks GROUP BY window(ts, '1 minute') ORDER BY minute"));
  EXPECT_EQ(
      rows,
      (Rows{
          R"j({"minute":"2024-05-01T10:00:00.000000Z","until":"2024-05-01T10:01:00.000000Z","n":2})j",
          R"j({"minute":"2024-05-01T10:01:00.000000Z","until":"2024-05-01T10:02:00.000000Z","n":1})j"}));
  const auto ungrouped = Run("SELECT window.start, ts FROM clicks GROUP BY window(ts, '1 minute')");
  ASSERT_FALSE(ungrouped.ok());
  EXPECT_NE(ungrouped.status().Message().find(
                "[MISSING_AGGREGATION] The non-aggregating expression \"ts\""),
            std::string::npos)
      << ungrouped.status().ToString();
}

TEST_F(BinderTest, ReferencedTablesSkipWithNamesAndSeeSubqueries) {
  ASSERT_OK_AND_ASSIGN(
      Statement statement,
      ParseStatement("CREATE STREAMING TABLE g AS WITH recent AS (SELECT * FROM STREAM(Silver)) "
                     "SELECT r.* FROM recent r JOIN dims d ON r.k = d.k WHERE r.k IN (SELECT k "
                     "FROM allowed) UNION ALL SELECT * FROM (SELECT * FROM STREAM extra) x"));
  std::vector<std::string> tables = ReferencedTables(statement);
  std::sort(tables.begin(), tables.end());
  EXPECT_EQ(tables, (std::vector<std::string>{"allowed", "dims", "extra", "silver"}));
}

// "<first>" followed by `count` copies of `unit`.
std::string Repeat(std::string_view first, std::string_view unit, int count) {
  std::string text(first);
  for (int i = 0; i < count; ++i) {
    text += unit;
  }
  return text;
}

// WITH c1 AS (... FROM c0), c2 AS (... FROM c1), ...: a plan as deep as the chain is long.
std::string WithChain(int count) {
  std::string text = "WITH c0 AS (SELECT 1 AS x)";
  for (int i = 1; i < count; ++i) {
    text +=
        ", c" + std::to_string(i) + " AS (SELECT x + 1 AS x FROM c" + std::to_string(i - 1) + ")";
  }
  return text + " SELECT x FROM c" + std::to_string(count - 1);
}

// The issue's statements: before the height limit, binding and optimizing them recursed once
// per operator and overflowed the stack. Each runs in a child process (a crash fails the test
// rather than ending it) and must end in the parser's error, with its position.
TEST_F(BinderTest, LongChainsAreClearErrorsNotCrashes) {
  for (const std::string& text :
       {Repeat("SELECT 1", " + 1", 20000), Repeat("SELECT true", " AND true", 200000),
        Repeat("SELECT 'a'", " || 'a'", 100000), Repeat("SELECT 1", " UNION ALL SELECT 1", 5000),
        Repeat("SELECT 1 FROM (SELECT 1) t", " JOIN (SELECT 1) u ON true", 5000),
        WithChain(50000)}) {
    EXPECT_EXIT(
        {
          auto rows = Run(text);
          std::cerr << (rows.ok() ? std::string("no error")
                                  : rows.status().Message().substr(0, 140));
          EndDeathTestChild(0);
        },
        ::testing::ExitedWithCode(0), "too deep: more than 1000 nested operations .* at line 1,")
        << text.substr(0, 40);
  }
}

// Runs `body` on a thread with a `stack_bytes` stack.
void OnStack(size_t stack_bytes, const std::function<void()>& body) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  pthread_t thread;
  auto run = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, run, const_cast<std::function<void()>*>(&body)),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

// (a AND b) AND (c AND d) ... with 2^levels leaves: wide, but only `levels` deep as written.
std::string BalancedConjunction(int levels) {
  return levels == 0 ? "id > 0"
                     : "(" + BalancedConjunction(levels - 1) + " AND " +
                           BalancedConjunction(levels - 1) + ")";
}

// Statements just under the limit run through every pass (bind, plan, optimize, execute,
// free) on a thread with 8 MiB of stack, what the pipeline's threads get. Measured in the
// release build they need at most 1 MiB (a thousand unions or joins), so there is room. The
// IN list and the balanced conjunction are wide, not deep: binding and pushing filters down
// keep them so (an IN list of n values is log2(n) ORs deep). Under AddressSanitizer (-O1,
// redzones around every local) frames are several times larger: the statements get 64 MiB.
TEST_F(BinderTest, StatementsUnderTheHeightLimitRunOnAThreadStack) {
  constexpr size_t kStackBytes =
      testing::kUnderAddressSanitizer ? size_t{64} << 20 : size_t{8} << 20;
  CreateEvents();
  std::string in_list = "SELECT count(*) AS n FROM events WHERE id IN (0";
  for (int i = 1; i < 100000; ++i) {
    in_list += ", " + std::to_string(i);
  }
  in_list += ")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Repeat("SELECT 1", " + 1", 999) + " AS n", R"j({"n":1000})j"},
      {Repeat("SELECT count(*) AS n FROM events WHERE true", " AND true", 998), R"j({"n":4})j"},
      {"SELECT length(" + Repeat("'a'", " || 'a'", 998) + ") AS n", R"j({"n":999})j"},
      {"SELECT count(*) AS n FROM (" + Repeat("SELECT 1 AS c", " UNION ALL SELECT 1", 997) + ")",
       R"j({"n":998})j"},
      {"SELECT count(*) AS n FROM (" + Repeat("SELECT 1 AS c", " UNION SELECT 1", 332) + ")",
       R"j({"n":1})j"},
      {WithChain(490), R"j({"x":490})j"},
      {Repeat("SELECT count(*) AS n FROM (SELECT 1 AS c) t", " JOIN (SELECT 1 AS d) u ON true",
              997),
       R"j({"n":1})j"},
      {in_list, R"j({"n":4})j"},
      {"SELECT count(*) AS n FROM events WHERE " + BalancedConjunction(16), R"j({"n":4})j"}};
  for (const auto& item : cases) {
    const std::string& text = item.first;
    const std::string& expected = item.second;
    EXPECT_EXIT(
        {
          bool as_expected = false;
          OnStack(kStackBytes, [&] {
            auto rows = Run(text);
            as_expected = rows.ok() && *rows == Rows{expected};
            std::cerr << (rows.ok() ? (rows->empty() ? "no rows" : rows->front())
                                    : rows.status().Message().substr(0, 200));
          });
          EndDeathTestChild(as_expected ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "")
        << text.substr(0, 60);
  }
}

// A query runs under a pool with the session's limit (plan::kQueryMemoryLimitKey): past it,
// the query ends with an error naming the setting instead of taking the machine's memory.
// Columns it returned outlive the query's memory object (its pool goes with the last one).
TEST_F(BinderTest, QueriesRunUnderTheSessionsMemoryLimit) {
  const std::string key(plan::kQueryMemoryLimitKey);
  ASSERT_OK_AND_ASSIGN(auto memory, plan::QueryMemory::Make({{key, "64m"}}));
  EXPECT_EQ(memory->LimitBytes(), int64_t{64} << 20);
  EXPECT_GT(plan::QueryMemory::DefaultLimitBytes(), 0);
  ASSERT_OK_AND_ASSIGN(auto bytes, plan::QueryMemory::Make({{key, "1048576"}}));
  EXPECT_EQ(bytes->LimitBytes(), 1048576);
  for (const char* bad : {"lots", "0", "-5m", "12q", "99999999999t"}) {
    auto refused = plan::QueryMemory::Make({{key, bad}});
    ASSERT_RAISES(InvalidArgument, refused);
    EXPECT_NE(refused.status().Message().find(key), std::string::npos);
  }
  auto run = [&](const plan::QueryMemory& limit,
                 std::string_view text) -> Result<std::vector<columnar::RecordBatchPtr>> {
    TRIBUTARY_ASSIGN_OR_RAISE(Statement statement, ParseStatement(text));
    TRIBUTARY_ASSIGN_OR_RAISE(BoundStatement bound, Bind(statement, catalog_));
    exec::ExecContext context;
    limit.Attach(&context);
    TRIBUTARY_ASSIGN_OR_RAISE(auto optimized, plan::Optimize(bound.plan, context.eval));
    TRIBUTARY_ASSIGN_OR_RAISE(auto root, plan::CreatePhysicalPlan(*optimized, context));
    return exec::Drain(*root);
  };
  const int code = testing::RunUnderMemoryLimit(int64_t{256} << 20, [&] {
    auto huge = run(*memory, "SELECT length(lpad('a', 200000000, 'x')) AS n");
    return !huge.ok() && huge.status().IsIOError() &&
                   huge.status().Message().find(key + " = 67108864 bytes") != std::string::npos
               ? 0
               : 1;
  });
  EXPECT_EQ(code, 0);

  auto small = plan::QueryMemory::WithLimit(int64_t{64} << 20);
  ASSERT_OK_AND_ASSIGN(auto batches, run(*small, "SELECT lpad('a', 100000, 'x') AS s"));
  EXPECT_GT(small->Pool()->BytesAllocated(), 100000);
  small.reset();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0]->ColumnAt(0)->BytesAt(0).size(), 100000u);
  batches.clear();
}

// ---- DELETE, UPDATE, MERGE, AUTO CDC and flow targets ----

// The bound statement of `text`, or its error's text.
Result<BoundStatement> BindText(const std::string& text, const plan::Catalog& catalog,
                                const std::map<std::string, std::string>& config = {}) {
  TRIBUTARY_ASSIGN_OR_RAISE(Statement statement, ParseStatement(text));
  return Bind(statement, catalog, config);
}

std::string BindError(const std::string& text, const plan::Catalog& catalog,
                      const std::map<std::string, std::string>& config = {}) {
  auto bound = BindText(text, catalog, config);
  EXPECT_FALSE(bound.ok()) << text;
  return bound.ok() ? "" : bound.status().ToString();
}

TEST_F(BinderTest, DeleteAndUpdateBindTheirTableConditionAndColumns) {
  CreateEvents();
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("DELETE FROM events WHERE events.id > 2"));
  ASSERT_OK_AND_ASSIGN(BoundStatement bound, Bind(statement, catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kDelete);
  EXPECT_EQ(bound.path, catalog_.warehouse + "/events");
  EXPECT_EQ(bound.target_alias, "events");
  // The condition is the parsed node itself (its position stays known for run-time errors).
  EXPECT_EQ(bound.condition, std::get<Delete>(statement.body).where);

  ASSERT_OK_AND_ASSIGN(bound, BindText("DELETE FROM events", catalog_));
  EXPECT_EQ(bound.condition, nullptr);
  ASSERT_OK_AND_ASSIGN(
      bound,
      BindText("DELETE FROM delta.`" + catalog_.warehouse + "/events` WHERE id = 1", catalog_));
  EXPECT_EQ(bound.path, catalog_.warehouse + "/events");
  EXPECT_EQ(bound.target_alias, "");

  ASSERT_OK_AND_ASSIGN(
      bound, BindText("UPDATE events AS e SET e.STATUS = 'x', Amount = e.amount + 1 WHERE "
                      "e.id = 1",
                      catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kUpdate);
  EXPECT_EQ(bound.target_alias, "e");
  ASSERT_EQ(bound.assignments.size(), 2u);
  // SET columns as the table spells them, the qualifier dropped.
  EXPECT_EQ(bound.assignments[0].column, "status");
  EXPECT_EQ(bound.assignments[1].column, "amount");
  EXPECT_EQ(bound.assignments[1].value->ToString(), "(e.amount + 1)");
}

TEST_F(BinderTest, DeleteAndUpdateErrorsPointAtTheText) {
  CreateEvents();
  EXPECT_NE(BindError("DELETE FROM events WHERE staus = 'new'", catalog_)
                .find("at line 1, column 26:\nDELETE FROM events WHERE staus = 'new'\n"
                      "                         ^"),
            std::string::npos);
  const std::string missing = BindError("DELETE FROM nope WHERE id = 1", catalog_);
  EXPECT_EQ(missing.rfind("Not found", 0), 0u) << missing;
  EXPECT_NE(missing.find("at line 1, column 13"), std::string::npos) << missing;
  EXPECT_NE(BindError("DELETE FROM parquet.`/x` WHERE id = 1", catalog_)
                .find("only delta.`path` names a table here"),
            std::string::npos);
  EXPECT_EQ(BindError("UPDATE events SET nope = 1", catalog_),
            "Invalid argument: cannot resolve 'nope' in UPDATE given columns id, status, amount "
            "at line 1, column 19:\nUPDATE events SET nope = 1\n                  ^");
  EXPECT_NE(BindError("UPDATE events SET id.x = 1", catalog_).find("cannot resolve 'id.x'"),
            std::string::npos);
  EXPECT_EQ(BindError("UPDATE events SET status = 'a', STATUS = 'b'", catalog_),
            "Invalid argument: There is a conflict from these SET columns: [status, status] at "
            "line 1, column 33:\nUPDATE events SET status = 'a', STATUS = 'b'\n"
            "                                ^");
  EXPECT_NE(BindError("UPDATE events SET amount = nope + 1", catalog_).find("at line 1, column 28"),
            std::string::npos);
  EXPECT_NE(BindError("DELETE FROM events WHERE id + 1", catalog_).find("at line 1, column"),
            std::string::npos);
  EXPECT_NE(BindError("UPDATE events SET amount = (SELECT 1)", catalog_).find("subqueries"),
            std::string::npos);
}

TEST_F(BinderTest, MergeBindsEveryClauseOverTheSidesItSees) {
  CreateEvents();
  ASSERT_OK(Run("CREATE TABLE updates (id BIGINT, status STRING, note STRING)"));
  ASSERT_OK_AND_ASSIGN(
      BoundStatement bound,
      BindText("MERGE INTO events t USING updates ON t.id = updates.id "
               "WHEN MATCHED AND updates.status IS NULL THEN DELETE "
               "WHEN MATCHED THEN UPDATE SET t.status = updates.status, amount = t.amount * 2 "
               "WHEN NOT MATCHED THEN INSERT (id, status) VALUES (updates.id, updates.note) "
               "WHEN NOT MATCHED BY SOURCE AND t.amount > 5 THEN UPDATE SET status = 'stale'",
               catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kMerge);
  const plan::MergeSpec& spec = bound.merge;
  EXPECT_EQ(spec.target_path, catalog_.warehouse + "/events");
  EXPECT_EQ(bound.path, spec.target_path);
  EXPECT_EQ(spec.target_alias, "t");
  EXPECT_EQ(spec.source_alias, "updates");
  ASSERT_NE(spec.source, nullptr);
  EXPECT_EQ(spec.source->Schema()->ToString(), "id: bigint\nstatus: string\nnote: string\n");
  EXPECT_FALSE(spec.schema_evolution);
  ASSERT_EQ(spec.clauses.size(), 4u);
  EXPECT_EQ(spec.clauses[0].match, plan::MergeMatch::kMatched);
  EXPECT_EQ(spec.clauses[0].action, plan::MergeAction::kDelete);
  EXPECT_EQ(spec.clauses[1].action, plan::MergeAction::kUpdate);
  ASSERT_EQ(spec.clauses[1].assignments.size(), 2u);
  EXPECT_EQ(spec.clauses[1].assignments[0].column, "status");
  EXPECT_EQ(spec.clauses[2].match, plan::MergeMatch::kNotMatchedByTarget);
  EXPECT_EQ(spec.clauses[2].action, plan::MergeAction::kInsert);
  EXPECT_EQ(spec.clauses[2].assignments[1].column, "status");
  EXPECT_EQ(spec.clauses[2].assignments[1].value->ToString(), "updates.note");
  EXPECT_EQ(spec.clauses[3].match, plan::MergeMatch::kNotMatchedBySource);
  EXPECT_EQ(spec.clauses[3].condition->ToString(), "(t.amount > 5)");

  // A subquery source with an alias; INSERT * and UPDATE SET * take no columns here.
  ASSERT_OK_AND_ASSIGN(bound, BindText("MERGE INTO events USING (SELECT id, 'x' AS status, "
                                       "CAST(1 AS DECIMAL(10,2)) AS amount FROM updates) s ON "
                                       "events.id = s.id WHEN MATCHED THEN UPDATE SET * "
                                       "WHEN NOT MATCHED THEN INSERT *",
                                       catalog_));
  EXPECT_EQ(bound.merge.target_alias, "events");
  EXPECT_EQ(bound.merge.source_alias, "s");
  EXPECT_EQ(bound.merge.clauses[0].action, plan::MergeAction::kUpdateAll);
  EXPECT_TRUE(bound.merge.clauses[0].assignments.empty());
}

TEST_F(BinderTest, MergeErrorsPointAtTheText) {
  CreateEvents();
  ASSERT_OK(Run("CREATE TABLE updates (id BIGINT, status STRING, note STRING)"));
  const std::string head = "MERGE INTO events t USING updates s ON t.id = s.id ";
  // INSERT sees the source only, NOT MATCHED BY SOURCE the target only, as Delta.
  const std::string insert_target =
      BindError(head + "WHEN NOT MATCHED THEN INSERT (id) VALUES (t.id)", catalog_);
  EXPECT_NE(insert_target.find("at line 1, column 94"), std::string::npos) << insert_target;
  const std::string update_source =
      BindError(head + "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET status = s.status", catalog_);
  EXPECT_NE(update_source.find("at line 1, column 104"), std::string::npos) << update_source;
  EXPECT_NE(BindError("MERGE INTO events t USING updates s ON t.id = s.nope WHEN MATCHED THEN "
                      "DELETE",
                      catalog_)
                .find("at line 1, column 47"),
            std::string::npos);
  // `id` is on both sides: ambiguous, as in Spark.
  EXPECT_NE(BindError("MERGE INTO events t USING updates s ON id = s.id WHEN MATCHED THEN DELETE",
                      catalog_)
                .find("at line 1, column"),
            std::string::npos);
  EXPECT_EQ(BindError("MERGE INTO events USING updates s ON true WHEN MATCHED THEN UPDATE SET "
                      "note = 1",
                      catalog_),
            "Invalid argument: cannot resolve 'note' in UPDATE clause given columns id, status, "
            "amount at line 1, column 72:\n"
            "...events USING updates s ON true WHEN MATCHED THEN UPDATE SET note = 1\n"
            "                                                               ^");
  EXPECT_NE(
      BindError(head + "WHEN NOT MATCHED THEN INSERT (id, note) VALUES (s.id, s.note)", catalog_)
          .find("cannot resolve 'note' in INSERT clause"),
      std::string::npos);
  EXPECT_NE(BindError("MERGE INTO events t USING STREAM(updates) s ON t.id = s.id WHEN MATCHED "
                      "THEN DELETE",
                      catalog_)
                .find("drop STREAM for a batch read"),
            std::string::npos);
  EXPECT_NE(BindError(head + "WHEN MATCHED AND s.id IN (SELECT 1) THEN DELETE", catalog_)
                .find("subqueries"),
            std::string::npos);
  // With schema evolution (the clause or the session's autoMerge), a source column the target
  // lacks may be set.
  ASSERT_OK_AND_ASSIGN(BoundStatement bound,
                       BindText("MERGE WITH SCHEMA EVOLUTION INTO events t USING updates s ON "
                                "t.id = s.id WHEN MATCHED THEN UPDATE SET note = s.note",
                                catalog_));
  EXPECT_TRUE(bound.merge.schema_evolution);
  EXPECT_EQ(bound.merge.clauses[0].assignments[0].column, "note");
  EXPECT_OK(BindText(head + "WHEN NOT MATCHED THEN INSERT (id, note) VALUES (s.id, s.note)",
                     catalog_, {{"spark.databricks.delta.schema.autoMerge.enabled", "true"}})
                .status());
  EXPECT_NE(BindError("MERGE WITH SCHEMA EVOLUTION INTO events t USING updates s ON t.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET other = s.note",
                      catalog_)
                .find("cannot resolve 'other'"),
            std::string::npos);
}

TEST_F(BinderTest, AutoCdcBindsItsSourceAsAStream) {
  CreateEvents();
  ASSERT_OK_AND_ASSIGN(
      BoundStatement bound,
      BindText("CREATE FLOW f AS AUTO CDC INTO target FROM STREAM(events) KEYS (id) APPLY AS "
               "DELETE WHEN status = 'gone' SEQUENCE BY amount COLUMNS * EXCEPT (status)",
               catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kAutoCdc);
  EXPECT_EQ(bound.path, catalog_.warehouse + "/target");
  ASSERT_NE(bound.plan, nullptr);
  EXPECT_TRUE(bound.plan->IsStreaming());
  EXPECT_EQ(bound.auto_cdc.flow_name, "f");
  EXPECT_EQ(bound.auto_cdc.keys, std::vector<std::string>{"id"});
  std::vector<std::string> streams;
  StreamDescriptions(*bound.plan, &streams);
  EXPECT_EQ(streams, (std::vector<std::string>{"DeltaSource[" + catalog_.warehouse + "/events]"}));

  EXPECT_EQ(
      BindError("AUTO CDC INTO target FROM STREAM(events) KEYS (key) SEQUENCE BY amount", catalog_),
      "Invalid argument: KEYS column 'key' is not a column of the source (id, status, "
      "amount) at line 1, column 42:\nAUTO CDC INTO target FROM STREAM(events) KEYS (key) "
      "SEQUENCE BY amount\n                                         ^");
  EXPECT_NE(
      BindError("AUTO CDC INTO target FROM STREAM(events) KEYS (id) SEQUENCE BY seq", catalog_)
          .find("at line 1, column 64"),
      std::string::npos);
  EXPECT_NE(BindError("AUTO CDC INTO target FROM events KEYS (id) SEQUENCE BY amount", catalog_)
                .find("AUTO CDC reads its source as a stream"),
            std::string::npos);
  EXPECT_NE(BindError("AUTO CDC INTO target FROM STREAM(events) KEYS (id) SEQUENCE BY amount "
                      "COLUMNS * EXCEPT (id)",
                      catalog_)
                .find("KEYS column 'id' must be one of the target's COLUMNS"),
            std::string::npos);
  EXPECT_NE(BindError("AUTO CDC INTO target FROM STREAM(events) KEYS (id) SEQUENCE BY amount "
                      "STORED AS SCD TYPE 2 TRACK HISTORY ON nope",
                      catalog_)
                .find("TRACK HISTORY ON column 'nope' is not a column of the source"),
            std::string::npos);

  // The tables a flow reads are its source's, not its target.
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("AUTO CDC INTO target FROM STREAM(events) KEYS (id) "
                                      "SEQUENCE BY amount"));
  EXPECT_EQ(ReferencedTables(statement), std::vector<std::string>{"events"});
  ASSERT_OK_AND_ASSIGN(statement, ParseStatement("MERGE INTO events USING Updates u ON true "
                                                 "WHEN MATCHED THEN DELETE"));
  EXPECT_EQ(ReferencedTables(statement), std::vector<std::string>{"updates"});
}

TEST_F(BinderTest, StreamingTableWithoutQueryIsAFlowTarget) {
  ASSERT_OK_AND_ASSIGN(BoundStatement bound,
                       BindText("CREATE OR REFRESH STREAMING TABLE users", catalog_));
  EXPECT_EQ(bound.kind, BoundKind::kCreateStreamingTable);
  EXPECT_EQ(bound.path, catalog_.warehouse + "/users");
  EXPECT_EQ(bound.plan, nullptr);
  EXPECT_EQ(bound.schema, nullptr);
  ASSERT_OK_AND_ASSIGN(
      bound, BindText("CREATE OR REFRESH STREAMING TABLE users (id BIGINT NOT NULL, name STRING)",
                      catalog_));
  ASSERT_NE(bound.schema, nullptr);
  EXPECT_EQ(bound.schema->ToString(), "id: bigint not null\nname: string\n");
}

TEST_F(BinderTest, TableChangesReadsTheChangeFeedByVersionOrTimestamp) {
  ASSERT_OK(
      Run("CREATE TABLE feed (id BIGINT, v STRING) TBLPROPERTIES "
          "(delta.enableChangeDataFeed = true)"));
  ASSERT_OK(Run("INSERT INTO feed VALUES (1, 'a'), (2, 'b')"));
  ASSERT_OK(Run("INSERT INTO feed VALUES (3, 'c')"));
  ASSERT_OK_AND_ASSIGN(Rows rows, Run("SELECT c.id, c._change_type, c._commit_version FROM "
                                      "table_changes('feed', 1) AS c ORDER BY id"));
  EXPECT_EQ(rows, (Rows{R"({"id":1,"_change_type":"insert","_commit_version":1})",
                        R"({"id":2,"_change_type":"insert","_commit_version":1})",
                        R"({"id":3,"_change_type":"insert","_commit_version":2})"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT id FROM table_changes('feed', 2, 2)"));
  EXPECT_EQ(rows, (Rows{R"({"id":3})"}));
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT id FROM table_changes('delta.`" + catalog_.warehouse +
                                 "/feed`', 1, 1) ORDER BY id"));
  EXPECT_EQ(rows, (Rows{R"({"id":1})", R"({"id":2})"}));
  // A timestamp string: the commits at or after it (here every one).
  ASSERT_OK_AND_ASSIGN(rows, Run("SELECT count(*) AS n FROM table_changes('feed', '2000-01-01')"));
  EXPECT_EQ(rows, (Rows{R"({"n":3})"}));
}

TEST_F(BinderTest, TableChangesArgumentsAreChecked) {
  CreateEvents();
  EXPECT_NE(ErrorOf("SELECT * FROM table_changes('events')")
                .find("table_changes takes 2 or 3 arguments (table, start[, end]), got 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM table_changes(events, 0)")
                .find("table_changes' first argument is the table's name as a string at line 1, "
                      "column 29"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM table_changes('events', 1.5)")
                .find("table_changes' start is a version (an integer) or a timestamp string"),
            std::string::npos);
  EXPECT_NE(ErrorOf("SELECT * FROM table_changes('nope', 0)").find("Not found"), std::string::npos);
  EXPECT_NE(
      ErrorOf("SELECT * FROM table_chnges('events', 0)").find("(did you mean table_changes?)"),
      std::string::npos);
}

}  // namespace
}  // namespace tributary::sql

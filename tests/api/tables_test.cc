// Warehouse tables by name through SQL and the DataFrame writer: external tables registered in
// the warehouse's catalog (and still there for the next session), reserved warehouse names, and
// table properties that turn on features this writer does not write yet.

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/data_sources.h"
#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TablesTest : public ::testing::Test {
 protected:
  std::shared_ptr<Session> NewSession() const {
    auto session = Session::Builder().Warehouse(warehouse_).TimeZone("UTC").Build();
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    return session.ok() ? *session : nullptr;
  }

  static std::vector<std::string> Rows(Session& session, const std::string& sql) {
    auto rows = session.Sql(sql).Collect();
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Join("warehouse");
  std::string elsewhere_ = dir_.Join("elsewhere/events");
};

TEST_F(TablesTest, ExternalTableIsRegisteredForThisAndLaterSessions) {
  auto session = NewSession();
  ASSERT_OK(
      session->Sql("CREATE TABLE events (id BIGINT) USING DELTA LOCATION '" + elsewhere_ + "'")
          .Status());
  EXPECT_TRUE(std::filesystem::exists(elsewhere_ + "/_delta_log"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/events"));
  ASSERT_OK(session->Sql("INSERT INTO events VALUES (1)").Status());
  EXPECT_THAT(Rows(*session, "SELECT * FROM events"), ElementsAre(R"({"id":1})"));

  // A new session (as a new process would) finds the table by its name.
  auto later = NewSession();
  ASSERT_OK(later->Sql("INSERT INTO Events VALUES (2)").Status());
  EXPECT_THAT(Rows(*later, "SELECT * FROM events"), ElementsAre(R"({"id":1})", R"({"id":2})"));
  ASSERT_OK_AND_ASSIGN(auto tables, later->ListTables());
  EXPECT_THAT(tables, ElementsAre("events"));
  EXPECT_THAT(Rows(*later, "SHOW TABLES"),
              ElementsAre(R"({"namespace":"default","tableName":"events","isTemporary":false})"));
  auto again = later->Sql("CREATE TABLE events (id BIGINT) USING DELTA").Status();
  ASSERT_RAISES(AlreadyExists, again);

  // DROP forgets the name and keeps the files; naming the location registers them again.
  ASSERT_OK(later->Sql("DROP TABLE events").Status());
  EXPECT_TRUE(std::filesystem::exists(elsewhere_ + "/_delta_log"));
  ASSERT_RAISES(NotFound, later->Sql("SELECT * FROM events").Collect());
  ASSERT_OK(later->Sql("CREATE TABLE events USING DELTA LOCATION '" + elsewhere_ + "'").Status());
  EXPECT_THAT(Rows(*later, "SELECT * FROM events"), ElementsAre(R"({"id":1})", R"({"id":2})"));
}

TEST_F(TablesTest, CheckpointRootIsAReservedName) {
  auto session = NewSession();
  auto created = session->Sql("CREATE TABLE _checkpoints (id BIGINT) USING DELTA").Status();
  ASSERT_RAISES(InvalidArgument, created);
  EXPECT_THAT(created.Message(), HasSubstr("reserved"));
  ASSERT_RAISES(InvalidArgument, session->Sql("VACUUM _Checkpoints").Status());
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/_checkpoints"));
}

TEST_F(TablesTest, PropertiesOfFeaturesNotWrittenYetAreRefusedUpFront) {
  auto session = NewSession();
  // (delta.enableChangeDataFeed and delta.enableDeletionVectors are written since issue 19.)
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"delta.columnMapping.mode", "name"},
      {"delta.columnMapping.mode", "id"},
      {"delta.enableInCommitTimestamps", "true"},
      {"delta.enableRowTracking", "TRUE"},
      // delta.* keys match ignoring case, as in Delta.
      {"delta.EnableInCommitTimestamps", "true"},
      {"DELTA.COLUMNMAPPING.MODE", "name"}};
  int n = 0;
  for (const auto& [key, value] : refused) {
    const std::string table = fmt::format("t{}", n++);
    auto created = session
                       ->Sql(fmt::format("CREATE TABLE {} (id BIGINT) USING DELTA TBLPROPERTIES "
                                         "('{}' = '{}')",
                                         table, key, value))
                       .Status();
    ASSERT_RAISES(NotImplemented, created);
    EXPECT_THAT(created.Message(), HasSubstr(key));
    EXPECT_THAT(created.Message(), HasSubstr("not supported for writing yet"));
    EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/" + table + "/_delta_log")) << key;
  }
  ASSERT_OK(session
                ->Sql("CREATE TABLE off (id BIGINT) USING DELTA TBLPROPERTIES ("
                      "'delta.enableChangeDataFeed' = 'false', 'delta.columnMapping.mode' = "
                      "'none', 'delta.enableDeletionVectors' = 'false')")
                .Status());
  ASSERT_OK(session->Sql("INSERT INTO off VALUES (1)").Status());
  // The DataFrame writer's delta.* options are table properties too.
  auto written = session->Sql("SELECT 1 AS id")
                     .Write()
                     .Format("delta")
                     .Option("delta.enableInCommitTimestamps", "true")
                     .SaveAsTable("ict");
  ASSERT_RAISES(NotImplemented, written);
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/ict/_delta_log"));
}

// A LOCATION given as a file URI is the local directory it names: registered as that path
// (percent-escapes decoded, as Spark's Path decodes them), the same location as every other
// spelling of it, and the parent of partition directories named as Spark escapes them.
TEST_F(TablesTest, FileUriLocationIsTheDirectoryItNames) {
  auto session = NewSession();
  const std::string spaced = dir_.Join("my events");
  ASSERT_OK(session
                ->Sql("CREATE TABLE events (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) "
                      "LOCATION 'file://" +
                      dir_.Join("my%20events") + "'")
                .Status());
  EXPECT_TRUE(std::filesystem::exists(spaced + "/_delta_log"));
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("my%20events")));
  storage::LocalFileSystem fs;
  plan::Catalog catalog;
  catalog.fs = &fs;
  catalog.warehouse = warehouse_;
  ASSERT_OK_AND_ASSIGN(std::optional<std::string> location,
                       plan::ExternalTableLocation(catalog, "events"));
  EXPECT_EQ(location, spaced);

  ASSERT_OK(session->Sql("INSERT INTO events VALUES (1, 'a:b')").Status());
  EXPECT_TRUE(std::filesystem::is_directory(spaced + "/p=a%3Ab"));
  EXPECT_THAT(Rows(*session, "SELECT * FROM events"), ElementsAre(R"({"id":1,"p":"a:b"})"));
  EXPECT_THAT(
      Rows(*session, "SELECT * FROM delta.`file://localhost" + dir_.Join("my%20events") + "`"),
      ElementsAre(R"({"id":1,"p":"a:b"})"));

  // Naming the registered location again, in another spelling, is naming the same table.
  for (const std::string& spelling :
       {spaced + "/", "file://localhost" + dir_.Join("my%20events"), "file:" + spaced}) {
    SCOPED_TRACE(spelling);
    EXPECT_OK(session
                  ->Sql("CREATE OR REPLACE TABLE events (id BIGINT) USING DELTA LOCATION '" +
                        spelling + "'")
                  .Status());
  }
  auto other = session->Sql("CREATE OR REPLACE TABLE events (id BIGINT) USING DELTA LOCATION '" +
                            elsewhere_ + "'");
  ASSERT_RAISES(AlreadyExists, other.Status());

  auto gs = session->Sql("CREATE TABLE remote (id BIGINT) USING DELTA LOCATION 'gs://b/t'");
  ASSERT_RAISES(InvalidArgument, gs.Status());
  EXPECT_THAT(gs.Status().Message(), HasSubstr("unsupported URI scheme 'gs'"));
}

// ListTables and SHOW TABLES name a table once when it is both a warehouse directory and an
// external table's entry; the external names come sorted.
TEST_F(TablesTest, ExternalTableInsideTheWarehouseIsListedOnce) {
  auto session = NewSession();
  ASSERT_OK(
      session
          ->Sql("CREATE TABLE inside (id BIGINT) USING DELTA LOCATION '" + warehouse_ + "/inside'")
          .Status());
  ASSERT_OK(session->Sql("CREATE TABLE managed (id BIGINT) USING DELTA").Status());
  ASSERT_OK(session
                ->Sql("CREATE TABLE `events-old` (id BIGINT) USING DELTA LOCATION '" + elsewhere_ +
                      "-old'")
                .Status());
  ASSERT_OK(
      session->Sql("CREATE TABLE events (id BIGINT) USING DELTA LOCATION '" + elsewhere_ + "'")
          .Status());
  ASSERT_OK_AND_ASSIGN(auto tables, session->ListTables());
  EXPECT_THAT(tables, ElementsAre("events", "events-old", "inside", "managed"));
  EXPECT_THAT(Rows(*session, "SHOW TABLES LIKE 'ins*'"),
              ElementsAre(R"({"namespace":"default","tableName":"inside","isTemporary":false})"));

  // The catalog lists entry files by path, where "events-old.json" sorts before "events.json".
  storage::LocalFileSystem fs;
  plan::Catalog catalog;
  catalog.fs = &fs;
  catalog.warehouse = warehouse_;
  ASSERT_OK_AND_ASSIGN(auto external, plan::ListExternalTables(catalog));
  EXPECT_THAT(external, ElementsAre("events", "events-old", "inside"));
}

// ---- DELETE, UPDATE and MERGE through Session::Sql ----

// The history row of `version` as JSON (DESCRIBE HISTORY's columns).
std::string HistoryRow(Session& session, const std::string& table, int64_t version) {
  auto rows = session.Sql("DESCRIBE HISTORY " + table).Collect();
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
    std::string json = row.ToJson();
    if (json.find(fmt::format(R"("version":{},)", version)) != std::string::npos) {
      return json;
    }
  }
  return "";
}

TEST_F(TablesTest, DmlCommitsShowTheirMetricsInTheHistory) {
  auto session = NewSession();
  ASSERT_OK(session->Sql("CREATE TABLE t (id BIGINT, v STRING)").Status());
  ASSERT_OK(session->Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").Status());
  EXPECT_THAT(Rows(*session, "DELETE FROM t WHERE id >= 2"),
              ElementsAre(R"({"num_affected_rows":2})"));
  const std::string deleted = HistoryRow(*session, "t", 2);
  EXPECT_THAT(deleted, HasSubstr(R"("operation":"DELETE")"));
  EXPECT_THAT(deleted, HasSubstr(R"({"key":"numDeletedRows","value":"2"})"));
  EXPECT_THAT(Rows(*session, "UPDATE t SET v = 'z'"), ElementsAre(R"({"num_affected_rows":1})"));
  EXPECT_THAT(HistoryRow(*session, "t", 3), HasSubstr(R"({"key":"numUpdatedRows","value":"1"})"));
  // A commit without metrics (the table's creation) shows none.
  EXPECT_THAT(HistoryRow(*session, "t", 0), HasSubstr(R"("operationMetrics":null)"));
}

TEST_F(TablesTest, DmlTakesIdempotentWritesAndAutoMergeFromTheSession) {
  auto session = NewSession();
  ASSERT_OK(session->Sql("CREATE TABLE t (id BIGINT, v STRING)").Status());
  ASSERT_OK(session->Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')").Status());
  auto with = [&](const std::map<std::string, std::string>& config) {
    Session::Builder builder;
    builder.Warehouse(warehouse_).TimeZone("UTC");
    for (const auto& [key, value] : config) {
      builder.Config(key, value);
    }
    auto built = builder.Build();
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return built.ok() ? *built : nullptr;
  };
  const std::map<std::string, std::string> txn = {
      {"spark.databricks.delta.write.txnAppId", "job-7"},
      {"spark.databricks.delta.write.txnVersion", "4"}};
  auto first = with(txn);
  EXPECT_THAT(Rows(*first, "DELETE FROM t WHERE id = 1"),
              ElementsAre(R"({"num_affected_rows":1})"));
  // The same application version again (a re-run batch) changes nothing.
  auto again = with(txn);
  EXPECT_THAT(Rows(*again, "DELETE FROM t WHERE id = 2"),
              ElementsAre(R"({"num_affected_rows":0})"));
  EXPECT_THAT(Rows(*session, "SELECT id FROM t"), ElementsAre(R"({"id":2})"));
  EXPECT_EQ(HistoryRow(*session, "t", 3), "");

  auto half = with({{"spark.databricks.delta.write.txnAppId", "job-7"}});
  auto refused = half->Sql("DELETE FROM t").Collect();
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().Message(),
              HasSubstr("Invalid options for idempotent Dataframe writes: Both "
                        "spark.databricks.delta.write.txnAppId and "
                        "spark.databricks.delta.write.txnVersion must be specified"));

  ASSERT_OK(session->Sql("CREATE TABLE wide (id BIGINT, v STRING, extra INT)").Status());
  ASSERT_OK(session->Sql("INSERT INTO wide VALUES (9, 'n', 90)").Status());
  const std::string merge =
      "MERGE INTO t USING wide s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *";
  auto merging = with({{"spark.databricks.delta.schema.autoMerge.enabled", "true"}});
  EXPECT_THAT(Rows(*merging, merge),
              ElementsAre(R"({"num_affected_rows":1,"num_updated_rows":0,"num_deleted_rows":0,)"
                          R"("num_inserted_rows":1})"));
  EXPECT_THAT(Rows(*session, "SELECT id, v, extra FROM t"),
              ElementsAre(R"({"id":2,"v":"b","extra":null})", R"({"id":9,"v":"n","extra":90})"));
}

TEST_F(TablesTest, DmlFailuresPointAtTheStatement) {
  auto session = NewSession();
  ASSERT_OK(session->Sql("CREATE TABLE t (id BIGINT, v STRING)").Status());
  ASSERT_OK(session->Sql("INSERT INTO t VALUES (1, 'a')").Status());
  // Found while running (two source rows for one target row): placed at the target.
  auto twice = session
                   ->Sql(
                       "MERGE INTO t USING (SELECT 1 AS id UNION ALL SELECT 1 AS id) s "
                       "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'x'")
                   .Collect();
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().Message(),
              HasSubstr("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
  EXPECT_THAT(twice.status().Message(), HasSubstr("at line 1, column 12"));
  auto flow = session->Sql("AUTO CDC INTO t FROM STREAM(t) KEYS (id) SEQUENCE BY id").Collect();
  ASSERT_FALSE(flow.ok());
  EXPECT_THAT(flow.status().Message(), HasSubstr("is a flow of a pipeline"));
  EXPECT_THAT(Rows(*session, "SELECT id, v FROM t"), ElementsAre(R"({"id":1,"v":"a"})"));
}

// A query's scan pipelines run ahead on threads of their own when the session has threads
// (tributary.threads): the rows, and their order where the query orders them, are those of one
// thread, over a table of several files and through joins, aggregates, sorts and limits.
TEST_F(TablesTest, QueriesGiveTheSameRowsWithOneThreadOrSeveral) {
  auto writer = NewSession();
  ASSERT_OK(writer->Sql("CREATE TABLE events (id BIGINT, kind STRING, amount DOUBLE) USING DELTA")
                .Status());
  ASSERT_OK(writer->Sql("CREATE TABLE kinds (kind STRING, label STRING) USING DELTA").Status());
  ASSERT_OK(writer->Sql("INSERT INTO kinds VALUES ('a', 'alpha'), ('b', 'beta'), (NULL, 'none')")
                .Status());
  for (int file = 0; file < 6; ++file) {
    std::vector<std::string> rows;
    for (int id = file * 5000; id < file * 5000 + 5000; ++id) {
      rows.push_back(fmt::format("({}, {}, {} / 7.0)", id,
                                 id % 3 == 0 ? "'a'" : (id % 3 == 1 ? "'b'" : "NULL"), id));
    }
    ASSERT_OK(writer->Sql("INSERT INTO events VALUES " + fmt::format("{}", fmt::join(rows, ", ")))
                  .Status());
  }
  const std::string joined_groups =
      "SELECT k.label AS label, count(*) AS n FROM events e JOIN kinds k ON e.kind = k.kind "
      "GROUP BY k.label ORDER BY label";
  const std::string outer_join =
      "SELECT e.id, k.label FROM events e LEFT JOIN kinds k ON e.kind = k.kind "
      "WHERE e.id % 1000 = 0 ORDER BY e.id";
  const std::vector<std::string> queries = {
      "SELECT * FROM events WHERE amount > 100 ORDER BY id",
      "SELECT kind, count(*), sum(amount) FROM events GROUP BY kind ORDER BY kind",
      joined_groups,
      outer_join,
      "SELECT id, amount FROM events ORDER BY amount DESC LIMIT 5",
      "SELECT count(*) FROM (SELECT id FROM events LIMIT 10)",
  };
  auto session_with = [&](const std::string& threads) {
    auto session = Session::Builder()
                       .Warehouse(warehouse_)
                       .TimeZone("UTC")
                       .Config("tributary.threads", threads)
                       .Build();
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    return *session;
  };
  auto one = session_with("1");
  auto three = session_with("3");
  for (const std::string& query : queries) {
    ASSERT_OK_AND_ASSIGN(std::vector<Row> serial, one->Sql(query).Collect());
    ASSERT_OK_AND_ASSIGN(std::vector<Row> parallel, three->Sql(query).Collect());
    ASSERT_FALSE(serial.empty()) << query;
    ASSERT_EQ(serial.size(), parallel.size()) << query;
    for (size_t i = 0; i < serial.size(); ++i) {
      ASSERT_EQ(serial[i].ToJson(), parallel[i].ToJson()) << query << ", row " << i;
    }
    // EXPLAIN is the same plan whatever the threads.
    ASSERT_OK_AND_ASSIGN(std::string serial_plan, one->Sql(query).Explain());
    ASSERT_OK_AND_ASSIGN(std::string parallel_plan, three->Sql(query).Explain());
    EXPECT_EQ(serial_plan, parallel_plan);
  }
  auto bad = session_with("none");
  auto refused = bad->Sql("SELECT count(*) FROM events").Collect();
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().ToString(),
              HasSubstr("tributary.threads must be a positive integer, got 'none'"));
}

// A data source table and a schema live in the warehouse's files: a new session finds both,
// reads the table through SQL and Session::Table, and ListTables lists the current schema
// (SHOW TABLES' listing), so the table appears only after USE.
TEST_F(TablesTest, ParquetTableInSchemaIsFoundByLaterSessions) {
  auto session = NewSession();
  ASSERT_OK(session->Sql("CREATE SCHEMA sales").Status());
  ASSERT_OK(session
                ->Sql("CREATE TABLE sales.items (id INT, name STRING) USING parquet "
                      "PARTITIONED BY (name)")
                .Status());
  ASSERT_OK(session->Sql("INSERT INTO sales.items VALUES (1, 'pen'), (2, 'ink')").Status());
  EXPECT_TRUE(std::filesystem::exists(warehouse_ + "/sales.db/items/name=pen"));
  EXPECT_TRUE(std::filesystem::exists(warehouse_ + "/sales.db/_catalog/items.json"));
  // Writers of Delta commits leave a data source table's folder alone.
  auto delta_write =
      session->Sql("SELECT 3 AS id, 'cap' AS name").Write().SaveAsTable("sales.items");
  ASSERT_RAISES(NotImplemented, delta_write);
  EXPECT_THAT(delta_write.Message(), HasSubstr("is a parquet table"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/sales.db/items/_delta_log"));

  auto later = NewSession();
  EXPECT_THAT(Rows(*later, "SELECT * FROM sales.items"),
              ElementsAre(R"({"id":1,"name":"pen"})", R"({"id":2,"name":"ink"})"));
  ASSERT_OK_AND_ASSIGN(auto rows, later->Table("sales.items").Collect());
  EXPECT_EQ(rows.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto tables, later->ListTables());
  EXPECT_TRUE(tables.empty());
  ASSERT_OK(later->Sql("USE sales").Status());
  ASSERT_OK_AND_ASSIGN(tables, later->ListTables());
  EXPECT_THAT(tables, ElementsAre("items"));

  ASSERT_OK(later->Sql("DROP TABLE items").Status());
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/sales.db/items"));
  auto gone = later->Sql("SELECT * FROM items").Status();
  ASSERT_RAISES(NotFound, gone);
}

}  // namespace
}  // namespace tributary

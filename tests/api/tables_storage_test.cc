// Tables through SQL and the DataFrame API on every storage backend (support/storage_backend.h):
// a warehouse on the local disk or on S3 (Session::Builder().Warehouse("s3://...") with the
// fs.s3a.* settings), managed and external tables, time travel, history and maintenance; what
// the statements wrote is listed and read back by an independent client.

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/row_json.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/storage_backend.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TablesStorageTest : public testing::StorageBackendTest {
 protected:
  /// A new session on the backend's warehouse, as a new process would make.
  std::shared_ptr<Session> NewSession() {
    Session::Builder builder;
    builder.Warehouse(Backend().Path("warehouse")).TimeZone("UTC");
    for (const auto& [key, value] : Backend().SessionConfig()) {
      builder.Config(key, value);
    }
    auto session = builder.Build();
    EXPECT_OK(session.status());
    return session.ok() ? *session : nullptr;
  }

  /// The rows of `statement` as sorted JSON lines; a failure fails the test.
  static std::vector<std::string> Query(const Session& session, const std::string& statement) {
    auto rows = session.Sql(statement).Collect();
    EXPECT_TRUE(rows.ok()) << statement << ": " << rows.status().ToString();
    return rows.ok() ? testing::SortedJson(*rows) : std::vector<std::string>{};
  }

  static void Run(const Session& session, const std::string& statement) {
    const Status status = session.Sql(statement).Status();
    EXPECT_TRUE(status.ok()) << statement << ": " << status.ToString();
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, TablesStorageTest,
                         ::testing::ValuesIn(testing::StorageBackendKinds()),
                         testing::StorageBackendName);

TEST_P(TablesStorageTest, ManagedTablesLiveInTheWarehouse) {
  std::shared_ptr<Session> session = NewSession();
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->WarehouseDirectory(), Backend().Path("warehouse"));
  Run(*session,
      "CREATE TABLE events (id BIGINT, country STRING) USING DELTA PARTITIONED BY (country)");
  Run(*session, "INSERT INTO events VALUES (1, 'fr'), (2, 'de')");
  Run(*session, "INSERT INTO events VALUES (3, 'fr')");
  EXPECT_THAT(Query(*session, "SHOW TABLES"),
              ElementsAre(R"({"namespace":"default","tableName":"events","isTemporary":false})"));
  EXPECT_THAT(Query(*session, "SELECT count(*) AS n FROM events VERSION AS OF 1"),
              ElementsAre(R"({"n":2})"));
  EXPECT_THAT(Query(*session, "SELECT id FROM events"),
              ElementsAre(R"({"id":1})", R"({"id":2})", R"({"id":3})"));
  Run(*session, "OPTIMIZE events");
  auto history = session->Sql("DESCRIBE HISTORY events").Collect();
  ASSERT_OK(history.status());
  ASSERT_EQ(history->size(), 4u);
  EXPECT_THAT(testing::Json(*history), Contains(HasSubstr(R"("operation":"OPTIMIZE")")));

  // The table is in the backend, for any reader.
  ASSERT_OK_AND_ASSIGN(auto log, Backend().IndependentList("warehouse/events/_delta_log"));
  EXPECT_THAT(log, Contains("00000000000000000003.json"));
  ASSERT_OK_AND_ASSIGN(auto files, Backend().IndependentList("warehouse/events"));
  EXPECT_THAT(files, Contains(HasSubstr("country=fr/part-")));

  // A new session on the same warehouse (another process) finds the table.
  std::shared_ptr<Session> later = NewSession();
  ASSERT_NE(later, nullptr);
  ASSERT_OK_AND_ASSIGN(auto tables, later->ListTables());
  EXPECT_THAT(tables, ElementsAre("events"));
  EXPECT_THAT(Query(*later, "SELECT id FROM events VERSION AS OF 2"),
              ElementsAre(R"({"id":1})", R"({"id":2})", R"({"id":3})"));
  Run(*later, "DROP TABLE events");
  ASSERT_OK_AND_ASSIGN(tables, later->ListTables());
  EXPECT_TRUE(tables.empty());
}

TEST_P(TablesStorageTest, ExternalTablesByLocationAndByPath) {
  std::shared_ptr<Session> session = NewSession();
  ASSERT_NE(session, nullptr);
  const std::string location = Backend().Path("external/ids");
  Run(*session, "CREATE TABLE ids (id BIGINT) USING DELTA LOCATION '" + location + "'");
  Run(*session, "INSERT INTO ids VALUES (1), (2)");
  Run(*session, "INSERT INTO delta.`" + location + "` VALUES (3)");
  EXPECT_THAT(Query(*session, "SELECT id FROM delta.`" + location + "` VERSION AS OF 1"),
              ElementsAre(R"({"id":1})", R"({"id":2})"));
  EXPECT_THAT(Query(*session, "SELECT count(*) AS n FROM ids"), ElementsAre(R"({"n":3})"));
  ASSERT_OK_AND_ASSIGN(
      auto version0,
      session->Read().Format("delta").Option("versionAsOf", "0").Load(location).Collect());
  EXPECT_TRUE(version0.empty());
  auto history = session->Sql("DESCRIBE HISTORY ids").Collect();
  ASSERT_OK(history.status());
  EXPECT_EQ(history->size(), 3u);
  // A table written elsewhere by path, then read through SQL.
  Run(*session, "CREATE TABLE copy USING DELTA LOCATION '" + Backend().Path("external/copy") +
                    "' AS SELECT id * 10 AS id FROM ids WHERE id > 1");
  ASSERT_OK_AND_ASSIGN(auto log, Backend().IndependentList("external/copy/_delta_log"));
  EXPECT_THAT(log, ElementsAre("00000000000000000000.json"));
  EXPECT_THAT(Query(*session, "SELECT id FROM copy"), ElementsAre(R"({"id":20})", R"({"id":30})"));
  if (IsS3()) {
    // s3a:// names the same objects.
    const std::string s3a = "s3a" + location.substr(2);
    EXPECT_THAT(Query(*session, "SELECT count(*) AS n FROM delta.`" + s3a + "`"),
                ElementsAre(R"({"n":3})"));
  }
}

// Four `tributary sql` processes insert into one table at once, five commits each: every
// commit lands (Delta's retries on a lost put-if-absent), versions are contiguous from 0 and
// every row of every writer is in the table once.
TEST_P(TablesStorageTest, CliProcessesInsertingConcurrentlyLoseNoCommit) {
  std::shared_ptr<Session> session = NewSession();
  ASSERT_NE(session, nullptr);
  const std::string location = Backend().Path("shared/events");
  Run(*session,
      "CREATE TABLE events (id BIGINT, writer INT) USING DELTA LOCATION '" + location + "'");
  if (IsS3()) {
    // The CLI finds the server through the AWS_* variables, as a user's shell would.
    testing::S3TestServer::Get().ExportEnvironment();
  }
  constexpr int kWriters = 4;
  constexpr int kInsertsEach = 5;
  testing::TempDir outputs;
  std::vector<testing::ChildResult> results(kWriters);
  std::vector<std::thread> writers;
  writers.reserve(kWriters);
  for (int writer = 0; writer < kWriters; ++writer) {
    std::string script;
    for (int i = 0; i < kInsertsEach; ++i) {
      const int id = writer * 100 + i * 2;
      script += fmt::format("INSERT INTO delta.`{}` VALUES ({}, {}), ({}, {});\n", location, id,
                            writer, id + 1, writer);
    }
    testing::ChildOptions child;
    child.args = {TRIBUTARY_CLI, "sql", "--warehouse", Backend().Path("cli-warehouse"), script};
    child.stderr_path = outputs.Join(fmt::format("stderr-{}", writer));
    writers.emplace_back([&results, writer, child = std::move(child)] {
      results[writer] = testing::RunChild(child);
    });
  }
  for (std::thread& writer : writers) {
    writer.join();
  }
  for (const testing::ChildResult& result : results) {
    EXPECT_EQ(result.exit_code, 0) << "tributary sql " << result.Describe();
  }
  auto history = session->Sql("DESCRIBE HISTORY events").Collect();
  ASSERT_OK(history.status());
  EXPECT_EQ(history->size(), 1u + kWriters * kInsertsEach);
  ASSERT_OK_AND_ASSIGN(auto log, Backend().IndependentList("shared/events/_delta_log"));
  std::vector<std::string> commits;
  for (const std::string& name : log) {
    if (name.size() == 25 && name.substr(20) == ".json") {
      commits.push_back(name);
    }
  }
  ASSERT_EQ(commits.size(), 1u + kWriters * kInsertsEach);
  for (size_t v = 0; v < commits.size(); ++v) {
    EXPECT_EQ(commits[v], fmt::format("{:020}.json", v));
  }
  std::vector<std::string> expected;
  for (int writer = 0; writer < kWriters; ++writer) {
    for (int i = 0; i < kInsertsEach * 2; ++i) {
      expected.push_back(fmt::format(R"({{"id":{},"writer":{}}})", writer * 100 + i, writer));
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Query(*session, "SELECT id, writer FROM events"), expected);
}

}  // namespace
}  // namespace tributary

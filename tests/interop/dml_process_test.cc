// DML from several processes (`tributary sql`), with the interleavings chosen rather than
// raced for: a DELETE/UPDATE/MERGE process stops at crash point dml.before_commit (its changes
// computed, its actions held, nothing committed; TRIBUTARY_PAUSE_AT), another process commits,
// and the first is released. The outcome must be Delta's for the isolation level
// (concurrency-control.mdx: a blind INSERT never conflicts under WriteSerializable and does
// under Serializable when it adds to files the DML read; two writers removing the same file
// conflict; disjoint partitions do not), and the table must hold exactly the committed
// changes, read the same by our reader and by the independent replay.
//
// Kill -9 during MERGE: a process killed at dml.before_data_files, dml.after_data_files,
// dml.before_commit or delta.after_commit leaves the table at the previous version or at the
// new one, never between; running the MERGE again gives DuckDB's rows for the same MERGE.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "storage/local_file_system.h"
#include "support/child_process.h"
#include "support/delta_replay.h"
#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using testing::Sorted;

// The table every test starts from: partitions 'a' and 'b', two files each.
constexpr const char* kSetup[] = {
    "INSERT INTO t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'a', 3)",
    "INSERT INTO t VALUES (4, 'a', 1), (5, 'a', 2)",
    "INSERT INTO t VALUES (11, 'b', 1), (12, 'b', 2)",
    "INSERT INTO t VALUES (13, 'b', 3), (14, 'b', 4)",
};

class DmlProcessTest : public ::testing::Test {
 protected:
  std::string Root() const { return dir_.Path() + "/t"; }

  // Creates t (id BIGINT, p STRING, v BIGINT) partitioned by p with `properties` and the
  // setup rows, in this process.
  void CreateTable(const std::string& properties) {
    auto session = Session::Builder().Warehouse(dir_.Path() + "/warehouse").TimeZone("UTC").Build();
    ASSERT_OK(session.status());
    ASSERT_OK((*session)
                  ->Sql(fmt::format("CREATE TABLE t (id BIGINT, p STRING, v BIGINT) USING delta "
                                    "PARTITIONED BY (p) LOCATION '{}' TBLPROPERTIES ({})",
                                    Root(), properties))
                  .Collect()
                  .status());
    for (const char* insert : kSetup) {
      ASSERT_OK((*session)->Sql(insert).Collect().status());
    }
  }

  // `sql` with the table t named by path (aliased t where the statement may use it), for a
  // CLI process with its own warehouse.
  std::string ByPath(std::string sql) const {
    const size_t at = sql.find(" t ");
    if (at != std::string::npos) {
      sql.replace(at + 1, 1,
                  fmt::format("delta.`{}`{}", Root(), sql.starts_with("MERGE") ? " AS t" : ""));
    }
    return sql;
  }

  testing::ChildOptions Cli(const std::string& sql, const std::string& tag) const {
    testing::ChildOptions child;
    child.args = {TRIBUTARY_CLI, "sql", "--warehouse", dir_.Path() + "/cli-warehouse",
                  ByPath(sql + " ")};
    child.stdout_path = dir_.Path() + "/stdout-" + tag;
    child.stderr_path = dir_.Path() + "/stderr-" + tag;
    return child;
  }

  std::vector<std::string> OurRows() const {
    storage::LocalFileSystem fs;
    return testing::SortedRows(fs, Root());
  }

  int64_t Version() const {
    storage::LocalFileSystem fs;
    auto snapshot = delta::Snapshot::Load(fs, Root());
    return snapshot.ok() ? (*snapshot)->Version() : -1;
  }

  // DuckDB's rows after the setup and `statements` over a plain table.
  std::vector<std::string> Expected(const std::vector<std::string>& statements) const {
    std::vector<std::string> queries = {"CREATE TABLE t (id BIGINT, p VARCHAR, v BIGINT)"};
    queries.insert(queries.end(), std::begin(kSetup), std::end(kSetup));
    queries.insert(queries.end(), statements.begin(), statements.end());
    queries.emplace_back("SELECT id, p, v FROM t");
    auto results = testing::OracleQueryMany(queries);
    EXPECT_OK(results.status());
    if (!results.ok()) {
      return {};
    }
    for (const auto& result : *results) {
      EXPECT_OK(result.status());
    }
    return results->back().ok() ? Sorted(*results->back()) : std::vector<std::string>{};
  }

  // Our reader and the replay agree on the table, and it holds `expected`.
  void ExpectTable(const std::vector<std::string>& expected) const {
    const std::vector<std::string> ours = OurRows();
    EXPECT_EQ(ours, expected);
    auto replayed = testing::ReplayDeltaTable(Root());
    ASSERT_OK(replayed.status());
    EXPECT_EQ(replayed->rows, ours);
    EXPECT_EQ(replayed->version, Version());
  }

  // Runs `paused_sql` in a CLI process stopped at the first visit of dml.before_commit, then
  // `winner_sql` in another CLI process (which must succeed), then releases the first; returns
  // how the first ended.
  testing::ChildResult RunInterleaved(const std::string& paused_sql,
                                      const std::string& winner_sql) {
    const std::string release = dir_.Path() + "/release";
    testing::ChildOptions paused = Cli(paused_sql, "paused");
    paused.environment["TRIBUTARY_PAUSE_AT"] = "dml.before_commit:1";
    paused.environment["TRIBUTARY_PAUSE_FILE"] = release;
    testing::ChildResult paused_result;
    std::atomic<bool> ended{false};
    std::thread runner([&] {
      paused_result = testing::RunChild(paused);
      ended = true;
    });
    // Waits until the process is at the point, or has ended without reaching it.
    const bool reached = testing::WaitForFile(release + ".reached", [&] { return ended.load(); });
    if (reached) {
      const testing::ChildResult winner = testing::RunChild(Cli(winner_sql, "winner"));
      EXPECT_EQ(winner.exit_code, 0) << winner_sql << ": " << winner.Describe();
    }
    std::ofstream(release).put('\n');
    runner.join();
    EXPECT_TRUE(reached) << paused_sql
                         << " never reached dml.before_commit: " << paused_result.Describe();
    return paused_result;
  }

  testing::TempDir dir_;
};

// WriteSerializable (the default): a blind INSERT into the partition a DELETE read commits
// first; the DELETE still commits, and the inserted row (which it never saw) stays.
TEST_F(DmlProcessTest, DeleteAfterBlindAppendCommitsUnderWriteSerializable) {
  CreateTable("'delta.enableDeletionVectors' = 'true'");
  const std::string remove = "DELETE FROM t WHERE p = 'a' AND v >= 2";
  const std::string append = "INSERT INTO t VALUES (6, 'a', 9)";
  const testing::ChildResult deleted = RunInterleaved(remove, append);
  EXPECT_EQ(deleted.exit_code, 0) << deleted.Describe();
  ExpectTable(Expected({remove, append}));
}

// Serializable: the same interleaving is a conflict for the DELETE (the append added a file
// it should have read); only the append is in the table.
TEST_F(DmlProcessTest, DeleteAfterAppendConflictsUnderSerializable) {
  CreateTable("'delta.enableDeletionVectors' = 'true', 'delta.isolationLevel' = 'Serializable'");
  const std::string remove = "DELETE FROM t WHERE p = 'a' AND v >= 2";
  const std::string append = "INSERT INTO t VALUES (6, 'a', 9)";
  const testing::ChildResult deleted = RunInterleaved(remove, append);
  EXPECT_NE(deleted.exit_code, 0);
  EXPECT_NE(deleted.stderr_text.find("ConcurrentAppendException"), std::string::npos)
      << deleted.Describe();
  ExpectTable(Expected({append}));
}

// Serializable, but the append goes to a partition the UPDATE did not read: no conflict.
TEST_F(DmlProcessTest, UpdateAndAppendToAnotherPartitionBothCommitUnderSerializable) {
  CreateTable("'delta.isolationLevel' = 'Serializable'");
  const std::string update = "UPDATE t SET v = v + 10 WHERE p = 'a' AND v >= 2";
  const std::string append = "INSERT INTO t VALUES (15, 'b', 9)";
  const testing::ChildResult updated = RunInterleaved(update, append);
  EXPECT_EQ(updated.exit_code, 0) << updated.Describe();
  ExpectTable(Expected({update, append}));
}

// Two DELETEs of rows of the same file: the one committing second conflicts (Delta reports
// ConcurrentDeleteReadException when the loser read the removed file, the check Spark's
// ConflictChecker makes first, or ConcurrentDeleteDeleteException); only the first's rows
// are gone.
TEST_F(DmlProcessTest, DeletesOfTheSameFileConflict) {
  CreateTable("'delta.enableDeletionVectors' = 'true'");
  const std::string first = "DELETE FROM t WHERE p = 'a' AND v = 2";
  const std::string second = "DELETE FROM t WHERE p = 'a' AND v = 3";
  const testing::ChildResult loser = RunInterleaved(second, first);
  EXPECT_NE(loser.exit_code, 0);
  EXPECT_NE(loser.stderr_text.find("(ConcurrentDelete"), std::string::npos) << loser.Describe();
  ExpectTable(Expected({first}));
}

// DML in disjoint partitions (a MERGE that only touches 'a' through its ON condition, and a
// DELETE in 'b') do not conflict: both commit.
TEST_F(DmlProcessTest, DmlInDisjointPartitionsBothCommit) {
  CreateTable("'delta.enableDeletionVectors' = 'true', 'delta.enableChangeDataFeed' = 'true'");
  const std::string merge =
      "MERGE INTO t USING (SELECT CAST(2 AS BIGINT) AS id, 'a' AS p, CAST(20 AS BIGINT) AS v "
      "UNION ALL SELECT CAST(7 AS BIGINT), 'a', CAST(70 AS BIGINT)) AS src ON t.id = src.id AND "
      "t.p = 'a' WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
  const std::string remove = "DELETE FROM t WHERE p = 'b' AND v >= 3";
  const testing::ChildResult merged = RunInterleaved(merge, remove);
  EXPECT_EQ(merged.exit_code, 0) << merged.Describe();
  ExpectTable(Expected({remove, merge}));
}

// A MERGE without a target-only condition reads the whole table: under Serializable an
// append anywhere is a conflict for it; under WriteSerializable the blind append is not, and
// the MERGE (which never saw the appended row) leaves it as it is.
TEST_F(DmlProcessTest, MergeAgainstAppendFollowsTheIsolationLevel) {
  const std::string merge =
      "MERGE INTO t USING (SELECT CAST(3 AS BIGINT) AS id, 'a' AS p, CAST(30 AS BIGINT) AS v "
      "UNION ALL SELECT CAST(8 AS BIGINT), 'b', CAST(80 AS BIGINT)) AS src ON t.id = src.id "
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE "
      "AND t.v = 1 THEN DELETE";
  const std::string append = "INSERT INTO t VALUES (16, 'b', 1)";
  for (const bool serializable : {true, false}) {
    SCOPED_TRACE(serializable ? "Serializable" : "WriteSerializable");
    std::filesystem::remove_all(Root());
    CreateTable(serializable ? "'delta.enableDeletionVectors' = 'true', "
                               "'delta.isolationLevel' = 'Serializable'"
                             : "'delta.enableDeletionVectors' = 'true'");
    const testing::ChildResult merged = RunInterleaved(merge, append);
    if (serializable) {
      EXPECT_NE(merged.exit_code, 0);
      EXPECT_NE(merged.stderr_text.find("ConcurrentAppendException"), std::string::npos)
          << merged.Describe();
      ExpectTable(Expected({append}));
    } else {
      EXPECT_EQ(merged.exit_code, 0) << merged.Describe();
      ExpectTable(Expected({merge, append}));
    }
    std::filesystem::remove(dir_.Path() + "/release");
    std::filesystem::remove(dir_.Path() + "/release.reached");
  }
}

// An UPDATE and a DELETE of rows of the same file (copy-on-write: both rewrite it): the
// second to commit conflicts and only the first's change is in the table.
TEST_F(DmlProcessTest, UpdateAndDeleteOfTheSameFileConflict) {
  CreateTable("'delta.enableDeletionVectors' = 'false'");
  const std::string update = "UPDATE t SET v = 100 WHERE p = 'b' AND id = 11";
  const std::string remove = "DELETE FROM t WHERE p = 'b' AND id = 12";
  const testing::ChildResult loser = RunInterleaved(update, remove);
  EXPECT_NE(loser.exit_code, 0);
  EXPECT_NE(loser.stderr_text.find("(ConcurrentDelete"), std::string::npos) << loser.Describe();
  ExpectTable(Expected({remove}));
}

// An upsert MERGE killed at each crash point: the table is at the version before or after,
// never between, reads the same by us and by the replay, and the MERGE run again gives
// DuckDB's rows.
TEST_F(DmlProcessTest, MergeKilledAtEachCrashPointLeavesOldOrNewVersion) {
  const std::string merge =
      "MERGE INTO t USING (SELECT CAST(1 AS BIGINT) AS id, 'a' AS p, CAST(10 AS BIGINT) AS v "
      "UNION ALL SELECT CAST(12 AS BIGINT), 'b', CAST(120 AS BIGINT) UNION ALL SELECT CAST(30 AS "
      "BIGINT), 'c', CAST(300 AS BIGINT)) AS src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * "
      "WHEN NOT MATCHED THEN INSERT *";
  const std::vector<std::string> before = Expected({});
  const std::vector<std::string> after = Expected({merge});
  ASSERT_NE(before, after);
  const std::vector<std::pair<std::string, bool>> points = {{"dml.before_data_files", false},
                                                            {"dml.after_data_files", false},
                                                            {"dml.before_commit", false},
                                                            {"delta.after_commit", true}};
  for (const char* properties :
       {"'delta.enableDeletionVectors' = 'true', 'delta.enableChangeDataFeed' = 'true'",
        "'delta.enableDeletionVectors' = 'false'"}) {
    for (const auto& [point, committed] : points) {
      SCOPED_TRACE(std::string(properties) + " killed at " + point);
      std::filesystem::remove_all(Root());
      std::filesystem::remove_all(dir_.Path() + "/warehouse");
      CreateTable(properties);
      const int64_t old_version = Version();
      testing::ChildOptions child = Cli(merge, "merge");
      child.environment["TRIBUTARY_CRASH_AT"] = point + ":1";
      const testing::ChildResult killed = testing::RunChild(child);
      ASSERT_TRUE(killed.killed_by_sigkill) << killed.Describe();
      EXPECT_EQ(Version(), committed ? old_version + 1 : old_version);
      ExpectTable(committed ? after : before);
      const testing::ChildResult again = testing::RunChild(Cli(merge, "again"));
      ASSERT_EQ(again.exit_code, 0) << again.Describe();
      ExpectTable(after);
    }
  }
}

}  // namespace
}  // namespace tributary

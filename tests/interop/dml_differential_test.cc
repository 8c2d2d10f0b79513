// DML checked against independent parts (issue 19's "Done when"): seeded random sequences of
// INSERT / UPDATE / DELETE / MERGE run by tributary (Session::Sql) over Delta tables of every
// shape (partitioned or not, deletion vectors on or off, change data feed on or off) and by
// DuckDB over a plain table; after every statement our rows, DuckDB's rows and an independent
// replay of our _delta_log (support/delta_replay.h: DuckDB reads the log and the Parquet files,
// deletion vectors decoded through CRoaring) must be the same multiset. The corpus tables Spark
// and delta-rs wrote with deletion vectors and change data accept DML and still read the same
// by us and by the replay.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "storage/local_file_system.h"
#include "support/delta_replay.h"
#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/delta_table.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using testing::Sorted;

std::vector<std::string> OurRows(const std::string& root, std::optional<int64_t> version = {}) {
  storage::LocalFileSystem fs;
  return testing::SortedRows(fs, root, version);
}

// A MERGE clause as the DeltaTable API takes it.
struct ApiClause {
  enum Kind { kMatched, kNotMatched, kNotMatchedBySource } kind = kMatched;
  // Empty: no condition.
  std::string condition;
  enum Action { kDelete, kUpdate, kUpdateAll, kInsert, kInsertAll } action = kDelete;
  std::map<std::string, std::string> values;
};

// One generated statement: its SQL (both engines run it) and, for DELETE, UPDATE and MERGE,
// its parts for the DeltaTable API (same meaning).
struct DmlStatement {
  enum Kind { kInsert, kDelete, kUpdate, kMerge } kind = kInsert;
  std::string sql;
  // DELETE/UPDATE: the WHERE condition (empty: none); MERGE: the ON condition.
  std::string condition;
  std::map<std::string, std::string> set;
  // MERGE: the source query (aliased src) and the clauses in order.
  std::string source;
  std::vector<ApiClause> clauses;
};

// Seeded DML over table t (id BIGINT, p STRING, v BIGINT, s STRING) in the dialect both
// engines share. MERGE sources have unique ids, so no target row matches two source rows
// (that is an error in Delta and not in DuckDB); conditions reach NULLs in v and s, so
// three-valued logic is exercised; an UPDATE may move rows to another partition.
class DmlGenerator {
 public:
  explicit DmlGenerator(uint32_t seed) : random_(seed) {}

  DmlStatement Next() {
    switch (Pick(10)) {
      case 0:
      case 1:
        return Insert();
      case 2:
      case 3:
        return Delete();
      case 4:
      case 5:
      case 6:
        return Update();
      default:
        return Merge();
    }
  }

  // INSERT of `rows` rows (1 to 4 when 0).
  DmlStatement Insert(int rows = 0) {
    DmlStatement statement;
    statement.sql = "INSERT INTO t VALUES ";
    rows = rows > 0 ? rows : 1 + Pick(4);
    for (int i = 0; i < rows; ++i) {
      statement.sql += fmt::format("{}({}, {}, {}, {})", i == 0 ? "" : ", ", Pick(40),
                                   PartitionValue(), BigintValue(), StringValue());
    }
    return statement;
  }

 private:
  using Assignments = std::vector<std::pair<std::string, std::string>>;

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  std::string PartitionValue() { return fmt::format("'{}'", "abc"[Pick(3)]); }
  std::string BigintValue() {
    return Pick(6) == 0 ? "CAST(NULL AS BIGINT)" : fmt::format("CAST({} AS BIGINT)", Pick(21));
  }
  std::string StringValue() {
    return Pick(5) == 0 ? "CAST(NULL AS STRING)" : fmt::format("'{}'", "xyz"[Pick(3)]);
  }

  // A condition over the columns of `q` ("" for DELETE/UPDATE, "t." or "src." in MERGE).
  std::string Condition(const std::string& q) {
    switch (Pick(9)) {
      case 0:
        return fmt::format("{}id % {} = {}", q, 2 + Pick(3), Pick(2));
      case 1:
        return fmt::format("{}v > {}", q, Pick(20));
      case 2:
        return fmt::format("{}v <= {}", q, Pick(20));
      case 3:
        return fmt::format("{}v IS NULL", q);
      case 4:
        return fmt::format("{}p = {}", q, PartitionValue());
      case 5:
        return fmt::format("({}s = '{}' OR {}v < {})", q, "xyz"[Pick(3)], q, Pick(10));
      case 6: {
        const int low = Pick(30);
        return fmt::format("{}id BETWEEN {} AND {}", q, low, low + Pick(15));
      }
      case 7:
        return fmt::format("NOT ({}v > {})", q, Pick(15));
      default:
        return fmt::format("({}s IS NOT NULL AND {}id < {})", q, q, Pick(40));
    }
  }

  // Assignments for UPDATE (from the row itself, `q` "" or "t.") or for MERGE's matched
  // update (`from` "src." reads the source row).
  Assignments Assign(const std::string& q, const std::string& from) {
    Assignments set;
    const int which = 1 + Pick(7);
    if (which & 1) {
      switch (Pick(4)) {
        case 0:
          set.emplace_back("v", fmt::format("{}v + {}", q, 1 + Pick(5)));
          break;
        case 1:
          set.emplace_back("v", fmt::format("coalesce({}v, 0) * 2", q));
          break;
        case 2:
          set.emplace_back("v", fmt::format("{}v", from.empty() ? q : from));
          break;
        default:
          set.emplace_back("v", "CAST(NULL AS BIGINT)");
      }
    }
    if (which & 2) {
      set.emplace_back("s", Pick(2) == 0 ? fmt::format("{}s || 'q'", from.empty() ? q : from)
                                         : fmt::format("'{}'", "xyz"[Pick(3)]));
    }
    if (which & 4) {
      set.emplace_back("p",
                       Pick(2) == 0 || from.empty() ? PartitionValue() : fmt::format("{}p", from));
    }
    return set;
  }

  static std::string SetSql(const Assignments& set) {
    std::string out;
    for (const auto& [column, value] : set) {
      out += out.empty() ? "" : ", ";
      out += column;
      out += " = ";
      out += value;
    }
    return out;
  }

  DmlStatement Delete() {
    DmlStatement statement;
    statement.kind = DmlStatement::kDelete;
    statement.condition = Pick(12) == 0 ? std::string() : Condition("");
    statement.sql = "DELETE FROM t" +
                    (statement.condition.empty() ? std::string() : " WHERE " + statement.condition);
    return statement;
  }

  DmlStatement Update() {
    DmlStatement statement;
    statement.kind = DmlStatement::kUpdate;
    const Assignments set = Assign("", "");
    statement.set = {set.begin(), set.end()};
    statement.condition = Pick(8) == 0 ? std::string() : Condition("");
    statement.sql = "UPDATE t SET " + SetSql(set) +
                    (statement.condition.empty() ? std::string() : " WHERE " + statement.condition);
    return statement;
  }

  DmlStatement Merge() {
    DmlStatement statement;
    statement.kind = DmlStatement::kMerge;
    std::vector<int> ids(45);
    for (int i = 0; i < 45; ++i) {
      ids[static_cast<size_t>(i)] = i;
    }
    std::shuffle(ids.begin(), ids.end(), random_);
    const int rows = 1 + Pick(6);
    for (int i = 0; i < rows; ++i) {
      statement.source +=
          fmt::format("{}SELECT CAST({} AS BIGINT) AS id, {} AS p, {} AS v, {} AS s",
                      i == 0 ? "" : " UNION ALL ", ids[static_cast<size_t>(i)], PartitionValue(),
                      BigintValue(), StringValue());
    }
    statement.condition = "t.id = src.id";
    switch (Pick(4)) {
      case 0:
        statement.condition += " AND t.p = src.p";
        break;
      case 1:
        statement.condition += " AND " + Condition("t.");
        break;
      default:
        break;
    }
    std::string sql =
        "MERGE INTO t USING (" + statement.source + ") AS src ON " + statement.condition;
    // Only the last clause of each kind may go without a condition (Delta's rule).
    const auto add = [&](ApiClause clause, const std::string& head, const std::string& action) {
      sql +=
          head + (clause.condition.empty() ? "" : " AND " + clause.condition) + " THEN " + action;
      statement.clauses.push_back(std::move(clause));
    };
    const int matched = Pick(3);
    for (int i = 0; i < matched; ++i) {
      ApiClause clause;
      clause.kind = ApiClause::kMatched;
      if (i + 1 < matched || Pick(2) == 0) {
        clause.condition = Condition(Pick(2) == 0 ? "t." : "src.");
      }
      std::string action;
      switch (Pick(3)) {
        case 0:
          clause.action = ApiClause::kDelete;
          action = "DELETE";
          break;
        case 1:
          clause.action = ApiClause::kUpdateAll;
          action = "UPDATE SET *";
          break;
        default: {
          const Assignments set = Assign("t.", "src.");
          clause.action = ApiClause::kUpdate;
          clause.values = {set.begin(), set.end()};
          action = "UPDATE SET " + SetSql(set);
        }
      }
      add(std::move(clause), " WHEN MATCHED", action);
    }
    const int not_matched = Pick(3);
    for (int i = 0; i < not_matched; ++i) {
      ApiClause clause;
      clause.kind = ApiClause::kNotMatched;
      const std::string head = Pick(2) == 0 ? " WHEN NOT MATCHED" : " WHEN NOT MATCHED BY TARGET";
      if (i + 1 < not_matched || Pick(2) == 0) {
        clause.condition = Condition("src.");
      }
      std::string action;
      if (Pick(2) == 0) {
        clause.action = ApiClause::kInsertAll;
        action = "INSERT *";
      } else {
        clause.action = ApiClause::kInsert;
        clause.values = {{"id", "src.id"}, {"p", "src.p"}, {"v", "src.v + 100"}, {"s", "'n'"}};
        action = "INSERT (id, p, v, s) VALUES (src.id, src.p, src.v + 100, 'n')";
      }
      add(std::move(clause), head, action);
    }
    const int by_source = statement.clauses.empty() ? 1 : Pick(2);
    for (int i = 0; i < by_source; ++i) {
      ApiClause clause;
      clause.kind = ApiClause::kNotMatchedBySource;
      if (Pick(3) != 0) {
        clause.condition = Condition("t.");
      }
      std::string action;
      if (Pick(2) == 0) {
        clause.action = ApiClause::kDelete;
        action = "DELETE";
      } else {
        const Assignments set = Assign("t.", "");
        clause.action = ApiClause::kUpdate;
        clause.values = {set.begin(), set.end()};
        action = "UPDATE SET " + SetSql(set);
      }
      add(std::move(clause), " WHEN NOT MATCHED BY SOURCE", action);
    }
    statement.sql = std::move(sql);
    return statement;
  }

  std::mt19937 random_;
};

// Runs a DELETE, UPDATE or MERGE through the DeltaTable API instead of SQL.
Status RunThroughApi(const Session& session, const std::string& root,
                     const DmlStatement& statement) {
  TRIBUTARY_ASSIGN_OR_RAISE(DeltaTable table, DeltaTable::ForPath(session, root));
  switch (statement.kind) {
    case DmlStatement::kDelete:
      return (statement.condition.empty() ? table.Delete() : table.Delete(statement.condition))
          .status();
    case DmlStatement::kUpdate:
      return (statement.condition.empty() ? table.UpdateExpr(statement.set)
                                          : table.UpdateExpr(statement.condition, statement.set))
          .status();
    case DmlStatement::kMerge: {
      DeltaMergeBuilder merge =
          table.As("t").Merge(session.Sql(statement.source).Alias("src"), statement.condition);
      for (const ApiClause& clause : statement.clauses) {
        const bool has = !clause.condition.empty();
        switch (clause.kind) {
          case ApiClause::kMatched: {
            auto when = has ? merge.WhenMatched(clause.condition) : merge.WhenMatched();
            merge = clause.action == ApiClause::kDelete      ? when.Delete()
                    : clause.action == ApiClause::kUpdateAll ? when.UpdateAll()
                                                             : when.UpdateExpr(clause.values);
            break;
          }
          case ApiClause::kNotMatched: {
            auto when = has ? merge.WhenNotMatched(clause.condition) : merge.WhenNotMatched();
            merge = clause.action == ApiClause::kInsertAll ? when.InsertAll()
                                                           : when.InsertExpr(clause.values);
            break;
          }
          case ApiClause::kNotMatchedBySource: {
            auto when = has ? merge.WhenNotMatchedBySource(clause.condition)
                            : merge.WhenNotMatchedBySource();
            merge = clause.action == ApiClause::kDelete ? when.Delete()
                                                        : when.UpdateExpr(clause.values);
            break;
          }
        }
      }
      return merge.Execute().status();
    }
    case DmlStatement::kInsert:
      break;
  }
  return session.Sql(statement.sql).Collect().status();
}

struct TableShape {
  bool partitioned = false;
  bool deletion_vectors = false;
  bool change_data_feed = false;
};

std::string ShapeName(const TableShape& shape) {
  return fmt::format("partitioned={} deletion_vectors={} change_data_feed={}", shape.partitioned,
                     shape.deletion_vectors, shape.change_data_feed);
}

std::string CreateTableSql(const TableShape& shape, const std::string& root) {
  return fmt::format(
      "CREATE TABLE t (id BIGINT, p STRING, v BIGINT, s STRING) USING delta {}LOCATION '{}' "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = '{}', 'delta.enableChangeDataFeed' = "
      "'{}')",
      shape.partitioned ? "PARTITIONED BY (p) " : "", root, shape.deletion_vectors,
      shape.change_data_feed);
}

constexpr const char* kReadAll = "SELECT id, p, v, s FROM t";

// One seeded sequence over one table shape: after each statement our rows equal DuckDB's
// and, at the version it committed, the replay's.
void CheckSequence(const TableShape& shape, uint32_t seed, int statements) {
  SCOPED_TRACE(ShapeName(shape) + " seed " + std::to_string(seed));
  testing::TempDir dir;
  const std::string root = dir.Path() + "/t";
  ASSERT_OK_AND_ASSIGN(
      auto session,
      Session::Builder().Warehouse(dir.Path() + "/warehouse").TimeZone("UTC").Build());
  ASSERT_OK(session->Sql(CreateTableSql(shape, root)).Collect().status());
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(auto created, delta::Snapshot::Load(fs, root));
  const int64_t created_version = created->Version();

  DmlGenerator generator(seed);
  // Three appends first, so statements meet several files (and several per partition).
  std::vector<DmlStatement> sequence;
  sequence.reserve(3 + static_cast<size_t>(statements));
  for (int i = 0; i < 3; ++i) {
    sequence.push_back(generator.Insert(6));
  }
  for (int i = 0; i < statements; ++i) {
    sequence.push_back(generator.Next());
  }
  std::vector<std::string> duck = {"CREATE TABLE t (id BIGINT, p VARCHAR, v BIGINT, s VARCHAR)"};
  for (const DmlStatement& statement : sequence) {
    duck.push_back(statement.sql);
    duck.emplace_back(kReadAll);
  }
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleQueryMany(duck));

  std::vector<int64_t> versions;
  std::vector<std::vector<std::string>> ours_after;
  int non_empty = 0;
  int api_statements = 0;
  for (size_t i = 0; i < sequence.size(); ++i) {
    // Every other DELETE, UPDATE and MERGE goes through the DeltaTable API.
    const bool through_api = sequence[i].kind != DmlStatement::kInsert && i % 2 == 1;
    SCOPED_TRACE(fmt::format("statement {}{}: {}", i, through_api ? " (DeltaTable API)" : "",
                             sequence[i].sql));
    ASSERT_OK(expected[1 + 2 * i].status());
    ASSERT_OK(expected[2 + 2 * i].status());
    if (through_api) {
      ASSERT_OK(RunThroughApi(*session, root, sequence[i]));
      ++api_statements;
    } else {
      ASSERT_OK(session->Sql(sequence[i].sql).Collect().status());
    }
    ASSERT_OK_AND_ASSIGN(auto rows, session->Sql(kReadAll).Collect());
    std::vector<std::string> ours = testing::SortedJson(rows);
    ASSERT_EQ(ours, Sorted(*expected[2 + 2 * i]));
    non_empty += ours.empty() ? 0 : 1;
    ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs, root));
    versions.push_back(snapshot->Version());
    ours_after.push_back(std::move(ours));
  }
  EXPECT_GT(non_empty, static_cast<int>(sequence.size()) / 2);
  EXPECT_GT(api_statements, 0);

  ASSERT_OK_AND_ASSIGN(auto replayed, testing::ReplayDeltaVersions(root, versions));
  int files_with_dv = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    SCOPED_TRACE("after statement " + std::to_string(i) + ": " + sequence[i].sql);
    EXPECT_EQ(replayed[i].version, versions[i]);
    EXPECT_EQ(replayed[i].rows, ours_after[i]);
    for (const auto& file : replayed[i].files) {
      files_with_dv += file.deletion_vector.has_value() ? 1 : 0;
    }
  }
  // The change data feed, applied to each version's rows, gives the next version's rows:
  // deletes and update preimages were there and go, inserts and update postimages come.
  if (shape.change_data_feed) {
    std::vector<std::string> previous;
    int64_t previous_version = created_version;
    int change_rows = 0;
    std::vector<int64_t> change_versions;
    std::vector<std::vector<std::string>> ours_changes;
    std::vector<std::string> change_statements;
    for (size_t i = 0; i < versions.size(); ++i) {
      if (versions[i] == previous_version) {
        continue;
      }
      SCOPED_TRACE("changes of statement " + std::to_string(i) + ": " + sequence[i].sql);
      const auto changes = [&](const char* types) {
        return session
            ->Sql(fmt::format("SELECT id, p, v, s FROM table_changes('t', {}, {}) WHERE "
                              "_change_type IN ({})",
                              previous_version + 1, versions[i], types))
            .Collect();
      };
      ASSERT_OK_AND_ASSIGN(auto removed, changes("'delete', 'update_preimage'"));
      ASSERT_OK_AND_ASSIGN(auto added, changes("'insert', 'update_postimage'"));
      std::multiset<std::string> state(previous.begin(), previous.end());
      for (const std::string& row : testing::Json(removed)) {
        const auto it = state.find(row);
        ASSERT_NE(it, state.end()) << "a removed change row that was not in the table: " << row;
        state.erase(it);
      }
      for (std::string& row : testing::Json(added)) {
        state.insert(std::move(row));
      }
      EXPECT_EQ(std::vector<std::string>(state.begin(), state.end()), ours_after[i]);
      change_rows += static_cast<int>(removed.size() + added.size());
      if (versions[i] == previous_version + 1) {
        ASSERT_OK_AND_ASSIGN(auto all,
                             session
                                 ->Sql(fmt::format("SELECT id, p, v, s, _change_type FROM "
                                                   "table_changes('t', {}, {})",
                                                   versions[i], versions[i]))
                                 .Collect());
        change_versions.push_back(versions[i]);
        ours_changes.push_back(testing::SortedJson(all));
        change_statements.push_back(sequence[i].sql);
      }
      previous = ours_after[i];
      previous_version = versions[i];
    }
    EXPECT_GT(change_rows, 0);
    // The same changes read independently from the commits' cdc (or added) files.
    ASSERT_OK_AND_ASSIGN(auto replayed_changes, testing::ReplayChangeFeed(root, change_versions));
    int from_cdc_files = 0;
    for (size_t j = 0; j < change_versions.size(); ++j) {
      SCOPED_TRACE("replayed changes of " + change_statements[j]);
      EXPECT_EQ(replayed_changes[j], ours_changes[j]);
      for (const std::string& row : replayed_changes[j]) {
        // Only cdc files hold these (an append's changes are its added rows).
        from_cdc_files += row.find("\"_change_type\":\"insert\"") == std::string::npos ? 1 : 0;
      }
    }
    EXPECT_GT(from_cdc_files, 0);
  }
  // Deletion vectors are written exactly when the table enables them.
  if (shape.deletion_vectors) {
    EXPECT_GT(files_with_dv, 0);
  } else {
    EXPECT_EQ(files_with_dv, 0);
  }
}

TEST(DmlDifferentialTest, RandomSequencesAgreeWithDuckDbAndReplay) {
  uint32_t seed = 20261202;
  for (bool partitioned : {false, true}) {
    for (bool deletion_vectors : {false, true}) {
      for (bool change_data_feed : {false, true}) {
        CheckSequence({partitioned, deletion_vectors, change_data_feed}, seed++, 14);
      }
    }
  }
}

// A corpus table and DML for it: {t} names the table (delta.`path` for us, a plain table
// for DuckDB); MERGE names its target t.
struct CorpusCase {
  std::string table;
  // The table's columns as DuckDB's read_json `columns` argument, in schema order.
  std::string duck_columns;
  std::vector<std::string> statements;
  // For tables with the change data feed: their columns, to compare each statement's
  // table_changes with the replay's reading of its cdc files. Empty: no change data feed.
  std::string change_columns;
};

std::string WithTable(const std::string& sql, const std::string& table) {
  std::string out = sql;
  const size_t at = out.find("{t}");
  if (at != std::string::npos) {
    out.replace(at, 3, table);
  }
  return out;
}

// Spark's and delta-rs's deletion-vector and change-data tables accept DELETE, UPDATE and
// MERGE: after each statement our reader gives DuckDB's rows for the same statement over a
// plain copy, and the replay reads what our reader reads (the new deletion vectors next to
// Spark's, the new files next to theirs).
TEST(DmlCorpusTest, CorpusDeletionVectorAndChangeDataTablesAcceptDml) {
  const std::vector<CorpusCase> cases = {
      {"kernel-rs-table-with-dv-small",
       "{'value': 'INTEGER'}",
       {"DELETE FROM {t} WHERE value % 3 = 0", "UPDATE {t} SET value = value + 100 WHERE value < 4",
        "MERGE INTO {t} AS t USING (SELECT 5 AS value UNION ALL SELECT 1000 AS value) AS src ON "
        "t.value = src.value WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"},
       ""},
      {"delta-dv-partitioned-with-checkpoint",
       "{'part': 'INTEGER', 'col1': 'INTEGER', 'col2': 'VARCHAR'}",
       {"DELETE FROM {t} WHERE col1 % 4 = 1",
        "UPDATE {t} SET col2 = col2 || 'u' WHERE part = 2 OR col1 > 40",
        "MERGE INTO {t} AS t USING (SELECT 3 AS part, 13 AS col1, 'm' AS col2 UNION ALL SELECT 7, "
        "777, 'n') AS src ON t.col1 = src.col1 WHEN MATCHED THEN UPDATE SET col2 = src.col2 WHEN "
        "NOT MATCHED THEN INSERT *"},
       ""},
      {"delta-log-replay-dv-key-cases",
       "{'id': 'BIGINT'}",
       {"DELETE FROM {t} WHERE id % 7 = 2", "UPDATE {t} SET id = id * 10 WHERE id < 20",
        "MERGE INTO {t} AS t USING (SELECT CAST(30 AS BIGINT) AS id UNION ALL SELECT CAST(9999 AS "
        "BIGINT)) AS src ON t.id = src.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT "
        "*"},
       ""},
      {"delta-rs-cdf-table",
       "{'id': 'INTEGER', 'name': 'VARCHAR', 'birthday': 'DATE'}",
       {"DELETE FROM {t} WHERE id % 4 = 0", "UPDATE {t} SET name = name || '!' WHERE id < 5",
        "MERGE INTO {t} AS t USING (SELECT 1 AS id, 'One' AS name, DATE '2023-12-29' AS birthday "
        "UNION ALL SELECT 42, 'New', DATE '2024-01-01') AS src ON t.id = src.id WHEN MATCHED THEN "
        "UPDATE SET * WHEN NOT MATCHED THEN INSERT *"},
       "id, name, birthday"},
      {"kernel-rs-compacted-log-files-table",
       "{'id': 'INTEGER', 'comment': 'VARCHAR'}",
       {"DELETE FROM {t} WHERE id % 2 = 1", "UPDATE {t} SET comment = 'changed' WHERE id > 2",
        "MERGE INTO {t} AS t USING (SELECT 2 AS id, 'merged' AS comment UNION ALL SELECT 100, "
        "'inserted') AS src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED "
        "THEN INSERT * WHEN NOT MATCHED BY SOURCE AND t.id > 50 THEN DELETE"},
       "id, comment"},
      {"delta-deltalog-getChanges",
       "{'part': 'INTEGER', 'id': 'INTEGER'}",
       {"INSERT INTO {t} VALUES (1, 1), (1, 2), (2, 3)", "DELETE FROM {t} WHERE id = 2",
        "UPDATE {t} SET part = 3 WHERE id = 3",
        "MERGE INTO {t} AS t USING (SELECT 1 AS part, 1 AS id UNION ALL SELECT 5, 5) AS src ON "
        "t.id = src.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"},
       ""},
  };
  for (const CorpusCase& c : cases) {
    SCOPED_TRACE(c.table);
    testing::TempDir dir;
    const std::string root = dir.Path() + "/t";
    std::filesystem::copy(testing::TestdataDir() + "/golden/" + c.table + "/delta", root,
                          std::filesystem::copy_options::recursive);
    ASSERT_OK_AND_ASSIGN(
        auto session,
        Session::Builder().Warehouse(dir.Path() + "/warehouse").TimeZone("UTC").Build());
    // delta-deltalog-getChanges is empty at its latest version; its INSERT fills it first.
    const std::vector<std::string> before = OurRows(root);
    const std::string rows_file = dir.Path() + "/before.jsonl";
    {
      std::ofstream out(rows_file);
      for (const std::string& row : before) {
        out << row << "\n";
      }
    }
    std::vector<std::string> duck = {"CREATE TABLE t AS SELECT * FROM read_json('" + rows_file +
                                     "', format='newline_delimited', columns=" + c.duck_columns +
                                     ")"};
    for (const std::string& statement : c.statements) {
      duck.push_back(WithTable(statement, "t"));
      duck.emplace_back("SELECT * FROM t");
    }
    ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleQueryMany(duck));
    ASSERT_OK(expected[0].status());
    storage::LocalFileSystem fs;
    std::vector<int64_t> versions;
    std::vector<std::vector<std::string>> ours_after;
    for (size_t i = 0; i < c.statements.size(); ++i) {
      const std::string ours = WithTable(c.statements[i], "delta.`" + root + "`");
      SCOPED_TRACE(ours);
      ASSERT_OK(expected[1 + 2 * i].status());
      ASSERT_OK(expected[2 + 2 * i].status());
      ASSERT_OK(session->Sql(ours).Collect().status());
      std::vector<std::string> rows = OurRows(root);
      EXPECT_EQ(rows, Sorted(*expected[2 + 2 * i]));
      ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs, root));
      versions.push_back(snapshot->Version());
      ours_after.push_back(std::move(rows));
    }
    ASSERT_OK_AND_ASSIGN(auto replayed, testing::ReplayDeltaVersions(root, versions));
    for (size_t i = 0; i < versions.size(); ++i) {
      SCOPED_TRACE("after " + c.statements[i]);
      EXPECT_EQ(replayed[i].rows, ours_after[i]);
    }
    if (c.change_columns.empty()) {
      continue;
    }
    ASSERT_OK_AND_ASSIGN(auto replayed_changes, testing::ReplayChangeFeed(root, versions));
    for (size_t i = 0; i < versions.size(); ++i) {
      SCOPED_TRACE("changes of " + c.statements[i]);
      ASSERT_OK_AND_ASSIGN(
          auto changes,
          session
              ->Sql(fmt::format("SELECT {}, _change_type FROM table_changes('delta.`{}`', {}, {})",
                                c.change_columns, root, versions[i], versions[i]))
              .Collect());
      EXPECT_FALSE(changes.empty());
      EXPECT_EQ(testing::SortedJson(changes), replayed_changes[i]);
    }
  }
}

// A corpus table with a writer feature tributary does not write (in-commit timestamps) refuses
// DML before writing anything: no new file anywhere in the table.
TEST(DmlCorpusTest, TableWithUnwrittenWriterFeatureRefusesDmlBeforeWriting) {
  testing::TempDir dir;
  const std::string root = dir.Path() + "/t";
  std::filesystem::copy(testing::TestdataDir() + "/golden/delta-rs-cdc_ict_table/delta", root,
                        std::filesystem::copy_options::recursive);
  const auto listing = [&root] {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      files.push_back(entry.path().string());
    }
    return Sorted(std::move(files));
  };
  const std::vector<std::string> files_before = listing();
  ASSERT_OK_AND_ASSIGN(
      auto session,
      Session::Builder().Warehouse(dir.Path() + "/warehouse").TimeZone("UTC").Build());
  for (const char* statement :
       {"DELETE FROM {t} WHERE age > 30", "UPDATE {t} SET age = age + 1",
        "MERGE INTO {t} AS t USING (SELECT 'x' AS name, 2000 AS birthyear, 24 AS age) AS src ON "
        "t.name = src.name WHEN NOT MATCHED THEN INSERT *"}) {
    SCOPED_TRACE(statement);
    const Status status =
        session->Sql(WithTable(statement, "delta.`" + root + "`")).Collect().status();
    EXPECT_TRUE(status.IsNotImplemented()) << status.ToString();
    EXPECT_NE(status.ToString().find("inCommitTimestamp"), std::string::npos) << status.ToString();
    EXPECT_EQ(listing(), files_before);
  }
}

}  // namespace
}  // namespace tributary

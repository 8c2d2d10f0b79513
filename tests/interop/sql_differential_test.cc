// Differential testing of the query engine: DuckDB writes seeded pseudo-random tables as
// Parquet, a seeded generator writes SQL queries (filters, projections, aggregates, joins,
// sorts) in the dialect both engines share, and every query must give the same rows in
// tributary (Session::Sql, on one thread and, in the same order, on three) and DuckDB over the
// same files. Without ORDER BY the rows compare
// as multisets; with one, the generator orders by every output column, so the order is total
// and compared exactly.

#include <algorithm>
#include <functional>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using testing::Json;

// Columns of both tables: k (join/group key with nulls), a, b (bigint with nulls),
// d (double with nulls), s (string with nulls and an empty string), id (unique bigint).
constexpr const char* kTableSql =
    "SELECT CASE WHEN hash(i, {seed}) % 11 = 0 THEN NULL ELSE (hash(i, {seed} + 1) % "
    "{keys})::BIGINT "
    "END AS k, (hash(i, {seed} + 2) % 200)::BIGINT - 100 AS a, CASE WHEN hash(i, {seed} + 3) % 7 = "
    "0 "
    "THEN NULL ELSE (hash(i, {seed} + 4) % 50)::BIGINT END AS b, CASE WHEN hash(i, {seed} + 5) % 9 "
    "= 0 "
    "THEN NULL ELSE (hash(i, {seed} + 6) % 10000)::DOUBLE / 8 END AS d, (['x', 'y', 'z', '', 'xy', "
    "NULL])[1 + (hash(i, {seed} + 7) % 6)::BIGINT] AS s, i AS id FROM range({rows}) r(i)";

std::string Replace(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos;
       at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

class QueryGenerator {
 public:
  explicit QueryGenerator(uint32_t seed) : random_(seed) {}

  std::string Next() {
    switch (Pick(5)) {
      case 0:
        return Projection();
      case 1:
        return Aggregation();
      case 2:
        return JoinQuery();
      case 3:
        return TopN();
      default:
        return GlobalAggregate();
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  template <typename T>
  const T& OneOf(const std::vector<T>& items) {
    return items[static_cast<size_t>(Pick(static_cast<int>(items.size())))];
  }

  std::string Literal(const std::string& column) {
    if (column == "s") {
      return OneOf<std::string>({"'x'", "'y'", "''", "'xy'", "'z'"});
    }
    if (column == "d") {
      return std::to_string(Pick(1250)) + ".5";
    }
    return std::to_string(Pick(120) - 20);
  }

  std::string Comparison(const std::string& qualifier) {
    const std::string column = OneOf<std::string>({"k", "a", "b", "d", "s"});
    const std::string ref = qualifier + column;
    switch (Pick(6)) {
      case 0:
        return ref + (Pick(2) ? " IS NULL" : " IS NOT NULL");
      case 1:
        return ref + " BETWEEN " + Literal(column) + " AND " + Literal(column);
      case 2:
        return ref + " IN (" + Literal(column) + ", " + Literal(column) + ")";
      default:
        return ref + " " + OneOf<std::string>({"=", "<>", "<", "<=", ">", ">="}) + " " +
               Literal(column);
    }
  }

  std::string Predicate(const std::string& qualifier, int depth = 0) {
    if (depth >= 2 || Pick(3) == 0) {
      return Comparison(qualifier);
    }
    switch (Pick(3)) {
      case 0:
        return "(" + Predicate(qualifier, depth + 1) + " AND " + Predicate(qualifier, depth + 1) +
               ")";
      case 1:
        return "(" + Predicate(qualifier, depth + 1) + " OR " + Predicate(qualifier, depth + 1) +
               ")";
      default:
        return "NOT (" + Predicate(qualifier, depth + 1) + ")";
    }
  }

  std::string Projection() {
    std::vector<std::string> items = {"k",
                                      "a",
                                      "b + a AS ab",
                                      "d",
                                      "s",
                                      "a * 2 - b AS x",
                                      "CASE WHEN a > 0 THEN s ELSE 'neg' END AS c",
                                      "coalesce(b, a) AS cb"};
    std::shuffle(items.begin(), items.end(), random_);
    items.resize(1 + static_cast<size_t>(Pick(4)));
    std::string sql = "SELECT ";
    for (size_t i = 0; i < items.size(); ++i) {
      sql += (i > 0 ? ", " : "") + items[i];
    }
    sql += " FROM {t}";
    if (Pick(4) != 0) {
      sql += " WHERE " + Predicate("");
    }
    return sql;
  }

  std::string Aggregates(const std::string& qualifier) {
    std::vector<std::string> aggs = {"count(*) AS n",
                                     "count(" + qualifier + "b) AS nb",
                                     "sum(" + qualifier + "a) AS sa",
                                     "min(" + qualifier + "d) AS mind",
                                     "max(" + qualifier + "s) AS maxs",
                                     "avg(" + qualifier + "b) AS avgb",
                                     "count(DISTINCT " + qualifier + "s) AS ds",
                                     "max(" + qualifier + "a) - min(" + qualifier + "a) AS spread"};
    std::shuffle(aggs.begin(), aggs.end(), random_);
    aggs.resize(1 + static_cast<size_t>(Pick(4)));
    std::string out;
    for (size_t i = 0; i < aggs.size(); ++i) {
      out += (i > 0 ? ", " : "") + aggs[i];
    }
    return out;
  }

  std::string Aggregation() {
    const std::string key = OneOf<std::string>({"k", "s", "b"});
    std::string sql = "SELECT " + key + ", " + Aggregates("") + " FROM {t}";
    if (Pick(2) == 0) {
      sql += " WHERE " + Predicate("");
    }
    sql += " GROUP BY " + key;
    if (Pick(3) == 0) {
      sql += " HAVING count(*) > " + std::to_string(Pick(5));
    }
    return sql;
  }

  std::string GlobalAggregate() {
    std::string sql = "SELECT " + Aggregates("") + " FROM {t}";
    if (Pick(2) == 0) {
      sql += " WHERE " + Predicate("");
    }
    return sql;
  }

  std::string JoinQuery() {
    const std::string kind = OneOf<std::string>(
        {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "SEMI JOIN", "ANTI JOIN"});
    const bool left_only = kind == "SEMI JOIN" || kind == "ANTI JOIN";
    std::string condition = "l.k = r.k";
    if (Pick(3) == 0) {
      condition += " AND l.a < r.a";
    }
    std::string sql = left_only ? "SELECT l.k, l.a, l.s" : "SELECT l.k, l.a, r.k AS rk, r.s AS rs";
    if (!left_only && Pick(3) == 0) {
      sql = "SELECT r.s AS rs, " + Aggregates("l.");
      sql += " FROM {t} l " + kind + " {u} r ON " + condition + " GROUP BY r.s";
      return sql;
    }
    sql += " FROM {t} l " + kind + " {u} r ON " + condition;
    if (Pick(2) == 0) {
      sql += " WHERE " + Predicate("l.");
    }
    return sql;
  }

  std::string TopN() {
    std::string sql = "SELECT k, a, s FROM {t}";
    if (Pick(2) == 0) {
      sql += " WHERE " + Predicate("");
    }
    // Every output column in the ORDER BY: a total order, so LIMIT is deterministic too.
    std::vector<std::string> keys = {"k", "a", "s"};
    std::shuffle(keys.begin(), keys.end(), random_);
    sql += " ORDER BY ";
    for (size_t i = 0; i < keys.size(); ++i) {
      sql += (i > 0 ? ", " : "") + keys[i] + (Pick(2) ? " ASC" : " DESC") +
             (Pick(2) ? " NULLS FIRST" : " NULLS LAST");
    }
    sql += " LIMIT " + std::to_string(1 + Pick(40));
    return sql;
  }

  std::mt19937 random_;
};

// Window function queries: every function family, partitioned or not, ordered by a column
// with ties (and by id too where the result would depend on how ties fall), with frames of
// each kind.
class WindowQueryGenerator {
 public:
  explicit WindowQueryGenerator(uint32_t seed) : random_(seed) {}

  std::string Next() {
    const std::string partition =
        OneOf<std::string>({"", "PARTITION BY k ", "PARTITION BY s ", "PARTITION BY k, s "});
    const std::string key = OneOf<std::string>({"a", "b", "d", "s"});
    const std::string order =
        key + (Pick(2) ? " ASC" : " DESC") + (Pick(2) ? " NULLS FIRST" : " NULLS LAST");
    const std::string function = OneOf<std::string>(
        {"row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()", "ntile(4)",
         "lag(a)", "lead(b, 2)", "lag(s, 1, 'none')", "sum(a)", "count(b)", "min(d)", "max(s)",
         "avg(b)", "count(*)", "first_value(b)", "last_value(a)"});
    const bool aggregate = function.starts_with("sum") || function.starts_with("count") ||
                           function.starts_with("min") || function.starts_with("max") ||
                           function.starts_with("avg") || function.starts_with("first") ||
                           function.starts_with("last");
    const bool ranks_ties = function == "rank()" || function == "dense_rank()" ||
                            function == "percent_rank()" || function == "cume_dist()";
    std::string frame;
    if (aggregate) {
      frame = OneOf<std::string>({"", " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                                  " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING",
                                  " ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
                                  " RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                                  " RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING"});
      // Which row of a RANGE frame's ties comes first is not defined: first/last_value there
      // would compare arbitrary choices.
      if (frame.find("5 PRECEDING") != std::string::npos &&
          (function.starts_with("first") || function.starts_with("last"))) {
        frame = "";
      }
    }
    std::string over = partition + "ORDER BY ";
    if (frame.find("5 PRECEDING") != std::string::npos) {
      // A RANGE offset needs one numeric key; a is never null.
      over += std::string("a") + (Pick(2) ? " ASC" : " DESC") + " NULLS FIRST";
    } else {
      over += order + (ranks_ties ? "" : ", id ASC NULLS FIRST");
    }
    std::string sql = "SELECT id, " + function + " OVER (" + over + frame + ") AS w FROM {t}";
    if (Pick(3) == 0) {
      sql += " WHERE a > " + std::to_string(Pick(150) - 100);
    }
    return sql;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  template <typename T>
  const T& OneOf(const std::vector<T>& items) {
    return items[static_cast<size_t>(Pick(static_cast<int>(items.size())))];
  }

  std::mt19937 random_;
};

// Set operations (INTERSECT/EXCEPT [ALL], mixed with UNION to exercise precedence), grouping
// sets (ROLLUP, CUBE, GROUPING SETS with grouping()), and GROUP BY ALL with ORDER BY ALL.
class SetAndGroupingQueryGenerator {
 public:
  explicit SetAndGroupingQueryGenerator(uint32_t seed) : random_(seed) {}

  std::string Next() {
    switch (Pick(3)) {
      case 0:
        return SetOperation();
      case 1:
        return GroupingSets();
      default:
        return GroupByAll();
    }
  }

 private:
  std::string SetOperation() {
    const std::string columns =
        OneOf<std::string>({"k", "k, b % 4 AS b4", "s", "k, s", "b % 3 AS b3, s"});
    auto side = [&](const std::string& table) {
      return "SELECT " + columns + " FROM " + table + " WHERE a > " +
             std::to_string(Pick(120) - 100);
    };
    auto op = [&] {
      return OneOf<std::string>(
          {" INTERSECT ", " INTERSECT ALL ", " EXCEPT ", " EXCEPT ALL ", " UNION ALL "});
    };
    std::string sql = side("{t}") + op() + side("{u}");
    if (Pick(2) == 0) {
      sql += op() + side(Pick(2) ? "{t}" : "{u}");
    }
    return sql;
  }

  std::string GroupingSets() {
    const std::string first = OneOf<std::string>({"k", "s", "b % 3"});
    const std::string second = first == "s" ? "k" : "s";
    const std::string by = OneOf<std::string>(
        {"ROLLUP(" + first + ", " + second + ")", "CUBE(" + first + ", " + second + ")",
         "GROUPING SETS ((" + first + ", " + second + "), (" + second + "), ())",
         first + ", ROLLUP(" + second + ")"});
    std::string sql = "SELECT " + first + " AS g1, " + second + " AS g2, grouping(" + first +
                      ") AS gg1, grouping(" + second +
                      ") AS gg2, count(*) AS n, min(a) AS lo, max(d) AS hi FROM {t} GROUP BY " + by;
    if (Pick(3) == 0) {
      sql += " HAVING count(*) > " + std::to_string(Pick(20));
    }
    return sql;
  }

  std::string GroupByAll() {
    const std::string keys = OneOf<std::string>({"k", "s", "k, s", "b % 5 AS b5, s"});
    std::string sql =
        "SELECT " + keys + ", count(*) AS n, max(a) AS m FROM {t} GROUP BY ALL ORDER BY ALL";
    sql += Pick(2) ? " ASC" : " DESC";
    sql += Pick(2) ? " NULLS FIRST" : " NULLS LAST";
    if (Pick(2) == 0) {
      sql += " LIMIT " + std::to_string(1 + Pick(30));
    }
    return sql;
  }

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  template <typename T>
  const T& OneOf(const std::vector<T>& items) {
    return items[static_cast<size_t>(Pick(static_cast<int>(items.size())))];
  }

  std::mt19937 random_;
};

Result<std::shared_ptr<Session>> SessionWithThreads(const testing::TempDir& dir, int threads) {
  return Session::Builder()
      .Warehouse(dir.Path() + "/warehouse")
      .TimeZone("UTC")
      .Config("tributary.threads", std::to_string(threads))
      .Build();
}

// Runs each query of `ours_sql` on one and on three threads and compares the rows with DuckDB's
// (`expected`, same positions): exactly when `ordered(sql)` says the query's order is total,
// else as multisets. On three threads the rows must come in the same order too, unless
// `threads_may_reorder`. Returns how many queries gave rows.
int ExpectAgreement(Session& one, Session& three, const std::vector<std::string>& ours_sql,
                    const std::vector<Result<std::vector<std::string>>>& expected,
                    const std::function<bool(const std::string&)>& ordered,
                    bool threads_may_reorder) {
  int non_empty = 0;
  for (size_t i = 0; i < ours_sql.size(); ++i) {
    SCOPED_TRACE(ours_sql[i]);
    EXPECT_OK(expected[i].status());
    auto rows = one.Sql(ours_sql[i]).Collect();
    auto threaded_rows = three.Sql(ours_sql[i]).Collect();
    EXPECT_OK(rows.status());
    EXPECT_OK(threaded_rows.status());
    if (!expected[i].ok() || !rows.ok() || !threaded_rows.ok()) {
      continue;
    }
    std::vector<std::string> ours = Json(*rows);
    std::vector<std::string> ours_threaded = Json(*threaded_rows);
    std::vector<std::string> theirs = *expected[i];
    if (threads_may_reorder) {
      std::sort(ours_threaded.begin(), ours_threaded.end());
      std::vector<std::string> sorted = ours;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(ours_threaded, sorted);
    } else {
      EXPECT_EQ(ours_threaded, ours);
    }
    if (!ordered(ours_sql[i])) {
      std::sort(ours.begin(), ours.end());
      std::sort(theirs.begin(), theirs.end());
    }
    EXPECT_EQ(ours, theirs);
    non_empty += ours.empty() ? 0 : 1;
  }
  return non_empty;
}

// `count` queries of `generator`, as tributary's SQL (tables {t} and {u} as parquet.`path`) and
// as DuckDB's (read_parquet('path')).
template <typename Generator>
std::pair<std::vector<std::string>, std::vector<std::string>> Queries(Generator& generator,
                                                                      int count,
                                                                      const std::string& t,
                                                                      const std::string& u) {
  std::vector<std::string> ours;
  std::vector<std::string> duck;
  for (int i = 0; i < count; ++i) {
    const std::string sql = generator.Next();
    ours.push_back(
        Replace(Replace(sql, "{t}", "parquet.`" + t + "`"), "{u}", "parquet.`" + u + "`"));
    duck.push_back(Replace(Replace(sql, "{t}", "read_parquet('" + t + "')"), "{u}",
                           "read_parquet('" + u + "')"));
  }
  return {std::move(ours), std::move(duck)};
}

bool HasOrderBy(const std::string& sql) {
  return sql.find("ORDER BY") != std::string::npos;
}

TEST(SqlDifferentialTest, RandomQueriesAgreeWithDuckDb) {
  testing::TempDir dir;
  const std::string t = dir.Path() + "/t.parquet";
  const std::string u = dir.Path() + "/u.parquet";
  ASSERT_OK(testing::OracleWriteParquet(
      t, Replace(Replace(Replace(kTableSql, "{seed}", "11"), "{keys}", "40"), "{rows}", "3000"),
      "snappy", 1000));
  ASSERT_OK(testing::OracleWriteParquet(
      u, Replace(Replace(Replace(kTableSql, "{seed}", "23"), "{keys}", "60"), "{rows}", "400")));
  // One thread, and three: t's three row groups are read by three workers.
  ASSERT_OK_AND_ASSIGN(auto session, SessionWithThreads(dir, 1));
  ASSERT_OK_AND_ASSIGN(auto threaded, SessionWithThreads(dir, 3));

  QueryGenerator generator(20261129);
  constexpr int kQueries = 300;
  const auto [ours_sql, duck_sql] = Queries(generator, kQueries, t, u);
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleQueryMany(duck_sql));
  const int non_empty = ExpectAgreement(*session, *threaded, ours_sql, expected, HasOrderBy,
                                        /*threads_may_reorder=*/false);
  // The generator must produce queries with results, or the comparison proves little.
  EXPECT_GT(non_empty, kQueries / 2);
}

TEST(SqlDifferentialTest, WindowFunctionsAgreeWithDuckDb) {
  testing::TempDir dir;
  const std::string t = dir.Path() + "/t.parquet";
  ASSERT_OK(testing::OracleWriteParquet(
      t, Replace(Replace(Replace(kTableSql, "{seed}", "31"), "{keys}", "12"), "{rows}", "2000"),
      "snappy", 700));
  ASSERT_OK_AND_ASSIGN(auto session, SessionWithThreads(dir, 1));
  ASSERT_OK_AND_ASSIGN(auto threaded, SessionWithThreads(dir, 3));

  WindowQueryGenerator generator(20261203);
  constexpr int kQueries = 100;
  const auto [ours_sql, duck_sql] = Queries(generator, kQueries, t, "");
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleQueryMany(duck_sql));
  // Window queries give a row per input row; their ORDER BY is inside OVER, not total.
  const int non_empty = ExpectAgreement(
      *session, *threaded, ours_sql, expected, [](const std::string&) { return false; },
      /*threads_may_reorder=*/false);
  EXPECT_EQ(non_empty, kQueries);
}

TEST(SqlDifferentialTest, SetOperationsAndGroupingSetsAgreeWithDuckDb) {
  testing::TempDir dir;
  const std::string t = dir.Path() + "/t.parquet";
  const std::string u = dir.Path() + "/u.parquet";
  ASSERT_OK(testing::OracleWriteParquet(
      t, Replace(Replace(Replace(kTableSql, "{seed}", "41"), "{keys}", "15"), "{rows}", "1500"),
      "snappy", 600));
  ASSERT_OK(testing::OracleWriteParquet(
      u, Replace(Replace(Replace(kTableSql, "{seed}", "53"), "{keys}", "15"), "{rows}", "500")));
  ASSERT_OK_AND_ASSIGN(auto session, SessionWithThreads(dir, 1));
  ASSERT_OK_AND_ASSIGN(auto threaded, SessionWithThreads(dir, 3));

  SetAndGroupingQueryGenerator generator(20261204);
  constexpr int kQueries = 120;
  const auto [ours_sql, duck_sql] = Queries(generator, kQueries, t, u);
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleQueryMany(duck_sql));
  // ORDER BY ALL orders by every column: a total order, compared exactly.
  const int non_empty = ExpectAgreement(*session, *threaded, ours_sql, expected, HasOrderBy,
                                        /*threads_may_reorder=*/true);
  EXPECT_GT(non_empty, kQueries / 2);
}

}  // namespace
}  // namespace tributary

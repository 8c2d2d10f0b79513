// The FROM clause extensions of parser_pivot.cc: LATERAL VIEW, PIVOT, UNPIVOT and TABLESAMPLE,
// checked through the canonical text of what is parsed and the errors' messages.

#include <gtest/gtest.h>

#include "sql/parser.h"
#include "support/status_matchers.h"

namespace tributary::sql {
namespace {

std::string PivotSql(std::string_view text) {
  auto statement = ParseStatement(text);
  if (!statement.ok()) {
    return "error: " + statement.status().Message();
  }
  return ToString(*statement);
}

bool PivotErrorContains(std::string_view text, std::string_view part) {
  auto statement = ParseStatement(text);
  return !statement.ok() && statement.status().Message().find(part) != std::string::npos;
}

TEST(ParserPivotTest, LateralViewsFollowTheFromClause) {
  EXPECT_EQ(PivotSql("SELECT * FROM t LATERAL VIEW explode(a) x AS v"),
            "SELECT * FROM t LATERAL VIEW explode(a) x AS v");
  EXPECT_EQ(PivotSql("select * from t, u lateral view outer posexplode(a) x p, v "
                     "lateral view inline(s) y where p > 0"),
            "SELECT * FROM (t CROSS JOIN u) LATERAL VIEW OUTER posexplode(a) x AS p, v LATERAL "
            "VIEW inline(s) y WHERE (p > 0)");
  auto statement = ParseStatement("SELECT * FROM t LATERAL VIEW explode(a) x AS v");
  ASSERT_OK(statement.status());
  const Relation& from = *std::get<QueryPtr>(statement->body)->from;
  ASSERT_EQ(from.kind, RelationKind::kLateralView);
  EXPECT_EQ(from.left->table.ToString(), "t");
  EXPECT_EQ(from.lateral_view->table_alias, "x");
  EXPECT_EQ(from.lateral_view->column_aliases, std::vector<std::string>{"v"});

  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t LATERAL VIEW explode(a) AS v", "a table name"));
  EXPECT_EQ(PivotSql("SELECT * FROM t, LATERAL (SELECT t.a + 1 AS b) s"),
            "SELECT * FROM (t CROSS JOIN LATERAL (SELECT (t.a + 1) AS b) AS s)");
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t, LATERAL u", "LATERAL subqueries are not"));
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t JOIN LATERAL (u JOIN v ON true) ON true",
                                 "LATERAL subqueries are not"));
}

TEST(ParserPivotTest, GeneratorColumnsNamedInSelect) {
  EXPECT_EQ(PivotSql("SELECT posexplode(a) AS (p, v), b FROM t"),
            "SELECT posexplode(a) AS (p, v), b FROM t");
  EXPECT_TRUE(PivotErrorContains("SELECT posexplode(a) AS () FROM t", "expected"));
}

TEST(ParserPivotTest, PivotWithAliasesAndTuples) {
  EXPECT_EQ(PivotSql("SELECT * FROM t PIVOT (sum(e) s, avg(e) AS a FOR y IN (2012 first, 2013))"),
            "SELECT * FROM t PIVOT (sum(e) AS s, avg(e) AS a FOR y IN (2012 AS first, 2013))");
  EXPECT_EQ(PivotSql("SELECT * FROM t PIVOT (sum(e) FOR (c, y) IN (('a', 1) AS x, ('b', 2))) p"),
            "SELECT * FROM t PIVOT (sum(e) FOR (c, y) IN (struct('a', 1) AS x, struct('b', 2))) AS "
            "p");
  // PIVOT is not reserved: without a parenthesis it is an alias.
  EXPECT_EQ(PivotSql("SELECT pivot.a FROM t pivot"), "SELECT pivot.a FROM t AS pivot");
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t PIVOT (sum(e) FOR y IN ())", "expected"));
  EXPECT_TRUE(
      PivotErrorContains("SELECT * FROM t PIVOT (sum(e) FOR y IN (1)) UNPIVOT (v FOR n IN (a))",
                         "NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT"));
  EXPECT_TRUE(
      PivotErrorContains("SELECT * FROM t LATERAL VIEW explode(a) x PIVOT (sum(e) FOR y IN (1))",
                         "NOT_ALLOWED_IN_FROM.LATERAL_WITH_PIVOT"));
}

TEST(ParserPivotTest, UnpivotSingleAndMultiValue) {
  EXPECT_EQ(PivotSql("SELECT * FROM t UNPIVOT (v FOR n IN (a, b AS bee))"),
            "SELECT * FROM t UNPIVOT (v FOR n IN (a, b AS bee))");
  EXPECT_EQ(
      PivotSql("SELECT * FROM t UNPIVOT INCLUDE NULLS ((v, w) FOR n IN ((a, b) ab, (c, d))) u"),
      "SELECT * FROM t UNPIVOT INCLUDE NULLS ((v, w) FOR n IN ((a, b) AS ab, (c, d))) AS u");
  EXPECT_EQ(PivotSql("SELECT * FROM t UNPIVOT EXCLUDE NULLS (v FOR n IN (s.x))"),
            "SELECT * FROM t UNPIVOT (v FOR n IN (s.x))");
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t UNPIVOT (() FOR n IN ((a, b)))", "expected"));
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t UNPIVOT (v FOR n IN ())", "expected"));
}

TEST(ParserPivotTest, TableSampleBeforeTheAlias) {
  EXPECT_EQ(PivotSql("SELECT * FROM t TABLESAMPLE (10 PERCENT) s"),
            "SELECT * FROM t TABLESAMPLE (10 PERCENT) AS s");
  EXPECT_EQ(PivotSql("SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4) REPEATABLE (3)"),
            "SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4) REPEATABLE (3)");
  EXPECT_EQ(PivotSql("SELECT * FROM (SELECT 1) TABLESAMPLE (5 ROWS)"),
            "SELECT * FROM (SELECT 1) TABLESAMPLE (5 ROWS)");
  EXPECT_EQ(PivotSql("SELECT * FROM t tablesample"), "SELECT * FROM t AS tablesample");
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t TABLESAMPLE (150 PERCENT)",
                                 "Sampling fraction (1.5) must be on interval [0, 1]"));
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t TABLESAMPLE ()",
                                 "TABLESAMPLE does not accept empty inputs."));
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 2 ON rand())",
                                 "TABLESAMPLE(BUCKET x OUT OF y ON function) is not supported"));
  EXPECT_TRUE(PivotErrorContains("SELECT * FROM t TABLESAMPLE (10 BYTES)", "expected ROWS"));
}

}  // namespace
}  // namespace tributary::sql

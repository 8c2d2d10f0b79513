#include "sql/parser.h"

#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/closest_match.h"
#include "support/status_matchers.h"

namespace tributary::sql {
namespace {

using columnar::TypeId;

// The canonical text of the one statement in `text`, or "error: <message>".
std::string Sql(std::string_view text) {
  auto statement = ParseStatement(text);
  if (!statement.ok()) {
    return "error: " + statement.status().Message();
  }
  return ToString(*statement);
}

// The SELECT list of "SELECT <expression>" printed.
std::string Expr(std::string_view expression) {
  const std::string text = Sql(std::string("SELECT ") + std::string(expression));
  return text.rfind("SELECT ", 0) == 0 ? text.substr(7) : text;
}

std::string Error(std::string_view text) {
  auto statement = ParseStatement(text);
  EXPECT_FALSE(statement.ok()) << text;
  if (statement.ok()) {
    return "";
  }
  EXPECT_EQ(statement.status().Code(), StatusCode::kInvalidArgument);
  return statement.status().Message();
}

expr::ExprPtr FirstItem(const Statement& statement) {
  return std::get<QueryPtr>(statement.body)->select.at(0).expr;
}

TEST(ParserTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(Expr("1 + 2 * 3 - 4"), "((1 + (2 * 3)) - 4)");
  EXPECT_EQ(Expr("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Expr("a / b % c * d"), "(((a / b) % c) * d)");
  EXPECT_EQ(Expr("-a * b"), "((- a) * b)");
  EXPECT_EQ(Expr("+a"), "a");
  EXPECT_EQ(Expr("a DIV b + 1"), "(div(a, b) + 1)");
  EXPECT_EQ(Expr("a || b + c"), "(concat(a, b) + c)");
  EXPECT_EQ(Expr("a + b || c"), "concat((a + b), c)");
}

TEST(ParserTest, BitwiseOperatorsBindBetweenArithmeticAndComparison) {
  EXPECT_EQ(Expr("a | b ^ c & d + 1"), "|(a, ^(b, &(c, (d + 1))))");
  EXPECT_EQ(Expr("~a = b & c"), "(~(a) = &(b, c))");
}

TEST(ParserTest, ComparisonsThenPredicatesThenNotAndOr) {
  EXPECT_EQ(Expr("a = 1 OR b < 2 AND NOT c >= 3"), "((a = 1) OR ((b < 2) AND (NOT (c >= 3))))");
  EXPECT_EQ(Expr("a == b"), "(a = b)");
  EXPECT_EQ(Expr("a <> b"), "(a != b)");
  EXPECT_EQ(Expr("a <=> b"), "(a <=> b)");
  EXPECT_EQ(Expr("!a"), "(NOT a)");
  EXPECT_EQ(Expr("a = b IS NULL"), "((a = b) IS NULL)");
  EXPECT_EQ(Expr("x BETWEEN 1 AND 2 AND y"), "((x BETWEEN 1 AND 2) AND y)");
  EXPECT_EQ(Expr("x NOT BETWEEN a + 1 AND b"), "(NOT (x BETWEEN (a + 1) AND b))");
  EXPECT_EQ(Expr("x IN (1, 2, 3)"), "(x IN (1, 2, 3))");
  EXPECT_EQ(Expr("x NOT IN ('a')"), "(NOT (x IN ('a')))");
  EXPECT_EQ(Expr("x IS NOT NULL"), "(x IS NOT NULL)");
  EXPECT_EQ(Expr("x IS TRUE"), "(x <=> true)");
  EXPECT_EQ(Expr("x IS NOT FALSE"), "(NOT (x <=> false))");
  EXPECT_EQ(Expr("x IS DISTINCT FROM y"), "(NOT (x <=> y))");
  EXPECT_EQ(Expr("x IS NOT DISTINCT FROM y"), "(x <=> y)");
}

TEST(ParserTest, LikeFamilyIsFunctionCalls) {
  EXPECT_EQ(Expr("s LIKE 'a%'"), "like(s, 'a%')");
  EXPECT_EQ(Expr("s NOT LIKE 'a!%' ESCAPE '!'"), "(NOT like(s, 'a!%', '!'))");
  EXPECT_EQ(Expr("s ILIKE 'A%'"), "ilike(s, 'A%')");
  EXPECT_EQ(Expr("s RLIKE '^a' OR s REGEXP 'b$'"), "(rlike(s, '^a') OR rlike(s, 'b$'))");
  EXPECT_EQ(Expr("COALESCE(a, b, 0)"), "coalesce(a, b, 0)");
}

TEST(ParserTest, PostfixNestedAccessAndDoubleColonCast) {
  EXPECT_EQ(Expr("a.b.c"), "a.b.c");
  EXPECT_EQ(Expr("arr[0].f"), "arr[0].f");
  EXPECT_EQ(Expr("m['k'] + 1"), "(m['k'] + 1)");
  EXPECT_EQ(Expr("`a.b`.`c``d`"), "`a.b`.`c``d`");
  EXPECT_EQ(Expr("x::bigint * 2"), "(CAST(x AS bigint) * 2)");
  EXPECT_EQ(Expr("-x::int"), "(- CAST(x AS int))");
}

TEST(ParserTest, NumericLiteralsAreTypedAsSpark) {
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("SELECT 2147483647, 2147483648, 99999999999999999999, "
                                      "1.50, .5, 1e3, 10L, 7S, 3Y, 2.5D, 1.5F, 1.50BD"));
  const std::vector<std::string> types = {
      "int",    "bigint",   "decimal(20,0)", "decimal(3,2)", "decimal(1,1)", "double",
      "bigint", "smallint", "tinyint",       "double",       "float",        "decimal(3,2)"};
  const auto& items = std::get<QueryPtr>(statement.body)->select;
  ASSERT_EQ(items.size(), types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    ASSERT_EQ(items[i].expr->GetOp(), expr::Op::kLiteral);
    EXPECT_EQ(items[i].expr->Literal().Type()->ToString(), types[i]) << i;
  }
  EXPECT_EQ(items[5].expr->Literal().DoubleValue(), 1000.0);
  EXPECT_EQ(items[1].expr->Literal().IntValue(), 2147483648);
  EXPECT_EQ(Expr("-(2147483648)"), "(- 2147483648L)");
}

TEST(ParserTest, AMinusSignBeforeANumberIsPartOfTheLiteral) {
  // As Spark's grammar (MINUS? INTEGER_VALUE): the ends of each range are literals of the type.
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("SELECT -2147483648, -9223372036854775808, "
                                      "-9223372036854775808L, -128Y, -32768S, "
                                      "-9223372036854775809, -1.5, - 2"));
  const std::vector<std::string> types = {"int",      "bigint",        "bigint",       "tinyint",
                                          "smallint", "decimal(19,0)", "decimal(2,1)", "int"};
  const auto& items = std::get<QueryPtr>(statement.body)->select;
  ASSERT_EQ(items.size(), types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    ASSERT_EQ(items[i].expr->GetOp(), expr::Op::kLiteral) << i;
    EXPECT_EQ(items[i].expr->Literal().Type()->ToString(), types[i]) << i;
  }
  EXPECT_EQ(items[1].expr->Literal().IntValue(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Expr("-9223372036854775808 - 1"), "(-9223372036854775808L - 1)");
  EXPECT_EQ(Expr("1 -2"), "(1 - 2)");
  EXPECT_EQ(Expr("- -2"), "(- -2)");
  EXPECT_EQ(Expr("-1::string"), "CAST(-1 AS string)");
  EXPECT_EQ(Error("SELECT -129Y"),
            "numeric literal -129 does not fit in range [-128, 127] for type tinyint at line 1, "
            "column 8:\nSELECT -129Y\n       ^");
  EXPECT_NE(Error("SELECT -9223372036854775809L").find("for type bigint at line 1, column 8"),
            std::string::npos);
}

TEST(ParserTest, NumericLiteralsOutOfRangeAreErrors) {
  EXPECT_EQ(Error("SELECT 128Y"),
            "numeric literal 128 does not fit in range [-128, 127] for type tinyint at line 1, "
            "column 8:\nSELECT 128Y\n       ^");
  EXPECT_EQ(Error("SELECT 9223372036854775808L"),
            "numeric literal 9223372036854775808 does not fit in range [-9223372036854775808, "
            "9223372036854775807] for type bigint at line 1, column 8:\n"
            "SELECT 9223372036854775808L\n       ^");
  EXPECT_NE(Error("SELECT 1e999").find("for type double at line 1, column 8"), std::string::npos);
  EXPECT_NE(Error("SELECT 123456789012345678901234567890123456789").find("more than 38 digits"),
            std::string::npos);
}

TEST(ParserTest, StringLiteralsConcatenateWhenAdjacent) {
  EXPECT_EQ(Expr("'a' 'b' \"c\""), "'abc'");
  EXPECT_EQ(Expr("'it''s'"), "'its'");
}

TEST(ParserTest, TypedLiterals) {
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("SELECT DATE '2024-05-01', TIMESTAMP '2024-05-01 10:00:00', "
                                      "TIMESTAMP_NTZ '2024-05-01 10:00:00', X'0a0b', NULL, true"));
  const auto& items = std::get<QueryPtr>(statement.body)->select;
  EXPECT_EQ(items[0].expr->Literal().Type()->Id(), TypeId::kDate);
  EXPECT_EQ(items[0].expr->Literal().IntValue(), 19844);
  // TIMESTAMP takes the session time zone when evaluated: a cast of the text.
  EXPECT_EQ(items[1].expr->GetOp(), expr::Op::kCast);
  EXPECT_EQ(items[1].expr->TargetType()->Id(), TypeId::kTimestamp);
  EXPECT_EQ(items[2].expr->Literal().Type()->Id(), TypeId::kTimestampNtz);
  EXPECT_EQ(items[2].expr->Literal().IntValue(), 1714557600000000);
  EXPECT_EQ(items[3].expr->Literal().BytesValue(), "\x0a\x0b");
  EXPECT_TRUE(items[4].expr->Literal().IsNull());
  EXPECT_TRUE(items[5].expr->Literal().BoolValue());
  // `date` alone is still a column name.
  EXPECT_EQ(Expr("date, timestamp"), "date, timestamp");
  EXPECT_EQ(Error("SELECT DATE '2024-13-01'"),
            "invalid DATE literal '2024-13-01' at line 1, column 8:\nSELECT DATE '2024-13-01'\n"
            "       ^");
}

TEST(ParserTest, IntervalLiteralsAreDayTimeIntervals) {
  constexpr int64_t kMinute = 60'000'000;
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"INTERVAL '10' MINUTE", 10 * kMinute},
      {"INTERVAL 10 MINUTES", 10 * kMinute},
      {"INTERVAL 1 DAY 2 HOURS 1.5 SECONDS", (int64_t{24} + 2) * 60 * kMinute + 1'500'000},
      {"INTERVAL '1 day 30 minutes'", (24 * 60 + 30) * kMinute},
      {"INTERVAL -3 HOURS", -180 * kMinute},
      {"INTERVAL '1 10:30:00' DAY TO SECOND", (34 * 60 + 30) * kMinute},
  };
  for (const auto& [text, micros] : cases) {
    ASSERT_OK_AND_ASSIGN(Statement statement, ParseStatement("SELECT " + text));
    const expr::ExprPtr item = FirstItem(statement);
    ASSERT_EQ(item->GetOp(), expr::Op::kLiteral) << text;
    EXPECT_EQ(item->Literal().Type()->Id(), TypeId::kDayTimeInterval) << text;
    EXPECT_EQ(item->Literal().IntValue(), micros) << text;
  }
  // The literal is an INTERVAL HOUR and prints as Spark's Literal.sql does.
  EXPECT_EQ(Expr("ts + INTERVAL 1 HOUR"), "(ts + INTERVAL '01' HOUR)");
  EXPECT_EQ(Error("SELECT INTERVAL 'x' DAY"),
            "invalid interval literal 'x': 'x' is not a number of DAY (or is finer than a "
            "microsecond) at line 1, column 8:\nSELECT INTERVAL 'x' DAY\n       ^");
  EXPECT_NE(Error("SELECT INTERVAL 1 YEAR 2 DAYS").find("Cannot mix year-month and day-time"),
            std::string::npos);
  EXPECT_EQ(Expr("interval"), "interval");  // a column, without a value after it
}

TEST(ParserTest, CaseCastAndFunctionCalls) {
  EXPECT_EQ(Expr("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"),
            "CASE WHEN (a > 1) THEN 'x' WHEN (a > 0) THEN 'y' ELSE 'z' END");
  EXPECT_EQ(Expr("CASE a WHEN 1 THEN 'one' END"), "CASE WHEN (a = 1) THEN 'one' END");
  EXPECT_EQ(Expr("CAST(a AS decimal(10, 2))"), "CAST(a AS decimal(10,2))");
  EXPECT_EQ(Expr("TRY_CAST(a AS array<struct<x: int, y: string>>)"),
            "TRY_CAST(a AS array<struct<x:int,y:string>>)");
  EXPECT_EQ(Expr("count(*), COUNT(DISTINCT a, b), Sum(x)"),
            "count(), count(DISTINCT a, b), sum(x)");
  EXPECT_EQ(Expr("left(s, 2), current_date, current_timestamp()"),
            "left(s, 2), current_date(), current_timestamp()");
  EXPECT_EQ(Expr("EXTRACT(year FROM d)"), "date_part('YEAR', d)");
  EXPECT_EQ(Expr("(a, b)"), "struct(a, b)");
  EXPECT_EQ(Expr("((a + b))"), "(a + b)");
  // A star among a call's arguments stays a star for the planner to expand.
  EXPECT_EQ(Expr("struct(t.*, s.f.*), count(DISTINCT *), hash((*))"),
            "struct(t.*, s.f.*), count(DISTINCT *), hash(*)");
  EXPECT_EQ(Error("SELECT sum(*)"),
            "'*' is only an argument of count, not of sum at line 1, column 12:\n"
            "SELECT sum(*)\n           ^");
}

TEST(ParserTest, SelectListStarsAndAliases) {
  EXPECT_EQ(Sql("select *, t.*, db.t.*, a AS x, b y, c AS `from`, d"),
            "SELECT *, t.*, db.t.*, a AS x, b AS y, c AS `from`, d");
  EXPECT_EQ(Sql("SELECT DISTINCT a FROM t"), "SELECT DISTINCT a FROM t");
  EXPECT_EQ(Sql("SELECT ALL a FROM t"), "SELECT a FROM t");
}

TEST(ParserTest, QueryClauses) {
  EXPECT_EQ(Sql("SELECT status, count(*) AS n FROM events WHERE ts > 5 GROUP BY status, 2 "
                "HAVING count(*) > 1 ORDER BY n DESC, 1 NULLS LAST, status ASC NULLS LAST "
                "LIMIT 10"),
            "SELECT status, count() AS n FROM events WHERE (ts > 5) GROUP BY status, 2 HAVING "
            "(count() > 1) ORDER BY n DESC NULLS LAST, 1 ASC NULLS LAST, status ASC NULLS LAST "
            "LIMIT 10");
  EXPECT_EQ(Sql("SELECT a FROM t LIMIT ALL"), "SELECT a FROM t");
  EXPECT_EQ(Sql("SELECT 1"), "SELECT 1");
}

TEST(ParserTest, WithUnionAndValues) {
  EXPECT_EQ(Sql("WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS x) SELECT x FROM a UNION ALL "
                "SELECT x FROM b UNION SELECT 3 ORDER BY x LIMIT 2"),
            "WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS x) ((SELECT x FROM a) UNION ALL "
            "(SELECT x FROM b)) UNION (SELECT 3) ORDER BY x ASC NULLS FIRST LIMIT 2");
  EXPECT_EQ(Sql("SELECT a UNION DISTINCT SELECT b"), "(SELECT a) UNION (SELECT b)");
  EXPECT_EQ(Sql("(SELECT a FROM t LIMIT 1) LIMIT 2"),
            "SELECT * FROM (SELECT a FROM t LIMIT 1) LIMIT 2");
  EXPECT_EQ(Sql("VALUES (1, 'a'), (2, 'b')"), "VALUES (1, 'a'), (2, 'b')");
  EXPECT_EQ(Sql("VALUES 1, 2"), "VALUES (1), (2)");
  EXPECT_EQ(Error("VALUES (1, 2), (3)"),
            "VALUES rows must have the same number of values: this row has 1, the first has 2 "
            "at line 1, column 18:\nVALUES (1, 2), (3)\n                 ^");
  EXPECT_EQ(Sql("SELECT 1 MINUS SELECT 2"), "(SELECT 1) EXCEPT (SELECT 2)");
  // INTERSECT binds tighter than UNION and EXCEPT, which go left to right.
  EXPECT_EQ(Sql("SELECT 1 UNION SELECT 2 EXCEPT ALL SELECT 3 INTERSECT ALL SELECT 4"),
            "((SELECT 1) UNION (SELECT 2)) EXCEPT ALL ((SELECT 3) INTERSECT ALL (SELECT 4))");
  EXPECT_EQ(Sql("SELECT a, sum(b) FROM t GROUP BY ALL ORDER BY ALL DESC"),
            "SELECT a, sum(b) FROM t GROUP BY ALL ORDER BY ALL DESC NULLS LAST");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, ROLLUP(b, (c, a))"),
            "SELECT a FROM t GROUP BY GROUPING SETS ((a, b, c), (a, b), (a))");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, b WITH CUBE"),
            "SELECT a FROM t GROUP BY GROUPING SETS ((a, b), (a), (b), ())");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY b, a GROUPING SETS ((a), ())"),
            "SELECT a FROM t GROUP BY GROUPING SETS ((a), ())");
  EXPECT_NE(Error("SELECT a FROM t GROUP BY CUBE(a, ())")
                .find("Empty set in CUBE grouping sets is not supported."),
            std::string::npos);
}

TEST(ParserTest, RelationsNamesPathsAndTableFunctions) {
  EXPECT_EQ(Sql("SELECT * FROM db.events e"), "SELECT * FROM db.events AS e");
  EXPECT_EQ(Sql("SELECT * FROM delta.`/data/events`"), "SELECT * FROM delta.`/data/events`");
  EXPECT_EQ(Sql("SELECT * FROM PARQUET.`/x.parquet` AS p, json.`/j`, csv.`/c`"),
            "SELECT * FROM ((parquet.`/x.parquet` AS p CROSS JOIN json.`/j`) CROSS JOIN "
            "csv.`/c`)");
  // delta.events (unquoted) is a table `events` in database `delta`.
  EXPECT_EQ(Sql("SELECT * FROM delta.events"), "SELECT * FROM delta.events");
  EXPECT_EQ(Sql("SELECT * FROM read_files('/landing', format => 'json', "
                "multiLine => true, maxFilesPerTrigger => 10) r"),
            "SELECT * FROM read_files('/landing', format => 'json', multiLine => true, "
            "maxFilesPerTrigger => 10) AS r");
  EXPECT_EQ(Sql("SELECT * FROM STREAM read_files('/in', format => 'csv')"),
            "SELECT * FROM STREAM read_files('/in', format => 'csv')");
  EXPECT_EQ(Sql("SELECT * FROM STREAM events"), "SELECT * FROM STREAM events");
  EXPECT_EQ(Sql("SELECT * FROM STREAM(db.events) AS s"), "SELECT * FROM STREAM db.events AS s");
  EXPECT_EQ(Sql("SELECT * FROM stream"), "SELECT * FROM stream");
  EXPECT_EQ(Sql("SELECT * FROM (SELECT a FROM t) AS sub"),
            "SELECT * FROM (SELECT a FROM t) AS sub");
}

TEST(ParserTest, TimeTravel) {
  EXPECT_EQ(Sql("SELECT * FROM events VERSION AS OF 3 e"),
            "SELECT * FROM events VERSION AS OF 3 AS e");
  EXPECT_EQ(Sql("SELECT * FROM delta.`/t` TIMESTAMP AS OF '2024-05-01'"),
            "SELECT * FROM delta.`/t` TIMESTAMP AS OF '2024-05-01'");
  EXPECT_EQ(Error("SELECT * FROM t VERSION AS OF 'x'"),
            "expected an integer for VERSION AS OF, found string 'x' at line 1, column 31:\n"
            "SELECT * FROM t VERSION AS OF 'x'\n                              ^");
}

// Databricks' WATERMARK clause: after a table, STREAM(name), a table function or a subquery,
// before the alias; the delay is any INTERVAL literal form.
TEST(ParserTest, WatermarkClause) {
  EXPECT_EQ(Sql("SELECT * FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS s"),
            "SELECT * FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS s");
  EXPECT_EQ(Sql("SELECT * FROM STREAM(db.src) WATERMARK ts DELAY OF INTERVAL '10' MINUTE s"),
            "SELECT * FROM STREAM db.src WATERMARK ts DELAY OF INTERVAL '10' MINUTE AS s");
  EXPECT_EQ(Sql("SELECT * FROM STREAM read_files('/in', format => 'json') "
                "WATERMARK to_timestamp(t) AS ts DELAY OF INTERVAL 1 HOUR 30 SECONDS"),
            "SELECT * FROM STREAM read_files('/in', format => 'json') WATERMARK to_timestamp(t) "
            "AS ts DELAY OF INTERVAL 1 HOUR 30 SECONDS");
  EXPECT_EQ(Sql("SELECT * FROM (SELECT ts FROM t) WATERMARK `ts` DELAY OF INTERVAL '5 seconds' q"),
            "SELECT * FROM (SELECT ts FROM t) WATERMARK ts DELAY OF INTERVAL '5 seconds' AS q");
  EXPECT_EQ(Sql("SELECT * FROM events WATERMARK ts DELAY OF INTERVAL 2 DAYS JOIN d ON x"),
            "SELECT * FROM (events WATERMARK ts DELAY OF INTERVAL 2 DAYS INNER JOIN d ON x)");

  auto statement = ParseStatement(
      "SELECT * FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 "
      "MINUTES AS s");
  ASSERT_OK(statement.status());
  const Relation& from = *std::get<QueryPtr>(statement->body)->from;
  ASSERT_TRUE(from.watermark.has_value());
  EXPECT_EQ(from.watermark->event_time->ToString(), "ts");
  EXPECT_EQ(from.watermark->delay->Literal().IntValue(), int64_t{10} * 60 * 1000 * 1000);
  EXPECT_EQ(from.watermark->position, (SourcePosition{1, 26, 25}));
  EXPECT_EQ(from.alias, "s");

  // WATERMARK is no reserved word: without an event time after it, it is an alias.
  EXPECT_EQ(Sql("SELECT * FROM t watermark"), "SELECT * FROM t AS watermark");
  EXPECT_EQ(Sql("SELECT watermark.a FROM t watermark JOIN u ON true"),
            "SELECT watermark.a FROM (t AS watermark INNER JOIN u ON true)");

  EXPECT_EQ(Error("SELECT * FROM t WATERMARK ts DELAY 10"),
            "expected OF, found '10' at line 1, column 36:\n"
            "SELECT * FROM t WATERMARK ts DELAY 10\n                                   ^");
  EXPECT_NE(Error("SELECT * FROM t WATERMARK ts DELAY OF '10 minutes'")
                .find("expected an interval for the watermark delay (INTERVAL 10 MINUTES)"),
            std::string::npos);
  EXPECT_NE(Error("SELECT * FROM t WATERMARK ts DELAY OF INTERVAL 10 FORTNIGHTS")
                .find("expected an interval value and unit"),
            std::string::npos);
  EXPECT_NE(Error("SELECT * FROM t WATERMARK ts OF INTERVAL 1 MINUTE").find("expected DELAY"),
            std::string::npos);
}

// WINDOW is reserved for the WINDOW clause but is a function and a column name in expressions.
TEST(ParserTest, WindowFunctionAndColumn) {
  EXPECT_EQ(Sql("SELECT window.start, window.end, count(*) FROM t GROUP BY window(ts, '1 minute')"),
            "SELECT window.start, window.end, count() FROM t GROUP BY window(ts, '1 minute')");
  EXPECT_EQ(Expr("window"), "window");
}

TEST(ParserTest, JoinKinds) {
  EXPECT_EQ(Sql("SELECT * FROM a JOIN b ON a.id = b.id INNER JOIN c USING (id, k)"),
            "SELECT * FROM ((a INNER JOIN b ON (a.id = b.id)) INNER JOIN c USING (id, k))");
  EXPECT_EQ(Sql("SELECT * FROM a LEFT JOIN b ON x LEFT OUTER JOIN c ON y"),
            "SELECT * FROM ((a LEFT JOIN b ON x) LEFT JOIN c ON y)");
  EXPECT_EQ(Sql("SELECT * FROM a RIGHT OUTER JOIN b ON x FULL JOIN c ON y FULL OUTER JOIN d ON z"),
            "SELECT * FROM (((a RIGHT JOIN b ON x) FULL JOIN c ON y) FULL JOIN d ON z)");
  EXPECT_EQ(Sql("SELECT * FROM a CROSS JOIN b LEFT SEMI JOIN c ON x LEFT ANTI JOIN d USING (k)"),
            "SELECT * FROM (((a CROSS JOIN b) LEFT SEMI JOIN c ON x) LEFT ANTI JOIN d USING (k))");
  EXPECT_EQ(Sql("SELECT * FROM a x JOIN (b JOIN c ON p) ON q"),
            "SELECT * FROM (a AS x INNER JOIN (b INNER JOIN c ON p) ON q)");
  EXPECT_EQ(Error("SELECT * FROM a LEFT b"),
            "expected JOIN, found 'b' at line 1, column 22:\nSELECT * FROM a LEFT b\n"
            "                     ^");
  // Spark takes `CROSS JOIN ... ON` as an inner join on the condition.
  EXPECT_EQ(Sql("SELECT * FROM a CROSS JOIN b ON x"), "SELECT * FROM (a CROSS JOIN b ON x)");
  EXPECT_EQ(
      Sql("SELECT * FROM a NATURAL JOIN b NATURAL LEFT OUTER JOIN c NATURAL LEFT ANTI JOIN d"),
      "SELECT * FROM (((a NATURAL INNER JOIN b) NATURAL LEFT JOIN c) NATURAL LEFT ANTI "
      "JOIN d)");
  EXPECT_EQ(Error("SELECT * FROM a NATURAL CROSS JOIN b"),
            "[INCOMPATIBLE_JOIN_TYPES] The join types NATURAL and CROSS are incompatible. at line "
            "1, column 25:\nSELECT * FROM a NATURAL CROSS JOIN b\n                        ^");
  EXPECT_EQ(Error("SELECT * FROM a NATURAL JOIN b ON x").substr(0, 54),
            "expected ';' or the end of the statement, found 'ON' a");
}

TEST(ParserTest, SubqueriesInExpressionsKeepTheirQueries) {
  ASSERT_OK_AND_ASSIGN(Statement statement,
                       ParseStatement("SELECT a FROM t WHERE a IN (SELECT b FROM u) AND "
                                      "EXISTS (SELECT 1) AND c > (SELECT max(c) FROM v)"));
  EXPECT_EQ(ToString(statement),
            "SELECT a FROM t WHERE ((in_subquery(a) AND exists()) AND (c > scalar_subquery()))");
  EXPECT_EQ(statement.sources->subqueries.size(), 3u);
  const expr::ExprPtr& where = std::get<QueryPtr>(statement.body)->where;
  const expr::ExprPtr& in = where->Child(0)->Child(0);
  EXPECT_EQ(in->GetOp(), expr::Op::kFunction);
  EXPECT_EQ(in->Name(), kInSubqueryFunction);
  EXPECT_EQ(ToString(*statement.sources->subqueries.at(in.get())), "SELECT b FROM u");
  EXPECT_EQ(Expr("((SELECT 1) + 1)"), "(scalar_subquery() + 1)");
}

TEST(ParserTest, CreateTable) {
  EXPECT_EQ(Sql("CREATE TABLE IF NOT EXISTS db.events (id BIGINT NOT NULL, status STRING COMMENT "
                "'state', amount DECIMAL(10,2), tags ARRAY<STRING>, attrs MAP<STRING, INT>) "
                "USING DELTA PARTITIONED BY (status) TBLPROPERTIES ('delta.appendOnly' = "
                "'true', delta.checkpointInterval = 5, x true)"),
            "CREATE TABLE IF NOT EXISTS db.events (id bigint NOT NULL, status string COMMENT "
            "'state', amount decimal(10,2), tags array<string>, attrs map<string,int>) USING "
            "delta PARTITIONED BY (status) TBLPROPERTIES ('delta.appendOnly' = 'true', "
            "'delta.checkpointInterval' = '5', 'x' = 'true')");
  EXPECT_EQ(Sql("create or replace table t using delta location '/tmp/t' as select 1 as a"),
            "CREATE OR REPLACE TABLE t USING delta LOCATION '/tmp/t' AS SELECT 1 AS a");
  EXPECT_EQ(Sql("CREATE TABLE t AS WITH c AS (SELECT 1) SELECT * FROM c"),
            "CREATE TABLE t AS WITH c AS (SELECT 1) SELECT * FROM c");
  EXPECT_EQ(Sql("CREATE TABLE t (a INT)"), "CREATE TABLE t (a int)");
  EXPECT_EQ(Sql("CREATE TABLE p USING csv OPTIONS (header 'true', 'sep' = ';') LOCATION '/d'"),
            "CREATE TABLE p USING csv OPTIONS ('header' = 'true', 'sep' = ';') LOCATION '/d'");
}

TEST(ParserTest, SchemaStatements) {
  EXPECT_EQ(Sql("create database if not exists Sales comment 'c' with dbproperties (a = 1)"),
            "CREATE SCHEMA IF NOT EXISTS Sales");
  EXPECT_EQ(Sql("CREATE NAMESPACE spark_catalog.s LOCATION '/x'"),
            "CREATE SCHEMA spark_catalog.s LOCATION '/x'");
  EXPECT_EQ(Sql("DROP SCHEMA IF EXISTS s CASCADE"), "DROP SCHEMA IF EXISTS s CASCADE");
  EXPECT_EQ(Sql("DROP DATABASE s RESTRICT"), "DROP SCHEMA s");
  EXPECT_EQ(Sql("SHOW DATABASES LIKE 'a*'"), "SHOW SCHEMAS LIKE 'a*'");
  EXPECT_EQ(Sql("SHOW NAMESPACES"), "SHOW SCHEMAS");
  EXPECT_NE(Sql("DROP SCHEMA IF NOT EXISTS s").find("error:"), std::string::npos);
  EXPECT_NE(Sql("CREATE SCHEMA s WITH (a = 1)").find("error:"), std::string::npos);
}

TEST(ParserTest, CreateStreamingTable) {
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE bronze PARTITIONED BY (day) AS SELECT * FROM "
                "STREAM read_files('/landing', format => 'json')"),
            "CREATE OR REFRESH STREAMING TABLE bronze PARTITIONED BY (day) AS SELECT * FROM "
            "STREAM read_files('/landing', format => 'json')");
  EXPECT_EQ(Sql("CREATE STREAMING TABLE s (a INT) AS SELECT a FROM STREAM t"),
            "CREATE STREAMING TABLE s (a int) AS SELECT a FROM STREAM t");
  // Without a query: the target of an AUTO CDC flow (below).
  EXPECT_EQ(Sql("CREATE STREAMING TABLE s"), "CREATE STREAMING TABLE s");
  EXPECT_NE(Error("CREATE OR REFRESH TABLE s AS SELECT 1").find("expected STREAMING"),
            std::string::npos);
}

TEST(ParserTest, UnknownTypesSuggestTheClosestName) {
  EXPECT_EQ(Error("CREATE TABLE t (a strng)"),
            "unknown type 'strng' (did you mean STRING?) at line 1, column 19:\n"
            "CREATE TABLE t (a strng)\n                  ^");
  EXPECT_EQ(Error("SELECT CAST(a AS decimal(50, 2))"),
            "invalid decimal(50,2): precision must be 1..38 and scale 0..precision at offset 14 "
            "of type text "
            "'decimal(50, 2)' at line 1, column 18:\nSELECT CAST(a AS decimal(50, 2))\n"
            "                 ^");
}

TEST(ParserTest, InsertDescribeShowOptimizeVacuumDrop) {
  EXPECT_EQ(Sql("INSERT INTO events SELECT * FROM staging"),
            "INSERT INTO events SELECT * FROM staging");
  EXPECT_EQ(Sql("INSERT OVERWRITE TABLE db.t (a, b) VALUES (1, 'x'), (2, 'y')"),
            "INSERT OVERWRITE db.t (a, b) VALUES (1, 'x'), (2, 'y')");
  EXPECT_EQ(Sql("INSERT INTO t (SELECT 1)"), "INSERT INTO t SELECT 1");
  EXPECT_EQ(Sql("DESCRIBE events"), "DESCRIBE TABLE events");
  EXPECT_EQ(Sql("DESC TABLE events"), "DESCRIBE TABLE events");
  EXPECT_EQ(Sql("DESCRIBE HISTORY delta.`/t` LIMIT 5"), "DESCRIBE HISTORY delta.`/t` LIMIT 5");
  EXPECT_EQ(Sql("DESCRIBE DETAIL '/data/t'"), "DESCRIBE DETAIL delta.`/data/t`");
  EXPECT_EQ(Sql("DESCRIBE history"), "DESCRIBE TABLE history");
  EXPECT_EQ(Sql("SHOW TABLES"), "SHOW TABLES");
  EXPECT_EQ(Sql("SHOW TABLES IN db LIKE 'ev*'"), "SHOW TABLES IN db LIKE 'ev*'");
  EXPECT_EQ(Sql("OPTIMIZE events WHERE day >= '2024-05-01'"),
            "OPTIMIZE events WHERE (day >= '2024-05-01')");
  EXPECT_EQ(Sql("VACUUM events RETAIN 168 HOURS DRY RUN"),
            "VACUUM events RETAIN 168 HOURS DRY RUN");
  EXPECT_EQ(Sql("VACUUM '/data/t'"), "VACUUM delta.`/data/t`");
  EXPECT_EQ(Sql("DROP TABLE IF EXISTS db.t"), "DROP TABLE IF EXISTS db.t");
  EXPECT_EQ(Sql("DROP TABLE t;"), "DROP TABLE t");
}

TEST(ParserTest, ScriptsParseEveryStatementWithAbsolutePositions) {
  ASSERT_OK_AND_ASSIGN(std::vector<Statement> statements,
                       ParseScript("CREATE TABLE t (a INT);\n-- load\nINSERT INTO t VALUES (1);"
                                   "\n\nSELECT a + 'x;y' FROM t;;"));
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[2].position, (SourcePosition{5, 1, 59}));
  const expr::ExprPtr item = FirstItem(statements[2]);
  EXPECT_EQ(statements[2].sources->PositionOf(*item), (SourcePosition{5, 10, 68}));
  EXPECT_EQ(statements[2].sources->PositionOf(*item->Child(1)), (SourcePosition{5, 12, 70}));
  EXPECT_EQ(statements[2].ErrorAt(*item->Child(1), "cannot add a string").Message(),
            "cannot add a string at line 5, column 12:\nSELECT a + 'x;y' FROM t;;\n"
            "           ^");
  ASSERT_OK_AND_ASSIGN(statements, ParseScript(" ; -- nothing\n"));
  EXPECT_TRUE(statements.empty());
  EXPECT_EQ(ParseStatement("SELECT 1; SELECT 2").status().Message(),
            "expected one SQL statement, found 2");
}

TEST(ParserTest, SyntaxErrorsPointAtTheToken) {
  EXPECT_EQ(Error("SELECT a, FROM t"),
            "expected an expression, found 'FROM' at line 1, column 11:\nSELECT a, FROM t\n"
            "          ^");
  EXPECT_EQ(Error("SELECT a FROM t WHERE\n  a = (1 + 2"),
            "expected ')', found end of input at line 2, column 13:\n  a = (1 + 2\n"
            "            ^");
  EXPECT_EQ(Error("SELECT * FROM t t2 t3"),
            "expected ';' or the end of the statement, found 't3' at line 1, column 20:\n"
            "SELECT * FROM t t2 t3\n                   ^");
  EXPECT_EQ(Error("SELECT 1 +"),
            "expected an expression, found end of input at line 1, column 11:\nSELECT 1 +\n"
            "          ^");
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  for (const std::string& unit :
       {std::string("("), std::string("- "), std::string("NOT "), std::string("(SELECT ")}) {
    std::string text = "SELECT ";
    for (int i = 0; i < 100000; ++i) {
      text += unit;
    }
    const std::string message = Error(text);
    EXPECT_NE(message.find("nested more than 200 levels deep at line 1"), std::string::npos)
        << unit << ": " << message.substr(0, 200);
  }
  std::string nested = "SELECT ";
  for (int i = 0; i < 150; ++i) {
    nested += "(";
  }
  nested += "1";
  for (int i = 0; i < 150; ++i) {
    nested += ")";
  }
  EXPECT_EQ(Sql(nested), "SELECT 1");
}

// "SELECT <first>" followed by `count` copies of `unit`.
std::string Chain(std::string_view first, std::string_view unit, int count) {
  std::string text = "SELECT " + std::string(first);
  for (int i = 0; i < count; ++i) {
    text += unit;
  }
  return text;
}

TEST(ParserTest, ChainsPastTheHeightLimitAreErrorsWhereTheyGetTooDeep) {
  // A chain of n operators is a tree n + 1 levels high: 999 fit in 1000 levels, 1000 do not,
  // and the error points at the operator that went past.
  EXPECT_TRUE(ParseStatement(Chain("1", " + 1", 999)).ok());
  EXPECT_EQ(Error(Chain("1", " + 1", 1000)).substr(0, 106),
            "expression too deep: more than 1000 nested operations (split it up; a long chain of "
            "ORs can be an IN list)");
  const std::string message = Error(Chain("1", " + 1", 1000));
  EXPECT_NE(message.find("at line 1, column 4006:"), std::string::npos) << message.substr(0, 200);
  for (const char* unit :
       {" AND true", " OR x", " || 'a'", " * 2", " = 1", " | 1", "[0]", ".f", "::int"}) {
    EXPECT_TRUE(ParseStatement(Chain("x", unit, 999)).ok()) << unit;
    EXPECT_NE(Error(Chain("x", unit, 1000)).find("expression too deep"), std::string::npos) << unit;
  }
  // Levels add up through parentheses, subqueries and whatever else nests.
  const std::string inner = Chain("1", " + 1", 600).substr(7);
  EXPECT_NE(Error("SELECT (" + inner + ")" + Chain("", " * 2", 400).substr(7))
                .find("expression too deep"),
            std::string::npos);
  EXPECT_NE(Error("SELECT 1 WHERE x IN (SELECT " + inner + ")" + Chain("", " AND y", 400).substr(7))
                .find("expression too deep"),
            std::string::npos);
}

// WITH c1 AS (... FROM c0), c2 AS (... FROM c1), ...: each name stands for its query's plan.
std::string WithChain(int count) {
  std::string text = "WITH c0 AS (SELECT 1 AS x)";
  for (int i = 1; i < count; ++i) {
    text += fmt::format(", c{} AS (SELECT x + 1 AS x FROM c{})", i, i - 1);
  }
  return text + fmt::format(" SELECT x FROM c{}", count - 1);
}

TEST(ParserTest, ChainedWithQueriesCountAsNestedQueries) {
  EXPECT_TRUE(ParseStatement(WithChain(400)).ok());
  EXPECT_EQ(Error(WithChain(600)).substr(0, 14), "query too deep");
  // A name of an outer scope counts in a subquery; a table that is not a WITH name does not.
  EXPECT_TRUE(
      ParseStatement("WITH t AS (SELECT 1 AS x) SELECT * FROM (SELECT * FROM t) s, u").ok());
}

TEST(ParserTest, TypesNestedPastTheLimitAreErrorsNotACrash) {
  auto nested = [](int levels) {
    std::string type;
    for (int i = 0; i < levels; ++i) {
      type += "array<";
    }
    type += "int";
    for (int i = 0; i < levels; ++i) {
      type += ">";
    }
    return type;
  };
  EXPECT_TRUE(ParseStatement("SELECT CAST(NULL AS " + nested(150) + ")").ok());
  EXPECT_NE(Error("SELECT CAST(NULL AS " + nested(100000) + ")")
                .find("type nested more than 200 levels deep"),
            std::string::npos);
  EXPECT_EQ(Error("SELECT from_json(j, '" + nested(100000) + "')").substr(0, 18),
            "from_json schema: ");
  EXPECT_NE(Error("SELECT from_json(j, 'a " + nested(100000) + "')")
                .find("type nested more than 200 levels deep"),
            std::string::npos);
}

TEST(ParserTest, UnionAndJoinChainsPastTheHeightLimitAreErrors) {
  // Each UNION, JOIN and subquery is a level of the plan every later pass recurses through.
  EXPECT_TRUE(ParseStatement(Chain("1", " UNION ALL SELECT 1", 999)).ok());
  EXPECT_EQ(Error(Chain("1", " UNION ALL SELECT 1", 1000)).substr(0, 48),
            "query too deep: more than 1000 nested operations");
  // A UNION without ALL is three plan nodes (the union, DISTINCT's aggregation and projection).
  EXPECT_TRUE(ParseStatement(Chain("1", " UNION SELECT 1", 333)).ok());
  EXPECT_EQ(Error(Chain("1", " UNION SELECT 1", 334)).substr(0, 14), "query too deep");
  EXPECT_TRUE(ParseStatement(Chain("* FROM t", " JOIN t ON true", 998)).ok());
  EXPECT_EQ(Error(Chain("* FROM t", " JOIN t ON true", 1000)).substr(0, 14), "query too deep");
  EXPECT_EQ(Error(Chain("* FROM t", ", t", 1000)).substr(0, 14), "query too deep");
  const std::string unions = Chain("1", " UNION ALL SELECT 1", 600);
  EXPECT_EQ(Error(Chain("* FROM (" + unions + ") s", " JOIN t ON true", 500)).substr(0, 14),
            "query too deep");
}

TEST(ParserTest, MisspeltKeywordsGetDidYouMean) {
  EXPECT_EQ(Error("SELCT a FROM t"),
            "expected a statement (SELECT, WITH, VALUES, CREATE, INSERT, DELETE, UPDATE, MERGE, "
            "DESCRIBE, SHOW, OPTIMIZE, VACUUM, DROP or AUTO CDC), found 'SELCT' (did you mean "
            "SELECT?) at line 1, column "
            "1:\nSELCT a FROM t\n^");
  EXPECT_EQ(Error("SELECT a FORM t"),
            "unexpected 'FORM' (did you mean FROM?) at line 1, column 10:\nSELECT a FORM t\n"
            "         ^");
  EXPECT_EQ(Error("SELECT a FROM t WHER a > 1"),
            "unexpected 'WHER' (did you mean WHERE?) at line 1, column 17:\n"
            "SELECT a FROM t WHER a > 1\n                ^");
  EXPECT_EQ(Error("SELECT a FROM t GROUP BUY a"),
            "expected BY, found 'BUY' (did you mean BY?) at line 1, column 23:\n"
            "SELECT a FROM t GROUP BUY a\n                      ^");
  EXPECT_EQ(Error("SELECT a FROM t ORDER BY a LIMT 3"),
            "expected ';' or the end of the statement, found 'LIMT' (did you mean LIMIT?) at "
            "line 1, column 28:\nSELECT a FROM t ORDER BY a LIMT 3\n                           ^");
  EXPECT_EQ(Error("CRAETE TABLE t (a INT)"),
            "expected a statement (SELECT, WITH, VALUES, CREATE, INSERT, DELETE, UPDATE, MERGE, "
            "DESCRIBE, SHOW, OPTIMIZE, VACUUM, DROP or AUTO CDC), found 'CRAETE' (did you mean "
            "CREATE?) at line 1, column "
            "1:\nCRAETE TABLE t (a INT)\n^");
}

TEST(ParserTest, ClosestMatchNeedsACloseWord) {
  EXPECT_EQ(ClosestMatch("selct", {"SELECT", "DELETE"}), "SELECT");
  EXPECT_EQ(ClosestMatch("frmo", {"FROM"}), "FROM");
  EXPECT_EQ(ClosestMatch("xyz", {"FROM"}), "");
  EXPECT_EQ(ClosestMatch("a", {"AS"}), "");
  EXPECT_EQ(ClosestMatch("from", {"FROM"}), "");
}

TEST(ParserTest, StandaloneExpressions) {
  ASSERT_OK_AND_ASSIGN(expr::ExprPtr parsed, ParseExpression("status = 'active' AND n > 1"));
  EXPECT_EQ(parsed->ToString(), "((status = 'active') AND (n > 1))");
  EXPECT_EQ(ParseExpression("a IN (SELECT 1)").status().Message(),
            "subqueries are not allowed in a standalone expression at line 1, column 3:\n"
            "a IN (SELECT 1)\n  ^");
  EXPECT_EQ(ParseExpression("a b").status().Message(),
            "expected the end of the expression, found 'b' at line 1, column 3:\na b\n  ^");
}

}  // namespace
}  // namespace tributary::sql

namespace tributary::sql {
namespace {

// Every '(' that could open a subquery is first tried as one; a failed attempt is remembered.
// Without that, each enclosing level retried the inner ones and this took 2^60 steps (the
// test would never finish), as a fuzzer-found input did.
TEST(ParserTest, NestedParenthesesThatAreNotSubqueriesParseInLinearTime) {
  const std::string expression = std::string(60, '(') + "(SELECT 1) + 1" + std::string(60, ')');
  auto select = ParseStatement("SELECT " + expression + " AS x");
  ASSERT_TRUE(select.ok()) << select.status().ToString();
  auto relation = ParseStatement("SELECT * FROM " + std::string(40, '(') +
                                 "(SELECT 1) a JOIN (SELECT 2) b ON true" + std::string(40, ')'));
  ASSERT_TRUE(relation.ok()) << relation.status().ToString();
  // The fuzzer's input (tests/fuzz/corpus/sql_parser_fuzz/nested_parentheses_backtracking):
  // nested WITH subqueries in parentheses over bytes that are no token. Before the memo it
  // took about a minute under ASan; now it fails at once with a position.
  const std::string fuzzed =
      "((((WITH a AS (WITH a AS (SELECT "
      "\315\315\315\315\315\315\315\315\315\315\315(((((((((((((((((((((((((((((((((((((((((((((((("
      "((WITH a AS (WITH a AS (SELECT "
      "\315\315\315\315\315\315\315\315\315\315\315(((((((((((((((((((((((((((((((((((((((((((((((("
      "((((((((((((SELECT "
      "\315\315\315\315\315\315\315\315\315\315\315((((((((((((((((((((((((((((SELECT "
      "\315\315\315\315\315\315\315\315\315\315\315((((((((((((((((((((((((((";
  auto garbage = ParseStatement(fuzzed);
  EXPECT_FALSE(garbage.ok());
}

// ---- DELETE, UPDATE, MERGE INTO and AUTO CDC ----

// Canonical text reparses to itself.
void ExpectRoundTrip(std::string_view text) {
  const std::string once = Sql(text);
  EXPECT_EQ(once.rfind("error", 0), std::string::npos) << once;
  EXPECT_EQ(Sql(once), once) << text;
}

TEST(ParserTest, Delete) {
  EXPECT_EQ(Sql("delete from events where id > 3 and status = 'new'"),
            "DELETE FROM events WHERE ((id > 3) AND (status = 'new'))");
  EXPECT_EQ(Sql("DELETE FROM db.events"), "DELETE FROM db.events");
  EXPECT_EQ(Sql("DELETE FROM delta.`/data/t` AS t WHERE t.id = 1"),
            "DELETE FROM delta.`/data/t` AS t WHERE (t.id = 1)");
  EXPECT_EQ(Sql("DELETE FROM events e WHERE e.id IN (SELECT id FROM gone)"),
            "DELETE FROM events AS e WHERE in_subquery(e.id)");
  const auto statement = ParseStatement("DELETE FROM events AS e");
  ASSERT_OK(statement.status());
  const Delete& del = std::get<Delete>(statement->body);
  EXPECT_EQ(del.alias, "e");
  EXPECT_EQ(del.where, nullptr);
  EXPECT_EQ(Error("DELETE events WHERE id = 1"),
            "expected FROM, found 'events' at line 1, column 8:\n"
            "DELETE events WHERE id = 1\n       ^");
  ExpectRoundTrip("DELETE FROM `my table` AS `x y` WHERE `x y`.`a b` IS NULL");
}

TEST(ParserTest, Update) {
  EXPECT_EQ(Sql("UPDATE events SET status = 'done', amount = amount * 2 WHERE id = 1"),
            "UPDATE events SET status = 'done', amount = (amount * 2) WHERE (id = 1)");
  // SET right after the table starts the SET list; after AS it is an alias.
  EXPECT_EQ(Sql("UPDATE events AS set SET set.a = 1"), "UPDATE events AS set SET set.a = 1");
  EXPECT_EQ(Sql("UPDATE events e SET e.address.city = upper(e.address.city)"),
            "UPDATE events AS e SET e.address.city = upper(e.address.city)");
  EXPECT_EQ(Sql("UPDATE t SET `a.b` = 1"), "UPDATE t SET `a.b` = 1");
  EXPECT_EQ(Error("UPDATE events SET status 'done'"),
            "expected '=', found string 'done' at line 1, column 26:\n"
            "UPDATE events SET status 'done'\n                         ^");
  EXPECT_EQ(Error("UPDATE events SET status = DEFAULT"),
            "DEFAULT is not supported: the table's columns have no defaults at line 1, column 28:\n"
            "UPDATE events SET status = DEFAULT\n                           ^");
  EXPECT_NE(Error("UPDATE events WHERE id = 1").find("expected SET"), std::string::npos);
  ExpectRoundTrip("UPDATE t SET a = CASE WHEN b THEN 1 ELSE 2 END, `c d` = NULL");
}

TEST(ParserTest, MergeWithEveryClause) {
  const std::string text =
      "MERGE WITH SCHEMA EVOLUTION INTO target t USING (SELECT * FROM updates) AS s "
      "ON t.id = s.id "
      "WHEN MATCHED AND s.op = 'D' THEN DELETE "
      "WHEN MATCHED AND s.op = 'U' THEN UPDATE SET t.value = s.value, t.n = t.n + 1 "
      "WHEN MATCHED THEN UPDATE SET * "
      "WHEN NOT MATCHED BY TARGET AND s.op <> 'D' THEN INSERT (id, value) VALUES (s.id, s.value) "
      "WHEN NOT MATCHED THEN INSERT * "
      "WHEN NOT MATCHED BY SOURCE AND t.stale THEN DELETE "
      "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.stale = true";
  EXPECT_EQ(Sql(text),
            "MERGE WITH SCHEMA EVOLUTION INTO target AS t USING (SELECT * FROM updates) AS s "
            "ON (t.id = s.id) "
            "WHEN MATCHED AND (s.op = 'D') THEN DELETE "
            "WHEN MATCHED AND (s.op = 'U') THEN UPDATE SET t.value = s.value, t.n = (t.n + 1) "
            "WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED AND (s.op != 'D') THEN INSERT (id, value) VALUES (s.id, s.value) "
            "WHEN NOT MATCHED THEN INSERT * "
            "WHEN NOT MATCHED BY SOURCE AND t.stale THEN DELETE "
            "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.stale = true");
  ExpectRoundTrip(text);
  ASSERT_OK_AND_ASSIGN(Statement statement, ParseStatement(text));
  const Merge& merge = std::get<Merge>(statement.body);
  EXPECT_TRUE(merge.with_schema_evolution);
  EXPECT_EQ(merge.target_alias, "t");
  EXPECT_EQ(merge.source->alias, "s");
  ASSERT_EQ(merge.clauses.size(), 7u);
  EXPECT_EQ(merge.clauses[0].match, MergeMatch::kMatched);
  EXPECT_EQ(merge.clauses[0].action, MergeAction::kDelete);
  EXPECT_EQ(merge.clauses[1].action, MergeAction::kUpdate);
  ASSERT_EQ(merge.clauses[1].assignments.size(), 2u);
  EXPECT_EQ(merge.clauses[1].assignments[0].column, "t.value");
  EXPECT_EQ(merge.clauses[2].action, MergeAction::kUpdateAll);
  EXPECT_EQ(merge.clauses[3].match, MergeMatch::kNotMatchedByTarget);
  EXPECT_EQ(merge.clauses[3].action, MergeAction::kInsert);
  ASSERT_EQ(merge.clauses[3].assignments.size(), 2u);
  EXPECT_EQ(merge.clauses[3].assignments[1].column, "value");
  EXPECT_EQ(merge.clauses[3].assignments[1].value->ToString(), "s.value");
  EXPECT_EQ(merge.clauses[4].action, MergeAction::kInsertAll);
  EXPECT_EQ(merge.clauses[5].match, MergeMatch::kNotMatchedBySource);
  EXPECT_EQ(merge.clauses[6].action, MergeAction::kUpdate);
  // The condition's position is in the text (a comparison's is its operator's).
  EXPECT_EQ(statement.sources->PositionOf(*merge.clauses[0].condition).column, 115);
}

TEST(ParserTest, MergeSources) {
  EXPECT_EQ(Sql("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE"),
            "MERGE INTO t USING s ON (t.id = s.id) WHEN MATCHED THEN DELETE");
  EXPECT_EQ(Sql("MERGE INTO delta.`/t` USING delta.`/s` src ON id = src.k "
                "WHEN NOT MATCHED THEN INSERT *"),
            "MERGE INTO delta.`/t` USING delta.`/s` AS src ON (id = src.k) "
            "WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(Sql("MERGE INTO t USING table_changes('s', 2) c ON t.id = c.id "
                "WHEN MATCHED THEN UPDATE SET *"),
            "MERGE INTO t USING table_changes('s', 2) AS c ON (t.id = c.id) "
            "WHEN MATCHED THEN UPDATE SET *");
  EXPECT_EQ(Sql("MERGE INTO t USING s VERSION AS OF 3 ON t.id = s.id "
                "WHEN MATCHED THEN DELETE"),
            "MERGE INTO t USING s VERSION AS OF 3 ON (t.id = s.id) WHEN MATCHED THEN DELETE");
}

TEST(ParserTest, MergeErrors) {
  EXPECT_EQ(Error("MERGE INTO t USING s ON t.id = s.id"),
            "expected WHEN (a MERGE needs at least one WHEN clause), found end of input at line "
            "1, column 36:\nMERGE INTO t USING s ON t.id = s.id\n"
            "                                   ^");
  // Only the last clause of a kind may omit its condition: Spark's parser rule.
  EXPECT_EQ(Error("MERGE INTO t USING s ON k WHEN MATCHED THEN DELETE\n"
                  "WHEN NOT MATCHED THEN INSERT * WHEN MATCHED AND s.x THEN UPDATE SET *"),
            "when there is more than one WHEN MATCHED clause in a MERGE statement, only the last "
            "WHEN MATCHED clause can omit the condition at line 1, column 27:\n"
            "MERGE INTO t USING s ON k WHEN MATCHED THEN DELETE\n"
            "                          ^");
  EXPECT_NE(Error("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE "
                  "WHEN NOT MATCHED BY SOURCE THEN DELETE")
                .find("only the last WHEN NOT MATCHED BY SOURCE clause can omit the condition"),
            std::string::npos);
  // A conditional clause after an unconditional one of another kind is fine.
  EXPECT_EQ(Sql("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE "
                "WHEN NOT MATCHED AND s.x THEN INSERT *")
                .rfind("MERGE", 0),
            0u);
  EXPECT_EQ(Error("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN UPDATE SET *"),
            "expected INSERT (a WHEN NOT MATCHED clause inserts source rows), found 'UPDATE' at "
            "line 1, column 59:\n"
            "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN UPDATE SET *\n"
            "                                                          ^");
  EXPECT_NE(Error("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN INSERT *")
                .find("expected UPDATE or DELETE (a WHEN MATCHED clause changes target rows)"),
            std::string::npos);
  EXPECT_EQ(Error("MERGE INTO t USING s ON k WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *"),
            "UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE (there is no source row "
            "to take the values from) at line 1, column 70:\n"
            "...O t USING s ON k WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *\n"
            "                                                               ^");
  EXPECT_EQ(Error("MERGE INTO t USING s ON k WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)"),
            "INSERT lists 2 columns but 1 values at line 1, column 63:\n"
            "...RGE INTO t USING s ON k WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)\n"
            "                                                               ^");
  EXPECT_NE(Error("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY TRGET THEN INSERT *")
                .find("expected TARGET or SOURCE, found 'TRGET' (did you mean TARGET?)"),
            std::string::npos);
  EXPECT_NE(Error("MERGE WITH SCHEMA INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE")
                .find("expected EVOLUTION"),
            std::string::npos);
  EXPECT_NE(Error("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * EXCEPT "
                  "(a)")
                .find("UPDATE SET * EXCEPT (...) is not supported"),
            std::string::npos);
}

TEST(ParserTest, AutoCdcFlows) {
  EXPECT_EQ(Sql("CREATE FLOW users_cdc AS AUTO CDC INTO users FROM STREAM(cdc_users) KEYS (id) "
                "APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq "
                "COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1"),
            "CREATE FLOW users_cdc AS AUTO CDC INTO users FROM STREAM cdc_users KEYS (id) "
            "APPLY AS DELETE WHEN (op = 'DELETE') SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) "
            "STORED AS SCD TYPE 1");
  // APPLY CHANGES INTO is the older spelling; clauses come in any order.
  EXPECT_EQ(Sql("APPLY CHANGES INTO target FROM STREAM source KEYS (a, b) SEQUENCE BY "
                "struct(ts, n) IGNORE NULL UPDATES STORED AS SCD TYPE 2 COLUMNS a, b, v "
                "TRACK HISTORY ON * EXCEPT (v)"),
            "AUTO CDC INTO target FROM STREAM source KEYS (a, b) IGNORE NULL UPDATES SEQUENCE BY "
            "struct(ts, n) COLUMNS a, b, v STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (v)");
  EXPECT_EQ(Sql("AUTO CDC INTO t FROM STREAM read_files('/in', format => 'json') KEYS (id) "
                "APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY ts"),
            "AUTO CDC INTO t FROM STREAM read_files('/in', format => 'json') KEYS (id) "
            "APPLY AS TRUNCATE WHEN (op = 'T') SEQUENCE BY ts STORED AS SCD TYPE 1");
  ExpectRoundTrip(
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) AS src KEYS (id) SEQUENCE BY src.ts "
      "COLUMNS (id, v) STORED AS SCD TYPE 2 TRACK HISTORY ON v");
  ASSERT_OK_AND_ASSIGN(
      Statement statement,
      ParseStatement("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts COLUMNS a, b"));
  const AutoCdc& flow = std::get<AutoCdc>(statement.body);
  EXPECT_EQ(flow.flow_name, "");
  EXPECT_EQ(flow.target.ToString(), "t");
  // KEYS after the source is the clause, not the source's alias.
  EXPECT_EQ(flow.source->alias, "");
  EXPECT_TRUE(flow.source->stream);
  EXPECT_EQ(flow.keys, std::vector<std::string>{"id"});
  EXPECT_EQ(flow.sequence_by->ToString(), "ts");
  EXPECT_EQ(flow.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(flow.columns_except);
  EXPECT_EQ(flow.scd_type, 1);
  EXPECT_EQ(flow.keys_position.column, 32);
  EXPECT_EQ(flow.columns_position.column, 57);
}

TEST(ParserTest, AutoCdcErrors) {
  EXPECT_EQ(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id)"),
            "AUTO CDC needs SEQUENCE BY <column>: the order of the change events at line 1, "
            "column 41:\nAUTO CDC INTO t FROM STREAM(s) KEYS (id)\n"
            "                                        ^");
  EXPECT_EQ(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts TRACK HISTORY ON v"),
            "TRACK HISTORY ON needs STORED AS SCD TYPE 2 at line 1, column 57:\n"
            "AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts TRACK HISTORY ON v\n"
            "                                                        ^");
  EXPECT_NE(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 2 "
                  "APPLY AS TRUNCATE WHEN op = 'T'")
                .find("APPLY AS TRUNCATE WHEN is supported only with SCD TYPE 1"),
            std::string::npos);
  EXPECT_NE(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 3")
                .find("expected SCD TYPE 1 or 2"),
            std::string::npos);
  EXPECT_EQ(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts SEQUENCE BY u"),
            "SEQUENCE BY is given twice at line 1, column 57:\n"
            "AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts SEQUENCE BY u\n"
            "                                                        ^");
  EXPECT_NE(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts SEQUENSE BY u")
                .find("(did you mean SEQUENCE?)"),
            std::string::npos);
  EXPECT_NE(Error("AUTO CDC INTO t FROM STREAM(s) SEQUENCE BY ts").find("expected KEYS"),
            std::string::npos);
  EXPECT_NE(Error("AUTO CDC INTO t FROM STREAM(s) KEYS (id) IGNORE NULL UPDATES ON (a) "
                  "SEQUENCE BY ts")
                .find("IGNORE NULL UPDATES ON <columns> is not supported"),
            std::string::npos);
  EXPECT_NE(Error("CREATE FLOW f AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts")
                .find("expected AS"),
            std::string::npos);
  EXPECT_NE(
      Error("APPLY CHANGE INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts").find("expected CHANGES"),
      std::string::npos);
}

TEST(ParserTest, StreamingTableWithoutQueryIsAFlowTarget) {
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE users"),
            "CREATE OR REFRESH STREAMING TABLE users");
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE users (id BIGINT NOT NULL, name STRING) "
                "TBLPROPERTIES (delta.enableChangeDataFeed = true)"),
            "CREATE OR REFRESH STREAMING TABLE users (id bigint NOT NULL, name string) "
            "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
  ASSERT_OK_AND_ASSIGN(Statement statement, ParseStatement("CREATE STREAMING TABLE t;"));
  const CreateTable& create = std::get<CreateTable>(statement.body);
  EXPECT_TRUE(create.streaming);
  EXPECT_EQ(create.query, nullptr);
  EXPECT_NE(Error("CREATE STREAMING TABLE t garbage").find("expected a CREATE TABLE clause"),
            std::string::npos);
}

TEST(ParserTest, ScriptsMixStatements) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<Statement> statements,
      ParseScript("CREATE OR REFRESH STREAMING TABLE t; AUTO CDC INTO t FROM STREAM(s) KEYS (id) "
                  "SEQUENCE BY ts; DELETE FROM t WHERE id = 1; SELECT 1"));
  ASSERT_EQ(statements.size(), 4u);
  EXPECT_TRUE(std::holds_alternative<AutoCdc>(statements[1].body));
  EXPECT_TRUE(std::holds_alternative<Delete>(statements[2].body));
  EXPECT_NE(Error("DELTE FROM t").find("(did you mean DELETE?)"), std::string::npos);
}

}  // namespace
}  // namespace tributary::sql

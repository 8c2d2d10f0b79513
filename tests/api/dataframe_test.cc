// The public DataFrame API end to end: real JSON files read, written as a Delta table, queried
// back, and the same questions asked of DuckDB over the same data files.

#include "tributary/dataframe.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/delta_table.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Json;

std::vector<std::string> Sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

class DataFrameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Path() + "/warehouse").TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
    // 1000 events over 5 countries; every 7th latency is null.
    raw_ = dir_.Path() + "/raw";
    std::filesystem::create_directories(raw_);
    const char* countries[] = {"DE", "FR", "US", "JP", "BR"};
    const char* statuses[] = {"ok", "error", "timeout"};
    for (int file = 0; file < 2; ++file) {
      std::ofstream out(raw_ + "/part-" + std::to_string(file) + ".json");
      for (int i = file * 500; i < (file + 1) * 500; ++i) {
        out << "{\"id\":" << i << ",\"country\":\"" << countries[i % 5] << "\",\"status\":\""
            << statuses[(i / 5) % 3] << "\",\"latency_ms\":";
        if (i % 7 == 0) {
          out << "null";
        } else {
          out << (i * 37) % 1000;
        }
        out << ",\"bytes\":" << i * 11 << "}\n";
      }
    }
    std::ofstream names(dir_.Path() + "/countries.json");
    names
        << "{\"code\":\"DE\",\"name\":\"Germany\"}\n{\"code\":\"FR\",\"name\":\"France\"}\n"
        << "{\"code\":\"US\",\"name\":\"United States\"}\n{\"code\":\"XX\",\"name\":\"Nowhere\"}\n";
  }

  DataFrame Events() const { return session_->Read().Format("json").Load(raw_); }
  DataFrame Countries() const {
    return session_->Read().Format("json").Load(dir_.Path() + "/countries.json");
  }

  // DuckDB over the same JSON files.
  std::vector<std::string> Duck(const std::string& sql) const {
    auto rows = testing::OracleQuery(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }
  std::string DuckEvents() const {
    return "read_json('" + raw_ +
           "/*.json', columns={id: 'BIGINT', country: 'VARCHAR', status: 'VARCHAR', latency_ms: "
           "'BIGINT', bytes: 'BIGINT'})";
  }

  testing::TempDir dir_;
  std::string raw_;
  std::shared_ptr<Session> session_;
};

TEST_F(DataFrameTest, ReadsJsonWithInferredSchema) {
  DataFrame events = Events();
  ASSERT_OK(events.Status());
  // Spark's JSON inference: fields sorted by name, integers as bigint.
  EXPECT_EQ(events.Schema().TreeString(),
            "root\n |-- bytes: bigint (nullable = true)\n |-- country: string (nullable = true)\n"
            " |-- id: bigint (nullable = true)\n |-- latency_ms: bigint (nullable = true)\n"
            " |-- status: string (nullable = true)\n");
  ASSERT_OK_AND_ASSIGN(int64_t count, events.Count());
  EXPECT_EQ(count, 1000);
}

TEST_F(DataFrameTest, FilterSelectMatchesDuckDb) {
  DataFrame result = Events()
                         .Filter(Col("country") == Lit("DE") && Col("latency_ms") > Lit(500))
                         .Select({Col("id"), (Col("bytes") * Lit(2)).Alias("double_bytes")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, result.Collect());
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT id, bytes * 2 AS double_bytes FROM " + DuckEvents() +
                        " WHERE country = 'DE' AND latency_ms > 500")));
  EXPECT_FALSE(rows.empty());
}

TEST_F(DataFrameTest, GroupByMatchesDuckDb) {
  DataFrame result =
      Events()
          .GroupBy({Col("country"), Col("status")})
          .Agg({Count().Alias("n"), Sum(Col("bytes")).Alias("total"),
                Max(Col("latency_ms")).Alias("worst"), Count(Col("latency_ms")).Alias("measured")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, result.Collect());
  EXPECT_EQ(rows.size(), 15u);
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT country, status, count(*) AS n, sum(bytes)::BIGINT AS total, "
                        "max(latency_ms) AS worst, count(latency_ms) AS measured FROM " +
                        DuckEvents() + " GROUP BY country, status")));
}

TEST_F(DataFrameTest, WindowFunctionsMatchDuckDb) {
  const WindowSpec by_country = WindowSpec().PartitionBy({Col("country")});
  const WindowSpec ordered = by_country.OrderBy({Col("latency_ms").Desc(), Col("id").Asc()});
  DataFrame result = Events().Select(
      {Col("id"), RowNumber().Over(ordered).Alias("rn"), Rank().Over(ordered).Alias("r"),
       Lag(Col("bytes"), 1, Lit(int64_t{-1})).Over(ordered).Alias("prev"),
       Sum(Col("bytes")).Over(by_country).Alias("total"),
       Sum(Col("bytes"))
           .Over(ordered.RowsBetween(WindowSpec::kUnboundedPreceding, WindowSpec::kCurrentRow))
           .Alias("running"),
       Avg(Col("latency_ms")).Over(ordered.RowsBetween(-2, 2)).Alias("smooth")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, result.Collect());
  EXPECT_EQ(rows.size(), 1000u);
  const std::string window =
      " OVER (PARTITION BY country ORDER BY latency_ms DESC NULLS LAST, id ASC NULLS FIRST";
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT id, row_number()" + window + ") AS rn, rank()" + window +
                        ") AS r, lag(bytes, 1, -1)" + window +
                        ") AS prev, sum(bytes) OVER "
                        "(PARTITION BY country)::BIGINT AS total, sum(bytes)" +
                        window +
                        " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)::BIGINT AS running, "
                        "avg(latency_ms)" +
                        window + " ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS smooth FROM " +
                        DuckEvents())));
  // A window over something that is no function call is refused where it is used.
  EXPECT_THAT(Events().Select({Col("id").Over(by_country)}).Collect().status().ToString(),
              HasSubstr("over() applies to a window or aggregate function call"));
}

// The top rows per partition (Spark's WindowGroupLimit): the plan drops rows that cannot rank
// within the limit before the window sorts, and the rows are DuckDB's, ties included.
TEST_F(DataFrameTest, TopRowsPerPartitionMatchDuckDb) {
  const WindowSpec ordered = WindowSpec().PartitionBy({Col("country")}).OrderBy({Col("status")});
  for (const char* function : {"row_number", "rank", "dense_rank"}) {
    SCOPED_TRACE(function);
    Column ranked = std::string(function) == "row_number" ? RowNumber()
                    : std::string(function) == "rank"     ? Rank()
                                                          : DenseRank();
    DataFrame top =
        Events()
            .Select({Col("id"), Col("country"), Col("status"), ranked.Over(ordered).Alias("r")})
            .Filter(Col("r") <= Lit(2))
            .Select({Col("country"), Col("status"), Col("r")});
    ASSERT_OK_AND_ASSIGN(std::string plan, top.Explain());
    EXPECT_THAT(plan, HasSubstr("WindowGroupLimit 2"));
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, top.Collect());
    // row_number numbers ties in any order: compare which (country, status) pairs it keeps.
    EXPECT_EQ(Sorted(Json(rows)),
              Sorted(Duck(fmt::format("SELECT country, status, r FROM (SELECT country, status, "
                                      "{}() OVER (PARTITION BY country ORDER BY status) AS r "
                                      "FROM {}) WHERE r <= 2",
                                      function, DuckEvents()))));
  }
}

// GROUPING SETS over aggregates that merge read the input once: one aggregation by all keys,
// its rows expanded per set and merged. Rows as DuckDB's, through SQL over the same files.
TEST_F(DataFrameTest, GroupingSetsAggregateOnceAndMatchDuckDb) {
  const std::string from = "json.`" + raw_ + "`";
  DataFrame rollup = session_->Sql(
      "SELECT country, status, grouping_id() AS g, count(*) AS n, sum(bytes) AS total, "
      "min(latency_ms) AS fastest, max(latency_ms) AS slowest FROM " +
      from + " GROUP BY ROLLUP(country, status)");
  ASSERT_OK_AND_ASSIGN(std::string plan, rollup.Explain());
  const std::string physical = plan.substr(plan.find("== Physical Plan =="));
  EXPECT_THAT(physical, HasSubstr("Expand("));
  // The files are read once, below the one aggregation by all keys.
  EXPECT_EQ(physical.find("FileScan"), physical.rfind("FileScan")) << physical;
  EXPECT_NE(physical.find("HashAggregate", physical.find("Expand(")), std::string::npos)
      << physical;
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, rollup.Collect());
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT country, status, grouping(country, status)::BIGINT AS g, "
                        "count(*) AS n, sum(bytes)::BIGINT AS total, min(latency_ms) AS fastest, "
                        "max(latency_ms) AS slowest FROM " +
                        DuckEvents() + " GROUP BY ROLLUP(country, status)")));
}

TEST_F(DataFrameTest, JoinsMatchDuckDb) {
  DataFrame events = Events().Alias("e");
  DataFrame countries = Countries().Alias("c");
  for (const char* how : {"inner", "left", "right", "full", "left_semi", "left_anti"}) {
    DataFrame joined =
        events.Filter(Col("id") < Lit(20)).Join(countries, Col("e.country") == Col("c.code"), how);
    std::string select = std::string(how) == "left_semi" || std::string(how) == "left_anti"
                             ? "e.id, e.country"
                             : "e.id, e.country, c.name";
    DataFrame projected = std::string(how) == "left_semi" || std::string(how) == "left_anti"
                              ? joined.Select({Col("e.id"), Col("e.country")})
                              : joined.Select({Col("e.id"), Col("e.country"), Col("c.name")});
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, projected.Collect());
    std::string duck_how = how;
    std::replace(duck_how.begin(), duck_how.end(), '_', ' ');
    if (duck_how == "left semi") {
      duck_how = "semi";
    } else if (duck_how == "left anti") {
      duck_how = "anti";
    }
    std::string duck_sql = "SELECT " + select;
    duck_sql += " FROM (SELECT * FROM " + DuckEvents();
    duck_sql += " WHERE id < 20) e " + duck_how;
    duck_sql += " JOIN read_json('" + dir_.Path();
    duck_sql += "/countries.json') c ON e.country = c.code";
    EXPECT_EQ(Sorted(Json(rows)), Sorted(Duck(duck_sql))) << how;
  }
}

TEST_F(DataFrameTest, JoinUsingKeepsOneKeyColumn) {
  DataFrame left = Events().Filter(Col("id") < Lit(3)).Select({Col("id"), Col("country")});
  DataFrame right = Events().Filter(Col("id") < Lit(2)).Select({Col("id"), Col("status")});
  DataFrame joined = left.Join(right, std::vector<std::string>{"id"}, "full");
  EXPECT_EQ(joined.Columns(), (std::vector<std::string>{"id", "country", "status"}));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, joined.OrderBy({Col("id")}).Collect());
  EXPECT_THAT(Json(rows), ElementsAre(R"({"id":0,"country":"DE","status":"ok"})",
                                      R"({"id":1,"country":"FR","status":"ok"})",
                                      R"({"id":2,"country":"US","status":null})"));
}

TEST_F(DataFrameTest, OrderByLimitDistinctUnion) {
  ASSERT_OK_AND_ASSIGN(std::vector<Row> top,
                       Events()
                           .OrderBy({Col("latency_ms").Desc(), Col("id").Asc()})
                           .Limit(3)
                           .Select({"id", "latency_ms"})
                           .Collect());
  EXPECT_EQ(Json(top), Duck("SELECT id, latency_ms FROM " + DuckEvents() +
                            " ORDER BY latency_ms DESC NULLS LAST, id LIMIT 3"));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Row> nulls_first,
      Events().OrderBy({Col("latency_ms").Asc(), Col("id")}).Limit(2).Select({"id"}).Collect());
  EXPECT_THAT(Json(nulls_first), ElementsAre(R"({"id":0})", R"({"id":7})"));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> countries,
                       Events().Select({"country"}).Distinct().OrderBy({Col("country")}).Collect());
  EXPECT_THAT(Json(countries),
              ElementsAre(R"({"country":"BR"})", R"({"country":"DE"})", R"({"country":"FR"})",
                          R"({"country":"JP"})", R"({"country":"US"})"));
  DataFrame small = Events().Filter(Col("id") < Lit(2)).Select({"id"});
  ASSERT_OK_AND_ASSIGN(int64_t twice, small.Union(small).Count());
  EXPECT_EQ(twice, 4);
}

TEST_F(DataFrameTest, WithColumnDropRenameAndCaseWhen) {
  DataFrame frame =
      Events()
          .Filter(Col("id") < Lit(3))
          .WithColumn("slow", When(Col("latency_ms") > Lit(50), Lit("yes")).Otherwise(Lit("no")))
          .Drop({"bytes", "status", "country"})
          .WithColumnRenamed("latency_ms", "latency");
  EXPECT_EQ(frame.Columns(), (std::vector<std::string>{"id", "latency", "slow"}));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, frame.OrderBy({Col("id")}).Collect());
  EXPECT_THAT(Json(rows), ElementsAre(R"({"id":0,"latency":null,"slow":"no"})",
                                      R"({"id":1,"latency":37,"slow":"no"})",
                                      R"({"id":2,"latency":74,"slow":"yes"})"));
}

TEST_F(DataFrameTest, ExprColumnsAreSqlExpressions) {
  // Spark's functions.expr: a SQL expression where a Column goes, mixed with built columns.
  DataFrame result =
      Events()
          .Filter(Expr("country IN ('DE', 'FR') AND latency_ms BETWEEN 100 AND 600"))
          .Select({Col("id"),
                   Expr("CASE WHEN status = 'ok' THEN bytes ELSE -bytes END").Alias("signed_bytes"),
                   (Expr("id % 7") + Lit(1)).Alias("bucket")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, result.Collect());
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT id, CASE WHEN status = 'ok' THEN bytes ELSE -bytes END AS "
                        "signed_bytes, id % 7 + 1 AS bucket FROM " +
                        DuckEvents() +
                        " WHERE country IN ('DE', 'FR') AND latency_ms BETWEEN 100 AND 600")));
  EXPECT_FALSE(rows.empty());
  // Text that does not parse fails where the column is used, naming the function.
  DataFrame bad = Events().Filter(Expr("id >"));
  EXPECT_FALSE(bad.Status().ok());
  EXPECT_THAT(bad.Status().ToString(), HasSubstr("Expr: "));
}

TEST_F(DataFrameTest, ErrorsNameTheColumnAndSurfaceAtTheAction) {
  DataFrame bad = Events().Filter(Col("contry") == Lit("DE")).Select({"id"});
  EXPECT_FALSE(bad.Status().ok());
  EXPECT_THAT(bad.Status().ToString(),
              HasSubstr("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
                        "parameter with name `contry` cannot be resolved. Did you mean one of the "
                        "following? [`country`, "));
  auto rows = bad.Collect();
  EXPECT_FALSE(rows.ok());
  DataFrame joined = Events().Alias("a").Join(Events().Alias("b"), Col("a.id") == Col("b.id"));
  DataFrame ambiguous = joined.Select({"id"});
  EXPECT_THAT(ambiguous.Status().ToString(), HasSubstr("ambiguous"));
  EXPECT_THAT(Events().Select({Col("id").Cast("notatype")}).Status().ToString(),
              HasSubstr("notatype"));
  DataFrame not_grouped = Events().GroupBy({Col("country")}).Agg({Col("status")});
  EXPECT_THAT(not_grouped.Status().ToString(), HasSubstr("[MISSING_AGGREGATION]"));
}

TEST_F(DataFrameTest, DeltaRoundTripTimeTravelAndTableApi) {
  ASSERT_OK(Events()
                .Filter(Col("id") < Lit(100))
                .Write()
                .Format("delta")
                .PartitionBy({"country"})
                .SaveAsTable("events"));
  ASSERT_OK(Events().Filter(Col("id") >= Lit(100)).Write().Mode("append").SaveAsTable("events"));
  ASSERT_OK_AND_ASSIGN(int64_t now, session_->Table("events").Count());
  EXPECT_EQ(now, 1000);
  ASSERT_OK_AND_ASSIGN(int64_t then,
                       session_->Read().Option("versionAsOf", "0").Table("events").Count());
  EXPECT_EQ(then, 100);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> tables, session_->ListTables());
  EXPECT_THAT(tables, ElementsAre("events"));
  // The partition filter prunes files: only DE's files are read.
  DataFrame german = session_->Table("events").Filter(Col("country") == Lit("DE"));
  ASSERT_OK_AND_ASSIGN(std::string plan, german.Explain());
  EXPECT_THAT(plan, HasSubstr("pushed"));
  EXPECT_THAT(plan, HasSubstr("files=2/10"));
  ASSERT_OK_AND_ASSIGN(int64_t german_rows, german.Count());
  EXPECT_EQ(german_rows, 200);
  // The data files are standard Parquet: DuckDB reads the same rows.
  ASSERT_OK_AND_ASSIGN(std::vector<Row> ours,
                       session_->Table("events").Select({"id", "bytes"}).Collect());
  EXPECT_EQ(Sorted(Json(ours)),
            Sorted(Duck("SELECT id, bytes FROM read_parquet('" + session_->WarehouseDirectory() +
                        "/events/*/*.parquet')")));
  ASSERT_OK_AND_ASSIGN(DeltaTable table, DeltaTable::ForName(*session_, "events"));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> history,
                       table.History().Select({"version", "operation"}).Collect());
  EXPECT_THAT(Json(history), ElementsAre(R"({"version":1,"operation":"WRITE"})",
                                         R"({"version":0,"operation":"CREATE TABLE AS SELECT"})"));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> detail,
                       table.Detail().Select({"format", "partitionColumns", "numFiles"}).Collect());
  EXPECT_THAT(Json(detail),
              ElementsAre(R"({"format":"delta","partitionColumns":["country"],"numFiles":10})"));
  EXPECT_TRUE(DeltaTable::ForName(*session_, "missing").status().IsNotFound());
}

TEST_F(DataFrameTest, StarSelectsEveryColumnOfEachSide) {
  DataFrame joined =
      Countries().Alias("c").Join(Countries().Alias("d"), Col("c.code") == Col("d.code"));
  DataFrame left_only = joined.Select({Col("c.*")});
  EXPECT_EQ(left_only.Columns(), (std::vector<std::string>{"code", "name"}));
  DataFrame all = joined.Select({Col("*")}).OrderBy({Col("c.code")});
  EXPECT_EQ(all.Columns(), (std::vector<std::string>{"code", "name", "code", "name"}));
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, all.Limit(1).Collect());
  EXPECT_THAT(Json(rows),
              ElementsAre(R"({"code":"DE","name":"Germany","code":"DE","name":"Germany"})"));
  EXPECT_THAT(Events().SelectExpr({"id + 1 AS next", "upper(country)"}).Columns(),
              ElementsAre("next", "upper(country)"));
  ASSERT_OK_AND_ASSIGN(int64_t slow, Events().Filter("latency_ms > 900 AND status = 'ok'").Count());
  EXPECT_THAT(Duck("SELECT count(*) AS n FROM " + DuckEvents() +
                   " WHERE latency_ms > 900 AND status = 'ok'"),
              ElementsAre(R"({"n":)" + std::to_string(slow) + "}"));
  EXPECT_GT(slow, 0);
}

TEST_F(DataFrameTest, WriterOptionsAsSpark) {
  const std::string path = dir_.Path() + "/written";
  DataFrame ids = Events().Filter(Col("id") < Lit(3)).Select({"id"});
  // txnAppId/txnVersion: the second write of the same version is skipped (exactly once).
  ASSERT_OK(ids.Write().Option("txnAppId", "job").Option("txnVersion", "1").Save(path));
  ASSERT_OK(
      ids.Write().Mode("append").Option("txnAppId", "job").Option("txnVersion", "1").Save(path));
  ASSERT_OK_AND_ASSIGN(int64_t rows, session_->Read().Load(path).Count());
  EXPECT_EQ(rows, 3);
  EXPECT_THAT(ids.Write()
                  .Mode("append")
                  .Option("txnVersion", "x")
                  .Option("txnAppId", "j")
                  .Save(path)
                  .ToString(),
              HasSubstr("txnVersion"));
  EXPECT_THAT(ids.Write().Mode("append").Option("mergeSchema", "yes").Save(path).ToString(),
              HasSubstr("mergeSchema"));
  // A different schema replaces the table's only with overwriteSchema.
  DataFrame names = Events().Filter(Col("id") < Lit(2)).Select({"country"});
  EXPECT_FALSE(names.Write().Mode("overwrite").Save(path).ok());
  ASSERT_OK(names.Write().Mode("overwrite").Option("overwriteSchema", "true").Save(path));
  EXPECT_EQ(session_->Read().Load(path).Columns(), (std::vector<std::string>{"country"}));
  EXPECT_THAT(ids.Write().Mode("bogus").Save(path).ToString(), HasSubstr("unknown save mode"));
}

TEST_F(DataFrameTest, ParquetColumnOfAnotherTypeThanTheSchemaIsAnErrorNamingTheFile) {
  const std::string path = dir_.Path() + "/ids";
  ASSERT_OK(Events().Filter(Col("id") < Lit(5)).Select({"id", "country"}).Write().Save(path));
  // The table's data files, read as plain Parquet: their id is a bigint.
  ASSERT_OK_AND_ASSIGN(
      int64_t rows,
      session_->Read().Format("parquet").Schema("id BIGINT, country STRING").Load(path).Count());
  EXPECT_EQ(rows, 5);
  const Status misread = session_->Read()
                             .Format("parquet")
                             .Schema("id STRING, country STRING")
                             .Load(path)
                             .Collect()
                             .status();
  EXPECT_THAT(misread.ToString(), HasSubstr(".parquet: Parquet column 'id' cannot be read as "
                                            "string: the file stores it as bigint"));
}

TEST_F(DataFrameTest, ShowPrintsLikeSpark) {
  std::ostringstream out;
  ASSERT_OK(Events().OrderBy({Col("id")}).Select({"id", "country"}).Show(out, 2));
  EXPECT_EQ(out.str(),
            "+---+-------+\n"
            "| id|country|\n"
            "+---+-------+\n"
            "|  0|     DE|\n"
            "|  1|     FR|\n"
            "+---+-------+\n"
            "only showing top 2 rows\n");
}

}  // namespace
}  // namespace tributary

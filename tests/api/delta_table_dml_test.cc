// DeltaTable's row-level DML (Delete, Update, Merge with DeltaMergeBuilder) through the public
// API on warehouse tables: the rows after each call, the metrics row each returns, the
// history entry it commits, the multiple-match error, schema evolution, and idempotent
// statements through the session's txnAppId/txnVersion settings.

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/delta_table.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DeltaTableDmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    session_ = NewSession({});
    ASSERT_NE(session_, nullptr);
    ASSERT_OK(session_->Sql("CREATE TABLE t (id BIGINT, name STRING, v INT)").Status());
    // Two appends: two data files.
    ASSERT_OK(session_->Sql("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)").Collect().status());
    ASSERT_OK(session_->Sql("INSERT INTO t VALUES (3, 'c', 30)").Collect().status());
  }

  std::shared_ptr<Session> NewSession(
      const std::vector<std::pair<std::string, std::string>>& config) {
    Session::Builder builder;
    builder.Warehouse(warehouse_).TimeZone("UTC");
    for (const auto& [key, value] : config) {
      builder.Config(key, value);
    }
    auto session = builder.Build();
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    return session.ok() ? *session : nullptr;
  }

  DeltaTable Table(const Session& session) {
    auto table = DeltaTable::ForName(session, "t");
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return table->As("t");
  }

  static std::vector<std::string> Json(const Result<std::vector<Row>>& rows) {
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> TableRows(const Session& session) {
    return Json(session.Sql("SELECT * FROM t").Collect());
  }

  DataFrame Source(const Session& session) {
    return session
        .Sql(
            "SELECT CAST(2 AS BIGINT) AS id, 'B' AS name, 21 AS v UNION ALL "
            "SELECT CAST(9 AS BIGINT), 'i', 90")
        .Alias("s");
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Join("warehouse");
  std::shared_ptr<Session> session_;
};

TEST_F(DeltaTableDmlTest, DeleteAndUpdateChangeTheMatchingRows) {
  DeltaTable table = Table(*session_);
  ASSERT_OK_AND_ASSIGN(DataFrame deleted, table.Delete("t.v = 20"));
  EXPECT_THAT(Json(deleted.Collect()), ElementsAre(R"({"num_affected_rows":1})"));
  ASSERT_OK_AND_ASSIGN(DataFrame updated,
                       table.Update(Col("id") == Lit(int64_t{3}),
                                    {{"name", Upper(Col("name"))}, {"v", Col("v") + Lit(1)}}));
  EXPECT_THAT(Json(updated.Collect()), ElementsAre(R"({"num_affected_rows":1})"));
  ASSERT_OK(table.UpdateExpr({{"t.v", "v * 10"}}).status());
  EXPECT_THAT(TableRows(*session_),
              ElementsAre(R"({"id":1,"name":"a","v":100})", R"({"id":3,"name":"C","v":310})"));
  auto history = Json(table.History(3).Select({Col("operation")}).Collect());
  EXPECT_THAT(history, ElementsAre(R"({"operation":"DELETE"})", R"({"operation":"UPDATE"})",
                                   R"({"operation":"UPDATE"})"));
  ASSERT_OK(table.Delete().status());
  EXPECT_TRUE(TableRows(*session_).empty());
}

TEST_F(DeltaTableDmlTest, MergeUpsertsAndReturnsTheMetricsRow) {
  DeltaTable table = Table(*session_);
  ASSERT_OK_AND_ASSIGN(DataFrame metrics, table.Merge(Source(*session_), "t.id = s.id")
                                              .WhenMatched()
                                              .UpdateAll()
                                              .WhenNotMatched()
                                              .InsertAll()
                                              .WhenNotMatchedBySource("t.id = 1")
                                              .Delete()
                                              .Execute());
  EXPECT_THAT(Json(metrics.Collect()),
              ElementsAre(R"({"num_affected_rows":3,"num_updated_rows":1,)"
                          R"("num_deleted_rows":1,"num_inserted_rows":1})"));
  EXPECT_THAT(TableRows(*session_),
              ElementsAre(R"({"id":2,"name":"B","v":21})", R"({"id":3,"name":"c","v":30})",
                          R"({"id":9,"name":"i","v":90})"));
  auto history = Json(table.History(1).Select({Col("operation")}).Collect());
  EXPECT_THAT(history, ElementsAre(R"({"operation":"MERGE"})"));
}

TEST_F(DeltaTableDmlTest, MergeWithExpressionsAndConditions) {
  DeltaTable table = Table(*session_);
  ASSERT_OK(table.Merge(Source(*session_), Col("t.id") == Col("s.id"))
                .WhenMatched("s.v > 100")
                .Delete()
                .WhenMatched()
                .UpdateExpr({{"v", "t.v + s.v"}})
                .WhenNotMatched(Col("s.v") > Lit(50))
                .InsertExpr({{"id", "s.id"}, {"name", "'new'"}})
                .Execute()
                .status());
  EXPECT_THAT(TableRows(*session_),
              ElementsAre(R"({"id":1,"name":"a","v":10})", R"({"id":2,"name":"b","v":41})",
                          R"({"id":3,"name":"c","v":30})", R"({"id":9,"name":"new","v":null})"));
}

TEST_F(DeltaTableDmlTest, MergeErrorsReachExecute) {
  DeltaTable table = Table(*session_);
  DataFrame duplicates = session_
                             ->Sql(
                                 "SELECT CAST(1 AS BIGINT) AS id, 'x' AS name, 1 AS v UNION ALL "
                                 "SELECT CAST(1 AS BIGINT), 'y', 2")
                             .Alias("s");
  auto ambiguous = table.Merge(duplicates, "t.id = s.id").WhenMatched().UpdateAll().Execute();
  ASSERT_RAISES(InvalidArgument, ambiguous);
  EXPECT_THAT(ambiguous.status().ToString(),
              HasSubstr("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
  ASSERT_RAISES(InvalidArgument,
                table.Merge(Source(*session_), "t.id = = s.id").WhenMatched().Delete().Execute());
  ASSERT_RAISES(InvalidArgument, table.Merge(Source(*session_), "t.id = s.id")
                                     .WhenMatched()
                                     .UpdateExpr({{"nope", "1"}})
                                     .Execute());
  EXPECT_THAT(TableRows(*session_).size(), 3u);
}

TEST_F(DeltaTableDmlTest, WithSchemaEvolutionAddsSourceColumns) {
  DeltaTable table = Table(*session_);
  DataFrame wider = session_
                        ->Sql(
                            "SELECT CAST(9 AS BIGINT) AS id, 'i' AS name, 90 AS v, "
                            "true AS flag")
                        .Alias("s");
  ASSERT_OK(table.Merge(wider, "t.id = s.id")
                .WhenNotMatched()
                .InsertAll()
                .WithSchemaEvolution()
                .Execute()
                .status());
  EXPECT_THAT(TableRows(*session_), ElementsAre(R"({"id":1,"name":"a","v":10,"flag":null})",
                                                R"({"id":2,"name":"b","v":20,"flag":null})",
                                                R"({"id":3,"name":"c","v":30,"flag":null})",
                                                R"({"id":9,"name":"i","v":90,"flag":true})"));
}

TEST_F(DeltaTableDmlTest, SessionTxnSettingsMakeARerunANoOp) {
  auto session = NewSession({{"spark.databricks.delta.write.txnAppId", "batch-job"},
                             {"spark.databricks.delta.write.txnVersion", "4"}});
  DeltaTable table = Table(*session);
  auto merge = [&] {
    return table.Merge(Source(*session), "t.id = s.id")
        .WhenMatched()
        .UpdateExpr({{"v", "t.v + 1"}})
        .Execute();
  };
  ASSERT_OK(merge().status());
  ASSERT_OK_AND_ASSIGN(DataFrame again, merge());
  EXPECT_THAT(Json(again.Collect()), ElementsAre(R"({"num_affected_rows":0,"num_updated_rows":0,)"
                                                 R"("num_deleted_rows":0,"num_inserted_rows":0})"));
  EXPECT_THAT(TableRows(*session),
              ElementsAre(R"({"id":1,"name":"a","v":10})", R"({"id":2,"name":"b","v":21})",
                          R"({"id":3,"name":"c","v":30})"));
}

}  // namespace
}  // namespace tributary

// Spark's utility statements whose text holds the table's location, so the data-driven SQL
// cases (tests/sql/cases/utility_statements.test) cannot spell it: DESCRIBE [TABLE] EXTENDED
// and SHOW CREATE TABLE.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;

class UtilityStatementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(warehouse_).TimeZone("UTC").Build();
    ASSERT_OK(session.status());
    session_ = *session;
    ASSERT_OK(session_
                  ->Sql("CREATE TABLE events (id BIGINT, country STRING, tags ARRAY<STRING>) "
                        "USING DELTA PARTITIONED BY (country) TBLPROPERTIES "
                        "('delta.checkpointInterval' = '2', 'owner.team' = 'data')")
                  .Status());
  }

  // Each row's values joined by '|'.
  std::vector<std::string> Rows(const std::string& sql) const {
    auto rows = session_->Sql(sql).Collect();
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      std::string text;
      for (int i = 0; i < row.Size(); ++i) {
        if (i > 0) {
          text += '|';
        }
        text += row.GetString(i).ValueOr("<not a string>");
      }
      out.push_back(text);
    }
    return out;
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Join("warehouse");
  std::shared_ptr<Session> session_;
};

TEST_F(UtilityStatementsTest, DescribeExtendedAddsPartitionsAndTableDetails) {
  const std::vector<std::string> expected = {
      "id|bigint|",
      "country|string|",
      "tags|array<string>|",
      "# Partition Information||",
      "# col_name|data_type|comment",
      "country|string|",
      "||",
      "# Detailed Table Information||",
      "Name|spark_catalog.default.events|",
      "Location|file:" + warehouse_ + "/events|",
      "Provider|delta|",
      std::string("Table Properties|[delta.checkpointInterval=2,delta.minReaderVersion=1,") +
          "delta.minWriterVersion=2,owner.team=data]|"};
  EXPECT_EQ(Rows("DESCRIBE TABLE EXTENDED events"), expected);
  EXPECT_EQ(Rows("DESCRIBE EXTENDED events"), expected);
  EXPECT_EQ(Rows("DESC FORMATTED events"), expected);
  EXPECT_THAT(Rows("DESCRIBE events"),
              ElementsAre("id|bigint|", "country|string|", "tags|array<string>|"));
}

TEST_F(UtilityStatementsTest, DescribeExtendedOfUnpartitionedPathTable) {
  ASSERT_OK(session_->Sql("CREATE TABLE plain (a INT, b DECIMAL(10,2)) USING DELTA").Status());
  EXPECT_THAT(Rows("DESCRIBE EXTENDED delta.`" + warehouse_ + "/plain`"),
              ElementsAre("a|int|", "b|decimal(10,2)|", "||", "# Detailed Table Information||",
                          "Name|delta.`" + warehouse_ + "/plain`|",
                          "Location|file:" + warehouse_ + "/plain|", "Provider|delta|",
                          "Table Properties|[delta.minReaderVersion=1,delta.minWriterVersion=2]|"));
}

TEST_F(UtilityStatementsTest, ShowCreateTablePrintsSparksStatement) {
  EXPECT_THAT(Rows("SHOW CREATE TABLE events"),
              ElementsAre("CREATE TABLE spark_catalog.default.events (\n"
                          "  id BIGINT,\n"
                          "  country STRING,\n"
                          "  tags ARRAY<STRING>)\n"
                          "USING delta\n"
                          "PARTITIONED BY (country)\n"
                          "LOCATION 'file:" +
                          warehouse_ +
                          "/events'\n"
                          "TBLPROPERTIES (\n"
                          "  'delta.checkpointInterval' = '2',\n"
                          "  'delta.minReaderVersion' = '1',\n"
                          "  'delta.minWriterVersion' = '2',\n"
                          "  'owner.team' = 'data')\n"));
  ASSERT_OK(session_
                ->Sql("CREATE TABLE odd (`a b` STRUCT<x: INT, y: MAP<STRING, DOUBLE>> NOT NULL) "
                      "USING DELTA")
                .Status());
  EXPECT_THAT(Rows("SHOW CREATE TABLE odd"),
              ElementsAre("CREATE TABLE spark_catalog.default.odd (\n"
                          "  `a b` STRUCT<x: INT, y: MAP<STRING, DOUBLE>> NOT NULL)\n"
                          "USING delta\n"
                          "LOCATION 'file:" +
                          warehouse_ +
                          "/odd'\n"
                          "TBLPROPERTIES (\n"
                          "  'delta.minReaderVersion' = '1',\n"
                          "  'delta.minWriterVersion' = '2')\n"));
}

TEST_F(UtilityStatementsTest, MissingTableIsTableOrViewNotFound) {
  const tributary::Status status = session_->Sql("SHOW CREATE TABLE nope").Status();
  EXPECT_TRUE(status.IsNotFound());
  EXPECT_THAT(status.ToString(), ::testing::HasSubstr("[TABLE_OR_VIEW_NOT_FOUND]"));
}

}  // namespace
}  // namespace tributary

// A data source table's folder is plain Hive-partitioned Parquet: DuckDB's read_parquet with
// hive_partitioning reads the files a CREATE TABLE ... USING parquet, INSERT INTO and INSERT
// OVERWRITE left and finds the rows our SELECT returns.

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

std::vector<std::string> SortedRows(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& row : rows) {
    out.push_back(row.ToJson());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FileTableInteropTest, DuckDBReadsAPartitionedParquetTableAsWeDo) {
  testing::TempDir dir;
  const std::string warehouse = dir.Join("warehouse");
  ASSERT_OK_AND_ASSIGN(auto session, Session::Builder().Warehouse(warehouse).Build());
  ASSERT_OK(session
                ->Sql("CREATE TABLE sales (id BIGINT, region STRING, amount DOUBLE) USING parquet "
                      "PARTITIONED BY (region)")
                .Status());
  ASSERT_OK(session->Sql("INSERT INTO sales VALUES (1, 1.5, 'EU'), (2, 2.5, 'US'), (3, 3.5, NULL)")
                .Status());
  ASSERT_OK(session->Sql("INSERT INTO sales VALUES (4, 4.5, 'a/b')").Status());
  // Partition columns come last, as in Spark: the table is (id, amount, region).
  ASSERT_OK_AND_ASSIGN(auto ours, session->Sql("SELECT id, amount, region FROM sales").Collect());

  // Spark writes a null partition value as __HIVE_DEFAULT_PARTITION__ and escapes '/'; DuckDB
  // reads both as text, so the query maps them back.
  ASSERT_OK_AND_ASSIGN(
      auto theirs,
      testing::OracleQuery("SELECT id, amount, CASE WHEN region = '__HIVE_DEFAULT_PARTITION__' "
                           "THEN NULL ELSE replace(region, '%2F', '/') END AS region FROM "
                           "read_parquet('" +
                           warehouse + "/sales/*/*.parquet', hive_partitioning = true)"));
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(theirs, SortedRows(ours));
  EXPECT_EQ(theirs.size(), 4u);

  ASSERT_OK(session->Sql("INSERT OVERWRITE sales VALUES (9, 9.5, 'EU')").Status());
  ASSERT_OK_AND_ASSIGN(auto after, testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" +
                                                        warehouse + "/sales/*/*.parquet')"));
  EXPECT_EQ(after, std::vector<std::string>{R"({"n":1})"});
}

}  // namespace
}  // namespace tributary

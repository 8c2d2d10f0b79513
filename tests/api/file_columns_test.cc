// Per-file constant columns of file scans through the public API: partition columns from
// `key=value` directories (Spark's partition discovery) and the hidden `_metadata` column, in
// DataFrame reads and SQL read_files, checked against DuckDB's hive partitioning where it helps.

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SortedJson;

class FileColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Path() + "/warehouse").TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
    root_ = dir_.Path() + "/events";
  }

  void Write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = root_ + "/" + relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  // Three files in year=/country= directories, one with a null (__HIVE_DEFAULT_PARTITION__)
  // and one with an escaped value.
  void WritePartitioned() {
    Write("year=2023/country=DE/part-0.json", "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n");
    Write("year=2024/country=US%2FCA/part-0.json", "{\"id\":3,\"v\":\"c\"}\n");
    Write("year=2024/country=__HIVE_DEFAULT_PARTITION__/part-1.json", "{\"id\":4,\"v\":\"d\"}\n");
  }

  std::vector<Row> Collect(const DataFrame& frame) {
    auto rows = frame.Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<Row>{};
  }

  testing::TempDir dir_;
  std::string root_;
  std::shared_ptr<Session> session_;
};

TEST_F(FileColumnsTest, PartitionColumnsFollowTheDataColumnsWithInferredTypes) {
  WritePartitioned();
  DataFrame events = session_->Read().Format("json").Load(root_);
  ASSERT_OK(events.Status());
  EXPECT_EQ(events.Schema().TreeString(),
            "root\n |-- id: bigint (nullable = true)\n |-- v: string (nullable = true)\n"
            " |-- year: int (nullable = true)\n |-- country: string (nullable = true)\n");
  EXPECT_THAT(SortedJson(Collect(events)),
              ElementsAre(R"({"id":1,"v":"a","year":2023,"country":"DE"})",
                          R"({"id":2,"v":"b","year":2023,"country":"DE"})",
                          R"({"id":3,"v":"c","year":2024,"country":"US/CA"})",
                          R"({"id":4,"v":"d","year":2024,"country":null})"));
  // A filter on a partition column, and a count that reads only partition values.
  EXPECT_THAT(SortedJson(Collect(events.Filter(Col("year") == Lit(2023)).Select({"id"}))),
              ElementsAre(R"({"id":1})", R"({"id":2})"));
  EXPECT_THAT(SortedJson(Collect(session_->Sql("SELECT year, count(*) AS n FROM read_files('" +
                                               root_ + "', format => 'json') GROUP BY year"))),
              ElementsAre(R"({"year":2023,"n":2})", R"({"year":2024,"n":2})"));
}

TEST_F(FileColumnsTest, PartitionValuesMatchDuckDbHivePartitioning) {
  Write("day=2024-05-01/n=1/a.json", "{\"id\":1}\n{\"id\":2}\n");
  Write("day=2024-05-02/n=20/b.json", "{\"id\":3}\n");
  Write("day=2024-05-02/n=3000000000/c.json", "{\"id\":4}\n");
  DataFrame events = session_->Read().Format("json").Load(root_);
  ASSERT_OK(events.Status());
  // Spark infers date and (the widest of int and long) bigint; DuckDB does the same here.
  EXPECT_EQ(events.Schema().TreeString(),
            "root\n |-- id: bigint (nullable = true)\n |-- day: date (nullable = true)\n"
            " |-- n: bigint (nullable = true)\n");
  auto duck = testing::OracleQuery("SELECT id, day, n FROM read_json('" + root_ +
                                   "/*/*/*.json', hive_partitioning = true, columns = {id: "
                                   "'BIGINT'}, hive_types = {day: 'DATE', n: 'BIGINT'})");
  ASSERT_OK(duck.status());
  std::vector<std::string> expected = *duck;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortedJson(Collect(events)), expected);
  EXPECT_EQ(expected.size(), 4u);
}

TEST_F(FileColumnsTest, APartitionColumnAlsoInTheFilesTakesTheDirectoryValue) {
  Write("country=DE/a.json", "{\"id\":1,\"country\":\"XX\"}\n");
  DataFrame events = session_->Read().Format("json").Load(root_);
  EXPECT_EQ(events.Schema().TreeString(),
            "root\n |-- country: string (nullable = true)\n |-- id: bigint (nullable = true)\n");
  EXPECT_THAT(SortedJson(Collect(events)), ElementsAre(R"({"country":"DE","id":1})"));
}

TEST_F(FileColumnsTest, AGivenSchemaTypesThePartitionColumnsItNames) {
  WritePartitioned();
  DataFrame events = session_->Read().Format("json").Schema("id BIGINT, year STRING").Load(root_);
  EXPECT_EQ(events.Schema().TreeString(),
            "root\n |-- id: bigint (nullable = true)\n |-- year: string (nullable = true)\n"
            " |-- country: string (nullable = true)\n");
  EXPECT_THAT(SortedJson(Collect(events.Select({"id", "year"}).Filter(Col("id") < Lit(3)))),
              ElementsAre(R"({"id":1,"year":"2023"})", R"({"id":2,"year":"2023"})"));
}

TEST_F(FileColumnsTest, ConflictingPartitionLayoutsFailNamingBothFiles) {
  Write("year=2024/a.json", "{\"id\":1}\n");
  Write("month=5/b.json", "{\"id\":2}\n");
  DataFrame events = session_->Read().Format("json").Load(root_);
  EXPECT_THAT(events.Status().ToString(), HasSubstr("conflicting partition directories"));
  EXPECT_THAT(events.Status().ToString(), HasSubstr("month=5/b.json"));
}

TEST_F(FileColumnsTest, MetadataIsHiddenUntilSelectedByName) {
  WritePartitioned();
  const std::string de = root_ + "/year=2023/country=DE/part-0.json";
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(de));
  DataFrame events = session_->Read().Format("json").Load(root_);
  ASSERT_OK(events.Status());
  // Not part of the schema nor of SELECT *.
  EXPECT_THAT(events.Schema().TreeString(), ::testing::Not(HasSubstr("_metadata")));
  DataFrame star = events.Select({"*"});
  EXPECT_THAT(star.Schema().TreeString(), ::testing::Not(HasSubstr("_metadata")));

  // By name: the whole struct, fields of it, and in a filter that is not selected.
  DataFrame with = events.Filter(Col("id") == Lit(1)).Select({Col("*"), Col("_metadata")});
  ASSERT_OK(with.Status());
  EXPECT_THAT(with.Schema().TreeString(),
              HasSubstr(" |-- _metadata: struct<file_path:string,file_name:string,file_size:bigint,"
                        "file_block_start:bigint,file_block_length:bigint,"
                        "file_modification_time:timestamp> (nullable = true)\n"));
  std::vector<Row> rows = Collect(with);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0].ToJson(),
              HasSubstr(R"("_metadata":{"file_path":")" + de +
                        R"(","file_name":"part-0.json","file_size":)" + std::to_string(size) +
                        R"(,"file_block_start":0,"file_block_length":)" + std::to_string(size)));

  DataFrame names = events.Filter(Col("_metadata.file_name") == Lit("part-1.json"))
                        .Select({Col("id"), Col("_metadata.file_size").Alias("size")});
  EXPECT_THAT(SortedJson(Collect(names)), ElementsAre(R"({"id":4,"size":17})"));
  // Filtering on it does not add it to what follows.
  DataFrame filtered = events.Filter(Col("_metadata.file_name") == Lit("part-1.json"));
  EXPECT_THAT(filtered.Schema().TreeString(), ::testing::Not(HasSubstr("_metadata")));
  EXPECT_THAT(SortedJson(Collect(filtered)),
              ElementsAre(R"({"id":4,"v":"d","year":2024,"country":null})"));
}

TEST_F(FileColumnsTest, MetadataInSql) {
  WritePartitioned();
  const std::string files = "read_files('" + root_ + "', format => 'json')";
  DataFrame star = session_->Sql("SELECT * FROM " + files);
  ASSERT_OK(star.Status());
  EXPECT_THAT(star.Schema().TreeString(), ::testing::Not(HasSubstr("_metadata")));
  DataFrame named = session_->Sql(
      "SELECT id, _metadata.file_name AS src, _metadata.file_path LIKE '%/year=2024/%' AS late "
      "FROM " +
      files + " WHERE _metadata.file_size > 0 ORDER BY _metadata.file_path, id");
  EXPECT_THAT(SortedJson(Collect(named)),
              ElementsAre(R"({"id":1,"src":"part-0.json","late":false})",
                          R"({"id":2,"src":"part-0.json","late":false})",
                          R"({"id":3,"src":"part-0.json","late":true})",
                          R"({"id":4,"src":"part-1.json","late":true})"));
  DataFrame both = session_->Sql("SELECT *, _metadata FROM " + files + " WHERE id = 4");
  ASSERT_OK(both.Status());
  EXPECT_THAT(both.Schema().TreeString(), HasSubstr("|-- country: string"));
  EXPECT_THAT(both.Schema().TreeString(), HasSubstr("|-- _metadata: struct"));
}

TEST_F(FileColumnsTest, ADataColumnNamedMetadataWins) {
  Write("a.json", "{\"id\":1,\"_metadata\":\"mine\"}\n");
  DataFrame events = session_->Read().Format("json").Load(root_);
  EXPECT_THAT(SortedJson(Collect(events.Select({"_metadata"}))),
              ElementsAre(R"({"_metadata":"mine"})"));
}

}  // namespace
}  // namespace tributary

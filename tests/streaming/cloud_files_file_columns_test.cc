// Auto Loader's per-file columns end to end through the public API: partition columns from
// `key=value` directories (strings by default, typed by schemaHints or inferColumnTypes,
// selected by cloudFiles.partitionColumns) and the hidden `_metadata` column, streamed into
// Delta tables across restarts, from the DataFrame API and from a SQL pipeline.

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CloudFilesFileColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        session_, Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build());
    landing_ = dir_.Join("landing");
    std::filesystem::create_directories(landing_);
  }

  // A file below the landing folder, published by a rename so no listing sees it half written.
  void Land(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = landing_ + "/" + relative;
    std::filesystem::create_directories(path.parent_path());
    const std::string hidden = path.parent_path().string() + "/." + path.filename().string();
    std::ofstream(hidden, std::ios::binary) << text;
    std::filesystem::rename(hidden, path);
  }

  // One available-now run of landing -> `table` with `options`, selecting `columns`.
  Status Run(const std::map<std::string, std::string>& options, const std::vector<Column>& columns,
             const std::string& table) {
    DataFrame stream = session_->ReadStream()
                           .Format("cloudFiles")
                           .Option("cloudFiles.format", "json")
                           .Option("cloudFiles.schemaLocation", dir_.Join("schema"))
                           .Options(options)
                           .Load(landing_)
                           .Select(columns);
    TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query,
                              stream.WriteStream()
                                  .Format("delta")
                                  .Option("checkpointLocation", dir_.Join("checkpoint"))
                                  .Trigger(Trigger::AvailableNow())
                                  .Start(table));
    return query.AwaitTermination();
  }

  std::vector<std::string> Rows(const std::string& sql) const {
    auto rows = session_->Sql(sql).Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  std::string landing_;
};

TEST_F(CloudFilesFileColumnsTest, PartitionsAndMetadataReachDeltaAcrossARestart) {
  Land("country=DE/day=2024-05-01/a.json", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n");
  const std::string table = dir_.Join("bronze");
  const std::vector<Column> columns = {Col("*"), Col("_metadata.file_name").Alias("src"),
                                       Col("_metadata.file_size").Alias("size")};
  ASSERT_OK(Run({}, columns, table));
  // Partition columns are strings by default, after the data and rescued-data columns.
  EXPECT_THAT(
      Rows("SELECT * FROM delta.`" + table + "`"),
      ElementsAre(
          R"({"id":"1","_rescued_data":null,"country":"DE","day":"2024-05-01","src":"a.json","size":22})",
          R"({"id":"2","_rescued_data":null,"country":"DE","day":"2024-05-01","src":"a.json","size":22})"));

  // The restart reads the stored partition schema; a new partition value is filled in.
  Land("country=FR/day=2024-05-02/b.json", "{\"id\":\"3\"}\n");
  ASSERT_OK(Run({}, columns, table));
  EXPECT_THAT(Rows("SELECT id, country, day, src FROM delta.`" + table + "`"),
              ElementsAre(R"({"id":"1","country":"DE","day":"2024-05-01","src":"a.json"})",
                          R"({"id":"2","country":"DE","day":"2024-05-01","src":"a.json"})",
                          R"({"id":"3","country":"FR","day":"2024-05-02","src":"b.json"})"));
}

TEST_F(CloudFilesFileColumnsTest, HintsAndInferColumnTypesTypeThePartitionColumns) {
  Land("year=2024/n=7/a.json", "{\"id\":1}\n");
  const std::string table = dir_.Join("typed");
  ASSERT_OK(Run({{"cloudFiles.inferColumnTypes", "true"}, {"cloudFiles.schemaHints", "n STRING"}},
                {Col("id"), Col("year"), Col("n")}, table));
  DataFrame typed = session_->Read().Format("delta").Load(table);
  EXPECT_EQ(typed.Schema().TreeString(),
            "root\n |-- id: bigint (nullable = true)\n |-- year: int (nullable = true)\n"
            " |-- n: string (nullable = true)\n");
  EXPECT_THAT(Rows("SELECT * FROM delta.`" + table + "`"),
              ElementsAre(R"({"id":1,"year":2024,"n":"7"})"));
}

TEST_F(CloudFilesFileColumnsTest, PartitionColumnsOptionSelectsThemAndEmptyMeansNone) {
  Land("year=2024/month=5/a.json", "{\"id\":\"1\"}\n");
  const std::string table = dir_.Join("selected");
  ASSERT_OK(Run({{"cloudFiles.partitionColumns", "month"}}, {Col("*")}, table));
  EXPECT_THAT(Rows("SELECT * FROM delta.`" + table + "`"),
              ElementsAre(R"({"id":"1","_rescued_data":null,"month":"5"})"));

  std::filesystem::remove_all(dir_.Join("schema"));
  std::filesystem::remove_all(dir_.Join("checkpoint"));
  const std::string none = dir_.Join("none");
  ASSERT_OK(Run({{"cloudFiles.partitionColumns", ""}}, {Col("*")}, none));
  EXPECT_THAT(Rows("SELECT * FROM delta.`" + none + "`"),
              ElementsAre(R"({"id":"1","_rescued_data":null})"));
}

TEST_F(CloudFilesFileColumnsTest, SqlPipelineSelectsMetadataFromStreamReadFiles) {
  Land("region=eu/a.json", "{\"id\":1,\"status\":\"active\"}\n{\"id\":2,\"status\":\"idle\"}\n");
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE raw_logs AS\n"
      "  SELECT *, _metadata.file_name AS src, _metadata.file_path AS path FROM STREAM "
      "read_files('" +
      landing_ + "', format => 'json', inferColumnTypes => true);\n";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline, Pipeline::Parse(session_, sql, {}));
  ASSERT_OK(pipeline->Run());
  Land("region=us/b.json", "{\"id\":3,\"status\":\"active\"}\n");
  ASSERT_OK_AND_ASSIGN(pipeline, Pipeline::Parse(session_, sql, {}));
  ASSERT_OK(pipeline->Run());
  EXPECT_THAT(Rows("SELECT id, region, src, path FROM raw_logs"),
              ElementsAre("{\"id\":1,\"region\":\"eu\",\"src\":\"a.json\",\"path\":\"" + landing_ +
                              "/region=eu/a.json\"}",
                          "{\"id\":2,\"region\":\"eu\",\"src\":\"a.json\",\"path\":\"" + landing_ +
                              "/region=eu/a.json\"}",
                          "{\"id\":3,\"region\":\"us\",\"src\":\"b.json\",\"path\":\"" + landing_ +
                              "/region=us/b.json\"}"));
  // `*` of the stream does not carry the hidden column into the table.
  auto schema = session_->Sql("SELECT * FROM raw_logs").Schema().TreeString();
  EXPECT_THAT(schema, ::testing::Not(HasSubstr("_metadata")));
}

TEST_F(CloudFilesFileColumnsTest, PlainFileStreamDiscoversPartitionsWithAnInferredSchema) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Session> session,
                       Session::Builder()
                           .Warehouse(dir_.Join("warehouse"))
                           .TimeZone("UTC")
                           .Config("spark.sql.streaming.schemaInference", "true")
                           .Build());
  Land("day=2024-05-01/a.json", "{\"id\":1}\n");
  DataFrame stream = session->ReadStream().Format("json").Load(landing_).Select(
      {Col("*"), Col("_metadata.file_name").Alias("src")});
  const std::string table = dir_.Join("plain");
  ASSERT_OK_AND_ASSIGN(StreamingQuery query, stream.WriteStream()
                                                 .Format("delta")
                                                 .Option("checkpointLocation", dir_.Join("cp"))
                                                 .Trigger(Trigger::AvailableNow())
                                                 .Start(table));
  ASSERT_OK(query.AwaitTermination());
  DataFrame written = session->Read().Format("delta").Load(table);
  EXPECT_EQ(written.Schema().TreeString(),
            "root\n |-- id: bigint (nullable = true)\n |-- day: date (nullable = true)\n"
            " |-- src: string (nullable = true)\n");
  auto rows = written.Collect();
  ASSERT_OK(rows.status());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].ToJson(), R"({"id":1,"day":"2024-05-01","src":"a.json"})");
}

}  // namespace
}  // namespace tributary

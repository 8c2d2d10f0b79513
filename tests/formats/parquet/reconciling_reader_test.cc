// Reading a Parquet file under a schema that differs from the file's.

#include "formats/parquet/reconciling_reader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::parquet {
namespace {

using columnar::DataType;
using columnar::Field;

class ReconcilingReaderTest : public ::testing::Test {
 protected:
  // A file (id bigint, name string, extra bigint) of two rows.
  void SetUp() override {
    path_ = dir_.Join("part.parquet");
    auto schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                             Field("extra", DataType::Int64())});
    ASSERT_OK_AND_ASSIGN(
        auto batch, testing::BatchFromJson(schema, R"([{"id":1,"name":"a","extra":10},{"id":2}])"));
    ASSERT_OK(WriteParquetFile(fs_, path_, {batch}, schema));
  }

  std::vector<std::string> ReadAll(ReconcilingReader& reader) {
    std::vector<std::string> rows;
    while (true) {
      auto batch = reader.Next();
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok() || *batch == nullptr) {
        return rows;
      }
      for (std::string& row : columnar::CanonicalJsonRows(**batch)) {
        rows.push_back(std::move(row));
      }
    }
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::string path_;
};

TEST_F(ReconcilingReaderTest, MissingColumnsReadAsNullsAndOthersAreUnknown) {
  auto schema =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("score", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(auto reader, ReconcilingReader::Open(fs_, path_, schema, {"score", "id"}, "",
                                                            columnar::DefaultMemoryPool()));
  EXPECT_EQ(reader->UnknownFields(), (std::vector<std::string>{"name", "extra"}));
  EXPECT_EQ(ReadAll(*reader),
            (std::vector<std::string>{R"({"score":null,"id":1})", R"({"score":null,"id":2})"}));
}

TEST_F(ReconcilingReaderTest, OtherShapesFailUnlessRescued) {
  auto schema = testing::MakeSchema(
      {Field("id", DataType::String()), Field("_rescued_data", DataType::String())});
  EXPECT_EQ(ReconcilingReader::Open(fs_, path_, schema, {"id"}, "", columnar::DefaultMemoryPool())
                .status()
                .Code(),
            StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto reader,
                       ReconcilingReader::Open(fs_, path_, schema, {"id", "_rescued_data"},
                                               "_rescued_data", columnar::DefaultMemoryPool()));
  const std::vector<std::string> rows = ReadAll(*reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].find(R"("id":null)"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find(R"(\"id\":1)"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find(R"(\"name\":\"a\")"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find("_file_path"), std::string::npos) << rows[0];
}

}  // namespace
}  // namespace tributary::parquet

// Hive-style partition directories (parsing, unescaping, Spark's type inference) and the
// per-file columns FileScanOperator adds: partition values and the hidden `_metadata` struct,
// over real files.

#include "exec/hive_partitioning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exec/operator_io.h"
#include "exec/scan.h"
#include "storage/local_file_system.h"
#include "support/temp_dir.h"

namespace tributary::exec {
namespace {

using ::testing::ElementsAre;

std::string Types(const std::vector<std::vector<std::optional<std::string>>>& columns) {
  std::string out;
  for (const auto& values : columns) {
    if (!out.empty()) {
      out += ' ';
    }
    out += InferPartitionType(values, expr::TimeZone())->ToString();
  }
  return out;
}

TEST(HivePartitioningTest, DirectoriesBetweenRootAndFile) {
  std::vector<PartitionDirectory> dirs =
      PartitionDirectories("/data/t/", "/data/t/year=2024/plain/c%3Dd=a%2Fb%3A1/x=/f.json");
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0].key, "year");
  EXPECT_EQ(dirs[0].value, "2024");
  EXPECT_EQ(dirs[1].key, "c=d");  // keys and values are unescaped
  EXPECT_EQ(dirs[1].value, "a/b:1");
  EXPECT_EQ(dirs[2].key, "x");
  EXPECT_EQ(dirs[2].value, "");
  dirs = PartitionDirectories("/data/t", "/data/t/k=__HIVE_DEFAULT_PARTITION__/f.json");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_FALSE(dirs[0].value.has_value());
  // Outside the root, or a file right in it: none. A malformed escape stays as written.
  EXPECT_TRUE(PartitionDirectories("/data/t", "/data/other/k=1/f.json").empty());
  EXPECT_TRUE(PartitionDirectories("/data/t", "/data/t/f.json").empty());
  EXPECT_EQ(PartitionDirectories("/d", "/d/k=50%/f")[0].value, "50%");
}

TEST(HivePartitioningTest, InfersSparksPartitionTypes) {
  EXPECT_EQ(Types({{"1", "-2"}, {"1", "3000000000"}, {"99999999999999999999"}, {"1", "2.5"}}),
            "int bigint decimal(20,0) double");
  EXPECT_EQ(
      Types({{"2024-05-01"}, {"2024-05-01", "2024-05-01 10:00:00"}, {"2024-05-01 10:00:00.5"}}),
      "date timestamp timestamp");
  // A mix of families, text, or only nulls: string.
  EXPECT_EQ(Types({{"1", "2024-05-01"}, {"DE"}, {std::nullopt}, {std::nullopt, "7"}}),
            "string string string int");
}

TEST(HivePartitioningTest, ValuesConvertOrBecomeNull) {
  const expr::EvalContext context;
  ASSERT_OK_AND_ASSIGN(auto value,
                       PartitionValueColumn("42", columnar::DataType::Int32(), context));
  EXPECT_TRUE(value->IsValid(0));
  ASSERT_OK_AND_ASSIGN(value, PartitionValueColumn("x", columnar::DataType::Int32(), context));
  EXPECT_TRUE(value->IsNull(0));
  ASSERT_OK_AND_ASSIGN(value,
                       PartitionValueColumn(std::nullopt, columnar::DataType::Date(), context));
  EXPECT_TRUE(value->IsNull(0));
}

class FileScanColumnsTest : public ::testing::Test {
 protected:
  void Write(const std::string& relative, const std::string& text) {
    const std::string path = dir_.Join(relative);
    ASSERT_OK(fs_.CreateDir(path.substr(0, path.rfind('/'))));
    ASSERT_OK(fs_.WriteFile(path, text, storage::WriteMode::kReplace));
  }

  FileScanSpec Spec() {
    FileScanSpec spec;
    spec.format = formats::FileFormat::kJson;
    spec.paths = {dir_.Join("k=1/d=x/a.json"), dir_.Join("k=2/b.json")};
    spec.schema = std::make_shared<const columnar::Schema>(
        std::vector<columnar::Field>{columnar::Field("id", columnar::DataType::Int64()),
                                     columnar::Field("k", columnar::DataType::String())});
    spec.partition_schema = std::make_shared<const columnar::Schema>(
        std::vector<columnar::Field>{columnar::Field("k", columnar::DataType::Int32()),
                                     columnar::Field("d", columnar::DataType::String())});
    spec.partition_root = dir_.Path();
    spec.metadata_column = true;
    return spec;
  }

  std::vector<std::string> Read(const FileScanSpec& spec, const std::vector<std::string>& columns) {
    auto op = FileScanOperator::Make(spec, columns, context_);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    if (!op.ok()) {
      return {};
    }
    auto rows = RowsOf(**op);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  ExecContext context_{expr::EvalContext{}, columnar::DefaultMemoryPool(), &fs_};
};

TEST_F(FileScanColumnsTest, PartitionValuesReplaceTheDataColumnAndFollowTheOthers) {
  Write("k=1/d=x/a.json", "{\"id\":1,\"k\":\"file\"}\n{\"id\":2}\n");
  Write("k=2/b.json", "{\"id\":3}\n");
  int num_hidden = -1;
  ASSERT_OK_AND_ASSIGN(SchemaPtr schema, FileScanOperator::ScanSchema(Spec(), fs_, &num_hidden));
  EXPECT_EQ(num_hidden, 1);
  EXPECT_EQ(schema->NumFields(), 5);  // id, k (the partition's int), _rescued_data, d, _metadata
  EXPECT_EQ(schema->FieldAt(1).Type()->ToString(), "int");
  // All columns: the hidden one is left out.
  EXPECT_THAT(Read(Spec(), {}), ElementsAre(R"({"id":1,"k":1,"_rescued_data":null,"d":"x"})",
                                            R"({"id":2,"k":1,"_rescued_data":null,"d":"x"})",
                                            R"({"id":3,"k":2,"_rescued_data":null,"d":null})"));
  // Only constants selected: the rows are still counted from the files.
  EXPECT_THAT(Read(Spec(), {"d", "k"}),
              ElementsAre(R"({"d":"x","k":1})", R"({"d":"x","k":1})", R"({"d":null,"k":2})"));
}

TEST_F(FileScanColumnsTest, MetadataIsComputedPerFileWhenSelected) {
  Write("k=1/d=x/a.json", "{\"id\":1}\n{\"id\":2}\n");
  Write("k=2/b.json", "{\"id\":3}\n");
  ASSERT_OK_AND_ASSIGN(storage::FileInfo info, fs_.GetFileInfo(dir_.Join("k=2/b.json")));
  std::vector<std::string> rows = Read(Spec(), {"_metadata", "id"});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_THAT(rows[0], ::testing::HasSubstr(R"("file_path":")" + dir_.Join("k=1/d=x/a.json") +
                                            R"(","file_name":"a.json","file_size":18,)"
                                            R"("file_block_start":0,"file_block_length":18,)"));
  EXPECT_THAT(rows[2], ::testing::HasSubstr(R"("file_name":"b.json","file_size":9,)"));
  EXPECT_THAT(rows[2], ::testing::HasSubstr(R"(},"id":3})"));
  EXPECT_EQ(info.size, 9);

  // A data column named _metadata wins; the hidden one is not added.
  FileScanSpec own = Spec();
  own.schema = std::make_shared<const columnar::Schema>(
      std::vector<columnar::Field>{columnar::Field("_metadata", columnar::DataType::String())});
  Write("k=2/b.json", "{\"_metadata\":\"mine\"}\n");
  own.paths = {dir_.Join("k=2/b.json")};
  int num_hidden = -1;
  ASSERT_OK(FileScanOperator::ScanSchema(own, fs_, &num_hidden).status());
  EXPECT_EQ(num_hidden, 0);
  EXPECT_THAT(Read(own, {"_metadata"}), ElementsAre(R"({"_metadata":"mine"})"));
}

}  // namespace
}  // namespace tributary::exec

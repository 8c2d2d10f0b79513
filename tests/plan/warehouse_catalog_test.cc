// The warehouse as a catalog: names qualified by schema, schemas as `<name>.db` folders with a
// marker, and catalog entries of data source tables written and read back.

#include "plan/warehouse_catalog.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::plan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class WarehouseCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(warehouse_);
    catalog_.fs = &fs_;
    catalog_.warehouse = warehouse_;
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Join("warehouse");
  storage::LocalFileSystem fs_;
  Catalog catalog_;
};

TEST_F(WarehouseCatalogTest, NamesResolveInTheCurrentSchemaUnlessQualified) {
  ASSERT_OK_AND_ASSIGN(QualifiedName plain, QualifyTableName(catalog_, "Events"));
  EXPECT_EQ(plain.schema, "default");
  EXPECT_EQ(plain.table, "events");
  catalog_.current_schema = "sales";
  ASSERT_OK_AND_ASSIGN(plain, QualifyTableName(catalog_, "events"));
  EXPECT_EQ(plain.schema, "sales");
  ASSERT_OK_AND_ASSIGN(QualifiedName two, QualifyTableName(catalog_, "Default.t"));
  EXPECT_EQ(two.schema, "default");
  ASSERT_OK_AND_ASSIGN(QualifiedName three, QualifyTableName(catalog_, "SPARK_CATALOG.s.t"));
  EXPECT_EQ(three.schema, "s");
  EXPECT_EQ(three.table, "t");
  ASSERT_RAISES(InvalidArgument, QualifyTableName(catalog_, "other.s.t"));
  ASSERT_RAISES(InvalidArgument, QualifyTableName(catalog_, "a.b.c.d"));
  ASSERT_RAISES(InvalidArgument, QualifyTableName(catalog_, "s..t"));

  EXPECT_EQ(SchemaDirectory(catalog_, "default"), warehouse_);
  EXPECT_EQ(SchemaDirectory(catalog_, "Sales"), warehouse_ + "/sales.db");
  ASSERT_OK_AND_ASSIGN(std::string path, TablePath(catalog_, "t"));
  EXPECT_EQ(path, warehouse_ + "/sales.db/t");
}

TEST_F(WarehouseCatalogTest, SchemasAreMarkedFoldersDroppedOnlyEmptyWithoutCascade) {
  ASSERT_OK(CreateSchema(catalog_, "Sales"));
  EXPECT_TRUE(std::filesystem::exists(warehouse_ + "/sales.db/_schema.json"));
  ASSERT_RAISES(AlreadyExists, CreateSchema(catalog_, "sales"));
  ASSERT_RAISES(AlreadyExists, CreateSchema(catalog_, "default"));
  ASSERT_RAISES(InvalidArgument, CreateSchema(catalog_, "_catalog"));
  // A folder named like a schema without the marker is not one.
  std::filesystem::create_directories(warehouse_ + "/stray.db");
  ASSERT_OK_AND_ASSIGN(auto schemas, ListSchemas(catalog_));
  EXPECT_THAT(schemas, ElementsAre("default", "sales"));

  TableEntry entry;
  entry.name = "Items";
  entry.provider = "parquet";
  entry.managed = true;
  entry.location = warehouse_ + "/sales.db/items";
  entry.schema = std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
      {"id", columnar::DataType::Int32(), true}, {"p", columnar::DataType::String(), true}});
  entry.partition_columns = {"p"};
  entry.options = {{"compression", "snappy"}};
  ASSERT_OK(WriteTableEntry(catalog_, "sales.items", entry));
  ASSERT_RAISES(AlreadyExists, WriteTableEntry(catalog_, "sales.ITEMS", entry));
  ASSERT_OK_AND_ASSIGN(auto tables, ListSchemaTables(catalog_, "sales"));
  EXPECT_THAT(tables, ElementsAre("items"));
  ASSERT_OK_AND_ASSIGN(auto read, ReadTableEntry(catalog_, "spark_catalog.sales.items"));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->name, "Items");
  EXPECT_EQ(read->provider, "parquet");
  EXPECT_TRUE(read->managed);
  EXPECT_EQ(read->location, entry.location);
  EXPECT_TRUE(read->schema->Equals(*entry.schema));
  EXPECT_THAT(read->partition_columns, ElementsAre("p"));
  EXPECT_EQ(read->options, entry.options);

  auto restricted = DropSchema(catalog_, "sales", /*cascade=*/false);
  ASSERT_RAISES(InvalidArgument, restricted);
  EXPECT_THAT(restricted.Message(), HasSubstr("[SCHEMA_NOT_EMPTY]"));
  ASSERT_OK(DropSchema(catalog_, "sales", /*cascade=*/true));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/sales.db"));
  ASSERT_RAISES(NotFound, DropSchema(catalog_, "sales", false));
  ASSERT_RAISES(InvalidArgument, DropSchema(catalog_, "default", true));
}

TEST_F(WarehouseCatalogTest, UnreadableEntryIsCorruptionNamingItsFile) {
  std::filesystem::create_directories(warehouse_ + "/_catalog");
  std::ofstream(warehouse_ + "/_catalog/t.json") << R"({"location": "/x", "provider": "csv"})";
  auto read = ReadTableEntry(catalog_, "t");
  ASSERT_RAISES(Corruption, read.status());
  EXPECT_THAT(read.status().Message(), HasSubstr("/_catalog/t.json"));
  // An external Delta table's entry (name, location, provider) reads as one.
  std::ofstream(warehouse_ + "/_catalog/d.json") << R"({"name": "d", "location": "/x"})";
  ASSERT_OK_AND_ASSIGN(auto delta, ReadTableEntry(catalog_, "d"));
  ASSERT_TRUE(delta.has_value());
  EXPECT_FALSE(delta->IsFileTable());
}

}  // namespace
}  // namespace tributary::plan

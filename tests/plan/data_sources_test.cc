// The catalog a plan resolves names in: managed tables under the warehouse, external tables
// registered in it (for every later session), reserved names, and the data files a path holds.

#include "plan/data_sources.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::plan {
namespace {

using ::testing::ElementsAre;

class DataSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(warehouse_);
    catalog_.fs = &fs_;
    catalog_.warehouse = warehouse_;
  }

  static void Touch(const std::string& path) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << "x";
  }

  testing::TempDir dir_;
  std::string warehouse_ = dir_.Join("warehouse");
  storage::LocalFileSystem fs_;
  Catalog catalog_;
};

TEST_F(DataSourcesTest, ManagedTablesLiveUnderTheWarehouseByLowercasedName) {
  ASSERT_OK_AND_ASSIGN(std::string path, TablePath(catalog_, "Events"));
  EXPECT_EQ(path, warehouse_ + "/events");
  ASSERT_OK_AND_ASSIGN(std::string managed, ManagedTablePath(catalog_, "events"));
  EXPECT_EQ(managed, path);
}

TEST_F(DataSourcesTest, ReservedNamesAndNamesThatArePathsAreInvalid) {
  ASSERT_RAISES(InvalidArgument, TablePath(catalog_, "_checkpoints"));
  ASSERT_RAISES(InvalidArgument, TablePath(catalog_, "_Catalog"));
  ASSERT_RAISES(InvalidArgument, TablePath(catalog_, ""));
  ASSERT_RAISES(InvalidArgument, TablePath(catalog_, ".."));
  ASSERT_RAISES(InvalidArgument, ManagedTablePath(catalog_, "../outside"));
}

TEST_F(DataSourcesTest, ExternalTablesAreRegisteredListedAndUnregistered) {
  const std::string location = dir_.Join("elsewhere/events");
  std::filesystem::create_directories(location);
  ASSERT_OK_AND_ASSIGN(auto none, ExternalTableLocation(catalog_, "events"));
  EXPECT_FALSE(none.has_value());

  ASSERT_OK(RegisterExternalTable(catalog_, "Events", location));
  ASSERT_OK_AND_ASSIGN(auto registered, ExternalTableLocation(catalog_, "events"));
  EXPECT_EQ(registered, std::optional<std::string>(location));
  ASSERT_OK_AND_ASSIGN(std::string path, TablePath(catalog_, "EVENTS"));
  EXPECT_EQ(path, location);
  // The managed location of the name does not move.
  ASSERT_OK_AND_ASSIGN(std::string managed, ManagedTablePath(catalog_, "events"));
  EXPECT_EQ(managed, warehouse_ + "/events");
  ASSERT_RAISES(AlreadyExists, RegisterExternalTable(catalog_, "events", location));

  ASSERT_OK(RegisterExternalTable(catalog_, "clicks", dir_.Join("elsewhere/clicks")));
  ASSERT_OK_AND_ASSIGN(auto names, ListExternalTables(catalog_));
  EXPECT_THAT(names, ElementsAre("clicks", "events"));

  ASSERT_OK(UnregisterExternalTable(catalog_, "events"));
  ASSERT_RAISES(NotFound, UnregisterExternalTable(catalog_, "events"));
  ASSERT_OK_AND_ASSIGN(auto gone, ExternalTableLocation(catalog_, "events"));
  EXPECT_FALSE(gone.has_value());
  EXPECT_TRUE(std::filesystem::exists(location));  // the files stay
}

TEST_F(DataSourcesTest, DataFilesSkipHiddenAndUnderscoreNamesAtEveryLevel) {
  const std::string root = dir_.Join("files");
  Touch(root + "/b.json");
  Touch(root + "/a/x.json");
  Touch(root + "/_hidden/y.json");
  Touch(root + "/a/.tmp.json");
  Touch(root + "/_SUCCESS");
  ASSERT_OK_AND_ASSIGN(auto files, ListDataFiles(fs_, root));
  EXPECT_THAT(files, ElementsAre(root + "/a/x.json", root + "/b.json"));
  ASSERT_OK_AND_ASSIGN(auto single, ListDataFiles(fs_, root + "/b.json"));
  EXPECT_THAT(single, ElementsAre(root + "/b.json"));
}

TEST_F(DataSourcesTest, ScanningADeltaTableThatIsNotThereIsNotFound) {
  ASSERT_RAISES(NotFound, ScanDeltaTable(catalog_, warehouse_ + "/missing", {}, "missing"));
}

}  // namespace
}  // namespace tributary::plan

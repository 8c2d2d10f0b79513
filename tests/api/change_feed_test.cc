// Reading a Delta table's change data feed through the DataFrame reader
// (Option("readChangeFeed", "true") with Delta's startingVersion / endingVersion /
// startingTimestamp options), checked against time travel reads of the same table.

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::Each;
using ::testing::HasSubstr;

// 2024-05-01T10:00:00Z.
constexpr int64_t kTenOClockSeconds = 1714557600;

class ChangeFeedReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
  }

  static std::vector<std::string> Rows(const DataFrame& frame) {
    auto rows = frame.Collect();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : rows.ok() ? *rows : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  DataFrameReader Changes() const {
    DataFrameReader reader = session_->Read();
    reader.Format("delta").Option("readChangeFeed", "true");
    return reader;
  }

  std::vector<std::string> AsOf(const std::string& path, int version) const {
    DataFrameReader reader = session_->Read();
    reader.Format("delta").Option("versionAsOf", std::to_string(version));
    return Rows(reader.Load(path));
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  std::string cdf_table_ = testing::TestdataDir() + "/golden/delta-rs-cdf-table/delta";
};

TEST_F(ChangeFeedReadTest, ChangesOfEachVersionAreWhatTimeTravelSeesChange) {
  // Version 3 is a DELETE: its "delete" rows are the rows of version 2 not in version 3.
  const auto v2 = AsOf(cdf_table_, 2);
  const auto v3 = AsOf(cdf_table_, 3);
  std::vector<std::string> gone;
  std::set_difference(v2.begin(), v2.end(), v3.begin(), v3.end(), std::back_inserter(gone));
  ASSERT_FALSE(gone.empty());
  auto deletes = Changes()
                     .Option("startingVersion", "3")
                     .Option("endingVersion", "3")
                     .Load(cdf_table_)
                     .Filter("_change_type = 'delete'")
                     .Select({"id", "name", "birthday"});
  EXPECT_EQ(Rows(deletes), gone);
  // Version 0 is the first write: every row of version 0, as inserts.
  auto inserts = Changes()
                     .Option("startingVersion", "0")
                     .Option("endingVersion", "0")
                     .Load(cdf_table_)
                     .Filter("_change_type = 'insert' AND _commit_version = 0")
                     .Select({"id", "name", "birthday"});
  EXPECT_EQ(Rows(inserts), AsOf(cdf_table_, 0));
  // Every version: 10 inserts, pre/post images of the two UPDATEs and the DELETE's rows.
  auto all = Changes().Option("startingVersion", "0").Load(cdf_table_);
  EXPECT_THAT(all.Columns(), ::testing::ElementsAre("id", "name", "birthday", "_change_type",
                                                    "_commit_version", "_commit_timestamp"));
  auto count = all.Count();
  ASSERT_OK(count.status());
  auto images = Changes()
                    .Option("startingVersion", "1")
                    .Option("endingVersion", "2")
                    .Load(cdf_table_)
                    .Filter("_change_type LIKE 'update_%'")
                    .Count();
  ASSERT_OK(images.status());
  EXPECT_GT(*images, 0);
  EXPECT_EQ(*count, 10 + *images + static_cast<int64_t>(gone.size()));
}

TEST_F(ChangeFeedReadTest, OptionsAreCheckedAsDeltaChecksThem) {
  auto no_start = Changes().Load(cdf_table_).Collect();
  EXPECT_THAT(no_start.status().Message(),
              HasSubstr("No startingVersion or startingTimestamp provided for CDC read."));
  auto two_starts = Changes()
                        .Option("startingVersion", "0")
                        .Option("startingTimestamp", "2023-01-01")
                        .Load(cdf_table_)
                        .Collect();
  EXPECT_THAT(two_starts.status().Message(),
              HasSubstr("Multiple starting arguments provided for CDC read"));
  auto backwards =
      Changes().Option("startingVersion", "2").Option("endingVersion", "1").Load(cdf_table_);
  EXPECT_THAT(backwards.Collect().status().Message(), HasSubstr("End cannot be before start"));
}

TEST_F(ChangeFeedReadTest, TableWrittenHereReadsItsInsertsByVersionAndTimestamp) {
  ASSERT_OK(session_
                ->Sql("CREATE TABLE t (id BIGINT, name STRING) USING DELTA TBLPROPERTIES "
                      "(delta.enableChangeDataFeed = true)")
                .Status());
  ASSERT_OK(session_->Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')").Status());
  ASSERT_OK(session_->Sql("INSERT INTO t VALUES (3, 'c')").Status());
  auto from_two = Changes()
                      .Option("startingVersion", "2")
                      .Table("t")
                      .Select({"id", "name", "_change_type", "_commit_version"});
  EXPECT_THAT(
      Rows(from_two),
      ::testing::ElementsAre(R"({"id":3,"name":"c","_change_type":"insert","_commit_version":2})"));
  // A starting timestamp before the first commit starts at version 0 (the CREATE: no rows).
  auto by_time = Changes()
                     .Option("startingTimestamp", "2000-01-01 00:00:00")
                     .Table("t")
                     .Select({"_commit_version"});
  EXPECT_THAT(Rows(by_time),
              ::testing::ElementsAre(R"({"_commit_version":1})", R"({"_commit_version":1})",
                                     R"({"_commit_version":2})"));
  auto rows = Rows(Changes().Option("startingVersion", "0").Table("t").Select({"_change_type"}));
  EXPECT_THAT(rows, Each(R"({"_change_type":"insert"})"));
  // Commits at 10:00, 11:00 and 12:00 UTC (commit times are the files' modification times):
  // a start at 10:30 is version 1 (the first commit at or after it), an end at 11:59:59.9999
  // version 1 (the last at or before it).
  for (int v = 0; v < 3; ++v) {
    const std::string commit = dir_.Join(fmt::format("warehouse/t/_delta_log/{:020}.json", v));
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = kTenOClockSeconds + int64_t{3600} * v;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    ASSERT_EQ(::utimensat(AT_FDCWD, commit.c_str(), times, 0), 0) << commit;
  }
  auto window = Changes()
                    .Option("startingTimestamp", "2024-05-01 10:30:00")
                    .Option("endingTimestamp", "2024-05-01 11:59:59.9999")
                    .Table("t")
                    .Select({"id", "_commit_version", "_commit_timestamp"});
  EXPECT_THAT(
      Rows(window),
      ::testing::ElementsAre(
          R"({"id":1,"_commit_version":1,"_commit_timestamp":"2024-05-01T11:00:00.000000Z"})",
          R"({"id":2,"_commit_version":1,"_commit_timestamp":"2024-05-01T11:00:00.000000Z"})"));
}

TEST_F(ChangeFeedReadTest, UpdatesAndDeletesOfThisWriterReadBackAsTheirImages) {
  for (const char* dv : {"false", "true"}) {
    SCOPED_TRACE(std::string("deletion vectors ") + dv);
    const std::string table = std::string("dml_") + (dv[0] == 't' ? "dv" : "cow");
    ASSERT_OK(session_
                  ->Sql("CREATE TABLE " + table +
                        " (id BIGINT, name STRING) USING DELTA TBLPROPERTIES "
                        "(delta.enableChangeDataFeed = true, delta.enableDeletionVectors = " +
                        dv + ")")
                  .Status());
    ASSERT_OK(
        session_->Sql("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b'), (3, 'c')").Status());
    ASSERT_OK(session_->Sql("UPDATE " + table + " SET name = 'B' WHERE id = 2").Status());
    ASSERT_OK(session_->Sql("DELETE FROM " + table + " WHERE id = 3").Status());
    auto feed = Changes()
                    .Option("startingVersion", "2")
                    .Table(table)
                    .Select({"id", "name", "_change_type", "_commit_version"});
    EXPECT_THAT(Rows(feed),
                ::testing::ElementsAre(
                    R"({"id":2,"name":"B","_change_type":"update_postimage","_commit_version":2})",
                    R"({"id":2,"name":"b","_change_type":"update_preimage","_commit_version":2})",
                    R"({"id":3,"name":"c","_change_type":"delete","_commit_version":3})"));
  }
}

}  // namespace
}  // namespace tributary

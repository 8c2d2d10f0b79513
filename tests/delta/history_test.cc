// Commit history and timestamp time travel: a timestamp resolves to the newest commit at or
// before it; before the first commit and after the latest one are errors, as in Delta.

#include "delta/history.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::HasSubstr;

// 2024-05-01T10:00:00Z in milliseconds.
constexpr int64_t kTenOClock = 1714557600000;
constexpr int64_t kHour = int64_t{3600} * 1000;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = testing::MakeSchema({Field("id", DataType::Int64())});
    for (int i = 0; i < 2; ++i) {
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      auto batch = testing::BatchFromJson(schema, fmt::format("[[{}]]", i)).ValueOrDie();
      ASSERT_OK(WriteTable(fs_, root_, schema, {batch}, options));
      // Commit i at 10:00 + i hours (commit times are the files' modification times).
      const std::string commit = fmt::format("{}/_delta_log/{:020}.json", root_, i);
      const int64_t ms = kTenOClock + i * kHour;
      struct timespec times[2];
      times[0].tv_sec = times[1].tv_sec = ms / 1000;
      times[0].tv_nsec = times[1].tv_nsec = 0;
      ASSERT_EQ(::utimensat(AT_FDCWD, commit.c_str(), times, 0), 0) << commit;
    }
  }

  testing::TempDir dir_;
  std::string root_ = dir_.Join("t");
  storage::LocalFileSystem fs_;
};

TEST_F(HistoryTest, TimestampResolvesToTheNewestCommitAtOrBeforeIt) {
  ASSERT_OK_AND_ASSIGN(int64_t at_ten, VersionAtTimestamp(fs_, root_, kTenOClock));
  EXPECT_EQ(at_ten, 0);
  ASSERT_OK_AND_ASSIGN(int64_t at_half_past,
                       VersionAtTimestamp(fs_, root_, kTenOClock + kHour / 2));
  EXPECT_EQ(at_half_past, 0);
  ASSERT_OK_AND_ASSIGN(int64_t at_eleven, VersionAtTimestamp(fs_, root_, kTenOClock + kHour));
  EXPECT_EQ(at_eleven, 1);
  ASSERT_RAISES(NotFound, VersionAtTimestamp(fs_, root_, kTenOClock - 1));
}

TEST_F(HistoryTest, TimestampAfterTheLatestCommitIsAnError) {
  auto later = VersionAtTimestamp(fs_, root_, kTenOClock + kHour + 1);
  ASSERT_RAISES(InvalidArgument, later);
  EXPECT_THAT(later.status().Message(),
              HasSubstr("The provided timestamp (2024-05-01 11:00:00.001 UTC) is after the latest "
                        "version available to this table (2024-05-01 11:00:00 UTC, version 1)"));
}

}  // namespace
}  // namespace tributary::delta

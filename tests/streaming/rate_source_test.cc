#include "streaming/rate_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "streaming/source_fixture.h"

namespace tributary::streaming {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// 2026-01-01T00:00:00Z.
constexpr int64_t kStartMs = 1'767'225'600'000;

class RateSourceTest : public testing::SourceTest {
 protected:
  std::shared_ptr<const RateSourceDefinition> Define(const formats::OptionMap& options) {
    auto definition = RateSourceDefinition::Make(options, [this] { return now_ms_; });
    EXPECT_TRUE(definition.ok()) << definition.status().ToString();
    return definition.ok() ? *definition : nullptr;
  }

  int64_t now_ms_ = kStartMs;
};

TEST(RateValueAtSecondTest, RampsUpLinearlyThenStaysAtTheRate) {
  RateSourceOptions options;
  options.rows_per_second = 10;
  options.ramp_up_time_seconds = 4;
  std::vector<int64_t> values;
  for (int64_t second = 0; second <= 6; ++second) {
    values.push_back(RateValueAtSecond(second, options));
  }
  // Speed 0, 2, 4, 6, 8, then 10 rows per second.
  EXPECT_THAT(values, ElementsAre(0, 2, 6, 12, 20, 30, 40));
  options.ramp_up_time_seconds = 0;
  EXPECT_EQ(RateValueAtSecond(7, options), 70);
}

TEST_F(RateSourceTest, ProducesValuesWithTimestampsSpreadOverEachSecond) {
  auto definition = Define({{"rowsPerSecond", "5"}});
  EXPECT_EQ(definition->Schema()->ToString(), "timestamp: timestamp\nvalue: bigint\n");
  auto source = Open(*definition);
  ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(none.has_value());

  now_ms_ = kStartMs + 1999;
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  EXPECT_EQ(first, "1");
  ASSERT_OK_AND_ASSIGN(plan::ScanSource batch, source->GetBatch(std::nullopt, *first));
  // Five values over one second: one every 200 ms from the start.
  EXPECT_THAT(Rows(batch), ElementsAre(R"({"timestamp":"2026-01-01T00:00:00.000000Z","value":0})",
                                       R"({"timestamp":"2026-01-01T00:00:00.200000Z","value":1})",
                                       R"({"timestamp":"2026-01-01T00:00:00.400000Z","value":2})",
                                       R"({"timestamp":"2026-01-01T00:00:00.600000Z","value":3})",
                                       R"({"timestamp":"2026-01-01T00:00:00.800000Z","value":4})"));

  now_ms_ = kStartMs + 3000;
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_EQ(second, "3");
  ASSERT_OK_AND_ASSIGN(batch, source->GetBatch(first, *second));
  std::vector<std::string> rows = Rows(batch);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.front(), R"({"timestamp":"2026-01-01T00:00:01.000000Z","value":5})");
  EXPECT_EQ(rows.back(), R"({"timestamp":"2026-01-01T00:00:02.800000Z","value":14})");
}

TEST_F(RateSourceTest, PinsTheStartTimeSoReplaysGiveTheSameRows) {
  auto definition = Define({{"rowsPerSecond", "3"}, {"rampUpTime", "2s"}});
  EXPECT_EQ(definition->Description(),
            "RateStreamV2[rowsPerSecond=3, rampUpTimeSeconds=2, numPartitions=default]");
  std::vector<std::string> before;
  {
    auto source = Open(*definition);
    now_ms_ = kStartMs + 4000;
    ASSERT_OK_AND_ASSIGN(plan::ScanSource batch, source->GetBatch("1", "4"));
    before = Rows(batch);
  }
  ASSERT_OK_AND_ASSIGN(std::string pinned, fs_.ReadFile(context_.metadata_dir + "/0"));
  EXPECT_EQ(pinned, "v1\n" + std::to_string(kStartMs));
  now_ms_ = kStartMs + 60'000;
  auto reopened = Open(*definition);
  ASSERT_OK_AND_ASSIGN(plan::ScanSource again, reopened->GetBatch("1", "4"));
  EXPECT_EQ(Rows(again), before);
  // The ramp adds 2 rows in second 2, the full rate 3 in each of seconds 3 and 4.
  EXPECT_EQ(before.size(), static_cast<size_t>(RateValueAtSecond(4, definition->Options()) -
                                               RateValueAtSecond(1, definition->Options())));
  EXPECT_EQ(before.size(), 8u);
}

// A pinned start time that is not a number (a damaged checkpoint) stops the query with an
// error naming the file, never a start time read from part of it.
TEST_F(RateSourceTest, ADamagedPinnedStartTimeIsCorruptionNamingTheFile) {
  const std::string path = context_.metadata_dir + "/0";
  for (const std::string text : {"v1\n17672256x", "v1\n", "v2\n1767225600000"}) {
    ASSERT_OK(fs_.WriteFile(path, text, storage::WriteMode::kReplace));
    auto source = Define({})->Open(context_);
    ASSERT_RAISES(Corruption, source);
    EXPECT_THAT(source.status().ToString(), HasSubstr(path)) << text;
  }
}

TEST_F(RateSourceTest, AvailableNowStopsAtThePreparedTime) {
  auto source = Open(*Define({}));
  now_ms_ = kStartMs + 2500;
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  now_ms_ = kStartMs + 10'000;
  ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(std::nullopt, true));
  EXPECT_EQ(end, "2");
  ASSERT_OK_AND_ASSIGN(auto again, source->LatestOffset(end, true));
  EXPECT_EQ(again, "2");
}

TEST_F(RateSourceTest, RejectsBadOptions) {
  for (const formats::OptionMap& options :
       {formats::OptionMap{{"rowsPerSecond", "0"}}, formats::OptionMap{{"rowsPerSecond", "x"}},
        formats::OptionMap{{"rampUpTime", "-1"}}, formats::OptionMap{{"numPartitions", "0"}},
        formats::OptionMap{{"rampUpTime", "later"}}}) {
    auto definition = RateSourceDefinition::Make(options);
    ASSERT_RAISES(InvalidArgument, definition);
    EXPECT_THAT(definition.status().ToString(), HasSubstr(options.begin()->first));
  }
  ASSERT_OK(RateSourceDefinition::Make({{"numPartitions", "4"}, {"ROWSPERSECOND", "100"}}));
}

TEST_F(RateSourceTest, RejectsMalformedOffsets) {
  auto source = Open(*Define({}));
  ASSERT_RAISES(InvalidArgument, source->GetBatch(std::nullopt, R"({"logOffset":1})"));
  ASSERT_RAISES(InvalidArgument, source->GetBatch("3", "2"));
}

}  // namespace
}  // namespace tributary::streaming

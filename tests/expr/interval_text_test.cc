// Spark's interval strings as durations (interval_text.h): the delays of withWatermark and the
// sizes of window(), and their text in EXPLAIN.

#include "expr/interval_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kSecond = 1000000;

// The microseconds of `text`, or INT64_MIN (with a failure) when it does not parse.
int64_t Parsed(std::string_view text) {
  auto parsed = ParseIntervalMicros(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  return parsed.ok() ? *parsed : INT64_MIN;
}

TEST(IntervalTextTest, ReadsSparkIntervalStrings) {
  EXPECT_EQ(Parsed("10 minutes"), 600 * kSecond);
  EXPECT_EQ(Parsed("1 hour 30 seconds"), 3630 * kSecond);
  EXPECT_EQ(Parsed("10 seconds"), 10 * kSecond);
  EXPECT_EQ(Parsed("INTERVAL 10 MINUTES"), 600 * kSecond);
  EXPECT_EQ(Parsed("interval 1 day"), 86400 * kSecond);
  EXPECT_EQ(Parsed("  2 Weeks "), kSecond * 14 * 86400);
  EXPECT_EQ(Parsed("1.5 seconds"), 1500000);
  EXPECT_EQ(Parsed("250 milliseconds 7 microseconds"), 250007);
  EXPECT_EQ(Parsed("-5 seconds"), -5 * kSecond);
}

TEST(IntervalTextTest, RejectsTextThatIsNotAnInterval) {
  for (const char* text : {"", "10", "minutes", "10 minuts", "ten minutes", "1 hour 30"}) {
    auto parsed = ParseIntervalMicros(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(parsed.status().IsInvalidArgument()) << text;
    EXPECT_THAT(parsed.status().Message(), HasSubstr("[INVALID_INTERVAL_FORMAT]")) << text;
  }
  // A month has no fixed length in microseconds.
  EXPECT_TRUE(ParseIntervalMicros("1 month").status().IsNotImplemented());
  EXPECT_TRUE(ParseIntervalMicros("1 year 2 months").status().IsNotImplemented());
}

// The months of CAST(string AS INTERVAL YEAR TO MONTH), or INT32_MIN with a failure.
int32_t YearMonths(std::string_view text) {
  int32_t months = 0;
  const bool ok = ParseYearMonthIntervalText(text, &months);
  EXPECT_TRUE(ok) << text;
  return ok ? months : INT32_MIN;
}

TEST(IntervalTextTest, ReadsYearMonthIntervalTextAsCastDoes) {
  EXPECT_EQ(YearMonths("1-2"), 14);
  EXPECT_EQ(YearMonths(" -1-11 "), -23);
  EXPECT_EQ(YearMonths("+0-0"), 0);
  EXPECT_EQ(YearMonths("INTERVAL '1-2' YEAR TO MONTH"), 14);
  EXPECT_EQ(YearMonths("interval -'-1-2' year to month"), 14);
  EXPECT_EQ(YearMonths("INTERVAL '-3' YEAR"), -36);
  EXPECT_EQ(YearMonths("INTERVAL '25' MONTH"), 25);
  EXPECT_EQ(YearMonths("-178956970-8"), INT32_MIN);
  EXPECT_EQ(YearMonths("178956970-7"), INT32_MAX);
  int32_t months = 0;
  for (const char* text : {"", "1", "1-12", "178956970-8", "1 year", "1--2", "INTERVAL '1-2' DAY",
                           "INTERVAL '1-2", "INTERVAL 1 YEAR", "x-1"}) {
    EXPECT_FALSE(ParseYearMonthIntervalText(text, &months)) << text;
  }
}

TEST(IntervalTextTest, PrintsSparkCalendarIntervalText) {
  EXPECT_EQ(IntervalText(600 * kSecond), "10 minutes");
  EXPECT_EQ(IntervalText(3630 * kSecond), "1 hours 30 seconds");
  EXPECT_EQ(IntervalText(86400 * kSecond + 7200 * kSecond), "1 days 2 hours");
  EXPECT_EQ(IntervalText(1500000), "1.5 seconds");
  EXPECT_EQ(IntervalText(-5 * kSecond), "-5 seconds");
  EXPECT_EQ(IntervalText(0), "0 seconds");
}

}  // namespace
}  // namespace tributary::expr

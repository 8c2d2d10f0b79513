// Spark's calendar interval text (columnar/calendar_interval.h): CalendarInterval.toString and
// the grammar of IntervalUtils.stringToInterval that CAST(string AS interval) reads.

#include "columnar/calendar_interval.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace tributary::columnar {
namespace {

std::string Text(const CalendarInterval& value) {
  std::string out;
  AppendCalendarInterval(value, &out);
  return out;
}

TEST(CalendarIntervalTest, PrintsSparksUnitsWithEachPartsSign) {
  EXPECT_EQ(Text({}), "0 seconds");
  EXPECT_EQ(Text({14, 25, 18'367'508'009}),
            "1 years 2 months 25 days 5 hours 6 minutes 7.508009 seconds");
  EXPECT_EQ(Text({-12, -7, 0}), "-1 years -7 days");
  EXPECT_EQ(Text({0, 0, -500'000}), "-0.5 seconds");
  EXPECT_EQ(Text({0, 0, -5'400'000'000}), "-1 hours -30 minutes");
  EXPECT_EQ(Text({0, 0, 7'000'000}), "7 seconds");
  EXPECT_EQ(Text({11, 0, 0}), "11 months");
}

TEST(CalendarIntervalTest, ParsesUnitsSignsPrefixAndSecondFractions) {
  CalendarInterval value;
  ASSERT_TRUE(ParseCalendarInterval("interval 3 month 1 hour", &value));
  EXPECT_EQ(value, (CalendarInterval{3, 0, 3'600'000'000}));
  ASSERT_TRUE(ParseCalendarInterval(
      " 1 YEAR 2 months 3 weeks 4 days 5 hours 6 minutes 7.5 seconds 8 milliseconds 9 "
      "microseconds\t",
      &value));
  EXPECT_EQ(value, (CalendarInterval{14, 25, 18'367'508'009}));
  ASSERT_TRUE(ParseCalendarInterval("-1 day +2 hours - 3 seconds", &value));
  EXPECT_EQ(value, (CalendarInterval{0, -1, 7'197'000'000}));
  ASSERT_TRUE(ParseCalendarInterval(".5 seconds", &value));
  EXPECT_EQ(value, (CalendarInterval{0, 0, 500'000}));
  ASSERT_TRUE(ParseCalendarInterval("-1.000000999 second", &value));  // nanos truncated
  EXPECT_EQ(value, (CalendarInterval{0, 0, -1'000'000}));
}

TEST(CalendarIntervalTest, RejectsMalformedTextAndOverflow) {
  CalendarInterval value;
  for (const char* text :
       {"", "   ", "interval", "intervals 1 day", "abc", "1", "1 day 2", "1day", "1.5 days",
        "1 fortnight", "1 dayss", ". seconds", "1.0000000001 seconds", "2147483648 days",
        "178956971 years", "9223372036854775808 microseconds", "2562047789 hours",
        "306783379 weeks"}) {
    EXPECT_FALSE(ParseCalendarInterval(text, &value)) << text;
  }
}

}  // namespace
}  // namespace tributary::columnar

// Calendar arithmetic of columnar/calendar.h: adding months as Spark's dateAddMonths does.

#include "columnar/calendar.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace tributary::columnar {
namespace {

TEST(CalendarTest, AddingMonthsClampsTheDayToTheTargetMonth) {
  const int64_t jan31 = DaysFromCivil(2020, 1, 31);
  EXPECT_EQ(AddMonthsToDays(jan31, 1), DaysFromCivil(2020, 2, 29));  // leap year
  EXPECT_EQ(AddMonthsToDays(DaysFromCivil(2021, 1, 31), 1), DaysFromCivil(2021, 2, 28));
  EXPECT_EQ(AddMonthsToDays(DaysFromCivil(2020, 3, 31), -1), DaysFromCivil(2020, 2, 29));
  EXPECT_EQ(AddMonthsToDays(jan31, -13), DaysFromCivil(2018, 12, 31));
  EXPECT_EQ(AddMonthsToDays(jan31, 25), DaysFromCivil(2022, 2, 28));
  EXPECT_EQ(AddMonthsToDays(DaysFromCivil(-1, 3, 15), 12), DaysFromCivil(0, 3, 15));
}

TEST(CalendarTest, AddingMonthsToMicrosKeepsTheTimeAndReportsOverflow) {
  const int64_t noon = int64_t{12} * 3600 * kMicrosPerSecond;
  int64_t out = 0;
  ASSERT_TRUE(AddMonthsToMicros(DaysFromCivil(2020, 1, 31) * kMicrosPerDay + noon, 1, &out));
  EXPECT_EQ(out, DaysFromCivil(2020, 2, 29) * kMicrosPerDay + noon);
  ASSERT_TRUE(AddMonthsToMicros(-1, 1, &out));  // 1969-12-31 23:59:59.999999
  EXPECT_EQ(out, DaysFromCivil(1970, 1, 31) * kMicrosPerDay + kMicrosPerDay - 1);
  EXPECT_FALSE(AddMonthsToMicros(std::numeric_limits<int64_t>::max() - kMicrosPerDay, 1, &out));
}

}  // namespace
}  // namespace tributary::columnar

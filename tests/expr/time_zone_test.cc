#include "expr/time_zone.h"

#include <string>

#include <gtest/gtest.h>

#include "columnar/calendar.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

// Seconds of a UTC wall-clock time.
int64_t UtcSeconds(int64_t year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  return columnar::DaysFromCivil(year, month, day) * 86400 + (hour * 60 + minute) * 60 + second;
}

// The zone's offsets either side of Berlin's 2024 transitions (31 March and 27 October, 01:00
// UTC) equal Europe/Berlin's.
void ExpectBerlinOffsets(const TimeZone& zone) {
  EXPECT_EQ(zone.OffsetAt(UtcSeconds(2024, 3, 31, 0, 59, 59)), 3600) << zone.Name();
  EXPECT_EQ(zone.OffsetAt(UtcSeconds(2024, 3, 31, 1)), 7200) << zone.Name();
  EXPECT_EQ(zone.OffsetAt(UtcSeconds(2024, 10, 27, 0, 59, 59)), 7200) << zone.Name();
  EXPECT_EQ(zone.OffsetAt(UtcSeconds(2024, 10, 27, 1)), 3600) << zone.Name();
}

TEST(TimeZoneTest, SparkShortIdsMapAsJavaTimeShortIds) {
  ASSERT_OK_AND_ASSIGN(TimeZone pst, TimeZone::Make("PST"));
  EXPECT_EQ(pst.Name(), "America/Los_Angeles");
  EXPECT_EQ(pst.OffsetAt(UtcSeconds(2024, 1, 15)), -8 * 3600);
  EXPECT_EQ(pst.OffsetAt(UtcSeconds(2024, 7, 1)), -7 * 3600);
  // EST, MST and HST are fixed offsets, without daylight time.
  ASSERT_OK_AND_ASSIGN(TimeZone est, TimeZone::Make("EST"));
  EXPECT_EQ(est.OffsetAt(UtcSeconds(2024, 7, 1)), -5 * 3600);
  ASSERT_OK_AND_ASSIGN(TimeZone hst, TimeZone::Make("HST"));
  EXPECT_EQ(hst.OffsetAt(UtcSeconds(2024, 7, 1)), -10 * 3600);
  ASSERT_OK_AND_ASSIGN(TimeZone ist, TimeZone::Make("IST"));
  EXPECT_EQ(ist.OffsetAt(UtcSeconds(2024, 7, 1)), 5 * 3600 + 1800);
  ASSERT_OK_AND_ASSIGN(TimeZone ect, TimeZone::Make("ECT"));
  ExpectBerlinOffsets(ect);
}

TEST(TimeZoneTest, ReadsGlibcTzForms) {
  ASSERT_OK_AND_ASSIGN(TimeZone colon, TimeZone::Make(":Europe/Berlin"));
  EXPECT_EQ(colon.Name(), "Europe/Berlin");
  ExpectBerlinOffsets(colon);
  ASSERT_OK_AND_ASSIGN(TimeZone path, TimeZone::Make(":/usr/share/zoneinfo/Europe/Berlin"));
  ExpectBerlinOffsets(path);
  ASSERT_OK_AND_ASSIGN(TimeZone rule, TimeZone::Make("CET-1CEST,M3.5.0,M10.5.0/3"));
  ExpectBerlinOffsets(rule);
  ASSERT_OK_AND_ASSIGN(TimeZone tokyo, TimeZone::Make("JST-9"));
  EXPECT_EQ(tokyo.OffsetAt(UtcSeconds(2024, 7, 1)), 9 * 3600);
  ASSERT_OK_AND_ASSIGN(TimeZone quoted, TimeZone::Make("<+0330>-3:30"));
  EXPECT_EQ(quoted.OffsetAt(UtcSeconds(2024, 7, 1)), 3 * 3600 + 1800);
  ASSERT_OK_AND_ASSIGN(TimeZone utc0, TimeZone::Make("UTC0"));
  EXPECT_EQ(utc0.OffsetAt(UtcSeconds(2024, 7, 1)), 0);
  // Daylight time without rules follows the US rules (second Sunday of March, first of
  // November, 02:00 local), as glibc does: 10 March 2024 07:00 UTC.
  ASSERT_OK_AND_ASSIGN(TimeZone us, TimeZone::Make("XST5XDT"));
  EXPECT_EQ(us.OffsetAt(UtcSeconds(2024, 3, 10, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(us.OffsetAt(UtcSeconds(2024, 3, 10, 7)), -4 * 3600);
  EXPECT_EQ(us.OffsetAt(UtcSeconds(2024, 11, 3, 5, 59, 59)), -4 * 3600);
  EXPECT_EQ(us.OffsetAt(UtcSeconds(2024, 11, 3, 6)), -5 * 3600);
  // Local times through the rule string's gap and overlap, as through the region.
  ASSERT_OK_AND_ASSIGN(TimeZone berlin, TimeZone::Make("Europe/Berlin"));
  for (const int64_t local : {UtcSeconds(2024, 3, 31, 2, 30), UtcSeconds(2024, 10, 27, 2, 30)}) {
    EXPECT_EQ(rule.UtcFromLocal(local * 1'000'000), berlin.UtcFromLocal(local * 1'000'000));
  }
}

TEST(TimeZoneTest, OffsetsStayEastOfUtcAsInSpark) {
  // java.time reads "UTC+3" as three hours east; only POSIX rule strings are west-positive.
  ASSERT_OK_AND_ASSIGN(TimeZone zone, TimeZone::Make("UTC+3"));
  EXPECT_EQ(zone.OffsetAt(0), 3 * 3600);
}

TEST(TimeZoneTest, RejectsWhatIsNoZone) {
  for (const char* name : {"Mars/Olympus", "../etc/passwd", ":/etc/passwd", "pst", "", ":",
                           "CET-1CEST,M13.5.0,M10.5.0", "Nowhere"}) {
    EXPECT_TRUE(TimeZone::Make(name).status().IsInvalidArgument()) << name;
  }
}

}  // namespace
}  // namespace tributary::expr

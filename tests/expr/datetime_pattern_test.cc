#include "expr/datetime_pattern.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "columnar/calendar.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

// Microseconds of a UTC wall-clock time.
int64_t Utc(int64_t year, int month, int day, int hour = 0, int minute = 0, int second = 0,
            int64_t micros = 0) {
  return columnar::DaysFromCivil(year, month, day) * columnar::kMicrosPerDay +
         ((hour * 60 + minute) * 60 + second) * columnar::kMicrosPerSecond + micros;
}

DateTimePattern Compiled(std::string_view pattern) {
  auto compiled = DateTimePattern::Compile(pattern);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return compiled.MoveValueUnsafe();
}

// The parse of `text` with `pattern` in UTC, or nullopt.
std::optional<int64_t> Parse(std::string_view pattern, std::string_view text,
                             const TimeZone& zone = TimeZone()) {
  int64_t micros = 0;
  if (!Compiled(pattern).ParseTimestamp(text, zone, /*ntz=*/false, &micros)) {
    return std::nullopt;
  }
  return micros;
}

std::string Format(std::string_view pattern, int64_t micros, const TimeZone& zone = TimeZone()) {
  std::string out;
  Compiled(pattern).Format(micros, zone, &out);
  return out;
}

TEST(DateTimePatternTest, ParsesSparkDefaultTimestampFormatWithOptionalSections) {
  constexpr std::string_view kDefault = "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]";
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30"), Utc(2024, 3, 5, 10, 20, 30));
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30.5"), Utc(2024, 3, 5, 10, 20, 30, 500000));
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30.123+02:00"), Utc(2024, 3, 5, 8, 20, 30, 123000));
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30Z"), Utc(2024, 3, 5, 10, 20, 30));
  EXPECT_EQ(Parse(kDefault, "2024-03-05t10:20:30z"), Utc(2024, 3, 5, 10, 20, 30));
  // Four fraction digits do not fit SSS; trailing text never parses.
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30.1234"), std::nullopt);
  EXPECT_EQ(Parse(kDefault, "2024-03-05T10:20:30 "), std::nullopt);
  EXPECT_EQ(Parse(kDefault, "2024-03-05 10:20:30"), std::nullopt);
}

TEST(DateTimePatternTest, NumbersHaveFixedOrVariableWidth) {
  EXPECT_EQ(Parse("d/M/yyyy H:m", "5/3/2024 7:9"), Utc(2024, 3, 5, 7, 9));
  EXPECT_EQ(Parse("d/M/yyyy H:m", "15/12/2024 17:59"), Utc(2024, 12, 15, 17, 59));
  EXPECT_EQ(Parse("dd/MM/yyyy", "5/03/2024"), std::nullopt);
  EXPECT_EQ(Parse("dd/MM/yyyy", "05/03/2024"), Utc(2024, 3, 5));
  // Adjacent numbers: the variable-width year leaves the fixed-width fields their digits.
  EXPECT_EQ(Parse("yyyyMMddHHmmss", "20240131235958"), Utc(2024, 1, 31, 23, 59, 58));
  EXPECT_EQ(Parse("yyMMdd", "240131"), Utc(2024, 1, 31));
  EXPECT_EQ(Parse("yyyy-MM-dd", "12024-01-31"), Utc(12024, 1, 31));
  EXPECT_EQ(Parse("D yyyy", "60 2024"), Utc(2024, 2, 29));
  EXPECT_EQ(Parse("D yyyy", "366 2023"), std::nullopt);
}

TEST(DateTimePatternTest, ChecksTheCalendarAndFieldRanges) {
  EXPECT_EQ(Parse("yyyy-MM-dd", "2023-02-29"), std::nullopt);
  EXPECT_EQ(Parse("yyyy-MM-dd", "2024-02-29"), Utc(2024, 2, 29));
  EXPECT_EQ(Parse("yyyy-MM-dd", "2024-13-01"), std::nullopt);
  EXPECT_EQ(Parse("HH:mm", "24:00"), std::nullopt);
  EXPECT_EQ(Parse("HH:mm:ss", "23:59:60"), std::nullopt);
  EXPECT_EQ(Parse("HH:mm", "23:59"), Utc(1970, 1, 1, 23, 59));
}

TEST(DateTimePatternTest, ReadsTextFieldsCaseInsensitively) {
  EXPECT_EQ(Parse("dd MMM yyyy", "05 mar 2024"), Utc(2024, 3, 5));
  EXPECT_EQ(Parse("dd MMMM yyyy", "05 MARCH 2024"), Utc(2024, 3, 5));
  EXPECT_EQ(Parse("dd MMM yyyy", "05 March 2024"), std::nullopt);
  // The day of the week is read and ignored.
  EXPECT_EQ(Parse("EEE, dd MMM yyyy HH:mm:ss Z", "Tue, 05 Mar 2024 10:00:00 +0100"),
            Utc(2024, 3, 5, 9));
  EXPECT_EQ(Parse("EEEE dd.MM.yyyy", "Sunday 05.03.2024"), Utc(2024, 3, 5));
  EXPECT_EQ(Parse("yyyy G", "2024 AD"), Utc(2024, 1, 1));
}

TEST(DateTimePatternTest, ReadsTwelveHourClocks) {
  EXPECT_EQ(Parse("hh:mm a", "12:30 AM"), Utc(1970, 1, 1, 0, 30));
  EXPECT_EQ(Parse("hh:mm a", "12:30 pm"), Utc(1970, 1, 1, 12, 30));
  EXPECT_EQ(Parse("h:mm a", "1:05 PM"), Utc(1970, 1, 1, 13, 5));
  EXPECT_EQ(Parse("hh:mm", "07:00"), Utc(1970, 1, 1, 7));
  EXPECT_EQ(Parse("hh:mm a", "13:00 PM"), std::nullopt);
  EXPECT_EQ(Parse("K:mm a", "0:15 PM"), Utc(1970, 1, 1, 12, 15));
  EXPECT_EQ(Parse("k:mm", "24:15"), Utc(1970, 1, 1, 0, 15));
}

TEST(DateTimePatternTest, FractionsReadOneToCountDigitsAndTruncateBeyondMicros) {
  EXPECT_EQ(Parse("HH:mm:ss.SSSSSS", "00:00:01.5"), Utc(1970, 1, 1, 0, 0, 1, 500000));
  EXPECT_EQ(Parse("HH:mm:ss.SSSSSS", "00:00:01.000007"), Utc(1970, 1, 1, 0, 0, 1, 7));
  EXPECT_EQ(Parse("HH:mm:ss.SSSSSSSSS", "00:00:01.123456789"), Utc(1970, 1, 1, 0, 0, 1, 123456));
  EXPECT_EQ(Parse("HH:mm:ss.S", "00:00:01.12"), std::nullopt);
}

TEST(DateTimePatternTest, ReadsEveryZoneForm) {
  const int64_t base = Utc(2024, 1, 1, 12);
  const int64_t hour = 3600 * columnar::kMicrosPerSecond;
  EXPECT_EQ(Parse("yyyy-MM-dd HH X", "2024-01-01 12 +05"), base - 5 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH X", "2024-01-01 12 +0530"), base - 5 * hour - hour / 2);
  EXPECT_EQ(Parse("yyyy-MM-dd HH X", "2024-01-01 12 Z"), base);
  EXPECT_EQ(Parse("yyyy-MM-dd HH XX", "2024-01-01 12 -0130"), base + hour + hour / 2);
  EXPECT_EQ(Parse("yyyy-MM-dd HH XX", "2024-01-01 12 -01"), std::nullopt);
  EXPECT_EQ(Parse("yyyy-MM-dd HH XXX", "2024-01-01 12 -01:30"), base + hour + hour / 2);
  EXPECT_EQ(Parse("yyyy-MM-dd HH xxx", "2024-01-01 12 Z"), std::nullopt);
  EXPECT_EQ(Parse("yyyy-MM-dd HH xxx", "2024-01-01 12 +00:00"), base);
  EXPECT_EQ(Parse("yyyy-MM-dd HH Z", "2024-01-01 12 +0200"), base - 2 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH ZZZZ", "2024-01-01 12 GMT+02:00"), base - 2 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH ZZZZZ", "2024-01-01 12 +02:00"), base - 2 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH O", "2024-01-01 12 GMT+2"), base - 2 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH VV", "2024-01-01 12 UTC"), base);
  EXPECT_EQ(Parse("yyyy-MM-dd HH VV", "2024-01-01 12 +03:00"), base - 3 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH VV", "2024-01-01 12 America/New_York"), base + 5 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH VV", "2024-01-01 12 Nowhere/Atlantis"), std::nullopt);
  // Zone-less text is in the session zone.
  ASSERT_OK_AND_ASSIGN(TimeZone tokyo, TimeZone::Make("Asia/Tokyo"));
  EXPECT_EQ(Parse("yyyy-MM-dd HH", "2024-01-01 12", tokyo), base - 9 * hour);
}

TEST(DateTimePatternTest, NtzKeepsTheWallClockAndDatesIgnoreTime) {
  ASSERT_OK_AND_ASSIGN(DateTimePattern pattern, DateTimePattern::Compile("yyyy-MM-dd HH:mm XXX"));
  int64_t micros = 0;
  ASSERT_TRUE(pattern.ParseTimestamp("2024-01-01 12:00 +05:00", TimeZone(), true, &micros));
  EXPECT_EQ(micros, Utc(2024, 1, 1, 12));
  int32_t days = 0;
  ASSERT_TRUE(pattern.ParseDate("2024-01-01 23:00 +05:00", &days));
  EXPECT_EQ(days, columnar::DaysFromCivil(2024, 1, 1));
  ASSERT_OK_AND_ASSIGN(DateTimePattern us, DateTimePattern::Compile("MM/dd/yyyy"));
  ASSERT_TRUE(us.ParseDate("12/31/1999", &days));
  EXPECT_EQ(days, columnar::DaysFromCivil(1999, 12, 31));
  EXPECT_FALSE(us.ParseDate("31/12/1999", &days));
}

TEST(DateTimePatternTest, QuotedLiteralsAndNestedOptionalSections) {
  EXPECT_EQ(Parse("yyyy-MM-dd'T'HH'h'", "2024-01-02T03h"), Utc(2024, 1, 2, 3));
  EXPECT_EQ(Parse("''yyyy''", "'2024'"), Utc(2024, 1, 1));
  EXPECT_EQ(Parse("'o''clock' HH", "o'clock 05"), Utc(1970, 1, 1, 5));
  constexpr std::string_view kNested = "yyyy[-MM[-dd]]";
  EXPECT_EQ(Parse(kNested, "2024"), Utc(2024, 1, 1));
  EXPECT_EQ(Parse(kNested, "2024-05"), Utc(2024, 5, 1));
  EXPECT_EQ(Parse(kNested, "2024-05-07"), Utc(2024, 5, 7));
  EXPECT_EQ(Parse(kNested, "2024-05-"), std::nullopt);
  // A failed optional section leaves no field behind.
  EXPECT_EQ(Parse("yyyy[ MM/dd]['x']", "2024"), Utc(2024, 1, 1));
}

TEST(DateTimePatternTest, BadPatternsNameThePatternAndPosition) {
  struct Case {
    std::string_view pattern;
    std::string_view message;
  };
  for (const Case& c : {
           Case{"yyyy-MM-dd'T",
                "invalid datetime pattern 'yyyy-MM-dd'T' at position 10: the "
                "quoted text is not closed"},
           Case{"YYYY-MM-dd",
                "invalid datetime pattern 'YYYY-MM-dd' at position 0: week-based "
                "pattern letter 'Y' is not supported (nor in Spark since 3.0)"},
           Case{"yyyy-MMMMM",
                "invalid datetime pattern 'yyyy-MMMMM' at position 5: too many "
                "pattern letters 'M' (5)"},
           Case{"yyyy]",
                "invalid datetime pattern 'yyyy]' at position 4: ']' without a "
                "matching '['"},
           Case{"[yyyy",
                "invalid datetime pattern '[yyyy' at position 5: '[' without a "
                "matching ']'"},
           Case{"ddd",
                "invalid datetime pattern 'ddd' at position 0: too many pattern letters "
                "'d' (3)"},
           Case{"yyyy-MM-dd HH:mm:ss.SSSSSSSSSS", "at position 20: too many pattern letters"},
           Case{"B", "at position 0: unsupported pattern letter 'B'"},
           Case{"V", "pattern letter 'V' must appear twice (VV)"},
       }) {
    auto compiled = DateTimePattern::Compile(c.pattern);
    ASSERT_RAISES(InvalidArgument, compiled);
    EXPECT_NE(compiled.status().Message().find(c.message), std::string::npos)
        << compiled.status().Message();
  }
}

TEST(DateTimePatternTest, FormatsEveryField) {
  const int64_t t = Utc(2024, 3, 5, 14, 7, 9, 120300);
  EXPECT_EQ(Format("yyyy-MM-dd HH:mm:ss.SSS", t), "2024-03-05 14:07:09.120");
  EXPECT_EQ(Format("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", t), "2024-03-05T14:07:09.120300");
  EXPECT_EQ(Format("y yy yyy yyyyy", t), "2024 24 2024 02024");
  EXPECT_EQ(Format("d/M/yy h:m a", t), "5/3/24 2:7 PM");
  EXPECT_EQ(Format("EEE EEEE MMM MMMM D DDD G", t), "Tue Tuesday Mar March 65 065 AD");
  EXPECT_EQ(Format("Q QQQ QQQQ", t), "1 Q1 1st quarter");
  EXPECT_EQ(Format("k K hh", Utc(2024, 1, 1, 0, 5)), "24 0 12");
  EXPECT_EQ(Format("'at' HH 'o''clock'", t), "at 14 o'clock");
  EXPECT_EQ(Format("yyyy[-MM]", t), "2024-03");
  EXPECT_EQ(Format("yyyy", Utc(12024, 1, 1)), "+12024");
}

TEST(DateTimePatternTest, FormatsZonesAndOffsets) {
  const int64_t t = Utc(2024, 1, 1, 12);
  EXPECT_EQ(Format("HH X XX XXX xxx Z ZZZZ ZZZZZ O", t), "12 Z Z Z +00:00 +0000 GMT Z GMT");
  ASSERT_OK_AND_ASSIGN(TimeZone india, TimeZone::Make("+05:30"));
  EXPECT_EQ(Format("HH:mm X XX XXX x Z ZZZZ O OOOO", t, india),
            "17:30 +0530 +0530 +05:30 +0530 +0530 GMT+05:30 GMT+5:30 GMT+05:30");
  ASSERT_OK_AND_ASSIGN(TimeZone new_york, TimeZone::Make("America/New_York"));
  EXPECT_EQ(Format("yyyy-MM-dd HH:mm XXX VV", t, new_york),
            "2024-01-01 07:00 -05:00 America/New_York");
  EXPECT_EQ(Format("HH:mm XXX", Utc(2024, 7, 1, 12), new_york), "08:00 -04:00");
}

TEST(DateTimePatternTest, FormatsZoneNamesAsJavaTimeDoes) {
  ASSERT_OK_AND_ASSIGN(TimeZone los_angeles, TimeZone::Make("America/Los_Angeles"));
  EXPECT_EQ(Format("z zz zzz zzzz", Utc(2020, 1, 1, 12), los_angeles),
            "PST PST PST Pacific Standard Time");
  EXPECT_EQ(Format("z zzzz", Utc(2020, 7, 1, 12), los_angeles), "PDT Pacific Daylight Time");
  // Local mean time before the zone's standard time still prints the standard name.
  EXPECT_EQ(Format("z", Utc(1582, 6, 1), los_angeles), "PST");
  ASSERT_OK_AND_ASSIGN(TimeZone paris, TimeZone::Make("Europe/Paris"));
  EXPECT_EQ(Format("z", Utc(2020, 7, 1), paris), "CEST");
  EXPECT_EQ(Format("zzzz", Utc(2020, 1, 1), paris), "Central European Standard Time");
  EXPECT_EQ(Format("z", Utc(2020, 1, 1)), "UTC");
  // A fixed offset has no name: its id prints.
  ASSERT_OK_AND_ASSIGN(TimeZone india, TimeZone::Make("+05:30"));
  EXPECT_EQ(Format("z", Utc(2020, 1, 1), india), "+05:30");
  // 'z' reads a zone id or short id back.
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm z", "2020-01-01 04:00 PST"), Utc(2020, 1, 1, 12));
}

TEST(DateTimePatternTest, FormatsAlignedDayOfWeekInMonthAndEmptyPatterns) {
  EXPECT_EQ(Format("F", Utc(2020, 1, 1)), "1");
  EXPECT_EQ(Format("F", Utc(2020, 1, 7)), "7");
  EXPECT_EQ(Format("F", Utc(2020, 1, 8)), "1");
  EXPECT_EQ(Format("F", Utc(2020, 1, 31)), "3");
  EXPECT_EQ(Format("", Utc(2020, 1, 31)), "");
  EXPECT_EQ(Parse("yyyy-MM-dd F", "2020-01-31 3"), Utc(2020, 1, 31));
}

TEST(DateTimePatternTest, AFieldReadTwiceMustAgree) {
  EXPECT_EQ(Parse("SSSSSS yyyy-MM-dd HH:mm:ss.SSSSSS", "223456 2019-10-06 10:11:12.123456"),
            std::nullopt);
  EXPECT_EQ(Parse("SSSSSS yyyy-MM-dd HH:mm:ss.SSSSSS", "123456 2019-10-06 10:11:12.123456"),
            Utc(2019, 10, 6, 10, 11, 12, 123456));
  EXPECT_EQ(Parse("yyyy-MM-dd HH 'or' HH", "2019-10-06 10 or 11"), std::nullopt);
  EXPECT_EQ(Parse("yyyy-MM-dd HH 'or' kk", "2019-10-06 00 or 24"), Utc(2019, 10, 6));
}

TEST(DateTimePatternTest, FormatThenParseRoundTrips) {
  ASSERT_OK_AND_ASSIGN(TimeZone zone, TimeZone::Make("Europe/Berlin"));
  for (std::string_view pattern :
       {"yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX", "dd MMM yyyy hh:mm:ss.SSSSSS a Z",
        "yyyyMMddHHmmssSSSSSS VV", "EEEE, d MMMM yyyy HH:mm:ss.SSSSSS ZZZZ"}) {
    for (int64_t t : {Utc(2024, 3, 31, 0, 59, 59, 999999), Utc(1999, 12, 31, 23, 0, 0, 1),
                      Utc(2024, 10, 27, 0, 30), Utc(1970, 1, 1)}) {
      // 2024-10-27 00:30 UTC is 02:30 CEST, the earlier of the two 02:30s, so zone ids read
      // it back too.
      const std::string text = Format(pattern, t, zone);
      EXPECT_EQ(Parse(pattern, text, zone), t) << pattern << " " << text;
    }
  }
}

}  // namespace
}  // namespace tributary::expr

// Spark's datetime patterns ("Datetime Patterns for Formatting and Parsing", Spark 3): compiled
// once into a small program of steps, then used to parse text into timestamps and dates and to
// format timestamps. Used by the JSON/CSV readers' timestampFormat/dateFormat and by SQL's
// to_timestamp, to_date, unix_timestamp and date_format.
//
// Supported letters (count = how many times the letter repeats):
//   G      era: AD, BC (1-3 letters; 4 = Anno Domini, Before Christ)
//   y      year of era: yy = two digits (parsed as 2000-2099), y = 1+ digits, yyy+ = at least
//          that many digits (formatting pads; a year past the width gets a '+')
//   D      day of year (1-3)            M, L   month: M/MM number, MMM "Jan", MMMM "January"
//   d      day of month (1-2)           Q, q   quarter: Q/QQ number, QQQ "Q1", QQQQ "1st quarter"
//   E      day of week: E-EEE "Mon", EEEE "Monday" (read and ignored when parsing)
//   a      AM/PM (1)                    h      clock hour of am/pm 1-12 (1-2)
//   K      hour of am/pm 0-11 (1-2)     k      clock hour of day 1-24 (1-2)
//   H      hour of day 0-23 (1-2)       m, s   minute, second (1-2)
//   S      fraction of second (1-9): parsing reads 1 to count digits (beyond microseconds
//          truncated), formatting writes count digits
//   X      offset, "Z" for zero: X +HH[mm], XX +HHMM, XXX +HH:MM, XXXX +HHMM[ss],
//          XXXXX +HH:MM[:ss]                    x   the same without "Z" for zero
//   Z      Z-ZZZ +HHMM, ZZZZ GMT+HH:MM, ZZZZZ as XXXXX
//   O      O GMT+H[:MM], OOOO GMT+HH:MM
//   VV     zone id ("America/Los_Angeles", "UTC", "+01:00")
//   z      zone name (1-4): parsed as a zone id; formatted as the zone's name
//   'text' literal text ('' is a quote); [ ] an optional section (may nest); any other
//          non-letter character is literal.
// One-letter numbers read one or two digits; a number directly followed by fixed-width numbers
// leaves their digits to them (so "yyyyMMdd" reads "20240131"). Parsing is case-insensitive,
// must consume the whole text (no trimming) and checks every field's range and the calendar
// (Feb 30 does not parse); fields the pattern lacks default to 1970-01-01 00:00:00. Other
// letters (week-based Y, w, W, u, e, c, F and the rest) are rejected, as Spark rejects them.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/time_zone.h"
#include "tributary/result.h"

namespace tributary::expr {

/// A compiled Spark datetime pattern. Parsing allocates nothing per value (except the first use
/// of a region zone id written in the text, which loads its rules).
///
/// Thread-safety: immutable after Compile; safe to share between threads.
class DateTimePattern {
 public:
  /// Compiles `pattern`. InvalidArgument naming the pattern and the 0-based position of the
  /// problem for an unknown or unsupported letter, a bad letter count, an unclosed quote or
  /// unbalanced brackets.
  static Result<DateTimePattern> Compile(std::string_view pattern);

  /// Parses `text` as a timestamp in microseconds since the epoch (UTC). Text without a zone or
  /// offset is wall-clock time in `zone`. With `ntz` the result is the wall-clock time itself
  /// (a zone or offset in the text is read and ignored). False when the text does not match.
  bool ParseTimestamp(std::string_view text, const TimeZone& zone, bool ntz, int64_t* micros) const;
  /// Parses `text` as a date (days since 1970-01-01); time and zone fields are read and
  /// ignored. False when the text does not match.
  bool ParseDate(std::string_view text, int32_t* days) const;

  /// Appends the timestamp `micros` (UTC) as wall-clock time in `zone` in this pattern.
  void Format(int64_t micros, const TimeZone& zone, std::string* out) const;

  /// The pattern as given.
  const std::string& Pattern() const { return pattern_; }

  /// How many steps the compiled program has (for tests of the compiler).
  size_t NumSteps() const { return steps_.size(); }

  /// One instruction of a compiled pattern.
  struct Step {
    enum class Kind : uint8_t {
      kLiteral,
      kOptionalBegin,
      kOptionalEnd,
      kEra,
      kYear,
      kYearTwoDigits,
      kDayOfYear,
      kMonth,
      kMonthText,
      kQuarter,
      kQuarterText,
      kDayOfMonth,
      kDayOfWeekText,
      kAmPm,
      kHourOfDay,
      kClockHourOfDay,
      kHourOfAmPm,
      kClockHourOfAmPm,
      kMinute,
      kSecond,
      kFraction,
      kOffsetX,
      kOffsetLowerX,
      kOffsetZ,
      kOffsetLocalized,
      kAlignedDayOfWeekInMonth,
      kZoneName,
      kZoneId,
    };
    Kind kind = Kind::kLiteral;
    // Letter count.
    uint8_t count = 0;
    // Numbers: digits read when parsing (min, max) and digits of the fixed-width numbers right
    // after this one (left to them).
    uint8_t min_digits = 0;
    uint8_t max_digits = 0;
    uint8_t reserved_digits = 0;
    // Literals: the text in literals_; optional sections: the index of the matching end.
    uint32_t offset = 0;
    uint32_t length = 0;
  };
  /// What a parse found (defined in the .cc).
  struct Fields;

 private:
  DateTimePattern() = default;

  bool Parse(std::string_view text, Fields* fields) const;

  std::string pattern_;
  std::string literals_;
  std::vector<Step> steps_;
};

}  // namespace tributary::expr

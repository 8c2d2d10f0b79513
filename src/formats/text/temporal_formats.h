// The text readers' reading of timestamps and dates: Spark's `timestampFormat` and `dateFormat`
// patterns (expr/datetime_pattern.h) when set, else ISO-8601 text as Spark's CAST reads it; and
// the matching inference tests.

#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "expr/datetime_pattern.h"
#include "expr/temporal_parsing.h"
#include "expr/time_zone.h"
#include "tributary/result.h"

namespace tributary::text {

/// Parses timestamp and date text for one reader. Immutable after Make.
///
/// Thread-safety: immutable, safe to share between threads.
class TemporalFormats {
 public:
  /// Compiles the patterns ("" means ISO-8601) and the session zone. InvalidArgument naming
  /// `reader`, the option and the pattern's problem.
  static Result<TemporalFormats> Make(std::string_view timestamp_format,
                                      std::string_view date_format, std::string_view time_zone,
                                      std::string_view reader);

  /// Timestamp text: with timestampFormat only text matching it (as Spark, which falls back
  /// to CAST only when no format is set); zone-less text is in the session zone. timestamp_ntz
  /// (`ntz`) text is read as ISO-8601 wall-clock time (Spark's timestampNTZFormat default).
  bool ParseTimestamp(std::string_view text, bool ntz, int64_t* micros) const {
    if (timestamp_.has_value() && !ntz) {
      return timestamp_->ParseTimestamp(text, zone_, false, micros);
    }
    if (!ntz && ParseUtcIso(text, micros)) {
      return true;
    }
    return expr::ParseTimestamp(text, zone_, ntz, micros);
  }
  /// Date text: with dateFormat only text matching it, else Spark's CAST rules.
  bool ParseDate(std::string_view text, int32_t* days) const {
    return date_.has_value() ? date_->ParseDate(text, days) : expr::ParseDate(text, days);
  }

  /// Inference: whether `text` reads as a timestamp (the pattern, or strict ISO-8601
  /// "yyyy-MM-dd[T ]HH:mm[:ss[.f...]][zone]" without one).
  bool IsTimestamp(std::string_view text) const;
  /// Inference: whether `text` reads as a date (the pattern, or "yyyy-MM-dd" without one).
  bool IsDate(std::string_view text) const;

  bool HasTimestampFormat() const { return timestamp_.has_value(); }
  bool HasDateFormat() const { return date_.has_value(); }
  const expr::TimeZone& Zone() const { return zone_; }

 private:
  TemporalFormats() = default;

  // The common machine-written shape "yyyy-MM-ddTHH:mm:ss[.f{1,6}]Z" without the general
  // parser: false for anything else (which then takes the general path).
  static bool ParseUtcIso(std::string_view text, int64_t* micros);

  std::optional<expr::DateTimePattern> timestamp_;
  std::optional<expr::DateTimePattern> date_;
  expr::TimeZone zone_;
};

}  // namespace tributary::text

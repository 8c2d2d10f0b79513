// The session time zone: how zone-less text and timestamp_ntz values map to UTC instants.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::columnar {
class Column;
}  // namespace tributary::columnar

namespace tributary::expr {

struct ZoneRules;

/// UTC, a fixed offset, or a region of the IANA time zone database ("America/Los_Angeles"),
/// read from the system's TZif files (/usr/share/zoneinfo, Debian's tzdata). Immutable value.
///
/// Thread-safety: immutable, safe to share between threads.
class TimeZone {
 public:
  /// UTC.
  TimeZone() = default;
  /// Parses "UTC", "GMT", "Z", "+hh:mm", "-hh:mm", "+hhmm", "+hh", "UTC+hh:mm", "GMT-hh" (east
  /// of UTC, as java.time reads them), a short id of java.time's ZoneId.SHORT_IDS as Spark
  /// takes them ("PST" is America/Los_Angeles, "EST" -05:00), a region name, or what glibc
  /// reads from TZ: ":Europe/Berlin", "/usr/share/zoneinfo/Europe/Berlin" and POSIX rule
  /// strings ("JST-9", "CET-1CEST,M3.5.0,M10.5.0/3"; daylight time without rules follows the
  /// US rules, as in glibc). An unknown name is an InvalidArgument error naming it.
  static Result<TimeZone> Make(std::string_view name);

  /// Seconds east of UTC at the UTC instant `utc_seconds`.
  int64_t OffsetAt(int64_t utc_seconds) const;
  /// Wall-clock microseconds in this zone of the UTC instant `utc_micros`.
  int64_t LocalFromUtc(int64_t utc_micros) const;
  /// The UTC instant of wall-clock microseconds `local_micros` in this zone. As Java's
  /// ZonedDateTime (and so Spark): in an overlap the earlier offset wins; a time in a gap moves
  /// forward by the gap's length.
  int64_t UtcFromLocal(int64_t local_micros) const;
  const std::string& Name() const { return name_; }

 private:
  TimeZone(std::string name, int64_t offset_seconds, std::shared_ptr<const ZoneRules> rules)
      : name_(std::move(name)), offset_seconds_(offset_seconds), rules_(std::move(rules)) {}

  std::string name_ = "UTC";
  int64_t offset_seconds_ = 0;
  std::shared_ptr<const ZoneRules> rules_;  // null for UTC and fixed offsets
};

/// Parses a zone offset suffix as written after a timestamp ("Z", "+02:00", "-0530", "+05",
/// "UTC", "GMT+1", "+00:53:28"); returns seconds east of UTC or an error.
Result<int64_t> ParseZoneOffset(std::string_view text);

/// The zones named by the rows of a string column, parsing a name only when it differs from
/// the row before (such a column is nearly always one constant). Not thread-safe.
class ZoneNameCache {
 public:
  /// The zone row `row` of `names` names; an [INVALID_TIMEZONE] error naming the row when it
  /// names none.
  Result<const TimeZone*> At(const columnar::Column& names, int64_t row);

 private:
  std::optional<TimeZone> zone_;
  std::string name_;
};

}  // namespace tributary::expr

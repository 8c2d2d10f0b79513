// The session time zone: how zone-less text and timestamp_ntz values map to UTC instants.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::expr {

/// A time zone given as UTC or a fixed offset from it. Immutable value.
///
/// Thread-safety: immutable, safe to share between threads.
class TimeZone {
 public:
  /// UTC.
  TimeZone() = default;
  /// Parses "UTC", "GMT", "Z", "+hh:mm", "-hh:mm", "+hhmm", "+hh", "UTC+hh:mm", "GMT-hh".
  /// Region names ("Europe/Paris") are an InvalidArgument error naming the zone: they need
  /// the tz database, which tributary does not read yet.
  static Result<TimeZone> Make(std::string_view name);

  /// Seconds east of UTC.
  int64_t OffsetSeconds() const { return offset_seconds_; }
  /// Wall-clock microseconds in this zone of the UTC instant `utc_micros`.
  int64_t LocalFromUtc(int64_t utc_micros) const {
    return utc_micros + offset_seconds_ * 1'000'000;
  }
  /// The UTC instant of wall-clock microseconds `local_micros` in this zone.
  int64_t UtcFromLocal(int64_t local_micros) const {
    return local_micros - offset_seconds_ * 1'000'000;
  }
  const std::string& Name() const { return name_; }

 private:
  TimeZone(std::string name, int64_t offset_seconds)
      : name_(std::move(name)), offset_seconds_(offset_seconds) {}

  std::string name_ = "UTC";
  int64_t offset_seconds_ = 0;
};

/// Parses a zone offset suffix as written after a timestamp ("Z", "+02:00", "-0530", "+05",
/// "UTC", "GMT+1"); returns seconds east of UTC or an error.
Result<int64_t> ParseZoneOffset(std::string_view text);

}  // namespace tributary::expr

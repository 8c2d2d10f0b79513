#include "expr/time_zone.h"

#include <cctype>

#include <fmt/format.h>

namespace tributary::expr {
namespace {

bool ParseDigits(std::string_view text, size_t count, size_t* pos, int* out) {
  if (*pos + count > text.size()) {
    return false;
  }
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  *pos += count;
  *out = value;
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<int64_t> ParseZoneOffset(std::string_view text) {
  auto invalid = [&] {
    return Status::InvalidArgument(
        fmt::format("invalid time zone '{}': expected UTC, Z or an offset such as +02:00", text));
  };
  std::string_view rest = text;
  if (EqualsIgnoreCase(rest, "Z") || EqualsIgnoreCase(rest, "UTC") ||
      EqualsIgnoreCase(rest, "GMT") || EqualsIgnoreCase(rest, "UT")) {
    return 0;
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (rest.size() > prefix.size() && EqualsIgnoreCase(rest.substr(0, prefix.size()), prefix) &&
        (rest[prefix.size()] == '+' || rest[prefix.size()] == '-')) {
      rest.remove_prefix(prefix.size());
      break;
    }
  }
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) {
    return invalid();
  }
  const int sign = rest[0] == '-' ? -1 : 1;
  size_t pos = 1;
  int hours = 0;
  int minutes = 0;
  // One or two hour digits, then optionally [:]mm.
  const size_t hour_digits =
      rest.size() >= 3 && std::isdigit(static_cast<unsigned char>(rest[2])) ? 2 : 1;
  if (!ParseDigits(rest, hour_digits, &pos, &hours)) {
    return invalid();
  }
  if (pos < rest.size()) {
    if (rest[pos] == ':') {
      ++pos;
    }
    if (!ParseDigits(rest, 2, &pos, &minutes) || pos != rest.size()) {
      return invalid();
    }
  }
  if (hours > 18 || minutes > 59) {
    return invalid();
  }
  return sign * (hours * 3600 + minutes * 60);
}

Result<TimeZone> TimeZone::Make(std::string_view name) {
  auto offset = ParseZoneOffset(name);
  if (!offset.ok()) {
    return Status::InvalidArgument(fmt::format(
        "unsupported time zone '{}': use UTC or a fixed offset such as +02:00 (region names "
        "need the tz database, which is not read yet)",
        name));
  }
  return TimeZone(std::string(name), *offset);
}

}  // namespace tributary::expr

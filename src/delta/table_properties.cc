#include "delta/table_properties.h"

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::delta {
namespace {

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') {
      ++i;
    }
    const size_t start = i;
    while (i < text.size() && text[i] != ' ') {
      ++i;
    }
    if (i > start) {
      words.push_back(text.substr(start, i - start));
    }
  }
  return words;
}

// Milliseconds per unit, or 0 for a word that is no duration unit (microseconds count as a
// fraction: they are kept as 1 / 1000 by the caller).
int64_t UnitMillis(std::string unit) {
  if (unit.size() > 1 && unit.back() == 's') {
    unit.pop_back();
  }
  if (unit == "week") {
    return 7LL * 24 * 3600 * 1000;
  }
  if (unit == "day") {
    return 24LL * 3600 * 1000;
  }
  if (unit == "hour") {
    return 3600LL * 1000;
  }
  if (unit == "minute") {
    return 60LL * 1000;
  }
  if (unit == "second") {
    return 1000;
  }
  if (unit == "millisecond") {
    return 1;
  }
  return 0;
}

}  // namespace

Result<int64_t> ParseIntervalMillis(std::string_view text) {
  const std::string lowered = AsciiLower(text);
  std::vector<std::string_view> words = Words(lowered);
  size_t i = !words.empty() && words[0] == "interval" ? 1 : 0;
  if (i == words.size()) {
    return Status::InvalidArgument(fmt::format("interval '{}' has no duration", text));
  }
  int64_t total_micros = 0;
  for (; i < words.size(); i += 2) {
    int64_t count = 0;
    const std::string_view number = words[i];
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
    if (ec != std::errc() || end != number.data() + number.size() || i + 1 == words.size()) {
      return Status::InvalidArgument(
          fmt::format("interval '{}': expected '<count> <unit>' at '{}'", text, number));
    }
    const std::string unit(words[i + 1]);
    const bool micros = unit == "microsecond" || unit == "microseconds";
    const int64_t per_unit = micros ? 1 : UnitMillis(unit) * 1000;
    if (per_unit == 0) {
      return Status::InvalidArgument(
          fmt::format("interval '{}': unit '{}' is not a fixed-length duration unit", text, unit));
    }
    int64_t micros_here = 0;
    if (__builtin_mul_overflow(count, per_unit, &micros_here) ||
        __builtin_add_overflow(total_micros, micros_here, &total_micros)) {
      return Status::InvalidArgument(fmt::format("interval '{}' overflows", text));
    }
  }
  return total_micros / 1000;
}

Result<int64_t> DurationProperty(const Metadata& metadata, const std::string& key,
                                 int64_t default_ms) {
  auto it = metadata.configuration.find(key);
  if (it == metadata.configuration.end()) {
    return default_ms;
  }
  Result<int64_t> parsed = ParseIntervalMillis(it->second);
  if (!parsed.ok()) {
    return parsed.status().WithContext(fmt::format("table property {}", key));
  }
  return parsed;
}

bool BooleanProperty(const Metadata& metadata, const std::string& key, bool default_value) {
  auto it = metadata.configuration.find(key);
  if (it == metadata.configuration.end()) {
    return default_value;
  }
  const std::string value = AsciiLower(it->second);
  return value == "true" ? true : value == "false" ? false : default_value;
}

int64_t CheckpointInterval(const Metadata& metadata) {
  auto it = metadata.configuration.find("delta.checkpointInterval");
  if (it == metadata.configuration.end()) {
    return kDefaultCheckpointInterval;
  }
  int64_t parsed = 0;
  const char* begin = it->second.data();
  const char* end = begin + it->second.size();
  auto [ptr, ec] = std::from_chars(begin, end, parsed);
  return ec == std::errc() && ptr == end && parsed > 0 ? parsed : kDefaultCheckpointInterval;
}

}  // namespace tributary::delta

#include "streaming/time_string.h"

#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "common/ascii.h"

namespace tributary::streaming {

namespace {

struct Suffix {
  std::string_view name;
  int64_t micros;
};

using columnar::kMicrosPerSecond;

constexpr Suffix kSuffixes[] = {
    {"us", 1},
    {"ms", 1'000},
    {"s", kMicrosPerSecond},
    {"m", 60 * kMicrosPerSecond},
    {"min", 60 * kMicrosPerSecond},
    {"h", 3'600 * kMicrosPerSecond},
    {"d", 86'400 * kMicrosPerSecond},
};

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

Result<int64_t> TimeStringAsMicros(std::string_view option, std::string_view text,
                                   TimeStringUnit default_unit) {
  const std::string lowered = AsciiLower(TrimBlanks(text));
  auto invalid = [&] {
    return Status::InvalidArgument(fmt::format(
        "option '{}': '{}' is not a time such as 500ms, 10s, 5m, 2h or 7d", option, text));
  };
  const char* begin = lowered.data();
  const char* end = begin + lowered.size();
  int64_t number = 0;
  auto [rest, error] = std::from_chars(begin, end, number);
  if (error != std::errc() || rest == begin) {
    return invalid();
  }
  const std::string_view suffix(rest, static_cast<size_t>(end - rest));
  int64_t unit = default_unit == TimeStringUnit::kSeconds ? kMicrosPerSecond : 1'000;
  if (!suffix.empty()) {
    unit = 0;
    for (const Suffix& candidate : kSuffixes) {
      if (candidate.name == suffix) {
        unit = candidate.micros;
      }
    }
    if (unit == 0) {
      return invalid();
    }
  }
  if (number > std::numeric_limits<int64_t>::max() / unit ||
      number < std::numeric_limits<int64_t>::min() / unit) {
    return invalid();
  }
  return number * unit;
}

}  // namespace tributary::streaming

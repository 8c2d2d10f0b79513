#include "streaming/trigger_text.h"

#include <charconv>

#include <fmt/format.h>

#include "delta/table_properties.h"

namespace tributary::streaming {

Result<std::chrono::milliseconds> ParseTriggerInterval(std::string_view text) {
  int64_t count = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(begin, end, count);
  if (error == std::errc() && rest != begin && count >= 0) {
    const std::string_view unit(rest, static_cast<size_t>(end - rest));
    static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
        {"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}};
    for (const auto& [name, millis] : kUnits) {
      if (unit == name) {
        if (name.empty() && count != 0) {
          break;  // a bare number other than 0 is ambiguous: ask for a unit
        }
        return std::chrono::milliseconds(count * millis);
      }
    }
  }
  auto millis = delta::ParseIntervalMillis(text);
  if (!millis.ok()) {
    return Status::InvalidArgument(fmt::format(
        "'{}' is not a trigger interval: use 0, a number with a unit (100ms, 10s, 1m, 1h) or "
        "words (10 seconds)",
        text));
  }
  return std::chrono::milliseconds(*millis);
}

Result<Trigger> ParseTrigger(std::string_view text) {
  if (text == "available-now" || text == "availableNow") {
    return Trigger::AvailableNow();
  }
  if (text == "once") {
    return Trigger::Once();
  }
  constexpr std::string_view kProcessingTime = "processing-time";
  if (text.starts_with(kProcessingTime)) {
    std::string_view interval = text.substr(kProcessingTime.size());
    if (interval.empty()) {
      return Trigger::ProcessingTime(std::chrono::milliseconds(0));
    }
    if (interval.front() == '=') {
      TRIBUTARY_ASSIGN_OR_RAISE(std::chrono::milliseconds millis,
                                ParseTriggerInterval(interval.substr(1)));
      return Trigger::ProcessingTime(millis);
    }
  }
  return Status::InvalidArgument(fmt::format(
      "'{}' is not a trigger: use available-now, once or processing-time=INTERVAL", text));
}

}  // namespace tributary::streaming

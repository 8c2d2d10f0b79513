#include "streaming/trigger_text.h"

#include <fmt/format.h>

#include "delta/table_properties.h"
#include "streaming/time_string.h"

namespace tributary::streaming {

namespace {

Result<int64_t> IntervalMillis(std::string_view text) {
  // "100ms", "10s", "1m", a bare number of milliseconds (Spark's ProcessingTime(long)), as
  // Spark's time strings; else Spark's interval words ("10 seconds").
  if (auto micros = TimeStringAsMicros("trigger", text, TimeStringUnit::kMilliseconds);
      micros.ok()) {
    return *micros / 1000;
  }
  auto millis = delta::ParseIntervalMillis(text);
  if (!millis.ok()) {
    return Status::InvalidArgument(fmt::format(
        "'{}' is not a trigger interval: use 0, a number with a unit (100ms, 10s, 1m, 1h) or "
        "words (10 seconds)",
        text));
  }
  return *millis;
}

}  // namespace

Result<std::chrono::milliseconds> ParseTriggerInterval(std::string_view text) {
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t millis, IntervalMillis(text));
  // Spark's ProcessingTime: "the interval of trigger should not be negative".
  if (millis < 0) {
    return Status::InvalidArgument(
        fmt::format("trigger interval '{}' is negative: use 0 or more", text));
  }
  return std::chrono::milliseconds(millis);
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

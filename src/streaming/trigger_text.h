// Triggers and intervals written as text: the CLI's `--trigger` and Spark's
// Trigger.ProcessingTime("10 seconds").

#pragma once

#include <chrono>
#include <string_view>

#include "tributary/result.h"
#include "tributary/streaming_query.h"

namespace tributary::streaming {

/// A number with a unit ("100ms", "10s", "1m", "1h", "2d"), a bare number of milliseconds
/// ("0") or Spark's interval words ("10 seconds", "interval 1 minute"). InvalidArgument naming
/// the text otherwise, and for a negative interval (as Spark's ProcessingTime).
Result<std::chrono::milliseconds> ParseTriggerInterval(std::string_view text);

/// "available-now", "once", "processing-time=INTERVAL" (also "processing-time" alone: 0).
Result<Trigger> ParseTrigger(std::string_view text);

}  // namespace tributary::streaming

// Spark's time-string option values ("7d", "10s", "500ms"), as its JavaUtils.timeStringAs*
// reads them: options such as the file source's maxFileAge and the rate source's rampUpTime.

#pragma once

#include <cstdint>
#include <string_view>

#include "tributary/result.h"

namespace tributary::streaming {

/// The unit of a time string without a suffix (Spark: milliseconds for timeStringAsMs,
/// seconds for timeStringAsSec).
enum class TimeStringUnit : uint8_t { kMilliseconds, kSeconds };

/// Microseconds of `text`: an integer with an optional suffix us, ms, s, m or min, h, d (any
/// case, blanks around ignored), in `default_unit` without one. InvalidArgument naming
/// `option` and the text otherwise.
Result<int64_t> TimeStringAsMicros(std::string_view option, std::string_view text,
                                   TimeStringUnit default_unit);

}  // namespace tributary::streaming

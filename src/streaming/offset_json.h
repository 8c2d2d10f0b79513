// Offsets that are one counter: the file source's {"logOffset":N}, the memory stream's
// {"offset":N}, and Spark's LongOffset, a bare JSON number (the rate source's).

#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "streaming/source.h"

namespace tributary::streaming {

/// {"<key>":<value>}, or the bare number when `key` is empty.
Offset IntegerOffset(std::string_view key, int64_t value);

/// The counter of `offset` as IntegerOffset(key, ...) writes it (a bare number is accepted for
/// any key, as Spark's older offsets were); `if_absent` when `offset` is nullopt (a batch from
/// the very beginning). InvalidArgument naming `source` and quoting the text otherwise.
Result<int64_t> ParseIntegerOffset(const std::optional<Offset>& offset, std::string_view key,
                                   int64_t if_absent, std::string_view source);

}  // namespace tributary::streaming

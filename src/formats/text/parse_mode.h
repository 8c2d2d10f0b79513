// Spark's parse modes for text data sources (JSON, CSV): what a reader does with a record that
// does not parse or does not fit the schema.

#pragma once

#include <cstdint>
#include <string_view>

#include "tributary/result.h"

namespace tributary::text {

/// Spark's `mode` option.
enum class ParseMode : int8_t {
  /// PERMISSIVE: keep every record; what does not fit goes to the rescued-data or
  /// corrupt-record column and the rest of the row is filled.
  kPermissive,
  /// DROPMALFORMED: drop records that do not parse (and, without a rescued-data column, records
  /// with a value that does not fit), counting them in the reader's metrics.
  kDropMalformed,
  /// FAILFAST: fail the read at the first such record, naming file, line and byte offset.
  kFailFast,
};

/// Parses Spark's spelling ("PERMISSIVE", "DROPMALFORMED", "FAILFAST", any case).
/// InvalidArgument for anything else.
Result<ParseMode> ParseModeFromString(std::string_view text);

/// "PERMISSIVE", "DROPMALFORMED" or "FAILFAST".
std::string_view ParseModeName(ParseMode mode);

}  // namespace tributary::text

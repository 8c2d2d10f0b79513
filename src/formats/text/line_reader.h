// Splits newline-delimited text into records, shared by the JSON reader and JSON inference.
// Internal to formats/json.

#pragma once

#include <cstdint>
#include <string_view>

#include "tributary/status.h"

namespace tributary::json {

/// Bytes of readable padding simdjson needs after a document (SIMDJSON_PADDING), kept here so
/// headers need not include simdjson.
inline constexpr size_t kJsonPadding = 64;

/// One line of the input.
struct Line {
  /// The line without its "\n" and without a "\r" before it.
  std::string_view text;
  /// 1-based line number.
  int64_t number = 0;
  /// Byte offset of the line's first byte in the (decompressed) file.
  int64_t offset = 0;
};

/// Walks the lines of `data` (the file contents, not counting padding), skipping a leading
/// UTF-8 byte order mark. Every byte after `data` up to kJsonPadding bytes must be readable.
class LineSplitter {
 public:
  explicit LineSplitter(std::string_view data);

  /// The next line, or false at the end.
  bool Next(Line* line);
  /// Bytes consumed so far.
  int64_t Position() const { return static_cast<int64_t>(pos_); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  int64_t number_ = 0;
};

/// True when `text` holds only JSON whitespace (space, tab, CR, LF) or nothing.
bool IsBlank(std::string_view text);

/// Byte offset just past a leading UTF-8 byte order mark (0 or 3).
size_t BomLength(std::string_view data);

/// OK for the timestamp/date format patterns the reader supports (ISO-8601 ones);
/// NotImplemented naming the option otherwise.
Status CheckDateTimeFormats(std::string_view timestamp_format, std::string_view date_format);

/// Strict ISO-8601 forms used by inference: "yyyy-MM-dd" and
/// "yyyy-MM-dd[T ]HH:mm[:ss[.f...]][zone]".
bool LooksLikeIsoDate(std::string_view text);
bool LooksLikeIsoTimestamp(std::string_view text);

}  // namespace tributary::json

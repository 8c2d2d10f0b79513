// Lines of text files for the JSON and CSV readers, and small text checks they share.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "formats/text/input_stream.h"
#include "tributary/status.h"

namespace tributary::text {

/// Bytes of readable padding after every line a LineReader hands out: what simdjson needs
/// after a document (SIMDJSON_PADDING), kept here so headers need not include simdjson.
inline constexpr size_t kLinePadding = 64;

/// One line of the input.
struct Line {
  /// The line without its "\n" and without a "\r" before it.
  std::string_view text;
  /// 1-based line number.
  int64_t number = 0;
  /// Byte offset of the line's first byte in the (decompressed) file.
  int64_t offset = 0;
  /// The line was longer than LineOptions::max_length: `text` holds its first max_length
  /// bytes and the rest was skipped without being buffered.
  bool truncated = false;
};

/// How a LineReader splits its input.
struct LineOptions {
  /// Spark `lineSep`: the byte that ends a line. Default: '\n', with a "\r" before it dropped
  /// (so "\r\n" ends lines too); any other separator is taken as it is.
  char separator = '\n';
  /// Longest line handed out whole, in bytes; longer lines come out truncated (and the buffer
  /// never grows past it). 0 means unbounded. Default: 0.
  size_t max_length = 0;
};

/// Reads the lines of a text stream through one reusable buffer that grows only for lines
/// longer than it. A UTF-8 byte order mark at the start of the stream is dropped. Every line
/// handed out is followed by at least kLinePadding readable bytes (the "\n" that ended it and
/// what follows, or spaces at the end of the stream), as simdjson requires.
///
/// Thread-safety: none.
class LineReader {
 public:
  /// `chunk_size` is the initial buffer size. Default: 4 MiB.
  /// The buffer may be a larger one a LineReader that ended earlier on this thread left behind
  /// (each thread keeps one, up to 16 MiB), so reading many files does not allocate per file.
  explicit LineReader(std::unique_ptr<InputStream> input, size_t chunk_size = size_t{4} << 20,
                      LineOptions options = {});
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line, valid until the next call; false at the end or on a read error (then
  /// status() says which).
  bool Next(Line* line);
  /// OK, or the error that ended reading.
  const Status& status() const { return status_; }
  /// Bytes of the stream consumed so far.
  int64_t Position() const { return base_ + static_cast<int64_t>(begin_); }

 private:
  bool Refill();

  // Hands out the line [begin_, stop) (without a CR before `stop` when stripping them).
  void Emit(size_t stop, Line* line);

  std::unique_ptr<InputStream> input_;
  const LineOptions options_;
  // Skipping the rest of a line that was too long.
  bool skipping_ = false;
  // Not initialized beyond what was read and the padding after it: a buffer filled when it is
  // made costs a memset and the page faults of its whole size per file, however small the file.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_;
  size_t begin_ = 0;
  size_t scan_ = 0;
  size_t end_ = 0;
  int64_t base_ = 0;
  int64_t number_ = 0;
  bool eof_ = false;
  Status status_;
};

/// True when `text` holds only JSON whitespace (space, tab, CR, LF) or nothing.
bool IsBlank(std::string_view text);

/// Byte offset just past a leading UTF-8 byte order mark (0 or 3).
size_t BomLength(std::string_view data);

}  // namespace tributary::text

// Sequential input for the text readers: a file read in chunks, with gzip and zstd files
// recognised by extension and decompressed as streams (concatenated members and frames
// included), so a reader holds one chunk of a file at a time, never the whole file.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::text {

/// How a text file is compressed.
enum class InputCompression : int8_t {
  kNone,
  /// ".gz" or ".gzip": gzip (RFC 1952) members, or a zlib stream.
  kGzip,
  /// ".zst" or ".zstd": zstd frames.
  kZstd,
};

/// The compression implied by `path`'s extension (case-insensitive).
InputCompression CompressionFromPath(std::string_view path);

/// A forward-only byte stream of a text file's (decompressed) contents.
///
/// Thread-safety: none; one thread at a time.
class InputStream {
 public:
  virtual ~InputStream() = default;

  /// Opens `path` on `fs`, decompressing per CompressionFromPath.
  static Result<std::unique_ptr<InputStream>> Open(storage::FileSystem& fs,
                                                   const std::string& path);
  /// A stream over `data` (not copied: it must outlive the stream), decompressed per
  /// `compression`; `path` names it in errors.
  static std::unique_ptr<InputStream> FromBuffer(std::string path, std::string_view data,
                                                 InputCompression compression);

  /// As FromBuffer, over a stream that owns `data`.
  static std::unique_ptr<InputStream> FromString(std::string path, std::string data,
                                                 InputCompression compression);

  /// The path errors name.
  virtual const std::string& Path() const = 0;

  /// Fills the front of `out` with the next bytes; returns how many (0 only at the end).
  /// Corruption names the path and the compressed byte offset when decompression fails,
  /// including a truncated stream.
  virtual Result<size_t> Read(std::span<char> out) = 0;

  /// Reads everything left and appends it to `*out`.
  Status ReadAll(std::string* out);
};

/// A text file opened for a reader: its stream and, when the file is not compressed, its size
/// (else -1), from which the readers size their buffers.
struct SizedInput {
  std::unique_ptr<InputStream> stream;
  int64_t size_hint = -1;
};

/// Opens `path` on `fs` as InputStream::Open does, with its size when it is not compressed.
Result<SizedInput> OpenSizedInput(storage::FileSystem& fs, const std::string& path);

}  // namespace tributary::text

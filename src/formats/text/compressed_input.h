// Whole-file input for the text readers: gzip and zstd files are recognised by extension and
// decompressed as streams (several concatenated members or frames included).

#pragma once

#include <cstddef>
#include <cstdint>
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

/// Appends the decompression of `input` to `*out`. Corruption names `path` and the compressed
/// byte offset where decoding failed, including truncation.
[[nodiscard]] Status DecompressAll(InputCompression compression, std::string_view input,
                                   std::string_view path, std::string* out);

/// The whole of the file at `path`, decompressed per CompressionFromPath, followed by
/// `padding` space characters (the returned size includes them), so parsers that read a
/// little past the end see only whitespace.
Result<std::string> ReadTextFile(storage::FileSystem& fs, const std::string& path,
                                 size_t padding);

}  // namespace tributary::text

// Page compression codecs (parquet-format Compression.md).

#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// The codecs tributary reads. Parquet's thrift CompressionCodec value LZO (3) has no member:
/// CompressionCodecFromThrift reports it as NotImplemented.
enum class CompressionCodec : int8_t {
  kUncompressed,
  kSnappy,
  kGzip,
  /// LZ4_RAW (7): a bare LZ4 block.
  kLz4Raw,
  /// LZ4 (5), deprecated: LZ4 blocks in Hadoop's framing, or a bare block from some writers.
  kLz4Hadoop,
  kZstd,
  /// BROTLI (4): a Brotli stream (RFC 7932).
  kBrotli,
};

/// Asks Compress for the codec's own default level.
constexpr int kDefaultCompressionLevel = std::numeric_limits<int>::min();

/// The codec for thrift CompressionCodec value `value`. NotImplemented, naming the codec, for
/// LZO; Corruption for values Parquet does not define.
Result<CompressionCodec> CompressionCodecFromThrift(int32_t value);

/// The thrift CompressionCodec value of `codec` (LZ4_RAW is 7, the Hadoop-framed LZ4 is 5).
int32_t CompressionCodecToThrift(CompressionCodec codec);

/// The codec's Parquet name, e.g. "ZSTD".
std::string_view CompressionCodecName(CompressionCodec codec);

/// Checks a page header's `uncompressed_size` against its body `input` before a buffer of that
/// size is allocated: against the length the codec itself records (SNAPPY's preamble, ZSTD's
/// frame content sizes, the Hadoop LZ4 frame headers), else against the most the codec can
/// expand `input` to (GZIP 1032:1, LZ4 255:1). BROTLI records neither, so a size above 64 times
/// the input is confirmed by decompressing into a small window, counting. Corruption, naming the
/// codec and both sizes, when the declared size cannot be right; Decompress still checks that the
/// output has exactly that size.
///
/// Thread-safety: safe to call concurrently.
[[nodiscard]] Status CheckDecompressedSize(CompressionCodec codec, std::string_view input,
                                           int64_t uncompressed_size);

/// Decompresses a page body `input` into `output`, whose size is the page header's
/// uncompressed_page_size. Corruption when the data is malformed or does not decompress to
/// exactly output.size() bytes. Never writes outside `output`.
///
/// Thread-safety: safe to call concurrently.
[[nodiscard]] Status Decompress(CompressionCodec codec, std::string_view input,
                                std::span<uint8_t> output);

/// Replaces `*output` with `input` compressed by `codec` at `level` (zstd 1..22 and negative
/// fast levels, gzip 0..9, brotli 0..11; ignored by snappy and LZ4). kLz4Hadoop writes a single
/// Hadoop frame. InvalidArgument for a level the codec rejects or input above 2 GiB - 1.
[[nodiscard]] Status Compress(CompressionCodec codec, std::string_view input, std::string* output,
                              int level = kDefaultCompressionLevel);

/// Compresses the concatenation of `pieces` (a page's level streams and its values, kept apart so
/// that they need not be joined first) to the front of `*buffer` and sets `*compressed_size`:
/// the same bytes Compress makes of the joined input; only the first `*compressed_size` bytes of
/// `*buffer` are the result. SNAPPY and UNCOMPRESSED read the pieces in place, and `*buffer`
/// then only grows, so a buffer reused page after page is not zero-filled again; the other
/// codecs join the pieces and replace `*buffer`. Errors as Compress.
[[nodiscard]] Status CompressPieces(CompressionCodec codec,
                                    std::span<const std::string_view> pieces, std::string* buffer,
                                    size_t* compressed_size, int level = kDefaultCompressionLevel);

}  // namespace tributary::parquet

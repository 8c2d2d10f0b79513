// Page compression (parquet-format Compression.md). Every codec but LZ4 feeds the page body to
// its library as-is; the page header gives both sizes. The deprecated LZ4 (5) uses Hadoop's
// framing, as Arrow reads it:
//
//   hadoop-lz4 := frame+
//   frame      := decompressed-size compressed-size lz4-block
//   *-size     := 4 bytes big endian
//
// Some writers put a bare LZ4 block under code 5, so a body that does not parse as frames is
// retried as one. GZIP bodies may hold several gzip members (Compression.md, "GZIP"). BROTLI
// bodies are one Brotli stream (RFC 7932).
//
// A page header's uncompressed size is checked (CheckDecompressedSize) before anything of that
// size is allocated: a file of a hundred bytes may declare a 2 GiB page.

#include "formats/parquet/compression.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
// ZSTD_decompressBound (exported by Debian's shared libzstd) bounds frames without a content size.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <snappy-sinksource.h>

namespace tributary::parquet {

namespace {

constexpr int64_t kMaxBufferSize = std::numeric_limits<int32_t>::max();

/// snappy's input as consecutive pieces: snappy compresses fixed 64 KiB blocks of the input,
/// gathering a block that spans pieces into its own scratch, so the output does not depend on
/// where the pieces split.
class PiecesSource final : public snappy::Source {
 public:
  explicit PiecesSource(std::span<const std::string_view> pieces) : pieces_(pieces) {
    for (const std::string_view piece : pieces) {
      available_ += piece.size();
    }
    SkipEmpty();
  }

  size_t Available() const override { return available_; }

  const char* Peek(size_t* len) override {
    if (index_ == pieces_.size()) {
      *len = 0;
      return nullptr;
    }
    *len = pieces_[index_].size() - offset_;
    return pieces_[index_].data() + offset_;
  }

  void Skip(size_t n) override {
    available_ -= n;
    while (n > 0) {
      const size_t left = pieces_[index_].size() - offset_;
      const size_t step = std::min(n, left);
      offset_ += step;
      n -= step;
      SkipEmpty();
    }
  }

 private:
  void SkipEmpty() {
    while (index_ < pieces_.size() && offset_ == pieces_[index_].size()) {
      ++index_;
      offset_ = 0;
    }
  }

  std::span<const std::string_view> pieces_;
  size_t index_ = 0;
  size_t offset_ = 0;
  size_t available_ = 0;
};
/// zlib's windowBits: 15-bit window, +32 to detect a gzip or zlib header, +16 to write gzip.
constexpr int kZlibWindowBits = 15;
constexpr int kZlibDetectHeader = 32;
constexpr int kZlibGzipHeader = 16;
constexpr int kZlibMemLevel = 8;
constexpr size_t kHadoopFrameHeader = 8;
/// The most output one input byte can become: deflate's longest match (258 bytes) in the
/// shortest code of the fixed Huffman table makes 1032:1; an LZ4 sequence adds at most 255 bytes
/// of match length per input byte. Some bytes of slack cover the codecs' fixed overheads.
constexpr int64_t kGzipMaxRatio = 1032;
constexpr int64_t kLz4MaxRatio = 255;
constexpr int64_t kRatioSlack = 64;
/// Brotli has no such ratio worth trusting: larger claims are confirmed by decompressing.
constexpr int64_t kBrotliTrustedRatio = 64;
constexpr size_t kBrotliCountWindow = 64 * 1024;
/// Brotli's quality when the caller asks for the default: its own default (11) is several times
/// slower for a few percent, so Arrow and parquet-mr writers use lower ones too.
constexpr int kBrotliDefaultQuality = 8;

uint32_t LoadBe32(const char* p) {
  return static_cast<uint32_t>(static_cast<uint8_t>(p[0])) << 24 |
         static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(p[3]));
}

void AppendBe32(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>(value >> shift));
  }
}

Status SizeMismatch(CompressionCodec codec, int64_t actual, size_t expected) {
  return Status::Corruption(
      fmt::format("{} page decompresses to {} bytes but its header declares {}",
                  CompressionCodecName(codec), actual, expected));
}

Status DecompressSnappy(std::string_view input, std::span<uint8_t> output) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &length)) {
    return Status::Corruption("SNAPPY page has a malformed length header at byte offset 0");
  }
  if (length != output.size()) {
    return SizeMismatch(CompressionCodec::kSnappy, static_cast<int64_t>(length), output.size());
  }
  if (!snappy::RawUncompress(input.data(), input.size(), reinterpret_cast<char*>(output.data()))) {
    return Status::Corruption(fmt::format("SNAPPY page of {} bytes is malformed", input.size()));
  }
  return Status::OK();
}

Status DecompressZstd(std::string_view input, std::span<uint8_t> output) {
  const size_t n = ZSTD_decompress(output.data(), output.size(), input.data(), input.size());
  if (ZSTD_isError(n) != 0) {
    return Status::Corruption(fmt::format("ZSTD page of {} bytes does not decompress into {}: {}",
                                          input.size(), output.size(), ZSTD_getErrorName(n)));
  }
  if (n != output.size()) {
    return SizeMismatch(CompressionCodec::kZstd, static_cast<int64_t>(n), output.size());
  }
  return Status::OK();
}

Status DecompressLz4Raw(std::string_view input, std::span<uint8_t> output) {
  const int n =
      LZ4_decompress_safe(input.data(), reinterpret_cast<char*>(output.data()),
                          static_cast<int>(input.size()), static_cast<int>(output.size()));
  if (n < 0) {
    return Status::Corruption(fmt::format(
        "LZ4 block of {} bytes is malformed or decompresses to more than {} bytes (lz4 error {})",
        input.size(), output.size(), n));
  }
  if (static_cast<size_t>(n) != output.size()) {
    return SizeMismatch(CompressionCodec::kLz4Raw, n, output.size());
  }
  return Status::OK();
}

/// True when `input` parses as Hadoop frames filling `output` exactly.
bool TryDecompressHadoop(std::string_view input, std::span<uint8_t> output) {
  size_t produced = 0;
  while (input.size() >= kHadoopFrameHeader) {
    const uint32_t decompressed = LoadBe32(input.data());
    const uint32_t compressed = LoadBe32(input.data() + 4);
    input.remove_prefix(kHadoopFrameHeader);
    if (compressed > input.size() || decompressed > output.size() - produced) {
      return false;
    }
    const int n =
        LZ4_decompress_safe(input.data(), reinterpret_cast<char*>(output.data() + produced),
                            static_cast<int>(compressed), static_cast<int>(decompressed));
    if (n < 0 || static_cast<uint32_t>(n) != decompressed) {
      return false;
    }
    produced += decompressed;
    input.remove_prefix(compressed);
  }
  return input.empty() && produced == output.size();
}

Status DecompressLz4Hadoop(std::string_view input, std::span<uint8_t> output) {
  if (TryDecompressHadoop(input, output)) {
    return Status::OK();
  }
  Status raw = DecompressLz4Raw(input, output);
  if (!raw.ok()) {
    return Status::Corruption(
        fmt::format("LZ4 (Hadoop) page of {} bytes parses neither as Hadoop frames nor as one "
                    "block: {}",
                    input.size(), raw.Message()));
  }
  return Status::OK();
}

Status InflateGzip(std::string_view input, std::span<uint8_t> output) {
  z_stream stream{};
  if (inflateInit2(&stream, kZlibWindowBits + kZlibDetectHeader) != Z_OK) {
    return Status::Internal("zlib inflateInit2 failed");
  }
  // zlib rejects null buffers even when empty, so an empty page points at a dummy byte.
  Bytef empty = 0;
  stream.next_in =
      input.empty() ? &empty : reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = output.empty() ? &empty : output.data();
  stream.avail_out = static_cast<uInt>(output.size());
  Status status;
  while (true) {
    const int rc = inflate(&stream, Z_NO_FLUSH);
    const size_t offset = input.size() - stream.avail_in;
    if (rc == Z_STREAM_END) {
      if (stream.avail_in == 0) {
        break;
      }
      // Another gzip member follows.
      inflateReset(&stream);
      continue;
    }
    if (rc == Z_OK) {
      continue;
    }
    if (rc == Z_BUF_ERROR && stream.avail_out == 0) {
      status = Status::Corruption(fmt::format(
          "GZIP page decompresses to more than the {} bytes its header declares (at compressed "
          "byte offset {})",
          output.size(), offset));
    } else if (rc == Z_BUF_ERROR) {
      status = Status::Corruption(
          fmt::format("GZIP page of {} bytes is truncated: the stream ends at byte offset {}",
                      input.size(), offset));
    } else {
      status = Status::Corruption(
          fmt::format("GZIP page is malformed at compressed byte offset {}: {}", offset,
                      stream.msg != nullptr ? stream.msg : "unknown zlib error"));
    }
    break;
  }
  const size_t produced = output.size() - stream.avail_out;
  inflateEnd(&stream);
  TRIBUTARY_RETURN_NOT_OK(status);
  if (produced != output.size()) {
    return SizeMismatch(CompressionCodec::kGzip, static_cast<int64_t>(produced), output.size());
  }
  return Status::OK();
}

Status DeflateGzip(std::string_view input, std::string* output, int level) {
  if (level == kDefaultCompressionLevel) {
    level = Z_DEFAULT_COMPRESSION;
  }
  if (level < Z_DEFAULT_COMPRESSION || level > Z_BEST_COMPRESSION) {
    return Status::InvalidArgument(fmt::format("GZIP level {} is outside 0..9", level));
  }
  z_stream stream{};
  if (deflateInit2(&stream, level, Z_DEFLATED, kZlibWindowBits + kZlibGzipHeader, kZlibMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("zlib deflateInit2 failed");
  }
  output->resize(deflateBound(&stream, static_cast<uLong>(input.size())));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(output->data());
  stream.avail_out = static_cast<uInt>(output->size());
  const int rc = deflate(&stream, Z_FINISH);
  output->resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    return Status::Internal(fmt::format("zlib deflate failed with code {}", rc));
  }
  return Status::OK();
}

Status DecompressBrotli(std::string_view input, std::span<uint8_t> output) {
  size_t produced = output.size();
  // Brotli writes nothing through an empty buffer, but wants a valid pointer.
  uint8_t empty = 0;
  const BrotliDecoderResult rc =
      BrotliDecoderDecompress(input.size(), reinterpret_cast<const uint8_t*>(input.data()),
                              &produced, output.empty() ? &empty : output.data());
  if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
    return Status::Corruption(fmt::format(
        "BROTLI page decompresses to more than the {} bytes its header declares", output.size()));
  }
  if (rc != BROTLI_DECODER_RESULT_SUCCESS) {
    return Status::Corruption(
        fmt::format("BROTLI page of {} bytes is malformed or truncated", input.size()));
  }
  if (produced != output.size()) {
    return SizeMismatch(CompressionCodec::kBrotli, static_cast<int64_t>(produced), output.size());
  }
  return Status::OK();
}

/// Decompresses `input` into a small window, counting, until it ends or passes `limit` bytes.
Result<int64_t> CountBrotliOutput(std::string_view input, int64_t limit) {
  BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (state == nullptr) {
    return Status::Internal("BrotliDecoderCreateInstance failed");
  }
  std::vector<uint8_t> window(kBrotliCountWindow);
  size_t available_in = input.size();
  const auto* next_in = reinterpret_cast<const uint8_t*>(input.data());
  int64_t produced = 0;
  BrotliDecoderResult rc = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  while (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && produced <= limit) {
    size_t available_out = window.size();
    uint8_t* next_out = window.data();
    rc = BrotliDecoderDecompressStream(state, &available_in, &next_in, &available_out, &next_out,
                                       nullptr);
    produced += static_cast<int64_t>(window.size() - available_out);
  }
  BrotliDecoderDestroyInstance(state);
  if (rc == BROTLI_DECODER_RESULT_ERROR || rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
    return Status::Corruption(
        fmt::format("BROTLI page of {} bytes is malformed or truncated", input.size()));
  }
  return produced;
}

Status CompressBrotli(std::string_view input, std::string* output, int level) {
  if (level == kDefaultCompressionLevel) {
    level = kBrotliDefaultQuality;
  }
  if (level < BROTLI_MIN_QUALITY || level > BROTLI_MAX_QUALITY) {
    return Status::InvalidArgument(fmt::format("BROTLI level {} is outside {}..{}", level,
                                               BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY));
  }
  size_t n = BrotliEncoderMaxCompressedSize(input.size());
  output->resize(n);
  if (BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, input.size(),
                            reinterpret_cast<const uint8_t*>(input.data()), &n,
                            reinterpret_cast<uint8_t*>(output->data())) != BROTLI_TRUE) {
    return Status::Internal(fmt::format("BrotliEncoderCompress failed on {} bytes", input.size()));
  }
  output->resize(n);
  return Status::OK();
}

/// The decompressed sizes the Hadoop frames of `input` declare, or -1 when it is not frames.
int64_t HadoopFramesSize(std::string_view input) {
  int64_t total = 0;
  while (input.size() >= kHadoopFrameHeader) {
    const uint32_t decompressed = LoadBe32(input.data());
    const uint32_t compressed = LoadBe32(input.data() + 4);
    input.remove_prefix(kHadoopFrameHeader);
    if (compressed > input.size()) {
      return -1;
    }
    total += decompressed;
    input.remove_prefix(compressed);
  }
  return input.empty() ? total : -1;
}

Status CompressLz4Block(std::string_view input, std::string* output, size_t header) {
  const int bound = LZ4_compressBound(static_cast<int>(input.size()));
  output->resize(header + static_cast<size_t>(bound));
  const int n = LZ4_compress_default(input.data(), output->data() + header,
                                     static_cast<int>(input.size()), bound);
  if (n <= 0 && !input.empty()) {
    return Status::Internal("LZ4_compress_default failed");
  }
  output->resize(header + static_cast<size_t>(n));
  return Status::OK();
}

}  // namespace

Result<CompressionCodec> CompressionCodecFromThrift(int32_t value) {
  switch (value) {
    case 0:
      return CompressionCodec::kUncompressed;
    case 1:
      return CompressionCodec::kSnappy;
    case 2:
      return CompressionCodec::kGzip;
    case 3:
      return Status::NotImplemented("compression codec LZO (3) is not supported");
    case 4:
      return CompressionCodec::kBrotli;
    case 5:
      return CompressionCodec::kLz4Hadoop;
    case 6:
      return CompressionCodec::kZstd;
    case 7:
      return CompressionCodec::kLz4Raw;
    default:
      return Status::Corruption(fmt::format("unknown compression codec {}", value));
  }
}

int32_t CompressionCodecToThrift(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return 0;
    case CompressionCodec::kSnappy:
      return 1;
    case CompressionCodec::kGzip:
      return 2;
    case CompressionCodec::kLz4Hadoop:
      return 5;
    case CompressionCodec::kZstd:
      return 6;
    case CompressionCodec::kLz4Raw:
      return 7;
    case CompressionCodec::kBrotli:
      return 4;
  }
  return 0;
}

std::string_view CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case CompressionCodec::kSnappy:
      return "SNAPPY";
    case CompressionCodec::kGzip:
      return "GZIP";
    case CompressionCodec::kLz4Hadoop:
      return "LZ4";
    case CompressionCodec::kZstd:
      return "ZSTD";
    case CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
    case CompressionCodec::kBrotli:
      return "BROTLI";
  }
  return "UNKNOWN";
}

Status CheckDecompressedSize(CompressionCodec codec, std::string_view input,
                             int64_t uncompressed_size) {
  const auto in = static_cast<int64_t>(input.size());
  if (uncompressed_size < 0 || uncompressed_size > kMaxBufferSize) {
    return Status::Corruption(
        fmt::format("{} page declares {} uncompressed bytes, outside 0..2^31-1",
                    CompressionCodecName(codec), uncompressed_size));
  }
  auto too_large = [&](std::string_view why, int64_t most) {
    return Status::Corruption(
        fmt::format("{} page of {} bytes declares {} uncompressed bytes, but {} {}",
                    CompressionCodecName(codec), in, uncompressed_size, why, most));
  };
  switch (codec) {
    case CompressionCodec::kUncompressed:
      if (in != uncompressed_size) {
        return SizeMismatch(codec, in, static_cast<size_t>(uncompressed_size));
      }
      return Status::OK();
    case CompressionCodec::kSnappy: {
      size_t length = 0;
      if (!snappy::GetUncompressedLength(input.data(), input.size(), &length)) {
        return Status::Corruption("SNAPPY page has a malformed length header at byte offset 0");
      }
      if (static_cast<int64_t>(length) != uncompressed_size) {
        return too_large("its length header says", static_cast<int64_t>(length));
      }
      return Status::OK();
    }
    case CompressionCodec::kZstd: {
      const unsigned long long bound = ZSTD_decompressBound(input.data(), input.size());
      if (bound == ZSTD_CONTENTSIZE_ERROR) {
        return Status::Corruption(fmt::format("ZSTD page of {} bytes has malformed frames", in));
      }
      if (bound < static_cast<unsigned long long>(uncompressed_size)) {
        return too_large("its frames hold at most", static_cast<int64_t>(bound));
      }
      return Status::OK();
    }
    case CompressionCodec::kGzip:
      if (uncompressed_size > in * kGzipMaxRatio + kRatioSlack) {
        return too_large("deflate expands it to at most", in * kGzipMaxRatio + kRatioSlack);
      }
      return Status::OK();
    case CompressionCodec::kLz4Hadoop: {
      const int64_t frames = HadoopFramesSize(input);
      if (frames == uncompressed_size) {
        return Status::OK();
      }
      [[fallthrough]];  // not frames of that size: maybe one bare block
    }
    case CompressionCodec::kLz4Raw:
      if (uncompressed_size > in * kLz4MaxRatio + kRatioSlack) {
        return too_large("LZ4 expands it to at most", in * kLz4MaxRatio + kRatioSlack);
      }
      return Status::OK();
    case CompressionCodec::kBrotli: {
      if (uncompressed_size <= in * kBrotliTrustedRatio + kRatioSlack) {
        return Status::OK();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const int64_t produced,
                                CountBrotliOutput(input, uncompressed_size));
      if (produced != uncompressed_size) {
        return SizeMismatch(codec, produced, static_cast<size_t>(uncompressed_size));
      }
      return Status::OK();
    }
  }
  return Status::InvalidArgument("unknown compression codec");
}

Status Decompress(CompressionCodec codec, std::string_view input, std::span<uint8_t> output) {
  if (static_cast<int64_t>(input.size()) > kMaxBufferSize ||
      static_cast<int64_t>(output.size()) > kMaxBufferSize) {
    return Status::InvalidArgument(
        fmt::format("{} page of {} bytes into {} bytes exceeds the 2 GiB page limit",
                    CompressionCodecName(codec), input.size(), output.size()));
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      if (input.size() != output.size()) {
        return SizeMismatch(codec, static_cast<int64_t>(input.size()), output.size());
      }
      if (!input.empty()) {
        std::memcpy(output.data(), input.data(), input.size());
      }
      return Status::OK();
    case CompressionCodec::kSnappy:
      return DecompressSnappy(input, output);
    case CompressionCodec::kGzip:
      return InflateGzip(input, output);
    case CompressionCodec::kLz4Raw:
      return DecompressLz4Raw(input, output);
    case CompressionCodec::kLz4Hadoop:
      return DecompressLz4Hadoop(input, output);
    case CompressionCodec::kZstd:
      return DecompressZstd(input, output);
    case CompressionCodec::kBrotli:
      return DecompressBrotli(input, output);
  }
  return Status::InvalidArgument("unknown compression codec");
}

Status Compress(CompressionCodec codec, std::string_view input, std::string* output, int level) {
  if (static_cast<int64_t>(input.size()) > kMaxBufferSize) {
    return Status::InvalidArgument(
        fmt::format("page of {} bytes exceeds the 2 GiB page limit", input.size()));
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      output->assign(input);
      return Status::OK();
    case CompressionCodec::kSnappy: {
      output->resize(snappy::MaxCompressedLength(input.size()));
      size_t n = 0;
      snappy::RawCompress(input.data(), input.size(), output->data(), &n);
      output->resize(n);
      return Status::OK();
    }
    case CompressionCodec::kGzip:
      return DeflateGzip(input, output, level);
    case CompressionCodec::kLz4Raw:
      return CompressLz4Block(input, output, 0);
    case CompressionCodec::kLz4Hadoop: {
      TRIBUTARY_RETURN_NOT_OK(CompressLz4Block(input, output, kHadoopFrameHeader));
      std::string header;
      AppendBe32(static_cast<uint32_t>(input.size()), &header);
      AppendBe32(static_cast<uint32_t>(output->size() - kHadoopFrameHeader), &header);
      std::memcpy(output->data(), header.data(), kHadoopFrameHeader);
      return Status::OK();
    }
    case CompressionCodec::kZstd: {
      if (level == kDefaultCompressionLevel) {
        level = ZSTD_CLEVEL_DEFAULT;
      }
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return Status::InvalidArgument(fmt::format("ZSTD level {} is outside {}..{}", level,
                                                   ZSTD_minCLevel(), ZSTD_maxCLevel()));
      }
      output->resize(ZSTD_compressBound(input.size()));
      const size_t n =
          ZSTD_compress(output->data(), output->size(), input.data(), input.size(), level);
      if (ZSTD_isError(n) != 0) {
        return Status::Internal(fmt::format("ZSTD_compress failed: {}", ZSTD_getErrorName(n)));
      }
      output->resize(n);
      return Status::OK();
    }
    case CompressionCodec::kBrotli:
      return CompressBrotli(input, output, level);
  }
  return Status::InvalidArgument("unknown compression codec");
}

Status CompressPieces(CompressionCodec codec, std::span<const std::string_view> pieces,
                      std::string* buffer, size_t* compressed_size, int level) {
  size_t total = 0;
  for (const std::string_view piece : pieces) {
    total += piece.size();
  }
  if (static_cast<int64_t>(total) > kMaxBufferSize) {
    return Status::InvalidArgument(
        fmt::format("page of {} bytes exceeds the 2 GiB page limit", total));
  }
  if (codec == CompressionCodec::kSnappy || codec == CompressionCodec::kUncompressed) {
    const size_t bound =
        codec == CompressionCodec::kSnappy ? snappy::MaxCompressedLength(total) : total;
    if (buffer->size() < bound) {
      buffer->resize(bound);
    }
    if (codec == CompressionCodec::kUncompressed) {
      char* out = buffer->data();
      for (const std::string_view piece : pieces) {
        if (!piece.empty()) {
          std::memcpy(out, piece.data(), piece.size());
          out += piece.size();
        }
      }
      *compressed_size = total;
      return Status::OK();
    }
    PiecesSource source(pieces);
    snappy::UncheckedByteArraySink sink(buffer->data());
    *compressed_size = snappy::Compress(&source, &sink);
    return Status::OK();
  }
  std::string joined;
  joined.reserve(total);
  for (const std::string_view piece : pieces) {
    joined.append(piece);
  }
  TRIBUTARY_RETURN_NOT_OK(Compress(codec, joined, buffer, level));
  *compressed_size = buffer->size();
  return Status::OK();
}

}  // namespace tributary::parquet

#include "formats/parquet/compression.h"

#include <lz4.h>
#include <zlib.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

/// Text-like bytes with repeats, so every codec actually compresses.
std::string CompressibleBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::string words[] = {"alpha ", "beta ",      "gamma ",
                               "delta ", "1234567890", std::string("\x00\x01", 2)};
  std::string out;
  while (out.size() < size) {
    out += words[rng() % 6];
    if (rng() % 4 == 0) {
      out.push_back(static_cast<char>(rng()));
    }
  }
  out.resize(size);
  return out;
}

std::span<uint8_t> AsSpan(std::vector<uint8_t>& buffer) {
  return {buffer.data(), buffer.size()};
}

class CodecTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CodecTest, RoundTripsPagesOfManySizes) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{17}, size_t{4096}, size_t{300000}}) {
    const std::string input = CompressibleBytes(size, static_cast<uint32_t>(size) + 7);
    std::string compressed;
    ASSERT_OK(Compress(GetParam(), input, &compressed));
    if (GetParam() != CompressionCodec::kUncompressed && size >= 4096) {
      EXPECT_LT(compressed.size(), input.size() / 2);
    }
    std::vector<uint8_t> output(size);
    ASSERT_OK(Decompress(GetParam(), compressed, AsSpan(output)));
    EXPECT_EQ(std::string(output.begin(), output.end()), input) << "size " << size;
  }
}

TEST_P(CodecTest, PiecesCompressToTheBytesOfTheirConcatenation) {
  // Splits inside and across snappy's 64 KiB blocks, empty pieces among them; one buffer reused
  // from a larger page to smaller ones, whose stale tail must not matter.
  const std::string input = CompressibleBytes(200000, 11);
  std::string buffer;
  for (const std::vector<size_t>& cuts : std::vector<std::vector<size_t>>{
           {0, 200000}, {70000, 70000, 131072}, {1, 65535, 65536, 65537, 199999}, {5}, {}}) {
    std::vector<std::string_view> pieces;
    size_t begin = 0;
    for (const size_t cut : cuts) {
      pieces.push_back(std::string_view(input).substr(begin, cut - begin));
      begin = cut;
    }
    const std::string joined = std::string(input.substr(0, begin));
    std::string expected;
    ASSERT_OK(Compress(GetParam(), joined, &expected));
    size_t size = 0;
    ASSERT_OK(CompressPieces(GetParam(), pieces, &buffer, &size));
    EXPECT_EQ(buffer.substr(0, size), expected) << pieces.size() << " pieces";
  }
}

TEST_P(CodecTest, RejectsWrongDeclaredSize) {
  const std::string input = CompressibleBytes(5000, 3);
  std::string compressed;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  std::vector<uint8_t> smaller(input.size() - 1);
  ASSERT_RAISES(Corruption, Decompress(GetParam(), compressed, AsSpan(smaller)));
  std::vector<uint8_t> larger(input.size() + 1);
  ASSERT_RAISES(Corruption, Decompress(GetParam(), compressed, AsSpan(larger)));
}

// A page's declared size is checked against its body before a buffer of that size exists: the
// true size passes, 2^31-1 (and, where the codec records it, one byte more) does not.
TEST_P(CodecTest, ChecksDeclaredSizeAgainstTheBody) {
  const std::string input = CompressibleBytes(5000, 9);
  std::string compressed;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  ASSERT_OK(CheckDecompressedSize(GetParam(), compressed, 5000));
  const Status huge =
      CheckDecompressedSize(GetParam(), compressed, std::numeric_limits<int32_t>::max());
  ASSERT_RAISES(Corruption, huge);
  EXPECT_NE(huge.Message().find(std::string(CompressionCodecName(GetParam()))), std::string::npos)
      << huge;
  EXPECT_NE(huge.Message().find("2147483647"), std::string::npos) << huge;
  ASSERT_RAISES(Corruption, CheckDecompressedSize(GetParam(), compressed, -1));
  if (GetParam() == CompressionCodec::kSnappy || GetParam() == CompressionCodec::kZstd ||
      GetParam() == CompressionCodec::kUncompressed) {
    ASSERT_RAISES(Corruption, CheckDecompressedSize(GetParam(), compressed, 5001));
  }
}

// Codecs whose output has structure to damage (an uncompressed page has only its size).
class CompressedCodecTest : public CodecTest {};

TEST_P(CompressedCodecTest, RejectsTruncatedPage) {
  const std::string input = CompressibleBytes(5000, 4);
  std::string compressed;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  std::vector<uint8_t> output(input.size());
  ASSERT_RAISES(Corruption, Decompress(GetParam(), compressed.substr(0, compressed.size() / 2),
                                       AsSpan(output)));
}

TEST_P(CompressedCodecTest, RejectsGarbage) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::string garbage(64 + trial, '\0');
    for (char& c : garbage) {
      c = static_cast<char>(rng());
    }
    std::vector<uint8_t> output(1000);
    ASSERT_RAISES(Corruption, Decompress(GetParam(), garbage, AsSpan(output)));
  }
}

TEST_P(CodecTest, RejectsFlippedBytesWithoutCrashing) {
  const std::string input = CompressibleBytes(20000, 5);
  std::string compressed;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  std::mt19937 rng(12);
  std::vector<uint8_t> output(input.size());
  for (int trial = 0; trial < 200; ++trial) {
    std::string damaged = compressed;
    damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    // A flip may still decode (into different bytes); it must never crash or overrun.
    Status st = Decompress(GetParam(), damaged, AsSpan(output));
    EXPECT_TRUE(st.ok() || st.IsCorruption()) << st;
  }
}

TEST_P(CodecTest, MapsToAndFromThrift) {
  ASSERT_OK_AND_ASSIGN(CompressionCodec codec,
                       CompressionCodecFromThrift(CompressionCodecToThrift(GetParam())));
  EXPECT_EQ(codec, GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest,
                         ::testing::Values(CompressionCodec::kUncompressed,
                                           CompressionCodec::kSnappy, CompressionCodec::kGzip,
                                           CompressionCodec::kLz4Raw, CompressionCodec::kLz4Hadoop,
                                           CompressionCodec::kZstd, CompressionCodec::kBrotli),
                         [](const auto& codec_info) {
                           return std::string(CompressionCodecName(codec_info.param)) == "LZ4"
                                      ? std::string("LZ4_HADOOP")
                                      : std::string(CompressionCodecName(codec_info.param));
                         });

INSTANTIATE_TEST_SUITE_P(CompressedCodecs, CompressedCodecTest,
                         ::testing::Values(CompressionCodec::kSnappy, CompressionCodec::kGzip,
                                           CompressionCodec::kLz4Raw, CompressionCodec::kLz4Hadoop,
                                           CompressionCodec::kZstd, CompressionCodec::kBrotli),
                         [](const auto& codec_info) {
                           return std::string(CompressionCodecName(codec_info.param)) == "LZ4"
                                      ? std::string("LZ4_HADOOP")
                                      : std::string(CompressionCodecName(codec_info.param));
                         });

TEST(CompressionCodecTest, ThriftValuesFollowTheSpec) {
  ASSERT_OK_AND_ASSIGN(auto codec, CompressionCodecFromThrift(0));
  EXPECT_EQ(codec, CompressionCodec::kUncompressed);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(1));
  EXPECT_EQ(codec, CompressionCodec::kSnappy);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(2));
  EXPECT_EQ(codec, CompressionCodec::kGzip);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(5));
  EXPECT_EQ(codec, CompressionCodec::kLz4Hadoop);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(6));
  EXPECT_EQ(codec, CompressionCodec::kZstd);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(7));
  EXPECT_EQ(codec, CompressionCodec::kLz4Raw);
  ASSERT_OK_AND_ASSIGN(codec, CompressionCodecFromThrift(4));
  EXPECT_EQ(codec, CompressionCodec::kBrotli);
}

TEST(CompressionCodecTest, LzoIsNotImplementedByName) {
  auto lzo = CompressionCodecFromThrift(3);
  ASSERT_RAISES(NotImplemented, lzo);
  EXPECT_NE(lzo.status().Message().find("LZO"), std::string::npos);
  ASSERT_RAISES(Corruption, CompressionCodecFromThrift(8));
  ASSERT_RAISES(Corruption, CompressionCodecFromThrift(-1));
}

TEST(CompressionCodecTest, Lz4HadoopFallsBackToARawBlock) {
  const std::string input = CompressibleBytes(10000, 8);
  std::string raw;
  ASSERT_OK(Compress(CompressionCodec::kLz4Raw, input, &raw));
  std::vector<uint8_t> output(input.size());
  ASSERT_OK(Decompress(CompressionCodec::kLz4Hadoop, raw, AsSpan(output)));
  EXPECT_EQ(std::string(output.begin(), output.end()), input);
}

TEST(CompressionCodecTest, Lz4HadoopReadsSeveralFrames) {
  const std::string first = CompressibleBytes(3000, 9);
  const std::string second = CompressibleBytes(5000, 10);
  std::string framed;
  for (const std::string& part : {first, second}) {
    std::string block;
    ASSERT_OK(Compress(CompressionCodec::kLz4Raw, part, &block));
    for (uint32_t value :
         {static_cast<uint32_t>(part.size()), static_cast<uint32_t>(block.size())}) {
      for (int shift = 24; shift >= 0; shift -= 8) {
        framed.push_back(static_cast<char>(value >> shift));
      }
    }
    framed += block;
  }
  std::vector<uint8_t> output(first.size() + second.size());
  ASSERT_OK(Decompress(CompressionCodec::kLz4Hadoop, framed, AsSpan(output)));
  EXPECT_EQ(std::string(output.begin(), output.end()), first + second);
}

TEST(CompressionCodecTest, GzipReadsSeveralMembersAndZlibStreams) {
  const std::string first = CompressibleBytes(3000, 13);
  const std::string second = CompressibleBytes(2000, 14);
  std::string a;
  std::string b;
  ASSERT_OK(Compress(CompressionCodec::kGzip, first, &a));
  ASSERT_OK(Compress(CompressionCodec::kGzip, second, &b));
  std::vector<uint8_t> output(first.size() + second.size());
  ASSERT_OK(Decompress(CompressionCodec::kGzip, a + b, AsSpan(output)));
  EXPECT_EQ(std::string(output.begin(), output.end()), first + second);

  // Some writers emitted zlib framing under GZIP; windowBits + 32 detects it.
  std::string zlib(compressBound(first.size()), '\0');
  uLongf zlib_size = zlib.size();
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zlib.data()), &zlib_size,
                     reinterpret_cast<const Bytef*>(first.data()), first.size()),
            Z_OK);
  zlib.resize(zlib_size);
  std::vector<uint8_t> zlib_output(first.size());
  ASSERT_OK(Decompress(CompressionCodec::kGzip, zlib, AsSpan(zlib_output)));
  EXPECT_EQ(std::string(zlib_output.begin(), zlib_output.end()), first);
}

TEST(CompressionCodecTest, GzipSizeMismatchNamesBothSizes) {
  std::string compressed;
  ASSERT_OK(Compress(CompressionCodec::kGzip, CompressibleBytes(100, 1), &compressed));
  std::vector<uint8_t> output(150);
  Status st = Decompress(CompressionCodec::kGzip, compressed, AsSpan(output));
  ASSERT_RAISES(Corruption, st);
  EXPECT_NE(st.Message().find("100"), std::string::npos) << st;
  EXPECT_NE(st.Message().find("150"), std::string::npos) << st;
}

TEST(CompressionCodecTest, RejectsLevelsTheCodecDoesNotHave) {
  std::string out;
  ASSERT_RAISES(InvalidArgument, Compress(CompressionCodec::kGzip, "abc", &out, 10));
  ASSERT_RAISES(InvalidArgument, Compress(CompressionCodec::kZstd, "abc", &out, 1000));
  ASSERT_OK(Compress(CompressionCodec::kZstd, "abc", &out, 19));
  ASSERT_OK(Compress(CompressionCodec::kGzip, "abc", &out, 1));
  ASSERT_RAISES(InvalidArgument, Compress(CompressionCodec::kBrotli, "abc", &out, 12));
  ASSERT_OK(Compress(CompressionCodec::kBrotli, "abc", &out, 11));
}

}  // namespace
}  // namespace tributary::parquet

#include "formats/parquet/rle_encoding.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/parquet/encoded_bytes.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

using testing::Bytes;
using testing::ExpectMessageHas;

/// Runs of repeats of random length mixed with random values below 2^bit_width.
std::vector<int32_t> RandomLevels(int bit_width, size_t count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const uint64_t mask = bit_width == 0 ? 0 : (uint64_t{1} << bit_width) - 1;
  std::vector<int32_t> values;
  while (values.size() < count) {
    const auto value = static_cast<int32_t>(static_cast<uint32_t>(rng() & mask));
    const size_t repeat = rng() % 3 == 0 ? 1 + rng() % 40 : 1;
    for (size_t i = 0; i < repeat && values.size() < count; ++i) {
      values.push_back(value);
    }
  }
  return values;
}

std::string Encode(int bit_width, const std::vector<int32_t>& values) {
  RleBitPackedEncoder encoder(bit_width);
  encoder.PutBatch(values);
  EXPECT_EQ(encoder.NumValues(), static_cast<int64_t>(values.size()));
  return encoder.Flush();
}

TEST(Uleb128Test, RoundTripsAndRejectsTruncationAndOverflow) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                         uint64_t{1} << 35, ~uint64_t{0}}) {
    std::string out = "x";
    AppendUleb128(value, &out);
    int64_t pos = 1;
    uint64_t decoded = 0;
    ASSERT_OK(ReadUleb128(out, &pos, &decoded));
    EXPECT_EQ(decoded, value);
    EXPECT_EQ(pos, static_cast<int64_t>(out.size()));
  }
  EXPECT_EQ(Bytes({0xAC, 0x02}), [] {
    std::string out;
    AppendUleb128(300, &out);
    return out;
  }());
  int64_t pos = 0;
  uint64_t value = 0;
  Status truncated = ReadUleb128(Bytes({0x01, 0x80, 0x80}), &(pos = 1), &value);
  ASSERT_RAISES(Corruption, truncated);
  ExpectMessageHas(truncated, "byte offset 1");
  Status overflow = ReadUleb128(std::string(10, '\xFF') + "\x01", &(pos = 0), &value);
  ASSERT_RAISES(Corruption, overflow);
  ExpectMessageHas(overflow, "byte offset 0");
}

TEST(ZigZagTest, MapsSmallMagnitudesToSmallValues) {
  EXPECT_EQ(ZigZagEncode(0), 0u);
  EXPECT_EQ(ZigZagEncode(-1), 1u);
  EXPECT_EQ(ZigZagEncode(1), 2u);
  EXPECT_EQ(ZigZagEncode(-2), 3u);
  for (int64_t v : {int64_t{0}, int64_t{-5}, int64_t{77}, INT64_MIN, INT64_MAX}) {
    EXPECT_EQ(ZigZagDecode(ZigZagEncode(v)), v);
  }
}

TEST(BitPackingTest, RoundTripsEveryWidthWithTightBuffers) {
  std::mt19937_64 rng(42);
  for (int width = 0; width <= 64; ++width) {
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    std::vector<uint64_t> values(size_t{64} * 3);
    for (uint64_t& v : values) {
      v = rng() & mask;
    }
    std::string packed;
    PackBits(values, width, &packed);
    ASSERT_EQ(packed.size(), values.size() * static_cast<size_t>(width) / 8);
    std::vector<uint64_t> decoded(values.size());
    // A tight buffer forces the padded slow path for the last groups.
    UnpackBits(reinterpret_cast<const uint8_t*>(packed.data()), static_cast<int64_t>(packed.size()),
               width, static_cast<int64_t>(values.size()), decoded.data());
    EXPECT_EQ(decoded, values) << "width " << width;
    if (width <= 32) {
      std::vector<uint32_t> narrow(values.size());
      UnpackBits(reinterpret_cast<const uint8_t*>(packed.data()),
                 static_cast<int64_t>(packed.size()), width, static_cast<int64_t>(values.size()),
                 narrow.data());
      EXPECT_EQ(std::vector<uint64_t>(narrow.begin(), narrow.end()), values) << "width " << width;
    }
  }
}

TEST(RleBitPackedTest, DecodesTheSpecBitPackingExample) {
  // Encodings.md: 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  const std::string data = Bytes({0x03, 0x88, 0xC6, 0xFA});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 3));
  std::vector<int32_t> out(8);
  ASSERT_OK(decoder.GetBatch(out.data(), 8));
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Encode(3, {0, 1, 2, 3, 4, 5, 6, 7}), data);
}

// What a page's declared count is checked against: the values the run headers account for,
// counted no further than asked, a truncated bit-packed run counting its whole values, a
// malformed header ending the count.
TEST(RleBitPackedTest, CountsTheValuesItsRunsHold) {
  // 300 repeats (RLE), then the spec's bit-packed group of 8 at width 3.
  const std::string data = Bytes({0xD8, 0x04, 0x05, 0x03, 0x88, 0xC6, 0xFA});
  EXPECT_EQ(RleBitPackedDecoder::CountValues(data, 3, 1000), 308);
  EXPECT_EQ(RleBitPackedDecoder::CountValues(data, 3, 10), 300);
  EXPECT_EQ(RleBitPackedDecoder::CountValues("", 3, 10), 0);
  // A bit-packed run declaring 2^20 groups over 3 bytes: 8 whole values at width 3.
  EXPECT_EQ(RleBitPackedDecoder::CountValues(Bytes({0x81, 0x80, 0x80, 0x01, 0x88, 0xC6, 0xFA}), 3,
                                             int64_t{1} << 40),
            8);
  // An RLE run without its value, and a header whose varint never ends.
  EXPECT_EQ(RleBitPackedDecoder::CountValues(Bytes({0x10}), 3, 100), 0);
  EXPECT_EQ(RleBitPackedDecoder::CountValues(Bytes({0x10, 0x05, 0xFF, 0xFF}), 3, 100), 8);
  // Width 0: runs hold values without bytes.
  EXPECT_EQ(RleBitPackedDecoder::CountValues(Bytes({0x03, 0x10}), 0, 100), 16);
}

TEST(RleBitPackedTest, EncodesRepeatsAsRleRuns) {
  EXPECT_EQ(Encode(3, std::vector<int32_t>(8, 5)), Bytes({0x10, 0x05}));
  // 300 repeats: header uleb128(600) = 0xD8 0x04; a 9-bit value takes 2 bytes.
  EXPECT_EQ(Encode(9, std::vector<int32_t>(300, 0x1AB)), Bytes({0xD8, 0x04, 0xAB, 0x01}));
  // Three literals, then ten repeats: five repeats complete the group, the rest is too short for
  // an RLE run, so everything is bit-packed in two groups.
  std::vector<int32_t> values = {1, 2, 3};
  values.resize(13, 1);
  const std::string mixed = Encode(2, values);
  EXPECT_EQ(static_cast<uint8_t>(mixed[0]), (2 << 1) | 1);
  // With 20 repeats, 5 lend to the literal group and 15 form an RLE run.
  values.resize(23, 1);
  EXPECT_EQ(Encode(2, values), Bytes({0x03, 0x79, 0x55, 0x1E, 0x01}));
}

TEST(RleBitPackedTest, RoundTripsRandomDataInRandomBatches) {
  std::mt19937 rng(7);
  for (int width = 0; width <= 32; ++width) {
    const auto values = RandomLevels(width, 5000, static_cast<uint32_t>(width));
    const std::string encoded = Encode(width, values);
    ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(encoded, width));
    std::vector<int32_t> decoded(values.size());
    size_t done = 0;
    while (done < values.size()) {
      const size_t n = std::min<size_t>(values.size() - done, 1 + rng() % 70);
      ASSERT_OK(decoder.GetBatch(decoded.data() + done, static_cast<int64_t>(n)));
      done += n;
    }
    EXPECT_EQ(decoded, values) << "width " << width;
  }
}

TEST(RleBitPackedTest, AppendingWithoutAnEncoderGivesTheEncodersBytes) {
  for (int bit_width : {1, 2, 5, 13}) {
    const std::vector<int32_t> values = RandomLevels(bit_width, 3001, 7 + bit_width);
    std::string appended = "prefix";
    AppendRleBitPacked(values, bit_width, &appended);
    EXPECT_EQ(appended, "prefix" + Encode(bit_width, values)) << bit_width;
    if (bit_width <= 13) {
      const std::vector<int16_t> levels(values.begin(), values.end());
      std::string from_levels;
      AppendRleBitPacked(levels, bit_width, &from_levels);
      EXPECT_EQ(from_levels, Encode(bit_width, values)) << bit_width;
    }
  }
}

TEST(RleBitPackedTest, RepeatIsOneRunFromEightValuesAndAPaddedGroupBelow) {
  for (int bit_width : {1, 3, 9}) {
    for (int64_t count : {0, 1, 5, 7, 8, 9, 100, 70000}) {
      const auto value = static_cast<int32_t>((1 << bit_width) - 1);
      std::string repeated;
      AppendRleBitPackedRepeat(static_cast<uint32_t>(value), count, bit_width, &repeated);
      EXPECT_EQ(repeated,
                Encode(bit_width, std::vector<int32_t>(static_cast<size_t>(count), value)))
          << bit_width << " " << count;
    }
  }
  // 8 repeats of 1 at bit width 1: header 8 << 1 = 16, then the value in one byte.
  std::string run;
  AppendRleBitPackedRepeat(1, 8, 1, &run);
  EXPECT_EQ(run, Bytes({16, 1}));
}

TEST(RleBitPackedTest, DecodesIntoLevelsAndBytes) {
  const auto values = RandomLevels(3, 1000, 99);
  const std::string encoded = Encode(3, values);
  ASSERT_OK_AND_ASSIGN(auto levels, RleBitPackedDecoder::Make(encoded, 3));
  std::vector<int16_t> level_out(values.size());
  ASSERT_OK(levels.GetBatch(level_out.data(), static_cast<int64_t>(values.size())));
  ASSERT_OK_AND_ASSIGN(auto bytes, RleBitPackedDecoder::Make(encoded, 3));
  std::vector<uint8_t> byte_out(values.size());
  ASSERT_OK(bytes.GetBatch(byte_out.data(), static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(level_out[i], values[i]) << i;
    ASSERT_EQ(byte_out[i], values[i]) << i;
  }
  ASSERT_OK_AND_ASSIGN(auto wide, RleBitPackedDecoder::Make(encoded, 20));
  ASSERT_RAISES(InvalidArgument, wide.GetBatch(level_out.data(), 1));
}

TEST(RleBitPackedTest, SkipsAcrossRunsAndGroups) {
  const auto values = RandomLevels(5, 3000, 5);
  const std::string encoded = Encode(5, values);
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(encoded, 5));
  std::mt19937 rng(3);
  size_t pos = 0;
  while (pos < values.size()) {
    const size_t skip = std::min<size_t>(values.size() - pos, rng() % 30);
    ASSERT_OK(decoder.Skip(static_cast<int64_t>(skip)));
    pos += skip;
    const size_t n = std::min<size_t>(values.size() - pos, 1 + rng() % 20);
    std::vector<int32_t> out(n);
    ASSERT_OK(decoder.GetBatch(out.data(), static_cast<int64_t>(n)));
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], values[pos + i]) << pos + i;
    }
    pos += n;
  }
}

TEST(RleBitPackedTest, BooleansUseBitWidthOne) {
  std::vector<int32_t> bits;
  bits.reserve(777);
  std::mt19937 rng(1);
  for (int i = 0; i < 777; ++i) {
    bits.push_back(i % 100 < 50 ? 1 : static_cast<int32_t>(rng() & 1));
  }
  const std::string encoded = Encode(1, bits);
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(encoded, 1));
  std::vector<uint8_t> out(bits.size());
  ASSERT_OK(decoder.GetBatch(out.data(), static_cast<int64_t>(out.size())));
  EXPECT_EQ(std::vector<int32_t>(out.begin(), out.end()), bits);
}

TEST(RleBitPackedTest, ToleratesCutPaddingButNotMissingValues) {
  // One group declared with width 8 but only 5 of its 8 bytes present.
  const std::string data = Bytes({0x03, 10, 11, 12, 13, 14});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 8));
  std::vector<int32_t> out(5);
  ASSERT_OK(decoder.GetBatch(out.data(), 5));
  EXPECT_EQ(out, (std::vector<int32_t>{10, 11, 12, 13, 14}));
  Status st = decoder.GetBatch(out.data(), 1);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "bit-packed run at byte offset 0 declares 8 values");
}

TEST(RleBitPackedTest, RejectsReadingPastTheData) {
  const std::string data = Bytes({0x10, 0x05});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 3));
  std::vector<int32_t> out(9);
  Status st = decoder.GetBatch(out.data(), 9);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "byte offset 2");
}

TEST(RleBitPackedTest, RejectsTruncatedRunHeader) {
  const std::string data = Bytes({0x10, 0x05, 0x80});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 3));
  std::vector<int32_t> out(9);
  Status st = decoder.GetBatch(out.data(), 9);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "byte offset 2");
}

TEST(RleBitPackedTest, RejectsRleRunWithoutItsValue) {
  // A 9-bit value needs 2 bytes; only one follows the header.
  const std::string data = Bytes({0x10, 0x01});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 9));
  int32_t out[8];
  Status st = decoder.GetBatch(out, 8);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "RLE run at byte offset 0 is missing its 2-byte value");
}

TEST(RleBitPackedTest, RejectsRleValueWiderThanTheBitWidth) {
  const std::string data = Bytes({0x10, 0x09});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 3));
  int32_t out[8];
  Status st = decoder.GetBatch(out, 8);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "byte offset 0");
}

TEST(RleBitPackedTest, RejectsBitWidthAbove32) {
  ASSERT_RAISES(Corruption, RleBitPackedDecoder::Make("", 33));
  ASSERT_RAISES(Corruption, RleBitPackedDecoder::Make("", -1));
  ASSERT_OK(RleBitPackedDecoder::Make("", 32));
}

TEST(RleBitPackedTest, RejectsRunHeaderAbove32Bits) {
  std::string data;
  AppendUleb128(uint64_t{1} << 40, &data);
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 1));
  int32_t out = 0;
  Status st = decoder.GetBatch(&out, 1);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "byte offset 0");
}

TEST(RleBitPackedTest, AbsurdRunCountsAllocateNothingAndFailAtTheEnd) {
  // A bit-packed run claiming 2^31 - 1 groups over 4 bytes of 4-bit values: 8 values exist.
  std::string data;
  AppendUleb128((uint64_t{0x7FFFFFFF} << 1) | 1, &data);
  data += Bytes({0x21, 0x43, 0x65, 0x87});
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(data, 4));
  std::vector<int32_t> out(9);
  ASSERT_OK(decoder.GetBatch(out.data(), 8));
  EXPECT_EQ(out[7], 8);
  ASSERT_RAISES(Corruption, decoder.GetBatch(out.data(), 1));
  // A huge RLE run is valid and costs only what is read.
  std::string rle;
  AppendUleb128(uint64_t{0x7FFFFFFF} << 1, &rle);
  rle.push_back(1);
  ASSERT_OK_AND_ASSIGN(auto repeats, RleBitPackedDecoder::Make(rle, 1));
  ASSERT_OK(repeats.Skip(0x7FFFFFFF - 3));
  ASSERT_OK(repeats.GetBatch(out.data(), 3));
  EXPECT_EQ(out[2], 1);
  ASSERT_RAISES(Corruption, repeats.GetBatch(out.data(), 1));
}

TEST(RleBitPackedTest, ZeroBitWidthDecodesZeros) {
  std::vector<int32_t> zeros(100, 0);
  const std::string encoded = Encode(0, zeros);
  ASSERT_OK_AND_ASSIGN(auto decoder, RleBitPackedDecoder::Make(encoded, 0));
  std::vector<int32_t> out(100, 7);
  ASSERT_OK(decoder.GetBatch(out.data(), 100));
  EXPECT_EQ(out, zeros);
}

TEST(LengthPrefixedRleTest, SplitsThePrefix) {
  const std::string page = Bytes({2, 0, 0, 0, 0x10, 0x05, 0xEE});
  ASSERT_OK_AND_ASSIGN(auto data, LengthPrefixedRleData(page));
  EXPECT_EQ(data, Bytes({0x10, 0x05}));
  Status short_prefix = LengthPrefixedRleData(Bytes({2, 0, 0})).status();
  ASSERT_RAISES(Corruption, short_prefix);
  ExpectMessageHas(short_prefix, "byte offset 0");
  Status too_long = LengthPrefixedRleData(Bytes({9, 0, 0, 0, 1, 2})).status();
  ASSERT_RAISES(Corruption, too_long);
  ExpectMessageHas(too_long, "declares 9 bytes but only 2 follow");
}

TEST(LegacyBitPackedTest, DecodesTheSpecExample) {
  // Encodings.md: 0..7 with bit width 3 pack MSB first to 00000101 00111001 01110111.
  std::vector<int16_t> out(8);
  ASSERT_OK(DecodeLegacyBitPacked(Bytes({0x05, 0x39, 0x77}), 3, 8, out.data()));
  EXPECT_EQ(out, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(LegacyBitPackedSize(2, 30), 8);
  ASSERT_RAISES(Corruption, DecodeLegacyBitPacked(Bytes({0x05, 0x39}), 3, 8, out.data()));
  ASSERT_RAISES(Corruption, DecodeLegacyBitPacked(Bytes({0x05}), 17, 0, out.data()));
}

}  // namespace
}  // namespace tributary::parquet

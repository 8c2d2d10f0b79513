#include "formats/parquet/delta_encoding.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/parquet/encoded_bytes.h"
#include "formats/parquet/rle_encoding.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

using testing::Bytes;
using testing::ExpectMessageHas;

template <typename T>
std::vector<T> DecodeAll(std::string_view data, int64_t* consumed = nullptr) {
  auto decoder = DeltaBinaryPackedDecoder<T>::Make(data);
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  if (!decoder.ok()) {
    return {};
  }
  std::vector<T> out(static_cast<size_t>(decoder->TotalValueCount()));
  Status st = decoder->GetBatch(out.data(), static_cast<int64_t>(out.size()));
  EXPECT_TRUE(st.ok()) << st;
  if (consumed != nullptr) {
    *consumed = decoder->BytesConsumed();
  }
  return out;
}

/// A header with `block`, `miniblocks`, `count` and `first`, as the spec examples write them.
std::string Header(uint64_t block, uint64_t miniblocks, uint64_t count, int64_t first) {
  std::string out;
  AppendUleb128(block, &out);
  AppendUleb128(miniblocks, &out);
  AppendUleb128(count, &out);
  AppendUleb128(ZigZagEncode(first), &out);
  return out;
}

TEST(DeltaBinaryPackedTest, DecodesSpecExampleOne) {
  // 1, 2, 3, 4, 5: min delta 1, bit width 0, no miniblock data. The spec's block size of 8 is
  // invalid in real files, so this uses 128 in one miniblock.
  const std::string data = Header(128, 1, 5, 1) + Bytes({0x02, 0x00}) + "trailing";
  int64_t consumed = 0;
  EXPECT_EQ(DecodeAll<int32_t>(data, &consumed), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, 7);
}

TEST(DeltaBinaryPackedTest, DecodesSpecExampleTwo) {
  // 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, relative deltas 0,0,0,3,3,3,3 on 2 bits.
  std::string data = Header(128, 1, 8, 7) + Bytes({0x03, 0x02, 0xC0, 0x3F});
  data.resize(data.size() + 30, '\0');
  int64_t consumed = 0;
  EXPECT_EQ(DecodeAll<int64_t>(data + "xyz", &consumed),
            (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, static_cast<int64_t>(data.size()));
}

TEST(DeltaBinaryPackedTest, RejectsTheSpecExampleBlockSizeOfEight) {
  const std::string data = Header(8, 1, 5, 1) + Bytes({0x02, 0x00});
  Status st = DeltaBinaryPackedDecoder<int32_t>::Make(data).status();
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "block size 8 at byte offset 0");
}

TEST(DeltaBinaryPackedTest, EncodesBlocksOf128InFourMiniblocks) {
  std::string out;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{1, 2, 3, 4, 5}, &out);
  EXPECT_EQ(out, Header(128, 4, 5, 1) + Bytes({0x02, 0, 0, 0, 0}));
  std::string one;
  EncodeDeltaBinaryPacked(std::vector<int64_t>{-9}, &one);
  EXPECT_EQ(one, Header(128, 4, 1, -9));
  EXPECT_EQ(DecodeAll<int64_t>(one), (std::vector<int64_t>{-9}));
  std::string none;
  EncodeDeltaBinaryPacked(std::vector<int64_t>{}, &none);
  EXPECT_TRUE(DecodeAll<int64_t>(none).empty());
}

template <typename T>
std::vector<T> RandomValues(size_t count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values;
  T current = 0;
  for (size_t i = 0; i < count; ++i) {
    switch (rng() % 4) {
      case 0:  // extremes make deltas wrap
        current = rng() % 2 == 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
        break;
      case 1:
        current = static_cast<T>(rng());
        break;
      default:
        // Wrapping steps, computed unsigned to stay defined.
        current = static_cast<T>(static_cast<std::make_unsigned_t<T>>(current) + rng() % 100 - 50);
        break;
    }
    values.push_back(current);
  }
  return values;
}

template <typename T>
class DeltaBinaryPackedRoundTrip : public ::testing::Test {};
using ValueTypes = ::testing::Types<int32_t, int64_t>;
TYPED_TEST_SUITE(DeltaBinaryPackedRoundTrip, ValueTypes);

TYPED_TEST(DeltaBinaryPackedRoundTrip, RoundTripsRandomValuesInRandomBatches) {
  std::mt19937 rng(17);
  for (size_t count :
       {size_t{2}, size_t{31}, size_t{128}, size_t{129}, size_t{1000}, size_t{4097}}) {
    const auto values = RandomValues<TypeParam>(count, static_cast<uint32_t>(count));
    std::string encoded;
    EncodeDeltaBinaryPacked(values, &encoded);
    const auto encoded_size = static_cast<int64_t>(encoded.size());
    encoded += "next stream";
    ASSERT_OK_AND_ASSIGN(auto decoder, DeltaBinaryPackedDecoder<TypeParam>::Make(encoded));
    ASSERT_EQ(decoder.TotalValueCount(), static_cast<int64_t>(count));
    std::vector<TypeParam> decoded(count);
    size_t done = 0;
    while (done < count) {
      const size_t n = std::min<size_t>(count - done, rng() % 50);
      if (rng() % 5 == 0) {
        ASSERT_OK(decoder.Skip(static_cast<int64_t>(n)));
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(done), n,
                    decoded.begin() + static_cast<std::ptrdiff_t>(done));
      } else {
        ASSERT_OK(decoder.GetBatch(decoded.data() + done, static_cast<int64_t>(n)));
      }
      done += n;
    }
    EXPECT_EQ(decoded, values) << count;
    EXPECT_EQ(decoder.ValuesRemaining(), 0);
    EXPECT_EQ(decoder.BytesConsumed(), encoded_size);
    TypeParam extra;
    ASSERT_RAISES(Corruption, decoder.GetBatch(&extra, 1));
  }
}

TYPED_TEST(DeltaBinaryPackedRoundTrip, UsesFullWidthForExtremeDeltas) {
  const std::vector<TypeParam> values = {std::numeric_limits<TypeParam>::min(),
                                         std::numeric_limits<TypeParam>::max(),
                                         std::numeric_limits<TypeParam>::min(), 0, -1};
  std::string encoded;
  EncodeDeltaBinaryPacked(values, &encoded);
  EXPECT_EQ(DecodeAll<TypeParam>(encoded), values);
}

TEST(DeltaBinaryPackedTest, RejectsEveryTruncatedHeader) {
  const std::string header = Header(128, 4, 100, -5);
  for (size_t n = 0; n < header.size(); ++n) {
    Status st = DeltaBinaryPackedDecoder<int32_t>::Make(header.substr(0, n)).status();
    ASSERT_RAISES(Corruption, st);
    ExpectMessageHas(st, "byte offset");
  }
}

TEST(DeltaBinaryPackedTest, RejectsMalformedHeaders) {
  Status miniblocks = DeltaBinaryPackedDecoder<int32_t>::Make(Header(128, 3, 5, 0)).status();
  ASSERT_RAISES(Corruption, miniblocks);
  ExpectMessageHas(miniblocks, "miniblock count 3 at byte offset 2");
  ASSERT_RAISES(Corruption, DeltaBinaryPackedDecoder<int32_t>::Make(Header(128, 0, 5, 0)));
  ASSERT_RAISES(Corruption, DeltaBinaryPackedDecoder<int32_t>::Make(Header(128, 8, 5, 0)));
  ASSERT_RAISES(Corruption, DeltaBinaryPackedDecoder<int32_t>::Make(Header(0, 1, 5, 0)));
  ASSERT_RAISES(Corruption,
                DeltaBinaryPackedDecoder<int32_t>::Make(Header(uint64_t{1} << 40, 1, 5, 0)));
  Status count =
      DeltaBinaryPackedDecoder<int64_t>::Make(Header(128, 4, uint64_t{1} << 40, 0)).status();
  ASSERT_RAISES(Corruption, count);
  ExpectMessageHas(count, "value count 1099511627776 at byte offset 3");
}

TEST(DeltaBinaryPackedTest, RejectsBitWidthsAboveTheType) {
  // INT32 takes 33 bits (PARQUET-2435), not 34.
  const std::string int32_data = Header(128, 1, 3, 0) + Bytes({0x00, 34}) + std::string(600, '\0');
  ASSERT_OK_AND_ASSIGN(auto decoder32, DeltaBinaryPackedDecoder<int32_t>::Make(int32_data));
  int32_t out32[3];
  Status st = decoder32.GetBatch(out32, 3);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "block at byte offset 5 has bit width 34 above 33");

  const std::string int64_data = Header(128, 1, 3, 0) + Bytes({0x00, 65}) + std::string(2000, '\0');
  ASSERT_OK_AND_ASSIGN(auto decoder64, DeltaBinaryPackedDecoder<int64_t>::Make(int64_data));
  int64_t out64[3];
  ASSERT_RAISES(Corruption, decoder64.GetBatch(out64, 3));
  // 34 bits is fine for INT64.
  ASSERT_OK_AND_ASSIGN(auto wide, DeltaBinaryPackedDecoder<int64_t>::Make(int32_data));
  ASSERT_OK(wide.GetBatch(out64, 3));
}

// INT32 values alternating between INT32_MIN and INT32_MAX, as DuckDB writes them: deltas taken
// in 64 bits are +-(2^32 - 1), so min delta is -(2^32 - 1) and the packed deltas 0 and 2^33 - 2
// need 33 bits. Decoded modulo 2^32, as PARQUET-2435 asks, they are the values again; read in
// batches that start and end inside groups of 8.
TEST(DeltaBinaryPackedTest, DecodesInt32MiniblocksThirtyThreeBitsWide) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int kValues = 41;  // 40 deltas: two miniblocks of 32, the second partly used
  std::vector<int32_t> expected;
  expected.reserve(kValues);
  std::vector<uint64_t> packed;
  for (int i = 0; i < kValues; ++i) {
    expected.push_back(static_cast<int32_t>(i % 2 == 0 ? kMin : kMax));
  }
  const int64_t min_delta = kMin - kMax;
  for (int i = 1; i < kValues; ++i) {
    packed.push_back(static_cast<uint64_t>(int64_t{expected[i]} - expected[i - 1] - min_delta));
  }
  packed.resize(64, 0);
  std::string data = Header(128, 4, kValues, kMin);
  AppendUleb128(ZigZagEncode(min_delta), &data);
  data += Bytes({33, 33, 0, 0});
  PackBits(packed, 33, &data);
  EXPECT_EQ(DecodeAll<int32_t>(data), expected);

  ASSERT_OK_AND_ASSIGN(auto decoder, DeltaBinaryPackedDecoder<int32_t>::Make(data));
  std::vector<int32_t> batched(kValues);
  int64_t done = 0;
  for (const int64_t batch : {3, 7, 1, 12, 18}) {
    ASSERT_OK(decoder.GetBatch(batched.data() + done, batch));
    done += batch;
  }
  EXPECT_EQ(batched, expected);
}

TEST(DeltaBinaryPackedTest, RejectsTruncatedBlocks) {
  // Bit widths missing: 4 miniblocks declared, data ends after 2 width bytes.
  const std::string missing_widths = Header(128, 4, 10, 0) + Bytes({0x00, 1, 1});
  ASSERT_OK_AND_ASSIGN(auto a, DeltaBinaryPackedDecoder<int32_t>::Make(missing_widths));
  int32_t out[10];
  Status widths = a.GetBatch(out, 10);
  ASSERT_RAISES(Corruption, widths);
  ExpectMessageHas(widths, "block at byte offset 5 lacks its 4 miniblock bit widths");

  // A miniblock of 32 values at 3 bits needs 12 bytes; 11 are present.
  const std::string short_body =
      Header(128, 4, 10, 0) + Bytes({0x00, 3, 0, 0, 0}) + std::string(11, '\0');
  ASSERT_OK_AND_ASSIGN(auto b, DeltaBinaryPackedDecoder<int32_t>::Make(short_body));
  Status body = b.GetBatch(out, 10);
  ASSERT_RAISES(Corruption, body);
  ExpectMessageHas(body, "miniblock at byte offset 10 needs 12 bytes but the data ends at byte 21");

  // Missing block entirely.
  const std::string header_only = Header(128, 4, 10, 0);
  ASSERT_OK_AND_ASSIGN(auto c, DeltaBinaryPackedDecoder<int32_t>::Make(header_only));
  ASSERT_OK(c.GetBatch(out, 1));
  Status block = c.GetBatch(out, 1);
  ASSERT_RAISES(Corruption, block);
  ExpectMessageHas(block, "byte offset 5");
}

TEST(DeltaBinaryPackedTest, AbsurdCountWithZeroWidthsAllocatesNothing) {
  // 2^31 - 1 values of a constant stream fit in a few bytes; the caller bounds its buffers with
  // TotalValueCount(), and the decoder itself holds no per-value memory.
  std::string data = Header(1 << 20, 1, 0x7FFFFFFF, 5);
  for (int block = 0; block < 3000; ++block) {
    data += Bytes({0x00, 0x00});
  }
  ASSERT_OK_AND_ASSIGN(auto decoder, DeltaBinaryPackedDecoder<int32_t>::Make(data));
  EXPECT_EQ(decoder.TotalValueCount(), 0x7FFFFFFF);
  std::vector<int32_t> out(1000);
  ASSERT_OK(decoder.GetBatch(out.data(), 1000));
  EXPECT_EQ(out[999], 5);
}

TEST(DeltaLengthByteArrayTest, RoundTripsTheSpecExample) {
  const std::vector<std::string_view> values = {"Hello", "World", "Foobar", "ABCDEF"};
  std::string encoded;
  EncodeDeltaLengthByteArray(values, &encoded);
  std::string lengths;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{5, 5, 6, 6}, &lengths);
  EXPECT_EQ(encoded, lengths + "HelloWorldFoobarABCDEF");

  std::vector<int64_t> offsets;
  std::string bytes;
  int64_t consumed = 0;
  ASSERT_OK(DecodeDeltaLengthByteArray(encoded + "tail", 4, &offsets, &bytes, &consumed));
  EXPECT_EQ(bytes, "HelloWorldFoobarABCDEF");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 5, 10, 16, 22}));
  EXPECT_EQ(consumed, static_cast<int64_t>(encoded.size()));

  // Appends continue from existing output.
  ASSERT_OK(DecodeDeltaLengthByteArray(encoded, 4, &offsets, &bytes));
  EXPECT_EQ(offsets.size(), 9u);
  EXPECT_EQ(offsets.back(), 44);
  EXPECT_EQ(bytes.substr(22), "HelloWorldFoobarABCDEF");
}

TEST(DeltaLengthByteArrayTest, RejectsCorruptLengths) {
  std::string encoded;
  EncodeDeltaLengthByteArray(std::vector<std::string_view>{"abc", "de"}, &encoded);
  std::vector<int64_t> offsets;
  std::string bytes;
  Status count = DecodeDeltaLengthByteArray(encoded, 3, &offsets, &bytes);
  ASSERT_RAISES(Corruption, count);
  ExpectMessageHas(count, "declare 2 values but 3 are expected");
  Status truncated =
      DecodeDeltaLengthByteArray(encoded.substr(0, encoded.size() - 1), 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, truncated);
  ExpectMessageHas(truncated, "need 5 bytes but only 4 remain");

  std::string negative;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{3, -1}, &negative);
  Status neg = DecodeDeltaLengthByteArray(negative + "abcdef", 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, neg);
  ExpectMessageHas(neg, "value 1 the negative length -1");
  EXPECT_TRUE(offsets.empty());
}

TEST(DeltaByteArrayTest, EncodesTheSpecExample) {
  const std::vector<std::string_view> values = {"axis", "axle", "babble", "babyhood"};
  std::string encoded;
  EncodeDeltaByteArray(values, &encoded);
  std::string expected;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{0, 2, 0, 3}, &expected);
  EncodeDeltaBinaryPacked(std::vector<int32_t>{4, 2, 6, 5}, &expected);
  expected += "axislebabbleyhood";
  EXPECT_EQ(encoded, expected);

  std::vector<int64_t> offsets;
  std::string bytes;
  int64_t consumed = 0;
  ASSERT_OK(DecodeDeltaByteArray(encoded + "zz", 4, &offsets, &bytes, &consumed));
  EXPECT_EQ(bytes, "axisaxlebabblebabyhood");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 4, 8, 14, 22}));
  EXPECT_EQ(consumed, static_cast<int64_t>(encoded.size()));
}

TEST(DeltaByteArrayTest, RoundTripsRandomSortedStrings) {
  std::mt19937 rng(23);
  std::vector<std::string> strings;
  for (int i = 0; i < 3000; ++i) {
    std::string s = strings.empty() || rng() % 4 == 0 ? "" : strings.back().substr(0, rng() % 12);
    const size_t extra = rng() % 10;
    for (size_t k = 0; k < extra; ++k) {
      s.push_back(static_cast<char>('a' + rng() % 26));
    }
    strings.push_back(s);
  }
  const std::vector<std::string_view> views(strings.begin(), strings.end());
  std::string encoded;
  EncodeDeltaByteArray(views, &encoded);
  std::vector<int64_t> offsets;
  std::string bytes = "prefix";
  ASSERT_OK(DecodeDeltaByteArray(encoded, static_cast<int64_t>(views.size()), &offsets, &bytes));
  ASSERT_EQ(offsets.size(), views.size() + 1);
  EXPECT_EQ(offsets[0], 6);
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_EQ(bytes.substr(static_cast<size_t>(offsets[i]),
                           static_cast<size_t>(offsets[i + 1] - offsets[i])),
              views[i])
        << i;
  }
}

TEST(DeltaByteArrayTest, RejectsPrefixLongerThanThePreviousValue) {
  std::string encoded;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{0, 5}, &encoded);
  EncodeDeltaLengthByteArray(std::vector<std::string_view>{"abc", "d"}, &encoded);
  std::vector<int64_t> offsets;
  std::string bytes;
  Status st = DecodeDeltaByteArray(encoded, 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "prefix length 5 of value 1 exceeds the 3-byte previous value");
  EXPECT_TRUE(bytes.empty());
}

TEST(DeltaByteArrayTest, RejectsCorruptSuffixesWithTheirOffset) {
  std::string encoded;
  EncodeDeltaBinaryPacked(std::vector<int32_t>{0, 1}, &encoded);
  const size_t suffix_offset = encoded.size();
  EncodeDeltaLengthByteArray(std::vector<std::string_view>{"abc"}, &encoded);
  std::vector<int64_t> offsets;
  std::string bytes;
  Status st = DecodeDeltaByteArray(encoded, 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, st);
  ExpectMessageHas(st, "suffixes starting at byte offset " + std::to_string(suffix_offset));
}

}  // namespace
}  // namespace tributary::parquet

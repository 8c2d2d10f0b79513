#include "formats/parquet/byte_stream_split.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/parquet/encoded_bytes.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

using testing::Bytes;

TEST(ByteStreamSplitTest, MatchesTheSpecExample) {
  const std::string plain =
      Bytes({0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6});
  const std::string split =
      Bytes({0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6});
  std::string encoded;
  EncodeByteStreamSplit({reinterpret_cast<const uint8_t*>(plain.data()), plain.size()}, 4,
                        &encoded);
  EXPECT_EQ(encoded, split);
  std::vector<uint8_t> decoded(12);
  ASSERT_OK(DecodeByteStreamSplit(split, 4, 3, decoded.data()));
  EXPECT_EQ(std::string(decoded.begin(), decoded.end()), plain);
}

class ByteStreamSplitWidthTest : public ::testing::TestWithParam<int> {};

TEST_P(ByteStreamSplitWidthTest, RoundTripsRandomValues) {
  const int width = GetParam();
  std::mt19937 rng(static_cast<uint32_t>(width));
  for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{1001}}) {
    std::vector<uint8_t> values(count * static_cast<size_t>(width));
    for (uint8_t& b : values) {
      b = static_cast<uint8_t>(rng());
    }
    std::string encoded;
    EncodeByteStreamSplit(values, width, &encoded);
    ASSERT_EQ(encoded.size(), values.size());
    std::vector<uint8_t> decoded(values.size());
    ASSERT_OK(DecodeByteStreamSplit(encoded, width, static_cast<int64_t>(count), decoded.data()));
    EXPECT_EQ(decoded, values);
    if (count > 1) {
      // A prefix of the values decodes against the full page stride.
      std::vector<uint8_t> prefix(static_cast<size_t>(width));
      ASSERT_OK(DecodeByteStreamSplit(encoded, width, 1, prefix.data()));
      EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), values.begin()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, ByteStreamSplitWidthTest, ::testing::Values(1, 2, 3, 4, 8, 16));

TEST(ByteStreamSplitTest, RoundTripsDoubles) {
  const std::vector<double> values = {1.5, -0.0, 3.14159, 1e300, -2.5e-300};
  std::string encoded;
  EncodeByteStreamSplit({reinterpret_cast<const uint8_t*>(values.data()), values.size() * 8}, 8,
                        &encoded);
  std::vector<double> decoded(values.size());
  ASSERT_OK(DecodeByteStreamSplit(encoded, 8, 5, reinterpret_cast<uint8_t*>(decoded.data())));
  EXPECT_EQ(std::memcmp(decoded.data(), values.data(), values.size() * 8), 0);
}

TEST(ByteStreamSplitTest, RejectsPartialValuesAndTooManyValues) {
  std::vector<uint8_t> out(64);
  Status partial = DecodeByteStreamSplit(std::string(10, 'x'), 4, 2, out.data());
  ASSERT_RAISES(Corruption, partial);
  EXPECT_NE(partial.Message().find("byte offset 8"), std::string::npos) << partial;
  Status many = DecodeByteStreamSplit(std::string(8, 'x'), 4, 3, out.data());
  ASSERT_RAISES(Corruption, many);
  EXPECT_NE(many.Message().find("holds 2 values"), std::string::npos) << many;
  ASSERT_RAISES(InvalidArgument, DecodeByteStreamSplit("", 0, 0, out.data()));
}

}  // namespace
}  // namespace tributary::parquet

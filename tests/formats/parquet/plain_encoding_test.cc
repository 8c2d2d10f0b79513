#include "formats/parquet/plain_encoding.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

TEST(PlainByteArrayTest, RoundTripsAndReportsConsumedBytes) {
  const std::vector<std::string_view> values = {"", "a", "hello", std::string_view("\0\1", 2)};
  std::string encoded;
  EncodePlainByteArray(values, &encoded);
  EXPECT_EQ(encoded.substr(0, 9), std::string("\0\0\0\0\1\0\0\0a", 9));
  std::vector<int64_t> offsets;
  std::string bytes;
  int64_t consumed = 0;
  ASSERT_OK(DecodePlainByteArray(encoded + "junk", 4, &offsets, &bytes, &consumed));
  EXPECT_EQ(consumed, static_cast<int64_t>(encoded.size()));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 0, 1, 6, 8}));
  EXPECT_EQ(bytes, std::string("ahello\0\1", 8));
}

TEST(PlainByteArrayTest, RejectsTruncationWithTheOffset) {
  std::string encoded;
  EncodePlainByteArray(std::vector<std::string_view>{"abc", "defg"}, &encoded);
  std::vector<int64_t> offsets;
  std::string bytes;
  Status length = DecodePlainByteArray(encoded.substr(0, 9), 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, length);
  EXPECT_NE(length.Message().find("truncated length at byte offset 7"), std::string::npos)
      << length;
  Status value = DecodePlainByteArray(encoded.substr(0, 14), 2, &offsets, &bytes);
  ASSERT_RAISES(Corruption, value);
  EXPECT_NE(value.Message().find("value 1 at byte offset 7 declares 4 bytes but only 3 remain"),
            std::string::npos)
      << value;
  EXPECT_TRUE(offsets.empty());
  EXPECT_TRUE(bytes.empty());
  Status absurd = DecodePlainByteArray(std::string("\xFF\xFF\xFF\x7F", 4), 1, &offsets, &bytes);
  ASSERT_RAISES(Corruption, absurd);
}

TEST(PlainBooleanTest, RoundTripsFromAnyBitOffset) {
  std::mt19937 rng(5);
  std::vector<uint8_t> values(1000);
  for (uint8_t& v : values) {
    v = rng() & 1;
  }
  std::string encoded;
  EncodePlainBoolean(values, &encoded);
  ASSERT_EQ(encoded.size(), 125u);
  std::vector<uint8_t> out(values.size());
  ASSERT_OK(DecodePlainBoolean(encoded, 0, 3, out.data()));
  ASSERT_OK(DecodePlainBoolean(encoded, 3, 997, out.data() + 3));
  EXPECT_EQ(out, values);
  ASSERT_RAISES(Corruption, DecodePlainBoolean(encoded, 999, 2, out.data()));
  ASSERT_RAISES(Corruption, DecodePlainBoolean(encoded, -1, 1, out.data()));
}

}  // namespace
}  // namespace tributary::parquet

// CopyShortBytes copies exactly n bytes for every length around its fixed-width cases
// (1-3, 4-7, 8-16, longer), from and to every alignment, touching nothing outside.

#include "common/short_copy.h"

#include <array>
#include <cstdint>

#include <gtest/gtest.h>

namespace tributary {
namespace {

TEST(ShortCopyTest, CopiesExactlyTheBytesAskedForAtEveryLengthAndOffset) {
  std::array<uint8_t, 64> source{};
  for (size_t i = 0; i < source.size(); ++i) {
    source[i] = static_cast<uint8_t>(i + 1);
  }
  for (size_t n = 0; n <= 40; ++n) {
    for (size_t offset = 0; offset < 8; ++offset) {
      std::array<uint8_t, 64> target{};
      target.fill(0xEE);
      CopyShortBytes(target.data() + offset, source.data() + offset + 3, n);
      for (size_t i = 0; i < target.size(); ++i) {
        const bool inside = i >= offset && i < offset + n;
        const uint8_t expected = inside ? source[i + 3] : uint8_t{0xEE};
        ASSERT_EQ(target[i], expected) << "n " << n << " offset " << offset << " byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tributary

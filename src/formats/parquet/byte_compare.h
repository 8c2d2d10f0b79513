// Comparisons of short byte strings by 8-byte words, for the writer's hot loops: the dictionary
// compares every value it looks up, the statistics every value of a PLAIN page.

#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tributary::parquet {

/// The 8 bytes at `at`, in the machine's order.
inline uint64_t Load64(const char* at) {
  uint64_t word;
  std::memcpy(&word, at, 8);
  return word;
}

/// The first 8 bytes of `v` as a big-endian number, so that comparing two such prefixes orders
/// the strings as their first 8 bytes do; `v` must hold at least 8 bytes.
inline uint64_t BigEndianPrefix(std::string_view v) {
  return __builtin_bswap64(Load64(v.data()));
}

/// a < b in unsigned bytewise order (BYTE_ARRAY's TYPE_ORDER). Strings that differ in their
/// first 8 bytes are decided without a call to memcmp.
inline bool BytesLess(std::string_view a, std::string_view b) {
  if (a.size() >= 8 && b.size() >= 8) {
    const uint64_t pa = BigEndianPrefix(a);
    const uint64_t pb = BigEndianPrefix(b);
    if (pa != pb) {
      return pa < pb;
    }
  }
  return a < b;
}

/// a == b, comparing short strings (dictionary values mostly are) by words instead of calling
/// memcmp.
inline bool BytesEqual(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      if (Load64(a.data() + i) != Load64(b.data() + i)) {
        return false;
      }
    }
    // The last (possibly overlapping) word covers the rest.
    return Load64(a.data() + n - 8) == Load64(b.data() + n - 8);
  }
  if (n >= 4 && n < 8) {
    uint32_t a0;
    uint32_t a1;
    uint32_t b0;
    uint32_t b1;
    std::memcpy(&a0, a.data(), 4);
    std::memcpy(&a1, a.data() + n - 4, 4);
    std::memcpy(&b0, b.data(), 4);
    std::memcpy(&b1, b.data() + n - 4, 4);
    return a0 == b0 && a1 == b1;
  }
  // 0 to 3 bytes: positions 0, n / 2 and n - 1 cover them all.
  return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

}  // namespace tributary::parquet

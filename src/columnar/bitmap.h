// Validity bitmaps: bit i of byte i/8 (least significant bit first, as Arrow) is 1 when row i
// holds a value. A null bitmap pointer means "every row is valid".

#pragma once

#include <cstdint>

namespace tributary::columnar {

inline bool GetBit(const uint8_t* bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool value) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) |
                                      (static_cast<unsigned>(value) << (i & 7)));
}

/// Bytes needed for a bitmap of `length` bits.
inline int64_t BitmapBytes(int64_t length) {
  return (length + 7) / 8;
}

/// Number of set bits among the first `length` bits.
int64_t CountSetBits(const uint8_t* bits, int64_t length);

/// out[i] = a[i] & b[i] over `length` bits, a byte at a time; `out` may alias `a` or `b`.
void BitmapAnd(const uint8_t* a, const uint8_t* b, int64_t length, uint8_t* out);

/// Sets the first `length` bits to `value`.
void FillBitmap(uint8_t* bits, int64_t length, bool value);

}  // namespace tributary::columnar

#include "columnar/bitmap.h"

#include <bit>
#include <cstring>

namespace tributary::columnar {

int64_t CountSetBits(const uint8_t* bits, int64_t length) {
  int64_t count = 0;
  const int64_t whole_words = length / 64;
  for (int64_t w = 0; w < whole_words; ++w) {
    uint64_t word;
    std::memcpy(&word, bits + w * 8, sizeof(word));
    count += std::popcount(word);
  }
  for (int64_t i = whole_words * 64; i < length; ++i) {
    count += GetBit(bits, i);
  }
  return count;
}

void BitmapAnd(const uint8_t* a, const uint8_t* b, int64_t length, uint8_t* out) {
  const int64_t bytes = BitmapBytes(length);
  for (int64_t i = 0; i < bytes; ++i) {
    out[i] = a[i] & b[i];
  }
}

void FillBitmap(uint8_t* bits, int64_t length, bool value) {
  const int64_t whole_bytes = length / 8;
  std::memset(bits, value ? 0xFF : 0x00, static_cast<size_t>(whole_bytes));
  for (int64_t i = whole_bytes * 8; i < length; ++i) {
    SetBitTo(bits, i, value);
  }
}

}  // namespace tributary::columnar

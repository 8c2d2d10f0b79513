// CopyShortBytes: memcpy for the short, variable-length values of columnar kernels (string
// keys, dictionary entries), without a library call for the common case.
//
// A std::memcpy whose length is only known at run time is a call into libc, whose dispatch
// costs more than the copy itself when the value is a country code or a status word. Values of
// up to 16 bytes are copied here with two possibly overlapping loads and stores of a fixed
// width, which the compiler turns into plain moves; longer ones still go to memcpy. The copy is
// exact: no byte outside [dst, dst + n) is written and none outside [src, src + n) is read, so
// callers need no padding.

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tributary {

inline void CopyShortBytes(void* dst, const void* src, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  if (n >= 8) {
    if (n > 16) {
      std::memcpy(out, in, n);
      return;
    }
    uint64_t head;
    uint64_t tail;
    std::memcpy(&head, in, 8);
    std::memcpy(&tail, in + n - 8, 8);
    std::memcpy(out, &head, 8);
    std::memcpy(out + n - 8, &tail, 8);
  } else if (n >= 4) {
    uint32_t head;
    uint32_t tail;
    std::memcpy(&head, in, 4);
    std::memcpy(&tail, in + n - 4, 4);
    std::memcpy(out, &head, 4);
    std::memcpy(out + n - 4, &tail, 4);
  } else if (n > 0) {
    // 1 to 3 bytes: positions 0, n / 2 and n - 1 cover them all.
    const uint8_t first = in[0];
    const uint8_t middle = in[n / 2];
    const uint8_t last = in[n - 1];
    out[0] = first;
    out[n / 2] = middle;
    out[n - 1] = last;
  }
}

}  // namespace tributary

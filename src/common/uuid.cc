#include "common/uuid.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>

namespace tributary {

std::string NewUuid() {
  // Seeded per thread and again in a child after fork(): a child inherits its parent's generator
  // state, and two processes drawing the same "unique" data file names collide.
  static thread_local std::mt19937_64 rng;
  static thread_local pid_t seeded_for = -1;
  if (seeded_for != getpid()) {
    seeded_for = getpid();
    std::random_device device;
    rng.seed((uint64_t{device()} << 32) ^ device() ^ (static_cast<uint64_t>(seeded_for) << 16));
  }
  uint8_t bytes[16];
  for (int i = 0; i < 16; i += 8) {
    const uint64_t r = rng();
    std::memcpy(bytes + i, &r, 8);
  }
  bytes[6] = (bytes[6] & 0x0F) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3F) | 0x80;  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out.push_back('-');
    }
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

}  // namespace tributary

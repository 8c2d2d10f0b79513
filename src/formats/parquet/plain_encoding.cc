// PLAIN (parquet-format Encodings.md, "Plain: (PLAIN = 0)"):
//
//   byte-array-page := (length bytes)*     length: 4 bytes little endian (unsigned)
//   boolean-page    := values bit-packed one bit each, LSB first, last byte padded with zeros

#include "formats/parquet/plain_encoding.h"

#include <cstring>

#include <fmt/format.h>

#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

Status DecodePlainByteArray(std::string_view data, int64_t num_values,
                            std::vector<int64_t>* offsets, std::string* bytes,
                            int64_t* bytes_consumed) {
  // First pass validates every length and sizes the output; the second copies without checks.
  const auto size = static_cast<int64_t>(data.size());
  int64_t pos = 0;
  int64_t total = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    if (size - pos < 4) {
      return Status::Corruption(fmt::format(
          "PLAIN BYTE_ARRAY value {} has a truncated length at byte offset {}: the data ends at "
          "byte {}",
          i, pos, size));
    }
    const auto length = static_cast<uint32_t>(LoadLe32(data.data() + pos));
    if (length > static_cast<uint64_t>(size - pos - 4)) {
      return Status::Corruption(fmt::format(
          "PLAIN BYTE_ARRAY value {} at byte offset {} declares {} bytes but only {} remain", i,
          pos, length, size - pos - 4));
    }
    pos += 4 + static_cast<int64_t>(length);
    total += length;
  }
  if (offsets->empty()) {
    offsets->push_back(static_cast<int64_t>(bytes->size()));
  }
  offsets->reserve(offsets->size() + static_cast<size_t>(num_values));
  const size_t base = bytes->size();
  bytes->resize(base + static_cast<size_t>(total));
  char* dst = bytes->data() + base;
  int64_t end = offsets->back();
  const char* src = data.data();
  for (int64_t i = 0; i < num_values; ++i) {
    const auto length = static_cast<uint32_t>(LoadLe32(src));
    std::memcpy(dst, src + 4, length);
    src += 4 + length;
    dst += length;
    end += length;
    offsets->push_back(end);
  }
  if (bytes_consumed != nullptr) {
    *bytes_consumed = pos;
  }
  return Status::OK();
}

Status DecodePlainBoolean(std::string_view data, int64_t first_value, int64_t count, uint8_t* out) {
  const auto available = static_cast<int64_t>(data.size()) * 8;
  if (first_value < 0 || count < 0 || first_value > available || count > available - first_value) {
    return Status::Corruption(fmt::format(
        "PLAIN BOOLEAN values {}..{} run past the end of the {}-byte data at byte offset {}",
        first_value, first_value + count, data.size(), data.size()));
  }
  const auto* bits = reinterpret_cast<const uint8_t*>(data.data());
  for (int64_t i = 0; i < count; ++i) {
    const int64_t bit = first_value + i;
    out[i] = (bits[bit >> 3] >> (bit & 7)) & 1;
  }
  return Status::OK();
}

void EncodePlainByteArray(std::span<const std::string_view> values, std::string* out) {
  // One resize for the whole batch, then plain stores: no capacity check per value.
  size_t bytes = 4 * values.size();
  for (const std::string_view value : values) {
    bytes += value.size();
  }
  const size_t start = out->size();
  out->resize(start + bytes);
  char* dst = out->data() + start;
  for (const std::string_view value : values) {
    const auto length = static_cast<uint32_t>(value.size());
    const char prefix[4] = {static_cast<char>(length), static_cast<char>(length >> 8),
                            static_cast<char>(length >> 16), static_cast<char>(length >> 24)};
    std::memcpy(dst, prefix, 4);
    if (length > 0) {
      std::memcpy(dst + 4, value.data(), length);
    }
    dst += 4 + length;
  }
}

void EncodePlainBoolean(std::span<const uint8_t> values, std::string* out) {
  const size_t start = out->size();
  out->resize(start + (values.size() + 7) / 8, '\0');
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  for (size_t i = 0; i < values.size(); ++i) {
    dst[i >> 3] |= static_cast<uint8_t>((values[i] != 0 ? 1 : 0) << (i & 7));
  }
}

}  // namespace tributary::parquet

// PLAIN (0) for the physical types that are more than a memcpy: BYTE_ARRAY and BOOLEAN.
// Fixed-width types are little-endian values back to back, which readers copy directly.

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "columnar/data_type.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// Decodes `num_values` PLAIN BYTE_ARRAY values from the start of `data`.
///
/// Appends the values to `bytes` and, for each, its end offset in `bytes` to `offsets` (if
/// `offsets` is empty it first receives bytes->size(), so value i spans
/// [offsets[i], offsets[i + 1])). Sets `*bytes_consumed`, when not null, to the bytes of `data`
/// the values occupy. Corruption, naming the byte offset, when a length prefix or value runs past
/// the end of `data`; nothing is appended then.
[[nodiscard]] Status DecodePlainByteArray(std::string_view data, int64_t num_values,
                                          std::vector<int64_t>* offsets, std::string* bytes,
                                          int64_t* bytes_consumed = nullptr);

/// Decodes PLAIN BOOLEAN values `first_value` .. first_value + count - 1 of `data` (bit-packed,
/// LSB first) into `out` as 0 or 1. Corruption when `data` holds fewer values.
[[nodiscard]] Status DecodePlainBoolean(std::string_view data, int64_t first_value, int64_t count,
                                        uint8_t* out);

/// Appends `values` to `out` as PLAIN BYTE_ARRAY (4-byte little-endian length, then the bytes).
void EncodePlainByteArray(std::span<const std::string_view> values, std::string* out);

/// Appends `values` (0 or non-zero) to `out` as PLAIN BOOLEAN, the last byte padded with zeros.
void EncodePlainBoolean(std::span<const uint8_t> values, std::string* out);

/// Appends `v` as `width` bytes of big-endian two's complement (a FIXED_LEN_BYTE_ARRAY decimal).
inline void AppendBigEndian(columnar::Int128 v, int32_t width, std::string* out) {
  for (int32_t i = width - 1; i >= 0; --i) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(v >> (8 * i))));
  }
}

/// Appends the writer's physical values PLAIN-encoded to `out`. T: uint8_t BOOLEAN (one byte
/// per value, bit-packed by EncodePlainBoolean when the page is finished), int32_t, int64_t,
/// float, double, std::string_view BYTE_ARRAY, Int128 FIXED_LEN_BYTE_ARRAY decimals of
/// `type_length` bytes.
template <typename T>
void AppendPlain(std::span<const T> values, int32_t type_length, std::string* out) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    EncodePlainByteArray(values, out);
  } else if constexpr (std::is_same_v<T, columnar::Int128>) {
    out->reserve(out->size() + values.size() * static_cast<size_t>(type_length));
    for (columnar::Int128 v : values) {
      AppendBigEndian(v, type_length, out);
    }
  } else {
    out->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
}

}  // namespace tributary::parquet

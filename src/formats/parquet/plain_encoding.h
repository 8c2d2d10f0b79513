// PLAIN (0) for the physical types that are more than a memcpy: BYTE_ARRAY and BOOLEAN.
// Fixed-width types are little-endian values back to back, which readers copy directly.

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace tributary::parquet

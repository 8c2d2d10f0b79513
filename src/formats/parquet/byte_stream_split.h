// BYTE_STREAM_SPLIT (9): values of K bytes stored as K streams, stream b holding byte b of every
// value. Used for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY(K).

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tributary/status.h"

namespace tributary::parquet {

/// Decodes the first `num_values` values of `width` bytes each from `data` into `out`, which
/// holds num_values * width bytes, each value's bytes contiguous (the PLAIN layout). The page
/// holds data.size() / width values. Corruption when data.size() is not a multiple of `width`
/// or holds fewer than `num_values` values; InvalidArgument when `width` is not positive.
[[nodiscard]] Status DecodeByteStreamSplit(std::string_view data, int width, int64_t num_values,
                                           uint8_t* out);

/// Appends the values in `values` (contiguous, values.size() / width of them) to `out` as
/// BYTE_STREAM_SPLIT. values.size() must be a multiple of `width`, which must be positive.
void EncodeByteStreamSplit(std::span<const uint8_t> values, int width, std::string* out);

}  // namespace tributary::parquet

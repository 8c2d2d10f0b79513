// BYTE_STREAM_SPLIT (parquet-format Encodings.md, "Byte Stream Split: (BYTE_STREAM_SPLIT = 9)"),
// for N values of K bytes:
//
//   page   := stream[0] stream[1] ... stream[K - 1]
//   stream := byte b of value 0, byte b of value 1, ..., byte b of value N - 1   (N bytes)
//
// No header and no padding: N is the page's byte size divided by K.

#include "formats/parquet/byte_stream_split.h"

#include <fmt/format.h>

namespace tributary::parquet {

namespace {

/// Widths known at compile time (4 and 8 bytes) let the compiler unroll the byte loop.
template <int kWidth>
void DecodeFixed(const uint8_t* in, int64_t stride, int64_t num_values, uint8_t* out) {
  for (int64_t i = 0; i < num_values; ++i) {
    for (int b = 0; b < kWidth; ++b) {
      out[i * kWidth + b] = in[b * stride + i];
    }
  }
}

void DecodeAnyWidth(const uint8_t* in, int width, int64_t stride, int64_t num_values,
                    uint8_t* out) {
  // Stream by stream keeps the reads sequential for wide FIXED_LEN_BYTE_ARRAY values.
  for (int b = 0; b < width; ++b) {
    const uint8_t* stream = in + b * stride;
    for (int64_t i = 0; i < num_values; ++i) {
      out[i * width + b] = stream[i];
    }
  }
}

template <int kWidth>
void EncodeFixed(const uint8_t* in, int64_t num_values, uint8_t* out) {
  for (int64_t i = 0; i < num_values; ++i) {
    for (int b = 0; b < kWidth; ++b) {
      out[b * num_values + i] = in[i * kWidth + b];
    }
  }
}

}  // namespace

Status DecodeByteStreamSplit(std::string_view data, int width, int64_t num_values, uint8_t* out) {
  if (width <= 0) {
    return Status::InvalidArgument(
        fmt::format("BYTE_STREAM_SPLIT width {} is not positive", width));
  }
  const auto size = static_cast<int64_t>(data.size());
  if (size % width != 0) {
    return Status::Corruption(fmt::format(
        "BYTE_STREAM_SPLIT page of {} bytes ends {} bytes into a {}-byte value at byte offset {}",
        size, size % width, width, size - size % width));
  }
  const int64_t stride = size / width;
  if (num_values < 0 || num_values > stride) {
    return Status::Corruption(fmt::format(
        "BYTE_STREAM_SPLIT page of {} bytes holds {} values of {} bytes but {} were asked for",
        size, stride, width, num_values));
  }
  const auto* in = reinterpret_cast<const uint8_t*>(data.data());
  switch (width) {
    case 4:
      DecodeFixed<4>(in, stride, num_values, out);
      break;
    case 8:
      DecodeFixed<8>(in, stride, num_values, out);
      break;
    default:
      DecodeAnyWidth(in, width, stride, num_values, out);
      break;
  }
  return Status::OK();
}

void EncodeByteStreamSplit(std::span<const uint8_t> values, int width, std::string* out) {
  const auto num_values = static_cast<int64_t>(values.size()) / width;
  const size_t start = out->size();
  out->resize(start + values.size());
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  switch (width) {
    case 4:
      EncodeFixed<4>(values.data(), num_values, dst);
      break;
    case 8:
      EncodeFixed<8>(values.data(), num_values, dst);
      break;
    default:
      for (int b = 0; b < width; ++b) {
        for (int64_t i = 0; i < num_values; ++i) {
          dst[b * num_values + i] = values[static_cast<size_t>(i * width + b)];
        }
      }
      break;
  }
}

}  // namespace tributary::parquet

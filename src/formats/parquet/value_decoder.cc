#include "formats/parquet/value_decoder.h"

#include <fmt/format.h>

#include "formats/parquet/byte_stream_split.h"
#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

int FixedWidth(const SchemaNode& leaf) {
  switch (leaf.physical_type) {
    case PhysicalType::kBoolean:
      return 1;  // unpacked to one byte per value
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return leaf.type_length;
    case PhysicalType::kByteArray:
      return 0;
  }
  return 0;
}

Status ValueDecoder::DecodePlain(std::string_view data, int64_t count, int64_t offset,
                                 PhysicalValues* out) const {
  out->count = count;
  if (leaf_.physical_type == PhysicalType::kBoolean) {
    if (static_cast<int64_t>(data.size()) * 8 < count) {
      return location_.Fault(offset, fmt::format("{} PLAIN booleans need {} bytes, page has {}",
                                                 count, (count + 7) / 8, data.size()));
    }
    out->width = 1;
    out->fixed.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      out->fixed[static_cast<size_t>(i)] =
          static_cast<char>((data[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1);
    }
    return Status::OK();
  }
  if (leaf_.physical_type == PhysicalType::kByteArray) {
    if (count > static_cast<int64_t>(data.size()) / 4) {
      return location_.Fault(
          offset, fmt::format("{} PLAIN byte arrays need at least {} bytes, page has {}", count,
                              count * 4, data.size()));
    }
    // Checks every length and computes the offsets; the conversion copies the bytes.
    out->offsets.resize(static_cast<size_t>(count) + 1);
    out->offsets[0] = 0;
    size_t pos = 0;
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (data.size() - pos < 4) {
        return location_.Fault(
            offset + static_cast<int64_t>(pos),
            fmt::format("PLAIN byte array {} of {}: length runs past the page", i, count));
      }
      const int32_t length = LoadLe32(data.data() + pos);
      pos += 4;
      if (length < 0 || static_cast<size_t>(length) > data.size() - pos) {
        return location_.Fault(offset + static_cast<int64_t>(pos),
                               fmt::format("PLAIN byte array {} of {} claims {} bytes, {} left", i,
                                           count, length, data.size() - pos));
      }
      pos += static_cast<size_t>(length);
      total += length;
      out->offsets[static_cast<size_t>(i) + 1] = total;
    }
    out->plain_page = data;  // copied once, by the conversion, into the column's bytes
    return Status::OK();
  }
  out->width = FixedWidth(leaf_);
  const int64_t needed = count * out->width;
  if (static_cast<int64_t>(data.size()) < needed) {
    return location_.Fault(offset, fmt::format("{} PLAIN values need {} bytes, page has {}", count,
                                               needed, data.size()));
  }
  out->fixed_view = data.substr(0, static_cast<size_t>(needed));  // no copy: read in place
  return Status::OK();
}

Status ValueDecoder::DecodeIndexes(std::string_view data, int64_t count, int64_t dictionary_size,
                                   int64_t offset, std::vector<int32_t>* out) const {
  const int bit_width = static_cast<uint8_t>(data[0]);
  auto decoder = RleBitPackedDecoder::Make(data.substr(1), bit_width);
  if (!decoder.ok()) {
    return location_.Fault(offset, decoder.status().Message());
  }
  const int64_t held = RleBitPackedDecoder::CountValues(data.substr(1), bit_width, count);
  if (held < count) {
    return location_.Fault(
        offset + 1, fmt::format("dictionary indexes hold {} values, the page {}", held, count));
  }
  std::vector<int32_t>& indexes = *out;
  indexes.resize(static_cast<size_t>(count));
  Status st = decoder->GetBatch(indexes.data(), count);
  if (!st.ok()) {
    return location_.Fault(offset + 1, "dictionary indexes: " + st.Message());
  }
  for (size_t i = 0; i < indexes.size(); ++i) {
    if (indexes[i] < 0 || indexes[i] >= dictionary_size) {
      return location_.Fault(offset, fmt::format("dictionary index {} of value {} is outside the "
                                                 "dictionary of {} entries",
                                                 indexes[i], i, dictionary_size));
    }
  }
  return Status::OK();
}

Status ValueDecoder::Decode(Encoding encoding, std::string_view data, int64_t count, int64_t offset,
                            PhysicalValues* out) const {
  PhysicalValues& values = *out;
  values.count = count;
  values.width = FixedWidth(leaf_);
  switch (encoding) {
    case Encoding::kPlain:
      TRIBUTARY_RETURN_NOT_OK(DecodePlain(data, count, offset, &values));
      break;
    case Encoding::kRle: {
      if (leaf_.physical_type != PhysicalType::kBoolean) {
        return location_.Fault(offset, "RLE values on a non-boolean column");
      }
      if (data.size() < 4) {
        return location_.Fault(offset, "RLE booleans without their length");
      }
      const int32_t length = LoadLe32(data.data());
      if (length < 0 || static_cast<size_t>(length) > data.size() - 4) {
        return location_.Fault(offset, fmt::format("RLE booleans claim {} bytes, page has {}",
                                                   length, data.size() - 4));
      }
      const std::string_view runs = data.substr(4, static_cast<size_t>(length));
      const int64_t held = RleBitPackedDecoder::CountValues(runs, 1, count);
      if (held < count) {
        return location_.Fault(
            offset + 4, fmt::format("RLE booleans hold {} values, the page {}", held, count));
      }
      auto decoder = RleBitPackedDecoder::Make(runs, 1);
      if (!decoder.ok()) {
        return location_.Fault(offset, decoder.status().Message());
      }
      values.fixed.resize(static_cast<size_t>(count));
      Status st = decoder->GetBatch(reinterpret_cast<uint8_t*>(values.fixed.data()), count);
      if (!st.ok()) {
        return location_.Fault(offset + 4, "RLE booleans: " + st.Message());
      }
      break;
    }
    case Encoding::kDeltaBinaryPacked: {
      Status st;
      // The stream's own count is checked before the page's count sizes the values.
      auto check_count = [&](int64_t declared) {
        return declared >= count
                   ? Status::OK()
                   : Status::Corruption(fmt::format("the stream declares {} values, the page {}",
                                                    declared, count));
      };
      if (leaf_.physical_type == PhysicalType::kInt32) {
        auto decoder = DeltaBinaryPackedDecoder<int32_t>::Make(data);
        st = decoder.ok() ? check_count(decoder->TotalValueCount()) : decoder.status();
        if (st.ok()) {
          values.fixed.resize(static_cast<size_t>(count) * 4);
          st = decoder->GetBatch(reinterpret_cast<int32_t*>(values.fixed.data()), count);
        }
      } else if (leaf_.physical_type == PhysicalType::kInt64) {
        auto decoder = DeltaBinaryPackedDecoder<int64_t>::Make(data);
        st = decoder.ok() ? check_count(decoder->TotalValueCount()) : decoder.status();
        if (st.ok()) {
          values.fixed.resize(static_cast<size_t>(count) * 8);
          st = decoder->GetBatch(reinterpret_cast<int64_t*>(values.fixed.data()), count);
        }
      } else {
        return location_.Fault(offset,
                               "DELTA_BINARY_PACKED on a column that is not INT32 or INT64");
      }
      if (!st.ok()) {
        return location_.Fault(offset, "DELTA_BINARY_PACKED: " + st.Message());
      }
      break;
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      if (leaf_.physical_type != PhysicalType::kByteArray &&
          leaf_.physical_type != PhysicalType::kFixedLenByteArray) {
        return location_.Fault(offset, "delta byte-array encoding on a non-byte-array column");
      }
      Status st = encoding == Encoding::kDeltaLengthByteArray
                      ? DecodeDeltaLengthByteArray(data, count, &values.offsets, &values.bytes)
                      : DecodeDeltaByteArray(data, count, &values.offsets, &values.bytes);
      if (!st.ok()) {
        return location_.Fault(offset, st.Message());
      }
      if (leaf_.physical_type == PhysicalType::kFixedLenByteArray) {
        // Fixed-width values through a variable-width encoding: every length must match.
        for (int64_t i = 0; i < count; ++i) {
          if (values.offsets[static_cast<size_t>(i) + 1] - values.offsets[static_cast<size_t>(i)] !=
              leaf_.type_length) {
            return location_.Fault(
                offset, fmt::format("value {} is not {} bytes long", i, leaf_.type_length));
          }
        }
        values.fixed = values.bytes.substr(static_cast<size_t>(values.offsets[0]));
        values.offsets.clear();
      }
      break;
    }
    case Encoding::kByteStreamSplit: {
      if (values.width <= 0 || leaf_.physical_type == PhysicalType::kBoolean ||
          leaf_.physical_type == PhysicalType::kInt96) {
        return location_.Fault(offset, "BYTE_STREAM_SPLIT on a column without a fixed width");
      }
      if (count > static_cast<int64_t>(data.size()) / values.width) {
        return location_.Fault(
            offset, fmt::format("{} BYTE_STREAM_SPLIT values need {} bytes, page has {}", count,
                                count * values.width, data.size()));
      }
      values.fixed.resize(static_cast<size_t>(count * values.width));
      Status st = DecodeByteStreamSplit(data, values.width, count,
                                        reinterpret_cast<uint8_t*>(values.fixed.data()));
      if (!st.ok()) {
        return location_.Fault(offset, "BYTE_STREAM_SPLIT: " + st.Message());
      }
      break;
    }
    default:
      return Status::NotImplemented(fmt::format(
          "{}: row group {}, column {}: encoding {} ({})", location_.file, location_.row_group,
          location_.column, EncodingName(encoding), static_cast<int>(encoding)));
  }
  values.Normalize();
  return Status::OK();
}

}  // namespace tributary::parquet

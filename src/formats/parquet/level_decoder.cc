#include "formats/parquet/level_decoder.h"

#include <fmt/format.h>

#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

Status DecodeHybridLevels(std::string_view data, int16_t max_level, int64_t count, int64_t offset,
                          const ChunkLocation& location, std::vector<int16_t>* out) {
  const int bit_width = BitWidthOf(static_cast<uint64_t>(max_level));
  const int64_t held = RleBitPackedDecoder::CountValues(data, bit_width, count);
  if (held < count) {
    return location.Fault(offset,
                          fmt::format("levels hold {} values, the page declares {}", held, count));
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(count));
  auto decoder = RleBitPackedDecoder::Make(data, bit_width);
  if (!decoder.ok()) {
    return location.Fault(offset, decoder.status().Message());
  }
  Status st = decoder->GetBatch(out->data() + start, count);
  if (!st.ok()) {
    return location.Fault(offset, "levels: " + st.Message());
  }
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] > max_level) {
      return location.Fault(offset,
                            fmt::format("level {} above the maximum {}", (*out)[i], max_level));
    }
  }
  return Status::OK();
}

Status DecodeDataPageV1Levels(std::string_view data, size_t* pos, Encoding encoding,
                              int16_t max_level, int64_t count, int64_t offset,
                              const ChunkLocation& location, std::vector<int16_t>* out) {
  if (max_level == 0) {
    return Status::OK();
  }
  const auto at = [&] {
    return offset + static_cast<int64_t>(*pos);
  };
  if (encoding == Encoding::kBitPacked) {
    // The deprecated BIT_PACKED levels of old writers: no length prefix, MSB first.
    const int bit_width = BitWidthOf(static_cast<uint64_t>(max_level));
    const int64_t size = LegacyBitPackedSize(bit_width, count);
    if (size > static_cast<int64_t>(data.size() - *pos)) {
      return location.Fault(at(), fmt::format("BIT_PACKED levels need {} bytes, page has {} left",
                                              size, data.size() - *pos));
    }
    const size_t start = out->size();
    out->resize(start + static_cast<size_t>(count));
    Status st = DecodeLegacyBitPacked(data.substr(*pos, static_cast<size_t>(size)), bit_width,
                                      count, out->data() + start);
    if (!st.ok()) {
      return location.Fault(at(), "levels: " + st.Message());
    }
    for (size_t i = start; i < out->size(); ++i) {
      if ((*out)[i] > max_level) {
        return location.Fault(at(),
                              fmt::format("level {} above the maximum {}", (*out)[i], max_level));
      }
    }
    *pos += static_cast<size_t>(size);
    return Status::OK();
  }
  if (encoding != Encoding::kRle) {
    return location.Fault(at(), fmt::format("levels encoded as {}, which is not a level encoding",
                                            EncodingName(encoding)));
  }
  if (data.size() - *pos < 4) {
    return location.Fault(at(), "levels length runs past the page");
  }
  const int32_t length = LoadLe32(data.data() + *pos);
  *pos += 4;
  if (length < 0 || static_cast<size_t>(length) > data.size() - *pos) {
    return location.Fault(
        at(), fmt::format("levels claim {} bytes, page has {} left", length, data.size() - *pos));
  }
  TRIBUTARY_RETURN_NOT_OK(DecodeHybridLevels(data.substr(*pos, static_cast<size_t>(length)),
                                             max_level, count, at(), location, out));
  *pos += static_cast<size_t>(length);
  return Status::OK();
}

}  // namespace tributary::parquet

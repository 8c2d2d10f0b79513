// Delta encodings (parquet-format Encodings.md):
//
// "Delta Encoding (DELTA_BINARY_PACKED = 5)":
//
//   stream     := header block*
//   header     := uleb128(values per block)      a positive multiple of 128
//                 uleb128(miniblocks per block)  values per block / miniblocks is a multiple of 32
//                 uleb128(total value count)
//                 zigzag-uleb128(first value)
//   block      := zigzag-uleb128(min delta) bit-width{miniblocks per block} miniblock*
//   bit-width  := 1 byte, at most bits(T); 33 is accepted for INT32 (PARQUET-2435: writers
//                 that compute INT32 deltas in 64 bits, DuckDB among them, need one more bit)
//   miniblock  := (values per miniblock) values of bit-width bits, packed LSB first as in the
//                 RLE / bit-packing hybrid; values per miniblock * bit-width / 8 bytes
//
// Value i + 1 = value i + min delta + packed delta i, modulo 2^bits(T). A stream of n values has
// blocks for the n - 1 deltas only (none when n <= 1). The last block still carries every bit
// width byte, but only the miniblocks holding values follow; the last of those is padded to its
// full size.
//
// "Delta-length byte array (DELTA_LENGTH_BYTE_ARRAY = 6)":
//
//   stream := delta-binary-packed(lengths as INT32) concatenated-bytes
//
// "Delta Strings (DELTA_BYTE_ARRAY = 7)":
//
//   stream := delta-binary-packed(prefix lengths as INT32) delta-length-byte-array(suffixes)
//
// where value i = the first prefix-length[i] bytes of value i - 1, then suffix i.

#include "formats/parquet/delta_encoding.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

namespace {

/// Block layout the encoder writes: parquet-mr's and Arrow's defaults.
constexpr int64_t kEncodeBlockSize = 128;
constexpr int64_t kEncodeMiniblocks = 4;
constexpr int64_t kEncodeMiniblockSize = kEncodeBlockSize / kEncodeMiniblocks;

constexpr uint64_t kMaxValueCount = std::numeric_limits<int32_t>::max();

std::string_view AsChars(const uint8_t* data, int64_t size) {
  return {reinterpret_cast<const char*>(data), static_cast<size_t>(size)};
}

template <typename T>
void EncodeDeltaBinaryPackedImpl(std::span<const T> values, std::string* out) {
  using U = std::make_unsigned_t<T>;
  const auto n = static_cast<int64_t>(values.size());
  AppendUleb128(kEncodeBlockSize, out);
  AppendUleb128(kEncodeMiniblocks, out);
  AppendUleb128(static_cast<uint64_t>(n), out);
  AppendUleb128(ZigZagEncode(n == 0 ? 0 : values[0]), out);
  uint64_t relative[kEncodeBlockSize];
  T deltas[kEncodeBlockSize];
  for (int64_t begin = 1; begin < n; begin += kEncodeBlockSize) {
    const int64_t count = std::min(kEncodeBlockSize, n - begin);
    // Deltas wrap in T's width so that INT32 never needs more than 32 bits.
    T min_delta = std::numeric_limits<T>::max();
    for (int64_t k = 0; k < count; ++k) {
      const auto i = static_cast<size_t>(begin + k);
      deltas[k] = static_cast<T>(static_cast<U>(values[i]) - static_cast<U>(values[i - 1]));
      min_delta = std::min(min_delta, deltas[k]);
    }
    std::fill(std::begin(relative), std::end(relative), 0);
    for (int64_t k = 0; k < count; ++k) {
      relative[k] = static_cast<U>(static_cast<U>(deltas[k]) - static_cast<U>(min_delta));
    }
    AppendUleb128(ZigZagEncode(min_delta), out);
    int widths[kEncodeMiniblocks] = {};
    for (int64_t m = 0; m < kEncodeMiniblocks; ++m) {
      uint64_t max = 0;
      for (int64_t k = m * kEncodeMiniblockSize; k < (m + 1) * kEncodeMiniblockSize; ++k) {
        max = std::max(max, relative[k]);
      }
      widths[m] = BitWidthOf(max);
      out->push_back(static_cast<char>(widths[m]));
    }
    for (int64_t m = 0; m * kEncodeMiniblockSize < count; ++m) {
      PackBits(std::span<const uint64_t>(relative + m * kEncodeMiniblockSize,
                                         static_cast<size_t>(kEncodeMiniblockSize)),
               widths[m], out);
    }
  }
}

/// Decodes the DELTA_BINARY_PACKED lengths that start `data` into `lengths` and returns where
/// they end; Corruption when a count differs from `num_values` or a length is negative.
Result<int64_t> DecodeLengths(std::string_view data, int64_t num_values, std::string_view what,
                              std::vector<int32_t>* lengths) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto decoder, DeltaBinaryPackedDecoder<int32_t>::Make(data));
  if (decoder.TotalValueCount() != num_values) {
    return Status::Corruption(
        fmt::format("{} at byte offset 0 declare {} values but {} are expected", what,
                    decoder.TotalValueCount(), num_values));
  }
  lengths->resize(static_cast<size_t>(num_values));
  TRIBUTARY_RETURN_NOT_OK(decoder.GetBatch(lengths->data(), num_values));
  // One pass for the common case; the second only finds the culprit for the message.
  int32_t min = 0;
  for (const int32_t length : *lengths) {
    min = std::min(min, length);
  }
  if (min < 0) {
    const auto it = std::find_if(lengths->begin(), lengths->end(), [](int32_t l) { return l < 0; });
    return Status::Corruption(
        fmt::format("{} at byte offset 0 give value {} the negative length {}", what,
                    it - lengths->begin(), *it));
  }
  return decoder.BytesConsumed();
}

int64_t Sum(const std::vector<int32_t>& lengths) {
  int64_t total = 0;
  for (const int32_t length : lengths) {
    total += length;
  }
  return total;
}

void StartOffsets(std::vector<int64_t>* offsets, const std::string& bytes) {
  if (offsets->empty()) {
    offsets->push_back(static_cast<int64_t>(bytes.size()));
  }
}

}  // namespace

template <typename T>
Result<DeltaBinaryPackedDecoder<T>> DeltaBinaryPackedDecoder<T>::Make(std::string_view data) {
  DeltaBinaryPackedDecoder decoder;
  decoder.data_ = reinterpret_cast<const uint8_t*>(data.data());
  decoder.size_ = static_cast<int64_t>(data.size());
  int64_t pos = 0;
  uint64_t block_size = 0;
  uint64_t miniblocks = 0;
  uint64_t total = 0;
  uint64_t first = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadUleb128(data, &pos, &block_size));
  const int64_t miniblocks_offset = pos;
  TRIBUTARY_RETURN_NOT_OK(ReadUleb128(data, &pos, &miniblocks));
  const int64_t total_offset = pos;
  TRIBUTARY_RETURN_NOT_OK(ReadUleb128(data, &pos, &total));
  TRIBUTARY_RETURN_NOT_OK(ReadUleb128(data, &pos, &first));
  if (block_size == 0 || block_size % 128 != 0 || block_size > kMaxValueCount) {
    return Status::Corruption(fmt::format(
        "DELTA_BINARY_PACKED block size {} at byte offset 0 is not a positive multiple of 128 "
        "below 2^31",
        block_size));
  }
  if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return Status::Corruption(fmt::format(
        "DELTA_BINARY_PACKED miniblock count {} at byte offset {} does not split blocks of {} "
        "values into multiples of 32",
        miniblocks, miniblocks_offset, block_size));
  }
  if (total > kMaxValueCount) {
    return Status::Corruption(
        fmt::format("DELTA_BINARY_PACKED value count {} at byte offset {} exceeds 2^31 - 1", total,
                    total_offset));
  }
  decoder.pos_ = pos;
  decoder.values_per_block_ = static_cast<int64_t>(block_size);
  decoder.miniblocks_per_block_ = static_cast<int64_t>(miniblocks);
  decoder.values_per_miniblock_ = static_cast<int64_t>(block_size / miniblocks);
  decoder.total_value_count_ = static_cast<int64_t>(total);
  decoder.values_remaining_ = decoder.total_value_count_;
  decoder.first_value_pending_ = total > 0;
  decoder.last_value_ = static_cast<U>(ZigZagDecode(first));
  decoder.next_miniblock_ = decoder.miniblocks_per_block_;
  return decoder;
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::NextMiniblock() {
  if (next_miniblock_ == miniblocks_per_block_) {
    block_offset_ = pos_;
    uint64_t min_delta = 0;
    TRIBUTARY_RETURN_NOT_OK(ReadUleb128(AsChars(data_, size_), &pos_, &min_delta));
    if (size_ - pos_ < miniblocks_per_block_) {
      return Status::Corruption(fmt::format(
          "DELTA_BINARY_PACKED block at byte offset {} lacks its {} miniblock bit widths: the "
          "data ends at byte {}",
          block_offset_, miniblocks_per_block_, size_));
    }
    min_delta_ = static_cast<U>(ZigZagDecode(min_delta));
    bit_widths_offset_ = pos_;
    pos_ += miniblocks_per_block_;
    next_miniblock_ = 0;
  }
  const int width = data_[bit_widths_offset_ + next_miniblock_];
  if (width > kMaxBitWidth) {
    return Status::Corruption(fmt::format(
        "DELTA_BINARY_PACKED miniblock {} of the block at byte offset {} has bit width {} above {}",
        next_miniblock_, block_offset_, width, kMaxBitWidth));
  }
  const int64_t bytes = values_per_miniblock_ * width / 8;
  if (bytes > size_ - pos_) {
    return Status::Corruption(fmt::format(
        "DELTA_BINARY_PACKED miniblock at byte offset {} needs {} bytes but the data ends at "
        "byte {}",
        pos_, bytes, size_));
  }
  miniblock_ = data_ + pos_;
  pos_ += bytes;
  miniblock_bit_width_ = width;
  miniblock_pos_ = 0;
  miniblock_remaining_ = values_per_miniblock_;
  ++next_miniblock_;
  return Status::OK();
}

template <typename T>
void DeltaBinaryPackedDecoder<T>::ReadPacked(U* out, int64_t count) {
  const int width = miniblock_bit_width_;
  if (width > static_cast<int>(sizeof(U) * 8)) {
    ReadWidePacked(out, count);
    return;
  }
  int64_t done = 0;
  while (miniblock_pos_ % 8 != 0 && done < count) {
    out[done++] = group_[miniblock_pos_++ % 8];
  }
  const int64_t whole = (count - done) / 8 * 8;
  if (whole > 0) {
    const uint8_t* src = miniblock_ + miniblock_pos_ / 8 * width;
    UnpackBits(src, data_ + size_ - src, width, whole, out + done);
    miniblock_pos_ += whole;
    done += whole;
  }
  if (done < count) {
    const uint8_t* src = miniblock_ + miniblock_pos_ / 8 * width;
    UnpackBits(src, data_ + size_ - src, width, 8, group_);
    while (done < count) {
      out[done++] = group_[miniblock_pos_++ % 8];
    }
  }
  miniblock_remaining_ -= count;
}

template <typename T>
void DeltaBinaryPackedDecoder<T>::ReadWidePacked(U* out, int64_t count) {
  // Only the low bits(T) bits of a delta matter modulo 2^bits(T): unpack 64-bit, then wrap.
  const int width = miniblock_bit_width_;
  uint64_t group[8];
  for (int64_t done = 0; done < count; ++done) {
    const int64_t index = miniblock_pos_++;
    if (index % 8 == 0 || done == 0) {
      const uint8_t* src = miniblock_ + index / 8 * width;
      UnpackBits(src, data_ + size_ - src, width, 8, group);
    }
    out[done] = static_cast<U>(group[index % 8]);
  }
  miniblock_remaining_ -= count;
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::GetBatch(T* out, int64_t count) {
  if (count > values_remaining_) {
    return Status::Corruption(
        fmt::format("asked for {} values but the DELTA_BINARY_PACKED stream declared at byte "
                    "offset 0 holds {} more",
                    count, values_remaining_));
  }
  // Signed and unsigned variants may alias; unsigned arithmetic gives the required wrapping.
  U* values = reinterpret_cast<U*>(out);
  int64_t done = 0;
  if (first_value_pending_ && count > 0) {
    values[done++] = last_value_;
    first_value_pending_ = false;
  }
  while (done < count) {
    if (miniblock_remaining_ == 0) {
      TRIBUTARY_RETURN_NOT_OK(NextMiniblock());
    }
    const int64_t n = std::min(count - done, miniblock_remaining_);
    U* chunk = values + done;
    ReadPacked(chunk, n);
    U last = last_value_;
    const U min_delta = min_delta_;
    for (int64_t k = 0; k < n; ++k) {
      last += min_delta + chunk[k];
      chunk[k] = last;
    }
    last_value_ = last;
    done += n;
  }
  values_remaining_ -= count;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Skip(int64_t count) {
  constexpr int64_t kChunk = 256;
  T scratch[kChunk];
  while (count > 0) {
    const int64_t n = std::min(count, kChunk);
    TRIBUTARY_RETURN_NOT_OK(GetBatch(scratch, n));
    count -= n;
  }
  return Status::OK();
}

template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

void EncodeDeltaBinaryPacked(std::span<const int32_t> values, std::string* out) {
  EncodeDeltaBinaryPackedImpl(values, out);
}

void EncodeDeltaBinaryPacked(std::span<const int64_t> values, std::string* out) {
  EncodeDeltaBinaryPackedImpl(values, out);
}

Status DecodeDeltaLengthByteArray(std::string_view data, int64_t num_values,
                                  std::vector<int64_t>* offsets, std::string* bytes,
                                  int64_t* bytes_consumed) {
  std::vector<int32_t> lengths;
  TRIBUTARY_ASSIGN_OR_RAISE(
      const int64_t data_begin,
      DecodeLengths(data, num_values, "DELTA_LENGTH_BYTE_ARRAY lengths", &lengths));
  const int64_t total = Sum(lengths);
  const auto available = static_cast<int64_t>(data.size()) - data_begin;
  if (total > available) {
    return Status::Corruption(fmt::format(
        "DELTA_LENGTH_BYTE_ARRAY values at byte offset {} need {} bytes but only {} remain",
        data_begin, total, available));
  }
  StartOffsets(offsets, *bytes);
  bytes->append(data.substr(static_cast<size_t>(data_begin), static_cast<size_t>(total)));
  offsets->reserve(offsets->size() + lengths.size());
  int64_t end = offsets->back();
  for (const int32_t length : lengths) {
    end += length;
    offsets->push_back(end);
  }
  if (bytes_consumed != nullptr) {
    *bytes_consumed = data_begin + total;
  }
  return Status::OK();
}

Status DecodeDeltaByteArray(std::string_view data, int64_t num_values,
                            std::vector<int64_t>* offsets, std::string* bytes,
                            int64_t* bytes_consumed) {
  std::vector<int32_t> prefixes;
  TRIBUTARY_ASSIGN_OR_RAISE(
      const int64_t suffixes_begin,
      DecodeLengths(data, num_values, "DELTA_BYTE_ARRAY prefix lengths", &prefixes));
  std::vector<int32_t> suffixes;
  auto suffix_lengths = DecodeLengths(data.substr(static_cast<size_t>(suffixes_begin)), num_values,
                                      "DELTA_BYTE_ARRAY suffix lengths", &suffixes);
  if (!suffix_lengths.ok()) {
    return suffix_lengths.status().WithContext(
        fmt::format("suffixes starting at byte offset {}", suffixes_begin));
  }
  const int64_t suffix_data_begin = suffixes_begin + *suffix_lengths;
  const int64_t suffix_total = Sum(suffixes);
  const auto available = static_cast<int64_t>(data.size()) - suffix_data_begin;
  if (suffix_total > available) {
    return Status::Corruption(
        fmt::format("DELTA_BYTE_ARRAY suffixes at byte offset {} need {} bytes but only {} remain",
                    suffix_data_begin, suffix_total, available));
  }
  // Validate every prefix and size the output before writing a byte.
  int64_t total = 0;
  int64_t previous = 0;
  bool bad = false;
  for (int64_t i = 0; i < num_values; ++i) {
    const int32_t prefix = prefixes[static_cast<size_t>(i)];
    bad |= prefix > previous;
    previous = int64_t{prefix} + suffixes[static_cast<size_t>(i)];
    total += previous;
  }
  if (bad) {
    previous = 0;
    for (int64_t i = 0; i < num_values; ++i) {
      const int32_t prefix = prefixes[static_cast<size_t>(i)];
      if (prefix > previous) {
        return Status::Corruption(fmt::format(
            "DELTA_BYTE_ARRAY prefix length {} of value {} exceeds the {}-byte previous value",
            prefix, i, previous));
      }
      previous = int64_t{prefix} + suffixes[static_cast<size_t>(i)];
    }
  }
  if (total > kMaxDecodedByteArrayBytes) {
    return Status::Corruption(
        fmt::format("DELTA_BYTE_ARRAY page expands to {} bytes, above the limit of {}", total,
                    kMaxDecodedByteArrayBytes));
  }
  StartOffsets(offsets, *bytes);
  offsets->reserve(offsets->size() + static_cast<size_t>(num_values));
  const size_t base = bytes->size();
  bytes->resize(base + static_cast<size_t>(total));
  char* dst = bytes->data();
  const char* suffix = data.data() + suffix_data_begin;
  auto write = static_cast<int64_t>(base);
  int64_t previous_begin = write;
  for (int64_t i = 0; i < num_values; ++i) {
    const int32_t prefix = prefixes[static_cast<size_t>(i)];
    const int32_t suffix_length = suffixes[static_cast<size_t>(i)];
    const int64_t begin = write;
    std::memcpy(dst + write, dst + previous_begin, static_cast<size_t>(prefix));
    write += prefix;
    std::memcpy(dst + write, suffix, static_cast<size_t>(suffix_length));
    write += suffix_length;
    suffix += suffix_length;
    previous_begin = begin;
    offsets->push_back(write);
  }
  if (bytes_consumed != nullptr) {
    *bytes_consumed = suffix_data_begin + suffix_total;
  }
  return Status::OK();
}

void EncodeDeltaLengthByteArray(std::span<const std::string_view> values, std::string* out) {
  std::vector<int32_t> lengths;
  lengths.reserve(values.size());
  size_t total = 0;
  for (const std::string_view value : values) {
    lengths.push_back(static_cast<int32_t>(value.size()));
    total += value.size();
  }
  EncodeDeltaBinaryPacked(lengths, out);
  out->reserve(out->size() + total);
  for (const std::string_view value : values) {
    out->append(value);
  }
}

void EncodeDeltaByteArray(std::span<const std::string_view> values, std::string* out) {
  std::vector<int32_t> prefixes;
  std::vector<std::string_view> suffixes;
  prefixes.reserve(values.size());
  suffixes.reserve(values.size());
  std::string_view previous;
  for (const std::string_view value : values) {
    const size_t limit = std::min(previous.size(), value.size());
    const size_t prefix = static_cast<size_t>(
        std::mismatch(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(limit),
                      previous.begin())
            .first -
        value.begin());
    prefixes.push_back(static_cast<int32_t>(prefix));
    suffixes.push_back(value.substr(prefix));
    previous = value;
  }
  EncodeDeltaBinaryPacked(prefixes, out);
  EncodeDeltaLengthByteArray(suffixes, out);
}

}  // namespace tributary::parquet

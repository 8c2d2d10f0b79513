// The RLE / bit-packing hybrid (parquet-format Encodings.md, "Run Length Encoding / Bit-Packing
// Hybrid (RLE = 3)"), for a bit width w known in advance:
//
//   encoded-data    := run*
//   run             := bit-packed-run | rle-run
//   bit-packed-run  := uleb128(groups << 1 | 1) packed-values
//   packed-values   := groups * 8 values of w bits, LSB first; groups * w bytes
//   rle-run         := uleb128(count << 1) value
//   value           := the repeated value in ceil(w / 8) bytes, little endian
//
// Run lengths are at most 2^31 - 1 values (note 3). The data page v1 form prepends the length of
// encoded-data as 4 bytes little endian. Values are packed from the least significant bit of each
// byte (note 1): value i occupies bits [i * w, (i + 1) * w) of the little-endian bit stream.
//
// The deprecated BIT_PACKED encoding ("Bit-packed (Deprecated) (BIT_PACKED = 4)") is packed-values
// without runs, packed from the most significant bit, the last byte padded with zeros.
//
// ULEB128 (note 2): 7 bits per byte, least significant group first, high bit set on every byte
// but the last.

#include "formats/parquet/rle_encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace tributary::parquet {

namespace {

static_assert(std::endian::native == std::endian::little,
              "bit unpacking loads little-endian words directly");

/// Bytes past a group the fast unpack path may read: an 8-byte load plus one spill byte.
constexpr int64_t kUnpackSlack = 9;

inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

/// Value `kIndex` of the 8-value group at `p`, with shifts and masks known at compile time.
template <typename U, int kWidth, int kIndex>
inline U ExtractPacked(const uint8_t* p) {
  constexpr int kBit = kIndex * kWidth;
  constexpr int kByte = kBit / 8;
  constexpr int kShift = kBit % 8;
  uint64_t value = LoadLe64(p + kByte) >> kShift;
  if constexpr (kShift + kWidth > 64) {
    value |= static_cast<uint64_t>(p[kByte + 8]) << (64 - kShift);
  }
  if constexpr (kWidth < 64) {
    value &= (uint64_t{1} << kWidth) - 1;
  }
  return static_cast<U>(value);
}

template <typename U, int kWidth, size_t... kIndex>
inline void UnpackGroup(const uint8_t* p, U* out, std::index_sequence<kIndex...>) {
  ((out[kIndex] = ExtractPacked<U, kWidth, static_cast<int>(kIndex)>(p)), ...);
}

template <typename U, int kWidth>
void UnpackImpl(const uint8_t* in, int64_t in_size, int64_t num_values, U* out) {
  if constexpr (kWidth == 0) {
    std::fill_n(out, num_values, U{0});
  } else {
    const int64_t groups = num_values / 8;
    // Group g may use whole-word loads when g * w + w + slack bytes are readable.
    int64_t fast_groups = 0;
    if (in_size >= kWidth + kUnpackSlack) {
      fast_groups = std::min(groups, (in_size - kWidth - kUnpackSlack) / kWidth + 1);
    }
    for (int64_t g = 0; g < fast_groups; ++g) {
      UnpackGroup<U, kWidth>(in + g * kWidth, out + g * 8, std::make_index_sequence<8>());
    }
    // The last groups go through a zero-padded copy, which also covers a truncated buffer.
    for (int64_t g = fast_groups; g < groups; ++g) {
      uint8_t scratch[kWidth + kUnpackSlack] = {};
      const int64_t begin = g * kWidth;
      const int64_t available = std::clamp<int64_t>(in_size - begin, 0, kWidth);
      if (available > 0) {
        std::memcpy(scratch, in + begin, static_cast<size_t>(available));
      }
      UnpackGroup<U, kWidth>(scratch, out + g * 8, std::make_index_sequence<8>());
    }
  }
}

template <typename U>
using UnpackFn = void (*)(const uint8_t*, int64_t, int64_t, U*);

template <typename U, size_t... kWidth>
constexpr std::array<UnpackFn<U>, sizeof...(kWidth)> MakeUnpackTable(
    std::index_sequence<kWidth...>) {
  return {&UnpackImpl<U, static_cast<int>(kWidth)>...};
}

constexpr auto kUnpack32 = MakeUnpackTable<uint32_t>(std::make_index_sequence<33>());
constexpr auto kUnpack64 = MakeUnpackTable<uint64_t>(std::make_index_sequence<65>());

/// Appends `values` packed LSB first, `bit_width` bits each, the last byte padded with zeros.
template <typename U>
void PackBitsImpl(const U* values, int64_t count, int bit_width, std::string* out) {
  if (bit_width == 0 || count == 0) {
    return;
  }
  const int64_t bytes = (count * bit_width + 7) / 8;
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(bytes));
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  uint64_t acc = 0;
  int acc_bits = 0;
  int64_t written = 0;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t value = static_cast<uint64_t>(values[i]);
    acc |= value << acc_bits;
    const int total = acc_bits + bit_width;
    if (total >= 64) {
      std::memcpy(dst + written, &acc, 8);
      written += 8;
      acc = acc_bits == 0 ? 0 : value >> (64 - acc_bits);
      acc_bits = total - 64;
    } else {
      acc_bits = total;
    }
  }
  while (acc_bits > 0) {
    dst[written++] = static_cast<uint8_t>(acc);
    acc >>= 8;
    acc_bits -= 8;
  }
}

}  // namespace

Status ReadUleb128(std::string_view data, int64_t* pos, uint64_t* value) {
  const int64_t start = *pos;
  const auto size = static_cast<int64_t>(data.size());
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const int64_t at = start + shift / 7;
    if (at >= size) {
      return Status::Corruption(
          fmt::format("ULEB128 varint at byte offset {} is truncated by the end of data at byte {}",
                      start, size));
    }
    const auto byte = static_cast<uint8_t>(data[static_cast<size_t>(at)]);
    const uint64_t bits = byte & 0x7F;
    if (shift == 63 && bits > 1) {
      return Status::Corruption(
          fmt::format("ULEB128 varint at byte offset {} exceeds 64 bits", start));
    }
    result |= bits << shift;
    if ((byte & 0x80) == 0) {
      *pos = at + 1;
      *value = result;
      return Status::OK();
    }
  }
  return Status::Corruption(
      fmt::format("ULEB128 varint at byte offset {} is longer than 10 bytes", start));
}

void AppendUleb128(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

int BitWidthOf(uint64_t value) {
  return static_cast<int>(std::bit_width(value));
}

void UnpackBits(const uint8_t* in, int64_t in_size, int bit_width, int64_t num_values,
                uint32_t* out) {
  kUnpack32[static_cast<size_t>(bit_width)](in, in_size, num_values, out);
}

void UnpackBits(const uint8_t* in, int64_t in_size, int bit_width, int64_t num_values,
                uint64_t* out) {
  kUnpack64[static_cast<size_t>(bit_width)](in, in_size, num_values, out);
}

void PackBits(std::span<const uint64_t> values, int bit_width, std::string* out) {
  PackBitsImpl(values.data(), static_cast<int64_t>(values.size()), bit_width, out);
}

int64_t RleBitPackedDecoder::CountValues(std::string_view data, int bit_width, int64_t enough) {
  const auto size = static_cast<int64_t>(data.size());
  const int64_t value_bytes = (bit_width + 7) / 8;
  int64_t pos = 0;
  int64_t count = 0;
  while (count < enough && pos < size) {
    uint64_t header = 0;
    if (!ReadUleb128(data, &pos, &header).ok() || header > std::numeric_limits<uint32_t>::max()) {
      break;
    }
    if ((header & 1) != 0) {
      const auto groups = static_cast<int64_t>(header >> 1);
      const int64_t bytes = groups * bit_width;
      if (bytes > size - pos) {
        count += (size - pos) * 8 / bit_width;  // bit_width > 0: bytes would be 0 otherwise
        break;
      }
      count += groups * 8;
      pos += bytes;
    } else {
      if (size - pos < value_bytes) {
        break;
      }
      count += static_cast<int64_t>(header >> 1);
      pos += value_bytes;
    }
  }
  return count;
}

Result<RleBitPackedDecoder> RleBitPackedDecoder::Make(std::string_view data, int bit_width) {
  RleBitPackedDecoder decoder;
  TRIBUTARY_RETURN_NOT_OK(decoder.Reset(data, bit_width));
  return decoder;
}

Status RleBitPackedDecoder::Reset(std::string_view data, int bit_width) {
  *this = RleBitPackedDecoder();
  if (bit_width < 0 || bit_width > kMaxRleBitWidth) {
    return Status::Corruption(
        fmt::format("RLE/bit-packed bit width {} is outside 0..{}", bit_width, kMaxRleBitWidth));
  }
  data_ = reinterpret_cast<const uint8_t*>(data.data());
  size_ = static_cast<int64_t>(data.size());
  bit_width_ = bit_width;
  return Status::OK();
}

Status RleBitPackedDecoder::NextRun(int64_t still_wanted) {
  repeat_count_ = 0;
  literal_count_ = 0;
  group_pos_ = 0;
  if (pos_ >= size_) {
    if (truncated_run_offset_ >= 0) {
      return Status::Corruption(fmt::format(
          "bit-packed run at byte offset {} declares {} values but the data ends at byte {}; {} "
          "more values were asked for",
          truncated_run_offset_, truncated_run_declared_, size_, still_wanted));
    }
    return Status::Corruption(
        fmt::format("RLE/bit-packed data ends at byte offset {} but {} more values were asked for",
                    size_, still_wanted));
  }
  const int64_t header_offset = pos_;
  uint64_t header = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadUleb128(
      std::string_view(reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)), &pos_,
      &header));
  if (header > std::numeric_limits<uint32_t>::max()) {
    return Status::Corruption(fmt::format(
        "RLE/bit-packed run header {} at byte offset {} exceeds 32 bits", header, header_offset));
  }
  if ((header & 1) != 0) {
    const auto groups = static_cast<int64_t>(header >> 1);
    const int64_t values = groups * 8;
    const int64_t bytes = groups * bit_width_;
    const int64_t remaining = size_ - pos_;
    literal_ptr_ = data_ + pos_;
    if (bytes <= remaining) {
      literal_count_ = values;
      pos_ += bytes;
    } else {
      // Some writers cut the padding of the last group; keep the whole values that are present.
      literal_count_ = remaining * 8 / bit_width_;
      truncated_run_offset_ = header_offset;
      truncated_run_declared_ = values;
      pos_ = size_;
    }
    return Status::OK();
  }
  const int value_bytes = (bit_width_ + 7) / 8;
  if (size_ - pos_ < value_bytes) {
    return Status::Corruption(fmt::format(
        "RLE run at byte offset {} is missing its {}-byte value: the data ends at byte {}",
        header_offset, value_bytes, size_));
  }
  uint32_t value = 0;
  for (int i = 0; i < value_bytes; ++i) {
    value |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
  }
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    return Status::Corruption(
        fmt::format("RLE run at byte offset {} repeats value {} which does not fit in {} bits",
                    header_offset, value, bit_width_));
  }
  pos_ += value_bytes;
  repeat_count_ = static_cast<int64_t>(header >> 1);
  repeat_value_ = value;
  return Status::OK();
}

void RleBitPackedDecoder::UnpackGroupToScratch() {
  UnpackBits(literal_ptr_, data_ + size_ - literal_ptr_, bit_width_, 8, group_);
}

template <typename T>
Status RleBitPackedDecoder::GetBatchImpl(T* out, int64_t count) {
  int64_t done = 0;
  while (done < count) {
    if (repeat_count_ > 0) {
      const int64_t n = std::min(count - done, repeat_count_);
      std::fill_n(out + done, n, static_cast<T>(repeat_value_));
      repeat_count_ -= n;
      done += n;
      continue;
    }
    if (literal_count_ > 0) {
      int64_t n = std::min(count - done, literal_count_);
      literal_count_ -= n;
      // The rest of a group that an earlier batch started.
      while (group_pos_ != 0 && n > 0) {
        out[done++] = static_cast<T>(group_[group_pos_++]);
        --n;
        if (group_pos_ == 8) {
          group_pos_ = 0;
          literal_ptr_ += bit_width_;
        }
      }
      const int64_t whole = n / 8 * 8;
      if (whole > 0) {
        const int64_t available = data_ + size_ - literal_ptr_;
        if constexpr (sizeof(T) == sizeof(uint32_t)) {
          UnpackBits(literal_ptr_, available, bit_width_, whole,
                     reinterpret_cast<uint32_t*>(out + done));
        } else {
          // Narrow outputs unpack through a small buffer of 32-bit values.
          constexpr int64_t kChunk = 256;
          uint32_t wide[kChunk];
          for (int64_t i = 0; i < whole; i += kChunk) {
            const int64_t chunk = std::min(kChunk, whole - i);
            const uint8_t* src = literal_ptr_ + i / 8 * bit_width_;
            UnpackBits(src, data_ + size_ - src, bit_width_, chunk, wide);
            std::copy_n(wide, chunk, out + done + i);
          }
        }
        literal_ptr_ += whole / 8 * bit_width_;
        done += whole;
        n -= whole;
      }
      if (n > 0) {
        UnpackGroupToScratch();
        std::copy_n(group_, n, out + done);
        group_pos_ = static_cast<int>(n);
        done += n;
      }
      continue;
    }
    TRIBUTARY_RETURN_NOT_OK(NextRun(count - done));
  }
  return Status::OK();
}

Status RleBitPackedDecoder::GetBatch(int32_t* out, int64_t count) {
  return GetBatchImpl(out, count);
}

Status RleBitPackedDecoder::GetBatch(int16_t* out, int64_t count) {
  if (bit_width_ > 16) {
    return Status::InvalidArgument(
        fmt::format("cannot decode {}-bit RLE values into 16-bit levels", bit_width_));
  }
  return GetBatchImpl(out, count);
}

Status RleBitPackedDecoder::GetBatch(uint8_t* out, int64_t count) {
  if (bit_width_ > 8) {
    return Status::InvalidArgument(
        fmt::format("cannot decode {}-bit RLE values into bytes", bit_width_));
  }
  return GetBatchImpl(out, count);
}

Status RleBitPackedDecoder::Skip(int64_t count) {
  int64_t done = 0;
  while (done < count) {
    if (repeat_count_ > 0) {
      const int64_t n = std::min(count - done, repeat_count_);
      repeat_count_ -= n;
      done += n;
      continue;
    }
    if (literal_count_ > 0) {
      const int64_t n = std::min(count - done, literal_count_);
      literal_count_ -= n;
      done += n;
      const int64_t end = group_pos_ + n;
      literal_ptr_ += end / 8 * bit_width_;
      group_pos_ = static_cast<int>(end % 8);
      if (group_pos_ != 0) {
        UnpackGroupToScratch();
      }
      continue;
    }
    TRIBUTARY_RETURN_NOT_OK(NextRun(count - done));
  }
  return Status::OK();
}

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width) : bit_width_(bit_width) {}

void RleBitPackedEncoder::Put(uint32_t value) {
  values_.push_back(value);
}

void RleBitPackedEncoder::PutBatch(std::span<const int32_t> values) {
  values_.insert(values_.end(), values.begin(), values.end());
}

void RleBitPackedEncoder::PutBatch(std::span<const int16_t> values) {
  values_.insert(values_.end(), values.begin(), values.end());
}

namespace {

void AppendRleRun(uint32_t value, int64_t count, int bit_width, std::string* out) {
  constexpr int64_t kMaxRun = std::numeric_limits<int32_t>::max();
  const int value_bytes = (bit_width + 7) / 8;
  while (count > 0) {
    const int64_t run = std::min(count, kMaxRun);
    AppendUleb128(static_cast<uint64_t>(run) << 1, out);
    for (int i = 0; i < value_bytes; ++i) {
      out->push_back(static_cast<char>(value >> (8 * i)));
    }
    count -= run;
  }
}

template <typename V>
void AppendBitPackedRun(const V* values, int64_t count, int bit_width, std::string* out) {
  const int64_t groups = (count + 7) / 8;
  AppendUleb128(static_cast<uint64_t>(groups) << 1 | 1, out);
  const size_t start = out->size();
  PackBitsImpl(values, count, bit_width, out);
  // Pad the last group to 8 values: the run always covers whole groups.
  out->resize(start + static_cast<size_t>(groups * bit_width), '\0');
}

template <typename V>
void AppendHybrid(const V* values, int64_t n, int bit_width, std::string* out) {
  int64_t literal_begin = 0;
  int64_t i = 0;
  while (i < n) {
    int64_t j = i + 1;
    while (j < n && values[j] == values[i]) {
      ++j;
    }
    if (j - i >= 8) {
      // Literal runs before an RLE run must hold whole groups, so the repeat lends values to
      // complete the last group; it stays an RLE run only if 8 repeats remain.
      const int64_t pending = i - literal_begin;
      const int64_t lend = (8 - pending % 8) % 8;
      if (j - i - lend >= 8) {
        if (pending + lend > 0) {
          AppendBitPackedRun(values + literal_begin, i + lend - literal_begin, bit_width, out);
        }
        AppendRleRun(static_cast<uint32_t>(values[i]), j - i - lend, bit_width, out);
        literal_begin = j;
      }
    }
    i = j;
  }
  if (literal_begin < n) {
    AppendBitPackedRun(values + literal_begin, n - literal_begin, bit_width, out);
  }
}

}  // namespace

std::string RleBitPackedEncoder::Flush() {
  std::string out;
  AppendHybrid(values_.data(), static_cast<int64_t>(values_.size()), bit_width_, &out);
  values_.clear();
  return out;
}

void AppendRleBitPacked(std::span<const int32_t> values, int bit_width, std::string* out) {
  AppendHybrid(values.data(), static_cast<int64_t>(values.size()), bit_width, out);
}

void AppendRleBitPacked(std::span<const int16_t> values, int bit_width, std::string* out) {
  AppendHybrid(values.data(), static_cast<int64_t>(values.size()), bit_width, out);
}

void AppendRleBitPackedRepeat(uint32_t value, int64_t count, int bit_width, std::string* out) {
  if (count >= 8) {
    AppendRleRun(value, count, bit_width, out);
  } else if (count > 0) {
    std::array<uint32_t, 8> group{};
    std::fill_n(group.begin(), count, value);
    AppendBitPackedRun(group.data(), count, bit_width, out);
  }
}

Result<std::string_view> LengthPrefixedRleData(std::string_view data) {
  if (data.size() < 4) {
    return Status::Corruption(fmt::format(
        "RLE length prefix at byte offset 0 needs 4 bytes but the data has {}", data.size()));
  }
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) {
    length |= static_cast<uint32_t>(static_cast<uint8_t>(data[static_cast<size_t>(i)])) << (8 * i);
  }
  if (length > data.size() - 4) {
    return Status::Corruption(
        fmt::format("RLE length prefix at byte offset 0 declares {} bytes but only {} follow",
                    length, data.size() - 4));
  }
  return data.substr(4, length);
}

int64_t LegacyBitPackedSize(int bit_width, int64_t count) {
  return (count * bit_width + 7) / 8;
}

Status DecodeLegacyBitPacked(std::string_view data, int bit_width, int64_t count, int16_t* out) {
  if (bit_width < 0 || bit_width > 16) {
    return Status::Corruption(
        fmt::format("BIT_PACKED level bit width {} is outside 0..16", bit_width));
  }
  const int64_t needed = LegacyBitPackedSize(bit_width, count);
  if (needed > static_cast<int64_t>(data.size())) {
    return Status::Corruption(
        fmt::format("BIT_PACKED data for {} values of {} bits needs {} bytes but has {}", count,
                    bit_width, needed, data.size()));
  }
  if (bit_width == 0) {
    std::fill_n(out, count, int16_t{0});
    return Status::OK();
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const uint32_t mask = (uint32_t{1} << bit_width) - 1;
  for (int64_t i = 0; i < count; ++i) {
    // A value of at most 16 bits spans at most 3 bytes, read as one big-endian window.
    const int64_t bit = i * bit_width;
    const int64_t byte = bit / 8;
    uint32_t window = 0;
    for (int k = 0; k < 3; ++k) {
      window <<= 8;
      if (byte + k < needed) {
        window |= bytes[byte + k];
      }
    }
    const auto shift = static_cast<int>(24 - bit % 8 - bit_width);
    out[i] = static_cast<int16_t>((window >> shift) & mask);
  }
  return Status::OK();
}

}  // namespace tributary::parquet

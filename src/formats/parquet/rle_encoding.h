// The RLE / bit-packing hybrid encoding (RLE = 3) and the primitives it is built from: ULEB128
// varints, zigzag, and LSB-first bit packing, which the delta encodings and the thrift compact
// protocol share.

#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// The largest bit width of the RLE / bit-packing hybrid (dictionary indexes are at most 32 bits).
constexpr int kMaxRleBitWidth = 32;

/// Maps a signed integer to an unsigned one so that small magnitudes stay small (protobuf's
/// zigzag, used by Parquet's DELTA_BINARY_PACKED for the first value and min delta, and by the
/// thrift compact protocol for its integers and field ids).
constexpr uint64_t ZigZagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

/// Inverse of ZigZagEncode.
constexpr int64_t ZigZagDecode(uint64_t value) {
  return static_cast<int64_t>((value >> 1) ^ (~(value & 1) + 1));
}

/// The 4-byte little-endian signed integer at `p` (the length prefixes of levels, RLE booleans
/// and PLAIN byte arrays).
inline int32_t LoadLe32(const char* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/// Reads an unsigned LEB128 varint from `data` starting at `*pos` and advances `*pos` past it.
/// Corruption, naming the byte offset, when the varint is truncated or exceeds 64 bits.
[[nodiscard]] Status ReadUleb128(std::string_view data, int64_t* pos, uint64_t* value);

/// Appends `value` to `out` as an unsigned LEB128 varint.
void AppendUleb128(uint64_t value, std::string* out);

/// The number of bits needed to represent `value` (0 for 0).
int BitWidthOf(uint64_t value);

/// Unpacks `num_values` values (a multiple of 8) of `bit_width` bits (0..32) packed LSB first
/// (Encodings.md, "Run Length Encoding / Bit-Packing Hybrid", note 1) from `in` into `out`.
/// `in` must hold at least num_values * bit_width / 8 bytes; `in_size` is how many bytes are
/// readable from `in` (the kernel reads whole words where the extra bytes allow).
void UnpackBits(const uint8_t* in, int64_t in_size, int bit_width, int64_t num_values,
                uint32_t* out);

/// As above for bit widths 0..64.
void UnpackBits(const uint8_t* in, int64_t in_size, int bit_width, int64_t num_values,
                uint64_t* out);

/// Appends `values` packed LSB first with `bit_width` bits (0..64) each to `out`, padding the
/// last byte with zero bits. Values must fit in `bit_width` bits.
void PackBits(std::span<const uint64_t> values, int bit_width, std::string* out);

/// Decodes an RLE / bit-packing hybrid stream (without the length prefix) of a fixed bit width.
///
/// Used for repetition and definition levels, dictionary indexes and RLE booleans. The decoder
/// does not own the buffer, which must outlive it. Values are decoded in bulk; runs are
/// validated once each, never per value. A bit-packed run whose padding bytes were cut off by the
/// end of the buffer is tolerated as long as no value beyond the end is asked for. After an error
/// the decoder's state is unspecified.
///
/// Thread-safety: not thread-safe; distinct decoders may be used from distinct threads.
class RleBitPackedDecoder {
 public:
  /// A decoder with no data; every non-empty read fails.
  RleBitPackedDecoder() = default;

  /// A decoder over `data` with `bit_width` bits per value. Corruption when the bit width is
  /// outside 0..32 (it usually comes from the file).
  static Result<RleBitPackedDecoder> Make(std::string_view data, int bit_width);

  /// How many values `data` holds at `bit_width` (0..32), from its run headers alone, counting
  /// no further than `enough`: what a page's declared count is checked against before anything
  /// of that count is allocated. A malformed or truncated header ends the count (GetBatch then
  /// names it); the whole values of a bit-packed run cut short by the end of the data count.
  static int64_t CountValues(std::string_view data, int bit_width, int64_t enough);

  /// Restarts over new data, keeping no state from earlier pages.
  [[nodiscard]] Status Reset(std::string_view data, int bit_width);

  /// Decodes exactly `count` values into `out`. Corruption when the data holds fewer values or a
  /// run is malformed; the message names the byte offset within the buffer.
  [[nodiscard]] Status GetBatch(int32_t* out, int64_t count);
  /// As above; the bit width must be at most 16 (levels).
  [[nodiscard]] Status GetBatch(int16_t* out, int64_t count);
  /// As above; the bit width must be at most 8 (booleans have bit width 1).
  [[nodiscard]] Status GetBatch(uint8_t* out, int64_t count);

  /// Skips `count` values without materializing them.
  [[nodiscard]] Status Skip(int64_t count);

  /// The bit width values are decoded with.
  int BitWidth() const { return bit_width_; }

 private:
  template <typename T>
  Status GetBatchImpl(T* out, int64_t count);
  /// Reads the next run header; Corruption at the end of the data or on a malformed run.
  Status NextRun(int64_t still_wanted);
  /// Unpacks the group of 8 literal values at `literal_ptr_` into `group_`.
  void UnpackGroupToScratch();

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  /// Offset of the next run header.
  int64_t pos_ = 0;
  int bit_width_ = 0;

  /// Values left in the current RLE run and its value.
  int64_t repeat_count_ = 0;
  uint32_t repeat_value_ = 0;

  /// Values left in the current bit-packed run that the buffer actually holds; the next one
  /// starts at value `group_pos_` of the group at `literal_ptr_`.
  int64_t literal_count_ = 0;
  const uint8_t* literal_ptr_ = nullptr;
  int group_pos_ = 0;
  /// The group at literal_ptr_ unpacked, valid when group_pos_ != 0.
  uint32_t group_[8] = {};

  /// Set when a bit-packed run declares more values than the buffer holds, for the message.
  int64_t truncated_run_offset_ = -1;
  int64_t truncated_run_declared_ = 0;
};

/// Encodes values as an RLE / bit-packing hybrid stream of a fixed bit width (without the
/// length prefix). Repeats of at least 8 values become RLE runs; everything else is bit-packed
/// in groups of 8, the final group padded with zeros as the spec allows.
///
/// Thread-safety: not thread-safe.
class RleBitPackedEncoder {
 public:
  /// An encoder for `bit_width` bits per value; `bit_width` must be in 0..32.
  explicit RleBitPackedEncoder(int bit_width);

  /// Adds one value, which must fit in the bit width.
  void Put(uint32_t value);
  /// Adds `values`, each of which must be non-negative and fit in the bit width.
  void PutBatch(std::span<const int32_t> values);
  /// As above for levels.
  void PutBatch(std::span<const int16_t> values);

  /// Values added since the last Flush().
  int64_t NumValues() const { return static_cast<int64_t>(values_.size()); }

  /// Returns the encoded stream of all values added since the last Flush() and starts over.
  std::string Flush();

 private:
  int bit_width_;
  std::vector<uint32_t> values_;
};

/// Appends `values` to `out` as the stream RleBitPackedEncoder would make of them, without
/// copying them into an encoder first. Each value must be non-negative and fit in `bit_width`
/// (0..32) bits.
void AppendRleBitPacked(std::span<const int32_t> values, int bit_width, std::string* out);
/// As above for levels.
void AppendRleBitPacked(std::span<const int16_t> values, int bit_width, std::string* out);
/// Appends the stream of `count` repeats of `value` (one RLE run, or a bit-packed group below 8
/// values), the same bytes as AppendRleBitPacked of that many copies.
void AppendRleBitPackedRepeat(uint32_t value, int64_t count, int bit_width, std::string* out);

/// Splits the data page v1 form `<4-byte little-endian length> <encoded-data>` and returns the
/// encoded data; the whole form occupies 4 + result.size() bytes of `data`. Corruption when the
/// prefix is truncated or the length runs past the end of `data`.
Result<std::string_view> LengthPrefixedRleData(std::string_view data);

/// Decodes `count` values of the deprecated BIT_PACKED encoding (BIT_PACKED = 4: MSB first, no
/// runs) used for levels by old writers. `bit_width` must be in 0..16. Corruption when `data` is
/// shorter than ceil(count * bit_width / 8) bytes.
[[nodiscard]] Status DecodeLegacyBitPacked(std::string_view data, int bit_width, int64_t count,
                                           int16_t* out);

/// The number of bytes DecodeLegacyBitPacked reads for `count` values.
int64_t LegacyBitPackedSize(int bit_width, int64_t count);

}  // namespace tributary::parquet

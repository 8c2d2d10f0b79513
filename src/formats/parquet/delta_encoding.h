// Parquet's delta encodings: DELTA_BINARY_PACKED (5) for INT32/INT64, DELTA_LENGTH_BYTE_ARRAY (6)
// and DELTA_BYTE_ARRAY (7) for byte arrays. ULEB128 and zigzag live in rle_encoding.h.

#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// The most decoded bytes one DELTA_BYTE_ARRAY page may expand to. Prefixes repeat earlier bytes,
/// so a small corrupt page could otherwise claim terabytes.
constexpr int64_t kMaxDecodedByteArrayBytes = std::numeric_limits<int32_t>::max();

/// Decodes a DELTA_BINARY_PACKED stream of `T` (int32_t or int64_t).
///
/// The decoder does not own the buffer, which must outlive it. Arithmetic wraps modulo 2^bits(T),
/// as the spec requires. Values are unpacked a miniblock at a time; blocks and miniblocks are
/// validated once each. After an error the decoder's state is unspecified.
///
/// Thread-safety: not thread-safe; distinct decoders may be used from distinct threads.
template <typename T>
class DeltaBinaryPackedDecoder {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

 public:
  /// A decoder with no values.
  DeltaBinaryPackedDecoder() = default;

  /// Parses the header at the start of `data`. Corruption, naming the byte offset, when the header
  /// is truncated or its block size is not a positive multiple of 128, its miniblock count does
  /// not split a block into multiples of 32 values, or its value count exceeds 2^31 - 1.
  static Result<DeltaBinaryPackedDecoder> Make(std::string_view data);

  /// The value count the header declares. Callers check it against the page before allocating.
  int64_t TotalValueCount() const { return total_value_count_; }

  /// Values not yet returned.
  int64_t ValuesRemaining() const { return values_remaining_; }

  /// Decodes exactly `count` values into `out`. Corruption when fewer remain or the data is
  /// malformed (truncated block, bit width above bits(T), or above 33 for INT32).
  [[nodiscard]] Status GetBatch(T* out, int64_t count);

  /// Skips `count` values.
  [[nodiscard]] Status Skip(int64_t count);

  /// The bytes of `data` the stream occupies, including the padding of its last miniblock. Valid
  /// once ValuesRemaining() is 0; the data of DELTA_LENGTH_BYTE_ARRAY begins there.
  int64_t BytesConsumed() const { return pos_; }

 private:
  using U = std::make_unsigned_t<T>;

  /// Enters the next miniblock, reading a block header first when the block is exhausted.
  Status NextMiniblock();
  /// Copies the next `count` packed deltas of the current miniblock, before adding min delta.
  void ReadPacked(U* out, int64_t count);
  /// ReadPacked for a miniblock wider than U (33 bits for INT32): one group of 8 at a time.
  void ReadWidePacked(U* out, int64_t count);

  /// The widest miniblock accepted: bits(T), and 33 for INT32 (PARQUET-2435).
  static constexpr int kMaxBitWidth = sizeof(T) == 4 ? 33 : 64;

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  /// Offset of the next block header or miniblock body.
  int64_t pos_ = 0;

  int64_t values_per_block_ = 0;
  int64_t miniblocks_per_block_ = 0;
  int64_t values_per_miniblock_ = 0;
  int64_t total_value_count_ = 0;
  int64_t values_remaining_ = 0;
  bool first_value_pending_ = false;
  U last_value_ = 0;

  /// The current block: its offset, min delta and where its bit widths are.
  int64_t block_offset_ = 0;
  U min_delta_ = 0;
  int64_t bit_widths_offset_ = 0;
  /// Index of the next miniblock within the block; miniblocks_per_block_ means a block is due.
  int64_t next_miniblock_ = 0;

  /// The current miniblock: its body, bit width, and the index of its next value.
  const uint8_t* miniblock_ = nullptr;
  int miniblock_bit_width_ = 0;
  int64_t miniblock_pos_ = 0;
  int64_t miniblock_remaining_ = 0;
  /// The group of 8 holding value miniblock_pos_, unpacked, valid when miniblock_pos_ % 8 != 0.
  U group_[8] = {};
};

extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;

/// Appends `values` to `out` as DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks
/// (the sizes parquet-mr and Arrow write).
void EncodeDeltaBinaryPacked(std::span<const int32_t> values, std::string* out);
/// As above for INT64.
void EncodeDeltaBinaryPacked(std::span<const int64_t> values, std::string* out);

/// Decodes `num_values` DELTA_LENGTH_BYTE_ARRAY values from `data`.
///
/// Appends the values to `bytes` and, for each, its end offset in `bytes` to `offsets` (if
/// `offsets` is empty it first receives bytes->size(), so value i spans
/// [offsets[i], offsets[i + 1])). Sets `*bytes_consumed`, when not null, to the bytes of `data`
/// the values occupy. Corruption when the stream declares a count other than `num_values`, a
/// length is negative or the lengths run past the end of `data`.
[[nodiscard]] Status DecodeDeltaLengthByteArray(std::string_view data, int64_t num_values,
                                                std::vector<int64_t>* offsets, std::string* bytes,
                                                int64_t* bytes_consumed = nullptr);

/// Decodes `num_values` DELTA_BYTE_ARRAY values (prefix lengths, then suffixes as
/// DELTA_LENGTH_BYTE_ARRAY) from `data`, appending to `offsets` and `bytes` as
/// DecodeDeltaLengthByteArray does. Corruption as there, or when a prefix is longer than the
/// previous value or the values would exceed kMaxDecodedByteArrayBytes.
[[nodiscard]] Status DecodeDeltaByteArray(std::string_view data, int64_t num_values,
                                          std::vector<int64_t>* offsets, std::string* bytes,
                                          int64_t* bytes_consumed = nullptr);

/// Appends `values` to `out` as DELTA_LENGTH_BYTE_ARRAY.
void EncodeDeltaLengthByteArray(std::span<const std::string_view> values, std::string* out);

/// Appends `values` to `out` as DELTA_BYTE_ARRAY, each prefix shared with the previous value.
void EncodeDeltaByteArray(std::span<const std::string_view> values, std::string* out);

}  // namespace tributary::parquet

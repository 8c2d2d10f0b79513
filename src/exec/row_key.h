// Row keys: the values of several key columns of one row as one byte string, for grouping,
// joining and sorting, plus the hash table the blocking operators look groups up in.
//
// Two encodings of the same values:
//   grouping  compact, native byte order; equal bytes <=> equal keys under Spark's grouping
//             rules (NULLs equal each other, -0.0 == 0.0, all NaNs equal). Decodable back into
//             columns (DecodeGroupingKeys), which is how hash aggregate outputs its keys.
//   ordering  memcmp-able: comparing the bytes of two rows orders them as Spark's ORDER BY
//             (per key ASC/DESC and NULLS FIRST/LAST; NaN above every number; -0.0 == 0.0;
//             strings by UTF-8 bytes; structs field by field; arrays lexicographically).
//
// Grammar, per key column, per row (grouping):
//   value    = null-flag(1 byte: 0 null, 1 valid) payload
//   payload  = fixed-width bytes, zeros when null, so rows of fixed-width keys have one size
//              (booleans 1 byte, decimals 16; floats with -0.0 -> 0.0 and every NaN -> one
//              NaN); for the others nothing when null, else u32 length + bytes (string,
//              binary) | value per field (struct) | u32 count + value per element (array)
//              | u32 count + (key value, value value) per entry (map; in key order in
//              grouping keys, so maps of the same entries group together as in Spark 4)
// Ordering: flag byte (nulls first: 0 null/1 valid; nulls last: 2 null/1 valid), then integers
// big-endian with the sign bit flipped, floats as their order-preserving integer image,
// strings with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, arrays with 0x01 before each
// element and 0x00 at the end; DESC inverts the payload bytes.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "exec/operator.h"

namespace tributary::exec {

using columnar::ColumnPtr;
using columnar::DataTypePtr;
using columnar::MemoryPool;

/// A growable array of trivially copyable T in pool memory, zero-filled when it grows, so
/// operator state (hash slots, accumulators) is counted by the query's pool. Not thread-safe.
template <typename T>
class PoolArray {
 public:
  explicit PoolArray(MemoryPool* pool = columnar::DefaultMemoryPool()) : pool_(pool) {}

  /// Grows (zero-filling) or shrinks to `size` elements; an error when the pool refuses.
  [[nodiscard]] Status Resize(int64_t size) {
    if (buffer_ == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(buffer_, columnar::Buffer::Allocate(0, pool_));
    }
    TRIBUTARY_RETURN_NOT_OK(buffer_->Resize(size * static_cast<int64_t>(sizeof(T))));
    size_ = size;
    return Status::OK();
  }
  int64_t size() const { return size_; }
  T* data() { return buffer_ ? buffer_->MutableDataAs<T>() : nullptr; }
  const T* data() const { return buffer_ ? buffer_->DataAs<T>() : nullptr; }
  T& operator[](int64_t i) { return data()[i]; }
  const T& operator[](int64_t i) const { return data()[i]; }

 private:
  MemoryPool* pool_;
  std::unique_ptr<columnar::Buffer> buffer_;
  int64_t size_ = 0;
};

/// The encoded keys of every row of one batch: row i is Key(i); hashes only for grouping.
struct EncodedKeys {
  std::vector<uint8_t> bytes;
  /// NumRows() + 1 entries.
  std::vector<int64_t> offsets;
  std::vector<uint64_t> hashes;
  /// 1 where some key column of the row is null (joins: such rows never match).
  std::vector<uint8_t> has_null;

  int64_t NumRows() const { return static_cast<int64_t>(offsets.size()) - 1; }
  std::string_view Key(int64_t i) const {
    return {
        reinterpret_cast<const char*>(bytes.data()) + offsets[static_cast<size_t>(i)],
        static_cast<size_t>(offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)])};
  }
};

/// Encodes rows 0..num_rows-1 of `columns` (each of num_rows rows) in the grouping encoding,
/// with hashes and null flags. No key columns give every row the empty key.
void EncodeGroupingKeys(std::span<const ColumnPtr> columns, int64_t num_rows, EncodedKeys* out);

/// As EncodeGroupingKeys, but floats keep their bits (-0.0, NaN payloads): the encoding of
/// values to be decoded back exactly (aggregate state), not compared as keys.
void EncodeValues(std::span<const ColumnPtr> columns, int64_t num_rows, EncodedKeys* out);

/// Direction of one ordering key.
struct OrderingDirection {
  bool ascending = true;
  bool nulls_first = true;
};

/// Encodes rows in the ordering encoding (no hashes). `directions` has one entry per column.
void EncodeOrderingKeys(std::span<const ColumnPtr> columns,
                        std::span<const OrderingDirection> directions, int64_t num_rows,
                        EncodedKeys* out);

/// Columns of `types` holding the values of grouping keys `keys` (as EncodeGroupingKeys wrote
/// them), one row per key.
Result<std::vector<ColumnPtr>> DecodeGroupingKeys(std::span<const DataTypePtr> types,
                                                  std::span<const std::string_view> keys,
                                                  MemoryPool* pool);

/// The size of the one grouping-encoded value of `type` at the start of `bytes`; Corruption
/// when the bytes are not one (a bad null flag, a length past the end). For bytes read back
/// from outside the process (state stores), before DecodeGroupingKeys, which trusts them.
Result<size_t> MeasureGroupingValue(const columnar::DataType& type, std::string_view bytes);

/// Corruption unless `key` is exactly one grouping-encoded value per type of `types`.
Status ValidateGroupingKey(std::span<const DataTypePtr> types, std::string_view key);

/// The rows of `column` at `indices`, where index -1 gives a null row (the missing side of an
/// outer join, a group without a value).
Result<ColumnPtr> TakeOrNull(const columnar::Column& column, std::span<const int64_t> indices,
                             MemoryPool* pool);

/// The next batch of at most kTargetBatchRows of the `rows` rows of `columns`, starting at row
/// *emitted, which it advances; nullptr once every row was returned. How blocking operators
/// hand out their result.
Result<columnar::RecordBatchPtr> NextSlice(const columnar::SchemaPtr& schema,
                                           const std::vector<ColumnPtr>& columns, int64_t rows,
                                           int64_t* emitted, MemoryPool* pool);

/// 64-bit hash of bytes (the hash EncodeGroupingKeys stores).
uint64_t HashBytes(const uint8_t* data, size_t size);

/// An open-addressing hash table from grouping key to a dense group id (0, 1, 2, ... in order
/// of first insertion); key bytes are copied into an arena. Memory comes from the pool.
/// Not thread-safe.
class GroupTable {
 public:
  explicit GroupTable(MemoryPool* pool);

  int64_t NumGroups() const { return num_groups_; }
  /// Bytes of group g's key.
  std::string_view KeyOf(int64_t group) const {
    if (uniform_key_size_ >= 0) {
      return {reinterpret_cast<const char*>(arena_.data()) + group * uniform_key_size_,
              static_cast<size_t>(uniform_key_size_)};
    }
    const int64_t begin = key_offsets_[group];
    return {reinterpret_cast<const char*>(arena_.data()) + begin,
            static_cast<size_t>(key_offsets_[group + 1] - begin)};
  }

  /// Sizes the table for `groups` groups without growing again (the build side of a join
  /// knows its row count).
  [[nodiscard]] Status Reserve(int64_t groups);
  /// group_ids[i] = the group of row i of `keys`, inserting new groups.
  [[nodiscard]] Status FindOrInsert(const EncodedKeys& keys, int32_t* group_ids);
  /// group_ids[i] = the group of row i of `keys`, or -1 when absent or when `skip_nulls` and
  /// the row has a null key.
  void Find(const EncodedKeys& keys, bool skip_nulls, int32_t* group_ids) const;

 private:
  [[nodiscard]] Status Grow();
  int64_t Probe(std::string_view key, uint64_t hash) const;

  MemoryPool* pool_;
  int64_t num_groups_ = 0;
  uint64_t mask_ = 0;
  // Slot: high 32 bits of the hash, low 32 bits group id + 1 (0 = empty).
  PoolArray<uint64_t> slots_;
  PoolArray<uint8_t> arena_;
  int64_t arena_used_ = 0;
  PoolArray<int64_t> key_offsets_;
  // The size of every key while they all have one (fixed-width key columns): KeyOf then
  // needs no offset lookup, one cache miss less per probe. -1 once sizes differ.
  int64_t uniform_key_size_ = -1;
  // Slot indices are prefetched this many rows ahead of the probe.
  static constexpr int64_t kPrefetchDistance = 16;
};

}  // namespace tributary::exec

// Physical values (value_decoder.h) into the leaf's tributary type, as reader_schema.h's
// LeafConversion says: integers narrowed or widened, decimals from INT32, INT64 or big-endian
// bytes, INT96 and millisecond/nanosecond timestamps to microseconds, FLOAT16, UUIDs as text,
// byte arrays as strings (checked to be UTF-8) or binary.

#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "columnar/column.h"
#include "formats/parquet/page_reader.h"
#include "formats/parquet/reader_schema.h"
#include "formats/parquet/value_decoder.h"

namespace tributary::parquet {

/// Converted values assembled into one column's buffers: the slices of pages one request takes
/// go straight into buffers sized from its entry count, so no page becomes a column of its own.
struct ValueSink {
  std::unique_ptr<columnar::Buffer> values;   // fixed-width values, or the bytes of byte arrays
  std::unique_ptr<columnar::Buffer> offsets;  // byte arrays: allocated + 1 offsets, the first 0
  int64_t capacity = 0;                       // values the request may hold (its entries)
  int64_t allocated = 0;                      // values the buffers have room for, at most capacity
  int64_t length = 0;                         // values appended
  int64_t byte_length = 0;                    // bytes appended (byte arrays)
};

/// Converts the physical values of one leaf, slice by slice into a ValueSink or a page at a
/// time into a column. Corruption errors (a decimal that does not fit, a timestamp out of range,
/// invalid UTF-8, a boolean other than 0 or 1) name `location` and the page's file byte.
class ValueConverter {
 public:
  /// `chunk_size` (the chunk's bytes, 0 when there is no chunk) bounds the values a sink is
  /// first sized for.
  ValueConverter(const SchemaNode& leaf, const ChunkLocation& location, columnar::MemoryPool* pool,
                 int64_t chunk_size)
      : leaf_(leaf), location_(location), pool_(pool), chunk_size_(chunk_size) {}

  /// Whether the leaf's values can be assembled in a ValueSink: fixed-width types and byte
  /// arrays read as they are; other conversions build a column per page (Convert).
  bool Sinkable() const;

  /// Sizes `sink` for a request of `capacity` values when the chunk could plausibly hold that
  /// many (capacity comes from the footer), else for fewer: the sink grows as pages prove their
  /// values are there.
  [[nodiscard]] Status StartSink(ValueSink* sink, int64_t capacity) const;

  /// Converts values [begin, begin + count) of `values`, which come from `entries` level
  /// entries (nulls included; they size a byte array sink's first bytes), onto the end of
  /// `sink`. `offset` is the page's file byte.
  [[nodiscard]] Status ConvertInto(const PhysicalValues& values, int64_t begin, int64_t count,
                                   int64_t entries, int64_t offset, ValueSink* sink) const;

  /// Appends the values of `dictionary` (already converted) at `indexes`, which were checked
  /// to be inside it, to `sink`; `entries` as for ConvertInto.
  [[nodiscard]] Status GatherInto(const columnar::Column& dictionary,
                                  std::span<const int32_t> indexes, int64_t entries,
                                  ValueSink* sink) const;

  /// The sink's values as a column.
  Result<columnar::ColumnPtr> FinishSink(ValueSink* sink) const;

  /// All of `values` as a column.
  Result<columnar::ColumnPtr> Convert(PhysicalValues& values, int64_t offset) const;

 private:
  Status EnsureRoom(ValueSink* sink, int64_t more) const;
  // Room for `more` bytes of values from `entries` level entries; the first call sizes the
  // bytes for the sink's whole capacity at that rate.
  Status ReserveBytes(ValueSink* sink, int64_t more, int64_t entries) const;

  const SchemaNode& leaf_;
  const ChunkLocation& location_;
  columnar::MemoryPool* pool_;
  const int64_t chunk_size_;
};

}  // namespace tributary::parquet

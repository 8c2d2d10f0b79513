// ColumnBuilder: appends values row by row and finishes them into an immutable Column. The
// readers append every value of every record through it, so each append is inline: one
// capacity check, one store, one validity bit.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/calendar_interval.h"
#include "columnar/column.h"
#include "columnar/memory_pool.h"

namespace tributary::columnar {

/// Builds one column of any type, nested types through child builders. Appends never fail on
/// their own: a refused allocation (pool limit, out of memory) is remembered and returned once
/// by Finish(), so readers validate once per batch, not per value.
///
/// Nested types: for a struct, append one value (or null) to every Child(i), then
/// AppendStruct(); for an array, append its elements to Child(0), then AppendArray(); for a
/// map, append keys to Child(0) and values to Child(1), then AppendMap(). AppendNull() on a
/// struct appends nulls to its children to keep them aligned.
///
/// Thread-safety: none; one builder per thread.
class ColumnBuilder {
 public:
  /// The pool must outlive the builder and the columns it finishes.
  explicit ColumnBuilder(DataTypePtr type, MemoryPool* pool = DefaultMemoryPool());
  ~ColumnBuilder();
  ColumnBuilder(const ColumnBuilder&) = delete;
  ColumnBuilder& operator=(const ColumnBuilder&) = delete;

  const DataTypePtr& Type() const { return type_; }
  int64_t Length() const { return length_; }

  /// Makes room for `additional` more rows of fixed-width values (and their validity bits), for
  /// a caller that knows how many rows come. A refused allocation is reported by Finish().
  void Reserve(int64_t additional);

  /// Makes room for about `rows` more rows (and their children's values) at the bytes per row
  /// appended so far, so a batch whose size the caller can foresee is built without the copies
  /// of geometric growth. Only a forecast: does nothing before the first row, ignores a refused
  /// allocation, and appends still grow the buffers as needed.
  void ReserveRowsLikeSoFar(int64_t rows);

  void AppendNull() {
    switch (kind_) {
      case Kind::kNull:
        // A null column has no buffers: Column::Make counts every row as null.
        ++null_count_;
        ++length_;
        return;
      case Kind::kFixed:
        if (values_.Ensure(width_)) {
          // Buffers are not zeroed when made, and a null slot still holds a valid value.
          std::memset(values_.data + values_.size, 0, static_cast<size_t>(width_));
          values_.size += width_;
        }
        break;
      case Kind::kBytes:
        AppendOffset(values_.size);
        break;
      case Kind::kList:
        AppendOffset(children_[0]->Length());
        break;
      case Kind::kStruct:
        for (auto& child : children_) {
          child->AppendNull();
        }
        break;
    }
    AdvanceRow(false);
  }
  void AppendBoolean(bool value) { AppendFixed<uint8_t>(value ? 1 : 0); }
  /// int8/16/32/64 (narrowed: the caller checks range), date (days), timestamp and
  /// timestamp_ntz (microseconds).
  void AppendInt(int64_t value) {
    switch (width_) {
      case 1:
        AppendFixed(static_cast<int8_t>(value));
        break;
      case 2:
        AppendFixed(static_cast<int16_t>(value));
        break;
      case 4:
        AppendFixed(static_cast<int32_t>(value));
        break;
      default:
        AppendFixed(value);
        break;
    }
  }
  /// float32 (narrowed) or float64.
  void AppendDouble(double value) {
    if (width_ == 4) {
      AppendFixed(static_cast<float>(value));
    } else {
      AppendFixed(value);
    }
  }
  /// The unscaled value of a decimal; the caller checks it fits the precision.
  void AppendDecimal(Int128 unscaled) { AppendFixed(unscaled); }
  /// A calendar interval (the `interval` type).
  void AppendCalendarInterval(const CalendarInterval& value) { AppendFixed(value); }
  /// string (UTF-8, not checked here) or binary.
  void AppendBytes(std::string_view bytes) {
    const int64_t n = static_cast<int64_t>(bytes.size());
    if (values_.Ensure(n)) {
      if (n > 0) {
        std::memcpy(values_.data + values_.size, bytes.data(), bytes.size());
      }
      values_.size += n;
    }
    AppendOffset(values_.size);
    AdvanceRow(true);
  }

  /// Child builder i of a struct (field i), array (0: elements) or map (0: keys, 1: values).
  ColumnBuilder& Child(int i) { return *children_[static_cast<size_t>(i)]; }
  void AppendStruct() { AdvanceRow(true); }
  void AppendArray() {
    AppendOffset(children_[0]->Length());
    AdvanceRow(true);
  }
  void AppendMap() { AppendArray(); }

  /// The column built so far, or the first allocation error; the builder is then empty again.
  Result<ColumnPtr> Finish();

 private:
  enum class Kind : int8_t { kNull, kFixed, kBytes, kList, kStruct };

  // A growable byte range in a pool buffer. The bytes past `size` are uninitialized: every
  // byte up to `size` is written before it is read.
  struct Region {
    std::unique_ptr<Buffer> buffer;
    uint8_t* data = nullptr;
    int64_t size = 0;
    int64_t capacity = 0;
    Status* status = nullptr;
    MemoryPool* pool = nullptr;

    bool Ensure(int64_t extra) { return size + extra <= capacity || Grow(size + extra); }
    // At least doubles the capacity (to `needed` or more); records a refused allocation.
    bool Grow(int64_t needed);
    // Moves the bytes into a new buffer of exactly `new_capacity` (> size) bytes.
    Status Reallocate(int64_t new_capacity);
    // Makes the capacity at least `wanted` bytes; records a refused allocation.
    void ReserveCapacity(int64_t wanted);
    // Makes the capacity at least `size + size * rows / rows_so_far` plus some slack.
    void ReserveLikeSoFar(int64_t rows, int64_t rows_so_far);
    // Hands the bytes over as a buffer of `size` bytes.
    Result<BufferPtr> Take();
  };

  template <typename T>
  void AppendFixed(T value) {
    if (values_.Ensure(sizeof(T))) {
      std::memcpy(values_.data + values_.size, &value, sizeof(T));
      values_.size += sizeof(T);
    }
    AdvanceRow(true);
  }
  void AppendOffset(int64_t end) {
    if (offsets_.Ensure(sizeof(int64_t))) {
      std::memcpy(offsets_.data + offsets_.size, &end, sizeof(int64_t));
      offsets_.size += sizeof(int64_t);
    }
  }
  // Records row validity: every row sets its bit, so a column without nulls costs one store
  // instead of a branch on whether a bitmap exists yet. Finish() drops the bitmap when no row
  // is null.
  void AdvanceRow(bool valid) {
    if ((length_ & 7) == 0 && validity_.Ensure(1)) {
      validity_.data[validity_.size++] = 0;
    }
    if (validity_.size > (length_ >> 3)) {
      validity_.data[length_ >> 3] |= static_cast<uint8_t>(valid) << (length_ & 7);
    }
    null_count_ += valid ? 0 : 1;
    ++length_;
  }
  void Reset();

  DataTypePtr type_;
  MemoryPool* pool_;
  Kind kind_;
  int width_;
  Status status_;  // the first refused allocation of this builder's own buffers
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  Region validity_;
  Region values_;
  Region offsets_;
  std::vector<std::unique_ptr<ColumnBuilder>> children_;
};

}  // namespace tributary::columnar

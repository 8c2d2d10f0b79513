// ColumnSink: the text readers' column builder. Same contract as columnar::ColumnBuilder (one
// append per row, nested types through children, allocation failures reported once by Finish),
// with the capacity check of every append inlined, since the reader appends every value of
// every record through it. Internal to the JSON and CSV readers.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "columnar/memory_pool.h"

namespace tributary::text {

/// Builds one column of any type from appends. See columnar::ColumnBuilder for the protocol of
/// nested types.
///
/// Thread-safety: none.
class ColumnSink {
 public:
  /// The pool must outlive the sink and the columns it finishes.
  ColumnSink(columnar::DataTypePtr type, columnar::MemoryPool* pool);
  ColumnSink(const ColumnSink&) = delete;
  ColumnSink& operator=(const ColumnSink&) = delete;

  int64_t Length() const { return length_; }
  ColumnSink& Child(int i) { return *children_[static_cast<size_t>(i)]; }

  void AppendNull() {
    switch (kind_) {
      case Kind::kNull:
        break;
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
  /// Integers (narrowed to the column's width), date days, timestamp microseconds.
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
  void AppendDouble(double value) {
    if (width_ == 4) {
      AppendFixed(static_cast<float>(value));
    } else {
      AppendFixed(value);
    }
  }
  void AppendDecimal(columnar::Int128 unscaled) { AppendFixed(unscaled); }
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
  void AppendStruct() { AdvanceRow(true); }
  void AppendArray() {
    AppendOffset(children_[0]->Length());
    AdvanceRow(true);
  }
  void AppendMap() { AppendArray(); }

  /// Makes room for about `rows` more rows (and their children's values) at the bytes per row
  /// appended so far, so a batch whose size the reader can foresee is built without the copies
  /// of geometric growth. Does nothing before the first row; appends still grow as needed.
  void Reserve(int64_t rows);

  /// The column built so far, or the first allocation error; the sink is then empty again.
  Result<columnar::ColumnPtr> Finish();

 private:
  enum class Kind : int8_t { kNull, kFixed, kBytes, kList, kStruct };

  // A growable byte range in a pool buffer.
  struct Region {
    std::unique_ptr<columnar::Buffer> buffer;
    uint8_t* data = nullptr;
    int64_t size = 0;
    int64_t capacity = 0;
    Status* status = nullptr;
    columnar::MemoryPool* pool = nullptr;

    bool Ensure(int64_t extra) { return size + extra <= capacity || Grow(size + extra); }
    // At least doubles the capacity (to `needed` or more).
    bool Grow(int64_t needed);
    // Moves the bytes into a new buffer of exactly `new_capacity` (> size) bytes: uninitialized
    // past `size`, since every byte up to `size` is written before it is read.
    Status Reallocate(int64_t new_capacity);
    // Makes the capacity at least `size + size * rows / rows_so_far` plus some slack.
    void Reserve(int64_t rows, int64_t rows_so_far);
    // Hands the bytes over as a buffer of exactly `size` bytes.
    Result<columnar::BufferPtr> Take();
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
  // Records row validity: every row sets its bit, so a column without nulls costs one store.
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

  columnar::DataTypePtr type_;
  columnar::MemoryPool* pool_;
  Kind kind_;
  int width_;
  Status status_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  Region validity_;
  Region values_;
  Region offsets_;
  std::vector<std::unique_ptr<ColumnSink>> children_;
};

}  // namespace tributary::text

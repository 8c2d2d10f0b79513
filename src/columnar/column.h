// Column: an immutable run of values of one type in an Arrow-like layout (data_type.h).

#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/bitmap.h"
#include "columnar/data_type.h"
#include "columnar/memory_pool.h"
#include "tributary/result.h"

namespace tributary::columnar {

class Column;
using ColumnPtr = std::shared_ptr<const Column>;

/// The values of one column of a record batch: a validity bitmap, a values buffer, an offsets
/// buffer and child columns, as data_type.h lays out per type. Rows start at index 0 of every
/// buffer. Immutable once made; buffers may be shared between columns.
///
/// Thread-safety: immutable, safe to share between threads.
class Column {
 public:
  /// Checks that the buffers fit `type` and `length` (sizes, offset bounds, child lengths) and
  /// counts nulls. `validity` may be null (all rows valid). A Corruption error names what does
  /// not fit.
  static Result<ColumnPtr> Make(DataTypePtr type, int64_t length, BufferPtr validity,
                                BufferPtr values, BufferPtr offsets = nullptr,
                                std::vector<ColumnPtr> children = {});
  /// A column of `length` nulls of `type` (nested types get empty children).
  static Result<ColumnPtr> MakeAllNull(DataTypePtr type, int64_t length,
                                       MemoryPool* pool = DefaultMemoryPool());

  const DataTypePtr& Type() const { return type_; }
  int64_t Length() const { return length_; }
  int64_t NullCount() const { return null_count_; }

  bool IsValid(int64_t i) const {
    return validity_ == nullptr ? type_->Id() != TypeId::kNull : GetBit(validity_->data(), i);
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  /// The validity bitmap, or nullptr when every row is valid (never for the null type, whose
  /// rows are all null).
  const uint8_t* ValidityBits() const { return validity_ ? validity_->data() : nullptr; }
  const BufferPtr& ValidityBuffer() const { return validity_; }
  const BufferPtr& ValuesBuffer() const { return values_; }
  const BufferPtr& OffsetsBuffer() const { return offsets_; }

  /// Fixed-width values viewed as T (T must match the type's physical width).
  template <typename T>
  const T* Values() const {
    return values_->DataAs<T>();
  }
  /// Offsets of string, binary, array and map columns: Length() + 1 entries.
  const int64_t* Offsets() const { return offsets_->DataAs<int64_t>(); }
  /// The bytes of row i of a string or binary column.
  std::string_view BytesAt(int64_t i) const {
    const int64_t* offsets = Offsets();
    return {reinterpret_cast<const char*>(values_->data()) + offsets[i],
            static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }

  int NumChildren() const { return static_cast<int>(children_.size()); }
  const ColumnPtr& Child(int i) const { return children_[static_cast<size_t>(i)]; }
  const std::vector<ColumnPtr>& Children() const { return children_; }

  /// Full validation for untrusted data: Make's checks plus monotonic offsets, boolean bytes
  /// being 0/1, UTF-8 of strings, recursively. Corruption names the row.
  Status ValidateFull() const;

  /// Not for direct use: Make validates and builds columns.
  struct Parts {
    DataTypePtr type;
    int64_t length;
    int64_t null_count;
    BufferPtr validity;
    BufferPtr values;
    BufferPtr offsets;
    std::vector<ColumnPtr> children;
  };
  explicit Column(Parts parts);

 private:
  DataTypePtr type_;
  int64_t length_;
  int64_t null_count_;
  BufferPtr validity_;
  BufferPtr values_;
  BufferPtr offsets_;
  std::vector<ColumnPtr> children_;
};

/// True when `bytes` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
bool IsValidUtf8(std::string_view bytes);

}  // namespace tributary::columnar

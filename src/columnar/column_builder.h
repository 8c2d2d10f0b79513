// ColumnBuilder: appends values row by row and finishes them into an immutable Column.

#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/column.h"

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

  /// Makes room for `additional` more rows of fixed-width values.
  void Reserve(int64_t additional);

  void AppendNull();
  void AppendBoolean(bool value);
  /// int8/16/32/64 (narrowed: the caller checks range), date (days), timestamp and
  /// timestamp_ntz (microseconds).
  void AppendInt(int64_t value);
  /// float32 (narrowed) or float64.
  void AppendDouble(double value);
  /// The unscaled value of a decimal; the caller checks it fits the precision.
  void AppendDecimal(Int128 unscaled);
  /// string (UTF-8, not checked here) or binary.
  void AppendBytes(std::string_view bytes);

  /// Child builder i of a struct (field i), array (0: elements) or map (0: keys, 1: values).
  ColumnBuilder& Child(int i) { return *children_[static_cast<size_t>(i)]; }
  void AppendStruct();
  void AppendArray();
  void AppendMap() { AppendArray(); }

  /// The column built so far, or the first allocation error; the builder is then empty again.
  Result<ColumnPtr> Finish();

 private:
  bool Grow(std::unique_ptr<Buffer>& buffer, int64_t new_size);
  void AppendValidity(bool valid);
  void AppendOffset(int64_t end);
  template <typename T>
  void AppendFixed(T value);
  void Reset();

  DataTypePtr type_;
  MemoryPool* pool_;
  Status status_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  std::unique_ptr<Buffer> validity_;  // null until the first null row
  std::unique_ptr<Buffer> values_;
  std::unique_ptr<Buffer> offsets_;
  std::vector<std::unique_ptr<ColumnBuilder>> children_;
};

}  // namespace tributary::columnar

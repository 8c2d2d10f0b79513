// Comparing and assembling nested values (arrays, maps, structs) for the collection and
// higher-order function kernels (internal to the expr layer).

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "columnar/column.h"
#include "expr/bound_expression.h"
#include "expr/evaluator.h"
#include "expr/expression.h"

namespace tributary::expr {

/// Whether values of `type` have Spark's ordering (sorting, min/max, equality of elements):
/// every type but maps and types that contain maps.
bool IsOrderable(const columnar::DataType& type);

/// Spark's ordering of valid row i of `a` and valid row j of `b` (one orderable type), as
/// -1, 0 or 1: numbers by value (NaN above every number and equal to itself, -0.0 = 0.0),
/// strings and binary by their bytes, booleans false first, structs field by field, arrays
/// element by element with a prefix first (nulls first inside nested values).
int CompareValues(const columnar::Column& a, int64_t i, const columnar::Column& b, int64_t j);

/// CompareValues where either row may be null: a null is less than any value, equal to null.
int CompareNullable(const columnar::Column& a, int64_t i, const columnar::Column& b, int64_t j);

/// An array or map column of `type` from its row offsets (rows + 1 entries into `children`),
/// row validity (1: valid) and children (the elements; or the keys and the values).
Result<columnar::ColumnPtr> MakeListColumn(const columnar::DataTypePtr& type,
                                           const std::vector<int64_t>& offsets,
                                           const std::vector<uint8_t>& valid,
                                           std::vector<columnar::ColumnPtr> children,
                                           columnar::MemoryPool* pool);

/// Checks that the keys of each map row (rows + 1 `offsets` into `keys`) are neither null
/// ([NULL_MAP_KEY]) nor repeated ([DUPLICATED_MAP_KEY], Spark's default
/// spark.sql.mapKeyDedupPolicy=EXCEPTION).
Status CheckMapKeys(const columnar::Column& keys, const std::vector<int64_t>& offsets,
                    const EvalContext& context);

/// Builds an array column row by row out of elements picked from source columns (all of the
/// element type), then gathers them in one pass.
class ArrayAssembler {
 public:
  explicit ArrayAssembler(int64_t rows) {
    offsets_.reserve(static_cast<size_t>(rows) + 1);
    offsets_.push_back(0);
    valid_.reserve(static_cast<size_t>(rows));
  }
  // Appends row `row` of source `source` to the current array; source -1 is a null element.
  void Add(int32_t source, int64_t row) {
    source_.push_back(source);
    row_.push_back(row);
  }
  void AddNull() { Add(-1, 0); }
  // Ends the current row as an array of the elements added since the last row.
  void EndRow() {
    offsets_.push_back(static_cast<int64_t>(source_.size()));
    valid_.push_back(1);
  }
  // Ends the current row as null (dropping elements added to it).
  void NullRow() {
    source_.resize(static_cast<size_t>(offsets_.back()));
    row_.resize(static_cast<size_t>(offsets_.back()));
    offsets_.push_back(offsets_.back());
    valid_.push_back(0);
  }
  int64_t RowSize() const { return static_cast<int64_t>(source_.size()) - offsets_.back(); }

  /// The array column of `array_type` whose elements are the picked rows of `sources`.
  Result<columnar::ColumnPtr> Finish(const columnar::DataTypePtr& array_type,
                                     std::span<const columnar::ColumnPtr> sources,
                                     columnar::MemoryPool* pool) const;

 private:
  std::vector<int32_t> source_;
  std::vector<int64_t> row_;
  std::vector<int64_t> offsets_;
  std::vector<uint8_t> valid_;
};

/// InvalidArgument naming `call` unless `arg` (argument `position`, 1-based) is an array.
Status RequireArray(const Expression& call, const BoundExprPtr& arg, int position);

}  // namespace tributary::expr

// Comparing and assembling nested values (arrays, maps, structs) for the collection and
// higher-order function kernels (internal to the expr layer).

#pragma once

#include <cstdint>
#include <vector>

#include "columnar/column.h"
#include "expr/evaluator.h"

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

}  // namespace tributary::expr

// Moving rows between columns of one type, for kernels that evaluate parts of a batch (CASE
// WHEN, coalesce) or build nested values (array(...), map lookups). Internal to expr.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "columnar/column_builder.h"
#include "columnar/record_batch.h"

namespace tributary::expr {

/// Appends row `row` of `column` (same type as the builder; null rows too) to `builder`.
void AppendValueFrom(const columnar::Column& column, int64_t row, columnar::ColumnBuilder* builder);

/// A column of `length` rows of `type`: row i is row `source_row[i]` of `sources[source[i]]`,
/// or null where source[i] < 0. Every source has type `type`.
Result<columnar::ColumnPtr> Interleave(const columnar::DataTypePtr& type,
                                       std::span<const columnar::ColumnPtr> sources,
                                       std::span<const int32_t> source,
                                       std::span<const int64_t> source_row,
                                       columnar::MemoryPool* pool);

}  // namespace tributary::expr

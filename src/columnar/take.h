// Selection kernels: gather rows by index, keep rows where a mask is true.

#pragma once

#include <cstdint>
#include <span>

#include "columnar/record_batch.h"

namespace tributary::columnar {

/// A column of the rows of `column` at `indices` (each in 0..Length()-1, may repeat), in that
/// order; nested children are gathered along. An InvalidArgument error names an index out of
/// range.
Result<ColumnPtr> Take(const Column& column, std::span<const int64_t> indices,
                       MemoryPool* pool = DefaultMemoryPool());

/// The rows `rows` of every column of `batch` (each in 0..NumRows()-1, may repeat), in that
/// order, as a batch of the same schema.
Result<RecordBatchPtr> TakeRows(const RecordBatch& batch, std::span<const int64_t> rows,
                                MemoryPool* pool = DefaultMemoryPool());

/// The indices of rows where the boolean `mask` is true (null counts as false, as a filter).
Result<std::vector<int64_t>> SelectedRows(const Column& mask);

/// The rows of `batch` where the boolean `mask` is true (null counts as false).
Result<RecordBatchPtr> Filter(const RecordBatch& batch, const Column& mask,
                              MemoryPool* pool = DefaultMemoryPool());

/// The rows of `columns` (all of the same type) one after the other, every type including
/// struct, array and map (children concatenated recursively).
Result<ColumnPtr> Concatenate(std::span<const ColumnPtr> columns,
                              MemoryPool* pool = DefaultMemoryPool());

}  // namespace tributary::columnar

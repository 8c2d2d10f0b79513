// Typed column kernels behind the evaluator (internal to the expr layer).

#pragma once

#include "columnar/column.h"
#include "expr/evaluator.h"

namespace tributary::expr {

using columnar::BufferPtr;
using columnar::Column;
using columnar::ColumnPtr;
using columnar::MemoryPool;

/// Validity of rows valid in both `a` and `b` (nullptr when both are all-valid).
Result<BufferPtr> IntersectValidity(const Column& a, const Column& b, MemoryPool* pool);

/// a <op> b for +, -, *, /, %: operands already of the kernel's type (integers and floats:
/// `type`; decimals: their own scales, result `type`).
Result<ColumnPtr> ArithmeticKernel(Op op, const Column& a, const Column& b, const DataTypePtr& type,
                                   MemoryPool* pool);
/// ArithmeticKernel with rows that overflow or divide by zero null instead of an error
/// (try_add, try_subtract, try_multiply, try_divide, try_mod).
Result<ColumnPtr> TryArithmeticKernel(Op op, const Column& a, const Column& b,
                                      const DataTypePtr& type, MemoryPool* pool);
Result<ColumnPtr> NegateKernel(const Column& input, MemoryPool* pool);

/// a <op> b for =, !=, <, <=, >, >=, <=>, both operands of one type.
Result<ColumnPtr> CompareKernel(Op op, const Column& a, const Column& b, MemoryPool* pool);
/// a <op> constant, where `constant` is a one-row non-null column of a's type (a literal): the
/// literal is not repeated for every row.
Result<ColumnPtr> CompareWithConstantKernel(Op op, const Column& a, const Column& constant,
                                            MemoryPool* pool);

/// CAST(input AS type); `safe` turns failures into nulls (try_cast) instead of an error.
Result<ColumnPtr> CastKernel(const Column& input, const DataTypePtr& type, bool safe,
                             const EvalContext& context);

/// Appends Spark's CAST(value AS STRING) text of valid row `row` of `column`.
void AppendCastString(const Column& column, int64_t row, const EvalContext& context,
                      std::string* out);

/// CASE WHEN, evaluating each branch only over the rows that reach it.
Result<ColumnPtr> EvaluateCaseWhen(const BoundExpression& expr, const columnar::RecordBatch& batch,
                                   const EvalContext& context);

/// base[key] of an array (0-based `key`, int32) or a map (key of the map's key type). An array
/// index out of range is an ANSI error naming the row; a missing map key gives null.
Result<ColumnPtr> SubscriptKernel(const Column& base, const Column& key, MemoryPool* pool);

}  // namespace tributary::expr

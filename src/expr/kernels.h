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
Result<ColumnPtr> NegateKernel(const Column& input, MemoryPool* pool);

/// a <op> b for =, !=, <, <=, >, >=, <=>, both operands of one type.
Result<ColumnPtr> CompareKernel(Op op, const Column& a, const Column& b, MemoryPool* pool);

/// CAST(input AS type); `safe` turns failures into nulls (try_cast) instead of an error.
Result<ColumnPtr> CastKernel(const Column& input, const DataTypePtr& type, bool safe,
                             const EvalContext& context);

}  // namespace tributary::expr

// Evaluates bound expressions over record batches, one whole column per node: the work per
// row is a tight typed loop, never a virtual call.

#pragma once

#include <optional>
#include <string>

#include "columnar/record_batch.h"
#include "expr/bound_expression.h"
#include "expr/time_zone.h"

namespace tributary::expr {

/// What evaluation needs besides the batch.
struct EvalContext {
  /// Zone of zone-less text and of date <-> timestamp conversions. Default: UTC.
  TimeZone session_time_zone;
  /// Where result columns are allocated. Default: the process-wide pool.
  columnar::MemoryPool* pool = columnar::DefaultMemoryPool();
  /// The instant current_timestamp()/now()/current_date() return, fixed per query or
  /// micro-batch by whoever runs it (microseconds since the epoch, UTC). Default: unset, in
  /// which case those functions fail with InvalidArgument instead of reading a clock.
  std::optional<int64_t> current_timestamp_micros;
  /// What current_schema()/current_database() return: the session's schema (USE). Default:
  /// "default".
  std::string current_schema = "default";
};

/// The values of `expr` for every row of `batch` (which must have the schema `expr` was bound
/// against). ANSI errors (overflow, division by zero, a value CAST cannot convert) fail the
/// whole batch with an InvalidArgument error naming the expression, the row and the value.
Result<columnar::ColumnPtr> Evaluate(const BoundExpression& expr,
                                     const columnar::RecordBatch& batch,
                                     const EvalContext& context = {});

/// `value` repeated `length` times as a column.
Result<columnar::ColumnPtr> MakeConstantColumn(const Scalar& value, int64_t length,
                                               columnar::MemoryPool* pool);

}  // namespace tributary::expr

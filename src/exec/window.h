// Window functions (Spark's WindowExec): ranking, offset and aggregate functions computed over
// each row's partition and frame.

#pragma once

#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"

namespace tributary::exec {

/// Holds its whole input (memory from `context.pool`), then for each window function sorts the
/// rows by partition and ordering keys (functions with the same keys share one sort) and
/// computes the function over each row's partition and frame:
///   - ranking: row_number, rank, dense_rank (int), percent_rank, cume_dist (double), ntile;
///   - offsets: lag and lead (offset and default optional), nth_value in the frame;
///   - aggregates: any of expr/aggregate_signatures.h over the frame, through the same
///     accumulators as GROUP BY. A frame over the whole partition folds each partition once; a
///     frame starting at UNBOUNDED PRECEDING folds each row (or peer group) once, in order;
///     other frames fold each row's frame.
/// Peers are rows whose ordering keys are equal; RANGE frames with an offset take rows whose
/// (single, numeric, date or timestamp) ordering key is within the offset.
///
/// Output: the input columns in input order, then one column per function.
class WindowOperator final : public Operator {
 public:
  WindowOperator(std::shared_ptr<const WindowNode> node, OperatorPtr input,
                 const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  Status Consume();

  std::shared_ptr<const WindowNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  bool consumed_ = false;
  std::vector<ColumnPtr> output_;
  int64_t rows_ = 0;
  int64_t emitted_ = 0;
};

}  // namespace tributary::exec

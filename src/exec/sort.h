// Sort (ORDER BY) and top-N (ORDER BY ... LIMIT n).

#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"

namespace tributary::exec {

using columnar::ColumnPtr;

/// Orders its input by the node's keys with Spark's ordering: numbers by value with NaN above
/// every number and -0.0 equal to 0.0, strings and binary by their bytes (UTF-8 order), booleans
/// false first, structs field by field, arrays element by element (a prefix first). Stable:
/// rows with equal keys keep their input order.
///
/// Without a limit it holds the whole input (memory from `context.pool`) and sorts it once.
/// With a limit it is a top-N: each batch is cut to its best `limit` rows, and kept rows are
/// merged back down to `limit` whenever they pass 2 * limit, so memory stays O(limit + batch).
/// Output: the input columns, in batches of kTargetBatchRows.
class SortOperator final : public Operator {
 public:
  SortOperator(std::shared_ptr<const SortNode> node, OperatorPtr input, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  Status Consume();
  // Input columns followed by the evaluated key columns.
  Result<std::vector<ColumnPtr>> Augment(const columnar::RecordBatch& batch) const;
  // The stable order of rows 0..rows-1 of `columns` (augmented) by the keys; with `keep` only
  // the first `keep` of it.
  std::vector<int64_t> Order(const std::vector<ColumnPtr>& columns, int64_t rows,
                             int64_t keep) const;
  // Concatenates `pieces` (augmented columns) and keeps its best `keep` rows, in order.
  Result<std::vector<ColumnPtr>> Merge(const std::vector<std::vector<ColumnPtr>>& pieces,
                                       int64_t keep) const;

  /// The input held so far, then the sorted output and how much of it was returned.
  struct State {
    bool consumed = false;
    std::vector<ColumnPtr> sorted;  // input columns, in output order
    int64_t sorted_rows = 0;
    int64_t emitted_rows = 0;
  };

  std::shared_ptr<const SortNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  State state_;
};

}  // namespace tributary::exec

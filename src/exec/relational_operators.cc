#include "exec/relational_operators.h"

#include <numeric>

#include <fmt/format.h>

#include "columnar/take.h"

namespace tributary::exec {

Result<RecordBatchPtr> BatchSourceOperator::Next() {
  const std::vector<RecordBatchPtr>& batches = node_->Batches();
  if (next_ >= batches.size()) {
    return RecordBatchPtr{};
  }
  return batches[next_++];
}

Result<RecordBatchPtr> RowCountingOperator::Next() {
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
  if (batch != nullptr) {
    node_->Counter()->fetch_add(batch->NumRows(), std::memory_order_relaxed);
  }
  return batch;
}

Result<RecordBatchPtr> FilterOperator::Next() {
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      return batch;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr mask,
                              expr::Evaluate(*node_->Predicate(), *batch, context_.eval));
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> selected, columnar::SelectedRows(*mask));
    const auto rows = static_cast<int64_t>(selected.size());
    // A batch that passes whole is handed on as it is (batches are immutable), without copies.
    if (rows == batch->NumRows()) {
      return batch;
    }
    // Empty results are dropped here so consumers see only batches with rows (the contract
    // allows an empty batch only at the end).
    if (rows > 0) {
      return columnar::TakeRows(*batch, selected, context_.eval.pool);
    }
  }
}

Result<RecordBatchPtr> ProjectOperator::Next() {
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
  if (batch == nullptr) {
    return batch;
  }
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(node_->Expressions().size());
  for (const expr::BoundExprPtr& expression : node_->Expressions()) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column,
                              expr::Evaluate(*expression, *batch, context_.eval));
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(node_->Schema(), batch->NumRows(), std::move(columns));
}

Result<RecordBatchPtr> ExpandOperator::Next() {
  const auto& projections = node_->Projections();
  if (batch_ == nullptr || next_projection_ == projections.size()) {
    TRIBUTARY_ASSIGN_OR_RAISE(batch_, input_->Next());
    next_projection_ = 0;
    if (batch_ == nullptr) {
      return batch_;
    }
  }
  const std::vector<expr::BoundExprPtr>& projection = projections[next_projection_++];
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(projection.size());
  for (const expr::BoundExprPtr& expression : projection) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column,
                              expr::Evaluate(*expression, *batch_, context_.eval));
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(node_->Schema(), batch_->NumRows(), std::move(columns));
}

Result<RecordBatchPtr> LimitOperator::Next() {
  while (state_.remaining > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      state_.remaining = 0;
      return batch;
    }
    const int64_t rows = batch->NumRows();
    if (state_.to_skip >= rows) {
      state_.to_skip -= rows;
      continue;
    }
    const int64_t begin = state_.to_skip;
    const int64_t count = std::min(rows - begin, state_.remaining);
    state_.to_skip = 0;
    state_.remaining -= count;
    if (begin == 0 && count == rows) {
      return batch;
    }
    std::vector<int64_t> indices(static_cast<size_t>(count));
    std::iota(indices.begin(), indices.end(), begin);
    std::vector<columnar::ColumnPtr> columns;
    for (const columnar::ColumnPtr& column : batch->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr taken, columnar::Take(*column, indices));
      columns.push_back(std::move(taken));
    }
    return columnar::RecordBatch::Make(batch->Schema(), count, std::move(columns));
  }
  return RecordBatchPtr{};
}

Result<RecordBatchPtr> UnionAllOperator::Next() {
  while (current_ < inputs_.size()) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, inputs_[current_]->Next());
    if (batch == nullptr) {
      ++current_;
      continue;
    }
    if (current_ == 0) {
      return batch;
    }
    // Later inputs carry their own column names; the union's are the first input's.
    return columnar::RecordBatch::Make(OutputSchema(), batch->NumRows(), batch->Columns());
  }
  return RecordBatchPtr{};
}

std::vector<const Operator*> UnionAllOperator::Children() const {
  std::vector<const Operator*> children;
  for (const OperatorPtr& input : inputs_) {
    children.push_back(input.get());
  }
  return children;
}

}  // namespace tributary::exec

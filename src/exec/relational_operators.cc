#include "exec/relational_operators.h"

#include <numeric>

#include <fmt/format.h>

#include "columnar/take.h"

namespace tributary::exec {

BatchSourceOperator::BatchSourceOperator(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                                         std::string description)
    : schema_(std::move(schema)),
      batches_(std::move(batches)),
      description_(std::move(description)) {}

Result<RecordBatchPtr> BatchSourceOperator::Next() {
  if (next_ >= batches_.size()) {
    return RecordBatchPtr{};
  }
  return batches_[next_++];
}

std::string BatchSourceOperator::ToString() const {
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches_) {
    rows += batch->NumRows();
  }
  return fmt::format("{}(rows={})", description_, rows);
}

RowCountingOperator::RowCountingOperator(OperatorPtr input,
                                         std::shared_ptr<std::atomic<int64_t>> counter)
    : input_(std::move(input)), counter_(std::move(counter)) {}

Result<RecordBatchPtr> RowCountingOperator::Next() {
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
  if (batch != nullptr) {
    counter_->fetch_add(batch->NumRows(), std::memory_order_relaxed);
  }
  return batch;
}

FilterOperator::FilterOperator(OperatorPtr input, expr::BoundExprPtr predicate,
                               const ExecContext& context)
    : input_(std::move(input)), predicate_(std::move(predicate)), context_(context) {}

Result<RecordBatchPtr> FilterOperator::Next() {
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      return batch;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr mask,
                              expr::Evaluate(*predicate_, *batch, context_.eval));
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> selected, columnar::SelectedRows(*mask));
    const auto rows = static_cast<int64_t>(selected.size());
    // A batch that passes whole is handed on as it is (batches are immutable), without copies.
    if (rows == batch->NumRows()) {
      return batch;
    }
    // Empty results are dropped here so consumers see only batches with rows (the contract
    // allows an empty batch only at the end).
    if (rows > 0) {
      std::vector<columnar::ColumnPtr> columns;
      columns.reserve(batch->Columns().size());
      for (const columnar::ColumnPtr& column : batch->Columns()) {
        TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr taken,
                                  columnar::Take(*column, selected, context_.eval.pool));
        columns.push_back(std::move(taken));
      }
      return columnar::RecordBatch::Make(batch->Schema(), rows, std::move(columns));
    }
  }
}

std::string FilterOperator::ToString() const {
  return fmt::format("Filter({})", predicate_->ToString());
}

ProjectOperator::ProjectOperator(OperatorPtr input, std::vector<expr::BoundExprPtr> expressions,
                                 SchemaPtr schema, const ExecContext& context)
    : input_(std::move(input)),
      expressions_(std::move(expressions)),
      schema_(std::move(schema)),
      context_(context) {}

Result<RecordBatchPtr> ProjectOperator::Next() {
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
  if (batch == nullptr) {
    return batch;
  }
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(expressions_.size());
  for (const expr::BoundExprPtr& expression : expressions_) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column,
                              expr::Evaluate(*expression, *batch, context_.eval));
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(schema_, batch->NumRows(), std::move(columns));
}

std::string ProjectOperator::ToString() const {
  std::string out = "Project(";
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += expressions_[i]->ToString();
    const std::string& name = schema_->FieldAt(static_cast<int>(i)).Name();
    if (expressions_[i]->GetOp() != expr::Op::kColumn || expressions_[i]->Name() != name) {
      out += " AS " + name;
    }
  }
  return out + ")";
}

LimitOperator::LimitOperator(OperatorPtr input, int64_t limit, int64_t offset)
    : input_(std::move(input)), remaining_(limit), to_skip_(offset) {}

Result<RecordBatchPtr> LimitOperator::Next() {
  while (remaining_ > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      remaining_ = 0;
      return batch;
    }
    const int64_t rows = batch->NumRows();
    if (to_skip_ >= rows) {
      to_skip_ -= rows;
      continue;
    }
    const int64_t begin = to_skip_;
    const int64_t count = std::min(rows - begin, remaining_);
    to_skip_ = 0;
    remaining_ -= count;
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

std::string LimitOperator::ToString() const {
  return to_skip_ > 0 ? fmt::format("Limit({}, offset={})", remaining_, to_skip_)
                      : fmt::format("Limit({})", remaining_);
}

UnionAllOperator::UnionAllOperator(std::vector<OperatorPtr> inputs) : inputs_(std::move(inputs)) {}

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

// The streaming (non-blocking) relational operators: a source of given batches, filter,
// project, limit and union all. Each passes batches through as it pulls them.

#pragma once

#include <string>
#include <vector>

#include "exec/operator.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

/// Returns the given batches in order (VALUES lists, memory tables, foreachBatch inputs).
class BatchSourceOperator final : public Operator {
 public:
  BatchSourceOperator(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                      std::string description = "Values");
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_ = 0;
  std::string description_;
};

/// Passes its input through and adds the number of rows to `counter` (a micro-batch's input
/// row count, read after the query ran).
class RowCountingOperator final : public Operator {
 public:
  RowCountingOperator(OperatorPtr input, std::shared_ptr<std::atomic<int64_t>> counter);
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return input_->ToString(); }
  std::vector<const Operator*> Children() const override { return input_->Children(); }

 private:
  OperatorPtr input_;
  std::shared_ptr<std::atomic<int64_t>> counter_;
};

/// Keeps the rows for which `predicate` (boolean, bound against the input schema) is true;
/// null counts as false.
class FilterOperator final : public Operator {
 public:
  FilterOperator(OperatorPtr input, expr::BoundExprPtr predicate, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  OperatorPtr input_;
  expr::BoundExprPtr predicate_;
  const ExecContext& context_;
};

/// Evaluates one expression per output column. `schema` names the outputs; its types are the
/// expressions' types.
class ProjectOperator final : public Operator {
 public:
  ProjectOperator(OperatorPtr input, std::vector<expr::BoundExprPtr> expressions, SchemaPtr schema,
                  const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  OperatorPtr input_;
  std::vector<expr::BoundExprPtr> expressions_;
  SchemaPtr schema_;
  const ExecContext& context_;
};

/// Skips the first `offset` rows, then passes on at most `limit` rows and stops pulling.
class LimitOperator final : public Operator {
 public:
  LimitOperator(OperatorPtr input, int64_t limit, int64_t offset = 0);
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  OperatorPtr input_;
  int64_t remaining_;
  int64_t to_skip_;
};

/// All rows of each input in turn, under the first input's schema (inputs must have the same
/// column types; names come from the first, as SQL's UNION).
class UnionAllOperator final : public Operator {
 public:
  explicit UnionAllOperator(std::vector<OperatorPtr> inputs);
  const SchemaPtr& OutputSchema() const override { return inputs_.front()->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return "UnionAll"; }
  std::vector<const Operator*> Children() const override;

 private:
  std::vector<OperatorPtr> inputs_;
  size_t current_ = 0;
};

}  // namespace tributary::exec

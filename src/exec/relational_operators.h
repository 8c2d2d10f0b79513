// The streaming (non-blocking) relational operators: a source of given batches, filter,
// project, limit and union all. Each passes batches through as it pulls them.

#pragma once

#include <string>
#include <vector>

#include "exec/operator.h"
#include "exec/physical_plan.h"

namespace tributary::exec {

/// Returns the batches of a ValuesNode in order.
class BatchSourceOperator final : public Operator {
 public:
  explicit BatchSourceOperator(std::shared_ptr<const ValuesNode> node) : node_(std::move(node)) {}
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }

 private:
  std::shared_ptr<const ValuesNode> node_;
  size_t next_ = 0;  // state: the next batch to return
};

/// Passes its input through and adds the number of rows to the node's counter (a micro-batch's
/// input row count, read after the query ran).
class RowCountingOperator final : public Operator {
 public:
  RowCountingOperator(std::shared_ptr<const RowCountingNode> node, OperatorPtr input)
      : node_(std::move(node)), input_(std::move(input)) {}
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return input_->ToString(); }
  std::vector<const Operator*> Children() const override { return input_->Children(); }

 private:
  std::shared_ptr<const RowCountingNode> node_;
  OperatorPtr input_;
};

/// Keeps the rows for which the node's predicate is true; null counts as false. Stateless.
class FilterOperator final : public Operator {
 public:
  FilterOperator(std::shared_ptr<const FilterNode> node, OperatorPtr input,
                 const ExecContext& context)
      : node_(std::move(node)), input_(std::move(input)), context_(context) {}
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  std::shared_ptr<const FilterNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
};

/// Evaluates one expression per output column. The node's schema names the outputs; its types
/// are the expressions' types. Stateless.
class ProjectOperator final : public Operator {
 public:
  ProjectOperator(std::shared_ptr<const ProjectNode> node, OperatorPtr input,
                  const ExecContext& context)
      : node_(std::move(node)), input_(std::move(input)), context_(context) {}
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  std::shared_ptr<const ProjectNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
};

/// Evaluates each projection of the node over each input batch, one output batch per
/// projection (Spark's Expand). Holds one input batch at a time.
class ExpandOperator final : public Operator {
 public:
  ExpandOperator(std::shared_ptr<const ExpandNode> node, OperatorPtr input,
                 const ExecContext& context)
      : node_(std::move(node)), input_(std::move(input)), context_(context) {}
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  std::shared_ptr<const ExpandNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  RecordBatchPtr batch_;  // the input batch being expanded
  size_t next_projection_ = 0;
};

/// Skips the first `offset` rows, then passes on at most `limit` rows and stops pulling.
class LimitOperator final : public Operator {
 public:
  LimitOperator(std::shared_ptr<const LimitNode> node, OperatorPtr input)
      : node_(std::move(node)), input_(std::move(input)), state_{node_->Limit(), node_->Offset()} {}
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  /// How far the limit has got.
  struct State {
    int64_t remaining;
    int64_t to_skip;
  };

  std::shared_ptr<const LimitNode> node_;
  OperatorPtr input_;
  State state_;
};

/// All rows of each input in turn, under the first input's schema (inputs must have the same
/// column types; names come from the first, as SQL's UNION).
class UnionAllOperator final : public Operator {
 public:
  UnionAllOperator(std::shared_ptr<const UnionAllNode> node, std::vector<OperatorPtr> inputs)
      : node_(std::move(node)), inputs_(std::move(inputs)) {}
  const SchemaPtr& OutputSchema() const override { return inputs_.front()->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override;

 private:
  std::shared_ptr<const UnionAllNode> node_;
  std::vector<OperatorPtr> inputs_;
  size_t current_ = 0;  // state: the input being read
};

}  // namespace tributary::exec

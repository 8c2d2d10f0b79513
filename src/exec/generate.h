// Spark's explode family: one output row per element of an array (or entry of a map) computed
// per input row, with the input row's columns repeated alongside.

#pragma once

#include "exec/operator.h"
#include "exec/physical_plan.h"

namespace tributary::exec {

/// Output: the input's columns, then `pos` (with_position), then `col` (arrays) or `key`,
/// `value` (maps), named and typed by the node's schema. Stateless.
class GenerateOperator final : public Operator {
 public:
  GenerateOperator(std::shared_ptr<const GenerateNode> node, OperatorPtr input,
                   const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  std::shared_ptr<const GenerateNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
};

}  // namespace tributary::exec

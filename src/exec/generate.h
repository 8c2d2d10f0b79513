// Spark's explode family: one output row per element of an array (or entry of a map) computed
// per input row, with the input row's columns repeated alongside.

#pragma once

#include "exec/operator.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

/// What to generate from the collection of each row.
struct GenerateSpec {
  /// An array or map, bound against the input.
  expr::BoundExprPtr collection;
  /// explode_outer/posexplode_outer: a null or empty collection still gives one row (with
  /// nulls); plain explode drops the row.
  bool outer = false;
  /// posexplode: a leading `pos` column (int, 0-based position in the collection).
  bool with_position = false;
};

/// Output: the input's columns, then `pos` (with_position), then `col` (arrays) or `key`,
/// `value` (maps), named and typed by `output_schema`.
class GenerateOperator final : public Operator {
 public:
  GenerateOperator(OperatorPtr input, GenerateSpec spec, SchemaPtr output_schema,
                   const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  OperatorPtr input_;
  GenerateSpec spec_;
  SchemaPtr schema_;
  const ExecContext& context_;
};

}  // namespace tributary::exec

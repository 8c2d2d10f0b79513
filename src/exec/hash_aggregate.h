// Hash aggregation: GROUP BY with Spark's aggregate functions, and DISTINCT (keys, no
// aggregates). Blocking: it consumes its whole input, then returns one row per group.

#pragma once

#include <string>
#include <vector>

#include "exec/aggregate/aggregate_function.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

/// GROUP BY the node's keys computing its aggregates. Output: the key columns, then one column per
/// aggregate, named and typed by the node's schema (the planner builds it with
/// AggregateResultType). Groups follow Spark's grouping: NULL keys form one group, -0.0 and
/// 0.0 one group, all NaNs one group. With no keys the result is exactly one row, also over
/// empty input (count 0, other aggregates null), as SQL; with keys and no aggregates it is
/// DISTINCT. Integral sum overflow is an InvalidArgument error naming the function and the
/// group (ANSI). Groups come out in order of first appearance, in batches of kTargetBatchRows.
/// Hash table and aggregate states are allocated from `context.pool`. A call this operator
/// cannot compute (unknown function, argument types AggregateResultType rejects, a non-literal
/// ignoreNulls) fails the first Next() with InvalidArgument.
class HashAggregateOperator final : public Operator {
 public:
  HashAggregateOperator(std::shared_ptr<const HashAggregateNode> node, OperatorPtr input,
                        const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  /// Everything that changes while the operator runs: the groups seen, one accumulator per
  /// aggregate call, then the finished result and how much of it was returned.
  struct State {
    explicit State(MemoryPool* pool) : groups(pool) {}
    bool consumed = false;
    GroupTable groups;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
    std::vector<ColumnPtr> result_columns;
    int64_t result_rows = 0;
    int64_t emitted_rows = 0;
  };

  Status Consume();
  std::string DescribeGroup(int32_t group) const;

  std::shared_ptr<const HashAggregateNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  State state_;
};

/// "(k=3, s=\"a\")": a group's grouping-encoded key `encoded` with the key expressions it holds,
/// for error messages (an overflowing sum names its group).
std::string DescribeGroupingKey(const std::vector<expr::BoundExprPtr>& keys, std::string_view key);

}  // namespace tributary::exec

// Hash aggregation: GROUP BY with Spark's aggregate functions, and DISTINCT (keys, no
// aggregates). Blocking: it consumes its whole input, then returns one row per group.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exec/operator.h"
#include "exec/row_key.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

/// One aggregate function call of a GROUP BY. Names are Spark's (case-insensitive):
/// count, count_if, sum, avg|mean, min, max, first|first_value, last|last_value,
/// collect_list, collect_set, approx_count_distinct, stddev|std|stddev_samp, stddev_pop,
/// variance|var_samp, var_pop, bool_and|every, bool_or|some|any.
struct AggregateCall {
  std::string function;
  /// Bound against the aggregate's input schema; count(*) has none. first/last take an
  /// optional second argument, a boolean literal: ignoreNulls (Default: false, as Spark);
  /// approx_count_distinct an optional numeric literal: relativeSD (Default: 0.05).
  std::vector<expr::BoundExprPtr> arguments;
  /// count(DISTINCT ...), sum(DISTINCT ...): each distinct argument tuple counts once per group.
  bool distinct = false;
};

/// The result type of `function` over arguments of `argument_types`, Spark's rules:
/// count/count_if/approx_count_distinct -> bigint; sum: integral -> bigint, decimal(p,s) ->
/// decimal(min(38,p+10),s), float/double -> double; avg: decimal(p,s) ->
/// decimal(min(38,p+4),min(38,s+4)), other numeric -> double; min/max/first/last -> the
/// argument's type; collect_list/collect_set -> array<T> (no null elements); stddev/variance
/// family -> double; bool_and/bool_or -> boolean. InvalidArgument names an unknown function or
/// an argument type the function does not take.
Result<columnar::DataTypePtr> AggregateResultType(std::string_view function,
                                                  const std::vector<DataTypePtr>& argument_types,
                                                  bool distinct);

/// GROUP BY `keys` computing `aggregates`. Output: the key columns, then one column per
/// aggregate, named and typed by `output_schema` (the planner builds it with
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
  HashAggregateOperator(OperatorPtr input, std::vector<expr::BoundExprPtr> keys,
                        std::vector<AggregateCall> aggregates, SchemaPtr output_schema,
                        const ExecContext& context);
  ~HashAggregateOperator() override;
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

  /// Aggregation state, internal to the .cc.
  class Accumulator;

 private:
  Status Consume();
  std::string DescribeGroup(int32_t group) const;

  OperatorPtr input_;
  std::vector<expr::BoundExprPtr> keys_;
  std::vector<AggregateCall> aggregates_;
  SchemaPtr schema_;
  const ExecContext& context_;

  bool consumed_ = false;
  GroupTable groups_;
  std::vector<std::unique_ptr<Accumulator>> accumulators_;
  std::vector<ColumnPtr> result_columns_;
  int64_t result_rows_ = 0;
  int64_t emitted_rows_ = 0;
};

}  // namespace tributary::exec

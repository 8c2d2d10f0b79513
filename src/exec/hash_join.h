// Hash join: equi-joins of every SQL type plus semi, anti and cross joins. The right input is
// the build side (the planner puts the smaller input there: Spark's broadcast of the small
// side); the left input streams through it batch by batch.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exec/operator.h"
#include "exec/row_key.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

enum class JoinType { kInner, kLeft, kRight, kFull, kLeftSemi, kLeftAnti, kCross };

/// Spark's name of a join type: "inner", "left_outer", "right_outer", "full_outer",
/// "left_semi", "left_anti", "cross".
std::string_view JoinTypeName(JoinType type);

/// Joins `left` and `right` on left_keys[i] = right_keys[i] (bound against each side's schema;
/// the planner has coerced each pair to one type). A key with a NULL never matches (SQL =).
/// `residual`, when not null, is a boolean condition bound against left schema ++ right schema,
/// applied to every candidate pair before outer rows are decided, as SQL's ON. kCross and
/// empty key lists pair every row with every row (then filtered by `residual`).
///
/// Output: left columns ++ right columns (kLeftSemi/kLeftAnti: left columns only), the columns
/// of an outer join's missing side null, named and typed by `output_schema`. Each left batch
/// gives its matched pairs in left-row order, then (left/full) its unmatched left rows; right
/// and full joins end with the unmatched right rows. Anti join keeps left rows whose keys are
/// null (NOT EXISTS semantics). Batches hold about kTargetBatchRows rows. The build side and
/// its hash table are allocated from `context.pool`.
class HashJoinOperator final : public Operator {
 public:
  HashJoinOperator(OperatorPtr left, OperatorPtr right, JoinType type,
                   std::vector<expr::BoundExprPtr> left_keys,
                   std::vector<expr::BoundExprPtr> right_keys, expr::BoundExprPtr residual,
                   SchemaPtr output_schema, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;
  std::vector<const Operator*> Children() const override { return {left_.get(), right_.get()}; }

 private:
  Status Build();
  Status StartLeftBatch(RecordBatchPtr batch);
  // Generates up to kTargetBatchRows candidate pairs of the current left batch, filters them
  // by the residual and records matches; appends output pairs.
  Status ProbeChunk();
  Result<RecordBatchPtr> EmitPairs();
  bool KeepsUnmatchedLeft() const { return type_ == JoinType::kLeft || type_ == JoinType::kFull; }
  bool KeepsUnmatchedRight() const { return type_ == JoinType::kRight || type_ == JoinType::kFull; }
  bool LeftOnly() const { return type_ == JoinType::kLeftSemi || type_ == JoinType::kLeftAnti; }

  OperatorPtr left_;
  OperatorPtr right_;
  JoinType type_;
  std::vector<expr::BoundExprPtr> left_keys_;
  std::vector<expr::BoundExprPtr> right_keys_;
  expr::BoundExprPtr residual_;
  SchemaPtr schema_;
  SchemaPtr pair_schema_;  // left ++ right, what `residual_` is bound against
  const ExecContext& context_;

  bool built_ = false;
  RecordBatchPtr build_;
  GroupTable table_;
  PoolArray<int64_t> heads_;  // per key group: first build row + 1
  PoolArray<int64_t> tails_;
  PoolArray<int64_t> next_;  // per build row: next build row of its group + 1; 0 at the end
  PoolArray<uint8_t> right_matched_;

  RecordBatchPtr probe_;    // the current left batch, or null
  EncodedKeys probe_keys_;  // reused batch to batch
  std::vector<int32_t> probe_groups_;
  std::vector<uint8_t> left_matched_;
  int64_t probe_row_ = 0;
  int64_t chain_ = 0;  // next build row + 1 of the current left row's chain; 0: not started
  bool left_done_ = false;
  int64_t unmatched_right_cursor_ = 0;

  std::vector<int64_t> out_left_;
  std::vector<int64_t> out_right_;
};

}  // namespace tributary::exec

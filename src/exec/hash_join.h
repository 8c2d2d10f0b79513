// Hash join: equi-joins of every SQL type plus semi, anti and cross joins. The right input is
// the build side (the planner puts the smaller input there: Spark's broadcast of the small
// side); the left input streams through it batch by batch.

#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exec/integer_key_index.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"
#include "expr/bound_expression.h"

namespace tributary::exec {

/// left ++ right: the schema a join's residual is bound against.
SchemaPtr ConcatSchemas(const columnar::Schema& left, const columnar::Schema& right);

/// Each of `expressions` evaluated over `batch` (a join's key columns).
Result<std::vector<ColumnPtr>> EvaluateAll(const std::vector<expr::BoundExprPtr>& expressions,
                                           const columnar::RecordBatch& batch,
                                           const expr::EvalContext& context);

/// Sets passes[i] to 1 where `residual` (boolean, bound against `pair_schema` = left ++ right)
/// is true for row left_rows[i] of `left` paired with row right_rows[i] of `right`, else 0
/// (NULL is false, as in ON). The pairs are gathered into one batch and evaluated at once.
Status EvaluateJoinResidual(const expr::BoundExpression& residual, const SchemaPtr& pair_schema,
                            const columnar::RecordBatch& left, std::span<const int64_t> left_rows,
                            const columnar::RecordBatch& right, std::span<const int64_t> right_rows,
                            const expr::EvalContext& context, std::vector<uint8_t>* passes);

/// A hash join's build side: the right input's rows in one batch and their index by key. It is
/// built once, by the first probe that needs it, and only read afterwards, so the joins probing
/// each part of a left input on worker threads (a parallel scan's) share one. Thread-safe.
class JoinBuildSide {
 public:
  JoinBuildSide(std::shared_ptr<const HashJoinNode> node, OperatorPtr right,
                const ExecContext& context);
  /// Drains the right input and indexes it on the first call; later calls (from any thread)
  /// wait for that one and return its status.
  Status Build();
  const Operator& Right() const { return *right_; }

  // Read-only once Build() succeeded.
  RecordBatchPtr right_rows;
  // One integer-like key: the build side indexed by value (integer_index). Otherwise its
  // encoded keys in `table`, with the chains' heads and tails per key group.
  bool by_value = false;
  bool unique_keys = false;  // no two build rows share a key: chains need no `next` read
  GroupTable table;
  PoolArray<int64_t> heads;  // per key group: first build row + 1
  PoolArray<int64_t> tails;
  IntegerKeyIndex integer_index;
  PoolArray<int64_t> next;  // per build row: next build row of its key + 1; 0 at the end

 private:
  Status BuildOnce();

  std::shared_ptr<const HashJoinNode> node_;
  OperatorPtr right_;
  const ExecContext& context_;
  std::mutex mutex_;
  bool built_ = false;
  Status status_;
};

/// Joins `left` and `right` on the node's left_keys[i] = right_keys[i] (bound against each
/// side's schema; the planner has coerced each pair to one type). A key with a NULL never
/// matches (SQL =). The residual, when not null, is a boolean condition bound against left
/// schema ++ right schema, applied to every candidate pair before outer rows are decided, as
/// SQL's ON. kCross and empty key lists pair every row with every row (then filtered by the
/// residual).
///
/// Output: left columns ++ right columns (kLeftSemi/kLeftAnti: left columns only), the columns
/// of an outer join's missing side null, named and typed by the node's schema. Each left batch
/// gives its matched pairs in left-row order, then (left/full) its unmatched left rows; right
/// and full joins end with the unmatched right rows. Anti join keeps left rows whose keys are
/// null (NOT EXISTS semantics). Batches hold about kTargetBatchRows rows. The build side and
/// its hash table are allocated from `context.pool`.
class HashJoinOperator final : public Operator {
 public:
  HashJoinOperator(std::shared_ptr<const HashJoinNode> node, OperatorPtr left, OperatorPtr right,
                   const ExecContext& context);
  /// Probes `build`, shared with other operators probing other parts of the left input. Not
  /// for right and full joins, whose unmatched right rows need every probe's matches.
  HashJoinOperator(std::shared_ptr<const HashJoinNode> node, OperatorPtr left,
                   std::shared_ptr<JoinBuildSide> build, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {left_.get(), &build_->Right()}; }

 private:
  /// The probe cursor in the current left batch, and the pairs waiting to be returned.
  struct State {
    explicit State(MemoryPool* pool) : right_matched(pool) {}
    bool built = false;
    PoolArray<uint8_t> right_matched;

    RecordBatchPtr probe;    // the current left batch, or null
    EncodedKeys probe_keys;  // reused batch to batch
    std::vector<int32_t> probe_groups;
    // Per row of the probe batch: the first build row + 1 of its key's chain, 0: no match.
    std::vector<int64_t> probe_heads;
    std::vector<uint8_t> left_matched;
    int64_t probe_row = 0;
    int64_t chain = 0;  // next build row + 1 of the current left row's chain; 0: not started
    bool left_done = false;
    int64_t unmatched_right_cursor = 0;

    std::vector<int64_t> out_left;
    std::vector<int64_t> out_right;
  };

  Status StartLeftBatch(RecordBatchPtr batch);
  // Generates up to kTargetBatchRows candidate pairs of the current left batch, filters them
  // by the residual and records matches; appends output pairs.
  Status ProbeChunk();
  // ProbeChunk without a residual, where every candidate is a match: pairs go straight to
  // the output.
  void ProbeChunkWithoutResidual();
  Result<RecordBatchPtr> EmitPairs();
  bool KeepsUnmatchedLeft() const {
    return node_->Type() == JoinType::kLeft || node_->Type() == JoinType::kFull;
  }
  bool KeepsUnmatchedRight() const {
    return node_->Type() == JoinType::kRight || node_->Type() == JoinType::kFull;
  }
  bool LeftOnly() const {
    return node_->Type() == JoinType::kLeftSemi || node_->Type() == JoinType::kLeftAnti;
  }

  std::shared_ptr<const HashJoinNode> node_;
  OperatorPtr left_;
  std::shared_ptr<JoinBuildSide> build_;
  SchemaPtr pair_schema_;  // left ++ right, what the residual is bound against
  const ExecContext& context_;
  State state_;
};

}  // namespace tributary::exec

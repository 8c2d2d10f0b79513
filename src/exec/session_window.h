// Session windows in aggregations (Spark's session_window): each row starts as its own
// session [time, time + gap) (expr's session_window), and the sessions of one grouping key
// (the keys besides the session) merge while, sorted by start, the next one starts at or before
// the current end. The merged session is the group's key.
//
// Batch: UpdatingSessionsOperator (Spark's UpdatingSessionsExec) gives every row the merged
// session of its key; a HashAggregate grouped by that column then computes the aggregates.
// Streaming: SessionWindowAggregateOperator (Spark's SessionWindowStateStoreRestoreExec +
// MergingSessionsExec + SessionWindowStateStoreSaveExec) keeps each key's open sessions in
// the state stores across micro-batches and emits them by the output mode. Both reuse the
// batch accumulators (exec/aggregate/): the streaming state holds the aggregate arguments of
// each session's rows, so a batch that bridges two stored sessions merges them by folding
// both row sets into one accumulator group.

#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "exec/aggregate/aggregate_function.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// The input's rows, with one column appended: the merged session of the row's key (`keys`,
/// bound against the input) that contains the row's own session (`session`, a
/// struct<start, end> expression; rows whose session is null get a null one). Output schema:
/// `schema` (the input's fields, then the session's). Blocking: a key's sessions are only
/// known once every row was seen.
class UpdatingSessionsNode final : public PhysicalNode {
 public:
  UpdatingSessionsNode(PhysicalNodePtr input, std::vector<expr::BoundExprPtr> keys,
                       expr::BoundExprPtr session, SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kUpdatingSessions, {std::move(input)}),
        keys_(std::move(keys)),
        session_(std::move(session)),
        schema_(std::move(schema)) {}
  const std::vector<expr::BoundExprPtr>& Keys() const { return keys_; }
  const expr::BoundExprPtr& Session() const { return session_; }
  const SchemaPtr& Schema() const { return schema_; }
  /// "UpdatingSessions(keys=[user], session=session_window(ts, 300000000))".
  std::string ToString() const override;

 private:
  std::vector<expr::BoundExprPtr> keys_;
  expr::BoundExprPtr session_;
  SchemaPtr schema_;
};

class UpdatingSessionsOperator final : public Operator {
 public:
  UpdatingSessionsOperator(std::shared_ptr<const UpdatingSessionsNode> node, OperatorPtr input,
                           const ExecContext& context)
      : node_(std::move(node)), input_(std::move(input)), context_(context) {}
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  Status Consume();

  std::shared_ptr<const UpdatingSessionsNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  bool consumed_ = false;
  std::vector<RecordBatchPtr> batches_;
  /// Per input row (all batches in order): the merged session, or start > end for none.
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
  size_t next_batch_ = 0;
  int64_t next_row_ = 0;
};

/// The type of the one column of a session window aggregation's state value (after its format
/// byte), for sessions of `time` (timestamp or timestamp_ntz):
/// array<struct<start, end, rows: array<binary>>> (grammar in session_window.cc).
DataTypePtr SessionWindowStateType(const DataTypePtr& time);

/// A streaming aggregation grouped by a session window: HashAggregateNode's keys, aggregates
/// and schema, where key `session_key` is the session_window(...) call and the others (at
/// least one, as Spark requires) pick the state row. Per batch, with the runtime:
///  - drops input rows whose own session ends at or before late_rows_watermark_micros (any
///    output mode: Spark's SessionWindowStateStoreRestoreExec), counting them;
///  - merges each touched key's stored sessions with the batch's rows and stores the result;
///  - emits: complete, every session in state; append, the sessions ending at or before
///    eviction_watermark_micros, removing them. Update mode is refused (Spark refuses it).
/// Errors: those of the accumulators, InvalidArgument without partitions or in update mode,
/// Corruption for state it cannot read.
class SessionWindowAggregateNode final : public PhysicalNode {
 public:
  SessionWindowAggregateNode(PhysicalNodePtr input, std::vector<expr::BoundExprPtr> keys,
                             int session_key, std::vector<AggregateCall> aggregates,
                             SchemaPtr schema, std::shared_ptr<StatefulOperatorRuntime> runtime)
      : PhysicalNode(PhysicalNodeKind::kSessionWindowAggregate, {std::move(input)}),
        keys_(std::move(keys)),
        session_key_(session_key),
        aggregates_(std::move(aggregates)),
        schema_(std::move(schema)),
        runtime_(std::move(runtime)) {}
  const std::vector<expr::BoundExprPtr>& Keys() const { return keys_; }
  int SessionKey() const { return session_key_; }
  const std::vector<AggregateCall>& Aggregates() const { return aggregates_; }
  const SchemaPtr& Schema() const { return schema_; }
  /// Changed by the streaming layer between batches and by the operator (metrics).
  const std::shared_ptr<StatefulOperatorRuntime>& Runtime() const { return runtime_; }
  /// "SessionWindowAggregate(keys=[user, session_window(...)], aggs=[count(*)])".
  std::string ToString() const override;

 private:
  std::vector<expr::BoundExprPtr> keys_;
  int session_key_;
  std::vector<AggregateCall> aggregates_;
  SchemaPtr schema_;
  std::shared_ptr<StatefulOperatorRuntime> runtime_;
};

class SessionWindowAggregateOperator final : public Operator {
 public:
  SessionWindowAggregateOperator(std::shared_ptr<const SessionWindowAggregateNode> node,
                                 OperatorPtr input, const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

  /// One session of one key: its bounds and the encoded aggregate arguments of its rows.
  struct Session {
    int64_t start = 0;
    int64_t end = 0;
    std::vector<std::string_view> rows;
  };

 private:
  Status Consume();
  Status ConsumeInput();
  /// The sessions stored under `values` (state values), appended to `out` per value.
  Status DecodeSessions(const std::vector<std::string>& values,
                        std::vector<std::vector<Session>>* out);
  /// The state value of `sessions`.
  Result<std::string> EncodeSessions(const std::vector<Session>& sessions) const;
  /// Output rows: one per (key, session) of `keys[i]`, `sessions[i]`.
  Status Finish(const std::vector<std::string_view>& keys,
                const std::vector<std::vector<Session>>& sessions);

  std::shared_ptr<const SessionWindowAggregateNode> node_;
  OperatorPtr input_;
  const ExecContext& context_;
  StatefulOperatorRuntime* runtime_;
  /// The keys besides the session: their positions in the node's keys, and types.
  std::vector<size_t> other_keys_;
  std::vector<DataTypePtr> other_key_types_;
  /// The aggregate arguments evaluated per row, over all calls, in call order.
  std::vector<DataTypePtr> argument_types_;
  std::vector<size_t> value_arguments_;
  DataTypePtr sessions_type_;
  bool consumed_ = false;
  /// Bytes the sessions' row views point into (this batch's rows and the decoded state); a
  /// deque, so adding one never moves the others.
  std::deque<std::string> arenas_;
  std::vector<ColumnPtr> decoded_;
  std::vector<ColumnPtr> result_columns_;
  int64_t result_rows_ = 0;
  int64_t emitted_rows_ = 0;
};

}  // namespace tributary::exec

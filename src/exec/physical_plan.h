// The physical plan: an immutable tree of nodes, one node type per operator, each holding what
// its operator needs (bound expressions, schemas, aggregate calls, join keys) and nothing that
// changes while a query runs. InstantiateOperators turns a plan into a tree of operators, each
// made of its node (shared, read-only) and its own state (hash tables, cursors, buffers).
//
//   PhysicalNode (const, shared_ptr)          Operator (one per instantiation)
//   HashAggregateNode{keys, aggregates}  -->  HashAggregateOperator{node_, state_: groups,
//                                                                    accumulators, results}
//
// A plan can be instantiated more than once: a streaming query re-instantiates its operators
// from the same plan for every micro-batch, and what an operator must carry from one to the
// next is exactly its state member.

#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delta/snapshot.h"
#include "exec/aggregate/aggregate_function.h"
#include "exec/file_scan_spec.h"
#include "exec/operator.h"
#include "exec/stateful_operator.h"
#include "expr/bound_expression.h"
#include "expr/expression.h"

namespace tributary::exec {

class PhysicalNode;
/// Plans are shared and immutable.
using PhysicalNodePtr = std::shared_ptr<const PhysicalNode>;

/// Which operator a node describes.
enum class PhysicalNodeKind {
  kValues,
  kRowCounting,
  kFilter,
  kProject,
  kLimit,
  kUnionAll,
  kHashAggregate,
  kHashJoin,
  kSort,
  kGenerate,
  kExpand,
  kFileScan,
  kDeltaScan,
  kStatefulAggregate,
  kStreamingDeduplicate,
  kEventTimeWatermark,
  kStreamingJoin,
  kUpdatingSessions,
  kSessionWindowAggregate,
  kWindow,
};

/// One node of a physical plan. Immutable after construction; thread-safe to read.
class PhysicalNode {
 public:
  virtual ~PhysicalNode() = default;
  PhysicalNode(const PhysicalNode&) = delete;
  PhysicalNode& operator=(const PhysicalNode&) = delete;

  PhysicalNodeKind Kind() const { return kind_; }
  /// Inputs, in the order the operator pulls them (a join: left, right).
  const std::vector<PhysicalNodePtr>& Children() const { return children_; }
  /// One line for EXPLAIN: "HashAggregate(keys=[a], aggs=[sum(b)])", as the operator shows it.
  virtual std::string ToString() const = 0;

 protected:
  PhysicalNode(PhysicalNodeKind kind, std::vector<PhysicalNodePtr> children)
      : kind_(kind), children_(std::move(children)) {}

 private:
  PhysicalNodeKind kind_;
  std::vector<PhysicalNodePtr> children_;
};

/// Given batches, returned in order (VALUES lists, memory tables, foreachBatch inputs).
class ValuesNode final : public PhysicalNode {
 public:
  ValuesNode(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
             std::string description = "Values");
  const SchemaPtr& Schema() const { return schema_; }
  const std::vector<RecordBatchPtr>& Batches() const { return batches_; }
  /// "Values(rows=3)".
  std::string ToString() const override;

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  std::string description_;
};

/// Its input, counting the rows that pass into `counter` (a micro-batch's input row count).
/// The counter is the one thing the plan points at that operators change.
class RowCountingNode final : public PhysicalNode {
 public:
  RowCountingNode(PhysicalNodePtr input, std::shared_ptr<std::atomic<int64_t>> counter)
      : PhysicalNode(PhysicalNodeKind::kRowCounting, {std::move(input)}),
        counter_(std::move(counter)) {}
  const std::shared_ptr<std::atomic<int64_t>>& Counter() const { return counter_; }
  /// The input's line: EXPLAIN does not show the counting.
  std::string ToString() const override { return Children()[0]->ToString(); }

 private:
  std::shared_ptr<std::atomic<int64_t>> counter_;
};

/// Rows of the input for which `predicate` (boolean, bound against the input) is true.
class FilterNode final : public PhysicalNode {
 public:
  FilterNode(PhysicalNodePtr input, expr::BoundExprPtr predicate)
      : PhysicalNode(PhysicalNodeKind::kFilter, {std::move(input)}),
        predicate_(std::move(predicate)) {}
  const expr::BoundExprPtr& Predicate() const { return predicate_; }
  std::string ToString() const override;

 private:
  expr::BoundExprPtr predicate_;
};

/// One expression per output column, named by `schema`.
class ProjectNode final : public PhysicalNode {
 public:
  ProjectNode(PhysicalNodePtr input, std::vector<expr::BoundExprPtr> expressions, SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kProject, {std::move(input)}),
        expressions_(std::move(expressions)),
        schema_(std::move(schema)) {}
  const std::vector<expr::BoundExprPtr>& Expressions() const { return expressions_; }
  const SchemaPtr& Schema() const { return schema_; }
  std::string ToString() const override;

 private:
  std::vector<expr::BoundExprPtr> expressions_;
  SchemaPtr schema_;
};

/// Spark's Expand: each input row once per projection (GROUPING SETS), evaluated batch by
/// batch: an input batch gives one output batch per projection.
class ExpandNode final : public PhysicalNode {
 public:
  ExpandNode(PhysicalNodePtr input, std::vector<std::vector<expr::BoundExprPtr>> projections,
             SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kExpand, {std::move(input)}),
        projections_(std::move(projections)),
        schema_(std::move(schema)) {}
  const std::vector<std::vector<expr::BoundExprPtr>>& Projections() const { return projections_; }
  const SchemaPtr& Schema() const { return schema_; }
  std::string ToString() const override;

 private:
  std::vector<std::vector<expr::BoundExprPtr>> projections_;
  SchemaPtr schema_;
};

/// At most `limit` rows after skipping `offset`.
class LimitNode final : public PhysicalNode {
 public:
  LimitNode(PhysicalNodePtr input, int64_t limit, int64_t offset = 0)
      : PhysicalNode(PhysicalNodeKind::kLimit, {std::move(input)}),
        limit_(limit),
        offset_(offset) {}
  int64_t Limit() const { return limit_; }
  int64_t Offset() const { return offset_; }
  std::string ToString() const override;

 private:
  int64_t limit_;
  int64_t offset_;
};

/// All rows of each input in turn, under the first input's schema.
class UnionAllNode final : public PhysicalNode {
 public:
  explicit UnionAllNode(std::vector<PhysicalNodePtr> inputs)
      : PhysicalNode(PhysicalNodeKind::kUnionAll, std::move(inputs)) {}
  std::string ToString() const override { return "UnionAll"; }
};

/// GROUP BY `keys` computing `aggregates`; output named and typed by `schema` (keys, then one
/// column per aggregate).
class HashAggregateNode final : public PhysicalNode {
 public:
  /// `partial`: the aggregation of one part of the input, whose groups a final aggregation
  /// merges (EXPLAIN says so; it computes the same way).
  HashAggregateNode(PhysicalNodePtr input, std::vector<expr::BoundExprPtr> keys,
                    std::vector<AggregateCall> aggregates, SchemaPtr schema, bool partial = false)
      : PhysicalNode(PhysicalNodeKind::kHashAggregate, {std::move(input)}),
        keys_(std::move(keys)),
        aggregates_(std::move(aggregates)),
        schema_(std::move(schema)),
        partial_(partial) {}
  const std::vector<expr::BoundExprPtr>& Keys() const { return keys_; }
  const std::vector<AggregateCall>& Aggregates() const { return aggregates_; }
  const SchemaPtr& Schema() const { return schema_; }
  bool Partial() const { return partial_; }
  std::string ToString() const override;

 private:
  std::vector<expr::BoundExprPtr> keys_;
  std::vector<AggregateCall> aggregates_;
  SchemaPtr schema_;
  bool partial_;
};

enum class JoinType { kInner, kLeft, kRight, kFull, kLeftSemi, kLeftAnti, kCross };

/// Spark's name of a join type: "inner", "left_outer", "right_outer", "full_outer",
/// "left_semi", "left_anti", "cross".
std::string_view JoinTypeName(JoinType type);

/// left JOIN right ON left_keys[i] = right_keys[i] (each bound against its side) AND
/// `residual` (bound against left ++ right; may be null); the right input is the build side.
class HashJoinNode final : public PhysicalNode {
 public:
  HashJoinNode(PhysicalNodePtr left, PhysicalNodePtr right, JoinType type,
               std::vector<expr::BoundExprPtr> left_keys,
               std::vector<expr::BoundExprPtr> right_keys, expr::BoundExprPtr residual,
               SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kHashJoin, {std::move(left), std::move(right)}),
        type_(type),
        left_keys_(std::move(left_keys)),
        right_keys_(std::move(right_keys)),
        residual_(std::move(residual)),
        schema_(std::move(schema)) {}
  JoinType Type() const { return type_; }
  const std::vector<expr::BoundExprPtr>& LeftKeys() const { return left_keys_; }
  const std::vector<expr::BoundExprPtr>& RightKeys() const { return right_keys_; }
  const expr::BoundExprPtr& Residual() const { return residual_; }
  const SchemaPtr& Schema() const { return schema_; }
  std::string ToString() const override;

 private:
  JoinType type_;
  std::vector<expr::BoundExprPtr> left_keys_;
  std::vector<expr::BoundExprPtr> right_keys_;
  expr::BoundExprPtr residual_;
  SchemaPtr schema_;
};

/// One ORDER BY key. Spark's defaults: ASC sorts NULLS FIRST and DESC NULLS LAST; the planner
/// fills both fields in.
struct SortKey {
  /// Bound against the sort's input schema; any type but map.
  expr::BoundExprPtr expression;
  bool ascending = true;
  bool nulls_first = true;
};

/// ORDER BY `keys`; with `limit` a top-N.
class SortNode final : public PhysicalNode {
 public:
  SortNode(PhysicalNodePtr input, std::vector<SortKey> keys, std::optional<int64_t> limit = {})
      : PhysicalNode(PhysicalNodeKind::kSort, {std::move(input)}),
        keys_(std::move(keys)),
        limit_(limit) {}
  const std::vector<SortKey>& Keys() const { return keys_; }
  const std::optional<int64_t>& Limit() const { return limit_; }
  std::string ToString() const override;

 private:
  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
};

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

/// explode/posexplode of `spec`; output named and typed by `schema`.
class GenerateNode final : public PhysicalNode {
 public:
  GenerateNode(PhysicalNodePtr input, GenerateSpec spec, SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kGenerate, {std::move(input)}),
        spec_(std::move(spec)),
        schema_(std::move(schema)) {}
  const GenerateSpec& Spec() const { return spec_; }
  const SchemaPtr& Schema() const { return schema_; }
  std::string ToString() const override;

 private:
  GenerateSpec spec_;
  SchemaPtr schema_;
};

/// One window function call of a WindowNode: `function(arguments) OVER (PARTITION BY
/// partition_keys ORDER BY order_keys frame)`, every expression bound against the window's
/// input. `function` is a ranking or offset function (row_number, rank, dense_rank,
/// percent_rank, cume_dist, ntile, lag, lead, nth_value) or an aggregate of
/// expr/aggregate_signatures.h computed over each row's frame.
struct WindowFunction {
  std::string function;
  std::vector<expr::BoundExprPtr> arguments;
  bool distinct = false;
  std::vector<expr::BoundExprPtr> partition_keys;
  std::vector<SortKey> order_keys;
  /// ROWS or RANGE, always explicit (the planner applies Spark's default frame).
  expr::WindowSpec::FrameType frame_type = expr::WindowSpec::FrameType::kRows;
  expr::WindowFrameBound frame_start;
  expr::WindowFrameBound frame_end;
  DataTypePtr type;
  /// Set by the optimizer on the one function of a window (row_number, rank or dense_rank)
  /// whose value a filter above keeps at most this (Spark's WindowGroupLimit): rows that cannot
  /// qualify are dropped before the window sorts.
  std::optional<int64_t> group_limit;
};

/// The input's rows, in input order, each followed by one column per window function
/// (`schema` names and types them all).
class WindowNode final : public PhysicalNode {
 public:
  WindowNode(PhysicalNodePtr input, std::vector<WindowFunction> functions, SchemaPtr schema)
      : PhysicalNode(PhysicalNodeKind::kWindow, {std::move(input)}),
        functions_(std::move(functions)),
        schema_(std::move(schema)) {}
  const std::vector<WindowFunction>& Functions() const { return functions_; }
  const SchemaPtr& Schema() const { return schema_; }
  std::string ToString() const override;

 private:
  std::vector<WindowFunction> functions_;
  SchemaPtr schema_;
};

/// Files read by FileScanOperator, resolved at planning (FileScanNode::Make): the spec, the
/// columns its readers decode and where each output column comes from.
class FileScanNode final : public PhysicalNode {
 public:
  /// Where an output column's values come from: the readers' column `index`, partition
  /// column `index` of the spec, or the file's metadata.
  struct OutputColumn {
    enum class Kind : uint8_t { kRead, kPartition, kMetadata } kind = Kind::kRead;
    int index = 0;
  };

  /// The scan of `spec` with output `columns` selected by name, in order (empty: all but the
  /// hidden `_metadata`; FileScanOperator::ScanSchema). A Parquet spec without a schema takes
  /// the first file's, read from its footer through `context.fs`. Defined in scan.cc.
  static Result<std::shared_ptr<const FileScanNode>> Make(FileScanSpec spec,
                                                          const std::vector<std::string>& columns,
                                                          const ExecContext& context);

  /// The spec as the readers take it: Parquet's schema filled in, and the JSON and CSV readers
  /// asked for unknown fields when the spec listens for them.
  const FileScanSpec& Spec() const { return spec_; }
  /// The columns the readers decode, by their names.
  const std::vector<std::string>& ReadColumns() const { return read_columns_; }
  /// One per output column.
  const std::vector<OutputColumn>& Outputs() const { return outputs_; }
  const SchemaPtr& Schema() const { return schema_; }
  /// Whether some output is a partition or metadata column, made once per file.
  bool HasFileConstants() const { return has_file_constants_; }
  /// "FileScan(parquet, files=3)".
  std::string ToString() const override;

 private:
  FileScanNode(FileScanSpec spec, std::vector<std::string> read_columns,
               std::vector<OutputColumn> outputs, SchemaPtr schema);

  FileScanSpec spec_;
  std::vector<std::string> read_columns_;
  std::vector<OutputColumn> outputs_;
  SchemaPtr schema_;
  bool has_file_constants_;
};

/// The live rows of a Delta snapshot, resolved at planning (DeltaScanNode::Make): the output
/// columns and the files left after pruning with the pushed filter.
class DeltaScanNode final : public PhysicalNode {
 public:
  /// The scan of `snapshot`'s output `columns` (by name, in order; empty: all), its files
  /// pruned with `filter` (may be null; partition values and min/max/nullCount statistics).
  /// The filter is NOT applied to rows: the planner keeps a FilterNode above the scan. Defined
  /// in scan.cc.
  static Result<std::shared_ptr<const DeltaScanNode>> Make(
      std::shared_ptr<const delta::Snapshot> snapshot, const std::vector<std::string>& columns,
      expr::ExprPtr filter, const ExecContext& context);

  const std::shared_ptr<const delta::Snapshot>& Snapshot() const { return snapshot_; }
  /// The snapshot schema's indices of the output columns.
  const std::vector<int>& ColumnIndices() const { return column_indices_; }
  const SchemaPtr& Schema() const { return schema_; }
  /// The snapshot's files left after pruning, in the snapshot's order.
  const std::vector<const delta::AddFile*>& Files() const { return files_; }
  const expr::ExprPtr& Filter() const { return filter_; }
  /// "DeltaScan(/t v3, files=2/10, pushed=(country = 'DE'))": files left after pruning, and
  /// before.
  std::string ToString() const override;

 private:
  DeltaScanNode(std::shared_ptr<const delta::Snapshot> snapshot, std::vector<int> column_indices,
                SchemaPtr schema, std::vector<const delta::AddFile*> files, expr::ExprPtr filter);

  std::shared_ptr<const delta::Snapshot> snapshot_;
  std::vector<int> column_indices_;
  SchemaPtr schema_;
  std::vector<const delta::AddFile*> files_;
  expr::ExprPtr filter_;
};

/// A streaming GROUP BY: HashAggregateNode's keys, aggregates and schema, with the groups'
/// accumulator states kept in the runtime's state stores across micro-batches, emitted by the
/// runtime's output mode (exec/stateful_aggregate.h). `event_time_key`, when set, is the index
/// in `keys` of the event-time key the watermark applies to: a timestamp, or a window struct
/// <start, end> (judged by its end).
class StatefulAggregateNode final : public PhysicalNode {
 public:
  StatefulAggregateNode(PhysicalNodePtr input, std::vector<expr::BoundExprPtr> keys,
                        std::vector<AggregateCall> aggregates, SchemaPtr schema,
                        std::optional<int> event_time_key,
                        std::shared_ptr<StatefulOperatorRuntime> runtime)
      : PhysicalNode(PhysicalNodeKind::kStatefulAggregate, {std::move(input)}),
        keys_(std::move(keys)),
        aggregates_(std::move(aggregates)),
        schema_(std::move(schema)),
        event_time_key_(event_time_key),
        runtime_(std::move(runtime)) {}
  const std::vector<expr::BoundExprPtr>& Keys() const { return keys_; }
  const std::vector<AggregateCall>& Aggregates() const { return aggregates_; }
  const SchemaPtr& Schema() const { return schema_; }
  const std::optional<int>& EventTimeKey() const { return event_time_key_; }
  /// Changed by the streaming layer between batches and by the operator (metrics).
  const std::shared_ptr<StatefulOperatorRuntime>& Runtime() const { return runtime_; }
  /// "StatefulAggregate(keys=[a], aggs=[sum(b)], eventTime=a)".
  std::string ToString() const override;

 private:
  std::vector<expr::BoundExprPtr> keys_;
  std::vector<AggregateCall> aggregates_;
  SchemaPtr schema_;
  std::optional<int> event_time_key_;
  std::shared_ptr<StatefulOperatorRuntime> runtime_;
};

/// Spark's dropDuplicates on a stream: the first row of each key (the values of input columns
/// `key_columns`) passes, later ones are dropped (exec/streaming_deduplicate.h).
/// `event_time_column` is the input's watermarked event-time column when it has one (late
/// rows are dropped by it). Without `within_watermark`, state is evicted by the watermark only
/// when that column is one of the keys. With `within_watermark` (dropDuplicatesWithinWatermark)
/// it must be set: a key is remembered until its first row's event time + `delay_micros`
/// passes the watermark. Output schema: the input's.
class StreamingDeduplicateNode final : public PhysicalNode {
 public:
  StreamingDeduplicateNode(PhysicalNodePtr input, std::vector<int> key_columns,
                           std::optional<int> event_time_column, bool within_watermark,
                           int64_t delay_micros, std::shared_ptr<StatefulOperatorRuntime> runtime)
      : PhysicalNode(PhysicalNodeKind::kStreamingDeduplicate, {std::move(input)}),
        key_columns_(std::move(key_columns)),
        event_time_column_(event_time_column),
        within_watermark_(within_watermark),
        delay_micros_(delay_micros),
        runtime_(std::move(runtime)) {}
  const std::vector<int>& KeyColumns() const { return key_columns_; }
  const std::optional<int>& EventTimeColumn() const { return event_time_column_; }
  bool WithinWatermark() const { return within_watermark_; }
  int64_t DelayMicros() const { return delay_micros_; }
  const std::shared_ptr<StatefulOperatorRuntime>& Runtime() const { return runtime_; }
  /// "StreamingDeduplicate(keys=[#0, #2])" or "StreamingDeduplicateWithinWatermark(...)".
  std::string ToString() const override;

 private:
  std::vector<int> key_columns_;
  std::optional<int> event_time_column_;
  bool within_watermark_;
  int64_t delay_micros_;
  std::shared_ptr<StatefulOperatorRuntime> runtime_;
};

/// How one side of a stream-stream join drops state when the watermark moves (Spark's
/// JoinStateWatermarkPredicate): kKey, by an event-time join key (a timestamp, or a window
/// struct judged by its end); kValue, by an event-time column of the side's rows. The state
/// watermark itself is the runtime's join_state_watermark_micros of the side.
struct JoinStateEviction {
  enum class Kind { kNone, kKey, kValue };
  Kind kind = Kind::kNone;
  /// kKey: index among the side's join keys; kValue: the side's input column.
  int column = -1;
  /// kKey: the key is a window struct <start, end>.
  bool window = false;
};

/// A stream-stream join (Spark's StreamingSymmetricHashJoinExec; exec/streaming_join.h): both
/// inputs' rows are kept in the runtime's state stores across micro-batches and each new row
/// is joined with the other side's state. Children: left, right. Keys, residual and output
/// schema as HashJoinNode's (left ++ right; left only for kLeftSemi); types kInner, kLeft,
/// kRight, kFull, kLeftSemi. `late_event_time_columns[side]` (0 left, 1 right): the side's
/// input column carrying a watermark, whose rows older than the runtime's
/// late_rows_watermark_micros are dropped, if any. `eviction[side]`: how the side's state is
/// dropped by its join_state_watermark_micros.
class StreamingJoinNode final : public PhysicalNode {
 public:
  StreamingJoinNode(PhysicalNodePtr left, PhysicalNodePtr right, JoinType type,
                    std::vector<expr::BoundExprPtr> left_keys,
                    std::vector<expr::BoundExprPtr> right_keys, expr::BoundExprPtr residual,
                    SchemaPtr schema, std::array<std::optional<int>, 2> late_event_time_columns,
                    std::array<JoinStateEviction, 2> eviction,
                    std::shared_ptr<StatefulOperatorRuntime> runtime)
      : PhysicalNode(PhysicalNodeKind::kStreamingJoin, {std::move(left), std::move(right)}),
        type_(type),
        left_keys_(std::move(left_keys)),
        right_keys_(std::move(right_keys)),
        residual_(std::move(residual)),
        schema_(std::move(schema)),
        late_event_time_columns_(late_event_time_columns),
        eviction_(eviction),
        runtime_(std::move(runtime)) {}
  JoinType Type() const { return type_; }
  const std::vector<expr::BoundExprPtr>& LeftKeys() const { return left_keys_; }
  const std::vector<expr::BoundExprPtr>& RightKeys() const { return right_keys_; }
  const expr::BoundExprPtr& Residual() const { return residual_; }
  const SchemaPtr& Schema() const { return schema_; }
  const std::array<std::optional<int>, 2>& LateEventTimeColumns() const {
    return late_event_time_columns_;
  }
  const std::array<JoinStateEviction, 2>& Eviction() const { return eviction_; }
  /// Changed by the streaming layer between batches and by the operator (metrics).
  const std::shared_ptr<StatefulOperatorRuntime>& Runtime() const { return runtime_; }
  /// "StreamingJoin(left_outer, keys=[a = b], residual=..., leftState=value #2)".
  std::string ToString() const override;

 private:
  JoinType type_;
  std::vector<expr::BoundExprPtr> left_keys_;
  std::vector<expr::BoundExprPtr> right_keys_;
  expr::BoundExprPtr residual_;
  SchemaPtr schema_;
  std::array<std::optional<int>, 2> late_event_time_columns_;
  std::array<JoinStateEviction, 2> eviction_;
  std::shared_ptr<StatefulOperatorRuntime> runtime_;
};

/// A fresh operator tree computing `plan`, each operator with empty state. `context` must
/// outlive the operators; the operators keep their nodes alive. InvalidArgument for a scan
/// when `context` has no file system; files are opened by the scans' Next. With
/// context.threads > 1, scan pipelines run ahead on threads of their own (ExecContext).
Result<OperatorPtr> InstantiateOperators(const PhysicalNodePtr& plan, const ExecContext& context);

}  // namespace tributary::exec

// Logical plans: what a query computes, as a tree of relational nodes, built by the DataFrame
// API and the SQL binder and turned into exec operators by the physical planner.
//
// Nodes are resolved when they are built (Spark's analyzer runs eagerly on each DataFrame
// call): every expression in a node is a BoundExpression over its input's columns by index,
// so columns with the same name on both sides of a join never clash. Users refer to columns
// by name, optionally qualified by a table name or alias (`t.id`); Resolve() maps those names
// onto indices through the node's output columns and their qualifiers.
//
// Nodes are immutable and shared (`LogicalPlanPtr`); rewrites build new nodes.

#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "delta/snapshot.h"
#include "exec/generate.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/scan.h"
#include "exec/sort.h"
#include "exec/stateful_operator.h"
#include "expr/bound_expression.h"
#include "expr/expression.h"

namespace tributary::exec {
class EventTimeStats;
}  // namespace tributary::exec

namespace tributary::plan {

using columnar::SchemaPtr;
using expr::BoundExprPtr;
using expr::ExprPtr;

class LogicalPlan;
using LogicalPlanPtr = std::shared_ptr<const LogicalPlan>;

enum class PlanKind : uint8_t {
  kScan,         // a Delta snapshot, files, or in-memory batches
  kFilter,       // rows where a condition holds
  kProject,      // one expression per output column
  kAggregate,    // group keys, then aggregate results
  kJoin,         // two inputs joined on a condition
  kSort,         // ordered rows, optionally only the first N
  kLimit,        // at most N rows after skipping an offset
  kUnion,        // all rows of every input (UNION ALL)
  kGenerate,     // explode: a row per element of an array or map, input columns alongside
  kWatermark,    // rows unchanged; names the event-time column and the delay of a watermark
  kDeduplicate,  // the first row of each key (dropDuplicates)
  kWindow,       // input rows with window function values alongside
  kExpand,       // one output row per projection of each input row (GROUPING SETS)
};

/// An unbounded source as a query names it (format, path, options, schema). The streaming
/// layer subclasses it to open the source when a query starts; each micro-batch then replaces
/// the scan of the relation by a scan of that batch's rows (a kFiles, kDelta or kValues source
/// with the same schema), so the rest of the plan is built, checked and optimized once, as
/// for a batch query.
class StreamingRelation {
 public:
  virtual ~StreamingRelation() = default;
  /// How EXPLAIN and progress name it: "FileStreamSource[json /data/in]".
  virtual std::string Description() const = 0;
};

/// Where a scan's rows come from.
struct ScanSource {
  enum class Kind : uint8_t { kDelta, kFiles, kValues, kStream } kind = Kind::kValues;
  std::shared_ptr<const delta::Snapshot> snapshot;  // kDelta
  /// kDelta: the snapshot is a version the query asked for (time travel). Otherwise it is the
  /// latest at planning, and a stream-static join re-reads the table when it has moved on.
  bool pinned_version = false;
  exec::FileScanSpec files;                         // kFiles
  std::vector<columnar::RecordBatchPtr> batches;    // kValues
  std::shared_ptr<const StreamingRelation> stream;  // kStream
  /// When set, the scan adds the number of rows it produces (a micro-batch's numInputRows).
  std::shared_ptr<std::atomic<int64_t>> rows_read;
  /// The source's full schema (for files: with the rescued-data column).
  SchemaPtr schema;
  /// Columns the source offers without showing them (a file scan's `_metadata`): a scan of
  /// every column leaves them out, a reference by name adds them (plan_builder.h). A scan's
  /// column index schema->NumFields() + i is hidden column i. Default: none.
  std::vector<columnar::Field> hidden_columns;

  /// Column `index`: a field of `schema`, or a hidden column after them.
  const columnar::Field& FieldAt(int index) const;
  /// How EXPLAIN names it: a table path, "read_files(...)", "VALUES".
  std::string description;
};

/// A plan node. Subclasses carry each kind's payload; Kind() tells which one to cast to.
class LogicalPlan {
 public:
  virtual ~LogicalPlan() = default;

  PlanKind Kind() const { return kind_; }
  /// This node as T, the node class its Kind() stands for (a FilterNode for kFilter, ...).
  template <typename T>
  const T& As() const {
    return static_cast<const T&>(*this);
  }
  /// The output columns: names as users see them (duplicates possible after a join).
  const SchemaPtr& Schema() const { return schema_; }
  /// Per output column, the table name or alias that may qualify it ("" for none).
  const std::vector<std::string>& Qualifiers() const { return qualifiers_; }
  const std::vector<LogicalPlanPtr>& Inputs() const { return inputs_; }
  const LogicalPlan& Input(size_t i = 0) const { return *inputs_[i]; }
  /// Whether the plan reads an unbounded (streaming) source.
  bool IsStreaming() const { return streaming_; }

  /// One line describing this node, for EXPLAIN.
  virtual std::string ToString() const = 0;
  /// The node with the same payload over `inputs` (same count and output schemas), with
  /// `qualifiers` (or the current ones when null).
  virtual LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const = 0;
  /// The same node whose output columns are qualified by `alias` (SQL `AS t`).
  LogicalPlanPtr WithAlias(const std::string& alias) const;

 protected:
  LogicalPlan(PlanKind kind, SchemaPtr schema, std::vector<std::string> qualifiers,
              std::vector<LogicalPlanPtr> inputs);
  /// A copy with other qualifiers, for WithAlias.
  virtual std::shared_ptr<LogicalPlan> Clone() const = 0;

 private:
  PlanKind kind_;
  SchemaPtr schema_;
  std::vector<std::string> qualifiers_;
  std::vector<LogicalPlanPtr> inputs_;
  bool streaming_ = false;

  friend class ScanNode;
};

/// The whole tree as indented lines, root first.
std::string ExplainLogical(const LogicalPlan& plan);

class ScanNode final : public LogicalPlan {
 public:
  /// Output columns are source.schema's fields at `columns`, qualified by `qualifier`.
  ScanNode(ScanSource source, std::vector<int> columns, const std::string& qualifier,
           ExprPtr pushed_filter, bool streaming);
  const ScanSource& Source() const { return source_; }
  /// Indices into Source().schema, then its hidden columns (ScanSource::FieldAt).
  const std::vector<int>& Columns() const { return columns_; }
  /// Conjuncts over the source's column names used to skip files (not rows); may be null.
  const ExprPtr& PushedFilter() const { return pushed_filter_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  ScanSource source_;
  std::vector<int> columns_;
  ExprPtr pushed_filter_;
};

class FilterNode final : public LogicalPlan {
 public:
  FilterNode(LogicalPlanPtr input, BoundExprPtr condition);
  const BoundExprPtr& Condition() const { return condition_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  BoundExprPtr condition_;
};

class ProjectNode final : public LogicalPlan {
 public:
  /// `names[i]` names expressions[i]; `qualifiers[i]` is kept from a passed-through column.
  ProjectNode(LogicalPlanPtr input, std::vector<BoundExprPtr> expressions,
              const std::vector<std::string>& names, std::vector<std::string> qualifiers);
  const std::vector<BoundExprPtr>& Expressions() const { return expressions_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<BoundExprPtr> expressions_;
};

/// How a started streaming query runs one of its stateful operators: the runtime it fills per
/// batch and the event-time column the watermark applies to. Set by the streaming layer at
/// Start (streaming/stateful_plan.h); absent in batch plans.
struct StatefulExecution {
  std::shared_ptr<exec::StatefulOperatorRuntime> runtime;
  /// An aggregation: the index among its keys of the event-time key (a timestamp column or a
  /// window struct of it). A deduplication: the input column of the event time.
  std::optional<int> event_time;
  /// The watermark delay of that event-time column (dropDuplicatesWithinWatermark keeps a key
  /// until its first event time + the delay passes the watermark).
  int64_t delay_micros = 0;
};

/// GROUP BY. In a started stream it carries its StatefulExecution: its groups' accumulators
/// are kept in state stores across micro-batches and emitted by the output mode.
class AggregateNode final : public LogicalPlan {
 public:
  /// Output (`schema`): one column per key, then one per aggregate.
  AggregateNode(LogicalPlanPtr input, std::vector<BoundExprPtr> keys,
                std::vector<exec::AggregateCall> aggregates, SchemaPtr schema,
                std::optional<StatefulExecution> execution = std::nullopt);
  const std::vector<BoundExprPtr>& Keys() const { return keys_; }
  const std::vector<exec::AggregateCall>& Aggregates() const { return aggregates_; }
  const std::optional<StatefulExecution>& Execution() const { return execution_; }
  /// The same node run as a started stream's stateful operator.
  LogicalPlanPtr WithExecution(StatefulExecution execution) const;
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<BoundExprPtr> keys_;
  std::vector<exec::AggregateCall> aggregates_;
  std::optional<StatefulExecution> execution_;
};

/// Spark's Deduplicate: the first row of each distinct value of `key_columns` (input column
/// indices; all of them for distinct()). A batch query plans it as an aggregation keeping the
/// first row per key (Spark's ReplaceDeduplicateWithAggregate); a stream keeps the keys seen in
/// state. `within_watermark`: dropDuplicatesWithinWatermark. Output: the input's columns.
class DeduplicateNode final : public LogicalPlan {
 public:
  DeduplicateNode(LogicalPlanPtr input, std::vector<int> key_columns, bool within_watermark,
                  std::optional<StatefulExecution> execution = std::nullopt);
  const std::vector<int>& KeyColumns() const { return key_columns_; }
  bool WithinWatermark() const { return within_watermark_; }
  const std::optional<StatefulExecution>& Execution() const { return execution_; }
  /// The same node run as a started stream's stateful operator.
  LogicalPlanPtr WithExecution(StatefulExecution execution) const;
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<int> key_columns_;
  bool within_watermark_;
  std::optional<StatefulExecution> execution_;
};

/// How a started stream runs a stream-stream join (exec::StreamingJoinNode): its runtime, and
/// per side (0 left, 1 right) the input column whose late rows are dropped and how its state is
/// evicted. The state watermarks themselves are computed per batch by the streaming layer.
struct StreamJoinExecution {
  std::shared_ptr<exec::StatefulOperatorRuntime> runtime;
  std::array<std::optional<int>, 2> late_event_time_columns;
  std::array<exec::JoinStateEviction, 2> eviction;
};

class JoinNode final : public LogicalPlan {
 public:
  /// Equi-join keys (left_keys[i] = right_keys[i], over each side's columns, same types) and
  /// a residual condition over left ++ right columns (may be null). In a started stream, a join
  /// of two streams carries its StreamJoinExecution.
  JoinNode(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
           std::vector<BoundExprPtr> left_keys, std::vector<BoundExprPtr> right_keys,
           BoundExprPtr residual, std::optional<StreamJoinExecution> execution = std::nullopt);
  exec::JoinType Type() const { return type_; }
  const std::vector<BoundExprPtr>& LeftKeys() const { return left_keys_; }
  const std::vector<BoundExprPtr>& RightKeys() const { return right_keys_; }
  const BoundExprPtr& Residual() const { return residual_; }
  const std::optional<StreamJoinExecution>& Execution() const { return execution_; }
  /// The same node run as a started stream's stateful operator.
  LogicalPlanPtr WithExecution(StreamJoinExecution execution) const;
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  exec::JoinType type_;
  std::vector<BoundExprPtr> left_keys_;
  std::vector<BoundExprPtr> right_keys_;
  BoundExprPtr residual_;
  std::optional<StreamJoinExecution> execution_;
};

class SortNode final : public LogicalPlan {
 public:
  SortNode(LogicalPlanPtr input, std::vector<exec::SortKey> keys, std::optional<int64_t> limit);
  const std::vector<exec::SortKey>& Keys() const { return keys_; }
  /// Top-N when set.
  const std::optional<int64_t>& Limit() const { return limit_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<exec::SortKey> keys_;
  std::optional<int64_t> limit_;
};

class LimitNode final : public LogicalPlan {
 public:
  LimitNode(LogicalPlanPtr input, int64_t limit, int64_t offset);
  int64_t Limit() const { return limit_; }
  int64_t Offset() const { return offset_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  int64_t limit_;
  int64_t offset_;
};

class UnionNode final : public LogicalPlan {
 public:
  /// Inputs with identical column types; names from the first.
  explicit UnionNode(const std::vector<LogicalPlanPtr>& inputs);
  std::string ToString() const override { return "Union"; }
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;
};

class GenerateNode final : public LogicalPlan {
 public:
  /// Output: the input's columns, then the generated ones (`generated` fields: pos, col or
  /// key/value), qualified by `qualifiers` for the input's part.
  GenerateNode(LogicalPlanPtr input, exec::GenerateSpec spec,
               std::vector<columnar::Field> generated);
  const exec::GenerateSpec& Spec() const { return spec_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;
  /// The node over another input (same columns) and a collection bound against it.
  LogicalPlanPtr With(LogicalPlanPtr input, BoundExprPtr collection) const;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  exec::GenerateSpec spec_;
  std::vector<columnar::Field> generated_;
};

/// Window functions (SQL `f(...) OVER (...)`): the input's rows and columns, then one column per
/// function (`outputs` name and type them).
class WindowNode final : public LogicalPlan {
 public:
  WindowNode(LogicalPlanPtr input, std::vector<exec::WindowFunction> functions,
             std::vector<columnar::Field> outputs);
  const std::vector<exec::WindowFunction>& Functions() const { return functions_; }
  std::string ToString() const override;
  /// The node over another input (same columns) and functions bound against it.
  LogicalPlanPtr With(LogicalPlanPtr input, std::vector<exec::WindowFunction> functions) const;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<exec::WindowFunction> functions_;
  std::vector<columnar::Field> outputs_;
};

/// Spark's Expand: each input row once per projection (all projections of the same types), the
/// way GROUPING SETS feed one aggregation with each set's keys while reading the input once.
/// Output columns are named `names` and nullable where any projection may be null.
class ExpandNode final : public LogicalPlan {
 public:
  ExpandNode(LogicalPlanPtr input, std::vector<std::vector<BoundExprPtr>> projections,
             const std::vector<std::string>& names, std::vector<std::string> qualifiers);
  const std::vector<std::vector<BoundExprPtr>>& Projections() const { return projections_; }
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  std::vector<std::vector<BoundExprPtr>> projections_;
};

/// Spark's EventTimeWatermark (Dataset.withWatermark, SQL `WATERMARK ts DELAY OF ...`): its rows
/// are the input's, unchanged; it marks a top-level input column as the event time (a timestamp,
/// or a window struct<start, end> whose end is the event time) and how far behind the maximum
/// event time seen the watermark trails. Batch queries plan straight through it, as Spark
/// ignores withWatermark in batch; streaming tracks the event time and drops late rows with it.
/// The optimizer keeps the event-time column and pushes only filters that do not read it below.
class WatermarkNode final : public LogicalPlan {
 public:
  /// `event_time`: an output column index of `input`; `delay_micros` >= 0.
  WatermarkNode(LogicalPlanPtr input, int event_time, int64_t delay_micros);
  /// The event-time column's name in the input (and output) schema.
  const std::string& EventTimeColumn() const;
  /// The event-time column's index in the input (and output) schema.
  int EventTimeIndex() const { return event_time_; }
  int64_t DelayMicros() const { return delay_micros_; }
  /// "EventTimeWatermark ts, 10 minutes", as Spark's EXPLAIN.
  std::string ToString() const override;
  LogicalPlanPtr WithInputs(std::vector<LogicalPlanPtr> inputs) const override;
  /// The node over another input in which the event-time column is at `event_time`.
  LogicalPlanPtr With(LogicalPlanPtr input, int event_time) const;
  /// A started stream's statistics of the event times passing here (null in batch plans and
  /// before Start): the physical plan then gathers them (exec/event_time_watermark.h).
  const std::shared_ptr<exec::EventTimeStats>& Stats() const { return stats_; }
  LogicalPlanPtr WithStats(std::shared_ptr<exec::EventTimeStats> stats) const;

 protected:
  std::shared_ptr<LogicalPlan> Clone() const override;

 private:
  int event_time_;
  int64_t delay_micros_;
  std::shared_ptr<exec::EventTimeStats> stats_;
};

}  // namespace tributary::plan

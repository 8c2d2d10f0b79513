#include "plan/physical_planner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "exec/event_time_watermark.h"
#include "exec/physical_plan.h"
#include "exec/session_window.h"
#include "plan/bound_rewrites.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

std::vector<std::string> ColumnNames(const ScanNode& scan) {
  std::vector<std::string> names;
  for (int index : scan.Columns()) {
    names.push_back(scan.Source().FieldAt(index).Name());
  }
  return names;
}

Result<exec::PhysicalNodePtr> PlanSourceScan(const ScanNode& scan,
                                             const exec::ExecContext& context) {
  const ScanSource& source = scan.Source();
  switch (source.kind) {
    case ScanSource::Kind::kDelta: {
      TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<const exec::DeltaScanNode> node,
                                exec::DeltaScanNode::Make(source.snapshot, ColumnNames(scan),
                                                          scan.PushedFilter(), context));
      return exec::PhysicalNodePtr(std::move(node));
    }
    case ScanSource::Kind::kFiles: {
      TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<const exec::FileScanNode> node,
                                exec::FileScanNode::Make(source.files, ColumnNames(scan), context));
      return exec::PhysicalNodePtr(std::move(node));
    }
    case ScanSource::Kind::kValues: {
      std::vector<columnar::RecordBatchPtr> batches;
      for (const columnar::RecordBatchPtr& batch : source.batches) {
        TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr selected,
                                  batch->SelectColumns(scan.Columns()));
        TRIBUTARY_ASSIGN_OR_RAISE(
            selected,
            columnar::RecordBatch::Make(scan.Schema(), selected->NumRows(), selected->Columns()));
        batches.push_back(std::move(selected));
      }
      return exec::PhysicalNodePtr(std::make_shared<exec::ValuesNode>(
          scan.Schema(), std::move(batches), source.description));
    }
    case ScanSource::Kind::kStream:
      // Spark: "Queries with streaming sources must be executed with writeStream.start()".
      return Status::InvalidArgument(fmt::format(
          "{} is a streaming source: start the query with WriteStream() (or a streaming table), "
          "not a batch action",
          source.stream->Description()));
  }
  return Status::Internal("unknown scan source");
}

Result<exec::PhysicalNodePtr> PlanScan(const ScanNode& scan, const exec::ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr node, PlanSourceScan(scan, context));
  if (scan.Source().rows_read == nullptr) {
    return node;
  }
  return exec::PhysicalNodePtr(
      std::make_shared<exec::RowCountingNode>(std::move(node), scan.Source().rows_read));
}

/// A batch query's dropDuplicates, as Spark's ReplaceDeduplicateWithAggregate: group by the
/// keys, first() of every other column (nulls kept), then the input's column order back.
exec::PhysicalNodePtr PlanBatchDeduplicate(const DeduplicateNode& dedup,
                                           exec::PhysicalNodePtr input) {
  const LogicalPlan& child = dedup.Input();
  const int n = child.Schema()->NumFields();
  std::vector<bool> is_key(static_cast<size_t>(n), false);
  // Where each input column lands in the aggregate's output: keys first, then the others.
  std::vector<int> position(static_cast<size_t>(n));
  std::vector<BoundExprPtr> keys;
  std::vector<columnar::Field> fields;
  for (int key : dedup.KeyColumns()) {
    if (!is_key[static_cast<size_t>(key)]) {
      is_key[static_cast<size_t>(key)] = true;
      position[static_cast<size_t>(key)] = static_cast<int>(fields.size());
      keys.push_back(ColumnRef(child, key));
      fields.push_back(child.Schema()->FieldAt(key));
    }
  }
  std::vector<exec::AggregateCall> firsts;
  for (int c = 0; c < n; ++c) {
    if (!is_key[static_cast<size_t>(c)]) {
      position[static_cast<size_t>(c)] = static_cast<int>(fields.size());
      firsts.push_back({"first", {ColumnRef(child, c)}, false});
      fields.push_back(child.Schema()->FieldAt(c));
    }
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  auto aggregate = std::make_shared<exec::HashAggregateNode>(std::move(input), std::move(keys),
                                                             std::move(firsts), schema);
  std::vector<BoundExprPtr> restore;
  restore.reserve(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) {
    const int from = position[static_cast<size_t>(c)];
    restore.push_back(std::make_shared<expr::BoundExpression>(
        expr::Op::kColumn, schema->FieldAt(from).Type(), std::vector<BoundExprPtr>{}, from,
        expr::Scalar::Null(), schema->FieldAt(from).Name()));
  }
  return std::make_shared<exec::ProjectNode>(std::move(aggregate), std::move(restore),
                                             dedup.Schema());
}

bool IsSessionWindowKey(const expr::BoundExpression& e) {
  return e.GetOp() == expr::Op::kFunction && e.Name() == "session_window";
}

bool ContainsSessionWindow(const expr::BoundExpression& e) {
  return IsSessionWindowKey(e) ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const expr::BoundExprPtr& child) { return ContainsSessionWindow(*child); });
}

// A GROUP BY with a session_window(...) key (Spark's session window aggregation): a batch
// gives each row the merged session of its other keys (UpdatingSessions, as Spark's
// UpdatingSessionsExec) and groups by that; a started stream keeps the sessions in state.
Result<exec::PhysicalNodePtr> PlanSessionAggregate(const AggregateNode& aggregate,
                                                   exec::PhysicalNodePtr input, int session_key) {
  const std::vector<BoundExprPtr>& keys = aggregate.Keys();
  if (const std::optional<StatefulExecution>& execution = aggregate.Execution()) {
    return exec::PhysicalNodePtr(std::make_shared<exec::SessionWindowAggregateNode>(
        std::move(input), keys, session_key, aggregate.Aggregates(), aggregate.Schema(),
        execution->runtime));
  }
  std::vector<BoundExprPtr> others;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (static_cast<int>(k) != session_key) {
      others.push_back(keys[k]);
    }
  }
  const columnar::Schema& input_schema = *aggregate.Input().Schema();
  std::vector<columnar::Field> fields = input_schema.Fields();
  const BoundExprPtr& session = keys[static_cast<size_t>(session_key)];
  fields.emplace_back("session_window", session->Type(), true);
  auto updated = std::make_shared<exec::UpdatingSessionsNode>(
      std::move(input), std::move(others), session,
      std::make_shared<columnar::Schema>(std::move(fields)));
  std::vector<BoundExprPtr> grouping = keys;
  grouping[static_cast<size_t>(session_key)] = std::make_shared<expr::BoundExpression>(
      expr::Op::kColumn, session->Type(), std::vector<BoundExprPtr>{}, input_schema.NumFields(),
      expr::Scalar::Null(), "session_window");
  return exec::PhysicalNodePtr(std::make_shared<exec::HashAggregateNode>(
      std::move(updated), std::move(grouping), aggregate.Aggregates(), aggregate.Schema()));
}

Result<exec::PhysicalNodePtr> PlanJoin(const JoinNode& join, const exec::ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr left, BuildPhysicalPlan(join.Input(0), context));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr right, BuildPhysicalPlan(join.Input(1), context));
  if (const std::optional<StreamJoinExecution>& execution = join.Execution()) {
    // Both sides keep state: no build side to choose.
    return exec::PhysicalNodePtr(std::make_shared<exec::StreamingJoinNode>(
        std::move(left), std::move(right), join.Type(), join.LeftKeys(), join.RightKeys(),
        join.Residual(), join.Schema(), execution->late_event_time_columns, execution->eviction,
        execution->runtime));
  }
  const int64_t left_rows = EstimateRows(join.Input(0));
  const int64_t right_rows = EstimateRows(join.Input(1));
  // The operator builds its hash table on the right input; for inner joins, put the smaller
  // side there and restore the column order with a projection.
  const bool swap =
      (join.Type() == exec::JoinType::kInner || join.Type() == exec::JoinType::kCross) &&
      left_rows >= 0 && right_rows >= 0 && left_rows < right_rows;
  if (!swap) {
    return exec::PhysicalNodePtr(std::make_shared<exec::HashJoinNode>(
        std::move(left), std::move(right), join.Type(), join.LeftKeys(), join.RightKeys(),
        join.Residual(), join.Schema()));
  }
  const int nl = join.Input(0).Schema()->NumFields();
  const int nr = join.Input(1).Schema()->NumFields();
  // Swapped output is right ++ left: old left column i is at nr + i, old right column j at j.
  std::vector<int> mapping(static_cast<size_t>(nl + nr));
  std::vector<columnar::Field> swapped_fields;
  swapped_fields.reserve(static_cast<size_t>(nl) + static_cast<size_t>(nr));
  for (int j = 0; j < nr; ++j) {
    swapped_fields.push_back(join.Schema()->FieldAt(nl + j));
  }
  for (int i = 0; i < nl; ++i) {
    swapped_fields.push_back(join.Schema()->FieldAt(i));
    mapping[static_cast<size_t>(i)] = nr + i;
  }
  for (int j = 0; j < nr; ++j) {
    mapping[static_cast<size_t>(nl) + static_cast<size_t>(j)] = j;
  }
  auto swapped_schema = std::make_shared<columnar::Schema>(std::move(swapped_fields));
  auto joined = std::make_shared<exec::HashJoinNode>(
      std::move(right), std::move(left), join.Type(), join.RightKeys(), join.LeftKeys(),
      RemapColumns(join.Residual(), mapping), swapped_schema);
  std::vector<BoundExprPtr> restore;
  for (int k = 0; k < nl + nr; ++k) {
    const int from = mapping[static_cast<size_t>(k)];
    restore.push_back(std::make_shared<expr::BoundExpression>(
        expr::Op::kColumn, swapped_schema->FieldAt(from).Type(), std::vector<BoundExprPtr>{}, from,
        expr::Scalar::Null(), swapped_schema->FieldAt(from).Name()));
  }
  return exec::PhysicalNodePtr(
      std::make_shared<exec::ProjectNode>(std::move(joined), std::move(restore), join.Schema()));
}

}  // namespace

int64_t EstimateRows(const LogicalPlan& plan) {
  switch (plan.Kind()) {
    case PlanKind::kScan: {
      const ScanSource& source = plan.As<ScanNode>().Source();
      int64_t rows = 0;
      switch (source.kind) {
        case ScanSource::Kind::kValues:
          for (const auto& batch : source.batches) {
            rows += batch->NumRows();
          }
          return rows;
        case ScanSource::Kind::kDelta:
          // From file sizes (about 100 bytes per row): both sides are estimated alike.
          for (const delta::AddFile& add : source.snapshot->Files()) {
            rows += add.size / 100;
          }
          return rows;
        case ScanSource::Kind::kFiles:
        case ScanSource::Kind::kStream:
          return -1;
      }
      return -1;
    }
    case PlanKind::kFilter:
    case PlanKind::kProject:
    case PlanKind::kSort:
    case PlanKind::kAggregate:
    case PlanKind::kGenerate:
    case PlanKind::kWatermark:
    case PlanKind::kDeduplicate:
    case PlanKind::kWindow:
      return EstimateRows(plan.Input());
    case PlanKind::kExpand: {
      const int64_t input = EstimateRows(plan.Input());
      return input < 0 ? input
                       : input * static_cast<int64_t>(plan.As<ExpandNode>().Projections().size());
    }
    case PlanKind::kLimit: {
      const int64_t input = EstimateRows(plan.Input());
      const int64_t limit = plan.As<LimitNode>().Limit();
      return input < 0 ? limit : std::min(input, limit);
    }
    case PlanKind::kJoin:
    case PlanKind::kUnion: {
      int64_t rows = 0;
      for (const LogicalPlanPtr& input : plan.Inputs()) {
        const int64_t r = EstimateRows(*input);
        if (r < 0) {
          return -1;
        }
        rows += r;
      }
      return rows;
    }
  }
  return -1;
}

Result<exec::PhysicalNodePtr> BuildPhysicalPlan(const LogicalPlan& plan,
                                                const exec::ExecContext& context) {
  // The node over the plan's single input.
  auto over_input = [&](auto make) -> Result<exec::PhysicalNodePtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr input,
                              BuildPhysicalPlan(plan.Input(), context));
    return exec::PhysicalNodePtr(make(std::move(input)));
  };
  switch (plan.Kind()) {
    case PlanKind::kScan:
      return PlanScan(plan.As<ScanNode>(), context);
    case PlanKind::kFilter:
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::FilterNode>(std::move(input),
                                                  plan.As<FilterNode>().Condition());
      });
    case PlanKind::kProject:
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::ProjectNode>(
            std::move(input), plan.As<ProjectNode>().Expressions(), plan.Schema());
      });
    case PlanKind::kAggregate: {
      const auto& aggregate = plan.As<AggregateNode>();
      for (size_t k = 0; k < aggregate.Keys().size(); ++k) {
        const expr::BoundExpression& key = *aggregate.Keys()[k];
        if (IsSessionWindowKey(key)) {
          TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr input,
                                    BuildPhysicalPlan(plan.Input(), context));
          return PlanSessionAggregate(aggregate, std::move(input), static_cast<int>(k));
        }
        if (ContainsSessionWindow(key)) {
          return Status::InvalidArgument(fmt::format(
              "session_window must be a grouping key by itself, not within '{}'", key.ToString()));
        }
      }
      return over_input([&](exec::PhysicalNodePtr input) -> exec::PhysicalNodePtr {
        if (const std::optional<StatefulExecution>& execution = aggregate.Execution()) {
          return std::make_shared<exec::StatefulAggregateNode>(
              std::move(input), aggregate.Keys(), aggregate.Aggregates(), plan.Schema(),
              execution->event_time, execution->runtime);
        }
        return std::make_shared<exec::HashAggregateNode>(std::move(input), aggregate.Keys(),
                                                         aggregate.Aggregates(), plan.Schema());
      });
    }
    case PlanKind::kJoin:
      return PlanJoin(plan.As<JoinNode>(), context);
    case PlanKind::kSort:
      return over_input([&](exec::PhysicalNodePtr input) {
        const auto& sort = plan.As<SortNode>();
        return std::make_shared<exec::SortNode>(std::move(input), sort.Keys(), sort.Limit());
      });
    case PlanKind::kLimit:
      return over_input([&](exec::PhysicalNodePtr input) {
        const auto& limit = plan.As<LimitNode>();
        return std::make_shared<exec::LimitNode>(std::move(input), limit.Limit(), limit.Offset());
      });
    case PlanKind::kWindow:
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::WindowNode>(std::move(input),
                                                  plan.As<WindowNode>().Functions(), plan.Schema());
      });
    case PlanKind::kExpand:
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::ExpandNode>(
            std::move(input), plan.As<ExpandNode>().Projections(), plan.Schema());
      });
    case PlanKind::kGenerate:
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::GenerateNode>(std::move(input),
                                                    plan.As<GenerateNode>().Spec(), plan.Schema());
      });
    case PlanKind::kWatermark: {
      // Spark ignores withWatermark in batch queries: the rows pass straight through. A
      // started stream gathers the event times for its watermark.
      const auto& watermark = plan.As<WatermarkNode>();
      if (watermark.Stats() == nullptr) {
        return BuildPhysicalPlan(plan.Input(), context);
      }
      return over_input([&](exec::PhysicalNodePtr input) {
        return std::make_shared<exec::EventTimeWatermarkNode>(
            std::move(input), watermark.EventTimeIndex(), watermark.DelayMicros(),
            watermark.Stats());
      });
    }
    case PlanKind::kDeduplicate:
      return over_input([&](exec::PhysicalNodePtr input) -> exec::PhysicalNodePtr {
        const auto& dedup = plan.As<DeduplicateNode>();
        if (!dedup.Execution()) {
          return PlanBatchDeduplicate(dedup, std::move(input));
        }
        const StatefulExecution& execution = *dedup.Execution();
        return std::make_shared<exec::StreamingDeduplicateNode>(
            std::move(input), dedup.KeyColumns(), execution.event_time, dedup.WithinWatermark(),
            execution.delay_micros, execution.runtime);
      });
    case PlanKind::kUnion: {
      std::vector<exec::PhysicalNodePtr> inputs;
      for (const LogicalPlanPtr& input : plan.Inputs()) {
        TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr node, BuildPhysicalPlan(*input, context));
        inputs.push_back(std::move(node));
      }
      return exec::PhysicalNodePtr(std::make_shared<exec::UnionAllNode>(std::move(inputs)));
    }
  }
  return Status::Internal("unknown logical plan node");
}

Result<exec::OperatorPtr> CreatePhysicalPlan(const LogicalPlan& plan,
                                             const exec::ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::PhysicalNodePtr physical, BuildPhysicalPlan(plan, context));
  return exec::InstantiateOperators(physical, context);
}

// A TrackingMemoryPool that frees itself once its owner is gone and its last allocation has
// been returned: one reference for the owner, one per live allocation.
class QueryMemory::CountedPool final : public columnar::MemoryPool {
 public:
  explicit CountedPool(int64_t limit_bytes)
      : tracking_(fmt::format("query ({} = {} bytes)", kQueryMemoryLimitKey, limit_bytes),
                  columnar::DefaultMemoryPool(), limit_bytes) {}

  Result<uint8_t*> Allocate(int64_t size) override {
    auto data = tracking_.Allocate(size);
    if (data.ok()) {
      references_.fetch_add(1, std::memory_order_relaxed);
    }
    return data;
  }
  Result<uint8_t*> Reallocate(uint8_t* data, int64_t old_size, int64_t new_size) override {
    auto fresh = tracking_.Reallocate(data, old_size, new_size);
    if (fresh.ok() && data == nullptr) {
      references_.fetch_add(1, std::memory_order_relaxed);
    }
    return fresh;
  }
  void Free(uint8_t* data, int64_t size) override {
    tracking_.Free(data, size);
    Unreference();
  }
  int64_t BytesAllocated() const override { return tracking_.BytesAllocated(); }
  int64_t PeakBytesAllocated() const override { return tracking_.PeakBytesAllocated(); }

  void Unreference() {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
    }
  }

 private:
  columnar::TrackingMemoryPool tracking_;
  std::atomic<int64_t> references_{1};
};

namespace {

// Java's byte strings (JavaUtils.byteStringAsBytes): digits with an optional unit b, k[b],
// m[b], g[b], t[b] or p[b] in any case; a bare number is bytes.
Result<int64_t> ParseByteSize(std::string_view key, const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, value);
  std::string unit(rest, end);
  for (char& c : unit) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (unit.size() == 2 && unit[1] == 'b') {
    unit.pop_back();
  }
  const std::string_view units = "bkmgtp";
  const size_t shift = unit.empty() ? 0 : units.find(unit);
  if (ec != std::errc() || value <= 0 || unit.size() > 1 || shift == std::string_view::npos ||
      value > (INT64_MAX >> (10 * shift))) {
    return Status::InvalidArgument(fmt::format(
        "{} must be a positive size in bytes (a number, or with a unit: 512m, 4g), got '{}'", key,
        text));
  }
  return value << (10 * shift);
}

}  // namespace

int64_t QueryMemory::DefaultLimitBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  int64_t limit = pages > 0 && page_size > 0
                      ? static_cast<int64_t>(static_cast<double>(pages) * page_size * 0.8)
                      : INT64_MAX;
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    limit = std::min(limit, static_cast<int64_t>(address_space.rlim_cur / 2));
  }
  return limit;
}

Result<std::unique_ptr<QueryMemory>> QueryMemory::Make(
    const std::map<std::string, std::string>& config) {
  int64_t limit = DefaultLimitBytes();
  if (auto it = config.find(std::string(kQueryMemoryLimitKey)); it != config.end()) {
    TRIBUTARY_ASSIGN_OR_RAISE(limit, ParseByteSize(kQueryMemoryLimitKey, it->second));
  }
  return WithLimit(limit);
}

std::unique_ptr<QueryMemory> QueryMemory::WithLimit(int64_t limit_bytes) {
  return std::unique_ptr<QueryMemory>(new QueryMemory(new CountedPool(limit_bytes), limit_bytes));
}

QueryMemory::~QueryMemory() {
  pool_->Unreference();
}

columnar::MemoryPool* QueryMemory::Pool() const {
  return pool_;
}

void QueryMemory::Attach(exec::ExecContext* context) const {
  context->eval.pool = pool_;
  context->pool = pool_;
}

}  // namespace tributary::plan

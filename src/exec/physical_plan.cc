#include "exec/physical_plan.h"

#include <algorithm>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "exec/event_time_watermark.h"
#include "exec/generate.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/parallel_scan.h"
#include "exec/read_ahead.h"
#include "exec/relational_operators.h"
#include "exec/scan.h"
#include "exec/session_window.h"
#include "exec/sort.h"
#include "exec/stateful_aggregate.h"
#include "exec/streaming_deduplicate.h"
#include "exec/streaming_join.h"
#include "exec/window.h"
#include "formats/parquet/reader.h"

namespace tributary::exec {

ValuesNode::ValuesNode(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                       std::string description)
    : PhysicalNode(PhysicalNodeKind::kValues, {}),
      schema_(std::move(schema)),
      batches_(std::move(batches)),
      description_(std::move(description)) {}

std::string ValuesNode::ToString() const {
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches_) {
    rows += batch->NumRows();
  }
  return fmt::format("{}(rows={})", description_, rows);
}

std::string FilterNode::ToString() const {
  return fmt::format("Filter({})", predicate_->ToString());
}

std::string ExpandNode::ToString() const {
  std::string out = "Expand(";
  for (size_t p = 0; p < projections_.size(); ++p) {
    out += p > 0 ? ", [" : "[";
    for (size_t i = 0; i < projections_[p].size(); ++i) {
      out += i > 0 ? ", " : "";
      out += projections_[p][i]->ToString();
    }
    out += "]";
  }
  return out + ")";
}

std::string ProjectNode::ToString() const {
  std::string out = "Project(";
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += expressions_[i]->ToString();
    const std::string& name = schema_->FieldAt(static_cast<int>(i)).Name();
    if (expressions_[i]->GetOp() != expr::Op::kColumn || expressions_[i]->Name() != name) {
      out += " AS " + name;
    }
  }
  return out + ")";
}

std::string LimitNode::ToString() const {
  return offset_ > 0 ? fmt::format("Limit({}, offset={})", limit_, offset_)
                     : fmt::format("Limit({})", limit_);
}

namespace {

// "keys=[a], aggs=[sum(b)]": the aggregation nodes' EXPLAIN body.
std::string DescribeAggregation(const std::vector<expr::BoundExprPtr>& keys,
                                const std::vector<AggregateCall>& aggregates) {
  std::string out = "keys=[";
  for (size_t k = 0; k < keys.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys[k]->ToString();
  }
  out += "], aggs=[";
  for (size_t a = 0; a < aggregates.size(); ++a) {
    const AggregateCall& call = aggregates[a];
    out += (a > 0 ? ", " : "") + call.function + "(" + (call.distinct ? "DISTINCT " : "");
    if (call.arguments.empty()) {
      out += "*";
    }
    for (size_t i = 0; i < call.arguments.size(); ++i) {
      out += (i > 0 ? ", " : "") + call.arguments[i]->ToString();
    }
    out += ")";
  }
  return out + "]";
}

}  // namespace

std::string HashAggregateNode::ToString() const {
  return std::string(partial_ ? "PartialHashAggregate(" : "HashAggregate(") +
         DescribeAggregation(keys_, aggregates_) + ")";
}

std::string StatefulAggregateNode::ToString() const {
  std::string out = "StatefulAggregate(" + DescribeAggregation(keys_, aggregates_);
  if (event_time_key_) {
    out += ", eventTime=" + keys_[static_cast<size_t>(*event_time_key_)]->ToString();
  }
  return out + ")";
}

std::string UpdatingSessionsNode::ToString() const {
  std::string out = "UpdatingSessions(keys=[";
  for (size_t k = 0; k < keys_.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys_[k]->ToString();
  }
  return out + "], session=" + session_->ToString() + ")";
}

std::string SessionWindowAggregateNode::ToString() const {
  return "SessionWindowAggregate(" + DescribeAggregation(keys_, aggregates_) + ")";
}

std::string StreamingDeduplicateNode::ToString() const {
  std::string out = within_watermark_ ? "StreamingDeduplicateWithinWatermark(keys=["
                                      : "StreamingDeduplicate(keys=[";
  for (size_t k = 0; k < key_columns_.size(); ++k) {
    out += fmt::format("{}#{}", k > 0 ? ", " : "", key_columns_[k]);
  }
  out += "]";
  if (event_time_column_) {
    out += fmt::format(", eventTime=#{}", *event_time_column_);
  }
  return out + ")";
}

std::string_view JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left_outer";
    case JoinType::kRight:
      return "right_outer";
    case JoinType::kFull:
      return "full_outer";
    case JoinType::kLeftSemi:
      return "left_semi";
    case JoinType::kLeftAnti:
      return "left_anti";
    case JoinType::kCross:
      return "cross";
  }
  return "?";
}

std::string HashJoinNode::ToString() const {
  std::string out = fmt::format("HashJoin({}", JoinTypeName(type_));
  if (!left_keys_.empty()) {
    out += ", keys=[";
    for (size_t k = 0; k < left_keys_.size(); ++k) {
      out += (k > 0 ? ", " : "") + left_keys_[k]->ToString() + " = " + right_keys_[k]->ToString();
    }
    out += "]";
  }
  if (residual_ != nullptr) {
    out += ", residual=" + residual_->ToString();
  }
  return out + ")";
}

std::string StreamingJoinNode::ToString() const {
  std::string out = fmt::format("StreamingJoin({}", JoinTypeName(type_));
  if (!left_keys_.empty()) {
    out += ", keys=[";
    for (size_t k = 0; k < left_keys_.size(); ++k) {
      out += (k > 0 ? ", " : "") + left_keys_[k]->ToString() + " = " + right_keys_[k]->ToString();
    }
    out += "]";
  }
  if (residual_ != nullptr) {
    out += ", residual=" + residual_->ToString();
  }
  constexpr std::array<std::string_view, 2> kSides = {"left", "right"};
  for (size_t side = 0; side < 2; ++side) {
    const JoinStateEviction& eviction = eviction_[side];
    if (eviction.kind == JoinStateEviction::Kind::kKey) {
      const std::vector<expr::BoundExprPtr>& keys = side == 0 ? left_keys_ : right_keys_;
      out += fmt::format(", {}State=key {}", kSides[side],
                         keys[static_cast<size_t>(eviction.column)]->ToString());
    } else if (eviction.kind == JoinStateEviction::Kind::kValue) {
      out += fmt::format(", {}State=value #{}", kSides[side], eviction.column);
    }
  }
  return out + ")";
}

std::string SortNode::ToString() const {
  std::string out = limit_ ? "TopN(" : "Sort(";
  for (size_t k = 0; k < keys_.size(); ++k) {
    const SortKey& key = keys_[k];
    out += (k > 0 ? ", " : "") + key.expression->ToString() + (key.ascending ? " ASC" : " DESC") +
           (key.nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  if (limit_) {
    out += fmt::format(", limit={}", *limit_);
  }
  return out + ")";
}

std::string WindowNode::ToString() const {
  std::string out = "Window(";
  const int first = schema_->NumFields() - static_cast<int>(functions_.size());
  for (size_t i = 0; i < functions_.size(); ++i) {
    out += (i > 0 ? ", " : "") + schema_->FieldAt(first + static_cast<int>(i)).Name();
    if (functions_[i].group_limit) {
      // Spark's WindowGroupLimit, shown as Spark's EXPLAIN names it.
      out += fmt::format(" WindowGroupLimit {}", *functions_[i].group_limit);
    }
  }
  return out + ")";
}

std::string GenerateNode::ToString() const {
  return std::string("Generate ") + (spec_.with_position ? "posexplode" : "explode") +
         (spec_.outer ? "_outer(" : "(") + spec_.collection->ToString() + ")";
}

namespace {

template <typename T>
std::shared_ptr<const T> As(const PhysicalNodePtr& node) {
  return std::static_pointer_cast<const T>(node);
}

// A file or Delta scan with only row-by-row operators above it: work that streams batch by
// batch, worth a thread of its own ahead of whatever consumes it.
bool IsScanPipeline(const PhysicalNode& node) {
  switch (node.Kind()) {
    case PhysicalNodeKind::kFileScan:
    case PhysicalNodeKind::kDeltaScan:
      return true;
    case PhysicalNodeKind::kFilter:
    case PhysicalNodeKind::kProject:
    case PhysicalNodeKind::kGenerate:
    case PhysicalNodeKind::kExpand:
    case PhysicalNodeKind::kRowCounting:
      return IsScanPipeline(*node.Children()[0]);
    default:
      return false;
  }
}

// Whether `node` does enough work per input row (hashing, sorting) that its input is worth
// decoding on another thread meanwhile. A global aggregate or a plain consumer is not: there
// the handing over of batches between cores cost more than it saved (query_bench's filter
// case: 28 -> 31 ms).
bool ConsumesHeavily(const PhysicalNode& node) {
  switch (node.Kind()) {
    case PhysicalNodeKind::kHashJoin:
    case PhysicalNodeKind::kSort:
    case PhysicalNodeKind::kWindow:
      return true;
    case PhysicalNodeKind::kHashAggregate:
      return !static_cast<const HashAggregateNode&>(node).Keys().empty();
    default:
      return false;
  }
}

// The leaf of a scan pipeline (IsScanPipeline): the file or Delta scan.
const PhysicalNode& ScanLeaf(const PhysicalNode& pipeline) {
  const PhysicalNode* node = &pipeline;
  while (!node->Children().empty()) {
    node = node->Children()[0].get();
  }
  return *node;
}

// The parts a scan pipeline splits into for threads: its scan's files, and when a Parquet file
// scan has fewer files than threads, their row groups (the footers are read here; a file whose
// footer does not read stays one part, and its scan reports the error).
std::vector<ScanPart> ScanParts(const PhysicalNode& pipeline, const ExecContext& context) {
  const PhysicalNode& leaf = ScanLeaf(pipeline);
  std::vector<ScanPart> parts;
  if (leaf.Kind() == PhysicalNodeKind::kDeltaScan) {
    const size_t files = static_cast<const DeltaScanNode&>(leaf).Files().size();
    for (size_t file = 0; file < files; ++file) {
      parts.push_back(ScanPart::File(file));
    }
    return parts;
  }
  const FileScanSpec& spec = static_cast<const FileScanNode&>(leaf).Spec();
  const bool by_row_group = spec.format == formats::FileFormat::kParquet &&
                            spec.paths.size() < static_cast<size_t>(context.threads);
  for (size_t file = 0; file < spec.paths.size(); ++file) {
    int row_groups = 1;
    if (by_row_group) {
      auto footer = parquet::ParquetFileReader::Open(*context.fs, spec.paths[file]);
      row_groups = footer.ok() ? (*footer)->NumRowGroups() : 0;
    }
    if (row_groups <= 1) {
      parts.push_back(ScanPart::File(file));
      continue;
    }
    for (int group = 0; group < row_groups; ++group) {
      parts.push_back(ScanPart::File(file, {group, group + 1}));
    }
  }
  return parts;
}

Result<OperatorPtr> Instantiate(const PhysicalNodePtr& plan, const ExecContext& context,
                                int* spare_threads, const ScanPart* part);

// What a parallel scan runs above each part's pipeline (the pipeline's operators in, the
// part's root out), e.g. a probe of a shared join build; null: nothing.
using AbovePart = std::function<Result<OperatorPtr>(OperatorPtr part_pipeline)>;

// `pipeline` (a scan pipeline of `parts`) read by up to context.threads workers, each part's
// copy under `above` when given.
Result<OperatorPtr> ParallelScan(const PhysicalNodePtr& pipeline, std::vector<ScanPart> parts,
                                 const ExecContext& context, const AbovePart& above = nullptr) {
  int none = 0;
  const ScanPart all;
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr whole, Instantiate(pipeline, context, &none, &all));
  if (above) {
    TRIBUTARY_ASSIGN_OR_RAISE(whole, above(std::move(whole)));
  }
  ParallelScanOperator::Reports reports;
  if (const PhysicalNode& leaf = ScanLeaf(*pipeline); leaf.Kind() == PhysicalNodeKind::kFileScan) {
    const FileScanSpec& spec = static_cast<const FileScanNode&>(leaf).Spec();
    reports.on_corrupt_file = spec.on_corrupt_file;
    if (spec.on_unknown_fields) {
      // The node is kept alive by `pipeline`, which the part opener holds.
      reports.on_unknown_fields = [&spec, pipeline](const std::vector<std::string>& names) {
        return spec.on_unknown_fields(names, spec.paths);
      };
    }
  }
  ParallelScanOperator::OpenPart open = [pipeline, &context,
                                         above](const ScanPart& part) -> Result<OperatorPtr> {
    int no_threads = 0;
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr copy, Instantiate(pipeline, context, &no_threads, &part));
    return above ? above(std::move(copy)) : std::move(copy);
  };
  return OperatorPtr(std::make_unique<ParallelScanOperator>(
      std::move(whole), std::move(parts), context.threads, std::move(open), std::move(reports)));
}

// `plan` as a ParallelScanOperator when it is a scan pipeline of several parts and the context
// has threads; else null.
Result<OperatorPtr> MaybeParallelScan(const PhysicalNodePtr& plan, const ExecContext& context) {
  if (context.threads <= 1 || !IsScanPipeline(*plan)) {
    return OperatorPtr{};
  }
  std::vector<ScanPart> parts = ScanParts(*plan, context);
  if (parts.size() <= 1) {
    return OperatorPtr{};
  }
  return ParallelScan(plan, std::move(parts), context);
}

// Whether a hash join of `type` can probe a left input part by part on several threads against
// one shared build: right and full joins cannot, their unmatched right rows need every
// probe's matches.
bool ProbesByPart(JoinType type) {
  return type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kLeftSemi ||
         type == JoinType::kLeftAnti;
}

// A plan that worker threads can run part by part: a scan pipeline of several parts, with
// `above` what runs over each part's copy of it.
struct PartedPipeline {
  PhysicalNodePtr scan_pipeline;
  std::vector<ScanPart> parts;
  AbovePart above;  // null: nothing
};

// `plan` as a PartedPipeline, when the context has threads: a scan pipeline of several parts,
// or a join (ProbesByPart) whose probe side is one. The join's right side is instantiated here
// and built once, by the first part's probe, into a JoinBuildSide every part's probe shares;
// each part is probed by the worker that reads it. A left batch gives its rows in order and
// the parts come in order, so the rows and their order are those of one thread. Null when
// `plan` is neither.
Result<std::optional<PartedPipeline>> PartedPipelineOf(const PhysicalNodePtr& plan,
                                                       const ExecContext& context,
                                                       int* spare_threads) {
  if (context.threads <= 1) {
    return std::nullopt;
  }
  const bool join = plan->Kind() == PhysicalNodeKind::kHashJoin &&
                    ProbesByPart(static_cast<const HashJoinNode&>(*plan).Type());
  const PhysicalNodePtr& pipeline = join ? plan->Children()[0] : plan;
  if (!IsScanPipeline(*pipeline)) {
    return std::nullopt;
  }
  std::vector<ScanPart> parts = ScanParts(*pipeline, context);
  if (parts.size() <= 1) {
    return std::nullopt;
  }
  if (!join) {
    return PartedPipeline{pipeline, std::move(parts), nullptr};
  }
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr right,
                            Instantiate(plan->Children()[1], context, spare_threads, nullptr));
  auto node = As<HashJoinNode>(plan);
  auto build = std::make_shared<JoinBuildSide>(node, std::move(right), context);
  AbovePart probe = [node, build, &context](OperatorPtr left) -> Result<OperatorPtr> {
    return OperatorPtr(std::make_unique<HashJoinOperator>(node, std::move(left), build, context));
  };
  return PartedPipeline{pipeline, std::move(parts), std::move(probe)};
}

// A join that PartedPipelineOf splits, read by up to context.threads workers; else null.
Result<OperatorPtr> MaybeParallelJoin(const PhysicalNodePtr& plan, const ExecContext& context,
                                      int* spare_threads) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<PartedPipeline> parted,
                            PartedPipelineOf(plan, context, spare_threads));
  if (!parted.has_value()) {
    return OperatorPtr{};
  }
  return ParallelScan(parted->scan_pipeline, std::move(parted->parts), context, parted->above);
}

// A grouped aggregation over a PartedPipeline, as Spark's partial and final aggregations: each
// part aggregated by the worker that reads it (a PartialHashAggregate above the part's
// pipeline), the parts' groups merged on the consumer's thread. The parts' groups arrive in
// part order, each part's in the order they first appear in it, so the merged groups come out
// in the order one thread finds them, and every aggregate merges exactly (MergingFunction):
// rows and order are those of one thread. Null when that does not hold.
Result<OperatorPtr> MaybeParallelAggregate(const PhysicalNodePtr& plan, const ExecContext& context,
                                           int* spare_threads) {
  const auto& aggregate = static_cast<const HashAggregateNode&>(*plan);
  if (context.threads <= 1 || aggregate.Keys().empty() || aggregate.Partial()) {
    return OperatorPtr{};
  }
  const SchemaPtr& schema = aggregate.Schema();
  auto column = [&schema](int index) {
    const columnar::Field& field = schema->FieldAt(index);
    return std::make_shared<expr::BoundExpression>(expr::Op::kColumn, field.Type(),
                                                   std::vector<expr::BoundExprPtr>{}, index,
                                                   expr::Scalar::Null(), field.Name());
  };
  const int num_keys = static_cast<int>(aggregate.Keys().size());
  std::vector<AggregateCall> merging;
  for (size_t i = 0; i < aggregate.Aggregates().size(); ++i) {
    const int index = num_keys + static_cast<int>(i);
    AggregateCall merge;
    merge.function = MergingFunction(aggregate.Aggregates()[i], *schema->FieldAt(index).Type());
    if (merge.function.empty()) {
      return OperatorPtr{};
    }
    merge.arguments = {column(index)};
    merging.push_back(std::move(merge));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<PartedPipeline> parted,
                            PartedPipelineOf(plan->Children()[0], context, spare_threads));
  if (!parted.has_value()) {
    return OperatorPtr{};
  }
  auto partial = std::make_shared<HashAggregateNode>(
      plan->Children()[0], aggregate.Keys(), aggregate.Aggregates(), schema, /*partial=*/true);
  AbovePart below = std::move(parted->above);
  AbovePart aggregate_part = [partial, below, &context](OperatorPtr input) -> Result<OperatorPtr> {
    if (below) {
      TRIBUTARY_ASSIGN_OR_RAISE(input, below(std::move(input)));
    }
    return OperatorPtr(std::make_unique<HashAggregateOperator>(partial, std::move(input), context));
  };
  std::vector<expr::BoundExprPtr> keys;
  keys.reserve(static_cast<size_t>(num_keys));
  for (int k = 0; k < num_keys; ++k) {
    keys.push_back(column(k));
  }
  auto final_node =
      std::make_shared<HashAggregateNode>(partial, std::move(keys), std::move(merging), schema);
  TRIBUTARY_ASSIGN_OR_RAISE(
      OperatorPtr partials,
      ParallelScan(parted->scan_pipeline, std::move(parted->parts), context, aggregate_part));
  return OperatorPtr(
      std::make_unique<HashAggregateOperator>(std::move(final_node), std::move(partials), context));
}

// `spare_threads`: threads not yet given to a scan pipeline. A scan pipeline of several parts
// is read by up to context.threads workers (ParallelScan); otherwise spare threads go to the
// first pipelines in pull order (children in order: a join's probe side before its build side)
// whose consumer works heavily on them, each read ahead on a thread of its own. `part`, when
// given, is a scan pipeline's part to read on the calling thread as it is (ParallelScan's).
Result<OperatorPtr> Instantiate(const PhysicalNodePtr& plan, const ExecContext& context,
                                int* spare_threads, const ScanPart* part) {
  if (part == nullptr && (plan->Kind() == PhysicalNodeKind::kHashAggregate ||
                          plan->Kind() == PhysicalNodeKind::kHashJoin)) {
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr parallel,
                              plan->Kind() == PhysicalNodeKind::kHashAggregate
                                  ? MaybeParallelAggregate(plan, context, spare_threads)
                                  : MaybeParallelJoin(plan, context, spare_threads));
    if (parallel != nullptr) {
      return parallel;
    }
  }
  std::vector<OperatorPtr> inputs;
  for (const PhysicalNodePtr& child : plan->Children()) {
    if (part != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr input,
                                Instantiate(child, context, spare_threads, part));
      inputs.push_back(std::move(input));
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr parallel, MaybeParallelScan(child, context));
    if (parallel != nullptr) {
      inputs.push_back(std::move(parallel));
      continue;
    }
    if (*spare_threads > 0 && ConsumesHeavily(*plan) && IsScanPipeline(*child)) {
      --*spare_threads;
      int none = 0;
      TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr pipeline, Instantiate(child, context, &none, nullptr));
      inputs.push_back(std::make_unique<ReadAheadOperator>(std::move(pipeline), kReadAheadDepth));
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr input,
                              Instantiate(child, context, spare_threads, nullptr));
    inputs.push_back(std::move(input));
  }
  const ScanPart whole;
  const ScanPart& scan_part = part != nullptr ? *part : whole;
  switch (plan->Kind()) {
    case PhysicalNodeKind::kValues:
      return OperatorPtr(std::make_unique<BatchSourceOperator>(As<ValuesNode>(plan)));
    case PhysicalNodeKind::kRowCounting:
      return OperatorPtr(
          std::make_unique<RowCountingOperator>(As<RowCountingNode>(plan), std::move(inputs[0])));
    case PhysicalNodeKind::kFilter:
      return OperatorPtr(
          std::make_unique<FilterOperator>(As<FilterNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kProject:
      return OperatorPtr(
          std::make_unique<ProjectOperator>(As<ProjectNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kLimit:
      return OperatorPtr(
          std::make_unique<LimitOperator>(As<LimitNode>(plan), std::move(inputs[0])));
    case PhysicalNodeKind::kUnionAll:
      return OperatorPtr(
          std::make_unique<UnionAllOperator>(As<UnionAllNode>(plan), std::move(inputs)));
    case PhysicalNodeKind::kHashAggregate:
      return OperatorPtr(std::make_unique<HashAggregateOperator>(As<HashAggregateNode>(plan),
                                                                 std::move(inputs[0]), context));
    case PhysicalNodeKind::kHashJoin:
      return OperatorPtr(std::make_unique<HashJoinOperator>(
          As<HashJoinNode>(plan), std::move(inputs[0]), std::move(inputs[1]), context));
    case PhysicalNodeKind::kSort:
      return OperatorPtr(
          std::make_unique<SortOperator>(As<SortNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kWindow:
      return OperatorPtr(
          std::make_unique<WindowOperator>(As<WindowNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kGenerate:
      return OperatorPtr(std::make_unique<GenerateOperator>(As<GenerateNode>(plan),
                                                            std::move(inputs[0]), context));
    case PhysicalNodeKind::kExpand:
      return OperatorPtr(
          std::make_unique<ExpandOperator>(As<ExpandNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kFileScan:
      return FileScanOperator::Make(As<FileScanNode>(plan), context, scan_part);
    case PhysicalNodeKind::kDeltaScan:
      return DeltaScanOperator::Make(As<DeltaScanNode>(plan), context, scan_part);
    case PhysicalNodeKind::kEventTimeWatermark:
      return OperatorPtr(std::make_unique<EventTimeWatermarkOperator>(
          As<EventTimeWatermarkNode>(plan), std::move(inputs[0])));
    case PhysicalNodeKind::kStatefulAggregate:
      return OperatorPtr(std::make_unique<StatefulAggregateOperator>(
          As<StatefulAggregateNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kStreamingDeduplicate:
      return OperatorPtr(std::make_unique<StreamingDeduplicateOperator>(
          As<StreamingDeduplicateNode>(plan), std::move(inputs[0]), context));
    case PhysicalNodeKind::kStreamingJoin:
      return OperatorPtr(std::make_unique<StreamingJoinOperator>(
          As<StreamingJoinNode>(plan), std::move(inputs[0]), std::move(inputs[1]), context));
    case PhysicalNodeKind::kUpdatingSessions:
      return OperatorPtr(std::make_unique<UpdatingSessionsOperator>(As<UpdatingSessionsNode>(plan),
                                                                    std::move(inputs[0]), context));
    case PhysicalNodeKind::kSessionWindowAggregate:
      return OperatorPtr(std::make_unique<SessionWindowAggregateOperator>(
          As<SessionWindowAggregateNode>(plan), std::move(inputs[0]), context));
  }
  return Status::Internal("unknown physical plan node");
}

}  // namespace

Result<OperatorPtr> InstantiateOperators(const PhysicalNodePtr& plan, const ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr parallel, MaybeParallelScan(plan, context));
  if (parallel != nullptr) {
    return parallel;
  }
  int spare_threads = std::max(0, context.threads - 1);
  return Instantiate(plan, context, &spare_threads, nullptr);
}

}  // namespace tributary::exec

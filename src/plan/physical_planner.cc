#include "plan/physical_planner.h"

#include <fmt/format.h>

#include "exec/generate.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/relational_operators.h"
#include "exec/scan.h"
#include "exec/sort.h"
#include "plan/bound_rewrites.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

template <typename T>
const T& As(const LogicalPlan& plan) {
  return static_cast<const T&>(plan);
}

std::vector<std::string> ColumnNames(const ScanNode& scan) {
  std::vector<std::string> names;
  for (int index : scan.Columns()) {
    names.push_back(scan.Source().FieldAt(index).Name());
  }
  return names;
}

Result<exec::OperatorPtr> PlanSourceScan(const ScanNode& scan, const exec::ExecContext& context) {
  const ScanSource& source = scan.Source();
  switch (source.kind) {
    case ScanSource::Kind::kDelta:
      return exec::DeltaScanOperator::Make(source.snapshot, ColumnNames(scan), scan.PushedFilter(),
                                           context);
    case ScanSource::Kind::kFiles:
      return exec::FileScanOperator::Make(source.files, ColumnNames(scan), context);
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
      return exec::OperatorPtr(std::make_unique<exec::BatchSourceOperator>(
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

Result<exec::OperatorPtr> PlanScan(const ScanNode& scan, const exec::ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr op, PlanSourceScan(scan, context));
  if (scan.Source().rows_read == nullptr) {
    return op;
  }
  return exec::OperatorPtr(
      std::make_unique<exec::RowCountingOperator>(std::move(op), scan.Source().rows_read));
}

Result<exec::OperatorPtr> PlanJoin(const JoinNode& join, const exec::ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr left, CreatePhysicalPlan(join.Input(0), context));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr right, CreatePhysicalPlan(join.Input(1), context));
  const int64_t left_rows = EstimateRows(join.Input(0));
  const int64_t right_rows = EstimateRows(join.Input(1));
  // The operator builds its hash table on the right input; for inner joins, put the smaller
  // side there and restore the column order with a projection.
  const bool swap =
      (join.Type() == exec::JoinType::kInner || join.Type() == exec::JoinType::kCross) &&
      left_rows >= 0 && right_rows >= 0 && left_rows < right_rows;
  if (!swap) {
    return exec::OperatorPtr(std::make_unique<exec::HashJoinOperator>(
        std::move(left), std::move(right), join.Type(), join.LeftKeys(), join.RightKeys(),
        join.Residual(), join.Schema(), context));
  }
  const int nl = join.Input(0).Schema()->NumFields();
  const int nr = join.Input(1).Schema()->NumFields();
  // Swapped output is right ++ left: old left column i is at nr + i, old right column j at j.
  std::vector<int> mapping(static_cast<size_t>(nl + nr));
  std::vector<columnar::Field> swapped_fields;
  for (int j = 0; j < nr; ++j) {
    swapped_fields.push_back(join.Schema()->FieldAt(nl + j));
  }
  for (int i = 0; i < nl; ++i) {
    swapped_fields.push_back(join.Schema()->FieldAt(i));
    mapping[static_cast<size_t>(i)] = nr + i;
  }
  for (int j = 0; j < nr; ++j) {
    mapping[static_cast<size_t>(nl + j)] = j;
  }
  auto swapped_schema = std::make_shared<columnar::Schema>(std::move(swapped_fields));
  exec::OperatorPtr joined = std::make_unique<exec::HashJoinOperator>(
      std::move(right), std::move(left), join.Type(), join.RightKeys(), join.LeftKeys(),
      RemapColumns(join.Residual(), mapping), swapped_schema, context);
  std::vector<BoundExprPtr> restore;
  for (int k = 0; k < nl + nr; ++k) {
    const int from = mapping[static_cast<size_t>(k)];
    restore.push_back(std::make_shared<expr::BoundExpression>(
        expr::Op::kColumn, swapped_schema->FieldAt(from).Type(), std::vector<BoundExprPtr>{}, from,
        expr::Scalar::Null(), swapped_schema->FieldAt(from).Name()));
  }
  return exec::OperatorPtr(std::make_unique<exec::ProjectOperator>(
      std::move(joined), std::move(restore), join.Schema(), context));
}

}  // namespace

int64_t EstimateRows(const LogicalPlan& plan) {
  switch (plan.Kind()) {
    case PlanKind::kScan: {
      const ScanSource& source = As<ScanNode>(plan).Source();
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
      return EstimateRows(plan.Input());
    case PlanKind::kLimit: {
      const int64_t input = EstimateRows(plan.Input());
      const int64_t limit = As<LimitNode>(plan).Limit();
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

Result<exec::OperatorPtr> CreatePhysicalPlan(const LogicalPlan& plan,
                                             const exec::ExecContext& context) {
  switch (plan.Kind()) {
    case PlanKind::kScan:
      return PlanScan(As<ScanNode>(plan), context);
    case PlanKind::kFilter: {
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(std::make_unique<exec::FilterOperator>(
          std::move(input), As<FilterNode>(plan).Condition(), context));
    }
    case PlanKind::kProject: {
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(std::make_unique<exec::ProjectOperator>(
          std::move(input), As<ProjectNode>(plan).Expressions(), plan.Schema(), context));
    }
    case PlanKind::kAggregate: {
      const auto& aggregate = As<AggregateNode>(plan);
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(std::make_unique<exec::HashAggregateOperator>(
          std::move(input), aggregate.Keys(), aggregate.Aggregates(), plan.Schema(), context));
    }
    case PlanKind::kJoin:
      return PlanJoin(As<JoinNode>(plan), context);
    case PlanKind::kSort: {
      const auto& sort = As<SortNode>(plan);
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(std::make_unique<exec::SortOperator>(std::move(input), sort.Keys(),
                                                                    context, sort.Limit()));
    }
    case PlanKind::kLimit: {
      const auto& limit = As<LimitNode>(plan);
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(
          std::make_unique<exec::LimitOperator>(std::move(input), limit.Limit(), limit.Offset()));
    }
    case PlanKind::kGenerate: {
      const auto& generate = As<GenerateNode>(plan);
      TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr input, CreatePhysicalPlan(plan.Input(), context));
      return exec::OperatorPtr(std::make_unique<exec::GenerateOperator>(
          std::move(input), generate.Spec(), plan.Schema(), context));
    }
    case PlanKind::kUnion: {
      std::vector<exec::OperatorPtr> inputs;
      for (const LogicalPlanPtr& input : plan.Inputs()) {
        TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr op, CreatePhysicalPlan(*input, context));
        inputs.push_back(std::move(op));
      }
      return exec::OperatorPtr(std::make_unique<exec::UnionAllOperator>(std::move(inputs)));
    }
  }
  return Status::Internal("unknown logical plan node");
}

}  // namespace tributary::plan

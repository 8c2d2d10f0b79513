#include "plan/delta_dml.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_set>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "common/ascii.h"
#include "delta/change_data.h"
#include "delta/data_skipping.h"
#include "delta/row_changes.h"
#include "delta/table_reader.h"
#include "expr/backquoted_name.h"
#include "plan/delta_commands.h"
#include "plan/optimizer.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

using columnar::ColumnBuilder;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::Schema;
using expr::BackquotedName;

// Columns the DML plans add next to the user's. The names cannot come from a Delta table
// (Delta refuses no such name, but a user column named so would only shadow these in the
// plans below, where they are always referenced exactly).
constexpr std::string_view kRowIndexColumn = "__tributary_dml_row_index";
constexpr std::string_view kRowIdColumn = "__tributary_dml_row_id";
constexpr std::string_view kClauseColumn = "__tributary_dml_clause";
constexpr std::string_view kSourcePresentColumn = "__tributary_dml_source_present";
// A target row's id: its candidate file's ordinal above its file-wide row index. 2^40 rows per
// file and 2^23 candidate files are far beyond what one table holds.
constexpr int kRowIndexBits = 40;
constexpr int64_t kRowIndexMask = (int64_t{1} << kRowIndexBits) - 1;

std::string TargetCopyName(int i) {
  return fmt::format("__tributary_dml_target_{}", i);
}
std::string SourceCopyName(int i) {
  return fmt::format("__tributary_dml_source_{}", i);
}
std::string NewValueName(int i) {
  return fmt::format("__tributary_dml_new_{}", i);
}
std::string OldValueName(int i) {
  return fmt::format("__tributary_dml_old_{}", i);
}

ExprPtr Exact(std::string_view name) {
  return ExactColumn(std::string(name));
}

// Runs `plan` through the optimizer and the physical planner, as a DataFrame's collect does.
Result<std::vector<RecordBatchPtr>> Execute(const Catalog& catalog, const LogicalPlanPtr& plan) {
  exec::ExecContext context;
  context.eval = catalog.eval;
  context.fs = catalog.fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto memory, QueryMemory::Make({}));
  memory->Attach(&context);
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr optimized, Optimize(plan, context.eval));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root, CreatePhysicalPlan(*optimized, context));
  return exec::Drain(*root);
}

// `e` with references qualified by `alias` (`t.id`) unqualified (`id`): the form data skipping
// judges, over the table's own column names.
ExprPtr StripQualifier(const ExprPtr& e, const std::string& alias) {
  if (e == nullptr || alias.empty()) {
    return e;
  }
  if (e->GetOp() == expr::Op::kGetField && e->Child(0)->GetOp() == expr::Op::kColumn &&
      EqualsIgnoreAsciiCase(e->Child(0)->Name(), alias)) {
    return ExactColumn(e->Name());
  }
  if (e->Children().empty()) {
    return e;
  }
  std::vector<ExprPtr> children;
  children.reserve(e->Children().size());
  for (const ExprPtr& child : e->Children()) {
    children.push_back(StripQualifier(child, alias));
  }
  return std::make_shared<expr::Expression>(e->GetOp(), std::move(children), e->Name(),
                                            e->Literal(), e->TargetType(), e->IsDistinct(),
                                            e->Window());
}

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->GetOp() == expr::Op::kAnd) {
    SplitConjuncts(e->Child(0), out);
    SplitConjuncts(e->Child(1), out);
  } else {
    out->push_back(e);
  }
}

// The candidate files: those data skipping cannot rule out for `predicate` (over the table's
// columns; null: every file).
Result<std::vector<const delta::AddFile*>> CandidateFiles(const delta::Snapshot& snapshot,
                                                          const ExprPtr& predicate,
                                                          const expr::EvalContext& eval) {
  if (predicate == nullptr) {
    std::vector<const delta::AddFile*> all;
    all.reserve(snapshot.Files().size());
    for (const delta::AddFile& add : snapshot.Files()) {
      all.push_back(&add);
    }
    return all;
  }
  return delta::PruneFiles(snapshot, *predicate, eval);
}

// The target's candidate rows: the table's columns, the row id, and (for MERGE) a copy of each
// column under TargetCopyName so the plans can name it where a source column has its name.
struct TargetRows {
  std::vector<const delta::AddFile*> files;
  std::vector<int64_t> live_rows;  // per file
  LogicalPlanPtr scan;
};

Result<TargetRows> ReadTarget(const Catalog& catalog, const delta::Snapshot& snapshot,
                              std::vector<const delta::AddFile*> files, const std::string& alias,
                              bool with_copies) {
  const Schema& table = *snapshot.Schema();
  const int n = table.NumFields();
  std::vector<Field> fields = table.Fields();
  fields.emplace_back(std::string(kRowIdColumn), DataType::Int64(), false);
  if (with_copies) {
    for (int i = 0; i < n; ++i) {
      fields.push_back(table.FieldAt(i).WithName(TargetCopyName(i)));
    }
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  TargetRows out;
  out.live_rows.assign(files.size(), 0);
  ScanSource source;
  source.kind = ScanSource::Kind::kValues;
  source.schema = schema;
  source.description = fmt::format("DML target {}", snapshot.TableRoot());
  delta::TableReadOptions options;
  options.session_time_zone = catalog.eval.session_time_zone;
  options.row_index_column = std::string(kRowIndexColumn);
  for (size_t f = 0; f < files.size(); ++f) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches,
                              delta::ReadDataFile(*catalog.fs, snapshot, *files[f], options));
    const int64_t high = static_cast<int64_t>(f) << kRowIndexBits;
    for (const RecordBatchPtr& batch : batches) {
      const columnar::Column& index = *batch->ColumnAt(n);
      ColumnBuilder ids(DataType::Int64());
      ids.Reserve(batch->NumRows());
      const int64_t* values = index.Values<int64_t>();
      for (int64_t r = 0; r < batch->NumRows(); ++r) {
        ids.AppendInt(high | values[r]);
      }
      std::vector<ColumnPtr> columns(batch->Columns().begin(), batch->Columns().begin() + n);
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr id_column, ids.Finish());
      columns.push_back(std::move(id_column));
      if (with_copies) {
        columns.insert(columns.end(), batch->Columns().begin(), batch->Columns().begin() + n);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr rows,
                                RecordBatch::Make(schema, batch->NumRows(), std::move(columns)));
      out.live_rows[f] += rows->NumRows();
      source.batches.push_back(std::move(rows));
    }
  }
  out.files = std::move(files);
  out.scan = Scan(std::move(source), alias);
  return out;
}

// DELETE's and UPDATE's rows: the candidate files for `predicate` (`condition` without the
// alias), their rows where `condition` holds (all when null) as `scan`.
Result<TargetRows> ReadFiltered(const Catalog& catalog, const delta::Snapshot& snapshot,
                                const std::string& alias, const ExprPtr& condition,
                                const ExprPtr& predicate) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto files, CandidateFiles(snapshot, predicate, catalog.eval));
  TRIBUTARY_ASSIGN_OR_RAISE(TargetRows target,
                            ReadTarget(catalog, snapshot, std::move(files), alias, false));
  if (condition != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(target.scan, Filter(target.scan, condition));
  }
  return target;
}

std::vector<int64_t> AllRows(const RecordBatch& batch) {
  std::vector<int64_t> rows(static_cast<size_t>(batch.NumRows()));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return rows;
}

// Runs `items` over `rows`, followed (for the change data feed) by each table column's value
// before the change.
Result<std::vector<RecordBatchPtr>> RunWithPreimage(const Catalog& catalog,
                                                    const LogicalPlanPtr& rows,
                                                    std::vector<NamedExpr> items,
                                                    const Schema& schema, bool change_feed) {
  for (int i = 0; change_feed && i < schema.NumFields(); ++i) {
    items.push_back({Exact(schema.FieldAt(i).Name()), OldValueName(i)});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr selected, Select(rows, items));
  return Execute(catalog, selected);
}

// Spark's ANSI store assignment (Cast.canANSIStoreAssign): numbers to numbers, anything to
// string, dates and timestamps among themselves; no string to number or boolean, as Spark.
bool StoreAssignable(const DataType& from, const DataType& to) {
  if (from.Equals(to) || from.Id() == columnar::TypeId::kNull) {
    return true;
  }
  if (to.Id() == columnar::TypeId::kString) {
    return !from.IsNested();
  }
  if (from.IsNumeric() && to.IsNumeric()) {
    return true;
  }
  auto datetime = [](const DataType& t) {
    return t.Id() == columnar::TypeId::kDate || t.Id() == columnar::TypeId::kTimestamp ||
           t.Id() == columnar::TypeId::kTimestampNtz;
  };
  if (datetime(from) && datetime(to)) {
    return true;
  }
  if (from.IsNested() && to.IsNested()) {
    return expr::CanCast(from, to);
  }
  return false;
}

// `value` as a value of target column `field` (resolved against `plan`): cast as Spark's store
// assignment does (ANSI: a value that does not fit is an error when the row is written).
Result<ExprPtr> AssignedValue(const ExprPtr& value, const Field& field, const LogicalPlan& plan) {
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*value, plan));
  const DataType& from = *bound->Type();
  if (from.Equals(*field.Type())) {
    return value;
  }
  if (!StoreAssignable(from, *field.Type())) {
    return Status::InvalidArgument(fmt::format(
        "[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] Cannot write incompatible data for the "
        "table: Cannot safely cast `{}` \"{}\" to \"{}\"",
        field.Name(), from.ToString(), field.Type()->ToString()));
  }
  return expr::Cast(value, field.Type());
}

ExprPtr NullOf(const columnar::DataTypePtr& type) {
  return expr::Lit(expr::Scalar::Null(type));
}

// A SET target: a top-level column of `schema` (its index) and, for `a.b.c`, the path of
// struct fields below it. Names ignore case, as Spark; `alias.name` is the same column.
// InvalidArgument as Spark's unresolved column error.
struct AssignmentTarget {
  int index = -1;
  std::vector<std::string> path;
};

Result<AssignmentTarget> TargetColumn(const Schema& schema, const std::string& name,
                                      const std::string& alias, std::string_view what) {
  std::string column = name;
  if (!alias.empty() && column.size() > alias.size() + 1 && column[alias.size()] == '.' &&
      EqualsIgnoreAsciiCase(std::string_view(column).substr(0, alias.size()), alias) &&
      schema.FieldIndex(column) < 0) {
    column.erase(0, alias.size() + 1);
  }
  AssignmentTarget target;
  if (schema.FieldIndex(column) < 0 && column.find('.') != std::string::npos) {
    size_t start = 0;
    for (size_t dot = column.find('.'); dot != std::string::npos; dot = column.find('.', start)) {
      target.path.push_back(column.substr(start, dot - start));
      start = dot + 1;
    }
    target.path.push_back(column.substr(start));
    column = target.path.front();
    target.path.erase(target.path.begin());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(target.index, schema.FieldIndexIgnoreCase(column));
  if (target.index < 0) {
    std::vector<std::string> names;
    for (const Field& field : schema.Fields()) {
      names.push_back(BackquotedName(field.Name()));
    }
    return Status::InvalidArgument(fmt::format(
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name {} cannot "
        "be resolved in {}. Did you mean one of the following? [{}]",
        BackquotedName(name), what, fmt::join(names, ", ")));
  }
  return target;
}

using FieldAssignments = std::vector<std::pair<std::vector<std::string>, ExprPtr>>;

// The value of struct `type` (currently `base`) after the nested assignments `fields` (paths
// below it): a named_struct of every field, the assigned ones replaced, as Delta rebuilds a
// struct for `SET a.b = ...` (a null struct becomes a struct of null fields).
Result<ExprPtr> AssignedStruct(const ExprPtr& base, const columnar::DataType& type,
                               const FieldAssignments& fields, std::string_view what) {
  if (type.Id() != columnar::TypeId::kStruct) {
    return Status::InvalidArgument(
        fmt::format("{}: {} is not a struct; only struct fields can be assigned by path", what,
                    base->ToString()));
  }
  std::vector<ExprPtr> arguments;
  std::vector<bool> used(fields.size(), false);
  for (const Field& field : type.Fields()) {
    ExprPtr value;
    FieldAssignments below;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!EqualsIgnoreAsciiCase(fields[i].first.front(), field.Name())) {
        continue;
      }
      used[i] = true;
      if (fields[i].first.size() == 1 && value == nullptr) {
        value = fields[i].second;
      } else if (fields[i].first.size() == 1) {
        below.emplace_back(fields[i].first, fields[i].second);  // a duplicate: refused below
      } else {
        below.emplace_back(
            std::vector<std::string>(fields[i].first.begin() + 1, fields[i].first.end()),
            fields[i].second);
      }
    }
    if (value != nullptr && !below.empty()) {
      return Status::InvalidArgument(
          fmt::format("[DUPLICATE_ASSIGNMENTS] {}: field {} is assigned more than once", what,
                      BackquotedName(field.Name())));
    }
    if (value == nullptr) {
      ExprPtr current = expr::GetField(base, field.Name());
      if (below.empty()) {
        value = current;
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(value, AssignedStruct(current, *field.Type(), below, what));
      }
    }
    arguments.push_back(expr::Lit(expr::Scalar::String(field.Name())));
    arguments.push_back(std::move(value));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!used[i]) {
      return Status::InvalidArgument(fmt::format("{}: no field {} in {}", what,
                                                 BackquotedName(fields[i].first.front()),
                                                 base->ToString()));
    }
  }
  return expr::Function("named_struct", std::move(arguments));
}

// The assignments of one clause by target column index (later duplicates refused); nested
// ones (`a.b = ...`) rebuild their top-level struct from `base(index)`, its current value.
Result<std::vector<ExprPtr>> AssignmentsByColumn(const Schema& schema,
                                                 const std::vector<DmlAssignment>& assignments,
                                                 const std::string& alias, std::string_view what,
                                                 const std::function<ExprPtr(int)>& base) {
  std::vector<ExprPtr> out(static_cast<size_t>(schema.NumFields()));
  std::map<int, FieldAssignments> nested;
  for (const DmlAssignment& assignment : assignments) {
    TRIBUTARY_ASSIGN_OR_RAISE(AssignmentTarget target,
                              TargetColumn(schema, assignment.column, alias, what));
    const auto index = static_cast<size_t>(target.index);
    if (out[index] != nullptr || (target.path.empty() && nested.contains(target.index))) {
      return Status::InvalidArgument(fmt::format(
          "[DUPLICATE_ASSIGNMENTS] The columns or variables {} appear more than once as "
          "assignment targets in {}",
          BackquotedName(schema.FieldAt(target.index).Name()), what));
    }
    if (target.path.empty()) {
      out[index] = assignment.value;
    } else {
      nested[target.index].emplace_back(std::move(target.path), assignment.value);
    }
  }
  for (const auto& [index, fields] : nested) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        out[static_cast<size_t>(index)],
        AssignedStruct(base(index), *schema.FieldAt(index).Type(), fields, what));
  }
  return out;
}

// A string column of `rows` copies of `value`.
Result<ColumnPtr> RepeatedString(std::string_view value, int64_t rows) {
  ColumnBuilder builder(DataType::String());
  for (int64_t i = 0; i < rows; ++i) {
    builder.AppendBytes(value);
  }
  return builder.Finish();
}

// Rows `rows` of `batch`'s columns [first, first + schema's width) as a batch of `schema`,
// with a trailing _change_type column holding `change_type` when it is not empty.
Result<RecordBatchPtr> TakeColumns(const RecordBatch& batch, const std::vector<int64_t>& rows,
                                   int first, const columnar::SchemaPtr& schema,
                                   std::string_view change_type) {
  std::vector<ColumnPtr> columns;
  for (int i = 0; i < schema->NumFields(); ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Take(*batch.ColumnAt(first + i), rows));
    columns.push_back(std::move(column));
  }
  columnar::SchemaPtr out_schema = schema;
  if (!change_type.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr type_column,
                              RepeatedString(change_type, static_cast<int64_t>(rows.size())));
    columns.push_back(std::move(type_column));
    std::vector<Field> fields = schema->Fields();
    fields.emplace_back("_change_type", DataType::String());
    out_schema = std::make_shared<Schema>(std::move(fields));
  }
  return RecordBatch::Make(out_schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

// What an operation decided, before it is committed.
struct PendingChanges {
  std::vector<int64_t> deleted_row_ids;
  delta::RowChanges changes;
};

std::string JsonString(std::string_view text) {
  std::string out;
  columnar::AppendJsonString(text, &out);
  return out;
}

// The predicate as Delta writes it in operationParameters: a JSON array of SQL texts.
std::string PredicateParameter(const ExprPtr& condition) {
  return condition == nullptr ? "[]" : "[" + JsonString(condition->ToString()) + "]";
}

bool TxnApplied(const delta::Snapshot& snapshot, const DmlOptions& options) {
  if (!options.txn.has_value()) {
    return false;
  }
  auto it = snapshot.Transactions().find(options.txn->first);
  return it != snapshot.Transactions().end() && it->second >= options.txn->second;
}

// Commits `pending` and completes the metrics: the copied rows (rows of rewritten files that
// stay, copy-on-write only) under `copied_metric`, the file counts under the names Delta gives
// them for this operation.
Result<DmlResult> Commit(const Catalog& catalog,
                         const std::shared_ptr<const delta::Snapshot>& snapshot,
                         const TargetRows& target, PendingChanges pending,
                         const ExprPtr& read_predicate, delta::RowChangeOptions options,
                         const DmlOptions& dml, std::string_view copied_metric,
                         std::string_view files_added_metric,
                         std::string_view files_removed_metric) {
  std::vector<int64_t>& ids = pending.deleted_row_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const bool deletion_vectors = delta::DeletionVectorsEnabled(snapshot->GetMetadata());
  int64_t copied = 0;
  for (size_t i = 0; i < ids.size();) {
    const size_t file = static_cast<size_t>(ids[i] >> kRowIndexBits);
    delta::FileRowDeletes deletes;
    deletes.file = *target.files[file];
    for (; i < ids.size() && static_cast<size_t>(ids[i] >> kRowIndexBits) == file; ++i) {
      deletes.rows.push_back(static_cast<uint64_t>(ids[i] & kRowIndexMask));
    }
    if (!deletion_vectors) {
      copied += target.live_rows[file] - static_cast<int64_t>(deletes.rows.size());
    }
    pending.changes.deletes.push_back(std::move(deletes));
  }
  options.operation_metrics[std::string(copied_metric)] = copied;
  if (options.operation == "MERGE") {
    auto& metrics = options.operation_metrics;
    metrics["numOutputRows"] =
        metrics["numTargetRowsInserted"] + metrics["numTargetRowsUpdated"] + copied;
  }
  delta::RowChangeReads reads;
  for (const delta::AddFile* file : target.files) {
    reads.files_read.push_back(file->path);
  }
  if (read_predicate != nullptr) {
    reads.could_match = [snapshot, read_predicate, eval = catalog.eval](const delta::AddFile& add) {
      auto files = delta::PruneFiles(*snapshot->WithFiles({add}), *read_predicate, eval);
      return !files.ok() || !files->empty();
    };
  }
  options.txn = dml.txn;
  TRIBUTARY_ASSIGN_OR_RAISE(
      delta::TableWriteResult written,
      delta::CommitRowChanges(*catalog.fs, snapshot, pending.changes, reads, options));
  DmlResult result;
  result.version = written.committed ? written.version : -1;
  result.metrics = std::move(options.operation_metrics);
  result.metrics[std::string(files_added_metric)] = written.files_added;
  result.metrics[std::string(files_removed_metric)] = written.files_removed;
  return result;
}

Result<std::shared_ptr<const delta::Snapshot>> LoadTarget(const Catalog& catalog,
                                                          const std::string& path) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("DML needs a file system");
  }
  return delta::Snapshot::Load(*catalog.fs, path);
}

}  // namespace

Result<DmlResult> DeleteFromTable(const Catalog& catalog, const std::string& path,
                                  const std::string& alias, const expr::ExprPtr& condition,
                                  const DmlOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, LoadTarget(catalog, path));
  if (TxnApplied(*snapshot, options)) {
    return DmlResult{-1, {{"numDeletedRows", 0}, {"numCopiedRows", 0}}};
  }
  const ExprPtr predicate = StripQualifier(condition, alias);
  TRIBUTARY_ASSIGN_OR_RAISE(TargetRows target,
                            ReadFiltered(catalog, *snapshot, alias, condition, predicate));
  LogicalPlanPtr rows = target.scan;
  const columnar::SchemaPtr& schema = snapshot->Schema();
  const bool change_feed = delta::ChangeDataFeedEnabled(snapshot->GetMetadata());
  std::vector<NamedExpr> items{{Exact(kRowIdColumn), ""}};
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches,
                            RunWithPreimage(catalog, rows, std::move(items), *schema, change_feed));
  PendingChanges pending;
  pending.changes.schema = schema;
  for (const RecordBatchPtr& batch : batches) {
    const int64_t* ids = batch->ColumnAt(0)->Values<int64_t>();
    pending.deleted_row_ids.insert(pending.deleted_row_ids.end(), ids, ids + batch->NumRows());
    if (change_feed) {
      const std::vector<int64_t> all = AllRows(*batch);
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr change,
                                TakeColumns(*batch, all, 1, schema, "delete"));
      pending.changes.change_rows.push_back(std::move(change));
    }
  }
  delta::RowChangeOptions commit;
  commit.operation = "DELETE";
  commit.operation_parameters["predicate"] = PredicateParameter(condition);
  commit.operation_metrics["numDeletedRows"] = static_cast<int64_t>(pending.deleted_row_ids.size());
  return Commit(catalog, snapshot, target, std::move(pending), predicate, std::move(commit),
                options, "numCopiedRows", "numAddedFiles", "numRemovedFiles");
}

Result<DmlResult> UpdateTable(const Catalog& catalog, const std::string& path,
                              const std::string& alias,
                              const std::vector<DmlAssignment>& assignments,
                              const expr::ExprPtr& condition, const DmlOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, LoadTarget(catalog, path));
  if (TxnApplied(*snapshot, options)) {
    return DmlResult{-1, {{"numUpdatedRows", 0}, {"numCopiedRows", 0}}};
  }
  const columnar::SchemaPtr& schema = snapshot->Schema();
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ExprPtr> assigned,
                            AssignmentsByColumn(*schema, assignments, alias, "UPDATE", [&](int i) {
                              return Exact(schema->FieldAt(i).Name());
                            }));
  const ExprPtr predicate = StripQualifier(condition, alias);
  TRIBUTARY_ASSIGN_OR_RAISE(TargetRows target,
                            ReadFiltered(catalog, *snapshot, alias, condition, predicate));
  LogicalPlanPtr rows = target.scan;
  const bool change_feed = delta::ChangeDataFeedEnabled(snapshot->GetMetadata());
  const int n = schema->NumFields();
  std::vector<NamedExpr> items{{Exact(kRowIdColumn), ""}};
  for (int i = 0; i < n; ++i) {
    const Field& field = schema->FieldAt(i);
    ExprPtr value = Exact(field.Name());
    if (assigned[static_cast<size_t>(i)] != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(value,
                                AssignedValue(assigned[static_cast<size_t>(i)], field, *rows));
    }
    items.push_back({value, NewValueName(i)});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches,
                            RunWithPreimage(catalog, rows, std::move(items), *schema, change_feed));
  PendingChanges pending;
  pending.changes.schema = schema;
  for (const RecordBatchPtr& batch : batches) {
    const int64_t* ids = batch->ColumnAt(0)->Values<int64_t>();
    pending.deleted_row_ids.insert(pending.deleted_row_ids.end(), ids, ids + batch->NumRows());
    const std::vector<int64_t> all = AllRows(*batch);
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr updated, TakeColumns(*batch, all, 1, schema, ""));
    pending.changes.new_rows.push_back(std::move(updated));
    if (change_feed) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr before,
                                TakeColumns(*batch, all, 1 + n, schema, "update_preimage"));
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr after,
                                TakeColumns(*batch, all, 1, schema, "update_postimage"));
      pending.changes.change_rows.push_back(std::move(before));
      pending.changes.change_rows.push_back(std::move(after));
    }
  }
  delta::RowChangeOptions commit;
  commit.operation = "UPDATE";
  commit.operation_parameters["predicate"] = PredicateParameter(condition);
  commit.operation_metrics["numUpdatedRows"] = static_cast<int64_t>(pending.deleted_row_ids.size());
  return Commit(catalog, snapshot, target, std::move(pending), predicate, std::move(commit),
                options, "numCopiedRows", "numAddedFiles", "numRemovedFiles");
}

namespace {

// The merge's source rows, read once (as Delta materializes the source, so every pass sees the
// same rows): its columns, a copy of each under SourceCopyName, and a true marker column.
Result<LogicalPlanPtr> MaterializeSource(const Catalog& catalog, const MergeSpec& spec,
                                         int64_t* num_rows) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, Execute(catalog, spec.source));
  const Schema& schema = *spec.source->Schema();
  const int n = schema.NumFields();
  std::vector<Field> fields = schema.Fields();
  for (int i = 0; i < n; ++i) {
    fields.push_back(schema.FieldAt(i).WithName(SourceCopyName(i)));
  }
  fields.emplace_back(std::string(kSourcePresentColumn), DataType::Boolean(), false);
  auto out_schema = std::make_shared<Schema>(std::move(fields));
  ScanSource source;
  source.kind = ScanSource::Kind::kValues;
  source.schema = out_schema;
  source.description = "MERGE source";
  *num_rows = 0;
  for (const RecordBatchPtr& batch : batches) {
    std::vector<ColumnPtr> columns = batch->Columns();
    columns.insert(columns.end(), batch->Columns().begin(), batch->Columns().end());
    ColumnBuilder present(DataType::Boolean());
    for (int64_t r = 0; r < batch->NumRows(); ++r) {
      present.AppendBoolean(true);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr present_column, present.Finish());
    columns.push_back(std::move(present_column));
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr rows,
                              RecordBatch::Make(out_schema, batch->NumRows(), std::move(columns)));
    *num_rows += rows->NumRows();
    source.batches.push_back(std::move(rows));
  }
  // The source keeps its name: its alias, else the one qualifier all its columns share.
  std::string qualifier = spec.source_alias;
  const std::vector<std::string>& qualifiers = spec.source->Qualifiers();
  if (qualifier.empty() && !qualifiers.empty() &&
      std::all_of(qualifiers.begin(), qualifiers.end(),
                  [&](const std::string& q) { return q == qualifiers.front(); })) {
    qualifier = qualifiers.front();
  }
  return Scan(std::move(source), qualifier);
}

bool UpdatesOrDeletes(MergeAction action) {
  return action == MergeAction::kUpdate || action == MergeAction::kUpdateAll ||
         action == MergeAction::kDelete;
}

std::string_view ActionTypeName(MergeAction action) {
  switch (action) {
    case MergeAction::kUpdate:
    case MergeAction::kUpdateAll:
      return "update";
    case MergeAction::kDelete:
      return "delete";
    case MergeAction::kInsert:
    case MergeAction::kInsertAll:
      return "insert";
  }
  return "";
}

Status CheckClause(const MergeClause& clause) {
  const bool insert =
      clause.action == MergeAction::kInsert || clause.action == MergeAction::kInsertAll;
  if ((clause.match == MergeMatch::kNotMatchedByTarget) != insert) {
    return Status::InvalidArgument(
        insert ? "MERGE: INSERT is only allowed in WHEN NOT MATCHED [BY TARGET] clauses"
               : "MERGE: WHEN NOT MATCHED [BY TARGET] clauses take INSERT only");
  }
  if (clause.match == MergeMatch::kNotMatchedBySource && clause.action == MergeAction::kUpdateAll) {
    return Status::InvalidArgument(
        "MERGE: UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE clauses (there is no "
        "source row)");
  }
  return Status::OK();
}

// Delta's operationParameters for MERGE: predicate, and per clause kind a JSON array of
// {"predicate": ..., "actionType": ...}.
std::map<std::string, std::string> MergeParameters(const MergeSpec& spec) {
  std::map<std::string, std::string> out;
  out["predicate"] = PredicateParameter(spec.on);
  std::vector<std::string> kinds[3];
  for (const MergeClause& clause : spec.clauses) {
    std::string entry = "{";
    if (clause.condition != nullptr) {
      entry += "\"predicate\":" + JsonString(clause.condition->ToString()) + ",";
    }
    entry += "\"actionType\":" + JsonString(ActionTypeName(clause.action)) + "}";
    kinds[static_cast<int>(clause.match)].push_back(std::move(entry));
  }
  out["matchedPredicates"] = fmt::format("[{}]", fmt::join(kinds[0], ","));
  out["notMatchedPredicates"] = fmt::format("[{}]", fmt::join(kinds[1], ","));
  out["notMatchedBySourcePredicates"] = fmt::format("[{}]", fmt::join(kinds[2], ","));
  return out;
}

}  // namespace

Result<DmlResult> MergeIntoTable(const Catalog& catalog, const MergeSpec& spec,
                                 const DmlOptions& options) {
  if (spec.source == nullptr || spec.on == nullptr) {
    return Status::InvalidArgument("MERGE needs a source and an ON condition");
  }
  if (spec.source->IsStreaming()) {
    return Status::InvalidArgument(
        "MERGE's source must be a batch relation (use foreachBatch for a stream)");
  }
  bool has_not_matched_by_target = false;
  bool has_not_matched_by_source = false;
  std::vector<const MergeClause*> matched;
  for (const MergeClause& clause : spec.clauses) {
    TRIBUTARY_RETURN_NOT_OK(CheckClause(clause));
    has_not_matched_by_target |= clause.match == MergeMatch::kNotMatchedByTarget;
    has_not_matched_by_source |= clause.match == MergeMatch::kNotMatchedBySource;
    if (clause.match == MergeMatch::kMatched) {
      matched.push_back(&clause);
    }
  }
  // Every clause but the last of its kind needs a condition (Delta's rule: a later clause of
  // the kind could never act).
  for (size_t i = 0; i < spec.clauses.size(); ++i) {
    for (size_t j = i + 1; j < spec.clauses.size(); ++j) {
      if (spec.clauses[j].match == spec.clauses[i].match && spec.clauses[i].condition == nullptr) {
        return Status::InvalidArgument(
            "[NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION] When there are more than one MATCHED "
            "clauses in a MERGE statement, only the last MATCHED clause can omit the condition "
            "(and likewise for NOT MATCHED [BY TARGET] and NOT MATCHED BY SOURCE clauses)");
      }
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, LoadTarget(catalog, spec.target_path));
  if (TxnApplied(*snapshot, options)) {
    return DmlResult{-1,
                     {{"numSourceRows", 0},
                      {"numTargetRowsInserted", 0},
                      {"numTargetRowsUpdated", 0},
                      {"numTargetRowsDeleted", 0},
                      {"numTargetRowsCopied", 0}}};
  }
  const columnar::SchemaPtr& table_schema = snapshot->Schema();
  const int table_columns = table_schema->NumFields();
  // Target-only conjuncts of ON choose the candidate files, unless a NOT MATCHED BY SOURCE
  // clause needs every target row.
  ExprPtr target_predicate;
  if (!has_not_matched_by_source) {
    std::vector<ExprPtr> conjuncts;
    SplitConjuncts(spec.on, &conjuncts);
    for (const ExprPtr& conjunct : conjuncts) {
      ExprPtr stripped = StripQualifier(conjunct, spec.target_alias);
      if (expr::Bind(*stripped, *table_schema).ok()) {
        target_predicate =
            target_predicate == nullptr ? stripped : expr::And(target_predicate, stripped);
      }
    }
  }
  int64_t num_source_rows = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr source,
                            MaterializeSource(catalog, spec, &num_source_rows));
  const Schema& source_schema = *spec.source->Schema();
  // Schema evolution: source columns UPDATE SET * / INSERT * (or an assignment naming one)
  // would write that the target lacks are added after the target's columns.
  std::vector<Field> fields = table_schema->Fields();
  if (spec.schema_evolution || options.auto_merge) {
    auto add = [&](const std::string& name) {
      if (std::none_of(fields.begin(), fields.end(),
                       [&](const Field& f) { return EqualsIgnoreAsciiCase(f.Name(), name); })) {
        auto index = source_schema.FieldIndexIgnoreCase(name);
        if (index.ok() && *index >= 0) {
          fields.emplace_back(source_schema.FieldAt(*index).Name(),
                              source_schema.FieldAt(*index).Type(), true);
        }
      }
    };
    for (const MergeClause& clause : spec.clauses) {
      if (clause.action == MergeAction::kUpdateAll || clause.action == MergeAction::kInsertAll) {
        for (const Field& field : source_schema.Fields()) {
          add(field.Name());
        }
      }
      for (const DmlAssignment& assignment : clause.assignments) {
        if (assignment.column.find('.') == std::string::npos) {
          add(assignment.column);
        }
      }
    }
  }
  auto final_schema = std::make_shared<Schema>(fields, table_schema->Metadata());
  const int n = final_schema->NumFields();

  TRIBUTARY_ASSIGN_OR_RAISE(auto files, CandidateFiles(*snapshot, target_predicate, catalog.eval));
  TRIBUTARY_ASSIGN_OR_RAISE(
      TargetRows target, ReadTarget(catalog, *snapshot, std::move(files), spec.target_alias, true));
  exec::JoinType join_type = exec::JoinType::kInner;
  if (has_not_matched_by_target && has_not_matched_by_source) {
    join_type = exec::JoinType::kFull;
  } else if (has_not_matched_by_target) {
    join_type = exec::JoinType::kRight;
  } else if (has_not_matched_by_source) {
    join_type = exec::JoinType::kLeft;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr joined, Join(target.scan, source, join_type, spec.on));
  // The clause acting on each joined row: the first of its kind whose condition holds.
  const ExprPtr target_present = expr::IsNotNull(Exact(kRowIdColumn));
  const ExprPtr source_present = expr::IsNotNull(Exact(kSourcePresentColumn));
  std::vector<std::pair<ExprPtr, ExprPtr>> branches;
  for (size_t i = 0; i < spec.clauses.size(); ++i) {
    const MergeClause& clause = spec.clauses[i];
    ExprPtr kind;
    switch (clause.match) {
      case MergeMatch::kMatched:
        kind = expr::And(target_present, source_present);
        break;
      case MergeMatch::kNotMatchedByTarget:
        kind = expr::Not(target_present);
        break;
      case MergeMatch::kNotMatchedBySource:
        kind = expr::Not(source_present);
        break;
    }
    ExprPtr when = clause.condition == nullptr ? kind : expr::And(kind, clause.condition);
    branches.emplace_back(when, expr::Lit(expr::Scalar::Int32(static_cast<int32_t>(i))));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      LogicalPlanPtr classified,
      WithColumn(joined, std::string(kClauseColumn), expr::CaseWhen(branches, nullptr)));
  // Rows no clause acts on are dropped, except matched pairs when the merge has clauses of
  // other kinds: Delta then counts every ON match towards the multiple-match error (with only
  // MATCHED clauses, only the pairs some MATCHED clause's condition accepts).
  const bool matched_only = !has_not_matched_by_target && !has_not_matched_by_source;
  ExprPtr keep = expr::IsNotNull(Exact(kClauseColumn));
  if (!matched_only) {
    keep = expr::Or(keep, expr::And(target_present, source_present));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(classified, Filter(classified, keep));

  // Per final column, its value after each clause that writes rows.
  const bool change_feed = delta::ChangeDataFeedEnabled(snapshot->GetMetadata());
  std::vector<std::vector<std::pair<ExprPtr, ExprPtr>>> values(static_cast<size_t>(n));
  for (size_t i = 0; i < spec.clauses.size(); ++i) {
    const MergeClause& clause = spec.clauses[i];
    if (clause.action == MergeAction::kDelete) {
      continue;
    }
    const bool all =
        clause.action == MergeAction::kUpdateAll || clause.action == MergeAction::kInsertAll;
    const bool insert =
        clause.action == MergeAction::kInsert || clause.action == MergeAction::kInsertAll;
    const std::string_view what = insert ? "MERGE's INSERT clause" : "MERGE's UPDATE clause";
    std::vector<ExprPtr> assigned(static_cast<size_t>(n));
    if (!all) {
      auto target_value = [&](int k) {
        return k < table_columns ? ExactColumn(TargetCopyName(k))
                                 : NullOf(final_schema->FieldAt(k).Type());
      };
      TRIBUTARY_ASSIGN_OR_RAISE(
          assigned, AssignmentsByColumn(*final_schema, clause.assignments, spec.target_alias, what,
                                        target_value));
    }
    const ExprPtr is_clause =
        expr::Call(expr::Op::kEqual,
                   {Exact(kClauseColumn), expr::Lit(expr::Scalar::Int32(static_cast<int32_t>(i)))});
    for (int k = 0; k < n; ++k) {
      const Field& field = final_schema->FieldAt(k);
      ExprPtr value = assigned[static_cast<size_t>(k)];
      if (all) {
        TRIBUTARY_ASSIGN_OR_RAISE(int source_index,
                                  source_schema.FieldIndexIgnoreCase(field.Name()));
        if (source_index >= 0) {
          value = ExactColumn(SourceCopyName(source_index));
        } else if (!(spec.schema_evolution || options.auto_merge) && k < table_columns) {
          std::vector<std::string> names;
          for (const Field& source_field : source_schema.Fields()) {
            names.push_back(BackquotedName(source_field.Name()));
          }
          return Status::InvalidArgument(fmt::format(
              "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve {} in {} (SET */INSERT *) "
              "given the source columns [{}]; add the column to the source or turn on schema "
              "evolution",
              BackquotedName(field.Name()), what, fmt::join(names, ", ")));
        }
      }
      if (value == nullptr) {
        value =
            !insert && k < table_columns ? ExactColumn(TargetCopyName(k)) : NullOf(field.Type());
      }
      TRIBUTARY_ASSIGN_OR_RAISE(value, AssignedValue(value, field, *classified));
      values[static_cast<size_t>(k)].emplace_back(is_clause, value);
    }
  }
  std::vector<NamedExpr> items{{Exact(kRowIdColumn), ""}, {Exact(kClauseColumn), ""}};
  for (int k = 0; k < n; ++k) {
    const Field& field = final_schema->FieldAt(k);
    ExprPtr value = values[static_cast<size_t>(k)].empty()
                        ? NullOf(field.Type())
                        : expr::CaseWhen(values[static_cast<size_t>(k)], NullOf(field.Type()));
    items.push_back({value, NewValueName(k)});
  }
  for (int k = 0; change_feed && k < n; ++k) {
    const Field& field = final_schema->FieldAt(k);
    items.push_back({k < table_columns ? ExactColumn(TargetCopyName(k)) : NullOf(field.Type()),
                     OldValueName(k)});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr rows, Select(classified, items));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, Execute(catalog, rows));

  // Several source rows acting on one target row is ambiguous (Delta's error), except when the
  // only MATCHED clause is an unconditional DELETE: the row is then deleted once.
  const bool unconditional_delete_only = matched.size() == 1 &&
                                         matched[0]->action == MergeAction::kDelete &&
                                         matched[0]->condition == nullptr;
  std::unordered_set<int64_t> matched_rows;
  PendingChanges pending;
  pending.changes.schema = final_schema;
  int64_t matched_updated = 0;
  int64_t matched_deleted = 0;
  int64_t source_updated = 0;
  int64_t source_deleted = 0;
  int64_t inserted = 0;
  for (const RecordBatchPtr& batch : batches) {
    const columnar::Column& id_column = *batch->ColumnAt(0);
    const int64_t* ids = id_column.Values<int64_t>();
    const columnar::Column& clause_column = *batch->ColumnAt(1);
    const int32_t* clauses = clause_column.Values<int32_t>();
    std::vector<int64_t> written;
    std::vector<int64_t> updated;
    std::vector<int64_t> deleted;
    std::vector<int64_t> inserted_rows;
    for (int64_t r = 0; r < batch->NumRows(); ++r) {
      const bool acts = clause_column.IsValid(r);
      const bool is_matched =
          !acts || spec.clauses[static_cast<size_t>(clauses[r])].match == MergeMatch::kMatched;
      if (is_matched && !matched_rows.insert(ids[r]).second) {
        if (!unconditional_delete_only) {
          return Status::InvalidArgument(
              "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE] Cannot perform Merge as "
              "multiple source rows matched and attempted to modify the same target row in the "
              "Delta table in possibly conflicting ways. By SQL semantics of Merge, when multiple "
              "source rows match on the same target row, the result may be ambiguous as it is "
              "unclear which source row should be used to update or delete the matching target "
              "row. You can preprocess the source table to eliminate the possibility of multiple "
              "matches. Please refer to "
              "https://docs.delta.io/latest/delta-update.html#upsert-into-a-table-using-merge");
        }
        continue;
      }
      if (!acts) {
        continue;
      }
      const MergeClause& clause = spec.clauses[static_cast<size_t>(clauses[r])];
      if (UpdatesOrDeletes(clause.action)) {
        pending.deleted_row_ids.push_back(ids[r]);
      }
      const bool by_source = clause.match == MergeMatch::kNotMatchedBySource;
      switch (clause.action) {
        case MergeAction::kUpdate:
        case MergeAction::kUpdateAll:
          ++(by_source ? source_updated : matched_updated);
          written.push_back(r);
          updated.push_back(r);
          break;
        case MergeAction::kDelete:
          ++(by_source ? source_deleted : matched_deleted);
          deleted.push_back(r);
          break;
        case MergeAction::kInsert:
        case MergeAction::kInsertAll:
          ++inserted;
          written.push_back(r);
          inserted_rows.push_back(r);
          break;
      }
    }
    if (!written.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr out,
                                TakeColumns(*batch, written, 2, final_schema, ""));
      pending.changes.new_rows.push_back(std::move(out));
    }
    if (change_feed) {
      const std::pair<const std::vector<int64_t>*, std::pair<int, std::string_view>> groups[] = {
          {&deleted, {2 + n, "delete"}},
          {&updated, {2 + n, "update_preimage"}},
          {&updated, {2, "update_postimage"}},
          {&inserted_rows, {2, "insert"}}};
      for (const auto& [group, where] : groups) {
        if (!group->empty()) {
          TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr change, TakeColumns(*batch, *group, where.first,
                                                                       final_schema, where.second));
          pending.changes.change_rows.push_back(std::move(change));
        }
      }
    }
  }
  delta::RowChangeOptions commit;
  commit.operation = "MERGE";
  commit.operation_parameters = MergeParameters(spec);
  auto& metrics = commit.operation_metrics;
  metrics["numSourceRows"] = num_source_rows;
  metrics["numTargetRowsInserted"] = inserted;
  metrics["numTargetRowsUpdated"] = matched_updated + source_updated;
  metrics["numTargetRowsMatchedUpdated"] = matched_updated;
  metrics["numTargetRowsNotMatchedBySourceUpdated"] = source_updated;
  metrics["numTargetRowsDeleted"] = matched_deleted + source_deleted;
  metrics["numTargetRowsMatchedDeleted"] = matched_deleted;
  metrics["numTargetRowsNotMatchedBySourceDeleted"] = source_deleted;
  const ExprPtr read_predicate = has_not_matched_by_source ? nullptr : target_predicate;
  return Commit(catalog, snapshot, target, std::move(pending), read_predicate, std::move(commit),
                options, "numTargetRowsCopied", "numTargetFilesAdded", "numTargetFilesRemoved");
}

Result<LogicalPlanPtr> DmlResultPlan(std::string_view operation, const DmlResult& result) {
  auto metric = [&](const std::string& name) {
    auto it = result.metrics.find(name);
    return it == result.metrics.end() ? int64_t{0} : it->second;
  };
  if (EqualsIgnoreAsciiCase(operation, "DELETE")) {
    return CountsPlan({{"num_affected_rows", metric("numDeletedRows")}}, "DELETE");
  }
  if (EqualsIgnoreAsciiCase(operation, "UPDATE")) {
    return CountsPlan({{"num_affected_rows", metric("numUpdatedRows")}}, "UPDATE");
  }
  if (EqualsIgnoreAsciiCase(operation, "MERGE")) {
    const int64_t updated = metric("numTargetRowsUpdated");
    const int64_t deleted = metric("numTargetRowsDeleted");
    const int64_t inserted = metric("numTargetRowsInserted");
    return CountsPlan({{"num_affected_rows", updated + deleted + inserted},
                       {"num_updated_rows", updated},
                       {"num_deleted_rows", deleted},
                       {"num_inserted_rows", inserted}},
                      "MERGE");
  }
  return Status::InvalidArgument(
      fmt::format("DmlResultPlan: unknown operation '{}' (DELETE, UPDATE or MERGE)", operation));
}

}  // namespace tributary::plan

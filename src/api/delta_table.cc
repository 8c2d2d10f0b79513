#include "tributary/delta_table.h"

#include <chrono>

#include <fmt/format.h>

#include "api/api_access.h"
#include "api/api_state.h"
#include "delta/log_segment.h"
#include "plan/delta_commands.h"
#include "plan/delta_dml.h"
#include "sql/parser.h"
#include "storage/local_path.h"

namespace tributary {

Result<DeltaTable> DeltaTable::ForPath(const Session& session, const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string local, storage::StoragePath(path));
  if (!delta::HasDeltaLog(*ApiAccess::State(session)->fs, local)) {
    return Status::NotFound(fmt::format("{} is not a Delta table (no _delta_log)", path));
  }
  return DeltaTable(session, local);
}

Result<DeltaTable> DeltaTable::ForName(const Session& session, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string path,
                            plan::TablePath(ApiAccess::State(session)->MakeCatalog(0), name));
  auto table = ForPath(session, path);
  if (!table.ok()) {
    return Status::NotFound(
        fmt::format("table '{}' not found in {}", name, session.WarehouseDirectory()));
  }
  table->name_ = name;
  return table;
}

DataFrame DeltaTable::ToDF() const {
  return session_.Read().Format("delta").Load(path_);
}

DataFrame DeltaTable::History(int64_t limit) const {
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::DescribeHistory(ApiAccess::State(session_)->MakeCatalog(0), path_,
                            limit > 0 ? std::optional<int64_t>(limit) : std::nullopt));
}

DataFrame DeltaTable::Detail() const {
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::DescribeDetail(ApiAccess::State(session_)->MakeCatalog(0), path_, name_));
}

DataFrame DeltaTable::Optimize(const std::string& partition_filter) const {
  auto run = [&]() -> Result<plan::LogicalPlanPtr> {
    expr::ExprPtr filter;
    if (!partition_filter.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(filter, sql::ParseExpression(partition_filter));
    }
    return plan::OptimizeTable(ApiAccess::State(session_)->MakeCatalog(0), path_, filter);
  };
  return MakeDataFrame(ApiAccess::State(session_), run());
}

DataFrame DeltaTable::Vacuum(double retention_hours) const {
  const auto& config = ApiAccess::State(session_)->config;
  auto check = config.find("spark.databricks.delta.retentionDurationCheck.enabled");
  const bool force = check != config.end() && check->second == "false";
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::VacuumTable(ApiAccess::State(session_)->MakeCatalog(0), path_, retention_hours,
                        /*dry_run=*/false, force));
}

namespace {

// A DML statement's catalog: current_timestamp() is one instant for the statement.
plan::Catalog DmlCatalog(const SessionState& session) {
  return session.MakeCatalog(std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count());
}

Result<expr::ExprPtr> ColumnExpr(const Column& column) {
  if (!column.Error().empty()) {
    return Status::InvalidArgument(column.Error());
  }
  return ApiAccess::Expr(column);
}

Result<std::vector<plan::DmlAssignment>> ColumnAssignments(
    const std::map<std::string, Column>& set) {
  std::vector<plan::DmlAssignment> out;
  for (const auto& [column, value] : set) {
    TRIBUTARY_ASSIGN_OR_RAISE(expr::ExprPtr parsed, ColumnExpr(value));
    out.push_back({column, std::move(parsed)});
  }
  return out;
}

Result<std::map<std::string, Column>> ParsedColumns(const std::map<std::string, std::string>& set) {
  std::map<std::string, Column> out;
  for (const auto& [column, value] : set) {
    TRIBUTARY_ASSIGN_OR_RAISE(expr::ExprPtr parsed, sql::ParseExpression(value));
    out.emplace(column, ApiAccess::MakeColumn(std::move(parsed)));
  }
  return out;
}

Result<Column> ParsedColumn(const std::string& condition) {
  TRIBUTARY_ASSIGN_OR_RAISE(expr::ExprPtr parsed, sql::ParseExpression(condition));
  return ApiAccess::MakeColumn(std::move(parsed));
}

}  // namespace

DeltaTable DeltaTable::As(const std::string& alias) const {
  DeltaTable aliased = *this;
  aliased.alias_ = alias;
  return aliased;
}

Result<DataFrame> DeltaTable::RunDelete(const Column& condition, bool has_condition) const {
  const auto& session = ApiAccess::State(session_);
  expr::ExprPtr predicate;
  if (has_condition) {
    TRIBUTARY_ASSIGN_OR_RAISE(predicate, ColumnExpr(condition));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlOptions options, DmlOptionsFromConfig(session->config));
  TRIBUTARY_ASSIGN_OR_RAISE(
      plan::DmlResult result,
      plan::DeleteFromTable(DmlCatalog(*session), path_, alias_, predicate, options));
  return MakeDataFrame(session, plan::DmlResultPlan("DELETE", result));
}

Result<DataFrame> DeltaTable::Delete() const {
  return RunDelete(Lit(true), false);
}

Result<DataFrame> DeltaTable::Delete(const std::string& condition) const {
  TRIBUTARY_ASSIGN_OR_RAISE(Column parsed, ParsedColumn(condition));
  return RunDelete(parsed, true);
}

Result<DataFrame> DeltaTable::Delete(const Column& condition) const {
  return RunDelete(condition, true);
}

Result<DataFrame> DeltaTable::RunUpdate(const Column* condition,
                                        const std::map<std::string, Column>& set) const {
  const auto& session = ApiAccess::State(session_);
  expr::ExprPtr predicate;
  if (condition != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(predicate, ColumnExpr(*condition));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<plan::DmlAssignment> assignments, ColumnAssignments(set));
  TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlOptions options, DmlOptionsFromConfig(session->config));
  TRIBUTARY_ASSIGN_OR_RAISE(
      plan::DmlResult result,
      plan::UpdateTable(DmlCatalog(*session), path_, alias_, assignments, predicate, options));
  return MakeDataFrame(session, plan::DmlResultPlan("UPDATE", result));
}

Result<DataFrame> DeltaTable::Update(const std::map<std::string, Column>& set) const {
  return RunUpdate(nullptr, set);
}

Result<DataFrame> DeltaTable::Update(const Column& condition,
                                     const std::map<std::string, Column>& set) const {
  return RunUpdate(&condition, set);
}

Result<DataFrame> DeltaTable::UpdateExpr(const std::map<std::string, std::string>& set) const {
  TRIBUTARY_ASSIGN_OR_RAISE(auto columns, ParsedColumns(set));
  return RunUpdate(nullptr, columns);
}

Result<DataFrame> DeltaTable::UpdateExpr(const std::string& condition,
                                         const std::map<std::string, std::string>& set) const {
  TRIBUTARY_ASSIGN_OR_RAISE(Column parsed, ParsedColumn(condition));
  TRIBUTARY_ASSIGN_OR_RAISE(auto columns, ParsedColumns(set));
  return RunUpdate(&parsed, columns);
}

/// What a DeltaMergeBuilder has gathered; the first error stops the rest and is Execute's.
struct DeltaMergeBuilder::State {
  std::shared_ptr<SessionState> session;
  std::string path;
  std::string target_alias;
  std::shared_ptr<const DataFrameState> source;
  expr::ExprPtr on;
  std::vector<plan::MergeClause> clauses;
  bool schema_evolution = false;
  Status error;
};

DeltaMergeBuilder DeltaTable::Merge(const DataFrame& source, const std::string& condition) const {
  auto parsed = ParsedColumn(condition);
  if (!parsed.ok()) {
    auto state = std::make_shared<DeltaMergeBuilder::State>();
    state->session = ApiAccess::State(session_);
    state->error = parsed.status();
    return DeltaMergeBuilder(std::move(state));
  }
  return Merge(source, *parsed);
}

DeltaMergeBuilder DeltaTable::Merge(const DataFrame& source, const Column& condition) const {
  auto state = std::make_shared<DeltaMergeBuilder::State>();
  state->session = ApiAccess::State(session_);
  state->path = path_;
  state->target_alias = alias_;
  state->source = ApiAccess::State(source);
  auto on = ColumnExpr(condition);
  if (!state->source->error.ok()) {
    state->error = state->source->error;
  } else if (!on.ok()) {
    state->error = on.status();
  } else {
    state->on = *on;
  }
  return DeltaMergeBuilder(std::move(state));
}

DeltaMergeBuilder DeltaMergeBuilder::AddClause(
    uint8_t match, uint8_t action, const Column& condition, bool has_condition,
    const Result<std::map<std::string, Column>>& values) const {
  auto state = std::make_shared<State>(*state_);
  if (state->error.ok()) {
    plan::MergeClause clause;
    clause.match = static_cast<plan::MergeMatch>(match);
    clause.action = static_cast<plan::MergeAction>(action);
    auto assignments = values.ok() ? ColumnAssignments(*values)
                                   : Result<std::vector<plan::DmlAssignment>>(values.status());
    auto predicate = has_condition ? ColumnExpr(condition) : Result<expr::ExprPtr>(nullptr);
    if (!assignments.ok()) {
      state->error = assignments.status();
    } else if (!predicate.ok()) {
      state->error = predicate.status();
    } else {
      clause.assignments = std::move(*assignments);
      clause.condition = *predicate;
      state->clauses.push_back(std::move(clause));
    }
  }
  return DeltaMergeBuilder(std::move(state));
}

DeltaMergeBuilder DeltaMergeBuilder::WithSchemaEvolution() const {
  auto state = std::make_shared<State>(*state_);
  state->schema_evolution = true;
  return DeltaMergeBuilder(std::move(state));
}

DeltaMergeMatchedActionBuilder DeltaMergeBuilder::WhenMatched() const {
  return {*this, Lit(true), false};
}
DeltaMergeMatchedActionBuilder DeltaMergeBuilder::WhenMatched(const std::string& condition) const {
  auto parsed = ParsedColumn(condition);
  return {*this,
          parsed.ok() ? *parsed : ApiAccess::WithError(Lit(true), parsed.status().ToString()),
          true};
}
DeltaMergeMatchedActionBuilder DeltaMergeBuilder::WhenMatched(const Column& condition) const {
  return {*this, condition, true};
}
DeltaMergeNotMatchedActionBuilder DeltaMergeBuilder::WhenNotMatched() const {
  return {*this, Lit(true), false};
}
DeltaMergeNotMatchedActionBuilder DeltaMergeBuilder::WhenNotMatched(
    const std::string& condition) const {
  auto parsed = ParsedColumn(condition);
  return {*this,
          parsed.ok() ? *parsed : ApiAccess::WithError(Lit(true), parsed.status().ToString()),
          true};
}
DeltaMergeNotMatchedActionBuilder DeltaMergeBuilder::WhenNotMatched(const Column& condition) const {
  return {*this, condition, true};
}
DeltaMergeNotMatchedBySourceActionBuilder DeltaMergeBuilder::WhenNotMatchedBySource() const {
  return {*this, Lit(true), false};
}
DeltaMergeNotMatchedBySourceActionBuilder DeltaMergeBuilder::WhenNotMatchedBySource(
    const std::string& condition) const {
  auto parsed = ParsedColumn(condition);
  return {*this,
          parsed.ok() ? *parsed : ApiAccess::WithError(Lit(true), parsed.status().ToString()),
          true};
}
DeltaMergeNotMatchedBySourceActionBuilder DeltaMergeBuilder::WhenNotMatchedBySource(
    const Column& condition) const {
  return {*this, condition, true};
}

Result<DataFrame> DeltaMergeBuilder::Execute() const {
  TRIBUTARY_RETURN_NOT_OK(state_->error);
  TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlOptions options,
                            DmlOptionsFromConfig(state_->session->config));
  plan::MergeSpec spec;
  spec.target_path = state_->path;
  spec.target_alias = state_->target_alias;
  spec.source = state_->source->plan;
  spec.on = state_->on;
  spec.clauses = state_->clauses;
  spec.schema_evolution = state_->schema_evolution;
  TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlResult result,
                            plan::MergeIntoTable(DmlCatalog(*state_->session), spec, options));
  return MakeDataFrame(state_->session, plan::DmlResultPlan("MERGE", result));
}

namespace {

constexpr auto kMatched = static_cast<uint8_t>(plan::MergeMatch::kMatched);
constexpr auto kNotMatched = static_cast<uint8_t>(plan::MergeMatch::kNotMatchedByTarget);
constexpr auto kNotMatchedBySource = static_cast<uint8_t>(plan::MergeMatch::kNotMatchedBySource);
constexpr auto kUpdate = static_cast<uint8_t>(plan::MergeAction::kUpdate);
constexpr auto kUpdateAll = static_cast<uint8_t>(plan::MergeAction::kUpdateAll);
constexpr auto kDelete = static_cast<uint8_t>(plan::MergeAction::kDelete);
constexpr auto kInsert = static_cast<uint8_t>(plan::MergeAction::kInsert);
constexpr auto kInsertAll = static_cast<uint8_t>(plan::MergeAction::kInsertAll);

}  // namespace

DeltaMergeBuilder DeltaMergeMatchedActionBuilder::Update(
    const std::map<std::string, Column>& set) const {
  return merge_.AddClause(kMatched, kUpdate, condition_, has_condition_, set);
}
DeltaMergeBuilder DeltaMergeMatchedActionBuilder::UpdateExpr(
    const std::map<std::string, std::string>& set) const {
  return merge_.AddClause(kMatched, kUpdate, condition_, has_condition_, ParsedColumns(set));
}
DeltaMergeBuilder DeltaMergeMatchedActionBuilder::UpdateAll() const {
  return merge_.AddClause(kMatched, kUpdateAll, condition_, has_condition_,
                          std::map<std::string, Column>{});
}
DeltaMergeBuilder DeltaMergeMatchedActionBuilder::Delete() const {
  return merge_.AddClause(kMatched, kDelete, condition_, has_condition_,
                          std::map<std::string, Column>{});
}

DeltaMergeBuilder DeltaMergeNotMatchedActionBuilder::Insert(
    const std::map<std::string, Column>& values) const {
  return merge_.AddClause(kNotMatched, kInsert, condition_, has_condition_, values);
}
DeltaMergeBuilder DeltaMergeNotMatchedActionBuilder::InsertExpr(
    const std::map<std::string, std::string>& values) const {
  return merge_.AddClause(kNotMatched, kInsert, condition_, has_condition_, ParsedColumns(values));
}
DeltaMergeBuilder DeltaMergeNotMatchedActionBuilder::InsertAll() const {
  return merge_.AddClause(kNotMatched, kInsertAll, condition_, has_condition_,
                          std::map<std::string, Column>{});
}

DeltaMergeBuilder DeltaMergeNotMatchedBySourceActionBuilder::Update(
    const std::map<std::string, Column>& set) const {
  return merge_.AddClause(kNotMatchedBySource, kUpdate, condition_, has_condition_, set);
}
DeltaMergeBuilder DeltaMergeNotMatchedBySourceActionBuilder::UpdateExpr(
    const std::map<std::string, std::string>& set) const {
  return merge_.AddClause(kNotMatchedBySource, kUpdate, condition_, has_condition_,
                          ParsedColumns(set));
}
DeltaMergeBuilder DeltaMergeNotMatchedBySourceActionBuilder::Delete() const {
  return merge_.AddClause(kNotMatchedBySource, kDelete, condition_, has_condition_,
                          std::map<std::string, Column>{});
}

}  // namespace tributary

// Binding of the statements that change rows (DELETE, UPDATE, MERGE INTO), of AUTO CDC flows
// and of table_changes(...) (binder.h describes what each binds to). Conditions and values
// are checked here, against the columns they may see, so that a mistake points at the SQL
// text; plan/delta_dml.h resolves them again when it runs the command.

#include <algorithm>

#include <fmt/format.h>

#include "common/ascii.h"
#include "plan/plan_builder.h"
#include "sql/binder_internal.h"

namespace tributary::sql::internal {
namespace {

using expr::ExprPtr;
using expr::Op;
using plan::LogicalPlanPtr;

// The names of a column path as expr::Col splits it: "a.`b.c`" is a, b.c.
std::vector<std::string> PathParts(const std::string& path) {
  std::vector<std::string> parts;
  for (ExprPtr node = expr::Col(path); node != nullptr;
       node = node->Children().empty() ? nullptr : node->Child(0)) {
    parts.push_back(node->Name());
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::string JoinPath(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    out += out.empty() ? "" : ".";
    out += QuoteIdentifier(part);
  }
  return out;
}

std::string ColumnNames(const columnar::Schema& schema) {
  std::string out;
  for (const columnar::Field& field : schema.Fields()) {
    out += out.empty() ? "" : ", ";
    out += QuoteIdentifier(field.Name());
  }
  return out;
}

// The field of `fields` named `name` ignoring case (the exact spelling first), or null.
const columnar::Field* FindField(const std::vector<columnar::Field>& fields,
                                 const std::string& name) {
  for (const columnar::Field& field : fields) {
    if (field.Name() == name) {
      return &field;
    }
  }
  for (const columnar::Field& field : fields) {
    if (EqualsIgnoreAsciiCase(field.Name(), name)) {
      return &field;
    }
  }
  return nullptr;
}

// What columns of a table named in SQL may be qualified with: its alias, else its name.
std::string QualifierOf(const TableName& table, const std::string& alias) {
  if (!alias.empty()) {
    return alias;
  }
  return table.IsPath() ? std::string() : table.parts.back();
}

plan::MergeMatch ToPlan(MergeMatch match) {
  switch (match) {
    case MergeMatch::kMatched:
      return plan::MergeMatch::kMatched;
    case MergeMatch::kNotMatchedByTarget:
      return plan::MergeMatch::kNotMatchedByTarget;
    case MergeMatch::kNotMatchedBySource:
      return plan::MergeMatch::kNotMatchedBySource;
  }
  return plan::MergeMatch::kMatched;
}

plan::MergeAction ToPlan(MergeAction action) {
  switch (action) {
    case MergeAction::kUpdate:
      return plan::MergeAction::kUpdate;
    case MergeAction::kUpdateAll:
      return plan::MergeAction::kUpdateAll;
    case MergeAction::kDelete:
      return plan::MergeAction::kDelete;
    case MergeAction::kInsert:
      return plan::MergeAction::kInsert;
    case MergeAction::kInsertAll:
      return plan::MergeAction::kInsertAll;
  }
  return plan::MergeAction::kUpdate;
}

class RowChangeBinder {
 public:
  RowChangeBinder(const Statement& statement, const plan::Catalog& catalog,
                  const std::map<std::string, std::string>& session_config, RelationBinder* binder)
      : statement_(statement), catalog_(catalog), config_(session_config), binder_(binder) {}

  Result<BoundStatement> Bind() {
    const StatementBody& body = statement_.body;
    if (const auto* statement = std::get_if<Delete>(&body)) {
      return BindDelete(*statement);
    }
    if (const auto* statement = std::get_if<Update>(&body)) {
      return BindUpdate(*statement);
    }
    if (const auto* merge = std::get_if<Merge>(&body)) {
      return BindMerge(*merge);
    }
    return BindAutoCdc(std::get<AutoCdc>(body));
  }

 private:
  Status At(const Status& status, const SourcePosition& position) const {
    return StatusAt(statement_, status, position);
  }
  Status At(const Status& status, const expr::Expression& node) const {
    return StatusAt(statement_, status, node);
  }

  // The target table's root and a scan of it under `qualifier` (for its columns).
  Result<LogicalPlanPtr> Target(const TableName& table, const std::string& qualifier,
                                std::string* path) const {
    TRIBUTARY_ASSIGN_OR_RAISE(*path, binder_->TablePath(table));
    auto scan = plan::ScanDeltaTable(catalog_, *path, {}, qualifier);
    return scan.ok() ? scan : At(scan.status(), table.position);
  }

  // A condition over `input`'s columns: a boolean expression without subqueries (Delta runs
  // none in DML conditions).
  Status CheckCondition(const LogicalPlanPtr& input, const ExprPtr& condition) const {
    if (condition == nullptr) {
      return Status::OK();
    }
    TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(condition));
    auto filtered = plan::Filter(input, condition);
    return filtered.ok() ? Status::OK() : At(filtered.status(), *condition);
  }

  Status CheckValue(const LogicalPlanPtr& input, const ExprPtr& value) const {
    TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(value));
    auto resolved = plan::Resolve(*value, *input);
    return resolved.ok() ? Status::OK() : At(resolved.status(), *value);
  }

  // The target column an assignment sets, as the target's schema spells it: a top-level column
  // or a path into a struct, optionally qualified by the target's qualifier. With schema
  // evolution, a top-level column of `evolution_source` that the target lacks is kept as
  // written (the command adds it).
  Result<std::string> TargetColumn(const Assignment& assignment, const columnar::Schema& target,
                                   const std::string& qualifier, std::string_view clause,
                                   const columnar::Schema* evolution_source) const {
    std::vector<std::string> parts = PathParts(assignment.column);
    if (parts.size() > 1 && !qualifier.empty() && EqualsIgnoreAsciiCase(parts[0], qualifier) &&
        FindField(target.Fields(), parts[0]) == nullptr) {
      parts.erase(parts.begin());
    }
    const std::vector<columnar::Field>* fields = &target.Fields();
    for (size_t i = 0; i < parts.size(); ++i) {
      const columnar::Field* field = FindField(*fields, parts[i]);
      if (field == nullptr && i == 0 && parts.size() == 1 && evolution_source != nullptr &&
          FindField(evolution_source->Fields(), parts[0]) != nullptr) {
        return JoinPath(parts);
      }
      if (field == nullptr ||
          (i + 1 < parts.size() && field->Type()->Id() != columnar::TypeId::kStruct)) {
        return At(
            Status::InvalidArgument(fmt::format("cannot resolve '{}' in {} given columns {}",
                                                assignment.column, clause, ColumnNames(target))),
            assignment.position);
      }
      parts[i] = field->Name();
      if (i + 1 < parts.size()) {
        fields = &field->Type()->Fields();
      }
    }
    return JoinPath(parts);
  }

  // The SET or INSERT columns: each once, and none inside another (a and a.b), as Delta.
  Status CheckNoConflicts(const std::vector<plan::DmlAssignment>& assignments,
                          const std::vector<Assignment>& written) const {
    for (size_t i = 0; i < assignments.size(); ++i) {
      const std::string a = AsciiLower(assignments[i].column);
      for (size_t j = 0; j < i; ++j) {
        const std::string b = AsciiLower(assignments[j].column);
        const std::string& shorter = a.size() < b.size() ? a : b;
        const std::string& longer = a.size() < b.size() ? b : a;
        if (a == b || longer.rfind(shorter + ".", 0) == 0) {
          return At(Status::InvalidArgument(
                        fmt::format("There is a conflict from these SET columns: [{}, {}]",
                                    assignments[j].column, assignments[i].column)),
                    written[i].position);
        }
      }
    }
    return Status::OK();
  }

  Result<std::vector<plan::DmlAssignment>> Assignments(
      const std::vector<Assignment>& written, const columnar::Schema& target,
      const std::string& qualifier, std::string_view clause, const LogicalPlanPtr& values_input,
      const columnar::Schema* evolution_source) const {
    std::vector<plan::DmlAssignment> assignments;
    for (const Assignment& assignment : written) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string column, TargetColumn(assignment, target, qualifier,
                                                                 clause, evolution_source));
      TRIBUTARY_RETURN_NOT_OK(CheckValue(values_input, assignment.value));
      assignments.push_back({std::move(column), assignment.value});
    }
    TRIBUTARY_RETURN_NOT_OK(CheckNoConflicts(assignments, written));
    return assignments;
  }

  Result<BoundStatement> BindDelete(const Delete& statement) const {
    BoundStatement bound;
    bound.kind = BoundKind::kDelete;
    bound.target_position = statement.table.position;
    bound.target_alias = QualifierOf(statement.table, statement.alias);
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr target,
                              Target(statement.table, bound.target_alias, &bound.path));
    TRIBUTARY_RETURN_NOT_OK(CheckCondition(target, statement.where));
    bound.condition = statement.where;
    return bound;
  }

  Result<BoundStatement> BindUpdate(const Update& statement) const {
    BoundStatement bound;
    bound.kind = BoundKind::kUpdate;
    bound.target_position = statement.table.position;
    bound.target_alias = QualifierOf(statement.table, statement.alias);
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr target,
                              Target(statement.table, bound.target_alias, &bound.path));
    TRIBUTARY_ASSIGN_OR_RAISE(
        bound.assignments, Assignments(statement.assignments, *target->Schema(), bound.target_alias,
                                       "UPDATE", target, nullptr));
    TRIBUTARY_RETURN_NOT_OK(CheckCondition(target, statement.where));
    bound.condition = statement.where;
    return bound;
  }

  bool AutoMerge() const {
    auto it = config_.find("spark.databricks.delta.schema.autoMerge.enabled");
    return it != config_.end() && EqualsIgnoreAsciiCase(it->second, "true");
  }

  Result<BoundStatement> BindMerge(const Merge& merge) {
    BoundStatement bound;
    bound.kind = BoundKind::kMerge;
    bound.target_position = merge.target.position;
    plan::MergeSpec& spec = bound.merge;
    spec.target_alias = QualifierOf(merge.target, merge.target_alias);
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr target,
                              Target(merge.target, spec.target_alias, &bound.path));
    spec.target_path = bound.path;
    TRIBUTARY_ASSIGN_OR_RAISE(spec.source, binder_->BindRelation(*merge.source, false));
    const Relation& source = *merge.source;
    spec.source_alias = !source.alias.empty() ? source.alias
                        : source.kind == RelationKind::kTable && !source.table.IsPath()
                            ? source.table.parts.back()
                            : "";
    spec.on = merge.on;
    spec.schema_evolution = merge.with_schema_evolution;
    TRIBUTARY_RETURN_NOT_OK(binder_->CheckNoSubquery(merge.on));
    auto joined = plan::Join(target, spec.source, exec::JoinType::kInner, merge.on);
    if (!joined.ok()) {
      return At(joined.status(), *merge.on);
    }
    const columnar::Schema* evolution_source =
        merge.with_schema_evolution || AutoMerge() ? spec.source->Schema().get() : nullptr;
    for (const MergeClause& clause : merge.clauses) {
      // What the clause sees: both sides when matched, else the side that has a row.
      const LogicalPlanPtr& input = clause.match == MergeMatch::kMatched              ? *joined
                                    : clause.match == MergeMatch::kNotMatchedByTarget ? spec.source
                                                                                      : target;
      TRIBUTARY_RETURN_NOT_OK(CheckCondition(input, clause.condition));
      plan::MergeClause bound_clause;
      bound_clause.match = ToPlan(clause.match);
      bound_clause.action = ToPlan(clause.action);
      bound_clause.condition = clause.condition;
      const std::string_view kind =
          clause.action == MergeAction::kInsert ? "INSERT clause" : "UPDATE clause";
      TRIBUTARY_ASSIGN_OR_RAISE(bound_clause.assignments,
                                Assignments(clause.assignments, *target->Schema(),
                                            spec.target_alias, kind, input, evolution_source));
      spec.clauses.push_back(std::move(bound_clause));
    }
    return bound;
  }

  Status CheckFlowColumns(const columnar::Schema& source, const std::vector<std::string>& names,
                          std::string_view clause, const SourcePosition& at) const {
    for (const std::string& name : names) {
      if (FindField(source.Fields(), name) == nullptr) {
        return At(
            Status::InvalidArgument(fmt::format("{} column '{}' is not a column of the source ({})",
                                                clause, name, ColumnNames(source))),
            at);
      }
    }
    return Status::OK();
  }

  Result<BoundStatement> BindAutoCdc(const AutoCdc& flow) {
    BoundStatement bound;
    bound.kind = BoundKind::kAutoCdc;
    bound.auto_cdc = flow;
    bound.target_position = flow.target.position;
    TRIBUTARY_ASSIGN_OR_RAISE(bound.path, binder_->TablePath(flow.target));
    TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, binder_->BindRelation(*flow.source, true));
    if (!bound.plan->IsStreaming()) {
      return At(Status::InvalidArgument(
                    "AUTO CDC reads its source as a stream: FROM STREAM(table) or FROM STREAM "
                    "read_files(...)"),
                flow.source->position);
    }
    const columnar::Schema& source = *bound.plan->Schema();
    TRIBUTARY_RETURN_NOT_OK(CheckFlowColumns(source, flow.keys, "KEYS", flow.keys_position));
    TRIBUTARY_RETURN_NOT_OK(CheckValue(bound.plan, flow.sequence_by));
    TRIBUTARY_RETURN_NOT_OK(CheckCondition(bound.plan, flow.apply_as_delete));
    TRIBUTARY_RETURN_NOT_OK(CheckCondition(bound.plan, flow.apply_as_truncate));
    TRIBUTARY_RETURN_NOT_OK(
        CheckFlowColumns(source, flow.columns, "COLUMNS", flow.columns_position));
    TRIBUTARY_RETURN_NOT_OK(CheckFlowColumns(source, flow.track_history, "TRACK HISTORY ON",
                                             flow.track_history_position));
    // The keys identify the target's rows, so the target keeps them.
    for (const std::string& key : flow.keys) {
      const bool listed =
          std::any_of(flow.columns.begin(), flow.columns.end(),
                      [&](const std::string& c) { return EqualsIgnoreAsciiCase(c, key); });
      if (!flow.columns.empty() && listed == flow.columns_except) {
        return At(Status::InvalidArgument(
                      fmt::format("KEYS column '{}' must be one of the target's COLUMNS", key)),
                  flow.columns_position);
      }
    }
    return bound;
  }

  const Statement& statement_;
  const plan::Catalog& catalog_;
  const std::map<std::string, std::string>& config_;
  RelationBinder* binder_;
};

// A table named by table_changes' first argument: 'name', 'db.name' or 'delta.`/path`'.
TableName ChangesTableName(const std::string& text, const SourcePosition& position) {
  TableName table;
  table.position = position;
  constexpr std::string_view kDeltaPath = "delta.`";
  if (text.size() > kDeltaPath.size() &&
      EqualsIgnoreAsciiCase(text.substr(0, kDeltaPath.size()), kDeltaPath) && text.back() == '`') {
    table.format = "delta";
    table.path = text.substr(kDeltaPath.size(), text.size() - kDeltaPath.size() - 1);
    return table;
  }
  table.parts = PathParts(text);
  return table;
}

}  // namespace

Result<BoundStatement> BindRowChanges(const Statement& statement, const plan::Catalog& catalog,
                                      const std::map<std::string, std::string>& session_config,
                                      RelationBinder* binder) {
  return RowChangeBinder(statement, catalog, session_config, binder).Bind();
}

Result<plan::LogicalPlanPtr> BindTableChanges(const Statement& statement, const Relation& relation,
                                              const plan::Catalog& catalog,
                                              RelationBinder* binder) {
  auto at = [&](const Status& status, const SourcePosition& position) {
    return StatusAt(statement, status, position);
  };
  if (relation.stream) {
    return at(Status::NotImplemented(
                  "STREAM table_changes(...) is not supported; read the change feed as a stream "
                  "with ReadStream().Option(\"readChangeFeed\", \"true\")"),
              relation.position);
  }
  const size_t count = relation.arguments.size();
  if (count < 2 || count > 3) {
    return at(Status::InvalidArgument(fmt::format(
                  "table_changes takes 2 or 3 arguments (table, start[, end]), got {}", count)),
              relation.position);
  }
  std::vector<plan::TimeTravel> bounds;
  std::string table_text;
  for (size_t i = 0; i < count; ++i) {
    const TableFunctionArgument& argument = relation.arguments[i];
    const expr::Expression& value = *argument.value;
    SourcePosition position =
        statement.sources ? statement.sources->PositionOf(value) : SourcePosition{0, 0, 0};
    position = position.line == 0 ? relation.position : position;
    if (!argument.name.empty()) {
      return at(Status::InvalidArgument("table_changes takes its arguments by position"), position);
    }
    const bool literal = value.GetOp() == Op::kLiteral && !value.Literal().IsNull();
    const columnar::TypeId type = literal ? value.Literal().Type()->Id() : columnar::TypeId::kNull;
    if (i == 0) {
      if (type != columnar::TypeId::kString) {
        return at(Status::InvalidArgument(
                      "table_changes' first argument is the table's name as a string"),
                  position);
      }
      table_text = value.Literal().BytesValue();
      continue;
    }
    plan::TimeTravel bound;
    if (type == columnar::TypeId::kInt32 || type == columnar::TypeId::kInt64) {
      bound.version = value.Literal().IntValue();
      if (*bound.version < 0) {
        return at(Status::InvalidArgument("a table version is not negative"), position);
      }
    } else if (type == columnar::TypeId::kString) {
      bound.timestamp = value.Literal().BytesValue();
    } else {
      return at(Status::InvalidArgument(
                    fmt::format("table_changes' {} is a version (an integer) or a timestamp string",
                                i == 1 ? "start" : "end")),
                position);
    }
    bounds.push_back(std::move(bound));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string path,
                            binder->TablePath(ChangesTableName(table_text, relation.position)));
  std::optional<plan::TimeTravel> end;
  if (bounds.size() == 2) {
    end = bounds[1];
  }
  auto scan = plan::ScanTableChanges(catalog, path, bounds[0], end, relation.alias);
  return scan.ok() ? scan : at(scan.status(), relation.position);
}

Status PlaceRowChangeError(const Statement& statement, const BoundStatement& bound,
                           const Status& status) {
  std::vector<const expr::Expression*> candidates;
  auto add = [&](const ExprPtr& e) {
    if (e != nullptr) {
      candidates.push_back(e.get());
    }
  };
  add(bound.condition);
  for (const plan::DmlAssignment& assignment : bound.assignments) {
    add(assignment.value);
  }
  add(bound.merge.on);
  for (const plan::MergeClause& clause : bound.merge.clauses) {
    add(clause.condition);
    for (const plan::DmlAssignment& assignment : clause.assignments) {
      add(assignment.value);
    }
  }
  for (const expr::Expression* candidate : candidates) {
    if (QuotedColumn(status.Message(), *candidate) != nullptr) {
      return StatusAt(statement, status, *candidate);
    }
  }
  for (const expr::Expression* candidate : candidates) {
    if (status.Message().find(candidate->SqlText()) != std::string::npos) {
      return StatusAt(statement, status, *candidate);
    }
  }
  return StatusAt(statement, status, bound.target_position);
}

}  // namespace tributary::sql::internal

// Binding of the utility statements: DESCRIBE TABLE [EXTENDED], SHOW COLUMNS, SHOW
// TBLPROPERTIES and SHOW CREATE TABLE become plans of their rows (plan/table_info.h); SET,
// RESET, USE and SHOW VIEWS change or read the session, so they are bound to their kinds and
// run by the session (api/session.cc).

#include <fmt/format.h>

#include "common/ascii.h"
#include "plan/plan_builder.h"
#include "plan/table_info.h"
#include "sql/binder_internal.h"

namespace tributary::sql::internal {

namespace {

// The schema `name` (`s` or `spark_catalog.s`) when it exists, else Spark's
// [SCHEMA_NOT_FOUND] placed at `position`.
Result<std::string> ExistingSchema(const Statement& statement, const plan::Catalog& catalog,
                                   const std::vector<std::string>& parts,
                                   const SourcePosition& position) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string schema, SchemaOfNamespace(statement, parts, position));
  TRIBUTARY_ASSIGN_OR_RAISE(const bool exists, plan::SchemaExists(catalog, schema));
  if (!exists) {
    return StatusAt(statement, plan::SchemaNotFoundError(schema), position);
  }
  return schema;
}

// The table's root and the name Spark prints: spark_catalog.<schema>.t for a name,
// delta.`/path` for a path; a data source table's catalog entry with it.
Result<plan::TableInfoTarget> Target(const Statement& statement, const plan::Catalog& catalog,
                                     const TableName& table, RelationBinder* binder) {
  plan::TableInfoTarget target;
  if (table.IsPath()) {
    TRIBUTARY_ASSIGN_OR_RAISE(target.path, binder->TablePath(table));
    target.name = "delta.`" + target.path + "`";
    return target;
  }
  std::string dotted;
  for (const std::string& part : table.parts) {
    dotted += dotted.empty() ? part : "." + part;
  }
  Result<plan::QualifiedName> qualified = plan::QualifyTableName(catalog, dotted);
  if (!qualified.ok()) {
    return StatusAt(statement, qualified.status(), table.position);
  }
  TRIBUTARY_RETURN_NOT_OK(
      ExistingSchema(statement, catalog, {qualified->schema}, table.position).status());
  TRIBUTARY_ASSIGN_OR_RAISE(target.path, binder->TablePath(table));
  target.name = "spark_catalog." + qualified->schema + "." + qualified->table;
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                            FileTableOf(statement, catalog, table));
  if (entry) {
    target.file_table = std::make_shared<const plan::TableEntry>(*std::move(entry));
  }
  return target;
}

}  // namespace

}  // namespace tributary::sql::internal

namespace tributary::sql {

namespace {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) {
    return text.empty();
  }
  if (pattern[0] == '*') {
    for (size_t skip = 0; skip <= text.size(); ++skip) {
      if (GlobMatch(pattern.substr(1), text.substr(skip))) {
        return true;
      }
    }
    return false;
  }
  return !text.empty() && pattern[0] == text[0] && GlobMatch(pattern.substr(1), text.substr(1));
}

}  // namespace

bool MatchesShowPattern(std::string_view pattern, std::string_view name) {
  const std::string lower_name = AsciiLower(name);
  size_t start = 0;
  while (start <= pattern.size()) {
    size_t end = pattern.find('|', start);
    if (end == std::string_view::npos) {
      end = pattern.size();
    }
    if (GlobMatch(AsciiLower(pattern.substr(start, end - start)), lower_name)) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

}  // namespace tributary::sql

namespace tributary::sql::internal {

bool IsUtilityStatement(const StatementBody& body) {
  if (const auto* describe = std::get_if<Describe>(&body)) {
    return describe->kind == DescribeKind::kTable;
  }
  return std::holds_alternative<SetConfig>(body) || std::holds_alternative<ResetConfig>(body) ||
         std::holds_alternative<Use>(body) || std::holds_alternative<ShowTableInfo>(body);
}

Result<plan::LogicalPlanPtr> ShowTablesPlan(const Statement& statement,
                                            const plan::Catalog& catalog, const ShowTables& show) {
  std::string schema = catalog.current_schema;
  if (!show.database.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        schema, ExistingSchema(statement, catalog, {show.database}, statement.position));
  }
  std::vector<std::vector<std::string>> rows;
  // The schema's tables, listed as Session::ListTables lists them.
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> tables,
                            plan::ListSchemaTables(catalog, schema));
  for (const std::string& name : tables) {
    if (show.pattern.empty() || MatchesShowPattern(show.pattern, name)) {
      rows.push_back({schema, name, "false"});
    }
  }
  // Temporary views belong to no schema, and Spark lists them in every one.
  if (catalog.session_views) {
    for (const std::string& name : catalog.session_views()) {
      if (show.pattern.empty() || MatchesShowPattern(show.pattern, name)) {
        rows.push_back({"", name, "true"});
      }
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      plan::LogicalPlanPtr strings,
      plan::StringRowsPlan({"namespace", "tableName", "isTemporary"}, rows, "SHOW TABLES"));
  auto typed = plan::WithColumn(
      strings, "isTemporary", expr::Cast(expr::Col("isTemporary"), columnar::DataType::Boolean()));
  return typed;
}

// GCC 12 reports the optional<string> members of SET/RESET as maybe uninitialized when they are
// copied into `bound` inlined in a unity build: a false positive (they are copy-constructed).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// SHOW TABLES: namespace, tableName, isTemporary for each Delta table in the warehouse.
Result<BoundStatement> BindUtility(const Statement& statement, const plan::Catalog& catalog,
                                   RelationBinder* binder) {
  BoundStatement bound;
  const StatementBody& body = statement.body;
  if (const auto* set = std::get_if<SetConfig>(&body)) {
    bound.kind = BoundKind::kSetConfig;
    bound.set_config = *set;
    return bound;
  }
  if (const auto* reset = std::get_if<ResetConfig>(&body)) {
    bound.kind = BoundKind::kResetConfig;
    bound.reset_config = *reset;
    return bound;
  }
  if (const auto* use = std::get_if<Use>(&body)) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string schema,
                              ExistingSchema(statement, catalog, use->parts, use->position));
    bound.kind = BoundKind::kUse;
    bound.use = *use;
    bound.schema_command.parts = {std::move(schema)};
    return bound;
  }
  const TableName* table = nullptr;
  if (const auto* describe = std::get_if<Describe>(&body)) {
    table = &describe->table;
  } else {
    bound.show = std::get<ShowTableInfo>(body);
    if (!bound.show.database.empty()) {
      TRIBUTARY_RETURN_NOT_OK(
          ExistingSchema(statement, catalog, {bound.show.database}, statement.position).status());
    }
    if (bound.show.kind == ShowKind::kViews) {
      bound.kind = BoundKind::kShowViews;
      return bound;
    }
    table = &bound.show.table;
  }
  const auto* describe = std::get_if<Describe>(&body);
  const bool columns_only = describe != nullptr || bound.show.kind == ShowKind::kColumns;
  // A temporary view has columns but no table details (Spark's DESCRIBE EXTENDED of a view adds
  // view details this session does not keep).
  if (columns_only && !table->IsPath() && table->parts.size() == 1 && catalog.session_table) {
    if (plan::LogicalPlanPtr view = catalog.session_table(AsciiLower(table->parts[0]))) {
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan,
                                plan::DescribeColumns(*view->Schema(), describe == nullptr,
                                                      "DESCRIBE " + table->parts[0]));
      return bound;
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(plan::TableInfoTarget target,
                            Target(statement, catalog, *table, binder));
  Result<plan::LogicalPlanPtr> rows =
      describe != nullptr ? plan::DescribeTableInfo(catalog, target, describe->extended)
      : bound.show.kind == ShowKind::kColumns ? plan::ShowColumns(catalog, target)
      : bound.show.kind == ShowKind::kTblProperties
          ? plan::ShowTableProperties(catalog, target, bound.show.key)
          : plan::ShowCreateTable(catalog, target);
  if (!rows.ok() && rows.status().IsNotFound() && !table->IsPath()) {
    return StatusAt(statement,
                    Status::NotFound(fmt::format(
                        "[TABLE_OR_VIEW_NOT_FOUND] The table or view `{}` cannot be found. Verify "
                        "the spelling and correctness of the schema and catalog.",
                        table->parts.back())),
                    table->position);
  }
  if (!rows.ok()) {
    return StatusAt(statement, rows.status(), table->position);
  }
  bound.plan = *std::move(rows);
  return bound;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace tributary::sql::internal

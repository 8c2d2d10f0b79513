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

// The only database: the warehouse's tables are all in `default`, as Spark's
// spark_catalog.default.
bool IsDefaultDatabase(const std::vector<std::string>& parts) {
  return (parts.size() == 1 && EqualsIgnoreAsciiCase(parts[0], "default")) ||
         (parts.size() == 2 && EqualsIgnoreAsciiCase(parts[0], "spark_catalog") &&
          EqualsIgnoreAsciiCase(parts[1], "default"));
}

Status SchemaNotFound(const std::string& name) {
  return Status::NotFound(fmt::format(
      "[SCHEMA_NOT_FOUND] The schema `{}` cannot be found. Verify the spelling and correctness "
      "of the schema and catalog.",
      name));
}

// The table's root and the name Spark prints: spark_catalog.default.t for a name (db.t keeps
// its database), delta.`/path` for a path.
Result<plan::TableInfoTarget> Target(const Statement& statement, const TableName& table,
                                     RelationBinder* binder) {
  plan::TableInfoTarget target;
  TRIBUTARY_ASSIGN_OR_RAISE(target.path, binder->TablePath(table));
  if (table.IsPath()) {
    target.name = "delta.`" + target.path + "`";
    return target;
  }
  std::vector<std::string> parts;
  for (const std::string& part : table.parts) {
    parts.push_back(AsciiLower(part));
  }
  if (parts.size() > 1 && !IsDefaultDatabase({parts.begin(), parts.end() - 1})) {
    return StatusAt(statement, SchemaNotFound(parts[parts.size() - 2]), table.position);
  }
  target.name = "spark_catalog.default." + parts.back();
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
  if (!show.database.empty()) {
    return StatusAt(statement,
                    Status::NotImplemented("SHOW TABLES IN <database>: the warehouse has no "
                                           "databases yet"),
                    statement.position);
  }
  std::vector<std::vector<std::string>> rows;
  auto entries = catalog.fs->List(catalog.warehouse, storage::ListOptions{});
  if (!entries.ok() && !entries.status().IsNotFound()) {
    return entries.status();
  }
  if (entries.ok()) {
    for (const storage::FileInfo& entry : *entries) {
      const std::string name = entry.path.substr(entry.path.find_last_of('/') + 1);
      if (!entry.is_directory || name.empty() || name[0] == '.' || name[0] == '_') {
        continue;
      }
      if (!show.pattern.empty() && !MatchesShowPattern(show.pattern, name)) {
        continue;
      }
      auto log = catalog.fs->List(entry.path + "/_delta_log", storage::ListOptions{});
      if (log.ok() && !log->empty()) {
        rows.push_back({"", name, "false"});
      }
    }
  }
  // External tables (CREATE TABLE ... LOCATION) are in the warehouse by their catalog entry.
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> external, plan::ListExternalTables(catalog));
  for (const std::string& name : external) {
    if (show.pattern.empty() || MatchesShowPattern(show.pattern, name)) {
      rows.push_back({"", name, "false"});
    }
  }
  // An external table located inside the warehouse is both a directory and an entry.
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
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
    if (!IsDefaultDatabase(use->parts)) {
      return StatusAt(statement, SchemaNotFound(use->parts.back()), use->position);
    }
    bound.kind = BoundKind::kUse;
    bound.use = *use;
    return bound;
  }
  const TableName* table = nullptr;
  if (const auto* describe = std::get_if<Describe>(&body)) {
    table = &describe->table;
  } else {
    bound.show = std::get<ShowTableInfo>(body);
    if (!bound.show.database.empty() && !IsDefaultDatabase({bound.show.database})) {
      return StatusAt(statement, SchemaNotFound(bound.show.database), statement.position);
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
  TRIBUTARY_ASSIGN_OR_RAISE(plan::TableInfoTarget target, Target(statement, *table, binder));
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

// The SQL binder: a parsed statement (ast.h) into resolved logical plans (plan/plan_builder.h).
//
// Queries become plans; Delta commands (DESCRIBE HISTORY/DETAIL, OPTIMIZE, VACUUM) run when
// bound, as Spark runs commands eagerly, and return a plan of their result rows; DESCRIBE TABLE
// and SHOW TABLES are plans of rows built from the table's schema or the warehouse listing.
// Writes (CREATE TABLE, INSERT) and DROP TABLE are described for the caller, which owns the
// table writer and the session (the API's Session::Sql).
//
// Binding follows Spark: FROM, then WHERE, then GROUP BY/aggregates (items that aggregate make a
// global aggregate), HAVING, the SELECT list, DISTINCT, then ORDER BY and LIMIT over the result.
// GROUP BY and ORDER BY take 1-based ordinals of the SELECT list, and GROUP BY takes its aliases.
// WHERE conjuncts `x IN (query)` and `[NOT] EXISTS (query)` (uncorrelated) become left semi/anti
// joins, as Spark rewrites them; other subqueries in expressions are NotImplemented. A
// resolution error points at the expression (or the column it names) in the SQL text.

#pragma once

#include <string>

#include "plan/data_sources.h"
#include "plan/logical_plan.h"
#include "sql/ast.h"

namespace tributary::sql {

enum class BoundKind : uint8_t {
  kQuery,        // plan: the result rows
  kCreateTable,  // create: the statement; schema: its columns; plan: AS query rows (or null)
  kInsert,       // insert: the statement; plan: the rows, in the table's columns and types
  kDropTable,    // drop: the statement
};

/// A bound statement. `path` is the target table's root (warehouse/<name>, or the path of
/// delta.`path`) for the writing and dropping kinds.
struct BoundStatement {
  BoundKind kind = BoundKind::kQuery;
  plan::LogicalPlanPtr plan;
  std::string path;
  /// kCreateTable: the declared columns; null when only the AS query gives them.
  columnar::SchemaPtr schema;
  CreateTable create;
  Insert insert;
  DropTable drop;
};

/// Binds `statement` against the tables of `catalog`. InvalidArgument/NotFound errors name the
/// position in the statement's text.
Result<BoundStatement> Bind(const Statement& statement, const plan::Catalog& catalog);

/// The plan of `query`, one of `statement`'s queries.
Result<plan::LogicalPlanPtr> BindQuery(const Statement& statement, const Query& query,
                                       const plan::Catalog& catalog);

}  // namespace tributary::sql

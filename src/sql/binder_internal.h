// The SQL binder's parts shared by the files that define it (private to src/sql; binder.h is
// the interface):
//   binder.cc      queries, FROM relations, DDL, DESCRIBE/SHOW and the maintenance commands
//   binder_dml.cc  DELETE, UPDATE, MERGE INTO, AUTO CDC flows and table_changes(...)
//   binder_sources.cc  the arguments of read_kafka(...) and read_kinesis(...)
//   binder_utility.cc  SET, RESET, USE, DESCRIBE TABLE and SHOW (but SHOW TABLES)

#pragma once

#include <map>
#include <string>

#include "sql/ast.h"
#include "sql/binder.h"

namespace tributary::sql::internal {

/// The column reference under `node` whose text or name `message` quotes ('nope'), or null.
const expr::Expression* QuotedColumn(const std::string& message, const expr::Expression& node);

/// `status` (not OK) with its message placed at `position` in `statement`'s text, code kept.
Status StatusAt(const Statement& statement, const Status& status, const SourcePosition& position);

/// At the column reference under `node` that the message quotes, else at `node`.
Status StatusAt(const Statement& statement, const Status& status, const expr::Expression& node);

/// What binding row-level statements takes from the query binder (binder.cc).
class RelationBinder {
 public:
  virtual ~RelationBinder() = default;

  /// The root of the Delta table `table` names (a warehouse name or delta.`path`); errors
  /// placed at the name.
  virtual Result<std::string> TablePath(const TableName& table) const = 0;
  /// The plan of a FROM item; `streams` lets it read STREAM sources (an AUTO CDC flow's).
  virtual Result<plan::LogicalPlanPtr> BindRelation(const Relation& relation, bool streams) = 0;
  /// A placed error when `e` holds a subquery (only WHERE conjuncts of queries may).
  virtual Status CheckNoSubquery(const expr::ExprPtr& e) const = 0;
};

/// Binds a Delete, Update, Merge or AutoCdc statement.
Result<BoundStatement> BindRowChanges(const Statement& statement, const plan::Catalog& catalog,
                                      const std::map<std::string, std::string>& session_config,
                                      RelationBinder* binder);

/// `table_changes('table', start[, end])`: the table's change data feed from `start` through
/// `end` (the latest when omitted), each a version or a timestamp string.
Result<plan::LogicalPlanPtr> BindTableChanges(const Statement& statement, const Relation& relation,
                                              const plan::Catalog& catalog, RelationBinder* binder);

/// The options of read_kafka(...) or read_kinesis(...) (`relation`): named arguments only, as
/// Databricks SQL requires, each a literal, under the source's option names (read_kafka's
/// bootstrapServers is Spark's kafka.bootstrap.servers; `kafka.*` names pass through).
/// InvalidArgument placed at the argument for a positional, non-constant or repeated one, and
/// for read_kafka without bootstrapServers. The sources check the names.
Result<std::map<std::string, std::string>> MessageBusOptions(const Statement& statement,
                                                             const Relation& relation);

/// Whether `body` is bound by BindUtility: SET, RESET, USE, SHOW COLUMNS / TBLPROPERTIES /
/// CREATE TABLE / VIEWS and DESCRIBE TABLE (binder_utility.cc).
bool IsUtilityStatement(const StatementBody& body);

/// Binds a statement IsUtilityStatement accepts: the table statements to plans of their rows
/// (plan/table_info.h), the session ones (SET, RESET, USE, SHOW VIEWS) to their kinds.
Result<BoundStatement> BindUtility(const Statement& statement, const plan::Catalog& catalog,
                                   RelationBinder* binder);

/// SHOW TABLES [LIKE pattern]: namespace, tableName, isTemporary for each Delta table of the
/// warehouse and each external table.
Result<plan::LogicalPlanPtr> ShowTablesPlan(const Statement& statement,
                                            const plan::Catalog& catalog, const ShowTables& show);

/// PlaceCommandError for kDelete, kUpdate and kMerge.
Status PlaceRowChangeError(const Statement& statement, const BoundStatement& bound,
                           const Status& status);

}  // namespace tributary::sql::internal

// The SQL binder's parts shared by the files that define it (private to src/sql; binder.h is
// the interface):
//   binder.cc      queries, FROM relations, DDL, DESCRIBE/SHOW and the maintenance commands
//   binder_dml.cc  DELETE, UPDATE, MERGE INTO, AUTO CDC flows and table_changes(...)
//   binder_sources.cc  the arguments of read_kafka(...) and read_kinesis(...)
//   binder_utility.cc  SET, RESET, USE, DESCRIBE TABLE and SHOW
//   binder_catalog.cc  schemas, data source tables (CREATE TABLE ... USING parquet)

#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan_builder.h"
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

/// The outer values a correlated subquery reads, for binding it once for all outer rows
/// (Spark's and DuckDB's domain decorrelation): `plan` holds the distinct values of the outer
/// query's columns `outer` (each a column reference as written) as columns `names`.
struct OuterDomain {
  std::vector<expr::ExprPtr> outer;
  std::vector<std::string> names;
  plan::LogicalPlanPtr plan;
};

/// What the subquery rewrites need of the binder that uses them.
class QueryBinder : public RelationBinder {
 public:
  /// The plan of `query` in the binder's current scopes.
  virtual Result<plan::LogicalPlanPtr> BindQuery(const Query& query) = 0;
  /// The plan of a FROM item of a subquery, in the binder's current scopes.
  virtual Result<plan::LogicalPlanPtr> BindFromItem(const Relation& relation) = 0;
  /// Enter and leave a scope of WITH names, so that a subquery's names stay inside it.
  virtual void PushScope() = 0;
  virtual void PopScope() = 0;
  /// The plan of a correlated `query` for every row of `domain` at once, as if it ran once per
  /// domain row: each SELECT that reads an outer column (one `domain.outer` names that does not
  /// resolve in its FROM) or whose FROM carries the domain columns joins the domain in and
  /// outputs them after its own columns (an aggregate groups by them; a global aggregate keeps
  /// a row for each domain row). The result's columns are the query's, then `domain.names`
  /// when it reads the domain at all; LIMIT / OFFSET apply per domain row (row_number over
  /// the domain columns in the ORDER BY order). NotImplemented for QUALIFY, grouping sets and
  /// NATURAL / USING joins over the domain.
  virtual Result<plan::LogicalPlanPtr> BindQueryOverDomain(const Query& query,
                                                           const OuterDomain& domain) = 0;
};

/// Subqueries in the expressions of a query being bound, rewritten into joins of the query's
/// input as Spark's optimizer rewrites them (binder_subqueries.cc): [NOT] IN and [NOT] EXISTS
/// WHERE conjuncts into semi/anti joins, scalar subqueries into one-row or per-group plans
/// joined in (correlated ones decorrelated, count over no rows 0), and IN/EXISTS elsewhere into
/// boolean columns. Each `input` is the query's input plan, which gains the joins.
class SubqueryRewriter {
 public:
  virtual ~SubqueryRewriter() = default;
  static std::unique_ptr<SubqueryRewriter> Make(const Statement& statement, QueryBinder* binder);

  /// The WHERE conjuncts that are [NOT] IN / [NOT] EXISTS subqueries become semi/anti joins of
  /// `*input`; returns the other conjuncts (null when none are left).
  virtual Result<expr::ExprPtr> SubqueryJoins(const expr::ExprPtr& condition,
                                              plan::LogicalPlanPtr* input) = 0;
  /// Scalar subqueries (and IN/EXISTS in the SELECT list) of `query` joined into `*input`;
  /// the query reading their columns, or nullopt when it has none.
  virtual Result<std::optional<Query>> ScalarSubqueries(const Query& query,
                                                        plan::LogicalPlanPtr* input) = 0;
  /// `e` with each [NOT] EXISTS and IN subquery left in it (under OR, NOT, CASE) replaced by a
  /// boolean column joined into `*input`.
  virtual Result<expr::ExprPtr> PredicateSubqueryValues(const expr::ExprPtr& e,
                                                        plan::LogicalPlanPtr* input) = 0;
};

/// One row without columns: what SELECT without FROM and VALUES select from.
Result<plan::LogicalPlanPtr> OneRowPlan();

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

/// SHOW TABLES [IN schema] [LIKE pattern]: namespace, tableName, isTemporary for each table of
/// the schema (plan::ListSchemaTables, as Session::ListTables) and each temporary view
/// (namespace empty, isTemporary true, as Spark lists them whatever the schema).
Result<plan::LogicalPlanPtr> ShowTablesPlan(const Statement& statement,
                                            const plan::Catalog& catalog, const ShowTables& show);

// ---- the warehouse catalog (binder_catalog.cc) ----

/// The schema a SCHEMA/DATABASE/USE statement names (`s` or `spark_catalog.s`), lowercased;
/// InvalidArgument placed at `position` for other shapes.
Result<std::string> SchemaOfNamespace(const Statement& statement,
                                      const std::vector<std::string>& parts,
                                      const SourcePosition& position);

/// `spark_catalog`.`schema`.`table` for a table name, as Spark's errors print it.
std::string SparkTableName(const plan::Catalog& catalog, const TableName& table);

/// The catalog entry of `table` when it names a data source table (USING parquet | json |
/// csv); nullopt for Delta tables, paths and unknown names.
Result<std::optional<plan::TableEntry>> FileTableOf(const Statement& statement,
                                                    const plan::Catalog& catalog,
                                                    const TableName& table);

/// Spark's [UNSUPPORTED_FEATURE.TABLE_OPERATION] for `operation` (DELETE, UPDATE, MERGE INTO
/// TABLE) on a data source table, placed at the name; OK for other tables.
Status CheckNotFileTable(const Statement& statement, const plan::Catalog& catalog,
                         const TableName& table, std::string_view operation);

/// Refuses a CREATE TABLE provider other than delta, parquet, json and csv: orc, hive, avro
/// and text by name, others as Spark's [DATA_SOURCE_NOT_FOUND].
Status CheckCreateProvider(const Statement& statement, const CreateTable& create);

/// The catalog entry CREATE TABLE ... USING parquet | json | csv writes: managed (in the
/// schema's folder) or at LOCATION; the schema declared, the AS `query`'s, or inferred from
/// LOCATION's files; partition columns moved last. Spark's errors for CTAS with columns,
/// unknown partition columns, all columns partitioned, OR REPLACE and a missing schema.
Result<plan::TableEntry> BindFileTableCreate(const Statement& statement,
                                             const plan::Catalog& catalog,
                                             const CreateTable& create,
                                             columnar::SchemaPtr declared,
                                             const plan::LogicalPlanPtr& query);

/// CREATE / DROP SCHEMA to their kinds (the schema in schema_command.parts[0]); SHOW SCHEMAS
/// to the plan of its rows (column namespace).
Result<BoundStatement> BindSchemaCommand(const Statement& statement, const plan::Catalog& catalog,
                                         const SchemaCommand& command);

/// A kLateralView, kPivot or kUnpivot relation over `input`, the plan of its `left`
/// (binder_pivot.cc); errors placed in `statement`'s text.
Result<plan::LogicalPlanPtr> BindFromClauseExtension(const Statement& statement,
                                                     const Relation& relation,
                                                     plan::LogicalPlanPtr input,
                                                     const expr::EvalContext& eval);

/// TABLESAMPLE over `input` (binder_pivot.cc): a LIMIT for ROWS, a random filter otherwise.
Result<plan::LogicalPlanPtr> BindTableSample(const Statement& statement,
                                             const TableSampleClause& sample,
                                             plan::LogicalPlanPtr input,
                                             const expr::EvalContext& eval);

/// A SELECT list with a `generator(...) AS (a, b)` item (binder_pivot.cc): `*input` becomes the
/// generator's plan over it (plan::Generate) and `*items` the list over that plan, stars
/// expanded to the columns before the generator. False (nothing changed) when no item has
/// such aliases; MULTI_ALIAS_WITHOUT_GENERATOR when the item is no generator.
Result<bool> BindMultiAliasGenerator(const Statement& statement,
                                     const std::vector<SelectItem>& select,
                                     plan::LogicalPlanPtr* input,
                                     std::vector<plan::NamedExpr>* items);

/// `left JOIN LATERAL (query) alias [ON condition]` (or `left, LATERAL (...)`), `left` bound
/// (binder_pivot.cc): the query's FROM item joined to `left` on the WHERE conjuncts that read
/// `left`'s columns, its SELECT list computed over each pair. Supported for INNER, CROSS and LEFT
/// joins of a query without aggregates, grouping, DISTINCT, ORDER BY or LIMIT; NotImplemented
/// otherwise. `bind_relation` binds the query's FROM item in the binder's scope.
Result<plan::LogicalPlanPtr> BindLateralJoin(
    const Statement& statement, const Relation& join, plan::LogicalPlanPtr left,
    const std::function<Result<plan::LogicalPlanPtr>(const Relation&)>& bind_relation);

/// The value of a constant expression (no column references: `1 + 1`, `CAST('5' AS INT)`),
/// evaluated now (binder_pivot.cc); strings, int and bigint values only, else InvalidArgument.
Result<expr::Scalar> ConstantValue(const expr::Expression& e, const expr::EvalContext& eval);

/// PlaceCommandError for kDelete, kUpdate and kMerge.
Status PlaceRowChangeError(const Statement& statement, const BoundStatement& bound,
                           const Status& status);

// binder_subqueries.cc: expression rewrites for decorrelating subqueries.

/// `e` with each node for which `replace` returns non-null replaced by that (its children
/// are not visited); the other nodes are rebuilt only when a descendant changed.
expr::ExprPtr RewriteExpression(const expr::ExprPtr& e,
                                const std::function<expr::ExprPtr(const expr::ExprPtr&)>& replace);

/// `value` with every aggregate call fed only the rows where `matched` is true, for a
/// subquery's aggregate over an outer-row domain left-joined with its rows: a domain row
/// without matches gives the aggregate over no rows (count is 0, not null: the "count bug").
expr::ExprPtr AggregatesOverMatchedRows(const expr::ExprPtr& value, const expr::ExprPtr& matched);

/// The distinct (by text) column references in `e`, appended to `*out`.
void CollectColumnReferences(const expr::ExprPtr& e, std::vector<expr::ExprPtr>* out);

/// Whether `plan` outputs the columns of `domain` (a query bound over it that reads it).
/// The column references anywhere in `query` (its WITH queries, FROM items, clauses and the
/// subqueries in them), appended to `*out` once each (binder_subqueries.cc).
void CollectQueryColumnReferences(const Query& query, const ExpressionSources* sources,
                                  std::vector<expr::ExprPtr>* out);

bool CarriesDomain(const plan::LogicalPlan& plan, const OuterDomain& domain);

/// `e` with each column reference that does not resolve in `input` but names an outer column
/// of `domain` replaced by that domain column; `*reads` set when one was. Subquery placeholders
/// (`sources`) are left as they are.
expr::ExprPtr OuterReferencesToDomain(const expr::ExprPtr& e, const plan::LogicalPlanPtr& input,
                                      const OuterDomain& domain, const ExpressionSources* sources,
                                      bool* reads);

/// `plan` with the domain's columns renamed `<name>_<suffix>` (qualifiers kept), so that it can
/// be joined with another plan that carries them; `*equal` gets the null-safe equalities of the
/// renamed columns with the others.
Result<plan::LogicalPlanPtr> RenameDomainColumns(plan::LogicalPlanPtr plan,
                                                 const OuterDomain& domain, int suffix,
                                                 expr::ExprPtr* equal);

/// Whether output column `name` is a domain column (or a renamed one), which `*` skips.
bool IsDomainColumnName(const std::string& name);

}  // namespace tributary::sql::internal

// The SQL binder: a parsed statement (ast.h) into resolved logical plans (plan/plan_builder.h).
//
// Binding has no side effects: it reads table metadata and builds plans, and what changes a
// table is returned as a command for the caller to run. Queries become plans; DESCRIBE
// HISTORY/DETAIL, DESCRIBE TABLE and SHOW TABLES are plans of rows read from the table's log,
// its schema or the warehouse listing; so are DESCRIBE EXTENDED, DESCRIBE QUERY and SHOW
// COLUMNS / TBLPROPERTIES / CREATE TABLE (binder_utility.cc). EXPLAIN binds its query; SET,
// RESET, USE and SHOW VIEWS are bound to kinds the session runs, as they change or read it; so
// are CREATE and DROP SCHEMA, while SHOW SCHEMAS and SHOW TABLES [IN schema] are plans of the
// warehouse listing (binder_catalog.cc, binder_utility.cc). CREATE TABLE ... USING parquet |
// json | csv binds to the catalog entry of a data source table (plan/warehouse_catalog.h).
// Writes (CREATE TABLE, INSERT), DROP TABLE and the Delta maintenance commands (OPTIMIZE,
// VACUUM) are bound to their table's path and described for the caller, which owns the table
// writer and the session (the API's Session::Sql, which runs them eagerly, as Spark runs
// commands).
//
// Streams: `STREAM read_files(path, format => 'json', schema => 'a INT, ...', option => v)`
// binds to a file stream source (streaming::DefineSource, options under their Spark and
// Databricks names, `cloudFiles.` prefix optional) and `STREAM(name)` / `STREAM name` to a
// Delta stream source over the warehouse table (as DataStreamReader::Table).
// `STREAM read_kafka(bootstrapServers => 'host:9092', subscribe => 'events', ...)` binds to the
// Kafka source and `STREAM read_kinesis(streamName => ..., region => ...)` to the Kinesis
// source, named arguments as Databricks SQL spells them (binder_sources.cc); read_kafka
// without STREAM reads the records between startingOffsets and endingOffsets when it is bound
// (streaming::KafkaBatchScan). Only the query of
// CREATE [OR REFRESH] STREAMING TABLE may read streams; it binds to kCreateStreamingTable,
// which a pipeline (api/pipeline.h) runs. A streaming table without a query is the target of an
// AUTO CDC flow, whose FROM source is the other place a stream is read; both bind for
// pipelines only. A STREAM source anywhere else is an error.
//
// DELETE, UPDATE and MERGE bind to their table's path and their conditions and assignments,
// checked against the target's (and MERGE's source's) columns so that mistakes point at the
// SQL text; plan::DeleteFromTable, UpdateTable and MergeIntoTable run them. SET and INSERT
// columns are the target's; MERGE's conditions and values see both sides in MATCHED clauses,
// the source only in NOT MATCHED [BY TARGET] and the target only in NOT MATCHED BY SOURCE, as
// Delta resolves them. `table_changes('t', start[, end])` reads a table's change data feed
// (versions, or timestamps as strings).
//
// Binding follows Spark: FROM, then WHERE, then GROUP BY/aggregates (items that aggregate make a
// global aggregate), HAVING, the SELECT list, DISTINCT, then ORDER BY and LIMIT over the result.
// GROUP BY and ORDER BY take 1-based ordinals of the SELECT list, and GROUP BY takes its aliases.
// WHERE conjuncts `x IN (query)` and `[NOT] EXISTS (query)` (uncorrelated) become left semi/anti
// joins, as Spark rewrites them; other subqueries in expressions are NotImplemented. A
// resolution error points at the expression (or the column it names) in the SQL text.

#pragma once

#include <map>
#include <string>
#include <vector>

#include "plan/data_sources.h"
#include "plan/delta_dml.h"
#include "plan/logical_plan.h"
#include "plan/warehouse_catalog.h"
#include "sql/ast.h"

namespace tributary::sql {

enum class BoundKind : uint8_t {
  kQuery,        // plan: the result rows
  kCreateTable,  // create: the statement; schema: its columns; plan: AS query rows (or null)
  kInsert,       // insert: the statement; plan: the rows, in the table's columns and types
  kDropTable,    // drop: the statement
  kCreateStreamingTable,  // create: the statement; plan: the streaming query (append mode),
                          // null for a flow's target (schema: its declared columns, or null)
  kOptimize,              // optimize: the statement (plan::OptimizeTable runs it)
  kVacuum,                // vacuum: the statement (plan::VacuumTable runs it)
  kDelete,                // target_alias, condition (plan::DeleteFromTable runs it)
  kUpdate,                // target_alias, condition, assignments (plan::UpdateTable runs it)
  kMerge,                 // merge: the command, its source bound (plan::MergeIntoTable runs it)
  kAutoCdc,               // auto_cdc: the flow; plan: its source, a stream; path: the target's root
  kCreateView,            // create_view: the statement; plan: the view's rows (columns renamed)
  kDropView,              // drop_view: the statement
  kExplain,               // explain: the statement; plan: its query's plan
  kSetConfig,             // set_config: the statement (the session applies it)
  kResetConfig,           // reset_config: the statement
  kUse,                   // use: the statement
  kShowViews,             // show: the statement (the session lists its views)
  kCreateSchema,          // schema_command: CREATE SCHEMA (the session creates it)
  kDropSchema,            // schema_command: DROP SCHEMA (the session drops it)
};

/// A bound statement. `path` is the target table's root (warehouse/<name>, or the path of
/// delta.`path`) for the writing, dropping and maintenance kinds.
struct BoundStatement {
  BoundKind kind = BoundKind::kQuery;
  plan::LogicalPlanPtr plan;
  std::string path;
  /// kCreateTable: the declared columns; null when only the AS query gives them.
  columnar::SchemaPtr schema;
  CreateTable create;
  Insert insert;
  DropTable drop;
  CreateView create_view;
  DropView drop_view;
  Optimize optimize;
  Vacuum vacuum;
  Explain explain;
  SetConfig set_config;
  ResetConfig reset_config;
  Use use;
  ShowTableInfo show;
  /// kCreateSchema, kDropSchema; kUse: the schema to use, lowercased, in parts[0].
  SchemaCommand schema_command;
  /// kCreateTable of a data source table (USING parquet | json | csv): the catalog entry to
  /// write, schema complete (declared, the query's, or inferred from LOCATION's files) and
  /// partition columns last; provider "delta" for a Delta table.
  plan::TableEntry file_table;
  /// kDelete, kUpdate: what columns may be qualified with (the alias, else the table's name;
  /// empty for a path without alias), the WHERE condition (null: every row) and UPDATE's SET
  /// list, each column the target's as the schema spells it (a dotted path into a struct).
  std::string target_alias;
  expr::ExprPtr condition;
  std::vector<plan::DmlAssignment> assignments;
  /// kMerge: target_path is `path`; assignment columns as above (a column WITH SCHEMA
  /// EVOLUTION adds is spelled as written).
  plan::MergeSpec merge;
  /// kAutoCdc.
  AutoCdc auto_cdc;
  /// The write kinds: where the target table is named, for errors.
  SourcePosition target_position;
};

/// Binds `statement` against the tables of `catalog`. InvalidArgument/NotFound errors name the
/// position in the statement's text. `session_config` (spark.* settings) goes to the stream
/// sources a streaming table reads. `stream_checkpoint` is the checkpoint of the streaming
/// table being bound (a pipeline's), empty for none: each STREAM read_files without a
/// schemaLocation option then gets `<stream_checkpoint>/sources/<n>`, n the source's number in
/// the query (sources are numbered left to right as they are bound, as the engine numbers
/// them), where Auto Loader keeps its schema versions (`_schemas/`).
Result<BoundStatement> Bind(const Statement& statement, const plan::Catalog& catalog,
                            const std::map<std::string, std::string>& session_config = {},
                            const std::string& stream_checkpoint = "");

/// Spark's SHOW TABLES / SHOW VIEWS LIKE pattern: '*' matches any text, '|' separates
/// alternatives, matched ignoring case.
bool MatchesShowPattern(std::string_view pattern, std::string_view name);

/// `status` (not OK), the failure of running `bound`'s command (OPTIMIZE, VACUUM, DELETE,
/// UPDATE, MERGE), with its message placed in `statement`'s text as binding errors are: at the
/// condition or value whose column (or text) the message quotes, else at the table name. Code
/// and retryable bit kept; other kinds' failures are returned as they are.
Status PlaceCommandError(const Statement& statement, const BoundStatement& bound,
                         const Status& status);

/// The warehouse tables `statement` reads, by lowercased name (streams and batch reads, in
/// subqueries and WITH clauses too; WITH names themselves excluded): what a pipeline orders
/// its streaming tables by.
std::vector<std::string> ReferencedTables(const Statement& statement);

/// The plan of `query`, one of `statement`'s queries.
Result<plan::LogicalPlanPtr> BindQuery(const Statement& statement, const Query& query,
                                       const plan::Catalog& catalog);

}  // namespace tributary::sql

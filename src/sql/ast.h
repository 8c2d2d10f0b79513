// The syntax tree of a SQL statement, as the parser (parser.h) builds it.
//
// Scalar expressions are expr::Expression trees (expr/expression.h); everything around them
// (queries, relations, DDL) is plain data defined here. Names are kept as written (the binder
// matches them exactly, then ignoring case, as Spark); keywords and function names are not.
//
// Subqueries inside expressions are placeholder calls whose query is in
// ExpressionSources::subqueries, keyed by the call node:
//   x IN (SELECT ...)    kInSubqueryFunction(x)
//   EXISTS (SELECT ...)  kExistsFunction()
//   (SELECT ...)         kScalarSubqueryFunction()
// GROUP BY and ORDER BY items that are integer literals are ordinals (1-based), as Spark's
// groupByOrdinal/orderByOrdinal; the binder resolves them.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "expr/expression.h"
#include "sql/lexer.h"

namespace tributary::sql {

inline constexpr std::string_view kInSubqueryFunction = "in_subquery";
inline constexpr std::string_view kExistsFunction = "exists";
inline constexpr std::string_view kScalarSubqueryFunction = "scalar_subquery";

struct Query;
using QueryPtr = std::shared_ptr<const Query>;
struct Relation;
using RelationPtr = std::shared_ptr<const Relation>;

/// What the parser knows about expression nodes beyond the tree: where each came from, and
/// the query behind each subquery placeholder. Keyed by node address; the statement keeps the
/// nodes alive.
struct ExpressionSources {
  std::unordered_map<const expr::Expression*, SourcePosition> positions;
  std::unordered_map<const expr::Expression*, QueryPtr> subqueries;

  /// Where `node` starts in the statement's text; line 0 when unknown (built elsewhere).
  SourcePosition PositionOf(const expr::Expression& node) const;
};

/// A table named in SQL: by catalog name (`events`, `db.events`) or by path with a format
/// (delta.`/data/events`, parquet.`/x`, or a quoted path where a statement allows one).
struct TableName {
  /// Name parts as written; empty for a path.
  std::vector<std::string> parts;
  /// For a path: "delta", "parquet", "json" or "csv" (lowercase); empty for a name.
  std::string format;
  std::string path;
  SourcePosition position;

  bool IsPath() const { return parts.empty(); }
  /// SQL text: db.name or delta.`/path`.
  std::string ToString() const;
};

enum class JoinKind : uint8_t { kInner, kLeft, kRight, kFull, kCross, kLeftSemi, kLeftAnti };

/// SQL spelling: "INNER", "LEFT", ..., "LEFT SEMI".
std::string_view JoinKindName(JoinKind kind);

/// One argument of a table function: `name => value` or positional (empty name).
struct TableFunctionArgument {
  std::string name;
  expr::ExprPtr value;
};

/// kLateralView, kPivot and kUnpivot apply their clause (the relation's `lateral_view`, `pivot`
/// or `unpivot`) to the relation `left`, the FROM clause before them.
enum class RelationKind : uint8_t {
  kTable,
  kTableFunction,
  kSubquery,
  kJoin,
  kLateralView,
  kPivot,
  kUnpivot
};

/// `LATERAL VIEW [OUTER] generator(args) table [AS] column, ...` (Hive's clause, kept by Spark):
/// the rows of the FROM clause, each joined with the rows the generator makes from it.
struct LateralViewClause {
  SourcePosition position;
  bool outer = false;
  /// The generator call: explode, posexplode, inline, stack, json_tuple (and _outer forms).
  expr::ExprPtr generator;
  /// The qualifier of the generated columns.
  std::string table_alias;
  /// Names of the generated columns (empty: the generator's own).
  std::vector<std::string> column_aliases;
};

/// One aggregate of PIVOT: `expr [[AS] alias]`.
struct PivotAggregate {
  expr::ExprPtr expr;
  std::string alias;
};

/// One value of PIVOT's IN list: a constant (a tuple `(v1, v2)`, parsed as struct(v1, v2), for
/// several pivot columns) and an optional alias.
struct PivotValue {
  expr::ExprPtr value;
  std::string alias;
};

/// `PIVOT (agg [AS a], ... FOR column IN (value [AS alias], ...))` or `FOR (c1, c2) IN ((v1, v2)
/// [AS alias], ...)`: one row per group of the columns PIVOT does not read, one column per
/// value (and aggregate).
struct PivotClause {
  SourcePosition position;
  std::vector<PivotAggregate> aggregates;
  /// The pivot columns as written (several for the tuple form).
  std::vector<expr::ExprPtr> columns;
  bool tuple = false;
  std::vector<PivotValue> values;
};

/// `UNPIVOT [INCLUDE|EXCLUDE NULLS] (value FOR name IN (column [AS alias], ...))` or the
/// multi-value form `((v1, v2) FOR name IN ((c1, c2) [AS alias], ...))`.
struct UnpivotClause {
  SourcePosition position;
  bool include_nulls = false;
  /// The value column names (one for the single-value form).
  std::vector<std::string> value_columns;
  std::string name_column;
  /// The column sets: one column each in the single-value form.
  struct ColumnSet {
    std::vector<expr::ExprPtr> columns;
    std::string alias;
    SourcePosition position;
  };
  std::vector<ColumnSet> sets;
};

/// `TABLESAMPLE (n ROWS | x PERCENT | BUCKET x OUT OF y) [REPEATABLE (seed)]` after a FROM item.
struct TableSampleClause {
  enum class Method : uint8_t { kRows, kPercent, kBucket };
  Method method = Method::kRows;
  SourcePosition position;
  /// kRows: the row count expression.
  expr::ExprPtr rows;
  /// kPercent and kBucket: the fraction of rows to keep, in [0, 1].
  double fraction = 0;
  std::optional<int64_t> seed;
  /// As written, for EXPLAIN and ToString ("10 PERCENT", "BUCKET 1 OUT OF 4").
  std::string text;
};

/// `WATERMARK event_time [AS name] DELAY OF INTERVAL ...` after a FROM item (Databricks' clause,
/// Spark's withWatermark): which timestamp is the event time and how late rows may be.
struct WatermarkClause {
  SourcePosition position;
  /// A column of the relation, or an expression the clause adds as column `name`.
  expr::ExprPtr event_time;
  /// `AS name`; empty when `event_time` is a column reference.
  std::string name;
  /// The delay: a day-time interval literal.
  expr::ExprPtr delay;
  /// The delay as written ("INTERVAL 10 MINUTES"), for messages.
  std::string delay_text;
};

/// A FROM item. Immutable once parsed.
struct Relation {
  RelationKind kind = RelationKind::kTable;
  SourcePosition position;
  /// `AS t(a, b)`: new names for the relation's columns, in order (empty: keep them).
  std::vector<std::string> column_aliases;

  /// kTable.
  TableName table;
  /// kTableFunction: lowercase name (read_files) and arguments in order.
  std::string function_name;
  std::vector<TableFunctionArgument> arguments;
  /// kSubquery.
  QueryPtr subquery;
  /// kJoin: `left` JOIN `right` ON `condition` | USING (`using_columns`); neither for CROSS.
  JoinKind join_kind = JoinKind::kInner;
  RelationPtr left;
  RelationPtr right;
  expr::ExprPtr condition;
  std::vector<std::string> using_columns;
  /// `left NATURAL JOIN right`: USING the column names both sides have (no condition).
  bool natural = false;

  /// kTable and kTableFunction: `STREAM name`, `STREAM(name)` or `STREAM read_files(...)`.
  bool stream = false;
  /// kTable: `VERSION AS OF n` / `TIMESTAMP AS OF <expr>` (at most one is set).
  std::optional<int64_t> version_as_of;
  expr::ExprPtr timestamp_as_of;
  /// kTable, kTableFunction and kSubquery: the WATERMARK clause, before the alias.
  std::optional<WatermarkClause> watermark;
  /// kSubquery: `LATERAL (query)`, whose query may read the columns of the FROM items joined
  /// before it.
  bool lateral = false;
  /// kTable, kTableFunction and kSubquery: TABLESAMPLE, before the WATERMARK clause and alias.
  std::optional<TableSampleClause> sample;
  /// kLateralView, kPivot, kUnpivot: the clause applied to `left`.
  std::shared_ptr<const LateralViewClause> lateral_view;
  std::shared_ptr<const PivotClause> pivot;
  std::shared_ptr<const UnpivotClause> unpivot;
  /// `[AS] alias`; empty when none.
  std::string alias;
};

/// One SELECT list entry: `*`, `t.*`, or an expression with an optional alias.
struct SelectItem {
  /// Null for a star.
  expr::ExprPtr expr;
  std::string alias;
  /// For a star: the qualifier parts (`t` of `t.*`; empty for `*`).
  std::vector<std::string> star_qualifier;
  SourcePosition position;
  /// `generator(...) AS (a, b)`: the names of the generator's columns (Spark's MultiAlias);
  /// empty otherwise.
  std::vector<std::string> aliases;

  bool IsStar() const { return expr == nullptr; }
};

struct OrderItem {
  expr::ExprPtr expr;
  bool ascending = true;
  /// Spark's default: NULLS FIRST for ascending, NULLS LAST for descending.
  bool nulls_first = true;
};

struct CommonTableExpression {
  std::string name;
  /// `WITH name(c1, c2) AS (...)`: names for the query's columns; empty when not given.
  std::vector<std::string> columns;
  QueryPtr query;
  SourcePosition position;
};

enum class QueryKind : uint8_t { kSelect, kUnion, kValues };

/// Which set operation a kUnion query is.
enum class SetOperator : uint8_t { kUnion, kIntersect, kExcept };

/// A query: a SELECT block, a UNION of two queries or a VALUES list, with the ORDER BY and
/// LIMIT that apply to its result and the WITH clause that scopes over it.
struct Query {
  QueryKind kind = QueryKind::kSelect;
  SourcePosition position;
  std::vector<CommonTableExpression> with;

  /// kSelect.
  bool distinct = false;
  std::vector<SelectItem> select;
  /// Null for SELECT without FROM. `FROM a, b` is a cross join.
  RelationPtr from;
  expr::ExprPtr where;
  std::vector<expr::ExprPtr> group_by;
  /// GROUP BY ALL: `group_by` holds one column `ALL`, which the binder reads as that column
  /// when the input has one (as Spark) and else as every SELECT item without an aggregate.
  bool group_by_all = false;
  /// GROUPING SETS, ROLLUP, CUBE (and WITH ROLLUP|CUBE): each set as indices into `group_by`,
  /// which then lists each grouping expression once; empty for a plain GROUP BY.
  std::vector<std::vector<size_t>> grouping_sets;
  expr::ExprPtr having;
  /// QUALIFY: a condition on the row after window functions are computed (may name SELECT
  /// aliases); null when absent.
  expr::ExprPtr qualify;

  /// kUnion: `left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right` (DISTINCT by default).
  SetOperator set_operator = SetOperator::kUnion;
  bool union_all = false;
  QueryPtr left;
  QueryPtr right;

  /// kValues: rows of expressions (`VALUES (1, 'a'), (2, 'b')`).
  std::vector<std::vector<expr::ExprPtr>> rows;

  std::vector<OrderItem> order_by;
  /// ORDER BY ALL: `order_by` holds one column `ALL` with the direction, which the binder reads
  /// as that column when there is one (as Spark) and else as every output column in order.
  bool order_by_all = false;
  /// Null when there is no LIMIT (or LIMIT ALL).
  expr::ExprPtr limit;
  /// `OFFSET n`: rows skipped before LIMIT counts (Spark 3.4+); null when there is none.
  expr::ExprPtr offset;
};

/// `name type [NOT NULL] [COMMENT 'text']` of CREATE TABLE.
struct ColumnDefinition {
  std::string name;
  columnar::DataTypePtr type;
  bool nullable = true;
  std::string comment;
  SourcePosition position;
};

/// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] and CREATE [OR REFRESH] STREAMING TABLE.
struct CreateTable {
  TableName table;
  bool or_replace = false;
  bool if_not_exists = false;
  /// CREATE [OR REFRESH] STREAMING TABLE: the query is a stream (issues 7 and 8).
  bool streaming = false;
  bool or_refresh = false;
  std::vector<ColumnDefinition> columns;
  /// USING <provider>, lowercase; empty when omitted (Delta is the default).
  std::string provider;
  std::vector<std::string> partition_by;
  /// TBLPROPERTIES in order; keys and values as text ('k' = 'v', delta.x = true).
  std::vector<std::pair<std::string, std::string>> properties;
  /// OPTIONS (...) of a data source table, in order, as TBLPROPERTIES.
  std::vector<std::pair<std::string, std::string>> options;
  std::string location;
  std::string comment;
  /// AS query; null when none.
  QueryPtr query;
};

/// INSERT INTO|OVERWRITE [TABLE] name [(columns)] query; VALUES is a kValues query.
struct Insert {
  TableName table;
  bool overwrite = false;
  /// TRUNCATE TABLE name: an overwrite with no rows that returns no metrics row (as Spark).
  bool truncate = false;
  std::vector<std::string> columns;
  QueryPtr query;
};

enum class DescribeKind : uint8_t { kTable, kHistory, kDetail };

/// DESCRIBE [TABLE|HISTORY|DETAIL] name; HISTORY takes an optional LIMIT n. TABLE takes
/// EXTENDED or FORMATTED (the same output in Spark) before the name. DESCRIBE [QUERY] query.
struct Describe {
  DescribeKind kind = DescribeKind::kTable;
  TableName table;
  std::optional<int64_t> limit;
  bool extended = false;
  /// DESCRIBE [QUERY] query: the query whose result columns are described (no table then).
  QueryPtr query;
};

enum class ExplainMode : uint8_t { kSimple, kExtended, kFormatted, kCost };

/// EXPLAIN [EXTENDED|FORMATTED|COST] query.
struct Explain {
  ExplainMode mode = ExplainMode::kSimple;
  QueryPtr query;
};

/// SET (list), SET key (show one), SET key = value; SET TIME ZONE 'zone' | LOCAL sets
/// spark.sql.session.timeZone. Key and value are the source text, trimmed, as Spark reads them.
struct SetConfig {
  std::optional<std::string> key;
  std::optional<std::string> value;
};

/// RESET [key]: every setting made in the session, or one.
struct ResetConfig {
  std::optional<std::string> key;
};

/// USE [DATABASE|SCHEMA|NAMESPACE] name.
struct Use {
  std::vector<std::string> parts;
  SourcePosition position;
};

enum class ShowKind : uint8_t { kColumns, kTblProperties, kCreateTable, kViews };

/// SHOW COLUMNS (IN|FROM) table [(IN|FROM) database], SHOW TBLPROPERTIES table [(key)],
/// SHOW CREATE TABLE table [AS SERDE], SHOW VIEWS [(IN|FROM) database] [[LIKE] 'pattern'].
struct ShowTableInfo {
  ShowKind kind = ShowKind::kColumns;
  /// Not set for kViews.
  TableName table;
  std::string database;
  /// kTblProperties: the one key asked for; empty for all.
  std::string key;
  /// kViews.
  std::string pattern;
};

/// SHOW TABLES [(IN|FROM) database] [[LIKE] 'pattern'].
struct ShowTables {
  std::string database;
  std::string pattern;
};

enum class SchemaCommandKind : uint8_t { kCreate, kDrop, kShow };

/// CREATE (SCHEMA | DATABASE | NAMESPACE) [IF NOT EXISTS] name [COMMENT 'text']
/// [LOCATION 'path'] [WITH (DBPROPERTIES | PROPERTIES) (...)];
/// DROP (SCHEMA | DATABASE | NAMESPACE) [IF EXISTS] name [RESTRICT | CASCADE];
/// SHOW (SCHEMAS | DATABASES | NAMESPACES) [[LIKE] 'pattern'].
struct SchemaCommand {
  SchemaCommandKind kind = SchemaCommandKind::kCreate;
  /// kCreate, kDrop: the name as written (`spark_catalog.s` or `s`).
  std::vector<std::string> parts;
  bool if_not_exists = false;
  bool if_exists = false;
  bool cascade = false;
  /// kCreate: LOCATION, which a warehouse schema cannot take (empty when absent).
  std::string location;
  /// kShow.
  std::string pattern;
  SourcePosition position;
};

/// OPTIMIZE name [WHERE predicate].
struct Optimize {
  TableName table;
  expr::ExprPtr where;
};

/// VACUUM name [RETAIN n HOURS] [DRY RUN].
struct Vacuum {
  TableName table;
  std::optional<double> retain_hours;
  bool dry_run = false;
};

/// DROP TABLE [IF EXISTS] name.
struct DropTable {
  TableName table;
  bool if_exists = false;
};

/// CREATE [OR REPLACE] [GLOBAL] TEMP|TEMPORARY VIEW [IF NOT EXISTS] name [(column, ...)] AS
/// query. Views live in the session (no metastore keeps them), so CREATE VIEW without
/// TEMPORARY makes one too.
struct CreateView {
  std::string name;
  /// New names for the query's columns, in order (empty: the query's names).
  std::vector<std::string> columns;
  QueryPtr query;
  bool or_replace = false;
  bool if_not_exists = false;
  SourcePosition position;
};

/// DROP VIEW [IF EXISTS] name.
struct DropView {
  std::string name;
  bool if_exists = false;
  SourcePosition position;
};

/// `column = value` of UPDATE SET and of MERGE's UPDATE SET / INSERT (column) VALUES (value).
/// `column` is the target column as written: a name or a dotted path into a struct.
struct Assignment {
  /// The parts joined by '.', each as QuoteIdentifier prints it (expr::Col reads this form).
  std::string column;
  expr::ExprPtr value;
  SourcePosition position;
};

/// DELETE FROM name [[AS] alias] [WHERE condition].
struct Delete {
  TableName table;
  std::string alias;
  /// Null: every row.
  expr::ExprPtr where;
};

/// UPDATE name [[AS] alias] SET column = value, ... [WHERE condition].
struct Update {
  TableName table;
  std::string alias;
  std::vector<Assignment> assignments;
  expr::ExprPtr where;
};

/// WHEN MATCHED | WHEN NOT MATCHED [BY TARGET] | WHEN NOT MATCHED BY SOURCE.
enum class MergeMatch : uint8_t { kMatched, kNotMatchedByTarget, kNotMatchedBySource };
/// UPDATE SET ... | UPDATE SET * | DELETE | INSERT (...) VALUES (...) | INSERT *.
enum class MergeAction : uint8_t { kUpdate, kUpdateAll, kDelete, kInsert, kInsertAll };

/// One WHEN clause of MERGE: `WHEN <match> [AND condition] THEN <action>`.
struct MergeClause {
  MergeMatch match = MergeMatch::kMatched;
  /// Null when there is no AND condition.
  expr::ExprPtr condition;
  MergeAction action = MergeAction::kUpdate;
  /// kUpdate: the SET list; kInsert: (columns) VALUES (values) paired up.
  std::vector<Assignment> assignments;
  SourcePosition position;
};

/// MERGE [WITH SCHEMA EVOLUTION] INTO target [[AS] alias] USING source [[AS] alias] ON
/// condition WHEN ... (Delta's MERGE INTO). The source is a table, a subquery or a table
/// function; its alias is the relation's.
struct Merge {
  TableName target;
  std::string target_alias;
  RelationPtr source;
  expr::ExprPtr on;
  std::vector<MergeClause> clauses;
  bool with_schema_evolution = false;
};

/// Databricks' CDC flow: `[CREATE FLOW name AS] AUTO CDC INTO target FROM STREAM(source)
/// KEYS (k, ...) [IGNORE NULL UPDATES] [APPLY AS DELETE WHEN cond] [APPLY AS TRUNCATE WHEN
/// cond] SEQUENCE BY expr [COLUMNS a, b | COLUMNS * EXCEPT (a, b)] [STORED AS SCD TYPE 1|2]
/// [TRACK HISTORY ON a, b | TRACK HISTORY ON * EXCEPT (a, b)]`, also spelled `APPLY CHANGES
/// INTO`. The target is a streaming table of the same pipeline, declared without a query.
struct AutoCdc {
  /// CREATE FLOW name AS; empty when omitted.
  std::string flow_name;
  TableName target;
  /// The FROM relation: a STREAM table (or STREAM read_files(...)).
  RelationPtr source;
  std::vector<std::string> keys;
  bool ignore_null_updates = false;
  /// Null when absent.
  expr::ExprPtr apply_as_delete;
  expr::ExprPtr apply_as_truncate;
  expr::ExprPtr sequence_by;
  /// COLUMNS: the listed columns, or every column but them with `columns_except`; empty and
  /// not except: every column.
  std::vector<std::string> columns;
  bool columns_except = false;
  /// 1 or 2.
  int scd_type = 1;
  /// TRACK HISTORY ON (SCD type 2): as `columns`.
  std::vector<std::string> track_history;
  bool track_history_except = false;
  /// Where the KEYS, COLUMNS and TRACK HISTORY clauses are, for errors about their names.
  SourcePosition keys_position;
  SourcePosition columns_position;
  SourcePosition track_history_position;
};

using StatementBody =
    std::variant<QueryPtr, CreateTable, Insert, Describe, ShowTables, Optimize, Vacuum, DropTable,
                 Delete, Update, Merge, AutoCdc, CreateView, DropView, Explain, SetConfig,
                 ResetConfig, Use, ShowTableInfo, SchemaCommand>;

/// One parsed statement with what error messages need: the text it came from and where each
/// expression node is in it.
struct Statement {
  StatementBody body;
  SourcePosition position;
  /// The whole script the statement was parsed from (positions are relative to it).
  std::shared_ptr<const std::string> source;
  std::shared_ptr<const ExpressionSources> sources;

  /// An InvalidArgument for `what` at `position` with the source line and a caret, for
  /// errors found after parsing (unknown column, type mismatch).
  Status ErrorAt(const SourcePosition& at, std::string_view what) const;
  /// As above at `node`'s position (the statement's start when it is unknown).
  Status ErrorAt(const expr::Expression& node, std::string_view what) const;
};

/// `name` as SQL must spell it: as is when it is a plain word ([A-Za-z0-9_]+, not reserved),
/// else back-quoted with `` for a back-quote. expr::Col reads this form too.
std::string QuoteIdentifier(std::string_view name);

/// SQL text of a query or statement in one canonical form (keywords upper case, expressions
/// as Expression::ToString prints them, subqueries in expressions as their placeholder calls):
/// what the tests compare, and EXPLAIN's input echo.
std::string ToString(const Query& query);
std::string ToString(const Relation& relation);
std::string ToString(const Statement& statement);

}  // namespace tributary::sql

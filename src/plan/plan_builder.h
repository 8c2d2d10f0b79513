// Building resolved logical plans: the analyzer shared by the DataFrame API and the SQL binder.
// Each function resolves user expressions (names, qualifiers, types) against its input at
// once, so a bad column name fails at the call that used it, with the columns that exist.
//
// Column references: `Col("name")`, `Col("t.name")` (qualified by a table name or alias),
// `Col("s.field")` (a struct field), `Col("*")` and `Col("t.*")` (all columns, in Select).
// Names match ignoring case, as Spark's default; a name that matches several columns is an
// ambiguity error naming their qualifiers.

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/logical_plan.h"

namespace tributary::plan {

/// An output expression with an optional alias ("" = derived from the expression as Spark
/// does: a column's own name, else the expression's SQL text).
struct NamedExpr {
  ExprPtr expr;
  std::string alias;
};

/// A sort order item. `nulls_first` defaults to Spark's: first for ascending, last for
/// descending.
struct SortItem {
  ExprPtr expr;
  bool ascending = true;
  std::optional<bool> nulls_first;
};

/// The name Spark gives an unaliased output expression: `a` for a column, `b` for `a.b`,
/// `sum(x)` for a call, `(a + 1)` for an operator.
std::string DerivedName(const expr::Expression& expr);

/// `expr` resolved against the output columns of `input` (aggregate calls and generators are
/// errors here).
Result<BoundExprPtr> Resolve(const expr::Expression& expr, const LogicalPlan& input);
/// An unbound reference to the column named exactly `name` (no path parsing: dots and
/// backticks in it are part of the name).
ExprPtr ExactColumn(const std::string& name);
/// A reference to output column `index` of `plan`, already bound.
BoundExprPtr ColumnRef(const LogicalPlan& plan, int index);
/// The input's schema with every field renamed `name#index`: unique names that Bind resolves
/// without ambiguity (and that read like Spark's attribute ids in EXPLAIN).
SchemaPtr ResolutionSchema(const LogicalPlan& plan);

/// A scan of `source`, every column, qualified by `qualifier` (a table name; may be "").
LogicalPlanPtr Scan(ScanSource source, const std::string& qualifier, bool streaming = false);

Result<LogicalPlanPtr> Filter(LogicalPlanPtr input, const ExprPtr& condition);

/// SELECT list: expressions with aliases; `*` and `t.*` expand. When an item contains an
/// aggregate call, the whole list is a global aggregate (one row), as SQL.
Result<LogicalPlanPtr> Select(LogicalPlanPtr input, const std::vector<NamedExpr>& items);

/// GROUP BY `keys`, output `items` (each either a grouping expression, an aggregate, or built
/// from them), then HAVING `having` (may be null) over the same vocabulary. `grouping_sets`
/// (GROUPING SETS, ROLLUP, CUBE): each set as indices into `keys`; the groups of every set,
/// with the keys a set leaves out null, and grouping(key) / grouping_id() available to `items`
/// and `having` as Spark's. Default: empty (one plain grouping by all keys).
Result<LogicalPlanPtr> Aggregate(LogicalPlanPtr input, const std::vector<ExprPtr>& keys,
                                 const std::vector<NamedExpr>& items, const ExprPtr& having,
                                 const std::vector<std::vector<size_t>>& grouping_sets = {});

/// `left JOIN right ON condition` (condition null: a cross join; required for the others
/// except semi/anti which also accept null for "any row").
Result<LogicalPlanPtr> Join(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
                            const ExprPtr& condition);
/// `left JOIN right USING (columns)`: equality on each named column; output is the USING
/// columns (once; for FULL joins their coalesce), then the other left and right columns.
/// `keep_side_keys` (SQL): each side's key columns follow, reachable only qualified by that
/// side (qualified_access.h), so `left.k`, `right.k`, `left.*` and `right.*` resolve as in
/// Spark. No `columns` (a NATURAL join without common names): every pair of rows matches.
/// Default: false.
Result<LogicalPlanPtr> JoinUsing(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
                                 const std::vector<std::string>& columns,
                                 bool keep_side_keys = false);
/// The USING columns of `left NATURAL JOIN right`: the names of `left`'s columns that `right`
/// also has (ignoring case), in `left`'s order, each once.
std::vector<std::string> NaturalJoinColumns(const LogicalPlan& left, const LogicalPlan& right);

Result<LogicalPlanPtr> OrderBy(LogicalPlanPtr input, const std::vector<SortItem>& items);
Result<LogicalPlanPtr> Limit(LogicalPlanPtr input, int64_t limit, int64_t offset = 0);
/// UNION ALL (`distinct` false) or UNION: by position; column types widen to their common
/// type; names come from the first input.
Result<LogicalPlanPtr> Union(std::vector<LogicalPlanPtr> inputs, bool distinct);
/// INTERSECT or EXCEPT (MINUS), DISTINCT (`all` false) or ALL, as Spark: rows match by every
/// column with NULLs equal; ALL keeps each row min(left, right) times (INTERSECT) or left -
/// right times (EXCEPT), DISTINCT once. Columns line up by position and widen as UNION's; names
/// come from `left`.
enum class SetOperationKind : uint8_t { kIntersect, kExcept };
Result<LogicalPlanPtr> SetOperation(LogicalPlanPtr left, LogicalPlanPtr right,
                                    SetOperationKind kind, bool all);
Result<LogicalPlanPtr> Distinct(LogicalPlanPtr input);
/// dropDuplicates(names) (`within_watermark`: dropDuplicatesWithinWatermark): a
/// DeduplicateNode keyed by every column named (case-insensitive, every column of that name
/// after a join, as Spark's resolver); no names: all columns. InvalidArgument naming the
/// columns for an unknown name, as Spark's "Cannot resolve column name".
Result<LogicalPlanPtr> DropDuplicates(LogicalPlanPtr input, const std::vector<std::string>& names,
                                      bool within_watermark);
/// The input's columns plus `name` = `expr` (replacing a column of that name, as Spark).
Result<LogicalPlanPtr> WithColumn(LogicalPlanPtr input, const std::string& name,
                                  const ExprPtr& expr);
/// The input's columns, then the columns the generator `call` makes for each input row
/// (explode, posexplode, inline, stack, json_tuple and their _outer forms; generator_planning.cc)
/// named `names` (empty: the generator's own: col, pos, key/value, the struct's fields, col0..,
/// c0..) and qualified by `qualifier`: SELECT's generator and LATERAL VIEW. `outer` keeps a row
/// whose collection is null or empty, with nulls (LATERAL VIEW OUTER). Errors as Spark's:
/// UDTF_ALIAS_NUMBER_MISMATCH, STACK_COLUMN_DIFF_TYPES, UNSUPPORTED_GENERATOR.NOT_GENERATOR.
Result<LogicalPlanPtr> Generate(LogicalPlanPtr input, const expr::Expression& call, bool outer,
                                const std::vector<std::string>& names,
                                const std::string& qualifier);
/// The input without the named columns (names that do not exist are ignored, as Spark).
Result<LogicalPlanPtr> Drop(LogicalPlanPtr input, const std::vector<std::string>& names);
/// The input's columns renamed to `names` (same count).
Result<LogicalPlanPtr> Rename(LogicalPlanPtr input, const std::vector<std::string>& names);

/// withWatermark(event_time, delay): a WatermarkNode over `input` marking the top-level column
/// `event_time` (optionally qualified), which must be a timestamp or a struct whose `end` field
/// is one (a window), with `delay_micros` >= 0. Errors as Spark's: the column's resolution
/// error, EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE, and "delay threshold (...) should not be
/// negative." (`delay_text` is the delay as the user wrote it, for that message).
Result<LogicalPlanPtr> Watermark(LogicalPlanPtr input, const std::string& event_time,
                                 int64_t delay_micros, std::string_view delay_text);

}  // namespace tributary::plan

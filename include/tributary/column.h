// Column expressions for the DataFrame API, built as in Spark:
//   df.Filter(Col("status") == Lit("active") && Col("latency_ms") > 100)
//   df.Select({Col("user_id"), (Col("bytes") / 1024).Alias("kb")})
//   df.GroupBy({Col("country")}).Agg({Count(), Sum(Col("bytes")).Alias("total")})
// A Column only describes a computation; names are resolved (case-insensitively, as Spark)
// when it is used on a DataFrame, and errors surface there.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tributary {

class WindowSpec;

/// An unresolved expression, with an optional output alias and sort direction.
///
/// Thread-safety: immutable value type.
class Column {
 public:
  /// Output name in Select/Agg.
  Column Alias(std::string name) const;
  Column As(std::string name) const { return Alias(std::move(name)); }
  /// CAST(this AS type) with a Spark SQL type name: "bigint", "decimal(10,2)",
  /// "array<string>", "struct<a:int>". A bad type name fails where the column is used.
  Column Cast(std::string_view type) const;
  Column TryCast(std::string_view type) const;
  Column IsNull() const;
  Column IsNotNull() const;
  Column IsIn(const std::vector<Column>& values) const;
  Column Between(const Column& low, const Column& high) const;
  Column Like(std::string_view pattern) const;
  Column RLike(std::string_view regex) const;
  /// Struct field `name`.
  Column GetField(std::string_view name) const;
  /// Array element (0-based) or map value: arr[0], m["k"].
  Column operator[](const Column& key) const;
  /// Sort orders: ascending puts nulls first, descending last (Spark's defaults).
  Column Asc() const;
  Column AscNullsLast() const;
  Column Desc() const;
  Column DescNullsFirst() const;

  /// This ranking, offset or aggregate function call computed over `window` (Spark's
  /// Column.over): Sum(Col("bytes")).Over(WindowSpec().PartitionBy({Col("user")})).
  /// Without a window: over all rows as one partition.
  Column Over(const WindowSpec& window) const;
  Column Over() const;

  /// SQL-like text of the expression.
  std::string ToString() const;

  /// Why this column cannot be built (a bad type name in Cast), or "" when it can; a
  /// DataFrame given such a column carries this error.
  const std::string& Error() const;

 private:
  friend class ApiAccess;
  /// The expression, its alias, sort direction and error; shared by the copies of a column
  /// and never changed, so copying a Column copies one pointer.
  struct Impl;

  explicit Column(std::shared_ptr<const Impl> impl);
  Column WithError(std::string error) const;
  Column WithOrder(bool ascending, bool nulls_first) const;
  Column CastTo(std::string_view type, bool try_cast) const;

  std::shared_ptr<const Impl> impl_;
};

/// A column by name: "a", "t.a" (qualified), "s.field", "`name.with.dots`", "*".
Column Col(std::string_view name);
/// Literals.
Column Lit(bool value);
Column Lit(int32_t value);
Column Lit(int64_t value);
Column Lit(double value);
Column Lit(std::string_view value);
Column Lit(const char* value);
/// NULL (of the null type; it takes the type its context needs).
Column LitNull();
/// A SQL expression (Spark's functions.expr): Expr("click_time BETWEEN impression_time AND
/// impression_time + INTERVAL 10 MINUTES"). Text that does not parse fails where the column is
/// used, with the parser's message.
Column Expr(std::string_view sql);

/// Operators as SQL: arithmetic is ANSI (overflow and division by zero are errors), AND/OR/NOT
/// three-valued.
Column operator+(const Column& a, const Column& b);
Column operator-(const Column& a, const Column& b);
Column operator*(const Column& a, const Column& b);
Column operator/(const Column& a, const Column& b);
Column operator%(const Column& a, const Column& b);
Column operator-(const Column& a);
Column operator==(const Column& a, const Column& b);
Column operator!=(const Column& a, const Column& b);
Column operator<(const Column& a, const Column& b);
Column operator<=(const Column& a, const Column& b);
Column operator>(const Column& a, const Column& b);
Column operator>=(const Column& a, const Column& b);
Column operator&&(const Column& a, const Column& b);
Column operator||(const Column& a, const Column& b);
Column operator!(const Column& a);
/// Null-safe equality (SQL <=>).
Column EqNullSafe(const Column& a, const Column& b);

/// Any SQL function by name, as Spark's call_function: CallFunction("lower", {Col("s")}).
Column CallFunction(std::string_view name, const std::vector<Column>& arguments);
/// CASE WHEN: When(cond, value).When(...).Otherwise(value) as Spark's when/otherwise.
class CaseBuilder;
CaseBuilder When(const Column& condition, const Column& value);
class CaseBuilder {
 public:
  CaseBuilder When(const Column& condition, const Column& value) const;
  Column Otherwise(const Column& value) const;
  /// Without ELSE: null where no branch matches.
  Column End() const;

 private:
  friend CaseBuilder tributary::When(const Column&, const Column&);
  Column Build(const Column* otherwise) const;
  std::vector<std::pair<Column, Column>> branches_;
};

/// Aggregate functions (Spark's names).
Column Count(const Column& column);
/// count(*).
Column Count();
Column CountDistinct(const std::vector<Column>& columns);
Column Sum(const Column& column);
Column Avg(const Column& column);
Column Min(const Column& column);
Column Max(const Column& column);
Column First(const Column& column, bool ignore_nulls = false);
Column Last(const Column& column, bool ignore_nulls = false);
Column CollectList(const Column& column);
Column CollectSet(const Column& column);
Column ApproxCountDistinct(const Column& column);

/// Frequent scalar functions; everything else through CallFunction.
Column Lower(const Column& column);
Column Upper(const Column& column);
Column Length(const Column& column);
Column Coalesce(const std::vector<Column>& columns);
Column ToDate(const Column& column);
Column ToTimestamp(const Column& column);

/// Spark's window(): the event-time window of `time_column` (a timestamp) as a struct<start,
/// end>. Durations are interval strings ("1 minute", "1 hour 30 seconds"). Tumbling windows
/// (no slide) put each row in one window; sliding ones (slide shorter than the duration) in
/// every window that contains its time, one row each, so use it in Select, GroupBy or
/// WithColumn. Windows start at `start_time` plus multiples of the slide; rows with a null time
/// are left out, as Spark. Group by it, then read Col("window.start").
Column Window(const Column& time_column, std::string_view window_duration);
Column Window(const Column& time_column, std::string_view window_duration,
              std::string_view slide_duration, std::string_view start_time = "0 seconds");

/// Spark's session_window(): each row's session starts at `time_column` and lasts
/// `gap_duration` (an interval string, "5 minutes"); grouped by it (with other keys), the
/// sessions of a key merge while the next starts at or before the current one's end, and the
/// group's key is the merged struct<start, end>, read as Col("session_window.start"). The gap
/// may be a column (an interval string or a day-time interval per row); rows with a null
/// time or a gap that is null or not positive are left out. A stream needs a key besides it.
Column SessionWindow(const Column& time_column, std::string_view gap_duration);
Column SessionWindow(const Column& time_column, const Column& gap_duration);

/// Spark's WindowSpec (Window.partitionBy(...).orderBy(...).rowsBetween(...)):
///   WindowSpec().PartitionBy({Col("dept")}).OrderBy({Col("salary").Desc()})
/// Without a frame, Spark's default applies: the whole partition without OrderBy, else RANGE
/// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
///
/// Thread-safety: immutable value type.
class WindowSpec {
 public:
  /// Frame boundaries, as Spark's Window.unboundedPreceding, currentRow, unboundedFollowing.
  static constexpr int64_t kUnboundedPreceding = INT64_MIN;
  static constexpr int64_t kCurrentRow = 0;
  static constexpr int64_t kUnboundedFollowing = INT64_MAX;

  WindowSpec PartitionBy(std::vector<Column> columns) const;
  /// Sort orders as in DataFrame::OrderBy (Asc(), Desc(), ...).
  WindowSpec OrderBy(std::vector<Column> columns) const;
  /// A frame of rows relative to the current one: negative before it, positive after.
  WindowSpec RowsBetween(int64_t start, int64_t end) const;
  /// A frame of rows whose (single) ORDER BY key is within [key + start, key + end].
  WindowSpec RangeBetween(int64_t start, int64_t end) const;

 private:
  friend class Column;
  std::vector<Column> partition_by_;
  std::vector<Column> order_by_;
  bool has_frame_ = false;
  bool rows_ = true;
  int64_t start_ = 0;
  int64_t end_ = 0;
};

/// Ranking and offset window functions (use with Over): row_number, rank, dense_rank,
/// percent_rank, cume_dist, ntile; lag/lead read the row `offset` rows before/after the
/// current one in its partition, or `default_value` (else null) past its ends.
Column RowNumber();
Column Rank();
Column DenseRank();
Column PercentRank();
Column CumeDist();
Column Ntile(int32_t buckets);
Column Lag(const Column& column, int32_t offset = 1);
Column Lag(const Column& column, int32_t offset, const Column& default_value);
Column Lead(const Column& column, int32_t offset = 1);
Column Lead(const Column& column, int32_t offset, const Column& default_value);

}  // namespace tributary

// DataFrame: a lazily evaluated query, shaped like Spark's. Transformations (Select, Filter,
// Join, GroupBy...) build a resolved plan and return a new DataFrame; actions (Collect, Count,
// Show, Write...Save) optimize and run it.
//
// Errors: a transformation that cannot be resolved (unknown column, type mismatch) does not
// throw; the DataFrame it returns carries the error, every later transformation passes it on,
// and the first action returns it (Status() tells early). This keeps chains readable:
//   auto rows = session.Read().Format("delta").Load(path)
//                   .Filter(Col("country") == Lit("DE"))
//                   .GroupBy({Col("status")}).Agg({Count().Alias("n")})
//                   .Collect();   // Result<std::vector<Row>>

#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tributary/column.h"
#include "tributary/row.h"
#include "tributary/status.h"

namespace tributary {

class DataFrameWriter;
class DataStreamWriter;
class GroupedData;
struct DataFrameState;

/// Thread-safety: immutable value type; actions may run concurrently.
class DataFrame {
 public:
  /// OK, or the error of the first transformation that failed.
  tributary::Status Status() const;
  /// The output schema (empty when Status() is not OK).
  StructType Schema() const;
  /// Column names in order.
  std::vector<std::string> Columns() const;

  DataFrame Select(const std::vector<Column>& columns) const;
  DataFrame Select(const std::vector<std::string>& names) const;
  /// Select({"a", "b"}): column names (a braced list of strings picks this overload).
  DataFrame Select(std::initializer_list<const char*> names) const;
  /// SQL expressions: SelectExpr({"a + 1 AS b", "upper(s)"}).
  DataFrame SelectExpr(const std::vector<std::string>& expressions) const;
  DataFrame Filter(const Column& condition) const;
  /// A SQL condition: Filter("status = 'active' AND latency_ms > 100").
  DataFrame Filter(std::string_view condition) const;
  DataFrame Where(const Column& condition) const { return Filter(condition); }
  DataFrame Where(std::string_view condition) const { return Filter(condition); }
  DataFrame WithColumn(const std::string& name, const Column& value) const;
  DataFrame WithColumnRenamed(const std::string& existing, const std::string& name) const;
  DataFrame Drop(const std::vector<std::string>& names) const;
  GroupedData GroupBy(const std::vector<Column>& keys) const;
  /// Aggregates over all rows (one output row).
  DataFrame Agg(const std::vector<Column>& aggregates) const;
  /// how: "inner", "left"/"left_outer", "right"/"right_outer", "full"/"outer"/"full_outer",
  /// "left_semi"/"semi", "left_anti"/"anti", "cross" (Spark's spellings).
  DataFrame Join(const DataFrame& other, const Column& on, std::string_view how = "inner") const;
  /// Equi-join on same-named columns, which appear once in the output.
  DataFrame Join(const DataFrame& other, const std::vector<std::string>& using_columns,
                 std::string_view how = "inner") const;
  DataFrame CrossJoin(const DataFrame& other) const;
  DataFrame OrderBy(const std::vector<Column>& columns) const;
  DataFrame Sort(const std::vector<Column>& columns) const { return OrderBy(columns); }
  DataFrame Limit(int64_t n) const;
  /// The distinct rows. On a stream, Spark's distinct(): DropDuplicates() of every column.
  DataFrame Distinct() const;
  /// The first row of each distinct value of `columns` (all columns when empty). On a stream
  /// the keys seen are kept in state: include the event-time column (with a watermark) to let
  /// old keys go, or use DropDuplicatesWithinWatermark.
  DataFrame DropDuplicates(const std::vector<std::string>& columns = {}) const;
  /// On a stream with a watermark, drops rows whose key was seen within the watermark delay
  /// even when their event times differ (Spark 3.5's dropDuplicatesWithinWatermark); a key is
  /// forgotten once its first event time + the delay passes the watermark. In batch, as
  /// DropDuplicates.
  DataFrame DropDuplicatesWithinWatermark(const std::vector<std::string>& columns = {}) const;
  /// Spark's withWatermark: `event_time` (a timestamp column, or a window struct) is the
  /// query's event time, and the watermark trails the latest event time seen by
  /// `delay_threshold` ("10 minutes", "1 hour 30 seconds"): a stateful operator drops rows
  /// older than the watermark and emits and forgets the windows and keys it has passed. Rows
  /// are unchanged; batch queries ignore it, as Spark.
  DataFrame WithWatermark(std::string_view event_time, std::string_view delay_threshold) const;
  /// Rows of both, by position (UNION ALL), as Spark's union.
  DataFrame Union(const DataFrame& other) const;
  /// The columns qualified by `alias`, for joins: df.Alias("a") then Col("a.id").
  DataFrame Alias(const std::string& alias) const;

  /// Every row.
  Result<std::vector<Row>> Collect() const;
  /// The number of rows.
  Result<int64_t> Count() const;
  /// The first `n` rows.
  Result<std::vector<Row>> Take(int64_t n) const;
  /// Prints the first `n` rows as Spark's show() does (an aligned table, long values
  /// truncated to 20 characters unless `truncate` is false).
  tributary::Status Show(int64_t n = 20, bool truncate = true) const;
  tributary::Status Show(std::ostream& out, int64_t n = 20, bool truncate = true) const;
  /// The logical plan before and after optimization, and the physical operators.
  Result<std::string> Explain() const;

  DataFrameWriter Write() const;
  /// Starts a streaming query over a streaming DataFrame (include "tributary/streaming.h").
  DataStreamWriter WriteStream() const;
  /// Whether the DataFrame reads a stream (from ReadStream or a MemoryStream).
  bool IsStreaming() const;

 private:
  friend class ApiAccess;

  explicit DataFrame(std::shared_ptr<const DataFrameState> state);
  const std::shared_ptr<const DataFrameState>& State() const { return state_; }

  std::shared_ptr<const DataFrameState> state_;
};

/// The result of GroupBy: aggregate it with Agg.
class GroupedData {
 public:
  DataFrame Agg(const std::vector<Column>& aggregates) const;
  /// count(*) per group, as a column named "count".
  DataFrame Count() const;

 private:
  friend class ApiAccess;

  GroupedData(DataFrame input, std::vector<Column> keys);

  DataFrame input_;
  std::vector<Column> keys_;
};

/// Writes a DataFrame as a Delta table, or its rows as Kafka records (Spark's DataFrameWriter;
/// formats "delta" and "kafka").
class DataFrameWriter {
 public:
  DataFrameWriter& Format(std::string_view format);
  /// "append", "overwrite", "error"/"errorifexists" (default), "ignore".
  DataFrameWriter& Mode(std::string_view mode);
  DataFrameWriter& PartitionBy(const std::vector<std::string>& columns);
  /// Delta writer options: mergeSchema, overwriteSchema, replaceWhere (a SQL condition over
  /// partition columns), txnAppId with txnVersion (idempotent writes); anything starting
  /// "delta." becomes a table property of a new table. Kafka: kafka.bootstrap.servers, any
  /// kafka.* producer setting (kafka.transactional.id writes in one transaction) and topic.
  DataFrameWriter& Option(const std::string& key, const std::string& value);
  /// Writes to the table at `path`; for kafka (no path), each row as a record: a value column,
  /// optional key, topic, partition and headers columns, the topic option overriding the
  /// topic column (Spark's Kafka sink). Kafka takes the modes append and errorifexists.
  tributary::Status Save(const std::string& path = "");
  /// Writes to the session's table `name` (<warehouse>/<name>).
  tributary::Status SaveAsTable(const std::string& name);

 private:
  friend class ApiAccess;

  explicit DataFrameWriter(DataFrame frame);
  tributary::Status SaveKafka(const std::string& path);

  DataFrame frame_;
  std::string format_ = "delta";
  std::string mode_ = "errorifexists";
  std::vector<std::string> partition_by_;
  std::map<std::string, std::string> options_;
};

}  // namespace tributary

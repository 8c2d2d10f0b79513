// Session: the entry point, as Spark's SparkSession. It owns the settings shared by its
// queries (time zone, warehouse directory) and creates DataFrames from tables, files and SQL.
//
//   auto session = tributary::Session::Builder().Warehouse("/data/warehouse").Build();
//   DataFrame events = session->Read().Format("json").Load("/data/raw/events");
//   DataFrame by_day = session->Sql("SELECT date, count(*) FROM events GROUP BY date");

#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tributary/dataframe.h"
#include "tributary/result.h"

namespace tributary {

struct SessionState;
class DataFrameReader;
class DataStreamReader;
class StreamingQueryListener;

/// Thread-safety: safe to share; DataFrames from one session may run concurrently.
class Session {
 public:
  class Builder {
   public:
    /// Where tables by name live: <warehouse>/<name>. Default: $TRIBUTARY_WAREHOUSE, else
    /// "./warehouse".
    Builder& Warehouse(std::string directory);
    /// Session time zone (spark.sql.session.timeZone): "UTC", "+02:00", "Europe/Berlin".
    /// Default: $TZ, else UTC.
    Builder& TimeZone(std::string zone);
    /// A Spark-style setting ("spark.sql.session.timeZone", ...).
    Builder& Config(const std::string& key, const std::string& value);
    /// InvalidArgument for an unknown time zone.
    Result<std::shared_ptr<Session>> Build();

   private:
    std::string warehouse_;
    std::string time_zone_;
    std::map<std::string, std::string> config_;
  };

  DataFrameReader Read() const;
  /// Streaming sources (include "tributary/streaming.h"): Spark's readStream.
  DataStreamReader ReadStream() const;
  /// Receives the events of every streaming query started afterwards from this session
  /// (Spark's spark.streams.addListener).
  void AddStreamingListener(std::shared_ptr<StreamingQueryListener> listener) const;
  /// The table `name` of the warehouse (a Delta table at <warehouse>/<name>).
  DataFrame Table(const std::string& name) const;
  /// Runs a SQL query (SELECT/WITH/VALUES) as a DataFrame. Statements that change things
  /// (CREATE, INSERT, OPTIMIZE...) run at once and return their result rows.
  DataFrame Sql(const std::string& statement) const;
  /// Table names of the current schema (USE; the warehouse root for `default`), sorted: its
  /// Delta tables, external tables and data source tables, as SQL's SHOW TABLES lists them.
  Result<std::vector<std::string>> ListTables() const;

  const std::string& WarehouseDirectory() const;
  const std::string& TimeZoneName() const;

 private:
  friend class ApiAccess;

  explicit Session(std::shared_ptr<SessionState> state);
  const std::shared_ptr<SessionState>& State() const { return state_; }

  std::shared_ptr<SessionState> state_;
};

/// Spark's DataFrameReader: Format("delta"|"parquet"|"json"|"csv").Option(...).Load(path), or
/// Format("kafka").Option("kafka.bootstrap.servers", ...).Option("subscribe", ...).Load(): the
/// Kafka records between startingOffsets (default earliest) and endingOffsets (default latest)
/// as they are when Load runs, in Spark's Kafka columns (key, value, topic, partition, offset,
/// timestamp, timestampType; headers with includeHeaders).
class DataFrameReader {
 public:
  DataFrameReader& Format(std::string_view format);
  /// Reader options under Spark's names (header, sep, multiLine, mode, versionAsOf,
  /// timestampAsOf, ...; for kafka: kafka.bootstrap.servers and any kafka.* client setting,
  /// subscribe, subscribePattern, assign, startingOffsets, endingOffsets, startingTimestamp,
  /// endingTimestamp, failOnDataLoss, includeHeaders).
  DataFrameReader& Option(const std::string& key, const std::string& value);
  DataFrameReader& Options(const std::map<std::string, std::string>& options);
  /// The schema as DDL ("a INT, b STRING"); JSON/CSV infer one when it is not given.
  DataFrameReader& Schema(std::string ddl);
  /// A file, a directory (every data file in it, recursively, skipping names starting with
  /// "_" or "."), or a Delta table's root; no path for kafka. Kafka records are read here, and
  /// the DataFrame holds them.
  DataFrame Load(const std::string& path = "") const;
  DataFrame Table(const std::string& name) const;

 private:
  friend class ApiAccess;

  explicit DataFrameReader(std::shared_ptr<SessionState> session);

  std::shared_ptr<SessionState> session_;
  std::string format_ = "delta";
  std::map<std::string, std::string> options_;
  std::string schema_;
};

}  // namespace tributary

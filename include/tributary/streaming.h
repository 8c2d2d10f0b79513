// Structured Streaming, shaped like Spark's: a streaming DataFrame from ReadStream(), the same
// stateless transformations as a batch DataFrame, and WriteStream() to start a query that
// processes new data in micro-batches and commits each exactly once.
//
//   auto query = session->ReadStream().Format("json").Schema("id BIGINT, status STRING")
//                    .Load("/data/landing/events")
//                    .Filter("status = 'active'")
//                    .WriteStream().Format("delta")
//                    .Option("checkpointLocation", "/data/checkpoints/active_events")
//                    .Trigger(Trigger::AvailableNow())
//                    .Start("/data/tables/active_events");
//   if (query.ok()) query->AwaitTermination();

#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/dataframe.h"
#include "tributary/result.h"
#include "tributary/streaming_query.h"

namespace tributary {

struct SessionState;
class StreamingQueryHandle;
struct MemoryStreamState;
class Session;

/// Spark's DataStreamReader: Format("json"|"csv"|"parquet"|"delta"|"rate"|"kafka"|"kinesis")
/// .Option(...).Schema(...).Load(path), or Table(name) for a warehouse Delta table. Kafka and
/// Kinesis take no path and have their own schema (Spark's Kafka columns; Databricks' Kinesis
/// columns).
class DataStreamReader {
 public:
  DataStreamReader& Format(std::string_view format);
  /// Source options under Spark's names: maxFilesPerTrigger, latestFirst, maxFileAge (files);
  /// startingVersion, startingTimestamp, maxFilesPerTrigger, maxBytesPerTrigger,
  /// ignoreDeletes, skipChangeCommits (delta); rowsPerSecond (rate); kafka.bootstrap.servers
  /// and any kafka.* client setting, subscribe, subscribePattern, assign, startingOffsets,
  /// startingTimestamp, maxOffsetsPerTrigger, minOffsetsPerTrigger, maxTriggerDelay,
  /// failOnDataLoss, includeHeaders, groupIdPrefix (kafka); streamName, region,
  /// initialPosition, endpoint (kinesis); and the file readers' options (header, sep,
  /// multiLine, mode, ...).
  DataStreamReader& Option(const std::string& key, const std::string& value);
  DataStreamReader& Options(const std::map<std::string, std::string>& options);
  /// DDL ("a INT, b STRING"); required for JSON and CSV, as in Spark.
  DataStreamReader& Schema(std::string ddl);
  /// A streaming DataFrame over the directory or table at `path` (the error, if any, is carried
  /// by the DataFrame as for batch reads).
  DataFrame Load(const std::string& path = "") const;
  DataFrame Table(const std::string& name) const;

 private:
  friend class ApiAccess;

  explicit DataStreamReader(std::shared_ptr<SessionState> session);

  std::shared_ptr<SessionState> session_;
  std::string format_ = "delta";
  std::map<std::string, std::string> options_;
  std::string schema_;
};

/// A running (or ended) streaming query: Spark's StreamingQuery. Copies share the query; when
/// the last copy is destroyed the query is stopped (after its current batch), so keep one for
/// as long as it should run.
class StreamingQuery {
 public:
  /// Stable across restarts from the same checkpoint.
  const std::string& Id() const;
  /// New for every start.
  const std::string& RunId() const;
  const std::string& Name() const;
  bool IsActive() const;
  /// Stops after the batch in progress (which completes and commits); waits until stopped.
  void Stop() const;
  /// Waits until the query ends: its error if it failed, OK after a stop or when its trigger
  /// (Once, AvailableNow) finished.
  tributary::Status AwaitTermination() const;
  /// Waits at most `timeout`: true when the query has ended.
  bool AwaitTermination(std::chrono::milliseconds timeout) const;
  /// Blocks until all data available in the sources now has been processed and committed
  /// (for tests). The query's error if it ended with one.
  tributary::Status ProcessAllAvailable() const;
  std::optional<StreamingQueryProgress> LastProgress() const;
  /// The most recent progress records, oldest first (spark.sql.streaming.
  /// numRecentProgressUpdates, default 100).
  std::vector<StreamingQueryProgress> RecentProgress() const;
  /// The error that ended the query; OK while it runs or after a clean stop.
  tributary::Status Exception() const;
  /// True once the query has ended because a source's schema changed (new columns): it
  /// recorded the new schema first, and a restart of the same query continues with it. Its
  /// error is then InvalidArgument, printed "SchemaChanged: <what changed>".
  bool StoppedBySchemaChange() const;
  StreamingQueryStatus Status() const;

 private:
  friend class ApiAccess;

  explicit StreamingQuery(std::shared_ptr<StreamingQueryHandle> handle);

  std::shared_ptr<StreamingQueryHandle> handle_;
};

/// Spark's DataStreamWriter.
class DataStreamWriter {
 public:
  /// "delta" (default), "kafka" (Spark's Kafka sink: a value column, optional key, topic,
  /// partition and headers columns; the topic option overrides the topic column; at least
  /// once, or exactly once with kafka.transactional.id), "console", "memory" (a table named by
  /// QueryName, read with session.Table(name) or SQL), "foreachBatch" (set by ForeachBatch).
  DataStreamWriter& Format(std::string_view format);
  /// "append" (default: rows that will never change), "update" (the aggregation groups a
  /// batch changed) or "complete" (the whole aggregation result each batch), as Spark.
  DataStreamWriter& OutputMode(std::string_view mode);
  /// checkpointLocation; mergeSchema, txn options and delta.* table properties for the Delta
  /// sink; kafka.bootstrap.servers, any kafka.* producer setting and topic for the Kafka sink;
  /// numRows and truncate for the console sink.
  DataStreamWriter& Option(const std::string& key, const std::string& value);
  DataStreamWriter& Options(const std::map<std::string, std::string>& options);
  DataStreamWriter& PartitionBy(const std::vector<std::string>& columns);
  DataStreamWriter& Trigger(tributary::Trigger trigger);
  DataStreamWriter& QueryName(std::string name);
  /// Runs `function(batch, batch_id)` for every micro-batch. A batch may be handed over again
  /// with the same id after a crash: write with txnAppId/txnVersion (or check the id) to stay
  /// exactly-once.
  DataStreamWriter& ForeachBatch(std::function<tributary::Status(const DataFrame&, int64_t)> fn);
  /// Starts the query writing to the Delta table at `path` (no path for kafka, console, memory
  /// and foreachBatch). Delta, kafka and foreachBatch need a checkpointLocation.
  Result<StreamingQuery> Start(const std::string& path = "");
  /// Starts the query writing to the warehouse table `name`.
  Result<StreamingQuery> ToTable(const std::string& name);

 private:
  friend class ApiAccess;

  explicit DataStreamWriter(DataFrame frame);

  DataFrame frame_;
  std::string format_ = "delta";
  std::string output_mode_ = "append";
  std::map<std::string, std::string> options_;
  std::vector<std::string> partition_by_;
  tributary::Trigger trigger_;
  std::string query_name_;
  std::function<tributary::Status(const DataFrame&, int64_t)> foreach_batch_;
};

/// Rows pushed by the program itself, as Spark's MemoryStream, for tests and demos. Not
/// replayable across processes.
class MemoryStream {
 public:
  /// A stream with the `ddl` schema.
  static Result<MemoryStream> Make(const std::shared_ptr<Session>& session, const std::string& ddl);
  /// Appends rows given as JSON objects, one per element ({"id": 1, "s": "a"}); the rows of
  /// one call arrive in one batch at most.
  tributary::Status AddJson(const std::vector<std::string>& rows) const;
  /// The streaming DataFrame over the stream.
  DataFrame ToDF() const;

 private:
  friend class ApiAccess;

  MemoryStream(std::shared_ptr<SessionState> session, std::shared_ptr<MemoryStreamState> stream);

  std::shared_ptr<SessionState> session_;
  std::shared_ptr<MemoryStreamState> stream_;
};

}  // namespace tributary

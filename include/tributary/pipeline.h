// Streaming pipelines from SQL, as Databricks' declarative pipelines: a file of statements
// where each `CREATE [OR REFRESH] STREAMING TABLE name AS SELECT ... FROM STREAM ...` is a
// stream into a warehouse table, run by `tributary run`.
//
//   CREATE OR REFRESH STREAMING TABLE bronze AS
//     SELECT * FROM STREAM read_files('/landing/events', format => 'json',
//                                     schema => 'id BIGINT, status STRING');
//   CREATE OR REFRESH STREAMING TABLE silver AS
//     SELECT * FROM STREAM(bronze) WHERE status = 'active';
//
// A streaming table without a query is the target of an AUTO CDC flow (also spelled APPLY
// CHANGES INTO), which applies a stream of change events by key in SEQUENCE BY order:
//
//   CREATE OR REFRESH STREAMING TABLE customers;
//   CREATE FLOW customers_cdc AS AUTO CDC INTO customers FROM STREAM(customer_changes)
//     KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
//     COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1;
//
// Running a pipeline:
//  1. runs its other statements (CREATE TABLE, INSERT, ...) in file order, so static tables a
//     stream joins with exist; so that every run can run them again, CREATE TABLE ... AS query
//     refreshes its table (recomputed and replaced in one commit, as CREATE OR REPLACE and as
//     Databricks pipelines refresh a materialized view) and CREATE TABLE with columns only is
//     skipped when the table exists (as IF NOT EXISTS);
//  2. orders the streaming tables by dependency (a table that reads another table of the file
//     comes after it) and creates each missing one as an empty Delta table with its query's
//     columns, partitioning and properties, in that order, so a downstream stream can start on
//     an empty upstream table;
//  3. runs the streams: with Trigger::AvailableNow() or Once() each table to completion in
//     dependency order; with ProcessingTime all at once until Stop().
// Each table's checkpoint is <checkpoint root>/<table>; the sinks merge new columns into their
// tables (mergeSchema).
//
// Scaled out: with the session settings tributary.kafka.processCount N and
// tributary.kafka.processIndex i, the same file runs as N processes over one warehouse and one
// checkpoint root. A table that reads Kafka is N streams, one per share of the partitions, each
// with its checkpoint <root>/<table>/share-<j> and run by process j; every other table is one
// stream run by process 0. A process holds <root>/_processes/<i>.lock while it runs, and when
// the root is a local (or mounted) directory it also runs the streams of a process that is not
// running, as long as their checkpoint exists (the process ran before and stopped or died),
// until that process is back (tributary.kafka.takeoverInterval: how often it looks; default 1
// second). A stream's checkpoint lock keeps it to one process at a time, so a stream taken over
// resumes where its process stopped and nothing is read twice. A stream stopped because an upstream
// table gained columns (StreamingQuery::StoppedBySchemaChange) is bound again from its SQL and
// restarted, which is reported.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/session.h"
#include "tributary/streaming_query.h"

namespace tributary {

struct PipelineOptions {
  /// When the streams run. Default: Trigger::AvailableNow().
  Trigger trigger = Trigger::AvailableNow();
  /// The directory holding one checkpoint per streaming table (<root>/<table>).
  /// Default: <warehouse>/_checkpoints.
  std::string checkpoint_root;
  /// Schema-change restarts of one table in a row without a batch in between, after which the
  /// change is an error. Default: 10.
  int max_schema_restarts = 10;
};

/// How far an available-now run of one table is through the backlog it found at start.
struct PipelineBacklog {
  /// What is counted: "files" (file stream sources: files not yet ingested at start).
  std::string unit;
  int64_t done = 0;
  int64_t total = 0;
};

/// Something that happened in a pipeline run, for progress output.
struct PipelineEvent {
  enum class Kind : uint8_t {
    /// A streaming table was created empty (`message`: its schema).
    kTableCreated,
    /// A table's stream started (`message`: its trigger).
    kStreamStarted,
    /// A micro-batch committed (`progress` is set; `backlog` when known).
    kBatch,
    /// A stream stopped for a schema change and restarts (`message`: the change).
    kSchemaRestart,
    /// A table's stream ended (available-now/once: caught up; otherwise stopped).
    kStreamFinished,
    /// Scaled out: this process took over a share of a process that is not running, handed it
    /// back, or waits for its own share held by another (`message` says which).
    kShare,
  };
  Kind kind = Kind::kBatch;
  /// The streaming table's name.
  std::string table;
  /// Scaled out: which share of the table's Kafka partitions the stream reads.
  std::optional<int32_t> share;
  std::string message;
  std::optional<StreamingQueryProgress> progress;
  std::optional<PipelineBacklog> backlog;
};

struct PipelineState;

/// A parsed pipeline. Thread-safety: Run from one thread; Stop from any thread (a signal
/// watcher) at any time.
class Pipeline {
 public:
  /// Parses `sql` (statements separated by ';'). InvalidArgument for a syntax error, a table
  /// defined twice, or tables that read each other in a cycle.
  static Result<std::unique_ptr<Pipeline>> Parse(std::shared_ptr<Session> session,
                                                 const std::string& sql,
                                                 PipelineOptions options = {});
  /// Parses the file at `path`; errors name it.
  static Result<std::unique_ptr<Pipeline>> ParseFile(std::shared_ptr<Session> session,
                                                     const std::string& path,
                                                     PipelineOptions options = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// The streaming tables (lowercased names) in dependency order.
  std::vector<std::string> Tables() const;
  /// Receives every event of Run, called from the streams' threads one at a time. Set before
  /// Run.
  void OnEvent(std::function<void(const PipelineEvent&)> callback);
  /// Runs the pipeline (steps 1-3 above). OK when every stream caught up (available-now,
  /// once) or was stopped; else the first error, with the table it happened in.
  Status Run();
  /// Stops the running streams after their current batch; Run then returns. Tables not started
  /// yet are not started.
  void Stop();

 private:
  friend class ApiAccess;

  explicit Pipeline(std::unique_ptr<PipelineState> state);

  std::unique_ptr<PipelineState> state_;
};

}  // namespace tributary

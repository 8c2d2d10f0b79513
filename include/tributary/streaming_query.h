// What a running streaming query reports, as Spark's StreamingQueryProgress,
// StreamingQueryStatus and StreamingQueryListener, with Spark's field names so dashboards and
// habits carry over; and the triggers that pace it.

#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tributary {

/// When a streaming query runs its micro-batches.
class Trigger {
 public:
  enum class Kind : uint8_t {
    /// Each batch starts when the previous ends (Spark's default; ProcessingTime(0)).
    kProcessingTime,
    /// One batch with everything available, then stop (Spark's deprecated Trigger.Once).
    kOnce,
    /// Everything available at start, in as many batches as the rate limits make, then stop.
    kAvailableNow,
  };
  /// Batches start every `interval` (immediately when one overran it); 0: back to back.
  static Trigger ProcessingTime(std::chrono::milliseconds interval);
  static Trigger Once();
  static Trigger AvailableNow();
  /// The default: ProcessingTime(0).
  Trigger() = default;

  Kind GetKind() const { return kind_; }
  std::chrono::milliseconds Interval() const { return interval_; }
  /// "ProcessingTime(10000ms)", "Once", "AvailableNow".
  std::string ToString() const;

 private:
  Kind kind_ = Kind::kProcessingTime;
  std::chrono::milliseconds interval_{0};
};

/// One source's part of a batch (Spark's SourceProgress).
struct SourceProgress {
  std::string description;
  /// Offsets as JSON text; empty when none.
  std::string start_offset;
  std::string end_offset;
  std::string latest_offset;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
  std::map<std::string, std::string> metrics;
};

/// The sink's part of a batch (Spark's SinkProgress).
struct SinkProgress {
  std::string description;
  /// -1 when the sink cannot tell.
  int64_t num_output_rows = -1;
};

/// One stateful operator's part (Spark's StateOperatorProgress). Queries run only stateless
/// operators (append mode), so `StreamingQueryProgress::state_operators` is always empty.
struct StateOperatorProgress {
  /// "stateStoreSave" (aggregation), "dedupe", "dedupeWithinWatermark".
  std::string operator_name;
  /// State rows (keys) after the batch, over every partition.
  int64_t num_rows_total = 0;
  int64_t num_rows_updated = 0;
  int64_t all_updates_time_ms = 0;
  /// State rows evicted by the watermark.
  int64_t num_rows_removed = 0;
  int64_t all_removals_time_ms = 0;
  /// Time to commit the operator's state stores.
  int64_t commit_time_ms = 0;
  int64_t memory_used_bytes = 0;
  /// Input rows older than the watermark, dropped.
  int64_t num_rows_dropped_by_watermark = 0;
  /// State partitions, and the stores opened for them.
  int64_t num_shuffle_partitions = 0;
  int64_t num_state_store_instances = 0;
  /// The state store's own metrics (Spark's customMetrics).
  std::map<std::string, int64_t> custom_metrics;
};

/// The record of one micro-batch (Spark's StreamingQueryProgress).
struct StreamingQueryProgress {
  std::string id;
  std::string run_id;
  std::string name;
  /// The trigger's start, ISO-8601 UTC with milliseconds ("2026-11-29T20:00:00.000Z").
  std::string timestamp;
  int64_t batch_id = 0;
  int64_t batch_duration = 0;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
  /// latestOffset, walCommit, getBatch, queryPlanning, addBatch, commitOffsets,
  /// triggerExecution, in milliseconds.
  std::map<std::string, int64_t> duration_ms;
  /// min, max, avg, watermark (ISO-8601) when the query has an event-time column.
  std::map<std::string, std::string> event_time;
  std::vector<StateOperatorProgress> state_operators;
  std::vector<SourceProgress> sources;
  SinkProgress sink;
  /// Requests to object stores since the previous record (listings of idle triggers included):
  /// listRequests, getRequests, putRequests, deleteRequests, bytesRead, bytesWritten. Empty
  /// when there were none (local files only). Not in Spark's record: a trigger interval's
  /// cost on S3 is its requests.
  std::map<std::string, int64_t> storage_requests;

  /// The record as Spark prints it (camelCase fields), on one line.
  std::string Json() const;
  /// The same, indented.
  std::string PrettyJson() const;
};

/// What a query is doing now (Spark's StreamingQueryStatus).
struct StreamingQueryStatus {
  /// "Initializing sources", "Waiting for data to arrive", "Processing new data",
  /// "Waiting for next trigger", "Stopped".
  std::string message;
  bool is_data_available = false;
  bool is_trigger_active = false;
};

/// Events of a query's life, delivered to listeners on the query's thread.
struct QueryStartedEvent {
  std::string id;
  std::string run_id;
  std::string name;
  std::string timestamp;
};
struct QueryTerminatedEvent {
  std::string id;
  std::string run_id;
  /// The error that stopped the query; nullopt for a requested stop or a finished trigger.
  std::optional<std::string> exception;
};

/// Spark's StreamingQueryListener. Callbacks must be quick and must not call back into the
/// query (Stop from a callback would wait for itself).
class StreamingQueryListener {
 public:
  virtual ~StreamingQueryListener() = default;
  virtual void OnQueryStarted(const QueryStartedEvent& event) { (void)event; }
  virtual void OnQueryProgress(const StreamingQueryProgress& progress) { (void)progress; }
  virtual void OnQueryTerminated(const QueryTerminatedEvent& event) { (void)event; }
};

}  // namespace tributary

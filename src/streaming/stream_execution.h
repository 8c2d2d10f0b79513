// The micro-batch engine (Spark's MicroBatchExecution): runs one streaming query on its own
// thread, batch after batch, with a write-ahead offset log and a commit log in the checkpoint
// so that after any crash a restart re-runs exactly the batch that was in flight.
//
// Per batch N:
//   1. latestOffset   each source's newest offset, within its rate limits
//   2. walCommit      offsets/N (put-if-absent) with the batch timestamp
//   3. getBatch       each source's rows between batch N-1's offsets and N's
//   4. queryPlanning  the query's plan with each source replaced by those rows
//   5. addBatch       the sink writes the rows, idempotently per (query id, N)
//   6. commitOffsets  state version N+1 of every stateful operator, then commits/N (with the
//                     watermark for N+1); sources may forget data before N's offsets
// then a progress record (kept in memory, appended to progress.jsonl, sent to listeners).
//
// Recovery on start (L = latest offsets/, C = latest commits/): nothing -> batch 0; C == L ->
// continue with L + 1; C < L -> batch L is re-run with the offsets and timestamp recorded in
// offsets/L, starting from offsets/L-1, and the sink skips it if it had already written it.
//
// Stateful queries (streaming/stateful_plan.h): batch N loads version N of each operator's
// state partitions, runs the plan to completion (so the state is updated even when the sink
// skips a batch it already wrote), hands the rows to the sink, and commits version N+1 of every
// partition only after the sink succeeded; a failure aborts them, so a re-run of N starts from
// version N again. The watermark batch N uses is recorded in offsets/N (batchWatermarkMs); the
// one after it, from the event times N saw, in commits/N (nextBatchWatermarkMs). When the
// watermark moved and an operator could emit or evict by it, a batch runs without new data
// (Spark's no-data batch, spark.sql.streaming.noDataMicroBatches.enabled).

#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "plan/logical_plan.h"
#include "state/state_store.h"
#include "storage/file_system.h"
#include "streaming/checkpoint.h"
#include "streaming/sink.h"
#include "streaming/source.h"
#include "streaming/stateful_plan.h"
#include "tributary/streaming_query.h"

namespace tributary::streaming {

/// Session settings the engine reads (Spark's names).
inline constexpr std::string_view kShufflePartitionsKey = "spark.sql.shuffle.partitions";
inline constexpr std::string_view kMultipleWatermarkPolicyKey =
    "spark.sql.streaming.multipleWatermarkPolicy";
inline constexpr std::string_view kNoDataMicroBatchesKey =
    "spark.sql.streaming.noDataMicroBatches.enabled";
/// State partitions of a new checkpoint when spark.sql.shuffle.partitions is unset: each is a
/// RocksDB instance on one machine (Spark's 200 would be 200 of them), and more than one so
/// that partitions can run in parallel.
inline constexpr const char* kDefaultStatePartitions = "4";

struct QueryOptions {
  /// queryName; may be empty.
  std::string name;
  /// Required: where the offset and commit logs live (a local directory).
  std::string checkpoint_location;
  Trigger trigger;
  /// What the sink receives of a stateful query's result each batch. Default: append.
  exec::OutputMode output_mode = exec::OutputMode::kAppend;
  /// spark.sql.streaming.minBatchesToRetain: offsets/commits kept. Default 100.
  int64_t min_batches_to_retain = 100;
  /// How long to wait before looking again when no data arrived (default trigger).
  /// spark.sql.streaming.pollingDelay, default 10 ms.
  std::chrono::milliseconds polling_delay{10};
  /// spark.sql.streaming.numRecentProgressUpdates: progress records kept. Default 100.
  size_t num_recent_progress = 100;
  /// Session settings handed to the sources.
  std::map<std::string, std::string> session_config;
  /// Session time zone (current_timestamp comes from each batch's recorded timestamp).
  expr::EvalContext eval;
  std::vector<std::shared_ptr<StreamingQueryListener>> listeners;
};

/// One running streaming query. Thread-safety: every method may be called from any thread
/// (except Stop and AwaitTermination from a listener callback).
class StreamExecution {
 public:
  /// Opens the checkpoint (lock, metadata, recovery) and the sources, then starts the batch
  /// thread. Errors found here (bad plan, checkpoint in use or of another query, source that
  /// cannot open) are returned; later ones end the query and show in Exception().
  static Result<std::shared_ptr<StreamExecution>> Start(plan::LogicalPlanPtr plan,
                                                        std::unique_ptr<Sink> sink,
                                                        QueryOptions options,
                                                        std::shared_ptr<storage::FileSystem> fs);
  ~StreamExecution();
  StreamExecution(const StreamExecution&) = delete;
  StreamExecution& operator=(const StreamExecution&) = delete;

  /// Stable across restarts of the same checkpoint.
  const std::string& Id() const { return id_; }
  /// New for each Start.
  const std::string& RunId() const { return run_id_; }
  const std::string& Name() const { return options_.name; }
  bool IsActive() const;
  /// Stops after the batch in progress (which completes) and waits for the thread to end.
  void Stop();
  /// Waits until the query ends (or `timeout` passes): true when it has ended.
  bool AwaitTermination(std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  /// Waits until every source has no more data than the sink has committed; the query's
  /// error if it ends with one.
  Status ProcessAllAvailable();
  std::optional<StreamingQueryProgress> LastProgress() const;
  std::vector<StreamingQueryProgress> RecentProgress() const;
  /// The error that ended the query; OK while running or after a clean stop.
  Status Exception() const;
  /// Whether the query ended because a source's schema changed (Exception() is then the
  /// schema-change stop of schema_change.h): a restart continues with the new schema.
  bool StoppedBySchemaChange() const;
  StreamingQueryStatus CurrentStatus() const;

 private:
  struct SourceSlot {
    std::shared_ptr<const SourceDefinition> definition;
    std::unique_ptr<Source> source;
    std::shared_ptr<std::atomic<int64_t>> rows_read;
  };

  StreamExecution(plan::LogicalPlanPtr plan, std::unique_ptr<Sink> sink, QueryOptions options,
                  std::shared_ptr<storage::FileSystem> fs);
  tributary::Status Open();
  void Run();
  tributary::Status RunBatches();
  /// Constructs the next batch if any source has new data and runs it; false when none had.
  Result<bool> RunNextBatch();
  tributary::Status RunBatch(const OffsetSeq& offsets,
                             const std::vector<std::optional<Offset>>& latest,
                             std::map<std::string, int64_t> durations,
                             std::chrono::steady_clock::time_point trigger_start);
  /// The state partitions (the checkpoint's, or the session's for a new one), operator
  /// metadata and providers; `recorded` is the latest offsets/N, if any.
  tributary::Status OpenState(const std::optional<OffsetSeq>& recorded);
  /// Loads version `batch_id` of every operator's partitions into `stores` and fills the
  /// operators' runtimes for a batch using `offsets`' watermark.
  tributary::Status LoadState(
      int64_t batch_id, const OffsetSeq& offsets,
      std::vector<std::vector<std::unique_ptr<state::VersionedStateStore>>>* stores);
  /// The watermark after a batch, from what the withWatermark points saw in it.
  int64_t AdvanceWatermark();
  /// Whether a batch without new data would let an operator emit or evict (the watermark
  /// moved past the one the last batch used).
  bool NeedsNoDataBatch() const;
  Result<plan::LogicalPlanPtr> ReplaceSources(const plan::LogicalPlanPtr& node,
                                              std::vector<plan::ScanSource>& batch_sources);
  void ReportProgress(StreamingQueryProgress progress);
  void SetStatus(std::string message, bool data_available, bool trigger_active);
  /// Sleeps until `deadline`, a stop request or while a ProcessAllAvailable call is unanswered.
  void WaitUntil(std::chrono::steady_clock::time_point deadline);

  plan::LogicalPlanPtr plan_;
  std::unique_ptr<Sink> sink_;
  QueryOptions options_;
  std::shared_ptr<storage::FileSystem> fs_;
  Checkpoint checkpoint_;
  std::optional<CheckpointLock> lock_;
  std::string id_;
  std::string run_id_;
  std::vector<SourceSlot> sources_;
  /// Per source, the end offset of the last committed batch.
  std::vector<std::optional<Offset>> committed_;
  int64_t next_batch_id_ = 0;
  /// A batch whose offsets were logged but not committed before the last stop or crash.
  std::optional<OffsetSeq> pending_batch_;
  /// Latest snapshot per static Delta table root, for stream-static joins.
  std::map<std::string, std::shared_ptr<const delta::Snapshot>> static_tables_;
  std::chrono::steady_clock::time_point last_trigger_start_{};
  /// The file system's request counts when the last progress record was made (or the query
  /// opened): each record shows the requests since, idle triggers' listings included.
  storage::StorageRequestCounts requests_reported_;

  /// The stateful operators and withWatermark points of the plan (plan_ is its plan).
  StatefulPlan stateful_;
  /// spark.sql.shuffle.partitions as the checkpoint fixed it (0 without stateful operators).
  int32_t num_state_partitions_ = 0;
  /// [operator id][partition id].
  std::vector<std::vector<std::unique_ptr<state::StateStoreProvider>>> providers_;
  /// spark.sql.streaming.multipleWatermarkPolicy is "max" (default "min").
  bool max_watermark_policy_ = false;
  /// spark.sql.streaming.noDataMicroBatches.enabled (default true).
  bool no_data_batches_ = true;
  /// The watermark the next batch uses (ms; Spark's 0 before any event time was seen).
  int64_t watermark_ms_ = 0;
  /// Per withWatermark point, max event time seen - delay (ms), once it saw a row.
  std::vector<std::optional<int64_t>> point_watermarks_ms_;
  /// The watermark the last batch used, for late rows in the next (none before batch 0).
  std::optional<int64_t> last_batch_watermark_ms_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool active_ = true;
  bool stop_requested_ = false;
  /// ProcessAllAvailable calls so far, and how many of them a trigger that found no new data
  /// had seen before it started (so it answers them).
  int64_t process_all_requests_ = 0;
  int64_t caught_up_through_ = 0;
  tributary::Status exception_;
  StreamingQueryStatus status_;
  std::deque<StreamingQueryProgress> recent_progress_;
  std::thread thread_;
};

/// Current time as ISO-8601 UTC with milliseconds: "2026-11-29T20:00:00.000Z".
std::string FormatIsoTimestamp(int64_t epoch_ms);

}  // namespace tributary::streaming

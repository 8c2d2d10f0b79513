// What a stateful streaming operator (streaming aggregation, deduplication) gets from the
// streaming layer for one micro-batch, and the partitioning of its state.
//
// The streaming layer opens one StateStore per state partition (version N-1 for batch N), fills
// a StatefulOperatorRuntime with them, the output mode and the batch's watermarks, instantiates
// the plan, drains it, reads the metrics back and commits the stores. The physical node holds
// the runtime through a shared_ptr (like RowCountingNode's counter): it is the one part of a
// stateful node that changes from batch to batch.
//
// State partitioning: the grouping-encoded key (exec/row_key.h) of a row picks its partition as
// StablePartition(key bytes, number of partitions). The number of partitions is fixed for a
// checkpoint's life, so the function must give the same answer on every build and machine
// forever: it is written out here (FNV-1a 64 then a 64-bit finalizer) rather than taken from
// std::hash or HashBytes, which may change.

#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "exec/state_store.h"

namespace tributary::exec {

struct AggregateStateCache;
struct JoinStateCache;

/// How much state an operator keeps in memory across micro-batches (an AggregateStateCache, a
/// JoinStateCache) before dropping it for good: beyond, its state lives in the stores alone.
inline constexpr int64_t kStateCacheMaxBytes = int64_t{64} << 20;

/// Spark's output modes (OutputMode.Append/Update/Complete).
enum class OutputMode {
  /// Only rows that will never change: a group is emitted once, when the watermark passes it.
  kAppend,
  /// The groups changed by this batch.
  kUpdate,
  /// Every group, every batch.
  kComplete,
};

/// Spark's name: "append", "update", "complete".
constexpr std::string_view OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kAppend:
      return "append";
    case OutputMode::kUpdate:
      return "update";
    case OutputMode::kComplete:
      return "complete";
  }
  return "append";
}

/// One batch of one stateful operator, as progress reports it (Spark's StateOperatorProgress
/// names, in snake case).
struct StateOperatorMetrics {
  /// State rows (keys) over all partitions after the batch.
  int64_t num_rows_total = 0;
  /// State rows written by the batch.
  int64_t num_rows_updated = 0;
  /// State rows removed by the batch (watermark eviction).
  int64_t num_rows_removed = 0;
  /// Input rows dropped because they were older than the watermark for late rows.
  int64_t num_rows_dropped_by_watermark = 0;
  /// Time spent reading and writing state while consuming the input.
  int64_t all_updates_time_ms = 0;
  /// Time spent evicting state.
  int64_t all_removals_time_ms = 0;
  /// Memory the partitions' stores report after the batch.
  int64_t memory_used_bytes = 0;
  /// Deduplication: input rows dropped as duplicates (Spark's custom metric
  /// numDroppedDuplicateRows).
  int64_t num_dropped_duplicate_rows = 0;
};

/// What the streaming layer hands one stateful operator for one batch. Owned by the streaming
/// layer, shared with the physical node; the operator reads the inputs and fills `metrics`
/// while it runs. Not thread-safe: one batch uses it at a time.
struct StatefulOperatorRuntime {
  /// Position of the operator among the query's stateful operators (Spark's numbering: depth
  /// first, inputs left to right). Names the state directory state/<operator_id>/.
  int64_t operator_id = 0;
  /// One open store per state partition, index = partition id; not owned. Never empty while
  /// the operator runs.
  std::vector<StateStore*> partitions;
  /// Default: append.
  OutputMode output_mode = OutputMode::kAppend;
  /// Input rows whose event time is older than this (microseconds since the epoch) are
  /// dropped and counted; none when unset (no watermark, or the first batch).
  std::optional<int64_t> late_rows_watermark_micros;
  /// State whose event time is at or below this is emitted (append) and removed; none when
  /// unset.
  std::optional<int64_t> eviction_watermark_micros;
  /// Stream-stream joins: per side (0 left, 1 right) the state watermark of this batch,
  /// computed by the streaming layer from eviction_watermark_micros and the join condition;
  /// state rows at or below it are removed. Unset: that side keeps its state.
  std::array<std::optional<int64_t>, 2> join_state_watermark_micros;
  /// The version every store of `partitions` was loaded at (batch N loads version N) when the
  /// stores are versioned: an operator may then keep its state in memory from one batch to the
  /// next, valid for the version it was written as. Unset: nothing is kept across batches.
  std::optional<int64_t> state_version;
  /// A streaming aggregation's groups kept in memory across batches (exec/stateful_aggregate.h).
  std::shared_ptr<AggregateStateCache> aggregate_cache;
  /// A stream-stream join's rows kept in memory across batches (exec/streaming_join.h).
  std::shared_ptr<JoinStateCache> join_cache;
  /// Filled by the operator; reset by the streaming layer before each batch.
  StateOperatorMetrics metrics;
};

/// The state partition, in [0, num_partitions), of a row whose grouping-encoded key is
/// `key_bytes`. Fixed forever (the partition a key's state lives in is recorded in every
/// checkpoint): h = FNV-1a 64 over the bytes (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3), then h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33;
/// h *= 0xc4ceb9fe1a85ec53; h ^= h >> 33 (spreads FNV's weak low bits), then h % num_partitions.
/// `num_partitions` must be positive.
constexpr int32_t StablePartition(std::string_view key_bytes, int32_t num_partitions) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : key_bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<int32_t>(h % static_cast<uint64_t>(num_partitions));
}

}  // namespace tributary::exec

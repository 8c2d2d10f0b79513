// What the stateful streaming operators (exec/stateful_aggregate.h, exec/streaming_join.h,
// exec/streaming_deduplicate.h) share about rows and state: the state value format byte, event
// times read from columns and from grouping-encoded state keys, Spark's lateness rule, and the
// store metrics of a batch.

#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "columnar/record_batch.h"
#include "exec/stateful_operator.h"
#include "tributary/result.h"

namespace tributary::exec {

/// The first byte of every state value the stateful operators write: the layout of what
/// follows (each operator's .cc has the grammar). A reader refuses other values.
inline constexpr char kStateFormatVersion = 1;

/// InvalidArgument unless `type` can carry an event time: timestamp, timestamp_ntz, or a
/// window struct whose second field (`end`) is one. `what` names the column in the message.
Status CheckEventTimeType(const columnar::DataType& type, std::string_view what);

/// Sets late[i] = 1 for the rows of `event_time` (a type CheckEventTimeType accepts) at or
/// before `watermark_micros` and returns how many: a window by its end, as Spark's
/// WatermarkSupport.watermarkExpression (`eventTime <= watermark`, `window.end <= watermark`).
/// A null event time is never late (the comparison is null, so Spark keeps the row).
int64_t MarkLateRows(const columnar::Column& event_time, int64_t watermark_micros,
                     std::vector<uint8_t>* late);

/// `batch` without the rows of its column `event_time_column` that MarkLateRows finds late
/// against the runtime's late_rows_watermark_micros, counted in num_rows_dropped_by_watermark;
/// `batch` itself when there is no such watermark or no row is late.
Result<columnar::RecordBatchPtr> DropLateRows(columnar::RecordBatchPtr batch, int event_time_column,
                                              StatefulOperatorRuntime& runtime,
                                              columnar::MemoryPool* pool);

/// The event time in key column `index` of a grouping-encoded key of `key_types` (a window by
/// its end); nullopt when null. Corruption when `key` is not such a key.
Result<std::optional<int64_t>> EventTimeInKey(std::span<const columnar::DataTypePtr> key_types,
                                              size_t index, std::string_view key);

/// The store of the partition holding `key` (a grouping-encoded key): StablePartition.
inline StateStore& PartitionOfKey(const StatefulOperatorRuntime& runtime, std::string_view key) {
  const auto partitions = static_cast<int32_t>(runtime.partitions.size());
  return *runtime.partitions[static_cast<size_t>(StablePartition(key, partitions))];
}

/// An operator's state kept in memory across micro-batches (`cache`, its runtime's
/// aggregate_cache or join_cache; created here when absent) for this batch: nullptr without a
/// runtime state_version or once the cache was disabled. Else the cache, marked stale until
/// the batch ends well (a failure leaves it half updated); `*rebuild` is set, and its
/// partitions emptied, when it does not hold the version the batch loaded.
template <typename Cache>
Cache* TakeStateCache(const StatefulOperatorRuntime& runtime, std::shared_ptr<Cache>& cache,
                      bool* rebuild) {
  *rebuild = false;
  if (!runtime.state_version) {
    return nullptr;
  }
  if (cache == nullptr) {
    cache = std::make_shared<Cache>();
  }
  if (cache->disabled) {
    return nullptr;
  }
  const bool valid = cache->version == *runtime.state_version &&
                     cache->partitions.size() == runtime.partitions.size();
  cache->version = -1;
  if (!valid) {
    cache->partitions.assign(runtime.partitions.size(), {});
    cache->bytes = 0;
    *rebuild = true;
  }
  return cache.get();
}

/// Drops `*cache` for good (disabled, emptied, `*cache` set to nullptr) once it holds more than
/// kStateCacheMaxBytes: beyond, the state lives in the stores alone.
template <typename Cache>
void DropStateCacheIfTooLarge(Cache** cache) {
  if (*cache != nullptr && (*cache)->bytes > kStateCacheMaxBytes) {
    (*cache)->disabled = true;
    (*cache)->partitions.clear();
    (*cache)->bytes = 0;
    *cache = nullptr;
  }
}

/// Sets the metrics that describe the stores after the batch: num_rows_total and
/// memory_used_bytes, summed over the partitions.
void RecordStoreMetrics(StatefulOperatorRuntime& runtime);

/// Whole milliseconds since `start`, for the update and removal times.
int64_t MillisSince(std::chrono::steady_clock::time_point start);

}  // namespace tributary::exec

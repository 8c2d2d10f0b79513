// StreamingQueryProgress as JSON, field for field as Spark's StreamingQueryProgress.json
// (camelCase names, in Spark's order), and the Trigger value type.

#include <nlohmann/json.hpp>

#include "tributary/streaming_query.h"

namespace tributary {
namespace {

using nlohmann::ordered_json;

/// An offset's JSON text as a JSON value (Spark nests it); text that is not JSON as a string.
ordered_json OffsetValue(const std::string& offset) {
  if (offset.empty()) {
    return nullptr;
  }
  ordered_json value = ordered_json::parse(offset, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? ordered_json(offset) : value;
}

ordered_json ToJson(const StreamingQueryProgress& progress) {
  ordered_json out;
  out["id"] = progress.id;
  out["runId"] = progress.run_id;
  out["name"] = progress.name.empty() ? ordered_json(nullptr) : ordered_json(progress.name);
  out["timestamp"] = progress.timestamp;
  out["batchId"] = progress.batch_id;
  out["batchDuration"] = progress.batch_duration;
  out["numInputRows"] = progress.num_input_rows;
  out["inputRowsPerSecond"] = progress.input_rows_per_second;
  out["processedRowsPerSecond"] = progress.processed_rows_per_second;
  out["durationMs"] = ordered_json::object();
  for (const auto& [key, value] : progress.duration_ms) {
    out["durationMs"][key] = value;
  }
  if (!progress.event_time.empty()) {
    out["eventTime"] = ordered_json::object();
    for (const auto& [key, value] : progress.event_time) {
      out["eventTime"][key] = value;
    }
  }
  out["stateOperators"] = ordered_json::array();
  for (const StateOperatorProgress& state : progress.state_operators) {
    // Spark's StateOperatorProgress.jsonValue order.
    ordered_json item;
    item["operatorName"] = state.operator_name;
    item["numRowsTotal"] = state.num_rows_total;
    item["numRowsUpdated"] = state.num_rows_updated;
    item["allUpdatesTimeMs"] = state.all_updates_time_ms;
    item["numRowsRemoved"] = state.num_rows_removed;
    item["allRemovalsTimeMs"] = state.all_removals_time_ms;
    item["commitTimeMs"] = state.commit_time_ms;
    item["memoryUsedBytes"] = state.memory_used_bytes;
    item["numRowsDroppedByWatermark"] = state.num_rows_dropped_by_watermark;
    item["numShufflePartitions"] = state.num_shuffle_partitions;
    item["numStateStoreInstances"] = state.num_state_store_instances;
    item["customMetrics"] = ordered_json::object();
    for (const auto& [key, value] : state.custom_metrics) {
      item["customMetrics"][key] = value;
    }
    out["stateOperators"].push_back(std::move(item));
  }
  out["sources"] = ordered_json::array();
  for (const SourceProgress& source : progress.sources) {
    ordered_json item;
    item["description"] = source.description;
    item["startOffset"] = OffsetValue(source.start_offset);
    item["endOffset"] = OffsetValue(source.end_offset);
    item["latestOffset"] = OffsetValue(source.latest_offset);
    item["numInputRows"] = source.num_input_rows;
    item["inputRowsPerSecond"] = source.input_rows_per_second;
    item["processedRowsPerSecond"] = source.processed_rows_per_second;
    if (!source.metrics.empty()) {
      item["metrics"] = source.metrics;
    }
    out["sources"].push_back(std::move(item));
  }
  out["sink"] = {{"description", progress.sink.description},
                 {"numOutputRows", progress.sink.num_output_rows}};
  if (!progress.storage_requests.empty()) {
    out["storageRequests"] = ordered_json::object();
    for (const char* key : {"listRequests", "getRequests", "putRequests", "deleteRequests",
                            "bytesRead", "bytesWritten"}) {
      if (auto it = progress.storage_requests.find(key); it != progress.storage_requests.end()) {
        out["storageRequests"][key] = it->second;
      }
    }
  }
  return out;
}

}  // namespace

std::string StreamingQueryProgress::Json() const {
  return ToJson(*this).dump();
}

std::string StreamingQueryProgress::PrettyJson() const {
  return ToJson(*this).dump(2);
}

Trigger Trigger::ProcessingTime(std::chrono::milliseconds interval) {
  Trigger trigger;
  trigger.kind_ = Kind::kProcessingTime;
  trigger.interval_ = interval;
  return trigger;
}

Trigger Trigger::Once() {
  Trigger trigger;
  trigger.kind_ = Kind::kOnce;
  return trigger;
}

Trigger Trigger::AvailableNow() {
  Trigger trigger;
  trigger.kind_ = Kind::kAvailableNow;
  return trigger;
}

std::string Trigger::ToString() const {
  switch (kind_) {
    case Kind::kOnce:
      return "Once";
    case Kind::kAvailableNow:
      return "AvailableNow";
    case Kind::kProcessingTime:
      break;
  }
  return "ProcessingTime(" + std::to_string(interval_.count()) + "ms)";
}

}  // namespace tributary

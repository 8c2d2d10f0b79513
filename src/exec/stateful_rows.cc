#include "exec/stateful_rows.h"

#include <cstring>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/row_key.h"

namespace tributary::exec {

using columnar::Column;
using columnar::DataType;
using columnar::TypeId;

namespace {

bool IsTimestamp(const DataType& type) {
  return type.Id() == TypeId::kTimestamp || type.Id() == TypeId::kTimestampNtz;
}

bool IsWindow(const DataType& type) {
  return type.Id() == TypeId::kStruct && type.Fields().size() >= 2 &&
         IsTimestamp(*type.Fields()[1].Type());
}

}  // namespace

Status CheckEventTimeType(const DataType& type, std::string_view what) {
  if (IsTimestamp(type) || IsWindow(type)) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      fmt::format("event-time column {} must be a timestamp or a window struct<start, end>, got {}",
                  what, type.ToString()));
}

int64_t MarkLateRows(const Column& event_time, int64_t watermark_micros,
                     std::vector<uint8_t>* late) {
  const int64_t rows = event_time.Length();
  late->assign(static_cast<size_t>(rows), 0);
  const bool window = event_time.Type()->Id() == TypeId::kStruct;
  const Column& times = window ? *event_time.Child(1) : event_time;
  const int64_t* values = times.Values<int64_t>();
  int64_t count = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if ((window && event_time.IsNull(i)) || times.IsNull(i)) {
      continue;
    }
    if (values[i] <= watermark_micros) {
      (*late)[static_cast<size_t>(i)] = 1;
      ++count;
    }
  }
  return count;
}

Result<columnar::RecordBatchPtr> DropLateRows(columnar::RecordBatchPtr batch, int event_time_column,
                                              StatefulOperatorRuntime& runtime,
                                              columnar::MemoryPool* pool) {
  if (!runtime.late_rows_watermark_micros) {
    return batch;
  }
  std::vector<uint8_t> late;
  const int64_t dropped = MarkLateRows(*batch->Columns()[static_cast<size_t>(event_time_column)],
                                       *runtime.late_rows_watermark_micros, &late);
  if (dropped == 0) {
    return batch;
  }
  runtime.metrics.num_rows_dropped_by_watermark += dropped;
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < batch->NumRows(); ++i) {
    if (late[static_cast<size_t>(i)] == 0) {
      kept.push_back(i);
    }
  }
  return columnar::TakeRows(*batch, kept, pool);
}

Result<std::optional<int64_t>> EventTimeInKey(std::span<const columnar::DataTypePtr> key_types,
                                              size_t index, std::string_view key) {
  size_t at = 0;
  for (size_t k = 0; k < index; ++k) {
    TRIBUTARY_ASSIGN_OR_RAISE(size_t size, MeasureGroupingValue(*key_types[k], key.substr(at)));
    at += size;
  }
  const DataType& type = *key_types[index];
  TRIBUTARY_ASSIGN_OR_RAISE(size_t size, MeasureGroupingValue(type, key.substr(at)));
  std::string_view value = key.substr(at, size);
  if (value[0] == 0) {
    return std::optional<int64_t>();
  }
  value.remove_prefix(1);
  if (IsWindow(type)) {
    // start (flag + 8 bytes), then end.
    TRIBUTARY_ASSIGN_OR_RAISE(size_t start_size,
                              MeasureGroupingValue(*type.Fields()[0].Type(), value));
    value.remove_prefix(start_size);
    if (value[0] == 0) {
      return std::optional<int64_t>();
    }
    value.remove_prefix(1);
  } else if (!IsTimestamp(type)) {
    return Status::InvalidArgument(
        fmt::format("event-time key must be a timestamp or a window, got {}", type.ToString()));
  }
  int64_t micros = 0;
  std::memcpy(&micros, value.data(), sizeof(micros));
  return std::optional<int64_t>(micros);
}

void RecordStoreMetrics(StatefulOperatorRuntime& runtime) {
  runtime.metrics.num_rows_total = 0;
  runtime.metrics.memory_used_bytes = 0;
  for (const StateStore* store : runtime.partitions) {
    runtime.metrics.num_rows_total += store->NumKeys();
    runtime.metrics.memory_used_bytes += store->MemoryUsedBytes();
  }
}

int64_t MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

}  // namespace tributary::exec

#include "exec/event_time_watermark.h"

#include <algorithm>

#include <fmt/format.h>

namespace tributary::exec {

void EventTimeStats::Add(const Snapshot& batch) {
  if (batch.count == 0) {
    return;
  }
  std::lock_guard lock(mutex_);
  if (stats_.count == 0) {
    stats_ = batch;
    return;
  }
  stats_.min = std::min(stats_.min, batch.min);
  stats_.max = std::max(stats_.max, batch.max);
  stats_.sum += batch.sum;
  stats_.count += batch.count;
}

EventTimeStats::Snapshot EventTimeStats::Get() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void EventTimeStats::Reset() {
  std::lock_guard lock(mutex_);
  stats_ = {};
}

std::string EventTimeWatermarkNode::ToString() const {
  return fmt::format("EventTimeWatermark(#{}, delay={}us)", event_time_, delay_micros_);
}

Result<RecordBatchPtr> EventTimeWatermarkOperator::Next() {
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
  if (batch == nullptr || batch->NumRows() == 0) {
    return batch;
  }
  const columnar::Column* column = batch->ColumnAt(node_->EventTime()).get();
  const columnar::Column* times = column;
  // A window struct is judged by its end, as Spark's watermark on a window column.
  if (times->Type()->Id() == columnar::TypeId::kStruct) {
    const auto& fields = times->Type()->Fields();
    for (size_t f = 0; f < fields.size(); ++f) {
      if (fields[f].Name() == "end") {
        times = times->Child(static_cast<int>(f)).get();
        break;
      }
    }
  }
  const int64_t* values = times->Values<int64_t>();
  EventTimeStats::Snapshot local{INT64_MAX, INT64_MIN, 0, 0};
  for (int64_t i = 0; i < batch->NumRows(); ++i) {
    // A row of a null struct counts as null too.
    if (times->IsNull(i) || column->IsNull(i)) {
      continue;
    }
    local.min = std::min(local.min, values[i]);
    local.max = std::max(local.max, values[i]);
    local.sum += static_cast<double>(values[i]);
    ++local.count;
  }
  node_->Stats()->Add(local);
  return batch;
}

}  // namespace tributary::exec

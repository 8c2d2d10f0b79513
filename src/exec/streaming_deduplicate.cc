// State rows of a streaming deduplication, one per key seen, in the store of the key's
// partition (StablePartition of the key bytes):
//   key    = the key columns' values, grouping-encoded (exec/row_key.h)
//   value  = format: u8 (kStateFormatVersion, 1)                        dropDuplicates
//          | format: u8 (1) expires: grouping-encoded bigint (u8 1, i64)  ...WithinWatermark
// `expires` is the key's first row's event time + the watermark delay, in microseconds (Spark's
// expiresAtMicros); the key is evicted once the watermark reaches it.

#include "exec/streaming_deduplicate.h"

#include <cstring>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/stateful_rows.h"

namespace tributary::exec {

namespace {

// Format byte, valid flag, expiry.
constexpr size_t kExpiringValueSize = 2 + sizeof(int64_t);

}  // namespace

StreamingDeduplicateOperator::StreamingDeduplicateOperator(
    std::shared_ptr<const StreamingDeduplicateNode> node, OperatorPtr input,
    const ExecContext& context)
    : node_(std::move(node)),
      input_(std::move(input)),
      context_(context),
      runtime_(node_->Runtime().get()),
      state_(context.pool) {}

Status StreamingDeduplicateOperator::Start() {
  if (runtime_ == nullptr || runtime_->partitions.empty()) {
    return Status::InvalidArgument("streaming deduplicate: no state partitions for this batch");
  }
  const columnar::Schema& schema = *input_->OutputSchema();
  for (size_t k = 0; k < node_->KeyColumns().size(); ++k) {
    const int column = node_->KeyColumns()[k];
    if (column < 0 || column >= schema.NumFields()) {
      return Status::InvalidArgument(
          fmt::format("streaming deduplicate: no input column #{}", column));
    }
    key_types_.push_back(schema.FieldAt(column).Type());
    if (node_->EventTimeColumn() == column && !node_->WithinWatermark()) {
      event_time_key_ = k;
    }
  }
  if (const std::optional<int>& event_time = node_->EventTimeColumn()) {
    if (*event_time < 0 || *event_time >= schema.NumFields()) {
      return Status::InvalidArgument(
          fmt::format("streaming deduplicate: no input column #{}", *event_time));
    }
    TRIBUTARY_RETURN_NOT_OK(CheckEventTimeType(*schema.FieldAt(*event_time).Type(),
                                               schema.FieldAt(*event_time).Name()));
  } else if (node_->WithinWatermark()) {
    return Status::InvalidArgument(
        "dropDuplicatesWithinWatermark needs a watermarked event-time column");
  }
  return Status::OK();
}

Result<RecordBatchPtr> StreamingDeduplicateOperator::Deduplicate(const RecordBatchPtr& input) {
  RecordBatchPtr batch = input;
  const std::optional<int>& event_time_column = node_->EventTimeColumn();
  if (event_time_column) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        batch, DropLateRows(std::move(batch), *event_time_column, *runtime_, context_.eval.pool));
  }
  const int64_t rows = batch->NumRows();
  std::vector<ColumnPtr> key_columns;
  for (const int column : node_->KeyColumns()) {
    key_columns.push_back(batch->Columns()[static_cast<size_t>(column)]);
  }
  EncodedKeys keys;
  EncodeGroupingKeys(key_columns, rows, &keys);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  int64_t next_new = state_.seen.NumGroups();
  TRIBUTARY_RETURN_NOT_OK(state_.seen.FindOrInsert(keys, ids.data()));
  const int64_t* event_times = nullptr;
  const columnar::Column* event_time = nullptr;
  if (node_->WithinWatermark()) {
    event_time = batch->Columns()[static_cast<size_t>(*event_time_column)].get();
    if (event_time->Type()->Id() == columnar::TypeId::kStruct) {
      event_time = event_time->Child(1).get();
    }
    event_times = event_time->Values<int64_t>();
  }
  std::vector<int64_t> kept;
  std::string value;
  for (int64_t i = 0; i < rows; ++i) {
    if (ids[static_cast<size_t>(i)] != next_new) {
      ++runtime_->metrics.num_dropped_duplicate_rows;
      continue;
    }
    ++next_new;
    const std::string_view key = keys.Key(i);
    StateStore& store = PartitionOfKey(*runtime_, key);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> existing, store.Get(key));
    if (existing) {
      ++runtime_->metrics.num_dropped_duplicate_rows;
      continue;
    }
    value.assign(1, kStateFormatVersion);
    if (event_times != nullptr) {
      // A null event time reads as 0, as Spark's UnsafeRow.getLong of a null field.
      const int64_t expires = (event_time->IsValid(i) ? event_times[i] : 0) + node_->DelayMicros();
      value.push_back(1);
      value.append(reinterpret_cast<const char*>(&expires), sizeof(expires));
    }
    TRIBUTARY_RETURN_NOT_OK(store.Put(key, value));
    ++runtime_->metrics.num_rows_updated;
    kept.push_back(i);
  }
  if (static_cast<int64_t>(kept.size()) == rows) {
    return batch;
  }
  return columnar::TakeRows(*batch, kept, context_.eval.pool);
}

Status StreamingDeduplicateOperator::Evict() {
  if (!runtime_->eviction_watermark_micros ||
      (!node_->WithinWatermark() && !event_time_key_.has_value())) {
    return Status::OK();
  }
  const int64_t watermark = *runtime_->eviction_watermark_micros;
  for (StateStore* store : runtime_->partitions) {
    TRIBUTARY_RETURN_NOT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
      std::optional<int64_t> event_time;
      if (node_->WithinWatermark()) {
        if (value.size() != kExpiringValueSize || value[0] != kStateFormatVersion ||
            value[1] != 1) {
          return Status::Corruption(fmt::format(
              "dropDuplicatesWithinWatermark state value of {} bytes is not format 1 with an "
              "expiry",
              value.size()));
        }
        int64_t expires = 0;
        std::memcpy(&expires, value.data() + 2, sizeof(expires));
        event_time = expires;
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(event_time, EventTimeInKey(key_types_, *event_time_key_, key));
      }
      if (!event_time || *event_time > watermark) {
        return Status::OK();
      }
      ++runtime_->metrics.num_rows_removed;
      return store->Remove(key);
    }));
  }
  return Status::OK();
}

Result<RecordBatchPtr> StreamingDeduplicateOperator::Next() {
  if (!state_.started) {
    state_.started = true;
    TRIBUTARY_RETURN_NOT_OK(Start().WithContext("streaming deduplicate"));
  }
  while (!state_.finished) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      state_.finished = true;
      const auto removals_start = std::chrono::steady_clock::now();
      TRIBUTARY_RETURN_NOT_OK(Evict().WithContext("streaming deduplicate"));
      runtime_->metrics.all_removals_time_ms += MillisSince(removals_start);
      RecordStoreMetrics(*runtime_);
      break;
    }
    const auto updates_start = std::chrono::steady_clock::now();
    Result<RecordBatchPtr> out = Deduplicate(batch);
    if (!out.ok()) {
      return out.status().WithContext("streaming deduplicate");
    }
    runtime_->metrics.all_updates_time_ms += MillisSince(updates_start);
    if ((*out)->NumRows() > 0) {
      return out;
    }
  }
  return RecordBatchPtr();
}

}  // namespace tributary::exec

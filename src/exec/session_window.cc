// State rows of a streaming session window aggregation, one per grouping key (the keys
// besides the session), in the store of the key's partition (StablePartition of the key bytes):
//   key    = the grouping key (exec/row_key.h: the other key columns, grouping-encoded)
//   value  = format: u8 (kStateFormatVersion, 1), then the grouping encoding (exec/row_key.h,
//            floats kept bit-exact) of one row of one column
//              sessions: array<struct<start: timestamp, end: timestamp, rows: array<binary>>>
//            the key's open sessions in start order (disjoint: each ends before the next
//            starts); `rows` holds, per input row of the session in arrival order, the
//            encoding of that row's aggregate arguments (every call's evaluated arguments, in
//            call order, as EncodeValues writes one row).
// So the first session's end, the earliest of the key's, sits at a fixed offset: format (1),
// array flag (1), count (u32), struct flag (1), start flag (1), start (8), end flag (1), end.
// The checkpoint's operator metadata records that value schema, so `tributary state` prints
// the sessions. Keeping the rows rather than accumulator states lets a batch whose row falls
// between two stored sessions merge them: both row sets fold into one accumulator group.

#include "exec/session_window.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "exec/hash_aggregate.h"
#include "exec/stateful_rows.h"

namespace tributary::exec {

using columnar::Column;
using columnar::ColumnBuilder;
using columnar::DataType;

namespace {

// Sorts the item indices `order` by start (stable: ties keep their order) and merges them into
// runs where each next start is at or before the run's end so far, as Spark's
// MergingSessionsIterator merges: (*runs)[r] = (start, end) of run r, (*run_of)[i] = the run
// of item i.
template <typename Start, typename End>
void MergeRuns(std::vector<size_t>& order, Start start, End end, std::vector<int64_t>* run_of,
               std::vector<std::pair<int64_t, int64_t>>* runs) {
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return start(a) < start(b); });
  for (size_t i = 0; i < order.size();) {
    int64_t run_start = start(order[i]);
    int64_t run_end = end(order[i]);
    size_t j = i + 1;
    while (j < order.size() && start(order[j]) <= run_end) {
      run_end = std::max(run_end, end(order[j]));
      ++j;
    }
    for (size_t k = i; k < j; ++k) {
      (*run_of)[order[k]] = static_cast<int64_t>(runs->size());
    }
    runs->emplace_back(run_start, run_end);
    i = j;
  }
}

// The earliest end among the sessions of state value `value` without decoding it (the
// grammar above); nullopt when it does not have that shape (then the caller decodes it and
// reports what is wrong).
std::optional<int64_t> FirstSessionEnd(std::string_view value) {
  constexpr size_t kEndOffset = 17;
  uint32_t count = 0;
  if (value.size() < kEndOffset + sizeof(int64_t) || value[1] != 1 || value[6] != 1 ||
      value[16] != 1) {
    return std::nullopt;
  }
  std::memcpy(&count, value.data() + 2, sizeof(count));
  if (count == 0) {
    return std::nullopt;
  }
  int64_t end = 0;
  std::memcpy(&end, value.data() + kEndOffset, sizeof(end));
  return end;
}

}  // namespace

DataTypePtr SessionWindowStateType(const DataTypePtr& time) {
  return DataType::Array(
      DataType::Struct({columnar::Field("start", time, false), columnar::Field("end", time, false),
                        columnar::Field("rows", DataType::Array(DataType::Binary()))}));
}

// ---- batch: UpdatingSessionsOperator

Status UpdatingSessionsOperator::Consume() {
  GroupTable groups(context_.pool);
  EncodedKeys encoded;
  std::vector<int32_t> group_of;
  std::vector<ColumnPtr> key_columns;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    if (batch->NumRows() == 0) {
      continue;
    }
    const int64_t rows = batch->NumRows();
    key_columns.clear();
    for (const expr::BoundExprPtr& key : node_->Keys()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*key, *batch, context_.eval));
      key_columns.push_back(std::move(column));
    }
    EncodeGroupingKeys(key_columns, rows, &encoded);
    const size_t first = group_of.size();
    group_of.resize(first + static_cast<size_t>(rows));
    TRIBUTARY_RETURN_NOT_OK(groups.FindOrInsert(encoded, group_of.data() + first));
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr session,
                              expr::Evaluate(*node_->Session(), *batch, context_.eval));
    const int64_t* starts = session->Child(0)->Values<int64_t>();
    const int64_t* ends = session->Child(1)->Values<int64_t>();
    for (int64_t i = 0; i < rows; ++i) {
      const bool present = session->IsValid(i);
      // No session: start > end, never merged.
      starts_.push_back(present ? starts[i] : 1);
      ends_.push_back(present ? ends[i] : 0);
    }
    batches_.push_back(std::move(batch));
  }
  // Rows with a session, by key; each key's runs merged by start.
  std::vector<std::vector<size_t>> rows_of(static_cast<size_t>(groups.NumGroups()));
  for (size_t r = 0; r < starts_.size(); ++r) {
    if (starts_[r] <= ends_[r]) {
      rows_of[static_cast<size_t>(group_of[r])].push_back(r);
    }
  }
  std::vector<int64_t> run_of(starts_.size());
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (std::vector<size_t>& rows : rows_of) {
    runs.clear();
    MergeRuns(
        rows, [&](size_t r) { return starts_[r]; }, [&](size_t r) { return ends_[r]; }, &run_of,
        &runs);
    for (size_t r : rows) {
      const auto& [start, end] = runs[static_cast<size_t>(run_of[r])];
      starts_[r] = start;
      ends_[r] = end;
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> UpdatingSessionsOperator::Next() {
  if (!consumed_) {
    consumed_ = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("updating sessions"));
  }
  if (next_batch_ == batches_.size()) {
    batches_.clear();
    return nullptr;
  }
  RecordBatchPtr batch = std::move(batches_[next_batch_++]);
  const int64_t rows = batch->NumRows();
  const SchemaPtr& schema = node_->Schema();
  ColumnBuilder builder(schema->FieldAt(schema->NumFields() - 1).Type(), context_.eval.pool);
  builder.Reserve(rows);
  for (int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<size_t>(next_row_ + i);
    if (starts_[r] > ends_[r]) {
      builder.AppendNull();
      continue;
    }
    builder.Child(0).AppendInt(starts_[r]);
    builder.Child(1).AppendInt(ends_[r]);
    builder.AppendStruct();
  }
  next_row_ += rows;
  std::vector<ColumnPtr> columns = batch->Columns();
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr sessions, builder.Finish());
  columns.push_back(std::move(sessions));
  return columnar::RecordBatch::Make(schema, rows, std::move(columns));
}

// ---- streaming: SessionWindowAggregateOperator

SessionWindowAggregateOperator::SessionWindowAggregateOperator(
    std::shared_ptr<const SessionWindowAggregateNode> node, OperatorPtr input,
    const ExecContext& context)
    : node_(std::move(node)),
      input_(std::move(input)),
      context_(context),
      runtime_(node_->Runtime().get()) {}

Result<std::string> SessionWindowAggregateOperator::EncodeSessions(
    const std::vector<Session>& sessions) const {
  ColumnBuilder builder(sessions_type_, context_.eval.pool);
  ColumnBuilder& session = builder.Child(0);
  for (const Session& s : sessions) {
    session.Child(0).AppendInt(s.start);
    session.Child(1).AppendInt(s.end);
    ColumnBuilder& rows = session.Child(2);
    for (std::string_view row : s.rows) {
      rows.Child(0).AppendBytes(row);
    }
    rows.AppendArray();
    session.AppendStruct();
  }
  builder.AppendArray();
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder.Finish());
  EncodedKeys encoded;
  EncodeValues({&column, 1}, 1, &encoded);
  std::string value(1, kStateFormatVersion);
  value.append(encoded.Key(0));
  return value;
}

Status SessionWindowAggregateOperator::DecodeSessions(const std::vector<std::string>& values,
                                                      std::vector<std::vector<Session>>* out) {
  std::vector<std::string_view> encoded;
  encoded.reserve(values.size());
  for (const std::string& value : values) {
    if (value.empty() || value[0] != kStateFormatVersion) {
      return Status::Corruption(
          value.empty() ? std::string("session state: empty value")
                        : fmt::format("session state: unknown state format {}",
                                      static_cast<int>(static_cast<uint8_t>(value[0]))));
    }
    const std::string_view body = std::string_view(value).substr(1);
    TRIBUTARY_ASSIGN_OR_RAISE(size_t size, MeasureGroupingValue(*sessions_type_, body));
    if (size != body.size()) {
      return Status::Corruption(
          fmt::format("session state: {} bytes after the sessions", body.size() - size));
    }
    encoded.push_back(body);
  }
  const std::vector<DataTypePtr> types = {sessions_type_};
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns,
                            DecodeGroupingKeys(types, encoded, context_.eval.pool));
  const Column& lists = *columns[0];
  const Column& session = *lists.Child(0);
  const int64_t* starts = session.Child(0)->Values<int64_t>();
  const int64_t* ends = session.Child(1)->Values<int64_t>();
  const Column& rows = *session.Child(2);
  const Column& row_bytes = *rows.Child(0);
  for (int64_t v = 0; v < lists.Length(); ++v) {
    std::vector<Session>& sessions = out->emplace_back();
    for (int64_t s = lists.Offsets()[v]; s < lists.Offsets()[v + 1]; ++s) {
      Session& decoded = sessions.emplace_back();
      decoded.start = starts[s];
      decoded.end = ends[s];
      for (int64_t r = rows.Offsets()[s]; r < rows.Offsets()[s + 1]; ++r) {
        decoded.rows.push_back(row_bytes.BytesAt(r));
      }
    }
  }
  // The views point into the decoded column, kept for the batch.
  decoded_.push_back(std::move(columns[0]));
  return Status::OK();
}

Status SessionWindowAggregateOperator::Finish(const std::vector<std::string_view>& keys,
                                              const std::vector<std::vector<Session>>& sessions) {
  std::vector<std::string_view> output_keys;
  std::vector<std::string_view> rows;
  std::vector<int32_t> group_of_row;
  ColumnBuilder bounds(node_->Schema()->FieldAt(node_->SessionKey()).Type(), context_.eval.pool);
  for (size_t k = 0; k < keys.size(); ++k) {
    for (const Session& session : sessions[k]) {
      const auto group = static_cast<int32_t>(output_keys.size());
      output_keys.push_back(keys[k]);
      bounds.Child(0).AppendInt(session.start);
      bounds.Child(1).AppendInt(session.end);
      bounds.AppendStruct();
      rows.insert(rows.end(), session.rows.begin(), session.rows.end());
      group_of_row.insert(group_of_row.end(), session.rows.size(), group);
    }
  }
  const auto groups = static_cast<int64_t>(output_keys.size());
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> other_keys,
                            DecodeGroupingKeys(other_key_types_, output_keys, context_.eval.pool));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> arguments,
                            DecodeGroupingKeys(argument_types_, rows, context_.eval.pool));
  result_columns_.clear();
  for (size_t k = 0, other = 0; k < node_->Keys().size(); ++k) {
    if (static_cast<int>(k) == node_->SessionKey()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, bounds.Finish());
      result_columns_.push_back(std::move(column));
    } else {
      result_columns_.push_back(std::move(other_keys[other++]));
    }
  }
  const GroupNamer namer = [&](int32_t group) {
    return DescribeGroupingKey(node_->Keys(), output_keys[static_cast<size_t>(group)]);
  };
  const std::vector<AggregateCall>& aggregates = node_->Aggregates();
  size_t first_argument = 0;
  for (size_t a = 0; a < aggregates.size(); ++a) {
    size_t value_arguments = 0;
    TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                              MakeAccumulator(aggregates[a], context_.pool, &value_arguments));
    TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(groups));
    const std::span<const ColumnPtr> call_arguments(arguments.data() + first_argument,
                                                    value_arguments);
    first_argument += value_arguments;
    TRIBUTARY_RETURN_NOT_OK(
        accumulator
            ->Update(call_arguments, group_of_row.data(), static_cast<int64_t>(rows.size()), namer)
            .WithContext(fmt::format("computing {}", aggregates[a].function)));
    const DataTypePtr& type =
        node_->Schema()->FieldAt(static_cast<int>(node_->Keys().size() + a)).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                              accumulator->Finish(groups, type, namer, context_.eval.pool));
    result_columns_.push_back(std::move(column));
  }
  result_rows_ = groups;
  return Status::OK();
}

Status SessionWindowAggregateOperator::ConsumeInput() {
  const std::vector<expr::BoundExprPtr>& keys = node_->Keys();
  const std::vector<AggregateCall>& aggregates = node_->Aggregates();
  const std::optional<int64_t> late_watermark = runtime_->late_rows_watermark_micros;
  GroupTable touched(context_.pool);
  EncodedKeys encoded;
  std::vector<int32_t> key_ids;
  std::vector<ColumnPtr> other_keys;
  std::vector<ColumnPtr> arguments;
  // This batch's rows: key, own session, encoded arguments (views into arenas_).
  struct NewRow {
    int32_t key;
    int64_t start;
    int64_t end;
    std::string_view arguments;
  };
  std::vector<NewRow> new_rows;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    if (batch->NumRows() == 0) {
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        ColumnPtr session,
        expr::Evaluate(*keys[static_cast<size_t>(node_->SessionKey())], *batch, context_.eval));
    // Rows without a session (the plan filters them) and late rows: a row is late when its
    // own session ends at or before the watermark (Spark's predicate on the session column).
    std::vector<int64_t> kept;
    const int64_t* ends = session->Child(1)->Values<int64_t>();
    for (int64_t i = 0; i < batch->NumRows(); ++i) {
      if (session->IsNull(i)) {
        continue;
      }
      if (late_watermark && ends[i] <= *late_watermark) {
        ++runtime_->metrics.num_rows_dropped_by_watermark;
        continue;
      }
      kept.push_back(i);
    }
    if (kept.empty()) {
      continue;
    }
    if (static_cast<int64_t>(kept.size()) < batch->NumRows()) {
      TRIBUTARY_ASSIGN_OR_RAISE(batch, columnar::TakeRows(*batch, kept, context_.eval.pool));
      TRIBUTARY_ASSIGN_OR_RAISE(session, columnar::Take(*session, kept, context_.eval.pool));
    }
    const int64_t rows = batch->NumRows();
    other_keys.clear();
    for (size_t k : other_keys_) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*keys[k], *batch, context_.eval));
      other_keys.push_back(std::move(column));
    }
    EncodeGroupingKeys(other_keys, rows, &encoded);
    key_ids.resize(static_cast<size_t>(rows));
    TRIBUTARY_RETURN_NOT_OK(touched.FindOrInsert(encoded, key_ids.data()));
    arguments.clear();
    for (size_t a = 0; a < aggregates.size(); ++a) {
      for (size_t i = 0; i < value_arguments_[a]; ++i) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            ColumnPtr column, expr::Evaluate(*aggregates[a].arguments[i], *batch, context_.eval));
        arguments.push_back(std::move(column));
      }
    }
    EncodeValues(arguments, rows, &encoded);
    std::string& arena = arenas_.emplace_back(reinterpret_cast<const char*>(encoded.bytes.data()),
                                              encoded.bytes.size());
    const int64_t* starts = session->Child(0)->Values<int64_t>();
    ends = session->Child(1)->Values<int64_t>();
    for (int64_t i = 0; i < rows; ++i) {
      const auto offset = static_cast<size_t>(encoded.offsets[static_cast<size_t>(i)]);
      const auto size = static_cast<size_t>(encoded.offsets[static_cast<size_t>(i) + 1]) - offset;
      new_rows.push_back(NewRow{key_ids[static_cast<size_t>(i)], starts[i], ends[i],
                                std::string_view(arena).substr(offset, size)});
    }
  }
  const int64_t num_keys = touched.NumGroups();
  if (num_keys == 0) {
    return Status::OK();
  }
  // Each touched key's stored sessions, then its new rows, merged by start.
  std::vector<std::string> stored;
  std::vector<int64_t> stored_of(static_cast<size_t>(num_keys), -1);
  for (int64_t k = 0; k < num_keys; ++k) {
    const std::string_view key = touched.KeyOf(k);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> value,
                              PartitionOfKey(*runtime_, key).Get(key));
    if (value) {
      stored_of[static_cast<size_t>(k)] = static_cast<int64_t>(stored.size());
      stored.push_back(std::move(*value));
    }
  }
  std::vector<std::vector<Session>> stored_sessions;
  TRIBUTARY_RETURN_NOT_OK(DecodeSessions(stored, &stored_sessions));
  // What merges, per key: stored sessions and new rows, each with its rows' arguments.
  struct Item {
    int64_t start;
    int64_t end;
    std::span<const std::string_view> rows;
  };
  std::vector<std::vector<Item>> items(static_cast<size_t>(num_keys));
  for (int64_t k = 0; k < num_keys; ++k) {
    if (const int64_t s = stored_of[static_cast<size_t>(k)]; s >= 0) {
      for (const Session& session : stored_sessions[static_cast<size_t>(s)]) {
        items[static_cast<size_t>(k)].push_back(Item{session.start, session.end, session.rows});
      }
    }
  }
  for (const NewRow& row : new_rows) {
    items[static_cast<size_t>(row.key)].push_back(Item{row.start, row.end, {&row.arguments, 1}});
  }
  std::vector<size_t> order;
  std::vector<int64_t> run_of;
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t k = 0; k < num_keys; ++k) {
    const std::vector<Item>& key_items = items[static_cast<size_t>(k)];
    order.resize(key_items.size());
    std::iota(order.begin(), order.end(), 0);
    run_of.assign(key_items.size(), 0);
    runs.clear();
    MergeRuns(
        order, [&](size_t i) { return key_items[i].start; },
        [&](size_t i) { return key_items[i].end; }, &run_of, &runs);
    std::vector<Session> merged(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
      merged[r].start = runs[r].first;
      merged[r].end = runs[r].second;
    }
    // Rows in start order of their items (ties: stored before new, then arrival order).
    for (size_t i : order) {
      std::vector<std::string_view>& rows = merged[static_cast<size_t>(run_of[i])].rows;
      rows.insert(rows.end(), key_items[i].rows.begin(), key_items[i].rows.end());
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string value, EncodeSessions(merged));
    const std::string_view key = touched.KeyOf(k);
    TRIBUTARY_RETURN_NOT_OK(PartitionOfKey(*runtime_, key).Put(key, value));
    runtime_->metrics.num_rows_updated += static_cast<int64_t>(merged.size());
  }
  return Status::OK();
}

Status SessionWindowAggregateOperator::Consume() {
  if (runtime_ == nullptr || runtime_->partitions.empty()) {
    return Status::InvalidArgument("session window aggregate: no state partitions for this batch");
  }
  if (runtime_->output_mode == OutputMode::kUpdate) {
    return Status::InvalidArgument(
        "Update output mode not supported for session window on streaming DataFrames/DataSets");
  }
  const std::vector<expr::BoundExprPtr>& keys = node_->Keys();
  for (size_t k = 0; k < keys.size(); ++k) {
    if (static_cast<int>(k) != node_->SessionKey()) {
      other_keys_.push_back(k);
      other_key_types_.push_back(node_->Schema()->FieldAt(static_cast<int>(k)).Type());
    }
  }
  const DataTypePtr& session_type = node_->Schema()->FieldAt(node_->SessionKey()).Type();
  TRIBUTARY_RETURN_NOT_OK(CheckEventTimeType(
      *session_type, keys[static_cast<size_t>(node_->SessionKey())]->ToString()));
  sessions_type_ = SessionWindowStateType(session_type->Fields()[0].Type());
  for (const AggregateCall& call : node_->Aggregates()) {
    size_t value_arguments = 0;
    TRIBUTARY_RETURN_NOT_OK(MakeAccumulator(call, context_.pool, &value_arguments).status());
    value_arguments_.push_back(value_arguments);
    for (size_t i = 0; i < value_arguments; ++i) {
      argument_types_.push_back(call.arguments[i]->Type());
    }
  }
  const auto updates_start = std::chrono::steady_clock::now();
  TRIBUTARY_RETURN_NOT_OK(ConsumeInput());
  runtime_->metrics.all_updates_time_ms += MillisSince(updates_start);

  const auto removals_start = std::chrono::steady_clock::now();
  const std::optional<int64_t> eviction = runtime_->eviction_watermark_micros;
  const bool append = runtime_->output_mode == OutputMode::kAppend;
  std::vector<std::string> keys_out;
  std::vector<std::string> values;
  for (StateStore* store : runtime_->partitions) {
    TRIBUTARY_RETURN_NOT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
      if (append) {
        // Only keys with a session the watermark passed have something to emit.
        const std::optional<int64_t> first_end = FirstSessionEnd(value);
        if (!eviction || (first_end && *first_end > *eviction)) {
          return Status::OK();
        }
      }
      keys_out.emplace_back(key);
      values.emplace_back(value);
      return Status::OK();
    }));
  }
  std::vector<std::vector<Session>> sessions;
  TRIBUTARY_RETURN_NOT_OK(DecodeSessions(values, &sessions));
  if (append) {
    // Spark's SessionWindowStateStoreSaveExec in append mode: the sessions ending at or before
    // the watermark leave the state and are the output.
    for (size_t k = 0; k < keys_out.size(); ++k) {
      std::vector<Session> kept;
      std::vector<Session> evicted;
      for (Session& session : sessions[k]) {
        (eviction && session.end <= *eviction ? evicted : kept).push_back(std::move(session));
      }
      if (!evicted.empty()) {
        StateStore& store = PartitionOfKey(*runtime_, keys_out[k]);
        if (kept.empty()) {
          TRIBUTARY_RETURN_NOT_OK(store.Remove(keys_out[k]));
        } else {
          TRIBUTARY_ASSIGN_OR_RAISE(std::string value, EncodeSessions(kept));
          TRIBUTARY_RETURN_NOT_OK(store.Put(keys_out[k], value));
        }
        runtime_->metrics.num_rows_removed += static_cast<int64_t>(evicted.size());
      }
      sessions[k] = std::move(evicted);
    }
  }
  std::vector<std::string_view> key_views(keys_out.begin(), keys_out.end());
  TRIBUTARY_RETURN_NOT_OK(Finish(key_views, sessions));
  runtime_->metrics.all_removals_time_ms += MillisSince(removals_start);
  RecordStoreMetrics(*runtime_);
  return Status::OK();
}

Result<RecordBatchPtr> SessionWindowAggregateOperator::Next() {
  if (!consumed_) {
    consumed_ = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("session window aggregate"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                            NextSlice(node_->Schema(), result_columns_, result_rows_,
                                      &emitted_rows_, context_.eval.pool));
  if (batch == nullptr) {
    result_columns_.clear();
    decoded_.clear();
    arenas_.clear();
  }
  return batch;
}

}  // namespace tributary::exec

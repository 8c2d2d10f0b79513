// State rows of a streaming aggregation, one per group, in the store of the group's partition
// (StablePartition of the key bytes):
//   key    = the group's grouping key (exec/row_key.h: the key columns, grouping-encoded)
//   value  = format: u8 (kStateFormatVersion, 1) aggregate-state*
//   aggregate-state = valid: u8 (1), length: u32, then Accumulator::SerializeState's bytes for
//            that aggregate (one per aggregate call of the node, in order; grammars in
//            exec/aggregate/*.cc)
// After the format byte, a value is the grouping encoding (exec/row_key.h) of a row of one
// non-null binary column per aggregate: the state schema the checkpoint's operator metadata
// records, which is how `tributary state` prints it.
// Integers are in native byte order (little-endian on every platform tributary builds for).

#include "exec/stateful_aggregate.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/hash_aggregate.h"
#include "exec/stateful_rows.h"

namespace tributary::exec {

StatefulAggregateOperator::StatefulAggregateOperator(
    std::shared_ptr<const StatefulAggregateNode> node, OperatorPtr input,
    const ExecContext& context)
    : node_(std::move(node)),
      input_(std::move(input)),
      context_(context),
      runtime_(node_->Runtime().get()),
      state_(context.pool) {}

Result<std::vector<std::unique_ptr<Accumulator>>> StatefulAggregateOperator::MakeAccumulators()
    const {
  std::vector<std::unique_ptr<Accumulator>> accumulators;
  for (const AggregateCall& call : node_->Aggregates()) {
    size_t value_arguments = 0;
    TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                              MakeAccumulator(call, context_.pool, &value_arguments));
    accumulators.push_back(std::move(accumulator));
  }
  return accumulators;
}

Status StatefulAggregateOperator::Deserialize(
    std::vector<std::unique_ptr<Accumulator>>& accumulators, int32_t group, std::string_view key,
    std::string_view value) const {
  const auto corrupt = [&](std::string_view problem) {
    return Status::Corruption(
        fmt::format("state of group {}: {}", DescribeGroupingKey(node_->Keys(), key), problem));
  };
  if (value.empty() || value[0] != kStateFormatVersion) {
    return corrupt(value.empty() ? "empty value"
                                 : fmt::format("unknown state format {}",
                                               static_cast<int>(static_cast<uint8_t>(value[0]))));
  }
  value.remove_prefix(1);
  for (size_t a = 0; a < accumulators.size(); ++a) {
    uint32_t size = 0;
    if (value.size() < 1 + sizeof(size) || value[0] != 1) {
      return corrupt(fmt::format("truncated or null before aggregate {}", a));
    }
    std::memcpy(&size, value.data() + 1, sizeof(size));
    value.remove_prefix(1 + sizeof(size));
    if (value.size() < size) {
      return corrupt(fmt::format("aggregate {} needs {} bytes, {} left", a, size, value.size()));
    }
    const Status status = accumulators[a]->DeserializeState(group, value.substr(0, size));
    if (!status.ok()) {
      return status.WithContext(fmt::format("state of group {}, {}",
                                            DescribeGroupingKey(node_->Keys(), key),
                                            node_->Aggregates()[a].function));
    }
    value.remove_prefix(size);
  }
  if (!value.empty()) {
    return corrupt(fmt::format("{} bytes after the aggregates", value.size()));
  }
  return Status::OK();
}

Status StatefulAggregateOperator::CacheGroup(size_t partition, std::string_view key,
                                             std::string_view value) {
  std::optional<int64_t> event_time;
  if (const std::optional<int>& event_time_key = node_->EventTimeKey()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        event_time, EventTimeInKey(key_types_, static_cast<size_t>(*event_time_key), key));
  }
  auto& groups = cache_->partitions[partition];
  auto found = groups.find(key);
  if (found == groups.end()) {
    found = groups.emplace(std::string(key), AggregateStateCache::Group{}).first;
    cache_->bytes += static_cast<int64_t>(key.size()) + AggregateStateCache::kGroupOverhead;
  }
  cache_->bytes +=
      static_cast<int64_t>(value.size()) - static_cast<int64_t>(found->second.value.size());
  found->second.event_time = event_time;
  found->second.value.assign(value);
  DropStateCacheIfTooLarge(&cache_);
  return Status::OK();
}

Status StatefulAggregateOperator::TakeCache() {
  bool rebuild = false;
  cache_ = TakeStateCache(*runtime_, runtime_->aggregate_cache, &rebuild);
  if (!rebuild) {
    return Status::OK();
  }
  for (size_t p = 0; p < runtime_->partitions.size() && cache_ != nullptr; ++p) {
    TRIBUTARY_RETURN_NOT_OK(
        runtime_->partitions[p]->ForEach([&](std::string_view key, std::string_view value) {
          return cache_ == nullptr ? Status::OK() : CacheGroup(p, key, value);
        }));
  }
  return Status::OK();
}

Status StatefulAggregateOperator::LoadState(int64_t first_group) {
  const auto partitions = static_cast<int32_t>(runtime_->partitions.size());
  const auto groups = static_cast<size_t>(state_.touched.NumGroups());
  state_.partition.resize(groups);
  state_.existed.resize(groups);
  for (auto g = static_cast<size_t>(first_group); g < groups; ++g) {
    const std::string_view key = state_.touched.KeyOf(static_cast<int64_t>(g));
    const int32_t partition = StablePartition(key, partitions);
    state_.partition[g] = partition;
    if (cache_ != nullptr) {
      const auto& cached = cache_->partitions[static_cast<size_t>(partition)];
      const auto found = cached.find(key);
      state_.existed[g] = found != cached.end() ? 1 : 0;
      if (found != cached.end()) {
        TRIBUTARY_RETURN_NOT_OK(
            Deserialize(state_.accumulators, static_cast<int32_t>(g), key, found->second.value));
      }
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> value,
                              runtime_->partitions[static_cast<size_t>(partition)]->Get(key));
    state_.existed[g] = value.has_value() ? 1 : 0;
    if (value) {
      TRIBUTARY_RETURN_NOT_OK(
          Deserialize(state_.accumulators, static_cast<int32_t>(g), key, *value));
    }
  }
  return Status::OK();
}

Status StatefulAggregateOperator::ConsumeInput() {
  const std::vector<expr::BoundExprPtr>& keys = node_->Keys();
  const std::vector<AggregateCall>& aggregates = node_->Aggregates();
  const std::optional<int>& event_time_key = node_->EventTimeKey();
  // Spark's StateStoreSaveExec filters late rows in append and update mode only.
  const bool drop_late = event_time_key.has_value() &&
                         runtime_->late_rows_watermark_micros.has_value() &&
                         runtime_->output_mode != OutputMode::kComplete;
  const GroupNamer namer = [this](int32_t group) {
    return DescribeGroupingKey(node_->Keys(), state_.touched.KeyOf(group));
  };
  EncodedKeys encoded;
  std::vector<int32_t> group_ids;
  std::vector<ColumnPtr> key_columns;
  std::vector<ColumnPtr> arguments;
  std::vector<uint8_t> late;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    if (batch->NumRows() == 0) {
      continue;
    }
    key_columns.clear();
    for (const expr::BoundExprPtr& key : keys) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*key, *batch, context_.eval));
      key_columns.push_back(std::move(column));
    }
    if (drop_late && MarkLateRows(*key_columns[static_cast<size_t>(*event_time_key)],
                                  *runtime_->late_rows_watermark_micros, &late) > 0) {
      std::vector<int64_t> kept;
      std::vector<int64_t> dropped;
      for (int64_t i = 0; i < batch->NumRows(); ++i) {
        (late[static_cast<size_t>(i)] != 0 ? dropped : kept).push_back(i);
      }
      std::vector<ColumnPtr> late_keys;
      for (ColumnPtr& column : key_columns) {
        TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr late_column,
                                  columnar::Take(*column, dropped, context_.eval.pool));
        late_keys.push_back(std::move(late_column));
        TRIBUTARY_ASSIGN_OR_RAISE(column, columnar::Take(*column, kept, context_.eval.pool));
      }
      EncodeGroupingKeys(late_keys, static_cast<int64_t>(dropped.size()), &encoded);
      group_ids.resize(dropped.size());
      TRIBUTARY_RETURN_NOT_OK(state_.late.FindOrInsert(encoded, group_ids.data()));
      TRIBUTARY_ASSIGN_OR_RAISE(batch, columnar::TakeRows(*batch, kept, context_.eval.pool));
      if (batch->NumRows() == 0) {
        continue;
      }
    }
    const int64_t rows = batch->NumRows();
    EncodeGroupingKeys(key_columns, rows, &encoded);
    group_ids.resize(static_cast<size_t>(rows));
    const int64_t known_groups = state_.touched.NumGroups();
    TRIBUTARY_RETURN_NOT_OK(state_.touched.FindOrInsert(encoded, group_ids.data()));
    for (const auto& accumulator : state_.accumulators) {
      TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(state_.touched.NumGroups()));
    }
    TRIBUTARY_RETURN_NOT_OK(LoadState(known_groups));
    for (size_t a = 0; a < aggregates.size(); ++a) {
      arguments.clear();
      for (size_t i = 0; i < value_arguments_[a]; ++i) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            ColumnPtr column, expr::Evaluate(*aggregates[a].arguments[i], *batch, context_.eval));
        arguments.push_back(std::move(column));
      }
      TRIBUTARY_RETURN_NOT_OK(
          state_.accumulators[a]
              ->Update(arguments, group_ids.data(), rows, namer)
              .WithContext(fmt::format("computing {}", aggregates[a].function)));
    }
  }
  if (keys.empty() && state_.touched.NumGroups() == 0) {
    // An aggregate without GROUP BY has its one row from the first batch on.
    EncodeGroupingKeys({}, 1, &encoded);
    int32_t group = 0;
    TRIBUTARY_RETURN_NOT_OK(state_.touched.FindOrInsert(encoded, &group));
    for (const auto& accumulator : state_.accumulators) {
      TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(1));
    }
    TRIBUTARY_RETURN_NOT_OK(LoadState(0));
  }
  runtime_->metrics.num_rows_dropped_by_watermark += state_.late.NumGroups();
  return Status::OK();
}

Status StatefulAggregateOperator::SaveState() {
  // Each partition's groups in key byte order: a store on an ordered structure (RocksDB's
  // memtable skiplist) then inserts each key next to the last one instead of searching.
  std::vector<int32_t> order(static_cast<size_t>(state_.touched.NumGroups()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const int32_t partition_a = state_.partition[static_cast<size_t>(a)];
    const int32_t partition_b = state_.partition[static_cast<size_t>(b)];
    return partition_a != partition_b ? partition_a < partition_b
                                      : state_.touched.KeyOf(a) < state_.touched.KeyOf(b);
  });
  std::string value;
  std::string aggregate_state;
  for (const int32_t g : order) {
    value.assign(1, kStateFormatVersion);
    for (const auto& accumulator : state_.accumulators) {
      aggregate_state.clear();
      TRIBUTARY_RETURN_NOT_OK(
          accumulator->SerializeState(static_cast<int32_t>(g), &aggregate_state));
      const auto size = static_cast<uint32_t>(aggregate_state.size());
      value.push_back(1);  // valid: the binary column's null flag
      value.append(reinterpret_cast<const char*>(&size), sizeof(size));
      value.append(aggregate_state);
    }
    const auto partition = static_cast<size_t>(state_.partition[g]);
    const std::string_view key = state_.touched.KeyOf(g);
    TRIBUTARY_RETURN_NOT_OK(
        runtime_->partitions[partition]->PutKnown(key, value, state_.existed[g] != 0));
    if (cache_ != nullptr) {
      TRIBUTARY_RETURN_NOT_OK(CacheGroup(partition, key, value));
    }
  }
  runtime_->metrics.num_rows_updated += state_.touched.NumGroups();
  return Status::OK();
}

Status StatefulAggregateOperator::FinishTouched() {
  const int64_t groups = state_.touched.NumGroups();
  std::vector<std::string_view> keys(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    keys[static_cast<size_t>(g)] = state_.touched.KeyOf(g);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state_.result_columns,
                            DecodeGroupingKeys(key_types_, keys, context_.eval.pool));
  const GroupNamer namer = [&](int32_t group) {
    return DescribeGroupingKey(node_->Keys(), keys[static_cast<size_t>(group)]);
  };
  for (size_t a = 0; a < state_.accumulators.size(); ++a) {
    const DataTypePtr& type =
        node_->Schema()->FieldAt(static_cast<int>(key_types_.size() + a)).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(
        ColumnPtr column, state_.accumulators[a]->Finish(groups, type, namer, context_.eval.pool));
    state_.result_columns.push_back(std::move(column));
  }
  state_.result_rows = groups;
  return Status::OK();
}

Status StatefulAggregateOperator::FinishFromState(const std::vector<std::string>& keys,
                                                  const std::vector<std::string>& values) {
  const auto groups = static_cast<int64_t>(keys.size());
  TRIBUTARY_ASSIGN_OR_RAISE(auto accumulators, MakeAccumulators());
  for (const auto& accumulator : accumulators) {
    TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(groups));
  }
  std::vector<std::string_view> key_views;
  for (size_t g = 0; g < keys.size(); ++g) {
    TRIBUTARY_RETURN_NOT_OK(ValidateGroupingKey(key_types_, keys[g]).WithContext("state key"));
    TRIBUTARY_RETURN_NOT_OK(Deserialize(accumulators, static_cast<int32_t>(g), keys[g], values[g]));
    key_views.push_back(keys[g]);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state_.result_columns,
                            DecodeGroupingKeys(key_types_, key_views, context_.eval.pool));
  const GroupNamer namer = [&](int32_t group) {
    return DescribeGroupingKey(node_->Keys(), key_views[static_cast<size_t>(group)]);
  };
  for (size_t a = 0; a < accumulators.size(); ++a) {
    const DataTypePtr& type =
        node_->Schema()->FieldAt(static_cast<int>(key_types_.size() + a)).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                              accumulators[a]->Finish(groups, type, namer, context_.eval.pool));
    state_.result_columns.push_back(std::move(column));
  }
  state_.result_rows = groups;
  return Status::OK();
}

Status StatefulAggregateOperator::Evict(
    const std::function<void(std::string_view, std::string_view)>& visit) {
  const std::optional<int>& event_time_key = node_->EventTimeKey();
  if (!event_time_key || !runtime_->eviction_watermark_micros) {
    return Status::OK();
  }
  const int64_t watermark = *runtime_->eviction_watermark_micros;
  if (runtime_->late_rows_watermark_micros == watermark) {
    // Spark 3.5: this batch's late-row watermark is the last batch's eviction watermark.
    return Status::OK();
  }
  if (cache_ != nullptr) {
    for (size_t p = 0; p < cache_->partitions.size(); ++p) {
      auto& groups = cache_->partitions[p];
      for (auto it = groups.begin(); it != groups.end();) {
        const AggregateStateCache::Group& group = it->second;
        if (!group.event_time || *group.event_time > watermark) {
          ++it;
          continue;
        }
        visit(it->first, group.value);
        ++runtime_->metrics.num_rows_removed;
        TRIBUTARY_RETURN_NOT_OK(runtime_->partitions[p]->RemoveExisting(it->first));
        cache_->bytes -= static_cast<int64_t>(it->first.size() + group.value.size()) +
                         AggregateStateCache::kGroupOverhead;
        it = groups.erase(it);
      }
    }
    return Status::OK();
  }
  for (StateStore* store : runtime_->partitions) {
    TRIBUTARY_RETURN_NOT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          std::optional<int64_t> event_time,
          EventTimeInKey(key_types_, static_cast<size_t>(*event_time_key), key));
      if (!event_time || *event_time > watermark) {
        return Status::OK();
      }
      visit(key, value);
      ++runtime_->metrics.num_rows_removed;
      return store->RemoveExisting(key);
    }));
  }
  return Status::OK();
}

Status StatefulAggregateOperator::Consume() {
  if (runtime_ == nullptr || runtime_->partitions.empty()) {
    return Status::InvalidArgument("stateful aggregate: no state partitions for this batch");
  }
  const std::vector<expr::BoundExprPtr>& keys = node_->Keys();
  for (size_t k = 0; k < keys.size(); ++k) {
    key_types_.push_back(node_->Schema()->FieldAt(static_cast<int>(k)).Type());
  }
  const std::optional<int>& event_time_key = node_->EventTimeKey();
  if (event_time_key) {
    TRIBUTARY_RETURN_NOT_OK(
        CheckEventTimeType(*key_types_[static_cast<size_t>(*event_time_key)],
                           keys[static_cast<size_t>(*event_time_key)]->ToString()));
  } else if (runtime_->output_mode == OutputMode::kAppend) {
    return Status::InvalidArgument(
        "stateful aggregate: append output mode needs a watermarked event-time grouping key");
  }
  value_arguments_.clear();
  for (const AggregateCall& call : node_->Aggregates()) {
    size_t value_arguments = 0;
    TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                              MakeAccumulator(call, context_.pool, &value_arguments));
    state_.accumulators.push_back(std::move(accumulator));
    value_arguments_.push_back(value_arguments);
  }
  TRIBUTARY_RETURN_NOT_OK(TakeCache());
  const auto updates_start = std::chrono::steady_clock::now();
  TRIBUTARY_RETURN_NOT_OK(ConsumeInput());
  TRIBUTARY_RETURN_NOT_OK(SaveState());
  runtime_->metrics.all_updates_time_ms += MillisSince(updates_start);

  const auto removals_start = std::chrono::steady_clock::now();
  switch (runtime_->output_mode) {
    case OutputMode::kUpdate:
      TRIBUTARY_RETURN_NOT_OK(FinishTouched());
      TRIBUTARY_RETURN_NOT_OK(Evict([](std::string_view, std::string_view) {}));
      break;
    case OutputMode::kComplete: {
      std::vector<std::string> state_keys;
      std::vector<std::string> state_values;
      if (cache_ != nullptr) {
        for (const auto& groups : cache_->partitions) {
          for (const auto& [key, group] : groups) {
            state_keys.push_back(key);
            state_values.push_back(group.value);
          }
        }
      } else {
        for (StateStore* store : runtime_->partitions) {
          TRIBUTARY_RETURN_NOT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
            state_keys.emplace_back(key);
            state_values.emplace_back(value);
            return Status::OK();
          }));
        }
      }
      TRIBUTARY_RETURN_NOT_OK(FinishFromState(state_keys, state_values));
      break;
    }
    case OutputMode::kAppend: {
      std::vector<std::string> evicted_keys;
      std::vector<std::string> evicted_values;
      TRIBUTARY_RETURN_NOT_OK(Evict([&](std::string_view key, std::string_view value) {
        evicted_keys.emplace_back(key);
        evicted_values.emplace_back(value);
      }));
      TRIBUTARY_RETURN_NOT_OK(FinishFromState(evicted_keys, evicted_values));
      break;
    }
  }
  runtime_->metrics.all_removals_time_ms += MillisSince(removals_start);
  if (cache_ != nullptr) {
    // What the stores hold once the streaming layer commits this batch.
    cache_->version = *runtime_->state_version + 1;
  }
  state_.accumulators.clear();
  RecordStoreMetrics(*runtime_);
  return Status::OK();
}

Result<RecordBatchPtr> StatefulAggregateOperator::Next() {
  if (!state_.consumed) {
    state_.consumed = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("stateful aggregate"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                            NextSlice(node_->Schema(), state_.result_columns, state_.result_rows,
                                      &state_.emitted_rows, context_.eval.pool));
  if (batch == nullptr) {
    state_.result_columns.clear();
  }
  return batch;
}

}  // namespace tributary::exec

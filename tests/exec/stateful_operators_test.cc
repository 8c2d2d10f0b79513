// The stateful streaming operators over in-memory state stores: streaming aggregation in the
// three output modes with watermark eviction and late rows, deduplication with and without a
// watermark, dropDuplicatesWithinWatermark, and the partitioning of state by key.

#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/hash_aggregate.h"
#include "exec/in_memory_state_store.h"
#include "exec/operator_io.h"
#include "exec/stateful_aggregate.h"
#include "exec/streaming_deduplicate.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

constexpr int64_t kMinute = 60'000'000;

columnar::SchemaPtr EventSchema() {
  return MakeSchema({
      Field("ts", DataType::Timestamp()),
      Field("w", DataType::Struct(
                     {Field("start", DataType::Timestamp()), Field("end", DataType::Timestamp())})),
      Field("k", DataType::String()),
      Field("v", DataType::Int64()),
  });
}

// One event row: ts in minutes, its 10-minute window, key and value.
std::string Event(int64_t minute, std::string_view key, int64_t value) {
  const int64_t start = minute / 10 * 10;
  return fmt::format(R"({{"ts": {}, "w": {{"start": {}, "end": {}}}, "k": "{}", "v": {}}})",
                     minute * kMinute, start * kMinute, (start + 10) * kMinute, key, value);
}

RecordBatchPtr Events(const std::vector<std::string>& events) {
  std::string json = "[";
  for (size_t i = 0; i < events.size(); ++i) {
    json += (i > 0 ? "," : "") + events[i];
  }
  auto batch = BatchFromJson(EventSchema(), json + "]");
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

struct AggregateSpec {
  std::string name;
  std::string function;
  std::vector<expr::ExprPtr> arguments;
};

// One streaming aggregation over the partitions of `state`; each RunBatch is one micro-batch.
class StreamingAggregation {
 public:
  StreamingAggregation(InMemoryPartitions* state, std::vector<std::string> keys,
                       std::vector<AggregateSpec> specs, std::optional<int> event_time_key)
      : state_(state),
        keys_(std::move(keys)),
        specs_(std::move(specs)),
        event_time_key_(event_time_key) {}

  Result<std::vector<std::string>> RunBatch(const RecordBatchPtr& input, OutputMode mode,
                                            std::optional<int64_t> late_minutes = {},
                                            std::optional<int64_t> eviction_minutes = {}) {
    StatefulOperatorRuntime& runtime = *state_->runtime;
    runtime.output_mode = mode;
    runtime.late_rows_watermark_micros =
        late_minutes ? std::optional<int64_t>(*late_minutes * kMinute) : std::nullopt;
    runtime.eviction_watermark_micros =
        eviction_minutes ? std::optional<int64_t>(*eviction_minutes * kMinute) : std::nullopt;
    runtime.metrics = {};
    const columnar::SchemaPtr schema = EventSchema();
    std::vector<expr::BoundExprPtr> bound_keys;
    std::vector<Field> fields;
    for (const std::string& key : keys_) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*expr::Col(key), *schema));
      fields.emplace_back(key, bound->Type());
      bound_keys.push_back(std::move(bound));
    }
    std::vector<AggregateCall> calls;
    for (const AggregateSpec& spec : specs_) {
      AggregateCall call{spec.function, {}, false};
      std::vector<columnar::DataTypePtr> types;
      for (const expr::ExprPtr& argument : spec.arguments) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*argument, *schema));
        types.push_back(bound->Type());
        call.arguments.push_back(std::move(bound));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto type, AggregateResultType(spec.function, types, false));
      fields.emplace_back(spec.name, type);
      calls.push_back(std::move(call));
    }
    auto node = std::make_shared<StatefulAggregateNode>(
        Source(schema, input == nullptr ? std::vector<RecordBatchPtr>{}
                                        : std::vector<RecordBatchPtr>{input}),
        std::move(bound_keys), std::move(calls), MakeSchema(fields), event_time_key_,
        state_->runtime);
    ExecContext context;
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr op, InstantiateOperators(node, context));
    return RowsOf(*op);
  }

  const StateOperatorMetrics& Metrics() const { return state_->runtime->metrics; }

 private:
  InMemoryPartitions* state_;
  std::vector<std::string> keys_;
  std::vector<AggregateSpec> specs_;
  std::optional<int> event_time_key_;
};

std::vector<AggregateSpec> CountAndSum() {
  return {{"n", "count", {}}, {"total", "sum", {expr::Col("v")}}};
}

// A timestamp as canonical JSON prints it, for minutes below an hour.
std::string Time(int64_t minute) {
  return fmt::format(R"("1970-01-01T00:{:02}:00.000000Z")", minute);
}

std::string Window(int64_t start_minute) {
  return fmt::format(R"({{"start":{},"end":{}}})", Time(start_minute), Time(start_minute + 10));
}

TEST(StatefulAggregateTest, UpdateModeEmitsTheGroupsEachBatchChanged) {
  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  ASSERT_OK_AND_ASSIGN(
      auto first,
      aggregation.RunBatch(Events({Event(1, "a", 1), Event(2, "a", 2), Event(3, "b", 5)}),
                           OutputMode::kUpdate));
  EXPECT_EQ(first, (std::vector<std::string>{R"({"k":"a","n":2,"total":3})",
                                             R"({"k":"b","n":1,"total":5})"}));
  EXPECT_EQ(aggregation.Metrics().num_rows_updated, 2);
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 2);
  ASSERT_OK_AND_ASSIGN(
      auto second,
      aggregation.RunBatch(Events({Event(4, "a", 10), Event(5, "c", 1)}), OutputMode::kUpdate));
  EXPECT_EQ(second, (std::vector<std::string>{R"({"k":"a","n":3,"total":13})",
                                              R"({"k":"c","n":1,"total":1})"}));
  EXPECT_EQ(aggregation.Metrics().num_rows_updated, 2);
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 3);
  EXPECT_EQ(aggregation.Metrics().num_rows_removed, 0);
  EXPECT_GT(aggregation.Metrics().memory_used_bytes, 0);
  // A batch without rows changes nothing and emits nothing.
  ASSERT_OK_AND_ASSIGN(auto empty, aggregation.RunBatch(nullptr, OutputMode::kUpdate));
  EXPECT_TRUE(empty.empty());
}

TEST(StatefulAggregateTest, CompleteModeEmitsEveryGroupEveryBatch) {
  InMemoryPartitions state(3);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  ASSERT_OK_AND_ASSIGN(
      auto first,
      aggregation.RunBatch(Events({Event(1, "a", 1), Event(3, "b", 5)}), OutputMode::kComplete));
  EXPECT_EQ(Sorted(first), (std::vector<std::string>{R"({"k":"a","n":1,"total":1})",
                                                     R"({"k":"b","n":1,"total":5})"}));
  // Complete mode neither drops late rows nor evicts (Spark's StateStoreSaveExec).
  ASSERT_OK_AND_ASSIGN(auto second,
                       aggregation.RunBatch(Events({Event(4, "a", 10), Event(5, "c", 1)}),
                                            OutputMode::kComplete, 100, 100));
  EXPECT_EQ(Sorted(second), (std::vector<std::string>{R"({"k":"a","n":2,"total":11})",
                                                      R"({"k":"b","n":1,"total":5})",
                                                      R"({"k":"c","n":1,"total":1})"}));
  ASSERT_OK_AND_ASSIGN(auto third, aggregation.RunBatch(nullptr, OutputMode::kComplete));
  EXPECT_EQ(Sorted(third), Sorted(second));
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 3);
}

TEST(StatefulAggregateTest, GlobalAggregateHasOneRowFromTheFirstBatch) {
  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {}, CountAndSum(), std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto first, aggregation.RunBatch(nullptr, OutputMode::kComplete));
  EXPECT_EQ(first, (std::vector<std::string>{R"({"n":0,"total":null})"}));
  ASSERT_OK_AND_ASSIGN(
      auto second,
      aggregation.RunBatch(Events({Event(1, "a", 4), Event(2, "b", 6)}), OutputMode::kComplete));
  EXPECT_EQ(second, (std::vector<std::string>{R"({"n":2,"total":10})"}));
  ASSERT_OK_AND_ASSIGN(auto third,
                       aggregation.RunBatch(Events({Event(3, "a", 1)}), OutputMode::kUpdate));
  EXPECT_EQ(third, (std::vector<std::string>{R"({"n":3,"total":11})"}));
}

// Windows of 10 minutes keyed by (w, k), the event time being the window.
TEST(StatefulAggregateTest, AppendModeEmitsAWindowOnceWhenTheWatermarkPassesItsEnd) {
  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {"w", "k"}, CountAndSum(), 0);
  // Batch 0: no watermark yet; nothing can be final.
  ASSERT_OK_AND_ASSIGN(
      auto batch0,
      aggregation.RunBatch(Events({Event(1, "a", 1), Event(9, "a", 2), Event(12, "a", 4)}),
                           OutputMode::kAppend));
  EXPECT_TRUE(batch0.empty());
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 2);
  // Batch 1: the watermark for eviction reaches 10:00, the end of [0, 10): that window is
  // final, with this batch's row folded in first (the late-row watermark is still unset).
  ASSERT_OK_AND_ASSIGN(auto batch1,
                       aggregation.RunBatch(Events({Event(5, "a", 8), Event(15, "a", 16)}),
                                            OutputMode::kAppend, std::nullopt, 10));
  EXPECT_EQ(
      batch1,
      (std::vector<std::string>{fmt::format(R"({{"w":{},"k":"a","n":3,"total":11}})", Window(0))}));
  EXPECT_EQ(aggregation.Metrics().num_rows_removed, 1);
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 1);
  // Batch 2: rows of [0, 10) are late (end 10:00 <= 10:00) and dropped, counted once per
  // group as Spark counts the aggregated rows; [10, 20) closes at 25:00.
  ASSERT_OK_AND_ASSIGN(auto batch2,
                       aggregation.RunBatch(Events({Event(2, "a", 100), Event(3, "a", 100),
                                                    Event(4, "b", 100), Event(19, "a", 32)}),
                                            OutputMode::kAppend, 10, 25));
  EXPECT_EQ(batch2, (std::vector<std::string>{
                        fmt::format(R"({{"w":{},"k":"a","n":3,"total":52}})", Window(10))}));
  EXPECT_EQ(aggregation.Metrics().num_rows_dropped_by_watermark, 2);
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 0);
  // A no-data batch emits nothing more.
  ASSERT_OK_AND_ASSIGN(auto batch3, aggregation.RunBatch(nullptr, OutputMode::kAppend, 25, 30));
  EXPECT_TRUE(batch3.empty());
}

TEST(StatefulAggregateTest, UpdateModeRemovesGroupsBelowTheWatermarkWithoutEmittingThem) {
  InMemoryPartitions state(2);
  StreamingAggregation aggregation(&state, {"w"}, CountAndSum(), 0);
  ASSERT_OK_AND_ASSIGN(
      auto batch0,
      aggregation.RunBatch(Events({Event(1, "a", 1), Event(11, "a", 2)}), OutputMode::kUpdate));
  EXPECT_EQ(Sorted(batch0), Sorted({fmt::format(R"({{"w":{},"n":1,"total":1}})", Window(0)),
                                    fmt::format(R"({{"w":{},"n":1,"total":2}})", Window(10))}));
  ASSERT_OK_AND_ASSIGN(auto batch1, aggregation.RunBatch(Events({Event(12, "a", 3)}),
                                                         OutputMode::kUpdate, std::nullopt, 10));
  EXPECT_EQ(batch1,
            (std::vector<std::string>{fmt::format(R"({{"w":{},"n":2,"total":5}})", Window(10))}));
  EXPECT_EQ(aggregation.Metrics().num_rows_removed, 1);
  EXPECT_EQ(aggregation.Metrics().num_rows_total, 1);
  // [0, 10) is late now; its state is gone, so it is not emitted again.
  ASSERT_OK_AND_ASSIGN(
      auto batch2, aggregation.RunBatch(Events({Event(3, "a", 7)}), OutputMode::kUpdate, 10, 10));
  EXPECT_TRUE(batch2.empty());
  EXPECT_EQ(aggregation.Metrics().num_rows_dropped_by_watermark, 1);
}

TEST(StatefulAggregateTest, TimestampKeyIsEvictedAtOrBelowTheWatermark) {
  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {"ts"}, CountAndSum(), 0);
  ASSERT_OK_AND_ASSIGN(auto batch0,
                       aggregation.RunBatch(Events({Event(1, "a", 1), Event(2, "a", 2),
                                                    Event(2, "b", 3), Event(3, "a", 4)}),
                                            OutputMode::kAppend));
  EXPECT_TRUE(batch0.empty());
  ASSERT_OK_AND_ASSIGN(auto batch1,
                       aggregation.RunBatch(nullptr, OutputMode::kAppend, std::nullopt, 2));
  EXPECT_EQ(Sorted(batch1), Sorted({fmt::format(R"({{"ts":{},"n":1,"total":1}})", Time(1)),
                                    fmt::format(R"({{"ts":{},"n":2,"total":5}})", Time(2))}));
}

TEST(StatefulAggregateTest, AppendWithoutAnEventTimeKeyIsRefused) {
  InMemoryPartitions state(1);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  auto rows = aggregation.RunBatch(Events({Event(1, "a", 1)}), OutputMode::kAppend);
  EXPECT_EQ(rows.status().Code(), StatusCode::kInvalidArgument);
}

// Every aggregate family through the state stores in small micro-batches ends, in complete
// mode, with the one-shot batch result.
TEST(StatefulAggregateTest, MicroBatchesEndWithTheBatchResult) {
  const auto c = [](std::string_view name) {
    return expr::Col(name);
  };
  const std::vector<AggregateSpec> specs = {
      {"n", "count", {}},
      {"total", "sum", {c("v")}},
      {"mean", "avg", {c("v")}},
      {"lo", "min", {c("k")}},
      {"hi", "max", {c("ts")}},
      {"first_k", "first", {c("k")}},
      {"last_v", "last", {c("v")}},
      {"ks", "collect_list", {c("k")}},
      {"distinct_k", "collect_set", {c("k")}},
      {"sd", "stddev_samp", {c("v")}},
      {"approx", "approx_count_distinct", {c("k")}},
  };
  std::vector<std::string> events;
  events.reserve(60);
  for (int i = 0; i < 60; ++i) {
    events.push_back(Event(i % 7, std::string(1, static_cast<char>('a' + i % 5)), i * 3 % 11));
  }
  const RecordBatchPtr all = Events(events);
  // The batch result, from HashAggregateOperator.
  std::vector<expr::BoundExprPtr> keys = {BindOrDie(c("w"), *EventSchema())};
  std::vector<AggregateCall> calls;
  std::vector<Field> fields = {Field("w", keys[0]->Type())};
  for (const AggregateSpec& spec : specs) {
    AggregateCall call{spec.function, {}, false};
    std::vector<columnar::DataTypePtr> types;
    for (const expr::ExprPtr& argument : spec.arguments) {
      call.arguments.push_back(BindOrDie(argument, *EventSchema()));
      types.push_back(call.arguments.back()->Type());
    }
    ASSERT_OK_AND_ASSIGN(auto type, AggregateResultType(spec.function, types, false));
    fields.emplace_back(spec.name, type);
    calls.push_back(std::move(call));
  }
  ExecContext context;
  OperatorPtr batch_op =
      Instantiate(std::make_shared<HashAggregateNode>(Source(EventSchema(), {all}), keys, calls,
                                                      MakeSchema(fields)),
                  context);
  ASSERT_OK_AND_ASSIGN(auto expected, RowsOf(*batch_op));

  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {"w"}, specs, 0);
  std::vector<RecordBatchPtr> micro_batches = Split(all, 7);
  for (size_t b = 0; b + 1 < micro_batches.size(); ++b) {
    ASSERT_OK(aggregation.RunBatch(micro_batches[b], OutputMode::kUpdate).status());
  }
  ASSERT_OK_AND_ASSIGN(auto actual,
                       aggregation.RunBatch(micro_batches.back(), OutputMode::kComplete));
  EXPECT_EQ(Sorted(actual), Sorted(expected));
}

TEST(StatefulAggregateTest, CorruptStateIsReported) {
  InMemoryPartitions state(1);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  ASSERT_OK(aggregation.RunBatch(Events({Event(1, "a", 1)}), OutputMode::kUpdate).status());
  ASSERT_EQ(state.stores[0].Rows().size(), 1u);
  const std::string key = state.stores[0].Rows().begin()->first;
  ASSERT_OK(state.stores[0].Put(key, std::string("\x01\x08\x00\x00", 4)));
  auto rows = aggregation.RunBatch(Events({Event(2, "a", 1)}), OutputMode::kUpdate);
  EXPECT_EQ(rows.status().Code(), StatusCode::kCorruption) << rows.status().ToString();
  ASSERT_OK(state.stores[0].Put(key, std::string("\x02", 1)));
  rows = aggregation.RunBatch(Events({Event(2, "a", 1)}), OutputMode::kUpdate);
  EXPECT_EQ(rows.status().Code(), StatusCode::kCorruption) << rows.status().ToString();
}

// The same batches with and without the groups kept in memory across batches (a runtime
// state_version, as the streaming layer sets it): same rows, metrics and stores.
TEST(StatefulAggregateTest, GroupsKeptInMemoryAcrossBatchesMatchTheStores) {
  struct Batch {
    std::vector<std::string> events;
    OutputMode mode;
    std::optional<int64_t> late;
    std::optional<int64_t> eviction;
  };
  const std::vector<Batch> batches = {
      {{Event(1, "a", 1), Event(9, "a", 2), Event(12, "b", 4)}, OutputMode::kAppend, {}, {}},
      {{Event(5, "a", 8), Event(15, "a", 16)}, OutputMode::kAppend, {}, 10},
      {{Event(2, "a", 100), Event(19, "b", 32), Event(31, "a", 1)}, OutputMode::kAppend, 10, 25},
      {{}, OutputMode::kAppend, 25, 25},
      {{Event(33, "c", 5)}, OutputMode::kUpdate, 25, 30},
      {{Event(38, "a", 7)}, OutputMode::kComplete, 30, 40},
      {{}, OutputMode::kAppend, 40, 45},
  };
  InMemoryPartitions plain(3);
  InMemoryPartitions cached(3);
  StreamingAggregation plain_aggregation(&plain, {"w", "k"}, CountAndSum(), 0);
  StreamingAggregation cached_aggregation(&cached, {"w", "k"}, CountAndSum(), 0);
  for (size_t b = 0; b < batches.size(); ++b) {
    SCOPED_TRACE(b);
    const Batch& batch = batches[b];
    const RecordBatchPtr input = batch.events.empty() ? nullptr : Events(batch.events);
    cached.runtime->state_version = static_cast<int64_t>(b);
    ASSERT_OK_AND_ASSIGN(auto expected,
                         plain_aggregation.RunBatch(input, batch.mode, batch.late, batch.eviction));
    ASSERT_OK_AND_ASSIGN(
        auto actual, cached_aggregation.RunBatch(input, batch.mode, batch.late, batch.eviction));
    EXPECT_EQ(actual, expected);
    EXPECT_EQ(cached_aggregation.Metrics().num_rows_removed,
              plain_aggregation.Metrics().num_rows_removed);
    EXPECT_EQ(cached_aggregation.Metrics().num_rows_total,
              plain_aggregation.Metrics().num_rows_total);
    for (size_t p = 0; p < plain.stores.size(); ++p) {
      EXPECT_EQ(cached.stores[p].Rows(), plain.stores[p].Rows());
    }
  }
  ASSERT_NE(cached.runtime->aggregate_cache, nullptr);
  EXPECT_EQ(cached.runtime->aggregate_cache->version, static_cast<int64_t>(batches.size()));
}

// The groups in memory stand for the version they were written as, and only for it: a batch
// loading another version (a batch run again after a failure) reads the stores.
TEST(StatefulAggregateTest, GroupsInMemoryServeOnlyTheVersionTheyWereWrittenAs) {
  InMemoryPartitions state(1);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  state.runtime->state_version = 0;
  ASSERT_OK(aggregation.RunBatch(Events({Event(1, "a", 1)}), OutputMode::kUpdate).status());
  ASSERT_EQ(state.stores[0].Rows().size(), 1u);
  const std::string key = state.stores[0].Rows().begin()->first;
  // Changed behind the operator's back: version 1 in memory is what the batch reads.
  ASSERT_OK(state.stores[0].Put(key, std::string("\x02", 1)));
  state.runtime->state_version = 1;
  ASSERT_OK_AND_ASSIGN(auto rows,
                       aggregation.RunBatch(Events({Event(2, "a", 1)}), OutputMode::kUpdate));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"k":"a","n":2,"total":2})"}));
  // Version 1 again (a re-run): the groups in memory are version 2's, so the stores are read.
  ASSERT_OK(state.stores[0].Put(key, std::string("\x02", 1)));
  auto rerun = aggregation.RunBatch(Events({Event(2, "a", 1)}), OutputMode::kUpdate);
  EXPECT_EQ(rerun.status().Code(), StatusCode::kCorruption) << rerun.status().ToString();
  // That failed batch left nothing usable in memory: the next one reads the stores too.
  state.runtime->state_version = 2;
  auto after = aggregation.RunBatch(Events({Event(3, "a", 1)}), OutputMode::kUpdate);
  EXPECT_EQ(after.status().Code(), StatusCode::kCorruption) << after.status().ToString();
}

TEST(StatePartitionTest, StablePartitionIsPinned) {
  // Which partition holds a key is recorded in every checkpoint: these must never change
  // (the values were computed independently of this code).
  static_assert(StablePartition("", 1) == 0);
  constexpr int32_t kEmpty = StablePartition("", 200);
  constexpr int32_t kAbc = StablePartition("abc", 200);
  constexpr int32_t kKey = StablePartition(std::string_view("\x01\x03\x00\x00\x00key", 8), 7);
  EXPECT_EQ(kEmpty, 142);
  EXPECT_EQ(kAbc, 37);
  EXPECT_EQ(kKey, 1);
}

TEST(StatePartitionTest, EveryGroupLivesInItsKeysPartitionAndKeysSpread) {
  InMemoryPartitions state(4);
  StreamingAggregation aggregation(&state, {"k"}, CountAndSum(), std::nullopt);
  std::vector<std::string> events;
  events.reserve(400);
  for (int i = 0; i < 400; ++i) {
    events.push_back(Event(1, fmt::format("key{}", i), i));
  }
  ASSERT_OK(aggregation.RunBatch(Events(events), OutputMode::kUpdate).status());
  // Again with the same keys: no key may land in a second partition.
  ASSERT_OK(aggregation.RunBatch(Events(events), OutputMode::kUpdate).status());
  int64_t total = 0;
  for (int p = 0; p < 4; ++p) {
    const auto& rows = state.stores[static_cast<size_t>(p)].Rows();
    total += static_cast<int64_t>(rows.size());
    EXPECT_GT(rows.size(), 60u) << "partition " << p;
    EXPECT_LT(rows.size(), 140u) << "partition " << p;
    for (const auto& [key, value] : rows) {
      EXPECT_EQ(StablePartition(key, 4), p);
    }
  }
  EXPECT_EQ(total, 400);
}

// One streaming deduplication over the partitions of `state`.
Result<std::vector<std::string>> Deduplicate(InMemoryPartitions& state, const RecordBatchPtr& input,
                                             std::vector<int> keys, std::optional<int> event_time,
                                             bool within_watermark,
                                             std::optional<int64_t> late_minutes,
                                             std::optional<int64_t> eviction_minutes) {
  StatefulOperatorRuntime& runtime = *state.runtime;
  runtime.metrics = {};
  runtime.output_mode = OutputMode::kAppend;
  runtime.late_rows_watermark_micros =
      late_minutes ? std::optional<int64_t>(*late_minutes * kMinute) : std::nullopt;
  runtime.eviction_watermark_micros =
      eviction_minutes ? std::optional<int64_t>(*eviction_minutes * kMinute) : std::nullopt;
  auto node = std::make_shared<StreamingDeduplicateNode>(
      Source(EventSchema(), Split(input, 2)), std::move(keys), event_time, within_watermark,
      10 * kMinute, state.runtime);
  ExecContext context;
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr op, InstantiateOperators(node, context));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> rows, RowsOf(*op));
  // Only k and v, for short expectations.
  std::vector<std::string> out;
  for (const std::string& row : rows) {
    const size_t k = row.find("\"k\":");
    out.push_back(row.substr(k, row.size() - 1 - k));
  }
  return out;
}

constexpr int kTs = 0;
constexpr int kK = 2;

TEST(StreamingDeduplicateTest, FirstRowOfEachKeyPassesAcrossBatches) {
  InMemoryPartitions state(4);
  ASSERT_OK_AND_ASSIGN(auto first,
                       Deduplicate(state,
                                   Events({Event(1, "a", 1), Event(2, "b", 2), Event(3, "a", 3),
                                           Event(4, "c", 4), Event(5, "b", 5)}),
                                   {kK}, std::nullopt, false, std::nullopt, std::nullopt));
  EXPECT_EQ(first,
            (std::vector<std::string>{R"("k":"a","v":1)", R"("k":"b","v":2)", R"("k":"c","v":4)"}));
  EXPECT_EQ(state.runtime->metrics.num_dropped_duplicate_rows, 2);
  EXPECT_EQ(state.runtime->metrics.num_rows_updated, 3);
  ASSERT_OK_AND_ASSIGN(auto second,
                       Deduplicate(state, Events({Event(6, "c", 6), Event(7, "d", 7)}), {kK},
                                   std::nullopt, false, std::nullopt, std::nullopt));
  EXPECT_EQ(second, (std::vector<std::string>{R"("k":"d","v":7)"}));
  EXPECT_EQ(state.runtime->metrics.num_rows_total, 4);
}

TEST(StreamingDeduplicateTest, WithTheEventTimeAsAKeyStateIsEvictedAndLateRowsDropped) {
  InMemoryPartitions state(3);
  ASSERT_OK_AND_ASSIGN(
      auto first,
      Deduplicate(state,
                  Events({Event(1, "a", 1), Event(1, "a", 2), Event(5, "a", 3), Event(12, "b", 4)}),
                  {kK, kTs}, kTs, false, std::nullopt, std::nullopt));
  EXPECT_EQ(first,
            (std::vector<std::string>{R"("k":"a","v":1)", R"("k":"a","v":3)", R"("k":"b","v":4)"}));
  // Eviction at 5:00 removes (a, 1:00) and (a, 5:00); late rows need the late watermark.
  ASSERT_OK_AND_ASSIGN(auto second, Deduplicate(state, Events({Event(12, "b", 5)}), {kK, kTs}, kTs,
                                                false, std::nullopt, 5));
  EXPECT_TRUE(second.empty());
  EXPECT_EQ(state.runtime->metrics.num_rows_removed, 2);
  EXPECT_EQ(state.runtime->metrics.num_rows_total, 1);
  ASSERT_OK_AND_ASSIGN(
      auto third, Deduplicate(state, Events({Event(1, "a", 6), Event(5, "c", 7), Event(6, "c", 8)}),
                              {kK, kTs}, kTs, false, 5, 5));
  EXPECT_EQ(third, (std::vector<std::string>{R"("k":"c","v":8)"}));
  EXPECT_EQ(state.runtime->metrics.num_rows_dropped_by_watermark, 2);
}

TEST(StreamingDeduplicateTest, LateRowsAreDroppedEvenWhenTheEventTimeIsNotAKey) {
  InMemoryPartitions state(2);
  ASSERT_OK_AND_ASSIGN(
      auto rows,
      Deduplicate(state, Events({Event(1, "a", 1), Event(20, "a", 2), Event(21, "b", 3)}), {kK},
                  kTs, false, 10, 10));
  EXPECT_EQ(rows, (std::vector<std::string>{R"("k":"a","v":2)", R"("k":"b","v":3)"}));
  EXPECT_EQ(state.runtime->metrics.num_rows_dropped_by_watermark, 1);
  // Not evicted: the keys hold no event time.
  EXPECT_EQ(state.runtime->metrics.num_rows_total, 2);
}

TEST(StreamingDeduplicateTest, WithinWatermarkRemembersAKeyUntilItsFirstEventTimePlusTheDelay) {
  InMemoryPartitions state(4);
  ASSERT_OK_AND_ASSIGN(auto batch0, Deduplicate(state, Events({Event(0, "a", 1)}), {kK}, kTs, true,
                                                std::nullopt, std::nullopt));
  EXPECT_EQ(batch0, (std::vector<std::string>{R"("k":"a","v":1)"}));
  // A duplicate with another event time is still a duplicate; the key expires at 10:00.
  ASSERT_OK_AND_ASSIGN(auto batch1, Deduplicate(state, Events({Event(7, "a", 2)}), {kK}, kTs, true,
                                                std::nullopt, 9));
  EXPECT_TRUE(batch1.empty());
  EXPECT_EQ(state.runtime->metrics.num_rows_removed, 0);
  ASSERT_OK_AND_ASSIGN(auto batch2,
                       Deduplicate(state, Events({Event(9, "a", 3)}), {kK}, kTs, true, 5, 10));
  EXPECT_TRUE(batch2.empty());
  EXPECT_EQ(state.runtime->metrics.num_rows_removed, 1);
  EXPECT_EQ(state.runtime->metrics.num_rows_total, 0);
  ASSERT_OK_AND_ASSIGN(
      auto batch3,
      Deduplicate(state, Events({Event(9, "a", 4), Event(13, "a", 5)}), {kK}, kTs, true, 10, 10));
  EXPECT_EQ(batch3, (std::vector<std::string>{R"("k":"a","v":5)"}));
  EXPECT_EQ(state.runtime->metrics.num_rows_dropped_by_watermark, 1);
}

}  // namespace
}  // namespace tributary::exec

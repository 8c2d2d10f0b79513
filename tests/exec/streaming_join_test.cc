// The stream-stream join operator over in-memory state stores that outlive the batches, as
// committed state does: joins across micro-batches, NULL keys, residual (time-range)
// conditions, late rows, matched flags, eviction by key and by value with the outer rows
// emitted once, left semi's once-only output, swap-last removal, metrics, and a randomized
// comparison with the batch hash join over the same rows.

#include "exec/streaming_join.h"

#include <random>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/hash_join.h"
#include "exec/in_memory_state_store.h"
#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

constexpr int64_t kMinute = 60'000'000;

columnar::SchemaPtr LeftSchema() {
  return MakeSchema({Field("lk", DataType::Int64()), Field("lts", DataType::Timestamp()),
                     Field("lend", DataType::Timestamp()), Field("lv", DataType::Int64())});
}

columnar::SchemaPtr RightSchema() {
  return MakeSchema({Field("rk", DataType::Int64()), Field("rts", DataType::Timestamp()),
                     Field("rv", DataType::Int64())});
}

std::string KeyText(std::optional<int64_t> key) {
  return key ? std::to_string(*key) : "null";
}

// A left row: key, event time in minutes (lend = lts + 10 minutes), value (unique per row).
std::string L(std::optional<int64_t> key, int64_t minute, int64_t value) {
  return fmt::format(R"({{"lk": {}, "lts": {}, "lend": {}, "lv": {}}})", KeyText(key),
                     minute * kMinute, (minute + 10) * kMinute, value);
}

std::string R(std::optional<int64_t> key, int64_t minute, int64_t value) {
  return fmt::format(R"({{"rk": {}, "rts": {}, "rv": {}}})", KeyText(key), minute * kMinute, value);
}

RecordBatchPtr Rows(const columnar::SchemaPtr& schema, const std::vector<std::string>& rows) {
  std::string json = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    json += (i > 0 ? "," : "") + rows[i];
  }
  auto batch = BatchFromJson(schema, json + "]");
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

// Output rows reduced to "lv/rv" ("3/null" for an unmatched left row), or "lv" for left semi.
std::vector<std::string> Pairs(const std::vector<std::string>& rows) {
  static const std::regex kLeft(R"re("lv":(-?\w+))re");
  static const std::regex kRight(R"re("rv":(-?\w+))re");
  std::vector<std::string> out;
  for (const std::string& row : rows) {
    std::smatch left;
    std::smatch right;
    const bool has_left = std::regex_search(row, left, kLeft);
    EXPECT_TRUE(has_left) << row;
    std::string pair = has_left ? left[1].str() : "?";
    if (std::regex_search(row, right, kRight)) {
      pair.push_back('/');
      pair.append(right[1].str());
    }
    out.push_back(std::move(pair));
  }
  return Sorted(std::move(out));
}

columnar::SchemaPtr OutputSchema(JoinType type) {
  std::vector<Field> fields;
  const columnar::SchemaPtr left = LeftSchema();
  const columnar::SchemaPtr right = RightSchema();
  for (const Field& field : left->Fields()) {
    fields.push_back(field.WithNullable(true));
  }
  if (type != JoinType::kLeftSemi) {
    for (const Field& field : right->Fields()) {
      fields.push_back(field.WithNullable(true));
    }
  }
  return MakeSchema(fields);
}

// rts BETWEEN lts AND lend: Spark's time-range condition.
expr::ExprPtr TimeRange() {
  return expr::Between(expr::Col("rts"), expr::Col("lts"), expr::Col("lend"));
}

// Value eviction by each side's event time (lts #1, rts #1).
std::array<JoinStateEviction, 2> ByEventTime() {
  return {JoinStateEviction{JoinStateEviction::Kind::kValue, 1, false},
          JoinStateEviction{JoinStateEviction::Kind::kValue, 1, false}};
}

struct Watermarks {
  std::optional<int64_t> late_minutes;
  std::optional<int64_t> left_state_minutes;
  std::optional<int64_t> right_state_minutes;
};

std::optional<int64_t> Micros(std::optional<int64_t> minutes) {
  return minutes ? std::optional<int64_t>(*minutes * kMinute) : std::nullopt;
}

// One stream-stream join on lk = rk (plus `keys_with_time`: lts = rts) over the partitions of
// `state`; each RunBatch is one micro-batch.
class StreamJoin {
 public:
  StreamJoin(InMemoryPartitions* state, JoinType type, expr::ExprPtr residual,
             std::array<JoinStateEviction, 2> eviction = {},
             std::array<std::optional<int>, 2> late_columns = {}, bool keys_with_time = false)
      : state_(state),
        type_(type),
        residual_(std::move(residual)),
        eviction_(eviction),
        late_columns_(late_columns),
        keys_with_time_(keys_with_time) {}

  Result<std::vector<std::string>> RunBatch(std::vector<RecordBatchPtr> left,
                                            std::vector<RecordBatchPtr> right,
                                            Watermarks watermarks = {}) {
    StatefulOperatorRuntime& runtime = *state_->runtime;
    runtime.late_rows_watermark_micros = Micros(watermarks.late_minutes);
    runtime.join_state_watermark_micros = {Micros(watermarks.left_state_minutes),
                                           Micros(watermarks.right_state_minutes)};
    runtime.metrics = {};
    std::vector<expr::BoundExprPtr> left_keys = {ColumnRef(*LeftSchema(), "lk")};
    std::vector<expr::BoundExprPtr> right_keys = {ColumnRef(*RightSchema(), "rk")};
    if (keys_with_time_) {
      left_keys.push_back(ColumnRef(*LeftSchema(), "lts"));
      right_keys.push_back(ColumnRef(*RightSchema(), "rts"));
    }
    expr::BoundExprPtr residual;
    if (residual_ != nullptr) {
      std::vector<Field> fields = LeftSchema()->Fields();
      const columnar::SchemaPtr right_schema = RightSchema();
      for (const Field& field : right_schema->Fields()) {
        fields.push_back(field);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(residual, expr::Bind(*residual_, *MakeSchema(fields)));
    }
    auto node = std::make_shared<StreamingJoinNode>(
        Source(LeftSchema(), std::move(left)), Source(RightSchema(), std::move(right)), type_,
        std::move(left_keys), std::move(right_keys), residual, OutputSchema(type_), late_columns_,
        eviction_, state_->runtime);
    ExecContext context;
    TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr op, InstantiateOperators(node, context));
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> rows, RowsOf(*op));
    return Pairs(rows);
  }

  const StateOperatorMetrics& Metrics() const { return state_->runtime->metrics; }

  // State entries over all partitions.
  int64_t StateEntries() const {
    int64_t entries = 0;
    for (const InMemoryStateStore& store : state_->stores) {
      entries += store.NumKeys();
    }
    return entries;
  }

 private:
  InMemoryPartitions* state_;
  JoinType type_;
  expr::ExprPtr residual_;
  std::array<JoinStateEviction, 2> eviction_;
  std::array<std::optional<int>, 2> late_columns_;
  bool keys_with_time_;
};

using V = std::vector<std::string>;

TEST(StreamingJoinTest, InnerJoinMatchesRowsOfEarlierBatchesAndOfTheSameBatch) {
  InMemoryPartitions state(3);
  StreamJoin join(&state, JoinType::kInner, nullptr);
  // Batch 0: left rows only; nothing to match yet.
  ASSERT_OK_AND_ASSIGN(
      auto first, join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1), L(2, 0, 2), L(1, 1, 3)})}, {}));
  EXPECT_EQ(first, V{});
  EXPECT_EQ(join.Metrics().num_rows_updated, 3);
  // Batch 1: a right row for key 1 meets both stored left rows; a left and a right row of key
  // 3 arrive together and meet each other (the right input sees this batch's left rows).
  ASSERT_OK_AND_ASSIGN(
      auto second,
      join.RunBatch({Rows(LeftSchema(), {L(3, 2, 4)})},
                    {Rows(RightSchema(), {R(1, 2, 101), R(3, 2, 103), R(5, 2, 105)})}));
  EXPECT_EQ(second, (V{"1/101", "3/101", "4/103"}));
  // Batch 2: a later left row of key 1 meets the stored right row; several rows per key on both
  // sides multiply.
  ASSERT_OK_AND_ASSIGN(auto third,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 3, 5), L(5, 3, 6), L(5, 3, 7)})},
                                     {Rows(RightSchema(), {R(5, 3, 106)})}));
  EXPECT_EQ(third, (V{"5/101", "6/105", "6/106", "7/105", "7/106"}));
  // Nothing is evicted without state watermarks: 7 left rows and 4 right rows, which
  // progress counts (not the per-key counts beside them, as Spark).
  EXPECT_EQ(join.Metrics().num_rows_removed, 0);
  EXPECT_EQ(join.Metrics().num_rows_total, 11);
  EXPECT_GT(join.StateEntries(), 11);
}

TEST(StreamingJoinTest, NullKeysNeverMatchAndOuterSidesEmitThemOnceWhenEvicted) {
  InMemoryPartitions state(2);
  StreamJoin inner_join(&state, JoinType::kInner, nullptr);
  ASSERT_OK_AND_ASSIGN(auto inner,
                       inner_join.RunBatch({Rows(LeftSchema(), {L(std::nullopt, 1, 1)})},
                                           {Rows(RightSchema(), {R(std::nullopt, 1, 101)})}));
  EXPECT_EQ(inner, V{});
  // An inner join keeps no row that can never match.
  EXPECT_EQ(inner_join.StateEntries(), 0);

  InMemoryPartitions full_state(2);
  StreamJoin full(&full_state, JoinType::kFull, nullptr, ByEventTime());
  ASSERT_OK_AND_ASSIGN(
      auto stored, full.RunBatch({Rows(LeftSchema(), {L(std::nullopt, 1, 1), L(7, 1, 2)})},
                                 {Rows(RightSchema(), {R(std::nullopt, 1, 101), R(7, 1, 102)})}));
  EXPECT_EQ(stored, V{"2/102"});
  ASSERT_OK_AND_ASSIGN(auto evicted, full.RunBatch({}, {}, {{}, 5, 5}));
  EXPECT_EQ(evicted, (V{"1/null", "null/101"}));
  EXPECT_EQ(full.Metrics().num_rows_removed, 4);
  ASSERT_OK_AND_ASSIGN(auto again, full.RunBatch({}, {}, {{}, 50, 50}));
  EXPECT_EQ(again, V{});
  EXPECT_EQ(full.StateEntries(), 0);
}

TEST(StreamingJoinTest, ResidualTimeRangeDecidesMatches) {
  InMemoryPartitions state(3);
  StreamJoin join(&state, JoinType::kInner, TimeRange());
  ASSERT_OK_AND_ASSIGN(
      auto first,
      join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1), L(1, 20, 2)})},
                    {Rows(RightSchema(), {R(1, 5, 101), R(1, 25, 102), R(1, 40, 103)})}));
  EXPECT_EQ(first, (V{"1/101", "2/102"}));
  ASSERT_OK_AND_ASSIGN(auto second, join.RunBatch({Rows(LeftSchema(), {L(1, 35, 3)})},
                                                  {Rows(RightSchema(), {R(1, 10, 104)})}));
  // 3 meets 103 (40 in [35, 45]); 104 (10) meets 1 (in [0, 10]) but not 2 or 3.
  EXPECT_EQ(second, (V{"1/104", "3/103"}));
}

TEST(StreamingJoinTest, LateRowsOfEachSideAreDroppedAndCounted) {
  InMemoryPartitions state(2);
  StreamJoin join(&state, JoinType::kInner, nullptr, {}, {1, 1});
  ASSERT_OK_AND_ASSIGN(
      auto rows, join.RunBatch({Rows(LeftSchema(), {L(1, 4, 1), L(1, 5, 2), L(1, 6, 3)})},
                               {Rows(RightSchema(), {R(1, 5, 101), R(1, 9, 102)})}, {5, {}, {}}));
  // At or before the watermark (minute 5) is late: 1, 2 and 101 never join nor stay.
  EXPECT_EQ(rows, V{"3/102"});
  EXPECT_EQ(join.Metrics().num_rows_dropped_by_watermark, 3);
  EXPECT_EQ(join.Metrics().num_rows_updated, 2);
}

TEST(StreamingJoinTest, LeftOuterEmitsEachUnmatchedRowOnceWhenItsStateIsEvicted) {
  InMemoryPartitions state(3);
  StreamJoin join(&state, JoinType::kLeft, TimeRange(), ByEventTime());
  ASSERT_OK_AND_ASSIGN(
      auto first,
      join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1), L(1, 2, 2), L(2, 3, 3), L(2, 30, 4)})}, {}));
  EXPECT_EQ(first, V{});
  // 101 matches 1 and 2 (5 in [0, 10] and [2, 12]): both are marked matched in state.
  ASSERT_OK_AND_ASSIGN(auto second,
                       join.RunBatch({}, {Rows(RightSchema(), {R(1, 5, 101)})}, {{}, {}, {}}));
  EXPECT_EQ(second, (V{"1/101", "2/101"}));
  // The left state watermark passes 0, 2 and 3: 1 and 2 matched, only 3 comes out, once.
  ASSERT_OK_AND_ASSIGN(auto third, join.RunBatch({}, {}, {{}, 3, 3}));
  EXPECT_EQ(third, V{"3/null"});
  EXPECT_EQ(join.Metrics().num_rows_removed, 3);  // the right row 101 (minute 5) stays
  ASSERT_OK_AND_ASSIGN(auto fourth, join.RunBatch({}, {}, {{}, 3, 3}));
  EXPECT_EQ(fourth, V{});
  ASSERT_OK_AND_ASSIGN(auto fifth, join.RunBatch({}, {}, {{}, 60, 60}));
  EXPECT_EQ(fifth, V{"4/null"});
  EXPECT_EQ(join.StateEntries(), 0);
  EXPECT_EQ(join.Metrics().num_rows_total, 0);
}

TEST(StreamingJoinTest, RightOuterEmitsUnmatchedRightRowsAndKeepsNoLeftRowBeyondItsWatermark) {
  InMemoryPartitions state(3);
  StreamJoin join(&state, JoinType::kRight, TimeRange(), ByEventTime());
  ASSERT_OK_AND_ASSIGN(
      auto first,
      join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1)})},
                    {Rows(RightSchema(), {R(1, 5, 101), R(1, 50, 102), R(2, 5, 103)})}));
  EXPECT_EQ(first, V{"1/101"});
  ASSERT_OK_AND_ASSIGN(auto second, join.RunBatch({}, {}, {{}, 20, 20}));
  EXPECT_EQ(second, V{"null/103"});
  // A right row already at or below its state watermark: unmatched, it is stored only to be
  // emitted by this batch's eviction; matched, it is not stored at all.
  ASSERT_OK_AND_ASSIGN(
      auto third,
      join.RunBatch({Rows(LeftSchema(), {L(3, 15, 2)})},
                    {Rows(RightSchema(), {R(3, 18, 104), R(4, 18, 105)})}, {{}, 20, 20}));
  EXPECT_EQ(third, (V{"2/104", "null/105"}));
  EXPECT_EQ(join.Metrics().num_rows_updated, 2);  // the left row 2 and the right row 105
  ASSERT_OK_AND_ASSIGN(auto last, join.RunBatch({}, {}, {{}, 100, 100}));
  EXPECT_EQ(last, V{"null/102"});
  EXPECT_EQ(join.StateEntries(), 0);
}

TEST(StreamingJoinTest, LeftRowBelowItsStateWatermarkStillMeetsThisBatchsRightRows) {
  // Spark 4.0 (SPARK-49829): the left row is stored before this batch's right rows are joined,
  // then evicted; Spark 3.5 would have dropped it and missed the match.
  InMemoryPartitions state(2);
  StreamJoin join(&state, JoinType::kLeft, TimeRange(), ByEventTime());
  ASSERT_OK_AND_ASSIGN(auto rows,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 2, 1), L(2, 2, 2)})},
                                     {Rows(RightSchema(), {R(1, 11, 101)})}, {{}, 10, 10}));
  EXPECT_EQ(rows, (V{"1/101", "2/null"}));
  EXPECT_EQ(join.Metrics().num_rows_total, 1);  // only the right row 101 (minute 11)
}

TEST(StreamingJoinTest, FullOuterEmitsBothSidesUnmatchedRowsOnce) {
  InMemoryPartitions state(4);
  StreamJoin join(&state, JoinType::kFull, TimeRange(), ByEventTime());
  ASSERT_OK_AND_ASSIGN(auto first,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1), L(2, 0, 2)})},
                                     {Rows(RightSchema(), {R(1, 3, 101), R(3, 3, 103)})}));
  EXPECT_EQ(first, V{"1/101"});
  ASSERT_OK_AND_ASSIGN(auto second,
                       join.RunBatch({}, {Rows(RightSchema(), {R(2, 30, 104)})}, {{}, 5, 5}));
  EXPECT_EQ(second, (V{"2/null", "null/103"}));
  ASSERT_OK_AND_ASSIGN(auto third, join.RunBatch({}, {}, {{}, 100, 100}));
  EXPECT_EQ(third, V{"null/104"});
  EXPECT_EQ(join.StateEntries(), 0);
}

TEST(StreamingJoinTest, LeftSemiEmitsEachLeftRowOnceAtItsFirstMatch) {
  InMemoryPartitions state(3);
  StreamJoin join(&state, JoinType::kLeftSemi, nullptr);
  // Left 1 has no match yet; left 2 meets the right row of the same batch.
  ASSERT_OK_AND_ASSIGN(auto first,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 0, 1), L(2, 0, 2)})},
                                     {Rows(RightSchema(), {R(2, 0, 101), R(2, 0, 102)})}));
  EXPECT_EQ(first, V{"2"});
  // Two right rows of key 1 in one batch and one more later: left 1 comes out once.
  ASSERT_OK_AND_ASSIGN(auto second,
                       join.RunBatch({}, {Rows(RightSchema(), {R(1, 1, 103), R(1, 1, 104)})}));
  EXPECT_EQ(second, V{"1"});
  ASSERT_OK_AND_ASSIGN(auto third, join.RunBatch({}, {Rows(RightSchema(), {R(1, 2, 105)})}));
  EXPECT_EQ(third, V{});
  // A left row matching stored right rows on arrival is emitted and not stored.
  ASSERT_OK_AND_ASSIGN(auto fourth, join.RunBatch({Rows(LeftSchema(), {L(1, 3, 3)})}, {}));
  EXPECT_EQ(fourth, V{"3"});
  EXPECT_EQ(join.Metrics().num_rows_updated, 0);
}

TEST(StreamingJoinTest, KeyEvictionRemovesWholeKeysByTheirEventTime) {
  InMemoryPartitions state(3);
  const std::array<JoinStateEviction, 2> by_key = {
      JoinStateEviction{JoinStateEviction::Kind::kKey, 1, false},
      JoinStateEviction{JoinStateEviction::Kind::kKey, 1, false}};
  StreamJoin join(&state, JoinType::kLeft, nullptr, by_key, {}, /*keys_with_time=*/true);
  ASSERT_OK_AND_ASSIGN(auto first,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 1, 1), L(1, 1, 2), L(1, 8, 3)})},
                                     {Rows(RightSchema(), {R(1, 8, 101), R(1, 9, 102)})}));
  EXPECT_EQ(first, V{"3/101"});
  ASSERT_OK_AND_ASSIGN(auto second, join.RunBatch({}, {}, {{}, 8, 8}));
  EXPECT_EQ(second, (V{"1/null", "2/null"}));
  EXPECT_EQ(join.Metrics().num_rows_removed, 4);  // left 1, 2, 3 and right 101
  ASSERT_OK_AND_ASSIGN(auto third, join.RunBatch({Rows(LeftSchema(), {L(1, 9, 4)})}, {}));
  EXPECT_EQ(third, V{"4/102"});
}

TEST(StreamingJoinTest, SwapLastRemovalKeepsEveryRemainingRowReachable) {
  InMemoryPartitions state(2);
  StreamJoin join(&state, JoinType::kLeft, nullptr, ByEventTime());
  // Six rows of one key; eviction removes those at minutes <= 5, among them the first and the
  // last, so later rows move into the holes.
  ASSERT_OK_AND_ASSIGN(
      auto first, join.RunBatch({Rows(LeftSchema(), {L(1, 1, 1), L(1, 7, 2), L(1, 3, 3), L(1, 9, 4),
                                                     L(1, 8, 5), L(1, 5, 6)})},
                                {}));
  EXPECT_EQ(first, V{});
  ASSERT_OK_AND_ASSIGN(auto evicted, join.RunBatch({}, {}, {{}, 5, 5}));
  EXPECT_EQ(evicted, (V{"1/null", "3/null", "6/null"}));
  EXPECT_EQ(join.Metrics().num_rows_total, 3);
  // Every remaining row is still found: a right row meets exactly those three.
  ASSERT_OK_AND_ASSIGN(auto probe, join.RunBatch({}, {Rows(RightSchema(), {R(1, 10, 101)})}));
  EXPECT_EQ(probe, (V{"2/101", "4/101", "5/101"}));
  // Remove the first one (7 minutes) and add a row (it meets the stored right row 101):
  // indices stay dense.
  ASSERT_OK_AND_ASSIGN(auto more,
                       join.RunBatch({Rows(LeftSchema(), {L(1, 20, 7)})}, {}, {{}, 7, 7}));
  EXPECT_EQ(more, V{"7/101"});
  ASSERT_OK_AND_ASSIGN(auto probe2, join.RunBatch({}, {Rows(RightSchema(), {R(1, 21, 102)})}));
  EXPECT_EQ(probe2, (V{"4/102", "5/102", "7/102"}));
  ASSERT_OK_AND_ASSIGN(auto rest, join.RunBatch({}, {}, {{}, 100, 100}));
  EXPECT_EQ(rest, V{});
  EXPECT_EQ(join.StateEntries(), 0);
}

TEST(StreamingJoinTest, RejectsUnsupportedJoinTypesAndBadColumns) {
  InMemoryPartitions state(1);
  StreamJoin anti(&state, JoinType::kLeftAnti, nullptr);
  EXPECT_FALSE(anti.RunBatch({}, {}).ok());
  StreamJoin bad(&state, JoinType::kInner, nullptr,
                 {JoinStateEviction{JoinStateEviction::Kind::kValue, 3, false}, {}});
  auto result = bad.RunBatch({}, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().ToString().find("lv"), std::string::npos) << result.status().ToString();
}

TEST(StreamingJoinTest, ToStringShowsTypeKeysResidualAndEviction) {
  const auto node = std::make_shared<StreamingJoinNode>(
      Source(LeftSchema(), {}), Source(RightSchema(), {}), JoinType::kLeft,
      std::vector<expr::BoundExprPtr>{ColumnRef(*LeftSchema(), "lk")},
      std::vector<expr::BoundExprPtr>{ColumnRef(*RightSchema(), "rk")}, nullptr,
      OutputSchema(JoinType::kLeft), std::array<std::optional<int>, 2>{1, 1}, ByEventTime(),
      std::make_shared<StatefulOperatorRuntime>());
  EXPECT_EQ(node->ToString(),
            "StreamingJoin(left_outer, keys=[lk = rk], leftState=value #1, "
            "rightState=value #1)");
}

// The batch hash join of `left` and `right` (rows as L and R write them) on lk = rk, with the
// time range when `with_residual`, as Pairs.
Result<std::vector<std::string>> BatchJoin(JoinType type, bool with_residual,
                                           const std::vector<std::string>& left,
                                           const std::vector<std::string>& right) {
  ExecContext context;
  expr::BoundExprPtr residual;
  if (with_residual) {
    std::vector<Field> fields = LeftSchema()->Fields();
    const columnar::SchemaPtr right_schema = RightSchema();
    for (const Field& field : right_schema->Fields()) {
      fields.push_back(field);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(residual, expr::Bind(*TimeRange(), *MakeSchema(fields)));
  }
  std::vector<RecordBatchPtr> left_batches;
  std::vector<RecordBatchPtr> right_batches;
  if (!left.empty()) {
    left_batches.push_back(Rows(LeftSchema(), left));
  }
  if (!right.empty()) {
    right_batches.push_back(Rows(RightSchema(), right));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      OperatorPtr op,
      InstantiateOperators(
          std::make_shared<HashJoinNode>(
              Source(LeftSchema(), left_batches), Source(RightSchema(), right_batches), type,
              std::vector<expr::BoundExprPtr>{ColumnRef(*LeftSchema(), "lk")},
              std::vector<expr::BoundExprPtr>{ColumnRef(*RightSchema(), "rk")}, residual,
              OutputSchema(type)),
          context));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> rows, RowsOf(*op));
  return Pairs(rows);
}

// Random rows over few keys (some NULL) delivered over random micro-batches, each row to its
// side's input of one batch; no watermark until a last batch that evicts everything. The
// output over all batches equals the batch hash join of all rows, each outer row once.
class StreamingJoinRandomTest : public ::testing::TestWithParam<std::tuple<JoinType, bool>> {};

TEST_P(StreamingJoinRandomTest, EqualsTheBatchJoinOfAllRows) {
  const auto [type, with_residual] = GetParam();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 rng(seed);
    const int batches = 1 + static_cast<int>(rng() % 6);
    std::vector<std::vector<std::string>> left(static_cast<size_t>(batches));
    std::vector<std::vector<std::string>> right(static_cast<size_t>(batches));
    std::vector<std::string> all_left;
    std::vector<std::string> all_right;
    const auto key = [&]() -> std::optional<int64_t> {
      const int64_t k = static_cast<int64_t>(rng() % 9);
      return k == 8 ? std::nullopt : std::optional<int64_t>(k);
    };
    for (int64_t i = 0; i < 60; ++i) {
      const auto batch = static_cast<size_t>(rng() % static_cast<uint64_t>(batches));
      if (rng() % 2 == 0) {
        left[batch].push_back(L(key(), static_cast<int64_t>(rng() % 30), i));
        all_left.push_back(left[batch].back());
      } else {
        right[batch].push_back(R(key(), static_cast<int64_t>(rng() % 30), 1000 + i));
        all_right.push_back(right[batch].back());
      }
    }
    InMemoryPartitions state(3);
    StreamJoin join(&state, type, with_residual ? TimeRange() : nullptr, ByEventTime());
    std::vector<std::string> streamed;
    for (int b = 0; b <= batches; ++b) {
      std::vector<RecordBatchPtr> left_input;
      std::vector<RecordBatchPtr> right_input;
      Watermarks watermarks;
      if (b < batches) {
        if (!left[static_cast<size_t>(b)].empty()) {
          // Split so the operator sees several input batches per side.
          left_input = Split(Rows(LeftSchema(), left[static_cast<size_t>(b)]), 4);
        }
        if (!right[static_cast<size_t>(b)].empty()) {
          right_input = Split(Rows(RightSchema(), right[static_cast<size_t>(b)]), 3);
        }
      } else {
        watermarks = {{}, 1000, 1000};
      }
      ASSERT_OK_AND_ASSIGN(auto rows, join.RunBatch(left_input, right_input, watermarks));
      streamed.insert(streamed.end(), rows.begin(), rows.end());
    }
    EXPECT_EQ(join.StateEntries(), 0);

    ASSERT_OK_AND_ASSIGN(auto expected, BatchJoin(type, with_residual, all_left, all_right));
    EXPECT_EQ(Sorted(streamed), expected);
  }
}

// Rows arriving roughly in event-time order with some late ones, watermarks as Spark moves
// them (batch b: W(b) = the largest event time of the batches before b minus 5 minutes; rows
// at or below W(b-1) are late; state watermarks W(b) - 10 minutes on the left and W(b) on the
// right, as the time range rts BETWEEN lts AND lts + 10 minutes gives them), state evicted
// while rows keep coming. The output equals the batch join of the rows that were not late
// (computed here from the rule), each outer row once.
class StreamingJoinWatermarkTest : public ::testing::TestWithParam<JoinType> {};

TEST_P(StreamingJoinWatermarkTest, EqualsTheBatchJoinOfTheRowsNotLate) {
  const JoinType type = GetParam();
  // Over all seeds: rows were late and state was evicted before the last batch (the test
  // exercises what it claims).
  int64_t all_dropped = 0;
  int64_t removed_before_last = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 rng(seed * 7919);
    const int batches = 3 + static_cast<int>(rng() % 6);
    InMemoryPartitions state(3);
    StreamJoin join(&state, type, TimeRange(), ByEventTime(), {1, 1});
    std::vector<std::string> streamed;
    std::vector<std::string> kept_left;
    std::vector<std::string> kept_right;
    std::optional<int64_t> previous_watermark;
    std::optional<int64_t> max_time;
    int64_t dropped = 0;
    int64_t dropped_by_operator = 0;
    int64_t value = 0;
    for (int b = 0; b <= batches; ++b) {
      const std::optional<int64_t> watermark =
          max_time ? std::optional<int64_t>(*max_time - 5) : std::nullopt;
      std::vector<std::string> left;
      std::vector<std::string> right;
      const int64_t rows = b < batches ? 4 + static_cast<int64_t>(rng() % 12) : 0;
      std::optional<int64_t> batch_max;
      for (int64_t i = 0; i < rows; ++i) {
        // Mostly around 6 minutes per batch, some up to 15 minutes older.
        const int64_t minute = 100 + b * 6 + static_cast<int64_t>(rng() % 8) -
                               (rng() % 4 == 0 ? static_cast<int64_t>(rng() % 16) : 0);
        const auto key = static_cast<int64_t>(rng() % 5);
        const bool late = previous_watermark && minute <= *previous_watermark;
        dropped += late ? 1 : 0;
        if (rng() % 2 == 0) {
          left.push_back(L(key, minute, value));
          if (!late) {
            kept_left.push_back(left.back());
          }
        } else {
          right.push_back(R(key, minute, 1000 + value));
          if (!late) {
            kept_right.push_back(right.back());
          }
        }
        ++value;
        batch_max = std::max(batch_max.value_or(minute), minute);
      }
      // The last batch evicts everything.
      const int64_t state_watermark = b == batches ? 100'000 : watermark.value_or(-1'000'000);
      const Watermarks watermarks{previous_watermark, state_watermark - (b == batches ? 0 : 10),
                                  state_watermark};
      std::vector<RecordBatchPtr> left_input;
      std::vector<RecordBatchPtr> right_input;
      if (!left.empty()) {
        left_input = Split(Rows(LeftSchema(), left), 3);
      }
      if (!right.empty()) {
        right_input = Split(Rows(RightSchema(), right), 3);
      }
      ASSERT_OK_AND_ASSIGN(auto out, join.RunBatch(left_input, right_input, watermarks));
      streamed.insert(streamed.end(), out.begin(), out.end());
      dropped_by_operator += join.Metrics().num_rows_dropped_by_watermark;
      if (b < batches) {
        removed_before_last += join.Metrics().num_rows_removed;
      }
      previous_watermark = watermark;
      if (batch_max) {
        max_time = std::max(max_time.value_or(*batch_max), *batch_max);
      }
    }
    EXPECT_EQ(join.StateEntries(), 0);
    EXPECT_EQ(dropped_by_operator, dropped);
    all_dropped += dropped;
    ASSERT_OK_AND_ASSIGN(auto expected, BatchJoin(type, true, kept_left, kept_right));
    EXPECT_EQ(Sorted(streamed), expected);
  }
  EXPECT_GT(all_dropped, 0);
  EXPECT_GT(removed_before_last, 0);
}

// The same batches with and without the rows kept in memory across batches (a runtime
// state_version, as the streaming layer sets it): same rows in the same order, same metrics,
// same store entries, also when a batch loads a version the memory does not hold (from then
// on the rows in memory are rebuilt from the stores).
class StreamingJoinCacheTest : public ::testing::TestWithParam<JoinType> {};

TEST_P(StreamingJoinCacheTest, RowsKeptInMemoryAcrossBatchesMatchTheStores) {
  const JoinType type = GetParam();
  int64_t removed = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    std::mt19937_64 rng(seed * 104729);
    const int batches = 4 + static_cast<int>(rng() % 5);
    InMemoryPartitions plain(3);
    InMemoryPartitions cached(3);
    StreamJoin plain_join(&plain, type, TimeRange(), ByEventTime(), {1, 1});
    StreamJoin cached_join(&cached, type, TimeRange(), ByEventTime(), {1, 1});
    // From batch `rebuild` on the versions jump (as a restart elsewhere would): rebuilt once.
    const int rebuild = 2 + static_cast<int>(rng() % 2);
    int64_t value = 0;
    std::optional<int64_t> late;
    for (int b = 0; b <= batches; ++b) {
      SCOPED_TRACE(fmt::format("batch {}", b));
      std::vector<std::string> left;
      std::vector<std::string> right;
      const int64_t rows = b < batches ? 6 + static_cast<int64_t>(rng() % 14) : 0;
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t minute = 100 + b * 6 + static_cast<int64_t>(rng() % 8) -
                               (rng() % 4 == 0 ? static_cast<int64_t>(rng() % 16) : 0);
        const auto key = static_cast<int64_t>(rng() % 5);
        if (rng() % 2 == 0) {
          left.push_back(L(key == 4 ? std::nullopt : std::optional<int64_t>(key), minute, value));
        } else {
          right.push_back(
              R(key == 4 ? std::nullopt : std::optional<int64_t>(key), minute, 1000 + value));
        }
        ++value;
      }
      const int64_t state_watermark = b == batches ? 100'000 : 100 + (b - 1) * 6;
      const Watermarks watermarks{late, state_watermark - 10, state_watermark};
      late = 95 + (b + 1) * 6;
      const std::vector<RecordBatchPtr> left_input =
          left.empty() ? std::vector<RecordBatchPtr>{} : Split(Rows(LeftSchema(), left), 3);
      const std::vector<RecordBatchPtr> right_input =
          right.empty() ? std::vector<RecordBatchPtr>{} : Split(Rows(RightSchema(), right), 3);
      cached.runtime->state_version = b < rebuild ? b : 100 + b;
      ASSERT_OK_AND_ASSIGN(auto expected, plain_join.RunBatch(left_input, right_input, watermarks));
      ASSERT_OK_AND_ASSIGN(auto actual, cached_join.RunBatch(left_input, right_input, watermarks));
      EXPECT_EQ(actual, expected);
      const StateOperatorMetrics& want = plain_join.Metrics();
      const StateOperatorMetrics& got = cached_join.Metrics();
      EXPECT_EQ(got.num_rows_total, want.num_rows_total);
      EXPECT_EQ(got.num_rows_updated, want.num_rows_updated);
      EXPECT_EQ(got.num_rows_removed, want.num_rows_removed);
      EXPECT_EQ(got.num_rows_dropped_by_watermark, want.num_rows_dropped_by_watermark);
      removed += want.num_rows_removed;
      for (size_t p = 0; p < plain.stores.size(); ++p) {
        EXPECT_EQ(cached.stores[p].Rows(), plain.stores[p].Rows());
      }
      ASSERT_NE(cached.runtime->join_cache, nullptr);
      EXPECT_EQ(cached.runtime->join_cache->version, *cached.runtime->state_version + 1);
    }
    EXPECT_EQ(cached_join.StateEntries(), 0);
  }
  EXPECT_GT(removed, 0);
}

// The rows in memory stand for the version they were written as, and only for it: a batch
// loading another version (a batch run again after a failure) reads the stores.
TEST(StreamingJoinTest, RowsInMemoryServeOnlyTheVersionTheyWereWrittenAs) {
  InMemoryPartitions state(1);
  StreamJoin join(&state, JoinType::kInner, nullptr);
  state.runtime->state_version = 0;
  ASSERT_OK(join.RunBatch({Rows(LeftSchema(), {L(1, 10, 1)})}, {}).status());
  // The left row's entry, changed behind the operator's back into one it cannot read.
  std::string row_entry;
  for (const auto& [entry, value] : state.stores[0].Rows()) {
    if (entry.size() > 2 && entry[0] == 0 && entry[1] == 1) {
      row_entry = entry;
    }
  }
  ASSERT_FALSE(row_entry.empty());
  ASSERT_OK(state.stores[0].Put(row_entry, std::string("\x07", 1)));
  // Version 1 in memory is what the batch reads.
  state.runtime->state_version = 1;
  ASSERT_OK_AND_ASSIGN(auto rows, join.RunBatch({}, {Rows(RightSchema(), {R(1, 11, 2)})}));
  EXPECT_EQ(rows.size(), 1u);
  // Version 1 again (a re-run): the rows in memory are version 2's, so the stores are read.
  auto rerun = join.RunBatch({}, {Rows(RightSchema(), {R(1, 11, 2)})});
  EXPECT_EQ(rerun.status().Code(), StatusCode::kCorruption) << rerun.status().ToString();
  // That failed batch left nothing usable in memory: the next one reads the stores too.
  state.runtime->state_version = 2;
  auto after = join.RunBatch({}, {Rows(RightSchema(), {R(1, 12, 3)})});
  EXPECT_EQ(after.status().Code(), StatusCode::kCorruption) << after.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Types, StreamingJoinCacheTest,
                         ::testing::Values(JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                                           JoinType::kFull, JoinType::kLeftSemi));

INSTANTIATE_TEST_SUITE_P(Types, StreamingJoinRandomTest,
                         ::testing::Combine(::testing::Values(JoinType::kInner, JoinType::kLeft,
                                                              JoinType::kRight, JoinType::kFull,
                                                              JoinType::kLeftSemi),
                                            ::testing::Bool()));

INSTANTIATE_TEST_SUITE_P(Types, StreamingJoinWatermarkTest,
                         ::testing::Values(JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                                           JoinType::kFull, JoinType::kLeftSemi));

}  // namespace
}  // namespace tributary::exec

// The planning of stream-stream joins and of chained stateful operators, on logical plans over
// memory streams: Spark's checks of a join of two streams (output mode, the watermark and
// time-range condition outer and semi joins need, with Spark's messages), the state watermarks
// a join condition gives each side (StreamingJoinHelper's arithmetic and millisecond rounding),
// and the propagation of the watermark from one stateful operator to the next.

#include "streaming/stateful_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/plan_builder.h"
#include "streaming/memory_source.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;
using exec::JoinStateEviction;
using exec::JoinType;
using expr::Call;
using expr::Col;
using expr::Op;

constexpr int64_t kMinuteMs = 60'000;

expr::ExprPtr Minutes(int64_t minutes) {
  return expr::Lit(expr::Scalar::DayTimeInterval(minutes * kMinuteMs * 1000));
}

class StatefulPlanTest : public ::testing::Test {
 protected:
  /// A stream of (id, ts) qualified `name`, with a watermark of `delay_minutes` on ts unless
  /// negative.
  static plan::LogicalPlanPtr Stream(const std::string& name, int64_t delay_minutes) {
    auto schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("ts", DataType::Timestamp())});
    auto scan = StreamScan(MemoryStream::Definition(std::make_shared<MemoryStream>(schema)), name);
    if (delay_minutes < 0) {
      return scan;
    }
    auto watermarked = plan::Watermark(scan, "ts", delay_minutes * kMinuteMs * 1000, "minutes");
    EXPECT_OK(watermarked.status());
    return *watermarked;
  }

  static plan::LogicalPlanPtr Join(plan::LogicalPlanPtr left, plan::LogicalPlanPtr right,
                                   JoinType type, const expr::ExprPtr& condition) {
    auto joined = plan::Join(std::move(left), std::move(right), type, condition);
    EXPECT_OK(joined.status());
    return *joined;
  }

  /// l.id = r.id AND l.ts BETWEEN r.ts - 5 minutes AND r.ts + 10 minutes.
  static expr::ExprPtr TimeRange() {
    return expr::And(Call(Op::kEqual, {Col("l.id"), Col("r.id")}),
                     expr::Between(Col("l.ts"), Call(Op::kSubtract, {Col("r.ts"), Minutes(5)}),
                                   Call(Op::kAdd, {Col("r.ts"), Minutes(10)})));
  }

  static const plan::JoinNode& AsJoin(const plan::LogicalPlanPtr& plan) {
    return plan->As<plan::JoinNode>();
  }
};

TEST_F(StatefulPlanTest, StreamStreamJoinsRunInAppendModeOnly) {
  auto joined = Join(Stream("l", -1), Stream("r", -1), JoinType::kInner,
                     Call(Op::kEqual, {Col("l.id"), Col("r.id")}));
  // An inner join needs no watermark (its state then grows without bound).
  EXPECT_OK(CheckStreamingPlan(*joined));
  const Status update = CheckStreamingPlan(*joined, exec::OutputMode::kUpdate);
  EXPECT_TRUE(update.IsInvalidArgument());
  EXPECT_EQ(update.Message(),
            "Join between two streaming DataFrames/Datasets is not supported in Update output "
            "mode, only in Append output mode");
}

TEST_F(StatefulPlanTest, OuterAndSemiJoinsNeedAWatermarkAndARangeCondition) {
  const std::string expected_tail =
      " join between two streaming DataFrame/Datasets is not supported without a watermark in "
      "the join keys, or a watermark on the nullable side and an appropriate range condition";
  // No watermark at all.
  for (const auto& [type, name] :
       std::vector<std::pair<JoinType, std::string>>{{JoinType::kLeft, "LeftOuter"},
                                                     {JoinType::kRight, "RightOuter"},
                                                     {JoinType::kFull, "FullOuter"},
                                                     {JoinType::kLeftSemi, "LeftSemi"}}) {
    const Status status =
        CheckStreamingPlan(*Join(Stream("l", -1), Stream("r", -1), type, TimeRange()));
    EXPECT_TRUE(status.IsInvalidArgument()) << name;
    std::string expected = "Stream-stream ";
    expected += name;
    expected += expected_tail;
    EXPECT_EQ(status.Message(), expected);
  }
  // A left outer join bounds the left rows by the right side's watermark: a watermark on the
  // left only is not enough; on the right it is.
  EXPECT_TRUE(
      CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", -1), JoinType::kLeft, TimeRange()))
          .IsInvalidArgument());
  EXPECT_OK(
      CheckStreamingPlan(*Join(Stream("l", -1), Stream("r", 5), JoinType::kLeft, TimeRange())));
  EXPECT_OK(
      CheckStreamingPlan(*Join(Stream("l", -1), Stream("r", 5), JoinType::kLeftSemi, TimeRange())));
  // A right outer join the other way round; a full outer join either way.
  EXPECT_TRUE(
      CheckStreamingPlan(*Join(Stream("l", -1), Stream("r", 5), JoinType::kRight, TimeRange()))
          .IsInvalidArgument());
  EXPECT_OK(
      CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", -1), JoinType::kRight, TimeRange())));
  EXPECT_OK(
      CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", -1), JoinType::kFull, TimeRange())));
  // Watermarks on both sides but only an equality: no range.
  const auto equal_ids = Call(Op::kEqual, {Col("l.id"), Col("r.id")});
  EXPECT_TRUE(CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", 5), JoinType::kLeft, equal_ids))
                  .IsInvalidArgument());
  // A watermarked join key is enough on its own.
  EXPECT_OK(CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", -1), JoinType::kFull,
                                     Call(Op::kEqual, {Col("l.ts"), Col("r.ts")}))));
  // A left anti join with a stream on the right is never supported.
  const Status anti =
      CheckStreamingPlan(*Join(Stream("l", 10), Stream("r", 5), JoinType::kLeftAnti, TimeRange()));
  EXPECT_EQ(anti.Message(),
            "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported");
}

TEST_F(StatefulPlanTest, StateWatermarksFromATimeRangeCondition) {
  auto joined = Join(Stream("l", 10), Stream("r", 5), JoinType::kInner, TimeRange());
  const JoinWatermarks watermarks = PlanJoinWatermarks(AsJoin(joined));
  // l.ts >= r.ts - 5 minutes bounds the left rows; l.ts <= r.ts + 10 minutes the right ones.
  ASSERT_EQ(watermarks.eviction[0].kind, JoinStateEviction::Kind::kValue);
  EXPECT_EQ(watermarks.eviction[0].column, 1);
  EXPECT_FALSE(watermarks.eviction[0].window);
  ASSERT_EQ(watermarks.eviction[1].kind, JoinStateEviction::Kind::kValue);
  EXPECT_EQ(watermarks.eviction[1].column, 1);
  ASSERT_EQ(watermarks.value_bounds[0].size(), 1U);
  ASSERT_EQ(watermarks.value_bounds[1].size(), 1U);
  // Inclusive bounds: one millisecond below the solved value (a row equal to it may match).
  const int64_t w = 1'764'547'200'000;  // 2025-12-01T00:00:00Z
  const auto states = JoinStateWatermarksMs(watermarks, w);
  EXPECT_EQ(states[0], w - 5 * kMinuteMs - 1);
  EXPECT_EQ(states[1], w - 10 * kMinuteMs - 1);

  // Strict bounds keep the solved value; several bounds on a side give their minimum.
  auto strict = Join(
      Stream("l", 10), Stream("r", 5), JoinType::kInner,
      expr::And(Call(Op::kGreater, {Col("l.ts"), Call(Op::kSubtract, {Col("r.ts"), Minutes(2)})}),
                Call(Op::kLess, {Call(Op::kSubtract, {Col("r.ts"), Minutes(7)}), Col("l.ts")})));
  const JoinWatermarks strict_watermarks = PlanJoinWatermarks(AsJoin(strict));
  EXPECT_EQ(strict_watermarks.value_bounds[0].size(), 2U);
  EXPECT_EQ(JoinStateWatermarksMs(strict_watermarks, w)[0], w - 7 * kMinuteMs);
  // Nothing bounds the right rows from below: they stay.
  EXPECT_EQ(strict_watermarks.eviction[1].kind, JoinStateEviction::Kind::kNone);
  EXPECT_FALSE(JoinStateWatermarksMs(strict_watermarks, w)[1].has_value());
}

TEST_F(StatefulPlanTest, StateWatermarksNeedTheSidesOwnWatermarkAndAWatermarkedOtherColumn) {
  // The right side has no watermark: nothing bounds the left rows, and the right ones have no
  // event-time column to evict by.
  const JoinWatermarks one_sided = PlanJoinWatermarks(
      AsJoin(Join(Stream("l", 10), Stream("r", -1), JoinType::kInner, TimeRange())));
  EXPECT_EQ(one_sided.eviction[0].kind, JoinStateEviction::Kind::kNone);
  EXPECT_EQ(one_sided.eviction[1].kind, JoinStateEviction::Kind::kNone);
  // A bound through a column of the other side without a watermark (computed from the event
  // time, not passed through) cannot be solved.
  auto right_stream = Stream("r", 5);
  auto with_other =
      plan::WithColumn(right_stream, "other", Call(Op::kAdd, {Col("ts"), Minutes(1)}));
  ASSERT_OK(with_other.status());
  const JoinWatermarks unsolved =
      PlanJoinWatermarks(AsJoin(Join(Stream("l", 10), *with_other, JoinType::kInner,
                                     Call(Op::kGreater, {Col("l.ts"), Col("other")}))));
  EXPECT_EQ(unsolved.eviction[0].kind, JoinStateEviction::Kind::kNone);
}

TEST_F(StatefulPlanTest, AWatermarkedJoinKeyEvictsBothSidesAtTheInputWatermark) {
  auto joined = Join(Stream("l", 10), Stream("r", -1), JoinType::kLeft,
                     expr::And(Call(Op::kEqual, {Col("l.id"), Col("r.id")}),
                               Call(Op::kEqual, {Col("l.ts"), Col("r.ts")})));
  const JoinWatermarks watermarks = PlanJoinWatermarks(AsJoin(joined));
  for (const JoinStateEviction& eviction : watermarks.eviction) {
    EXPECT_EQ(eviction.kind, JoinStateEviction::Kind::kKey);
    EXPECT_EQ(eviction.column, 1);  // the second key, ts
  }
  const auto states = JoinStateWatermarksMs(watermarks, 123'456);
  EXPECT_EQ(states[0], 123'456);
  EXPECT_EQ(states[1], 123'456);
}

TEST_F(StatefulPlanTest, StateValueWatermarkRoundsAsSpark) {
  // The sum is in double microseconds, divided by 1000 and truncated toward zero.
  EXPECT_EQ(StateValueWatermarkMs({{1, 1500, false}}, 1000), 1001);
  EXPECT_EQ(StateValueWatermarkMs({{1, 1500, true}}, 1000), 1000);
  EXPECT_EQ(StateValueWatermarkMs({{1, -500, false}}, -10), -10);
  EXPECT_EQ(StateValueWatermarkMs({{1, 0, false}, {1, -2'000'000, true}}, 5000), 2999);
  EXPECT_EQ(StateValueWatermarkMs({{0, 7'000'999, false}}, 5000), 7000);
  EXPECT_FALSE(StateValueWatermarkMs({}, 5000).has_value());
}

TEST_F(StatefulPlanTest, WatermarkPropagatesThroughAJoinToAnAggregation) {
  auto joined = Join(Stream("l", 10), Stream("r", 5), JoinType::kInner, TimeRange());
  ASSERT_OK_AND_ASSIGN(
      auto counted,
      plan::Aggregate(joined, {Col("l.ts")},
                      {{Col("l.ts"), "ts"}, {expr::Function("count", {Col("l.id")}), "n"}},
                      nullptr));
  ASSERT_OK(CheckStreamingPlan(*counted));
  ASSERT_OK_AND_ASSIGN(StatefulPlan planned,
                       PlanStatefulOperators(counted, exec::OutputMode::kAppend));
  ASSERT_EQ(planned.operators.size(), 2U);
  EXPECT_EQ(planned.operators[0].name, "stateStoreSave");
  EXPECT_EQ(planned.operators[1].name, "symmetricHashJoin");
  EXPECT_TRUE(planned.operators[1].uses_watermark);
  const int64_t w = 100 * kMinuteMs;
  const auto inputs = PropagateWatermarks(planned, w);
  // The join reads the global watermark; the aggregation the lower of the join's state
  // watermarks (its rows can be that old).
  EXPECT_EQ(inputs[1], w);
  EXPECT_EQ(inputs[0], w - 10 * kMinuteMs - 1);

  SetOperatorWatermarks(planned, w - kMinuteMs, w);
  const exec::StatefulOperatorRuntime& aggregate = *planned.operators[0].runtime;
  const exec::StatefulOperatorRuntime& join = *planned.operators[1].runtime;
  EXPECT_EQ(aggregate.late_rows_watermark_micros, (w - 11 * kMinuteMs - 1) * 1000);
  EXPECT_EQ(aggregate.eviction_watermark_micros, (w - 10 * kMinuteMs - 1) * 1000);
  EXPECT_EQ(join.late_rows_watermark_micros, (w - kMinuteMs) * 1000);
  EXPECT_EQ(join.eviction_watermark_micros, w * 1000);
  EXPECT_EQ(join.join_state_watermark_micros[0], (w - 5 * kMinuteMs - 1) * 1000);
  EXPECT_EQ(join.join_state_watermark_micros[1], (w - 10 * kMinuteMs - 1) * 1000);
  // Before the first batch nothing is late.
  SetOperatorWatermarks(planned, std::nullopt, w);
  EXPECT_FALSE(join.late_rows_watermark_micros.has_value());
  EXPECT_FALSE(aggregate.late_rows_watermark_micros.has_value());

  EXPECT_TRUE(WatermarkAdvancesState(planned, w, w + 1));
  EXPECT_FALSE(WatermarkAdvancesState(planned, w, w));
}

TEST_F(StatefulPlanTest, WatermarkPropagatesThroughADedupAndSkipsUnwatermarkedInputs) {
  ASSERT_OK_AND_ASSIGN(auto deduplicated, plan::DropDuplicates(Stream("l", 10), {"id", "ts"},
                                                               /*within_watermark=*/false));
  ASSERT_OK_AND_ASSIGN(
      auto counted,
      plan::Aggregate(deduplicated, {Col("ts")},
                      {{Col("ts"), "ts"}, {expr::Function("count", {Col("id")}), "n"}}, nullptr));
  ASSERT_OK_AND_ASSIGN(StatefulPlan planned,
                       PlanStatefulOperators(counted, exec::OutputMode::kAppend));
  ASSERT_EQ(planned.operators.size(), 2U);
  const auto inputs = PropagateWatermarks(planned, 42);
  EXPECT_EQ(inputs[0], 42);
  EXPECT_EQ(inputs[1], 42);

  // A stream without a watermark reaches its aggregation with none.
  ASSERT_OK_AND_ASSIGN(auto plain,
                       plan::Aggregate(Stream("p", -1), {Col("id")}, {{Col("id"), "id"}}, nullptr));
  ASSERT_OK_AND_ASSIGN(StatefulPlan unwatermarked,
                       PlanStatefulOperators(plain, exec::OutputMode::kUpdate));
  EXPECT_FALSE(PropagateWatermarks(unwatermarked, 42)[0].has_value());
}

}  // namespace
}  // namespace tributary::streaming

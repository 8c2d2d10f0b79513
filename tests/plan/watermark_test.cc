// WatermarkNode (withWatermark): built with Spark's checks, printed as Spark's EXPLAIN prints
// EventTimeWatermark, passed through by batch queries, and kept intact by the optimizer (the
// event-time column is never pruned below it; only filters that do not read it move below).

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "exec/operator.h"
#include "plan/optimizer.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "plan/plan_rows.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::plan {
namespace {

using columnar::DataType;
using columnar::Field;
using expr::Call;
using expr::Col;
using expr::Lit;
using expr::Op;
using expr::Scalar;
using ::testing::HasSubstr;

constexpr int64_t kMinute = 60000000;

const LogicalPlan* Find(const LogicalPlan& plan, PlanKind kind) {
  if (plan.Kind() == kind) {
    return &plan;
  }
  for (const LogicalPlanPtr& input : plan.Inputs()) {
    if (const LogicalPlan* found = Find(*input, kind)) {
      return found;
    }
  }
  return nullptr;
}

class WatermarkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto window = DataType::Struct(
        {Field("start", DataType::Timestamp()), Field("end", DataType::Timestamp())});
    schema_ =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("ts", DataType::Timestamp()),
                             Field("s", DataType::String()), Field("w", window),
                             Field("ntz", DataType::TimestampNtz())});
    ASSERT_OK_AND_ASSIGN(batch_, testing::BatchFromJson(schema_, R"([
      [1, 60000000, "a", [0, 60000000], 1], [2, 120000000, "b", null, 2],
      [3, null, "c", null, 3]])"));
  }

  LogicalPlanPtr Values() const { return testing::ValuesPlan(schema_, batch_); }

  // The rows `plan` gives, as canonical JSON in output order.
  std::vector<std::string> Run(const LogicalPlan& plan) { return testing::RunPlan(plan, &fs_); }

  columnar::SchemaPtr schema_;
  columnar::RecordBatchPtr batch_;
  storage::LocalFileSystem fs_;
};

TEST_F(WatermarkTest, MarksTheEventTimeColumnAndKeepsTheInputsRows) {
  ASSERT_OK_AND_ASSIGN(auto plan, Watermark(Values(), "ts", 10 * kMinute, "10 minutes"));
  ASSERT_EQ(plan->Kind(), PlanKind::kWatermark);
  const auto& watermark = plan->As<WatermarkNode>();
  EXPECT_EQ(watermark.EventTimeColumn(), "ts");
  EXPECT_EQ(watermark.EventTimeIndex(), 1);
  EXPECT_EQ(watermark.DelayMicros(), 10 * kMinute);
  EXPECT_TRUE(plan->Schema()->Equals(*schema_));
  EXPECT_FALSE(plan->IsStreaming());
  EXPECT_EQ(plan->ToString(), "EventTimeWatermark ts, 10 minutes");
  // A qualified name, and a window struct (its end is the event time).
  ASSERT_OK_AND_ASSIGN(auto qualified, Watermark(Values(), "v.ts", 0, "0 seconds"));
  EXPECT_EQ(qualified->As<WatermarkNode>().EventTimeIndex(), 1);
  ASSERT_OK_AND_ASSIGN(auto on_window, Watermark(Values(), "w", kMinute, "1 minute"));
  EXPECT_EQ(on_window->As<WatermarkNode>().EventTimeColumn(), "w");
  // Batch queries read straight through it.
  EXPECT_EQ(Run(*plan), Run(*Values()));
  EXPECT_EQ(Run(*plan).size(), 3u);
}

TEST_F(WatermarkTest, RefusesWhatSparkRefuses) {
  auto missing = Watermark(Values(), "tss", kMinute, "1 minute");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().Message(), HasSubstr("with name `tss` cannot be resolved"));
  EXPECT_THAT(missing.status().Message(),
              HasSubstr("Did you mean one of the following? [`v`.`ts`"));

  auto not_time = Watermark(Values(), "s", kMinute, "1 minute");
  ASSERT_FALSE(not_time.ok());
  EXPECT_EQ(not_time.status().Message(),
            "[EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE] The event time `s` has the invalid type "
            "\"STRING\", but expected \"TIMESTAMP\".");
  // Spark takes TIMESTAMP only, not TIMESTAMP_NTZ.
  auto ntz = Watermark(Values(), "ntz", kMinute, "1 minute");
  ASSERT_FALSE(ntz.ok());
  EXPECT_THAT(ntz.status().Message(), HasSubstr("\"TIMESTAMP_NTZ\""));

  auto negative = Watermark(Values(), "ts", -kMinute, "-1 minute");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().Message(), "delay threshold (-1 minute) should not be negative.");

  auto field = Watermark(Values(), "w.end", kMinute, "1 minute");
  ASSERT_FALSE(field.ok());
  EXPECT_THAT(field.status().Message(), HasSubstr("top-level column"));
}

TEST_F(WatermarkTest, TheOptimizerKeepsTheEventTimeColumnBelowIt) {
  ASSERT_OK_AND_ASSIGN(auto marked, Watermark(Values(), "ts", 10 * kMinute, "10 minutes"));
  ASSERT_OK_AND_ASSIGN(auto plan, Select(marked, {NamedExpr{Col("s"), ""}}));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* watermark = static_cast<const WatermarkNode*>(Find(*optimized, PlanKind::kWatermark));
  ASSERT_NE(watermark, nullptr) << ExplainLogical(*optimized);
  EXPECT_EQ(watermark->EventTimeColumn(), "ts") << ExplainLogical(*optimized);
  EXPECT_EQ(watermark->DelayMicros(), 10 * kMinute);
  // Only the columns read above (s) and the event time (ts) are scanned.
  EXPECT_THAT(Find(*optimized, PlanKind::kScan)->ToString(), HasSubstr("[ts, s]"))
      << ExplainLogical(*optimized);
  EXPECT_EQ(Run(*optimized), Run(*plan));
}

TEST_F(WatermarkTest, FiltersMoveBelowItOnlyWhenTheyDoNotReadTheEventTime) {
  ASSERT_OK_AND_ASSIGN(auto marked, Watermark(Values(), "ts", 10 * kMinute, "10 minutes"));
  auto on_id = Call(Op::kGreater, {Col("id"), Lit(Scalar::Int64(1))});
  auto on_ts = Call(Op::kIsNotNull, {Col("ts")});
  ASSERT_OK_AND_ASSIGN(auto plan, Filter(marked, Call(Op::kAnd, {on_id, on_ts})));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  // Filter(ts) -> EventTimeWatermark -> Filter(id) -> Scan
  ASSERT_EQ(optimized->Kind(), PlanKind::kFilter) << ExplainLogical(*optimized);
  EXPECT_THAT(optimized->ToString(), HasSubstr("ts")) << ExplainLogical(*optimized);
  ASSERT_EQ(optimized->Input().Kind(), PlanKind::kWatermark) << ExplainLogical(*optimized);
  const LogicalPlan& below = optimized->Input().Input();
  ASSERT_EQ(below.Kind(), PlanKind::kFilter) << ExplainLogical(*optimized);
  EXPECT_THAT(below.ToString(), HasSubstr("id")) << ExplainLogical(*optimized);
  EXPECT_THAT(below.ToString(), ::testing::Not(HasSubstr("ts"))) << ExplainLogical(*optimized);
  EXPECT_EQ(Run(*optimized), Run(*plan));
  EXPECT_EQ(Run(*optimized).size(), 1u);
}

}  // namespace
}  // namespace tributary::plan

// The optimizer's rewrites (optimizer.h), each checked twice: by the shape of the optimized plan
// (a folded constant, a top-N sort, a pruned scan, a filter handed to a Delta scan) and by
// running the plan before and after, which must give the same rows.

#include "plan/optimizer.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/table_writes.h"
#include "exec/operator.h"
#include "plan/data_sources.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "plan/plan_rows.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

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
using ::testing::Not;

// The first node of `plan` (preorder) of kind `kind`, or null.
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

class OptimizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = testing::MakeSchema({Field("id", DataType::Int64()), Field("s", DataType::String()),
                                   Field("country", DataType::String())});
    ASSERT_OK_AND_ASSIGN(batch_, testing::BatchFromJson(schema_, R"([
      [1, "a", "fr"], [2, "b", "de"], [3, null, "fr"], [4, "d", "us"], [5, "e", "de"]])"));
  }

  LogicalPlanPtr Values() const { return testing::ValuesPlan(schema_, batch_); }

  // The rows `plan` gives, as canonical JSON in output order.
  std::vector<std::string> Run(const LogicalPlan& plan) { return testing::RunPlan(plan, &fs_); }

  static std::vector<std::string> Sorted(std::vector<std::string> rows) {
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  columnar::SchemaPtr schema_;
  columnar::RecordBatchPtr batch_;
  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

TEST_F(OptimizerTest, ConstantSubexpressionsAreFoldedOnce) {
  auto one_plus_one = Call(Op::kAdd, {Lit(Scalar::Int64(1)), Lit(Scalar::Int64(1))});
  ASSERT_OK_AND_ASSIGN(auto plan, Filter(Values(), Call(Op::kGreater, {Col("id"), one_plus_one})));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* filter = static_cast<const FilterNode*>(Find(*optimized, PlanKind::kFilter));
  ASSERT_NE(filter, nullptr) << ExplainLogical(*optimized);
  EXPECT_THAT(filter->Condition()->ToString(), Not(HasSubstr("+")));
  EXPECT_EQ(Run(*optimized), Run(*plan));
  EXPECT_EQ(Run(*optimized).size(), 3u);
}

TEST_F(OptimizerTest, OrderByThenLimitBecomesATopNSort) {
  ASSERT_OK_AND_ASSIGN(auto ordered, OrderBy(Values(), {SortItem{Col("id"), false, {}}}));
  ASSERT_OK_AND_ASSIGN(auto plan, Limit(ordered, 2));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* sort = static_cast<const SortNode*>(Find(*optimized, PlanKind::kSort));
  ASSERT_NE(sort, nullptr) << ExplainLogical(*optimized);
  EXPECT_EQ(sort->Limit(), std::optional<int64_t>(2)) << ExplainLogical(*optimized);
  EXPECT_EQ(Run(*optimized), Run(*plan));
  EXPECT_THAT(Run(*optimized), ::testing::ElementsAre(R"({"id":5,"s":"e","country":"de"})",
                                                      R"({"id":4,"s":"d","country":"us"})"));
}

TEST_F(OptimizerTest, ScansKeepOnlyTheColumnsUsedAbove) {
  ASSERT_OK_AND_ASSIGN(auto plan, Select(Values(), {NamedExpr{Col("id"), ""}}));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const LogicalPlan* scan = Find(*optimized, PlanKind::kScan);
  ASSERT_NE(scan, nullptr);
  EXPECT_THAT(scan->ToString(), HasSubstr("[id]")) << ExplainLogical(*optimized);
  EXPECT_EQ(Run(*optimized), Run(*plan));
}

TEST_F(OptimizerTest, AggregatesNothingReadsAreDroppedWithTheColumnsOnlyTheyRead) {
  // max(s) is computed per country but only the count is selected: it goes, and so does s
  // from the scan (Spark's ColumnPruning). The global count above keeps its one aggregate.
  ASSERT_OK_AND_ASSIGN(auto grouped,
                       Aggregate(Values(), {Col("country")},
                                 {NamedExpr{Col("country"), ""},
                                  NamedExpr{expr::Function("count", {Col("id")}), "n"},
                                  NamedExpr{expr::Function("max", {Col("s")}), "m"}},
                                 nullptr));
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Select(grouped, {NamedExpr{Col("n"), ""}, NamedExpr{Col("country"), ""}}));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* aggregate = static_cast<const AggregateNode*>(Find(*optimized, PlanKind::kAggregate));
  ASSERT_NE(aggregate, nullptr) << ExplainLogical(*optimized);
  EXPECT_EQ(aggregate->Aggregates().size(), 1u) << ExplainLogical(*optimized);
  EXPECT_EQ(aggregate->Schema()->NumFields(), 2);
  const LogicalPlan* scan = Find(*optimized, PlanKind::kScan);
  ASSERT_NE(scan, nullptr);
  EXPECT_THAT(scan->ToString(), HasSubstr("[id, country]")) << ExplainLogical(*optimized);
  EXPECT_EQ(Sorted(Run(*optimized)), Sorted(Run(*plan)));
  EXPECT_THAT(Sorted(Run(*optimized)),
              ::testing::ElementsAre(R"({"n":1,"country":"us"})", R"({"n":2,"country":"de"})",
                                     R"({"n":2,"country":"fr"})"));

  ASSERT_OK_AND_ASSIGN(auto global, Aggregate(Values(), {},
                                              {NamedExpr{expr::Function("count", {Col("id")}), "n"},
                                               NamedExpr{expr::Function("max", {Col("s")}), "m"}},
                                              nullptr));
  ASSERT_OK_AND_ASSIGN(auto constant, Select(global, {NamedExpr{Lit(Scalar::Int64(7)), "k"}}));
  ASSERT_OK_AND_ASSIGN(auto optimized_constant, Optimize(constant));
  EXPECT_THAT(Run(*optimized_constant), ::testing::ElementsAre(R"({"k":7})"));
}

TEST_F(OptimizerTest, AFilterAboveADeltaScanIsAlsoHandedToTheScan) {
  const std::string root = dir_.Join("events");
  delta::TableWriteOptions options;
  options.partition_by = {"country"};
  ASSERT_OK(delta::WriteTable(fs_, root, schema_, {batch_}, options));
  Catalog catalog;
  catalog.fs = &fs_;
  catalog.warehouse = dir_.Path();
  ASSERT_OK_AND_ASSIGN(auto scan, ScanDeltaTable(catalog, root, {}, "events"));
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Filter(scan, Call(Op::kEqual, {Col("country"), Lit(Scalar::String("fr"))})));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* pushed = static_cast<const ScanNode*>(Find(*optimized, PlanKind::kScan));
  ASSERT_NE(pushed, nullptr);
  EXPECT_NE(pushed->PushedFilter(), nullptr) << ExplainLogical(*optimized);
  // The filter stays above the scan to drop rows; skipping only saves reading files.
  EXPECT_NE(Find(*optimized, PlanKind::kFilter), nullptr) << ExplainLogical(*optimized);
  EXPECT_EQ(Sorted(Run(*optimized)), Sorted(Run(*plan)));
  EXPECT_EQ(Run(*optimized).size(), 2u);
}

// A long IN list is one set lookup (expr/in_set.h); the scan is still handed the list's range,
// so files of other values are skipped.
TEST_F(OptimizerTest, ALongInListIsHandedToADeltaScanAsItsRange) {
  const std::string root = dir_.Join("events");
  ASSERT_OK(delta::WriteTable(fs_, root, schema_, {batch_}, {}));
  Catalog catalog;
  catalog.fs = &fs_;
  catalog.warehouse = dir_.Path();
  ASSERT_OK_AND_ASSIGN(auto scan, ScanDeltaTable(catalog, root, {}, "events"));
  std::vector<expr::ExprPtr> list;
  for (int k = 4; k < 16; ++k) {
    list.push_back(Lit(Scalar::Int32(k)));
  }
  ASSERT_OK_AND_ASSIGN(auto plan, Filter(scan, expr::In(Col("id"), list)));
  ASSERT_OK_AND_ASSIGN(auto optimized, Optimize(plan));
  const auto* pushed = static_cast<const ScanNode*>(Find(*optimized, PlanKind::kScan));
  ASSERT_NE(pushed, nullptr);
  ASSERT_NE(pushed->PushedFilter(), nullptr) << ExplainLogical(*optimized);
  EXPECT_EQ(pushed->PushedFilter()->ToString(),
            "((id >= CAST(4 AS bigint)) AND (id <= CAST(15 AS bigint)))");
  EXPECT_EQ(Sorted(Run(*optimized)), Sorted(Run(*plan)));
  EXPECT_EQ(Run(*optimized).size(), 2u);
}

}  // namespace
}  // namespace tributary::plan

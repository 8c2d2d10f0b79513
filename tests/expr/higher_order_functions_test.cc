#include <gtest/gtest.h>

#include "columnar/take.h"
#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class HigherOrderFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("a", DataType::Array(DataType::Int32())),
                              Field("s", DataType::String()), Field("i", DataType::Int32())});
    batch_ = BatchFromJson(schema, R"([
        [[1, 2, 3], "p", 10],
        [[], "q", 20],
        [null, "r", 30],
        [[4, null], "s", 40]
      ])")
                 .ValueOrDie();
  }
};

TEST_F(HigherOrderFunctionsTest, LambdaBodyReadsElementsAndEnclosingColumns) {
  ExprPtr plus_i = LambdaExpr({"x"}, Call(Op::kAdd, {Col("x"), Col("i")}));
  EXPECT_EQ(plus_i->ToString(), "x -> (x + i)");
  EXPECT_EQ(Eval(Function("transform", {Col("a"), plus_i})),
            (Strings{"[11,12,13]", "[]", "null", "[44,null]"}));
  ExprPtr with_index = LambdaExpr({"x", "k"}, Call(Op::kMultiply, {Col("x"), Col("k")}));
  EXPECT_EQ(with_index->ToString(), "(x, k) -> (x * k)");
  EXPECT_EQ(Eval(Function("transform", {Col("a"), with_index})),
            (Strings{"[0,2,6]", "[]", "null", "[0,null]"}));
}

TEST_F(HigherOrderFunctionsTest, CapturedColumnsAreCallChildrenThatRewritesCanMove) {
  ExprPtr call =
      Function("transform", {Col("a"), LambdaExpr({"x"}, Call(Op::kAdd, {Col("x"), Col("i")}))});
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*call, *batch_->Schema()));
  // The array, then the one enclosing column the body reads.
  ASSERT_EQ(bound->Children().size(), 2u);
  EXPECT_EQ(bound->Child(1).GetOp(), Op::kColumn);
  EXPECT_EQ(bound->Child(1).Index(), 2);
  // A plan rewrite that moves the columns renumbers the children, and the body follows.
  auto schema =
      MakeSchema({Field("i", DataType::Int32()), Field("a", DataType::Array(DataType::Int32()))});
  ASSERT_OK_AND_ASSIGN(auto moved, BatchFromJson(schema, R"([[5, [1, 2]]])"));
  auto rewritten =
      bound->WithChildren({bound->Child(0).WithIndex(1), bound->Child(1).WithIndex(0)});
  ASSERT_OK_AND_ASSIGN(auto column, Evaluate(*rewritten, *moved));
  ASSERT_OK_AND_ASSIGN(auto element, columnar::Take(*column->Child(0), std::vector<int64_t>{1}));
  EXPECT_EQ(element->Values<int32_t>()[0], 7);
}

TEST_F(HigherOrderFunctionsTest, LambdaParameterShadowsColumnAndNests) {
  EXPECT_EQ(Eval(Function("transform", {Col("a"), LambdaExpr({"i"}, Col("i"))})),
            (Strings{"[1,2,3]", "[]", "null", "[4,null]"}));
  // The inner lambda reads the outer one's parameter and an enclosing column.
  ExprPtr inner =
      LambdaExpr({"y"}, Call(Op::kAdd, {Col("y"), Call(Op::kAdd, {Col("x"), Col("i")})}));
  ExprPtr outer = LambdaExpr({"x"}, Function("transform", {Col("a"), inner}));
  EXPECT_EQ(
      Eval(Function("transform", {Col("a"), outer})),
      (Strings{"[[12,13,14],[13,14,15],[14,15,16]]", "[]", "null", "[[48,null],[null,null]]"}));
}

TEST_F(HigherOrderFunctionsTest, AggregateFoldsEachArrayInOrder) {
  ExprPtr merge = LambdaExpr({"acc", "x"},
                             Function("concat", {Col("acc"), Cast(Col("x"), DataType::String())}));
  EXPECT_EQ(Eval(Function("aggregate", {Col("a"), Col("s"), merge})),
            (Strings{"\"p123\"", "\"q\"", "null", "null"}));
}

TEST_F(HigherOrderFunctionsTest, RejectsMisplacedLambdas) {
  ExprPtr identity = LambdaExpr({"x"}, Col("x"));
  ASSERT_RAISES(InvalidArgument, Bind(*identity, *batch_->Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*Function("upper", {identity}), *batch_->Schema()));
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("transform", {identity, Col("a")}), *batch_->Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*LambdaVariable("x"), *batch_->Schema()));
}

}  // namespace
}  // namespace tributary::expr

#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class ConditionalFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("n", DataType::Int32()), Field("d", DataType::Int32()),
                              Field("s", DataType::String()), Field("x", DataType::Float64())});
    batch_ = BatchFromJson(schema, R"([
        [10,   2,    "a",  1.5],
        [7,    0,    null, null],
        [null, 5,    "c",  "NaN"],
        [-3,   null, null, 2.0]
      ])")
                 .ValueOrDie();
  }
};

TEST_F(ConditionalFunctionsTest, CaseWhenEvaluatesBranchesOnlyWhereTheyApply) {
  // n / d would be an ANSI division-by-zero error on row 1 if evaluated there.
  auto expr = CaseWhen(
      {{Call(Op::kNotEqual, {Col("d"), IntLit(0)}), Call(Op::kDivide, {Col("n"), Col("d")})}},
      Lit(Scalar::Float64(-1)));
  EXPECT_EQ(Eval(expr), (Strings{"5.0", "-1.0", "null", "-1.0"}));
  EXPECT_EQ(expr->ToString(), "CASE WHEN (d != 0) THEN (n / d) ELSE -1.0 END");
  ASSERT_RAISES(InvalidArgument, EvalToJson(Call(Op::kDivide, {Col("n"), Col("d")}), *batch_));
  // An error inside a branch names the row of the whole batch, not of the branch's rows.
  auto error = EvalError(CaseWhen({{Call(Op::kGreater, {Col("n"), IntLit(8)}), IntLit(0)}},
                                  Call(Op::kDivide, {Col("n"), Col("d")})));
  ASSERT_RAISES(InvalidArgument, error);
  EXPECT_NE(error.Message().find("row 1"), std::string::npos) << error;
}

TEST_F(ConditionalFunctionsTest, CaseWhenWithoutElseIsNullAndWidensBranches) {
  // Spark's ANSI least common type of a string and an integer is bigint (the string is cast).
  auto expr = CaseWhen({{Call(Op::kGreater, {Col("n"), IntLit(8)}), StrLit("99")},
                        {Call(Op::kLess, {Col("n"), IntLit(0)}), Col("d")}},
                       nullptr);
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*expr, *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "bigint");
  EXPECT_EQ(Eval(expr), (Strings{"99", "null", "null", "null"}));
  auto numbers = CaseWhen({{Call(Op::kGreater, {Col("n"), IntLit(8)}), Col("x")}}, Col("n"));
  EXPECT_EQ(Eval(numbers), (Strings{"1.5", "7.0", "null", "-3.0"}));
  auto bad = CaseWhen({{Col("n"), IntLit(1)}}, nullptr);
  ASSERT_RAISES(InvalidArgument, Bind(*bad, *batch_->Schema()));
}

TEST_F(ConditionalFunctionsTest, CoalesceIfNullNvlTakeTheFirstNonNull) {
  EXPECT_EQ(Eval(Function("COALESCE", {Col("n"), Col("d"), IntLit(0)})),
            (Strings{"10", "7", "5", "-3"}));
  EXPECT_EQ(Eval(Function("coalesce", {Col("s"), StrLit("-")})),
            (Strings{"\"a\"", "\"-\"", "\"c\"", "\"-\""}));
  EXPECT_EQ(Eval(Function("ifnull", {Col("d"), Col("n")})), (Strings{"2", "0", "5", "-3"}));
  EXPECT_EQ(Eval(Function("nvl", {Col("x"), Col("n")})), (Strings{"1.5", "7.0", "\"NaN\"", "2.0"}));
  // Later arguments only run where earlier ones are null: no division by zero on row 1.
  EXPECT_EQ(Eval(Function("coalesce", {Col("s"), Cast(Call(Op::kDivide, {Col("n"), Col("n")}),
                                                      DataType::String())})),
            (Strings{"\"a\"", "\"1.0\"", "\"c\"", "\"1.0\""}));
  ASSERT_RAISES(InvalidArgument, Bind(*Function("nvl", {Col("n")}), *batch_->Schema()));
}

TEST_F(ConditionalFunctionsTest, IfAndNullIf) {
  EXPECT_EQ(Eval(Function(
                "if", {Call(Op::kGreater, {Col("n"), IntLit(0)}), StrLit("pos"), StrLit("neg")})),
            (Strings{"\"pos\"", "\"pos\"", "\"neg\"", "\"neg\""}));
  EXPECT_EQ(Eval(Function("nullif", {Col("d"), IntLit(0)})), (Strings{"2", "null", "5", "null"}));
  EXPECT_EQ(Eval(Function("nvl2", {Col("s"), Col("n"), IntLit(0)})),
            (Strings{"10", "0", "null", "0"}));
  EXPECT_EQ(Eval(Function("isnull", {Col("s")})), (Strings{"false", "true", "false", "true"}));
  EXPECT_EQ(Eval(Function("isnotnull", {Col("n")})), (Strings{"true", "true", "false", "true"}));
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("if", {Col("n"), IntLit(1), IntLit(2)}), *batch_->Schema()));
}

TEST_F(ConditionalFunctionsTest, GreatestAndLeastSkipNulls) {
  EXPECT_EQ(Eval(Function("greatest", {Col("n"), Col("d")})), (Strings{"10", "7", "5", "-3"}));
  EXPECT_EQ(Eval(Function("least", {Col("n"), Col("d"), IntLit(1)})),
            (Strings{"1", "0", "1", "-3"}));
  // NaN is larger than any number, as Spark orders doubles.
  EXPECT_EQ(Eval(Function("greatest", {Col("x"), Col("n")})),
            (Strings{"10.0", "7.0", "\"NaN\"", "2.0"}));
}

TEST_F(ConditionalFunctionsTest, UnknownFunctionsSuggestANameAndAggregatesAreRejected) {
  auto result = Bind(*Function("coalese", {Col("n")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_EQ(result.status().Message(),
            "[UNRESOLVED_ROUTINE] Cannot resolve routine `coalese` on search path "
            "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]. Did you mean "
            "`coalesce`?");
  auto aggregate = Bind(*Function("SUM", {Col("n")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, aggregate);
  EXPECT_NE(aggregate.status().Message().find("aggregate function sum"), std::string::npos);
  auto explode = Bind(*Function("explode", {Col("n")}), *batch_->Schema());
  EXPECT_EQ(explode.status().Message(), "explode is only allowed in SELECT: explode(n)");
  EXPECT_TRUE(IsAggregateFunctionName("Count"));
  EXPECT_TRUE(IsGeneratorFunctionName("posexplode"));
  EXPECT_FALSE(IsAggregateFunctionName("coalesce"));
  EXPECT_EQ(Function("count", {Col("n")}, true)->ToString(), "count(DISTINCT n)");
}

}  // namespace
}  // namespace tributary::expr

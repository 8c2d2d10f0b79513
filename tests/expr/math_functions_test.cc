#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class MathFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("i", DataType::Int32()), Field("x", DataType::Float64()),
                              Field("p", DataType::Decimal(5, 3).ValueOrDie())});
    batch_ = BatchFromJson(schema, R"([
        [7, 2.5, "12345"],
        [-7, -2.5, "-12345"],
        [null, null, null],
        [-2147483648, 0.125, "500"]
      ])")
                 .ValueOrDie();
  }
  Strings Call1(const std::string& name, std::vector<ExprPtr> args) {
    return Eval(Function(name, std::move(args)));
  }
};

TEST_F(MathFunctionsTest, AbsIsAnsiOnOverflow) {
  EXPECT_EQ(Call1("abs", {Col("x")}), (Strings{"2.5", "2.5", "null", "0.125"}));
  EXPECT_EQ(Call1("abs", {Col("p")}), (Strings{"\"12.345\"", "\"12.345\"", "null", "\"0.500\""}));
  auto overflow = EvalError(Function("abs", {Col("i")}));
  ASSERT_RAISES(InvalidArgument, overflow);
  EXPECT_NE(overflow.Message().find("row 3: abs(-2147483648) overflows int"), std::string::npos)
      << overflow;
}

TEST_F(MathFunctionsTest, RoundsHalfUpAndHalfEvenLikeSpark) {
  EXPECT_EQ(Call1("round", {Col("x")}), (Strings{"3.0", "-3.0", "null", "0.0"}));
  EXPECT_EQ(Call1("bround", {Col("x")}), (Strings{"2.0", "-2.0", "null", "0.0"}));
  EXPECT_EQ(Call1("round", {Col("x"), IntLit(2)})[3], "0.13");
  EXPECT_EQ(Call1("bround", {Col("x"), IntLit(2)})[3], "0.12");
  EXPECT_EQ(Call1("round", {Col("p"), IntLit(1)}),
            (Strings{"\"12.3\"", "\"-12.3\"", "null", "\"0.5\""}));
  ASSERT_OK_AND_ASSIGN(auto bound,
                       Bind(*Function("round", {Col("p"), IntLit(1)}), *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "decimal(4,1)");
  EXPECT_EQ(Call1("round", {IntLit(1250), IntLit(-2)})[0], "1300");
  EXPECT_EQ(Call1("bround", {IntLit(1250), IntLit(-2)})[0], "1200");
  EXPECT_EQ(Call1("round", {Lit(Scalar::Float64(1234.5)), IntLit(-2)})[0], "1200.0");
}

TEST_F(MathFunctionsTest, FloorAndCeil) {
  EXPECT_EQ(Call1("floor", {Col("x")}), (Strings{"2", "-3", "null", "0"}));
  EXPECT_EQ(Call1("ceil", {Col("x")}), (Strings{"3", "-2", "null", "1"}));
  EXPECT_EQ(Call1("ceiling", {Col("p")}), (Strings{"\"13\"", "\"-12\"", "null", "\"1\""}));
  EXPECT_EQ(Call1("floor", {Col("p")}), (Strings{"\"12\"", "\"-13\"", "null", "\"0\""}));
  EXPECT_EQ(Call1("floor", {Lit(Scalar::Float64(1e30))})[0], "9223372036854775807");
}

TEST_F(MathFunctionsTest, ExponentsAndLogarithms) {
  EXPECT_EQ(Call1("sqrt", {IntLit(16)})[0], "4.0");
  EXPECT_EQ(Call1("pow", {IntLit(2), IntLit(10)})[0], "1024.0");
  EXPECT_EQ(Call1("power", {Col("x"), IntLit(2)})[1], "6.25");
  EXPECT_EQ(Call1("exp", {IntLit(0)})[0], "1.0");
  EXPECT_EQ(Call1("ln", {Col("x")}),
            (Strings{Call1("ln", {Lit(Scalar::Float64(2.5))})[0], "null", "null",
                     Call1("ln", {Lit(Scalar::Float64(0.125))})[0]}));
  EXPECT_EQ(Call1("log10", {IntLit(1000)})[0], "3.0");
  EXPECT_EQ(Call1("log2", {IntLit(8)})[0], "3.0");
  EXPECT_EQ(Call1("log", {IntLit(2), IntLit(8)})[0], "3.0");
  EXPECT_EQ(Call1("log", {IntLit(0), IntLit(8)})[0], "null");
  EXPECT_EQ(Call1("sign", {Col("i")}), (Strings{"1.0", "-1.0", "null", "-1.0"}));
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("sqrt", {Function("array", {IntLit(1)})}), *batch_->Schema()));
}

TEST_F(MathFunctionsTest, ModAndPmod) {
  EXPECT_EQ(Call1("mod", {Col("i"), IntLit(3)}), (Strings{"1", "-1", "null", "-2"}));
  EXPECT_EQ(Call1("pmod", {Col("i"), IntLit(3)}), (Strings{"1", "2", "null", "1"}));
  EXPECT_EQ(Call1("pmod", {Col("x"), IntLit(2)})[1], "1.5");
  ASSERT_RAISES(InvalidArgument, EvalError(Function("mod", {Col("i"), IntLit(0)})));
  ASSERT_RAISES(InvalidArgument, Bind(*Function("mod", {Col("i")}), *batch_->Schema()));
}

}  // namespace
}  // namespace tributary::expr

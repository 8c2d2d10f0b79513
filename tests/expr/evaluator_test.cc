#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto decimal = DataType::Decimal(10, 2).ValueOrDie();
    auto schema = MakeSchema({Field("i", DataType::Int32()), Field("j", DataType::Int32()),
                              Field("l", DataType::Int64()), Field("d", DataType::Float64()),
                              Field("p", decimal), Field("s", DataType::String()),
                              Field("b", DataType::Boolean()), Field("c", DataType::Boolean()),
                              Field("t", DataType::Struct({Field("x", DataType::Int32())}))});
    batch_ = BatchFromJson(schema, R"([
        [1,    2,    10,   1.5,  "1050",  "apple",  true,  true,  {"x": 7}],
        [null, 3,    20,   null, null,    null,     null,  false, null],
        [-4,   0,    null, -0.0, "-25",   "banana", false, null,  {"x": null}],
        [2147483647, 1, 9223372036854775807, "NaN", "99999999", "cherry", true, null, {"x": 1}]
      ])")
                 .ValueOrDie();
  }

  Strings Eval(const ExprPtr& expr) {
    auto result = EvalToJson(expr, *batch_);
    EXPECT_TRUE(result.ok()) << expr->ToString() << ": " << result.status();
    return result.ok() ? *result : Strings{};
  }
  Status EvalError(const ExprPtr& expr) { return EvalToJson(expr, *batch_).status(); }

  columnar::RecordBatchPtr batch_;
};

ExprPtr Call2(Op op, ExprPtr a, ExprPtr b) {
  return Call(op, {std::move(a), std::move(b)});
}

TEST_F(EvaluatorTest, ArithmeticPropagatesNulls) {
  auto batch =
      BatchFromJson(MakeSchema({Field("i", DataType::Int32()), Field("j", DataType::Int32())}),
                    "[[1, 2], [null, 3], [-4, 0]]")
          .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(Call2(Op::kAdd, Col("i"), Col("j")), *batch));
  EXPECT_EQ(values, (Strings{"3", "null", "-4"}));
  // int * bigint widens to bigint.
  auto times = Call2(Op::kMultiply, Col("i"), Lit(Scalar::Int64(3)));
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*times, *batch->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "bigint");
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(times, *batch));
  EXPECT_EQ(values, (Strings{"3", "null", "-12"}));
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(Call(Op::kNegate, {Col("i")}), *batch));
  EXPECT_EQ(values, (Strings{"-1", "null", "4"}));
  ASSERT_OK_AND_ASSIGN(auto empty, BatchFromJson(batch->Schema(), "[]"));
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(Call2(Op::kAdd, Col("i"), Col("j")), *empty));
  EXPECT_TRUE(values.empty());
}

TEST_F(EvaluatorTest, IntegerOverflowIsAnErrorNamingRowAndOperands) {
  Status st = EvalError(Call2(Op::kAdd, Col("i"), Col("j")));
  ASSERT_RAISES(InvalidArgument, st);
  EXPECT_NE(st.Message().find("[ARITHMETIC_OVERFLOW] int overflow at row 3: 2147483647 + 1"),
            std::string::npos)
      << st;
  EXPECT_NE(st.Message().find("(i + j)"), std::string::npos) << st;
  // Widening to bigint first does not overflow.
  EXPECT_EQ(Eval(Call2(Op::kAdd, Cast(Col("i"), DataType::Int64()), Col("j")))[3], "2147483648");
  st = EvalError(Call2(Op::kAdd, Col("l"), Col("l")));
  EXPECT_NE(st.Message().find("bigint overflow at row 3"), std::string::npos) << st;
  st = EvalError(Call(Op::kNegate, {Cast(Lit(Scalar::Int64(INT64_MIN)), DataType::Int64())}));
  ASSERT_RAISES(InvalidArgument, st);
}

TEST_F(EvaluatorTest, OverflowUnderANullIsIgnored) {
  // b's value slot under its null row holds 1, so a + b overflows there; only valid rows count.
  auto schema = MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::Int32())});
  auto dense = BatchFromJson(schema, "[[2147483647, 1], [5, 1]]").ValueOrDie();
  auto validity = columnar::Buffer::Allocate(1).ValueOrDie();
  columnar::SetBit(validity->mutable_data(), 1);
  const auto& b = dense->ColumnAt(1);
  auto b_with_null = columnar::Column::Make(b->Type(), 2, columnar::BufferPtr(std::move(validity)),
                                            b->ValuesBuffer())
                         .ValueOrDie();
  auto batch =
      columnar::RecordBatch::Make(schema, 2, {dense->ColumnAt(0), b_with_null}).ValueOrDie();
  ASSERT_RAISES(InvalidArgument, EvalToJson(Call2(Op::kAdd, Col("a"), Col("b")), *dense));
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(Call2(Op::kAdd, Col("a"), Col("b")), *batch));
  EXPECT_EQ(values, (Strings{"null", "6"}));
}

TEST_F(EvaluatorTest, DivisionFollowsSpark) {
  // Integer '/' is double division; by zero is an ANSI error.
  Status st = EvalError(Call2(Op::kDivide, Col("i"), Col("j")));
  EXPECT_NE(st.Message().find("[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate "
                              "divisor being 0 and return NULL instead. (row 2"),
            std::string::npos)
      << st;
  auto small =
      BatchFromJson(MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::Int32())}),
                    "[[7, 2], [-7, 2], [null, 0], [7, -1]]")
          .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(Call2(Op::kDivide, Col("a"), Col("b")), *small));
  EXPECT_EQ(values, (Strings{"3.5", "-3.5", "null", "-7.0"}));
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(Call2(Op::kRemainder, Col("a"), Col("b")), *small));
  EXPECT_EQ(values, (Strings{"1", "-1", "null", "0"}));
}

TEST_F(EvaluatorTest, DecimalArithmeticUsesSparkResultTypes) {
  // The literal 1 counts as decimal(1,0), the narrowest holding it, as Spark's DecimalPrecision.
  auto add = Call2(Op::kAdd, Col("p"), Lit(Scalar::Int32(1)));
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*add, *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "decimal(11,2)");
  EXPECT_EQ(Eval(add), (Strings{"\"11.50\"", "null", "\"0.75\"", "\"1000000.99\""}));
  auto mul = Call2(Op::kMultiply, Col("p"), Col("p"));
  ASSERT_OK_AND_ASSIGN(bound, Bind(*mul, *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "decimal(21,4)");
  EXPECT_EQ(Eval(mul)[2], "\"0.0625\"");
  auto div = Call2(Op::kDivide, Col("p"), Lit(Scalar::Decimal(3, 1, 0).ValueOrDie()));
  ASSERT_OK_AND_ASSIGN(bound, Bind(*div, *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "decimal(14,6)");
  EXPECT_EQ(Eval(div)[0], "\"3.500000\"");
  EXPECT_EQ(Eval(div)[2], "\"-0.083333\"");
  Status st = EvalError(Call2(Op::kDivide, Col("p"), Lit(Scalar::Decimal(0, 1, 0).ValueOrDie())));
  EXPECT_NE(st.Message().find("DIVIDE_BY_ZERO"), std::string::npos) << st;
}

TEST_F(EvaluatorTest, ComparisonsAreNullAwareAndOrderNaNLast) {
  EXPECT_EQ(Eval(Call2(Op::kLess, Col("i"), Col("j"))), (Strings{"true", "null", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kGreater, Col("d"), Lit(Scalar::Float64(1e300)))),
            (Strings{"false", "null", "false", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("d"), Lit(Scalar::Float64(0.0))))[2], "true");  // -0.0
  EXPECT_EQ(Eval(Call2(Op::kNullSafeEqual, Col("s"), Lit(Scalar::Null()))),
            (Strings{"false", "true", "false", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kGreaterEqual, Col("s"), Lit(Scalar::String("b")))),
            (Strings{"false", "null", "true", "true"}));
  // int vs bigint vs decimal widen; string vs int casts the string.
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("i"), Col("p")))[0], "false");
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("j"), Lit(Scalar::String("3"))))[1], "true");
}

TEST_F(EvaluatorTest, ComparisonsWithALiteralOnEitherSide) {
  // s: "apple", null, "banana", "cherry"
  const auto banana = [] {
    return Lit(Scalar::String("banana"));
  };
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("s"), banana())),
            (Strings{"false", "null", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kNotEqual, Col("s"), banana())),
            (Strings{"true", "null", "false", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kLess, Col("s"), banana())),
            (Strings{"true", "null", "false", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kLessEqual, Col("s"), banana())),
            (Strings{"true", "null", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kGreater, Col("s"), banana())),
            (Strings{"false", "null", "false", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kGreaterEqual, Col("s"), banana())),
            (Strings{"false", "null", "true", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kNullSafeEqual, Col("s"), banana())),
            (Strings{"false", "false", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kNullSafeEqual, banana(), Col("s"))),
            (Strings{"false", "false", "true", "false"}));
  // A literal on the left mirrors the operator: 'banana' < s is s > 'banana'.
  EXPECT_EQ(Eval(Call2(Op::kLess, banana(), Col("s"))),
            (Strings{"false", "null", "false", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kGreaterEqual, banana(), Col("s"))),
            (Strings{"true", "null", "true", "false"}));
  // Equal lengths, different bytes; a prefix of a value.
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("s"), Lit(Scalar::String("applf")))),
            (Strings{"false", "null", "false", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kLess, Col("s"), Lit(Scalar::String("app")))),
            (Strings{"false", "null", "false", "false"}));
  // d: 1.5, null, -0.0, NaN. NaN equals NaN and sorts above every other value.
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("d"), Lit(Scalar::Float64(std::nan(""))))),
            (Strings{"false", "null", "false", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kGreaterEqual, Lit(Scalar::Float64(std::nan(""))), Col("d"))),
            (Strings{"true", "null", "true", "true"}));
  // i: 1, null, -4, 2147483647
  EXPECT_EQ(Eval(Call2(Op::kLessEqual, Col("i"), IntLit(1))),
            (Strings{"true", "null", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kLess, IntLit(1), Col("i"))),
            (Strings{"false", "null", "false", "true"}));
  // b: true, null, false, true
  EXPECT_EQ(Eval(Call2(Op::kNotEqual, Col("b"), Lit(Scalar::Boolean(true)))),
            (Strings{"false", "null", "true", "false"}));
}

TEST_F(EvaluatorTest, StructsCompareFieldByFieldWithNullFieldsEqual) {
  // t: {x: 7}, null, {x: null}, {x: 1}. A null field equals a null and sorts first (Spark's
  // ordering.equiv); only a null struct makes the comparison null.
  const auto x_is = [](ExprPtr value) {
    return Function("named_struct", {Lit(Scalar::String("x")), std::move(value)});
  };
  EXPECT_EQ(Eval(Call2(Op::kEqual, Col("t"), x_is(Cast(Lit(Scalar::Null()), DataType::Int32())))),
            (Strings{"false", "null", "true", "false"}));
  EXPECT_EQ(Eval(Call2(Op::kLess, Col("t"), x_is(IntLit(2)))),
            (Strings{"false", "null", "true", "true"}));
  EXPECT_EQ(Eval(Call2(Op::kNullSafeEqual, Col("t"), Col("t"))),
            (Strings{"true", "true", "true", "true"}));
  const ExprPtr pair = Function("array", {Col("i"), Col("j")});
  EXPECT_EQ(Eval(Call2(Op::kGreaterEqual, pair, Function("array", {IntLit(1), IntLit(2)}))),
            (Strings{"true", "false", "false", "true"}));
}

TEST_F(EvaluatorTest, MapsHaveNoOrdering) {
  const ExprPtr map = Function("map", {IntLit(1), Col("i")});
  EXPECT_THAT(EvalError(Call2(Op::kEqual, map, map)).Message(),
              ::testing::HasSubstr("cannot compare"));
}

TEST_F(EvaluatorTest, BooleanLogicIsThreeValued) {
  // b: true, null, false, true   c: true, false, null, null
  EXPECT_EQ(Eval(And(Col("b"), Col("c"))), (Strings{"true", "false", "false", "null"}));
  EXPECT_EQ(Eval(Or(Col("b"), Col("c"))), (Strings{"true", "null", "null", "true"}));
  EXPECT_EQ(Eval(Not(Col("b"))), (Strings{"false", "null", "true", "false"}));
  EXPECT_EQ(Eval(IsNull(Col("b"))), (Strings{"false", "true", "false", "false"}));
  EXPECT_EQ(Eval(IsNotNull(Col("c"))), (Strings{"true", "true", "false", "false"}));
  EXPECT_EQ(Eval(And(Col("c"), Lit(Scalar::Null()))), (Strings{"null", "false", "null", "null"}));
}

TEST_F(EvaluatorTest, InAndBetweenFollowSqlNullRules) {
  auto in = In(Col("j"), {Lit(Scalar::Int32(0)), Lit(Scalar::Int32(3))});
  EXPECT_EQ(Eval(in), (Strings{"false", "true", "true", "false"}));
  auto in_with_null = In(Col("j"), {Lit(Scalar::Int32(3)), Lit(Scalar::Null())});
  EXPECT_EQ(Eval(in_with_null), (Strings{"null", "true", "null", "null"}));
  EXPECT_EQ(Eval(In(Col("i"), {Lit(Scalar::Int32(1))})),
            (Strings{"true", "null", "false", "false"}));
  EXPECT_EQ(Eval(Between(Col("j"), Lit(Scalar::Int32(1)), Lit(Scalar::Int32(2)))),
            (Strings{"true", "false", "false", "true"}));
  EXPECT_EQ(Eval(Between(Col("s"), Lit(Scalar::String("a")), Lit(Scalar::String("b")))),
            (Strings{"true", "null", "false", "false"}));
}

// A list longer than Spark's InSet threshold (10) is bound as one hash lookup; its results must
// be those of the equalities it stands for, nulls, NaN, -0.0 and implicit casts included.
TEST_F(EvaluatorTest, LongInListsAreOneSetLookupWithTheEqualitiesResults) {
  const auto equalities = [](const ExprPtr& value, const std::vector<ExprPtr>& list) {
    std::vector<ExprPtr> equals;
    equals.reserve(list.size());
    for (const ExprPtr& item : list) {
      equals.push_back(Call2(Op::kEqual, value, item));
    }
    ExprPtr any = equals.front();
    for (size_t k = 1; k < equals.size(); ++k) {
      any = Or(any, equals[k]);
    }
    return any;
  };
  const auto ints = [](int from, int count) {
    std::vector<ExprPtr> list;
    list.reserve(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) {
      list.push_back(IntLit(from + k));
    }
    return list;
  };
  struct Case {
    ExprPtr value;
    std::vector<ExprPtr> list;
    Strings expected;
  };
  std::vector<ExprPtr> with_null = ints(-10, 12);
  with_null.push_back(Lit(Scalar::Null()));
  std::vector<ExprPtr> strings;
  strings.reserve(11);
  for (const char* text : {"apple", "cherry", "a", "b", "c", "d", "e", "f", "g", "h", "i"}) {
    strings.push_back(StrLit(text));
  }
  std::vector<ExprPtr> doubles = {Lit(Scalar::Float64(0.0)), Lit(Scalar::Float64(std::nan("")))};
  for (int k = 0; k < 10; ++k) {
    doubles.push_back(Lit(Scalar::Float64(100.5 + k)));
  }
  std::vector<ExprPtr> numeric_strings;  // string literals cast to the int column's type
  numeric_strings.reserve(12);
  for (int k = 0; k < 11; ++k) {
    numeric_strings.push_back(StrLit(std::to_string(k)));
  }
  const std::vector<Case> cases = {
      // i: 1, null, -4, 2147483647
      {Col("i"), ints(0, 20), {"true", "null", "false", "false"}},
      {Col("i"), with_null, {"true", "null", "true", "null"}},
      // l (bigint) against int literals: the literals are cast up. l: 10, 20, null, max
      {Col("l"), ints(5, 11), {"true", "false", "null", "false"}},
      // s: "apple", null, "banana", "cherry"
      {Col("s"), strings, {"true", "null", "false", "true"}},
      // d: 1.5, null, -0.0, NaN; NaN equals NaN and -0.0 equals 0.0, as `=` has them.
      {Col("d"), doubles, {"false", "null", "true", "true"}},
      // j: 2, 3, 0, 1 against '0'..'10'
      {Col("j"), numeric_strings, {"true", "true", "true", "true"}},
  };
  for (const Case& item : cases) {
    const ExprPtr in = In(item.value, item.list);
    ASSERT_OK_AND_ASSIGN(auto bound, Bind(*in, *batch_->Schema()));
    EXPECT_EQ(bound->GetOp(), Op::kFunction) << bound->ToString();
    EXPECT_EQ(bound->Name(), "in_set") << bound->ToString();
    EXPECT_EQ(Eval(in), item.expected) << in->ToString();
    EXPECT_EQ(Eval(in), Eval(equalities(item.value, item.list))) << in->ToString();
    // NOT IN: null where IN is null.
    Strings negated;
    negated.reserve(item.expected.size());
    for (const std::string& value : item.expected) {
      negated.push_back(value == "null" ? "null" : value == "true" ? "false" : "true");
    }
    EXPECT_EQ(Eval(Not(in)), negated) << in->ToString();
  }
  // Ten values stay equalities, as in Spark.
  ASSERT_OK_AND_ASSIGN(auto short_list, Bind(*In(Col("i"), ints(0, 10)), *batch_->Schema()));
  EXPECT_EQ(short_list->GetOp(), Op::kOr);
  // A constant whose cast fails keeps the equalities, so the error comes at evaluation as before.
  std::vector<ExprPtr> bad = numeric_strings;
  bad.push_back(StrLit("x"));
  ASSERT_OK_AND_ASSIGN(auto failing, Bind(*In(Col("j"), bad), *batch_->Schema()));
  EXPECT_NE(failing->GetOp(), Op::kFunction);
  EXPECT_FALSE(EvalError(In(Col("j"), bad)).ok());
}

TEST_F(EvaluatorTest, NestedFieldOfNullStructIsNull) {
  EXPECT_EQ(Eval(Col("t.x")), (Strings{"7", "null", "null", "1"}));
  EXPECT_EQ(Eval(Call2(Op::kAdd, Col("t.x"), Lit(Scalar::Int32(1)))),
            (Strings{"8", "null", "null", "2"}));
}

TEST_F(EvaluatorTest, LiteralsBroadcast) {
  EXPECT_EQ(Eval(Lit(Scalar::String("x"))), (Strings{"\"x\"", "\"x\"", "\"x\"", "\"x\""}));
  EXPECT_EQ(Eval(Lit(Scalar::Date(19844)))[0], "\"2024-05-01\"");
  EXPECT_EQ(Eval(Lit(Scalar::Null(DataType::Int64())))[3], "null");
}

}  // namespace
}  // namespace tributary::expr

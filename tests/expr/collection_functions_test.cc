#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class CollectionFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("a", DataType::Array(DataType::Int32())),
                              Field("m", DataType::Map(DataType::String(), DataType::Int64())),
                              Field("i", DataType::Int32()), Field("s", DataType::String())});
    batch_ = BatchFromJson(schema, R"([
        [[1, 2, 3], [["k", 10], ["z", 20]], 0, "k"],
        [[], [], 1, "x"],
        [null, null, null, null],
        [[4, null], [["x", null]], 1, "x"]
      ])")
                 .ValueOrDie();
  }
};

TEST_F(CollectionFunctionsTest, SubscriptsArraysFromZeroAndMapsByKey) {
  auto batch = BatchFromJson(batch_->Schema(), R"([[[1, 2, 3], [["k", 10]], 2, "k"],
                                                   [[5], [["z", 1]], 0, "k"]])")
                   .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(Subscript(Col("a"), Col("i")), *batch));
  EXPECT_EQ(values, (Strings{"3", "5"}));
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(Subscript(Col("m"), Col("s")), *batch));
  EXPECT_EQ(values, (Strings{"10", "null"}));
  EXPECT_EQ(Subscript(Col("m"), StrLit("k"))->ToString(), "m['k']");
  // ANSI: an index past the end is an error naming the row and the index.
  auto error = EvalToJson(Subscript(Col("a"), IntLit(1)), *batch);
  ASSERT_RAISES(InvalidArgument, error);
  EXPECT_NE(error.status().Message().find("[INVALID_ARRAY_INDEX] The index 1 is out of bounds. "
                                          "The array has 1 elements."),
            std::string::npos)
      << error.status();
  ASSERT_RAISES(InvalidArgument, Bind(*Subscript(Col("i"), IntLit(0)), *batch->Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*Subscript(Col("a"), StrLit("x")), *batch->Schema()));
}

TEST_F(CollectionFunctionsTest, ElementAtCountsFromOneAndFromTheEnd) {
  auto batch = BatchFromJson(batch_->Schema(), R"([[[1, 2, 3], [], -1, "k"],
                                                   [[5], [], 1, "k"], [null, [], 1, "k"]])")
                   .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto values,
                       EvalToJson(Function("element_at", {Col("a"), Col("i")}), *batch));
  EXPECT_EQ(values, (Strings{"3", "5", "null"}));
  auto zero = EvalToJson(Function("element_at", {Col("a"), IntLit(0)}), *batch);
  ASSERT_RAISES(InvalidArgument, zero);
  EXPECT_NE(zero.status().Message().find("[INVALID_INDEX_OF_ZERO]"), std::string::npos);
  // Spark's try_element_at tolerates an index out of range, not index 0.
  ASSERT_RAISES(InvalidArgument,
                EvalToJson(Function("try_element_at", {Col("a"), IntLit(0)}), *batch));
  ASSERT_OK_AND_ASSIGN(values,
                       EvalToJson(Function("try_element_at", {Col("a"), IntLit(-2)}), *batch));
  EXPECT_EQ(values, (Strings{"2", "null", "null"}));
  ASSERT_OK_AND_ASSIGN(values, EvalToJson(Function("get", {Col("a"), IntLit(1)}), *batch));
  EXPECT_EQ(values, (Strings{"2", "null", "null"}));
  EXPECT_EQ(Eval(Function("element_at", {Col("m"), StrLit("z")})),
            (Strings{"20", "null", "null", "null"}));
}

TEST_F(CollectionFunctionsTest, SizeIsNullForNull) {
  EXPECT_EQ(Eval(Function("size", {Col("a")})), (Strings{"3", "0", "null", "2"}));
  EXPECT_EQ(Eval(Function("cardinality", {Col("m")})), (Strings{"2", "0", "null", "1"}));
  ASSERT_RAISES(InvalidArgument, Bind(*Function("size", {Col("i")}), *batch_->Schema()));
}

TEST_F(CollectionFunctionsTest, ConstructsArraysMapsAndStructs) {
  EXPECT_EQ(Eval(Function("array", {Col("i"), IntLit(7)})),
            (Strings{"[0,7]", "[1,7]", "[null,7]", "[1,7]"}));
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*Function("array", {Col("i"), Lit(Scalar::Float64(0.5))}),
                                        *batch_->Schema()));
  EXPECT_EQ(bound->Type()->ToString(), "array<double>");
  EXPECT_EQ(Eval(Function("array", {})), (Strings(4, "[]")));
  auto batch = BatchFromJson(batch_->Schema(), R"([[[], [], 1, "k"]])").ValueOrDie();
  ASSERT_OK_AND_ASSIGN(
      auto values,
      EvalToJson(Function("map", {Col("s"), Col("i"), StrLit("b"), IntLit(2)}), *batch));
  EXPECT_EQ(values, (Strings{R"([{"key":"b","value":2},{"key":"k","value":1}])"}));
  auto duplicate =
      EvalToJson(Function("map", {Col("s"), Col("i"), StrLit("k"), IntLit(2)}), *batch);
  ASSERT_RAISES(InvalidArgument, duplicate);
  ASSERT_RAISES(InvalidArgument,
                EvalToJson(Function("map", {Col("s"), Col("i")}), *batch_));  // null key
  EXPECT_EQ(Eval(Function("struct", {Col("i"), StrLit("x")})),
            (Strings{R"({"i":0,"col2":"x"})", R"({"i":1,"col2":"x"})", R"({"i":null,"col2":"x"})",
                     R"({"i":1,"col2":"x"})"}));
  EXPECT_EQ(
      Eval(GetField(Function("named_struct", {StrLit("n"), Col("i"), StrLit("t"), Col("s")}), "t")),
      (Strings{"\"k\"", "\"x\"", "null", "\"x\""}));
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("named_struct", {Col("s"), Col("i")}), *batch_->Schema()));
}

TEST_F(CollectionFunctionsTest, ArrayContainsIsNullWhenANullMightMatch) {
  EXPECT_EQ(Eval(Function("array_contains", {Col("a"), IntLit(2)})),
            (Strings{"true", "false", "null", "null"}));
  EXPECT_EQ(Eval(Function("array_contains", {Col("a"), IntLit(4)})),
            (Strings{"false", "false", "null", "true"}));
}

TEST_F(CollectionFunctionsTest, CaseAndCoalesceOverNestedValues) {
  auto has_items = Call(Op::kGreater, {Function("size", {Col("a")}), IntLit(0)});
  EXPECT_EQ(Eval(CaseWhen({{has_items, Col("m")}},
                          Function("map", {StrLit("none"), Lit(Scalar::Int64(0))}))),
            (Strings{R"([{"key":"k","value":10},{"key":"z","value":20}])",
                     R"([{"key":"none","value":0}])", R"([{"key":"none","value":0}])",
                     R"([{"key":"x","value":null}])"}));
  EXPECT_EQ(Eval(Function("coalesce", {Col("a"), Function("array", {IntLit(-1)})})),
            (Strings{"[1,2,3]", "[]", "[-1]", "[4,null]"}));
  auto named = Function("named_struct", {StrLit("s"), Col("s")});
  EXPECT_EQ(Eval(CaseWhen(
                {{IsNull(Col("i")), Function("named_struct", {StrLit("s"), StrLit("?")})}}, named)),
            (Strings{R"({"s":"k"})", R"({"s":"x"})", R"({"s":"?"})", R"({"s":"x"})"}));
}

TEST_F(CollectionFunctionsTest, MapKeysAndValues) {
  EXPECT_EQ(Eval(Function("map_keys", {Col("m")})),
            (Strings{R"(["k","z"])", "[]", "null", R"(["x"])"}));
  EXPECT_EQ(Eval(Function("map_values", {Col("m")})), (Strings{"[10,20]", "[]", "null", "[null]"}));
}

}  // namespace
}  // namespace tributary::expr

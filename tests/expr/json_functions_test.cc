#include <cmath>

#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class JsonFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("j", DataType::String())});
    batch_ = BatchFromJson(schema, R"([
        ["{\"a\": {\"b\": [10, {\"c\": \"x\"}]}, \"n\": null, \"s\": \"hi\", \"f\": 1.5}"],
        ["[{\"a\": 1}, {\"a\": 2}]"],
        ["not json"],
        [null]
      ])")
                 .ValueOrDie();
  }
  Strings Get(std::string path) {
    return Eval(Function("get_json_object", {Col("j"), StrLit(std::move(path))}));
  }
};

TEST_F(JsonFunctionsTest, GetJsonObjectFollowsPaths) {
  EXPECT_EQ(Get("$.a.b[0]"), (Strings{"\"10\"", "null", "null", "null"}));
  EXPECT_EQ(Get("$.a.b[1].c")[0], "\"x\"");
  EXPECT_EQ(Get("$['a'].b[1]")[0], R"("{\"c\":\"x\"}")");
  EXPECT_EQ(Get("$.s")[0], "\"hi\"");
  EXPECT_EQ(Get("$.n")[0], "null");
  EXPECT_EQ(Get("$.missing")[0], "null");
  EXPECT_EQ(Get("$[*].a")[1], "\"[1,2]\"");
  EXPECT_EQ(Get("$[1].a")[1], "\"2\"");
  EXPECT_EQ(Get("$")[1], R"("[{\"a\":1},{\"a\":2}]")");
  auto bad = Bind(*Function("get_json_object", {Col("j"), StrLit("a.b")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("invalid JSON path 'a.b'"), std::string::npos);
}

TEST_F(JsonFunctionsTest, FromJsonReadsIntoATypeAndNullsWhatDoesNotFit) {
  auto type = DataType::Struct(
      {Field("s", DataType::String()), Field("f", DataType::Float64()),
       Field("a", DataType::Struct({Field("b", DataType::Array(DataType::String()))})),
       Field("n", DataType::Int32()), Field("zz", DataType::Int32())});
  EXPECT_EQ(Eval(FromJson(Col("j"), type)),
            (Strings{R"({"s":"hi","f":1.5,"a":{"b":["10","{\"c\":\"x\"}"]},"n":null,"zz":null})",
                     "null", "null", "null"}));
  auto ints = DataType::Array(DataType::Struct({Field("a", DataType::Int8())}));
  EXPECT_EQ(Eval(FromJson(Col("j"), ints))[1], R"([{"a":1},{"a":2}])");
  auto small = BatchFromJson(MakeSchema({Field("j", DataType::String())}),
                             R"([["{\"a\": 300, \"d\": \"2024-05-01\", \"m\": {\"x\": 1.25}}"]])")
                   .ValueOrDie();
  auto typed = DataType::Struct(
      {Field("a", DataType::Int8()), Field("d", DataType::Date()),
       Field("m", DataType::Map(DataType::String(), DataType::Decimal(5, 2).ValueOrDie()))});
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(FromJson(Col("j"), typed), *small));
  EXPECT_EQ(values[0], R"({"a":null,"d":"2024-05-01","m":[{"key":"x","value":"1.25"}]})");
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("from_json", {Col("j"), StrLit("a INT")}), *batch_->Schema()));
}

TEST_F(JsonFunctionsTest, FromJsonOptionsRescueOrKeepWhatDoesNotFit) {
  auto small = BatchFromJson(MakeSchema({Field("j", DataType::String())}),
                             R"([["{\"a\": \"x\", \"b\": 2, \"c\": [1]}"], ["{\"a\": 7}"],
                                 ["{oops"], [null]])")
                   .ValueOrDie();
  auto type = DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Int64())});
  // rescuedDataColumn: appended to the struct; what does not fit and unknown fields as JSON.
  ASSERT_OK_AND_ASSIGN(
      auto rescued,
      EvalToJson(FromJson(Col("j"), type, {{"rescuedDataColumn", "_rescued_data"}}), *small));
  EXPECT_EQ(rescued, (std::vector<std::string>{
                         R"({"a":null,"b":2,"_rescued_data":"{\"a\":\"x\",\"c\":[1]}"})",
                         R"({"a":7,"b":null,"_rescued_data":null})",
                         R"({"a":null,"b":null,"_rescued_data":"{\"_corrupt_record\":\"{oops\"}"})",
                         "null"}));
  // A corrupt-record field (Spark's default name) takes the text of a malformed record.
  auto with_corrupt = DataType::Struct(
      {Field("a", DataType::Int32()), Field("_corrupt_record", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto corrupt, EvalToJson(FromJson(Col("j"), with_corrupt), *small));
  EXPECT_EQ(corrupt[0], R"({"a":null,"_corrupt_record":"{\"a\": \"x\", \"b\": 2, \"c\": [1]}"})");
  EXPECT_EQ(corrupt[1], R"({"a":7,"_corrupt_record":null})");
  EXPECT_EQ(corrupt[2], R"({"a":null,"_corrupt_record":"{oops"})");
  // FAILFAST: an error quoting the record; DROPMALFORMED is refused, as Spark's from_json.
  auto failed = EvalToJson(FromJson(Col("j"), type, {{"MODE", "failfast"}}), *small);
  ASSERT_RAISES(InvalidArgument, failed);
  EXPECT_NE(
      failed.status().Message().find(
          R"(Malformed records are detected in record parsing: {"a": "x", "b": 2, "c": [1]})"),
      std::string::npos);
  ASSERT_RAISES(InvalidArgument,
                Bind(*FromJson(Col("j"), type, {{"mode", "DROPMALFORMED"}}), *small->Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*FromJson(Col("j"), DataType::Array(DataType::Int32()),
                                                {{"rescuedDataColumn", "_r"}}),
                                      *small->Schema()));
}

TEST_F(JsonFunctionsTest, ToJsonWritesSparksJson) {
  auto value = Function(
      "named_struct",
      {StrLit("s"), StrLit("a\"b"), StrLit("n"), Lit(Scalar::Null(DataType::Int32())), StrLit("d"),
       Lit(Scalar::Date(19844)), StrLit("t"), Lit(Scalar::Timestamp(1714558830500000)), StrLit("x"),
       Lit(Scalar::Float64(2.0)), StrLit("nan"), Lit(Scalar::Float64(std::nan(""))), StrLit("b"),
       Lit(Scalar::Binary("hi!?")), StrLit("m"),
       Function("map", {StrLit("k"), Function("array", {IntLit(1), IntLit(2)})})});
  EXPECT_EQ(Eval(Function("to_json", {value}))[0],
            R"("{\"s\":\"a\\\"b\",\"d\":\"2024-05-01\",\"t\":\"2024-05-01T10:20:30.500Z\",)"
            R"(\"x\":2.0,\"nan\":\"NaN\",\"b\":\"aGkhPw==\",\"m\":{\"k\":[1,2]}}")");
  ASSERT_RAISES(InvalidArgument, Bind(*Function("to_json", {Col("j")}), *batch_->Schema()));
  // to_json(from_json(x)) round-trips what the type keeps.
  auto type = DataType::Array(DataType::Struct({Field("a", DataType::Int64())}));
  EXPECT_EQ(Eval(Function("to_json", {FromJson(Col("j"), type)}))[1], R"("[{\"a\":1},{\"a\":2}]")");
}

}  // namespace
}  // namespace tributary::expr

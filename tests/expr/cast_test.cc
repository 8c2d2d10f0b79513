#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::ColumnFromJson;
using testing::MakeSchema;

// CAST (or try_cast with `safe`) of the JSON array `values_json` of `type` to `target`.
Result<Strings> CastValues(const DataTypePtr& type, std::string_view values_json,
                           const DataTypePtr& target, bool safe = false,
                           const EvalContext& context = {}) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto column, ColumnFromJson(type, values_json));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batch, columnar::RecordBatch::Make(MakeSchema({Field("v", type)}),
                                                                    column->Length(), {column}));
  return EvalToJson(safe ? TryCast(Col("v"), target) : Cast(Col("v"), target), *batch, context);
}

DataTypePtr Decimal(int p, int s) {
  return DataType::Decimal(p, s).ValueOrDie();
}

TEST(CastTest, StringToIntegersIsStrictUnderAnsi) {
  ASSERT_OK_AND_ASSIGN(auto values, CastValues(DataType::String(), R"([" 42 ", "-7", null, "+3"])",
                                               DataType::Int32()));
  EXPECT_EQ(values, (Strings{"42", "-7", "null", "3"}));
  auto bad = CastValues(DataType::String(), R"(["1", "1.5"])", DataType::Int32());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_EQ(bad.status().Message(),
            "in CAST(v AS int): [CAST_INVALID_INPUT] The value '1.5' of the type \"STRING\" "
            "cannot be cast to \"INT\" because it is malformed. Correct the value as per the "
            "syntax, or change its target type. Use `try_cast` to tolerate malformed input and "
            "return NULL instead. (row 1)");
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::String(), R"(["1", "1.5", "x", "300"])",
                                          DataType::Int8(), /*safe=*/true));
  EXPECT_EQ(values, (Strings{"1", "null", "null", "null"}));
}

TEST(CastTest, NarrowingOverflowsAreErrorsOrNulls) {
  auto bad = CastValues(DataType::Int64(), "[1, 3000000000]", DataType::Int32());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("[CAST_OVERFLOW] The value 3000000000 of the type "
                                        "\"BIGINT\" cannot be cast to \"INT\" due to an "
                                        "overflow. Use `try_cast` to tolerate overflow and "
                                        "return NULL instead. (row 1)"),
            std::string::npos)
      << bad.status();
  ASSERT_OK_AND_ASSIGN(
      auto values, CastValues(DataType::Int64(), "[127, 128, -128, -129]", DataType::Int8(), true));
  EXPECT_EQ(values, (Strings{"127", "null", "-128", "null"}));
}

TEST(CastTest, FloatToIntegerTruncatesAndRejectsNaNAndRange) {
  ASSERT_OK_AND_ASSIGN(auto values, CastValues(DataType::Float64(), R"([1.9, -1.9, "NaN",
      9.3e18, -9.223372036854775808e18])",
                                               DataType::Int64(), true));
  EXPECT_EQ(values, (Strings{"1", "-1", "null", "null", "-9223372036854775808"}));
  ASSERT_RAISES(InvalidArgument,
                CastValues(DataType::Float64(), R"(["Infinity"])", DataType::Int32()));
}

TEST(CastTest, DecimalsRescaleWithHalfUpRoundingAndCheckPrecision) {
  ASSERT_OK_AND_ASSIGN(auto values,
                       CastValues(Decimal(10, 3), R"([1234, 1235, -1235, null])", Decimal(10, 2)));
  EXPECT_EQ(values, (Strings{"\"1.23\"", "\"1.24\"", "\"-1.24\"", "null"}));
  ASSERT_OK_AND_ASSIGN(values,
                       CastValues(Decimal(10, 2), R"([9999, 100000])", Decimal(5, 3), true));
  EXPECT_EQ(values, (Strings{"\"99.990\"", "null"}));  // 1000.000 needs 7 digits
  ASSERT_OK_AND_ASSIGN(
      values, CastValues(DataType::String(), R"(["3.14159", "-0.005", "1e2", "abc", " 12.5 "])",
                         Decimal(6, 2), true));
  EXPECT_EQ(values, (Strings{"\"3.14\"", "\"-0.01\"", "\"100.00\"", "null", "\"12.50\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Float64(), R"([0.1, 2.675])", Decimal(38, 30)));
  EXPECT_EQ(values[0], "\"0.100000000000000000000000000000\"");
  ASSERT_OK_AND_ASSIGN(values, CastValues(Decimal(5, 2), R"([-12345, 99])", DataType::Int32()));
  EXPECT_EQ(values, (Strings{"-123", "0"}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(Decimal(5, 2), R"([-12345])", DataType::Float64()));
  EXPECT_EQ(values, (Strings{"-123.45"}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Int64(), "[123, 1234]", Decimal(5, 2), true));
  EXPECT_EQ(values, (Strings{"\"123.00\"", "null"}));
}

TEST(CastTest, BooleansFromTextAndNumbers) {
  ASSERT_OK_AND_ASSIGN(auto values,
                       CastValues(DataType::String(), R"(["TRUE", "f", "yes", "0", "maybe"])",
                                  DataType::Boolean(), true));
  EXPECT_EQ(values, (Strings{"true", "false", "true", "false", "null"}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Int32(), "[0, 5]", DataType::Boolean()));
  EXPECT_EQ(values, (Strings{"false", "true"}));
  ASSERT_OK_AND_ASSIGN(values,
                       CastValues(DataType::Boolean(), "[true, false]", DataType::Float64()));
  EXPECT_EQ(values, (Strings{"1.0", "0.0"}));
}

TEST(CastTest, DatesAndTimestampsFromText) {
  ASSERT_OK_AND_ASSIGN(auto values, CastValues(DataType::String(),
                                               R"(["2024-05-01", "2024-5-1", "2024", "2024-02-30",
                                      "2024-05-01T10:00:00", "20240501"])",
                                               DataType::Date(), true));
  EXPECT_EQ(values, (Strings{"\"2024-05-01\"", "\"2024-05-01\"", "\"2024-01-01\"", "null",
                             "\"2024-05-01\"", "null"}));
  ASSERT_OK_AND_ASSIGN(values,
                       CastValues(DataType::String(),
                                  R"(["2024-05-01 10:00:00", "2024-05-01T10:00:00.123456789Z",
                                      "2024-05-01T10:00:00+02:00", "2024-05-01 25:00:00",
                                      "2024-05-01"])",
                                  DataType::Timestamp(), true));
  EXPECT_EQ(values, (Strings{"\"2024-05-01T10:00:00.000000Z\"", "\"2024-05-01T10:00:00.123456Z\"",
                             "\"2024-05-01T08:00:00.000000Z\"", "null",
                             "\"2024-05-01T00:00:00.000000Z\""}));
}

TEST(CastTest, SessionTimeZoneAppliesToZonelessTextAndConversions) {
  EvalContext context;
  ASSERT_OK_AND_ASSIGN(context.session_time_zone, TimeZone::Make("+05:30"));
  ASSERT_OK_AND_ASSIGN(auto values, CastValues(DataType::String(), R"(["2024-05-01 10:00:00"])",
                                               DataType::Timestamp(), false, context));
  EXPECT_EQ(values, (Strings{"\"2024-05-01T04:30:00.000000Z\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::String(), R"(["2024-05-01 10:00:00+01:00"])",
                                          DataType::TimestampNtz(), false, context));
  EXPECT_EQ(values, (Strings{"\"2024-05-01T10:00:00.000000\""}));
  // 2024-05-01T20:00:00Z is already May 2nd in +05:30.
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Timestamp(), "[1714593600000000]",
                                          DataType::Date(), false, context));
  EXPECT_EQ(values, (Strings{"\"2024-05-02\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Timestamp(), "[1714593600000000]",
                                          DataType::String(), false, context));
  EXPECT_EQ(values, (Strings{"\"2024-05-02 01:30:00\""}));
  ASSERT_OK_AND_ASSIGN(
      values, CastValues(DataType::Date(), "[19844]", DataType::Timestamp(), false, context));
  EXPECT_EQ(values, (Strings{"\"2024-04-30T18:30:00.000000Z\""}));
  ASSERT_OK_AND_ASSIGN(
      values, CastValues(DataType::TimestampNtz(), "[0]", DataType::Timestamp(), false, context));
  EXPECT_EQ(values, (Strings{"\"1969-12-31T18:30:00.000000Z\""}));
  ASSERT_RAISES(InvalidArgument, TimeZone::Make("Mars/Olympus"));
  ASSERT_RAISES(InvalidArgument, TimeZone::Make("../etc/passwd"));
}

TEST(CastTest, ValuesToStringAsSparkPrintsThem) {
  ASSERT_OK_AND_ASSIGN(auto values,
                       CastValues(DataType::Float64(), R"([1.0, 0.001, 1e7, 1.5e-4, -0.0, "NaN"])",
                                  DataType::String()));
  EXPECT_EQ(values,
            (Strings{"\"1.0\"", "\"0.001\"", "\"1.0E7\"", "\"1.5E-4\"", "\"-0.0\"", "\"NaN\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(Decimal(5, 2), "[-5]", DataType::String()));
  EXPECT_EQ(values, (Strings{"\"-0.05\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::TimestampNtz(), "[1500]", DataType::String()));
  EXPECT_EQ(values, (Strings{"\"1970-01-01 00:00:00.0015\""}));
  auto nested = DataType::Struct(
      {Field("a", DataType::Int32()),
       Field("m", DataType::Map(DataType::String(), DataType::Array(DataType::Boolean())))});
  ASSERT_OK_AND_ASSIGN(values, CastValues(nested, R"([{"a": 1, "m": [["k", [true, null]]]},
                                                      {"a": null, "m": []}, null])",
                                          DataType::String()));
  EXPECT_EQ(values, (Strings{"\"{1, {k -> [true, null]}}\"", "\"{null, {}}\"", "null"}));
}

TEST(CastTest, NestedCastsConvertElementWise) {
  ASSERT_OK_AND_ASSIGN(auto values,
                       CastValues(DataType::Array(DataType::String()), R"([["1", "x"], null])",
                                  DataType::Array(DataType::Int64()), true));
  EXPECT_EQ(values, (Strings{"[1,null]", "null"}));
  ASSERT_RAISES(InvalidArgument, CastValues(DataType::Array(DataType::String()), R"([["x"]])",
                                            DataType::Array(DataType::Int64())));
  auto from = DataType::Struct({Field("a", DataType::String())});
  auto to = DataType::Struct({Field("b", DataType::Date())});
  ASSERT_OK_AND_ASSIGN(values, CastValues(from, R"([{"a": "2024-01-02"}])", to));
  EXPECT_EQ(values, (Strings{R"({"b":"2024-01-02"})"}));
}

TEST(CastTest, IntegerSecondsAndTimestamps) {
  ASSERT_OK_AND_ASSIGN(auto values,
                       CastValues(DataType::Int64(), "[86400]", DataType::Timestamp()));
  EXPECT_EQ(values, (Strings{"\"1970-01-02T00:00:00.000000Z\""}));
  ASSERT_OK_AND_ASSIGN(values, CastValues(DataType::Timestamp(), "[-1]", DataType::Int64()));
  EXPECT_EQ(values, (Strings{"-1"}));
  ASSERT_RAISES(InvalidArgument,
                CastValues(DataType::Int64(), "[9223372036854775807]", DataType::Timestamp()));
}

}  // namespace
}  // namespace tributary::expr

#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

// 2024-05-01T10:20:30.5Z = 1714558830500000 us; 2024-05-01 = day 19844 (a Wednesday).
class DatetimeFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("ts", DataType::Timestamp()), Field("d", DataType::Date()),
                              Field("s", DataType::String()), Field("n", DataType::Int32()),
                              Field("ntz", DataType::TimestampNtz())});
    batch_ = BatchFromJson(schema, R"([
        [1714558830500000, 19844, "2024-05-01 10:20:30", 3, 1714558830500000],
        [null, null, null, null, null],
        [-1, -1, "1969-12-31 23:59:59", -1, -1]
      ])")
                 .ValueOrDie();
    los_angeles_.session_time_zone = TimeZone::Make("America/Los_Angeles").ValueOrDie();
  }
  Strings Call1(const std::string& name, std::vector<ExprPtr> args,
                const EvalContext& context = {}) {
    return Eval(Function(name, std::move(args)), context);
  }
  EvalContext los_angeles_;
};

TEST_F(DatetimeFunctionsTest, FieldsOfDatesAndTimestampsInTheSessionZone) {
  EXPECT_EQ(Call1("year", {Col("d")}), (Strings{"2024", "null", "1969"}));
  EXPECT_EQ(Call1("month", {Col("ts")}), (Strings{"5", "null", "12"}));
  EXPECT_EQ(Call1("day", {Col("s")}), (Strings{"1", "null", "31"}));
  EXPECT_EQ(Call1("dayofweek", {Col("d")}), (Strings{"4", "null", "4"}));
  EXPECT_EQ(Call1("dayofyear", {Col("d")}), (Strings{"122", "null", "365"}));
  EXPECT_EQ(Call1("quarter", {Col("d")}), (Strings{"2", "null", "4"}));
  EXPECT_EQ(Call1("hour", {Col("ts")}), (Strings{"10", "null", "23"}));
  EXPECT_EQ(Call1("hour", {Col("ts")}, los_angeles_), (Strings{"3", "null", "15"}));
  EXPECT_EQ(Call1("minute", {Col("ntz")}, los_angeles_), (Strings{"20", "null", "59"}));
  EXPECT_EQ(Call1("second", {Col("ts")}), (Strings{"30", "null", "59"}));
  ASSERT_RAISES(InvalidArgument, Bind(*Function("year", {Col("n")}), *batch_->Schema()));
}

TEST_F(DatetimeFunctionsTest, ParsesWithAndWithoutPatterns) {
  EXPECT_EQ(Call1("to_timestamp", {Col("s")}), (Strings{"\"2024-05-01T10:20:30.000000Z\"", "null",
                                                        "\"1969-12-31T23:59:59.000000Z\""}));
  EXPECT_EQ(Call1("to_timestamp", {StrLit("01/05/2024 10:20"), StrLit("dd/MM/yyyy HH:mm")},
                  los_angeles_)[0],
            "\"2024-05-01T17:20:00.000000Z\"");
  EXPECT_EQ(Call1("to_date", {StrLit("2024-05-01T23:00:00")})[0], "\"2024-05-01\"");
  EXPECT_EQ(Call1("to_date", {StrLit("05.2024"), StrLit("MM.yyyy")})[0], "\"2024-05-01\"");
  EXPECT_EQ(Call1("to_date", {Col("ts")}), (Strings{"\"2024-05-01\"", "null", "\"1969-12-31\""}));
  EXPECT_EQ(Call1("unix_timestamp", {Col("s")}), (Strings{"1714558830", "null", "-1"}));
  EXPECT_EQ(Call1("unix_timestamp", {Col("ts")}), (Strings{"1714558830", "null", "-1"}));
  EXPECT_EQ(Call1("try_to_timestamp", {StrLit("nope")})[0], "null");
  auto error = EvalError(Function("to_timestamp", {StrLit("2024-13-01"), StrLit("yyyy-MM-dd")}));
  ASSERT_RAISES(InvalidArgument, error);
  EXPECT_NE(error.Message().find("row 0: '2024-13-01' does not match the pattern 'yyyy-MM-dd'"),
            std::string::npos)
      << error;
  auto pattern = Bind(*Function("to_date", {Col("s"), StrLit("yyyy-ww")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, pattern);
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("to_date", {Col("s"), Col("s")}), *batch_->Schema()));
}

TEST_F(DatetimeFunctionsTest, FormatsInTheSessionZone) {
  EXPECT_EQ(Call1("date_format", {Col("ts"), StrLit("yyyy-MM-dd HH:mm:ss.SSS")}),
            (Strings{"\"2024-05-01 10:20:30.500\"", "null", "\"1969-12-31 23:59:59.999\""}));
  EXPECT_EQ(Call1("date_format", {Col("ts"), StrLit("HH:mm")}, los_angeles_)[0], "\"03:20\"");
  EXPECT_EQ(Call1("from_unixtime", {Lit(Scalar::Int64(0))})[0], "\"1970-01-01 00:00:00\"");
  EXPECT_EQ(
      Call1("from_unixtime", {Lit(Scalar::Int64(0)), StrLit("yyyy/MM/dd HH")}, los_angeles_)[0],
      "\"1969/12/31 16\"");
}

TEST_F(DatetimeFunctionsTest, TruncatesInTheSessionZone) {
  EXPECT_EQ(Call1("date_trunc", {StrLit("HOUR"), Col("ts")})[0], "\"2024-05-01T10:00:00.000000Z\"");
  EXPECT_EQ(Call1("date_trunc", {StrLit("day"), Col("ts")}, los_angeles_)[0],
            "\"2024-05-01T07:00:00.000000Z\"");
  EXPECT_EQ(Call1("date_trunc", {StrLit("week"), Col("ts")})[0], "\"2024-04-29T00:00:00.000000Z\"");
  EXPECT_EQ(Call1("date_trunc", {StrLit("quarter"), Col("ts")})[0],
            "\"2024-04-01T00:00:00.000000Z\"");
  EXPECT_EQ(Call1("date_trunc", {StrLit("second"), Col("ts")})[2],
            "\"1969-12-31T23:59:59.000000Z\"");
  EXPECT_EQ(Call1("date_trunc", {StrLit("fortnight"), Col("ts")})[0], "null");
  EXPECT_EQ(Call1("trunc", {Col("d"), StrLit("MM")}),
            (Strings{"\"2024-05-01\"", "null", "\"1969-12-01\""}));
  EXPECT_EQ(Call1("trunc", {Col("d"), StrLit("year")})[0], "\"2024-01-01\"");
}

TEST_F(DatetimeFunctionsTest, DateArithmetic) {
  EXPECT_EQ(Call1("date_add", {Col("d"), Col("n")}),
            (Strings{"\"2024-05-04\"", "null", "\"1969-12-30\""}));
  EXPECT_EQ(Call1("date_sub", {Col("s"), IntLit(1)})[0], "\"2024-04-30\"");
  EXPECT_EQ(Call1("datediff", {Col("d"), StrLit("2024-01-01")}),
            (Strings{"121", "null", "-19724"}));
  auto overflow = EvalError(Function("date_add", {Col("d"), IntLit(2147483647)}));
  ASSERT_RAISES(InvalidArgument, overflow);
  EXPECT_NE(overflow.Message().find("row 0"), std::string::npos) << overflow;
}

TEST_F(DatetimeFunctionsTest, CurrentTimeComesFromTheContext) {
  EvalContext context = los_angeles_;
  context.current_timestamp_micros = 1714558830500000;
  EXPECT_EQ(Call1("current_timestamp", {}, context),
            (Strings(3, "\"2024-05-01T10:20:30.500000Z\"")));
  EXPECT_EQ(Call1("now", {}, context)[0], "\"2024-05-01T10:20:30.500000Z\"");
  EXPECT_EQ(Call1("current_date", {}, context)[0], "\"2024-05-01\"");
  EXPECT_EQ(Call1("unix_timestamp", {}, context)[0], "1714558830");
  EXPECT_EQ(Call1("current_timezone", {}, context)[0], "\"America/Los_Angeles\"");
  ASSERT_RAISES(InvalidArgument, EvalError(Function("current_timestamp", {})));
}

TEST_F(DatetimeFunctionsTest, TimestampsPlusAndMinusIntervals) {
  ASSERT_OK_AND_ASSIGN(auto ten_minutes, ParseIntervalLiteral("10", "MINUTE"));
  auto plus = Call(Op::kAdd, {Col("ts"), Lit(ten_minutes)});
  EXPECT_EQ(Eval(plus), (Strings{"\"2024-05-01T10:30:30.500000Z\"", "null",
                                 "\"1970-01-01T00:09:59.999999Z\""}));
  // The literal is an INTERVAL MINUTE, and prints so (Spark's ANSI style).
  EXPECT_EQ(plus->ToString(), "(ts + INTERVAL '10' MINUTE)");
  EXPECT_EQ(Eval(Call(Op::kSubtract, {Col("ntz"), Lit(ten_minutes)}))[0],
            "\"2024-05-01T10:10:30.500000\"");
  EXPECT_EQ(Eval(Call(Op::kAdd, {Lit(ten_minutes), Col("d")}))[0],
            "\"2024-05-01T00:10:00.000000Z\"");
  EXPECT_EQ(Eval(Call(Op::kSubtract, {Col("ts"), Cast(Col("d"), DataType::Timestamp())})),
            (Strings{"\"INTERVAL '0 10:20:30.5' DAY TO SECOND\"", "null",
                     "\"INTERVAL '0 23:59:59.999999' DAY TO SECOND\""}));
  // The sum of two INTERVAL MINUTE values is one too.
  EXPECT_EQ(Eval(Cast(Call(Op::kAdd, {Lit(ten_minutes), Lit(ten_minutes)}), DataType::String()))[0],
            "\"INTERVAL '20' MINUTE\"");
  ASSERT_RAISES(InvalidArgument,
                Bind(*Call(Op::kAdd, {Col("n"), Lit(ten_minutes)}), *batch_->Schema()));
  ASSERT_OK_AND_ASSIGN(auto huge, ParseIntervalLiteral("106751991", "DAYS"));
  auto overflow = EvalError(Call(Op::kAdd, {Col("ts"), Lit(huge)}));
  ASSERT_RAISES(InvalidArgument, overflow);
  EXPECT_NE(overflow.Message().find("[DATETIME_OVERFLOW] row 0"), std::string::npos) << overflow;
}

TEST_F(DatetimeFunctionsTest, DateMinusDateIsWholeDaysInEveryZone) {
  // Spark's SubtractDates: an interval of days. 2024-03-10 is a 23-hour day in New York.
  EvalContext new_york;
  new_york.session_time_zone = TimeZone::Make("America/New_York").ValueOrDie();
  auto days = Call(Op::kSubtract, {Lit(Scalar::Date(19793)), Col("d")});
  EXPECT_EQ(Eval(days, new_york), (Strings{"\"INTERVAL '-51 00:00:00' DAY TO SECOND\"", "null",
                                           "\"INTERVAL '19794 00:00:00' DAY TO SECOND\""}));
  EXPECT_EQ(
      Eval(Call(Op::kSubtract, {Lit(Scalar::Date(19793)), Lit(Scalar::Date(19792))}), new_york)[0],
      "\"INTERVAL '1 00:00:00' DAY TO SECOND\"");
  ASSERT_RAISES(InvalidArgument, Bind(*Call(Op::kAdd, {Col("d"), Col("d")}), *batch_->Schema()));
}

TEST(IntervalLiteralTest, ParsesSingleUnitsRangesAndUnitLists) {
  auto micros = [](std::string_view value, std::string_view unit) {
    auto result = ParseIntervalLiteral(value, unit);
    EXPECT_TRUE(result.ok()) << value << " " << unit << ": " << result.status();
    return result.ok() ? result->IntValue() : 0;
  };
  EXPECT_EQ(micros("10", "MINUTE"), 600'000'000);
  EXPECT_EQ(micros("-1", "day"), -86'400'000'000);
  EXPECT_EQ(micros("1.5", "SECONDS"), 1'500'000);
  EXPECT_EQ(micros("2", "WEEK"), 14 * 86'400'000'000);
  EXPECT_EQ(micros("250", "MILLISECOND"), 250'000);
  EXPECT_EQ(micros("1 day 2 hours 30 minutes", ""), 95'400'000'000);
  EXPECT_EQ(micros("1 02:03:04.5", "DAY TO SECOND"), 93'784'500'000);
  EXPECT_EQ(micros("-10:30", "HOUR TO MINUTE"), -37'800'000'000);
  auto unit = ParseIntervalLiteral("1", "fortnight");
  ASSERT_RAISES(InvalidArgument, unit);
  EXPECT_NE(unit.status().Message().find("unknown unit 'fortnight'"), std::string::npos);
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("x", "DAY"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("0.0000001", "SECOND"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1 day 2", ""));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1 02:03", "DAY TO SECOND"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("99999999999999", "DAY"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1 year 1 day", ""));
}

TEST(IntervalLiteralTest, YearAndMonthUnitsMakeYearMonthIntervals) {
  auto months = [](std::string_view value, std::string_view unit) {
    auto result = ParseIntervalLiteral(value, unit);
    EXPECT_TRUE(result.ok()) << value << " " << unit << ": " << result.status();
    EXPECT_TRUE(!result.ok() || result->Type()->Id() == columnar::TypeId::kYearMonthInterval);
    return result.ok() ? result->IntValue() : 0;
  };
  EXPECT_EQ(months("1", "YEAR"), 12);
  EXPECT_EQ(months("-3", "months"), -3);
  EXPECT_EQ(months("1 year 2 months", ""), 14);
  EXPECT_EQ(months("interval 3 years -1 month", ""), 35);
  EXPECT_EQ(months("-1-3", "YEAR TO MONTH"), -15);
  EXPECT_EQ(months("2147483647", "MONTH"), 2147483647);
  EXPECT_EQ(ParseIntervalLiteral("1-2", "YEAR TO MONTH")->ToString(),
            "INTERVAL '1-2' YEAR TO MONTH");
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1.5", "YEAR"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("178956970-8", "YEAR TO MONTH"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1-12", "YEAR TO MONTH"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1", "YEAR TO MONTH"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1-1", "MONTH TO YEAR"));
  ASSERT_RAISES(InvalidArgument, ParseIntervalLiteral("1", "YEAR TO DAY"));
}

TEST(TypedLiteralTest, BuildsDatesTimestampsBinaryAndDecimals) {
  ASSERT_OK_AND_ASSIGN(auto date, DateLiteral("2024-05-01"));
  EXPECT_EQ(date.ToString(), "DATE '2024-05-01'");
  ASSERT_RAISES(InvalidArgument, DateLiteral("2024-02-30"));
  ASSERT_OK_AND_ASSIGN(auto ts, TimestampLiteral("2024-05-01 10:00:00"));
  EXPECT_EQ(ts->ToString(), "CAST('2024-05-01 10:00:00' AS timestamp)");
  auto batch = BatchFromJson(MakeSchema({Field("x", DataType::Int32())}), "[[1]]").ValueOrDie();
  EvalContext paris;
  paris.session_time_zone = TimeZone::Make("Europe/Paris").ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto values, EvalToJson(ts, *batch, paris));
  EXPECT_EQ(values[0], "\"2024-05-01T08:00:00.000000Z\"");
  ASSERT_RAISES(InvalidArgument, TimestampLiteral("yesterday"));
  ASSERT_OK_AND_ASSIGN(auto ntz, TimestampNtzLiteral("2024-05-01 10:00:00"));
  EXPECT_EQ(ntz.Type()->ToString(), "timestamp_ntz");
  ASSERT_OK_AND_ASSIGN(auto binary, BinaryLiteral("0a0B"));
  EXPECT_EQ(binary.BytesValue(), std::string("\x0a\x0b", 2));
  ASSERT_OK_AND_ASSIGN(auto odd, BinaryLiteral("abc"));
  EXPECT_EQ(odd.BytesValue(), std::string("\x0a\xbc", 2));
  ASSERT_RAISES(InvalidArgument, BinaryLiteral("0g"));
  ASSERT_OK_AND_ASSIGN(auto decimal, DecimalLiteral("1.23"));
  EXPECT_EQ(decimal.Type()->ToString(), "decimal(3,2)");
  ASSERT_OK_AND_ASSIGN(decimal, DecimalLiteral("-0.05BD"));
  EXPECT_EQ(decimal.Type()->ToString(), "decimal(2,2)");
  EXPECT_EQ(decimal.ToString(), "-0.05BD");
  ASSERT_OK_AND_ASSIGN(decimal, DecimalLiteral("00123"));
  EXPECT_EQ(decimal.Type()->ToString(), "decimal(3,0)");
  ASSERT_RAISES(InvalidArgument, DecimalLiteral("1.2.3"));
  ASSERT_RAISES(InvalidArgument, DecimalLiteral(std::string(39, '9')));
}

}  // namespace
}  // namespace tributary::expr

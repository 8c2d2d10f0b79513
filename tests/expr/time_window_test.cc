// window() and time_windows() (time_window_functions.cc): Spark's window starts, checked at
// boundaries, before the epoch and with a start offset, and Spark's argument checks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using ::testing::HasSubstr;
using testing::MakeSchema;

// The window struct as canonical JSON.
std::string W(const std::string& start, const std::string& end) {
  std::string out = R"({"start":")";
  out.append(start).append(R"(","end":")").append(end).append(R"("})");
  return out;
}

// A JSON array of `items`.
std::string List(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) {
      out.push_back(',');
    }
    out.append(item);
  }
  out.push_back(']');
  return out;
}

class TimeWindowTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema =
        MakeSchema({Field("ts", DataType::Timestamp()), Field("ntz", DataType::TimestampNtz()),
                    Field("s", DataType::String())});
    // 10:20:30.5; exactly 10:20:00; null; 1969-12-31 23:59:59.999999 (one microsecond before
    // the epoch); exactly the epoch.
    batch_ = BatchFromJson(schema, R"([
        [1714558830500000, 1714558830500000, "1 minute"],
        [1714558800000000, 1714558800000000, "1 minute"],
        [null, null, null],
        [-1, -1, "1 minute"],
        [0, 0, "1 minute"]
      ])")
                 .ValueOrDie();
  }
  ExprPtr Window(std::vector<ExprPtr> args) { return Function("window", std::move(args)); }
};

TEST_F(TimeWindowTest, TumblingWindowsStartAtMultiplesOfTheDuration) {
  EXPECT_EQ(Eval(Window({Col("ts"), StrLit("1 minute")})),
            (Strings{W("2024-05-01T10:20:00.000000Z", "2024-05-01T10:21:00.000000Z"),
                     // A time on a boundary starts its window.
                     W("2024-05-01T10:20:00.000000Z", "2024-05-01T10:21:00.000000Z"), "null",
                     // Before the epoch the window still starts at or before the time.
                     W("1969-12-31T23:59:00.000000Z", "1970-01-01T00:00:00.000000Z"),
                     W("1970-01-01T00:00:00.000000Z", "1970-01-01T00:01:00.000000Z")}));
}

TEST_F(TimeWindowTest, StartTimeShiftsTheWindows) {
  // 10-minute windows starting at minute 3 (Spark: window(ts, '10 minutes', '10 minutes',
  // '3 minutes')).
  EXPECT_EQ(
      Eval(Window({Col("ts"), StrLit("10 minutes"), StrLit("10 minutes"), StrLit("3 minutes")}))[0],
      W("2024-05-01T10:13:00.000000Z", "2024-05-01T10:23:00.000000Z"));
  // A negative start time, and integer microseconds as durations.
  EXPECT_EQ(Eval(Window({Col("ts"), Lit(Scalar::Int64(600000000)), Lit(Scalar::Int64(600000000)),
                         Lit(Scalar::Int64(-180000000))}))[0],
            W("2024-05-01T10:17:00.000000Z", "2024-05-01T10:27:00.000000Z"));
  EXPECT_EQ(
      Eval(Window({Col("ts"), StrLit("10 minutes"), StrLit("10 minutes"), StrLit("3 minutes")}))[3],
      W("1969-12-31T23:53:00.000000Z", "1970-01-01T00:03:00.000000Z"));
}

TEST_F(TimeWindowTest, TimestampNtzGivesNtzWindows) {
  EXPECT_EQ(Eval(Window({Col("ntz"), StrLit("1 hour")}))[0],
            R"({"start":"2024-05-01T10:00:00.000000","end":"2024-05-01T11:00:00.000000"})");
}

TEST_F(TimeWindowTest, SlidingWindowsListEveryWindowContainingTheTime) {
  // 10-minute windows every 5 minutes: two per time, latest first.
  EXPECT_EQ(Eval(Function("time_windows",
                          {Col("ts"), StrLit("10 minutes"), StrLit("5 minutes"), IntLit(0)}))[0],
            List({W("2024-05-01T10:20:00.000000Z", "2024-05-01T10:30:00.000000Z"),
                  W("2024-05-01T10:15:00.000000Z", "2024-05-01T10:25:00.000000Z")}));
  // 10-minute windows every 3 minutes: ceil(10/3) = 4 candidates; 10:20:30.5 lies in the
  // ones starting 10:18, 10:15 and 10:12, not 10:09 (which ends 10:19).
  EXPECT_EQ(Eval(Function("time_windows",
                          {Col("ts"), StrLit("10 minutes"), StrLit("3 minutes"), IntLit(0)}))[0],
            List({W("2024-05-01T10:18:00.000000Z", "2024-05-01T10:28:00.000000Z"),
                  W("2024-05-01T10:15:00.000000Z", "2024-05-01T10:25:00.000000Z"),
                  W("2024-05-01T10:12:00.000000Z", "2024-05-01T10:22:00.000000Z")}));
  EXPECT_EQ(Eval(Function("time_windows",
                          {Col("ts"), StrLit("10 minutes"), StrLit("5 minutes"), IntLit(0)}))[2],
            "null");
}

TEST_F(TimeWindowTest, RefusesWhatSparkRefuses) {
  auto message = [&](std::vector<ExprPtr> args) {
    return EvalError(Window(std::move(args))).Message();
  };
  EXPECT_THAT(message({Col("ts"), StrLit("1 minute"), StrLit("2 minutes")}),
              HasSubstr("The slide duration (120000000) must be less than or equal to the "
                        "windowDuration (60000000)."));
  EXPECT_THAT(message({Col("ts"), StrLit("1 minute"), StrLit("1 minute"), StrLit("1 minute")}),
              HasSubstr("The absolute value of start time (60000000) must be less than the "
                        "slideDuration (60000000)."));
  EXPECT_THAT(message({Col("ts"), StrLit("0 seconds")}),
              HasSubstr("The window duration (0) must be greater than 0."));
  EXPECT_THAT(message({Col("ts"), StrLit("1 month")}),
              HasSubstr("Intervals greater than a month is not supported (1 month)."));
  EXPECT_THAT(message({Col("ts"), Col("s")}),
              HasSubstr("must be an integer, long or string literal"));
  EXPECT_THAT(message({Col("ts"), StrLit("1 minte")}), HasSubstr("INVALID_INTERVAL_FORMAT"));
  EXPECT_THAT(message({Lit(Scalar::Int64(1)), StrLit("1 minute")}),
              HasSubstr("must be a timestamp"));
  // A sliding window is several rows per row: only the plan can make them.
  EXPECT_THAT(message({Col("ts"), StrLit("10 minutes"), StrLit("5 minutes")}),
              HasSubstr("sliding window"));
}

}  // namespace
}  // namespace tributary::expr

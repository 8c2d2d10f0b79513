// Event-time windows and watermarks through the public API: GROUP BY window(...) in the
// DataFrame API and SQL against DuckDB's time_bucket over the same JSON files and against
// counts computed here by brute force, and withWatermark's checks (Spark's errors).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;
using testing::IsoText;
using testing::Json;
using testing::Sorted;

constexpr int64_t kSecond = 1000000;
constexpr int64_t kMinute = 60 * kSecond;
// 2024-05-01T10:00:00Z
constexpr int64_t kBase = 1714557600 * kSecond;

class TimeWindowApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Path() + "/warehouse").TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
    // 600 events 7.3 seconds apart from 10:00 (about 73 minutes), some on exact minute
    // boundaries; every 50th without a time.
    raw_ = dir_.Path() + "/raw";
    std::filesystem::create_directories(raw_);
    const char* countries[] = {"DE", "FR", "US"};
    std::ofstream out(raw_ + "/part-0.json");
    for (int i = 0; i < 600; ++i) {
      const int64_t ts = kBase + int64_t{7300000} * i;
      out << "{\"id\":" << i << ",\"country\":\"" << countries[i % 3] << "\",\"t\":";
      if (i % 50 == 49) {
        out << "null";
      } else {
        out << "\"" << IsoText(ts) << "\"";
        times_.push_back(ts);
      }
      out << "}\n";
    }
  }

  DataFrame Events() const {
    return session_->Read()
        .Format("json")
        .Schema("id BIGINT, country STRING, t TIMESTAMP")
        .Load(raw_)
        .WithColumnRenamed("t", "ts");
  }
  std::string DuckEvents() const {
    return "(SELECT id, country, t::TIMESTAMPTZ AS ts FROM read_json('" + raw_ +
           "/*.json', columns={id: 'BIGINT', country: 'VARCHAR', t: 'VARCHAR'}))";
  }
  std::vector<std::string> Duck(const std::string& sql) const {
    auto rows = testing::OracleQuery(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }
  // Rows {"start","end","n"} of windows of `size` every `slide` from `offset`, counted by
  // trying every window start near each time (no formula shared with the engine).
  std::vector<std::string> BruteForceCounts(int64_t size, int64_t slide, int64_t offset) const {
    std::map<int64_t, int64_t> counts;
    for (int64_t ts : times_) {
      // A grid start well before ts, then every start up to ts.
      int64_t start = offset + ((ts - offset) / slide - size / slide - 2) * slide;
      for (; start <= ts; start += slide) {
        if (ts >= start && ts < start + size) {
          ++counts[start];
        }
      }
    }
    std::vector<std::string> rows;
    rows.reserve(counts.size());
    for (const auto& [start, n] : counts) {
      rows.push_back(fmt::format(R"({{"start":"{}","end":"{}","n":{}}})", IsoText(start),
                                 IsoText(start + size), n));
    }
    return rows;
  }

  testing::TempDir dir_;
  std::string raw_;
  std::vector<int64_t> times_;
  std::shared_ptr<Session> session_;
};

TEST_F(TimeWindowApiTest, TumblingWindowCountsMatchDuckDbTimeBucket) {
  DataFrame counts = Events()
                         .GroupBy({Window(Col("ts"), "1 minute"), Col("country")})
                         .Agg({Count().Alias("n")})
                         .Select({Col("window.start").Alias("start"),
                                  Col("window.end").Alias("end"), Col("country"), Col("n")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, counts.Collect());
  // Rows without a time belong to no window (Spark filters them out).
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS start, "
                        "time_bucket(INTERVAL 1 MINUTE, ts) + INTERVAL 1 MINUTE AS \"end\", "
                        "country, count(*) AS n FROM " +
                        DuckEvents() + " WHERE ts IS NOT NULL GROUP BY ALL")));
  EXPECT_GT(rows.size(), 200u);
}

TEST_F(TimeWindowApiTest, WindowStartTimeMatchesDuckDbOffset) {
  DataFrame counts =
      Events()
          .GroupBy({Window(Col("ts"), "10 minutes", "10 minutes", "3 minutes")})
          .Agg({Count().Alias("n")})
          .Select({Col("window.start").Alias("start"), Col("window.end").Alias("end"), Col("n")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, counts.Collect());
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted(Duck("SELECT time_bucket(INTERVAL 10 MINUTE, ts, INTERVAL 3 MINUTE) AS start, "
                        "time_bucket(INTERVAL 10 MINUTE, ts, INTERVAL 3 MINUTE) + INTERVAL 10 "
                        "MINUTE AS \"end\", count(*) AS n FROM " +
                        DuckEvents() + " WHERE ts IS NOT NULL GROUP BY ALL")));
  EXPECT_EQ(Sorted(Json(rows)), BruteForceCounts(10 * kMinute, 10 * kMinute, 3 * kMinute));
}

TEST_F(TimeWindowApiTest, SlidingWindowsCountEveryRowInEachOfItsWindows) {
  for (const auto& [size, slide] :
       std::vector<std::pair<int64_t, int64_t>>{{10, 5}, {10, 3}, {5, 2}}) {
    DataFrame counts =
        Events()
            .GroupBy({Window(Col("ts"), fmt::format("{} minutes", size),
                             fmt::format("{} minutes", slide))})
            .Agg({Count().Alias("n")})
            .Select({Col("window.start").Alias("start"), Col("window.end").Alias("end"), Col("n")});
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, counts.Collect());
    EXPECT_EQ(Sorted(Json(rows)), BruteForceCounts(size * kMinute, slide * kMinute, 0))
        << size << " minutes every " << slide;
  }
}

TEST_F(TimeWindowApiTest, SelectAndWithColumnAddTheWindow) {
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows,
                       Events()
                           .Filter(Col("id") == Lit(int64_t{8}))
                           .Select({Col("id"), Window(Col("ts"), "1 minute")})
                           .Collect());
  // id 8: 10:00:58.4.
  EXPECT_THAT(Json(rows),
              ::testing::ElementsAre(R"({"id":8,"window":{"start":"2024-05-01T10:00:00.000000Z",)"
                                     R"("end":"2024-05-01T10:01:00.000000Z"}})"));
  DataFrame sliding =
      Events().WithColumn("w", Window(Col("ts"), "2 minutes", "1 minute")).Select({"id", "w"});
  ASSERT_OK_AND_ASSIGN(int64_t sliding_rows, sliding.Count());
  EXPECT_EQ(sliding_rows, 2 * static_cast<int64_t>(times_.size()));
}

TEST_F(TimeWindowApiTest, SqlGroupByWindow) {
  // The SQL layer's spelling of the DataFrame's GroupBy(Window(...)): the same rows.
  DataFrame counts = session_->Sql(
      "SELECT window, count(*) AS n FROM (SELECT id, CAST(t AS "
      "TIMESTAMP) AS ts FROM read_files('" +
      raw_ +
      "', format => 'json')) GROUP BY window(ts, '5 minutes', "
      "'2 minutes')");
  ASSERT_OK(counts.Status());
  DataFrame expected =
      Events().GroupBy({Window(Col("ts"), "5 minutes", "2 minutes")}).Agg({Count().Alias("n")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, counts.Collect());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> expected_rows, expected.Collect());
  EXPECT_EQ(Sorted(Json(rows)), Sorted(Json(expected_rows)));
  EXPECT_FALSE(rows.empty());
}

TEST_F(TimeWindowApiTest, WindowArgumentErrorsAreSparks) {
  DataFrame wrong = Events().GroupBy({Window(Col("ts"), "1 minute", "2 minutes")}).Count();
  EXPECT_THAT(wrong.Status().Message(),
              HasSubstr("The slide duration (120000000) must be less than or equal to the "
                        "windowDuration (60000000)."));
  DataFrame two = Events().Select(
      {Window(Col("ts"), "1 minute").Alias("a"), Window(Col("ts"), "2 minutes").Alias("b")});
  EXPECT_THAT(two.Status().Message(),
              HasSubstr("Multiple time/session window expressions would result in a cartesian "
                        "product of rows, therefore they are currently not supported"));
}

TEST_F(TimeWindowApiTest, WithWatermarkChecksAsSpark) {
  DataFrame marked = Events().WithWatermark("ts", "10 minutes");
  ASSERT_OK(marked.Status());
  ASSERT_OK_AND_ASSIGN(std::string explain, marked.Explain());
  EXPECT_THAT(explain, HasSubstr("EventTimeWatermark ts, 10 minutes"));
  // Batch queries ignore it.
  ASSERT_OK_AND_ASSIGN(int64_t count, marked.Count());
  EXPECT_EQ(count, 600);
  EXPECT_OK(Events().WithWatermark("ts", "INTERVAL 1 hour 30 seconds").Status());

  EXPECT_THAT(Events().WithWatermark("tss", "10 minutes").Status().Message(),
              HasSubstr("with name `tss` cannot be resolved"));
  EXPECT_EQ(Events().WithWatermark("country", "10 minutes").Status().Message(),
            "[EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE] The event time `country` has the invalid type "
            "\"STRING\", but expected \"TIMESTAMP\".");
  EXPECT_EQ(Events().WithWatermark("ts", "-10 minutes").Status().Message(),
            "delay threshold (-10 minutes) should not be negative.");
  EXPECT_THAT(Events().WithWatermark("ts", "10 minuts").Status().Message(),
              HasSubstr("[INVALID_INTERVAL_FORMAT] Error parsing '10 minuts' to interval"));
  // A window column may carry the watermark (its end is the event time).
  EXPECT_OK(Events()
                .Select({Col("id"), Window(Col("ts"), "1 minute")})
                .WithWatermark("window", "1 minute")
                .Status());
}

}  // namespace
}  // namespace tributary

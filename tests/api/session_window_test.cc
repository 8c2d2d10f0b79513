// Session windows in batch queries through the public API: GROUP BY session_window(...) in the
// DataFrame API and SQL, against sessions worked out by hand and against sessions merged here
// by brute force (no code shared with the engine), with per-row gaps and Spark's errors.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
// 2024-05-01T10:00:00Z
constexpr int64_t kBase = 1714557600 * kSecond;

// "10:03" on 2024-05-01 as it prints.
std::string At(std::string_view hh_mm) {
  return fmt::format("2024-05-01T{}:00.000000Z", hh_mm);
}

class SessionWindowApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Path() + "/warehouse").TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
    small_ = dir_.Path() + "/small";
    std::filesystem::create_directories(small_);
    // user, time, value, gap. Sessions with a 5-minute gap, worked out by hand:
    //   a: 10:00, 10:03 -> [10:00, 10:08) n=2 sum=3; 10:12, 10:14 -> [10:12, 10:19) n=2 sum=12
    //   a: 10:30, 10:40, then 10:35 (bridges them) -> [10:30, 10:45) n=3 sum=300
    //   b: 10:01 -> [10:01, 10:06); 10:20 -> [10:20, 10:25); a row without a time: no session
    std::ofstream out(small_ + "/part-0.json");
    const char* rows[][4] = {
        {"a", "10:00", "1", "10 minutes"},  {"a", "10:03", "2", "1 minute"},
        {"b", "10:01", "7", "0 seconds"},   {"a", "10:12", "5", "10 minutes"},
        {"a", "10:14", "7", nullptr},       {"a", "10:30", "100", "-1 minutes"},
        {"a", "10:40", "100", "1 minute"},  {"b", "10:20", "8", "10 minutes"},
        {"a", "10:35", "100", "5 minutes"}, {"b", nullptr, "9", "5 minutes"},
    };
    for (const auto& row : rows) {
      out << fmt::format(R"({{"user":"{}","t":{},"v":{},"gap":{}}})", row[0],
                         row[1] == nullptr ? "null" : fmt::format("\"{}\"", At(row[1])), row[2],
                         row[3] == nullptr ? "null" : fmt::format("\"{}\"", row[3]))
          << "\n";
    }
  }

  DataFrame Small() const {
    return session_->Read()
        .Format("json")
        .Schema("user STRING, t TIMESTAMP, v BIGINT, gap STRING")
        .Load(small_);
  }

  testing::TempDir dir_;
  std::string small_;
  std::shared_ptr<Session> session_;
};

TEST_F(SessionWindowApiTest, SessionsOfEachKeyMergeWhileTheNextStartsBeforeTheEnd) {
  DataFrame sessions = Small()
                           .GroupBy({Col("user"), SessionWindow(Col("t"), "5 minutes")})
                           .Agg({Count().Alias("n"), Sum(Col("v")).Alias("s")})
                           .Select({Col("user"), Col("session_window.start").Alias("start"),
                                    Col("session_window.end").Alias("end"), Col("n"), Col("s")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, sessions.Collect());
  const auto row = [](std::string_view user, std::string_view start, std::string_view end, int n,
                      int s) {
    return fmt::format(R"({{"user":"{}","start":"{}","end":"{}","n":{},"s":{}}})", user, At(start),
                       At(end), n, s);
  };
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted({row("a", "10:00", "10:08", 2, 3), row("a", "10:12", "10:19", 2, 12),
                    row("a", "10:30", "10:45", 3, 300), row("b", "10:01", "10:06", 1, 7),
                    row("b", "10:20", "10:25", 1, 8)}));
}

TEST_F(SessionWindowApiTest, PerRowGapsDropRowsWithoutAPositiveGap) {
  // Gaps per row: a's 10:00 +10m covers 10:03 (+1m) -> [10:00, 10:10); 10:12 +10m -> [10:12,
  // 10:22); 10:14's gap is null and 10:30's negative: dropped; 10:35 +5m and 10:40 +1m ->
  // [10:35, 10:41). b's 10:01 has a zero gap (dropped); 10:20 +10m -> [10:20, 10:30).
  DataFrame sessions = Small()
                           .GroupBy({Col("user"), SessionWindow(Col("t"), Col("gap"))})
                           .Agg({Count().Alias("n")})
                           .Select({Col("user"), Col("session_window.start").Alias("start"),
                                    Col("session_window.end").Alias("end"), Col("n")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, sessions.Collect());
  const auto row = [](std::string_view user, std::string_view start, std::string_view end, int n) {
    return fmt::format(R"({{"user":"{}","start":"{}","end":"{}","n":{}}})", user, At(start),
                       At(end), n);
  };
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted({row("a", "10:00", "10:10", 2), row("a", "10:12", "10:22", 1),
                    row("a", "10:35", "10:41", 2), row("b", "10:20", "10:30", 1)}));
}

TEST_F(SessionWindowApiTest, SqlGroupBySessionWindowAndAGlobalSession) {
  const std::string source = "read_files('" + small_ +
                             "', format => 'json', schema => 'user STRING, t TIMESTAMP, v "
                             "BIGINT, gap STRING')";
  DataFrame sessions =
      session_->Sql("SELECT user, session_window.start AS start, count(*) AS n FROM " + source +
                    " GROUP BY user, session_window(t, '5 minutes')");
  ASSERT_OK(sessions.Status());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, sessions.Collect());
  EXPECT_EQ(Sorted(Json(rows)),
            Sorted({fmt::format(R"({{"user":"a","start":"{}","n":2}})", At("10:00")),
                    fmt::format(R"({{"user":"a","start":"{}","n":2}})", At("10:12")),
                    fmt::format(R"({{"user":"a","start":"{}","n":3}})", At("10:30")),
                    fmt::format(R"({{"user":"b","start":"{}","n":1}})", At("10:01")),
                    fmt::format(R"({{"user":"b","start":"{}","n":1}})", At("10:20"))}));
  // A batch query may group by the session alone (Spark: a global session window): the rows
  // of every user merge: 10:00, 10:01, 10:03 -> [10:00, 10:08); 10:12, 10:14 -> [10:12, 10:19);
  // 10:20 starts after 10:19 -> [10:20, 10:25); 10:30, 10:35, 10:40 -> [10:30, 10:45).
  DataFrame global = session_->Sql("SELECT session_window, count(*) AS n FROM " + source +
                                   " GROUP BY session_window(t, '5 minutes')");
  ASSERT_OK_AND_ASSIGN(std::vector<Row> global_rows, global.Collect());
  const auto row = [](std::string_view start, std::string_view end, int n) {
    return fmt::format(R"({{"session_window":{{"start":"{}","end":"{}"}},"n":{}}})", At(start),
                       At(end), n);
  };
  EXPECT_EQ(Sorted(Json(global_rows)),
            Sorted({row("10:00", "10:08", 3), row("10:12", "10:19", 2), row("10:20", "10:25", 1),
                    row("10:30", "10:45", 3)}));
}

TEST_F(SessionWindowApiTest, SessionsMatchABruteForceMergeOverManyRows) {
  // 3000 rows of 7 users at pseudo-random times over two hours, written out of order.
  const std::string dir = dir_.Path() + "/many";
  std::filesystem::create_directories(dir);
  std::map<int, std::vector<int64_t>> times;
  uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  {
    std::ofstream out(dir + "/part-0.json");
    for (int i = 0; i < 3000; ++i) {
      const int user = static_cast<int>(next() % 7);
      const int64_t ts = kBase + static_cast<int64_t>(next() % 7200) * kSecond;
      times[user].push_back(ts);
      out << fmt::format(R"({{"user":{},"t":"{}"}})", user, IsoText(ts)) << "\n";
    }
  }
  const int64_t gap = 10 * kSecond;
  std::vector<std::string> expected;
  for (auto& [user, user_times] : times) {
    std::sort(user_times.begin(), user_times.end());
    size_t i = 0;
    while (i < user_times.size()) {
      const int64_t start = user_times[i];
      int64_t end = start + gap;
      size_t j = i + 1;
      while (j < user_times.size() && user_times[j] <= end) {
        end = std::max(end, user_times[j] + gap);
        ++j;
      }
      expected.push_back(fmt::format(R"({{"user":{},"start":"{}","end":"{}","n":{}}})", user,
                                     IsoText(start), IsoText(end), j - i));
      i = j;
    }
  }
  DataFrame sessions = session_->Read()
                           .Format("json")
                           .Schema("user INT, t TIMESTAMP")
                           .Load(dir)
                           .GroupBy({SessionWindow(Col("t"), "10 seconds"), Col("user")})
                           .Agg({Count().Alias("n")})
                           .Select({Col("user"), Col("session_window.start").Alias("start"),
                                    Col("session_window.end").Alias("end"), Col("n")});
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, sessions.Collect());
  EXPECT_EQ(Sorted(Json(rows)), Sorted(expected));
  EXPECT_GT(expected.size(), 100u);
}

TEST_F(SessionWindowApiTest, SelectGivesEachRowItsOwnSessionAndErrorsAreSparks) {
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, Small()
                                                  .Filter(Col("v") == Lit(int64_t{2}))
                                                  .Select({SessionWindow(Col("t"), "5 minutes")})
                                                  .Collect());
  EXPECT_THAT(Json(rows), ::testing::ElementsAre(
                              fmt::format(R"({{"session_window":{{"start":"{}","end":"{}"}}}})",
                                          At("10:03"), At("10:08"))));
  EXPECT_THAT(Small().GroupBy({SessionWindow(Col("t"), Col("v"))}).Count().Status().Message(),
              HasSubstr("Gap duration expression used in session window must be "
                        "CalendarIntervalType, but got bigint"));
  EXPECT_THAT(Small().GroupBy({SessionWindow(Col("t"), "1 month")}).Count().Status().Message(),
              HasSubstr("Intervals greater than a month is not supported"));
  EXPECT_THAT(Small()
                  .GroupBy({SessionWindow(Col("t"), "5 minutes"), Window(Col("t"), "1 minute")})
                  .Count()
                  .Status()
                  .Message(),
              HasSubstr("Multiple time/session window expressions would result in a cartesian "
                        "product of rows"));
}

}  // namespace
}  // namespace tributary

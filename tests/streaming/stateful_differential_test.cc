// Differential tests of the stateful streaming operators: for seeded random event streams
// (rows arriving out of order, some much older than the newest seen, split into JSON files of
// random sizes and read a few files per micro-batch by maxFilesPerTrigger, run with
// Trigger.AvailableNow so the final no-data batch runs), what every batch emits equals a batch
// query over the same rows minus the rows the watermark dropped.
//
// The test replays the arrival order itself to find the dropped rows, by Spark 3.5's rules as
// written in its documentation (not from the engine's code): the watermark batch N uses is the
// largest event time of batches before N, in milliseconds, minus the delay, and never
// decreases; a row of batch N is late when its event time (for a window aggregation: the end
// of its window, per window) is at or below the watermark batch N-1 used; state is evicted
// (and, in append mode, emitted) when its event time reaches the watermark of the batch. The
// batch results come from DuckDB (tests/support/duckdb_oracle.h) over a JSON file of the rows
// with the dropped windows marked. Stream-stream joins (a SQL pipeline of two file streams,
// each with its own watermark, the query's the minimum) are checked the same way: the pairs
// against DuckDB's join of the kept rows, each outer row without a pair once, in the batch
// whose state watermark passes it. A failure names its seed; STATEFUL_DIFF_SEEDS=7,8 reruns
// the cases with those seeds only.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

constexpr int64_t kSecond = 1000000;
// 2026-12-01T10:00:00Z in microseconds.
constexpr int64_t kBase = int64_t{1796119200} * kSecond;
constexpr const char* kEventsDdl = "seq BIGINT, country STRING, ts TIMESTAMP, v BIGINT, b BIGINT";

// "2026-12-01T10:00:07.000000Z" for a microsecond timestamp (Row::ToJson's form).
std::string IsoMicros(int64_t micros) {
  const auto seconds = static_cast<std::time_t>(micros / kSecond);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros % kSecond);
}

// "2026-12-01T10:00:07.000Z" for a millisecond watermark (progress eventTime's form).
std::string IsoMillis(int64_t millis) {
  const auto seconds = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis % 1000);
}

// The inverse of IsoMicros.
int64_t ParseIsoMicros(const std::string& text) {
  std::tm tm{};
  int fraction = 0;
  const int fields = std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon,
                                 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &fraction);
  EXPECT_EQ(fields, 7) << text;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t{timegm(&tm)} * kSecond + fraction;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// One input row. `batch` is the micro-batch its file lands in.
struct Event {
  int64_t seq = 0;
  std::string country;
  int64_t ts = 0;
  std::optional<int64_t> v;
  int64_t batch = 0;
};

/// How a scenario's rows are drawn.
struct Shape {
  int rows = 240;
  int keys = 4;
  int64_t span_seconds = 900;
  /// Share of rows that repeat the key and event time of an earlier drawn row.
  double copy_fraction = 0.1;
  /// Some event times get a random sub-second part (microseconds).
  bool sub_second = true;
};

/// A seeded event stream as the engine will read it, and the watermarks Spark's rules give.
struct Scenario {
  uint64_t seed = 0;
  std::vector<Event> events;  // arrival order
  std::vector<int> file_sizes;
  int max_files = 1;
  int64_t delay_seconds = 10;
  int data_batches = 0;
  /// The watermark (ms) each batch uses, data batches then the final no-data batch.
  std::vector<int64_t> watermark_ms;
  /// Whether the final no-data batch runs (the last data batch moved the watermark).
  bool no_data_batch = false;

  std::string Delay() const { return fmt::format("{} seconds", delay_seconds); }
  int Batches() const { return data_batches + (no_data_batch ? 1 : 0); }
  /// The watermark rows of `batch` are judged late against (the previous batch's), if any.
  std::optional<int64_t> LateWatermarkMicros(int64_t batch) const {
    if (batch == 0) {
      return std::nullopt;
    }
    return watermark_ms[static_cast<size_t>(batch - 1)] * 1000;
  }
  int64_t EvictionWatermarkMicros(int64_t batch) const {
    return watermark_ms[static_cast<size_t>(batch)] * 1000;
  }
};

std::vector<std::string> CountryNames(int keys) {
  static const char* const kNames[] = {"DE", "FR", "US", "JP", "BR", "IN", "CA", "NO"};
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(keys));
  for (int i = 0; i < keys; ++i) {
    names.emplace_back(kNames[i % 8]);
  }
  return names;
}

/// A transit time in seconds: most rows arrive within seconds, some a minute late, a few ten
/// minutes late (far below the newest time seen by then).
int64_t DrawTransitSeconds(std::mt19937_64& rng) {
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const auto chance = [&](double p) {
    return std::uniform_real_distribution<double>()(rng) < p;
  };
  int64_t transit = uniform(0, 5);
  if (chance(0.05)) {
    transit = uniform(60, 600);
  } else if (chance(0.15)) {
    transit = uniform(5, 60);
  }
  return transit;
}

/// Puts `drawn` (rows with their arrival times) into `scenario` in arrival order, numbered,
/// in files of 1..`max_file_rows` rows; file f is read by batch f / maxFilesPerTrigger.
void ArrangeArrivals(std::vector<std::pair<int64_t, Event>> drawn, int max_file_rows,
                     std::mt19937_64& rng, Scenario* scenario) {
  std::stable_sort(drawn.begin(), drawn.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [arrival, event] : drawn) {
    event.seq = static_cast<int64_t>(scenario->events.size());
    scenario->events.push_back(std::move(event));
  }
  size_t at = 0;
  while (at < scenario->events.size()) {
    const auto size = std::min<size_t>(
        static_cast<size_t>(std::uniform_int_distribution<int64_t>(1, max_file_rows)(rng)),
        scenario->events.size() - at);
    const int64_t batch = static_cast<int64_t>(scenario->file_sizes.size()) / scenario->max_files;
    for (size_t i = at; i < at + size; ++i) {
      scenario->events[i].batch = batch;
    }
    scenario->file_sizes.push_back(static_cast<int>(size));
    at += size;
  }
  scenario->data_batches = static_cast<int>(scenario->events.back().batch) + 1;
}

/// The largest event time (ms) of `events`' rows in `batch`, if any.
std::optional<int64_t> MaxEventMillis(const std::vector<Event>& events, int64_t batch) {
  std::optional<int64_t> max_ms;
  for (const Event& event : events) {
    if (event.batch == batch) {
      max_ms = std::max(max_ms.value_or(FloorDiv(event.ts, 1000)), FloorDiv(event.ts, 1000));
    }
  }
  return max_ms;
}

Scenario MakeScenario(uint64_t seed, const Shape& shape) {
  std::mt19937_64 rng(seed);
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const auto chance = [&](double p) {
    return std::uniform_real_distribution<double>()(rng) < p;
  };
  Scenario scenario;
  scenario.seed = seed;
  // Every other seed puts event times on a 10-second grid with a delay on it too, so that
  // watermarks often equal a window's end or a row's time: the "at or below" edge.
  const bool grid = seed % 2 == 0;
  const int64_t delays[] = {10, 20, 30, 5, 45};
  scenario.delay_seconds = delays[uniform(0, grid ? 2 : 4)];
  scenario.max_files = static_cast<int>(uniform(1, 3));
  const std::vector<std::string> countries = CountryNames(shape.keys);

  // Draw rows, then order them by event time plus a random transit time.
  std::vector<std::pair<int64_t, Event>> drawn;
  for (int i = 0; i < shape.rows; ++i) {
    Event event;
    if (i > 0 && chance(shape.copy_fraction)) {
      const Event& earlier = drawn[static_cast<size_t>(uniform(0, i - 1))].second;
      event.country = earlier.country;
      event.ts = earlier.ts;
    } else {
      event.country = countries[static_cast<size_t>(uniform(0, shape.keys - 1))];
      if (grid) {
        event.ts = kBase + uniform(0, shape.span_seconds / 10) * 10 * kSecond;
      } else {
        event.ts = kBase + uniform(0, shape.span_seconds) * kSecond;
        if (shape.sub_second && chance(0.3)) {
          event.ts += uniform(0, kSecond - 1);
        }
      }
    }
    if (!chance(0.1)) {
      event.v = uniform(-50, 1000);
    }
    drawn.emplace_back(event.ts + DrawTransitSeconds(rng) * kSecond, std::move(event));
  }
  ArrangeArrivals(std::move(drawn), 30, rng, &scenario);

  // Watermarks: batch 0 uses 0; batch N+1 uses max(watermark of N, max event time of batches
  // up to N in ms - delay).
  scenario.watermark_ms.assign(1, 0);
  int64_t max_ms = 0;
  for (int batch = 0; batch < scenario.data_batches; ++batch) {
    max_ms = std::max(max_ms, MaxEventMillis(scenario.events, batch).value_or(0));
    scenario.watermark_ms.push_back(
        std::max(scenario.watermark_ms.back(), max_ms - scenario.delay_seconds * 1000));
  }
  scenario.no_data_batch = scenario.watermark_ms[static_cast<size_t>(scenario.data_batches)] >
                           scenario.watermark_ms[static_cast<size_t>(scenario.data_batches - 1)];
  return scenario;
}

std::string EventJson(const Event& event) {
  return fmt::format(R"({{"seq":{},"country":"{}","ts":"{}","v":{},"b":{}}})", event.seq,
                     event.country, IsoMicros(event.ts),
                     event.v ? std::to_string(*event.v) : std::string("null"), event.batch);
}

/// How far after a left row a right row of the same key joins it.
constexpr int64_t kJoinRangeSeconds = 60;

/// The two sides of a stream-stream join (each with its own delay, files and
/// maxFilesPerTrigger) and the watermarks of the batches reading them.
struct JoinScenario {
  Scenario left;
  Scenario right;
  int data_batches = 0;
  /// The watermark (ms) each batch uses, data batches then the final no-data batch.
  std::vector<int64_t> watermark_ms;
  bool no_data_batch = false;

  int Batches() const { return data_batches + (no_data_batch ? 1 : 0); }
  std::optional<int64_t> LateWatermarkMicros(int64_t batch) const {
    if (batch == 0) {
      return std::nullopt;
    }
    return watermark_ms[static_cast<size_t>(batch - 1)] * 1000;
  }
  int64_t WatermarkMicros(int64_t batch) const {
    return watermark_ms[static_cast<size_t>(batch)] * 1000;
  }
};

/// Impressions (left) and clicks (right) by key: most clicks within a minute after an
/// impression of their key (some exactly at either end), some just outside, some anywhere.
JoinScenario MakeJoinScenario(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const auto chance = [&](double p) {
    return std::uniform_real_distribution<double>()(rng) < p;
  };
  // Every other seed on a 10-second grid, so that rows sit at the range's and the
  // watermarks' edges.
  const int64_t step = seed % 2 == 0 ? 10 : 1;
  JoinScenario join;
  for (Scenario* side : {&join.left, &join.right}) {
    side->seed = seed;
    side->delay_seconds = uniform(1, 3) * 10;
    side->max_files = static_cast<int>(uniform(1, 3));
  }
  const auto any_key = [&] {
    return fmt::format("k{}", uniform(0, 11));
  };
  const auto any_time = [&] {
    return kBase + uniform(0, 600 / step) * step * kSecond;
  };
  std::vector<std::pair<int64_t, Event>> left;
  for (int i = 0; i < 100; ++i) {
    Event event;
    event.country = any_key();
    event.ts = any_time();
    event.v = i;
    left.emplace_back(event.ts + DrawTransitSeconds(rng) * kSecond, event);
  }
  std::vector<std::pair<int64_t, Event>> right;
  for (int i = 0; i < 100; ++i) {
    Event event;
    if (chance(0.6)) {
      const Event& impression = left[static_cast<size_t>(uniform(0, 99))].second;
      event.country = impression.country;
      event.ts = impression.ts + uniform(-20 / step, 80 / step) * step * kSecond;
    } else {
      event.country = any_key();
      event.ts = any_time();
    }
    event.v = i;
    right.emplace_back(event.ts + DrawTransitSeconds(rng) * kSecond, event);
  }
  ArrangeArrivals(std::move(left), 20, rng, &join.left);
  ArrangeArrivals(std::move(right), 20, rng, &join.right);
  join.data_batches = std::max(join.left.data_batches, join.right.data_batches);

  // Each withWatermark point: max event time seen - its delay, never decreasing; points that
  // saw no row yet do not count. The query's watermark: the minimum of the points (Spark's
  // default multipleWatermarkPolicy), never decreasing.
  std::optional<int64_t> points[2];
  join.watermark_ms.assign(1, 0);
  for (int batch = 0; batch < join.data_batches; ++batch) {
    std::optional<int64_t> combined;
    for (int side = 0; side < 2; ++side) {
      const Scenario& events = side == 0 ? join.left : join.right;
      if (const std::optional<int64_t> max_ms = MaxEventMillis(events.events, batch)) {
        const int64_t candidate = *max_ms - events.delay_seconds * 1000;
        points[side] = std::max(points[side].value_or(candidate), candidate);
      }
      if (points[side]) {
        combined = std::min(combined.value_or(*points[side]), *points[side]);
      }
    }
    join.watermark_ms.push_back(
        std::max(join.watermark_ms.back(), combined.value_or(join.watermark_ms.back())));
  }
  join.no_data_batch = join.watermark_ms[static_cast<size_t>(join.data_batches)] >
                       join.watermark_ms[static_cast<size_t>(join.data_batches - 1)];
  return join;
}

const char* SeedsOverride() {
  const char* text = std::getenv("STATEFUL_DIFF_SEEDS");
  return text == nullptr || *text == '\0' ? nullptr : text;
}

/// Seeds from STATEFUL_DIFF_SEEDS (comma separated) or `defaults`.
std::vector<uint64_t> Seeds(std::vector<uint64_t> defaults) {
  const char* text = SeedsOverride();
  if (text == nullptr) {
    return defaults;
  }
  std::vector<uint64_t> seeds;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    seeds.push_back(std::stoull(item));
  }
  return seeds;
}

/// "" when the sorted `got` equals the sorted `want`; else the lines missing and unexpected.
std::string Difference(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  std::vector<std::string> missing;
  std::vector<std::string> unexpected;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(unexpected));
  std::string text;
  for (const std::string& line : missing) {
    text += "\n  missing:    " + line;
  }
  for (const std::string& line : unexpected) {
    text += "\n  unexpected: " + line;
  }
  return text;
}

/// What a query emitted: each batch's rows as JSON lines (sorted), and its progress.
struct Emitted {
  std::map<int64_t, std::vector<std::string>> batches;
  std::vector<StreamingQueryProgress> progress;
};

/// A windowed aggregation's parameters.
struct WindowSpec {
  int64_t size_seconds = 60;
  int64_t slide_seconds = 60;
};

// The window starts (microseconds) of an event time, found by trying every slide step near it.
std::vector<int64_t> WindowStarts(int64_t ts, const WindowSpec& spec) {
  const int64_t size = spec.size_seconds * kSecond;
  const int64_t slide = spec.slide_seconds * kSecond;
  std::vector<int64_t> starts;
  for (int64_t start = (ts / slide - size / slide - 1) * slide; start <= ts; start += slide) {
    if (ts < start + size) {
      starts.push_back(start);
    }
  }
  return starts;
}

class StatefulDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().Warehouse(dir_.Join("warehouse")).TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  }

  /// Writes the scenario's files into a fresh input directory (modification times in file
  /// order, so the source takes them in that order) and returns the streaming DataFrame.
  DataFrame Stream(const Scenario& scenario, const std::string& name) {
    const std::string input = dir_.Join(name + "/in");
    WriteFiles(scenario, input);
    return session_->ReadStream()
        .Format("json")
        .Schema(kEventsDdl)
        .Option("maxFilesPerTrigger", std::to_string(scenario.max_files))
        .Load(input);
  }

  static void WriteFiles(const Scenario& scenario, const std::string& input) {
    std::filesystem::create_directories(input);
    const auto newest = std::filesystem::file_time_type::clock::now();
    size_t at = 0;
    const auto files = static_cast<int64_t>(scenario.file_sizes.size());
    for (int64_t f = 0; f < files; ++f) {
      const std::string path = fmt::format("{}/f{:05}.json", input, f);
      {
        std::ofstream out(path);
        for (int i = 0; i < scenario.file_sizes[static_cast<size_t>(f)]; ++i, ++at) {
          out << EventJson(scenario.events[at]) << "\n";
        }
      }
      std::filesystem::last_write_time(path, newest - std::chrono::seconds(files - f));
    }
  }

  /// Runs `frame` to completion with Trigger.AvailableNow into foreachBatch.
  Result<Emitted> Run(const DataFrame& frame, const std::string& mode, const std::string& name) {
    auto emitted = std::make_shared<Emitted>();
    TRIBUTARY_ASSIGN_OR_RAISE(
        StreamingQuery query,
        frame.WriteStream()
            .OutputMode(mode)
            .Option("checkpointLocation", dir_.Join(name + "/cp"))
            .Trigger(Trigger::AvailableNow())
            .ForeachBatch([emitted](const DataFrame& batch, int64_t batch_id) -> tributary::Status {
              TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, batch.Collect());
              emitted->batches[batch_id] = testing::SortedJson(rows);
              return tributary::Status::OK();
            })
            .Start());
    TRIBUTARY_RETURN_NOT_OK(query.AwaitTermination());
    emitted->progress = query.RecentProgress();
    return *emitted;
  }

  /// The engine read the files in the batches the scenario planned, with its watermarks.
  static void ExpectBatching(const Scenario& scenario, const Emitted& emitted) {
    ASSERT_EQ(static_cast<int>(emitted.progress.size()), scenario.Batches());
    for (int batch = 0; batch < scenario.Batches(); ++batch) {
      const StreamingQueryProgress& progress = emitted.progress[static_cast<size_t>(batch)];
      EXPECT_EQ(progress.batch_id, batch);
      const auto rows = std::count_if(scenario.events.begin(), scenario.events.end(),
                                      [&](const Event& e) { return e.batch == batch; });
      EXPECT_EQ(progress.num_input_rows, rows) << "batch " << batch;
      const auto watermark = progress.event_time.find("watermark");
      if (watermark != progress.event_time.end()) {
        EXPECT_EQ(watermark->second, IsoMillis(scenario.watermark_ms[static_cast<size_t>(batch)]))
            << "batch " << batch;
      }
    }
  }

  /// The rows for DuckDB: each event with `late`, the epoch microseconds of the windows (or,
  /// for a deduplication, the event times) the watermark dropped.
  std::string WriteOracleRows(const Scenario& scenario, const std::string& name,
                              const std::function<std::vector<int64_t>(const Event&)>& late) {
    std::string path = dir_.Join(name + "/oracle_rows.json");
    std::ofstream out(path);
    for (const Event& event : scenario.events) {
      std::string text = EventJson(event);
      text.pop_back();
      text += R"(,"late":[)";
      const std::vector<int64_t> dropped = late(event);
      for (size_t i = 0; i < dropped.size(); ++i) {
        if (i > 0) {
          text += ',';
        }
        text += std::to_string(dropped[i]);
      }
      out << text << "]}\n";
    }
    return path;
  }

  static std::string OracleRows(const std::string& path) {
    return "(SELECT seq, country, ts::TIMESTAMPTZ AS ts, v, b, late FROM read_json('" + path +
           "', columns={seq: 'BIGINT', country: 'VARCHAR', ts: 'VARCHAR', v: 'BIGINT', "
           "b: 'BIGINT', late: 'BIGINT[]'}))";
  }

  /// Windowed count/sum/avg/min/max by window and country in `mode`: every batch's output
  /// against DuckDB over the rows the watermark kept.
  void CheckWindowedAggregation(uint64_t seed, const WindowSpec& spec, const std::string& mode) {
    const std::string name =
        fmt::format("{}_{}s_{}s_{}", mode, spec.size_seconds, spec.slide_seconds, seed);
    SCOPED_TRACE(fmt::format("{}: rerun with STATEFUL_DIFF_SEEDS={}", name, seed));
    Scenario scenario = MakeScenario(seed, Shape{});
    // Only append and update mode evict, so only they run a batch for a moved watermark.
    scenario.no_data_batch = scenario.no_data_batch && mode != "complete";
    const DataFrame windowed =
        Stream(scenario, name)
            .WithWatermark("ts", scenario.Delay())
            .GroupBy({Window(Col("ts"), fmt::format("{} seconds", spec.size_seconds),
                             fmt::format("{} seconds", spec.slide_seconds)),
                      Col("country")})
            .Agg({Count().Alias("n"), Count(Col("v")).Alias("nv"), Sum(Col("v")).Alias("s"),
                  Avg(Col("v")).Alias("a"), Min(Col("v")).Alias("lo"), Max(Col("v")).Alias("hi")})
            .Select({Col("window.start").Alias("start"), Col("window.end").Alias("end"),
                     Col("country"), Col("n"), Col("nv"), Col("s"), Col("a"), Col("lo"),
                     Col("hi")});
    ASSERT_OK_AND_ASSIGN(Emitted emitted, Run(windowed, mode, name));
    ExpectBatching(scenario, emitted);

    // Append and update drop a row's window when its end is at or below the previous batch's
    // watermark; complete mode keeps everything.
    const int64_t size = spec.size_seconds * kSecond;
    const std::string rows = OracleRows(WriteOracleRows(scenario, name, [&](const Event& event) {
      std::vector<int64_t> late;
      const std::optional<int64_t> watermark = scenario.LateWatermarkMicros(event.batch);
      if (mode != "complete" && watermark) {
        for (const int64_t start : WindowStarts(event.ts, spec)) {
          edges_ += start + size == *watermark ? 1 : 0;
          if (start + size <= *watermark) {
            late.push_back(start);
          }
        }
      }
      return late;
    }));
    const std::string windows = fmt::format(
        "(SELECT r.*, time_bucket(INTERVAL {0} SECOND, r.ts) - to_seconds(k * {0}) AS start "
        "FROM {1} r, range({2}) t(k))",
        spec.slide_seconds, rows, spec.size_seconds / spec.slide_seconds);
    // The batch result over the kept rows of batches up to `upto` (all when unset); with
    // `changed`, only the groups a kept row of batch `upto` touched.
    const auto batch_query = [&](std::optional<int64_t> upto, bool changed) {
      return fmt::format(
          "SELECT start, start + INTERVAL {} SECOND AS \"end\", country, count(*)::BIGINT AS n, "
          "count(v)::BIGINT AS nv, sum(v)::BIGINT AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi "
          "FROM {} WHERE NOT list_contains(late, epoch_us(start)){} GROUP BY start, country{}",
          spec.size_seconds, windows, upto ? fmt::format(" AND b <= {}", *upto) : "",
          changed ? fmt::format(" HAVING bool_or(b = {})", *upto) : "");
    };

    std::map<int64_t, std::vector<std::string>> expected;
    if (mode == "append") {
      // Each window once, in the first batch whose watermark reaches its end, with the
      // result over all its kept rows.
      ASSERT_OK_AND_ASSIGN(std::vector<std::string> result,
                           testing::OracleQuery(batch_query(std::nullopt, false)));
      for (const std::string& line : result) {
        const int64_t end = ParseIsoMicros(nlohmann::json::parse(line)["end"].get<std::string>());
        for (int64_t batch = 0; batch < scenario.Batches(); ++batch) {
          if (end <= scenario.EvictionWatermarkMicros(batch)) {
            expected[batch].push_back(line);
            break;
          }
        }
      }
    } else {
      std::vector<std::string> queries;
      for (int64_t batch = 0; batch < scenario.data_batches; ++batch) {
        queries.push_back(batch_query(batch, mode == "update"));
      }
      ASSERT_OK_AND_ASSIGN(auto results, testing::OracleQueryMany(queries));
      for (int64_t batch = 0; batch < scenario.data_batches; ++batch) {
        ASSERT_OK(results[static_cast<size_t>(batch)].status());
        expected[batch] = *results[static_cast<size_t>(batch)];
      }
      // A no-data batch changes no group; in complete mode it repeats the whole result.
      if (scenario.no_data_batch && mode == "complete") {
        expected[scenario.data_batches] = expected[scenario.data_batches - 1];
      }
    }
    size_t emitted_rows = 0;
    for (int64_t batch = 0; batch < scenario.Batches(); ++batch) {
      std::vector<std::string>& want = expected[batch];
      std::sort(want.begin(), want.end());
      const std::vector<std::string>& got = emitted.batches[batch];
      emitted_rows += got.size();
      EXPECT_EQ(Difference(got, want), "") << "batch " << batch << " of " << scenario.Batches();
    }
    // The scenario must exercise something: rows emitted, and (append, update) rows dropped.
    EXPECT_GT(emitted_rows, 0U);
  }

  /// dropDuplicates over (country, ts) with a watermark on ts: what each batch emits against
  /// DuckDB's distinct keys over the rows that were not late, each in the first batch that
  /// had one.
  void CheckDropDuplicates(uint64_t seed) {
    const std::string name = fmt::format("dedup_{}", seed);
    SCOPED_TRACE(fmt::format("{}: rerun with STATEFUL_DIFF_SEEDS={}", name, seed));
    Shape shape;
    shape.keys = 3;
    shape.span_seconds = 300;
    shape.copy_fraction = 0.3;
    shape.sub_second = false;
    const Scenario scenario = MakeScenario(seed, shape);
    const DataFrame deduplicated = Stream(scenario, name)
                                       .WithWatermark("ts", scenario.Delay())
                                       .DropDuplicates({"country", "ts"});
    ASSERT_OK_AND_ASSIGN(Emitted emitted, Run(deduplicated, "append", name));
    ExpectBatching(scenario, emitted);

    std::vector<int64_t> late_per_batch(static_cast<size_t>(scenario.Batches()), 0);
    const auto is_late = [&](const Event& event) {
      const std::optional<int64_t> watermark = scenario.LateWatermarkMicros(event.batch);
      return watermark && event.ts <= *watermark;
    };
    const auto at_edge = [&](const Event& event) {
      const std::optional<int64_t> watermark = scenario.LateWatermarkMicros(event.batch);
      return watermark && event.ts == *watermark;
    };
    const std::string rows = OracleRows(WriteOracleRows(scenario, name, [&](const Event& event) {
      edges_ += at_edge(event) ? 1 : 0;
      if (is_late(event)) {
        ++late_per_batch[static_cast<size_t>(event.batch)];
        return std::vector<int64_t>{event.ts};
      }
      return std::vector<int64_t>{};
    }));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> distinct,
                         testing::OracleQuery("SELECT country, ts, min(b) AS b FROM " + rows +
                                              " WHERE NOT list_contains(late, epoch_us(ts)) "
                                              "GROUP BY country, ts"));
    std::sort(distinct.begin(), distinct.end());
    // Each emitted row is a kept input row of the batch that emitted it; without its seq and
    // value, the rows are DuckDB's distinct keys with their first batch.
    std::vector<std::string> keys;
    for (const auto& [batch, lines] : emitted.batches) {
      for (const std::string& line : lines) {
        auto row = nlohmann::ordered_json::parse(line);
        const Event& event = scenario.events.at(row["seq"].get<size_t>());
        EXPECT_EQ(line, EventJson(event)) << "emitted row is not input row " << event.seq;
        EXPECT_EQ(event.batch, batch) << line;
        EXPECT_FALSE(is_late(event)) << line;
        row.erase("seq");
        row.erase("v");
        keys.push_back(row.dump());
      }
    }
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(Difference(keys, distinct), "");
    EXPECT_GT(keys.size(), 0U);
    for (int64_t batch = 0; batch < scenario.Batches(); ++batch) {
      const StreamingQueryProgress& progress = emitted.progress[static_cast<size_t>(batch)];
      ASSERT_EQ(progress.state_operators.size(), 1U);
      EXPECT_EQ(progress.state_operators[0].num_rows_dropped_by_watermark,
                late_per_batch[static_cast<size_t>(batch)])
          << "batch " << batch;
    }
  }

  /// dropDuplicatesWithinWatermark by country: replayed here batch by batch. A key passes its
  /// first kept row while it is not in state; it stays in state until the watermark reaches
  /// that row's event time + the delay. Within one batch any of a key's kept rows may be the
  /// one that passes (rows of a batch have no order), so the replay takes the engine's pick
  /// after checking it is one of them.
  void CheckDropDuplicatesWithinWatermark(uint64_t seed) {
    const std::string name = fmt::format("within_{}", seed);
    SCOPED_TRACE(fmt::format("{}: rerun with STATEFUL_DIFF_SEEDS={}", name, seed));
    Shape shape;
    shape.keys = 6;
    shape.copy_fraction = 0.2;
    const Scenario scenario = MakeScenario(seed, shape);
    const DataFrame deduplicated = Stream(scenario, name)
                                       .WithWatermark("ts", scenario.Delay())
                                       .DropDuplicatesWithinWatermark({"country"});
    ASSERT_OK_AND_ASSIGN(Emitted emitted, Run(deduplicated, "append", name));
    ExpectBatching(scenario, emitted);

    const int64_t delay = scenario.delay_seconds * kSecond;
    std::map<std::string, int64_t> expires;  // the state: country -> expiresAtMicros
    int64_t passed = 0;
    int64_t reentered = 0;
    std::set<std::string> ever;
    for (int64_t batch = 0; batch < scenario.Batches(); ++batch) {
      SCOPED_TRACE(fmt::format("batch {}", batch));
      const std::optional<int64_t> late = scenario.LateWatermarkMicros(batch);
      std::map<std::string, std::set<int64_t>> candidates;  // new keys -> their kept rows
      for (const Event& event : scenario.events) {
        if (event.batch == batch && !(late && event.ts <= *late) &&
            !expires.contains(event.country)) {
          candidates[event.country].insert(event.seq);
        }
      }
      std::set<std::string> passed_keys;
      for (const std::string& line : emitted.batches[batch]) {
        const auto row = nlohmann::json::parse(line);
        const Event& event = scenario.events.at(row["seq"].get<size_t>());
        EXPECT_EQ(line, EventJson(event));
        const auto it = candidates.find(event.country);
        if (it == candidates.end() || !it->second.contains(event.seq)) {
          ADD_FAILURE() << "row " << line << " passed, but its key is in state or it is late";
          continue;
        }
        EXPECT_TRUE(passed_keys.insert(event.country).second) << "second row of key " << line;
        expires[event.country] = event.ts + delay;
        ++passed;
        reentered += ever.contains(event.country) ? 1 : 0;
        ever.insert(event.country);
      }
      for (const auto& [country, rows] : candidates) {
        EXPECT_TRUE(passed_keys.contains(country))
            << "no row of new key " << country << " passed (" << rows.size() << " kept rows)";
      }
      std::erase_if(expires, [&](const auto& entry) {
        return entry.second <= scenario.EvictionWatermarkMicros(batch);
      });
    }
    // The scenario exercises expiry: some key passes again after its state was evicted.
    EXPECT_GT(passed, 0);
    EXPECT_GT(reentered, 0);
  }

  /// A stream-stream join `how` ("INNER", "LEFT OUTER", "RIGHT OUTER", "FULL OUTER") on the key
  /// and `r.ts BETWEEN l.ts AND l.ts + 1 minute`, in SQL: the pairs against DuckDB's join of
  /// the rows the watermark kept, each in the batch of its later row; each kept row of an outer
  /// side without a pair once, with NULLs, in the first batch whose state watermark reaches it
  /// (left: the watermark - 1 minute - 1 ms, right: the watermark - 1 ms, by the range).
  void CheckTimeRangeJoin(uint64_t seed, const std::string& how) {
    std::string name = fmt::format("join_{}_{}", how.substr(0, how.find(' ')), seed);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    SCOPED_TRACE(fmt::format("{}: rerun with STATEFUL_DIFF_SEEDS={}", name, seed));
    const JoinScenario join = MakeJoinScenario(seed);
    const Scenario* sides[2] = {&join.left, &join.right};
    std::string streams[2];
    std::string kept_rows[2];
    std::vector<Event> kept[2];
    for (int side = 0; side < 2; ++side) {
      const std::string label = side == 0 ? "left" : "right";
      const std::string input = dir_.Join(fmt::format("{}/{}", name, label));
      WriteFiles(*sides[side], input);
      streams[side] = fmt::format(
          "STREAM read_files('{}', format => 'json', schema => '{}', maxFilesPerTrigger => {}) "
          "WATERMARK ts DELAY OF INTERVAL {} SECONDS AS {}",
          input, kEventsDdl, sides[side]->max_files, sides[side]->delay_seconds,
          side == 0 ? "l" : "r");
      Scenario survivors = *sides[side];
      std::erase_if(survivors.events, [&](const Event& event) {
        const std::optional<int64_t> late = join.LateWatermarkMicros(event.batch);
        edges_ += late && event.ts == *late ? 1 : 0;
        return late && event.ts <= *late;
      });
      kept[side] = survivors.events;
      const std::string oracle = fmt::format("{}/oracle_{}", name, label);
      std::filesystem::create_directories(dir_.Join(oracle));
      kept_rows[side] = OracleRows(
          WriteOracleRows(survivors, oracle, [](const Event&) { return std::vector<int64_t>{}; }));
    }
    const std::string columns =
        "l.seq AS lseq, l.country AS lk, l.ts AS lts, l.b AS lb, r.seq AS rseq, "
        "r.country AS rk, r.ts AS rts, r.b AS rb";
    // A SQL pipeline (STREAM reads with WATERMARK clauses, Spark's time-range condition),
    // run to completion (available-now); per batch its Delta sink's progress says how many
    // rows it wrote.
    const std::string table = name;
    const std::string sql = fmt::format(
        "CREATE OR REFRESH STREAMING TABLE {} AS SELECT {} FROM {} {} JOIN {} ON l.country = "
        "r.country AND r.ts BETWEEN l.ts AND l.ts + INTERVAL {} SECONDS;",
        table, columns, streams[0], how, streams[1], kJoinRangeSeconds);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Pipeline> pipeline,
                         Pipeline::Parse(session_, sql, PipelineOptions()));
    std::vector<StreamingQueryProgress> progress;
    pipeline->OnEvent([&progress](const PipelineEvent& event) {
      if (event.kind == PipelineEvent::Kind::kBatch) {
        progress.push_back(*event.progress);
      }
    });
    ASSERT_OK(pipeline->Run());
    ASSERT_EQ(static_cast<int>(progress.size()), join.Batches());
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Table(table).Collect());

    ASSERT_OK_AND_ASSIGN(
        std::vector<std::string> pairs,
        testing::OracleQuery(fmt::format(
            "SELECT {} FROM {} l JOIN {} r ON l.country = r.country AND r.ts BETWEEN l.ts AND "
            "l.ts + INTERVAL {} SECOND",
            columns, kept_rows[0], kept_rows[1], kJoinRangeSeconds)));
    std::map<int64_t, std::vector<std::string>> expected;
    std::set<int64_t> paired[2];
    for (const std::string& line : pairs) {
      const auto row = nlohmann::json::parse(line);
      paired[0].insert(row["lseq"].get<int64_t>());
      paired[1].insert(row["rseq"].get<int64_t>());
      expected[std::max(row["lb"].get<int64_t>(), row["rb"].get<int64_t>())].push_back(line);
    }
    const bool outer[2] = {how == "LEFT OUTER" || how == "FULL OUTER",
                           how == "RIGHT OUTER" || how == "FULL OUTER"};
    int64_t unmatched = 0;
    for (int side = 0; side < 2; ++side) {
      if (!outer[side]) {
        continue;
      }
      // The side's state watermark: the query's - the range on the left; for an inclusive
      // bound (BETWEEN) one millisecond lower, as Spark's StreamingJoinHelper makes it.
      const int64_t below = (side == 0 ? kJoinRangeSeconds * kSecond : 0) + 1000;
      for (const Event& event : kept[side]) {
        if (paired[side].contains(event.seq)) {
          continue;
        }
        for (int64_t batch = event.batch; batch < join.Batches(); ++batch) {
          if (event.ts <= join.WatermarkMicros(batch) - below) {
            // This side's columns with the row's values, the other side's NULL.
            const auto columns_of = [&](const char* prefix, bool null) {
              if (null) {
                return fmt::format(R"("{0}seq":null,"{0}k":null,"{0}ts":null,"{0}b":null)", prefix);
              }
              return fmt::format(R"("{0}seq":{1},"{0}k":"{2}","{0}ts":"{3}","{0}b":{4})", prefix,
                                 event.seq, event.country, IsoMicros(event.ts), event.batch);
            };
            const std::string line =
                "{" + columns_of("l", side != 0) + "," + columns_of("r", side != 1) + "}";
            expected[batch].push_back(line);
            ++unmatched;
            break;
          }
        }
      }
    }
    std::vector<std::string> all;
    for (int64_t batch = 0; batch < join.Batches(); ++batch) {
      const std::vector<std::string>& want = expected[batch];
      all.insert(all.end(), want.begin(), want.end());
      EXPECT_EQ(progress[static_cast<size_t>(batch)].sink.num_output_rows,
                static_cast<int64_t>(want.size()))
          << "batch " << batch << " of " << join.Batches();
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(Difference(testing::SortedJson(rows), all), "");
    EXPECT_GT(pairs.size(), 0U);
    if (outer[0] || outer[1]) {
      EXPECT_GT(unmatched, 0);
    }
  }

  /// The default seeds were picked so that some row (window) of theirs sits exactly at the
  /// late-row watermark.
  void ExpectEdgesCovered() const {
    if (SeedsOverride() == nullptr) {
      EXPECT_GT(edges_, 0) << "no row's time (window end) equals the watermark it is judged by";
    }
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_;
  /// Rows (or a row's windows) whose event time (window end) equals the late-row watermark.
  int64_t edges_ = 0;
};

constexpr WindowSpec kTumbling{60, 60};
constexpr WindowSpec kSliding{60, 20};

TEST_F(StatefulDifferentialTest, AppendModeEmitsEachClosedWindowOnceWithItsBatchResult) {
  for (const uint64_t seed : Seeds({1, 6, 26, 64})) {
    CheckWindowedAggregation(seed, kTumbling, "append");
  }
  ExpectEdgesCovered();
}

TEST_F(StatefulDifferentialTest, UpdateModeEmitsEachChangedGroupWithItsResultSoFar) {
  for (const uint64_t seed : Seeds({3, 5, 34, 62})) {
    CheckWindowedAggregation(seed, kTumbling, "update");
  }
  ExpectEdgesCovered();
}

TEST_F(StatefulDifferentialTest, CompleteModeEmitsTheWholeResultSoFarEveryBatch) {
  for (const uint64_t seed : Seeds({9, 10, 11})) {
    CheckWindowedAggregation(seed, kTumbling, "complete");
  }
}

// A sliding window() of a watermarked column carries the watermark (Spark's TimeWindowing):
// a row is late per window, by each window's end, and append mode emits each closed window once.
TEST_F(StatefulDifferentialTest, SlidingWindowsDropLateRowsPerWindowInEveryMode) {
  for (const uint64_t seed : Seeds({101, 102})) {
    for (const char* mode : {"append", "update", "complete"}) {
      CheckWindowedAggregation(seed, kSliding, mode);
    }
  }
}

TEST_F(StatefulDifferentialTest, DropDuplicatesPassesTheDistinctKeptKeysOnce) {
  for (const uint64_t seed : Seeds({14, 22, 58, 68})) {
    CheckDropDuplicates(seed);
  }
  ExpectEdgesCovered();
}

TEST_F(StatefulDifferentialTest, DropDuplicatesWithinWatermarkPassesAKeyAgainAfterItExpires) {
  for (const uint64_t seed : Seeds({21, 22, 23, 24})) {
    CheckDropDuplicatesWithinWatermark(seed);
  }
}

TEST_F(StatefulDifferentialTest, InnerTimeRangeJoinEmitsEachPairOfKeptRowsOnce) {
  for (const uint64_t seed : Seeds({31, 32, 48, 68})) {
    CheckTimeRangeJoin(seed, "INNER");
  }
  ExpectEdgesCovered();
}

TEST_F(StatefulDifferentialTest, OuterTimeRangeJoinsEmitEachUnmatchedKeptRowOnce) {
  for (const uint64_t seed : Seeds({41, 42, 43, 44})) {
    CheckTimeRangeJoin(seed, "LEFT OUTER");
    CheckTimeRangeJoin(seed + 10, "RIGHT OUTER");
    CheckTimeRangeJoin(seed + 20, "FULL OUTER");
  }
  ExpectEdgesCovered();
}

}  // namespace
}  // namespace tributary

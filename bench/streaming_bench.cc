// Streaming benchmarks (issue 7), through the public API as a user's program runs a stream:
//
//   streaming_bench latency --dir DIR [--batches N]
//     Micro-batch overhead. A JSON file stream -> Delta sink query with the default trigger
//     (next batch as soon as the last ends) runs over DIR/in; N times (Default: 500), after 10
//     untimed warm-up rounds, one small new file (8 rows) appears in DIR/in (written under a
//     hidden name, then renamed, so the source never lists a half-written file) and the time
//     until the listener sees that batch's progress record (sent after commits/<N>, i.e. once
//     the batch is committed to the table and the checkpoint) is recorded. Prints p50, p90,
//     p99 and max, and the median of each durationMs phase; the rest of a latency is the wait
//     for the next trigger (spark.sql.streaming.pollingDelay, 10 ms, when a trigger found no
//     data). Checks that the table holds every row once.
//
//   streaming_bench generate --dir DIR [--rows R] [--files F]
//     Writes the log-shaped NDJSON data set of the throughput case, R rows (Default: 1000000)
//     in F files (Default: 100) DIR/logs/part-<i>.json, from a fixed seed: ts, user_id, status
//     (about 40% 'active'), country, latency_ms, path, bytes.
//
//   streaming_bench throughput --dir DIR [--repetitions R]
//     Stateless throughput. JSON -> Filter(status = 'active') -> Delta with an explicit schema
//     and Trigger::AvailableNow(), R times (Default: 5) into a fresh table and checkpoint under
//     DIR, after one untimed warm-up run; prints one JSON object: times_ms, median_ms,
//     rows_in, rows_out (the sink's numOutputRows) and the table of the last run
//     (DIR/tributary_table), which bench/duckdb_streaming.mjs counts independently.
//
//   streaming_bench window --dir DIR [--repetitions R]
//     Stateful throughput. The same files -> WithWatermark("ts", "1 minute") -> GroupBy(
//     window(ts, '1 minute'), country) -> count, avg(latency_ms) -> Delta in append mode with
//     Trigger::AvailableNow(): one batch aggregates every row into the RocksDB state store, a
//     no-data batch then writes the windows the watermark closed. Same runs and JSON as
//     throughput (rows_out: the windows written; table DIR/tributary_window_table).
//
//   streaming_bench pipeline --dir DIR [--repetitions R]
//     The reference pipeline of issue 8 (the README's main job) over DIR/logs:
//       CREATE OR REFRESH STREAMING TABLE raw_logs AS SELECT * FROM STREAM read_files(
//         'DIR/logs', format => 'json', inferColumnTypes => true);
//       CREATE OR REFRESH STREAMING TABLE gold_active_logs AS
//         SELECT * FROM STREAM(raw_logs) WHERE status = 'active';
//     run by tributary::Pipeline with Trigger::AvailableNow() (what `tributary run` does), R
//     times (Default: 5) into a fresh warehouse DIR/pipeline_warehouse, after one untimed
//     warm-up run: each run parses the file, creates both tables, infers and stores the
//     schema, ingests every file into raw_logs and streams raw_logs into gold_active_logs.
//     Prints one JSON object: times_ms, median_ms, cpu_ms (process CPU of the median run),
//     rows_in (raw_logs' input rows), rows_out (gold_active_logs' output rows), and the gold
//     table of the last run, which bench/duckdb_streaming.mjs counts independently.
//     With BENCH_PHASES set in the environment it also prints each micro-batch's table and
//     durationMs phases on stderr, to tell the bronze and gold streams' times apart.
//
//   streaming_bench pipeline --dir DIR --s3 s3://BUCKET/PREFIX [--repetitions R]
//     The same pipeline entirely on S3 (the server and credentials from the AWS_* variables,
//     as `tributary run` finds them): DIR/logs is uploaded once to PREFIX/logs, and each run
//     writes a fresh warehouse PREFIX/pipeline_warehouse. The JSON adds `batches` (the
//     micro-batches of both tables in the median run) and `requests` (that run's LIST, GET,
//     PUT and DELETE requests and bytes, from the progress records' storageRequests).
//
//   streaming_bench generate-join --dir DIR [--rows R] [--files F]
//     Writes the join case's data: R impressions (Default: 1000000) and R clicks in F files
//     each (Default: 100), DIR/impressions and DIR/clicks (see GenerateJoin).
//
//   streaming_bench generate-nested --dir DIR [--rows R] [--files F]
//     Writes the nested case's data (see NestedLogLine): R log records (Default: 1000000) in F
//     files (Default: 4, about 70 MB each) DIR/nested/part-<i>.json, from a fixed seed: the
//     flat case's fields, a `tags` array and a `payload` object per record, an `error` object
//     on failed requests, one line in about a thousand malformed, and a `region` field only
//     in the last file.
//
//   streaming_bench nested --dir DIR [--repetitions R]
//     A one-table Auto Loader pipeline over DIR/nested, as real logs arrive:
//       CREATE OR REFRESH STREAMING TABLE active_events AS SELECT * FROM STREAM read_files(
//         'DIR/nested', format => 'json', inferColumnTypes => true) WHERE status = 'active';
//     run as the pipeline case runs (schema inference included, malformed lines rescued), R
//     times (Default: 5); prints the pipeline case's JSON (table DIR/nested_warehouse/
//     active_events).
//
//   streaming_bench join --dir DIR [--repetitions R]
//     Stream-stream join throughput: the SQL pipeline of JoinPipeline (clicks joined with
//     their impression within 10 minutes, both streams with watermarks, 10 files of each per
//     micro-batch, state in RocksDB) run as the pipeline case runs, R times (Default: 5);
//     prints the pipeline case's JSON (rows_in: both streams' rows; rows_out: the joined rows
//     written; table DIR/join_warehouse/ad_clicks).
//
// Exit code 1 on any error or a wrong row count; speed never fails the program.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "bench_util.h"
#include "storage/local_path.h"
#include "storage/path.h"
#include "storage/uri_file_system.h"
#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using bench::IntOption;
using bench::LogLine;
using bench::ParseOptions;
using bench::Percentile;
using Clock = std::chrono::steady_clock;

constexpr const char* kSchema =
    "ts TIMESTAMP, user_id BIGINT, status STRING, country STRING, latency_ms DOUBLE, "
    "path STRING, bytes BIGINT";

int Fail(const std::string& message) {
  std::fprintf(stderr, "streaming_bench: %s\n", message.c_str());
  return 1;
}

Result<std::shared_ptr<Session>> MakeSession() {
  return Session::Builder().TimeZone("UTC").Warehouse("/nonexistent-warehouse").Build();
}

// Writes R rows in F files DIR/part-<i>.json, line(rng, row, file) each, from `seed`.
template <typename MakeLine>
int WriteLineFiles(const std::string& dir, int64_t rows, int64_t files, uint64_t seed,
                   MakeLine line) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(seed);
  int64_t i = 0;
  for (int64_t f = 0; f < files; ++f) {
    const std::string path = fmt::format("{}/part-{:03}.json", dir, f);
    std::ofstream out(path, std::ios::binary);
    for (const int64_t end = rows * (f + 1) / files; i < end; ++i) {
      out << line(rng, i, f) << '\n';
    }
    if (!out) {
      return Fail("cannot write " + path);
    }
  }
  return 0;
}

int Generate(const std::string& dir, int64_t rows, int64_t files) {
  return WriteLineFiles(dir + "/logs", rows, files, 20261129,
                        [](std::mt19937_64& rng, int64_t i, int64_t) { return LogLine(rng, i); });
}

// A log record as services write them: the flat case's fields, then a `tags` array (zero to
// three tags) and a `payload` object (method, status code, session), an `error` object when
// the code is 500 (about one record in seven), a `region` when
// `with_region` (a field that appears in later files), and, for about one record in a
// thousand, a line cut short (a writer killed mid-line) inside its path.
std::string NestedLogLine(std::mt19937_64& rng, int64_t i, bool with_region) {
  static constexpr const char* kTags[] = {"apac", "cached", "mobile", "retry", "beta", "emea"};
  static constexpr const char* kMethods[] = {"GET", "GET", "POST", "PUT", "DELETE"};
  static constexpr int kCodes[] = {200, 200, 200, 201, 304, 404, 500};
  static constexpr const char* kRegions[] = {"us-east-1", "eu-west-1", "ap-south-1"};
  std::string line = LogLine(rng, i);
  line.pop_back();  // the closing brace
  line += ",\"tags\":[";
  const uint64_t tags = rng() % 4;
  for (uint64_t t = 0; t < tags; ++t) {
    line += fmt::format("{}\"{}\"", t > 0 ? "," : "", kTags[rng() % 6]);
  }
  const int code = kCodes[rng() % 7];
  line += fmt::format(R"(],"payload":{{"method":"{}","code":{},"session":"s-{}"}})",
                      kMethods[rng() % 5], code, rng() % 100000);
  if (code >= 500) {
    // Only failed requests carry an error object: records of two shapes, mixed.
    line += fmt::format(R"(,"error":{{"type":"{}","retryable":{}}})",
                        rng() % 2 == 0 ? "upstream_timeout" : "connection_reset",
                        rng() % 3 == 0 ? "false" : "true");
  }
  if (with_region) {
    line += fmt::format(R"(,"region":"{}")", kRegions[rng() % 3]);
  }
  line += '}';
  if (rng() % 1000 == 0) {
    // Cut inside the path's string: a line cut between a key and its value is read by DuckDB's
    // ignore_errors together with the next line (which it then loses), so the check of equal
    // rows would fail on DuckDB's side.
    line.resize(line.find(R"("path":")") + 10);
  }
  return line;
}

int GenerateNested(const std::string& dir, int64_t rows, int64_t files) {
  return WriteLineFiles(dir + "/nested", rows, files, 20261203,
                        [files](std::mt19937_64& rng, int64_t i, int64_t f) {
                          return NestedLogLine(rng, i, /*with_region=*/f == files - 1);
                        });
}

// The join case's data: R impressions (ad_id i, one every 211 ms from 2025-11-29, a campaign)
// and R clicks, each on one of the 4 latest ads (so some ads get several clicks and some none)
// 0 to 15 minutes after its impression (so about two in three fall in the 10-minute bound), in
// F files each, DIR/impressions/part-<i>.json and DIR/clicks/part-<i>.json, in event-time order
// across files (no row is late for the watermarks of JoinPipeline).
int GenerateJoin(const std::string& dir, int64_t rows, int64_t files) {
  std::filesystem::create_directories(dir + "/impressions");
  std::filesystem::create_directories(dir + "/clicks");
  std::mt19937_64 rng(20261202);
  const auto timestamp = [](int64_t micros) {
    const int64_t seconds = micros / 1000000;
    return fmt::format("2025-11-{:02}T{:02}:{:02}:{:02}.{:06}Z", 1 + seconds / 86400 % 28,
                       seconds / 3600 % 24, seconds / 60 % 60, seconds % 60, micros % 1000000);
  };
  const auto impression_micros = [](int64_t ad) {
    return 1764374400000000LL + ad * 211000;
  };
  int64_t i = 0;
  for (int64_t f = 0; f < files; ++f) {
    const std::string impressions = fmt::format("{}/impressions/part-{:03}.json", dir, f);
    const std::string clicks = fmt::format("{}/clicks/part-{:03}.json", dir, f);
    std::ofstream impression_out(impressions, std::ios::binary);
    std::ofstream click_out(clicks, std::ios::binary);
    for (const int64_t end = rows * (f + 1) / files; i < end; ++i) {
      impression_out << fmt::format(R"({{"ad_id":{},"impression_time":"{}","campaign":"c{}"}})", i,
                                    timestamp(impression_micros(i)), rng() % 500)
                     << '\n';
      const int64_t ad = std::max<int64_t>(0, i - static_cast<int64_t>(rng() % 4));
      const int64_t delay = static_cast<int64_t>(rng() % 900000000ULL);  // 15 minutes
      static constexpr const char* kCountry[] = {"US", "DE", "FR", "BR", "IN", "JP", "GB", "NG"};
      click_out << fmt::format(R"({{"click_ad_id":{},"click_time":"{}","country":"{}"}})", ad,
                               timestamp(impression_micros(ad) + delay), kCountry[rng() % 8])
                << '\n';
    }
    if (!impression_out || !click_out) {
      return Fail(fmt::format("cannot write {} or {}", impressions, clicks));
    }
  }
  return 0;
}

// Wakes the timing loop when a batch's progress record arrives.
class CommitWaiter final : public StreamingQueryListener {
 public:
  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    std::lock_guard lock(mutex_);
    committed_at_[progress.batch_id] = Clock::now();
    progress_.push_back(progress);
    changed_.notify_all();
  }

  // When batch `batch_id` was committed; nullopt after `timeout`.
  std::optional<Clock::time_point> Wait(int64_t batch_id, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return committed_at_.contains(batch_id); })) {
      return std::nullopt;
    }
    return committed_at_[batch_id];
  }

  std::vector<StreamingQueryProgress> Progress() {
    std::lock_guard lock(mutex_);
    return progress_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int64_t, Clock::time_point> committed_at_;
  std::vector<StreamingQueryProgress> progress_;
};

int Latency(const std::string& dir, int64_t batches) {
  constexpr int64_t kWarmUp = 10;
  constexpr int64_t kRowsPerFile = 8;
  const std::string in = dir + "/in";
  const std::string table = dir + "/table";
  const std::string checkpoint = dir + "/checkpoint";
  std::error_code ignored;
  for (const std::string& path : {in, table, checkpoint}) {
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::create_directories(in);

  auto session = MakeSession();
  if (!session.ok()) {
    return Fail(session.status().ToString());
  }
  auto waiter = std::make_shared<CommitWaiter>();
  (*session)->AddStreamingListener(waiter);
  auto query = (*session)
                   ->ReadStream()
                   .Format("json")
                   .Schema(kSchema)
                   .Load(in)
                   .WriteStream()
                   .Format("delta")
                   .Option("checkpointLocation", checkpoint)
                   .QueryName("latency")
                   .Start(table);
  if (!query.ok()) {
    return Fail(query.status().ToString());
  }

  std::mt19937_64 rng(7);
  std::vector<double> latencies_ms;
  for (int64_t batch = 0; batch < kWarmUp + batches; ++batch) {
    std::string text;
    for (int64_t r = 0; r < kRowsPerFile; ++r) {
      text += LogLine(rng, batch * kRowsPerFile + r);
      text += '\n';
    }
    const std::string hidden = fmt::format("{}/.part-{:05}.json.tmp", in, batch);
    {
      std::ofstream out(hidden, std::ios::binary);
      out << text;
    }
    std::filesystem::rename(hidden, fmt::format("{}/part-{:05}.json", in, batch));
    const Clock::time_point arrived = Clock::now();
    std::optional<Clock::time_point> committed = waiter->Wait(batch, std::chrono::seconds(60));
    if (!committed) {
      query->Stop();
      return Fail(fmt::format("batch {} was not committed within 60 s: {}", batch,
                              query->Exception().ToString()));
    }
    if (batch >= kWarmUp) {
      latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(*committed - arrived).count());
    }
  }
  query->Stop();
  if (!query->Exception().ok()) {
    return Fail(query->Exception().ToString());
  }

  // Every file was its own batch, and the table holds every row once.
  std::map<std::string, std::vector<double>> phases;
  int64_t rows_in = 0;
  for (const StreamingQueryProgress& progress : waiter->Progress()) {
    if (progress.num_input_rows != kRowsPerFile) {
      return Fail(fmt::format("batch {} read {} rows, expected {}", progress.batch_id,
                              progress.num_input_rows, kRowsPerFile));
    }
    rows_in += progress.num_input_rows;
    if (progress.batch_id >= kWarmUp) {
      for (const auto& [phase, ms] : progress.duration_ms) {
        phases[phase].push_back(static_cast<double>(ms));
      }
    }
  }
  auto count = (*session)->Read().Format("delta").Load(table).Count();
  if (!count.ok()) {
    return Fail(count.status().ToString());
  }
  const int64_t expected = (kWarmUp + batches) * kRowsPerFile;
  if (*count != expected || rows_in != expected) {
    return Fail(fmt::format("the table holds {} rows and the batches read {}, expected {}", *count,
                            rows_in, expected));
  }

  std::printf("%-28s %10s\n", "micro-batch latency", "ms");
  for (const auto& [label, p] : std::vector<std::pair<const char*, double>>{
           {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"max", 1.0}}) {
    std::printf("%-28s %10.2f\n", label, Percentile(latencies_ms, p));
  }
  std::printf("%-28s %10s\n", "phase (durationMs, median)", "ms");
  for (const auto& [phase, values] : phases) {
    std::printf("%-28s %10.1f\n", phase.c_str(), Percentile(values, 0.5));
  }
  std::printf(
      "%lld batches of one %lld-row file each (after %lld warm-up batches), JSON -> Delta, "
      "default trigger, table and checkpoint in %s; target p50 < 10 ms; the table holds all "
      "%lld rows\n",
      static_cast<long long>(batches), static_cast<long long>(kRowsPerFile),
      static_cast<long long>(kWarmUp), dir.c_str(), static_cast<long long>(expected));
  return 0;
}

struct ThroughputRun {
  double ms = 0;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
};

// The throughput case's table under DIR: the stateless filter's or the windowed aggregate's.
std::string ThroughputTable(const std::string& dir, bool windowed) {
  return dir + (windowed ? "/tributary_window_table" : "/tributary_table");
}

Result<ThroughputRun> RunThroughputOnce(const Session& session, const std::string& dir,
                                        bool windowed) {
  const std::string table = ThroughputTable(dir, windowed);
  const std::string checkpoint = table + "_checkpoint";
  std::error_code ignored;
  std::filesystem::remove_all(table, ignored);
  std::filesystem::remove_all(checkpoint, ignored);
  const Clock::time_point start = Clock::now();
  const DataFrame logs = session.ReadStream().Format("json").Schema(kSchema).Load(dir + "/logs");
  const DataFrame result =
      windowed ? logs.WithWatermark("ts", "1 minute")
                     .GroupBy({Window(Col("ts"), "1 minute"), Col("country")})
                     .Agg({Count().Alias("events"), Avg(Col("latency_ms")).Alias("avg_latency_ms")})
               : logs.Filter("status = 'active'");
  TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query, result.WriteStream()
                                                      .Format("delta")
                                                      .OutputMode("append")
                                                      .Option("checkpointLocation", checkpoint)
                                                      .Trigger(Trigger::AvailableNow())
                                                      .Start(table));
  TRIBUTARY_RETURN_NOT_OK(query.AwaitTermination());
  ThroughputRun run;
  run.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    run.rows_in += progress.num_input_rows;
    run.rows_out += progress.sink.num_output_rows;
  }
  return run;
}

int Throughput(const std::string& dir, int64_t repetitions, bool windowed) {
  auto session = MakeSession();
  if (!session.ok()) {
    return Fail(session.status().ToString());
  }
  std::vector<double> times_ms;
  ThroughputRun last;
  for (int64_t r = 0; r <= repetitions; ++r) {
    auto run = RunThroughputOnce(**session, dir, windowed);
    if (!run.ok()) {
      return Fail(run.status().ToString());
    }
    if (r > 0) {  // run 0 warms the page cache and the allocator
      times_ms.push_back(run->ms);
    }
    if (r > 0 && (run->rows_in != last.rows_in || run->rows_out != last.rows_out)) {
      return Fail(fmt::format("run {} read {} and wrote {} rows, run {} read {} and wrote {}", r,
                              run->rows_in, run->rows_out, r - 1, last.rows_in, last.rows_out));
    }
    last = *run;
  }
  std::string times;
  for (double ms : times_ms) {
    times += fmt::format("{}{:.1f}", times.empty() ? "" : ",", ms);
  }
  std::printf(
      "{\"times_ms\":[%s],\"median_ms\":%.1f,\"rows_in\":%lld,\"rows_out\":%lld,"
      "\"table\":\"%s\"}\n",
      times.c_str(), Percentile(times_ms, 0.5), static_cast<long long>(last.rows_in),
      static_cast<long long>(last.rows_out), ThroughputTable(dir, windowed).c_str());
  return 0;
}

struct PipelineRun {
  double ms = 0;
  double cpu_ms = 0;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
  int64_t batches = 0;
  /// Sums of the progress records' storageRequests (object stores only).
  std::map<std::string, int64_t> requests;
};

// A SQL pipeline run by the pipeline and join cases: its text, its warehouse, the table whose
// input rows are rows_in and the table whose output rows are rows_out.
struct PipelineCase {
  std::string sql;
  std::string warehouse;
  std::string input_table;
  std::string output_table;
};

// The reference pipeline of issue 8 over DIR/logs.
PipelineCase ReferencePipeline(const std::string& dir) {
  return {fmt::format("CREATE OR REFRESH STREAMING TABLE raw_logs AS SELECT * FROM STREAM "
                      "read_files('{}/logs', format => 'json', inferColumnTypes => true);\n"
                      "CREATE OR REFRESH STREAMING TABLE gold_active_logs AS SELECT * FROM "
                      "STREAM(raw_logs) WHERE status = 'active';\n",
                      dir),
          dir + "/pipeline_warehouse", "raw_logs", "gold_active_logs"};
}

// The nested case's one-table pipeline over DIR/nested.
PipelineCase NestedPipeline(const std::string& dir) {
  return {fmt::format("CREATE OR REFRESH STREAMING TABLE active_events AS SELECT * FROM STREAM "
                      "read_files('{}/nested', format => 'json', inferColumnTypes => true) "
                      "WHERE status = 'active';\n",
                      dir),
          dir + "/nested_warehouse", "active_events", "active_events"};
}

// The stream-stream join over DIR/impressions and DIR/clicks: clicks joined with the
// impression they follow by at most 10 minutes, 10 files of each per micro-batch, impressions
// with a 10-minute and clicks with a 20-minute watermark (Spark's ad-monetization example).
PipelineCase JoinPipeline(const std::string& dir) {
  return {
      fmt::format("CREATE OR REFRESH STREAMING TABLE ad_clicks AS\n"
                  "SELECT i.ad_id, i.campaign, i.impression_time, c.click_time, c.country\n"
                  "FROM STREAM read_files('{0}/impressions', format => 'json', schema => 'ad_id "
                  "BIGINT, impression_time TIMESTAMP, campaign STRING', maxFilesPerTrigger => 10)\n"
                  "  WATERMARK impression_time DELAY OF INTERVAL 10 MINUTES AS i\n"
                  "JOIN STREAM read_files('{0}/clicks', format => 'json', schema => 'click_ad_id "
                  "BIGINT, click_time TIMESTAMP, country STRING', maxFilesPerTrigger => 10)\n"
                  "  WATERMARK click_time DELAY OF INTERVAL 20 MINUTES AS c\n"
                  "ON c.click_ad_id = i.ad_id AND c.click_time BETWEEN i.impression_time AND "
                  "i.impression_time + INTERVAL 10 MINUTES;\n",
                  dir),
      dir + "/join_warehouse", "ad_clicks", "ad_clicks"};
}

// The reference pipeline with its landing and warehouse under PREFIX (s3://bucket/prefix):
// DIR/logs is uploaded there first unless it already is (same names and sizes).
Result<PipelineCase> ReferencePipelineOnObjectStore(const std::string& dir,
                                                    const std::string& prefix) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string root, storage::StoragePath(prefix));
  storage::UriFileSystem fs;
  const std::string landing = storage::JoinPath(root, "logs");
  std::map<std::string, int64_t> present;
  auto listed = fs.List(landing, {});
  if (listed.ok()) {
    for (const storage::FileInfo& info : *listed) {
      present[std::string(storage::BaseName(info.path))] = info.size;
    }
  } else if (!listed.status().IsNotFound()) {
    return listed.status();
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/logs")) {
    const std::string name = entry.path().filename().string();
    if (auto it = present.find(name);
        it != present.end() && it->second == static_cast<int64_t>(entry.file_size())) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TRIBUTARY_RETURN_NOT_OK(
        fs.WriteFile(storage::JoinPath(landing, name), bytes, storage::WriteMode::kReplace));
  }
  PipelineCase spec = ReferencePipeline(root);
  return spec;
}

Result<PipelineRun> RunPipelineOnce(const PipelineCase& spec) {
  const std::string& warehouse = spec.warehouse;
  if (storage::IsObjectStorePath(warehouse)) {
    storage::UriFileSystem fs;
    Status deleted = fs.DeleteDir(warehouse, /*recursive=*/true);
    if (!deleted.ok() && !deleted.IsNotFound()) {
      return deleted;
    }
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(warehouse, ignored);
  }
  const std::string& sql = spec.sql;
  const Clock::time_point start = Clock::now();
  const std::clock_t cpu_start = std::clock();
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session,
                            Session::Builder().TimeZone("UTC").Warehouse(warehouse).Build());
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Pipeline> pipeline, Pipeline::Parse(session, sql));
  PipelineRun run;
  std::mutex mutex;
  pipeline->OnEvent([&](const PipelineEvent& event) {
    if (event.kind != PipelineEvent::Kind::kBatch) {
      return;
    }
    std::lock_guard lock(mutex);
    if (std::getenv("BENCH_PHASES") != nullptr) {
      std::string line = event.table;
      for (const auto& [phase, ms] : event.progress->duration_ms) {
        line += fmt::format(" {}={}", phase, ms);
      }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    ++run.batches;
    for (const auto& [name, count] : event.progress->storage_requests) {
      run.requests[name] += count;
    }
    if (event.table == spec.input_table) {
      run.rows_in += event.progress->num_input_rows;
    }
    if (event.table == spec.output_table) {
      run.rows_out += event.progress->sink.num_output_rows;
    }
  });
  TRIBUTARY_RETURN_NOT_OK(pipeline->Run());
  run.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  run.cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return run;
}

int PipelineThroughput(const PipelineCase& spec, int64_t repetitions) {
  std::vector<PipelineRun> runs;
  for (int64_t r = 0; r <= repetitions; ++r) {
    auto run = RunPipelineOnce(spec);
    if (!run.ok()) {
      return Fail(run.status().ToString());
    }
    if (r > 0 && (run->rows_in != runs.back().rows_in || run->rows_out != runs.back().rows_out)) {
      return Fail(fmt::format("run {} read {} and wrote {} rows, run {} read {} and wrote {}", r,
                              run->rows_in, run->rows_out, r - 1, runs.back().rows_in,
                              runs.back().rows_out));
    }
    runs.push_back(*run);
  }
  runs.erase(runs.begin());  // run 0 warms the page cache and the allocator
  std::vector<PipelineRun> by_time = runs;
  std::sort(by_time.begin(), by_time.end(),
            [](const PipelineRun& a, const PipelineRun& b) { return a.ms < b.ms; });
  const PipelineRun& median = by_time[by_time.size() / 2];
  std::string times;
  for (const PipelineRun& run : runs) {
    times += fmt::format("{}{:.1f}", times.empty() ? "" : ",", run.ms);
  }
  std::string requests;
  for (const auto& [name, count] : median.requests) {
    requests += fmt::format("{}\"{}\":{}", requests.empty() ? "" : ",", name, count);
  }
  std::printf(
      "{\"times_ms\":[%s],\"median_ms\":%.1f,\"cpu_ms\":%.1f,\"rows_in\":%lld,"
      "\"rows_out\":%lld,\"batches\":%lld,\"requests\":{%s},\"table\":\"%s\"}\n",
      times.c_str(), median.ms, median.cpu_ms, static_cast<long long>(median.rows_in),
      static_cast<long long>(median.rows_out), static_cast<long long>(median.batches),
      requests.c_str(), (spec.warehouse + "/" + spec.output_table).c_str());
  return 0;
}

}  // namespace
}  // namespace tributary

// A std::bad_alloc from the option parsing ends the program, as it should for a benchmark.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  const std::string command = argc > 1 ? argv[1] : "";
  const auto options = tributary::ParseOptions(argc, argv, 2);
  const auto dir = options.find("dir");
  if (dir == options.end() ||
      (command != "latency" && command != "generate" && command != "throughput" &&
       command != "window" && command != "pipeline" && command != "generate-join" &&
       command != "join" && command != "generate-nested" && command != "nested")) {
    std::fprintf(stderr,
                 "usage: streaming_bench latency --dir DIR [--batches N]\n"
                 "       streaming_bench generate --dir DIR [--rows R] [--files F]\n"
                 "       streaming_bench throughput --dir DIR [--repetitions R]\n"
                 "       streaming_bench window --dir DIR [--repetitions R]\n"
                 "       streaming_bench pipeline --dir DIR [--s3 s3://BUCKET/PREFIX] "
                 "[--repetitions R]\n"
                 "       streaming_bench generate-join --dir DIR [--rows R] [--files F]\n"
                 "       streaming_bench join --dir DIR [--repetitions R]\n"
                 "       streaming_bench generate-nested --dir DIR [--rows R] [--files F]\n"
                 "       streaming_bench nested --dir DIR [--repetitions R]\n");
    return 2;
  }
  if (command == "latency") {
    return tributary::Latency(dir->second, tributary::IntOption(options, "batches", 500));
  }
  if (command == "generate") {
    return tributary::Generate(dir->second, tributary::IntOption(options, "rows", 1000000),
                               tributary::IntOption(options, "files", 100));
  }
  if (command == "generate-join") {
    return tributary::GenerateJoin(dir->second, tributary::IntOption(options, "rows", 1000000),
                                   tributary::IntOption(options, "files", 100));
  }
  if (command == "generate-nested") {
    return tributary::GenerateNested(dir->second, tributary::IntOption(options, "rows", 1000000),
                                     tributary::IntOption(options, "files", 4));
  }
  if (auto s3 = options.find("s3"); command == "pipeline" && s3 != options.end()) {
    auto spec = tributary::ReferencePipelineOnObjectStore(dir->second, s3->second);
    if (!spec.ok()) {
      return tributary::Fail(spec.status().ToString());
    }
    return tributary::PipelineThroughput(*spec, tributary::IntOption(options, "repetitions", 5));
  }
  if (command == "pipeline" || command == "join" || command == "nested") {
    const tributary::PipelineCase spec = command == "join" ? tributary::JoinPipeline(dir->second)
                                         : command == "nested"
                                             ? tributary::NestedPipeline(dir->second)
                                             : tributary::ReferencePipeline(dir->second);
    return tributary::PipelineThroughput(spec, tributary::IntOption(options, "repetitions", 5));
  }
  return tributary::Throughput(dir->second, tributary::IntOption(options, "repetitions", 5),
                               command == "window");
}

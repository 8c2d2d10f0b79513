#include "demo.h"

#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "delta/snapshot.h"
#include "run_command.h"
#include "sql_command.h"
#include "storage/path.h"
#include "storage/uri_file_system.h"
#include "tributary/session.h"

namespace tributary::tools {
namespace {

// The reference pipeline of issue 8; {landing} is the landing folder.
constexpr const char* kPipelineSql =
    "CREATE OR REFRESH STREAMING TABLE raw_logs AS\n"
    "  SELECT * FROM STREAM read_files('{landing}/raw-logs/', format => 'json', "
    "inferColumnTypes => true);\n"
    "CREATE OR REFRESH STREAMING TABLE gold_active_logs AS\n"
    "  SELECT * FROM STREAM(raw_logs) WHERE status = 'active';\n"
    "CREATE OR REFRESH STREAMING TABLE gold_logs_per_minute AS\n"
    "  SELECT window.start AS minute, country, count(*) AS events,\n"
    "         round(avg(latency_ms), 1) AS avg_latency_ms\n"
    "  FROM STREAM(raw_logs) WATERMARK CAST(ts AS TIMESTAMP) AS event_time DELAY OF INTERVAL 1 "
    "MINUTE\n"
    "  GROUP BY window(event_time, '1 minute'), country;\n";

constexpr int kFirstFiles = 3;
constexpr int kSecondFiles = 2;
constexpr int kRowsPerFile = 1000;

// Lines of the second landing that the JSON reader cannot type: each becomes one raw_logs row
// with its text in _rescued_data (the last one only for user_id, which is not a number).
constexpr const char* kMalformedLines[] = {
    R"({"ts":"2026-11-29T23:59:58.000Z","user_id":4711,"status":"active","country":"DE")",
    R"(GET /healthz 200 0.4ms)",
    (R"({"ts":"2026-11-29T23:59:59.000Z","user_id":"guest","status":"active","country":"US",)"
     R"("latency_ms":12.5,"path":"/","device":"mobile"})"),
};

// What the demo landed, to check the tables against.
struct Landed {
  int64_t files = 0;
  int64_t lines = 0;
  int64_t active = 0;  // well-formed lines with status 'active' (the typed malformed one too)
};

// Writes `count` files of log lines, file-<first>.json onwards, into `folder`; with
// `with_device` each line carries the new field `device` and the first file ends with
// kMalformedLines. Put-if-absent: a folder holding an earlier demo's files is an error.
Status LandLogs(storage::FileSystem& fs, const std::string& folder, int first, int count,
                bool with_device, std::mt19937_64& rng, Landed& landed) {
  static constexpr const char* kStatus[] = {"active",   "active",  "active",
                                            "inactive", "pending", "suspended"};
  static constexpr const char* kCountry[] = {"US", "DE", "FR", "BR", "IN", "JP"};
  static constexpr const char* kPath[] = {"/", "/search", "/cart", "/checkout", "/api/v1/items"};
  static constexpr const char* kDevice[] = {"mobile", "desktop", "tablet"};
  for (int f = first; f < first + count; ++f) {
    std::string text;
    for (int r = 0; r < kRowsPerFile; ++r) {
      const int64_t second = (static_cast<int64_t>(f) * kRowsPerFile + r) * 7;
      const char* status = kStatus[rng() % 6];
      landed.active += std::string_view(status) == "active" ? 1 : 0;
      text += fmt::format(
          R"({{"ts":"2026-11-29T{:02}:{:02}:{:02}.{:03}Z","user_id":{},"status":"{}",)"
          R"("country":"{}","latency_ms":{:.1f},"path":"{}")",
          second / 3600 % 24, second / 60 % 60, second % 60, rng() % 1000, 1000 + rng() % 500,
          status, kCountry[rng() % 6], static_cast<double>(rng() % 20000) / 10.0, kPath[rng() % 5]);
      text += with_device ? fmt::format(R"(,"device":"{}"}})", kDevice[rng() % 3]) : "}";
      text += '\n';
    }
    landed.lines += kRowsPerFile;
    if (with_device && f == first) {
      for (const char* line : kMalformedLines) {
        text += line;
        text += '\n';
        ++landed.lines;
      }
      ++landed.active;  // the last one is well-formed JSON with status 'active'
    }
    const std::string path = storage::JoinPath(folder, fmt::format("file-{:03}.json", f));
    Status written = fs.WriteFile(path, text, storage::WriteMode::kPutIfAbsent);
    if (written.IsAlreadyExists()) {
      return Status::InvalidArgument(
          fmt::format("{} holds an earlier demo's files; run the demo in a new --dir", folder));
    }
    TRIBUTARY_RETURN_NOT_OK(written);
    ++landed.files;
  }
  return Status::OK();
}

Result<std::string> WorkingDirectory(const std::string& requested) {
  if (!requested.empty()) {
    return requested;
  }
  std::string pattern = "/tmp/tributary-demo-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("cannot create a demo directory under /tmp");
  }
  return pattern;
}

// One count(*) query's value.
Result<int64_t> CountOf(const Session& session, const std::string& query) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, session.Sql(query).Collect());
  if (rows.size() != 1) {
    return Status::Internal(fmt::format("'{}' returned {} rows, expected 1", query, rows.size()));
  }
  return rows[0].GetLong(0);
}

}  // namespace

Status RunDemo(const DemoOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(std::string dir, WorkingDirectory(options.dir));
  const std::string landing = storage::JoinPath(dir, "landing");
  const std::string raw_logs_folder = storage::JoinPath(landing, "raw-logs");
  const std::string warehouse = storage::JoinPath(dir, "warehouse");
  const std::string pipeline_file = storage::JoinPath(dir, "pipeline.sql");
  out << fmt::format(
      "tributary demo: the main job (Auto Loader -> Delta bronze -> Delta gold) in {}\n"
      "{} thread(s), session time zone {}\n\n",
      dir, options.threads, options.time_zone.Name());

  // 1. Sample logs, and the pipeline over them.
  std::mt19937_64 rng(20261129);
  Landed first;
  TRIBUTARY_RETURN_NOT_OK(LandLogs(fs, raw_logs_folder, 0, kFirstFiles, false, rng, first));
  out << fmt::format(
      "1. landed {} JSON log files, {} lines (ts, user_id, status, country, latency_ms, path) "
      "in {}/\n",
      first.files, first.lines, raw_logs_folder);
  const std::string pipeline_sql =
      fmt::format(fmt::runtime(kPipelineSql), fmt::arg("landing", landing));
  TRIBUTARY_RETURN_NOT_OK(fs.WriteFile(pipeline_file, pipeline_sql, storage::WriteMode::kReplace));
  out << fmt::format("   the pipeline, {}:\n\n{}\n", pipeline_file, pipeline_sql);

  // 2. The first run: Auto Loader infers the schema and ingests every file.
  RunCommandOptions run;
  run.file = pipeline_file;
  run.warehouse = warehouse;
  run.trigger = "available-now";
  run.time_zone = options.time_zone.Name();
  const std::string run_command = fmt::format(
      "tributary run --warehouse {} --trigger available-now {}", warehouse, pipeline_file);
  out << "2. first run (schema inferred and stored in the table's checkpoint):\n   $ "
      << run_command << "\n";
  TRIBUTARY_RETURN_NOT_OK(RunPipelineCommand(run, out, /*terminal=*/false));
  TRIBUTARY_ASSIGN_OR_RAISE(auto first_snapshot,
                            delta::Snapshot::Load(fs, storage::JoinPath(warehouse, "raw_logs")));
  const int64_t first_version = first_snapshot->Version();

  // 3. More files with a new field and malformed lines; the second run reads only them.
  Landed second;
  TRIBUTARY_RETURN_NOT_OK(
      LandLogs(fs, raw_logs_folder, kFirstFiles, kSecondFiles, true, rng, second));
  out << fmt::format(
      "\n3. landed {} more files, {} lines, with a new field `device` and {} malformed lines; "
      "second run\n   (incremental: only the new files; the new column stops the stream, which "
      "restarts with the evolved schema;\n   malformed lines are rescued into _rescued_data):\n"
      "   $ {}\n",
      second.files, second.lines, std::size(kMalformedLines), run_command);
  TRIBUTARY_RETURN_NOT_OK(RunPipelineCommand(run, out, /*terminal=*/false));

  // 4. The tables through SQL, as `tributary sql --warehouse <warehouse>` runs it.
  SqlCommandOptions sql;
  sql.warehouse = warehouse;
  sql.time_zone = options.time_zone.Name();
  struct Query {
    std::string title;
    std::string sql;
  };
  const std::vector<Query> queries = {
      {"raw_logs: rows, rescued rows, rows with the new column",
       "SELECT count(*) AS rows, count(_rescued_data) AS rescued, count(device) AS with_device "
       "FROM raw_logs"},
      {"raw_logs: rows by status",
       "SELECT status, count(*) AS rows FROM raw_logs GROUP BY status ORDER BY status"},
      {"gold_active_logs: rows and mean latency by country",
       "SELECT country, count(*) AS rows, round(avg(latency_ms), 1) AS avg_latency_ms "
       "FROM gold_active_logs GROUP BY country ORDER BY country"},
      {"gold_logs_per_minute: the first minutes (a minute is written once, when the watermark, "
       "1 minute behind the latest event time, passes its end)",
       "SELECT minute, country, events, avg_latency_ms FROM gold_logs_per_minute "
       "ORDER BY minute, country LIMIT 6"},
      {"raw_logs: the rescued records (malformed lines keep their text, a mistyped value its "
       "field)",
       "SELECT status, user_id, _rescued_data FROM raw_logs WHERE _rescued_data IS NOT NULL "
       "ORDER BY _rescued_data"},
      {fmt::format("raw_logs: time travel to version {}, the end of the first run", first_version),
       fmt::format("SELECT count(*) AS rows, count(DISTINCT country) AS countries FROM raw_logs "
                   "VERSION AS OF {}",
                   first_version)},
  };
  out << fmt::format("\n4. querying the tables: $ tributary sql --warehouse {} \"...\"\n",
                     warehouse);
  for (const Query& query : queries) {
    out << fmt::format("\n-- {}\n{};\n", query.title, query.sql);
    TRIBUTARY_RETURN_NOT_OK(RunSqlScript(sql, "the demo", query.sql, out, out).status());
  }
  auto session = Session::Builder().Warehouse(warehouse).TimeZone(sql.time_zone).Build();
  if (!session.ok()) {
    return session.status();
  }
  // The history's narrow columns (operationParameters repeats the query id on every line).
  for (const char* table : {"raw_logs", "gold_active_logs"}) {
    out << fmt::format(
        "\n-- {}: history (version, timestamp, operation, readVersion)\n"
        "DESCRIBE HISTORY {};\n",
        table, table);
    TRIBUTARY_RETURN_NOT_OK(
        (*session)
            ->Sql(fmt::format("DESCRIBE HISTORY {}", table))
            .Select({"version", "timestamp", "operation", "readVersion"})
            .Show(out, std::numeric_limits<int64_t>::max() - 1, /*truncate=*/false));
  }

  // 5. Check the result against what was landed: every line once, every active row in gold.
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t raw_rows, CountOf(**session, "SELECT count(*) FROM raw_logs"));
  TRIBUTARY_ASSIGN_OR_RAISE(
      int64_t rescued,
      CountOf(**session, "SELECT count(*) FROM raw_logs WHERE _rescued_data IS NOT NULL"));
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t gold_rows,
                            CountOf(**session, "SELECT count(*) FROM gold_active_logs"));
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t first_rows,
                            CountOf(**session, fmt::format("SELECT count(*) FROM raw_logs "
                                                           "VERSION AS OF {}",
                                                           first_version)));
  // The per-minute table holds every (minute, country) of raw_logs whose minute ended at or
  // before the final watermark (the latest event time minus 1 minute; unix seconds, floored as
  // the watermark's milliseconds are), computed here in batch over the bronze table.
  TRIBUTARY_ASSIGN_OR_RAISE(
      int64_t watermark_s,
      CountOf(**session, "SELECT unix_timestamp(max(CAST(ts AS TIMESTAMP))) - 60 FROM raw_logs"));
  TRIBUTARY_ASSIGN_OR_RAISE(
      int64_t expected_minutes,
      CountOf(**session, fmt::format("SELECT count(*) FROM (SELECT window.end AS until, country "
                                     "FROM raw_logs GROUP BY window(CAST(ts AS TIMESTAMP), "
                                     "'1 minute'), country) g WHERE unix_timestamp(g.until) <= {}",
                                     watermark_s)));
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t minutes,
                            CountOf(**session, "SELECT count(*) FROM gold_logs_per_minute"));
  if (minutes != expected_minutes) {
    return Status::Internal(fmt::format(
        "the demo's gold_logs_per_minute holds {} (minute, country) rows; the batch GROUP BY over "
        "raw_logs has {} whose minute ended by the watermark",
        minutes, expected_minutes));
  }
  const int64_t expected_rows = first.lines + second.lines;
  const int64_t expected_gold = first.active + second.active;
  const auto malformed = static_cast<int64_t>(std::size(kMalformedLines));
  if (raw_rows != expected_rows || rescued != malformed || gold_rows != expected_gold ||
      first_rows != first.lines) {
    return Status::Internal(fmt::format(
        "the demo's tables disagree with what it landed: raw_logs holds {} rows ({} rescued), "
        "{} at version {}, gold_active_logs {}; expected {} ({} rescued), {}, {}",
        raw_rows, rescued, first_rows, first_version, gold_rows, expected_rows, malformed,
        first.lines, expected_gold));
  }
  out << fmt::format(
      "\nchecked: raw_logs holds each of the {} landed lines once ({} rescued; {} at version "
      "{}), gold_active_logs its {} active rows, gold_logs_per_minute the {} closed (minute, "
      "country) groups of a batch GROUP BY\n",
      raw_rows, rescued, first_rows, first_version, gold_rows, minutes);
  out << fmt::format(
      "rerun the pipeline (only new files are read): {}\nquery: tributary sql --warehouse {}\n",
      run_command, warehouse);
  return Status::OK();
}

}  // namespace tributary::tools

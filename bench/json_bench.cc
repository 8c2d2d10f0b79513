// NDJSON ingestion benchmark (issue 4): a log-shaped data set from this program's own
// deterministic generator, parsed into columns with an explicit schema and with inference.
// `json_bench --generate DIR` writes the files (untimed) for both engines; scripts/bench.sh
// then times DuckDB's read_json on the same files (bench/duckdb_json.mjs) and prints ratios.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "columnar/schema.h"
#include "formats/json/json_reader.h"
#include "storage/local_file_system.h"

namespace tributary::json {
namespace {

constexpr int kFiles = 4;

std::string FilePath(const std::string& dir, int i) {
  return fmt::format("{}/events-{}.json", dir, i);
}

// One ~280-byte line: event_id, ISO timestamp, status, user_id, country, latency_ms, bytes,
// path, tags array, payload object; the last two files add a field "region"; one line in a
// thousand is cut in half (malformed).
std::string Line(std::mt19937_64& rng, int64_t n, bool extra_field) {
  static const char* kStatus[] = {"ok", "ok", "ok", "redirect", "client_error", "server_error"};
  static const char* kCountry[] = {"US", "DE", "FR", "BR", "IN", "JP", "GB", "NG"};
  static const char* kPath[] = {"/api/v1/orders", "/api/v1/users/profile", "/static/app.js",
                                "/checkout/confirm", "/search?q=lakehouse+streaming"};
  const int64_t micros = 1714550400000000LL + n * 137000;
  const int64_t seconds = micros / 1000000;
  std::string line = fmt::format(
      R"({{"event_id":"evt-{:016x}","ts":"2024-05-{:02}T{:02}:{:02}:{:02}.{:06}Z","status":"{}",)"
      R"("user_id":{},"country":"{}","latency_ms":{:.3f},"bytes":{},"path":"{}",)"
      R"("tags":["web","{}","v{}"],"payload":{{"a":{},"b":"item-{}"}})",
      rng(), 1 + seconds / 86400 % 28, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60,
      micros % 1000000, kStatus[rng() % 6], rng() % 1000000, kCountry[rng() % 8],
      static_cast<double>(rng() % 100000) / 97.0, rng() % 5000000, kPath[rng() % 5],
      kCountry[rng() % 8], rng() % 4, rng() % 1000, rng() % 50000);
  if (extra_field) {
    line += R"(,"region":"eu-west-1")";
  }
  line += "}";
  if (n % 1000 == 999) {
    line.resize(line.size() / 2);  // a malformed record: rescued, never lost
  }
  return line;
}

int Generate(const std::string& dir, int64_t rows) {
  std::mt19937_64 rng(20241129);
  int64_t n = 0;
  for (int f = 0; f < kFiles; ++f) {
    std::FILE* out = std::fopen(FilePath(dir, f).c_str(), "wb");
    if (out == nullptr) {
      std::fprintf(stderr, "json_bench: cannot write %s\n", FilePath(dir, f).c_str());
      return 1;
    }
    const int64_t end = rows * (f + 1) / kFiles;
    for (; n < end; ++n) {
      std::string line = Line(rng, n, f >= kFiles / 2);
      line.push_back('\n');
      std::fwrite(line.data(), 1, line.size(), out);
    }
    std::fclose(out);
  }
  return 0;
}

columnar::SchemaPtr ExplicitSchema() {
  using columnar::DataType;
  using columnar::Field;
  return std::make_shared<const columnar::Schema>(std::vector<Field>{
      Field("event_id", DataType::String()), Field("ts", DataType::Timestamp()),
      Field("status", DataType::String()), Field("user_id", DataType::Int64()),
      Field("country", DataType::String()), Field("latency_ms", DataType::Float64()),
      Field("bytes", DataType::Int64()), Field("path", DataType::String()),
      Field("tags", DataType::Array(DataType::String())),
      Field("payload",
            DataType::Struct({Field("a", DataType::Int64()), Field("b", DataType::String())})),
      Field("region", DataType::String())});
}

std::string Dir() {
  const char* dir = std::getenv("TRIBUTARY_BENCH_JSON_DIR");
  return dir == nullptr ? "" : dir;
}

// Reads every file with `schema`; counts rows and rescued rows.
bool ReadAll(const columnar::SchemaPtr& schema, const JsonReadOptions& options, int64_t* rows,
             int64_t* rescued, std::string* error) {
  storage::LocalFileSystem fs;
  for (int f = 0; f < kFiles; ++f) {
    auto reader = JsonReader::Open(fs, FilePath(Dir(), f), schema, options);
    if (!reader.ok()) {
      *error = reader.status().ToString();
      return false;
    }
    while (true) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) {
        *error = batch.status().ToString();
        return false;
      }
      if (*batch == nullptr) {
        break;
      }
      *rows += (*batch)->NumRows();
    }
    *rescued += (*reader)->Metrics().num_rows_rescued;
  }
  return true;
}

void BM_Json(benchmark::State& state, bool infer, bool report_unknown_fields = false) {
  int64_t rows = 0;
  int64_t rescued = 0;
  for (auto _ : state) {
    rows = 0;
    rescued = 0;
    JsonReadOptions options;
    options.report_unknown_fields = report_unknown_fields;
    columnar::SchemaPtr schema = ExplicitSchema();
    if (infer) {
      options.infer_column_types = true;
      storage::LocalFileSystem fs;
      std::vector<std::string> paths;
      for (int f = 0; f < kFiles; ++f) {
        paths.push_back(FilePath(Dir(), f));
      }
      auto inferred = InferJsonSchema(fs, paths, options);
      if (!inferred.ok()) {
        state.SkipWithError(inferred.status().ToString().c_str());
        return;
      }
      schema = *inferred;
    }
    std::string error;
    if (!ReadAll(schema, options, &rows, &rescued, &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["rescued"] = static_cast<double>(rescued);
  state.SetItemsProcessed(state.iterations() * rows);
}

BENCHMARK_CAPTURE(BM_Json, explicit_schema, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
// As Auto Loader's addNewColumns reads: the reader also reports fields outside the schema (the
// last two files' "region"), which must cost nothing measurable.
BENCHMARK_CAPTURE(BM_Json, explicit_schema_reporting_new_fields, false, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Json, inferred_schema, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace tributary::json

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--generate") == 0) {
    return tributary::json::Generate(argv[2], std::atoll(argv[3]));
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

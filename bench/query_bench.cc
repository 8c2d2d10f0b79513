// End-to-end query benchmarks: SQL through tributary's Session (parse, bind, optimize, plan,
// execute) over the log-shaped Parquet table of the Parquet benchmark, against DuckDB running
// the same SQL over the same files in the same run (bench/duckdb_query.mjs).
//
// scripts/bench.sh generates the files first (bench/duckdb_parquet.mjs: scan.parquet, ~1M rows
// of request id, timestamp, status, country, user id, bytes, latency, path, tags, client;
// bench/duckdb_query.mjs generate: countries.parquet, 16 rows of code and region) in
// TRIBUTARY_BENCH_PARQUET_DIR (required). Cases, one query per iteration after a warm-up,
// each reduced to one number both engines must agree on:
//   filter    rows with status 'ERROR' and latency over 500 ms: count(*) + sum(bytes)
//   group_by  count(*), sum(bytes), avg(latency_ms) per (country, status): sum of counts and sums
//   join      logs JOIN countries ON country = code, count(*) and sum(bytes) per region
// One thread unless TRIBUTARY_THREADS says otherwise (scripts/bench.sh sets 1).

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "tributary/session.h"

namespace tributary {
namespace {

std::shared_ptr<Session> SharedSession() {
  static std::shared_ptr<Session> session = [] {
    auto built = Session::Builder().TimeZone("UTC").Build();
    return built.ok() ? *built : nullptr;
  }();
  return session;
}

struct QueryCase {
  std::string name;
  /// SQL with {logs} and {countries} standing for the two tables.
  std::string sql;
};

// bench/query_cases.tsv: "name<TAB>sql" lines; '#' starts a comment line.
std::vector<QueryCase> LoadCases() {
  std::vector<QueryCase> cases;
  std::ifstream in(TRIBUTARY_BENCH_QUERY_CASES);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) {
      continue;
    }
    cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

std::string Substitute(std::string sql, const std::string& key, const std::string& value) {
  for (size_t at = sql.find(key); at != std::string::npos; at = sql.find(key, at + value.size())) {
    sql.replace(at, key.size(), value);
  }
  return sql;
}

std::string DataDir() {
  const char* dir = std::getenv("TRIBUTARY_BENCH_PARQUET_DIR");
  return dir == nullptr ? "" : dir;
}

void RunQuery(benchmark::State& state, const QueryCase& query) {
  const std::string dir = DataDir();
  if (dir.empty() || SharedSession() == nullptr) {
    state.SkipWithError("TRIBUTARY_BENCH_PARQUET_DIR is not set");
    return;
  }
  const std::string sql =
      Substitute(Substitute(query.sql, "{logs}", "parquet.`" + dir + "/scan.parquet`"),
                 "{countries}", "parquet.`" + dir + "/countries.parquet`");
  double result = 0;
  // Warm-up, untimed: the first run also touches the file's pages.
  auto warm = SharedSession()->Sql(sql).Collect();
  if (!warm.ok()) {
    state.SkipWithError(warm.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto rows = SharedSession()->Sql(sql).Collect();
    if (!rows.ok()) {
      state.SkipWithError(rows.status().ToString().c_str());
      return;
    }
    auto value = rows->front().GetDouble(0);
    if (!value.ok()) {
      state.SkipWithError(value.status().ToString().c_str());
      return;
    }
    result = *value;
  }
  state.counters["result"] = result;
}

void RegisterCases() {
  for (const QueryCase& query : LoadCases()) {
    benchmark::RegisterBenchmark(("BM_Query/" + query.name).c_str(),
                                 [query](benchmark::State& state) { RunQuery(state, query); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  tributary::RegisterCases();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

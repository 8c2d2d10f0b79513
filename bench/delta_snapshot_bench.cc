// Delta snapshot loading: Snapshot::Load of a table with a large checkpoint and a long tail of
// JSON commits after it. There is no DuckDB equivalent of loading a Delta snapshot, so
// scripts/bench.sh prints tributary's figures alone.
//
// The table, generated once before any timing in a fresh directory (on /dev/shm when it is
// writable, else /tmp; removed at exit), partitioned by date and region:
//   version 0      protocol, metaData and TRIBUTARY_BENCH_DELTA_FILES (Default: 100,000) add
//                  actions with Spark-shaped paths ("date=2024-03-17/region=eu-west-1/
//                  part-00042-<uuid>.c000.snappy.parquet"), partition values, sizes and stats
//                  JSON strings of three columns; checkpointed by WriteCheckpoint, after which
//                  its commit file is deleted (as log cleanup would).
//   versions 1..N  TRIBUTARY_BENCH_DELTA_COMMITS (Default: 1,000) JSON commits, each a
//                  commitInfo, three adds of new files and two removes of checkpointed files.
//
// Cases, each timed as one Snapshot::Load per iteration, one iteration per repetition, through
// LocalFileSystem:
//   load/checkpoint_only          version 0: the checkpoint alone.
//   load/checkpoint_and_commits   the latest version: the checkpoint plus every commit.
//
// Counters: `actions` (checkpoint rows plus commit lines read), items per second (= actions per
// second of load), `live_files`, `checkpoint_bytes`, `commits` (set only when non-zero),
// `peak_rss_mb` (the process's peak resident set during an untimed load, Linux VmHWM after
// malloc_trim and a reset through /proc/self/clear_refs) and `load_rss_mb` (that peak minus the
// resident set before the load: what loading needs). One thread.

#include <malloc.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "delta/checkpoint_writer.h"
#include "delta/snapshot.h"
#include "storage/local_file_system.h"

namespace tributary::delta {
namespace {

// A "VmRSS"/"VmHWM" line of /proc/self/status in MiB, or -1 where there is no such file.
double StatusMiB(const char* key) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) {
    return -1;
  }
  char line[256];
  double kib = -1;
  const size_t key_length = std::strlen(key);
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
      kib = std::strtod(line + key_length + 1, nullptr);
      break;
    }
  }
  std::fclose(status);
  return kib < 0 ? -1 : kib / 1024;
}

// Makes the kernel's peak resident set (VmHWM) restart from the current one.
void ResetPeakRss() {
  if (std::FILE* clear = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", clear);
    std::fclose(clear);
  }
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == '\0' ? fallback : std::strtoll(value, nullptr, 10);
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

const char* const kRegions[] = {"us-east-1",    "us-west-2",  "eu-west-1",
                                "eu-central-1", "ap-south-1", "sa-east-1"};

struct GeneratedFile {
  std::string path;
  std::string date;
  const char* region;
  int64_t size;
};

GeneratedFile MakeFile(int64_t i) {
  const uint64_t a = SplitMix(static_cast<uint64_t>(i) * 2);
  const uint64_t b = SplitMix(static_cast<uint64_t>(i) * 2 + 1);
  const int64_t day = i % 360;
  GeneratedFile file;
  file.date = fmt::format("2024-{:02}-{:02}", day / 30 + 1, day % 30 + 1);
  file.region = kRegions[i % 6];
  file.path = fmt::format(
      "date={}/region={}/part-{:05}-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}.c000.snappy.parquet",
      file.date, file.region, i % 200, a >> 32, (a >> 16) & 0xFFFF, a & 0xFFFF, b >> 48,
      b & 0xFFFFFFFFFFFFull);
  file.size = 1'000'000 + static_cast<int64_t>(a % 100'000'000);
  return file;
}

std::string AddLine(int64_t i) {
  const GeneratedFile file = MakeFile(i);
  const int64_t rows = 10'000 + file.size / 137;
  const int64_t min_id = i * 1'000'000;
  return fmt::format(
      R"({{"add":{{"path":"{}","partitionValues":{{"date":"{}","region":"{}"}},"size":{},)"
      R"("modificationTime":{},"dataChange":true,"stats":"{{\"numRecords\":{},)"
      R"(\"minValues\":{{\"id\":{},\"ts\":\"{}T00:00:00.000Z\",\"user\":\"user_{:06}\"}},)"
      R"(\"maxValues\":{{\"id\":{},\"ts\":\"{}T23:59:59.999Z\",\"user\":\"user_{:06}\"}},)"
      R"(\"nullCount\":{{\"id\":0,\"ts\":0,\"user\":{}}}}}"}}}})"
      "\n",
      file.path, file.date, file.region, file.size, 1'700'000'000'000 + i * 1000, rows, min_id,
      file.date, i % 1000, min_id + rows - 1, file.date, i % 1000 + 500, i % 7);
}

std::string RemoveLine(int64_t i, int64_t timestamp) {
  const GeneratedFile file = MakeFile(i);
  return fmt::format(
      R"({{"remove":{{"path":"{}","deletionTimestamp":{},"dataChange":true,)"
      R"("extendedFileMetadata":true,"partitionValues":{{"date":"{}","region":"{}"}},)"
      R"("size":{}}}}})"
      "\n",
      file.path, timestamp, file.date, file.region, file.size);
}

struct Table {
  std::string root;
  int64_t files = 0;
  int64_t commits = 0;
  int64_t checkpoint_rows = 0;
  int64_t checkpoint_bytes = 0;
  int64_t commit_lines = 0;
};

// Owns the generated table's directory and removes it at exit.
class TableDir {
 public:
  TableDir() {
    std::error_code error;
    const bool shm = std::filesystem::is_directory("/dev/shm", error);
    std::string pattern =
        shm ? "/dev/shm/tributary-delta-bench-XXXXXX" : "/tmp/tributary-delta-bench-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr && shm) {
      pattern = "/tmp/tributary-delta-bench-XXXXXX";
      if (::mkdtemp(pattern.data()) == nullptr) {
        pattern.clear();
      }
    }
    path_ = pattern;
  }
  ~TableDir() {
    std::error_code ignored;
    if (!path_.empty()) {
      std::filesystem::remove_all(path_, ignored);
    }
  }
  TableDir(const TableDir&) = delete;
  TableDir& operator=(const TableDir&) = delete;

  const std::string& Path() const { return path_; }

 private:
  std::string path_;
};

Result<Table> Generate(const std::string& dir) {
  if (dir.empty()) {
    return Status::IOError("cannot create a directory for the benchmark table");
  }
  storage::LocalFileSystem fs;
  Table table;
  table.root = dir + "/table";
  table.files = EnvInt("TRIBUTARY_BENCH_DELTA_FILES", 100'000);
  table.commits = EnvInt("TRIBUTARY_BENCH_DELTA_COMMITS", 1'000);
  const std::string log_dir = table.root + "/_delta_log";
  std::string text =
      R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
      "\n"
      R"({"metaData":{"id":"5f1a9a35-7d0c-4a53-9c51-0a3c1f0d7b10","format":{"provider":"parquet","options":{}},)"
      R"("schemaString":"{\"type\":\"struct\",\"fields\":[)"
      R"({\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"ts\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"user\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"date\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"region\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}",)"
      R"("partitionColumns":["date","region"],"configuration":{},"createdTime":1700000000000}})"
      "\n";
  for (int64_t i = 0; i < table.files; ++i) {
    text += AddLine(i);
  }
  const std::string first_commit = log_dir + "/00000000000000000000.json";
  TRIBUTARY_RETURN_NOT_OK(fs.WriteFile(first_commit, text, storage::WriteMode::kPutIfAbsent));
  {
    TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, table.root));
    TRIBUTARY_RETURN_NOT_OK(WriteCheckpoint(fs, *snapshot).status());
    table.checkpoint_rows = 2 + static_cast<int64_t>(snapshot->Files().size());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto info,
                            fs.GetFileInfo(log_dir + "/00000000000000000000.checkpoint.parquet"));
  table.checkpoint_bytes = info.size;
  TRIBUTARY_RETURN_NOT_OK(fs.DeleteFile(first_commit));

  for (int64_t v = 1; v <= table.commits; ++v) {
    const int64_t timestamp = 1'700'100'000'000 + v * 60'000;
    text =
        fmt::format(R"({{"commitInfo":{{"timestamp":{},"operation":"WRITE","operationParameters":)"
                    R"({{"mode":"Append","partitionBy":"[]"}},"readVersion":{},"isolationLevel":)"
                    R"("Serializable","isBlindAppend":false,"operationMetrics":{{"numFiles":"3",)"
                    R"("numOutputRows":"90000","numOutputBytes":"150000000"}},)"
                    R"("engineInfo":"tributary-bench","txnId":"{:016x}"}}}})"
                    "\n",
                    timestamp, v - 1, SplitMix(static_cast<uint64_t>(v)));
    for (int64_t k = 0; k < 3; ++k) {
      text += AddLine(table.files + 3 * (v - 1) + k);
    }
    for (int64_t k = 0; k < 2; ++k) {
      text += RemoveLine(2 * (v - 1) + k, timestamp);
    }
    table.commit_lines += 6;
    TRIBUTARY_RETURN_NOT_OK(fs.WriteFile(fmt::format("{}/{:020}.json", log_dir, v), text,
                                         storage::WriteMode::kPutIfAbsent));
  }
  return table;
}

const Result<Table>& BenchTable() {
  static TableDir dir;
  static const Result<Table> table = Generate(dir.Path());
  return table;
}

void BM_Load(benchmark::State& state, bool with_commits) {
  const Result<Table>& table = BenchTable();
  if (!table.ok()) {
    state.SkipWithError(table.status().ToString().c_str());
    return;
  }
  storage::LocalFileSystem fs;
  const std::optional<int64_t> version =
      with_commits ? std::optional<int64_t>() : std::optional<int64_t>(0);
  // One untimed load first measures memory: the heap freed so far (table generation) goes back
  // to the kernel and the peak resident set restarts, so the peak is what this load holds.
  // Timed loads run after it on a warm heap.
  ::malloc_trim(0);
  ResetPeakRss();
  const double rss_before = StatusMiB("VmRSS");
  {
    Result<std::shared_ptr<const Snapshot>> snapshot = Snapshot::Load(fs, table->root, version);
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.status().ToString().c_str());
      return;
    }
  }
  const double peak_rss = StatusMiB("VmHWM");
  int64_t live_files = 0;
  for (auto _ : state) {
    Result<std::shared_ptr<const Snapshot>> snapshot = Snapshot::Load(fs, table->root, version);
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.status().ToString().c_str());
      return;
    }
    live_files = static_cast<int64_t>((*snapshot)->Files().size());
    benchmark::DoNotOptimize(live_files);
  }
  if (peak_rss > 0) {
    state.counters["peak_rss_mb"] = peak_rss;
    state.counters["load_rss_mb"] = peak_rss - rss_before;
  }
  const int64_t actions = table->checkpoint_rows + (with_commits ? table->commit_lines : 0);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * actions);
  state.counters["actions"] = static_cast<double>(actions);
  state.counters["live_files"] = static_cast<double>(live_files);
  state.counters["checkpoint_bytes"] = static_cast<double>(table->checkpoint_bytes);
  if (with_commits) {
    // Not set when zero: the cv aggregate of an all-zero counter is NaN, which is not JSON.
    state.counters["commits"] = static_cast<double>(table->commits);
  }
}

BENCHMARK_CAPTURE(BM_Load, checkpoint_only, false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Load, checkpoint_and_commits, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace tributary::delta

BENCHMARK_MAIN();

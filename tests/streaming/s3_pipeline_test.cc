// The seed pipeline entirely on S3, run by the real CLI: Auto Loader over JSON files landed in
// s3://<bucket>/landing/ (types inferred) -> bronze raw_logs -> filtered gold gold_active_logs,
// with `tributary run --warehouse s3://<bucket>/wh --trigger available-now`, killed with SIGKILL
// twenty times (at crash points, common/crash_point.h, in turn, and after seeded random delays)
// while new files land between restarts, then run to its end: every landed line must be in
// bronze exactly once and every active one in gold exactly once, read through tributary and by
// DuckDB over the Parquet files an independent S3 client downloads.
//
// And no credential in any output: a representative S3 workload run with a distinctive access
// key id, secret key and session token, after which no stdout, stderr, local file or object in
// the bucket holds any of them.
//
// The server is the moto server of support/s3_test_server.h; the CLI finds it through the
// AWS_* variables given to each child process.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/snapshot.h"
#include "storage/file_system.h"
#include "storage/path.h"
#include "storage/uri_file_system.h"
#include "support/child_process.h"
#include "support/duckdb_oracle.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ChildResult;

constexpr const char* kBucket = "seed-pipeline";
constexpr int kLinesPerFile = 40;

/// The crash points a micro-batch of the pipeline reaches, in order.
const std::vector<std::string> kCrashPoints = {
    "file_source.after_log",      "streaming.after_offsets", "streaming.before_add_batch",
    "parquet.mid_write",          "delta.after_commit",      "streaming.before_commit_log",
    "streaming.after_commit_log",
};

class S3PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::S3TestServer& server = testing::S3TestServer::Get();
    server.Reset();
    server.CreateBucket(kBucket);
    // The checks reach the server through explicit options, not this process's environment.
    fs_ = std::make_shared<storage::UriFileSystem>(server.Options());
    warehouse_ = fmt::format("s3://{}/wh", kBucket);
    landing_ = fmt::format("s3://{}/landing", kBucket);
    fs::create_directories(dir_.Join("home"));
    fs::create_directories(dir_.Join("tmp"));
    fs::create_directories(dir_.Join("outputs"));
    pipeline_file_ = dir_.Join("pipeline.sql");
    std::ofstream(pipeline_file_) << fmt::format(
        "CREATE OR REFRESH STREAMING TABLE raw_logs AS\n"
        "  SELECT * FROM STREAM read_files('{}/', format => 'json', inferColumnTypes => true,\n"
        "                                  maxFilesPerTrigger => 1);\n"
        "CREATE OR REFRESH STREAMING TABLE gold_active_logs AS\n"
        "  SELECT * FROM STREAM(raw_logs) WHERE status = 'active';\n",
        landing_);
    // What a child process gets: the server through the AWS variables, and this test's own
    // HOME and TMPDIR, so every local file a run writes is below dir_.
    child_environment_ = {
        {"AWS_ACCESS_KEY_ID", std::string(testing::kS3TestAccessKey)},
        {"AWS_SECRET_ACCESS_KEY", std::string(testing::kS3TestSecretKey)},
        {"AWS_SESSION_TOKEN", std::nullopt},
        {"AWS_REGION", std::string(testing::kS3TestRegion)},
        {"AWS_DEFAULT_REGION", std::nullopt},
        {"AWS_ENDPOINT_URL_S3", server.Endpoint()},
        {"AWS_ENDPOINT_URL", std::nullopt},
        {"AWS_PROFILE", std::nullopt},
        {"AWS_SHARED_CREDENTIALS_FILE", std::nullopt},
        {"AWS_CONFIG_FILE", std::nullopt},
        {"HOME", dir_.Join("home")},
        {"TMPDIR", dir_.Join("tmp")},
        {"TRIBUTARY_CRASH_AT", std::nullopt},
        {"TRIBUTARY_WAREHOUSE", std::nullopt},
    };
  }

  /// Lands file `index` of kLinesPerFile JSON log lines (ids index * kLinesPerFile ...) in the
  /// landing folder, and records its ids.
  void LandFile(int index, std::mt19937_64& rng) {
    static constexpr const char* kStatus[] = {"active", "active", "inactive", "pending"};
    static constexpr const char* kCountry[] = {"US", "DE", "FR", "BR", "IN", "JP"};
    std::string text;
    for (int64_t id = int64_t{index} * kLinesPerFile; id < int64_t{index + 1} * kLinesPerFile;
         ++id) {
      const char* status = kStatus[rng() % 4];
      text += fmt::format(
          R"({{"id":{},"ts":"2026-11-29T{:02}:{:02}:{:02}.000Z","user_id":{},"status":"{}",)"
          R"("country":"{}","latency_ms":{:.1f}}})",
          id, id / 3600 % 24, id / 60 % 60, id % 60, 1000 + rng() % 500, status,
          kCountry[rng() % 6], static_cast<double>(rng() % 20000) / 10.0);
      text += '\n';
      landed_ids_.push_back(id);
      if (std::string_view(status) == "active") {
        active_ids_.push_back(id);
      }
    }
    ASSERT_OK(fs_->WriteFile(fmt::format("{}/file-{:04}.json", landing_, index), text,
                             storage::WriteMode::kPutIfAbsent));
  }

  /// Runs the CLI with `args`; `crash_at` arms a crash point, `kill_after_ms` kills it after a
  /// delay. Its stdout and stderr are kept in dir_/outputs.
  ChildResult RunCli(std::vector<std::string> args, const std::string& crash_at = "",
                     int64_t kill_after_ms = 0) {
    testing::ChildOptions child;
    child.args = {TRIBUTARY_CLI};
    child.args.insert(child.args.end(), args.begin(), args.end());
    child.environment = child_environment_;
    if (!crash_at.empty()) {
      child.environment["TRIBUTARY_CRASH_AT"] = crash_at;
    }
    child.stdout_path = dir_.Join(fmt::format("outputs/{:03}.stdout", runs_));
    child.stderr_path = dir_.Join(fmt::format("outputs/{:03}.stderr", runs_));
    ++runs_;
    child.kill_after_ms = kill_after_ms;
    return testing::RunChild(child);
  }

  ChildResult RunPipeline(const std::string& crash_at = "", int64_t kill_after_ms = 0) {
    return RunCli({"run", "--warehouse", warehouse_, "--trigger", "available-now", pipeline_file_},
                  crash_at, kill_after_ms);
  }

  /// The ids of `table` as `tributary sql` reads them, sorted.
  std::vector<int64_t> IdsThroughTributary(const std::string& table) {
    const ChildResult result = RunCli({"sql", "--warehouse", warehouse_, "--format", "json",
                                       fmt::format("SELECT id FROM {} ORDER BY id", table)});
    EXPECT_EQ(result.exit_code, 0) << result.Describe();
    std::vector<int64_t> ids;
    std::istringstream lines(result.stdout_text);
    for (std::string line; std::getline(lines, line);) {
      AppendId(line, &ids);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  /// Appends the "id" of the JSON row `text` to `ids`.
  static void AppendId(const std::string& text, std::vector<int64_t>* ids) {
    const json row = json::parse(text, nullptr, false);
    ASSERT_TRUE(row.is_object() && row.contains("id") && row["id"].is_number_integer()) << text;
    ids->push_back(row["id"].get<int64_t>());
  }

  /// The ids in the data files of `table`'s snapshot, downloaded with the AWS SDK for
  /// JavaScript and read by DuckDB, sorted.
  std::vector<int64_t> IdsThroughDuckDb(const std::string& table) {
    std::vector<int64_t> ids;
    const std::string location = storage::JoinPath(warehouse_, table);
    auto snapshot = delta::Snapshot::Load(*fs_, location);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot.ok()) {
      return ids;
    }
    const std::string downloads = dir_.Join("downloads/" + table);
    fs::create_directories(downloads);
    const std::string bucket_prefix = fmt::format("s3://{}/", kBucket);
    std::vector<std::string> files;
    for (const delta::AddFile& add : (*snapshot)->Files()) {
      EXPECT_FALSE(add.deletion_vector.has_value()) << add.path;
      const std::string uri = storage::JoinPath(location, add.path);
      EXPECT_TRUE(uri.starts_with(bucket_prefix)) << uri;
      const std::string local = fmt::format("{}/{:05}.parquet", downloads, files.size());
      const Status downloaded =
          testing::OracleDownload(kBucket, uri.substr(bucket_prefix.size()), local);
      EXPECT_TRUE(downloaded.ok()) << downloaded.ToString();
      files.push_back(local);
    }
    auto per_file = testing::OracleCatParquetMany(files);
    EXPECT_TRUE(per_file.ok()) << per_file.status().ToString();
    if (!per_file.ok()) {
      return ids;
    }
    for (const testing::OracleFileRows& file : *per_file) {
      EXPECT_TRUE(file.status.ok()) << file.file << ": " << file.status.ToString();
      for (const std::string& text : file.rows) {
        AppendId(text, &ids);
      }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static std::vector<int64_t> Sorted(std::vector<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  testing::TempDir dir_;
  std::shared_ptr<storage::FileSystem> fs_;
  std::string warehouse_;
  std::string landing_;
  std::string pipeline_file_;
  std::map<std::string, std::optional<std::string>> child_environment_;
  int runs_ = 0;
  std::vector<int64_t> landed_ids_;
  std::vector<int64_t> active_ids_;
};

TEST_F(S3PipelineTest, TheSeedPipelineKilledTwentyTimesIngestsEveryLandedLineOnce) {
  std::mt19937_64 rng(18);
  int next_file = 0;
  for (; next_file < 3; ++next_file) {
    ASSERT_NO_FATAL_FAILURE(LandFile(next_file, rng));
  }
  constexpr int kKills = 20;
  int kills = 0;
  int point_kills = 0;
  int delay_kills = 0;
  int attempts = 0;
  while (kills < kKills) {
    ASSERT_LT(attempts, 80) << "too few runs were killed: " << kills;
    ChildResult result;
    std::string how;
    if (attempts % 3 == 2) {
      // A kill at an arbitrary instant, whatever the process is doing (an S3 request, RocksDB).
      const int64_t delay_ms = 150 + static_cast<int64_t>(rng() % 1500);
      how = fmt::format("after {} ms", delay_ms);
      result = RunPipeline("", delay_ms);
      delay_kills += result.killed_by_sigkill ? 1 : 0;
    } else {
      // The points in turn, at their first to third visit: a later visit lands in a later
      // batch, or in the gold table's query.
      how =
          fmt::format("{}:{}", kCrashPoints[static_cast<size_t>(point_kills) % kCrashPoints.size()],
                      1 + rng() % 3);
      result = RunPipeline(how);
      point_kills += result.killed_by_sigkill ? 1 : 0;
    }
    ++attempts;
    ASSERT_TRUE(result.killed_by_sigkill || result.exit_code == 0)
        << "run " << attempts << " (" << how << "): tributary run " << result.Describe();
    kills += result.killed_by_sigkill ? 1 : 0;
    // Files keep landing between restarts.
    const int land = 1 + static_cast<int>(rng() % 2);
    for (const int last = next_file + land; next_file < last; ++next_file) {
      ASSERT_NO_FATAL_FAILURE(LandFile(next_file, rng));
    }
  }
  std::printf("%d runs: %d killed at crash points, %d after a delay; %d files landed\n", attempts,
              point_kills, delay_kills, next_file);
  EXPECT_EQ(kills, kKills);
  EXPECT_GE(point_kills, 7) << "every crash point once at least";
  EXPECT_GT(delay_kills, 0);

  const ChildResult final_run = RunPipeline();
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
  EXPECT_THAT(final_run.stdout_text, ::testing::HasSubstr("storage requests:"));

  const std::vector<int64_t> landed = Sorted(landed_ids_);
  const std::vector<int64_t> active = Sorted(active_ids_);
  ASSERT_EQ(landed.size(), static_cast<size_t>(next_file) * kLinesPerFile);
  ASSERT_GT(active.size(), 0u);
  // Sorted and equal to the landed ids, which are distinct: each exactly once.
  EXPECT_TRUE(IdsThroughTributary("raw_logs") == landed) << "bronze through tributary";
  EXPECT_TRUE(IdsThroughTributary("gold_active_logs") == active) << "gold through tributary";
  EXPECT_TRUE(IdsThroughDuckDb("raw_logs") == landed) << "bronze through DuckDB";
  EXPECT_TRUE(IdsThroughDuckDb("gold_active_logs") == active) << "gold through DuckDB";
}

// Auto Loader's RocksDB and the checkpoint lock live in a local working directory (below
// TMPDIR) while the checkpoint is on S3: losing that directory between runs (another machine, a
// cleaned /tmp), even right after a kill, must neither lose nor duplicate a line.
TEST_F(S3PipelineTest, LosingTheLocalWorkingDirectoryLosesAndDuplicatesNothing) {
  std::mt19937_64 rng(5);
  int next_file = 0;
  for (; next_file < 4; ++next_file) {
    ASSERT_NO_FATAL_FAILURE(LandFile(next_file, rng));
  }
  const ChildResult killed = RunPipeline("streaming.after_commit_log:3");
  ASSERT_TRUE(killed.killed_by_sigkill) << killed.Describe();
  const std::string tmp = dir_.Join("tmp");
  ASSERT_FALSE(fs::is_empty(tmp)) << "the run kept nothing in its local working directory";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  ASSERT_NO_FATAL_FAILURE(LandFile(next_file++, rng));
  const ChildResult resumed = RunPipeline();
  ASSERT_EQ(resumed.exit_code, 0) << resumed.Describe();
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  ASSERT_NO_FATAL_FAILURE(LandFile(next_file++, rng));
  const ChildResult again = RunPipeline();
  ASSERT_EQ(again.exit_code, 0) << again.Describe();

  EXPECT_TRUE(IdsThroughTributary("raw_logs") == Sorted(landed_ids_)) << "bronze";
  EXPECT_TRUE(IdsThroughTributary("gold_active_logs") == Sorted(active_ids_)) << "gold";
}

// The other way round: the checkpoint and tables deleted from S3 (to start over) while this
// machine still has the old local working directory. A local checkpoint deleted takes its
// RocksDB with it, so the run starts from nothing; on S3 it must too, not skip the files the
// stale local RocksDB remembers.
TEST_F(S3PipelineTest, AWarehouseDeletedFromS3StartsOverDespiteAStaleLocalDirectory) {
  std::mt19937_64 rng(6);
  for (int file = 0; file < 3; ++file) {
    ASSERT_NO_FATAL_FAILURE(LandFile(file, rng));
  }
  const ChildResult first = RunPipeline();
  ASSERT_EQ(first.exit_code, 0) << first.Describe();
  ASSERT_TRUE(IdsThroughTributary("raw_logs") == Sorted(landed_ids_));
  ASSERT_OK(fs_->DeleteDir(warehouse_, /*recursive=*/true));
  ASSERT_FALSE(fs::is_empty(dir_.Join("tmp")));

  const ChildResult second = RunPipeline();
  ASSERT_EQ(second.exit_code, 0) << second.Describe();
  EXPECT_TRUE(IdsThroughTributary("raw_logs") == Sorted(landed_ids_))
      << "bronze after starting over; the run printed: " << second.stdout_text;
  EXPECT_TRUE(IdsThroughTributary("gold_active_logs") == Sorted(active_ids_)) << "gold";
}

/// The files below `dir`, at any depth.
std::vector<std::string> LocalFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

std::string ReadLocal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_F(S3PipelineTest, NoCredentialInAnyOutputOrFile) {
  std::random_device entropy;
  const uint64_t nonce = (uint64_t{entropy()} << 32) | entropy();
  const std::string key_id = fmt::format("TRIBUTARYKEY{:016X}", nonce);
  const std::string secret = fmt::format("tributary-secret-{:016x}", nonce);
  const std::string token = fmt::format("tributary-token-{:016x}", nonce);
  child_environment_["AWS_ACCESS_KEY_ID"] = key_id;
  child_environment_["AWS_SECRET_ACCESS_KEY"] = secret;
  child_environment_["AWS_SESSION_TOKEN"] = token;

  std::mt19937_64 rng(7);
  for (int file = 0; file < 3; ++file) {
    ASSERT_NO_FATAL_FAILURE(LandFile(file, rng));
  }
  // The pipeline, with progress lines; once killed mid-run and restarted.
  const ChildResult killed = RunPipeline("delta.after_commit:2");
  ASSERT_TRUE(killed.killed_by_sigkill) << killed.Describe();
  ASSERT_NO_FATAL_FAILURE(LandFile(3, rng));
  const ChildResult run = RunPipeline();
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  EXPECT_THAT(run.stdout_text, ::testing::HasSubstr("storage requests:"));
  // The tables' descriptions and histories.
  const std::string raw_logs = storage::JoinPath(warehouse_, "raw_logs");
  for (const char* command : {"describe", "history"}) {
    const ChildResult table = RunCli({"table", command, raw_logs});
    EXPECT_EQ(table.exit_code, 0) << command << ": " << table.Describe();
    EXPECT_FALSE(table.stdout_text.empty()) << command;
  }
  const ChildResult rows = RunCli({"sql", "--warehouse", warehouse_, "--format", "json",
                                   "SELECT count(*) AS n FROM gold_active_logs"});
  EXPECT_EQ(rows.exit_code, 0) << rows.Describe();
  // Failing S3 requests: a bucket that does not exist, through SQL, a table command and a run.
  const ChildResult missing_sql =
      RunCli({"sql", "--warehouse", dir_.Join("local-warehouse"), "--format", "json",
              "SELECT * FROM delta.`s3://no-such-bucket-18/t`"});
  EXPECT_NE(missing_sql.exit_code, 0) << missing_sql.Describe();
  EXPECT_THAT(missing_sql.stderr_text, ::testing::HasSubstr("no-such-bucket-18"));
  const ChildResult missing_table = RunCli({"table", "history", "s3://no-such-bucket-18/t"});
  EXPECT_NE(missing_table.exit_code, 0) << missing_table.Describe();
  // A configuration error: the key id without its secret. That the CLI names the missing
  // variable also shows it read the credentials from this environment.
  child_environment_["AWS_SECRET_ACCESS_KEY"] = std::nullopt;
  const ChildResult no_secret = RunCli({"table", "describe", raw_logs});
  EXPECT_NE(no_secret.exit_code, 0) << no_secret.Describe();
  EXPECT_THAT(no_secret.stderr_text, ::testing::HasSubstr("AWS_SECRET_ACCESS_KEY"));
  child_environment_["AWS_SECRET_ACCESS_KEY"] = secret;
  const ChildResult missing_run = RunCli({"run", "--warehouse", "s3://no-such-bucket-18/wh",
                                          "--trigger", "available-now", pipeline_file_});
  EXPECT_NE(missing_run.exit_code, 0) << missing_run.Describe();

  // Every output and every file the runs left: the captured stdout and stderr, the local
  // working directories (checkpoint locks, progress.jsonl, Auto Loader's RocksDB) below the
  // children's TMPDIR and HOME, and every object in the bucket.
  const std::vector<std::string> credentials = {key_id, secret, token};
  int local_files = 0;
  bool saw_progress = false;
  for (const std::string& path : LocalFiles(dir_.Path())) {
    const std::string text = ReadLocal(path);
    for (const std::string& credential : credentials) {
      EXPECT_EQ(text.find(credential), std::string::npos) << path << " holds " << credential;
    }
    saw_progress = saw_progress || path.ends_with("/progress.jsonl");
    ++local_files;
  }
  EXPECT_TRUE(saw_progress) << "no progress.jsonl below the runs' TMPDIR";
  EXPECT_GT(local_files, 20);

  ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, testing::OracleList(kBucket, ""));
  std::vector<std::string> parquet_objects;
  bool saw_checkpoint_offsets = false;
  for (const std::string& key : keys) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, fs_->ReadFile(fmt::format("s3://{}/{}", kBucket, key)));
    for (const std::string& credential : credentials) {
      EXPECT_EQ(bytes.find(credential), std::string::npos) << key << " holds " << credential;
    }
    if (key.ends_with(".parquet")) {
      const std::string local =
          dir_.Join(fmt::format("parquet-{:04}.parquet", parquet_objects.size()));
      std::ofstream(local, std::ios::binary) << bytes;
      parquet_objects.push_back(local);
    }
    saw_checkpoint_offsets = saw_checkpoint_offsets || key.find("/offsets/") != std::string::npos;
  }
  EXPECT_TRUE(saw_checkpoint_offsets) << "no checkpoint in the bucket";
  // Parquet pages may be compressed: their decoded rows too.
  ASSERT_FALSE(parquet_objects.empty());
  ASSERT_OK_AND_ASSIGN(std::vector<testing::OracleFileRows> decoded,
                       testing::OracleCatParquetMany(parquet_objects));
  for (const testing::OracleFileRows& file : decoded) {
    ASSERT_TRUE(file.status.ok()) << file.file << ": " << file.status.ToString();
    for (const std::string& row : file.rows) {
      for (const std::string& credential : credentials) {
        EXPECT_EQ(row.find(credential), std::string::npos) << file.file << " holds " << credential;
      }
    }
  }
}

}  // namespace
}  // namespace tributary

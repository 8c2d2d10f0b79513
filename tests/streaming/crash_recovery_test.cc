// Exactly-once under real crashes: the stream of stream_driver.cc (JSON files -> filter ->
// projection -> Delta) is killed with SIGKILL at every step of a micro-batch (crash points,
// common/crash_point.h, so every kill lands at the same place on every run), restarted at once
// on the same checkpoint, often with the next crash point armed while it recovers, while new
// input files keep arriving; finally it runs to the end. The table must then hold every
// expected row exactly once, read by our reader and by DuckDB over the files our snapshot
// lists; the Delta log must hold each batch's txn version once; and the checkpoint's offset,
// commit and source logs must agree with each other and with the input.
//
// The suite runs twice: on the local file system and on S3 (the moto server of
// support/s3_test_server.h), where the input files, the table and the checkpoint are s3:// URIs
// in a bucket made for each test, the driver finds the server through the AWS_* variables it
// inherits, and the checks read through tributary's FileSystem and DuckDB over the data files
// downloaded by an independent S3 client. Where a crash point means something else on S3 the
// test says so: an object is published whole when its writer closes it, so a crash inside a
// Parquet write leaves nothing at all behind instead of a torn staging file. The two longest
// tests run on the local disk only (LocalCrashRecoveryTest says why).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
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
#include "tributary/session.h"

namespace tributary {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Rows per input file: with notes of 256 hex digits, one file's rows make a Parquet data file
/// larger than the local file system's 64 KiB write buffer, so a crash inside the Parquet
/// write leaves a torn staging file with bytes in it.
constexpr int kRowsPerFile = 400;

/// Every point of common/crash_point.h, in the order a batch reaches them.
const std::vector<std::string> kCrashPoints = {
    "file_source.after_log",      "streaming.after_offsets", "streaming.before_add_batch",
    "parquet.mid_write",          "delta.after_commit",      "streaming.before_commit_log",
    "streaming.after_commit_log",
};

/// SplitMix64's output function: consecutive inputs give unrelated outputs.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// 256 hex digits that differ from row to row and share no runs with other rows', so they
/// neither compress nor dictionary-encode.
std::string Note(int64_t id) {
  std::string note;
  for (uint64_t block = 0; note.size() < 256; ++block) {
    note += fmt::format("{:016x}", Mix(Mix(static_cast<uint64_t>(id)) + block));
  }
  return note;
}

using testing::ChildResult;

/// The bucket every S3 run works in; the server is reset before each test.
constexpr const char* kBucket = "crash-recovery";

class CrashRecoveryTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (OnS3()) {
      // Started (on first use) before TMPDIR changes below: the server outlives this test.
      testing::S3TestServer& server = testing::S3TestServer::Get();
      server.ExportEnvironment();
      server.Reset();
      server.CreateBucket(kBucket);
      root_ = fmt::format("s3://{}", kBucket);
    } else {
      root_ = dir_.Path();
    }
    // A checkpoint on S3 keeps its lock and Auto Loader's RocksDB in a local working directory
    // below $TMPDIR: one per test, so no test meets another's (the driver inherits it).
    if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr) {
      saved_tmpdir_ = tmpdir;
    }
    ::setenv("TMPDIR", dir_.Path().c_str(), 1);
    fs_ = std::make_shared<storage::UriFileSystem>();
    input_ = root_ + "/input";
    table_ = root_ + "/table";
    checkpoint_ = root_ + "/checkpoint";
    if (!OnS3()) {
      fs::create_directories(input_);
    }
  }

  void TearDown() override {
    if (saved_tmpdir_.has_value()) {
      ::setenv("TMPDIR", saved_tmpdir_->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

  bool OnS3() const { return GetParam() == "s3"; }

  /// Writes input file `index` (rows index * kRowsPerFile ...) and records the rows the table
  /// must get from it, as canonical JSON. Every fifth row is cancelled and filtered out.
  void AddInputFile(int index) {
    const std::string name = fmt::format("events-{:04}.json", index);
    std::string text;
    std::vector<std::string> expected;
    for (int64_t id = int64_t{index} * kRowsPerFile; id < int64_t{index + 1} * kRowsPerFile; ++id) {
      const char* status = id % 5 == 0 ? "cancelled" : id % 2 == 0 ? "active" : "pending";
      const int qty = static_cast<int>(id % 1000);
      text += fmt::format(R"({{"id":{},"status":"{}","qty":{},"note":"{}"}})", id, status, qty,
                          Note(id));
      text += '\n';
      if (id % 5 != 0) {
        expected.push_back(fmt::format(R"({{"id":{},"qty":{},"note":"{}","bucket":{}}})", id, qty,
                                       Note(id), id % 7));
      }
    }
    if (OnS3()) {
      // An object is published whole: the source never lists a half-written file.
      ASSERT_OK(
          fs_->WriteFile(storage::JoinPath(input_, name), text, storage::WriteMode::kPutIfAbsent));
    } else {
      // Written beside the folder and moved in, so the source never lists a half-written file.
      const std::string staging = dir_.Join(name);
      {
        std::ofstream out(staging);
        out << text;
      }
      fs::rename(staging, fs::path(input_) / name);
    }
    expected_rows_.insert(expected_rows_.end(), expected.begin(), expected.end());
    input_names_.insert(name);
  }

  bool Exists(const std::string& path) const { return fs_->GetFileInfo(path).ok(); }

  /// The names of the files directly in `dir`; none when it does not exist.
  std::vector<std::string> FileNames(const std::string& dir) const {
    std::vector<std::string> names;
    auto listed = fs_->List(dir, storage::ListOptions());
    if (!listed.ok()) {
      EXPECT_TRUE(listed.status().IsNotFound()) << dir << ": " << listed.status().ToString();
      return names;
    }
    for (const storage::FileInfo& info : *listed) {
      if (!info.is_directory) {
        names.emplace_back(storage::BaseName(info.path));
      }
    }
    return names;
  }

  /// The rows of the Delta table at `table`, as sorted JSON, read by our reader.
  static std::vector<std::string> DeltaTableRows(const std::string& table) {
    std::vector<std::string> rows;
    auto session = Session::Builder().TimeZone("UTC").Build();
    EXPECT_TRUE(session.ok());
    auto collected = (*session)->Read().Format("delta").Load(table).Collect();
    EXPECT_TRUE(collected.ok()) << collected.status().ToString();
    if (collected.ok()) {
      rows.reserve(collected->size());
      for (const Row& row : *collected) {
        rows.push_back(row.ToJson());
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  /// Runs the driver to its end or to the crash point `crash_at` ("name:n"; empty: none).
  ChildResult RunDriver(const std::string& crash_at) {
    std::vector<std::string> args = {TRIBUTARY_STREAM_DRIVER,
                                     "--input",
                                     input_,
                                     "--table",
                                     table_,
                                     "--checkpoint",
                                     checkpoint_,
                                     "--max-files",
                                     std::to_string(max_files_),
                                     "--source",
                                     source_};
    if (!query_.empty()) {
      args.insert(args.end(), {"--query", query_});
    }
    testing::ChildOptions child;
    child.args = std::move(args);
    // Unset unless armed here, whatever the test process's environment says.
    child.environment["TRIBUTARY_CRASH_AT"] =
        crash_at.empty() ? std::nullopt : std::optional<std::string>(crash_at);
    child.environment["TRIBUTARY_THREADS"] = std::to_string(threads_);
    child.stderr_path = dir_.Join("driver.stderr");
    return testing::RunChild(child);
  }

  /// The rows of one uninterrupted run of the input on its own table and checkpoint; table_
  /// and checkpoint_ are the killed run's again afterwards.
  void RunReference(std::vector<std::string>* rows) {
    const std::string killed_table = table_;
    const std::string killed_checkpoint = checkpoint_;
    table_ = root_ + "/reference_table";
    checkpoint_ = root_ + "/reference_checkpoint";
    const ChildResult reference = RunDriver("");
    *rows = DeltaTableRows(table_);
    table_ = killed_table;
    checkpoint_ = killed_checkpoint;
    ASSERT_EQ(reference.exit_code, 0) << reference.Describe();
  }

  /// Runs the driver killed at each of `points` in turn, round after round, until at least
  /// `min_kills` kills or the run completes, then once more to its end: the table must hold
  /// exactly `expected`, the uninterrupted run's rows.
  void KillAtEachInTurnThenFinish(const std::vector<std::string>& points, int min_kills,
                                  const std::vector<std::string>& expected) {
    int kills = 0;
    bool finished = false;
    while (kills < min_kills && !finished) {
      for (const std::string& point : points) {
        const ChildResult result = RunDriver(point);
        ASSERT_TRUE(result.killed_by_sigkill || result.exit_code == 0)
            << point << ": the driver " << result.Describe();
        kills += result.killed_by_sigkill ? 1 : 0;
        finished = finished || result.exit_code == 0;
      }
    }
    EXPECT_GE(kills, min_kills);
    const ChildResult final_run = RunDriver("");
    ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
    EXPECT_EQ(DeltaTableRows(table_), expected);
  }

  /// The (id, path) of every log file in `dir` whose name is a decimal batch id.
  std::map<int64_t, std::string> LogFiles(const std::string& dir) const {
    std::map<int64_t, std::string> files;
    for (const std::string& name : FileNames(dir)) {
      if (!name.empty() &&
          std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        files[std::stoll(name)] = storage::JoinPath(dir, name);
      }
    }
    return files;
  }

  /// The lines of the file at `path`, without their '\n'; none when it cannot be read.
  std::vector<std::string> Lines(const std::string& path) const {
    auto text = fs_->ReadFile(path);
    EXPECT_TRUE(text.ok()) << path << ": " << text.status().ToString();
    std::vector<std::string> lines;
    if (!text.ok()) {
      return lines;
    }
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
      lines.push_back(line);
    }
    return lines;
  }

  static std::vector<std::string> Sorted(std::vector<std::string> rows) {
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  /// The rows of the table through our public reader, as canonical JSON.
  void ExpectTableRowsThroughOurReader() {
    ASSERT_OK_AND_ASSIGN(auto session, Session::Builder().TimeZone("UTC").Build());
    ASSERT_OK_AND_ASSIGN(std::vector<Row> rows,
                         session->Read().Format("delta").Load(table_).Collect());
    std::vector<std::string> json_rows;
    json_rows.reserve(rows.size());
    for (const Row& row : rows) {
      json_rows.push_back(row.ToJson());
    }
    ASSERT_EQ(json_rows.size(), expected_rows_.size());
    EXPECT_TRUE(Sorted(json_rows) == Sorted(expected_rows_))
        << "the table's rows differ from the expected rows";
  }

  /// The rows of the data files our snapshot lists, read by DuckDB.
  void ExpectTableRowsThroughDuckDb() {
    ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(*fs_, table_));
    std::vector<std::string> files;
    for (const delta::AddFile& add : snapshot->Files()) {
      ASSERT_FALSE(add.deletion_vector.has_value()) << add.path;
      files.push_back(add.path.starts_with("/") ? add.path : table_ + "/" + add.path);
    }
    if (OnS3()) {
      // DuckDB cannot read s3:// here: the files are downloaded first.
      ASSERT_NO_FATAL_FAILURE(DownloadForDuckDb(&files));
    }
    ASSERT_OK_AND_ASSIGN(std::vector<testing::OracleFileRows> per_file,
                         testing::OracleCatParquetMany(files));
    std::vector<std::string> rows;
    for (const testing::OracleFileRows& file : per_file) {
      ASSERT_TRUE(file.status.ok()) << file.file << ": " << file.status.ToString();
      rows.insert(rows.end(), file.rows.begin(), file.rows.end());
    }
    ASSERT_EQ(rows.size(), expected_rows_.size());
    EXPECT_TRUE(Sorted(rows) == Sorted(expected_rows_))
        << "DuckDB reads other rows from the table's files than expected";
  }

  /// Replaces each s3:// URI of `files` by a local copy downloaded with the AWS SDK for
  /// JavaScript (an S3 client independent of ours).
  void DownloadForDuckDb(std::vector<std::string>* files) {
    const std::string downloads = dir_.Join("downloads");
    fs::create_directories(downloads);
    const std::string bucket_prefix = fmt::format("s3://{}/", kBucket);
    for (size_t i = 0; i < files->size(); ++i) {
      std::string& file = (*files)[i];
      ASSERT_TRUE(file.starts_with(bucket_prefix)) << file;
      const std::string local = fmt::format("{}/{:05}.parquet", downloads, i);
      ASSERT_OK(testing::OracleDownload(kBucket, file.substr(bucket_prefix.size()), local));
      file = local;
    }
  }

  /// On S3 a crash inside a Parquet write leaves nothing: an object is published whole when
  /// its writer closes it. Every data object of the table is a complete Parquet file (its
  /// bytes start and end with the magic), and no staging object exists.
  void ExpectOnlyWholeParquetObjects() {
    int data_objects = 0;
    storage::ListOptions with_staging;
    with_staging.include_staging_files = true;
    ASSERT_OK_AND_ASSIGN(std::vector<storage::FileInfo> objects, fs_->List(table_, with_staging));
    for (const storage::FileInfo& object : objects) {
      if (object.is_directory) {
        continue;
      }
      EXPECT_FALSE(storage::IsStagingFileName(storage::BaseName(object.path))) << object.path;
      ASSERT_OK_AND_ASSIGN(std::string bytes, fs_->ReadFile(object.path));
      EXPECT_TRUE(bytes.size() >= 8 && bytes.starts_with("PAR1") && bytes.ends_with("PAR1"))
          << object.path << " is not a whole Parquet file (" << bytes.size() << " bytes)";
      ++data_objects;
    }
    EXPECT_GT(data_objects, 0);
  }

  /// Each batch's txn(query id, batch id) is in the log exactly once, and nothing else is.
  /// Returns the batch ids found.
  std::set<int64_t> ExpectOneCommitPerBatch(const std::string& query_id) {
    std::set<int64_t> versions;
    std::set<std::string> added_paths;
    const std::string log_dir = table_ + "/_delta_log";
    for (const std::string& name : FileNames(log_dir)) {
      if (name.size() != 25 || !name.ends_with(".json")) {
        continue;
      }
      int txns_in_commit = 0;
      for (const std::string& line : Lines(storage::JoinPath(log_dir, name))) {
        const json action = json::parse(line, nullptr, false);
        EXPECT_FALSE(action.is_discarded()) << name << ": " << line;
        if (action.contains("txn")) {
          ++txns_in_commit;
          EXPECT_EQ(action["txn"]["appId"], query_id) << name;
          const int64_t version = action["txn"]["version"].get<int64_t>();
          EXPECT_TRUE(versions.insert(version).second)
              << "batch " << version << " committed twice; again in " << name;
        }
        if (action.contains("add")) {
          EXPECT_TRUE(added_paths.insert(action["add"]["path"].get<std::string>()).second)
              << name << " adds a file added before";
        }
        EXPECT_FALSE(action.contains("remove")) << name;
      }
      EXPECT_EQ(txns_in_commit, 1) << name << " is not one batch's commit";
    }
    return versions;
  }

  /// offsets/ and commits/ cover the same batches, every batch's source offset moves on by
  /// one source log entry, and the source log took every input file exactly once.
  void ExpectConsistentCheckpoint(const std::set<int64_t>& committed_batches) {
    const std::map<int64_t, std::string> offsets = LogFiles(checkpoint_ + "/offsets");
    const std::map<int64_t, std::string> commits = LogFiles(checkpoint_ + "/commits");
    ASSERT_FALSE(offsets.empty());
    std::set<int64_t> offset_ids;
    std::set<int64_t> commit_ids;
    for (const auto& [id, path] : offsets) {
      offset_ids.insert(id);
    }
    for (const auto& [id, path] : commits) {
      commit_ids.insert(id);
    }
    EXPECT_EQ(offset_ids, commit_ids) << "a batch is logged but not committed, or the reverse";
    EXPECT_EQ(offset_ids, committed_batches) << "the checkpoint's batches are not the table's";
    EXPECT_EQ(*offset_ids.rbegin() - *offset_ids.begin() + 1,
              static_cast<int64_t>(offset_ids.size()))
        << "offsets/ has a gap";

    int64_t previous_log_offset = -1;
    for (const auto& [id, path] : offsets) {
      const std::vector<std::string> lines = Lines(path);
      ASSERT_EQ(lines.size(), 3u) << path;
      EXPECT_EQ(lines[0], "v1") << path;
      const json offset = json::parse(lines[2], nullptr, false);
      ASSERT_TRUE(offset.is_object() && offset.contains("logOffset")) << path << ": " << lines[2];
      const int64_t log_offset = offset["logOffset"].get<int64_t>();
      // One file per trigger: each batch is exactly the next source log entry.
      EXPECT_EQ(log_offset, previous_log_offset + 1) << path;
      previous_log_offset = log_offset;
    }

    const std::map<int64_t, std::string> source_log = LogFiles(checkpoint_ + "/sources/0");
    ASSERT_FALSE(source_log.empty());
    EXPECT_EQ(source_log.rbegin()->first, previous_log_offset)
        << "the source log has entries no batch took";
    std::multiset<std::string> taken;
    for (const auto& [id, path] : source_log) {
      const std::vector<std::string> lines = Lines(path);
      ASSERT_GE(lines.size(), 2u) << path;
      for (size_t i = 1; i < lines.size(); ++i) {
        const json entry = json::parse(lines[i], nullptr, false);
        ASSERT_TRUE(entry.is_object() && entry.contains("path")) << path << ": " << lines[i];
        taken.insert(fs::path(entry["path"].get<std::string>()).filename().string());
      }
    }
    EXPECT_EQ(taken, std::multiset<std::string>(input_names_.begin(), input_names_.end()))
        << "the source log did not take every input file exactly once";
  }

  /// The driver's --source: Spark's JSON file source, or Auto Loader ("cloudFiles").
  std::string source_ = "json";
  /// stream_driver's --query; empty: the stateless filter and projection.
  std::string query_;
  /// The driver's --max-files (files per micro-batch) and its threads (TRIBUTARY_THREADS).
  int max_files_ = 1;
  int threads_ = 1;
  testing::TempDir dir_;
  std::optional<std::string> saved_tmpdir_;
  /// The test's storage root: dir_ or s3://kBucket.
  std::string root_;
  /// Every store by its scheme, configured for S3 by the environment ExportEnvironment set.
  std::shared_ptr<storage::FileSystem> fs_;
  std::string input_;
  std::string table_;
  std::string checkpoint_;
  std::vector<std::string> expected_rows_;
  std::set<std::string> input_names_;
};

/// The suite's two longest runs, on the local disk only: against the moto server they take
/// 80 s and 55 s. On S3 the suite runs the rest, which together reach every crash point
/// (repeated crashes at each, with no torn object left), Auto Loader with files landing during
/// runs, a crash inside a Delta checkpoint write, and state stores in the checkpoint (a smaller
/// windowed aggregation).
class LocalCrashRecoveryTest : public CrashRecoveryTest {};

TEST_P(LocalCrashRecoveryTest, KilledAtEveryStepOfABatchStillWritesEveryRowExactlyOnce) {
  int next_file = 0;
  for (; next_file < 80; ++next_file) {
    AddInputFile(next_file);
  }

  // 8 rounds over the 7 points: 56 kills. The counts keep most kills early in a run, so a
  // restart often meets the next armed point while it is still recovering the batch the last
  // kill interrupted.
  const std::vector<int> visit_per_round = {1, 2, 1, 3, 1, 2, 1, 2};
  std::map<std::string, int> kills_per_point;
  int kills = 0;
  for (size_t round = 0; round < visit_per_round.size(); ++round) {
    for (size_t i = 0; i < kCrashPoints.size(); ++i) {
      // Each round starts one point later, so every point follows every other one.
      const std::string& point = kCrashPoints[(i + round) % kCrashPoints.size()];
      const std::string crash_at = fmt::format("{}:{}", point, visit_per_round[round]);
      const ChildResult result = RunDriver(crash_at);
      ASSERT_TRUE(result.killed_by_sigkill)
          << "kill " << kills << " at " << crash_at << ": the driver " << result.Describe();
      ++kills_per_point[point];
      ++kills;
      // Files keep landing between crashes.
      if (kills == 14 || kills == 35) {
        for (const int last = next_file + 10; next_file < last; ++next_file) {
          AddInputFile(next_file);
        }
      }
    }
  }
  EXPECT_GE(kills, 50);
  for (const std::string& point : kCrashPoints) {
    EXPECT_GE(kills_per_point[point], 8) << point;
  }

  // A crash inside the Parquet write left torn staging files with bytes in them, which no
  // reader may take for data.
  int64_t torn_bytes = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(table_)) {
    if (entry.is_regular_file() && storage::IsStagingFileName(entry.path().filename().string())) {
      torn_bytes += static_cast<int64_t>(entry.file_size());
    }
  }
  EXPECT_GT(torn_bytes, 0) << "parquet.mid_write left no partly written file";

  const ChildResult final_run = RunDriver("");
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
  EXPECT_EQ(next_file, 100);

  const std::vector<std::string> metadata = Lines(checkpoint_ + "/metadata");
  ASSERT_EQ(metadata.size(), 1u);
  const std::string query_id = json::parse(metadata[0])["id"].get<std::string>();
  const std::set<int64_t> batches = ExpectOneCommitPerBatch(query_id);
  EXPECT_EQ(batches.size(), 100u) << "one batch per input file";
  ExpectConsistentCheckpoint(batches);
  ExpectTableRowsThroughOurReader();
  ExpectTableRowsThroughDuckDb();

  // Running again finds nothing new and changes nothing.
  const size_t log_entries = FileNames(table_ + "/_delta_log").size();
  const ChildResult idle_run = RunDriver("");
  ASSERT_EQ(idle_run.exit_code, 0) << idle_run.Describe();
  EXPECT_EQ(FileNames(table_ + "/_delta_log").size(), log_entries);
}

// The same with four files per micro-batch read on three threads (a scan split across workers):
// every row exactly once after kills at every step.
TEST_P(LocalCrashRecoveryTest, KilledAtEveryStepWithABatchsFilesReadOnThreadsWritesEachRowOnce) {
  max_files_ = 4;
  threads_ = 3;
  int next_file = 0;
  for (; next_file < 40; ++next_file) {
    AddInputFile(next_file);
  }
  int kills = 0;
  for (const int visit : {1, 2}) {
    for (const std::string& point : kCrashPoints) {
      const ChildResult result = RunDriver(fmt::format("{}:{}", point, visit));
      ASSERT_TRUE(result.killed_by_sigkill) << "kill " << kills << " at " << point << ":" << visit
                                            << ": the driver " << result.Describe();
      ++kills;
    }
  }
  EXPECT_EQ(kills, 2 * static_cast<int>(kCrashPoints.size()));
  const ChildResult final_run = RunDriver("");
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
  const std::string query_id =
      json::parse(Lines(checkpoint_ + "/metadata").at(0))["id"].get<std::string>();
  const std::set<int64_t> batches = ExpectOneCommitPerBatch(query_id);
  EXPECT_EQ(batches.size(), 10u) << "four input files per batch";
  ExpectConsistentCheckpoint(batches);
  ExpectTableRowsThroughOurReader();
  ExpectTableRowsThroughDuckDb();
}

// Auto Loader: the seen files in RocksDB and the schema inferred into the checkpoint on the
// first start must survive kills at every step, while files keep landing during the runs.
TEST_P(CrashRecoveryTest, AutoLoaderKilledWhileFilesKeepArrivingIngestsEachFileOnce) {
  source_ = "cloudFiles";
  int next_file = 0;
  for (; next_file < 20; ++next_file) {
    AddInputFile(next_file);
  }
  // The first start infers the schema; kill it right after the first source log entry, before
  // anything else of the query is written.
  ASSERT_TRUE(RunDriver("file_source.after_log:1").killed_by_sigkill);
  ASSERT_TRUE(Exists(checkpoint_ + "/schema/_schemas/0"));

  int kills = 1;
  const std::vector<int> visit_per_round = {1, 3, 2};
  for (const int visit : visit_per_round) {
    for (const std::string& point : kCrashPoints) {
      // A file lands while the driver runs: whether this run or a later one takes it, it must
      // be ingested exactly once. The main thread only waits for the child meanwhile.
      std::thread landing([this, index = next_file++] { AddInputFile(index); });
      const ChildResult result = RunDriver(fmt::format("{}:{}", point, visit));
      landing.join();
      ASSERT_TRUE(result.killed_by_sigkill) << "kill " << kills << " at " << point << ":" << visit
                                            << ": the driver " << result.Describe();
      ++kills;
    }
  }
  EXPECT_EQ(kills, 22);

  const ChildResult final_run = RunDriver("");
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
  const std::string query_id =
      json::parse(Lines(checkpoint_ + "/metadata").at(0))["id"].get<std::string>();
  const std::set<int64_t> batches = ExpectOneCommitPerBatch(query_id);
  EXPECT_EQ(batches.size(), static_cast<size_t>(next_file)) << "one batch per input file";
  ExpectConsistentCheckpoint(batches);
  ExpectTableRowsThroughOurReader();
  ExpectTableRowsThroughDuckDb();
  // The schema inferred on the first start was kept: no second version.
  EXPECT_FALSE(Exists(checkpoint_ + "/schema/_schemas/1"));
}

TEST_P(CrashRecoveryTest, AWindowedAggregationKilledAtEachStateStepWritesTheUninterruptedOutput) {
  query_ = "windowed";
  // 60 files of one batch each (--max-files 1), each followed by a no-data batch when the
  // watermark closes a window: about 120 batches, so 50 kills land in distinct batches and the
  // state snapshots (every 10 versions) are written between kills too.
  // On S3, 14 files and 10 kills: a request to the moto server costs milliseconds.
  const int files = OnS3() ? 14 : 60;
  for (int file = 0; file < files; ++file) {
    AddInputFile(file);
  }
  std::vector<std::string> expected;
  ASSERT_NO_FATAL_FAILURE(RunReference(&expected));
  // 60 files of 400 seconds in 100-second windows, 3 statuses; the last window never closes.
  ASSERT_EQ(expected.size(), static_cast<size_t>(files * 4 - 1) * 3U);

  // Each kill lands in a later batch of the run it interrupts; a state partition's changelog
  // is written once per partition and batch (4 partitions).
  KillAtEachInTurnThenFinish(
      {"state.after_changelog:2", "streaming.after_state_commit:2", "state.after_changelog:5",
       "streaming.before_commit_log:3", "delta.after_commit:2", "streaming.after_offsets:2",
       "streaming.after_state_commit:1", "state.after_changelog:1", "state.after_snapshot:1"},
      OnS3() ? 10 : 50, expected);
}

TEST_P(LocalCrashRecoveryTest, AStreamStreamJoinKilledAtEachStateStepWritesTheUninterruptedOutput) {
  query_ = "joined";
  // 30 files of one batch each: each batch joins its file's active rows with their pending
  // neighbours and emits the active rows left unmatched by the batch before (the watermark
  // passed them), so every kill interrupts a batch with join state to restore.
  constexpr int kFiles = 30;
  for (int file = 0; file < kFiles; ++file) {
    AddInputFile(file);
  }
  std::vector<std::string> expected;
  ASSERT_NO_FATAL_FAILURE(RunReference(&expected));
  // Active ids are the even ones that are not multiples of 5: 160 per file, each once, with
  // its pending neighbour unless id + 1 is a multiple of 5 (cancelled).
  ASSERT_EQ(expected.size(), static_cast<size_t>(kFiles) * 160U);
  EXPECT_EQ(std::count_if(expected.begin(), expected.end(),
                          [](const std::string& row) {
                            return row.find(R"("rqty":null)") != std::string::npos;
                          }),
            kFiles * 40);

  KillAtEachInTurnThenFinish(
      {"state.after_changelog:3", "streaming.after_state_commit:2", "delta.after_commit:2",
       "streaming.before_commit_log:2", "state.after_changelog:6", "streaming.after_offsets:2",
       "state.after_snapshot:1"},
      20, expected);
}

TEST_P(CrashRecoveryTest, RepeatedCrashesAtTheSameStepAreRecoveredEachTime) {
  for (int file = 0; file < 12; ++file) {
    AddInputFile(file);
  }
  // A crash loop: the same point three times in a row, so each restart dies again at the same
  // step, mostly of the very batch it is recovering.
  for (const std::string& point : kCrashPoints) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      const ChildResult result = RunDriver(point + ":1");
      ASSERT_TRUE(result.killed_by_sigkill)
          << point << " (repeat " << repeat << "): the driver " << result.Describe();
    }
  }
  if (OnS3()) {
    // Three kills inside Parquet writes left nothing behind.
    ExpectOnlyWholeParquetObjects();
  }
  const ChildResult final_run = RunDriver("");
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();

  const std::string query_id =
      json::parse(Lines(checkpoint_ + "/metadata").at(0))["id"].get<std::string>();
  const std::set<int64_t> batches = ExpectOneCommitPerBatch(query_id);
  EXPECT_EQ(batches.size(), 12u);
  ExpectConsistentCheckpoint(batches);
  ExpectTableRowsThroughOurReader();
}

TEST_P(CrashRecoveryTest, ACrashWhileWritingADeltaCheckpointLosesNothing) {
  for (int file = 0; file < 12; ++file) {
    AddInputFile(file);
  }
  // Visits 1 to 11 of parquet.mid_write are the data files of batches 0 to 10; commit 10 is the
  // first one the table checkpoints (delta.checkpointInterval 10), so visit 12 is inside that
  // checkpoint's Parquet write.
  const ChildResult killed = RunDriver("parquet.mid_write:12");
  ASSERT_TRUE(killed.killed_by_sigkill) << killed.Describe();
  const std::string log_dir = table_ + "/_delta_log";
  EXPECT_TRUE(Exists(log_dir + "/00000000000000000010.json"));
  EXPECT_FALSE(Exists(log_dir + "/00000000000000000010.checkpoint.parquet"));
  if (OnS3()) {
    // The checkpoint object is published whole on close: the kill left no part of it.
    storage::ListOptions with_staging;
    with_staging.include_staging_files = true;
    ASSERT_OK_AND_ASSIGN(std::vector<storage::FileInfo> objects, fs_->List(log_dir, with_staging));
    for (const storage::FileInfo& object : objects) {
      EXPECT_EQ(std::string(storage::BaseName(object.path)).find("checkpoint"), std::string::npos)
          << object.path;
    }
  } else {
    bool torn_checkpoint = false;
    for (const fs::directory_entry& entry : fs::directory_iterator(log_dir)) {
      const std::string name = entry.path().filename().string();
      torn_checkpoint = torn_checkpoint || (storage::IsStagingFileName(name) &&
                                            name.starts_with(".00000000000000000010.checkpoint"));
    }
    EXPECT_TRUE(torn_checkpoint) << "the kill did not land inside the checkpoint write";
  }

  const ChildResult final_run = RunDriver("");
  ASSERT_EQ(final_run.exit_code, 0) << final_run.Describe();
  const std::string query_id =
      json::parse(Lines(checkpoint_ + "/metadata").at(0))["id"].get<std::string>();
  const std::set<int64_t> batches = ExpectOneCommitPerBatch(query_id);
  EXPECT_EQ(batches.size(), 12u);
  ExpectConsistentCheckpoint(batches);
  ExpectTableRowsThroughOurReader();
  ExpectTableRowsThroughDuckDb();
}

TEST_P(CrashRecoveryTest, ACrashPointVisitedFewerTimesThanArmedDoesNotFire) {
  for (int file = 0; file < 3; ++file) {
    AddInputFile(file);
  }
  // Three batches reach streaming.after_commit_log three times: the fourth visit never comes.
  const ChildResult result = RunDriver("streaming.after_commit_log:4");
  ASSERT_EQ(result.exit_code, 0) << result.Describe();
  EXPECT_EQ(LogFiles(checkpoint_ + "/commits").size(), 3u);
  ExpectTableRowsThroughOurReader();
}

TEST_P(CrashRecoveryTest, AMalformedCrashPointIsReportedAndArmsNothing) {
  AddInputFile(0);
  // No visit number: a typo must not look like a test that passed without crashing.
  const ChildResult result = RunDriver("streaming.after_offsets");
  ASSERT_EQ(result.exit_code, 0) << result.Describe();
  EXPECT_THAT(result.stderr_text,
              ::testing::HasSubstr("TRIBUTARY_CRASH_AT=\"streaming.after_offsets\" ignored"));
  EXPECT_EQ(LogFiles(checkpoint_ + "/commits").size(), 1u);
}

/// "local" or "s3": the parameter is the test name's suffix.
std::string StorageName(const ::testing::TestParamInfo<std::string>& param) {
  return param.param;
}

INSTANTIATE_TEST_SUITE_P(Storage, CrashRecoveryTest, ::testing::Values("local", "s3"), StorageName);
INSTANTIATE_TEST_SUITE_P(Storage, LocalCrashRecoveryTest, ::testing::Values("local"), StorageName);

}  // namespace
}  // namespace tributary

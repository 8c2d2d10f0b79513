// WriteCheckpoint: a checkpoint of a corpus table, loaded without the commits it replaces,
// gives the same snapshot and rows as the log; DuckDB reads the file; `_last_checkpoint`
// never moves back. ShouldCheckpoint follows delta.checkpointInterval.

#include "delta/checkpoint_writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "delta/table_rows.h"
#include "storage/fault_injection_file_system.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

namespace fs = std::filesystem;

std::string CheckpointName(int64_t version) {
  std::string digits = std::to_string(version);
  return std::string(20 - digits.size(), '0') + digits + ".checkpoint.parquet";
}

// A file's identity in a snapshot: path and deletion vector.
std::string FileKey(const AddFile& add) {
  return add.path + "|" + (add.deletion_vector ? add.deletion_vector->UniqueId() : "");
}

// Everything replay gives for one live file, as one comparable string.
std::string Describe(const AddFile& add) {
  std::string out =
      FileKey(add) + "|" + std::to_string(add.size) + "|" + std::to_string(add.modification_time) +
      "|" + add.stats.value_or("<null>") + "|" +
      (add.base_row_id ? std::to_string(*add.base_row_id) : "-") + "|" +
      (add.default_row_commit_version ? std::to_string(*add.default_row_commit_version) : "-");
  for (const auto& [key, value] : add.partition_values) {
    out.append("|").append(key).append("=").append(value.value_or("<null>"));
  }
  for (const auto& [key, value] : add.tags) {
    out.append("|tag:").append(key).append("=").append(value);
  }
  if (add.deletion_vector) {
    out += "|dv:" + std::to_string(add.deletion_vector->size_in_bytes) + ":" +
           std::to_string(add.deletion_vector->cardinality);
  }
  return out;
}

std::vector<std::string> DescribeFiles(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const AddFile& add : snapshot.Files()) {
    out.push_back(Describe(add));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void ExpectSameState(const Snapshot& expected, const Snapshot& actual) {
  EXPECT_EQ(actual.Version(), expected.Version());
  EXPECT_EQ(DescribeFiles(actual), DescribeFiles(expected));
  const Protocol& p = expected.GetProtocol();
  const Protocol& q = actual.GetProtocol();
  EXPECT_EQ(q.min_reader_version, p.min_reader_version);
  EXPECT_EQ(q.min_writer_version, p.min_writer_version);
  EXPECT_EQ(q.reader_features, p.reader_features);
  EXPECT_EQ(q.writer_features, p.writer_features);
  const Metadata& m = expected.GetMetadata();
  const Metadata& n = actual.GetMetadata();
  EXPECT_EQ(n.id, m.id);
  EXPECT_EQ(n.name, m.name);
  EXPECT_EQ(n.description, m.description);
  EXPECT_EQ(n.format_provider, m.format_provider);
  EXPECT_EQ(n.schema_string, m.schema_string);
  EXPECT_EQ(n.partition_columns, m.partition_columns);
  EXPECT_EQ(n.configuration, m.configuration);
  EXPECT_EQ(n.created_time, m.created_time);
  EXPECT_EQ(actual.Transactions(), expected.Transactions());
  EXPECT_EQ(actual.Domains(), expected.Domains());
}

using testing::SortedRows;

// The `add.path` strings exactly as the commit files spell them (writers put path first).
std::set<std::string> RawAddPaths(const std::string& log_dir) {
  static const std::regex kAddPath(R"re("add":\{"path":"([^"]*)")re");
  std::set<std::string> out;
  storage::LocalFileSystem local;
  for (const auto& entry : fs::directory_iterator(log_dir)) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    auto text = local.ReadFile(entry.path().string());
    EXPECT_TRUE(text.ok());
    for (std::sregex_iterator it(text->begin(), text->end(), kAddPath), end; it != end; ++it) {
      out.insert((*it)[1].str());
    }
  }
  return out;
}

struct CorpusTable {
  const char* name;
  const char* dir;  // below the test data folder
  bool has_data;    // data files present: compare rows too
  // What the table exercises, checked so that a corpus change cannot hollow the test out.
  bool has_txns = false;
  bool has_domains = false;
  bool has_deletion_vectors = false;
};

void PrintTo(const CorpusTable& table, std::ostream* os) {
  *os << table.name;
}

class CheckpointRoundTripTest : public ::testing::TestWithParam<CorpusTable> {
 protected:
  void SetUp() override {
    root_ = dir_.Join("table");
    fs::copy(testing::TestdataDir() + "/" + GetParam().dir, root_, fs::copy_options::recursive);
    // Start without checkpoints so that replay reads the commits only.
    for (const auto& entry : fs::directory_iterator(LogDir())) {
      const std::string name = entry.path().filename().string();
      if (name.find(".checkpoint.") != std::string::npos || name == "_last_checkpoint") {
        fs::remove(entry.path());
      }
    }
  }

  std::string LogDir() const { return root_ + "/_delta_log"; }

  // Deletes the commits before `version`: replay of `version` must then start at its checkpoint.
  // (The commit at `version` stays: BuildLogSegment takes the latest version from the commits.)
  void DeleteCommitsBefore(int64_t version) {
    for (const auto& entry : fs::directory_iterator(LogDir())) {
      auto file = ParseLogFileName(entry.path().filename().string());
      if (file && file->kind == LogFile::Kind::kCommit && file->version < version) {
        fs::remove(entry.path());
      }
    }
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::string root_;
};

TEST_P(CheckpointRoundTripTest, CheckpointAloneGivesTheSameSnapshotRowsAndPaths) {
  ASSERT_OK_AND_ASSIGN(auto original, Snapshot::Load(fs_, root_));
  const int64_t version = original->Version();
  EXPECT_EQ(!original->Transactions().empty(), GetParam().has_txns);
  EXPECT_EQ(!original->Domains().empty(), GetParam().has_domains);
  EXPECT_EQ(std::any_of(original->Files().begin(), original->Files().end(),
                        [](const AddFile& add) { return add.deletion_vector.has_value(); }),
            GetParam().has_deletion_vectors);
  const std::set<std::string> raw_paths = RawAddPaths(LogDir());
  std::vector<std::string> original_rows;
  if (GetParam().has_data) {
    original_rows = SortedRows(fs_, *original);
    ASSERT_FALSE(original_rows.empty());
  }

  ASSERT_OK_AND_ASSIGN(int64_t written, WriteCheckpoint(fs_, *original));
  EXPECT_EQ(written, version);
  const std::string checkpoint = LogDir() + "/" + CheckpointName(version);
  ASSERT_TRUE(fs::exists(checkpoint));

  DeleteCommitsBefore(version);
  ASSERT_OK_AND_ASSIGN(auto reloaded, Snapshot::Load(fs_, root_));
  EXPECT_EQ(reloaded->Segment().checkpoint_version, version);
  EXPECT_TRUE(reloaded->Segment().commits.empty());
  ExpectSameState(*original, *reloaded);
  if (GetParam().has_data) {
    EXPECT_EQ(SortedRows(fs_, *reloaded), original_rows);
  }

  // DuckDB: one add row per live file, paths spelled exactly as the writer of the log did.
  ASSERT_OK_AND_ASSIGN(auto count, testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" +
                                                        checkpoint + "') WHERE add IS NOT NULL"));
  EXPECT_EQ(count,
            std::vector<std::string>{"{\"n\":" + std::to_string(original->Files().size()) + "}"});
  ASSERT_OK_AND_ASSIGN(auto paths, testing::OracleQuery("SELECT add.path AS p FROM read_parquet('" +
                                                        checkpoint + "') WHERE add IS NOT NULL"));
  std::set<std::string> live;
  for (const AddFile& add : original->Files()) {
    live.insert(add.path);
  }
  std::vector<std::string> expected_paths;
  for (const std::string& raw : raw_paths) {
    ASSERT_OK_AND_ASSIGN(std::string decoded, DecodeUriPath(raw));
    if (live.count(decoded) != 0) {
      std::string line = "{\"p\":";
      columnar::AppendJsonString(raw, &line);
      expected_paths.push_back(line + "}");
    }
  }
  std::sort(paths.begin(), paths.end());
  std::sort(expected_paths.begin(), expected_paths.end());
  expected_paths.erase(std::unique(expected_paths.begin(), expected_paths.end()),
                       expected_paths.end());
  // A path can be live more than once with different deletion vectors.
  std::vector<std::string> distinct_paths = paths;
  distinct_paths.erase(std::unique(distinct_paths.begin(), distinct_paths.end()),
                       distinct_paths.end());
  EXPECT_EQ(distinct_paths, expected_paths);
  // One row per action, and exactly one action per row; V2 tables add one checkpointMetadata.
  const auto& features = original->GetProtocol().writer_features;
  const bool v2 =
      features && std::find(features->begin(), features->end(), "v2Checkpoint") != features->end();
  ASSERT_OK_AND_ASSIGN(
      auto shape,
      testing::OracleQuery(
          "SELECT count(*) AS n, sum(CASE WHEN (txn IS NOT NULL)::INT + (add IS NOT NULL)::INT + "
          "(remove IS NOT NULL)::INT + (metaData IS NOT NULL)::INT + "
          "(protocol IS NOT NULL)::INT + (domainMetadata IS NOT NULL)::INT" +
          std::string(v2 ? " + (checkpointMetadata IS NOT NULL)::INT" : "") +
          " = 1 THEN 0 ELSE 1 END)::BIGINT AS bad, count(protocol) AS p, count(metaData) AS m, "
          "count(remove) AS r FROM read_parquet('" +
          checkpoint + "')"));
  ASSERT_EQ(shape.size(), 1u);
  const size_t expected_rows = 2 + (v2 ? 1 : 0) + original->Transactions().size() +
                               original->Domains().size() + original->Files().size();
  EXPECT_EQ(shape[0],
            "{\"n\":" + std::to_string(expected_rows) + ",\"bad\":0,\"p\":1,\"m\":1,\"r\":0}");
  if (v2) {
    ASSERT_OK_AND_ASSIGN(
        auto metadata,
        testing::OracleQuery("SELECT checkpointMetadata.version AS v FROM "
                             "read_parquet('" +
                             checkpoint + "') WHERE checkpointMetadata IS NOT NULL"));
    EXPECT_EQ(metadata, std::vector<std::string>{"{\"v\":" + std::to_string(version) + "}"});
  }
}

const CorpusTable kTables[] = {
    {"basic_append", "dat/basic_append/delta", true},
    {"multi_partitioned", "dat/multi_partitioned/delta", true},
    {"dv_partitioned", "golden/delta-dv-partitioned-with-checkpoint/delta", true, false, false,
     true},
    {"txn", "golden/delta-deltalog-getChanges/delta", false, true},
    {"liquid_clustering_domains", "golden/delta-rs-table_with_liquid_clustering/delta", true, false,
     true},
    {"v2_checkpoint_feature", "golden/kernel-rs-v2-checkpoints-parquet-with-sidecars/delta", true},
};

std::string TableName(const ::testing::TestParamInfo<CorpusTable>& table) {
  return table.param.name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CheckpointRoundTripTest, ::testing::ValuesIn(kTables), TableName);

class CheckpointWriterTest : public ::testing::Test {
 protected:
  std::string LogDir() const { return dir_.Join("table/_delta_log"); }
  std::string Root() const { return dir_.Join("table"); }

  // A table of `versions` commits: version 0 creates it with `configuration` (a JSON object),
  // every commit adds one file whose path holds `special` (already URI-encoded).
  void MakeTable(int versions, const std::string& configuration = "{}",
                 const std::string& special = "") {
    for (int v = 0; v < versions; ++v) {
      std::string text;
      if (v == 0) {
        text +=
            R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
            "\n"
            R"({"metaData":{"id":"t","format":{"provider":"parquet","options":{}},)"
            R"("schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}",)"
            R"("partitionColumns":[],"configuration":)" +
            configuration +
            R"(,"createdTime":1}})"
            "\n";
      }
      text += R"({"add":{"path":"f)" + std::to_string(v) + special +
              R"(.parquet","partitionValues":{},"size":10,"modificationTime":5,"dataChange":true}})"
              "\n";
      char name[32];
      std::snprintf(name, sizeof(name), "%020d.json", v);
      ASSERT_OK(fs_.WriteFile(LogDir() + "/" + name, text, storage::WriteMode::kPutIfAbsent));
    }
  }

  std::string LastCheckpoint() {
    auto text = fs_.ReadFile(LogDir() + "/_last_checkpoint");
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "";
  }

  std::string ExpectedLastCheckpoint(int64_t version, int64_t adds) {
    auto info = fs_.GetFileInfo(LogDir() + "/" + CheckpointName(version));
    EXPECT_TRUE(info.ok());
    return "{\"version\":" + std::to_string(version) + ",\"size\":" + std::to_string(2 + adds) +
           ",\"sizeInBytes\":" + std::to_string(info.ok() ? info->size : -1) +
           ",\"numOfAddFiles\":" + std::to_string(adds) + "}";
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

TEST_F(CheckpointWriterTest, LastCheckpointDescribesTheFileAndNeverMovesBack) {
  MakeTable(4);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(fs_, Root()));
  ASSERT_OK(WriteCheckpoint(fs_, *latest));
  const std::string expected = ExpectedLastCheckpoint(3, 4);
  EXPECT_EQ(LastCheckpoint(), expected);

  // The same version again: the file exists, nothing changes, still OK.
  auto before = fs_.GetFileInfo(LogDir() + "/" + CheckpointName(3));
  ASSERT_OK_AND_ASSIGN(int64_t again, WriteCheckpoint(fs_, *latest));
  EXPECT_EQ(again, 3);
  EXPECT_EQ(LastCheckpoint(), expected);
  EXPECT_EQ(fs_.GetFileInfo(LogDir() + "/" + CheckpointName(3))->modification_time_ms,
            before->modification_time_ms);

  // An older version is written but does not move the hint back.
  ASSERT_OK_AND_ASSIGN(auto older, Snapshot::Load(fs_, Root(), 1));
  ASSERT_OK(WriteCheckpoint(fs_, *older));
  EXPECT_TRUE(fs::exists(LogDir() + "/" + CheckpointName(1)));
  EXPECT_EQ(LastCheckpoint(), expected);
}

TEST_F(CheckpointWriterTest, ReplacesAStaleOrDamagedLastCheckpoint) {
  MakeTable(3);
  ASSERT_OK(fs_.WriteFile(LogDir() + "/_last_checkpoint", "{\"version\":1,\"size\":3}",
                          storage::WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(auto v2, Snapshot::Load(fs_, Root()));
  ASSERT_OK(WriteCheckpoint(fs_, *v2));
  EXPECT_EQ(LastCheckpoint(), ExpectedLastCheckpoint(2, 3));

  ASSERT_OK(fs_.WriteFile(LogDir() + "/_last_checkpoint", "{\"vers", storage::WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(auto v1, Snapshot::Load(fs_, Root(), 1));
  ASSERT_OK(WriteCheckpoint(fs_, *v1));
  EXPECT_EQ(LastCheckpoint(), ExpectedLastCheckpoint(1, 2));
}

TEST_F(CheckpointWriterTest, LosingThePublishRaceToAnIdenticalCheckpointIsSuccess) {
  MakeTable(2);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root()));
  const std::string path = LogDir() + "/" + CheckpointName(1);
  ASSERT_OK(WriteCheckpoint(fs_, *snapshot));
  ASSERT_OK_AND_ASSIGN(std::string winner, fs_.ReadFile(path));
  ASSERT_OK(fs_.DeleteFile(path));
  ASSERT_OK(fs_.DeleteFile(LogDir() + "/_last_checkpoint"));

  // A concurrent checkpointer publishes the same version just before our Close.
  storage::FaultInjectionFileSystem faulty(std::make_shared<storage::LocalFileSystem>());
  faulty.LoseNextPutIfAbsent(winner);
  ASSERT_OK_AND_ASSIGN(int64_t version, WriteCheckpoint(faulty, *snapshot));
  EXPECT_EQ(version, 1);
  EXPECT_EQ(LastCheckpoint(), ExpectedLastCheckpoint(1, 2));
}

TEST_F(CheckpointWriterTest, AFailedWriteLeavesNoCheckpointAndTheOldHint) {
  MakeTable(3);
  ASSERT_OK_AND_ASSIGN(auto v1, Snapshot::Load(fs_, Root(), 1));
  ASSERT_OK(WriteCheckpoint(fs_, *v1));
  const std::string hint = LastCheckpoint();
  ASSERT_OK_AND_ASSIGN(auto v2, Snapshot::Load(fs_, Root()));
  const std::string path = LogDir() + "/" + CheckpointName(2);

  storage::FaultInjectionFileSystem faulty(std::make_shared<storage::LocalFileSystem>());
  ASSERT_OK(WriteCheckpoint(faulty, *v2));
  const int64_t writes = faulty.WriteCount();
  ASSERT_GT(writes, 1);
  ASSERT_OK(fs_.DeleteFile(path));
  ASSERT_OK(fs_.WriteFile(LogDir() + "/_last_checkpoint", hint, storage::WriteMode::kReplace));
  for (int64_t n = 1; n <= writes; ++n) {
    SCOPED_TRACE("failing write " + std::to_string(n));
    faulty.FailNthWrite(n, /*retryable=*/true);
    Result<int64_t> result = WriteCheckpoint(faulty, *v2);
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(result.status().IsIOError()) << result.status().ToString();
    EXPECT_NE(result.status().Message().find(CheckpointName(2)), std::string::npos)
        << result.status().ToString();
    // Either nothing was published, or only the hint update failed.
    EXPECT_EQ(LastCheckpoint(), hint);
    if (n < writes) {
      EXPECT_FALSE(fs::exists(path));
    }
    faulty.ClearFaults();
    // A retry succeeds.
    ASSERT_OK(WriteCheckpoint(faulty, *v2));
    EXPECT_EQ(LastCheckpoint(), ExpectedLastCheckpoint(2, 3));
    ASSERT_OK(fs_.DeleteFile(path));
    ASSERT_OK(fs_.WriteFile(LogDir() + "/_last_checkpoint", hint, storage::WriteMode::kReplace));
  }
}

// Paths as Spark's Path.toUri spells them: '+', '=', ':', '@', '$', '&', ',', ';' and raw
// non-ASCII stay; space, '%', '#', '?', '"', '[', '^', '{', control characters and non-ASCII
// spaces (U+00A0) are escaped. The checkpoint must spell them the same way.
TEST_F(CheckpointWriterTest, EncodesPathsAsSparkDoes) {
  const std::string special =
      "/a=1+b%20c%25d%23e%3Ff:g@h$i&j,k;l!m~n*o'p(q)r%22s%5Bt%5Du%5Ev%7Bw%7Dx%60y%7Cz%5C"
      "%01%7F\xF0\x9F\x98\x88%C2%A0\xC3\xA9";
  MakeTable(2, "{}", special);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root()));
  ASSERT_OK(WriteCheckpoint(fs_, *snapshot));
  const std::string checkpoint = LogDir() + "/" + CheckpointName(1);
  ASSERT_OK_AND_ASSIGN(
      auto paths, testing::OracleQuery("SELECT add.path AS p FROM read_parquet('" + checkpoint +
                                       "') WHERE add IS NOT NULL ORDER BY 1"));
  std::vector<std::string> expected;
  for (int v = 0; v < 2; ++v) {
    std::string name = std::to_string(v);
    name.insert(0, 1, 'f');
    name += special;
    name += ".parquet";
    std::string line = "{\"p\":";
    columnar::AppendJsonString(name, &line);
    expected.push_back(line + "}");
  }
  EXPECT_EQ(paths, expected);
  ASSERT_OK_AND_ASSIGN(auto reloaded, Snapshot::Load(fs_, Root()));
  EXPECT_EQ(DescribeFiles(*reloaded), DescribeFiles(*snapshot));
}

TEST_F(CheckpointWriterTest, ShouldCheckpointEveryTenCommitsByDefault) {
  MakeTable(21);
  for (int v = 0; v <= 20; ++v) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root(), v));
    EXPECT_EQ(ShouldCheckpoint(*snapshot), v == 10 || v == 20) << "version " << v;
  }
}

TEST_F(CheckpointWriterTest, ShouldCheckpointFollowsCheckpointInterval) {
  MakeTable(7, R"({"delta.checkpointInterval":"3"})");
  for (int v = 0; v <= 6; ++v) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, Root(), v));
    EXPECT_EQ(ShouldCheckpoint(*snapshot), v == 3 || v == 6) << "version " << v;
  }
}

TEST_F(CheckpointWriterTest, ShouldCheckpointIgnoresAnInvalidInterval) {
  MakeTable(11, R"({"delta.checkpointInterval":"0"})");
  ASSERT_OK_AND_ASSIGN(auto v5, Snapshot::Load(fs_, Root(), 5));
  EXPECT_FALSE(ShouldCheckpoint(*v5));
  ASSERT_OK_AND_ASSIGN(auto v10, Snapshot::Load(fs_, Root(), 10));
  EXPECT_TRUE(ShouldCheckpoint(*v10));
}

}  // namespace
}  // namespace tributary::delta

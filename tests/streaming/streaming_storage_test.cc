// Streaming queries on every storage backend (support/storage_backend.h): the landing folder,
// the checkpoint (offsets, commits, metadata, Auto Loader's schema location, state) and the
// Delta sink all on the local disk or all on S3 (the moto server), through the public API with
// the session settings that reach the store. Files land through an independent client (the
// AWS SDK for JavaScript on S3) and what the query left in storage is listed through it too.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/local_path.h"
#include "support/row_json.h"
#include "support/status_matchers.h"
#include "support/storage_backend.h"
#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

/// NDJSON of rows {"id": first .. first + count - 1}.
std::string IdLines(int64_t first, int64_t count) {
  std::string text;
  for (int64_t id = first; id < first + count; ++id) {
    text += fmt::format("{{\"id\":{},\"kind\":\"k{}\"}}\n", id, id % 3);
  }
  return text;
}

class StreamingStorageTest : public testing::StorageBackendTest {
 protected:
  void SetUp() override {
    StorageBackendTest::SetUp();
    Session::Builder builder;
    builder.Warehouse(Backend().Path("warehouse")).TimeZone("UTC");
    for (const auto& [key, value] : Backend().SessionConfig()) {
      builder.Config(key, value);
    }
    ASSERT_OK_AND_ASSIGN(session_, builder.Build());
  }

  void TearDown() override {
    // The checkpoints' local working directories of S3 runs live outside the test's TempDir.
    for (const std::string& checkpoint : checkpoints_) {
      std::error_code ignored;
      std::filesystem::remove_all(LocalDir(checkpoint), ignored);
    }
  }

  /// Where the query with checkpoint `checkpoint` keeps what must be local: the checkpoint
  /// itself on the local disk, a working directory of this machine for an S3 checkpoint.
  std::string LocalDir(const std::string& checkpoint) const {
    if (!IsS3()) {
      return checkpoint;
    }
    Result<std::string> canonical = storage::CanonicalPath(checkpoint);
    EXPECT_OK(canonical.status());
    return storage::LocalWorkingDir(storage::DefaultLocalRoot("tributary-checkpoints"),
                                    canonical.ok() ? *canonical : checkpoint);
  }

  std::string Checkpoint(const std::string& name) {
    std::string checkpoint = Backend().Path("checkpoints/" + name);
    checkpoints_.push_back(checkpoint);
    return checkpoint;
  }

  /// Runs Auto Loader (JSON, schema inferred into the checkpoint) from landing/ into the Delta
  /// table tables/bronze until no new file is left (Trigger.AvailableNow): one run of a
  /// scheduled job. Its progress records.
  std::vector<StreamingQueryProgress> RunAutoLoader(
      const std::map<std::string, std::string>& extra = {}) {
    const std::string checkpoint = spelling_(Checkpoint("bronze"));
    auto query = session_->ReadStream()
                     .Format("cloudFiles")
                     .Option("cloudFiles.format", "json")
                     .Option("cloudFiles.schemaLocation", checkpoint)
                     .Option("cloudFiles.inferColumnTypes", "true")
                     .Options(extra)
                     .Load(spelling_(Backend().Path("landing")))
                     .WriteStream()
                     .Format("delta")
                     .Option("checkpointLocation", checkpoint)
                     .Trigger(Trigger::AvailableNow())
                     .Start(spelling_(Backend().Path("tables/bronze")));
    EXPECT_OK(query.status());
    if (!query.ok()) {
      return {};
    }
    EXPECT_OK(query->AwaitTermination());
    return query->RecentProgress();
  }

  /// The ids of a Delta table's rows, sorted (duplicates kept).
  std::vector<int64_t> TableIds(const std::string& relative) {
    auto rows =
        session_->Read().Format("delta").Load(Backend().Path(relative)).Select({"id"}).Collect();
    EXPECT_OK(rows.status());
    std::vector<int64_t> ids;
    for (const std::string& row : testing::Json(rows.ok() ? *rows : std::vector<Row>{})) {
      ids.push_back(std::stoll(row.substr(6)));  // {"id":N}
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static std::vector<int64_t> Range(int64_t first, int64_t last) {
    std::vector<int64_t> ids;
    for (int64_t id = first; id <= last; ++id) {
      ids.push_back(id);
    }
    return ids;
  }

  static int64_t InputRows(const std::vector<StreamingQueryProgress>& progress) {
    int64_t rows = 0;
    for (const StreamingQueryProgress& record : progress) {
      rows += record.num_input_rows;
    }
    return rows;
  }

  std::shared_ptr<Session> session_;
  /// How RunAutoLoader spells its locations. Default: as the backend gives them.
  std::function<std::string(const std::string&)> spelling_ = [](const std::string& path) {
    return path;
  };
  std::vector<std::string> checkpoints_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StreamingStorageTest,
                         ::testing::ValuesIn(testing::StorageBackendKinds()),
                         testing::StorageBackendName);

// Three runs of a scheduled Auto Loader job with new files landing between them: each run reads
// only the new files; losing the local working directory (the file tracker's RocksDB cache)
// between runs re-ingests nothing and loses nothing; the schema it inferred is kept in the
// checkpoint on the backend.
TEST_P(StreamingStorageTest, AutoLoaderReadsOnlyNewFilesAcrossRunsAndALostLocalDirectory) {
  ASSERT_OK(Backend().IndependentWrite("landing/a.json", IdLines(0, 3)));
  ASSERT_OK(Backend().IndependentWrite("landing/sub/b.json", IdLines(3, 2)));
  const std::vector<StreamingQueryProgress> first = RunAutoLoader();
  EXPECT_EQ(InputRows(first), 5);
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 4));

  // What the checkpoint holds is in the backend: metadata, offsets, commits, the inferred
  // schema. What cannot live in an object store (lock, progress.jsonl, RocksDB) is not there.
  ASSERT_OK_AND_ASSIGN(auto stored, Backend().IndependentList("checkpoints/bronze"));
  EXPECT_THAT(stored, Contains("metadata"));
  EXPECT_THAT(stored, Contains("offsets/0"));
  EXPECT_THAT(stored, Contains("commits/0"));
  EXPECT_THAT(stored, Contains("_schemas/0"));
  ASSERT_OK_AND_ASSIGN(std::string schema,
                       Backend().IndependentRead("checkpoints/bronze/_schemas/0"));
  EXPECT_THAT(schema, HasSubstr(R"(\"name\":\"id\",\"nullable\":true,\"type\":\"long\")"));
  if (IsS3()) {
    for (const std::string& name : stored) {
      EXPECT_THAT(name, Not(HasSubstr("rocksdb"))) << name;
      EXPECT_THAT(name, Not(HasSubstr(".lock"))) << name;
      EXPECT_THAT(name, Not(HasSubstr("progress.jsonl"))) << name;
    }
  }

  ASSERT_OK(Backend().IndependentWrite("landing/c.json", IdLines(5, 4)));
  const std::vector<StreamingQueryProgress> second = RunAutoLoader();
  EXPECT_EQ(InputRows(second), 4);
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 8));

  // The machine loses the query's local caches (a new machine runs the next job).
  const std::string local = LocalDir(Backend().Path("checkpoints/bronze"));
  const std::string lost = IsS3() ? local : local + "/sources/0/rocksdb";
  ASSERT_TRUE(std::filesystem::exists(lost)) << lost;
  std::filesystem::remove_all(lost);
  ASSERT_OK(Backend().IndependentWrite("landing/sub/d.json", IdLines(9, 1)));
  const std::vector<StreamingQueryProgress> third = RunAutoLoader();
  EXPECT_EQ(InputRows(third), 1);
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 9));
  EXPECT_THAT(RunAutoLoader(), IsEmpty());
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 9));
}

// Each progress record says what the batch asked of the object store; the local disk asks
// nothing and the records carry no storageRequests.
TEST_P(StreamingStorageTest, ProgressRecordsCarryStorageRequestsOnS3Only) {
  ASSERT_OK(Backend().IndependentWrite("landing/a.json", IdLines(0, 2)));
  const std::vector<StreamingQueryProgress> progress = RunAutoLoader();
  ASSERT_EQ(progress.size(), 1u);
  const StreamingQueryProgress& record = progress[0];
  if (IsS3()) {
    EXPECT_GT(record.storage_requests.at("listRequests"), 0);
    EXPECT_GT(record.storage_requests.at("getRequests"), 0);
    EXPECT_GT(record.storage_requests.at("putRequests"), 0);
    EXPECT_GT(record.storage_requests.at("bytesRead"), 0);
    EXPECT_GT(record.storage_requests.at("bytesWritten"), 0);
    EXPECT_THAT(record.Json(), HasSubstr(R"("storageRequests":{"listRequests":)"));
  } else {
    EXPECT_THAT(record.storage_requests, IsEmpty());
    EXPECT_THAT(record.Json(), Not(HasSubstr("storageRequests")));
  }
}

// A windowed count with a watermark, restarted after every batch: the state lives in the
// checkpoint on the backend, so each window is emitted once, when the watermark passes it, as an
// uninterrupted run would (stateful_streaming_test.cc's memory-stream scenario, same rows), also
// when the local working directory of an S3 checkpoint is lost between runs.
TEST_P(StreamingStorageTest, WindowedAggregationWithWatermarkKeepsItsStateAcrossRestarts) {
  const std::vector<std::string> batches = {
      R"({"id":1,"country":"DE","ts":"2026-12-01T10:00:05Z"}
{"id":2,"country":"DE","ts":"2026-12-01T10:00:20Z"}
{"id":3,"country":"FR","ts":"2026-12-01T10:00:50Z"}
)",
      R"({"id":4,"country":"US","ts":"2026-12-01T10:01:30Z"}
)",
      // Late: the watermark is 10:01:20 by now.
      R"({"id":5,"country":"DE","ts":"2026-12-01T10:00:10Z"}
{"id":6,"country":"US","ts":"2026-12-01T10:01:40Z"}
)",
      R"({"id":7,"country":"FR","ts":"2026-12-01T10:03:00Z"}
)",
      R"({"id":8,"country":"FR","ts":"2026-12-01T10:05:00Z"}
)"};
  const std::string checkpoint = Checkpoint("minutes");
  const std::string table = Backend().Path("tables/minutes");
  int64_t dropped = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    ASSERT_OK(Backend().IndependentWrite(fmt::format("events/{}.json", i), batches[i]));
    auto query = session_->ReadStream()
                     .Format("json")
                     .Schema("id BIGINT, country STRING, ts TIMESTAMP")
                     .Option("maxFilesPerTrigger", "1")
                     .Load(Backend().Path("events"))
                     .WithWatermark("ts", "10 seconds")
                     .GroupBy({Window(Col("ts"), "1 minute"), Col("country")})
                     .Count()
                     .Select({Col("window.start").Alias("start"), Col("country"), Col("count")})
                     .WriteStream()
                     .Format("delta")
                     .OutputMode("append")
                     .Option("checkpointLocation", checkpoint)
                     .Start(table);
    ASSERT_OK(query.status());
    ASSERT_OK(query->ProcessAllAvailable());
    for (const StreamingQueryProgress& progress : query->RecentProgress()) {
      if (!progress.state_operators.empty()) {
        dropped += progress.state_operators[0].num_rows_dropped_by_watermark;
      }
    }
    query->Stop();
    ASSERT_OK(query->Exception());
    if (IsS3() && i % 2 == 0) {
      // Every other restart runs on a "new machine": the local working directory is gone, and
      // the state comes back from the checkpoint on S3.
      ASSERT_TRUE(std::filesystem::exists(LocalDir(checkpoint)));
      std::filesystem::remove_all(LocalDir(checkpoint));
    }
  }
  EXPECT_EQ(dropped, 1);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows,
                       session_->Read().Format("delta").Load(table).Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{
                R"({"start":"2026-12-01T10:00:00.000000Z","country":"DE","count":2})",
                R"({"start":"2026-12-01T10:00:00.000000Z","country":"FR","count":1})",
                R"({"start":"2026-12-01T10:01:00.000000Z","country":"US","count":2})",
                R"({"start":"2026-12-01T10:03:00.000000Z","country":"FR","count":1})"}));
  ASSERT_OK_AND_ASSIGN(auto stored, Backend().IndependentList("checkpoints/minutes"));
  EXPECT_THAT(stored, Contains("state/0/_metadata/metadata"));
  EXPECT_THAT(stored, Contains(HasSubstr("state/0/0/")));
}

// A Delta table on the backend as a stream source: each run reads only the commits after the
// checkpoint's, OPTIMIZE's dataChange=false commit is skipped, and the filtered rows reach the
// second table once.
TEST_P(StreamingStorageTest, DeltaToDeltaReadsOnlyNewCommitsAcrossRuns) {
  const std::string bronze = Backend().Path("tables/bronze");
  const std::string silver = Backend().Path("tables/silver");
  const auto sql = [&](const std::string& statement) {
    const Status status = session_->Sql(statement).Status();
    EXPECT_TRUE(status.ok()) << statement << ": " << status.ToString();
  };
  sql("CREATE TABLE bronze (id BIGINT) USING DELTA LOCATION '" + bronze + "'");
  sql("INSERT INTO bronze VALUES (1), (2), (3)");
  sql("INSERT INTO bronze VALUES (4)");
  const std::string checkpoint = Checkpoint("silver");
  const auto run = [&]() -> std::vector<StreamingQueryProgress> {
    auto query = session_->ReadStream()
                     .Format("delta")
                     .Load(bronze)
                     .Filter("id % 2 = 0")
                     .WriteStream()
                     .Format("delta")
                     .Option("checkpointLocation", checkpoint)
                     .Trigger(Trigger::AvailableNow())
                     .Start(silver);
    EXPECT_OK(query.status());
    if (!query.ok()) {
      return {};
    }
    EXPECT_OK(query->AwaitTermination());
    return query->RecentProgress();
  };
  EXPECT_EQ(InputRows(run()), 4);
  EXPECT_EQ(TableIds("tables/silver"), (std::vector<int64_t>{2, 4}));
  sql("INSERT INTO bronze VALUES (5), (6)");
  sql("OPTIMIZE bronze");
  EXPECT_EQ(InputRows(run()), 2);
  EXPECT_EQ(TableIds("tables/silver"), (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(InputRows(run()), 0);
  EXPECT_EQ(TableIds("tables/silver"), (std::vector<int64_t>{2, 4, 6}));
}

// A new column in a landed file stops the stream after recording the evolved schema in the
// schema location on the backend (addNewColumns, Auto Loader's default); the restart goes on
// with it and the Delta table merges the column.
TEST_P(StreamingStorageTest, AutoLoaderSchemaEvolutionRecordsTheNewSchemaAndRestarts) {
  const std::string checkpoint = Checkpoint("evolving");
  const auto run = [&]() -> Result<StreamingQuery> {
    return session_->ReadStream()
        .Format("cloudFiles")
        .Option("cloudFiles.format", "json")
        .Option("cloudFiles.schemaLocation", checkpoint)
        .Option("cloudFiles.inferColumnTypes", "true")
        .Load(Backend().Path("landing"))
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", checkpoint)
        .Option("mergeSchema", "true")
        .Trigger(Trigger::AvailableNow())
        .Start(Backend().Path("tables/evolving"));
  };
  ASSERT_OK(Backend().IndependentWrite("landing/a.json", "{\"id\":1}\n"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery first, run());
  ASSERT_OK(first.AwaitTermination());
  ASSERT_OK(Backend().IndependentWrite("landing/b.json", "{\"id\":2,\"color\":\"red\"}\n"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery second, run());
  EXPECT_FALSE(second.AwaitTermination().ok());
  EXPECT_TRUE(second.StoppedBySchemaChange());
  ASSERT_OK_AND_ASSIGN(auto schemas, Backend().IndependentList("checkpoints/evolving/_schemas"));
  EXPECT_THAT(schemas, Contains("1"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery third, run());
  ASSERT_OK(third.AwaitTermination());
  ASSERT_OK_AND_ASSIGN(std::vector<Row> rows, session_->Read()
                                                  .Format("delta")
                                                  .Load(Backend().Path("tables/evolving"))
                                                  .Select({"id", "color"})
                                                  .Collect());
  EXPECT_EQ(testing::SortedJson(rows),
            (std::vector<std::string>{R"({"id":1,"color":null})", R"({"id":2,"color":"red"})"}));
}

// Two streams write one Delta table at once, each batch a commit racing the other stream's for
// the next version: every batch commits once (its own txn appId), versions stay contiguous and
// every row of both landing folders is in the table once.
TEST_P(StreamingStorageTest, TwoStreamsIntoOneTableRaceForVersionsAndLoseNothing) {
  for (int64_t file = 0; file < 3; ++file) {
    ASSERT_OK(Backend().IndependentWrite(fmt::format("left/{}.json", file), IdLines(file * 10, 3)));
    ASSERT_OK(Backend().IndependentWrite(fmt::format("right/{}.json", file),
                                         IdLines(100 + file * 10, 3)));
  }
  const auto start = [&](const std::string& side) {
    return session_->ReadStream()
        .Format("json")
        .Schema("id BIGINT, kind STRING")
        .Option("maxFilesPerTrigger", "1")
        .Load(Backend().Path(side))
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", Checkpoint(side))
        .Trigger(Trigger::AvailableNow())
        .Start(Backend().Path("tables/shared"));
  };
  ASSERT_OK_AND_ASSIGN(StreamingQuery left, start("left"));
  ASSERT_OK_AND_ASSIGN(StreamingQuery right, start("right"));
  ASSERT_OK(left.AwaitTermination());
  ASSERT_OK(right.AwaitTermination());
  EXPECT_EQ(left.RecentProgress().size(), 3u);
  EXPECT_EQ(right.RecentProgress().size(), 3u);
  std::vector<int64_t> expected;
  for (int64_t base : {0, 100}) {
    for (int64_t file = 0; file < 3; ++file) {
      for (int64_t i = 0; i < 3; ++i) {
        expected.push_back(base + file * 10 + i);
      }
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(TableIds("tables/shared"), expected);
  ASSERT_OK_AND_ASSIGN(auto log, Backend().IndependentList("tables/shared/_delta_log"));
  std::vector<std::string> commits;
  for (const std::string& name : log) {
    if (name.size() == 25 && name.substr(20) == ".json") {
      commits.push_back(name);
    }
  }
  // Six batches, six commits: the first creates the table, and a stream that lost the race for
  // version 0 appends instead.
  ASSERT_EQ(commits.size(), 6u);
  for (size_t v = 0; v < commits.size(); ++v) {
    EXPECT_EQ(commits[v], fmt::format("{:020}.json", v));
  }
}

// cleanSource: committed files are moved to the archive (a copy then a delete on S3) or
// deleted, and never ingested again.
TEST_P(StreamingStorageTest, CleanSourceMovesOrDeletesCommittedFiles) {
  ASSERT_OK(Backend().IndependentWrite("landing/a.json", IdLines(0, 2)));
  ASSERT_OK(Backend().IndependentWrite("landing/sub/b.json", IdLines(2, 1)));
  const std::vector<StreamingQueryProgress> moved =
      RunAutoLoader({{"cloudFiles.cleanSource", "MOVE"},
                     {"cloudFiles.cleanSource.moveDestination", Backend().Path("archive")},
                     {"cloudFiles.cleanSource.retentionDuration", "0 seconds"}});
  EXPECT_EQ(InputRows(moved), 3);
  ASSERT_OK_AND_ASSIGN(auto archived, Backend().IndependentList("archive"));
  EXPECT_EQ(archived, (std::vector<std::string>{"a.json", "sub/b.json"}));
  ASSERT_OK_AND_ASSIGN(auto landing, Backend().IndependentList("landing"));
  EXPECT_THAT(landing, IsEmpty());
  ASSERT_OK_AND_ASSIGN(std::string archived_a, Backend().IndependentRead("archive/a.json"));
  EXPECT_EQ(archived_a, IdLines(0, 2));

  ASSERT_OK(Backend().IndependentWrite("landing/c.json", IdLines(3, 2)));
  const std::vector<StreamingQueryProgress> deleted =
      RunAutoLoader({{"cloudFiles.cleanSource", "DELETE"},
                     {"cloudFiles.cleanSource.retentionDuration", "0 seconds"}});
  EXPECT_EQ(InputRows(deleted), 2);
  ASSERT_OK_AND_ASSIGN(landing, Backend().IndependentList("landing"));
  EXPECT_THAT(landing, IsEmpty());
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 4));
}

// Another spelling of the same locations (s3a:// for s3://, a file:// URI for a local path)
// names the same checkpoint, source and table: a run through it continues the other's.
TEST_P(StreamingStorageTest, AnotherSpellingOfTheLocationsContinuesTheQuery) {
  ASSERT_OK(Backend().IndependentWrite("landing/a.json", IdLines(0, 2)));
  EXPECT_EQ(InputRows(RunAutoLoader()), 2);
  ASSERT_OK(Backend().IndependentWrite("landing/b.json", IdLines(2, 1)));
  spelling_ = [this](const std::string& path) {
    return IsS3() ? "s3a" + path.substr(2) : "file://" + path;
  };
  EXPECT_EQ(InputRows(RunAutoLoader()), 1);
  EXPECT_EQ(TableIds("tables/bronze"), Range(0, 2));
}

}  // namespace
}  // namespace tributary

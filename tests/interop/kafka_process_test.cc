// Kafka queries as real processes (kafka_driver.cc through the public API) against the test
// broker (support/kafka_test_cluster.h: librdkafka's mock cluster over TCP), with the input
// produced by independent clients (kcat and kafkajs in turn) and the output read back by
// independent readers.
//
// Kill -9 (crash points, common/crash_point.h) at every step of a micro-batch of
//  - a Kafka -> Delta query: the table, replayed by DuckDB (support/delta_replay.h), must hold
//    every produced record exactly once, with the partition and offset the broker gave it, and
//    the last offsets/N must be Spark's KafkaSourceOffset JSON of the topic's end offsets;
//  - a Kafka -> Kafka query with kafka.transactional.id: the output topic read by kafkajs with
//    read_committed must hold every input record exactly once.
// Two such processes at once, each its share of the partitions (processIndex/processCount) and
// its own checkpoint, into one table, one of them killed at every crash point in turn.
// New records are produced before every run; each run is killed at the 1st, 2nd or 3rd visit
// of a point (so on a first batch and on later ones, and while recovering from the previous
// kill), then the query runs to its end.
//
// Broker faults end to end: partition leaders moved between runs and while a run is stopped
// between writing its offsets and reading the records (TRIBUTARY_PAUSE_AT), with Fetch and
// ListOffsets requests failing with NOT_LEADER_OR_FOLLOWER; the leader's broker down (a run
// fails naming the partition, nothing is committed, and the next run once it is back catches
// up) and down with its partitions moved to a live broker (a run goes on); retention deleting
// records the query has not read (failOnDataLoss true: an error naming topic, partition and the
// lost range; false: the lost records skipped, the rest exactly once).

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/child_process.h"
#include "support/delta_replay.h"
#include "support/kafka_test_cluster.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ChildResult;
using testing::KafkaTestRecord;

constexpr const char* kInput = "events";
constexpr const char* kOutput = "events_copy";
constexpr int kPartitions = 3;
/// Records produced before each run, and the rate limit that splits a run into batches.
constexpr int kRecordsPerRound = 12;
constexpr const char* kMaxOffsetsPerTrigger = "5";
/// Kafka error codes the faults use.
constexpr int kNotLeaderOrFollower = 6;
constexpr int kApiFetch = 1;
constexpr int kApiListOffsets = 2;

/// The points a Kafka -> Delta batch reaches, in order.
const std::vector<std::string> kDeltaCrashPoints = {
    "streaming.after_offsets", "streaming.before_add_batch",  "parquet.mid_write",
    "delta.after_commit",      "streaming.before_commit_log", "streaming.after_commit_log",
};
/// The engine's points of a Kafka -> Kafka (transactional) batch, outside the sink's
/// transaction, in order.
const std::vector<std::string> kKafkaCrashPoints = {
    "streaming.after_offsets",
    "streaming.before_add_batch",
    "streaming.before_commit_log",
    "streaming.after_commit_log",
};
/// The sink's points inside and just after its transaction (kafka_sink.h).
const std::vector<std::string> kKafkaTransactionCrashPoints = {
    "kafka_sink.before_commit_transaction",
    "kafka_sink.after_commit_transaction",
};

/// A record as the table or the output topic must hold it.
struct KafkaProcessRow {
  std::string key;
  std::string value;
  int32_t partition = 0;
  int64_t offset = 0;
  // Explicit comparisons: clang-tidy 14 misreads a defaulted <=> (modernize-use-nullptr).
  bool operator==(const KafkaProcessRow& other) const {
    return std::tie(key, value, partition, offset) ==
           std::tie(other.key, other.value, other.partition, other.offset);
  }
  bool operator<(const KafkaProcessRow& other) const {
    return std::tie(key, value, partition, offset) <
           std::tie(other.key, other.value, other.partition, other.offset);
  }
  friend void PrintTo(const KafkaProcessRow& row, std::ostream* out) {
    *out << row.partition << "/" << row.offset << " " << row.key << " " << row.value;
  }
};

class KafkaProcessTest : public ::testing::Test {
 protected:
  void StartCluster(int brokers) {
    auto cluster = testing::KafkaTestCluster::Start(brokers);
    ASSERT_OK(cluster.status());
    cluster_ = std::move(*cluster);
    ASSERT_OK(cluster_->CreateTopic(kInput, kPartitions));
  }

  /// Produces `count` records with the next ids: key "k<id>", value {"id":<id>,...}, to
  /// partition id % kPartitions, with kcat and kafkajs in turn; records what the broker gives
  /// them (offsets count up from 0 in each partition: one producer at a time, no
  /// transactions).
  void Produce(int count) {
    std::vector<KafkaTestRecord> records;
    for (int i = 0; i < count; ++i, ++next_id_) {
      KafkaTestRecord record;
      record.key = fmt::format("k{}", next_id_);
      record.value = fmt::format(R"({{"id":{},"device":"d{}","temp":{}.5}})", next_id_,
                                 next_id_ % 7, 20 + next_id_ % 13);
      record.partition = static_cast<int32_t>(next_id_ % kPartitions);
      produced_.push_back(
          {*record.key, *record.value, record.partition, next_offset_[record.partition]++});
      records.push_back(std::move(record));
    }
    const bool kcat = (rounds_++ % 2) == 0;
    ASSERT_OK(kcat ? cluster_->ProduceWithKcat(kInput, records)
                   : cluster_->ProduceWithKafkajs(kInput, records));
  }

  /// Forgets the records of `partition` in [from, to), which the broker deleted before the
  /// query read them: they are no longer expected.
  void ForgetRange(int32_t partition, int64_t from, int64_t to) {
    std::erase_if(produced_, [&](const KafkaProcessRow& row) {
      return row.partition == partition && row.offset >= from && row.offset < to;
    });
  }

  testing::ChildOptions Driver(const std::string& crash_at,
                               const std::vector<std::string>& extra_args = {}) {
    testing::ChildOptions child;
    child.args = {TRIBUTARY_KAFKA_DRIVER,
                  "--bootstrap",
                  cluster_->BootstrapServers(),
                  "--topic",
                  kInput,
                  "--checkpoint",
                  Checkpoint(),
                  "--source-option",
                  fmt::format("maxOffsetsPerTrigger={}", kMaxOffsetsPerTrigger)};
    if (to_kafka_) {
      child.args.insert(child.args.end(),
                        {"--output-topic", kOutput, "--transactional-id", "kafka-process-test"});
    } else {
      child.args.insert(child.args.end(), {"--table", Table()});
    }
    child.args.insert(child.args.end(), extra_args.begin(), extra_args.end());
    // Unset unless armed here, whatever the test process's environment says.
    child.environment["TRIBUTARY_CRASH_AT"] =
        crash_at.empty() ? std::nullopt : std::optional<std::string>(crash_at);
    child.environment["TRIBUTARY_PAUSE_AT"] = std::nullopt;
    child.stdout_path = dir_.Join(fmt::format("driver-{:03}.stdout", runs_));
    child.stderr_path = dir_.Join(fmt::format("driver-{:03}.stderr", runs_));
    ++runs_;
    return child;
  }

  ChildResult RunDriver(const std::string& crash_at = "",
                        const std::vector<std::string>& extra_args = {}) {
    return testing::RunChild(Driver(crash_at, extra_args));
  }

  /// Runs the driver stopped at the first visit of `point` (TRIBUTARY_PAUSE_AT), calls
  /// `while_paused` there, releases it and returns how it ended.
  ChildResult RunDriverPausedAt(const std::string& point, const std::function<void()>& while_paused,
                                const std::vector<std::string>& extra_args = {}) {
    const std::string release = dir_.Join(fmt::format("release-{}", runs_));
    testing::ChildOptions child = Driver("", extra_args);
    child.environment["TRIBUTARY_PAUSE_AT"] = point + ":1";
    child.environment["TRIBUTARY_PAUSE_FILE"] = release;
    ChildResult result;
    std::atomic<bool> ended{false};
    std::thread runner([&] {
      result = testing::RunChild(child);
      ended = true;
    });
    const bool reached = testing::WaitForFile(release + ".reached", [&] { return ended.load(); });
    if (reached) {
      while_paused();
    }
    std::ofstream(release).put('\n');
    runner.join();
    EXPECT_TRUE(reached) << "the driver never reached " << point << ": " << result.Describe();
    return result;
  }

  /// Runs the driver killed at each of `points` at its 1st, 2nd and 3rd visit in turn, with
  /// new records produced before every run, then to its end; returns the kills.
  int KillAtEveryPointThenFinish(const std::vector<std::string>& points) {
    int kills = 0;
    for (int visit = 1; visit <= 3; ++visit) {
      for (const std::string& point : points) {
        Produce(kRecordsPerRound);
        const ChildResult result = RunDriver(fmt::format("{}:{}", point, visit));
        EXPECT_TRUE(result.killed_by_sigkill || result.exit_code == 0)
            << point << ":" << visit << ": the driver " << result.Describe();
        kills += result.killed_by_sigkill ? 1 : 0;
      }
    }
    const ChildResult final_run = RunDriver();
    EXPECT_EQ(final_run.exit_code, 0) << final_run.Describe();
    return kills;
  }

  std::string Table() const { return dir_.Join("table"); }
  std::string Checkpoint() const { return dir_.Join("checkpoint"); }
  /// The checkpoint of process `index` of a scale-out test.
  std::string ShareCheckpoint(int index) const {
    return dir_.Join(fmt::format("checkpoint-{}", index));
  }

  /// The Delta table's rows as DuckDB replays its log and reads its files, sorted; and the
  /// same through tributary's reader.
  std::vector<KafkaProcessRow> TableRows() const {
    std::vector<KafkaProcessRow> rows;
    auto replayed = testing::ReplayDeltaTable(Table());
    EXPECT_OK(replayed.status());
    if (!replayed.ok()) {
      return rows;
    }
    for (const std::string& line : replayed->rows) {
      const json row = json::parse(line);
      rows.push_back({row.at("key").get<std::string>(), row.at("value").get<std::string>(),
                      row.at("partition").get<int32_t>(), row.at("offset").get<int64_t>()});
    }
    std::sort(rows.begin(), rows.end());
    auto session = Session::Builder().TimeZone("UTC").Build();
    EXPECT_OK(session.status());
    auto ours = (*session)->Read().Format("delta").Load(Table()).Count();
    EXPECT_OK(ours.status());
    EXPECT_EQ(ours.ok() ? *ours : -1, static_cast<int64_t>(rows.size()))
        << "tributary's reader and the replay disagree on the row count";
    return rows;
  }

  /// The output topic's records as kafkajs reads them (read_committed or not), as
  /// (key, value) with partition and offset zeroed (the sink's partitioner places them),
  /// sorted.
  /// Expected() as the output topic holds it: the key and value, partitions chosen anew.
  std::vector<KafkaProcessRow> ExpectedOutput() const {
    std::vector<KafkaProcessRow> expected;
    for (const KafkaProcessRow& row : Expected()) {
      expected.push_back({row.key, row.value, 0, 0});
    }
    std::sort(expected.begin(), expected.end());
    return expected;
  }

  std::vector<KafkaProcessRow> OutputRows(bool read_committed) const {
    std::vector<KafkaProcessRow> rows;
    auto records = cluster_->ConsumeWithKafkajs(kOutput, read_committed);
    EXPECT_OK(records.status());
    if (records.ok()) {
      for (const KafkaTestRecord& record : *records) {
        rows.push_back({record.key.value_or("<null>"), record.value.value_or("<null>"), 0, 0});
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  std::vector<KafkaProcessRow> Expected() const {
    std::vector<KafkaProcessRow> rows = produced_;
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  /// The source offset of the newest offsets/N (its third line: after "v1" and the batch
  /// metadata).
  std::string LastSourceOffset() const { return LastSourceOffset(Checkpoint()); }
  std::string LastSourceOffset(const std::string& checkpoint) const {
    int64_t newest = -1;
    for (const auto& entry : fs::directory_iterator(checkpoint + "/offsets")) {
      const std::string name = entry.path().filename().string();
      if (!name.empty() && std::all_of(name.begin(), name.end(),
                                       [](unsigned char c) { return std::isdigit(c) != 0; })) {
        newest = std::max<int64_t>(newest, std::stoll(name));
      }
    }
    std::ifstream in(fmt::format("{}/offsets/{}", checkpoint, newest));
    std::string line;
    for (int i = 0; i < 3 && std::getline(in, line); ++i) {
    }
    return line;
  }

  /// Spark's KafkaSourceOffset of the input's end offsets now.
  std::string EndOffsetsJson() const {
    std::vector<std::string> partitions;
    for (int32_t p = 0; p < kPartitions; ++p) {
      const auto it = next_offset_.find(p);
      partitions.push_back(fmt::format(R"("{}":{})", p, it == next_offset_.end() ? 0 : it->second));
    }
    return fmt::format(R"({{"{}":{{{}}}}})", kInput, fmt::join(partitions, ","));
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::KafkaTestCluster> cluster_;
  bool to_kafka_ = false;
  int64_t next_id_ = 0;
  int rounds_ = 0;
  int runs_ = 0;
  std::map<int32_t, int64_t> next_offset_;
  std::vector<KafkaProcessRow> produced_;
};

// Kafka -> Delta killed 18 times (6 points x 3 visits): every record once, where the broker
// put it, and the checkpoint's last offsets are the topic's end offsets in Spark's JSON.
TEST_F(KafkaProcessTest, KafkaToDeltaKilledAtEveryCrashPointHoldsEveryRecordOnce) {
  StartCluster(1);
  const int kills = KillAtEveryPointThenFinish(kDeltaCrashPoints);
  EXPECT_GE(kills, 15) << "too few runs reached their crash point";
  EXPECT_EQ(TableRows(), Expected());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

// Scale-out: two processes run the same query at the same time, each with its own checkpoint
// and processIndex of processCount 2, into one Delta table (appends by optimistic concurrency).
// While one runs to its end the other is killed at each Delta crash point (1st and 2nd visit)
// and run again: every record once, each checkpoint's offsets cover its own partitions only,
// and together all of them.
TEST_F(KafkaProcessTest, TwoProcessesSplitThePartitionsIntoOneTableAndSurviveKills) {
  StartCluster(1);
  const auto share = [this](int index) {
    return std::vector<std::string>{"--checkpoint",    ShareCheckpoint(index),
                                    "--source-option", "processCount=2",
                                    "--source-option", fmt::format("processIndex={}", index)};
  };
  // Runs both processes at once, process `killed` armed to die at `crash_at`.
  const auto run_both = [&](int killed, const std::string& crash_at) {
    std::vector<testing::ChildOptions> children;
    children.reserve(2);
    for (int index = 0; index < 2; ++index) {
      children.push_back(Driver(index == killed ? crash_at : "", share(index)));
    }
    std::vector<ChildResult> results(2);
    std::thread other([&] { results[1] = testing::RunChild(children[1]); });
    results[0] = testing::RunChild(children[0]);
    other.join();
    return results;
  };
  int kills = 0;
  for (int visit = 1; visit <= 2; ++visit) {
    for (size_t i = 0; i < kDeltaCrashPoints.size(); ++i) {
      Produce(kRecordsPerRound);
      const int killed = static_cast<int>(i % 2);
      const std::vector<ChildResult> results =
          run_both(killed, fmt::format("{}:{}", kDeltaCrashPoints[i], visit));
      const ChildResult& victim = results[killed];
      const ChildResult& survivor = results[1 - killed];
      EXPECT_EQ(survivor.exit_code, 0) << survivor.Describe();
      EXPECT_TRUE(victim.killed_by_sigkill || victim.exit_code == 0)
          << kDeltaCrashPoints[i] << ":" << visit << ": " << victim.Describe();
      kills += victim.killed_by_sigkill ? 1 : 0;
    }
  }
  for (const ChildResult& result : run_both(-1, "")) {
    EXPECT_EQ(result.exit_code, 0) << result.Describe();
  }
  EXPECT_GE(kills, 8) << "too few runs reached their crash point";
  EXPECT_EQ(TableRows(), Expected());
  // "events" over 2 processes (Flink's rule): partition 1 to process 0, 0 and 2 to process 1.
  EXPECT_EQ(LastSourceOffset(ShareCheckpoint(0)),
            fmt::format(R"({{"{}":{{"1":{}}}}})", kInput, next_offset_[1]));
  EXPECT_EQ(LastSourceOffset(ShareCheckpoint(1)),
            fmt::format(R"({{"{}":{{"0":{},"2":{}}}}})", kInput, next_offset_[0], next_offset_[2]));

  // A checkpoint keeps its share: process 0's checkpoint refuses process 1's share.
  std::vector<std::string> swapped = share(1);
  swapped[1] = ShareCheckpoint(0);
  const ChildResult refused = RunDriver("", swapped);
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE(refused.stderr_text.find("needs a new checkpoint"), std::string::npos)
      << refused.Describe();
}

// Kafka -> Kafka with kafka.transactional.id killed 12 times at the engine's points: a
// read_committed consumer of the output sees every input record exactly once (a re-run batch
// the sink delivered before the kill is skipped by its batch id).
TEST_F(KafkaProcessTest, KafkaToKafkaExactlyOnceKilledAtEveryCrashPointHoldsEveryRecordOnce) {
  StartCluster(1);
  ASSERT_OK(cluster_->CreateTopic(kOutput, 2));
  to_kafka_ = true;
  const int kills = KillAtEveryPointThenFinish(kKafkaCrashPoints);
  EXPECT_GE(kills, 10) << "too few runs reached their crash point";
  EXPECT_EQ(OutputRows(/*read_committed=*/true), ExpectedOutput());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

// Killed inside the sink's transaction (6 kills). A broker that isolates transactions aborts
// the killed one when the next run's producer fences it, so a read_committed consumer sees each
// record once. The test broker (librdkafka 2.0.2's mock cluster) writes no transaction markers:
// the killed transaction's records stay visible to every reader, and it keeps no transactional
// offset commits, so it can show only the half of the guarantee it can hold: nothing is lost,
// and what is repeated is whole batches of the killed transactions.
TEST_F(KafkaProcessTest, KafkaToKafkaKilledInsideTheTransactionLosesNothing) {
  StartCluster(1);
  ASSERT_OK(cluster_->CreateTopic(kOutput, 2));
  to_kafka_ = true;
  const int kills = KillAtEveryPointThenFinish(kKafkaTransactionCrashPoints);
  EXPECT_GE(kills, 5) << "too few runs reached their crash point";
  std::vector<KafkaProcessRow> output = OutputRows(/*read_committed=*/true);
  output.erase(std::unique(output.begin(), output.end()), output.end());
  EXPECT_EQ(output, ExpectedOutput());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

// Leaders move between runs, and while a run stands between writing its offsets and reading
// the records; Fetch and ListOffsets requests fail with NOT_LEADER_OR_FOLLOWER meanwhile. The
// client follows the leaders: every record once.
TEST_F(KafkaProcessTest, LeaderChangesLoseAndRepeatNothing) {
  StartCluster(3);
  Produce(kRecordsPerRound);
  ASSERT_EQ(RunDriver().exit_code, 0);
  for (int32_t p = 0; p < kPartitions; ++p) {
    ASSERT_OK(cluster_->SetPartitionLeader(kInput, p, 1 + (p + 1) % 3));
  }
  ASSERT_OK(cluster_->PushRequestErrors(kApiListOffsets, kNotLeaderOrFollower, 2));
  Produce(kRecordsPerRound);
  const ChildResult moved_before = RunDriver();
  EXPECT_EQ(moved_before.exit_code, 0) << moved_before.Describe();

  Produce(kRecordsPerRound);
  const ChildResult moved_during = RunDriverPausedAt("streaming.after_offsets", [&] {
    for (int32_t p = 0; p < kPartitions; ++p) {
      EXPECT_OK(cluster_->SetPartitionLeader(kInput, p, 1 + (p + 2) % 3));
    }
    EXPECT_OK(cluster_->PushRequestErrors(kApiFetch, kNotLeaderOrFollower, 3));
  });
  EXPECT_EQ(moved_during.exit_code, 0) << moved_during.Describe();
  EXPECT_EQ(TableRows(), Expected());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

// The broker leading every partition goes down: a run fails, naming a partition, and commits
// nothing; with the broker back the next run reads everything once. Down again, but with the
// partitions moved to a live broker (a failover), a run goes on.
// The offset queries must then time out (KafkaConsumer::WatermarkOffsets asks through
// offsets_for_times for that reason), else the run hangs instead of failing.
TEST_F(KafkaProcessTest, BrokerDownFailsTheRunAndTheNextRunCatchesUp) {
  StartCluster(3);
  for (int32_t p = 0; p < kPartitions; ++p) {
    ASSERT_OK(cluster_->SetPartitionLeader(kInput, p, 1));
  }
  Produce(kRecordsPerRound);
  ASSERT_EQ(RunDriver().exit_code, 0);
  Produce(kRecordsPerRound);
  const std::vector<KafkaProcessRow> before = TableRows();

  ASSERT_OK(cluster_->SetBrokerDown(1, true));
  const std::vector<std::string> short_timeouts = {
      "--source-option", "kafkaConsumer.pollTimeoutMs=3000", "--source-option",
      "kafka.socket.timeout.ms=3000"};
  const ChildResult down = RunDriver("", short_timeouts);
  EXPECT_EQ(down.exit_code, 1) << down.Describe();
  EXPECT_NE(down.stderr_text.find(kInput), std::string::npos) << down.Describe();
  EXPECT_EQ(TableRows(), before) << "the failed run committed rows";
  ASSERT_OK(cluster_->SetBrokerDown(1, false));
  const ChildResult back = RunDriver();
  EXPECT_EQ(back.exit_code, 0) << back.Describe();
  EXPECT_EQ(TableRows(), Expected());

  Produce(kRecordsPerRound);
  ASSERT_OK(cluster_->SetBrokerDown(1, true));
  for (int32_t p = 0; p < kPartitions; ++p) {
    ASSERT_OK(cluster_->SetPartitionLeader(kInput, p, 2 + p % 2));
  }
  const ChildResult failed_over = RunDriver();
  EXPECT_EQ(failed_over.exit_code, 0) << failed_over.Describe();
  EXPECT_EQ(TableRows(), Expected());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

// Retention deletes records the query has not read yet (the mock broker drops a partition's
// whole log: partition 1's offsets 4..15 go, and its next record gets offset 18).
// failOnDataLoss true (the default): the run fails naming the topic, the partition and the
// lost offsets, and commits nothing; false: the run skips the lost records and reads the rest
// once, the records produced after the deletion included.
TEST_F(KafkaProcessTest, RetentionDeletingUnreadRecordsFailsOrSkipsPerFailOnDataLoss) {
  StartCluster(1);
  Produce(kRecordsPerRound);  // 4 records per partition: offsets 0..3
  ASSERT_EQ(RunDriver().exit_code, 0);
  Produce(3 * kRecordsPerRound);  // offsets 4..15 of each partition
  ASSERT_OK(cluster_->DeleteRecordsBefore(kInput, 1, 16));
  auto watermarks = cluster_->Watermarks(kInput, 1);
  ASSERT_OK(watermarks.status());
  ASSERT_EQ(*watermarks, std::make_pair(int64_t{18}, int64_t{18}));
  ForgetRange(1, 4, 16);
  next_offset_[1] = 18;
  Produce(kRecordsPerRound);  // offsets 16..19 of partitions 0 and 2, 18..21 of partition 1
  const std::vector<KafkaProcessRow> before = TableRows();

  const ChildResult failed = RunDriver();
  EXPECT_EQ(failed.exit_code, 1) << failed.Describe();
  for (const std::string part : {"events-1", "4", "18"}) {
    EXPECT_NE(failed.stderr_text.find(part), std::string::npos)
        << "the error does not name " << part << ": " << failed.Describe();
  }
  EXPECT_EQ(TableRows(), before) << "the failed run committed rows";

  const ChildResult skipped = RunDriver("", {"--source-option", "failOnDataLoss=false"});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.Describe();
  EXPECT_EQ(TableRows(), Expected());
  EXPECT_EQ(LastSourceOffset(), EndOffsetsJson());
}

}  // namespace
}  // namespace tributary

// State larger than memory: a streaming dropDuplicates over twenty million distinct keys, in a
// process of its own (an executable of its own, labelled slow). The rate source computes each
// batch's rows from its offsets, holding none; the state of every key seen lives in RocksDB,
// so the process's peak RSS stays far below what twenty million keys in memory would take,
// and the checkpoint keeps only the changelogs and snapshots minBatchesToRetain needs however
// many batches run.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plan/plan_builder.h"
#include "state/state_files.h"
#include "state/state_store.h"
#include "storage/local_file_system.h"
#include "streaming/rate_source.h"
#include "streaming/sink.h"
#include "streaming/source.h"
#include "streaming/stream_execution.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::state {
namespace {

constexpr int64_t kDistinctKeys = 20'000'000;
constexpr int64_t kRowsPerBatch = 1'000'000;
/// The keys of the last two batches repeat the first two batches' keys: all dropped.
constexpr int64_t kBatches = kDistinctKeys / kRowsPerBatch + 2;
constexpr int64_t kRetain = 5;
constexpr int64_t kDeltasForSnapshot = 5;
constexpr int kPartitions = 4;
constexpr int64_t kGiB = int64_t{1} << 30;

int64_t PeakRssBytes() {
  struct rusage usage = {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

/// Counts the rows of each batch; keeps none.
class CountingSink final : public streaming::Sink {
 public:
  explicit CountingSink(std::map<int64_t, int64_t>* rows_per_batch)
      : rows_per_batch_(rows_per_batch) {}

  Result<int64_t> AddBatch(const streaming::MicroBatch& batch) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto rows, batch.Collect());
    int64_t count = 0;
    for (const auto& part : rows) {
      count += part->NumRows();
    }
    (*rows_per_batch_)[batch.batch_id] = count;
    return count;
  }
  std::string Description() const override { return "CountingSink"; }

 private:
  std::map<int64_t, int64_t>* rows_per_batch_;
};

/// The state files of each partition of operator 0.
std::vector<int64_t> StateFilesPerPartition(const std::string& checkpoint) {
  std::vector<int64_t> counts;
  for (int partition = 0; partition < kPartitions; ++partition) {
    int64_t count = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(StatePartitionDir(checkpoint, 0, partition))) {
      count += ParseStateFileName(entry.path().filename().string()).has_value() ? 1 : 0;
    }
    counts.push_back(count);
  }
  return counts;
}

TEST(StateScaleTest, DeduplicatesTwentyMillionKeysInBoundedMemoryAndFiles) {
  if (testing::kUnderAddressSanitizer) {
    GTEST_SKIP() << "the RSS bound is the release build's";
  }
  testing::TempDir dir;
  int64_t now_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  ASSERT_OK_AND_ASSIGN(
      auto rate, streaming::RateSourceDefinition::Make(
                     {{"rowsPerSecond", std::to_string(kRowsPerBatch)}}, [&] { return now_ms; }));
  // key = value % kDistinctKeys: each batch's keys are new until the last two, which repeat the
  // first two batches' keys (found in state written twenty batches and many flushes ago).
  ASSERT_OK_AND_ASSIGN(
      plan::LogicalPlanPtr keys,
      plan::Select(
          streaming::StreamScan(rate),
          {{expr::Call(expr::Op::kRemainder,
                       {expr::Col("value"), expr::Lit(expr::Scalar::Int64(kDistinctKeys))}),
            "key"}}));
  ASSERT_OK_AND_ASSIGN(plan::LogicalPlanPtr deduplicated,
                       plan::DropDuplicates(keys, {"key"}, /*within_watermark=*/false));

  streaming::QueryOptions options;
  options.name = "scale";
  options.checkpoint_location = dir.Join("checkpoint");
  options.session_config = {
      {std::string(streaming::kShufflePartitionsKey), std::to_string(kPartitions)},
      {kMinBatchesToRetainKey, std::to_string(kRetain)},
      {kMinDeltasForSnapshotKey, std::to_string(kDeltasForSnapshot)},
      {kBlockCacheSizeMbKey, "8"},
      {kLocalDirKey, dir.Join("local")}};
  std::map<int64_t, int64_t> rows_per_batch;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto query,
                       streaming::StreamExecution::Start(
                           deduplicated, std::make_unique<CountingSink>(&rows_per_batch), options,
                           std::make_shared<storage::LocalFileSystem>()));
  // Retention keeps at most the changelogs after the newest snapshot at or below the oldest
  // retained version (fewer than kRetain + kDeltasForSnapshot) and the snapshots from there on.
  const int64_t max_files = kRetain + kDeltasForSnapshot + kRetain / kDeltasForSnapshot + 1;
  int64_t max_memory_used = 0;
  for (int64_t batch = 0; batch < kBatches; ++batch) {
    now_ms += 1000;  // one more second: kRowsPerBatch more rows
    ASSERT_OK(query->ProcessAllAvailable());
    const std::optional<StreamingQueryProgress> progress = query->LastProgress();
    ASSERT_TRUE(progress.has_value());
    ASSERT_EQ(progress->state_operators.size(), 1U);
    max_memory_used = std::max(max_memory_used, progress->state_operators[0].memory_used_bytes);
    for (const int64_t files : StateFilesPerPartition(options.checkpoint_location)) {
      EXPECT_LE(files, max_files) << "after batch " << batch;
    }
  }
  const std::optional<StreamingQueryProgress> last = query->LastProgress();
  query->Stop();
  ASSERT_OK(query->Exception());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Every key passed once: each batch of new keys whole, the repeating batches empty.
  ASSERT_EQ(static_cast<int64_t>(rows_per_batch.size()), kBatches);
  int64_t passed = 0;
  for (const auto& [batch_id, rows] : rows_per_batch) {
    EXPECT_EQ(rows, batch_id < kBatches - 2 ? kRowsPerBatch : 0) << "batch " << batch_id;
    passed += rows;
  }
  EXPECT_EQ(passed, kDistinctKeys);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->state_operators[0].num_rows_total, kDistinctKeys);

  // Twenty million keys held in memory would take well over 1 GiB; RocksDB's share is its
  // block caches and memtables, whatever the number of keys.
  const int64_t peak_rss = PeakRssBytes();
  std::printf("%lld keys over %lld batches: %.1f s, peak RSS %.0f MiB, state memory <= %.0f MiB\n",
              static_cast<long long>(kDistinctKeys), static_cast<long long>(kBatches), seconds,
              static_cast<double>(peak_rss) / (1 << 20),
              static_cast<double>(max_memory_used) / (1 << 20));
  EXPECT_LT(peak_rss, kGiB);
  EXPECT_LT(max_memory_used, int64_t{kPartitions} * (64 << 20));
}

}  // namespace
}  // namespace tributary::state

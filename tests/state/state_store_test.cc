// The RocksDB state store on real files: versions, reloads from the checkpoint, snapshots and
// retention, failed commits, missing and damaged files, and a store larger than its cache.

#include "state/state_store.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/data_type.h"
#include "state/state_files.h"
#include "storage/fault_injection_file_system.h"
#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::state {
namespace {

using Contents = std::map<std::string, std::string>;

class StateStoreTest : public ::testing::Test {
 protected:
  StateStoreConf Conf() const {
    StateStoreConf conf;
    conf.local_dir = dir_.Join("local");
    conf.min_deltas_for_snapshot = 10;
    conf.min_batches_to_retain = 100;
    conf.block_cache_bytes = 1 << 20;
    return conf;
  }

  std::string Checkpoint() const { return dir_.Join("checkpoint"); }

  Result<std::unique_ptr<StateStoreProvider>> Open(const StateStoreConf& conf) {
    return StateStoreProvider::Open(fs_.get(), Checkpoint(), /*operator_id=*/0,
                                    /*partition_id=*/1, conf);
  }

  static Contents ReadAll(exec::StateStore* store) {
    Contents contents;
    const Status visited = store->ForEach([&](std::string_view key, std::string_view value) {
      contents.emplace(std::string(key), std::string(value));
      return Status::OK();
    });
    EXPECT_OK(visited);
    return contents;
  }

  /// The contents batch `batch` leaves: keys k<i> for i in [batch, batch + 5) set to
  /// "v<batch>", the key of batch-3 removed.
  static void ApplyBatch(int64_t batch, exec::StateStore* store, Contents* expected) {
    for (int64_t i = batch; i < batch + 5; ++i) {
      const std::string key = fmt::format("k{:03}", i);
      ASSERT_OK(store->Put(key, fmt::format("v{}", batch)));
      (*expected)[key] = fmt::format("v{}", batch);
    }
    const std::string removed = fmt::format("k{:03}", batch - 3);
    ASSERT_OK(store->Remove(removed));
    expected->erase(removed);
  }

  /// Commits versions 1..last, each made by ApplyBatch; the contents of every version.
  void CommitVersions(StateStoreProvider* provider, int64_t last, std::vector<Contents>* versions) {
    versions->assign(1, Contents());
    for (int64_t v = 0; v < last; ++v) {
      ASSERT_OK_AND_ASSIGN(auto store, provider->Load(v));
      Contents next = versions->back();
      ApplyBatch(v, store.get(), &next);
      ASSERT_OK(store->Commit());
      versions->push_back(std::move(next));
    }
  }

  std::vector<std::string> StateFiles() const {
    std::vector<std::string> names;
    for (const auto& entry :
         std::filesystem::directory_iterator(StatePartitionDir(Checkpoint(), 0, 1))) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  testing::TempDir dir_;
  std::shared_ptr<storage::FileSystem> fs_ = std::make_shared<storage::LocalFileSystem>();
};

TEST_F(StateStoreTest, ConfReadsSparksSessionKeys) {
  ASSERT_OK_AND_ASSIGN(const StateStoreConf defaults, StateStoreConf::FromSessionConfig({}));
  EXPECT_EQ(defaults.min_deltas_for_snapshot, 10);
  EXPECT_EQ(defaults.min_batches_to_retain, 100);
  EXPECT_EQ(defaults.block_cache_bytes, 8 << 20);
  ASSERT_OK_AND_ASSIGN(const StateStoreConf conf,
                       StateStoreConf::FromSessionConfig(
                           {{"spark.sql.streaming.stateStore.minDeltasForSnapshot", "3"},
                            {"spark.sql.streaming.minBatchesToRetain", "7"},
                            {"spark.sql.streaming.stateStore.rocksdb.blockCacheSizeMB", "2"},
                            {"spark.sql.streaming.stateStore.rocksdb.writeBufferSizeMB", "16"},
                            {"spark.sql.streaming.stateStore.rocksdb.maxWriteBufferNumber", "3"},
                            {"spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage", "TRUE"},
                            {"spark.sql.streaming.stateStore.rocksdb.maxMemoryUsageMB", "64"},
                            {"tributary.state.localDir", "/x/y"}}));
  EXPECT_EQ(conf.min_deltas_for_snapshot, 3);
  EXPECT_EQ(conf.min_batches_to_retain, 7);
  EXPECT_EQ(conf.block_cache_bytes, 2 << 20);
  EXPECT_EQ(conf.write_buffer_bytes, 16 << 20);
  EXPECT_EQ(conf.max_write_buffer_number, 3);
  EXPECT_TRUE(conf.bounded_memory_usage);
  EXPECT_EQ(conf.max_memory_usage_bytes, 64 << 20);
  EXPECT_EQ(conf.local_dir, "/x/y");
  EXPECT_FALSE(defaults.bounded_memory_usage);
  ASSERT_RAISES(InvalidArgument,
                StateStoreConf::FromSessionConfig(
                    {{"spark.sql.streaming.stateStore.rocksdb.boundedMemoryUsage", "yes"}}));
  const auto bad =
      StateStoreConf::FromSessionConfig({{"spark.sql.streaming.minBatchesToRetain", "0"}});
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("spark.sql.streaming.minBatchesToRetain"),
            std::string::npos);
}

TEST_F(StateStoreTest, PutGetRemoveIterateSeeOwnWrites) {
  ASSERT_OK_AND_ASSIGN(auto provider, Open(Conf()));
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(0));
  EXPECT_EQ(store->Version(), 0);
  EXPECT_EQ(store->NumKeys(), 0);
  ASSERT_OK(store->Put("b", "2"));
  ASSERT_OK(store->Put("a", "1"));
  ASSERT_OK(store->Put("c", "3"));
  ASSERT_OK(store->Put("b", "22"));
  EXPECT_EQ(store->NumKeys(), 3);
  ASSERT_OK(store->Remove("c"));
  ASSERT_OK(store->Remove("absent"));
  EXPECT_EQ(store->NumKeys(), 2);
  ASSERT_OK_AND_ASSIGN(auto b, store->Get("b"));
  EXPECT_EQ(b, std::optional<std::string>("22"));
  ASSERT_OK_AND_ASSIGN(auto c, store->Get("c"));
  EXPECT_FALSE(c.has_value());
  EXPECT_EQ(ReadAll(store.get()), (Contents{{"a", "1"}, {"b", "22"}}));
  ASSERT_OK(store->Commit());

  // Version 1 and version 2's writes: reads see both, in key order.
  ASSERT_OK_AND_ASSIGN(store, provider->Load(1));
  EXPECT_EQ(store->NumKeys(), 2);
  ASSERT_OK(store->Put("0", "zero"));
  ASSERT_OK(store->Remove("a"));
  ASSERT_OK(store->Put("b", "222"));
  ASSERT_OK(store->Put("d", "4"));
  std::vector<std::string> order;
  // Writes made while iterating (eviction removes what it visits) are not seen by the iteration.
  ASSERT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
    order.push_back(fmt::format("{}={}", key, value));
    TRIBUTARY_RETURN_NOT_OK(store->Remove(key));
    return store->Put(std::string(key) + "x", "new");
  }));
  EXPECT_EQ(order, (std::vector<std::string>{"0=zero", "b=222", "d=4"}));
  EXPECT_EQ(store->NumKeys(), 3);
  EXPECT_EQ(ReadAll(store.get()), (Contents{{"0x", "new"}, {"bx", "new"}, {"dx", "new"}}));
  EXPECT_GT(store->MemoryUsedBytes(), 0);
  // visit's error stops the iteration and is returned.
  int visits = 0;
  ASSERT_RAISES(Cancelled, store->ForEach([&](std::string_view, std::string_view) {
    ++visits;
    return Status::Cancelled("stop");
  }));
  EXPECT_EQ(visits, 1);
  store->Abort();
  ASSERT_RAISES(InvalidArgument, store->Put("x", "y"));

  // The aborted writes are gone.
  ASSERT_OK_AND_ASSIGN(store, provider->Load(1));
  EXPECT_EQ(ReadAll(store.get()), (Contents{{"a", "1"}, {"b", "22"}}));
  // One loaded version at a time.
  ASSERT_RAISES(InvalidArgument, provider->Load(1));
}

// A batch's writes go into RocksDB as they come (past the store's small write buffer, through
// memtable flushes); Abort puts back the loaded version's values of every key written.
TEST_F(StateStoreTest, AbortedBatchLargerThanTheWriteBufferIsRolledBack) {
  constexpr int64_t kKeys = 300000;
  ASSERT_OK_AND_ASSIGN(auto provider, Open(Conf()));
  Contents version1;
  {
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(0));
    for (int64_t i = 0; i < 1000; ++i) {
      const std::string key = fmt::format("key-{:09}", i * 7);
      ASSERT_OK(store->Put(key, "old"));
      version1[key] = "old";
    }
    ASSERT_OK(store->Commit());
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    SCOPED_TRACE(attempt);
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(1));
    for (int64_t i = 0; i < kKeys; ++i) {
      const std::string key = fmt::format("key-{:09}", i);
      if (i % 11 == 0) {
        ASSERT_OK(store->Remove(key));
      } else {
        ASSERT_OK(store->Put(key, fmt::format("new-{}-padding-padding", i)));
      }
    }
    ASSERT_OK_AND_ASSIGN(auto written, store->Get("key-000000001"));
    EXPECT_EQ(written, std::optional<std::string>("new-1-padding-padding"));
    if (attempt == 0) {
      store->Abort();
    } else {
      store.reset();  // destroyed uncommitted: aborted
    }
    ASSERT_OK_AND_ASSIGN(store, provider->Load(1));
    EXPECT_EQ(store->NumKeys(), 1000);
    EXPECT_EQ(ReadAll(store.get()), version1);
    store->Abort();
  }
  // A re-run commits version 2 from the rolled-back cache, and a fresh cache agrees.
  Contents version2 = version1;
  {
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(1));
    ASSERT_OK(store->Put("key-000000007", "rerun"));
    ASSERT_OK(store->Remove("key-000000014"));
    ASSERT_OK(store->Commit());
  }
  version2["key-000000007"] = "rerun";
  version2.erase("key-000000014");
  StateStoreConf fresh = Conf();
  fresh.local_dir = dir_.Join("fresh");
  ASSERT_OK_AND_ASSIGN(auto other, Open(fresh));
  ASSERT_OK_AND_ASSIGN(auto reloaded, other->Load(2));
  EXPECT_EQ(ReadAll(reloaded.get()), version2);
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(2));
  EXPECT_EQ(ReadAll(store.get()), version2);
}

TEST_F(StateStoreTest, CommitAndReloadEveryVersion) {
  StateStoreConf conf = Conf();
  conf.min_deltas_for_snapshot = 4;
  std::vector<Contents> versions;
  {
    ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
    CommitVersions(provider.get(), 13, &versions);
    // The same provider, going back and forth (its cache rolls forward or is rebuilt).
    for (const int64_t v : {13, 2, 3, 12, 0, 8, 9}) {
      ASSERT_OK_AND_ASSIGN(auto store, provider->Load(v));
      EXPECT_EQ(ReadAll(store.get()), versions[static_cast<size_t>(v)]) << "version " << v;
      EXPECT_EQ(store->NumKeys(), static_cast<int64_t>(versions[static_cast<size_t>(v)].size()));
    }
  }
  // A fresh provider per version, with an empty cache of its own: from the checkpoint only.
  for (int64_t v = 0; v <= 13; ++v) {
    StateStoreConf fresh = conf;
    fresh.local_dir = dir_.Join(fmt::format("fresh{}", v));
    ASSERT_OK_AND_ASSIGN(auto provider, Open(fresh));
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(v));
    EXPECT_EQ(ReadAll(store.get()), versions[static_cast<size_t>(v)]) << "version " << v;
    EXPECT_EQ(store->NumKeys(), static_cast<int64_t>(versions[static_cast<size_t>(v)].size()));
    for (const auto& [key, value] : versions[static_cast<size_t>(v)]) {
      ASSERT_OK_AND_ASSIGN(auto got, store->Get(key));
      EXPECT_EQ(got, std::optional<std::string>(value));
    }
  }
}

TEST_F(StateStoreTest, RerunOfABatchOverwritesItsVersion) {
  ASSERT_OK_AND_ASSIGN(auto provider, Open(Conf()));
  std::vector<Contents> versions;
  CommitVersions(provider.get(), 2, &versions);
  {
    // Batch 2 commits version 3 ...
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(2));
    ASSERT_OK(store->Put("first", "run"));
    ASSERT_OK(store->Commit());
  }
  {
    // ... and runs again (its commits/2 never written): version 3 is replaced.
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(2));
    EXPECT_EQ(ReadAll(store.get()), versions[2]);
    ASSERT_OK(store->Put("second", "run"));
    ASSERT_OK(store->Commit());
  }
  Contents expected = versions[2];
  expected["second"] = "run";
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(3));
  EXPECT_EQ(ReadAll(store.get()), expected);
  store->Abort();

  // A second provider (another cache) re-runs batch 2 again; the first provider's cache holds
  // version 3 of the previous run and must notice the changelog changed.
  StateStoreConf other = Conf();
  other.local_dir = dir_.Join("other");
  {
    ASSERT_OK_AND_ASSIGN(auto second, Open(other));
    ASSERT_OK_AND_ASSIGN(auto rerun, second->Load(2));
    ASSERT_OK(rerun->Put("third", "run"));
    ASSERT_OK(rerun->Commit());
  }
  expected = versions[2];
  expected["third"] = "run";
  ASSERT_OK_AND_ASSIGN(store, provider->Load(3));
  EXPECT_EQ(ReadAll(store.get()), expected);
}

TEST_F(StateStoreTest, DeletedLocalCacheIsRebuiltFromTheCheckpoint) {
  StateStoreConf conf = Conf();
  conf.min_deltas_for_snapshot = 3;
  std::vector<Contents> versions;
  std::string local;
  {
    ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
    CommitVersions(provider.get(), 7, &versions);
    local = provider->LocalDir();
  }
  ASSERT_TRUE(std::filesystem::exists(local));
  ASSERT_TRUE(local.starts_with(conf.local_dir));
  std::filesystem::remove_all(conf.local_dir);
  ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(7));
  EXPECT_EQ(ReadAll(store.get()), versions[7]);
  EXPECT_EQ(store->NumKeys(), static_cast<int64_t>(versions[7].size()));
  // And it keeps going from there.
  Contents next = versions[7];
  ApplyBatch(7, store.get(), &next);
  ASSERT_OK(store->Commit());
  ASSERT_OK_AND_ASSIGN(store, provider->Load(8));
  EXPECT_EQ(ReadAll(store.get()), next);
}

TEST_F(StateStoreTest, SnapshotsEveryNVersionsAndRetentionKeepsWhatLoadingNeeds) {
  StateStoreConf conf = Conf();
  conf.min_deltas_for_snapshot = 3;
  conf.min_batches_to_retain = 4;
  std::vector<Contents> versions;
  ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
  CommitVersions(provider.get(), 5, &versions);
  // Versions 2..5 retained: version 2 needs changelogs 1 and 2 (no snapshot at or below it).
  EXPECT_EQ(StateFiles(), (std::vector<std::string>{"1.changelog", "2.changelog", "3.changelog",
                                                    "3.snapshot", "4.changelog", "5.changelog"}));
  std::vector<Contents> more;
  for (int64_t v = 5; v < 10; ++v) {
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(v));
    Contents next = versions.back();
    ApplyBatch(v, store.get(), &next);
    ASSERT_OK(store->Commit());
    versions.push_back(std::move(next));
  }
  // Versions 7..10 retained: 7 loads from snapshot 6 plus changelog 7.
  EXPECT_EQ(StateFiles(), (std::vector<std::string>{"10.changelog", "6.snapshot", "7.changelog",
                                                    "8.changelog", "9.changelog", "9.snapshot"}));
  for (int64_t v = 6; v <= 10; ++v) {
    StateStoreConf fresh = conf;
    fresh.local_dir = dir_.Join(fmt::format("fresh{}", v));
    ASSERT_OK_AND_ASSIGN(auto reader, Open(fresh));
    ASSERT_OK_AND_ASSIGN(auto store, reader->Load(v));
    EXPECT_EQ(ReadAll(store.get()), versions[static_cast<size_t>(v)]) << "version " << v;
  }
  StateStoreConf fresh = conf;
  fresh.local_dir = dir_.Join("fresh5");
  ASSERT_OK_AND_ASSIGN(auto reader, Open(fresh));
  ASSERT_RAISES(NotFound, reader->Load(5));
}

TEST_F(StateStoreTest, FailedCommitLeavesThePreviousVersionLoadable) {
  auto faulty = std::make_shared<storage::FaultInjectionFileSystem>(fs_);
  StateStoreConf conf = Conf();
  // Version 4's commit writes its changelog and a snapshot, then purges changelogs 1 and 2.
  conf.min_deltas_for_snapshot = 2;
  conf.min_batches_to_retain = 1;
  int64_t writes_of_commit = 0;
  // Run 0 is clean and counts the commit's writes; run n fails the n-th of them.
  for (int64_t n = 0; n == 0 || n <= writes_of_commit; ++n) {
    SCOPED_TRACE(fmt::format("failing write {}", n));
    conf.local_dir = dir_.Join(fmt::format("local{}", n));
    const std::string checkpoint = dir_.Join(fmt::format("checkpoint{}", n));
    ASSERT_OK_AND_ASSIGN(auto provider,
                         StateStoreProvider::Open(faulty.get(), checkpoint, 0, 1, conf));
    std::vector<Contents> versions;
    CommitVersions(provider.get(), 3, &versions);
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(3));
    Contents version4 = versions[3];
    ApplyBatch(3, store.get(), &version4);
    const int64_t before = faulty->WriteCount();
    if (n > 0) {
      faulty->FailNthWrite(n, /*retryable=*/false);
    }
    const Status committed = store->Commit();
    faulty->ClearFaults();
    if (n == 0) {
      ASSERT_OK(committed);
      writes_of_commit = faulty->WriteCount() - before;
      ASSERT_GE(writes_of_commit, 8);  // changelog and snapshot streams, two deletes
    }
    if (committed.ok()) {
      // Only a purge failed: the commit stands and the files are purged next time.
      ASSERT_OK_AND_ASSIGN(store, provider->Load(4));
      EXPECT_EQ(ReadAll(store.get()), version4);
      continue;
    }
    // Version 3 loads, from this cache and from a fresh one ...
    ASSERT_OK_AND_ASSIGN(store, provider->Load(3));
    EXPECT_EQ(ReadAll(store.get()), versions[3]);
    store->Abort();
    {
      StateStoreConf fresh = conf;
      fresh.local_dir = dir_.Join(fmt::format("fresh{}", n));
      ASSERT_OK_AND_ASSIGN(auto other,
                           StateStoreProvider::Open(faulty.get(), checkpoint, 0, 1, fresh));
      ASSERT_OK_AND_ASSIGN(auto reloaded, other->Load(3));
      EXPECT_EQ(ReadAll(reloaded.get()), versions[3]);
    }
    // ... and the re-run of the batch commits version 4.
    ASSERT_OK_AND_ASSIGN(store, provider->Load(3));
    Contents rerun = versions[3];
    ApplyBatch(3, store.get(), &rerun);
    ASSERT_OK(store->Commit());
    ASSERT_OK_AND_ASSIGN(store, provider->Load(4));
    EXPECT_EQ(ReadAll(store.get()), version4);
  }
}

TEST_F(StateStoreTest, RetentionKeepsTheLoadedVersionWhateverTheSetting) {
  // A batch whose state committed but whose commits/N was never written re-runs from the
  // version it loaded, so a retention of 1 still keeps the previous version.
  StateStoreConf conf = Conf();
  conf.min_deltas_for_snapshot = 1;
  conf.min_batches_to_retain = 1;
  ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
  std::vector<Contents> versions;
  CommitVersions(provider.get(), 4, &versions);
  EXPECT_EQ(StateFiles(), (std::vector<std::string>{"3.snapshot", "4.changelog", "4.snapshot"}));
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(3));
  EXPECT_EQ(ReadAll(store.get()), versions[3]);
}

TEST_F(StateStoreTest, MissingOrDamagedFilesAreClearErrors) {
  std::vector<Contents> versions;
  {
    ASSERT_OK_AND_ASSIGN(auto provider, Open(Conf()));
    CommitVersions(provider.get(), 3, &versions);
  }
  const std::string dir = StatePartitionDir(Checkpoint(), 0, 1);
  const std::string second = StateFilePath(dir, StateFileKind::kChangelog, 2);
  {
    // Damaged: one flipped byte in a record.
    ASSERT_OK_AND_ASSIGN(std::string bytes, fs_->ReadFile(second));
    bytes[30] = static_cast<char>(bytes[30] ^ 0x40);
    ASSERT_OK(fs_->WriteFile(second, bytes, storage::WriteMode::kReplace));
    StateStoreConf fresh = Conf();
    fresh.local_dir = dir_.Join("fresh-damaged");
    ASSERT_OK_AND_ASSIGN(auto provider, Open(fresh));
    const auto loaded = provider->Load(3);
    ASSERT_RAISES(Corruption, loaded);
    EXPECT_NE(loaded.status().Message().find(second), std::string::npos) << loaded.status();
  }
  ASSERT_OK(fs_->DeleteFile(second));
  {
    StateStoreConf fresh = Conf();
    fresh.local_dir = dir_.Join("fresh-missing");
    ASSERT_OK_AND_ASSIGN(auto provider, Open(fresh));
    const auto loaded = provider->Load(3);
    ASSERT_RAISES(NotFound, loaded);
    EXPECT_NE(loaded.status().Message().find(second), std::string::npos) << loaded.status();
    // Version 1 does not need it.
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(1));
    EXPECT_EQ(ReadAll(store.get()), versions[1]);
  }
  // The cache holding version 3 still serves it; going back rebuilds and needs the file.
  ASSERT_OK_AND_ASSIGN(auto provider, Open(Conf()));
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(3));
  EXPECT_EQ(ReadAll(store.get()), versions[3]);
  store->Abort();
  ASSERT_RAISES(NotFound, provider->Load(2));
}

// boundedMemoryUsage: every store of the process shares one cache, which memtables are
// charged to.
TEST_F(StateStoreTest, BoundedMemoryUsageSharesOneBudget) {
  StateStoreConf conf = Conf();
  conf.bounded_memory_usage = true;
  conf.max_memory_usage_bytes = 16 << 20;
  ASSERT_OK_AND_ASSIGN(auto first, Open(conf));
  ASSERT_OK_AND_ASSIGN(auto second,
                       StateStoreProvider::Open(fs_.get(), Checkpoint(), /*operator_id=*/0,
                                                /*partition_id=*/2, conf));
  std::vector<std::unique_ptr<VersionedStateStore>> stores;
  for (StateStoreProvider* provider : {first.get(), second.get()}) {
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(0));
    for (int64_t i = 0; i < 20000; ++i) {
      ASSERT_OK(store->Put(fmt::format("key-{:09}", i), "value"));
    }
    stores.push_back(std::move(store));
  }
  // The memtables of both stores are charged to the one cache both report.
  EXPECT_GT(stores[0]->MemoryUsedBytes(), 0);
  for (auto& store : stores) {
    ASSERT_OK(store->Commit());
  }
  ASSERT_OK_AND_ASSIGN(auto store, second->Load(1));
  EXPECT_EQ(store->NumKeys(), 20000);
}

TEST_F(StateStoreTest, LargeStoreWithATinyBlockCache) {
  constexpr int64_t kKeys = 200000;
  constexpr int64_t kBatches = 4;
  StateStoreConf conf = Conf();
  conf.block_cache_bytes = 256 << 10;
  conf.min_deltas_for_snapshot = 2;
  const auto value_of = [](int64_t i, int64_t batch) {
    return fmt::format("value-{}-{}-padding-padding-padding", i, batch);
  };
  {
    ASSERT_OK_AND_ASSIGN(auto provider, Open(conf));
    for (int64_t batch = 0; batch < kBatches; ++batch) {
      ASSERT_OK_AND_ASSIGN(auto store, provider->Load(batch));
      for (int64_t i = batch * kKeys / kBatches; i < (batch + 1) * kKeys / kBatches; ++i) {
        ASSERT_OK(store->Put(fmt::format("key-{:09}", i), value_of(i, batch)));
      }
      // Rewrites of earlier keys read through the cache-bounded store.
      for (int64_t i = 0; i < batch * kKeys / kBatches; i += 97) {
        ASSERT_OK(store->Put(fmt::format("key-{:09}", i), value_of(i, batch)));
      }
      ASSERT_OK(store->Commit());
    }
  }
  StateStoreConf fresh = conf;
  fresh.local_dir = dir_.Join("fresh");
  ASSERT_OK_AND_ASSIGN(auto provider, Open(fresh));
  ASSERT_OK_AND_ASSIGN(auto store, provider->Load(kBatches));
  EXPECT_EQ(store->NumKeys(), kKeys);
  int64_t visited = 0;
  ASSERT_OK(store->ForEach([&](std::string_view key, std::string_view) {
    EXPECT_EQ(key, fmt::format("key-{:09}", visited));
    ++visited;
    return Status::OK();
  }));
  EXPECT_EQ(visited, kKeys);
  for (const int64_t i : {int64_t{0}, int64_t{97}, int64_t{98}, int64_t{123457}, kKeys - 1}) {
    ASSERT_OK_AND_ASSIGN(auto value, store->Get(fmt::format("key-{:09}", i)));
    const int64_t written = i * kBatches / kKeys;
    const int64_t last = i % 97 == 0 ? kBatches - 1 : written;
    EXPECT_EQ(value, std::optional<std::string>(value_of(i, last))) << i;
  }
  // The cache stays within its bound (plus memtables and table readers).
  EXPECT_LT(store->MemoryUsedBytes(), 32 << 20);
  // Snapshot 4 holds every key, compressed below the raw size.
  ASSERT_OK_AND_ASSIGN(const storage::FileInfo snapshot,
                       fs_->GetFileInfo(StateFilePath(StatePartitionDir(Checkpoint(), 0, 1),
                                                      StateFileKind::kSnapshot, kBatches)));
  EXPECT_LT(snapshot.size, kKeys * 40);
}

TEST_F(StateStoreTest, OperatorMetadataRoundTrips) {
  ASSERT_OK_AND_ASSIGN(auto absent, ReadOperatorMetadata(fs_.get(), Checkpoint(), 0));
  EXPECT_FALSE(absent.has_value());
  OperatorStateMetadata metadata;
  metadata.operator_id = 1;
  metadata.operator_name = "stateStoreSave";
  metadata.num_partitions = 4;
  metadata.key_schema = std::make_shared<columnar::Schema>(
      std::vector<columnar::Field>{{"country", columnar::DataType::String()}});
  metadata.value_schema = std::make_shared<columnar::Schema>(
      std::vector<columnar::Field>{{"count", columnar::DataType::Int64(), false}});
  ASSERT_OK(WriteOperatorMetadata(fs_.get(), Checkpoint(), metadata));
  ASSERT_OK_AND_ASSIGN(auto read, ReadOperatorMetadata(fs_.get(), Checkpoint(), 1));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->operator_id, 1);
  EXPECT_EQ(read->operator_name, "stateStoreSave");
  EXPECT_EQ(read->num_partitions, 4);
  EXPECT_EQ(read->format_version, 1);
  EXPECT_TRUE(read->key_schema->Equals(*metadata.key_schema));
  EXPECT_TRUE(read->value_schema->Equals(*metadata.value_schema));
  ASSERT_OK(fs_->WriteFile(Checkpoint() + "/state/1/_metadata/metadata", "{\"version\": 1}",
                           storage::WriteMode::kReplace));
  ASSERT_RAISES(Corruption, ReadOperatorMetadata(fs_.get(), Checkpoint(), 1));
}

}  // namespace
}  // namespace tributary::state

// OPTIMIZE and VACUUM: compaction keeps every row in one dataChange=false commit; VACUUM deletes
// only what no version within the retention needs.

#include "delta/maintenance.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "columnar/canonical_json.h"
#include "delta/history.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "delta/table_rows.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "storage/path.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class MaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ + "/t";
    schema_ = testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String())});
    // Ten appends of one row each: ten small files, five per partition.
    for (int i = 0; i < 10; ++i) {
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      options.partition_by = {"p"};
      auto batch = testing::BatchFromJson(schema_, "[[" + std::to_string(i) + ", \"" +
                                                       (i % 2 ? "odd" : "even") + "\"]]")
                       .ValueOrDie();
      ASSERT_OK(WriteTable(fs_, root_, schema_, {batch}, options));
    }
  }

  std::vector<std::string> Rows(std::optional<int64_t> version = {}) {
    return testing::SortedRows(fs_, root_, version);
  }

  storage::LocalFileSystem fs_;
  testing::TempDir temp_;
  std::string dir_ = temp_.Path();
  std::string root_;
  columnar::SchemaPtr schema_;
};

TEST_F(MaintenanceTest, OptimizeCompactsEachPartitionInOneCommit) {
  const auto before = Rows();
  ASSERT_OK_AND_ASSIGN(auto result, Optimize(fs_, root_));
  EXPECT_EQ(result.version, 10);
  EXPECT_EQ(result.files_removed, 10);
  EXPECT_EQ(result.files_added, 2);
  EXPECT_EQ(result.rows, 10);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Files().size(), 2u);
  for (const AddFile& add : snapshot->Files()) {
    EXPECT_FALSE(add.data_change);
  }
  EXPECT_EQ(Rows(), before);
  EXPECT_EQ(Rows(9), before);  // time travel still sees the small files
  // Version 10 is a multiple of the default checkpointInterval: the commit checkpointed.
  EXPECT_TRUE(
      std::filesystem::exists(root_ + "/_delta_log/00000000000000000010.checkpoint.parquet"));
  EXPECT_EQ(snapshot->Segment().checkpoint_version, 10);
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(fs_, root_));
  EXPECT_EQ(history.back().operation, "OPTIMIZE");
  // Nothing left to compact: no commit.
  ASSERT_OK_AND_ASSIGN(auto again, Optimize(fs_, root_));
  EXPECT_EQ(again.version, -1);
}

TEST_F(MaintenanceTest, OptimizeHonoursThePartitionFilter) {
  OptimizeOptions options;
  options.partition_filter = {{"p", "odd"}};
  ASSERT_OK_AND_ASSIGN(auto result, Optimize(fs_, root_, options));
  EXPECT_EQ(result.files_removed, 5);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Files().size(), 6u);  // 5 untouched "even" files + 1 compacted "odd"
  options.partition_filter = {{"id", "1"}};
  ASSERT_RAISES(InvalidArgument, Optimize(fs_, root_, options));
}

TEST_F(MaintenanceTest, VacuumKeepsWhatTheRetentionProtects) {
  ASSERT_OK(Optimize(fs_, root_));
  VacuumOptions too_short;
  too_short.retention_hours = 1;
  auto refused = Vacuum(fs_, root_, too_short);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("minimum is 168 hours"), std::string::npos);
  // Today every removed file is still protected by its tombstone and its age.
  ASSERT_OK_AND_ASSIGN(auto now, Vacuum(fs_, root_));
  EXPECT_TRUE(now.files.empty());
  // Eight days later the ten compacted files may go; the two live ones stay.
  VacuumOptions later;
  later.now_ms = NowMs() + 8LL * 24 * 3600 * 1000;
  later.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto dry, Vacuum(fs_, root_, later));
  EXPECT_EQ(dry.files.size(), 10u);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  for (const std::string& file : dry.files) {
    EXPECT_TRUE(std::filesystem::exists(root_ + "/" + file));  // dry run deleted nothing
    for (const AddFile& live : snapshot->Files()) {
      EXPECT_NE(file, live.path);
    }
  }
  later.dry_run = false;
  ASSERT_OK_AND_ASSIGN(auto done, Vacuum(fs_, root_, later));
  EXPECT_EQ(done.files.size(), 10u);
  for (const std::string& file : done.files) {
    EXPECT_FALSE(std::filesystem::exists(root_ + "/" + file));
  }
  EXPECT_EQ(Rows().size(), 10u);
  EXPECT_TRUE(std::filesystem::exists(root_ + "/_delta_log/00000000000000000000.json"));
}

}  // namespace
}  // namespace tributary::delta

namespace tributary::delta {
namespace {

TEST_F(MaintenanceTest, VacuumOfARootSpelledOtherwiseDeletesTheSameFiles) {
  ASSERT_OK(Optimize(fs_, root_));
  std::filesystem::create_directory_symlink(root_, dir_ + "/link");
  std::filesystem::create_directory(dir_ + "/x");
  VacuumOptions later;
  later.now_ms = NowMs() + 8LL * 24 * 3600 * 1000;
  later.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto expected, Vacuum(fs_, root_, later));
  ASSERT_EQ(expected.files.size(), 10u);
  for (const std::string& spelling :
       {"file://" + root_, "file:" + root_, dir_ + "/link", dir_ + "/x/../t", dir_ + "//t/"}) {
    ASSERT_OK_AND_ASSIGN(auto dry, Vacuum(fs_, spelling, later));
    EXPECT_EQ(dry.files, expected.files) << spelling;
  }
  later.dry_run = false;
  ASSERT_OK_AND_ASSIGN(auto done, Vacuum(fs_, "file://" + dir_ + "/link", later));
  EXPECT_EQ(done.files, expected.files);
  for (const std::string& file : done.files) {
    EXPECT_FALSE(std::filesystem::exists(root_ + "/" + file)) << file;
  }
  EXPECT_EQ(Rows().size(), 10u);
}

TEST_F(MaintenanceTest, CheckpointsCarryTombstonesSoVacuumStillKeepsTheirFiles) {
  ASSERT_OK(Optimize(fs_, root_));  // version 10: removes ten files, checkpoints
  // Drop the commits the checkpoint replaces: the tombstones now live only in the checkpoint.
  for (int v = 0; v <= 10; ++v) {
    std::filesystem::remove(root_ + "/_delta_log/" + fmt::format("{:020}.json", v));
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Tombstones().size(), 10u);
  ASSERT_OK_AND_ASSIGN(auto vacuumed, Vacuum(fs_, root_));
  EXPECT_TRUE(vacuumed.files.empty());
}

TEST_F(MaintenanceTest, VacuumRemovesTheStagingFileOfAWriterThatDied) {
  // A writer process dies in the middle of a data file (no destructor runs: the staging file
  // it was writing stays, under the name the file system gave it).
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto writer = DataFileWriter::Make(fs_, root_, schema_, {"p"});
    if (!writer.ok()) {
      ::_exit(2);
    }
    auto batch = testing::BatchFromJson(schema_, R"([[100, "even"]])").ValueOrDie();
    ::_exit((*writer)->Append(batch).ok() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  storage::ListOptions list;
  list.recursive = true;
  list.include_staging_files = true;
  ASSERT_OK_AND_ASSIGN(auto listing, fs_.List(root_, list));
  std::string staging;
  for (const storage::FileInfo& info : listing) {
    if (storage::IsStagingFileName(storage::BaseName(info.path))) {
      staging = info.path.substr(root_.size() + 1);
    }
  }
  ASSERT_FALSE(staging.empty()) << "the dead writer left no staging file";
  // Not hidden: Spark's and delta-rs's VACUUM skip names starting with '.' or '_', so only a
  // visible staging name is collectable by every engine, as Spark's own orphaned part files are.
  EXPECT_TRUE(staging.starts_with("p=even/part-")) << staging;

  // Young, it may still be a live write: kept.
  ASSERT_OK_AND_ASSIGN(auto now, Vacuum(fs_, root_));
  EXPECT_TRUE(now.files.empty());
  // Past the retention it is an uncommitted file like any other: deleted.
  VacuumOptions later;
  later.now_ms = NowMs() + 8LL * 24 * 3600 * 1000;
  ASSERT_OK_AND_ASSIGN(auto done, Vacuum(fs_, root_, later));
  EXPECT_EQ(done.files, std::vector<std::string>{staging});
  EXPECT_FALSE(std::filesystem::exists(root_ + "/" + staging));
  EXPECT_EQ(Rows().size(), 10u);
}

TEST_F(MaintenanceTest, VacuumRefusesAFolderThatIsNotATableRoot) {
  // The warehouse-like parent of a table, and a folder whose _delta_log holds no commit.
  const std::string loose = dir_ + "/loose";
  std::filesystem::create_directories(loose + "/_delta_log");
  std::ofstream(loose + "/offsets-0") << "v1";
  VacuumOptions later;
  later.now_ms = NowMs() + 8LL * 24 * 3600 * 1000;
  for (const std::string& folder : {dir_, loose, root_ + "/p=odd"}) {
    auto refused = Vacuum(fs_, folder, later);
    ASSERT_RAISES(InvalidArgument, refused);
    EXPECT_NE(refused.status().Message().find(folder + " is not a Delta table"), std::string::npos)
        << refused.status().ToString();
  }
  EXPECT_TRUE(std::filesystem::exists(loose + "/offsets-0"));
  EXPECT_EQ(Rows().size(), 10u);
}

}  // namespace
}  // namespace tributary::delta

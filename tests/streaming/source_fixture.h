// Helpers for driving streaming sources directly in tests: a temp directory with a local file
// system and a SourceContext over it, and the rows a batch's scan source yields.

#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "exec/operator.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "storage/local_file_system.h"
#include "streaming/source.h"
#include "support/status_matchers.h"

namespace tributary::testing {

class SourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tributary_source_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    context_.fs = &fs_;
    context_.checkpoint_location = dir_ + "/checkpoint";
    context_.metadata_dir = context_.checkpoint_location + "/sources/0";
    ASSERT_OK(fs_.CreateDir(context_.metadata_dir));
  }
  // Tests call TearDown() and SetUp() to start over in a fresh directory.
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `text` at `path` (below the temp dir) with modification time `mtime_ms` when given.
  void WriteFile(const std::string& relative, const std::string& text, int64_t mtime_ms = -1) {
    const std::string path = dir_ + "/" + relative;
    ASSERT_OK(fs_.WriteFile(path, text, storage::WriteMode::kReplace));
    if (mtime_ms >= 0) {
      SetModificationTime(path, mtime_ms);
    }
  }

  static void SetModificationTime(const std::string& path, int64_t mtime_ms) {
    struct timespec times[2];
    times[0].tv_sec = mtime_ms / 1000;
    times[0].tv_nsec = (mtime_ms % 1000) * 1'000'000;
    times[1] = times[0];
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
  }

  /// `definition` opened over the temp checkpoint (null, with a test failure, when it fails).
  std::unique_ptr<streaming::Source> Open(const streaming::SourceDefinition& definition) {
    auto source = definition.Open(context_);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return source.ok() ? std::move(*source) : nullptr;
  }

  /// Canonical JSON rows of `source`, in scan order.
  std::vector<std::string> Rows(const plan::ScanSource& source) {
    plan::LogicalPlanPtr scan = plan::Scan(source, "");
    exec::ExecContext context;
    context.fs = &fs_;
    auto root = plan::CreatePhysicalPlan(*scan, context);
    EXPECT_TRUE(root.ok()) << root.status().ToString();
    if (!root.ok()) {
      return {};
    }
    auto batches = exec::Drain(**root);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    std::vector<std::string> rows;
    if (batches.ok()) {
      for (const auto& batch : *batches) {
        for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
          rows.push_back(std::move(row));
        }
      }
    }
    return rows;
  }

  storage::LocalFileSystem fs_;
  std::string dir_;
  streaming::SourceContext context_;
};

}  // namespace tributary::testing

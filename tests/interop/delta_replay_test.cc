// The independent Delta replay of tests/support/delta_replay.h checked on its own: its Z85
// against the spec's test vector, and its reading of the corpus tables Spark and delta-rs
// wrote with deletion vectors, version by version, against our reader. The DML tests
// (dml_differential_test, dml_process_test) then trust it to judge tables tributary writes.

#include "support/delta_replay.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "delta/table_rows.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/row_json.h"
#include "support/status_matchers.h"

namespace tributary {
namespace {

std::vector<std::string> OurRows(const std::string& root, std::optional<int64_t> version = {}) {
  storage::LocalFileSystem fs;
  return testing::SortedRows(fs, root, version);
}

// ZeroMQ RFC 32's test vector.
TEST(DmlReplayTest, Z85DecodesTheSpecVector) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::DecodeZ85("HelloWorld"));
  EXPECT_EQ(bytes, std::string("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8));
  EXPECT_FALSE(testing::DecodeZ85("Hell~").ok());
  EXPECT_FALSE(testing::DecodeZ85("Hell").ok());
}

// The replay reads every version of the corpus's deletion-vector tables as our reader does:
// this checks the replay itself (its DV decoding, its reconciliation of (path, DV) keys) on
// tables Spark wrote, before it judges tables tributary writes.
TEST(DmlReplayTest, ReplayReadsCorpusDeletionVectorTablesAsOurReader) {
  const std::vector<std::string> tables = {"kernel-rs-table-with-dv-small",
                                           "delta-dv-partitioned-with-checkpoint",
                                           "delta-log-replay-dv-key-cases", "delta-rs-cdf-table"};
  int files_with_dv = 0;
  for (const std::string& name : tables) {
    SCOPED_TRACE(name);
    const std::string root = testing::TestdataDir() + "/golden/" + name + "/delta";
    storage::LocalFileSystem fs;
    ASSERT_OK_AND_ASSIGN(auto latest, delta::Snapshot::Load(fs, root));
    std::vector<int64_t> versions;
    for (int64_t v = 0; v <= latest->Version(); ++v) {
      versions.push_back(v);
    }
    ASSERT_OK_AND_ASSIGN(auto replayed, testing::ReplayDeltaVersions(root, versions));
    for (size_t i = 0; i < versions.size(); ++i) {
      SCOPED_TRACE("version " + std::to_string(versions[i]));
      EXPECT_EQ(replayed[i].version, versions[i]);
      EXPECT_EQ(replayed[i].rows, OurRows(root, versions[i]));
      for (const auto& file : replayed[i].files) {
        files_with_dv += file.deletion_vector.has_value() ? 1 : 0;
      }
    }
  }
  // The tables do carry deletion vectors, or this checked no decoding.
  EXPECT_GT(files_with_dv, 5);
}

}  // namespace
}  // namespace tributary

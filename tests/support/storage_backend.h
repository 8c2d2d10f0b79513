// Where a test parameterized over storage runs: the local disk (a TempDir) or S3 (a bucket of the
// process's moto server, support/s3_test_server.h). One suite, TEST_P over "local" and "s3",
// asks the backend for its root, a FileSystem (or the session settings that reach the same
// store) and an independent view of what was written: the standard library on local files, the
// AWS SDK for JavaScript on S3, and DuckDB for Parquet files either way.

#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "storage/file_system.h"
#include "support/temp_dir.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::testing {

/// The parameter values of a storage suite, {"local", "s3"}:
/// INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(StorageBackendKinds()),
///                          StorageBackendName).
std::vector<std::string> StorageBackendKinds();
std::string StorageBackendName(const ::testing::TestParamInfo<std::string>& info);

/// One test's storage. On S3 making it wipes the server's buckets (S3TestServer::Reset) and
/// creates the backend's bucket, so tests of one process do not see each other's objects.
///
/// Thread-safety: the FileSystem it hands out may be used from any thread; the rest from one.
class StorageBackend {
 public:
  /// The bucket S3 backends use.
  static constexpr const char* kBucket = "tributary-tests";

  /// `kind` is "local" or "s3"; `name` (a test's name; '/' and other characters S3 keys or
  /// directory names would treat specially become '_') names the root below the TempDir or
  /// the bucket.
  StorageBackend(const std::string& kind, std::string_view name);

  bool IsS3() const { return is_s3_; }

  /// "/tmp/tributary-test-XXXXXX/<name>" or "s3://tributary-tests/<name>", no trailing '/'.
  const std::string& Root() const { return root_; }

  /// `relative` below Root().
  std::string Path(std::string_view relative) const;

  /// The backend's FileSystem (a LocalFileSystem or an S3FileSystem configured from the
  /// server's options only, nothing from this machine's environment).
  storage::FileSystem& Fs() const { return *fs_; }
  const std::shared_ptr<storage::FileSystem>& SharedFs() const { return fs_; }

  /// A new FileSystem of the same kind, sharing nothing with Fs(): what a child process makes.
  Result<std::shared_ptr<storage::FileSystem>> NewFileSystem() const;

  /// The Session settings that reach the store (Session::Builder::Config): the fs.s3a.*
  /// options on S3, none locally.
  std::map<std::string, std::string> SessionConfig() const;

  /// The bytes at Path(relative), read without the code under test. NotFound when absent.
  Result<std::string> IndependentRead(std::string_view relative) const;

  /// Writes `bytes` at Path(relative) without the code under test (files landing for a
  /// source), creating parent directories.
  Status IndependentWrite(std::string_view relative, const std::string& bytes) const;

  /// Every file below Path(relative), at any depth, relative to it and sorted, listed without
  /// the code under test. Empty when nothing is there.
  Result<std::vector<std::string>> IndependentList(std::string_view relative) const;

  /// The rows of the Parquet file at Path(relative), read by DuckDB (after downloading it with
  /// the AWS SDK on S3): OracleCatParquet's result.
  Result<std::vector<std::string>> OracleParquetRows(
      std::string_view relative, const std::vector<std::string>& columns = {}) const;

 private:
  bool is_s3_ = false;
  TempDir dir_;
  std::string root_;
  /// The key of Root() in kBucket on S3.
  std::string root_key_;
  std::shared_ptr<storage::FileSystem> fs_;
};

/// Base of a suite parameterized over "local" and "s3": SetUp makes the backend named by the
/// parameter with the test's name.
class StorageBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;

  StorageBackend& Backend() const { return *backend_; }
  storage::FileSystem& Fs() const { return backend_->Fs(); }
  bool IsS3() const { return backend_->IsS3(); }

 private:
  std::unique_ptr<StorageBackend> backend_;
};

}  // namespace tributary::testing

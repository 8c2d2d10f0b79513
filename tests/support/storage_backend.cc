#include "support/storage_backend.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

#include "storage/aws_config.h"
#include "storage/local_file_system.h"
#include "storage/s3_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/s3_test_server.h"

namespace tributary::testing {

std::vector<std::string> StorageBackendKinds() {
  return {"local", "s3"};
}

std::string StorageBackendName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

namespace {

// `name` with every character but letters, digits, '-' and '_' replaced by '_'.
std::string SafeName(std::string_view name) {
  std::string safe(name);
  for (char& c : safe) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
    if (!plain) {
      c = '_';
    }
  }
  return safe;
}

Result<std::shared_ptr<storage::FileSystem>> MakeS3FileSystem() {
  // Only the server's options: nothing from this machine's environment or ~/.aws.
  TRIBUTARY_ASSIGN_OR_RAISE(
      storage::S3Config config,
      storage::ResolveS3Config(S3TestServer::Get().Options(),
                               [](const std::string&) { return std::optional<std::string>(); }));
  TRIBUTARY_ASSIGN_OR_RAISE(auto s3, storage::S3FileSystem::Make(std::move(config)));
  return std::shared_ptr<storage::FileSystem>(std::move(s3));
}

}  // namespace

StorageBackend::StorageBackend(const std::string& kind, std::string_view name) {
  EXPECT_TRUE(kind == "local" || kind == "s3") << "unknown storage backend " << kind;
  is_s3_ = kind == "s3";
  if (is_s3_) {
    S3TestServer& server = S3TestServer::Get();
    server.Reset();
    server.CreateBucket(kBucket);
    root_key_ = SafeName(name);
    root_ = std::string("s3://") + kBucket + "/" + root_key_;
  } else {
    root_ = dir_.Join(SafeName(name));
  }
  auto fs = NewFileSystem();
  EXPECT_TRUE(fs.ok()) << fs.status().ToString();
  fs_ = fs.ok() ? *fs : std::make_shared<storage::LocalFileSystem>();
}

std::string StorageBackend::Path(std::string_view relative) const {
  return relative.empty() ? root_ : root_ + "/" + std::string(relative);
}

Result<std::shared_ptr<storage::FileSystem>> StorageBackend::NewFileSystem() const {
  if (is_s3_) {
    return MakeS3FileSystem();
  }
  return std::shared_ptr<storage::FileSystem>(std::make_shared<storage::LocalFileSystem>());
}

std::map<std::string, std::string> StorageBackend::SessionConfig() const {
  return is_s3_ ? S3TestServer::Get().Options() : std::map<std::string, std::string>{};
}

Result<std::string> StorageBackend::IndependentRead(std::string_view relative) const {
  if (is_s3_) {
    return OracleGet(kBucket, root_key_ + "/" + std::string(relative));
  }
  std::ifstream in(Path(relative), std::ios::binary);
  if (!in) {
    return Status::NotFound("no file " + Path(relative));
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Status StorageBackend::IndependentWrite(std::string_view relative, const std::string& bytes) const {
  if (is_s3_) {
    return OraclePut(kBucket, root_key_ + "/" + std::string(relative), bytes);
  }
  const std::filesystem::path path(Path(relative));
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) {
    return Status::IOError("cannot write " + path.string());
  }
  return Status::OK();
}

Result<std::vector<std::string>> StorageBackend::IndependentList(std::string_view relative) const {
  std::vector<std::string> names;
  if (is_s3_) {
    const std::string prefix =
        relative.empty() ? root_key_ + "/" : root_key_ + "/" + std::string(relative) + "/";
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> keys, OracleList(kBucket, prefix));
    for (const std::string& key : keys) {
      names.push_back(key.substr(prefix.size()));
    }
  } else {
    std::error_code error;
    const std::filesystem::path dir(Path(relative));
    for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file()) {
        names.push_back(std::filesystem::relative(it->path(), dir).string());
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<std::string>> StorageBackend::OracleParquetRows(
    std::string_view relative, const std::vector<std::string>& columns) const {
  if (is_s3_) {
    return OracleCatS3Parquet(Path(relative), columns);
  }
  return OracleCatParquet(Path(relative), columns);
}

void StorageBackendTest::SetUp() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info->name();
  // "Case/s3" -> "Case": the backend is the bucket or the TempDir already.
  name = name.substr(0, name.find('/'));
  backend_ = std::make_unique<StorageBackend>(GetParam(), name);
}

}  // namespace tributary::testing

#include "storage/uri_file_system.h"

#include <utility>

#include <fmt/format.h>

#include "storage/aws_config.h"
#include "storage/local_path.h"
#include "storage/s3_file_system.h"

namespace tributary::storage {

UriFileSystem::UriFileSystem(std::map<std::string, std::string> options)
    : options_(std::move(options)) {}

Result<FileSystem*> UriFileSystem::StoreFor(std::string_view path) {
  if (!IsObjectStorePath(path)) {
    // Local paths and file URIs; LocalFileSystem refuses other schemes with StoragePath's
    // message, but naming every supported scheme is StoragePath's job, so ask it first.
    if (!UriScheme(path).empty()) {
      TRIBUTARY_RETURN_NOT_OK(CheckSupportedScheme(path));
    }
    return &local_;
  }
  std::lock_guard lock(mutex_);
  if (s3_ == nullptr && s3_status_.ok()) {
    auto made = [&]() -> Result<std::shared_ptr<FileSystem>> {
      TRIBUTARY_ASSIGN_OR_RAISE(S3Config config, ResolveS3Config(options_));
      TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<S3FileSystem> s3,
                                S3FileSystem::Make(std::move(config)));
      return std::shared_ptr<FileSystem>(std::move(s3));
    }();
    if (made.ok()) {
      s3_ = std::move(*made);
    } else {
      s3_status_ = made.status().WithContext("configuring S3");
    }
  }
  if (s3_ == nullptr) {
    return s3_status_;
  }
  return s3_.get();
}

Result<std::unique_ptr<RandomAccessFile>> UriFileSystem::OpenForRead(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->OpenForRead(path);
}

Result<FileInfo> UriFileSystem::GetFileInfo(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->GetFileInfo(path);
}

Result<std::vector<FileInfo>> UriFileSystem::List(const std::string& dir,
                                                  const ListOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(dir));
  return store->List(dir, options);
}

Status UriFileSystem::CreateDir(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->CreateDir(path);
}

Status UriFileSystem::DeleteFile(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->DeleteFile(path);
}

Status UriFileSystem::DeleteFiles(const std::vector<std::string>& paths) {
  std::map<FileSystem*, std::vector<std::string>> by_store;
  for (const std::string& path : paths) {
    TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
    by_store[store].push_back(path);
  }
  for (const auto& [store, store_paths] : by_store) {
    TRIBUTARY_RETURN_NOT_OK(store->DeleteFiles(store_paths));
  }
  return Status::OK();
}

Status UriFileSystem::DeleteDir(const std::string& path, bool recursive) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->DeleteDir(path, recursive);
}

Status UriFileSystem::Rename(const std::string& src, const std::string& dst) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * from, StoreFor(src));
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * to, StoreFor(dst));
  if (from != to) {
    return Status::InvalidArgument(fmt::format(
        "cannot move {} to {}: they are in different stores (copy the file instead)", src, dst));
  }
  return from->Rename(src, dst);
}

Status UriFileSystem::WriteFile(const std::string& path, std::string_view data, WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->WriteFile(path, data, mode);
}

Result<std::unique_ptr<OutputStream>> UriFileSystem::OpenOutputStream(const std::string& path,
                                                                      WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(FileSystem * store, StoreFor(path));
  return store->OpenOutputStream(path, mode);
}

StorageRequestCounts UriFileSystem::RequestCounts() const {
  std::lock_guard lock(mutex_);
  return s3_ == nullptr ? StorageRequestCounts() : s3_->RequestCounts();
}

}  // namespace tributary::storage

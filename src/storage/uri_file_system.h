// UriFileSystem: the FileSystem sessions and the CLI use. It sends each path to the store its
// URI scheme names: local paths and file:// URIs to the local disk, s3:// and s3a:// URIs to
// S3, and refuses any other scheme with storage::StoragePath's error, so one object serves a
// query that reads from S3 and checkpoints locally (or the other way round).

#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file_system.h"
#include "storage/local_file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// A FileSystem over every store tributary supports, chosen per path by its scheme.
///
/// The S3 client is made on the first s3:// path, from `options` (fs.s3a.* keys, also under
/// spark.hadoop.) and the AWS environment (storage/aws_config.h); a configuration error is
/// returned by that call and every later one on S3.
///
/// Thread-safety: every method may be called concurrently.
class UriFileSystem final : public FileSystem {
 public:
  /// `options`: session settings; only the keys ResolveS3Config reads are used.
  explicit UriFileSystem(std::map<std::string, std::string> options = {});

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& dir, const ListOptions& options) override;
  Status CreateDir(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  /// Each store's paths in one call to it.
  Status DeleteFiles(const std::vector<std::string>& paths) override;
  Status DeleteDir(const std::string& path, bool recursive) override;
  /// Within one store only: InvalidArgument when `src` and `dst` are in different ones.
  Status Rename(const std::string& src, const std::string& dst) override;
  Status WriteFile(const std::string& path, std::string_view data, WriteMode mode) override;
  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path,
                                                         WriteMode mode) override;
  /// The object store's counts (the local disk counts nothing).
  StorageRequestCounts RequestCounts() const override;

 private:
  /// The store that serves `path`.
  Result<FileSystem*> StoreFor(std::string_view path);

  const std::map<std::string, std::string> options_;
  LocalFileSystem local_;
  mutable std::mutex mutex_;
  /// Made on first use; stays null (and s3_status_ holds why) when its configuration is bad.
  std::shared_ptr<FileSystem> s3_;
  Status s3_status_;
};

}  // namespace tributary::storage

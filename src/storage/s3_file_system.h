// S3FileSystem: FileSystem over Amazon S3 (or an S3-compatible store), with the guarantees of
// storage/file_system.h as an object store gives them.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/aws_config.h"
#include "storage/file_system.h"
#include "storage/s3_client.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// The bucket and key of an "s3://bucket/key" or "s3a://bucket/key" URI; trailing '/'s are
/// dropped from the key. InvalidArgument for another scheme or an empty bucket.
Result<S3Location> ParseS3Uri(std::string_view uri);

/// FileSystem over S3. Paths are s3:// or s3a:// URIs; List returns its entries under the
/// directory as given (scheme kept).
///
/// Directories are implicit: a directory exists when an object exists below it, CreateDir does
/// nothing, and deleting a directory's last object deletes the directory. Whole-file writes are
/// one PutObject, streams above S3Config::multipart_threshold_bytes a multipart upload (parts
/// uploaded in parallel, aborted on failure or when the stream is dropped unclosed, so no
/// orphan parts remain); both are atomic (S3 publishes whole objects) and durable when they
/// return. kPutIfAbsent sends If-None-Match: *, so of racing writers in any process exactly one
/// wins (S3's conditional writes); a retry of a write whose first attempt may have succeeded
/// recognizes its own object by its ETag. Rename is CopyObject then DeleteObject: not atomic,
/// and its AlreadyExists check races with other writers. Staging files are never written.
///
/// Thread-safety: every method may be called concurrently.
class S3FileSystem final : public FileSystem {
 public:
  /// A file system sending through `transport` (tests inject faults there), or libcurl when
  /// null. Errors as S3Client::Make.
  static Result<std::shared_ptr<S3FileSystem>> Make(
      S3Config config, std::shared_ptr<HttpTransport> transport = nullptr);

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& dir, const ListOptions& options) override;
  Status CreateDir(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  /// One DeleteObjects request per 1000 keys of a bucket.
  Status DeleteFiles(const std::vector<std::string>& paths) override;
  Status DeleteDir(const std::string& path, bool recursive) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status WriteFile(const std::string& path, std::string_view data, WriteMode mode) override;
  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path,
                                                         WriteMode mode) override;
  StorageRequestCounts RequestCounts() const override;

  /// The client, for requests the FileSystem interface does not make (tests list multipart
  /// uploads with it).
  const std::shared_ptr<S3Client>& Client() const { return client_; }

 private:
  explicit S3FileSystem(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}

  /// Every object at or below `prefix` ("a/b/"), at any depth, each page one ListObjectsV2.
  Result<std::vector<S3ObjectInfo>> ListAll(const std::string& bucket, const std::string& prefix);

  std::shared_ptr<S3Client> client_;
};

}  // namespace tributary::storage

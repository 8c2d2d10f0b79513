#include "storage/s3_file_system.h"

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/ascii.h"
#include "storage/output_stream_state.h"
#include "storage/path.h"

namespace tributary::storage {

namespace {

/// Keys per DeleteObjects request: S3's maximum.
constexpr size_t kDeleteBatchSize = 1000;

/// `path` as a bucket and key naming an object (not the bucket, not a "directory/").
Result<S3Location> ObjectLocation(const std::string& path, std::string_view operation) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(path));
  if (location.key.empty() || path.ends_with('/')) {
    return Status::InvalidArgument(
        fmt::format("cannot {} '{}': the path names a directory", operation, path));
  }
  return location;
}

/// The key prefix of the objects below the directory `key`: "" for the bucket, else "key/".
std::string DirectoryPrefix(const std::string& key) {
  return key.empty() ? key : key + "/";
}

/// Deletes `keys` of `bucket` with one DeleteObjects request per kDeleteBatchSize keys.
Status DeleteInBatches(S3Client& client, const std::string& bucket,
                       const std::vector<std::string>& keys) {
  for (size_t begin = 0; begin < keys.size(); begin += kDeleteBatchSize) {
    size_t count = std::min(kDeleteBatchSize, keys.size() - begin);
    TRIBUTARY_RETURN_NOT_OK(
        client.DeleteObjects(bucket, std::span<const std::string>(keys.data() + begin, count)));
  }
  return Status::OK();
}

/// Reads an object with ranged GETs. The ETag seen when it was opened is sent as If-Match, so
/// a file replaced while it is read fails instead of mixing two versions' bytes.
class S3RandomAccessFile final : public RandomAccessFile {
 public:
  S3RandomAccessFile(std::shared_ptr<S3Client> client, std::string path, S3Location object,
                     S3ObjectInfo info)
      : client_(std::move(client)),
        path_(std::move(path)),
        object_(std::move(object)),
        info_(std::move(info)) {}

  const std::string& Path() const override { return path_; }

  Result<int64_t> Size() const override { return info_.size; }

  Status ReadInto(int64_t offset, std::span<char> out) const override {
    const auto length = static_cast<int64_t>(out.size());
    if (offset < 0 || offset > info_.size - length) {
      return Status::InvalidArgument(
          fmt::format("cannot read {} bytes at offset {} of '{}': file ends at byte {}", length,
                      offset, path_, info_.size));
    }
    if (length == 0) {
      return Status::OK();
    }
    if (info_.size > kWholeObjectReadBytes) {
      return client_->GetObjectRange(object_, offset, out, info_.etag);
    }
    // A small object is fetched whole on the first read: a Parquet reader asks for its footer
    // and then each column chunk, which on S3 would be a request each (a Delta checkpoint of a
    // few hundred KiB cost ~80 GETs); one GET costs about as much as one of those.
    std::call_once(whole_once_, [&] {
      whole_.resize(static_cast<size_t>(info_.size));
      whole_status_ = client_->GetObjectRange(object_, 0, whole_, info_.etag);
    });
    TRIBUTARY_RETURN_NOT_OK(whole_status_);
    std::copy_n(whole_.begin() + offset, out.size(), out.begin());
    return Status::OK();
  }

 private:
  /// Objects up to this size are read with one GET and served from memory: on S3 a request's
  /// latency costs about as much as transferring a MiB.
  static constexpr int64_t kWholeObjectReadBytes = 1 << 20;

  const std::shared_ptr<S3Client> client_;
  const std::string path_;
  const S3Location object_;
  const S3ObjectInfo info_;
  mutable std::once_flag whole_once_;
  mutable std::vector<char> whole_;
  mutable Status whole_status_;
};

/// Buffers appends; publishes with one PutObject when the whole file stays below the multipart
/// threshold, else as a multipart upload whose parts go up while the caller appends, at most
/// S3Config::upload_parallelism at once.
class S3OutputStream final : public OutputStream {
 public:
  S3OutputStream(std::shared_ptr<S3Client> client, std::string path, S3Location object,
                 WriteMode mode)
      : client_(std::move(client)),
        path_(std::move(path)),
        object_(std::move(object)),
        mode_(mode) {}
  ~S3OutputStream() override { Discard(); }
  S3OutputStream(const S3OutputStream&) = delete;
  S3OutputStream& operator=(const S3OutputStream&) = delete;

  const std::string& Path() const override { return path_; }

  int64_t Position() const override { return position_; }

  Status Append(std::string_view data) override {
    TRIBUTARY_RETURN_NOT_OK(CheckOpen("append to"));
    buffer_.append(data);
    position_ += static_cast<int64_t>(data.size());
    const S3Config& config = client_->Config();
    const auto part_size = static_cast<size_t>(config.part_size_bytes);
    if (upload_id_.empty() &&
        static_cast<int64_t>(buffer_.size()) <
            std::max(config.multipart_threshold_bytes, config.part_size_bytes)) {
      return Status::OK();
    }
    if (upload_id_.empty()) {
      Result<std::string> upload_id = client_->CreateMultipartUpload(object_);
      if (!upload_id.ok()) {
        return Fail(upload_id.status());
      }
      upload_id_ = std::move(*upload_id);
    }
    while (buffer_.size() >= part_size) {
      std::string part = std::move(buffer_);
      buffer_ = part.substr(part_size);
      part.resize(part_size);
      TRIBUTARY_RETURN_NOT_OK(StartPart(std::move(part)));
    }
    return Status::OK();
  }

  Status Close() override {
    if (state_ == OutputStreamState::kClosed) {
      return Status::OK();
    }
    TRIBUTARY_RETURN_NOT_OK(CheckOpen("close"));
    if (upload_id_.empty()) {
      Status put = client_->PutObject(object_, buffer_, mode_);
      if (!put.ok()) {
        return Fail(put);
      }
    } else {
      if (!buffer_.empty()) {
        TRIBUTARY_RETURN_NOT_OK(StartPart(std::move(buffer_)));
      }
      while (!in_flight_.empty()) {
        TRIBUTARY_RETURN_NOT_OK(FinishOldestPart());
      }
      Status complete = client_->CompleteMultipartUpload(object_, upload_id_, part_etags_, mode_);
      if (!complete.ok()) {
        return Fail(complete);
      }
      upload_id_.clear();
    }
    buffer_ = std::string();
    state_ = OutputStreamState::kClosed;
    return Status::OK();
  }

  Status Abort() override {
    if (state_ != OutputStreamState::kClosed) {
      Discard();
      if (state_ == OutputStreamState::kOpen) {
        state_ = OutputStreamState::kAborted;
      }
    }
    return Status::OK();
  }

 private:
  Status CheckOpen(std::string_view operation) const {
    return CheckOutputStreamOpen(state_, operation, path_);
  }

  /// Uploads `part` as the next part on its own thread, first waiting for the oldest part in
  /// flight when upload_parallelism are.
  Status StartPart(std::string part) {
    if (static_cast<int>(in_flight_.size()) >= std::max(client_->Config().upload_parallelism, 1)) {
      TRIBUTARY_RETURN_NOT_OK(FinishOldestPart());
    }
    part_etags_.emplace_back();
    const int part_number = static_cast<int>(part_etags_.size());
    in_flight_.push_back(
        std::async(std::launch::async, [client = client_, object = object_, upload_id = upload_id_,
                                        part_number, data = std::move(part)] {
          return client->UploadPart(object, upload_id, part_number, data);
        }));
    return Status::OK();
  }

  /// Waits for the oldest part in flight and records its ETag; a failed part fails the stream.
  Status FinishOldestPart() {
    Result<std::string> etag = in_flight_.front().get();
    in_flight_.pop_front();
    if (!etag.ok()) {
      return Fail(etag.status());
    }
    part_etags_[part_etags_.size() - in_flight_.size() - 1] = std::move(*etag);
    return Status::OK();
  }

  /// Discards the stream and returns `status`.
  Status Fail(Status status) {
    Discard();
    state_ = OutputStreamState::kFailed;
    return status;
  }

  /// Waits for the parts in flight, then aborts the multipart upload, if any, so that S3 keeps
  /// no orphan parts. An abort that fails leaves them to the bucket's lifecycle rule
  /// (AbortIncompleteMultipartUpload); nothing becomes visible either way.
  void Discard() {
    while (!in_flight_.empty()) {
      in_flight_.front().wait();
      in_flight_.pop_front();
    }
    if (!upload_id_.empty()) {
      Status aborted = client_->AbortMultipartUpload(object_, upload_id_);
      upload_id_.clear();
      static_cast<void>(aborted);
    }
    buffer_ = std::string();
  }

  const std::shared_ptr<S3Client> client_;
  const std::string path_;
  const S3Location object_;
  const WriteMode mode_;
  OutputStreamState state_ = OutputStreamState::kOpen;
  std::string buffer_;
  int64_t position_ = 0;
  /// Set once the multipart upload is created.
  std::string upload_id_;
  /// One per part started, in part number order; filled as parts finish.
  std::vector<std::string> part_etags_;
  /// The parts being uploaded, oldest first; they are the last in_flight_.size() parts.
  std::deque<std::future<Result<std::string>>> in_flight_;
};

}  // namespace

Result<S3Location> ParseS3Uri(std::string_view uri) {
  std::string_view rest;
  for (std::string_view scheme : {"s3://", "s3a://"}) {
    if (uri.size() >= scheme.size() &&
        EqualsIgnoreAsciiCase(uri.substr(0, scheme.size()), scheme)) {
      rest = uri.substr(scheme.size());
      break;
    }
  }
  size_t slash = rest.find('/');
  std::string_view bucket = rest.substr(0, slash);
  if (bucket.empty()) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not an S3 URI: expected s3://bucket/key or s3a://bucket/key", uri));
  }
  std::string_view key = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  while (key.starts_with('/')) {
    key.remove_prefix(1);
  }
  while (key.ends_with('/')) {
    key.remove_suffix(1);
  }
  return S3Location{std::string(bucket), std::string(key)};
}

Result<std::shared_ptr<S3FileSystem>> S3FileSystem::Make(S3Config config,
                                                         std::shared_ptr<HttpTransport> transport) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<S3Client> client,
                            S3Client::Make(std::move(config), std::move(transport)));
  return std::shared_ptr<S3FileSystem>(new S3FileSystem(std::move(client)));
}

Result<std::vector<S3ObjectInfo>> S3FileSystem::ListAll(const std::string& bucket,
                                                        const std::string& prefix) {
  std::vector<S3ObjectInfo> objects;
  S3ListRequest request;
  request.prefix = prefix;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(S3ListPage page, client_->ListObjectsV2(bucket, request));
    std::move(page.objects.begin(), page.objects.end(), std::back_inserter(objects));
    request.continuation_token = std::move(page.next_continuation_token);
  } while (!request.continuation_token.empty());
  return objects;
}

Result<std::unique_ptr<RandomAccessFile>> S3FileSystem::OpenForRead(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location object, ObjectLocation(path, "open"));
  TRIBUTARY_ASSIGN_OR_RAISE(S3ObjectInfo info, client_->HeadObject(object));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<S3RandomAccessFile>(client_, path, std::move(object), std::move(info)));
}

Result<FileInfo> S3FileSystem::GetFileInfo(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(path));
  if (!location.key.empty()) {
    Result<S3ObjectInfo> object = client_->HeadObject(location);
    if (object.ok()) {
      return FileInfo{path, object->size, object->modification_time_ms, false};
    }
    if (!object.status().IsNotFound()) {
      return object.status();
    }
  }
  // Not an object: a directory when something is below it (the bucket when it exists).
  S3ListRequest probe;
  probe.prefix = DirectoryPrefix(location.key);
  probe.max_keys = 1;
  TRIBUTARY_ASSIGN_OR_RAISE(S3ListPage page, client_->ListObjectsV2(location.bucket, probe));
  if (page.objects.empty() && !location.key.empty()) {
    return Status::NotFound(fmt::format("cannot stat '{}': no object at or below that path", path));
  }
  return FileInfo{path, 0, 0, true};
}

Result<std::vector<FileInfo>> S3FileSystem::List(const std::string& dir,
                                                 const ListOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(dir));
  const std::string prefix = DirectoryPrefix(location.key);
  S3ListRequest request;
  request.prefix = prefix;
  request.delimiter = options.recursive ? "" : "/";
  if (!options.start_after.empty()) {
    // S3 starts just below prefix + start_after, so the entry at start_after itself comes back
    // when it exists (and is dropped below): it proves the directory exists without a second
    // LIST when nothing follows it, as when an idle log or landing prefix is polled.
    request.start_after = prefix + options.start_after;
    auto& last = reinterpret_cast<unsigned char&>(request.start_after.back());
    if (last > 0) {
      --last;
    }
  }
  std::vector<FileInfo> entries;
  bool found_any = false;
  // The entry for `key` (an object, or a common prefix when `is_directory`), if listed.
  auto add = [&](std::string_view key, int64_t size, int64_t modification_time_ms,
                 bool is_directory) {
    found_any = true;
    std::string_view relative = key.substr(prefix.size());
    if (is_directory) {
      relative.remove_suffix(1);  // the delimiter
    } else if (relative.empty() || relative.ends_with('/')) {
      return;  // a directory marker ("dir/") that other tools create
    }
    if (relative.empty() || relative <= options.start_after ||
        (!options.include_staging_files && IsStagingFileName(BaseName(relative)))) {
      return;
    }
    entries.push_back(FileInfo{JoinPath(dir, relative), size, modification_time_ms, is_directory});
  };
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(S3ListPage page, client_->ListObjectsV2(location.bucket, request));
    for (const S3ObjectInfo& object : page.objects) {
      add(object.key, object.size, object.modification_time_ms, false);
    }
    for (const std::string& common_prefix : page.common_prefixes) {
      add(common_prefix, 0, 0, true);
    }
    request.continuation_token = std::move(page.next_continuation_token);
  } while (!request.continuation_token.empty());

  if (!found_any && !location.key.empty()) {
    // Nothing at or after start_after: the directory may still exist, with everything before.
    bool exists = false;
    if (!options.start_after.empty()) {
      S3ListRequest probe;
      probe.prefix = prefix;
      probe.max_keys = 1;
      TRIBUTARY_ASSIGN_OR_RAISE(S3ListPage page, client_->ListObjectsV2(location.bucket, probe));
      exists = !page.objects.empty();
    }
    if (!exists) {
      return Status::NotFound(fmt::format("cannot list '{}': no object below that path", dir));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  return entries;
}

Status S3FileSystem::CreateDir(const std::string& path) {
  // Directories exist through the objects below them.
  return ParseS3Uri(path).status();
}

Status S3FileSystem::DeleteFile(const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location object, ObjectLocation(path, "delete"));
  // DeleteObject succeeds on a missing key; the contract wants NotFound.
  TRIBUTARY_RETURN_NOT_OK(client_->HeadObject(object).status());
  return client_->DeleteObject(object);
}

Status S3FileSystem::DeleteFiles(const std::vector<std::string>& paths) {
  std::map<std::string, std::vector<std::string>> keys_by_bucket;
  for (const std::string& path : paths) {
    TRIBUTARY_ASSIGN_OR_RAISE(S3Location object, ObjectLocation(path, "delete"));
    keys_by_bucket[object.bucket].push_back(std::move(object.key));
  }
  for (const auto& [bucket, keys] : keys_by_bucket) {
    TRIBUTARY_RETURN_NOT_OK(DeleteInBatches(*client_, bucket, keys));
  }
  return Status::OK();
}

Status S3FileSystem::DeleteDir(const std::string& path, bool recursive) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location location, ParseS3Uri(path));
  const std::string prefix = DirectoryPrefix(location.key);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<S3ObjectInfo> objects, ListAll(location.bucket, prefix));
  if (objects.empty()) {
    return Status::NotFound(
        fmt::format("cannot delete directory '{}': no object below that path", path));
  }
  if (!recursive && std::any_of(objects.begin(), objects.end(),
                                [&](const S3ObjectInfo& object) { return object.key != prefix; })) {
    return Status::IOError(fmt::format("cannot delete directory '{}': it is not empty", path));
  }
  std::vector<std::string> keys;
  keys.reserve(objects.size());
  for (S3ObjectInfo& object : objects) {
    keys.push_back(std::move(object.key));
  }
  return DeleteInBatches(*client_, location.bucket, keys)
      .WithContext(fmt::format("deleting directory '{}'", path));
}

Status S3FileSystem::Rename(const std::string& src, const std::string& dst) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location source, ObjectLocation(src, "rename"));
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location destination, ObjectLocation(dst, "rename to"));
  Result<FileInfo> existing = GetFileInfo(dst);
  if (existing.ok()) {
    return Status::AlreadyExists(
        fmt::format("cannot rename '{}' to '{}': the destination exists", src, dst));
  }
  if (!existing.status().IsNotFound()) {
    return existing.status();
  }
  Result<S3ObjectInfo> file = client_->HeadObject(source);
  if (file.ok()) {
    TRIBUTARY_RETURN_NOT_OK(client_->CopyObject(source, destination));
    return client_->DeleteObject(source);
  }
  if (!file.status().IsNotFound()) {
    return file.status();
  }
  // A directory: copy each object below it, then delete the originals.
  const std::string source_prefix = DirectoryPrefix(source.key);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<S3ObjectInfo> objects,
                            ListAll(source.bucket, source_prefix));
  if (objects.empty()) {
    return Status::NotFound(
        fmt::format("cannot rename '{}' to '{}': no object at or below the source", src, dst));
  }
  std::vector<std::string> keys;
  for (const S3ObjectInfo& object : objects) {
    S3Location target{destination.bucket,
                      DirectoryPrefix(destination.key) + object.key.substr(source_prefix.size())};
    TRIBUTARY_RETURN_NOT_OK(client_->CopyObject({source.bucket, object.key}, target));
    keys.push_back(object.key);
  }
  return DeleteInBatches(*client_, source.bucket, keys);
}

Status S3FileSystem::WriteFile(const std::string& path, std::string_view data, WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location object, ObjectLocation(path, "write"));
  if (static_cast<int64_t>(data.size()) < client_->Config().multipart_threshold_bytes) {
    return client_->PutObject(object, data, mode);
  }
  S3OutputStream stream(client_, path, std::move(object), mode);
  TRIBUTARY_RETURN_NOT_OK(stream.Append(data));
  return stream.Close();
}

Result<std::unique_ptr<OutputStream>> S3FileSystem::OpenOutputStream(const std::string& path,
                                                                     WriteMode mode) {
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location object, ObjectLocation(path, "write"));
  return std::unique_ptr<OutputStream>(
      std::make_unique<S3OutputStream>(client_, path, std::move(object), mode));
}

StorageRequestCounts S3FileSystem::RequestCounts() const {
  return client_->RequestCounts();
}

}  // namespace tributary::storage

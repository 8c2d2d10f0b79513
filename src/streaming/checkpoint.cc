// Checkpoint files. Grammars (one file each, UTF-8, lines separated by "\n"):
//
//   metadata    := json-object                      {"id":"<uuid>","tributary":{"sources":
//                                                   ["<identity>",...],"sink":"<description>"}}
//               Spark reads `id` and ignores the rest.
//   offsets/<N> := "v1" "\n" batch-metadata { "\n" source-offset }
//     batch-metadata := {"batchWatermarkMs":<ms>,"batchTimestampMs":<ms>,"conf":{...}}
//     source-offset  := "-"                         (the source had no data yet)
//                     | json-text                   (the source's own offset, verbatim)
//   commits/<N> := "v1" "\n" {"nextBatchWatermarkMs":<ms>}
//   progress.jsonl := { progress-json "\n" }       (StreamingQueryProgress.Json())
//   .lock       := holder-text                      (who holds the flock, for error messages)
//
// progress.jsonl and .lock are in the checkpoint's local directory (Checkpoint::LocalDir): the
// checkpoint itself when it is local, a working directory on this machine when it is in an
// object store, with query-id (the metadata's id the caches there belong to). The lock then
// guards against a second run on this machine only; runs on two
// machines are kept apart by the put-if-absent writes of offsets/<N>, as in Spark.
//
// <N> is the decimal batch id without padding, as Spark names them. Files whose names are not
// decimal numbers (editor backups, staging files) are ignored when looking for the latest.

#include "streaming/checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/local_path.h"
#include "storage/path.h"
#include "streaming/metadata_log.h"

namespace tributary::streaming {
namespace {

using nlohmann::json;

constexpr std::string_view kVersionLine = "v1";

}  // namespace

Result<CheckpointLock> CheckpointLock::Acquire(const std::string& checkpoint_location,
                                               const std::string& holder) {
  std::error_code created;
  std::filesystem::create_directories(checkpoint_location, created);
  const std::string path = storage::JoinPath(checkpoint_location, ".lock");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IOError(
        fmt::format("opening checkpoint lock {}: {}", path, std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string current(512, '\0');
    const ssize_t n = ::pread(fd, current.data(), current.size(), 0);
    current.resize(n > 0 ? static_cast<size_t>(n) : 0);
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return Status::AlreadyExists(fmt::format(
          "checkpoint location {} is in use by another running query: {}. Stop it first, or "
          "give this query its own checkpointLocation",
          checkpoint_location, current.empty() ? "(holder unknown)" : current));
    }
    return Status::IOError(fmt::format("locking {}: {}", path, std::strerror(error)));
  }
  // The holder text is only for the error message above; it is rewritten by each holder.
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    const int error = errno;
    ::close(fd);
    return Status::IOError(fmt::format("writing {}: {}", path, std::strerror(error)));
  }
  return CheckpointLock(fd);
}

CheckpointLock::CheckpointLock(CheckpointLock&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

CheckpointLock& CheckpointLock::operator=(CheckpointLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

CheckpointLock::~CheckpointLock() {
  if (fd_ >= 0) {
    ::close(fd_);  // releases the flock
  }
}

namespace {

std::string CheckpointLocalDir(const std::string& location) {
  if (!storage::IsObjectStorePath(location)) {
    return location;
  }
  // One spelling per object, so s3a:// and s3:// runs of one checkpoint share the lock.
  Result<std::string> canonical = storage::CanonicalPath(location);
  return storage::LocalWorkingDir(storage::DefaultLocalRoot("tributary-checkpoints"),
                                  canonical.ok() ? *canonical : location);
}

}  // namespace

Checkpoint::Checkpoint(storage::FileSystem* fs, std::string location)
    : fs_(fs), location_(std::move(location)), local_dir_(CheckpointLocalDir(location_)) {}

std::string Checkpoint::SourceDir(int source_index) const {
  return storage::JoinPath(storage::JoinPath(location_, "sources"), std::to_string(source_index));
}

std::string Checkpoint::SourceLocalDir(int source_index) const {
  return storage::JoinPath(storage::JoinPath(local_dir_, "sources"), std::to_string(source_index));
}

Status Checkpoint::ClaimLocalDir(const std::string& query_id) const {
  if (local_dir_ == location_) {
    return Status::OK();
  }
  const std::string id_path = storage::JoinPath(local_dir_, "query-id");
  std::string held;
  {
    std::ifstream in(id_path, std::ios::binary);
    std::getline(in, held);
  }
  if (held == query_id) {
    return Status::OK();
  }
  // A new checkpoint at a location this machine served before: the old caches would say files
  // were taken that the new query never took.
  std::error_code error;
  std::filesystem::remove_all(storage::JoinPath(local_dir_, "sources"), error);
  if (!error) {
    std::filesystem::remove(storage::JoinPath(local_dir_, "progress.jsonl"), error);
  }
  if (error) {
    return Status::IOError(fmt::format("clearing the stale caches in {} of checkpoint {}: {}",
                                       local_dir_, location_, error.message()));
  }
  std::ofstream out(id_path, std::ios::binary | std::ios::trunc);
  out << query_id << '\n';
  out.flush();
  if (!out) {
    return Status::IOError(fmt::format("writing {}", id_path));
  }
  return Status::OK();
}

Result<std::optional<CheckpointMetadata>> Checkpoint::ReadMetadata() const {
  const std::string path = storage::JoinPath(location_, "metadata");
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return std::optional<CheckpointMetadata>();
    }
    return text.status();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(json value, ParseLogJson(*text, path, 1));
  CheckpointMetadata metadata;
  if (!value.is_object() || !value.contains("id") || !value["id"].is_string()) {
    return Status::Corruption(fmt::format("{}: no query \"id\" string", path));
  }
  metadata.id = value["id"].get<std::string>();
  if (value.contains("tributary") && value["tributary"].is_object()) {
    const json& ours = value["tributary"];
    if (ours.contains("sources") && ours["sources"].is_array()) {
      for (const json& source : ours["sources"]) {
        if (source.is_string()) {
          metadata.sources.push_back(source.get<std::string>());
        }
      }
    }
    if (ours.contains("sink") && ours["sink"].is_string()) {
      metadata.sink = ours["sink"].get<std::string>();
    }
  }
  return std::optional<CheckpointMetadata>(std::move(metadata));
}

Status Checkpoint::WriteMetadata(const CheckpointMetadata& metadata) const {
  json value = {{"id", metadata.id},
                {"tributary", {{"sources", metadata.sources}, {"sink", metadata.sink}}}};
  return fs_->WriteFile(storage::JoinPath(location_, "metadata"), value.dump(),
                        storage::WriteMode::kPutIfAbsent);
}

Result<std::optional<int64_t>> Checkpoint::LatestBatch(const std::string& dir) const {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> ids,
                            ListLogBatchIds(*fs_, storage::JoinPath(location_, dir)));
  return ids.empty() ? std::optional<int64_t>() : std::optional<int64_t>(ids.back());
}

Result<std::optional<int64_t>> Checkpoint::LatestOffsetBatch() const {
  return LatestBatch("offsets");
}

Result<std::optional<int64_t>> Checkpoint::LatestCommitBatch() const {
  return LatestBatch("commits");
}

Result<OffsetSeq> Checkpoint::ReadOffsets(int64_t batch_id) const {
  const std::string path =
      storage::JoinPath(storage::JoinPath(location_, "offsets"), std::to_string(batch_id));
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_->ReadFile(path));
  const std::vector<std::string_view> lines = SplitLogLines(text);
  TRIBUTARY_RETURN_NOT_OK(CheckLogVersion(lines, path));
  if (lines.size() < 2) {
    return Status::Corruption(fmt::format("{}: no batch metadata line", path));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(json metadata, ParseLogJson(lines[1], path, 2));
  OffsetSeq seq;
  if (metadata.is_object()) {
    seq.batch_watermark_ms = metadata.value("batchWatermarkMs", int64_t{0});
    seq.batch_timestamp_ms = metadata.value("batchTimestampMs", int64_t{0});
    if (metadata.contains("conf") && metadata["conf"].is_object()) {
      for (const auto& [key, value] : metadata["conf"].items()) {
        if (value.is_string()) {
          seq.conf[key] = value.get<std::string>();
        }
      }
    }
  }
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i] == "-") {
      seq.offsets.emplace_back();
    } else {
      seq.offsets.emplace_back(std::string(lines[i]));
    }
  }
  return seq;
}

Status Checkpoint::WriteOffsets(int64_t batch_id, const OffsetSeq& offsets) const {
  std::string text(kVersionLine);
  text += '\n';
  // Spark's field order, so the files read the same as Spark's.
  nlohmann::ordered_json metadata;
  metadata["batchWatermarkMs"] = offsets.batch_watermark_ms;
  metadata["batchTimestampMs"] = offsets.batch_timestamp_ms;
  metadata["conf"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : offsets.conf) {
    metadata["conf"][key] = value;
  }
  text += metadata.dump();
  for (const std::optional<Offset>& offset : offsets.offsets) {
    text += '\n';
    if (!offset) {
      text += '-';
    } else {
      // One line per source: an offset's JSON must not span lines.
      if (offset->find('\n') != std::string::npos) {
        return Status::Internal(fmt::format("source offset with a line break: {}", *offset));
      }
      text += *offset;
    }
  }
  return fs_->WriteFile(
      storage::JoinPath(storage::JoinPath(location_, "offsets"), std::to_string(batch_id)), text,
      storage::WriteMode::kPutIfAbsent);
}

Status Checkpoint::WriteCommit(int64_t batch_id, int64_t next_batch_watermark_ms) const {
  std::string text(kVersionLine);
  text += '\n';
  text += json{{"nextBatchWatermarkMs", next_batch_watermark_ms}}.dump();
  return fs_->WriteFile(
      storage::JoinPath(storage::JoinPath(location_, "commits"), std::to_string(batch_id)), text,
      storage::WriteMode::kPutIfAbsent);
}

Result<int64_t> Checkpoint::ReadCommitWatermark(int64_t batch_id) const {
  const std::string path =
      storage::JoinPath(storage::JoinPath(location_, "commits"), std::to_string(batch_id));
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_->ReadFile(path));
  const std::vector<std::string_view> lines = SplitLogLines(text);
  TRIBUTARY_RETURN_NOT_OK(CheckLogVersion(lines, path));
  if (lines.size() < 2) {
    return Status::Corruption(fmt::format("{}: no commit metadata line", path));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(json metadata, ParseLogJson(lines[1], path, 2));
  return metadata.is_object() ? metadata.value("nextBatchWatermarkMs", int64_t{0}) : 0;
}

Status Checkpoint::Purge(int64_t first_retained) const {
  for (const char* dir : {"offsets", "commits"}) {
    auto entries = fs_->List(storage::JoinPath(location_, dir), {});
    if (!entries.ok()) {
      if (entries.status().IsNotFound()) {
        continue;
      }
      return entries.status();
    }
    for (const storage::FileInfo& entry : *entries) {
      const std::optional<int64_t> id = ParseLogBatchId(storage::BaseName(entry.path));
      if (id && *id < first_retained) {
        TRIBUTARY_RETURN_NOT_OK(fs_->DeleteFile(entry.path));
      }
    }
  }
  return Status::OK();
}

Status Checkpoint::AppendProgress(const std::string& json_line) const {
  // Appending is not a FileSystem primitive (object stores cannot), so the file is in the
  // local directory; a torn last line only loses a progress record.
  const std::string path = storage::JoinPath(local_dir_, "progress.jsonl");
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << json_line << '\n';
  out.flush();
  if (!out) {
    return Status::IOError(fmt::format("appending to {}", path));
  }
  return Status::OK();
}

}  // namespace tributary::streaming

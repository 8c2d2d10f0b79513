// Log file names (PROTOCOL.md "Delta Log Entries", "Checkpoints", "Log Compaction Files"):
//
//   commit       = version20 ".json"
//   classic      = version20 ".checkpoint.parquet"
//   multi-part   = version20 ".checkpoint." part10 "." parts10 ".parquet"
//   uuid (V2)    = version20 ".checkpoint." uuid ( ".json" | ".parquet" )
//   compaction   = version20 "." version20 ".compacted.json"
//   version20    = 20 decimal digits, zero-padded;  part10/parts10 = 10 digits

#include "delta/log_segment.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/path.h"

namespace tributary::delta {
namespace {

bool ParseDigits(std::string_view text, size_t count, int64_t* out) {
  if (text.size() < count) {
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
  }
  return std::from_chars(text.data(), text.data() + count, *out).ec == std::errc();
}

bool IsUuid(std::string_view text) {
  if (text.size() != 36) {
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<LogFile> ParseLogFileName(const std::string& name) {
  LogFile file;
  if (!ParseDigits(name, 20, &file.version)) {
    return std::nullopt;
  }
  std::string_view rest = std::string_view(name).substr(20);
  if (rest == ".json") {
    file.kind = LogFile::Kind::kCommit;
    return file;
  }
  if (rest == ".checkpoint.parquet") {
    file.kind = LogFile::Kind::kClassicCheckpoint;
    return file;
  }
  constexpr std::string_view kCheckpoint = ".checkpoint.";
  if (rest.substr(0, kCheckpoint.size()) == kCheckpoint) {
    std::string_view tail = rest.substr(kCheckpoint.size());
    if (tail.size() == 10 + 1 + 10 + 8 && tail.substr(21) == ".parquet" && tail[10] == '.' &&
        ParseDigits(tail, 10, &file.part) && ParseDigits(tail.substr(11), 10, &file.parts)) {
      file.kind = LogFile::Kind::kMultiPartCheckpoint;
      return file;
    }
    if (tail.size() > 36 && IsUuid(tail.substr(0, 36)) &&
        (tail.substr(36) == ".json" || tail.substr(36) == ".parquet")) {
      file.kind = LogFile::Kind::kUuidCheckpoint;
      return file;
    }
    return std::nullopt;
  }
  if (rest.size() == 1 + 20 + 15 && rest[0] == '.' && rest.substr(21) == ".compacted.json" &&
      ParseDigits(rest.substr(1), 20, &file.part)) {
    file.kind = LogFile::Kind::kCompaction;
    return file;
  }
  return std::nullopt;
}

std::string CommitPath(const std::string& log_dir, int64_t version) {
  return storage::JoinPath(log_dir, fmt::format("{:020}.json", version));
}

Result<LogSegment> BuildLogSegment(storage::FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version) {
  const std::string log_dir = storage::JoinPath(table_root, "_delta_log");
  auto listing = fs.List(log_dir, storage::ListOptions{});
  if (!listing.ok()) {
    if (listing.status().IsNotFound()) {
      return Status::NotFound(fmt::format("{} is not a Delta table: no _delta_log", table_root));
    }
    return listing.status();
  }
  std::vector<LogFile> commits;
  // Checkpoints by version: classic/uuid files, and multi-part sets keyed by their part count.
  std::map<int64_t, std::vector<LogFile>> single_checkpoints;
  std::map<int64_t, std::map<int64_t, std::vector<LogFile>>> multi_part;
  for (const storage::FileInfo& info : *listing) {
    if (info.is_directory) {
      continue;
    }
    auto file = ParseLogFileName(std::string(storage::BaseName(info.path)));
    if (!file) {
      continue;
    }
    file->path = info.path;
    file->size = info.size;
    file->modification_time_ms = info.modification_time_ms;
    switch (file->kind) {
      case LogFile::Kind::kCommit:
        commits.push_back(*file);
        break;
      case LogFile::Kind::kClassicCheckpoint:
      case LogFile::Kind::kUuidCheckpoint:
        single_checkpoints[file->version].push_back(*file);
        break;
      case LogFile::Kind::kMultiPartCheckpoint:
        multi_part[file->version][file->parts].push_back(*file);
        break;
      case LogFile::Kind::kCompaction:
        break;  // optional to use; replaying the commits gives the same state
    }
  }
  std::sort(commits.begin(), commits.end(),
            [](const LogFile& a, const LogFile& b) { return a.version < b.version; });
  // The newest version the log knows: its last commit, or a checkpoint past it (a log whose
  // older commits were cleaned up).
  int64_t latest = commits.empty() ? -1 : commits.back().version;
  if (!single_checkpoints.empty()) {
    latest = std::max(latest, single_checkpoints.rbegin()->first);
  }
  if (!multi_part.empty()) {
    latest = std::max(latest, multi_part.rbegin()->first);
  }
  if (commits.empty() && single_checkpoints.empty() && multi_part.empty()) {
    return Status::NotFound(fmt::format("{}: the Delta log has no commits", log_dir));
  }
  const int64_t target = version.value_or(latest);
  if (target < 0 || target > latest) {
    return Status::NotFound(
        fmt::format("{}: version {} does not exist; the latest is {}", table_root, target, latest));
  }
  LogSegment segment;
  segment.version = target;
  segment.all_commits = commits;
  // The newest complete checkpoint at or below the target. V2/classic ones are complete by
  // themselves; a multi-part set only when every part is present (PROTOCOL.md).
  for (int64_t v = target; v >= 0 && segment.checkpoint_version < 0; --v) {
    auto single = single_checkpoints.find(v);
    if (single != single_checkpoints.end()) {
      // Prefer a UUID-named V2 checkpoint; any one complete checkpoint is enough.
      const LogFile* best = &single->second.front();
      for (const LogFile& f : single->second) {
        if (f.kind == LogFile::Kind::kUuidCheckpoint) {
          best = &f;
        }
      }
      segment.checkpoint = {*best};
      segment.checkpoint_version = v;
      break;
    }
    auto multi = multi_part.find(v);
    if (multi != multi_part.end()) {
      for (auto& [parts, files] : multi->second) {
        std::sort(files.begin(), files.end(),
                  [](const LogFile& a, const LogFile& b) { return a.part < b.part; });
        bool complete = static_cast<int64_t>(files.size()) == parts;
        for (size_t i = 0; complete && i < files.size(); ++i) {
          complete = files[i].part == static_cast<int64_t>(i) + 1;
        }
        if (complete) {
          segment.checkpoint = files;
          segment.checkpoint_version = v;
          break;
        }
      }
    }
    if (single_checkpoints.empty() && multi_part.empty()) {
      break;
    }
  }
  const int64_t first = segment.checkpoint_version + 1;
  int64_t expected = first;
  for (const LogFile& commit : commits) {
    if (commit.version < first || commit.version > target) {
      continue;
    }
    if (commit.version != expected) {
      break;
    }
    segment.commits.push_back(commit);
    ++expected;
  }
  if (expected != target + 1) {
    return Status::Corruption(
        fmt::format("{}: missing_commit: commit {} missing (replay from version {} to {})", log_dir,
                    expected, first, target));
  }
  return segment;
}

}  // namespace tributary::delta

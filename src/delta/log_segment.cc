// Log file names (PROTOCOL.md "Delta Log Entries", "Checkpoints", "Log Compaction Files"):
//
//   commit       = version20 ".json"
//   classic      = version20 ".checkpoint.parquet"
//   multi-part   = version20 ".checkpoint." part10 "." parts10 ".parquet"
//   uuid (V2)    = version20 ".checkpoint." uuid ( ".json" | ".parquet" )
//   compaction   = version20 "." version20 ".compacted.json"
//   checksum     = version20 ".crc"
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
  if (rest == ".crc") {
    file.kind = LogFile::Kind::kChecksum;
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

Result<LogListing> ListLog(storage::FileSystem& fs, const std::string& log_dir,
                           std::optional<int64_t> from_version) {
  storage::ListOptions options;
  if (from_version && *from_version > 0) {
    // Every name of version v starts with its 20 digits and goes on, so it sorts after them.
    options.start_after = fmt::format("{:020}", *from_version);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> infos, fs.List(log_dir, options));
  LogListing listing;
  std::map<int64_t, std::vector<LogFile>> single_checkpoints;
  // Multi-part sets by version, then by part count.
  std::map<int64_t, std::map<int64_t, std::vector<LogFile>>> multi_part;
  for (const storage::FileInfo& info : infos) {
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
        listing.commits.push_back(*file);
        break;
      case LogFile::Kind::kClassicCheckpoint:
      case LogFile::Kind::kUuidCheckpoint:
        // An empty file is no checkpoint (a writer that crashed before writing it, on a
        // store without atomic publishing): replay must not start there.
        if (file->size > 0) {
          single_checkpoints[file->version].push_back(*file);
        }
        break;
      case LogFile::Kind::kMultiPartCheckpoint:
        if (file->size > 0) {
          multi_part[file->version][file->parts].push_back(*file);
        }
        break;
      case LogFile::Kind::kCompaction:  // optional to use: the commits give the same state
      case LogFile::Kind::kChecksum:
        break;
    }
    listing.files.push_back(std::move(*file));
  }
  auto by_version = [](const LogFile& a, const LogFile& b) {
    return a.version < b.version;
  };
  std::sort(listing.commits.begin(), listing.commits.end(), by_version);
  std::stable_sort(listing.files.begin(), listing.files.end(), by_version);
  for (auto& [version, files] : single_checkpoints) {
    // Prefer a UUID-named V2 checkpoint; any one complete checkpoint is enough.
    const LogFile* best = &files.front();
    for (const LogFile& f : files) {
      if (f.kind == LogFile::Kind::kUuidCheckpoint) {
        best = &f;
      }
    }
    listing.checkpoints[version] = {*best};
  }
  for (auto& [version, sets] : multi_part) {
    if (listing.checkpoints.count(version)) {
      continue;
    }
    for (auto& [parts, files] : sets) {
      std::sort(files.begin(), files.end(),
                [](const LogFile& a, const LogFile& b) { return a.part < b.part; });
      bool complete = static_cast<int64_t>(files.size()) == parts;
      for (size_t i = 0; complete && i < files.size(); ++i) {
        complete = files[i].part == static_cast<int64_t>(i) + 1;
      }
      if (complete) {
        listing.checkpoints[version] = files;
        break;
      }
    }
  }
  return listing;
}

Result<std::optional<int64_t>> ReadLastCheckpointVersion(storage::FileSystem& fs,
                                                         const std::string& log_dir) {
  const std::string path = storage::JoinPath(log_dir, "_last_checkpoint");
  Result<std::string> text = fs.ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return std::optional<int64_t>();
    }
    return text.status().WithContext(fmt::format("reading {}", path));
  }
  const nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return std::optional<int64_t>();
  }
  auto version = parsed.find("version");
  if (version == parsed.end() || !version->is_number_integer() || version->get<int64_t>() < 0) {
    return std::optional<int64_t>();
  }
  return std::optional<int64_t>(version->get<int64_t>());
}

namespace {

// The segment for `version` from a listing (the whole log, or the log from a checkpoint on),
// starting at a checkpoint older than `checkpoint_before` when set.
Result<LogSegment> SegmentFromListing(LogListing listing, const std::string& table_root,
                                      const std::string& log_dir, std::optional<int64_t> version,
                                      std::optional<int64_t> checkpoint_before) {
  if (checkpoint_before) {
    listing.checkpoints.erase(listing.checkpoints.lower_bound(*checkpoint_before),
                              listing.checkpoints.end());
  }
  // The newest version the log knows: its last commit, or a complete checkpoint past it (a log
  // whose commits were cleaned up). An incomplete checkpoint proves nothing.
  int64_t latest = listing.commits.empty() ? -1 : listing.commits.back().version;
  if (!listing.checkpoints.empty()) {
    latest = std::max(latest, listing.checkpoints.rbegin()->first);
  }
  if (latest < 0) {
    return Status::NotFound(fmt::format("{}: the Delta log has no commits", log_dir));
  }
  const int64_t target = version.value_or(latest);
  if (target < 0 || target > latest) {
    return Status::NotFound(
        fmt::format("{}: version {} does not exist; the latest is {}", table_root, target, latest));
  }
  LogSegment segment;
  segment.version = target;
  auto checkpoint = listing.checkpoints.upper_bound(target);
  if (checkpoint != listing.checkpoints.begin()) {
    --checkpoint;
    segment.checkpoint = checkpoint->second;
    segment.checkpoint_version = checkpoint->first;
  }
  const int64_t first = segment.checkpoint_version + 1;
  int64_t expected = first;
  for (const LogFile& commit : listing.commits) {
    if (commit.version < first || commit.version > target) {
      continue;
    }
    if (commit.version != expected) {
      break;
    }
    segment.commits.push_back(commit);
    ++expected;
  }
  if (expected == target + 1) {
    return segment;
  }
  const std::string missing = fmt::format(
      "missing_commit: commit {} missing (replay from version {} to {})", expected, first, target);
  // Before the oldest checkpoint of a log without its first commits: log cleanup removed them.
  const bool has_first_commit = !listing.commits.empty() && listing.commits.front().version == 0;
  if (!has_first_commit && !listing.checkpoints.empty() &&
      listing.checkpoints.begin()->first > target) {
    return Status::NotFound(
        fmt::format("{}: version {} is no longer available: {}; the log was cleaned up "
                    "(delta.logRetentionDuration) and the earliest version available is {}",
                    table_root, target, missing, listing.checkpoints.begin()->first));
  }
  return Status::Corruption(fmt::format("{}: {}", log_dir, missing));
}

}  // namespace

Result<LogSegment> BuildLogSegment(storage::FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version,
                                   std::optional<int64_t> checkpoint_before) {
  const std::string log_dir = storage::JoinPath(table_root, "_delta_log");
  // `_last_checkpoint` saves listing the whole log, but only the listing can be trusted: any
  // doubt about the hint falls back to listing everything.
  Result<std::optional<int64_t>> hint = ReadLastCheckpointVersion(fs, log_dir);
  if (hint.ok() && *hint && (!version || *version >= **hint) &&
      (!checkpoint_before || **hint < *checkpoint_before)) {
    Result<LogListing> from_hint = ListLog(fs, log_dir, **hint);
    if (from_hint.ok() && from_hint->checkpoints.count(**hint)) {
      Result<LogSegment> segment = SegmentFromListing(*std::move(from_hint), table_root, log_dir,
                                                      version, checkpoint_before);
      if (segment.ok()) {
        return segment;
      }
    }
  }
  Result<LogListing> listing = ListLog(fs, log_dir);
  if (!listing.ok()) {
    if (listing.status().IsNotFound()) {
      return Status::NotFound(fmt::format("{} is not a Delta table: no _delta_log", table_root));
    }
    return listing.status();
  }
  return SegmentFromListing(*std::move(listing), table_root, log_dir, version, checkpoint_before);
}

bool HasDeltaLog(storage::FileSystem& fs, const std::string& table_root) {
  Result<storage::FileInfo> log = fs.GetFileInfo(storage::JoinPath(table_root, "_delta_log"));
  return log.ok() && log->is_directory;
}

}  // namespace tributary::delta

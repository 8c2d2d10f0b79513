#include "delta/history.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/calendar.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "storage/path.h"

namespace tributary::delta {

Result<std::vector<CommitEntry>> ReadHistory(storage::FileSystem& fs,
                                             const std::string& table_root) {
  // Validates the table (a readable latest version) before listing every commit.
  TRIBUTARY_RETURN_NOT_OK(BuildLogSegment(fs, table_root, std::nullopt).status());
  TRIBUTARY_ASSIGN_OR_RAISE(LogListing listing,
                            ListLog(fs, storage::JoinPath(table_root, "_delta_log")));
  std::vector<CommitEntry> entries;
  int64_t previous_ms = INT64_MIN;
  for (const LogFile& commit : listing.commits) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(commit.path));
    TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, commit.path));
    CommitEntry entry;
    entry.version = commit.version;
    entry.timestamp_ms = commit.modification_time_ms;
    for (const Action& action : actions) {
      if (!action.commit_info) {
        continue;
      }
      entry.commit_info = *action.commit_info;
      if (action.in_commit_timestamp) {
        entry.timestamp_ms = *action.in_commit_timestamp;
      }
      nlohmann::json info = nlohmann::json::parse(*action.commit_info, nullptr, false);
      if (info.is_object()) {
        auto text_of = [&](const char* key) -> std::string {
          auto it = info.find(key);
          if (it == info.end() || it->is_null()) {
            return "";
          }
          return it->is_string() ? it->get<std::string>() : it->dump();
        };
        entry.operation = text_of("operation");
        entry.operation_parameters = text_of("operationParameters");
        entry.engine_info = text_of("engineInfo");
      }
    }
    // File times can go backwards (copies, clock skew); Delta makes them increase.
    if (previous_ms != INT64_MIN && entry.timestamp_ms <= previous_ms) {
      entry.timestamp_ms = previous_ms + 1;
    }
    previous_ms = entry.timestamp_ms;
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<int64_t> VersionAtTimestamp(storage::FileSystem& fs, const std::string& table_root,
                                   int64_t timestamp_ms) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto history, ReadHistory(fs, table_root));
  std::optional<int64_t> version;
  for (const CommitEntry& entry : history) {
    if (entry.timestamp_ms <= timestamp_ms) {
      version = entry.version;
    }
  }
  if (!version) {
    return Status::NotFound(
        fmt::format("{}: no version at or before timestamp {} ms; the first commit is at {} ms",
                    table_root, timestamp_ms, history.empty() ? 0 : history.front().timestamp_ms));
  }
  // Past the last commit no version is known to hold at that time yet (a commit may still
  // land before it): Delta refuses (DeltaErrors.timestampGreaterThanLatestCommit).
  if (timestamp_ms > history.back().timestamp_ms) {
    auto text = [](int64_t ms) {
      std::string out;
      columnar::AppendTimestampSpark(ms * 1000, &out);
      return out;
    };
    const std::string latest = text(history.back().timestamp_ms);
    return Status::InvalidArgument(fmt::format(
        "{}: The provided timestamp ({} UTC) is after the latest version available to this "
        "table ({} UTC, version {}). Please use a timestamp before or at {} UTC.",
        table_root, text(timestamp_ms), latest, history.back().version, latest));
  }
  return *version;
}

}  // namespace tributary::delta

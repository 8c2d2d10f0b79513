// Spark's HDFSMetadataLog conventions, shared by the logs a streaming query keeps in its
// checkpoint (the engine's offsets/ and commits/, the sources' own under sources/<n>/): one
// file per batch, named by the batch id in decimal without padding, written whole by
// put-if-absent, whose first line is the format version ("v1").

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// The batch id a log file name stands for; nullopt for other names (staging files, backups).
std::optional<int64_t> ParseLogBatchId(std::string_view file_name);

/// The batch ids of the log files in `dir`, ascending; none when `dir` does not exist.
Result<std::vector<int64_t>> ListLogBatchIds(storage::FileSystem& fs, const std::string& dir);

/// `text` split at "\n" (no empty line after a final "\n").
std::vector<std::string_view> SplitLogLines(std::string_view text);

/// Corruption naming `path` unless the first line is "v1".
Status CheckLogVersion(const std::vector<std::string_view>& lines, const std::string& path);

/// The line after "v1" of the file at `path`, pinned by the first caller: when the file is
/// missing, `compute` gives the line (nullopt: nothing to pin yet, and nullopt is returned),
/// written put-if-absent, so that of two first runs one wins and both read the winner's line.
/// Corruption naming `path` and `what` when the file has no such line.
Result<std::optional<std::string>> PinLogLine(
    storage::FileSystem& fs, const std::string& path, std::string_view what,
    const std::function<Result<std::optional<std::string>>()>& compute);

/// Line `line` (1-based) of `path` as JSON; Corruption naming both when it is not JSON.
Result<nlohmann::json> ParseLogJson(std::string_view text, const std::string& path, int line);

}  // namespace tributary::streaming

// `tributary table describe|history|files|cat`: inspect Delta tables.

#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "expr/time_zone.h"
#include "tributary/status.h"

namespace tributary::tools {

struct TableCommandOptions {
  std::string path;
  /// Time travel: a version, or a timestamp ("2024-05-01 10:00:00", read in `time_zone`).
  std::optional<int64_t> version;
  std::string timestamp;
  expr::TimeZone time_zone;
  /// "text" or "json".
  std::string format = "text";
};

/// OPTIMIZE: `partition` holds "col=value" filters; `target_size` 0 keeps the default.
Status TableOptimize(const TableCommandOptions& options, const std::vector<std::string>& partition,
                     int64_t target_size, std::ostream& out);
/// VACUUM with `retain_hours` (default 168), optionally a dry run or forced below the minimum.
Status TableVacuum(const TableCommandOptions& options, int64_t retain_hours, bool dry_run,
                   bool force, std::ostream& out);
/// Writes a checkpoint of the latest (or requested) version.
Status TableCheckpoint(const TableCommandOptions& options, std::ostream& out);

Status TableDescribe(const TableCommandOptions& options, std::ostream& out);
/// Commits newest first; with `version` (or `timestamp`) set, those up to that version.
Status TableHistory(const TableCommandOptions& options, std::ostream& out);
/// One JSON object per live file: path, partitionValues, size, deletionVector.
Status TableFiles(const TableCommandOptions& options, std::ostream& out);
/// One canonical JSON object per row.
Status TableCat(const TableCommandOptions& options, std::ostream& out);

}  // namespace tributary::tools

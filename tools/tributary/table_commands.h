// `tributary table describe|history|files|cat`: inspect Delta tables.

#pragma once

#include <optional>
#include <ostream>
#include <string>

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

Status TableDescribe(const TableCommandOptions& options, std::ostream& out);
Status TableHistory(const TableCommandOptions& options, std::ostream& out);
/// One JSON object per live file: path, partitionValues, size, deletionVector.
Status TableFiles(const TableCommandOptions& options, std::ostream& out);
/// One canonical JSON object per row.
Status TableCat(const TableCommandOptions& options, std::ostream& out);

}  // namespace tributary::tools

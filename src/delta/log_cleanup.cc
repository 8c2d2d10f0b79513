#include "delta/log_cleanup.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "delta/log_segment.h"
#include "delta/table_properties.h"
#include "storage/path.h"

namespace tributary::delta {

Result<LogCleanupResult> CleanUpExpiredLogs(storage::FileSystem& fs, const Snapshot& snapshot,
                                            int64_t now_ms) {
  LogCleanupResult result;
  const Metadata& metadata = snapshot.GetMetadata();
  if (!BooleanProperty(metadata, "delta.enableExpiredLogCleanup", true)) {
    return result;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      const int64_t retention_ms,
      DurationProperty(metadata, "delta.logRetentionDuration", kDefaultLogRetentionMillis));
  constexpr int64_t kDayMillis = 24LL * 3600 * 1000;
  int64_t cutoff_ms = now_ms - retention_ms;
  cutoff_ms -= ((cutoff_ms % kDayMillis) + kDayMillis) % kDayMillis;

  const std::string log_dir = storage::JoinPath(snapshot.TableRoot(), "_delta_log");
  TRIBUTARY_ASSIGN_OR_RAISE(LogListing listing, ListLog(fs, log_dir));
  // The oldest version with a file that must stay for its age.
  int64_t first_unexpired = std::numeric_limits<int64_t>::max();
  for (const LogFile& file : listing.files) {
    if (file.modification_time_ms > cutoff_ms) {
      first_unexpired = std::min(first_unexpired, file.version);
    }
  }
  int64_t boundary = -1;
  for (const auto& [version, files] : listing.checkpoints) {
    if (version <= snapshot.Version() && version <= first_unexpired) {
      boundary = version;
    }
  }
  if (boundary <= 0) {
    return result;
  }
  for (const LogFile& file : listing.files) {
    if (file.version >= boundary) {
      break;
    }
    Status deleted = fs.DeleteFile(file.path);
    if (!deleted.ok() && !deleted.IsNotFound()) {
      return deleted.WithContext(fmt::format("expired log cleanup of {} up to checkpoint {}",
                                             snapshot.TableRoot(), boundary));
    }
    result.deleted.push_back(file.path);
  }
  result.earliest_version = boundary;
  return result;
}

}  // namespace tributary::delta

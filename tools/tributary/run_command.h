// `tributary run`: runs a SQL pipeline file (tributary/pipeline.h) against a warehouse.

#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tributary/status.h"

namespace tributary::tools {

struct RunCommandOptions {
  /// The pipeline's SQL file.
  std::string file;
  /// Tables by name live here (default: $TRIBUTARY_WAREHOUSE, else ./warehouse).
  std::string warehouse;
  /// "available-now" (default), "once" or "processing-time=INTERVAL".
  std::string trigger = "available-now";
  /// Session time zone ("" = TZ, else UTC).
  std::string time_zone;
  /// Threads a batch query may use (--threads / TRIBUTARY_THREADS, resolved); 0: the
  /// session's default. A --conf tributary.threads=N wins.
  int threads = 0;
  /// --conf KEY=VALUE: session settings (spark.* and tributary.* keys), as spark-submit's.
  std::vector<std::string> conf;
  /// --checkpoints DIR: the streaming tables' checkpoints go under DIR/<table> instead of
  /// <warehouse>/_checkpoints (several processes running one pipeline over one warehouse).
  std::string checkpoint_root;
};

/// Runs the pipeline, printing one line per event (tables created, streams started and
/// finished, each batch, schema-change restarts). With `terminal` and an available-now
/// trigger, a progress bar over each table's backlog is redrawn below the lines. SIGINT and
/// SIGTERM stop the streams after their current batch; when that takes more than 10 s (a batch
/// blocked in I/O) or a second signal comes, the process ends at once, as a crash would (the
/// next run redoes the unfinished batch from the checkpoint). A clean stop is OK.
Status RunPipelineCommand(const RunCommandOptions& options, std::ostream& out, bool terminal);

}  // namespace tributary::tools

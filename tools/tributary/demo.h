// `tributary demo`: the main job of issue 8 end to end. It lands sample JSON logs in a local
// folder, runs the reference pipeline (Auto Loader -> bronze `raw_logs` -> gold
// `gold_active_logs`) with the code of `tributary run --trigger available-now`, lands more
// files carrying a new field and malformed lines, runs it again (incremental, evolved schema,
// rescued records), then queries both tables with the code of `tributary sql`.

#pragma once

#include <ostream>
#include <string>

#include "expr/time_zone.h"
#include "tributary/status.h"

namespace tributary::tools {

struct DemoOptions {
  /// Working directory; created if missing. Default: a new mkdtemp folder under /tmp.
  std::string dir;
  /// Worker threads (already resolved from --threads / TRIBUTARY_THREADS).
  int threads = 1;
  /// Session time zone for zone-less timestamps. Default: UTC.
  expr::TimeZone time_zone;
};

/// Runs the demo job in `options.dir` and writes what each step did to `out`: the files it
/// landed, the pipeline's output lines, and the query results as grids. The landing folder is
/// <dir>/landing/raw-logs, the pipeline file <dir>/pipeline.sql, the warehouse <dir>/warehouse
/// (checkpoints in <dir>/warehouse/_checkpoints/<table>). Errors name the step's file or table.
/// A directory holding an earlier demo's files is refused (the demo's counts assume a fresh
/// one).
Status RunDemo(const DemoOptions& options, std::ostream& out);

}  // namespace tributary::tools

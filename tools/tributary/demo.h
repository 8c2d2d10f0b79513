// `tributary demo`: the foundation layers at work on embedded sample data. Later issues grow it
// into the reference pipeline (files -> Auto Loader -> Delta table).

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

/// Runs the demo job and writes a report of each step to `out`.
Status RunDemo(const DemoOptions& options, std::ostream& out);

}  // namespace tributary::tools

// The tributary command-line tool. Every subcommand honours --threads N and TRIBUTARY_THREADS.

#include <cstdlib>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/thread_count.h"
#include "demo.h"
#include "expr/time_zone.h"

namespace {

constexpr const char* kVersion = "0.1.0";

// The session time zone: --timezone, else TZ when it names UTC or a fixed offset, else UTC.
tributary::Result<tributary::expr::TimeZone> SessionTimeZone(const std::string& flag) {
  if (!flag.empty()) {
    return tributary::expr::TimeZone::Make(flag);
  }
  if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') {
    return tributary::expr::TimeZone::Make(tz);
  }
  return tributary::expr::TimeZone();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tributary: a native lakehouse streaming engine (Delta Lake, Structured Streaming)"};
  app.require_subcommand(1);
  int threads = 0;
  std::string time_zone_flag;
  app.add_option("--threads", threads,
                 "Worker threads (default: TRIBUTARY_THREADS, else every core)");
  app.add_option("--timezone", time_zone_flag,
                 "Session time zone: UTC or a fixed offset such as +02:00 (default: TZ, else UTC)");

  std::string demo_dir;
  auto* demo = app.add_subcommand(
      "demo", "Run the built-in job on embedded sample data and print what it did");
  demo->add_option("--dir", demo_dir, "Working directory (default: a new folder under /tmp)");

  auto* version = app.add_subcommand("version", "Print the version");

  CLI11_PARSE(app, argc, argv);

  auto resolved_threads = tributary::ResolveThreadCount(threads);
  if (!resolved_threads.ok()) {
    std::cerr << "tributary: " << resolved_threads.status().ToString() << "\n";
    return 2;
  }
  auto zone = SessionTimeZone(time_zone_flag);
  if (!zone.ok()) {
    std::cerr << "tributary: " << zone.status().ToString() << "\n";
    return 2;
  }
  if (version->parsed()) {
    std::cout << "tributary " << kVersion << "\n";
    return 0;
  }
  if (demo->parsed()) {
    tributary::tools::DemoOptions options;
    options.dir = demo_dir;
    options.threads = *resolved_threads;
    options.time_zone = *zone;
    tributary::Status st = tributary::tools::RunDemo(options, std::cout);
    if (!st.ok()) {
      std::cerr << "tributary demo: " << st.ToString() << "\n";
      return 1;
    }
  }
  return 0;
}

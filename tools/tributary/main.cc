// The tributary command-line tool. Every subcommand honours --threads N and TRIBUTARY_THREADS.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/thread_count.h"
#include "demo.h"
#include "expr/time_zone.h"
#include "parquet_commands.h"
#include "run_command.h"
#include "sql_command.h"
#include "state_command.h"
#include "storage/local_path.h"
#include "table_commands.h"

namespace {

constexpr const char* kVersion = "0.1.0";

// The session time zone of a command that uses one: --timezone (an error when unknown), else
// TZ in any form glibc or Spark reads (one that neither does gives a warning and UTC, so a
// stray TZ never stops a command), else UTC.
tributary::Result<tributary::expr::TimeZone> SessionTimeZone(const std::string& flag) {
  if (!flag.empty()) {
    auto zone = tributary::expr::TimeZone::Make(flag);
    if (!zone.ok()) {
      return zone.status().WithContext("--timezone");
    }
    return zone;
  }
  if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') {
    auto zone = tributary::expr::TimeZone::Make(tz);
    if (zone.ok()) {
      return zone;
    }
    std::cerr << "tributary: warning: TZ: " << zone.status().Message() << "; using UTC\n";
  }
  return tributary::expr::TimeZone();
}

// A usage error for a negative count, version or duration (CLI11 would take -3 as given).
const CLI::Validator kNotNegative(
    [](std::string& input) {
      return !input.empty() && input[0] == '-' ? "must be 0 or more, not " + input : std::string();
    },
    "NONNEGATIVE");

}  // namespace

// CLI11 reports bad arguments by exceptions, which CLI11_PARSE catches; what else it throws
// (an option declared twice) is a programming error that should end the process.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  CLI::App app{"tributary: a native lakehouse streaming engine (Delta Lake, Structured Streaming)"};
  app.require_subcommand(1);
  // Global options (--threads, --timezone) may also follow the subcommands.
  app.fallthrough();
  int threads = 0;
  std::string time_zone_flag;
  app.add_option("--threads", threads,
                 "Worker threads (default: TRIBUTARY_THREADS, else every core)");
  app.add_option("--timezone", time_zone_flag,
                 "Session time zone: a region (Europe/Berlin), a short id (PST), UTC or an offset "
                 "(+02:00) (default: TZ, else UTC)");

  std::string demo_dir;
  auto* demo = app.add_subcommand(
      "demo", "Run the built-in job on embedded sample data and print what it did");
  demo->fallthrough();
  demo->add_option("--dir", demo_dir, "Working directory (default: a new folder under /tmp)");

  auto* parquet = app.add_subcommand("parquet", "Inspect Parquet files");
  parquet->require_subcommand(1);
  parquet->fallthrough();
  std::string parquet_file;
  std::string parquet_columns;
  auto* parquet_schema = parquet->add_subcommand("schema", "Print the file's schema");
  parquet_schema->fallthrough();
  parquet_schema->add_option("FILE", parquet_file, "Parquet file")->required();
  auto* parquet_meta =
      parquet->add_subcommand("meta", "Print row groups, columns, encodings and statistics");
  parquet_meta->fallthrough();
  parquet_meta->add_option("FILE", parquet_file, "Parquet file")->required();
  auto* parquet_cat =
      parquet->add_subcommand("cat", "Print every row as one canonical JSON object");
  parquet_cat->fallthrough();
  parquet_cat->add_option("FILE", parquet_file, "Parquet file")->required();
  parquet_cat->add_option("--columns", parquet_columns,
                          "Comma-separated columns or nested fields (a,b.c); default: all");

  auto* table = app.add_subcommand("table", "Inspect Delta tables");
  table->require_subcommand(1);
  table->fallthrough();
  tributary::tools::TableCommandOptions table_options;
  int64_t table_version = -1;
  CLI::App* table_commands[4];
  const char* table_names[4] = {"describe", "history", "files", "cat"};
  const char* table_help[4] = {"Protocol, metadata, schema and size", "Commits, newest first",
                               "Live files as JSON lines", "Rows as canonical JSON lines"};
  for (int i = 0; i < 4; ++i) {
    table_commands[i] = table->add_subcommand(table_names[i], table_help[i]);
    table_commands[i]->fallthrough();
    table_commands[i]->add_option("PATH", table_options.path, "Table root")->required();
    table_commands[i]
        ->add_option("--version", table_version,
                     i == 1 ? "Show the history up to this version" : "Read this version")
        ->check(kNotNegative);
    table_commands[i]->add_option("--timestamp", table_options.timestamp,
                                  i == 1 ? "Show the history up to the version current at "
                                           "this time"
                                         : "Read the version current at this time");
    table_commands[i]
        ->add_option("--format", table_options.format, "text or json")
        ->check(CLI::IsMember({"text", "json"}));
  }

  std::vector<std::string> optimize_partitions;
  int64_t optimize_target = 0;
  auto* table_optimize = table->add_subcommand("optimize", "Compact small files (OPTIMIZE)");
  table_optimize->fallthrough();
  table_optimize->add_option("PATH", table_options.path, "Table root")->required();
  table_optimize->add_option("--partition", optimize_partitions,
                             "Only partitions with column=value (repeatable)");
  table_optimize
      ->add_option("--target-size", optimize_target, "Target file size in bytes (default: 1 GiB)")
      ->check(kNotNegative);
  int64_t vacuum_hours = 168;
  bool vacuum_dry_run = false;
  bool vacuum_force = false;
  auto* table_vacuum = table->add_subcommand("vacuum", "Delete unreferenced old files (VACUUM)");
  table_vacuum->fallthrough();
  table_vacuum->add_option("PATH", table_options.path, "Table root")->required();
  table_vacuum->add_option("--retain-hours", vacuum_hours, "Retention (default: 168)")
      ->check(kNotNegative);
  table_vacuum->add_flag("--dry-run", vacuum_dry_run, "Only list the files");
  table_vacuum->add_flag("--force", vacuum_force, "Allow a retention below 168 hours");
  auto* table_checkpoint = table->add_subcommand("checkpoint", "Write a checkpoint");
  table_checkpoint->fallthrough();
  table_checkpoint->add_option("PATH", table_options.path, "Table root")->required();
  table_checkpoint->add_option("--version", table_version, "Checkpoint this version")
      ->check(kNotNegative);

  auto* sql = app.add_subcommand(
      "sql", "Run SQL statements (separated by ';'); without any, an interactive prompt");
  sql->fallthrough();
  tributary::tools::SqlCommandOptions sql_options;
  std::string sql_script;
  std::string sql_file;
  bool sql_interactive = false;
  auto* sql_statements =
      sql->add_option("STATEMENTS", sql_script, "SQL text (default: read from standard input)");
  sql->add_option("-f,--file", sql_file, "Run the statements of this file")
      ->excludes(sql_statements);
  sql->add_flag("--interactive", sql_interactive,
                "Prompt and go on after errors even when standard input is not a terminal");
  bool sql_bail = false;
  bool sql_no_bail = false;
  auto* sql_bail_flag = sql->add_flag(
      "--bail", sql_bail, "Stop at the first failing statement (the default but at a prompt)");
  sql->add_flag("--no-bail", sql_no_bail,
                "Go on after a failing statement (the exit status is still 1)")
      ->excludes(sql_bail_flag);
  sql->add_option("--warehouse", sql_options.warehouse,
                  "Directory of tables by name (default: TRIBUTARY_WAREHOUSE, else ./warehouse)");
  sql->add_option("--format", sql_options.format,
                  "Output: table (default), json, csv, markdown or line");

  auto* run = app.add_subcommand(
      "run", "Run a SQL pipeline file: its streaming tables, in dependency order");
  run->fallthrough();
  tributary::tools::RunCommandOptions run_options;
  run->add_option("PIPELINE", run_options.file, "SQL file of the pipeline")->required();
  run->add_option("--warehouse", run_options.warehouse,
                  "Directory of tables by name (default: TRIBUTARY_WAREHOUSE, else ./warehouse)");
  run->add_option("--trigger", run_options.trigger,
                  "available-now (default), once, or processing-time=INTERVAL (0, 10s, 1m, "
                  "'10 seconds')");
  run->add_option("--conf", run_options.conf,
                  "A session setting KEY=VALUE (repeatable), e.g. "
                  "tributary.kafka.processIndex=1");
  run->add_option("--checkpoints", run_options.checkpoint_root,
                  "Directory of the tables' checkpoints (default: <warehouse>/_checkpoints)");

  auto* state = app.add_subcommand(
      "state", "What a streaming query remembers: its stateful operators, or one's rows");
  state->fallthrough();
  tributary::tools::StateCommandOptions state_options;
  int64_t state_operator = -1;
  int64_t state_batch = -1;
  state->add_option("CHECKPOINT", state_options.checkpoint, "The query's checkpoint location")
      ->required();
  auto* state_operator_option =
      state
          ->add_option("--operator", state_operator,
                       "Print the rows of this operator's state as JSON lines")
          ->check(kNotNegative);
  state
      ->add_option("--batch", state_batch,
                   "The state after this batch (default: the last committed)")
      ->check(kNotNegative)
      ->needs(state_operator_option);

  auto* version = app.add_subcommand("version", "Print the version");

  CLI11_PARSE(app, argc, argv);

  auto resolved_threads = tributary::ResolveThreadCount(threads);
  if (!resolved_threads.ok()) {
    std::cerr << "tributary: " << resolved_threads.status().ToString() << "\n";
    return 2;
  }
  if (version->parsed()) {
    std::cout << "tributary " << kVersion << "\n";
    return 0;
  }
  // A path a command reads or writes: a local path, file://, s3:// or s3a:// (normalized);
  // another scheme is refused here, before anything is touched.
  auto storage_path = [](std::string* path, std::string_view command) {
    auto normalized = tributary::storage::StoragePath(*path);
    if (!normalized.ok()) {
      std::cerr << "tributary " << command << ": " << normalized.status().ToString() << "\n";
      return false;
    }
    *path = std::move(*normalized);
    return true;
  };
  if (parquet->parsed()) {
    if (!storage_path(&parquet_file, "parquet")) {
      return 2;
    }
    tributary::Status st;
    if (parquet_schema->parsed()) {
      st = tributary::tools::ParquetSchema(parquet_file, std::cout);
    } else if (parquet_meta->parsed()) {
      st = tributary::tools::ParquetMeta(parquet_file, std::cout);
    } else {
      std::vector<std::string> columns;
      for (size_t start = 0; !parquet_columns.empty() && start <= parquet_columns.size();) {
        const size_t comma = parquet_columns.find(',', start);
        columns.push_back(parquet_columns.substr(
            start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) {
          break;
        }
        start = comma + 1;
      }
      st = tributary::tools::ParquetCat(parquet_file, columns, std::cout);
    }
    if (!st.ok()) {
      std::cerr << "tributary parquet: " << st.ToString() << "\n";
      return 1;
    }
    return 0;
  }
  if (state->parsed()) {
    if (!storage_path(&state_options.checkpoint, "state")) {
      return 2;
    }
    if (state_operator >= 0) {
      state_options.operator_id = state_operator;
    }
    if (state_batch >= 0) {
      state_options.batch = state_batch;
    }
    const tributary::Status st = tributary::tools::StateCommand(state_options, std::cout);
    if (!st.ok()) {
      std::cerr << "tributary state: " << st.ToString() << "\n";
      return 1;
    }
    return 0;
  }
  // Every command below uses the session time zone.
  auto zone = SessionTimeZone(time_zone_flag);
  if (!zone.ok()) {
    std::cerr << "tributary: " << zone.status().ToString() << "\n";
    return 2;
  }
  if (table->parsed()) {
    if (!storage_path(&table_options.path, "table")) {
      return 2;
    }
    table_options.time_zone = *zone;
    if (table_version >= 0) {
      table_options.version = table_version;
    }
    tributary::Status st;
    if (table_optimize->parsed()) {
      st = tributary::tools::TableOptimize(table_options, optimize_partitions, optimize_target,
                                           std::cout);
    } else if (table_vacuum->parsed()) {
      st = tributary::tools::TableVacuum(table_options, vacuum_hours, vacuum_dry_run, vacuum_force,
                                         std::cout);
    } else if (table_checkpoint->parsed()) {
      st = tributary::tools::TableCheckpoint(table_options, std::cout);
    } else if (table_commands[0]->parsed()) {
      st = tributary::tools::TableDescribe(table_options, std::cout);
    } else if (table_commands[1]->parsed()) {
      st = tributary::tools::TableHistory(table_options, std::cout);
    } else if (table_commands[2]->parsed()) {
      st = tributary::tools::TableFiles(table_options, std::cout);
    } else {
      st = tributary::tools::TableCat(table_options, std::cout);
    }
    if (!st.ok()) {
      std::cerr << "tributary table: " << st.ToString() << "\n";
      return 1;
    }
    return 0;
  }
  if (sql->parsed()) {
    sql_options.time_zone = zone->Name();
    sql_options.threads = *resolved_threads;
    if (sql_bail || sql_no_bail) {
      sql_options.bail = sql_bail;
    }
    // A script (STATEMENTS, -f or a pipe) stops at the first failing statement, as spark-sql
    // -e and -f; the prompt shows errors and goes on. Either way the exit status is 1 when a
    // statement failed.
    tributary::Result<int> failures = 0;
    if (!sql_file.empty()) {
      const int fd = open(sql_file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        failures = tributary::Status::IOError(
            fmt::format("cannot read {}: {}", sql_file, std::strerror(errno)));
      } else {
        failures = tributary::tools::RunSqlInput(sql_options, fd, sql_file,
                                                 tributary::tools::SqlInputMode::kScript, std::cout,
                                                 std::cerr);
        close(fd);
      }
    } else if (!sql_script.empty()) {
      failures = tributary::tools::RunSqlScript(sql_options, "the command line", sql_script,
                                                std::cout, std::cerr);
    } else {
      // The line editor on a terminal; --interactive on other input is a plain prompt.
      const auto mode = isatty(STDIN_FILENO) != 0 ? tributary::tools::SqlInputMode::kEditor
                        : sql_interactive         ? tributary::tools::SqlInputMode::kPrompt
                                                  : tributary::tools::SqlInputMode::kScript;
      failures = tributary::tools::RunSqlInput(sql_options, STDIN_FILENO, "standard input", mode,
                                               std::cout, std::cerr);
    }
    std::cout.flush();
    if (!failures.ok()) {
      std::cerr << "tributary sql: " << failures.status().ToString() << "\n";
      return 1;
    }
    return *failures > 0 ? 1 : 0;
  }
  if (run->parsed()) {
    run_options.time_zone = zone->Name();
    run_options.threads = *resolved_threads;
    tributary::Status st =
        tributary::tools::RunPipelineCommand(run_options, std::cout, isatty(STDOUT_FILENO) != 0);
    if (!st.ok()) {
      std::cerr << "tributary run: " << st.ToString() << "\n";
      return 1;
    }
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

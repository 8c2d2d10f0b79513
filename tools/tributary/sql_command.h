// `tributary sql`: runs SQL statements against a warehouse and prints their results.

#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "tributary/status.h"

namespace tributary::tools {

struct SqlCommandOptions {
  /// Tables by name live here (default: $TRIBUTARY_WAREHOUSE, else ./warehouse).
  std::string warehouse;
  /// table (aligned columns), json (one canonical JSON object per row), csv (with header).
  std::string format = "table";
  /// Session time zone ("" = TZ, else UTC).
  std::string time_zone;
  /// Threads a query may use (--threads / TRIBUTARY_THREADS, resolved); 0: the session's
  /// default.
  int threads = 0;
};

/// Runs every statement of `script` (split by the SQL lexer, so a ';' in a string literal is
/// just a character) in order, printing each result. As spark-sql -e and -f, the first failing
/// statement ends the run: its error names `source` (a file, or "the command line") and the
/// line the statement starts on. A statement `exit` or `quit` ends the script; `help` prints
/// the shell's help.
Status RunSqlScript(const SqlCommandOptions& options, std::string_view source,
                    const std::string& script, std::ostream& out);

/// Reads lines from file descriptor `fd` until end of input (or `exit`, `quit`, `\q`),
/// running each statement as soon as a ';' completes it. At the start of a statement a line
/// `help`, `exit` or `quit` (';' optional) or a `\` command (`\q`, `\?`) is the shell's.
///
/// Not `interactive` (a pipe or file on standard input): the first failing statement ends the
/// run with its error, which names its line. `interactive` (a terminal, or --interactive): a
/// prompt is written to `out` before each line; errors are written to `err` and the prompt goes
/// on; text that the lexer cannot read (a terminal's escape sequence from an arrow key) is
/// dropped with its statement; SIGINT (Ctrl-C) at the prompt drops the current input and shows
/// a new prompt, while a statement runs it ends the process as SIGINT does by default (a
/// running statement cannot be cancelled yet).
Status RunSqlInput(const SqlCommandOptions& options, int fd, std::ostream& out, std::ostream& err,
                   bool interactive);

}  // namespace tributary::tools

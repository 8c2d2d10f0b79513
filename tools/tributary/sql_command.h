// `tributary sql`: runs SQL statements against a warehouse and prints their results.

#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::tools {

struct SqlCommandOptions {
  /// Tables by name live here (default: $TRIBUTARY_WAREHOUSE, else ./warehouse).
  std::string warehouse;
  /// table, json, csv, markdown or line (result_printer.h).
  std::string format = "table";
  /// Session time zone ("" = TZ, else UTC).
  std::string time_zone;
  /// Threads a query may use (--threads / TRIBUTARY_THREADS, resolved); 0: the session's
  /// default.
  int threads = 0;
  /// Whether the first failing statement ends the run (--bail, --no-bail). Unset: it does for
  /// scripts (STATEMENTS, -f FILE, a pipe), as spark-sql -e and -f; the interactive prompt
  /// shows the error and goes on.
  std::optional<bool> bail;
};

/// How statements come in on a file descriptor.
enum class SqlInputMode : uint8_t {
  kScript,  // a file or a pipe: no prompt
  kPrompt,  // a plain prompt on any input (--interactive when standard input is no terminal)
  kEditor,  // a terminal: the line editor of sql_shell.h, with history and completion
};

/// Runs every statement of `script` (split by the SQL lexer, so a ';' in a string literal is
/// just a character) in order, printing each result to `out`. A statement `exit` or `quit`
/// ends the script; `help` prints the shell's help. A failing statement's error names `source`
/// (a file, or "the command line") and the line the statement starts on: with bail (the
/// default) it is returned and ends the run, else it is written to `err` and the run goes on.
/// Returns how many statements failed.
Result<int> RunSqlScript(const SqlCommandOptions& options, std::string_view source,
                         const std::string& script, std::ostream& out, std::ostream& err);

/// Reads lines from file descriptor `fd` (named `source` in errors) until end of input (or
/// `exit`, `quit`, `.exit`, `.quit`, `\q`), running each statement as soon as a ';' completes
/// it. At the start of a statement a line that is a shell command (shell_commands.h: dot
/// commands, `help`, `exit`, `quit`, `\q`, `\?`) is the shell's.
///
/// kScript: failing statements are handled as RunSqlScript's. kPrompt and kEditor: a prompt
/// (a continuation prompt while a statement is incomplete) is shown before each line; errors
/// are written to `err` and the prompt goes on (unless `options.bail`); text that the lexer
/// cannot read (a plain prompt's arrow keys) is dropped with its statement; table results show
/// at most 40 rows (`.maxrows`) fitted to the terminal's width; SIGINT (Ctrl-C) at the prompt
/// drops the current input and shows a new prompt, while a statement runs it ends the process
/// as SIGINT does by default (a running statement cannot be cancelled yet). Returns how many
/// statements and commands failed.
Result<int> RunSqlInput(const SqlCommandOptions& options, int fd, std::string_view source,
                        SqlInputMode mode, std::ostream& out, std::ostream& err);

}  // namespace tributary::tools

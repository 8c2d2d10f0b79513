// What `tributary sql` does with one statement or one shell command, whichever way they come in
// (an argument, a file, a pipe, the plain prompt or the line editor).

#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result_printer.h"
#include "tributary/session.h"

namespace tributary::tools {

/// The state a `tributary sql` run keeps between statements. Not thread-safe (one shell).
struct ShellState {
  std::shared_ptr<Session> session;
  PrintOptions print;
  /// `.timer on`: each statement's run time follows its result. Default: off.
  bool timer = false;
  /// The table format fits the terminal's width at each result (standard output is a
  /// terminal and the shell is interactive). Default: false.
  bool fit_terminal = false;
};

enum class CommandOutcome : uint8_t { kContinue, kQuit };

/// The help text of `help`, `.help` and `\?`.
std::string_view ShellHelpText();

/// Runs one statement (its text without the ';') and prints its result to `out` (with the
/// timer on, then its run time). A statement that is one of the shell's words (`exit`, `quit`,
/// `help`) is the shell's.
Result<CommandOutcome> RunShellStatement(ShellState& state, std::string_view text,
                                         std::ostream& out);

/// Runs `line` when it is a shell command, as the first line of a statement: a dot command
/// (`.help`, `.tables`, `.schema [table]`, `.mode [format]`, `.maxrows [N]`, `.timer on|off`,
/// `.exit`, `.quit`), a psql-style `\q` or `\?`, or `help`, `exit`, `quit` (';' optional).
/// nullopt when the line is SQL text; InvalidArgument for an unknown or malformed command.
Result<std::optional<CommandOutcome>> RunShellCommand(ShellState& state, std::string_view line,
                                                      std::ostream& out);

/// The session's temporary views, by name.
Result<std::vector<std::string>> ListViews(const Session& session);

/// The width of the terminal on standard output, or 0 when it is not a terminal.
int TerminalWidth();

}  // namespace tributary::tools

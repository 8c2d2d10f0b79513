// The line editor of the interactive `tributary sql` on a terminal (libedit): editing keys,
// history kept in a file across runs, and Tab completion of SQL keywords, table, view and
// column names.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/session.h"

namespace tributary::tools {

/// What reading a line of input gave.
enum class LineEvent : uint8_t { kLine, kEnd, kInterrupted };

/// Where the shell keeps its history: $TRIBUTARY_HISTORY, else ~/.tributary_history in $HOME
/// (else the user's home directory from the password database); "" when there is none.
std::string ShellHistoryPath();

/// The prompts: at the start of a statement, and while one is incomplete.
inline constexpr std::string_view kShellPrompt = "tributary> ";
inline constexpr std::string_view kContinuationPrompt = "      ...> ";

/// The completions of the word before the cursor in `line_before_cursor`: keywords (in the
/// word's case), tables and views after FROM, JOIN, INTO, TABLE, UPDATE or DESCRIBE, and the
/// columns of `columns_of` tables (after a '.', only columns). Names match without regard to
/// case. Sorted, without duplicates; empty for an empty word outside a table position.
std::vector<std::string> CompletionsOf(std::string_view line_before_cursor,
                                       const std::vector<std::string>& tables,
                                       const std::vector<std::string>& columns);

/// Reads lines from a terminal on standard input, echoing to standard output.
///
/// Thread-safety: one thread; one editor per process (it sets the process's LC_CTYPE to the
/// environment's while open, so that multibyte input decodes).
class LineEditor {
 public:
  /// `wake_fd` becomes readable when Ctrl-C is pressed (the prompt's SIGINT handler writes to
  /// it); the history is loaded from `history_path` and each line is saved to it ("" keeps
  /// none); completion asks `session` for the names of tables, views and columns.
  static Result<std::unique_ptr<LineEditor>> Open(std::shared_ptr<Session> session, int wake_fd,
                                                  std::string history_path);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  /// Reads a line after the prompt (the continuation prompt when `pending`, the statement text
  /// so far, is not empty; its table names also choose the columns completion offers). Ctrl-C
  /// drops the line being typed (kInterrupted), Ctrl-D on an empty line is kEnd.
  LineEvent Next(std::string_view pending, std::string* line);
  /// Forgets the names completion has read: a statement ran and may have changed them.
  void ForgetNames();

  struct Impl;

 private:
  explicit LineEditor(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace tributary::tools

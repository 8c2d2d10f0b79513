#include "sql_command.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/thread_count.h"
#include "expr/time_zone.h"
#include "shell_commands.h"
#include "sql/lexer.h"
#include "sql_shell.h"
#include "tributary/session.h"

namespace tributary::tools {

namespace {

Result<ShellState> MakeShellState(const SqlCommandOptions& options, bool interactive) {
  ShellState state;
  auto format = ParseOutputFormat(options.format);
  if (!format.ok()) {
    return format.status().WithContext("--format");
  }
  state.print.format = *format;
  Session::Builder builder;
  if (!options.warehouse.empty()) {
    builder.Warehouse(options.warehouse);
  }
  if (!options.time_zone.empty()) {
    builder.TimeZone(options.time_zone);
  }
  if (options.threads > 0) {
    builder.Config(kThreadsConfigKey, std::to_string(options.threads));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state.session, builder.Build());
  TRIBUTARY_ASSIGN_OR_RAISE(state.print.time_zone,
                            expr::TimeZone::Make(state.session->TimeZoneName()));
  if (interactive) {
    // A screenful, as DuckDB's shell; scripts print every row.
    state.print.max_rows = 40;
    state.fit_terminal = isatty(STDOUT_FILENO) != 0;
  }
  return state;
}

// The lexer names an unterminated string, quoted identifier or comment so; more lines may
// still close it.
bool MoreInputMayComplete(const Status& status) {
  return status.Message().starts_with("unterminated ");
}

// Control characters (a terminal's escape sequences) shown as ^X, so an error message that
// quotes the input does not drive the terminal.
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      out += '^';
      out += static_cast<char>(byte ^ 0x40);
    } else {
      out += c;
    }
  }
  return out;
}

// The prompt's SIGINT handler writes a byte to this pipe, which the line reader polls beside
// its input: whichever thread the signal lands on, the prompt sees it.
int g_prompt_wake_pipe[2] = {-1, -1};

extern "C" void OnPromptInterrupt(int /*signal*/) {
  // The interrupted code may be between a failed call and its read of errno.
  const int saved_errno = errno;
  const char byte = 'i';
  [[maybe_unused]] const ssize_t written = write(g_prompt_wake_pipe[1], &byte, 1);
  errno = saved_errno;
}

// Installs the prompt's SIGINT handler; the destructor puts the previous one back. While a
// statement runs (Suspend until Resume) SIGINT has its default action instead: Ctrl-C ends the
// process, as the Session API cannot cancel a running statement.
class PromptInterrupts {
 public:
  static Result<std::unique_ptr<PromptInterrupts>> Install() {
    if (pipe2(g_prompt_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      return Status::IOError("creating the pipe that wakes the prompt on Ctrl-C");
    }
    auto interrupts = std::unique_ptr<PromptInterrupts>(new PromptInterrupts());
    sigaction(SIGINT, nullptr, &interrupts->previous_);
    interrupts->Resume();
    return interrupts;
  }
  /// Ctrl-C wakes the prompt (Next returns kInterrupted).
  void Resume() const {
    struct sigaction action = {};
    action.sa_handler = OnPromptInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
  }
  /// Ctrl-C ends the process (SIG_DFL, even when SIGINT was ignored before Install, as the
  /// prompt's own handler overrides that too).
  void Suspend() const {
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
  }
  ~PromptInterrupts() {
    sigaction(SIGINT, &previous_, nullptr);
    close(g_prompt_wake_pipe[0]);
    close(g_prompt_wake_pipe[1]);
    g_prompt_wake_pipe[0] = g_prompt_wake_pipe[1] = -1;
  }
  PromptInterrupts(const PromptInterrupts&) = delete;
  PromptInterrupts& operator=(const PromptInterrupts&) = delete;

  int WakeFd() const { return g_prompt_wake_pipe[0]; }
  /// Forgets interrupts so far (a Ctrl-C while a statement ran).
  void Drain() const {
    char bytes[64];
    while (read(g_prompt_wake_pipe[0], bytes, sizeof bytes) > 0) {
    }
  }

 private:
  PromptInterrupts() = default;

  struct sigaction previous_ = {};
};

// Lines of a file descriptor, woken early by a byte on `wake_fd` (-1: none).
class LineReader {
 public:
  LineReader(int fd, int wake_fd) : fd_(fd), wake_fd_(wake_fd) {}

  /// The next line without its '\n' (a last line need not have one).
  Result<LineEvent> Next(std::string* line) {
    while (true) {
      if (const size_t newline = pending_.find('\n'); newline != std::string::npos) {
        line->assign(pending_, 0, newline);
        pending_.erase(0, newline + 1);
        return LineEvent::kLine;
      }
      if (at_end_) {
        if (pending_.empty()) {
          return LineEvent::kEnd;
        }
        line->swap(pending_);
        pending_.clear();
        return LineEvent::kLine;
      }
      pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (poll(fds, wake_fd_ >= 0 ? 2 : 1, -1) < 0) {
        if (errno == EINTR) {
          continue;
        }
        return Status::IOError(fmt::format("waiting for input: {}", std::strerror(errno)));
      }
      if (wake_fd_ >= 0 && (fds[1].revents & POLLIN) != 0) {
        return LineEvent::kInterrupted;
      }
      char chunk[4096];
      const ssize_t got = read(fd_, chunk, sizeof chunk);
      if (got > 0) {
        pending_.append(chunk, static_cast<size_t>(got));
      } else if (got == 0) {
        at_end_ = true;
      } else if (errno != EINTR && errno != EAGAIN) {
        return Status::IOError(fmt::format("reading input: {}", std::strerror(errno)));
      }
    }
  }

 private:
  int fd_;
  int wake_fd_;
  std::string pending_;
  bool at_end_ = false;
};

}  // namespace

Result<int> RunSqlScript(const SqlCommandOptions& options, std::string_view source,
                         const std::string& script, std::ostream& out, std::ostream& err) {
  TRIBUTARY_ASSIGN_OR_RAISE(ShellState state, MakeShellState(options, /*interactive=*/false));
  auto statements = sql::SplitStatements(script);
  if (!statements.ok()) {
    return statements.status().WithContext(source);
  }
  const bool bail = options.bail.value_or(true);
  int failures = 0;
  for (const sql::StatementText& statement : *statements) {
    Result<CommandOutcome> outcome = RunShellStatement(state, statement.text, out);
    if (!outcome.ok()) {
      Status placed = outcome.status().WithContext(
          fmt::format("statement at line {} of {}", statement.position.line, source));
      if (bail) {
        return placed;
      }
      out.flush();
      err << "tributary sql: " << placed.ToString() << '\n';
      ++failures;
      continue;
    }
    if (*outcome == CommandOutcome::kQuit) {
      break;
    }
  }
  return failures;
}

Result<int> RunSqlInput(const SqlCommandOptions& options, int fd, std::string_view source,
                        SqlInputMode mode, std::ostream& out, std::ostream& err) {
  const bool interactive = mode != SqlInputMode::kScript;
  const bool bail = options.bail.value_or(!interactive);
  TRIBUTARY_ASSIGN_OR_RAISE(ShellState state, MakeShellState(options, interactive));
  std::unique_ptr<PromptInterrupts> interrupts;
  if (interactive) {
    TRIBUTARY_ASSIGN_OR_RAISE(interrupts, PromptInterrupts::Install());
  }
  std::unique_ptr<LineEditor> editor;
  if (mode == SqlInputMode::kEditor) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        editor, LineEditor::Open(state.session, interrupts->WakeFd(), ShellHistoryPath()));
  }
  LineReader reader(fd, interrupts && !editor ? interrupts->WakeFd() : -1);
  // Statement text read but not yet run, and the input line it starts on.
  std::string buffer;
  int buffer_line = 1;
  int line_number = 0;
  int failures = 0;
  bool quit = false;
  // A failure ends the run with bail; else the error is shown and the input goes on.
  const auto fail = [&](const Status& status, int line) {
    ++failures;
    Status placed =
        interactive ? status
                    : status.WithContext(fmt::format("statement at line {} of {}", line, source));
    if (bail) {
      return placed;
    }
    out.flush();
    err << (interactive ? "" : "tributary sql: ") << Printable(placed.ToString()) << '\n';
    return Status::OK();
  };
  // Runs the statements that the buffer completes (at the end of input, all of them).
  const auto run_complete = [&](bool at_end) -> Status {
    auto tokens = sql::Tokenize(buffer);
    if (!tokens.ok()) {
      if (!at_end && MoreInputMayComplete(tokens.status())) {
        return Status::OK();
      }
      buffer.clear();
      return fail(tokens.status(), buffer_line);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<sql::StatementText> statements,
                              sql::SplitStatements(buffer));
    // The last statement is complete only when a ';' ends the buffer (or input ended).
    const bool terminated = tokens->size() < 2 || (*tokens)[tokens->size() - 2].IsOperator(";");
    size_t count = statements.size();
    if (!terminated && !at_end) {
      if (count <= 1) {
        return Status::OK();
      }
      --count;
    }
    if (interrupts && count > 0) {
      interrupts->Suspend();  // until the next prompt
    }
    for (size_t i = 0; i < count && !quit; ++i) {
      const int line = buffer_line + statements[i].position.line - 1;
      Result<CommandOutcome> outcome = RunShellStatement(state, statements[i].text, out);
      if (!outcome.ok()) {
        TRIBUTARY_RETURN_NOT_OK(fail(outcome.status(), line));
      } else if (*outcome == CommandOutcome::kQuit) {
        quit = true;
      }
    }
    if (editor && count > 0) {
      editor->ForgetNames();
    }
    if (count == statements.size()) {
      buffer.clear();
    } else {
      const sql::StatementText& rest = statements[count];
      buffer_line += rest.position.line - 1;
      buffer.erase(0, static_cast<size_t>(rest.text.data() - buffer.data()));
    }
    return Status::OK();
  };
  std::string line;
  while (!quit) {
    LineEvent event = LineEvent::kEnd;
    if (interactive) {
      interrupts->Resume();
      interrupts->Drain();
    }
    if (editor) {
      out.flush();
      event = editor->Next(buffer, &line);
    } else {
      if (interactive) {
        out << (buffer.empty() ? kShellPrompt : kContinuationPrompt) << std::flush;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(event, reader.Next(&line));
    }
    if (event == LineEvent::kEnd) {
      if (interactive) {
        out << '\n';  // Ctrl-D: the shell's prompt starts on a line of its own
      }
      break;
    }
    if (event == LineEvent::kInterrupted) {
      buffer.clear();
      if (!editor) {
        out << '\n';
      }
      continue;
    }
    ++line_number;
    if (buffer.empty()) {
      buffer_line = line_number;
      auto command = RunShellCommand(state, line, out);
      if (!command.ok()) {
        TRIBUTARY_RETURN_NOT_OK(fail(command.status(), line_number));
        continue;
      }
      if (command->has_value()) {
        if (**command == CommandOutcome::kQuit) {
          return failures;
        }
        if (editor) {
          editor->ForgetNames();
        }
        continue;
      }
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        continue;
      }
    }
    buffer += line;
    buffer += '\n';
    TRIBUTARY_RETURN_NOT_OK(run_complete(false));
  }
  if (!quit && !buffer.empty()) {
    TRIBUTARY_RETURN_NOT_OK(run_complete(true));
  }
  return failures;
}

}  // namespace tributary::tools

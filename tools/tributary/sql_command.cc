#include "sql_command.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/thread_count.h"
#include "sql/lexer.h"
#include "tributary/session.h"

namespace tributary::tools {

namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    return text;
  }
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

Status PrintResult(const DataFrame& frame, const std::string& format, std::ostream& out) {
  const std::vector<std::string> names = frame.Columns();
  if (format == "table") {
    // Spark's show() grid, every row, not truncated (left-aligned); statements without result
    // columns (CREATE, DROP) print nothing.
    TRIBUTARY_RETURN_NOT_OK(frame.Status());
    return names.empty() ? Status::OK()
                         : frame.Show(out, std::numeric_limits<int64_t>::max() - 1,
                                      /*truncate=*/false);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, frame.Collect());
  if (format == "json") {
    for (const Row& row : rows) {
      out << row.ToJson() << '\n';
    }
    return Status::OK();
  }
  if (format == "csv") {
    for (size_t c = 0; c < names.size(); ++c) {
      out << (c > 0 ? "," : "") << CsvField(names[c]);
    }
    out << '\n';
    for (const Row& row : rows) {
      for (int c = 0; c < row.Size(); ++c) {
        out << (c > 0 ? "," : "");
        if (!row.IsNull(c)) {
          TRIBUTARY_ASSIGN_OR_RAISE(const std::string text, row.GetString(c));
          out << CsvField(text);
        }
      }
      out << '\n';
    }
    return Status::OK();
  }
  return Status::OK();
}

Result<std::shared_ptr<Session>> MakeSession(const SqlCommandOptions& options) {
  if (options.format != "table" && options.format != "json" && options.format != "csv") {
    return Status::InvalidArgument(
        fmt::format("--format {}: use table, json or csv", options.format));
  }
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
  return builder.Build();
}

constexpr const char* kHelpText =
    "Statements end with ';' and may span lines: SELECT, CREATE TABLE, INSERT, DESCRIBE, ...\n"
    "Commands: help, exit or quit (also \\q, or Ctrl-D at the prompt); Ctrl-C drops the\n"
    "current input, and ends tributary while a statement runs.\n";

enum class ShellCommand : uint8_t { kNone, kHelp, kQuit };

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) {
    return {};
  }
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// A statement (or a line, ';' optional) that is one of the shell's words.
ShellCommand StatementCommand(std::string_view text) {
  text = Trim(text);
  if (text.ends_with(';')) {
    text = Trim(text.substr(0, text.size() - 1));
  }
  if (EqualsIgnoreAsciiCase(text, "exit") || EqualsIgnoreAsciiCase(text, "quit")) {
    return ShellCommand::kQuit;
  }
  return EqualsIgnoreAsciiCase(text, "help") ? ShellCommand::kHelp : ShellCommand::kNone;
}

// A line at the start of a statement: a shell word, or a `\` command as psql's.
Result<ShellCommand> LineCommand(std::string_view line) {
  line = Trim(line);
  if (!line.starts_with('\\')) {
    return StatementCommand(line);
  }
  if (line == "\\q") {
    return ShellCommand::kQuit;
  }
  if (line == "\\?" || line == "\\h") {
    return ShellCommand::kHelp;
  }
  return Status::InvalidArgument(
      fmt::format("unknown command '{}': the commands are help, exit, quit, \\q and \\?", line));
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

Status RunStatement(Session& session, const SqlCommandOptions& options, std::string_view text,
                    std::ostream& out, bool* quit) {
  switch (StatementCommand(text)) {
    case ShellCommand::kQuit:
      *quit = true;
      return Status::OK();
    case ShellCommand::kHelp:
      out << kHelpText;
      return Status::OK();
    case ShellCommand::kNone:
      break;
  }
  return PrintResult(session.Sql(std::string(text)), options.format, out);
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

enum class LineEvent : uint8_t { kLine, kEnd, kInterrupted };

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

Status RunSqlScript(const SqlCommandOptions& options, std::string_view source,
                    const std::string& script, std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session, MakeSession(options));
  auto statements = sql::SplitStatements(script);
  if (!statements.ok()) {
    return statements.status().WithContext(source);
  }
  for (const sql::StatementText& statement : *statements) {
    bool quit = false;
    Status status = RunStatement(*session, options, statement.text, out, &quit);
    if (!status.ok()) {
      return status.WithContext(
          fmt::format("statement at line {} of {}", statement.position.line, source));
    }
    if (quit) {
      break;
    }
  }
  return Status::OK();
}

Status RunSqlInput(const SqlCommandOptions& options, int fd, std::ostream& out, std::ostream& err,
                   bool interactive) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session, MakeSession(options));
  std::unique_ptr<PromptInterrupts> interrupts;
  if (interactive) {
    TRIBUTARY_ASSIGN_OR_RAISE(interrupts, PromptInterrupts::Install());
  }
  LineReader reader(fd, interrupts ? interrupts->WakeFd() : -1);
  // Statement text read but not yet run, and the input line it starts on.
  std::string buffer;
  int buffer_line = 1;
  int line_number = 0;
  bool quit = false;
  // Interactive: the error is shown and the prompt goes on; else it ends the run.
  const auto fail = [&](const Status& status, int line) {
    if (interactive) {
      err << Printable(status.ToString()) << '\n';
      return Status::OK();
    }
    return status.WithContext(fmt::format("statement at line {} of standard input", line));
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
      Status status = RunStatement(*session, options, statements[i].text, out, &quit);
      if (!status.ok()) {
        TRIBUTARY_RETURN_NOT_OK(fail(status, line));
      }
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
    if (interactive) {
      interrupts->Resume();
      interrupts->Drain();
      out << (buffer.empty() ? "tributary> " : "       ..> ") << std::flush;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(LineEvent event, reader.Next(&line));
    if (event == LineEvent::kEnd) {
      if (interactive) {
        out << '\n';  // Ctrl-D: the shell's prompt starts on a line of its own
      }
      break;
    }
    if (event == LineEvent::kInterrupted) {
      buffer.clear();
      out << '\n';
      continue;
    }
    ++line_number;
    if (buffer.empty()) {
      buffer_line = line_number;
      auto command = LineCommand(line);
      if (!command.ok()) {
        TRIBUTARY_RETURN_NOT_OK(fail(command.status(), line_number));
        continue;
      }
      if (*command == ShellCommand::kQuit) {
        return Status::OK();
      }
      if (*command == ShellCommand::kHelp) {
        out << kHelpText;
        continue;
      }
      if (Trim(line).empty()) {
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
  return Status::OK();
}

}  // namespace tributary::tools

#include "shell_commands.h"

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ostream>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::tools {

namespace {

constexpr std::string_view kShellHelp =
    "Statements end with ';' and may span lines: SELECT, CREATE TABLE, INSERT, DESCRIBE, ...\n"
    "Commands (at the start of a line):\n"
    "  .help                 this text (also help, \\?)\n"
    "  .tables               the tables and temporary views\n"
    "  .schema [TABLE]       CREATE statements of every table, or of TABLE\n"
    "  .mode [FORMAT]        results as table, json, csv, markdown or line\n"
    "  .maxrows [N]          rows a table result shows at most (-1: all)\n"
    "  .timer on|off         print each statement's run time\n"
    "  .exit, .quit          leave (also exit, quit, \\q, or Ctrl-D at the prompt)\n"
    "Ctrl-C drops the current input, and ends tributary while a statement runs.\n";

std::string_view TrimShellText(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) {
    return {};
  }
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// A statement (or a line, ';' optional) that is one of the shell's words.
std::optional<CommandOutcome> ShellWord(std::string_view text, std::ostream& out) {
  text = TrimShellText(text);
  if (text.ends_with(';')) {
    text = TrimShellText(text.substr(0, text.size() - 1));
  }
  if (EqualsIgnoreAsciiCase(text, "exit") || EqualsIgnoreAsciiCase(text, "quit")) {
    return CommandOutcome::kQuit;
  }
  if (EqualsIgnoreAsciiCase(text, "help")) {
    out << kShellHelp;
    return CommandOutcome::kContinue;
  }
  return std::nullopt;
}

// `name` as a back-quoted SQL identifier.
std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (const char c : name) {
    out += c;
    if (c == '`') {
      out += '`';
    }
  }
  return out + "`";
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (true) {
    at = text.find_first_not_of(" \t", at);
    if (at == std::string_view::npos) {
      return words;
    }
    const size_t end = std::min(text.find_first_of(" \t", at), text.size());
    words.push_back(text.substr(at, end - at));
    at = end;
  }
}

double Seconds(const timeval& time) {
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

// The tables and then the views, each sorted.
Result<std::vector<std::string>> TablesAndViews(const Session& session) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> names, session.ListTables());
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> views, ListViews(session));
  names.insert(names.end(), views.begin(), views.end());
  return names;
}

// Names in columns across the terminal (one per line when it has no width), as ls prints them.
void PrintNameColumns(const std::vector<std::string>& names, int width, std::ostream& out) {
  size_t longest = 0;
  for (const std::string& name : names) {
    longest = std::max(longest, name.size());
  }
  const size_t column_width = longest + 2;
  const size_t per_line =
      width > 0 ? std::max<size_t>(1, static_cast<size_t>(width) / column_width) : 1;
  const size_t lines = (names.size() + per_line - 1) / per_line;
  for (size_t line = 0; line < lines; ++line) {
    std::string text;
    for (size_t i = line; i < names.size(); i += lines) {
      text += names[i];
      if (i + lines < names.size()) {
        text += std::string(column_width - names[i].size(), ' ');
      }
    }
    out << text << '\n';
  }
}

Status PrintSchema(ShellState& state, std::string_view only, std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<std::string> tables, state.session->ListTables());
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<std::string> views, ListViews(*state.session));
  bool found = false;
  for (const std::string& view : views) {
    if (!only.empty() && !EqualsIgnoreAsciiCase(view, only)) {
      continue;
    }
    found = true;
    // The session keeps a view's plan, not its text: its columns are what can be shown.
    const StructType schema = state.session->Sql("SELECT * FROM " + QuoteIdentifier(view)).Schema();
    std::string columns;
    for (const StructField& field : schema.fields) {
      columns += fmt::format("{}{} {}", columns.empty() ? "" : ", ", field.name, field.type);
    }
    out << fmt::format("-- temporary view {} ({})\n", view, columns);
  }
  for (const std::string& table : tables) {
    if (!only.empty() && !EqualsIgnoreAsciiCase(table, only)) {
      continue;
    }
    found = true;
    TRIBUTARY_ASSIGN_OR_RAISE(
        const std::vector<Row> rows,
        state.session->Sql("SHOW CREATE TABLE " + QuoteIdentifier(table)).Collect());
    for (const Row& row : rows) {
      TRIBUTARY_ASSIGN_OR_RAISE(const std::string text, row.GetString(0));
      out << TrimShellText(text) << ";\n";
    }
  }
  if (!found && !only.empty()) {
    return Status::NotFound(fmt::format(".schema: no table or view named '{}'", only));
  }
  return Status::OK();
}

Result<CommandOutcome> RunDotCommand(ShellState& state, std::string_view line, std::ostream& out) {
  const std::vector<std::string_view> words = SplitWords(line);
  const std::string_view name = words.front();
  const size_t arguments = words.size() - 1;
  const auto usage = [&](std::string_view form) {
    return Status::InvalidArgument(fmt::format("usage: {}", form));
  };
  if (name == ".exit" || name == ".quit") {
    if (arguments != 0) {
      return usage(std::string(name));
    }
    return CommandOutcome::kQuit;
  }
  if (name == ".help") {
    out << kShellHelp;
    return CommandOutcome::kContinue;
  }
  if (name == ".tables") {
    if (arguments != 0) {
      return usage(".tables");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<std::string> names, TablesAndViews(*state.session));
    PrintNameColumns(names, state.fit_terminal ? TerminalWidth() : 0, out);
    return CommandOutcome::kContinue;
  }
  if (name == ".schema") {
    if (arguments > 1) {
      return usage(".schema [TABLE]");
    }
    TRIBUTARY_RETURN_NOT_OK(PrintSchema(state, arguments == 1 ? words[1] : "", out));
    return CommandOutcome::kContinue;
  }
  if (name == ".mode") {
    if (arguments == 0) {
      out << OutputFormatName(state.print.format) << '\n';
    } else if (arguments == 1) {
      TRIBUTARY_ASSIGN_OR_RAISE(state.print.format, ParseOutputFormat(words[1]));
    } else {
      return usage(".mode table|json|csv|markdown|line");
    }
    return CommandOutcome::kContinue;
  }
  if (name == ".maxrows") {
    if (arguments == 0) {
      out << state.print.max_rows << '\n';
      return CommandOutcome::kContinue;
    }
    int64_t rows = 0;
    const std::string_view text = arguments == 1 ? words[1] : "";
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rows);
    if (arguments != 1 || error != std::errc{} || end != text.data() + text.size() || rows < -1) {
      return usage(".maxrows N (N >= 0, or -1 for every row)");
    }
    state.print.max_rows = rows;
    return CommandOutcome::kContinue;
  }
  if (name == ".timer") {
    if (arguments == 1 && (words[1] == "on" || words[1] == "off")) {
      state.timer = words[1] == "on";
      return CommandOutcome::kContinue;
    }
    return usage(".timer on|off");
  }
  return Status::InvalidArgument(
      fmt::format("unknown command '{}': .help lists the commands", name));
}

}  // namespace

std::string_view ShellHelpText() {
  return kShellHelp;
}

Result<CommandOutcome> RunShellStatement(ShellState& state, std::string_view text,
                                         std::ostream& out) {
  if (std::optional<CommandOutcome> word = ShellWord(text, out)) {
    return *word;
  }
  const auto wall_start = std::chrono::steady_clock::now();
  rusage usage_start = {};
  getrusage(RUSAGE_SELF, &usage_start);
  PrintOptions print = state.print;
  if (state.fit_terminal) {
    print.max_width = TerminalWidth();
  }
  // The time zone may have changed (SET TIME ZONE, SET spark.sql.session.timeZone).
  if (auto zone = expr::TimeZone::Make(state.session->TimeZoneName()); zone.ok()) {
    print.time_zone = *zone;
  }
  TRIBUTARY_RETURN_NOT_OK(PrintResult(state.session->Sql(std::string(text)), print, out));
  if (state.timer) {
    rusage usage_end = {};
    getrusage(RUSAGE_SELF, &usage_end);
    const std::chrono::duration<double> real = std::chrono::steady_clock::now() - wall_start;
    out << fmt::format("Run Time (s): real {:.3f} user {:.3f} sys {:.3f}\n", real.count(),
                       Seconds(usage_end.ru_utime) - Seconds(usage_start.ru_utime),
                       Seconds(usage_end.ru_stime) - Seconds(usage_start.ru_stime));
  }
  return CommandOutcome::kContinue;
}

Result<std::optional<CommandOutcome>> RunShellCommand(ShellState& state, std::string_view line,
                                                      std::ostream& out) {
  line = TrimShellText(line);
  if (line.starts_with('.')) {
    TRIBUTARY_ASSIGN_OR_RAISE(const CommandOutcome outcome, RunDotCommand(state, line, out));
    return std::optional<CommandOutcome>(outcome);
  }
  if (line.starts_with('\\')) {
    if (line == "\\q") {
      return std::optional<CommandOutcome>(CommandOutcome::kQuit);
    }
    if (line == "\\?" || line == "\\h") {
      out << kShellHelp;
      return std::optional<CommandOutcome>(CommandOutcome::kContinue);
    }
    return Status::InvalidArgument(fmt::format(
        "unknown command '{}': the commands are .help, help, exit, quit, \\q and \\?", line));
  }
  return ShellWord(line, out);
}

Result<std::vector<std::string>> ListViews(const Session& session) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<Row> rows, session.Sql("SHOW VIEWS").Collect());
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const Row& row : rows) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string name, row.GetString(1));
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

int TerminalWidth() {
  winsize size = {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) {
    return 0;
  }
  return size.ws_col;
}

}  // namespace tributary::tools

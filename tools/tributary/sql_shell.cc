#include "sql_shell.h"

#include <histedit.h>
#include <poll.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "common/ascii.h"
#include "shell_commands.h"

namespace tributary::tools {

namespace {

// Spark SQL's keywords of the statements tributary runs, and the type names. Function names are
// left out: there are hundreds, and they would crowd out the table and column names.
constexpr std::string_view kCompletionKeywords =
    "ADD ALL ALTER AND ANTI AS ASC BETWEEN BIGINT BINARY BOOLEAN BY CASE CAST CREATE CROSS "
    "CUBE DATE DECIMAL DELETE DELTA DESC DESCRIBE DETAIL DISTINCT DOUBLE DROP ELSE END "
    "EXCEPT EXISTS EXPLAIN EXTENDED FALSE FILTER FLOAT FOLLOWING FROM FULL GROUP GROUPING "
    "HAVING HISTORY IF IN INNER INSERT INT INTERSECT INTERVAL INTO IS JOIN LATERAL LEFT LIKE "
    "LIMIT LOCATION MATCHED MERGE NOT NULL NULLS OFFSET ON OPTIMIZE OR ORDER OUTER OVER "
    "OVERWRITE PARTITION PARTITIONED PRECEDING QUALIFY RANGE REFRESH REPLACE RESET RIGHT "
    "ROLLUP ROW ROWS SELECT SEMI SET SHOW SMALLINT STREAM STREAMING STRING STRUCT TABLE "
    "TABLES TBLPROPERTIES TEMPORARY THEN TIMESTAMP TIMESTAMP_NTZ TINYINT TO TRUE UNBOUNDED "
    "UNION UPDATE USE USING VACUUM VALUES VERSION VIEW VIEWS WHEN WHERE WINDOW WITH ZORDER";

// Keywords after which a table name comes.
constexpr const char* kTableKeywords[] = {"FROM", "JOIN",     "INTO",     "TABLE", "UPDATE",
                                          "DESC", "DESCRIBE", "OPTIMIZE", "VACUUM"};

bool IsCompletionWordChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return std::isalnum(byte) != 0 || c == '_' || byte >= 0x80;
}

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         EqualsIgnoreAsciiCase(text.substr(0, prefix.size()), prefix);
}

// The number of characters (UTF-8 code points) of `text`.
int CharacterCount(std::string_view text) {
  return static_cast<int>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

// The words of `text`, as completion looks for the tables a statement names.
std::vector<std::string_view> CompletionWordsOf(std::string_view text) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && !IsCompletionWordChar(text[at])) {
      ++at;
    }
    const size_t start = at;
    while (at < text.size() && IsCompletionWordChar(text[at])) {
      ++at;
    }
    if (at > start) {
      words.push_back(text.substr(start, at - start));
    }
  }
  return words;
}

}  // namespace

std::vector<std::string> CompletionsOf(std::string_view line_before_cursor,
                                       const std::vector<std::string>& tables,
                                       const std::vector<std::string>& columns) {
  size_t start = line_before_cursor.size();
  while (start > 0 && IsCompletionWordChar(line_before_cursor[start - 1])) {
    --start;
  }
  const std::string_view word = line_before_cursor.substr(start);
  const bool qualified = start > 0 && line_before_cursor[start - 1] == '.';
  // The word before this one decides whether a table name comes here.
  size_t before = start;
  while (before > 0 &&
         (line_before_cursor[before - 1] == ' ' || line_before_cursor[before - 1] == '\t')) {
    --before;
  }
  size_t previous_start = before;
  while (previous_start > 0 && IsCompletionWordChar(line_before_cursor[previous_start - 1])) {
    --previous_start;
  }
  const std::string_view previous =
      line_before_cursor.substr(previous_start, before - previous_start);
  const bool table_position =
      !qualified &&
      std::any_of(std::begin(kTableKeywords), std::end(kTableKeywords),
                  [&](const char* keyword) { return EqualsIgnoreAsciiCase(previous, keyword); });
  std::vector<std::string> matches;
  const auto add_matching = [&](const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      if (StartsWithIgnoringCase(name, word)) {
        matches.push_back(name);
      }
    }
  };
  if (table_position) {
    add_matching(tables);
  } else if (qualified) {
    add_matching(columns);
  } else if (!word.empty()) {
    // A keyword in the case the word is typed in: "sel" completes to "select".
    const bool lower = std::any_of(word.begin(), word.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) != 0;
    });
    for (size_t at = 0; at < kCompletionKeywords.size();) {
      const size_t end = std::min(kCompletionKeywords.find(' ', at), kCompletionKeywords.size());
      const std::string_view keyword = kCompletionKeywords.substr(at, end - at);
      if (StartsWithIgnoringCase(keyword, word)) {
        matches.push_back(lower ? AsciiLower(keyword) : std::string(keyword));
      }
      at = end + 1;
    }
    add_matching(tables);
    add_matching(columns);
  }
  std::sort(matches.begin(), matches.end());
  matches.erase(std::unique(matches.begin(), matches.end()), matches.end());
  return matches;
}

std::string ShellHistoryPath() {
  if (const char* path = std::getenv("TRIBUTARY_HISTORY"); path != nullptr) {
    return path;
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    const passwd* user = getpwuid(getuid());
    home = user != nullptr ? user->pw_dir : nullptr;
  }
  if (home == nullptr || *home == '\0') {
    return "";
  }
  return std::string(home) + "/.tributary_history";
}

struct LineEditor::Impl {
  std::shared_ptr<Session> session;
  int wake_fd = -1;
  std::string history_path;
  EditLine* editor = nullptr;
  History* history_list = nullptr;
  std::string saved_locale;
  bool continuation = false;
  bool interrupted = false;
  bool history_warned = false;
  std::string pending;
  std::mbstate_t decode_state = {};
  // Names completion offers, read at the first Tab after a statement ran.
  bool names_read = false;
  std::vector<std::string> tables;
  std::map<std::string, std::vector<std::string>> columns_by_table;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  Impl(Impl&&) = delete;
  Impl& operator=(Impl&&) = delete;
  ~Impl() {
    if (editor != nullptr) {
      el_end(editor);
    }
    if (history_list != nullptr) {
      history_end(history_list);
    }
    if (!saved_locale.empty()) {
      std::setlocale(LC_CTYPE, saved_locale.c_str());
    }
  }

  // One character of input: 1 with it, 0 at the end of input, -1 on Ctrl-C or an error.
  int ReadCharacter(wchar_t* out) {
    while (true) {
      pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_fd, POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) {
          continue;
        }
        return -1;
      }
      if ((fds[1].revents & POLLIN) != 0) {
        char bytes[64];
        while (read(wake_fd, bytes, sizeof bytes) > 0) {
        }
        interrupted = true;
        errno = EINTR;
        return -1;
      }
      char byte = 0;
      const ssize_t got = read(STDIN_FILENO, &byte, 1);
      if (got == 0) {
        return 0;
      }
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN) {
          continue;
        }
        return -1;
      }
      wchar_t character = 0;
      const size_t used = std::mbrtowc(&character, &byte, 1, &decode_state);
      if (used == static_cast<size_t>(-2)) {
        continue;  // the middle of a multibyte character
      }
      if (used == static_cast<size_t>(-1)) {
        decode_state = {};
        character = static_cast<unsigned char>(byte);
      }
      *out = character;
      return 1;
    }
  }

  const std::vector<std::string>& ColumnsOf(const std::string& table) {
    auto [it, inserted] = columns_by_table.try_emplace(AsciiLower(table));
    if (inserted) {
      std::string quoted = "`";
      for (const char c : table) {
        quoted += c;
        if (c == '`') {
          quoted += '`';
        }
      }
      for (const StructField& field :
           session->Sql("SELECT * FROM " + quoted + "`").Schema().fields) {
        it->second.push_back(field.name);
      }
    }
    return it->second;
  }

  unsigned char Complete() {
    if (!names_read) {
      names_read = true;
      tables.clear();
      columns_by_table.clear();
      // Names that cannot be read (a broken table) are just not offered.
      if (auto names = session->ListTables(); names.ok()) {
        tables = *std::move(names);
      }
      if (auto views = ListViews(*session); views.ok()) {
        tables.insert(tables.end(), views->begin(), views->end());
      }
    }
    const LineInfo* info = el_line(editor);
    const std::string_view before(info->buffer, static_cast<size_t>(info->cursor - info->buffer));
    const std::string_view whole(info->buffer, static_cast<size_t>(info->lastchar - info->buffer));
    // Columns of the tables the statement names, else of every table (at most 64 of them).
    std::vector<std::string> named;
    for (const std::string_view text : {std::string_view(pending), whole}) {
      for (const std::string_view word : CompletionWordsOf(text)) {
        for (const std::string& table : tables) {
          if (EqualsIgnoreAsciiCase(table, word)) {
            named.push_back(table);
          }
        }
      }
    }
    if (named.empty()) {
      named.assign(tables.begin(), tables.begin() + std::min<ptrdiff_t>(64, tables.size()));
    }
    std::vector<std::string> columns;
    for (const std::string& table : named) {
      const std::vector<std::string>& of_table = ColumnsOf(table);
      columns.insert(columns.end(), of_table.begin(), of_table.end());
    }
    const std::vector<std::string> matches = CompletionsOf(before, tables, columns);
    if (matches.empty()) {
      return CC_ERROR;
    }
    size_t word_start = before.size();
    while (word_start > 0 && IsCompletionWordChar(before[word_start - 1])) {
      --word_start;
    }
    const std::string_view word = before.substr(word_start);
    // The longest prefix every match shares (ignoring case, spelled as the first match).
    size_t common = matches.front().size();
    for (const std::string& match : matches) {
      size_t i = 0;
      while (i < common && i < match.size() &&
             AsciiLower(match[i]) == AsciiLower(matches.front()[i])) {
        ++i;
      }
      common = i;
    }
    if (matches.size() == 1 || common > word.size()) {
      std::string replacement = matches.front().substr(0, common);
      if (matches.size() == 1) {
        replacement += ' ';
      }
      el_deletestr(editor, CharacterCount(word));
      if (el_insertstr(editor, replacement.c_str()) != 0) {
        return CC_ERROR;
      }
      return CC_REFRESH;
    }
    // Nothing to add: list the choices under the line, then show the line again.
    size_t longest = 0;
    for (const std::string& match : matches) {
      longest = std::max(longest, match.size());
    }
    const int width = TerminalWidth() > 0 ? TerminalWidth() : 80;
    const size_t per_line = std::max<size_t>(1, static_cast<size_t>(width) / (longest + 2));
    std::string listing = "\n";
    for (size_t i = 0; i < matches.size(); ++i) {
      listing += matches[i];
      listing += (i + 1) % per_line == 0 || i + 1 == matches.size()
                     ? std::string("\n")
                     : std::string(longest + 2 - matches[i].size(), ' ');
    }
    std::fputs(listing.c_str(), stdout);
    std::fflush(stdout);
    return CC_REDISPLAY;
  }

  void AddHistory(const std::string& line) {
    HistEvent event = {};
    ::history(history_list, &event, H_ENTER, line.c_str());
    // Saved at once: Ctrl-C while a statement runs ends the process.
    if (!history_path.empty() &&
        ::history(history_list, &event, H_SAVE, history_path.c_str()) < 0 && !history_warned) {
      history_warned = true;
      std::cerr << "tributary: warning: cannot save the history to " << history_path << '\n';
    }
  }
};

namespace {

LineEditor::Impl* EditorOf(EditLine* editor) {
  void* data = nullptr;
  el_get(editor, EL_CLIENTDATA, &data);
  return static_cast<LineEditor::Impl*>(data);
}

extern "C" int ReadShellCharacter(EditLine* editor, wchar_t* out) {
  return EditorOf(editor)->ReadCharacter(out);
}

extern "C" char* ShellPrompt(EditLine* editor) {
  // libedit takes a char* but does not write to it.
  return const_cast<char*>(EditorOf(editor)->continuation ? kContinuationPrompt.data()
                                                          : kShellPrompt.data());
}

extern "C" unsigned char CompleteShellWord(EditLine* editor, int /*key*/) {
  return EditorOf(editor)->Complete();
}

}  // namespace

LineEditor::LineEditor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LineEditor::~LineEditor() = default;

Result<std::unique_ptr<LineEditor>> LineEditor::Open(std::shared_ptr<Session> session, int wake_fd,
                                                     std::string history_path) {
  auto impl = std::make_unique<Impl>();
  impl->session = std::move(session);
  impl->wake_fd = wake_fd;
  impl->history_path = std::move(history_path);
  if (const char* locale = std::setlocale(LC_CTYPE, nullptr); locale != nullptr) {
    impl->saved_locale = locale;
  }
  std::setlocale(LC_CTYPE, "");
  impl->editor = el_init("tributary", stdin, stdout, stderr);
  impl->history_list = history_init();
  if (impl->editor == nullptr || impl->history_list == nullptr) {
    return Status::IOError("cannot set up the line editor (libedit) on the terminal");
  }
  HistEvent event = {};
  ::history(impl->history_list, &event, H_SETSIZE, 1000);
  ::history(impl->history_list, &event, H_SETUNIQUE, 1);
  if (!impl->history_path.empty()) {
    // A first run has no history file yet.
    ::history(impl->history_list, &event, H_LOAD, impl->history_path.c_str());
  }
  EditLine* editor = impl->editor;
  el_set(editor, EL_CLIENTDATA, impl.get());
  el_set(editor, EL_EDITOR, "emacs");
  el_set(editor, EL_PROMPT, ShellPrompt);
  el_set(editor, EL_HIST, ::history, impl->history_list);
  el_wset(editor, EL_GETCFN, ReadShellCharacter);
  // The wide form: libedit's narrow el_set(EL_ADDFN) copies the name and help into wide
  // strings it never frees (LeakSanitizer reports them at exit); these literals live forever.
  el_wset(editor, EL_ADDFN, L"tributary-complete", L"Complete a keyword, table or column name",
          CompleteShellWord);
  el_set(editor, EL_BIND, "^I", "tributary-complete", nullptr);
  el_set(editor, EL_BIND, "^R", "em-inc-search-prev", nullptr);
  // Home, End, Delete and Ctrl-arrows as xterm-like terminals send them, whatever termcap says.
  for (const char* home : {"\033[H", "\033[1~", "\033OH", "\033[7~"}) {
    el_set(editor, EL_BIND, home, "ed-move-to-beg", nullptr);
  }
  for (const char* end : {"\033[F", "\033[4~", "\033OF", "\033[8~"}) {
    el_set(editor, EL_BIND, end, "ed-move-to-end", nullptr);
  }
  el_set(editor, EL_BIND, "\033[3~", "ed-delete-next-char", nullptr);
  el_set(editor, EL_BIND, "\033[1;5D", "ed-prev-word", nullptr);
  el_set(editor, EL_BIND, "\033[1;5C", "em-next-word", nullptr);
  // The user's ~/.editrc may bind keys as for any libedit program.
  el_source(editor, nullptr);
  return std::unique_ptr<LineEditor>(new LineEditor(std::move(impl)));
}

LineEvent LineEditor::Next(std::string_view pending, std::string* line) {
  impl_->continuation = !pending.empty();
  impl_->pending = pending;
  impl_->interrupted = false;
  int count = 0;
  const char* text = el_gets(impl_->editor, &count);
  if (impl_->interrupted) {
    std::fputs("\n", stdout);
    std::fflush(stdout);
    return LineEvent::kInterrupted;
  }
  if (text == nullptr || count <= 0) {
    return LineEvent::kEnd;
  }
  line->assign(text, static_cast<size_t>(count));
  if (!line->empty() && line->back() == '\n') {
    line->pop_back();
  }
  if (line->find_first_not_of(" \t\r") != std::string::npos) {
    impl_->AddHistory(*line);
  }
  return LineEvent::kLine;
}

void LineEditor::ForgetNames() {
  impl_->names_read = false;
}

}  // namespace tributary::tools

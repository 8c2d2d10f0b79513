#include "support/duckdb_oracle.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace tributary::testing {
namespace {

std::string ErrnoText(int error) {
  return std::string(std::strerror(error));
}

// Splits newline-terminated lines; a last line without a newline is kept.
std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) {
      end = text.size();
    }
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Closes the descriptors it holds on destruction.
class Pipe {
 public:
  Pipe() = default;
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }

  Status Open() {
    if (pipe2(fds_.data(), O_CLOEXEC) != 0) {
      return Status::IOError("cannot create a pipe for a node oracle: " + ErrnoText(errno));
    }
    return Status::OK();
  }
  int ReadEnd() const { return fds_[0]; }
  int WriteEnd() const { return fds_[1]; }
  void CloseRead() { Close(&fds_[0]); }
  void CloseWrite() { Close(&fds_[1]); }

 private:
  static void Close(int* fd) {
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
  }
  std::array<int, 2> fds_ = {-1, -1};
};

// Reads `out` and `err` to their ends at once, so that neither pipe fills up and stalls node.
Status DrainPipes(int out_fd, int err_fd, std::string* out, std::string* err) {
  std::array<pollfd, 2> polls = {pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks = {out, err};
  int open = 2;
  char buffer[65536];
  while (open > 0) {
    if (poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Status::IOError("cannot poll a node oracle's output: " + ErrnoText(errno));
    }
    for (size_t i = 0; i < polls.size(); ++i) {
      if (polls[i].fd < 0 || polls[i].revents == 0) {
        continue;
      }
      const ssize_t n = read(polls[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        polls[i].fd = -1;
        --open;
      }
    }
  }
  return Status::OK();
}

std::string JoinColumns(const std::vector<std::string>& columns) {
  std::string joined;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) {
      joined.push_back(',');
    }
    joined += columns[i];
  }
  return joined;
}

// A fresh folder under the system's temporary folder, removed with everything in it when this
// goes out of scope.
class TempDir {
 public:
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (!path_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(path_, ignored);
    }
  }

  Status Create() {
    std::error_code error;
    std::filesystem::path base = std::filesystem::temp_directory_path(error);
    if (error) {
      base = "/tmp";
    }
    std::string pattern = (base / "tributary-oracle-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError("cannot create a temporary folder " + pattern + ": " +
                             ErrnoText(errno));
    }
    path_ = pattern;
    return Status::OK();
  }
  const std::string& Path() const { return path_; }

 private:
  std::string path_;
};

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot open " + path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return Status::IOError("cannot read " + path);
  }
  return text.str();
}

// Appends `sql` to `args` as --sql, or for text longer than one argument may be (Linux allows
// 128 KiB) as --sql-file in `dir`.
Status AppendSqlArgs(const std::string& sql, TempDir* dir, std::vector<std::string>* args) {
  constexpr size_t kMaxArgumentBytes = size_t{64} * 1024;
  if (sql.size() <= kMaxArgumentBytes) {
    args->push_back("--sql");
    args->push_back(sql);
    return Status::OK();
  }
  TRIBUTARY_RETURN_NOT_OK(dir->Create());
  const std::string path = dir->Path() + "/query.sql";
  std::ofstream out(path, std::ios::binary);
  out << sql;
  if (!out.flush()) {
    return Status::IOError("cannot write " + path);
  }
  args->push_back("--sql-file");
  args->push_back(path);
  return Status::OK();
}

}  // namespace

std::string TestdataDir() {
  return TRIBUTARY_TESTDATA_DIR;
}

Result<std::string> RunOracle(const std::vector<std::string>& args) {
  return RunNodeOracle(TRIBUTARY_ORACLE_SCRIPT, "DuckDB oracle", args);
}

Result<std::string> RunNodeOracle(const std::string& script, const std::string& name,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {TRIBUTARY_NODE_EXECUTABLE, script, "--modules",
                                        TRIBUTARY_ORACLE_NODE_MODULES};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (std::string& arg : argv_text) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);

  Pipe out_pipe;
  Pipe err_pipe;
  TRIBUTARY_RETURN_NOT_OK(out_pipe.Open());
  TRIBUTARY_RETURN_NOT_OK(err_pipe.Open());

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe.WriteEnd(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe.WriteEnd(), STDERR_FILENO);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    return Status::IOError("cannot start node for the " + name + " (" + TRIBUTARY_NODE_EXECUTABLE +
                           "): " + ErrnoText(spawn_error));
  }
  out_pipe.CloseWrite();
  err_pipe.CloseWrite();

  std::string out;
  std::string err;
  Status drained = DrainPipes(out_pipe.ReadEnd(), err_pipe.ReadEnd(), &out, &err);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0) {
    if (errno != EINTR) {
      return Status::IOError("cannot wait for the " + name + ": " + ErrnoText(errno));
    }
  }
  TRIBUTARY_RETURN_NOT_OK(drained);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    return out;
  }
  std::string how = WIFEXITED(wait_status) ? "exit code " + std::to_string(WEXITSTATUS(wait_status))
                                           : "signal " + std::to_string(WTERMSIG(wait_status));
  while (!err.empty() && err.back() == '\n') {
    err.pop_back();
  }
  std::string command = args.empty() ? std::string() : args[0];
  return Status::IOError(name + " '" + command + "' failed (" + how + "): " + err);
}

Result<std::vector<std::string>> OracleCatParquet(const std::string& file,
                                                  const std::vector<std::string>& columns) {
  std::vector<std::string> args = {"cat-parquet", file};
  if (!columns.empty()) {
    args.emplace_back("--columns");
    args.push_back(JoinColumns(columns));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string out, RunOracle(args));
  return SplitLines(out);
}

Result<std::vector<OracleFileRows>> OracleCatParquetMany(const std::vector<std::string>& files) {
  TempDir dir;
  TRIBUTARY_RETURN_NOT_OK(dir.Create());
  const std::string list_path = dir.Path() + "/files.txt";
  {
    std::ofstream list(list_path, std::ios::binary);
    for (const std::string& file : files) {
      if (file.empty() || file.find('\n') != std::string::npos) {
        return Status::InvalidArgument("oracle cannot list file name '" + file + "'");
      }
      list << file << '\n';
    }
    if (!list.flush()) {
      return Status::IOError("cannot write " + list_path);
    }
  }
  const std::string out_dir = dir.Path() + "/rows";
  TRIBUTARY_ASSIGN_OR_RAISE(std::string summary, RunOracle({"cat-many", list_path, out_dir}));

  std::vector<OracleFileRows> results(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    results[i].file = files[i];
    results[i].status = Status::Internal("DuckDB oracle gave no result for " + files[i]);
  }
  for (const std::string& line : SplitLines(summary)) {
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object() || !entry.contains("index") || !entry["index"].is_number_unsigned() ||
        entry["index"].get<size_t>() >= files.size()) {
      return Status::Internal("DuckDB oracle cat-many printed an unexpected line: " + line);
    }
    const size_t index = entry["index"].get<size_t>();
    OracleFileRows& result = results[index];
    if (entry.contains("error")) {
      result.status = Status::IOError("DuckDB cannot read " + files[index] + ": " +
                                      entry["error"].get<std::string>());
      continue;
    }
    Result<std::string> rows = ReadWholeFile(out_dir + "/" + std::to_string(index) + ".jsonl");
    if (!rows.ok()) {
      return rows.status();
    }
    result.rows = SplitLines(*rows);
    result.status = Status::OK();
  }
  return results;
}

Status OracleWriteParquet(const std::string& out, const std::string& sql, const std::string& codec,
                          int64_t row_group_size) {
  TempDir dir;
  std::vector<std::string> args = {"write-parquet", out, "--codec", codec};
  TRIBUTARY_RETURN_NOT_OK(AppendSqlArgs(sql, &dir, &args));
  if (row_group_size > 0) {
    args.emplace_back("--row-group-size");
    args.push_back(std::to_string(row_group_size));
  }
  return RunOracle(args).status();
}

Result<std::vector<std::string>> OracleQuery(const std::string& sql) {
  TempDir dir;
  std::vector<std::string> args = {"query"};
  TRIBUTARY_RETURN_NOT_OK(AppendSqlArgs(sql, &dir, &args));
  TRIBUTARY_ASSIGN_OR_RAISE(std::string out, RunOracle(args));
  return SplitLines(out);
}

Result<std::vector<Result<std::vector<std::string>>>> OracleQueryMany(
    const std::vector<std::string>& queries) {
  TempDir dir;
  TRIBUTARY_RETURN_NOT_OK(dir.Create());
  const std::string list_path = dir.Path() + "/queries.json";
  {
    std::ofstream list(list_path, std::ios::binary);
    list << nlohmann::json(queries).dump();
    if (!list.flush()) {
      return Status::IOError("cannot write " + list_path);
    }
  }
  const std::string out_dir = dir.Path() + "/rows";
  TRIBUTARY_ASSIGN_OR_RAISE(std::string summary, RunOracle({"query-many", list_path, out_dir}));
  std::vector<Result<std::vector<std::string>>> results(
      queries.size(), Status::Internal("DuckDB oracle gave no result"));
  for (const std::string& line : SplitLines(summary)) {
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object() || !entry.contains("index") || !entry["index"].is_number_unsigned() ||
        entry["index"].get<size_t>() >= queries.size()) {
      return Status::Internal("DuckDB oracle query-many printed an unexpected line: " + line);
    }
    const size_t index = entry["index"].get<size_t>();
    if (entry.contains("error")) {
      results[index] = Status::IOError("DuckDB failed on " + queries[index] + ": " +
                                       entry["error"].get<std::string>());
      continue;
    }
    Result<std::string> rows = ReadWholeFile(out_dir + "/" + std::to_string(index) + ".jsonl");
    if (!rows.ok()) {
      return rows.status();
    }
    results[index] = SplitLines(*rows);
  }
  return results;
}

}  // namespace tributary::testing

#include "support/s3_test_server.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

extern char** environ;

namespace tributary::testing {
namespace {

// How long the zygote or a server may take to start on a busy machine before the fixture
// gives up.
constexpr std::chrono::seconds kStartTimeout{60};

// The log of this process's server; removed when the process exits.
pid_t owner_pid = -1;
std::string server_log_path;
// The connection to this process's server: held open for the life of the process (the server
// ends when it reaches EOF), close-on-exec so the programs tests start do not keep it.
int server_connection = -1;

void RemoveLogAtExit() {
  // A child made by fork() runs the parent's exit handlers too; only the owner removes the log.
  if (getpid() == owner_pid) {
    std::remove(server_log_path.c_str());
  }
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kTail = 4000;
  return text.size() > kTail ? "..." + text.substr(text.size() - kTail) : text;
}

Result<std::string> ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot open " + path);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Status ErrnoError(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

size_t DiscardBody(char* /*data*/, size_t size, size_t count, void* /*user*/) {
  return size * count;
}

// The HTTP status of `method` on `url` with an empty body, or the transport's error.
Result<long> HttpStatus(const std::string& method, const std::string& url) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    return Status::IOError("curl_easy_init failed");
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, DiscardBody);
  if (method == "PUT" || method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 0L);
  }
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/octet-stream");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) {
    return Status::IOError(method + " " + url + ": " + curl_easy_strerror(code));
  }
  return status;
}

// Reads from `fd` up to and including the first newline (which is dropped), waiting at most
// until `deadline`. EOF or the deadline first is an IOError naming `what`.
Result<std::string> ReadLine(int fd, std::chrono::steady_clock::time_point deadline,
                             const std::string& what) {
  std::string line;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd readable{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&readable, 1, static_cast<int>(left.count())) == 0) {
      return Status::IOError(what + ": no answer within 60 s");
    }
    char c = 0;
    const ssize_t got = read(fd, &c, 1);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return Status::IOError(what + ": the other side closed the connection");
    }
    if (c == '\n') {
      return line;
    }
    line += c;
  }
}

// The zygote's socket (tests/support/moto_server.py): one per user and version of the script,
// so a changed script never talks to an older zygote.
Result<std::string> ZygoteSocketPath() {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string script, ReadLocalFile(TRIBUTARY_MOTO_SERVER_SCRIPT));
  return fmt::format("/tmp/tributary-moto-{}-{:016x}.sock", getuid(),
                     std::hash<std::string>{}(script));
}

Result<int> ConnectZygote(const std::string& socket_path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return ErrnoError("cannot create a Unix socket");
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    Status error = ErrnoError("cannot connect to the moto zygote at " + socket_path);
    close(fd);
    return error;
  }
  return fd;
}

// Starts the zygote at `socket_path`, holding the lock of StartZygote, and returns once it
// listens.
Status StartZygoteLocked(const std::string& socket_path) {
  if (Result<int> running = ConnectZygote(socket_path); running.ok()) {
    close(*running);  // another test process started it while this one waited for the lock
    return Status::OK();
  }
  const std::string log_path = socket_path + ".log";
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int ready_pipe[2];
  if (log_fd < 0 || pipe2(ready_pipe, O_CLOEXEC) != 0) {
    Status error = ErrnoError("cannot create the moto zygote's log or pipe");
    if (log_fd >= 0) {
      close(log_fd);
    }
    return error;
  }
  std::vector<std::string> argv_text = {"python3", TRIBUTARY_MOTO_SERVER_SCRIPT, "zygote",
                                        socket_path};
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (std::string& arg : argv_text) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, ready_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  // A session of its own: a test's Ctrl-C or process-group kill leaves the zygote to end
  // itself when idle.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(log_fd);
  close(ready_pipe[1]);
  if (spawn_error != 0) {
    close(ready_pipe[0]);
    return Status::IOError(std::string("cannot start python3 for the moto server: ") +
                           std::strerror(spawn_error));
  }
  // The zygote forks itself away (so it is no child of this process) and its child prints
  // "ready" once the socket listens.
  Result<std::string> ready = ReadLine(
      ready_pipe[0], std::chrono::steady_clock::now() + kStartTimeout, "the moto zygote's start");
  close(ready_pipe[0]);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (!ready.ok() || *ready != "ready") {
    return Status::IOError(
        "the moto server (python3 " TRIBUTARY_MOTO_SERVER_SCRIPT
        ") did not start; is moto installed (pip install 'moto[server]')? Its output:\n" +
        ReadLog(log_path));
  }
  return Status::OK();
}

// Starts the zygote at `socket_path` unless another test process has (the lock file orders the
// processes that found none), and returns once it listens.
Status StartZygote(const std::string& socket_path) {
  const std::string lock_path = socket_path + ".lock";
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) {
    return ErrnoError("cannot open " + lock_path);
  }
  Status status;
  while (flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) {
      status = ErrnoError("cannot lock " + lock_path);
      break;
    }
  }
  if (status.ok()) {
    status = StartZygoteLocked(socket_path);
  }
  close(lock);  // releases the lock
  return status;
}

// Starts this process's server (a fork of the zygote) and returns its endpoint, or why it
// could not start.
Result<std::string> StartServer() {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string socket_path, ZygoteSocketPath());
  Result<int> connection = ConnectZygote(socket_path);
  if (!connection.ok()) {
    TRIBUTARY_RETURN_NOT_OK(StartZygote(socket_path));
    connection = ConnectZygote(socket_path);
  }
  TRIBUTARY_RETURN_NOT_OK(connection.status());
  server_connection = *connection;
  char log_pattern[] = "/tmp/tributary-moto-XXXXXX";
  const int log_fd = mkstemp(log_pattern);
  if (log_fd < 0) {
    return ErrnoError("cannot create the moto server's log file");
  }
  close(log_fd);
  server_log_path = log_pattern;
  owner_pid = getpid();
  std::atexit(RemoveLogAtExit);
  const std::string request = server_log_path + "\n";
  if (write(server_connection, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    return ErrnoError("cannot ask the moto zygote at " + socket_path + " for a server");
  }
  Result<std::string> port =
      ReadLine(server_connection, std::chrono::steady_clock::now() + kStartTimeout,
               "the moto server's start");
  if (!port.ok() || port->empty() || port->find_first_not_of("0123456789") != std::string::npos) {
    return Status::IOError("the moto server did not start; its output:\n" +
                           ReadLog(server_log_path));
  }
  std::string endpoint = "http://127.0.0.1:" + *port;
  Result<long> status = HttpStatus("GET", endpoint + "/moto-api/");
  if (!status.ok() || *status != 200) {
    return Status::IOError("the moto server at " + endpoint + " did not answer; its output:\n" +
                           ReadLog(server_log_path));
  }
  return endpoint;
}

// The bucket and key of "s3://bucket/key" or "s3a://bucket/key".
Result<std::pair<std::string, std::string>> SplitS3Uri(const std::string& uri) {
  for (const char* scheme : {"s3://", "s3a://"}) {
    const size_t length = std::strlen(scheme);
    if (uri.compare(0, length, scheme) == 0) {
      const size_t slash = uri.find('/', length);
      if (slash == std::string::npos || slash == length || slash + 1 == uri.size()) {
        break;
      }
      return std::make_pair(uri.substr(length, slash - length), uri.substr(slash + 1));
    }
  }
  return Status::InvalidArgument("not an s3:// object URI: " + uri);
}

Result<std::string> RunS3Oracle(std::vector<std::string> command) {
  std::vector<std::string> args = {"--endpoint",   S3TestServer::Get().Endpoint(),
                                   "--region",     kS3TestRegion,
                                   "--access-key", kS3TestAccessKey,
                                   "--secret-key", kS3TestSecretKey};
  args.insert(args.end(), command.begin(), command.end());
  return RunNodeOracle(TRIBUTARY_S3_ORACLE_SCRIPT, "S3 oracle (AWS SDK for JavaScript)", args);
}

}  // namespace

S3TestServer& S3TestServer::Get() {
  static S3TestServer* server = [] {
    Result<std::string> endpoint = StartServer();
    if (!endpoint.ok()) {
      ADD_FAILURE() << "cannot start the S3 test server: " << endpoint.status().ToString();
      std::fprintf(stderr, "cannot start the S3 test server: %s\n",
                   endpoint.status().ToString().c_str());
      std::fflush(stdout);
      std::fflush(stderr);
      std::abort();
    }
    return new S3TestServer(*endpoint);
  }();
  return *server;
}

void S3TestServer::Reset() {
  Result<long> status = HttpStatus("POST", endpoint_ + "/moto-api/reset");
  if (!status.ok()) {
    ADD_FAILURE() << "cannot reset the S3 test server: " << status.status().ToString();
  } else if (*status != 200) {
    ADD_FAILURE() << "resetting the S3 test server answered HTTP " << *status;
  }
}

void S3TestServer::CreateBucket(const std::string& name) {
  // Unsigned: the moto server checks no signatures in its default mode.
  Result<long> status = HttpStatus("PUT", endpoint_ + "/" + name);
  if (!status.ok()) {
    ADD_FAILURE() << "cannot create bucket " << name << ": " << status.status().ToString();
  } else if (*status != 200) {
    ADD_FAILURE() << "creating bucket " << name << " answered HTTP " << *status;
  }
}

std::map<std::string, std::string> S3TestServer::Options() const {
  return {{"fs.s3a.endpoint", endpoint_},
          {"fs.s3a.path.style.access", "true"},
          {"fs.s3a.access.key", kS3TestAccessKey},
          {"fs.s3a.secret.key", kS3TestSecretKey},
          {"fs.s3a.endpoint.region", kS3TestRegion}};
}

void S3TestServer::ExportEnvironment() const {
  setenv("AWS_ACCESS_KEY_ID", kS3TestAccessKey, 1);
  setenv("AWS_SECRET_ACCESS_KEY", kS3TestSecretKey, 1);
  setenv("AWS_REGION", kS3TestRegion, 1);
  setenv("AWS_ENDPOINT_URL_S3", endpoint_.c_str(), 1);
}

Status OraclePut(const std::string& bucket, const std::string& key, const std::string& bytes) {
  TempDir dir;
  const std::string file = dir.Join("body");
  {
    std::ofstream out(file, std::ios::binary);
    out << bytes;
    if (!out.flush()) {
      return Status::IOError("cannot write " + file);
    }
  }
  return RunS3Oracle({"put", bucket, key, file}).status();
}

Status OracleDownload(const std::string& bucket, const std::string& key,
                      const std::string& local_path) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string out, RunS3Oracle({"get", bucket, key, local_path}));
  if (out == "missing\n") {
    return Status::NotFound("no object s3://" + bucket + "/" + key +
                            " (the AWS SDK got NoSuchKey)");
  }
  return Status::OK();
}

Result<std::string> OracleGet(const std::string& bucket, const std::string& key) {
  TempDir dir;
  const std::string file = dir.Join("body");
  TRIBUTARY_RETURN_NOT_OK(OracleDownload(bucket, key, file));
  return ReadLocalFile(file);
}

Result<std::vector<std::string>> OracleList(const std::string& bucket, const std::string& prefix) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string out, RunS3Oracle({"list", bucket, prefix}));
  std::vector<std::string> keys;
  size_t begin = 0;
  while (begin < out.size()) {
    size_t end = out.find('\n', begin);
    if (end == std::string::npos) {
      end = out.size();
    }
    nlohmann::json key = nlohmann::json::parse(out.substr(begin, end - begin), nullptr,
                                               /*allow_exceptions=*/false);
    if (!key.is_string()) {
      return Status::Internal("S3 oracle list printed an unexpected line: " +
                              out.substr(begin, end - begin));
    }
    keys.push_back(key.get<std::string>());
    begin = end + 1;
  }
  return keys;
}

Result<std::vector<std::string>> OracleCatS3Parquet(const std::string& uri,
                                                    const std::vector<std::string>& columns) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto location, SplitS3Uri(uri));
  TempDir dir;
  const std::string file = dir.Join("object.parquet");
  TRIBUTARY_RETURN_NOT_OK(OracleDownload(location.first, location.second, file));
  return OracleCatParquet(file, columns);
}

}  // namespace tributary::testing

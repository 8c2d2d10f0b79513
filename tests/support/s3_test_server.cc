#include "support/s3_test_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

extern char** environ;

namespace tributary::testing {
namespace {

// Runs moto.server as `python3 -m moto.server` does, plus a thread that removes the log file
// (argument 1) and kills the server's process group when its stdin reaches EOF: stdin is a pipe
// whose write end only the test process holds, so the server goes when the test process goes,
// however it ends. Kinesis's resharding and ListShards paging are patched to behave as AWS's do
// (see the comment in the script): the Kinesis tests check that parents are drained first.
// Conditional S3 writes are made atomic, as S3's are (see the script).
constexpr const char* kLauncher = R"(import os, runpy, signal, sys, threading
log_path = sys.argv[1]
def watch_parent():
    while os.read(0, 4096):
        pass
    try:
        os.remove(log_path)
    except OSError:
        pass
    os.killpg(0, signal.SIGKILL)
threading.Thread(target=watch_parent, daemon=True).start()
def patch_kinesis_as_aws():
    # moto 5 moves a split shard's records into its children, copies merged shards' records
    # into the child, routes new records to closed shards too, never ends a closed shard's
    # iterator and wants the stream name again with a ListShards NextToken. Kinesis keeps a
    # parent's records in the closed parent, writes to open shards only, ends the iterator (no
    # NextShardIterator) once a closed shard is read, and refuses a stream name with NextToken.
    from collections import OrderedDict
    import moto.kinesis.models as km
    from moto.kinesis.utils import decompose_shard_iterator
    from moto.utilities.utils import md5_hash
    def keep_records(original, parents):
        def reshard(self, *shard_ids):
            kept = {}
            for shard_id in shard_ids[:parents]:
                kept[shard_id] = self.shards[shard_id].records
                self.shards[shard_id].records = OrderedDict()
            original(self, *shard_ids)
            for shard_id, records in kept.items():
                self.shards[shard_id].records = records
        return reshard
    def get_shard_for_key(self, partition_key, explicit_hash_key):
        shard = route(self, partition_key, explicit_hash_key)
        key = int(explicit_hash_key) if explicit_hash_key else int(
            md5_hash(partition_key.encode('utf-8')).hexdigest(), 16)
        return next((s for s in self.shards.values()
                     if s.is_open and s.starting_hash <= key <= s.ending_hash), shard)
    def get_records(self, stream_arn, shard_iterator, limit):
        next_iterator, records, behind = read(self, stream_arn, shard_iterator, limit)
        stream_name, shard_id, last = decompose_shard_iterator(next_iterator)
        stream = self.describe_stream(stream_arn=stream_arn, stream_name=stream_name)
        shard = stream.get_shard(shard_id)
        if not shard.is_open and int(last) >= shard.get_max_sequence_number():
            next_iterator = None
        return next_iterator, records, behind
    def list_shards(self, stream_arn=None, stream_name=None, limit=None, next_token=None):
        # Kinesis names no stream with a NextToken (it refuses both); moto wants the name again.
        if next_token and not stream_arn and not stream_name:
            stream_arn, stream_name = token_streams.get(next_token, (None, None))
        shards, token = list_all(self, stream_arn=stream_arn, stream_name=stream_name,
                                 limit=limit, next_token=next_token)
        if token:
            token_streams[token] = (stream_arn, stream_name)
        return shards, token
    token_streams = {}
    list_all = km.KinesisBackend.list_shards
    km.KinesisBackend.list_shards = list_shards
    route, read = km.Stream.get_shard_for_key, km.KinesisBackend.get_records
    km.Stream.split_shard = keep_records(km.Stream.split_shard, 1)
    km.Stream.merge_shards = keep_records(km.Stream.merge_shards, 2)
    km.Stream.get_shard_for_key = get_shard_for_key
    km.KinesisBackend.get_records = get_records
def patch_s3_conditional_writes_atomic():
    # moto checks If-None-Match / If-Match and then stores the object, with nothing between
    # them: under load two conditional PUTs (or CompleteMultipartUploads) of one key can both
    # succeed. S3 makes a conditional write atomic (one wins, the others get 412); a lock
    # around conditional writes makes moto's so too, which the put-if-absent races test.
    import moto.s3.responses as s3r
    lock = threading.Lock()
    def atomic(original):
        def write(self, *args, **kwargs):
            if self.headers.get('If-None-Match') or self.headers.get('If-Match'):
                with lock:
                    return original(self, *args, **kwargs)
            return original(self, *args, **kwargs)
        return write
    s3r.S3Response.put_object = atomic(s3r.S3Response.put_object)
    s3r.S3Response._key_response_post = atomic(s3r.S3Response._key_response_post)
patch_kinesis_as_aws()
patch_s3_conditional_writes_atomic()
sys.argv = ['moto.server'] + sys.argv[2:]
runpy.run_module('moto.server', run_name='__main__', alter_sys=True)
)";

// How long moto may take to start on a busy machine before the fixture gives up.
constexpr std::chrono::seconds kStartTimeout{60};

// The server process of this test process; set once by Get(), read by the exit handler.
pid_t server_pid = -1;
pid_t owner_pid = -1;
std::string server_log_path;

void StopServerAtExit() {
  // A child made by fork() runs the parent's exit handlers too; only the owner stops the server.
  if (server_pid <= 0 || getpid() != owner_pid) {
    return;
  }
  kill(-server_pid, SIGKILL);
  while (waitpid(server_pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  server_pid = -1;
  std::remove(server_log_path.c_str());
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kTail = 4000;
  return text.size() > kTail ? "..." + text.substr(text.size() - kTail) : text;
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

// Starts the server and returns its endpoint, or why it could not start.
Result<std::string> StartServer() {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  char log_pattern[] = "/tmp/tributary-moto-XXXXXX";
  const int log_fd = mkstemp(log_pattern);
  if (log_fd < 0) {
    return Status::IOError(std::string("cannot create the moto server's log file: ") +
                           std::strerror(errno));
  }
  server_log_path = log_pattern;
  int watch_pipe[2];
  if (pipe2(watch_pipe, O_CLOEXEC) != 0) {
    close(log_fd);
    return Status::IOError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }

  // Port 0: the kernel picks a free port as the server binds it, so parallel test processes
  // cannot race for one; the server prints it ("Running on http://127.0.0.1:<port>").
  std::vector<std::string> argv_text = {"python3", "-c",        kLauncher, server_log_path,
                                        "-H",      "127.0.0.1", "-p",      "0"};
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (std::string& arg : argv_text) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, watch_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(log_fd);
  close(watch_pipe[0]);
  if (spawn_error != 0) {
    close(watch_pipe[1]);
    return Status::IOError(std::string("cannot start python3 for the moto server: ") +
                           std::strerror(spawn_error));
  }
  // watch_pipe[1] stays open (close-on-exec) for the life of this process.
  server_pid = pid;
  owner_pid = getpid();
  std::atexit(StopServerAtExit);

  // werkzeug prints "Running on" once its socket listens, so from then on requests are
  // answered. Wait for that line: inotify wakes this thread when the log grows, the process's
  // pidfd when moto exits; kStartTimeout guards against a hang only.
  const std::regex running(R"(Running on http://127\.0\.0\.1:([0-9]+))");
  const int changes = inotify_init1(IN_CLOEXEC);
  const int exited = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (changes < 0 || exited < 0 ||
      inotify_add_watch(changes, server_log_path.c_str(), IN_MODIFY) < 0) {
    return Status::IOError(std::string("cannot watch the moto server's start: ") +
                           std::strerror(errno));
  }
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  std::string endpoint;
  bool ended = false;
  while (endpoint.empty() && !ended) {
    std::smatch match;
    const std::string log = ReadLog(server_log_path);
    if (std::regex_search(log, match, running)) {
      endpoint = "http://127.0.0.1:" + match[1].str();
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    std::array<pollfd, 2> fds{{{changes, POLLIN, 0}, {exited, POLLIN, 0}}};
    if (left.count() <= 0 || poll(fds.data(), fds.size(), static_cast<int>(left.count())) == 0) {
      break;
    }
    ended = (fds[1].revents & POLLIN) != 0;
    if ((fds[0].revents & POLLIN) != 0) {
      std::array<char, 4096> events{};
      [[maybe_unused]] const ssize_t drained = read(changes, events.data(), events.size());
    }
  }
  close(changes);
  close(exited);
  if (endpoint.empty() && ended) {
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    server_pid = -1;
    return Status::IOError(
        "the moto server (python3 -m moto.server) exited at start; is moto installed "
        "(pip install 'moto[server]')? Its output:\n" +
        ReadLog(server_log_path));
  }
  Result<long> status =
      endpoint.empty() ? Result<long>(0) : HttpStatus("GET", endpoint + "/moto-api/");
  if (!status.ok() || *status != 200) {
    StopServerAtExit();
    return Status::IOError("the moto server did not answer within 60 s; its output:\n" +
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

Result<std::string> ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot open " + path);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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

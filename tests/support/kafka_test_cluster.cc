#include "support/kafka_test_cluster.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "support/child_process.h"
#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

extern char** environ;

namespace tributary::testing {
namespace {

// Hang guards (the broker answers in milliseconds; these only bound a broken run).
constexpr std::chrono::seconds kKafkaStartTimeout{30};
constexpr std::chrono::seconds kKafkaCommandTimeout{60};

std::string KafkaErrnoText(int error) {
  return std::strerror(error);
}

std::string KafkaReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The program `name` on PATH, or empty.
std::string KafkaFindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path == nullptr ? "/usr/local/bin:/usr/bin:/bin" : path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

std::string KafkaTail(const std::string& text) {
  constexpr size_t kTail = 4000;
  return text.size() > kTail ? "..." + text.substr(text.size() - kTail) : text;
}

}  // namespace

// The broker process: its pid, the write end of its stdin, the read end of its stdout, and
// the folder holding its bootstrap file and stderr log.
struct KafkaTestCluster::Process {
  pid_t pid = -1;
  int command_fd = -1;
  int answer_fd = -1;
  std::string buffered;
  TempDir dir;

  Process() = default;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  Process(Process&&) = delete;
  Process& operator=(Process&&) = delete;

  std::string Log() const { return KafkaTail(KafkaReadFile(dir.Join("broker.log"))); }

  // One line of the broker's stdout, waiting up to `timeout`.
  Result<std::string> ReadLine(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const size_t newline = buffered.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffered.substr(0, newline);
        buffered.erase(0, newline + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Status::IOError("the Kafka test broker did not answer within " +
                               std::to_string(timeout.count()) + " ms; its log:\n" + Log());
      }
      pollfd fd{answer_fd, POLLIN, 0};
      const int ready = poll(&fd, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) {
        continue;
      }
      if (ready < 0) {
        return Status::IOError("cannot poll the Kafka test broker: " + KafkaErrnoText(errno));
      }
      if (ready == 0) {
        continue;
      }
      std::array<char, 4096> chunk{};
      const ssize_t n = read(answer_fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        return Status::IOError("the Kafka test broker exited; its log:\n" + Log());
      }
      buffered.append(chunk.data(), static_cast<size_t>(n));
    }
  }

  // Sends `command` and returns the text after "ok" (an error status for "error ...").
  Result<std::string> Command(const std::string& command) {
    const std::string line = command + "\n";
    size_t written = 0;
    while (written < line.size()) {
      const ssize_t n = write(command_fd, line.data() + written, line.size() - written);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        return Status::IOError("cannot send '" + command + "' to the Kafka test broker: " +
                               KafkaErrnoText(errno) + "; its log:\n" + Log());
      }
      written += static_cast<size_t>(n);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string answer, ReadLine(kKafkaCommandTimeout));
    if (answer == "ok") {
      return std::string();
    }
    if (answer.rfind("ok ", 0) == 0) {
      return answer.substr(3);
    }
    return Status::IOError("Kafka test broker: '" + command + "' failed: " +
                           (answer.rfind("error ", 0) == 0 ? answer.substr(6) : answer));
  }

  ~Process() {
    if (command_fd >= 0) {
      close(command_fd);  // EOF on the broker's stdin: it exits
    }
    if (pid > 0) {
      int status = 0;
      ReapChild(pid, std::chrono::seconds(10), &status);
    }
    if (answer_fd >= 0) {
      close(answer_fd);
    }
  }
};

Result<std::unique_ptr<KafkaTestCluster>> KafkaTestCluster::Start(int brokers) {
  const std::string program = TRIBUTARY_KAFKA_TEST_BROKER;
  if (access(program.c_str(), X_OK) != 0) {
    return Status::IOError("the Kafka test broker program " + program +
                           " is missing (build the kafka-test-broker target)");
  }
  std::unique_ptr<KafkaTestCluster> cluster(new KafkaTestCluster());
  cluster->process_ = std::make_unique<Process>();
  Process& process = *cluster->process_;
  const std::string log_file = process.dir.Join("broker.log");

  std::array<int, 2> command_pipe = {-1, -1};
  std::array<int, 2> answer_pipe = {-1, -1};
  if (pipe2(command_pipe.data(), O_CLOEXEC) != 0 || pipe2(answer_pipe.data(), O_CLOEXEC) != 0) {
    const int error = errno;
    for (const int fd : {command_pipe[0], command_pipe[1], answer_pipe[0], answer_pipe[1]}) {
      if (fd >= 0) {
        close(fd);
      }
    }
    return Status::IOError("cannot create pipes for the Kafka test broker: " +
                           KafkaErrnoText(error));
  }
  process.command_fd = command_pipe[1];
  process.answer_fd = answer_pipe[0];

  std::vector<std::string> args = {program, "--brokers", std::to_string(brokers)};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, command_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, answer_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(command_pipe[0]);
  close(answer_pipe[1]);
  if (spawned != 0) {
    return Status::IOError("cannot start the Kafka test broker " + program + ": " +
                           KafkaErrnoText(spawned));
  }
  process.pid = pid;

  // Once the cluster listens the broker prints "bootstrap <list>"; a broker that fails to start
  // closes its stdout instead, which ReadLine reports with the broker's log.
  TRIBUTARY_ASSIGN_OR_RAISE(std::string banner, process.ReadLine(kKafkaStartTimeout));
  constexpr std::string_view kBanner = "bootstrap ";
  if (banner.rfind(kBanner, 0) != 0 || banner.size() == kBanner.size()) {
    return Status::IOError("the Kafka test broker printed '" + banner +
                           "', expected 'bootstrap <servers>'");
  }
  cluster->bootstrap_ = banner.substr(kBanner.size());
  return cluster;
}

KafkaTestCluster::~KafkaTestCluster() = default;

Status KafkaTestCluster::CreateTopic(const std::string& topic, int partitions) {
  return process_->Command("create_topic " + topic + " " + std::to_string(partitions)).status();
}

Status KafkaTestCluster::PushRequestErrors(int api_key, int error_code, int count) {
  return process_
      ->Command("push_request_errors " + std::to_string(api_key) + " " +
                std::to_string(error_code) + " " + std::to_string(count))
      .status();
}

Status KafkaTestCluster::SetBrokerDown(int broker_id, bool down) {
  return process_->Command((down ? "broker_down " : "broker_up ") + std::to_string(broker_id))
      .status();
}

Status KafkaTestCluster::SetPartitionLeader(const std::string& topic, int partition,
                                            int broker_id) {
  return process_
      ->Command("partition_leader " + topic + " " + std::to_string(partition) + " " +
                std::to_string(broker_id))
      .status();
}

Status KafkaTestCluster::DeleteRecordsBefore(const std::string& topic, int partition,
                                             int64_t offset) {
  return process_
      ->Command("delete_records_before " + topic + " " + std::to_string(partition) + " " +
                std::to_string(offset))
      .status();
}

Result<std::pair<int64_t, int64_t>> KafkaTestCluster::Watermarks(const std::string& topic,
                                                                 int partition) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string answer, process_->Command("watermarks " + topic + " " +
                                                                  std::to_string(partition)));
  std::istringstream in(answer);
  int64_t low = -1;
  int64_t high = -1;
  if (!(in >> low >> high)) {
    return Status::IOError("the Kafka test broker answered 'ok " + answer +
                           "' to watermarks, expected two offsets");
  }
  return std::make_pair(low, high);
}

Status KafkaTestCluster::ProduceWithKcat(const std::string& topic,
                                         const std::vector<KafkaTestRecord>& records) {
  const std::string kcat = KafkaFindOnPath("kcat");
  if (kcat.empty()) {
    return Status::IOError("kcat is not installed (apt-get install kcat; scripts/setup.sh)");
  }
  // kcat takes the partition and headers per run: one run per stretch of records that share
  // them, in order. Records are separated by a control character, keys by another, so values
  // may hold newlines.
  constexpr char kRecordDelimiter = '\x1e';
  constexpr char kKeyDelimiter = '\x1f';
  TempDir dir;
  size_t begin = 0;
  int run = 0;
  while (begin < records.size()) {
    size_t end = begin + 1;
    while (end < records.size() && records[end].partition == records[begin].partition &&
           records[end].headers == records[begin].headers &&
           records[end].key.has_value() == records[begin].key.has_value()) {
      ++end;
    }
    const bool keyed = records[begin].key.has_value();
    std::string input;
    for (size_t i = begin; i < end; ++i) {
      const KafkaTestRecord& record = records[i];
      for (const std::optional<std::string>& text : {record.key, record.value}) {
        if (text && text->find_first_of(std::string{kRecordDelimiter, kKeyDelimiter}) !=
                        std::string::npos) {
          return Status::InvalidArgument(
              "ProduceWithKcat: keys and values must not hold the bytes 0x1e or 0x1f");
        }
      }
      if (keyed) {
        input += *record.key;
        input.push_back(kKeyDelimiter);
      }
      input += record.value.value_or("");
      input.push_back(kRecordDelimiter);
    }
    const std::string input_file = dir.Join("records-" + std::to_string(run++));
    {
      std::ofstream out(input_file, std::ios::binary);
      out << input;
      if (!out.flush()) {
        return Status::IOError("cannot write " + input_file);
      }
    }
    ChildOptions child;
    // -Z: an empty value is a null one (records without a value).
    child.args = {kcat, "-P",  "-b",       bootstrap_,
                  "-t", topic, "-D",       std::string(1, kRecordDelimiter),
                  "-Z", "-X",  "acks=all", "-l"};
    if (keyed) {
      child.args.insert(child.args.end(), {"-K", std::string(1, kKeyDelimiter)});
    }
    if (records[begin].partition >= 0) {
      child.args.insert(child.args.end(), {"-p", std::to_string(records[begin].partition)});
    }
    for (const auto& [name, value] : records[begin].headers) {
      std::string header = name;
      header += "=";
      header += value;
      child.args.insert(child.args.end(), {"-H", header});
    }
    child.args.push_back(input_file);
    child.stderr_path = dir.Join("kcat.err");
    const ChildResult result = RunChild(child);
    if (result.exit_code != 0) {
      return Status::IOError("kcat could not produce to " + topic + ": " + result.Describe());
    }
    begin = end;
  }
  return Status::OK();
}

Status KafkaTestCluster::ProduceWithKafkajs(const std::string& topic,
                                            const std::vector<KafkaTestRecord>& records) {
  nlohmann::json list = nlohmann::json::array();
  for (const KafkaTestRecord& record : records) {
    nlohmann::json item;
    item["key"] = record.key ? nlohmann::json(*record.key) : nlohmann::json(nullptr);
    item["value"] = record.value ? nlohmann::json(*record.value) : nlohmann::json(nullptr);
    if (record.partition >= 0) {
      item["partition"] = record.partition;
    }
    item["headers"] = nlohmann::json::object();
    for (const auto& [name, value] : record.headers) {
      item["headers"][name] = value;
    }
    list.push_back(std::move(item));
  }
  TempDir dir;
  const std::string file = dir.Join("records.json");
  {
    std::ofstream out(file, std::ios::binary);
    out << list.dump();
    if (!out.flush()) {
      return Status::IOError("cannot write " + file);
    }
  }
  return RunNodeOracle(TRIBUTARY_KAFKA_ORACLE_SCRIPT, "Kafka oracle (kafkajs)",
                       {"--brokers", bootstrap_, "produce", topic, file})
      .status();
}

Result<std::vector<KafkaTestRecord>> KafkaTestCluster::ConsumeWithKafkajs(const std::string& topic,
                                                                          bool read_committed) {
  std::vector<std::string> args = {"--brokers", bootstrap_, "consume", topic};
  if (!read_committed) {
    args.emplace_back("--read-uncommitted");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string out, RunNodeOracle(TRIBUTARY_KAFKA_ORACLE_SCRIPT,
                                                           "Kafka oracle (kafkajs)", args));
  std::vector<KafkaTestRecord> records;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) {
      continue;
    }
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!row.is_object()) {
      return Status::IOError("the Kafka oracle printed an unexpected line: " + line);
    }
    KafkaTestRecord record;
    if (row["key"].is_string()) {
      record.key = row["key"].get<std::string>();
    }
    if (row["value"].is_string()) {
      record.value = row["value"].get<std::string>();
    }
    record.partition = row["partition"].get<int32_t>();
    record.offset = row["offset"].get<int64_t>();
    for (const auto& [name, value] : row["headers"].items()) {
      record.headers[name] = value.is_string() ? value.get<std::string>() : std::string();
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace tributary::testing

// kafka-test-broker: a TEST Kafka cluster for tests and for trying tributary out, never for
// production. It holds librdkafka's mock cluster (<librdkafka/rdkafka_mock.h>): real Kafka
// protocol over TCP on loopback, data in memory only, gone when the program exits.
//
//   kafka-test-broker [--brokers N] [--bootstrap-file PATH] [--topic NAME:PARTITIONS]...
//                     [--stdin-ignore]
//
// Once it listens it writes the bootstrap list ("127.0.0.1:port,...") to PATH (atomically: a
// temporary file renamed into place) and to stdout as "bootstrap <list>". Then it reads one
// command a line from stdin and answers each with one line, "ok[ detail]" or "error <why>":
//
//   create_topic TOPIC PARTITIONS [REPLICATION]
//   push_request_errors API_KEY ERROR_CODE COUNT   the next COUNT requests of API_KEY fail
//   clear_request_errors API_KEY
//   broker_down BROKER_ID / broker_up BROKER_ID
//   partition_leader TOPIC PARTITION BROKER_ID
//   delete_records_before TOPIC PARTITION OFFSET  retention (OFFSET: the end; low watermark
//                                                  becomes OFFSET + 2; see DeleteRecordsBefore)
//   watermarks TOPIC PARTITION                     "ok LOW HIGH"
//   bootstrap                                      "ok <list>"
//   quit
//
// It exits when stdin closes (so a test that dies takes its broker along), on `quit`, and on
// SIGTERM or SIGINT. With --stdin-ignore it does not read stdin at all and runs until a signal
// (for running it in the background by hand).

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

namespace {

std::atomic<bool> stop_requested{false};

void RequestStop(int /*signal*/) {
  stop_requested.store(true);
}

struct Options {
  int brokers = 1;
  std::string bootstrap_file;
  std::vector<std::pair<std::string, int>> topics;
  bool stdin_ignore = false;
};

constexpr const char* kUsage =
    "usage: kafka-test-broker [--brokers N] [--bootstrap-file PATH] [--topic NAME:PARTITIONS]... "
    "[--stdin-ignore]\n";

std::optional<int64_t> ParseInt(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  const std::string copy(text);
  errno = 0;
  const long long value = std::strtoll(copy.c_str(), &end, 10);
  if (errno != 0 || end != copy.c_str() + copy.size()) {
    return std::nullopt;
  }
  return value;
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) {
        *error = "missing value after " + std::string(arg);
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    if (arg == "--brokers") {
      const std::optional<std::string> text = value();
      if (!text) {
        return false;
      }
      const std::optional<int64_t> count = ParseInt(*text);
      if (!count || *count < 1 || *count > 64) {
        *error = "--brokers takes a number from 1 to 64, not '" + *text + "'";
        return false;
      }
      options->brokers = static_cast<int>(*count);
    } else if (arg == "--bootstrap-file") {
      const std::optional<std::string> text = value();
      if (!text) {
        return false;
      }
      options->bootstrap_file = *text;
    } else if (arg == "--topic") {
      const std::optional<std::string> text = value();
      if (!text) {
        return false;
      }
      const size_t colon = text->rfind(':');
      const std::optional<int64_t> partitions = colon == std::string::npos
                                                    ? std::optional<int64_t>(1)
                                                    : ParseInt(text->substr(colon + 1));
      const std::string name = colon == std::string::npos ? *text : text->substr(0, colon);
      if (name.empty() || !partitions || *partitions < 1 || *partitions > 100000) {
        *error = "--topic takes NAME:PARTITIONS, not '" + *text + "'";
        return false;
      }
      options->topics.emplace_back(name, static_cast<int>(*partitions));
    } else if (arg == "--stdin-ignore") {
      options->stdin_ignore = true;
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      *error = "unknown option " + std::string(arg);
      return false;
    }
  }
  return true;
}

bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      *error = "cannot write " + temporary + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

std::string ErrorText(rd_kafka_resp_err_t err) {
  return std::string(rd_kafka_err2name(err)) + " (" + rd_kafka_err2str(err) + ")";
}

struct KafkaHandleDeleter {
  void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaHandleDeleter>;

// Makes a client handle of `type` with `properties`; null and `error` set on failure.
KafkaHandle MakeHandle(rd_kafka_type_t type,
                       const std::vector<std::pair<std::string, std::string>>& properties,
                       std::string* error) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char text[512];
  for (const auto& [name, value] : properties) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), text, sizeof(text)) !=
        RD_KAFKA_CONF_OK) {
      *error = "cannot set " + name + ": " + text;
      rd_kafka_conf_destroy(conf);
      return nullptr;
    }
  }
  rd_kafka_t* handle = rd_kafka_new(type, conf, text, sizeof(text));
  if (handle == nullptr) {
    *error = std::string("cannot make a client: ") + text;
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  return KafkaHandle(handle);
}

class Broker {
 public:
  Broker(KafkaHandle owner, rd_kafka_mock_cluster_t* cluster)
      : owner_(std::move(owner)),
        cluster_(cluster),
        bootstrap_(rd_kafka_mock_cluster_bootstraps(cluster)) {}
  ~Broker() {
    client_.reset();
    rd_kafka_mock_cluster_destroy(cluster_);
  }
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  const std::string& Bootstrap() const { return bootstrap_; }

  std::string CreateTopic(const std::string& topic, int partitions, int replication) {
    const rd_kafka_resp_err_t err =
        rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, replication);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return "error cannot create topic " + topic + ": " + ErrorText(err);
    }
    return "ok";
  }

  // Answers one command line.
  std::string Handle(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string word; in >> word;) {
      words.push_back(word);
    }
    if (words.empty()) {
      return "error empty command";
    }
    const std::string& command = words[0];
    const auto number = [&](size_t index, int64_t* out) {
      const std::optional<int64_t> value =
          index < words.size() ? ParseInt(words[index]) : std::nullopt;
      if (value) {
        *out = *value;
      }
      return value.has_value();
    };
    int64_t a = 0;
    int64_t b = 0;
    int64_t c = 0;
    if (command == "create_topic") {
      c = 1;
      if (words.size() < 3 || words.size() > 4 || !number(2, &a) || a < 1 ||
          (words.size() == 4 && (!number(3, &c) || c < 1))) {
        return "error usage: create_topic TOPIC PARTITIONS [REPLICATION]";
      }
      return CreateTopic(words[1], static_cast<int>(a), static_cast<int>(c));
    }
    if (command == "push_request_errors") {
      if (words.size() != 4 || !number(1, &a) || !number(2, &b) || !number(3, &c) || c < 0) {
        return "error usage: push_request_errors API_KEY ERROR_CODE COUNT";
      }
      std::vector<rd_kafka_resp_err_t> errors(static_cast<size_t>(c),
                                              static_cast<rd_kafka_resp_err_t>(b));
      rd_kafka_mock_push_request_errors_array(cluster_, static_cast<int16_t>(a), errors.size(),
                                              errors.data());
      return "ok";
    }
    if (command == "clear_request_errors") {
      if (words.size() != 2 || !number(1, &a)) {
        return "error usage: clear_request_errors API_KEY";
      }
      rd_kafka_mock_clear_request_errors(cluster_, static_cast<int16_t>(a));
      return "ok";
    }
    if (command == "broker_down" || command == "broker_up") {
      if (words.size() != 2 || !number(1, &a)) {
        return "error usage: " + command + " BROKER_ID";
      }
      const rd_kafka_resp_err_t err =
          command == "broker_down"
              ? rd_kafka_mock_broker_set_down(cluster_, static_cast<int32_t>(a))
              : rd_kafka_mock_broker_set_up(cluster_, static_cast<int32_t>(a));
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return "error " + command + " " + words[1] + ": " + ErrorText(err);
      }
      return "ok";
    }
    if (command == "partition_leader") {
      if (words.size() != 4 || !number(2, &a) || !number(3, &b)) {
        return "error usage: partition_leader TOPIC PARTITION BROKER_ID";
      }
      const rd_kafka_resp_err_t err = rd_kafka_mock_partition_set_leader(
          cluster_, words[1].c_str(), static_cast<int32_t>(a), static_cast<int32_t>(b));
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return "error cannot move the leader of " + words[1] + "-" + words[2] + ": " +
               ErrorText(err);
      }
      return "ok";
    }
    if (command == "watermarks") {
      if (words.size() != 3 || !number(2, &a)) {
        return "error usage: watermarks TOPIC PARTITION";
      }
      int64_t low = 0;
      int64_t high = 0;
      std::string error;
      if (!Watermarks(words[1], static_cast<int32_t>(a), &low, &high, &error)) {
        return "error " + error;
      }
      return "ok " + std::to_string(low) + " " + std::to_string(high);
    }
    if (command == "delete_records_before") {
      if (words.size() != 4 || !number(2, &a) || !number(3, &b)) {
        return "error usage: delete_records_before TOPIC PARTITION OFFSET";
      }
      return DeleteRecordsBefore(words[1], static_cast<int32_t>(a), b);
    }
    if (command == "bootstrap") {
      return "ok " + bootstrap_;
    }
    return "error unknown command '" + command +
           "' (create_topic, push_request_errors, clear_request_errors, broker_down, broker_up, "
           "partition_leader, watermarks, delete_records_before, bootstrap, quit)";
  }

 private:
  // A producer on the cluster itself, made on first use: it reads watermarks and appends the
  // retention record.
  rd_kafka_t* Client(std::string* error) {
    if (!client_) {
      client_ = MakeHandle(RD_KAFKA_PRODUCER,
                           {{"bootstrap.servers", bootstrap_},
                            {"compression.codec", "none"},
                            {"message.max.bytes", "20000000"},
                            {"acks", "all"},
                            {"enable.idempotence", "false"},
                            {"allow.auto.create.topics", "false"},
                            {"linger.ms", "0"},
                            {"log_level", "1"}},
                           error);
    }
    return client_.get();
  }

  bool Watermarks(const std::string& topic, int32_t partition, int64_t* low, int64_t* high,
                  std::string* error) {
    rd_kafka_t* client = Client(error);
    if (client == nullptr) {
      return false;
    }
    const rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(client, topic.c_str(), partition, low, high, 10000);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      *error = "cannot read the watermarks of " + topic + "-" + std::to_string(partition) + ": " +
               ErrorText(err);
      return false;
    }
    return true;
  }

  // Retention, the only way librdkafka 2.0.2's mock cluster drops records (it has no
  // DeleteRecords): a partition's log holds at most 5 MiB, and appending a record set beyond
  // that evicts every earlier one, moving the log start to the end offset. So OFFSET must be the
  // partition's end (high watermark). One record of 5 MiB + 64 KiB appended at OFFSET evicts
  // everything before it; a small record appended at OFFSET + 1 evicts that one again; both lie
  // below the new log start. Consumers then find the partition empty with low watermark
  // OFFSET + 2, and the next record produced gets that offset.
  std::string DeleteRecordsBefore(const std::string& topic, int32_t partition, int64_t offset) {
    const std::string where = topic + "-" + std::to_string(partition);
    int64_t low = 0;
    int64_t high = 0;
    std::string error;
    if (!Watermarks(topic, partition, &low, &high, &error)) {
      return "error " + error;
    }
    if (offset != high) {
      return "error delete_records_before " + where + " " + std::to_string(offset) +
             ": the mock cluster only drops a partition's whole log, so OFFSET must be its end " +
             "offset " + std::to_string(high) + " (low watermark " + std::to_string(low) + ")";
    }
    if (low == high) {
      return "ok " + std::to_string(low);  // nothing stored below offset
    }
    constexpr size_t kRetentionBytes = (size_t{5} * 1024 * 1024) + (size_t{64} * 1024);
    for (const size_t size : {kRetentionBytes, size_t{1}}) {
      if (!Append(topic, partition, std::string(size, 'x'), &error)) {
        error.insert(0, "error cannot append the retention records to " + where + ": ");
        return error;
      }
    }
    if (!Watermarks(topic, partition, &low, &high, &error)) {
      return "error " + error;
    }
    if (low != offset + 2 || high != offset + 2) {
      return "error retention did not drop the records of " + where + " as expected: low " +
             "watermark " + std::to_string(low) + ", high " + std::to_string(high) +
             ", expected both " + std::to_string(offset + 2);
    }
    return "ok " + std::to_string(low);
  }

  // Produces one record with `value` to `topic` `partition` and waits for its delivery.
  bool Append(const std::string& topic, int32_t partition, const std::string& value,
              std::string* error) {
    rd_kafka_t* client = Client(error);
    if (client == nullptr) {
      return false;
    }
    const rd_kafka_resp_err_t produced =
        rd_kafka_producev(client, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (produced != RD_KAFKA_RESP_ERR_NO_ERROR) {
      *error = ErrorText(produced);
      return false;
    }
    const rd_kafka_resp_err_t flushed = rd_kafka_flush(client, 30000);
    if (flushed != RD_KAFKA_RESP_ERR_NO_ERROR) {
      *error = "not delivered: " + ErrorText(flushed);
      return false;
    }
    return true;
  }

  KafkaHandle owner_;
  rd_kafka_mock_cluster_t* cluster_;
  std::string bootstrap_;
  KafkaHandle client_;
};

void PrintBanner(const Options& options, const std::string& bootstrap) {
  std::fprintf(stderr,
               "kafka-test-broker: a TEST Kafka cluster (librdkafka's mock cluster, %d broker%s, "
               "data in memory only),\n"
               "  for tests and for trying tributary out. NOT FOR PRODUCTION: nothing is durable "
               "and transactions are not isolated.\n"
               "  bootstrap servers: %s\n",
               options.brokers, options.brokers == 1 ? "" : "s", bootstrap.c_str());
  if (options.stdin_ignore) {
    std::fprintf(stderr, "  running until SIGTERM or SIGINT (Ctrl-C)\n");
  } else {
    std::fprintf(stderr, "  commands on stdin, one a line; it exits when stdin closes\n");
  }
}

// Reads a line from stdin, waking up for signals; false at EOF or on a stop request.
bool ReadLine(std::string* buffer, std::string* line) {
  while (true) {
    const size_t newline = buffer->find('\n');
    if (newline != std::string::npos) {
      *line = buffer->substr(0, newline);
      buffer->erase(0, newline + 1);
      if (!line->empty() && line->back() == '\r') {
        line->pop_back();
      }
      return true;
    }
    if (stop_requested.load()) {
      return false;
    }
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    const int ready = poll(&fd, 1, 200);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    if (ready == 0) {
      continue;
    }
    char chunk[4096];
    const ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      if (!buffer->empty()) {
        *line = *buffer;
        buffer->clear();
        return true;
      }
      return false;
    }
    buffer->append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string error;
  if (!ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "kafka-test-broker: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  struct sigaction action {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // The mock cluster needs a client handle to live in; this one never connects anywhere.
  KafkaHandle owner = MakeHandle(RD_KAFKA_PRODUCER, {{"log_level", "3"}}, &error);
  if (!owner) {
    std::fprintf(stderr, "kafka-test-broker: %s\n", error.c_str());
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(owner.get(), options.brokers);
  if (cluster == nullptr) {
    std::fprintf(stderr, "kafka-test-broker: cannot start the mock cluster\n");
    return 1;
  }
  Broker broker(std::move(owner), cluster);
  for (const auto& [topic, partitions] : options.topics) {
    const std::string answer = broker.CreateTopic(topic, partitions, 1);
    if (answer != "ok") {
      std::fprintf(stderr, "kafka-test-broker: %s\n", answer.c_str());
      return 1;
    }
  }
  PrintBanner(options, broker.Bootstrap());
  if (!options.bootstrap_file.empty() &&
      !WriteFileAtomically(options.bootstrap_file, broker.Bootstrap() + "\n", &error)) {
    std::fprintf(stderr, "kafka-test-broker: %s\n", error.c_str());
    return 1;
  }
  std::printf("bootstrap %s\n", broker.Bootstrap().c_str());
  std::fflush(stdout);

  if (options.stdin_ignore) {
    while (!stop_requested.load()) {
      poll(nullptr, 0, 200);
    }
    return 0;
  }
  std::string buffer;
  std::string line;
  while (ReadLine(&buffer, &line)) {
    if (line == "quit") {
      std::puts("ok");
      std::fflush(stdout);
      break;
    }
    if (line.empty()) {
      continue;
    }
    const std::string answer = broker.Handle(line);
    std::printf("%s\n", answer.c_str());
    std::fflush(stdout);
  }
  return 0;
}

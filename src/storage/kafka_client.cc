// The Kafka consumer over librdkafka's C API (kafka_client.h), and the error and configuration
// adapters the producer (kafka_producer.cc) shares (kafka_error.h).
//
// A consumer here never subscribes: ReadRange assigns the one partition at the start offset,
// polls until the consumer's position reaches the end offset and unassigns. Partition EOF
// events are on, so a read_committed consumer whose last offsets are transaction markers or
// aborted records (which it never delivers) learns that it has reached the end; offsets below
// the low watermark surface as librdkafka's auto.offset.reset "error" policy and are reported
// as "offset out of range".

#include "storage/kafka_client.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>
#include <string_view>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/uuid.h"
#include "storage/kafka_error.h"

namespace tributary::storage {

namespace {

/// How long metadata and offset requests wait for the cluster, unless the configuration's
/// socket.timeout.ms is shorter.
constexpr std::chrono::milliseconds kKafkaRequestTimeout{30000};
/// How long one poll of ReadRange waits before it looks at the consumer's position again.
constexpr std::chrono::milliseconds kKafkaPollSlice{200};

/// Kafka consumer settings Spark refuses, with what to use instead (KafkaSourceProvider).
struct KafkaRefusedOption {
  std::string_view name;
  std::string_view instead;
};
constexpr std::array<KafkaRefusedOption, 5> kKafkaRefusedOptions{{
    {"auto.offset.reset",
     "set the source option 'startingOffsets' to 'earliest' or 'latest' to choose where to start"},
    {"enable.auto.commit", "the source tracks its offsets in the checkpoint and never commits"},
    {"key.deserializer", "keys are always read as bytes; cast or parse the key column"},
    {"value.deserializer", "values are always read as bytes; cast or parse the value column"},
    {"interceptor.classes", "interceptors are Java classes; librdkafka has none"},
}};

std::string KafkaErrorText(rd_kafka_resp_err_t error) {
  return fmt::format("{} ({})", rd_kafka_err2str(error), rd_kafka_err2name(error));
}

int KafkaTimeoutMs(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, 1 << 30));
}

struct KafkaTopicDeleter {
  void operator()(rd_kafka_topic_t* topic) const { rd_kafka_topic_destroy(topic); }
};
using KafkaTopicPtr = std::unique_ptr<rd_kafka_topic_t, KafkaTopicDeleter>;

/// Errors after which librdkafka's idea of a partition's leader is stale: a leader moved, or a
/// topic is not (yet) known to the broker asked.
bool KafkaIsLeaderError(rd_kafka_resp_err_t error) {
  switch (error) {
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
      return true;
    default:
      return false;
  }
}

/// The request timeout for `config`: kKafkaRequestTimeout or a shorter socket.timeout.ms.
std::chrono::milliseconds KafkaRequestTimeout(const KafkaClientConfig& config) {
  const auto found = config.find("socket.timeout.ms");
  int64_t ms = 0;
  if (found != config.end()) {
    const char* end = found->second.data() + found->second.size();
    const auto [stop, error] = std::from_chars(found->second.data(), end, ms);
    if (error == std::errc() && stop == end && ms > 0 && ms < kKafkaRequestTimeout.count()) {
      return std::chrono::milliseconds(ms);
    }
  }
  return kKafkaRequestTimeout;
}

class LibrdkafkaConsumer final : public KafkaConsumer {
 public:
  LibrdkafkaConsumer(KafkaHandlePtr handle, std::chrono::milliseconds request_timeout)
      : handle_(std::move(handle)), request_timeout_(request_timeout) {}

  ~LibrdkafkaConsumer() override {
    // Leaves no assignment behind; the handle's destructor then stops librdkafka's threads.
    (void)rd_kafka_consumer_close(handle_.get());
  }
  LibrdkafkaConsumer(const LibrdkafkaConsumer&) = delete;
  LibrdkafkaConsumer& operator=(const LibrdkafkaConsumer&) = delete;

  Result<std::vector<KafkaTopicPartition>> ListPartitions(
      const std::vector<std::string>& topics) override {
    return PartitionsWhere([&topics](const std::string& topic) {
      return std::find(topics.begin(), topics.end(), topic) != topics.end();
    });
  }

  Result<std::vector<KafkaTopicPartition>> ListPartitionsMatching(
      const std::string& pattern) override {
    std::regex regex;
    try {
      regex = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return Status::InvalidArgument(fmt::format(
          "subscribePattern '{}' is not a valid regular expression: {}", pattern, error.what()));
    }
    return PartitionsWhere([&regex](const std::string& topic) {
      // Kafka's internal topics (__consumer_offsets, __transaction_state) are never matched,
      // as Java's consumer excludes them (exclude.internal.topics).
      return !topic.starts_with("__") && std::regex_match(topic, regex);
    });
  }

  Result<std::pair<int64_t, int64_t>> WatermarkOffsets(const KafkaTopicPartition& tp) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto marks, WatermarkOffsetsOf({tp}));
    return marks.at(tp);
  }

  Result<std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>>> WatermarkOffsetsOf(
      const std::vector<KafkaTopicPartition>& partitions) override {
    // ListOffsets for the earliest (-2) and latest (-1) offsets, through
    // rd_kafka_offsets_for_times rather than rd_kafka_query_watermark_offsets: librdkafka before
    // 2.3.0 (Debian's is 2.0.2) never times the latter out while the partition leader's broker is
    // down (librdkafka #2588, fixed by #4460), whereas offsets_for_times waits at most its
    // timeout. It also asks for many partitions at once.
    std::map<KafkaTopicPartition, int64_t> earliest;
    std::map<KafkaTopicPartition, int64_t> latest;
    std::vector<std::string> names;
    names.reserve(partitions.size());
    for (const KafkaTopicPartition& tp : partitions) {
      earliest[tp] = RD_KAFKA_OFFSET_BEGINNING;
      latest[tp] = RD_KAFKA_OFFSET_END;
      names.push_back(tp.ToString());
    }
    const std::string what = fmt::format("querying the offsets of Kafka partition{} {}",
                                         names.size() == 1 ? "" : "s", fmt::join(names, ", "));
    TRIBUTARY_ASSIGN_OR_RAISE(const auto low, ListOffsets(earliest, what));
    TRIBUTARY_ASSIGN_OR_RAISE(const auto high, ListOffsets(latest, what));
    std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>> marks;
    for (const auto& [tp, offset] : low) {
      marks[tp] = {offset, high.at(tp)};
    }
    return marks;
  }

  Result<std::map<KafkaTopicPartition, int64_t>> OffsetsForTimes(
      const std::map<KafkaTopicPartition, int64_t>& timestamps_ms) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets,
                              ListOffsets(timestamps_ms, "looking up Kafka offsets by timestamp"));
    for (auto& [tp, offset] : offsets) {
      offset = offset < 0 ? -1 : offset;  // no record at or after the timestamp
    }
    return offsets;
  }

  Status ReadRange(const KafkaTopicPartition& tp, int64_t start, int64_t end,
                   std::chrono::milliseconds timeout,
                   const std::function<Status(const KafkaRecord&)>& on_record) override {
    if (start >= end) {
      return Status::OK();
    }
    KafkaPartitionListPtr list(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = start;
    TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(
        rd_kafka_assign(handle_.get(), list.get()),
        fmt::format("assigning Kafka partition {} at offset {}", tp.ToString(), start)));
    Status read = ReadAssigned(tp, start, end, timeout, on_record, *list);
    Status unassigned =
        KafkaErrorStatus(rd_kafka_assign(handle_.get(), nullptr), "unassigning the Kafka consumer");
    TRIBUTARY_RETURN_NOT_OK(read);
    return unassigned;
  }

 private:
  /// Kafka's ListOffsets: per partition, the offset of the first record at or after a timestamp
  /// (ms), or with -2 / -1 the earliest / latest offset; a negative offset where no record is at
  /// or after the timestamp. A leader error refreshes the topic's metadata, so that a retry asks
  /// the new leader. Waits at most the request timeout, the leader's broker down or not.
  Result<std::map<KafkaTopicPartition, int64_t>> ListOffsets(
      const std::map<KafkaTopicPartition, int64_t>& timestamps_ms, std::string_view what) {
    std::map<KafkaTopicPartition, int64_t> offsets;
    if (timestamps_ms.empty()) {
      return offsets;
    }
    KafkaPartitionListPtr list(
        rd_kafka_topic_partition_list_new(static_cast<int>(timestamps_ms.size())));
    for (const auto& [tp, timestamp] : timestamps_ms) {
      rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset =
          timestamp;
    }
    const rd_kafka_resp_err_t error =
        rd_kafka_offsets_for_times(handle_.get(), list.get(), KafkaTimeoutMs(request_timeout_));
    if (KafkaIsLeaderError(error)) {
      for (const auto& [tp, unused] : timestamps_ms) {
        RefreshMetadata(tp.topic);
      }
    }
    TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(error, what));
    for (int i = 0; i < list->cnt; ++i) {
      const rd_kafka_topic_partition_t& element = list->elems[i];
      KafkaTopicPartition tp{element.topic, element.partition};
      if (KafkaIsLeaderError(element.err)) {
        RefreshMetadata(tp.topic);
      }
      TRIBUTARY_RETURN_NOT_OK(
          KafkaErrorStatus(element.err, fmt::format("{}: partition {} at timestamp {}", what,
                                                    tp.ToString(), timestamps_ms.at(tp))));
      offsets[tp] = element.offset;
    }
    return offsets;
  }

  template <typename Wanted>
  Result<std::vector<KafkaTopicPartition>> PartitionsWhere(const Wanted& wanted) {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(handle_.get(), /*all_topics=*/1, nullptr,
                                                        &raw, KafkaTimeoutMs(request_timeout_));
    TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(error, "listing the Kafka cluster's topics"));
    KafkaMetadataPtr metadata(raw);
    std::vector<KafkaTopicPartition> partitions;
    for (int t = 0; t < metadata->topic_cnt; ++t) {
      const rd_kafka_metadata_topic_t& topic = metadata->topics[t];
      if (topic.err != RD_KAFKA_RESP_ERR_NO_ERROR || !wanted(std::string(topic.topic))) {
        continue;
      }
      for (int p = 0; p < topic.partition_cnt; ++p) {
        partitions.push_back({topic.topic, topic.partitions[p].id});
      }
    }
    std::sort(partitions.begin(), partitions.end());
    return partitions;
  }

  Status ReadAssigned(const KafkaTopicPartition& tp, int64_t start, int64_t end,
                      std::chrono::milliseconds timeout,
                      const std::function<Status(const KafkaRecord&)>& on_record,
                      rd_kafka_topic_partition_list_t& position) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int64_t next = start;
    KafkaRecord record;
    while (next < end) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Status::IOError(
            fmt::format("reading Kafka partition {} offsets [{}, {}): no record at offset {} "
                        "within {} ms (kafkaConsumer.pollTimeoutMs)",
                        tp.ToString(), start, end, next, timeout.count()),
            /*retryable=*/true);
      }
      KafkaMessagePtr message(
          rd_kafka_consumer_poll(handle_.get(), KafkaTimeoutMs(std::min(left, kKafkaPollSlice))));
      if (message == nullptr) {
        // Nothing delivered: a read_committed consumer may have skipped markers or aborted
        // records up to the end.
        if (rd_kafka_position(handle_.get(), &position) == RD_KAFKA_RESP_ERR_NO_ERROR &&
            position.elems[0].offset >= 0) {
          next = std::max(next, position.elems[0].offset);
        }
        continue;
      }
      if (message->rkt == nullptr || rd_kafka_topic_name(message->rkt) != tp.topic ||
          message->partition != tp.partition) {
        if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR && message->rkt == nullptr &&
            !KafkaErrorIsRetryable(message->err) &&
            message->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          return KafkaErrorStatus(message->err,
                                  fmt::format("reading Kafka partition {}", tp.ToString()));
        }
        continue;  // a client-wide transient error, or an event of an earlier assignment
      }
      if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        // The offset of an EOF event is where the fetcher stands: everything below was read or
        // is a gap.
        next = std::max(next, message->offset);
        continue;
      }
      if (message->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
          message->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
        return Status::IOError(
            fmt::format("offset out of range: Kafka partition {} has no record at offset {} "
                        "(records below its earliest offset were deleted): {}",
                        tp.ToString(), next, rd_kafka_message_errstr(message.get())));
      }
      if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (KafkaErrorIsRetryable(message->err)) {
          continue;  // librdkafka retries the fetch itself
        }
        return KafkaErrorStatus(
            message->err, fmt::format("reading Kafka partition {} at offset {}: {}", tp.ToString(),
                                      next, rd_kafka_message_errstr(message.get())));
      }
      if (message->offset < next) {
        continue;
      }
      if (message->offset >= end) {
        break;
      }
      FillRecord(*message, tp, record);
      TRIBUTARY_RETURN_NOT_OK(on_record(record));
      next = message->offset + 1;
    }
    return Status::OK();
  }

  static void FillRecord(const rd_kafka_message_t& message, const KafkaTopicPartition& tp,
                         KafkaRecord& record) {
    record.topic = tp.topic;
    record.partition = tp.partition;
    record.offset = message.offset;
    if (message.key != nullptr) {
      record.key.emplace(static_cast<const char*>(message.key), message.key_len);
    } else {
      record.key.reset();
    }
    if (message.payload != nullptr) {
      record.value.emplace(static_cast<const char*>(message.payload), message.len);
    } else {
      record.value.reset();
    }
    rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    record.timestamp_ms = rd_kafka_message_timestamp(&message, &type);
    switch (type) {
      case RD_KAFKA_TIMESTAMP_CREATE_TIME:
        record.timestamp_type = 0;
        break;
      case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME:
        record.timestamp_type = 1;
        break;
      default:
        record.timestamp_type = -1;
        break;
    }
    record.headers.clear();
    rd_kafka_headers_t* headers = nullptr;
    // The headers stay the message's; rd_kafka_message_headers only parses them.
    if (rd_kafka_message_headers(&message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const char* name = nullptr;
      const void* value = nullptr;
      size_t size = 0;
      for (size_t i = 0;
           rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
           ++i) {
        KafkaHeader header{name, std::nullopt};
        if (value != nullptr) {
          header.value.emplace(static_cast<const char*>(value), size);
        }
        record.headers.push_back(std::move(header));
      }
    }
  }

  /// Asks the cluster for `topic`'s metadata, which updates librdkafka's cache of partition
  /// leaders. Best effort: a failure shows in the next request.
  void RefreshMetadata(const std::string& topic) {
    KafkaTopicPtr handle(rd_kafka_topic_new(handle_.get(), topic.c_str(), nullptr));
    if (handle == nullptr) {
      return;
    }
    const rd_kafka_metadata_t* raw = nullptr;
    if (rd_kafka_metadata(handle_.get(), /*all_topics=*/0, handle.get(), &raw,
                          KafkaTimeoutMs(request_timeout_)) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      KafkaMetadataPtr metadata(raw);
    }
  }

  KafkaHandlePtr handle_;
  std::chrono::milliseconds request_timeout_;
};

/// A consumer handle for `config`, which must carry a group.id.
Result<KafkaHandlePtr> NewKafkaConsumerHandle(KafkaClientConfig config) {
  // Reads are driven by assign() and end offsets: no commits, no offset resets to hide lost
  // records, and an EOF event where the log (or, read_committed, its stable part) ends.
  config["enable.auto.commit"] = "false";
  config["enable.auto.offset.store"] = "false";
  config["auto.offset.reset"] = "error";
  config["enable.partition.eof"] = "true";
  // A read stops at an end offset the broker already has, so the fetch that librdkafka sends
  // ahead once the end is reached only long-polls an idle log, and holds the broker connection
  // for the next partition's first fetch meanwhile: with the default 500 ms that was half a
  // second per partition and batch (a 32-partition batch of 100k records took 17 s, 0.75 s with
  // 10 ms). kafka.fetch.wait.max.ms still overrides it.
  config.try_emplace("fetch.wait.max.ms", "10");
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaConfPtr conf, MakeKafkaConf(config, "Kafka consumer"));
  std::array<char, 512> reason{};
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), reason.data(), reason.size());
  if (handle == nullptr) {
    return Status::InvalidArgument(fmt::format("creating a Kafka consumer for {}: {}",
                                               config["bootstrap.servers"], reason.data()));
  }
  (void)conf.release();  // rd_kafka_new owns it now
  return KafkaHandlePtr(handle);
}

}  // namespace

std::string KafkaTopicPartition::ToString() const {
  return fmt::format("{}-{}", topic, partition);
}

bool KafkaErrorIsRetryable(rd_kafka_resp_err_t error) {
  switch (error) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED:
    case RD_KAFKA_RESP_ERR__RETRY:
    case RD_KAFKA_RESP_ERR__OUTDATED:
    case RD_KAFKA_RESP_ERR__PARTIAL:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
      return true;
    default:
      return false;
  }
}

Status KafkaErrorStatus(rd_kafka_resp_err_t error, std::string_view context) {
  if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::OK();
  }
  std::string message = fmt::format("{}: {}", context, KafkaErrorText(error));
  switch (error) {
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
      return Status::NotFound(std::move(message));
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__INVALID_TYPE:
    case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
      return Status::InvalidArgument(std::move(message));
    default:
      return Status::IOError(std::move(message), KafkaErrorIsRetryable(error));
  }
}

Status KafkaErrorStatus(const rd_kafka_error_t* error, std::string_view context) {
  if (error == nullptr) {
    return Status::OK();
  }
  const rd_kafka_resp_err_t code = rd_kafka_error_code(error);
  Status status = KafkaErrorStatus(code, context);
  std::string message =
      fmt::format("{}: {} ({})", context, rd_kafka_error_string(error), rd_kafka_err2name(code));
  if (rd_kafka_error_is_fatal(error)) {
    message += " [fatal: the client must be recreated]";
  }
  if (rd_kafka_error_txn_requires_abort(error)) {
    message += " [the transaction must be aborted]";
  }
  const bool retryable = rd_kafka_error_is_retriable(error) != 0 ||
                         (rd_kafka_error_is_fatal(error) == 0 && status.IsRetryable());
  return Status(status.Code(), std::move(message), retryable);
}

Result<KafkaConfPtr> MakeKafkaConf(const KafkaClientConfig& config, std::string_view client) {
  const auto servers = config.find("bootstrap.servers");
  if (servers == config.end() || servers->second.empty()) {
    return Status::InvalidArgument(fmt::format(
        "a {} needs the option 'kafka.bootstrap.servers' (host:port[,host:port...])", client));
  }
  KafkaConfPtr conf(rd_kafka_conf_new());
  std::array<char, 512> reason{};
  for (const auto& [name, value] : config) {
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), reason.data(), reason.size()) !=
        RD_KAFKA_CONF_OK) {
      return Status::InvalidArgument(fmt::format("{}: option 'kafka.{}' = '{}' is refused: {}",
                                                 client, name, value, reason.data()));
    }
  }
  return conf;
}

Result<KafkaClientConfig> KafkaClientConfigFromOptions(
    const std::map<std::string, std::string>& options) {
  constexpr std::string_view kPrefix = "kafka.";
  KafkaClientConfig config;
  for (const auto& [key, value] : options) {
    if (key.size() <= kPrefix.size() || !AsciiLower(key).starts_with(kPrefix)) {
      continue;
    }
    const std::string name = key.substr(kPrefix.size());
    for (const KafkaRefusedOption& refused : kKafkaRefusedOptions) {
      if (EqualsIgnoreAsciiCase(name, refused.name)) {
        return Status::InvalidArgument(
            fmt::format("Kafka option '{}' is not supported: {}", key, refused.instead));
      }
    }
    config[name] = value;
  }
  return config;
}

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Make(KafkaClientConfig config) {
  if (config.find("group.id") == config.end()) {
    config["group.id"] = "tributary-" + NewUuid();
  }
  const std::chrono::milliseconds request_timeout = KafkaRequestTimeout(config);
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaHandlePtr handle, NewKafkaConsumerHandle(std::move(config)));
  return std::unique_ptr<KafkaConsumer>(
      std::make_unique<LibrdkafkaConsumer>(std::move(handle), request_timeout));
}

Result<std::map<KafkaTopicPartition, int64_t>> KafkaCommittedOffsets(
    const KafkaClientConfig& config, const std::string& group_id,
    const std::vector<KafkaTopicPartition>& partitions) {
  std::map<KafkaTopicPartition, int64_t> committed;
  if (partitions.empty()) {
    return committed;
  }
  KafkaClientConfig group_config = config;
  group_config["group.id"] = group_id;
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaHandlePtr handle, NewKafkaConsumerHandle(group_config));
  KafkaPartitionListPtr list(
      rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const KafkaTopicPartition& tp : partitions) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  }
  const rd_kafka_resp_err_t error =
      rd_kafka_committed(handle.get(), list.get(), KafkaTimeoutMs(KafkaRequestTimeout(config)));
  Status status = KafkaErrorStatus(
      error, fmt::format("reading the offsets Kafka consumer group '{}' committed", group_id));
  for (int i = 0; status.ok() && i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& element = list->elems[i];
    status = KafkaErrorStatus(
        element.err, fmt::format("reading the offset consumer group '{}' committed for {}-{}",
                                 group_id, element.topic, element.partition));
    if (status.ok() && element.offset >= 0) {
      committed[{element.topic, element.partition}] = element.offset;
    }
  }
  (void)rd_kafka_consumer_close(handle.get());
  TRIBUTARY_RETURN_NOT_OK(status);
  return committed;
}

}  // namespace tributary::storage

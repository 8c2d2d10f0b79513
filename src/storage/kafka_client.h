// KafkaClient: the Kafka calls the Kafka source, the Kafka sink and the batch reader and writer
// make, over librdkafka (Debian's librdkafka-dev), with librdkafka's errors turned into Status.
//
// The source owns its offsets (Spark's design): consumers here never join a group and never
// commit; they are assigned one topic-partition range at a time and read it to its end offset.
// `kafka.*` options of a query are handed to librdkafka with the prefix stripped
// (KafkaClientConfig), so a user's bootstrap servers, security settings and client tuning carry
// over from Spark unchanged.

#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

struct KafkaTopicPartition {
  std::string topic;
  int32_t partition = 0;

  bool operator==(const KafkaTopicPartition& other) const {
    return partition == other.partition && topic == other.topic;
  }
  /// By topic, then partition number.
  bool operator<(const KafkaTopicPartition& other) const {
    return std::tie(topic, partition) < std::tie(other.topic, other.partition);
  }
  /// "topic-3", as Kafka's TopicPartition prints.
  std::string ToString() const;
};

/// A header of a record; a null value is a header without one.
struct KafkaHeader {
  std::string key;
  std::optional<std::string> value;
};

/// One record as read, or as to be produced (offset and timestamp_type ignored then; a
/// partition < 0 lets the partitioner choose; a timestamp_ms < 0 means now).
struct KafkaRecord {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp_ms = -1;
  /// 0 CreateTime, 1 LogAppendTime (Spark's timestampType column); -1 when unknown.
  int32_t timestamp_type = -1;
  std::vector<KafkaHeader> headers;
};

/// librdkafka configuration properties ("bootstrap.servers" -> "h:9092", ...).
using KafkaClientConfig = std::map<std::string, std::string>;

/// The `kafka.`-prefixed options of `options` with the prefix stripped (keys keep their case:
/// librdkafka's property names are lower case already). Spark's own consumer settings that
/// Spark refuses (kafka.auto.offset.reset, kafka.enable.auto.commit, kafka.key.deserializer,
/// kafka.value.deserializer, kafka.interceptor.classes) are InvalidArgument naming the option, as
/// Spark's KafkaSourceProvider does.
Result<KafkaClientConfig> KafkaClientConfigFromOptions(
    const std::map<std::string, std::string>& options);

/// Reads metadata and records. Thread-safety: one thread at a time.
class KafkaConsumer {
 public:
  /// A consumer with `config` (bootstrap.servers required: InvalidArgument otherwise). Never
  /// subscribes or commits; `group.id` is set to a unique one when `config` has none (librdkafka
  /// wants one for assign()).
  static Result<std::unique_ptr<KafkaConsumer>> Make(KafkaClientConfig config);
  virtual ~KafkaConsumer() = default;

  /// The partitions of every topic named in `topics`, or of every topic whose whole name
  /// matches the ECMAScript regular expression `pattern` (Spark's subscribePattern), sorted.
  /// Topics that do not exist are left out.
  virtual Result<std::vector<KafkaTopicPartition>> ListPartitions(
      const std::vector<std::string>& topics) = 0;
  virtual Result<std::vector<KafkaTopicPartition>> ListPartitionsMatching(
      const std::string& pattern) = 0;

  /// (low, high) watermarks: the earliest offset still stored and the offset the next record
  /// will get (for a read_committed consumer: the last stable offset).
  virtual Result<std::pair<int64_t, int64_t>> WatermarkOffsets(const KafkaTopicPartition& tp) = 0;
  /// The watermarks of several partitions, in two ListOffsets requests per leader broker rather
  /// than two per partition (Java's beginningOffsets and endOffsets).
  virtual Result<std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>>> WatermarkOffsetsOf(
      const std::vector<KafkaTopicPartition>& partitions) = 0;

  /// Per partition, the earliest offset whose record timestamp is >= the given milliseconds
  /// (Kafka's ListOffsets by timestamp); -1 when there is none (Spark then uses latest or
  /// fails, per startingOffsetsByTimestampStrategy).
  virtual Result<std::map<KafkaTopicPartition, int64_t>> OffsetsForTimes(
      const std::map<KafkaTopicPartition, int64_t>& timestamps_ms) = 0;

  /// Calls `on_record` for every record of `tp` with offset in [start, end), in offset order,
  /// waiting up to `timeout` for records that are not there yet. Offsets a read_committed
  /// consumer never sees (transaction markers, aborted records) are gaps, not errors: the read
  /// ends once the consumer's position reaches `end`. An OutOfRange status (IOError whose
  /// message starts "offset out of range") when `start` is below the partition's low watermark.
  virtual Status ReadRange(const KafkaTopicPartition& tp, int64_t start, int64_t end,
                           std::chrono::milliseconds timeout,
                           const std::function<Status(const KafkaRecord&)>& on_record) = 0;
};

/// Writes records; with `transactional.id` in its config, inside Kafka transactions.
/// Thread-safety: one thread at a time.
class KafkaProducer {
 public:
  /// A producer with `config` (bootstrap.servers required). With a transactional.id it runs
  /// InitTransactions, fencing any earlier producer with the same id.
  static Result<std::unique_ptr<KafkaProducer>> Make(KafkaClientConfig config);
  virtual ~KafkaProducer() = default;

  /// Queues `record`; errors of earlier deliveries are returned by Flush/CommitTransaction.
  virtual Status Produce(const KafkaRecord& record) = 0;
  /// Waits until every queued record is acknowledged; the first delivery error otherwise.
  virtual Status Flush(std::chrono::milliseconds timeout) = 0;

  virtual bool Transactional() const = 0;
  virtual Status BeginTransaction() = 0;
  /// Commits the open transaction, atomically with `group_offsets` committed for consumer group
  /// `group_id` (Kafka's SendOffsetsToTransaction): how the exactly-once sink records the batch
  /// id it has delivered. Empty offsets commit the records alone.
  virtual Status CommitTransaction(const std::string& group_id,
                                   const std::map<KafkaTopicPartition, int64_t>& group_offsets) = 0;
  virtual Status AbortTransaction() = 0;
};

/// Commits `offsets` for consumer group `group_id` outside any transaction, as a consumer that
/// never joins the group does (Kafka's OffsetCommit with generation -1). The exactly-once sink
/// repeats its transactional offsets with it (see streaming/kafka_sink.h).
Status KafkaCommitOffsets(const KafkaClientConfig& config, const std::string& group_id,
                          const std::map<KafkaTopicPartition, int64_t>& offsets);

/// The offsets consumer group `group_id` has committed for `partitions` (absent: none
/// committed). What the exactly-once sink reads back on a restart.
Result<std::map<KafkaTopicPartition, int64_t>> KafkaCommittedOffsets(
    const KafkaClientConfig& config, const std::string& group_id,
    const std::vector<KafkaTopicPartition>& partitions);

}  // namespace tributary::storage

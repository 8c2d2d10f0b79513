// Kafka as a streaming and batch source, with Spark's options, schema and offsets
// (../shared/notes/streaming-semantics.md §3.1; Spark's structured-streaming-kafka-integration).
//
// Offsets are Spark's KafkaSourceOffset JSON, so a checkpoint's `offsets/N` reads the same:
//   offset    = "{" [ topic-map *( "," topic-map ) ] "}"
//   topic-map = json-string ":" "{" entry *( "," entry ) "}"
//   entry     = partition ":" next-offset
//   partition = json-string of a decimal partition number
// next-offset is the offset of the next record to read, so the batch (start, end] of the engine
// reads offsets [start[tp], end[tp]) of each partition. In startingOffsets/endingOffsets JSON,
// -2 stands for earliest and -1 for latest. Topics and partitions print sorted.
//
// The source never commits to Kafka and never relies on a consumer group (Spark's design): its
// first LatestOffset pins the starting offsets in `<metadata_dir>/0` (Spark's initial offsets
// file), so a query that crashes before its first batch restarts from the same place.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "storage/kafka_client.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// Per partition, the next offset to read.
using KafkaPartitionOffsets = std::map<storage::KafkaTopicPartition, int64_t>;

/// The offset JSON above; InvalidArgument quoting the text and saying what is wrong.
Result<KafkaPartitionOffsets> ParseKafkaOffsets(const std::string& text);
std::string KafkaOffsetsToJson(const KafkaPartitionOffsets& offsets);

/// Spark's Kafka rows: key binary, value binary, topic string, partition int, offset bigint,
/// timestamp timestamp, timestampType int, and with includeHeaders
/// headers array<struct<key: string, value: binary>>.
columnar::SchemaPtr KafkaSchema(bool include_headers);

/// The Kafka source's options, Spark's names (compared ignoring case, as Spark's are).
struct KafkaSourceOptions {
  storage::KafkaClientConfig client;  // kafka.* with the prefix stripped
  /// Exactly one of subscribe (topics), subscribePattern, assign.
  std::vector<std::string> subscribe;
  std::optional<std::string> subscribe_pattern;
  std::optional<KafkaPartitionOffsets> assign;  // offsets unused (0)
  /// startingOffsets: "earliest", "latest" or JSON. Default: latest for streams, earliest for
  /// batch reads.
  std::optional<std::string> starting_offsets;
  /// startingTimestamp (ms, every partition) / startingOffsetsByTimestamp (JSON of ms).
  std::optional<int64_t> starting_timestamp;
  std::optional<std::string> starting_offsets_by_timestamp;
  /// startingOffsetsByTimestampStrategy: "error" (default) or "latest".
  std::string starting_offsets_by_timestamp_strategy = "error";
  /// Batch reads only: endingOffsets ("latest" default or JSON), endingTimestamp,
  /// endingOffsetsByTimestamp.
  std::optional<std::string> ending_offsets;
  std::optional<int64_t> ending_timestamp;
  std::optional<std::string> ending_offsets_by_timestamp;
  std::optional<int64_t> max_offsets_per_trigger;
  std::optional<int64_t> min_offsets_per_trigger;
  /// maxTriggerDelay (a time string; default 15m) with minOffsetsPerTrigger.
  int64_t max_trigger_delay_ms = int64_t{15} * 60 * 1000;
  bool fail_on_data_loss = true;
  bool include_headers = false;
  /// groupIdPrefix (default "spark-kafka-source") unless kafka.group.id is given.
  std::string group_id_prefix = "spark-kafka-source";
  /// kafkaConsumer.pollTimeoutMs: how long a read waits for records below the end offset.
  int64_t poll_timeout_ms = 120000;
  /// fetchOffset.numRetries / fetchOffset.retryIntervalMs: a transient failure of an offset
  /// lookup (a leader moving, a broker restarting) is retried at least this often, backing off
  /// from this interval up to 1 s, until kafkaConsumer.pollTimeoutMs has passed.
  int64_t fetch_offset_num_retries = 3;
  int64_t fetch_offset_retry_interval_ms = 10;
  /// processCount / processIndex (tributary's; scale-out): several processes run the same query,
  /// each with its own checkpoint and its processIndex in [0, processCount), and each reads only
  /// the partitions KafkaPartitionOwner gives it. The checkpoint records its share and refuses
  /// another. Default: the session settings tributary.kafka.processCount and
  /// tributary.kafka.processIndex (so one pipeline definition runs as N processes, each started
  /// with its own settings), else one process reads every partition.
  int32_t process_count = 1;
  int32_t process_index = 0;
  bool process_share_given = false;  // processCount or processIndex among the options
  /// minPartitions and maxRecordsPerPartition only split Spark's tasks: validated and accepted,
  /// without effect on the rows. kafka.isolation.level defaults to read_uncommitted, as Spark's
  /// (Java's) consumer; set it to read_committed to skip aborted transactions.

  /// From a reader's options; InvalidArgument naming the option for a bad or missing value
  /// (no kafka.bootstrap.servers; none or several of subscribe/subscribePattern/assign).
  static Result<KafkaSourceOptions> FromMap(const std::map<std::string, std::string>& options,
                                            bool streaming);
};

/// The session settings that give processCount / processIndex when a query's options do not.
inline constexpr std::string_view kKafkaProcessCountKey = "tributary.kafka.processCount";
inline constexpr std::string_view kKafkaProcessIndexKey = "tributary.kafka.processIndex";
/// A pipeline scaled out over a local checkpoint root: how often a process looks for processes
/// that are away (their shares are taken over) or back (handed back). A time string; default
/// 1 second.
inline constexpr std::string_view kKafkaTakeoverIntervalKey = "tributary.kafka.takeoverInterval";

/// A process's share of a Kafka subscription: it is process `index` of `count`.
struct KafkaProcessShareOf {
  int32_t count = 1;
  int32_t index = 0;
};

/// The share the session settings kKafkaProcessCountKey / kKafkaProcessIndexKey give (count 1
/// when unset); InvalidArgument naming the setting for a bad value, or a count without an index.
Result<KafkaProcessShareOf> KafkaProcessShareFromSettings(
    const std::map<std::string, std::string>& settings);

/// Which of `process_count` processes reads partition `tp`: Flink's rule for Kafka partitions
/// (KafkaTopicPartitionAssigner): start = ((javaHashCode(topic) * 31) & 0x7FFFFFFF) mod count,
/// owner = (start + partition) mod count. Each topic's partitions go round robin, so processes
/// get an equal share (within one) of every topic, and a new partition has an owner at once.
int32_t KafkaPartitionOwner(const storage::KafkaTopicPartition& tp, int32_t process_count);

/// `ReadStream().Format("kafka")` / SQL `STREAM read_kafka(...)`.
///
/// Thread-safety: immutable after construction.
class KafkaSourceDefinition final : public SourceDefinition {
 public:
  static Result<std::shared_ptr<const KafkaSourceDefinition>> Make(
      const std::map<std::string, std::string>& options);

  columnar::SchemaPtr Schema() const override { return schema_; }
  /// "KafkaV2[Subscribe[events]]", as Spark's progress names it.
  std::string Description() const override;
  /// "kafka:" and the subscription (the topics, pattern or assignment).
  std::string Identity() const override;
  /// Unless processCount / processIndex are among the options.
  bool ReadsSessionShare() const override { return !options_.process_share_given; }
  /// The opened source reports Spark's Kafka metrics per progress record:
  /// minOffsetsBehindLatest, maxOffsetsBehindLatest, avgOffsetsBehindLatest.
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

  const KafkaSourceOptions& Options() const { return options_; }

 private:
  explicit KafkaSourceDefinition(KafkaSourceOptions options);

  KafkaSourceOptions options_;
  columnar::SchemaPtr schema_;
};

/// `Read().Format("kafka")` / SQL `read_kafka(...)` without STREAM: the records between
/// startingOffsets (default earliest) and endingOffsets (default latest) as they are now, in
/// KafkaSchema rows. failOnDataLoss as for streams.
Result<std::vector<columnar::RecordBatchPtr>> ReadKafkaBatch(
    const std::map<std::string, std::string>& options);

}  // namespace tributary::streaming

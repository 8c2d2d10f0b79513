// The Kafka source (Spark's KafkaMicroBatchStream and KafkaRelation semantics, notes §3.1).
//
// Its metadata directory `<checkpoint>/sources/<n>/` holds one file, written put-if-absent by
// the first LatestOffset (Spark's initial offsets log entry 0):
//
//   0 := "v1" "\n" offset
//
// where `offset` is the KafkaSourceOffset JSON of kafka_source.h: the resolved starting
// offsets (no -1/-2 left), so a restart before the first batch starts where the query did.
//
// A batch (start, end] reads, per partition of `end`, the records [start[tp], end[tp]). A
// partition in `end` but not in `start` appeared after the start: it is read from its earliest
// offset. Data loss (Spark's reportDataLoss) is any of: a partition of `start` missing from
// `end` (topic deleted), an end below its start (topic recreated), a new partition whose
// earliest offset is not 0, offsets below a partition's earliest (deleted by retention), or a
// partition that now ends below the batch's end. With failOnDataLoss it fails the batch naming
// the topic, partition and lost range; without, it is written to stderr and the batch reads
// what is left.

#include "streaming/kafka_source.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/column_builder.h"
#include "common/ascii.h"
#include "common/uuid.h"
#include "formats/reader_options.h"
#include "storage/path.h"
#include "streaming/metadata_log.h"
#include "streaming/source_options.h"
#include "streaming/time_string.h"

namespace tributary::streaming {

namespace {

using storage::KafkaTopicPartition;

/// Rows per record batch of a GetBatch or batch read.
constexpr int64_t kKafkaRowsPerBatch = int64_t{64} * 1024;
/// startingOffsets/endingOffsets JSON's stand-ins.
constexpr int64_t kKafkaEarliest = -2;
constexpr int64_t kKafkaLatest = -1;

constexpr std::string_view kKafkaOffsetsExample = R"({"topicA":{"0":23,"1":-1},"topicB":{"0":-2}})";

/// Spark's Kafka source options besides kafka.* (KafkaSourceProvider).
SourceOptionKeys KafkaSourceOptionKeys() {
  return {{"subscribe",
           "subscribePattern",
           "assign",
           "startingOffsets",
           "startingTimestamp",
           "startingOffsetsByTimestamp",
           "startingOffsetsByTimestampStrategy",
           "endingOffsets",
           "endingTimestamp",
           "endingOffsetsByTimestamp",
           "failOnDataLoss",
           "maxOffsetsPerTrigger",
           "minOffsetsPerTrigger",
           "maxTriggerDelay",
           "includeHeaders",
           "groupIdPrefix",
           "kafkaConsumer.pollTimeoutMs",
           "fetchOffset.numRetries",
           "fetchOffset.retryIntervalMs",
           "minPartitions",
           "maxRecordsPerPartition",
           "processCount",
           "processIndex"},
          {},
          /*allow_cloud_files_prefix=*/false};
}

Result<nlohmann::json> KafkaParseJson(const std::string& text, std::string_view what) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::InvalidArgument(
        fmt::format("{} '{}' is not JSON; expected e.g. {}", what, text, kKafkaOffsetsExample));
  }
  return doc;
}

/// A decimal partition number (a JSON object key).
Result<int32_t> KafkaPartitionNumber(const std::string& key, std::string_view what,
                                     const std::string& text) {
  int32_t partition = 0;
  const char* end = key.data() + key.size();
  const auto [stop, error] = std::from_chars(key.data(), end, partition);
  if (key.empty() || error != std::errc() || stop != end || partition < 0) {
    return Status::InvalidArgument(
        fmt::format("{} '{}': partition '{}' is not a partition number; expected e.g. {}", what,
                    text, key, kKafkaOffsetsExample));
  }
  return partition;
}

/// {"topic":{"0":n,...},...} with integer n (offsets or timestamps).
Result<KafkaPartitionOffsets> KafkaParsePartitionNumbers(const std::string& text,
                                                         std::string_view what) {
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json doc, KafkaParseJson(text, what));
  if (!doc.is_object()) {
    return Status::InvalidArgument(fmt::format("{} '{}' is not a JSON object; expected e.g. {}",
                                               what, text, kKafkaOffsetsExample));
  }
  KafkaPartitionOffsets out;
  for (const auto& [topic, partitions] : doc.items()) {
    if (!partitions.is_object()) {
      return Status::InvalidArgument(
          fmt::format("{} '{}': topic '{}' maps to {} instead of an object of partitions; "
                      "expected e.g. {}",
                      what, text, topic, partitions.dump(), kKafkaOffsetsExample));
    }
    for (const auto& [key, value] : partitions.items()) {
      TRIBUTARY_ASSIGN_OR_RAISE(const int32_t partition, KafkaPartitionNumber(key, what, text));
      if (!value.is_number_integer()) {
        return Status::InvalidArgument(
            fmt::format("{} '{}': partition {} of topic '{}' has {} instead of an integer", what,
                        text, partition, topic, value.dump()));
      }
      out[{topic, partition}] = value.get<int64_t>();
    }
  }
  return out;
}

/// Spark's assign JSON: {"topicA":[0,1],"topicB":[2,4]}.
Result<KafkaPartitionOffsets> KafkaParseAssign(const std::string& text) {
  constexpr std::string_view kExample = R"({"topicA":[0,1],"topicB":[2,4]})";
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json doc, KafkaParseJson(text, "assign"));
  KafkaPartitionOffsets out;
  bool valid = doc.is_object();
  for (auto it = doc.begin(); valid && it != doc.end(); ++it) {
    valid = it.value().is_array();
    for (const nlohmann::json& partition : it.value()) {
      valid = valid && partition.is_number_integer() && partition.get<int64_t>() >= 0 &&
              partition.get<int64_t>() <= INT32_MAX;
      if (valid) {
        out[{it.key(), static_cast<int32_t>(partition.get<int64_t>())}] = 0;
      }
    }
  }
  if (!valid) {
    return Status::InvalidArgument(fmt::format(
        "assign '{}' is not a topic -> partition numbers map; expected e.g. {}", text, kExample));
  }
  if (out.empty()) {
    return Status::InvalidArgument(fmt::format("assign '{}' names no partition", text));
  }
  return out;
}

Result<int64_t> KafkaIntegerOption(const std::string& key, const std::string& value,
                                   int64_t minimum) {
  int64_t number = 0;
  const std::string_view text = TrimBlanks(value);
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, number);
  if (text.empty() || error != std::errc() || stop != end) {
    return Status::InvalidArgument(
        fmt::format("Invalid value '{}'. The option '{}' must be an integer", value, key));
  }
  if (number < minimum) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value '{}'. The option '{}' must be at least {}", value, key, minimum));
  }
  return number;
}

/// "earliest", "latest" or offsets JSON with -2/-1 stand-ins; `latest_allowed`/
/// `earliest_allowed` are false where Spark refuses them (batch start, batch end).
Status KafkaCheckOffsetsOption(const std::string& key, const std::string& value,
                               bool earliest_allowed, bool latest_allowed,
                               std::string_view query_kind) {
  const std::string lowered = AsciiLower(TrimBlanks(value));
  if (lowered == "earliest" || lowered == "latest") {
    if ((lowered == "earliest" && !earliest_allowed) || (lowered == "latest" && !latest_allowed)) {
      return Status::InvalidArgument(fmt::format("option '{}' cannot be {} for {} queries on Kafka",
                                                 key, lowered, query_kind));
    }
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaPartitionOffsets offsets, KafkaParsePartitionNumbers(value, key));
  for (const auto& [tp, offset] : offsets) {
    if (offset < kKafkaEarliest) {
      return Status::InvalidArgument(fmt::format(
          "option '{}': offset {} of {} is invalid (an offset, -2 for earliest or -1 for latest)",
          key, offset, tp.ToString()));
    }
    if ((offset == kKafkaEarliest && !earliest_allowed) ||
        (offset == kKafkaLatest && !latest_allowed)) {
      return Status::InvalidArgument(
          fmt::format("option '{}': {} of {} cannot be {} for {} queries on Kafka", key, offset,
                      tp.ToString(), offset == kKafkaEarliest ? "earliest" : "latest", query_kind));
    }
  }
  return Status::OK();
}

/// Where a read starts or ends: Spark's option precedence, timestamp forms first.
struct KafkaOffsetSpec {
  std::string option;  // the option it came from, for messages
  std::optional<int64_t> all_timestamp_ms;
  std::optional<KafkaPartitionOffsets> timestamps_ms;
  std::optional<KafkaPartitionOffsets> offsets;  // JSON form
  bool earliest = false;                         // else latest when nothing else is set
};

/// The spec of one side, `side` "starting" or "ending": <side>Timestamp, else
/// <side>OffsetsByTimestamp, else <side>Offsets (`fallback` when absent).
Result<KafkaOffsetSpec> KafkaSpecOf(std::string_view side, const std::optional<int64_t>& timestamp,
                                    const std::optional<std::string>& by_timestamp,
                                    const std::optional<std::string>& offsets,
                                    std::string_view fallback) {
  KafkaOffsetSpec spec;
  if (timestamp.has_value()) {
    spec.option = fmt::format("{}Timestamp", side);
    spec.all_timestamp_ms = timestamp;
  } else if (by_timestamp.has_value()) {
    spec.option = fmt::format("{}OffsetsByTimestamp", side);
    TRIBUTARY_ASSIGN_OR_RAISE(spec.timestamps_ms,
                              KafkaParsePartitionNumbers(*by_timestamp, spec.option));
  } else {
    spec.option = fmt::format("{}Offsets", side);
    const std::string text = offsets.value_or(std::string(fallback));
    const std::string lowered = AsciiLower(TrimBlanks(text));
    if (lowered == "earliest" || lowered == "latest") {
      spec.earliest = lowered == "earliest";
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(spec.offsets, KafkaParsePartitionNumbers(text, spec.option));
    }
  }
  return spec;
}

Result<KafkaOffsetSpec> KafkaStartSpec(const KafkaSourceOptions& options, bool streaming) {
  return KafkaSpecOf("starting", options.starting_timestamp, options.starting_offsets_by_timestamp,
                     options.starting_offsets, streaming ? "latest" : "earliest");
}

Result<KafkaOffsetSpec> KafkaEndSpec(const KafkaSourceOptions& options) {
  return KafkaSpecOf("ending", options.ending_timestamp, options.ending_offsets_by_timestamp,
                     options.ending_offsets, "latest");
}

std::string KafkaPartitionList(const std::vector<KafkaTopicPartition>& partitions) {
  std::vector<std::string> names;
  names.reserve(partitions.size());
  for (const KafkaTopicPartition& tp : partitions) {
    names.push_back(tp.ToString());
  }
  return fmt::format("[{}]", fmt::join(names, ", "));
}

std::string KafkaJavaDouble(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eE") == std::string::npos && std::isfinite(value)) {
    text += ".0";
  }
  return text;
}

}  // namespace

int32_t KafkaPartitionOwner(const storage::KafkaTopicPartition& tp, int32_t process_count) {
  // Java's String.hashCode over the topic name (Kafka topic names are ASCII, so its UTF-16
  // units are the bytes), then Flink's KafkaTopicPartitionAssigner: the topic's partitions go
  // round robin from a start that depends on the topic, so several topics spread evenly.
  uint32_t hash = 0;
  for (const char c : tp.topic) {
    hash = hash * 31 + static_cast<uint32_t>(static_cast<unsigned char>(c));
  }
  const auto start =
      static_cast<int32_t>(((hash * 31) & 0x7FFFFFFFU) % static_cast<uint32_t>(process_count));
  return (start + tp.partition) % process_count;
}

namespace {

/// Reads offsets and records for the source and the batch reader: the consumer with Spark's
/// retries of offset lookups, the subscription, and data loss reported per failOnDataLoss.
class KafkaReader {
 public:
  KafkaReader(const KafkaSourceOptions& options, std::unique_ptr<storage::KafkaConsumer> consumer,
              std::string description, columnar::SchemaPtr schema, columnar::MemoryPool* pool)
      : options_(options),
        consumer_(std::move(consumer)),
        description_(std::move(description)),
        schema_(std::move(schema)),
        pool_(pool) {}

  /// The partitions of the subscription now that are this process's share, sorted.
  Result<std::vector<KafkaTopicPartition>> Partitions() {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<KafkaTopicPartition> partitions, SubscribedPartitions());
    if (options_.process_count > 1) {
      std::erase_if(partitions, [this](const KafkaTopicPartition& tp) {
        return KafkaPartitionOwner(tp, options_.process_count) != options_.process_index;
      });
    }
    return partitions;
  }

  /// The partitions of the subscription now, sorted.
  Result<std::vector<KafkaTopicPartition>> SubscribedPartitions() {
    if (options_.assign.has_value()) {
      std::vector<KafkaTopicPartition> partitions;
      for (const auto& [tp, unused] : *options_.assign) {
        partitions.push_back(tp);
      }
      return partitions;
    }
    if (options_.subscribe_pattern.has_value()) {
      return WithRetries(
          [&] { return consumer_->ListPartitionsMatching(*options_.subscribe_pattern); });
    }
    return WithRetries([&] { return consumer_->ListPartitions(options_.subscribe); });
  }

  Result<std::pair<int64_t, int64_t>> Watermarks(const KafkaTopicPartition& tp) {
    return WithRetries([&] { return consumer_->WatermarkOffsets(tp); });
  }

  Result<std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>>> WatermarksOf(
      const std::vector<KafkaTopicPartition>& partitions) {
    if (partitions.empty()) {
      return std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>>();
    }
    return WithRetries([&] { return consumer_->WatermarkOffsetsOf(partitions); });
  }

  /// Per partition, its earliest (low watermark) or latest (high watermark) offset.
  Result<KafkaPartitionOffsets> Bounds(const std::vector<KafkaTopicPartition>& partitions,
                                       bool earliest) {
    TRIBUTARY_ASSIGN_OR_RAISE(const auto marks, WatermarksOf(partitions));
    KafkaPartitionOffsets out;
    for (const auto& [tp, mark] : marks) {
      out[tp] = earliest ? mark.first : mark.second;
    }
    return out;
  }

  /// `spec` resolved over `partitions` to offsets (no -1/-2 left). For a timestamp without a
  /// record at or after it, startingOffsetsByTimestampStrategy "latest" (or an end) takes the
  /// latest offset; "error" fails.
  Result<KafkaPartitionOffsets> Resolve(const KafkaOffsetSpec& spec,
                                        const std::vector<KafkaTopicPartition>& partitions,
                                        bool is_start) {
    if (spec.offsets.has_value() || spec.timestamps_ms.has_value()) {
      const KafkaPartitionOffsets& given = spec.offsets ? *spec.offsets : *spec.timestamps_ms;
      std::vector<KafkaTopicPartition> named;
      for (const auto& [tp, unused] : given) {
        named.push_back(tp);
      }
      if (named != partitions) {
        return Status::InvalidArgument(fmt::format(
            "{}: when '{}' gives offsets per partition it must give every partition of the "
            "subscription (-1 for latest, -2 for earliest). Given: {}; subscribed: {}",
            description_, spec.option, KafkaPartitionList(named), KafkaPartitionList(partitions)));
      }
    }
    if (spec.offsets.has_value()) {
      KafkaPartitionOffsets out;
      for (const auto& [tp, offset] : *spec.offsets) {
        if (offset == kKafkaEarliest || offset == kKafkaLatest) {
          TRIBUTARY_ASSIGN_OR_RAISE(const auto marks, Watermarks(tp));
          out[tp] = offset == kKafkaEarliest ? marks.first : marks.second;
        } else {
          out[tp] = offset;
        }
      }
      return out;
    }
    if (spec.timestamps_ms.has_value() || spec.all_timestamp_ms.has_value()) {
      KafkaPartitionOffsets timestamps;
      for (const KafkaTopicPartition& tp : partitions) {
        timestamps[tp] =
            spec.timestamps_ms ? spec.timestamps_ms->at(tp) : spec.all_timestamp_ms.value();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(KafkaPartitionOffsets offsets, WithRetries([&] {
                                  return consumer_->OffsetsForTimes(timestamps);
                                }));
      for (auto& [tp, offset] : offsets) {
        if (offset >= 0) {
          continue;
        }
        if (is_start && options_.starting_offsets_by_timestamp_strategy == "error") {
          return Status::InvalidArgument(fmt::format(
              "{}: no offset of {} has a record timestamp at or after {} ms ({}); set "
              "startingOffsetsByTimestampStrategy to 'latest' to start at the latest offset",
              description_, tp.ToString(), timestamps.at(tp), spec.option));
        }
        TRIBUTARY_ASSIGN_OR_RAISE(const auto marks, Watermarks(tp));
        offset = marks.second;
      }
      return offsets;
    }
    return Bounds(partitions, spec.earliest);
  }

  /// Spark's reportDataLoss: an error with failOnDataLoss, else a warning on stderr.
  Status DataLoss(const std::string& what) const {
    if (options_.fail_on_data_loss) {
      return Status::NotFound(fmt::format(
          "{}: {}. Some data may have been lost because it is not available in Kafka any more: "
          "Kafka's retention deleted it, or the topic was deleted (or recreated) before the query "
          "read it. Set the source option failOnDataLoss to false to skip it and go on",
          description_, what));
    }
    std::fputs(fmt::format("tributary: WARN {}: {}. Some data may have been lost (failOnDataLoss "
                           "is false: skipped)\n",
                           description_, what)
                   .c_str(),
               stderr);
    return Status::OK();
  }

  /// The rows of offsets [from[tp], until[tp]) of every partition of `until` (a partition
  /// missing from `from` starts at its earliest offset), with data loss as the file comment
  /// says. The record batches go to `out`.
  Status ReadRanges(const KafkaPartitionOffsets& from, const KafkaPartitionOffsets& until,
                    std::vector<columnar::RecordBatchPtr>& out) {
    std::vector<KafkaTopicPartition> gone;
    for (const auto& [tp, unused] : from) {
      if (until.find(tp) == until.end()) {
        gone.push_back(tp);
      }
    }
    if (!gone.empty()) {
      TRIBUTARY_RETURN_NOT_OK(DataLoss(fmt::format(
          "partitions {} are gone (their topic was deleted?)", KafkaPartitionList(gone))));
    }
    // Every partition's watermarks in one round. Unreachable brokers fail the batch here, once
    // (the lookup was retried until kafkaConsumer.pollTimeoutMs); another error (a partition
    // gone meanwhile) sends each partition to be asked alone below, where its error is reported
    // as that partition's data loss.
    std::map<KafkaTopicPartition, std::pair<int64_t, int64_t>> known;
    {
      std::vector<KafkaTopicPartition> partitions;
      partitions.reserve(until.size());
      for (const auto& [tp, unused] : until) {
        partitions.push_back(tp);
      }
      auto marks = WatermarksOf(partitions);
      if (marks.ok()) {
        known = std::move(*marks);
      } else if (marks.status().IsRetryable()) {
        return marks.status().WithContext(description_);
      }
    }
    Rows rows(schema_, pool_);
    for (const auto& [tp, end] : until) {
      const auto known_marks = known.find(tp);
      std::optional<std::pair<int64_t, int64_t>> marks_now;
      if (known_marks != known.end()) {
        marks_now = known_marks->second;
      }
      int64_t start = 0;
      if (const auto found = from.find(tp); found != from.end()) {
        start = found->second;
      } else {
        auto marks = marks_now.has_value() ? Result<std::pair<int64_t, int64_t>>(*marks_now)
                                           : Watermarks(tp);
        if (!marks.ok()) {
          TRIBUTARY_RETURN_NOT_OK(
              DataLoss(fmt::format("cannot find the earliest offset of new partition {}: {}",
                                   tp.ToString(), marks.status().Message())));
          continue;
        }
        start = marks->first;
        if (start != 0) {
          TRIBUTARY_RETURN_NOT_OK(DataLoss(fmt::format(
              "added partition {} starts at offset {} instead of 0: offsets [0, {}) are lost",
              tp.ToString(), start, start)));
        }
      }
      if (end < start) {
        TRIBUTARY_RETURN_NOT_OK(DataLoss(fmt::format(
            "the offset of partition {} went back from {} to {} (the topic was recreated?)",
            tp.ToString(), start, end)));
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(ReadPartition(tp, start, end, marks_now, rows, out));
    }
    return rows.Flush(out);
  }

 private:
  /// Builders of the schema's columns; flushed into a record batch every kKafkaRowsPerBatch.
  class Rows {
   public:
    Rows(columnar::SchemaPtr schema, columnar::MemoryPool* pool) : schema_(std::move(schema)) {
      for (int i = 0; i < schema_->NumFields(); ++i) {
        builders_.push_back(
            std::make_unique<columnar::ColumnBuilder>(schema_->FieldAt(i).Type(), pool));
      }
    }

    Status Append(const storage::KafkaRecord& record, std::vector<columnar::RecordBatchPtr>& out) {
      AppendOptionalBytes(*builders_[0], record.key);
      AppendOptionalBytes(*builders_[1], record.value);
      builders_[2]->AppendBytes(record.topic);
      builders_[3]->AppendInt(record.partition);
      builders_[4]->AppendInt(record.offset);
      builders_[5]->AppendInt(record.timestamp_ms * 1000);
      builders_[6]->AppendInt(record.timestamp_type);
      if (builders_.size() > 7) {
        columnar::ColumnBuilder& headers = *builders_[7];
        columnar::ColumnBuilder& entry = headers.Child(0);
        for (const storage::KafkaHeader& header : record.headers) {
          entry.Child(0).AppendBytes(header.key);
          AppendOptionalBytes(entry.Child(1), header.value);
          entry.AppendStruct();
        }
        headers.AppendArray();
      }
      if (++rows_ == kKafkaRowsPerBatch) {
        return Flush(out);
      }
      return Status::OK();
    }

    Status Flush(std::vector<columnar::RecordBatchPtr>& out) {
      if (rows_ == 0) {
        return Status::OK();
      }
      std::vector<columnar::ColumnPtr> columns;
      for (auto& builder : builders_) {
        TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder->Finish());
        columns.push_back(std::move(column));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch,
                                columnar::RecordBatch::Make(schema_, rows_, std::move(columns)));
      out.push_back(std::move(batch));
      rows_ = 0;
      return Status::OK();
    }

   private:
    static void AppendOptionalBytes(columnar::ColumnBuilder& builder,
                                    const std::optional<std::string>& bytes) {
      if (bytes.has_value()) {
        builder.AppendBytes(*bytes);
      } else {
        builder.AppendNull();
      }
    }

    columnar::SchemaPtr schema_;
    std::vector<std::unique_ptr<columnar::ColumnBuilder>> builders_;
    int64_t rows_ = 0;
  };

  /// Reads [start, end) of `tp` into `rows`; `marks_now`, when given, are the partition's
  /// watermarks just read (else they are asked for).
  Status ReadPartition(const KafkaTopicPartition& tp, int64_t start, int64_t end,
                       std::optional<std::pair<int64_t, int64_t>> marks_now, Rows& rows,
                       std::vector<columnar::RecordBatchPtr>& out) {
    // A retention run between the check and the read shows as "offset out of range": look
    // again (bounded: each round the earliest offset has moved up).
    for (int attempt = 0;; ++attempt) {
      if (start >= end) {
        return Status::OK();
      }
      if (!marks_now.has_value()) {
        TRIBUTARY_ASSIGN_OR_RAISE(marks_now, Watermarks(tp));
      }
      const auto marks = *marks_now;
      marks_now.reset();  // a further round asks again
      if (start < marks.first) {
        const int64_t lost_end = std::min(marks.first, end);
        TRIBUTARY_RETURN_NOT_OK(DataLoss(fmt::format(
            "offsets [{}, {}) of partition {} were deleted before they were read (its earliest "
            "offset is now {})",
            start, lost_end, tp.ToString(), marks.first)));
        start = lost_end;
        continue;
      }
      if (marks.second < end) {
        TRIBUTARY_RETURN_NOT_OK(DataLoss(fmt::format(
            "offsets [{}, {}) of partition {} are gone: the partition now ends at offset {} (the "
            "topic was recreated?)",
            std::max(start, marks.second), end, tp.ToString(), marks.second)));
        end = std::max(start, marks.second);
        continue;
      }
      int64_t next = start;
      Status read =
          consumer_->ReadRange(tp, start, end, std::chrono::milliseconds(options_.poll_timeout_ms),
                               [&](const storage::KafkaRecord& record) {
                                 next = record.offset + 1;
                                 return rows.Append(record, out);
                               });
      if (read.ok()) {
        return Status::OK();
      }
      if (!read.Message().starts_with("offset out of range") || attempt >= 3) {
        return read.WithContext(description_);
      }
      start = next;
    }
  }

  /// Spark's fetchOffset.numRetries, made robust to a leader moving or a broker restarting: a
  /// transient failure (retryable, or a partition its broker does not know yet) is retried,
  /// backing off from fetchOffset.retryIntervalMs up to a second, at least numRetries times and
  /// until kafkaConsumer.pollTimeoutMs has passed. The consumer refreshes its metadata after a
  /// leader error, so a retry asks the new leader.
  template <typename Call>
  auto WithRetries(const Call& call) -> decltype(call()) {
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.poll_timeout_ms);
    int64_t interval_ms = std::max<int64_t>(1, options_.fetch_offset_retry_interval_ms);
    for (int64_t attempt = 0;; ++attempt) {
      auto result = call();
      if (result.ok() || !(result.status().IsRetryable() || result.status().IsNotFound()) ||
          (attempt >= options_.fetch_offset_num_retries &&
           std::chrono::steady_clock::now() >= give_up)) {
        return result;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
      interval_ms = std::min<int64_t>(interval_ms * 2, 1000);
    }
  }

  const KafkaSourceOptions& options_;
  std::unique_ptr<storage::KafkaConsumer> consumer_;
  std::string description_;
  columnar::SchemaPtr schema_;
  columnar::MemoryPool* pool_;
};

/// Spark's rateLimit: `limit` offsets split over the partitions in proportion to how many
/// each has between `from` (new partitions: their earliest) and `until`; a partition's share
/// rounds down, but up to 1 for a share below 1 so small partitions never starve.
KafkaPartitionOffsets KafkaRateLimit(int64_t limit, const KafkaPartitionOffsets& from,
                                     const KafkaPartitionOffsets& new_from,
                                     const KafkaPartitionOffsets& until) {
  std::map<KafkaTopicPartition, int64_t> sizes;
  double total = 0;
  for (const auto& [tp, end] : until) {
    auto begin = from.find(tp);
    if (begin == from.end()) {
      begin = new_from.find(tp);
      if (begin == new_from.end()) {
        continue;
      }
    }
    if (end - begin->second > 0) {
      sizes[tp] = end - begin->second;
      total += static_cast<double>(end - begin->second);
    }
  }
  if (total < 1) {
    return until;
  }
  KafkaPartitionOffsets out;
  for (const auto& [tp, end] : until) {
    const auto size = sizes.find(tp);
    if (size == sizes.end()) {
      out[tp] = end;
      continue;
    }
    const int64_t begin = from.contains(tp) ? from.at(tp) : new_from.at(tp);
    const double share = static_cast<double>(limit) * (static_cast<double>(size->second) / total);
    const auto rounded = static_cast<int64_t>(share < 1 ? std::ceil(share) : std::floor(share));
    const int64_t stop = rounded > INT64_MAX - begin ? INT64_MAX : begin + rounded;
    out[tp] = std::min(end, stop);
  }
  return out;
}

std::string KafkaSubscriptionText(const KafkaSourceOptions& options) {
  if (options.assign.has_value()) {
    std::vector<KafkaTopicPartition> partitions;
    for (const auto& [tp, unused] : *options.assign) {
      partitions.push_back(tp);
    }
    const std::string list = KafkaPartitionList(partitions);
    return fmt::format("Assign[{}]", list.substr(1, list.size() - 2));
  }
  if (options.subscribe_pattern.has_value()) {
    return fmt::format("SubscribePattern[{}]", *options.subscribe_pattern);
  }
  return fmt::format("Subscribe[{}]", fmt::join(options.subscribe, ", "));
}

int64_t KafkaNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The client configuration of a consumer for `options`, with Spark's group id and isolation
/// level defaults.
storage::KafkaClientConfig KafkaConsumerConfig(const KafkaSourceOptions& options,
                                               std::string_view group_suffix) {
  storage::KafkaClientConfig config = options.client;
  if (config.find("group.id") == config.end()) {
    config["group.id"] = fmt::format("{}-{}-{}", options.group_id_prefix, NewUuid(), group_suffix);
  }
  if (config.find("isolation.level") == config.end()) {
    config["isolation.level"] = "read_uncommitted";
  }
  return config;
}

class KafkaMicroBatchSource final : public Source {
 public:
  KafkaMicroBatchSource(KafkaSourceOptions options,
                        std::unique_ptr<storage::KafkaConsumer> consumer,
                        columnar::SchemaPtr schema, std::string description,
                        storage::FileSystem& fs, std::string metadata_dir,
                        columnar::MemoryPool* pool)
      : options_(std::move(options)),
        reader_(options_, std::move(consumer), description, std::move(schema), pool),
        description_(std::move(description)),
        fs_(fs),
        metadata_dir_(std::move(metadata_dir)) {}

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override {
    KafkaPartitionOffsets from;
    if (start.has_value()) {
      TRIBUTARY_ASSIGN_OR_RAISE(from, ParseKafkaOffsets(*start));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(from, InitialOffsets());
    }
    KafkaPartitionOffsets latest;
    if (available_now_end_.has_value()) {
      latest = *available_now_end_;
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<KafkaTopicPartition> partitions,
                                reader_.Partitions());
      TRIBUTARY_ASSIGN_OR_RAISE(latest, reader_.Bounds(partitions, /*earliest=*/false));
    }
    latest_available_ = latest;
    if (respect_limits && !available_now_end_.has_value() &&
        options_.min_offsets_per_trigger.has_value() && DelayBatch(latest, from)) {
      return start;
    }
    KafkaPartitionOffsets end = latest;
    if (respect_limits && options_.max_offsets_per_trigger.has_value()) {
      std::vector<KafkaTopicPartition> added;
      for (const auto& [tp, unused] : latest) {
        if (!from.contains(tp)) {
          added.push_back(tp);
        }
      }
      KafkaPartitionOffsets new_from;
      if (!added.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(new_from, reader_.Bounds(added, /*earliest=*/true));
      }
      end = KafkaRateLimit(*options_.max_offsets_per_trigger, from, new_from, latest);
    }
    if (!start.has_value() && end == from) {
      return std::optional<Offset>();  // nothing to read yet
    }
    return std::optional<Offset>(KafkaOffsetsToJson(end));
  }

  Status PrepareForTriggerAvailableNow() override {
    TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<KafkaTopicPartition> partitions,
                              reader_.Partitions());
    TRIBUTARY_ASSIGN_OR_RAISE(available_now_end_, reader_.Bounds(partitions, /*earliest=*/false));
    return Status::OK();
  }

  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                    const Offset& end) override {
    KafkaPartitionOffsets from;
    if (start.has_value()) {
      TRIBUTARY_ASSIGN_OR_RAISE(from, ParseKafkaOffsets(*start));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(from, InitialOffsets());
    }
    TRIBUTARY_ASSIGN_OR_RAISE(KafkaPartitionOffsets until, ParseKafkaOffsets(end));
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = Schema();
    source.description =
        fmt::format("{} offsets {}..{}", description_, KafkaOffsetsToJson(from), end);
    TRIBUTARY_RETURN_NOT_OK(reader_.ReadRanges(from, until, source.batches));
    consumed_ = std::move(until);
    return source;
  }

  std::map<std::string, std::string> Metrics() const override {
    std::vector<int64_t> behind;
    for (const auto& [tp, latest] : latest_available_) {
      if (const auto consumed = consumed_.find(tp); consumed != consumed_.end()) {
        behind.push_back(latest - consumed->second);
      }
    }
    if (behind.empty()) {
      return {};
    }
    int64_t sum = 0;
    for (int64_t b : behind) {
      sum += b;
    }
    return {
        {"minOffsetsBehindLatest", std::to_string(*std::min_element(behind.begin(), behind.end()))},
        {"maxOffsetsBehindLatest", std::to_string(*std::max_element(behind.begin(), behind.end()))},
        {"avgOffsetsBehindLatest",
         KafkaJavaDouble(static_cast<double>(sum) / static_cast<double>(behind.size()))}};
  }

 private:
  columnar::SchemaPtr Schema() const { return KafkaSchema(options_.include_headers); }

  /// The starting offsets pinned in <metadata_dir>/0: resolved from the options and written by
  /// the first call, read back by every later one (and after a restart).
  Result<KafkaPartitionOffsets> InitialOffsets() {
    if (initial_.has_value()) {
      return *initial_;
    }
    const std::string path = storage::JoinPath(metadata_dir_, "0");
    TRIBUTARY_ASSIGN_OR_RAISE(
        const std::optional<std::string> line,
        PinLogLine(
            fs_, path, "the starting offsets JSON", [this]() -> Result<std::optional<std::string>> {
              TRIBUTARY_ASSIGN_OR_RAISE(const KafkaOffsetSpec spec,
                                        KafkaStartSpec(options_, /*streaming=*/true));
              TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<KafkaTopicPartition> partitions,
                                        reader_.Partitions());
              TRIBUTARY_ASSIGN_OR_RAISE(const KafkaPartitionOffsets resolved,
                                        reader_.Resolve(spec, partitions, /*is_start=*/true));
              return std::optional<std::string>(KafkaOffsetsToJson(resolved));
            }));
    auto parsed = ParseKafkaOffsets(line.value_or(""));
    if (!parsed.ok()) {
      return Status::Corruption(fmt::format("{} line 2: {}", path, parsed.status().Message()));
    }
    initial_ = std::move(*parsed);
    return *initial_;
  }

  /// Spark's delayBatch: hold the batch back while fewer than minOffsetsPerTrigger offsets are
  /// new, until maxTriggerDelay has passed since the last batch.
  bool DelayBatch(const KafkaPartitionOffsets& latest, const KafkaPartitionOffsets& from) {
    const int64_t now = KafkaNowMs();
    if (now - last_trigger_ms_ >= options_.max_trigger_delay_ms) {
      last_trigger_ms_ = now;
      return false;
    }
    int64_t new_offsets = 0;
    for (const auto& [tp, offset] : latest) {
      const auto found = from.find(tp);
      new_offsets += offset - (found == from.end() ? 0 : found->second);
    }
    if (new_offsets < *options_.min_offsets_per_trigger) {
      return true;
    }
    last_trigger_ms_ = now;
    return false;
  }

  KafkaSourceOptions options_;  // before reader_, which keeps a reference
  KafkaReader reader_;
  std::string description_;
  storage::FileSystem& fs_;
  std::string metadata_dir_;
  std::optional<KafkaPartitionOffsets> initial_;
  std::optional<KafkaPartitionOffsets> available_now_end_;
  /// The latest offsets of the last LatestOffset and the end of the last batch (metrics).
  KafkaPartitionOffsets latest_available_;
  KafkaPartitionOffsets consumed_;
  /// Spark starts at 0, so the first batch is never delayed.
  int64_t last_trigger_ms_ = 0;
};

}  // namespace

Result<KafkaPartitionOffsets> ParseKafkaOffsets(const std::string& text) {
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaPartitionOffsets offsets,
                            KafkaParsePartitionNumbers(text, "Kafka source offset"));
  for (const auto& [tp, offset] : offsets) {
    if (offset < 0) {
      return Status::InvalidArgument(fmt::format(
          "Kafka source offset '{}': offset {} of {} is negative", text, offset, tp.ToString()));
    }
  }
  return offsets;
}

std::string KafkaOffsetsToJson(const KafkaPartitionOffsets& offsets) {
  std::string out = "{";
  const std::string* topic = nullptr;
  for (const auto& [tp, offset] : offsets) {
    if (topic == nullptr || *topic != tp.topic) {
      if (topic != nullptr) {
        out += "},";
      }
      out += nlohmann::json(tp.topic).dump();
      out += ":{";
      topic = &tp.topic;
    } else {
      out += ',';
    }
    out += fmt::format("\"{}\":{}", tp.partition, offset);
  }
  if (topic != nullptr) {
    out += '}';
  }
  out += '}';
  return out;
}

columnar::SchemaPtr KafkaSchema(bool include_headers) {
  using columnar::DataType;
  using columnar::Field;
  std::vector<Field> fields{
      Field("key", DataType::Binary()),         Field("value", DataType::Binary()),
      Field("topic", DataType::String()),       Field("partition", DataType::Int32()),
      Field("offset", DataType::Int64()),       Field("timestamp", DataType::Timestamp()),
      Field("timestampType", DataType::Int32())};
  if (include_headers) {
    fields.emplace_back(
        "headers", DataType::Array(DataType::Struct(
                       {Field("key", DataType::String()), Field("value", DataType::Binary())})));
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

namespace {

/// A processCount or processIndex as given: its name (an option's or a session setting's key)
/// and its text, nullopt when not given.
struct KafkaShareSetting {
  std::string name;
  std::optional<std::string> value;
};

/// processCount / processIndex into `out`; errors name them as `kind` ("option" or "session
/// setting") and their names.
Status KafkaProcessShare(const KafkaShareSetting& count_setting,
                         const KafkaShareSetting& index_setting, std::string_view kind,
                         KafkaSourceOptions& out) {
  int64_t count = 1;
  int64_t index = 0;
  if (count_setting.value.has_value()) {
    TRIBUTARY_ASSIGN_OR_RAISE(count,
                              KafkaIntegerOption(count_setting.name, *count_setting.value, 1));
  }
  if (index_setting.value.has_value()) {
    TRIBUTARY_ASSIGN_OR_RAISE(index,
                              KafkaIntegerOption(index_setting.name, *index_setting.value, 0));
  }
  if (count > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(
        fmt::format("{} '{}' is too large: {}", kind, count_setting.name, count));
  }
  if (count > 1 && !index_setting.value.has_value()) {
    return Status::InvalidArgument(fmt::format(
        "{} '{}' must be given with '{}' {}: which of the {} processes running this query this "
        "one is (0 to {})",
        kind, index_setting.name, count_setting.name, count, count, count - 1));
  }
  if (index >= count) {
    return Status::InvalidArgument(fmt::format("{} '{}' is {}, but with '{}' {} it must be 0 to {}",
                                               kind, index_setting.name, index, count_setting.name,
                                               count, count - 1));
  }
  out.process_count = static_cast<int32_t>(count);
  out.process_index = static_cast<int32_t>(index);
  return Status::OK();
}

}  // namespace

Result<KafkaProcessShareOf> KafkaProcessShareFromSettings(
    const std::map<std::string, std::string>& settings) {
  const auto setting = [&settings](std::string_view key) {
    const auto found = settings.find(std::string(key));
    return KafkaShareSetting{std::string(key), found == settings.end()
                                                   ? std::nullopt
                                                   : std::optional<std::string>(found->second)};
  };
  KafkaSourceOptions options;
  TRIBUTARY_RETURN_NOT_OK(KafkaProcessShare(
      setting(kKafkaProcessCountKey), setting(kKafkaProcessIndexKey), "session setting", options));
  return KafkaProcessShareOf{options.process_count, options.process_index};
}

Result<KafkaSourceOptions> KafkaSourceOptions::FromMap(
    const std::map<std::string, std::string>& options, bool streaming) {
  formats::OptionMap own;
  for (const auto& [key, value] : options) {
    if (!AsciiLower(key).starts_with("kafka.")) {
      own.emplace(key, value);
    }
  }
  TRIBUTARY_RETURN_NOT_OK(ValidateSourceOptions(own, "the Kafka source", KafkaSourceOptionKeys()));
  KafkaSourceOptions out;
  TRIBUTARY_ASSIGN_OR_RAISE(out.client, storage::KafkaClientConfigFromOptions(options));
  if (const auto servers = out.client.find("bootstrap.servers");
      servers == out.client.end() || TrimBlanks(servers->second).empty()) {
    return Status::InvalidArgument(
        "Option 'kafka.bootstrap.servers' must be specified for configuring the Kafka consumer");
  }
  std::vector<std::string> strategies;
  const std::string_view query_kind = streaming ? "streaming" : "batch";
  for (const auto& [key, value] : own) {
    const std::string lowered = AsciiLower(key);
    if (lowered == "subscribe") {
      strategies.push_back(key);
      out.subscribe = SplitCommaList(value);
      if (out.subscribe.empty()) {
        return Status::InvalidArgument(fmt::format(
            "No topics to subscribe to as specified value for option '{}' is '{}'", key, value));
      }
      std::sort(out.subscribe.begin(), out.subscribe.end());
      out.subscribe.erase(std::unique(out.subscribe.begin(), out.subscribe.end()),
                          out.subscribe.end());
    } else if (lowered == "subscribepattern") {
      strategies.push_back(key);
      if (TrimBlanks(value).empty()) {
        return Status::InvalidArgument(
            fmt::format("Pattern to subscribe is empty as specified value for option '{}' is '{}'",
                        key, value));
      }
      out.subscribe_pattern = std::string(TrimBlanks(value));
    } else if (lowered == "assign") {
      strategies.push_back(key);
      TRIBUTARY_ASSIGN_OR_RAISE(out.assign, KafkaParseAssign(value));
    } else if (lowered == "startingoffsets") {
      TRIBUTARY_RETURN_NOT_OK(KafkaCheckOffsetsOption(key, value, /*earliest_allowed=*/true,
                                                      /*latest_allowed=*/streaming, query_kind));
      out.starting_offsets = value;
    } else if (lowered == "startingtimestamp") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.starting_timestamp, KafkaIntegerOption(key, value, 0));
    } else if (lowered == "startingoffsetsbytimestamp") {
      TRIBUTARY_ASSIGN_OR_RAISE(const KafkaPartitionOffsets parsed,
                                KafkaParsePartitionNumbers(value, key));
      (void)parsed;
      out.starting_offsets_by_timestamp = value;
    } else if (lowered == "startingoffsetsbytimestampstrategy") {
      out.starting_offsets_by_timestamp_strategy = AsciiLower(TrimBlanks(value));
      if (out.starting_offsets_by_timestamp_strategy != "error" &&
          out.starting_offsets_by_timestamp_strategy != "latest") {
        return Status::InvalidArgument(fmt::format(
            "Invalid value '{}'. The option '{}' must be 'error' or 'latest'", value, key));
      }
    } else if (lowered == "endingoffsets" || lowered == "endingtimestamp" ||
               lowered == "endingoffsetsbytimestamp") {
      if (streaming) {
        return Status::InvalidArgument(
            fmt::format("option '{}' is not valid in streaming queries on Kafka (batch reads "
                        "only)",
                        key));
      }
      if (lowered == "endingoffsets") {
        TRIBUTARY_RETURN_NOT_OK(KafkaCheckOffsetsOption(key, value, /*earliest_allowed=*/false,
                                                        /*latest_allowed=*/true, query_kind));
        out.ending_offsets = value;
      } else if (lowered == "endingtimestamp") {
        TRIBUTARY_ASSIGN_OR_RAISE(out.ending_timestamp, KafkaIntegerOption(key, value, 0));
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(const KafkaPartitionOffsets parsed,
                                  KafkaParsePartitionNumbers(value, key));
        (void)parsed;
        out.ending_offsets_by_timestamp = value;
      }
    } else if (lowered == "failondataloss") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.fail_on_data_loss, formats::BooleanOption(key, value));
    } else if (lowered == "includeheaders") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.include_headers, formats::BooleanOption(key, value));
    } else if (lowered == "maxoffsetspertrigger") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.max_offsets_per_trigger, KafkaIntegerOption(key, value, 1));
    } else if (lowered == "minoffsetspertrigger") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.min_offsets_per_trigger, KafkaIntegerOption(key, value, 1));
    } else if (lowered == "maxtriggerdelay") {
      TRIBUTARY_ASSIGN_OR_RAISE(const int64_t micros,
                                TimeStringAsMicros(key, value, TimeStringUnit::kMilliseconds));
      if (micros < 0) {
        return Status::InvalidArgument(
            fmt::format("Invalid value '{}'. The option '{}' must not be negative", value, key));
      }
      out.max_trigger_delay_ms = micros / 1000;
    } else if (lowered == "groupidprefix") {
      out.group_id_prefix = value;
    } else if (lowered == "kafkaconsumer.polltimeoutms") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.poll_timeout_ms, KafkaIntegerOption(key, value, 1));
    } else if (lowered == "fetchoffset.numretries") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.fetch_offset_num_retries, KafkaIntegerOption(key, value, 0));
    } else if (lowered == "fetchoffset.retryintervalms") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.fetch_offset_retry_interval_ms,
                                KafkaIntegerOption(key, value, 0));
    } else if (lowered == "processcount" || lowered == "processindex") {
      continue;  // KafkaProcessShare below
    } else if (lowered == "minpartitions" || lowered == "maxrecordsperpartition") {
      TRIBUTARY_RETURN_NOT_OK(KafkaIntegerOption(key, value, 1).status());
    }
  }
  if (strategies.empty()) {
    return Status::InvalidArgument(
        "One of the following options must be specified for the Kafka source: subscribe, "
        "subscribePattern, assign");
  }
  if (strategies.size() > 1) {
    return Status::InvalidArgument(
        fmt::format("Only one of the following options can be specified for the Kafka source: "
                    "subscribe, subscribePattern, assign (given: {})",
                    fmt::join(strategies, ", ")));
  }
  KafkaShareSetting count_option{"processCount", std::nullopt};
  KafkaShareSetting index_option{"processIndex", std::nullopt};
  for (const auto& [key, value] : own) {
    const std::string lowered = AsciiLower(key);
    KafkaShareSetting* setting = lowered == "processcount"   ? &count_option
                                 : lowered == "processindex" ? &index_option
                                                             : nullptr;
    if (setting != nullptr) {
      *setting = {key, value};
    }
  }
  if (count_option.value.has_value() || index_option.value.has_value()) {
    TRIBUTARY_RETURN_NOT_OK(KafkaProcessShare(count_option, index_option, "option", out));
    out.process_share_given = true;
  }
  if (out.min_offsets_per_trigger && out.max_offsets_per_trigger &&
      *out.min_offsets_per_trigger > *out.max_offsets_per_trigger) {
    return Status::InvalidArgument(
        fmt::format("minOffsetsPerTrigger ({}) cannot be larger than maxOffsetsPerTrigger ({})",
                    *out.min_offsets_per_trigger, *out.max_offsets_per_trigger));
  }
  return out;
}

KafkaSourceDefinition::KafkaSourceDefinition(KafkaSourceOptions options)
    : options_(std::move(options)), schema_(KafkaSchema(options_.include_headers)) {}

Result<std::shared_ptr<const KafkaSourceDefinition>> KafkaSourceDefinition::Make(
    const std::map<std::string, std::string>& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaSourceOptions parsed,
                            KafkaSourceOptions::FromMap(options, /*streaming=*/true));
  return std::shared_ptr<const KafkaSourceDefinition>(new KafkaSourceDefinition(std::move(parsed)));
}

std::string KafkaSourceDefinition::Description() const {
  return fmt::format("KafkaV2[{}]", KafkaSubscriptionText(options_));
}

std::string KafkaSourceDefinition::Identity() const {
  if (options_.assign.has_value()) {
    std::vector<KafkaTopicPartition> partitions;
    for (const auto& [tp, unused] : *options_.assign) {
      partitions.push_back(tp);
    }
    return "kafka:assign=" + KafkaPartitionList(partitions);
  }
  if (options_.subscribe_pattern.has_value()) {
    return "kafka:subscribePattern=" + *options_.subscribe_pattern;
  }
  return fmt::format("kafka:subscribe={}", fmt::join(options_.subscribe, ","));
}

namespace {

/// A checkpoint keeps the share of partitions it was started with: with processCount > 1 the
/// first run records `{"processIndex":i,"processCount":n}` in <metadata_dir>/assignment, and a
/// later run with another share (or none) is refused, since the checkpoint's offsets cover only
/// the partitions of its own share.
Status PinKafkaProcessShare(storage::FileSystem& fs, const std::string& metadata_dir,
                            const KafkaSourceOptions& options, const std::string& description) {
  const std::string path = storage::JoinPath(metadata_dir, "assignment");
  const std::string share = fmt::format(R"({{"processIndex":{},"processCount":{}}})",
                                        options.process_index, options.process_count);
  TRIBUTARY_ASSIGN_OR_RAISE(
      const std::optional<std::string> pinned,
      PinLogLine(fs, path, "the process's share JSON", [&]() -> Result<std::optional<std::string>> {
        // One process reading the whole subscription pins nothing: such a checkpoint is as it
        // was before shares existed.
        return options.process_count == 1 ? std::nullopt : std::optional<std::string>(share);
      }));
  if (!pinned.has_value()) {
    return Status::OK();
  }
  if (*pinned != share) {
    return Status::InvalidArgument(fmt::format(
        "{}: the checkpoint was started with the partitions of {} ({}), but the query now gives "
        "processIndex {} and processCount {}; a checkpoint's offsets cover only its own share of "
        "the partitions, so a different share needs a new checkpoint",
        description, *pinned, path, options.process_index, options.process_count));
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<Source>> KafkaSourceDefinition::Open(const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no file system to open it on", Description()));
  }
  KafkaSourceOptions options = options_;
  if (!options.process_share_given) {
    // One pipeline definition run as several processes: each gets its share from its session.
    auto share = KafkaProcessShareFromSettings(context.session_config);
    if (!share.ok()) {
      return share.status().WithContext(Description());
    }
    options.process_count = share->count;
    options.process_index = share->index;
  }
  TRIBUTARY_RETURN_NOT_OK(
      PinKafkaProcessShare(*context.fs, context.metadata_dir, options, Description()));
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<storage::KafkaConsumer> consumer,
                            storage::KafkaConsumer::Make(KafkaConsumerConfig(
                                options_, std::to_string(context.source_index))));
  return std::unique_ptr<Source>(std::make_unique<KafkaMicroBatchSource>(
      std::move(options), std::move(consumer), schema_, Description(), *context.fs,
      context.metadata_dir, context.eval.pool));
}

Result<std::vector<columnar::RecordBatchPtr>> ReadKafkaBatch(
    const std::map<std::string, std::string>& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(const KafkaSourceOptions parsed,
                            KafkaSourceOptions::FromMap(options, /*streaming=*/false));
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<storage::KafkaConsumer> consumer,
                            storage::KafkaConsumer::Make(KafkaConsumerConfig(parsed, "relation")));
  const std::string description = fmt::format("KafkaRelation[{}]", KafkaSubscriptionText(parsed));
  KafkaReader reader(parsed, std::move(consumer), description, KafkaSchema(parsed.include_headers),
                     columnar::DefaultMemoryPool());
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<KafkaTopicPartition> partitions, reader.Partitions());
  TRIBUTARY_ASSIGN_OR_RAISE(const KafkaOffsetSpec start_spec,
                            KafkaStartSpec(parsed, /*streaming=*/false));
  TRIBUTARY_ASSIGN_OR_RAISE(const KafkaOffsetSpec end_spec, KafkaEndSpec(parsed));
  TRIBUTARY_ASSIGN_OR_RAISE(const KafkaPartitionOffsets from,
                            reader.Resolve(start_spec, partitions, /*is_start=*/true));
  TRIBUTARY_ASSIGN_OR_RAISE(const KafkaPartitionOffsets until,
                            reader.Resolve(end_spec, partitions, /*is_start=*/false));
  KafkaPartitionOffsets bounded;
  for (const auto& [tp, end] : until) {
    // An end before the start reads nothing (Spark's KafkaRelation fails such a range; an
    // ending timestamp earlier than a starting one is the common case and means no rows).
    bounded[tp] = std::max(end, from.at(tp));
  }
  std::vector<columnar::RecordBatchPtr> batches;
  TRIBUTARY_RETURN_NOT_OK(reader.ReadRanges(from, bounded, batches));
  return batches;
}

}  // namespace tributary::streaming

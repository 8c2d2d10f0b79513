#include "streaming/kafka_sink.h"

#include <chrono>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/crash_point.h"

namespace tributary::streaming {
namespace {

using columnar::Column;
using columnar::TypeId;
using storage::KafkaClientConfig;
using storage::KafkaTopicPartition;

// How long a batch may wait for the cluster to acknowledge its records.
constexpr std::chrono::milliseconds kKafkaSinkFlushTimeout{120000};

// The producer settings a consumer (reading and committing the sink's group offsets) does not
// take; librdkafka would warn about each.
constexpr std::string_view kKafkaSinkProducerOnly[] = {"transactional.id",
                                                       "transaction.timeout.ms",
                                                       "enable.idempotence",
                                                       "acks",
                                                       "request.required.acks",
                                                       "linger.ms",
                                                       "queue.buffering.max.ms",
                                                       "batch.num.messages",
                                                       "batch.size",
                                                       "compression.codec",
                                                       "compression.type",
                                                       "message.timeout.ms",
                                                       "delivery.timeout.ms",
                                                       "retries",
                                                       "message.send.max.retries",
                                                       "partitioner",
                                                       "max.in.flight.requests.per.connection",
                                                       "max.in.flight"};

// Where the columns Spark's Kafka sink reads are in a batch (-1: absent).
struct KafkaSinkColumns {
  int value = -1;
  int key = -1;
  int topic = -1;
  int partition = -1;
  int headers = -1;
};

bool KafkaSinkIsText(TypeId id) {
  return id == TypeId::kString || id == TypeId::kBinary;
}

// Checks the batch's columns as Spark's KafkaWriter.validateQuery does.
Result<KafkaSinkColumns> KafkaSinkResolveColumns(const columnar::Schema& schema,
                                                 bool topic_option) {
  KafkaSinkColumns columns;
  for (int i = 0; i < schema.NumFields(); ++i) {
    const columnar::Field& field = schema.FieldAt(i);
    const std::string name = AsciiLower(field.Name());
    const TypeId id = field.Type()->Id();
    if (name == "value") {
      if (!KafkaSinkIsText(id)) {
        return Status::InvalidArgument(fmt::format(
            "Kafka sink: value attribute type must be a StringType or BinaryType, not {}",
            field.Type()->ToString()));
      }
      columns.value = i;
    } else if (name == "key") {
      if (!KafkaSinkIsText(id)) {
        return Status::InvalidArgument(
            fmt::format("Kafka sink: key attribute type must be a StringType or BinaryType, not {}",
                        field.Type()->ToString()));
      }
      columns.key = i;
    } else if (name == "topic") {
      if (id != TypeId::kString) {
        return Status::InvalidArgument(
            fmt::format("Kafka sink: topic attribute type must be a StringType, not {}",
                        field.Type()->ToString()));
      }
      columns.topic = i;
    } else if (name == "partition") {
      if (id != TypeId::kInt32) {
        return Status::InvalidArgument(
            fmt::format("Kafka sink: partition attribute type must be an IntegerType, not {}",
                        field.Type()->ToString()));
      }
      columns.partition = i;
    } else if (name == "headers") {
      const columnar::DataTypePtr& type = field.Type();
      const bool ok = id == TypeId::kArray && type->ElementType()->Id() == TypeId::kStruct &&
                      type->ElementType()->Fields().size() == 2 &&
                      AsciiLower(type->ElementType()->Fields()[0].Name()) == "key" &&
                      type->ElementType()->Fields()[0].Type()->Id() == TypeId::kString &&
                      AsciiLower(type->ElementType()->Fields()[1].Name()) == "value" &&
                      type->ElementType()->Fields()[1].Type()->Id() == TypeId::kBinary;
      if (!ok) {
        return Status::InvalidArgument(
            fmt::format("Kafka sink: headers attribute type must be an "
                        "ArrayType(StructType(key: string, value: binary)), not {}",
                        type->ToString()));
      }
      columns.headers = i;
    } else {
      return Status::InvalidArgument(fmt::format(
          "Kafka sink: column '{}' is not one the Kafka sink writes (key, value, topic, "
          "partition, headers); select only those",
          field.Name()));
    }
  }
  if (columns.value < 0) {
    return Status::InvalidArgument("Kafka sink: Required attribute 'value' not found");
  }
  if (columns.topic < 0 && !topic_option) {
    return Status::InvalidArgument(
        "Kafka sink: topic option required when no 'topic' attribute is present. Use the topic "
        "option for setting a topic.");
  }
  return columns;
}

// The records of `batch`, in row order.
Result<std::vector<storage::KafkaRecord>> KafkaSinkRecords(
    const columnar::RecordBatch& batch, const std::optional<std::string>& topic_option) {
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaSinkColumns columns,
                            KafkaSinkResolveColumns(*batch.Schema(), topic_option.has_value()));
  const auto column = [&](int index) -> const Column* {
    return index < 0 ? nullptr : batch.ColumnAt(index).get();
  };
  const Column* value = column(columns.value);
  const Column* key = column(columns.key);
  const Column* topic = column(columns.topic);
  const Column* partition = column(columns.partition);
  const Column* headers = column(columns.headers);
  std::vector<storage::KafkaRecord> records;
  records.reserve(static_cast<size_t>(batch.NumRows()));
  for (int64_t row = 0; row < batch.NumRows(); ++row) {
    storage::KafkaRecord record;
    if (topic_option) {
      record.topic = *topic_option;
    } else if (topic->IsNull(row)) {
      return Status::InvalidArgument(
          "Kafka sink: null topic present in the data. Use the topic option for setting a "
          "topic.");
    } else {
      record.topic = std::string(topic->BytesAt(row));
    }
    if (value->IsValid(row)) {
      record.value = std::string(value->BytesAt(row));
    }
    if (key != nullptr && key->IsValid(row)) {
      record.key = std::string(key->BytesAt(row));
    }
    if (partition != nullptr && partition->IsValid(row)) {
      record.partition = partition->Values<int32_t>()[row];
      if (record.partition < 0) {
        return Status::InvalidArgument(
            fmt::format("Kafka sink: partition {} of row {} for topic {} is negative",
                        record.partition, row, record.topic));
      }
    }
    if (headers != nullptr && headers->IsValid(row)) {
      const Column& entries = *headers->Child(0);
      const Column& names = *entries.Child(0);
      const Column& values = *entries.Child(1);
      for (int64_t i = headers->Offsets()[row]; i < headers->Offsets()[row + 1]; ++i) {
        if (entries.IsNull(i) || names.IsNull(i)) {
          return Status::InvalidArgument(fmt::format(
              "Kafka sink: a header of row {} for topic {} has a null key", row, record.topic));
        }
        storage::KafkaHeader header;
        header.key = std::string(names.BytesAt(i));
        if (values.IsValid(i)) {
          header.value = std::string(values.BytesAt(i));
        }
        record.headers.push_back(std::move(header));
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

Result<std::vector<storage::KafkaRecord>> KafkaSinkAllRecords(
    const std::vector<columnar::RecordBatchPtr>& batches,
    const std::optional<std::string>& topic_option) {
  std::vector<storage::KafkaRecord> all;
  for (const columnar::RecordBatchPtr& batch : batches) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::KafkaRecord> records,
                              KafkaSinkRecords(*batch, topic_option));
    all.insert(all.end(), std::make_move_iterator(records.begin()),
               std::make_move_iterator(records.end()));
  }
  return all;
}

// The sink's producer settings from the query's options.
struct KafkaSinkSettings {
  KafkaClientConfig config;
  std::optional<std::string> topic;
  std::optional<std::string> transactional_id;
};

Result<KafkaSinkSettings> KafkaSinkSettingsFromOptions(
    const std::map<std::string, std::string>& options) {
  KafkaSinkSettings settings;
  for (const auto& [key, value] : options) {
    if (EqualsIgnoreAsciiCase(key, "topic")) {
      if (value.empty()) {
        return Status::InvalidArgument("Kafka sink: option 'topic' is empty");
      }
      settings.topic = value;
    }
    for (const char* refused : {"kafka.key.serializer", "kafka.value.serializer"}) {
      if (EqualsIgnoreAsciiCase(key, refused)) {
        return Status::InvalidArgument(fmt::format(
            "Kafka sink: option '{}' is not supported as keys and values are written as bytes "
            "(ByteArraySerializer)",
            key));
      }
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(settings.config, storage::KafkaClientConfigFromOptions(options));
  if (!settings.config.contains("bootstrap.servers") ||
      settings.config["bootstrap.servers"].empty()) {
    return Status::InvalidArgument(
        "Kafka sink: option 'kafka.bootstrap.servers' must be specified for configuring the Kafka "
        "producer");
  }
  if (const auto found = settings.config.find("transactional.id");
      found != settings.config.end() && !found->second.empty()) {
    settings.transactional_id = found->second;
  }
  return settings;
}

// `config` without the producer-only settings: what reads and commits the sink's group offsets.
KafkaClientConfig KafkaSinkGroupConfig(const KafkaClientConfig& config) {
  KafkaClientConfig group = config;
  for (const std::string_view name : kKafkaSinkProducerOnly) {
    group.erase(std::string(name));
  }
  return group;
}

Status KafkaSinkProduceAll(storage::KafkaProducer* producer,
                           const std::vector<storage::KafkaRecord>& records) {
  for (const storage::KafkaRecord& record : records) {
    TRIBUTARY_RETURN_NOT_OK(producer->Produce(record));
  }
  return Status::OK();
}

}  // namespace

struct KafkaSink::State {
  KafkaSinkSettings settings;
  std::unique_ptr<storage::KafkaProducer> producer;
  // The highest batch id known delivered (exactly once), from the group offsets or this run.
  std::optional<int64_t> delivered_batch;
  // The topics whose group offsets were read.
  std::set<std::string> checked_topics;
};

KafkaSink::KafkaSink(std::unique_ptr<State> state) : state_(std::move(state)) {}

KafkaSink::~KafkaSink() = default;

Result<std::unique_ptr<KafkaSink>> KafkaSink::Make(
    const std::map<std::string, std::string>& options) {
  auto state = std::make_unique<State>();
  TRIBUTARY_ASSIGN_OR_RAISE(state->settings, KafkaSinkSettingsFromOptions(options));
  return std::unique_ptr<KafkaSink>(new KafkaSink(std::move(state)));
}

std::string KafkaSink::Description() const {
  return fmt::format("KafkaSink[{}]", state_->settings.topic.value_or("topic column"));
}

Result<int64_t> KafkaSink::AddBatch(const MicroBatch& batch) {
  State& state = *state_;
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<columnar::RecordBatchPtr> rows, batch.Collect());
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::KafkaRecord> records,
                            KafkaSinkAllRecords(rows, state.settings.topic));
  const auto context = [&](const Status& status) {
    return status.WithContext(fmt::format("Kafka sink batch {}", batch.batch_id));
  };
  if (!state.producer) {
    // With a transactional.id this fences the query's earlier producer (a zombie of a crashed
    // run) and aborts its open transaction.
    Result<std::unique_ptr<storage::KafkaProducer>> producer =
        storage::KafkaProducer::Make(state.settings.config);
    if (!producer.ok()) {
      return context(producer.status());
    }
    state.producer = std::move(*producer);
  }
  storage::KafkaProducer& producer = *state.producer;
  if (!state.settings.transactional_id) {
    // At least once, as Spark's sink: a batch re-run after a crash may write its records again.
    Status written = KafkaSinkProduceAll(&producer, records);
    if (written.ok()) {
      written = producer.Flush(kKafkaSinkFlushTimeout);
    }
    if (!written.ok()) {
      return context(written);
    }
    return static_cast<int64_t>(records.size());
  }

  // Exactly once: the batch id is recorded as offset batchId + 1 of partition 0 of every topic
  // the batch writes, for consumer group <transactional.id>, inside the batch's transaction.
  const std::string& group = *state.settings.transactional_id;
  std::set<std::string> topics;
  for (const storage::KafkaRecord& record : records) {
    topics.insert(record.topic);
  }
  std::map<KafkaTopicPartition, int64_t> marks;
  for (const std::string& topic : topics) {
    marks[KafkaTopicPartition{topic, 0}] = batch.batch_id + 1;
  }
  const KafkaClientConfig group_config = KafkaSinkGroupConfig(state.settings.config);
  // What the group has committed is read once per topic (at the first batch after a start,
  // or when a topic first appears); after that this run's own commits are the latest.
  std::vector<KafkaTopicPartition> partitions;
  for (const auto& [tp, offset] : marks) {
    if (state.checked_topics.insert(tp.topic).second) {
      partitions.push_back(tp);
    }
  }
  if (!partitions.empty()) {
    Result<std::map<KafkaTopicPartition, int64_t>> committed =
        storage::KafkaCommittedOffsets(group_config, group, partitions);
    if (!committed.ok()) {
      for (const KafkaTopicPartition& tp : partitions) {
        state.checked_topics.erase(tp.topic);
      }
      return context(committed.status());
    }
    for (const auto& [tp, offset] : *committed) {
      const int64_t delivered = offset - 1;
      if (!state.delivered_batch || delivered > *state.delivered_batch) {
        state.delivered_batch = delivered;
      }
    }
  }
  if (state.delivered_batch && batch.batch_id <= *state.delivered_batch) {
    return int64_t{0};  // delivered by an earlier run: a re-run after a crash
  }
  if (records.empty()) {
    return int64_t{0};
  }
  Status status = producer.BeginTransaction();
  if (status.ok()) {
    status = KafkaSinkProduceAll(&producer, records);
  }
  if (status.ok()) {
    CrashPoint("kafka_sink.before_commit_transaction");
    status = producer.CommitTransaction(group, marks);
  }
  if (!status.ok()) {
    (void)producer.AbortTransaction();
    // A fenced or failed producer is not reused: the next attempt starts a new one (which
    // fences this one in turn).
    state.producer.reset();
    return context(status);
  }
  CrashPoint("kafka_sink.after_commit_transaction");
  // Kafka stores the transaction's offsets atomically with its records; the same offsets
  // committed once more outside the transaction serve clusters whose coordinators do not keep
  // transactional offset commits (librdkafka's mock cluster, tools/kafka_test_broker). A crash
  // just before this line costs such a cluster one duplicated batch, never a lost one.
  TRIBUTARY_RETURN_NOT_OK(context(storage::KafkaCommitOffsets(group_config, group, marks)));
  state.delivered_batch = batch.batch_id;
  return static_cast<int64_t>(records.size());
}

Result<int64_t> WriteKafka(const std::vector<columnar::RecordBatchPtr>& batches,
                           const std::map<std::string, std::string>& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaSinkSettings settings, KafkaSinkSettingsFromOptions(options));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::KafkaRecord> records,
                            KafkaSinkAllRecords(batches, settings.topic));
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<storage::KafkaProducer> producer,
                            storage::KafkaProducer::Make(settings.config));
  if (!settings.transactional_id) {
    TRIBUTARY_RETURN_NOT_OK(KafkaSinkProduceAll(producer.get(), records));
    TRIBUTARY_RETURN_NOT_OK(producer->Flush(kKafkaSinkFlushTimeout));
    return static_cast<int64_t>(records.size());
  }
  Status status = producer->BeginTransaction();
  if (status.ok()) {
    status = KafkaSinkProduceAll(producer.get(), records);
  }
  if (status.ok()) {
    status = producer->CommitTransaction(*settings.transactional_id, {});
  }
  if (!status.ok()) {
    (void)producer->AbortTransaction();
    return status.WithContext("writing to Kafka");
  }
  return static_cast<int64_t>(records.size());
}

}  // namespace tributary::streaming

// KafkaProducer over librdkafka's C API: idempotent always, transactional with a
// transactional.id. Delivery reports are collected by a callback served on the calling thread
// (rd_kafka_poll/flush), so Flush and CommitTransaction can name the first record that failed.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>

#include "storage/kafka_client.h"
#include "storage/kafka_error.h"

namespace tributary::storage {
namespace {

// How long the transaction calls may block (librdkafka retries inside them).
constexpr std::chrono::milliseconds kKafkaTransactionTimeout{60000};

// The first failed delivery since it was last taken, and the number of records in flight.
class KafkaDeliveryState {
 public:
  void Delivered(const rd_kafka_message_t& message) {
    if (message.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      return;
    }
    const char* topic = message.rkt != nullptr ? rd_kafka_topic_name(message.rkt) : "?";
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_error_.ok()) {
      first_error_ = KafkaErrorStatus(
          message.err, fmt::format("delivering a record to Kafka topic-partition {}-{}", topic,
                                   message.partition));
    }
  }

  /// The first delivery error, cleared.
  Status Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    Status status = std::move(first_error_);
    first_error_ = Status::OK();
    return status;
  }

 private:
  std::mutex mutex_;
  Status first_error_;
};

void KafkaDeliveryReport(rd_kafka_t* /*handle*/, const rd_kafka_message_t* message, void* opaque) {
  static_cast<KafkaDeliveryState*>(opaque)->Delivered(*message);
}

struct KafkaHeadersDeleter {
  void operator()(rd_kafka_headers_t* headers) const { rd_kafka_headers_destroy(headers); }
};
using KafkaHeadersPtr = std::unique_ptr<rd_kafka_headers_t, KafkaHeadersDeleter>;

struct KafkaGroupMetadataDeleter {
  void operator()(rd_kafka_consumer_group_metadata_t* metadata) const {
    rd_kafka_consumer_group_metadata_destroy(metadata);
  }
};
using KafkaGroupMetadataPtr =
    std::unique_ptr<rd_kafka_consumer_group_metadata_t, KafkaGroupMetadataDeleter>;

class LibrdkafkaProducer final : public KafkaProducer {
 public:
  LibrdkafkaProducer(std::unique_ptr<KafkaDeliveryState> delivery, KafkaHandlePtr handle,
                     std::string servers, std::optional<std::string> transactional_id)
      : delivery_(std::move(delivery)),
        handle_(std::move(handle)),
        servers_(std::move(servers)),
        transactional_id_(std::move(transactional_id)) {}

  LibrdkafkaProducer(const LibrdkafkaProducer&) = delete;
  LibrdkafkaProducer& operator=(const LibrdkafkaProducer&) = delete;
  LibrdkafkaProducer(LibrdkafkaProducer&&) = delete;
  LibrdkafkaProducer& operator=(LibrdkafkaProducer&&) = delete;

  ~LibrdkafkaProducer() override {
    // Records still queued go out if the cluster takes them soon; an open transaction is left
    // to the coordinator, which aborts it when the next producer with the id starts (or on
    // its timeout).
    if (!transactional_id_) {
      (void)rd_kafka_flush(handle_.get(), 5000);
    }
    handle_.reset();
  }

  Status Produce(const KafkaRecord& record) override {
    KafkaHeadersPtr headers;
    if (!record.headers.empty()) {
      headers.reset(rd_kafka_headers_new(record.headers.size()));
      for (const KafkaHeader& header : record.headers) {
        const rd_kafka_resp_err_t added = rd_kafka_header_add(
            headers.get(), header.key.data(), static_cast<ssize_t>(header.key.size()),
            header.value ? header.value->data() : nullptr,
            header.value ? static_cast<ssize_t>(header.value->size()) : 0);
        TRIBUTARY_RETURN_NOT_OK(
            KafkaErrorStatus(added, fmt::format("adding header '{}' to a record for Kafka topic {}",
                                                header.key, record.topic)));
      }
    }
    const int32_t partition = record.partition >= 0 ? record.partition : RD_KAFKA_PARTITION_UA;
    const auto* key = record.key ? record.key->data() : nullptr;
    const size_t key_size = record.key ? record.key->size() : 0;
    const auto* value = record.value ? record.value->data() : nullptr;
    const size_t value_size = record.value ? record.value->size() : 0;
    const int64_t timestamp = record.timestamp_ms >= 0 ? record.timestamp_ms : 0;
    while (true) {
      // On success librdkafka owns the headers; on failure they stay ours.
      const rd_kafka_resp_err_t err = rd_kafka_producev(
          handle_.get(), RD_KAFKA_V_TOPIC(record.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
          RD_KAFKA_V_KEY(const_cast<char*>(key), key_size),
          RD_KAFKA_V_VALUE(const_cast<char*>(value), value_size), RD_KAFKA_V_TIMESTAMP(timestamp),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(headers.get()),
          RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        (void)headers.release();
        break;
      }
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        return KafkaErrorStatus(
            err, fmt::format("producing a record to Kafka topic {}{}", record.topic,
                             record.partition >= 0 ? fmt::format(" partition {}", record.partition)
                                                   : std::string()));
      }
      // The local queue is full: serve delivery reports until there is room.
      rd_kafka_poll(handle_.get(), 100);
    }
    rd_kafka_poll(handle_.get(), 0);
    return Status::OK();
  }

  Status Flush(std::chrono::milliseconds timeout) override {
    const rd_kafka_resp_err_t flushed =
        rd_kafka_flush(handle_.get(), static_cast<int>(timeout.count()));
    TRIBUTARY_RETURN_NOT_OK(delivery_->Take());
    if (flushed == RD_KAFKA_RESP_ERR__TIMED_OUT) {
      return Status::IOError(
          fmt::format("{} record(s) not acknowledged by the Kafka cluster {} within {} ms",
                      rd_kafka_outq_len(handle_.get()), servers_, timeout.count()),
          /*retryable=*/true);
    }
    return KafkaErrorStatus(flushed, fmt::format("flushing records to Kafka {}", servers_));
  }

  bool Transactional() const override { return transactional_id_.has_value(); }

  Status BeginTransaction() override {
    TRIBUTARY_RETURN_NOT_OK(RequireTransactional("BeginTransaction"));
    const KafkaErrorPtr error(rd_kafka_begin_transaction(handle_.get()));
    return KafkaErrorStatus(error.get(), TransactionContext("beginning a transaction"));
  }

  Status CommitTransaction(const std::string& group_id,
                           const std::map<KafkaTopicPartition, int64_t>& group_offsets) override {
    TRIBUTARY_RETURN_NOT_OK(RequireTransactional("CommitTransaction"));
    const int timeout_ms = static_cast<int>(kKafkaTransactionTimeout.count());
    if (!group_offsets.empty()) {
      KafkaPartitionListPtr offsets(
          rd_kafka_topic_partition_list_new(static_cast<int>(group_offsets.size())));
      for (const auto& [tp, offset] : group_offsets) {
        rd_kafka_topic_partition_list_add(offsets.get(), tp.topic.c_str(), tp.partition)->offset =
            offset;
      }
      const KafkaGroupMetadataPtr group(rd_kafka_consumer_group_metadata_new(group_id.c_str()));
      const KafkaErrorPtr error(rd_kafka_send_offsets_to_transaction(handle_.get(), offsets.get(),
                                                                     group.get(), timeout_ms));
      TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(
          error.get(),
          TransactionContext(fmt::format("sending offsets of consumer group '{}'", group_id))));
    }
    const KafkaErrorPtr error(rd_kafka_commit_transaction(handle_.get(), timeout_ms));
    // A record that failed inside the transaction is the better explanation.
    Status delivery = delivery_->Take();
    Status commit = KafkaErrorStatus(error.get(), TransactionContext("committing a transaction"));
    if (!commit.ok() && !delivery.ok()) {
      return delivery.WithContext(commit.Message());
    }
    TRIBUTARY_RETURN_NOT_OK(commit);
    return delivery;
  }

  Status AbortTransaction() override {
    TRIBUTARY_RETURN_NOT_OK(RequireTransactional("AbortTransaction"));
    const KafkaErrorPtr error(rd_kafka_abort_transaction(
        handle_.get(), static_cast<int>(kKafkaTransactionTimeout.count())));
    // The records of the aborted transaction report purge errors: not failures of anything.
    rd_kafka_poll(handle_.get(), 0);
    (void)delivery_->Take();
    return KafkaErrorStatus(error.get(), TransactionContext("aborting a transaction"));
  }

 private:
  Status RequireTransactional(const char* call) const {
    if (!transactional_id_) {
      return Status::InvalidArgument(
          fmt::format("KafkaProducer::{} needs a producer configured with transactional.id", call));
    }
    return Status::OK();
  }

  std::string TransactionContext(std::string_view what) const {
    return fmt::format("{} of Kafka producer transactional.id '{}' on {}", what,
                       transactional_id_.value_or(""), servers_);
  }

  // Declared first so it outlives the handle, whose callbacks write to it.
  std::unique_ptr<KafkaDeliveryState> delivery_;
  KafkaHandlePtr handle_;
  std::string servers_;
  std::optional<std::string> transactional_id_;
};

}  // namespace

Result<std::unique_ptr<KafkaProducer>> KafkaProducer::Make(KafkaClientConfig config) {
  // Idempotence keeps retried sends from duplicating records and orders them per partition
  // (transactions require it anyway).
  if (!config.contains("enable.idempotence")) {
    config["enable.idempotence"] = "true";
  }
  std::optional<std::string> transactional_id;
  if (const auto found = config.find("transactional.id");
      found != config.end() && !found->second.empty()) {
    transactional_id = found->second;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaConfPtr conf, MakeKafkaConf(config, "Kafka producer"));
  auto delivery = std::make_unique<KafkaDeliveryState>();
  rd_kafka_conf_set_dr_msg_cb(conf.get(), KafkaDeliveryReport);
  rd_kafka_conf_set_opaque(conf.get(), delivery.get());
  std::array<char, 512> reason{};
  rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), reason.data(), reason.size());
  const std::string servers = config["bootstrap.servers"];
  if (raw == nullptr) {
    return Status::InvalidArgument(
        fmt::format("creating a Kafka producer for {}: {}", servers, reason.data()));
  }
  (void)conf.release();  // rd_kafka_new owns it now
  KafkaHandlePtr handle(raw);
  if (transactional_id) {
    // Fences every earlier producer with this id and aborts its open transaction.
    const KafkaErrorPtr error(rd_kafka_init_transactions(
        handle.get(), static_cast<int>(kKafkaTransactionTimeout.count())));
    TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(
        error.get(), fmt::format("initializing transactions of Kafka producer transactional.id "
                                 "'{}' on {}",
                                 *transactional_id, servers)));
  }
  return std::unique_ptr<KafkaProducer>(std::make_unique<LibrdkafkaProducer>(
      std::move(delivery), std::move(handle), servers, std::move(transactional_id)));
}

Status KafkaCommitOffsets(const KafkaClientConfig& config, const std::string& group_id,
                          const std::map<KafkaTopicPartition, int64_t>& offsets) {
  if (offsets.empty()) {
    return Status::OK();
  }
  KafkaClientConfig group_config = config;
  group_config["group.id"] = group_id;
  group_config["enable.auto.commit"] = "false";
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaConfPtr conf, MakeKafkaConf(group_config, "Kafka consumer"));
  std::array<char, 512> reason{};
  rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), reason.data(), reason.size());
  if (raw == nullptr) {
    return Status::InvalidArgument(
        fmt::format("creating a Kafka consumer for group '{}': {}", group_id, reason.data()));
  }
  (void)conf.release();  // rd_kafka_new owns it now
  KafkaHandlePtr handle(raw);
  KafkaPartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  std::string names;
  for (const auto& [tp, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
    names += fmt::format("{}{}={}", names.empty() ? "" : ", ", tp.ToString(), offset);
  }
  const std::string context =
      fmt::format("committing offsets {} for Kafka consumer group '{}'", names, group_id);
  TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(rd_kafka_commit(handle.get(), list.get(), 0), context));
  for (int i = 0; i < list->cnt; ++i) {
    TRIBUTARY_RETURN_NOT_OK(KafkaErrorStatus(list->elems[i].err, context));
  }
  (void)rd_kafka_consumer_close(handle.get());
  return Status::OK();
}

}  // namespace tributary::storage

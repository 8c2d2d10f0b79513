// Internal to storage's Kafka client (kafka_client.cc, kafka_producer.cc): owners for
// librdkafka's handles and librdkafka errors turned into Status. Not for other layers: they
// speak storage/kafka_client.h.

#pragma once

#include <memory>
#include <string_view>

#include <librdkafka/rdkafka.h>

#include "storage/kafka_client.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

struct KafkaConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
using KafkaConfPtr = std::unique_ptr<rd_kafka_conf_t, KafkaConfDeleter>;

/// Destroys a client handle (rd_kafka_destroy waits for its threads; a consumer is closed
/// first by its owner).
struct KafkaHandleDeleter {
  void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
using KafkaHandlePtr = std::unique_ptr<rd_kafka_t, KafkaHandleDeleter>;

struct KafkaPartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using KafkaPartitionListPtr =
    std::unique_ptr<rd_kafka_topic_partition_list_t, KafkaPartitionListDeleter>;

struct KafkaMessageDeleter {
  void operator()(rd_kafka_message_t* message) const { rd_kafka_message_destroy(message); }
};
using KafkaMessagePtr = std::unique_ptr<rd_kafka_message_t, KafkaMessageDeleter>;

struct KafkaErrorDeleter {
  void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};
using KafkaErrorPtr = std::unique_ptr<rd_kafka_error_t, KafkaErrorDeleter>;

struct KafkaMetadataDeleter {
  void operator()(const rd_kafka_metadata_t* metadata) const {
    rd_kafka_metadata_destroy(metadata);
  }
};
using KafkaMetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, KafkaMetadataDeleter>;

/// Whether a librdkafka error is transient (a broker down, a leader moving, a timeout): the
/// Status is then retryable.
bool KafkaErrorIsRetryable(rd_kafka_resp_err_t error);

/// OK for RD_KAFKA_RESP_ERR_NO_ERROR; otherwise "<context>: <librdkafka's text> (<error name>)"
/// as IOError (retryable when KafkaErrorIsRetryable), NotFound for an unknown topic or
/// partition, InvalidArgument for invalid arguments and configuration.
Status KafkaErrorStatus(rd_kafka_resp_err_t error, std::string_view context);
/// The same for an rd_kafka_error_t (null: OK), honouring its retriable/fatal flags. The error
/// stays the caller's to destroy.
Status KafkaErrorStatus(const rd_kafka_error_t* error, std::string_view context);

/// A librdkafka configuration with every property of `config` set; InvalidArgument naming the
/// property ("kafka.<name>", as the user spelled it in an option) and librdkafka's reason when
/// one is unknown or has a bad value. `client` ("Kafka consumer", "Kafka producer") goes into
/// the message. InvalidArgument when bootstrap.servers is missing.
Result<KafkaConfPtr> MakeKafkaConf(const KafkaClientConfig& config, std::string_view client);

}  // namespace tributary::storage

// A real Kafka protocol peer for tests: librdkafka's mock cluster (../shared/TESTING.md, "Kafka")
// held by the project's test broker program (tools/kafka_test_broker), started on loopback on
// free ports, one per test that asks, and stopped with it. Producers and consumers outside
// tributary reach it too: kcat (Debian) and kafkajs (npm, tests/support/kafka_oracle.mjs), so a
// test checks tributary against independent clients.
//
// Tests that need Kafka never skip: when the broker program, kcat, node or kafkajs is missing,
// the call fails with a message naming what is missing (scripts/setup.sh installs them).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::testing {

/// One record as the independent clients see it (key/value as text; null when absent).
struct KafkaTestRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  int32_t partition = -1;  // -1: let the producer choose
  int64_t offset = -1;
  std::map<std::string, std::string> headers;
};

/// A running test broker (a mock cluster of `brokers` brokers). The destructor stops it; a test
/// process that dies takes it along (the broker exits when its stdin closes).
///
/// Thread-safety: one thread at a time (commands go over one pipe).
class KafkaTestCluster {
 public:
  static Result<std::unique_ptr<KafkaTestCluster>> Start(int brokers = 1);
  ~KafkaTestCluster();
  KafkaTestCluster(const KafkaTestCluster&) = delete;
  KafkaTestCluster& operator=(const KafkaTestCluster&) = delete;

  /// "127.0.0.1:port,...": what kafka.bootstrap.servers takes.
  const std::string& BootstrapServers() const { return bootstrap_; }

  /// Broker commands (the broker program's stdin protocol, tools/kafka_test_broker):
  Status CreateTopic(const std::string& topic, int partitions);
  /// The next `count` requests of API key `api_key` (Kafka's numbering: 1 Fetch, 2 ListOffsets,
  /// 3 Metadata, 0 Produce...) fail with Kafka error code `error_code`.
  Status PushRequestErrors(int api_key, int error_code, int count);
  Status SetBrokerDown(int broker_id, bool down);
  Status SetPartitionLeader(const std::string& topic, int partition, int broker_id);
  /// Retention: deletes the records of `partition` below `offset`, which must be the
  /// partition's end offset (the mock cluster can only drop a partition's whole log: it keeps at
  /// most 5 MiB per partition, and the broker evicts by appending two records of its own). The
  /// low and high watermarks become `offset + 2`; the next record produced gets that offset.
  Status DeleteRecordsBefore(const std::string& topic, int partition, int64_t offset);
  /// (low, high) watermarks of `partition`, as the broker's own client reads them.
  Result<std::pair<int64_t, int64_t>> Watermarks(const std::string& topic, int partition);

  /// Produces with kcat (an independent producer): each record in order, to its partition when
  /// set. Values are sent as given (JSON text for most tests); an absent or empty value is sent
  /// as null (kcat -Z). Keys and values must not hold the bytes 0x1e and 0x1f.
  Status ProduceWithKcat(const std::string& topic, const std::vector<KafkaTestRecord>& records);
  /// Produces with kafkajs (an independent client).
  Status ProduceWithKafkajs(const std::string& topic, const std::vector<KafkaTestRecord>& records);
  /// Every record of `topic` from the beginning to its current end, read by kafkajs with
  /// isolation level read_committed (or read_uncommitted), sorted by (partition, offset).
  Result<std::vector<KafkaTestRecord>> ConsumeWithKafkajs(const std::string& topic,
                                                          bool read_committed = true);

 private:
  KafkaTestCluster() = default;
  struct Process;
  std::unique_ptr<Process> process_;
  std::string bootstrap_;
};

}  // namespace tributary::testing

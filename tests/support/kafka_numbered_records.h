// The records the Kafka client and source tests produce through the test cluster's independent
// clients: key "k<i>" and value "v<i>" for a run of numbers i, so a read back names each one.

#pragma once

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/kafka_test_cluster.h"

namespace tributary::testing {

/// Records "k<i>" -> "v<i>" for i in [first, first + count), each to `partition` with `headers`.
inline std::vector<KafkaTestRecord> NumberedKafkaRecords(
    int partition, int first, int count, const std::map<std::string, std::string>& headers = {}) {
  std::vector<KafkaTestRecord> records;
  records.reserve(static_cast<size_t>(count));
  for (int i = first; i < first + count; ++i) {
    KafkaTestRecord record;
    record.key = fmt::format("k{}", i);
    record.value = fmt::format("v{}", i);
    record.partition = partition;
    record.headers = headers;
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace tributary::testing

// Kafka as a sink (Spark's Kafka sink columns and options), at least once like Spark's, or
// exactly once with `kafka.transactional.id`.
//
// Rows: `value` (string or binary, required), `key`, `topic` (else the `topic` option),
// `partition` (int), `headers` (array<struct<key: string, value: binary>>); any other column is
// an error naming it, as Spark's. The `topic` option, when given, overrides the column.
//
// Exactly once: the micro-batch is one Kafka transaction of a producer whose transactional.id
// is the option's value (one per query: a restart fences its zombie). The transaction also
// commits, for consumer group `<transactional.id>`, the offset batchId + 1 of partition 0 of the
// first topic written (SendOffsetsToTransaction); a batch id at or below what that group has
// committed was delivered already and is skipped, so a batch re-run after a crash neither loses
// nor duplicates records for a read_committed consumer.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "storage/kafka_client.h"
#include "streaming/sink.h"

namespace tributary::streaming {

class KafkaSink final : public Sink {
 public:
  /// InvalidArgument for a missing kafka.bootstrap.servers or a bad option.
  static Result<std::unique_ptr<KafkaSink>> Make(const std::map<std::string, std::string>& options);
  ~KafkaSink() override;
  KafkaSink(const KafkaSink&) = delete;
  KafkaSink& operator=(const KafkaSink&) = delete;
  KafkaSink(KafkaSink&&) = delete;
  KafkaSink& operator=(KafkaSink&&) = delete;

  Result<int64_t> AddBatch(const MicroBatch& batch) override;
  /// "KafkaSink[<topic option or 'topic column'>]".
  std::string Description() const override;

 private:
  struct State;
  explicit KafkaSink(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// `DataFrame.Write().Format("kafka").Save()`: every row of `batches` as a record (the columns
/// as above), at least once (in one transaction with kafka.transactional.id). The number of
/// records written.
Result<int64_t> WriteKafka(const std::vector<columnar::RecordBatchPtr>& batches,
                           const std::map<std::string, std::string>& options);

}  // namespace tributary::streaming

// KinesisClient: the Amazon Kinesis Data Streams calls a streaming source makes, in Kinesis's
// JSON 1.1 protocol (X-Amz-Target: Kinesis_20131202.<Operation>), through the AwsJsonClient the
// SQS client uses too: SigV4 signing of the S3 work, the S3 client's HttpTransport and retries.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/aws_config.h"
#include "storage/s3_client.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

class AwsJsonClient;

/// One shard as ListShards describes it.
struct KinesisShard {
  std::string shard_id;
  /// The shards it was split from or merged from (empty for an original shard).
  std::string parent_shard_id;
  std::string adjacent_parent_shard_id;
  std::string starting_sequence_number;
  /// Set once the shard is closed by a reshard: its last sequence number. Empty while open.
  std::string ending_sequence_number;

  bool Closed() const { return !ending_sequence_number.empty(); }
};

/// One record of GetRecords.
struct KinesisRecord {
  std::string sequence_number;
  std::string partition_key;
  /// The data, base64-decoded.
  std::string data;
  /// ApproximateArrivalTimestamp in microseconds since the epoch.
  int64_t approximate_arrival_micros = 0;
};

/// Where a shard iterator starts (GetShardIterator's ShardIteratorType).
struct KinesisIteratorStart {
  enum class Type : uint8_t {
    kTrimHorizon,
    kLatest,
    kAtTimestamp,
    kAtSequenceNumber,
    kAfterSequenceNumber
  };
  Type type = Type::kTrimHorizon;
  /// kAt/AfterSequenceNumber.
  std::string sequence_number;
  /// kAtTimestamp: milliseconds since the epoch.
  int64_t timestamp_ms = 0;

  /// "TRIM_HORIZON", "AFTER_SEQUENCE_NUMBER 4959..." and so on.
  std::string ToString() const;
};

/// What one GetRecords call returned.
struct KinesisRecordsPage {
  std::vector<KinesisRecord> records;
  /// The iterator to read on with; empty once a closed shard has been read to its end.
  std::string next_iterator;
  int64_t millis_behind_latest = 0;
};

/// Compares two Kinesis sequence numbers (decimal strings of up to 128 bits): <0, 0, >0.
int CompareKinesisSequenceNumbers(std::string_view a, std::string_view b);

/// A client of Kinesis in one region with one set of credentials. The endpoint is the config's
/// endpoint override when it is not an AWS one (an emulator: moto serves every service on one
/// port), else https://kinesis.<region>.amazonaws.com. Requests are repeated after throttling
/// (ProvisionedThroughputExceededException, LimitExceededException), a 5xx or a connection
/// failure, up to S3Config::max_attempts.
///
/// Errors name the operation, the stream (and shard) and Kinesis's error code ("Kinesis
/// GetRecords events/shardId-000000000001: HTTP 400 ExpiredIteratorException: ..."); never a
/// credential.
///
/// Thread-safety: every method may be called concurrently.
class KinesisClient {
 public:
  static Result<std::shared_ptr<KinesisClient>> Make(
      S3Config config, std::shared_ptr<HttpTransport> transport = nullptr);

  /// Every shard of the stream (ListShards, following NextToken), as Kinesis orders them;
  /// `page_size` shards per request when > 0 (MaxResults), else Kinesis's default.
  Result<std::vector<KinesisShard>> ListShards(const std::string& stream, int page_size = 0);

  /// DescribeStreamSummary's StreamStatus ("ACTIVE", "UPDATING", ...).
  Result<std::string> StreamStatus(const std::string& stream);

  Result<std::string> GetShardIterator(const std::string& stream, const std::string& shard_id,
                                       const KinesisIteratorStart& start);

  /// GetRecords of up to `limit` records (Kinesis allows 1..10000). `expired` is set when the
  /// iterator had expired (ExpiredIteratorException: get a new one and repeat).
  Result<KinesisRecordsPage> GetRecords(const std::string& stream, const std::string& shard_id,
                                        const std::string& iterator, int64_t limit,
                                        bool* expired = nullptr);

  /// Requests sent so far, retries included.
  int64_t RequestCount() const;

 private:
  explicit KinesisClient(std::shared_ptr<AwsJsonClient> client) : client_(std::move(client)) {}

  const std::shared_ptr<AwsJsonClient> client_;
};

}  // namespace tributary::storage

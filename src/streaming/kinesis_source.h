// Amazon Kinesis Data Streams as a streaming source, with Databricks' options and rows
// (https://docs.databricks.com/connect/streaming/kinesis.html).
//
// Rows: partitionKey string, data binary, stream string, shardId string, sequenceNumber string,
// approximateArrivalTimestamp timestamp. Offsets are JSON of the stream's shards:
//   {"<shardId>":{"sequenceNumber":"<last read, or empty>","closed":<bool>,
//                 "parent":[<shard ids>]}, ...}
// A batch (start, end] reads each shard's records after start's sequence number up to and
// including end's. A shard from a reshard is read only once its parents are drained (closed and
// read to their end), so a key's records stay in order. Requests are signed with the storage
// layer's SigV4 (the S3 work's), through its AWS configuration (region, endpoint, credentials).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "columnar/schema.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// The Kinesis source's options (Databricks' names, ignoring case).
struct KinesisSourceOptions {
  std::string stream_name;                   // streamName (required)
  std::optional<std::string> region;         // region (else the AWS configuration's)
  std::optional<std::string> endpoint;       // endpoint (a local emulator; else AWS's)
  std::string initial_position = "latest";   // initialPosition: latest, trim_horizon/earliest,
                                             // at_timestamp (with a JSON {"at_timestamp": ...})
  std::optional<int64_t> at_timestamp_ms;
  int64_t max_records_per_fetch = 10000;     // maxRecordsPerFetch
  std::optional<int64_t> max_records_per_trigger;
  /// awsAccessKey / awsSecretKey / awsSessionToken when given (else the AWS configuration).
  std::map<std::string, std::string> credentials;

  static Result<KinesisSourceOptions> FromMap(const std::map<std::string, std::string>& options);
};

columnar::SchemaPtr KinesisSchema();

/// `ReadStream().Format("kinesis")`. Thread-safety: immutable after construction.
class KinesisSourceDefinition final : public SourceDefinition {
 public:
  static Result<std::shared_ptr<const KinesisSourceDefinition>> Make(
      const std::map<std::string, std::string>& options,
      const std::map<std::string, std::string>& session_config);

  columnar::SchemaPtr Schema() const override { return schema_; }
  /// "KinesisSource[<stream>]".
  std::string Description() const override;
  std::string Identity() const override;
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

 private:
  KinesisSourceDefinition(KinesisSourceOptions options,
                          std::map<std::string, std::string> session_config);

  KinesisSourceOptions options_;
  std::map<std::string, std::string> session_config_;
  columnar::SchemaPtr schema_;
};

}  // namespace tributary::streaming

// Amazon Kinesis Data Streams as a streaming source, with Databricks' options and rows
// (https://docs.databricks.com/connect/streaming/kinesis.html).
//
// Rows: partitionKey string, data binary, stream string, shardId string, sequenceNumber string,
// approximateArrivalTimestamp timestamp.
//
// Offsets are JSON of the stream's shards, sorted by shard id, each with the shard iterator
// (type and position) a read goes on from:
//   offset   = "{" [ shard *( "," shard ) ] "}"
//   shard    = json-string ":" "{" "\"iteratorType\":" type "," "\"iteratorPosition\":" position
//              "," "\"closed\":" bool "," "\"drained\":" bool "," "\"parents\":" "[" ids "]" "}"
//   type     = "TRIM_HORIZON" | "AT_TIMESTAMP" | "AFTER_SEQUENCE_NUMBER"
//   position = "" (TRIM_HORIZON) | epoch milliseconds (AT_TIMESTAMP) | the last sequence number
//   read
// A batch (start, end] reads each shard's records after start's position up to and including
// end's sequence number. A shard from a reshard (split or merge) is read only once all its
// parents are drained (closed and read to their end), so a key's records stay in order; shards
// appearing after the start begin at TRIM_HORIZON.
//
// The first LatestOffset pins the starting positions of the shards present then in
// `<metadata_dir>/0` ("v1" line, then the offset JSON): initialPosition trim_horizon (earliest)
// as TRIM_HORIZON, at_timestamp as AT_TIMESTAMP, and latest as AT_TIMESTAMP of that moment (so
// a restart reads the same records: a LATEST iterator cannot be replayed). LatestOffset reads
// ahead with GetRecords and keeps the records per shard, so GetBatch of the range it returned
// is served from memory; after a restart GetBatch reads again with AFTER_SEQUENCE_NUMBER from
// start's position up to end's, the same records. Requests are signed with the storage layer's
// SigV4 (the S3 work's) through storage::KinesisClient.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "streaming/source.h"
#include "streaming/source_options.h"

namespace tributary::streaming {

/// The Kinesis source's options (Databricks' names, ignoring case).
struct KinesisSourceOptions {
  /// streamName (required): a comma-separated list of one or more streams, each read whole.
  std::vector<std::string> stream_names;
  std::optional<std::string> region;    // region (else the AWS configuration's)
  std::optional<std::string> endpoint;  // endpoint (e.g. a local emulator; else AWS's)
  /// initialPosition: latest (default), trim_horizon or earliest, at_timestamp (as the JSON
  /// {"at_timestamp": "<time>", "format": "<Spark datetime pattern>"}; without a format the
  /// time is read as CAST reads a timestamp, zone-less text in UTC).
  std::string initial_position = "latest";
  std::optional<int64_t> at_timestamp_ms;
  /// maxRecordsPerFetch: records per GetRecords call, and per shard per trigger when the
  /// trigger respects limits. Default 10000 (Kinesis's maximum).
  int64_t max_records_per_fetch = 10000;
  /// awsAccessKey / awsSecretKey / awsSessionToken when given (else the AWS configuration).
  std::map<std::string, std::string> credentials;

  static Result<KinesisSourceOptions> FromMap(const std::map<std::string, std::string>& options);
};

/// The keys the Kinesis source takes, and Databricks' that it refuses by name.
SourceOptionKeys KinesisSourceOptionKeys();

columnar::SchemaPtr KinesisSchema();

/// `ReadStream().Format("kinesis")`. Thread-safety: immutable after construction.
class KinesisSourceDefinition final : public SourceDefinition {
 public:
  static Result<std::shared_ptr<const KinesisSourceDefinition>> Make(
      const std::map<std::string, std::string>& options,
      const std::map<std::string, std::string>& session_config);

  columnar::SchemaPtr Schema() const override { return schema_; }
  /// "KinesisSource[<stream>,...]".
  std::string Description() const override;
  std::string Identity() const override;
  /// Resolves the AWS configuration (session fs.s3a.* keys, AWS_* variables, profiles) with
  /// the options overriding region, endpoint and keys; the endpoint is the `endpoint` option,
  /// else AWS_ENDPOINT_URL_KINESIS, else the configuration's emulator endpoint, else AWS's.
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

 private:
  KinesisSourceDefinition(KinesisSourceOptions options,
                          std::map<std::string, std::string> session_config);

  KinesisSourceOptions options_;
  std::map<std::string, std::string> session_config_;
  columnar::SchemaPtr schema_;
};

}  // namespace tributary::streaming

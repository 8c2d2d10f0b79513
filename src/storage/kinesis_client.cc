// Kinesis's JSON 1.1 protocol (Amazon Kinesis Data Streams API Reference): ListShards pages by
// NextToken (a request with NextToken names no stream), record data is base64, timestamps are
// epoch seconds with a fraction.

#include "storage/kinesis_client.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "storage/aws_json_client.h"

namespace tributary::storage {

namespace {

using Json = nlohmann::json;

Result<std::string> KinesisBase64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::IOError("record data is not base64 (length not a multiple of 4)");
  }
  std::string out(text.size() / 4 * 3, '\0');
  const int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                     reinterpret_cast<const unsigned char*>(text.data()),
                                     static_cast<int>(text.size()));
  if (length < 0) {
    return Status::IOError("record data is not base64");
  }
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') {
    padding = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  }
  out.resize(static_cast<size_t>(length) - padding);
  return out;
}

/// Epoch seconds (a number, possibly fractional) as microseconds.
int64_t KinesisTimestampMicros(const Json& value) {
  if (value.is_number()) {
    return static_cast<int64_t>(std::llround(value.get<double>() * 1e6));
  }
  return 0;
}

const char* KinesisIteratorTypeName(KinesisIteratorStart::Type type) {
  switch (type) {
    case KinesisIteratorStart::Type::kTrimHorizon:
      return "TRIM_HORIZON";
    case KinesisIteratorStart::Type::kLatest:
      return "LATEST";
    case KinesisIteratorStart::Type::kAtTimestamp:
      return "AT_TIMESTAMP";
    case KinesisIteratorStart::Type::kAtSequenceNumber:
      return "AT_SEQUENCE_NUMBER";
    case KinesisIteratorStart::Type::kAfterSequenceNumber:
      return "AFTER_SEQUENCE_NUMBER";
  }
  return "TRIM_HORIZON";
}

std::string KinesisStringField(const Json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

std::string KinesisIteratorStart::ToString() const {
  switch (type) {
    case Type::kAtSequenceNumber:
    case Type::kAfterSequenceNumber:
      return fmt::format("{} {}", KinesisIteratorTypeName(type), sequence_number);
    case Type::kAtTimestamp:
      return fmt::format("{} {} ms", KinesisIteratorTypeName(type), timestamp_ms);
    default:
      return KinesisIteratorTypeName(type);
  }
}

int CompareKinesisSequenceNumbers(std::string_view a, std::string_view b) {
  const auto strip = [](std::string_view text) {
    const size_t first = text.find_first_not_of('0');
    return first == std::string_view::npos ? std::string_view() : text.substr(first);
  };
  a = strip(a);
  b = strip(b);
  if (a.size() != b.size()) {
    return a.size() < b.size() ? -1 : 1;
  }
  const int compared = a.compare(b);
  return compared < 0 ? -1 : (compared > 0 ? 1 : 0);
}

Result<std::shared_ptr<KinesisClient>> KinesisClient::Make(
    S3Config config, std::shared_ptr<HttpTransport> transport) {
  AwsJsonService service{.display_name = "Kinesis",
                         .signing_name = "kinesis",
                         .target_prefix = "Kinesis_20131202",
                         .content_type = "application/x-amz-json-1.1",
                         .transient_codes = {"ProvisionedThroughputExceededException",
                                             "LimitExceededException", "ThrottlingException",
                                             "KMSThrottlingException", "InternalFailureException"}};
  TRIBUTARY_ASSIGN_OR_RAISE(auto client, AwsJsonClient::Make(std::move(service), std::move(config),
                                                             std::move(transport)));
  return std::shared_ptr<KinesisClient>(new KinesisClient(std::move(client)));
}

int64_t KinesisClient::RequestCount() const {
  return client_->RequestCount();
}

Result<std::vector<KinesisShard>> KinesisClient::ListShards(const std::string& stream,
                                                            int page_size) {
  std::vector<KinesisShard> shards;
  std::string next_token;
  do {
    // NextToken identifies the stream: the two cannot be sent together.
    Json request =
        next_token.empty() ? Json{{"StreamName", stream}} : Json{{"NextToken", next_token}};
    if (page_size > 0) {
      request["MaxResults"] = page_size;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(Json response, client_->Call("ListShards", stream, request.dump()));
    const Json listed = response.value("Shards", Json::array());
    if (!listed.is_array()) {
      return Status::IOError(fmt::format("Kinesis ListShards {}: Shards is not a list", stream));
    }
    for (const Json& shard : listed) {
      if (!shard.is_object()) {
        continue;
      }
      KinesisShard parsed;
      parsed.shard_id = KinesisStringField(shard, "ShardId");
      parsed.parent_shard_id = KinesisStringField(shard, "ParentShardId");
      parsed.adjacent_parent_shard_id = KinesisStringField(shard, "AdjacentParentShardId");
      const Json range = shard.value("SequenceNumberRange", Json::object());
      if (range.is_object()) {
        parsed.starting_sequence_number = KinesisStringField(range, "StartingSequenceNumber");
        parsed.ending_sequence_number = KinesisStringField(range, "EndingSequenceNumber");
      }
      if (parsed.shard_id.empty()) {
        return Status::IOError(
            fmt::format("Kinesis ListShards {}: a shard without ShardId", stream));
      }
      shards.push_back(std::move(parsed));
    }
    next_token = KinesisStringField(response, "NextToken");
  } while (!next_token.empty());
  return shards;
}

Result<std::string> KinesisClient::StreamStatus(const std::string& stream) {
  TRIBUTARY_ASSIGN_OR_RAISE(Json response, client_->Call("DescribeStreamSummary", stream,
                                                         Json{{"StreamName", stream}}.dump()));
  const Json summary = response.value("StreamDescriptionSummary", Json::object());
  std::string status = summary.is_object() ? KinesisStringField(summary, "StreamStatus") : "";
  if (status.empty()) {
    return Status::IOError(
        fmt::format("Kinesis DescribeStreamSummary {}: no StreamStatus in the response", stream));
  }
  return status;
}

Result<std::string> KinesisClient::GetShardIterator(const std::string& stream,
                                                    const std::string& shard_id,
                                                    const KinesisIteratorStart& start) {
  Json request{{"StreamName", stream},
               {"ShardId", shard_id},
               {"ShardIteratorType", KinesisIteratorTypeName(start.type)}};
  if (start.type == KinesisIteratorStart::Type::kAtSequenceNumber ||
      start.type == KinesisIteratorStart::Type::kAfterSequenceNumber) {
    request["StartingSequenceNumber"] = start.sequence_number;
  } else if (start.type == KinesisIteratorStart::Type::kAtTimestamp) {
    request["Timestamp"] = static_cast<double>(start.timestamp_ms) / 1000.0;
  }
  const std::string resource = fmt::format("{}/{} {}", stream, shard_id, start.ToString());
  TRIBUTARY_ASSIGN_OR_RAISE(Json response,
                            client_->Call("GetShardIterator", resource, request.dump()));
  std::string iterator = KinesisStringField(response, "ShardIterator");
  if (iterator.empty()) {
    return Status::IOError(
        fmt::format("Kinesis GetShardIterator {}: no ShardIterator in the response", resource));
  }
  return iterator;
}

Result<KinesisRecordsPage> KinesisClient::GetRecords(const std::string& stream,
                                                     const std::string& shard_id,
                                                     const std::string& iterator, int64_t limit,
                                                     bool* expired) {
  const std::string resource = fmt::format("{}/{}", stream, shard_id);
  const Json request{{"ShardIterator", iterator}, {"Limit", std::clamp<int64_t>(limit, 1, 10000)}};
  AwsJsonError error;
  Result<Json> response = client_->Call("GetRecords", resource, request.dump(), &error);
  if (expired != nullptr) {
    *expired = !response.ok() && error.code == "ExpiredIteratorException";
  }
  TRIBUTARY_RETURN_NOT_OK(response.status());
  KinesisRecordsPage page;
  page.next_iterator = KinesisStringField(*response, "NextShardIterator");
  const auto behind = response->find("MillisBehindLatest");
  if (behind != response->end() && behind->is_number_integer()) {
    page.millis_behind_latest = behind->get<int64_t>();
  }
  const Json records = response->value("Records", Json::array());
  if (!records.is_array()) {
    return Status::IOError(fmt::format("Kinesis GetRecords {}: Records is not a list", resource));
  }
  page.records.reserve(records.size());
  for (const Json& record : records) {
    if (!record.is_object()) {
      continue;
    }
    KinesisRecord parsed;
    parsed.sequence_number = KinesisStringField(record, "SequenceNumber");
    parsed.partition_key = KinesisStringField(record, "PartitionKey");
    Result<std::string> data = KinesisBase64Decode(KinesisStringField(record, "Data"));
    if (!data.ok()) {
      return Status::IOError(fmt::format("Kinesis GetRecords {}: record {}: {}", resource,
                                         parsed.sequence_number, data.status().Message()));
    }
    parsed.data = std::move(*data);
    const auto arrival = record.find("ApproximateArrivalTimestamp");
    if (arrival != record.end()) {
      parsed.approximate_arrival_micros = KinesisTimestampMicros(*arrival);
    }
    if (parsed.sequence_number.empty()) {
      return Status::IOError(
          fmt::format("Kinesis GetRecords {}: a record without SequenceNumber", resource));
    }
    page.records.push_back(std::move(parsed));
  }
  return page;
}

}  // namespace tributary::storage

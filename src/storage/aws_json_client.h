// The AWS JSON protocol shared by the SQS and Kinesis clients: POST / with
// `X-Amz-Target: <prefix>.<Operation>` and an application/x-amz-json-1.x body, signed with SigV4
// (storage/sigv4.h) and sent through the S3 client's HttpTransport, with the S3 client's retries
// (BackOffOrGiveUp) after throttling, a 5xx or a connection failure. Errors answer 4xx/5xx with
// {"__type": "...#<Code>", "message": ...}.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "storage/aws_config.h"
#include "storage/s3_client.h"
#include "tributary/result.h"

namespace tributary::storage {

/// How one AWS service speaks the JSON protocol.
struct AwsJsonService {
  /// The name in messages: "SQS", "Kinesis".
  std::string display_name;
  /// The SigV4 service name and endpoint prefix: "sqs", "kinesis".
  std::string signing_name;
  /// The X-Amz-Target prefix: "AmazonSQS", "Kinesis_20131202".
  std::string target_prefix;
  /// "application/x-amz-json-1.0" (SQS) or "application/x-amz-json-1.1" (Kinesis).
  std::string content_type;
  /// Error codes (the part of __type after '#') worth repeating the request for, besides HTTP
  /// 429 and 5xx answers.
  std::vector<std::string> transient_codes;
};

/// A failed call's HTTP status (0 when no answer came) and the service's error code.
struct AwsJsonError {
  int http_status = 0;
  std::string code;
};

/// One endpoint of one JSON-protocol service, with one set of credentials.
///
/// Thread-safety: Call may be called concurrently.
class AwsJsonClient {
 public:
  /// The client of `service` with `config`: its endpoint is the S3 endpoint override when there
  /// is one that is not AWS's (an emulator such as moto serves every service on one port), else
  /// https://<signing_name>.<region>.amazonaws.com. Sends through `transport`, or a curl
  /// transport with `config`'s timeouts when null.
  static Result<std::shared_ptr<AwsJsonClient>> Make(AwsJsonService service, S3Config config,
                                                     std::shared_ptr<HttpTransport> transport);

  /// Sends `operation` with the JSON `body`, repeating transient failures up to
  /// S3Config::max_attempts; the response's JSON object. An IOError "<Service> <operation>
  /// <resource>: HTTP <status> <Code>: <message>" otherwise, with the code in `error` when given.
  Result<nlohmann::json> Call(std::string_view operation, std::string_view resource,
                              const std::string& body, AwsJsonError* error = nullptr);

  const std::string& Name() const { return service_.display_name; }
  const S3Config& Config() const { return config_; }
  /// Requests sent so far, retries included.
  int64_t RequestCount() const { return requests_.load(std::memory_order_relaxed); }

 private:
  AwsJsonClient(AwsJsonService service, S3Config config, HttpEndpoint endpoint,
                std::shared_ptr<HttpTransport> transport);

  const AwsJsonService service_;
  const S3Config config_;
  const HttpEndpoint endpoint_;
  const std::shared_ptr<HttpTransport> transport_;
  std::atomic<int64_t> requests_{0};
};

}  // namespace tributary::storage

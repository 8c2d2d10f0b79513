// SqsClient: the Amazon SQS calls Auto Loader's notification mode makes (the queue S3 sends its
// event notifications to), in SQS's JSON protocol, signed with SigV4 and sent through the S3
// client's HttpTransport with the same retries.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "storage/aws_config.h"
#include "storage/aws_json_client.h"
#include "storage/s3_client.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// One received message.
struct SqsMessage {
  std::string message_id;
  /// What DeleteMessageBatch needs to delete it (valid until its visibility timeout ends).
  std::string receipt_handle;
  std::string body;
};

/// A client of SQS in one region with one set of credentials (an AwsJsonClient). The endpoint is
/// the S3 endpoint override when there is one that is not AWS's (a local emulator such as moto
/// serves every service on one port), else https://sqs.<region>.amazonaws.com. Requests are
/// repeated with RetryBackoff after throttling, a 5xx or a connection failure, up to
/// S3Config::max_attempts.
///
/// Errors name the operation, the queue and SQS's error code ("SQS ReceiveMessage
/// https://.../q: HTTP 400 QueueDoesNotExist: ..."); never a credential.
///
/// Thread-safety: every method may be called concurrently.
class SqsClient {
 public:
  /// A client sending through `transport`, or through a curl transport with `config`'s
  /// timeouts when null.
  static Result<std::shared_ptr<SqsClient>> Make(
      S3Config config, std::shared_ptr<HttpTransport> transport = nullptr);

  /// CreateQueue `name` (standard queue); returns its URL. Idempotent: the URL of the existing
  /// queue when there is one with the same attributes.
  Result<std::string> CreateQueue(const std::string& name);

  /// The queue's ARN (GetQueueAttributes QueueArn).
  Result<std::string> GetQueueArn(const std::string& queue_url);

  /// SetQueueAttributes Policy: the queue's access policy (an IAM policy document).
  Status SetQueuePolicy(const std::string& queue_url, const std::string& policy_json);

  /// ReceiveMessage of up to 10 messages, without waiting: none when the queue is empty.
  Result<std::vector<SqsMessage>> ReceiveMessages(const std::string& queue_url);

  /// DeleteMessageBatch of up to 10 received messages; an IOError names the first failure.
  Status DeleteMessages(const std::string& queue_url, std::span<const SqsMessage> messages);

  /// Requests sent so far, retries included.
  int64_t RequestCount() const { return client_->RequestCount(); }

 private:
  explicit SqsClient(std::shared_ptr<AwsJsonClient> client) : client_(std::move(client)) {}

  const std::shared_ptr<AwsJsonClient> client_;
};

}  // namespace tributary::storage

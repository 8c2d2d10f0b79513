// S3ObjectCreatedQueue: the objects created below an S3 prefix as S3 event notifications to an
// SQS queue announce them — Auto Loader's notification mode on S3. The queue is made and the
// bucket's notification configured here, or a queue someone else set up is read as is.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/aws_config.h"
#include "storage/s3_client.h"
#include "storage/sqs_client.h"
#include "tributary/result.h"

namespace tributary::storage {

/// The objects an S3 event notification message announces as created (Records[] with an
/// eventName "ObjectCreated:*"; keys decoded). None for s3:TestEvent and other events.
/// InvalidArgument for a body that is not an S3 event notification.
Result<std::vector<S3Location>> ParseS3CreatedObjects(std::string_view message_body);

/// Thread-safety: one thread at a time.
class S3ObjectCreatedQueue {
 public:
  /// The notifications of objects created below `base_uri` ("s3://bucket/landing" or s3a://).
  /// With a non-empty `queue_url` that queue is read as is (its notifications are someone
  /// else's to set up). Otherwise queue `queue_name` is created (or found), its policy lets the
  /// bucket send to it, and the bucket notifies it of s3:ObjectCreated:* below the base's key
  /// prefix (notification configuration id `queue_name`).
  static Result<std::unique_ptr<S3ObjectCreatedQueue>> Open(const S3Config& config,
                                                            std::string base_uri,
                                                            std::string queue_url,
                                                            const std::string& queue_name);

  /// The URIs, spelled below base_uri, of the objects created below it that the waiting
  /// messages announce, reading at most `max_receives` batches of up to 10 without waiting.
  /// The messages read are deleted: whoever called must keep the URIs until it has taken them.
  Result<std::vector<std::string>> Receive(int max_receives);

  const std::string& QueueUrl() const { return queue_url_; }
  /// SQS requests so far.
  int64_t SqsRequestCount() const { return sqs_->RequestCount(); }

 private:
  S3ObjectCreatedQueue(std::shared_ptr<SqsClient> sqs, std::string base_uri, S3Location base,
                       std::string queue_url);

  std::shared_ptr<SqsClient> sqs_;
  std::string base_uri_;
  S3Location base_;
  std::string queue_url_;
};

}  // namespace tributary::storage

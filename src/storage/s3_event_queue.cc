// S3 event notification messages (Amazon S3 User Guide, "Event message structure"):
//   {"Records":[{"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},
//                "object":{"key":"landing/a+b.json","size":2,...}}}, ...]}
// with the key URL-encoded ('+' a space); a new configuration first sends
// {"Service":"Amazon S3","Event":"s3:TestEvent",...}.

#include "storage/s3_event_queue.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/path.h"
#include "storage/s3_file_system.h"

namespace tributary::storage {

namespace {
using Json = nlohmann::json;
}  // namespace

Result<std::vector<S3Location>> ParseS3CreatedObjects(std::string_view message_body) {
  Json message = Json::parse(message_body, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object()) {
    return Status::InvalidArgument("an S3 event notification is a JSON object");
  }
  std::vector<S3Location> created;
  const auto records = message.find("Records");
  if (records == message.end()) {
    if (message.contains("Event")) {
      return created;  // s3:TestEvent
    }
    return Status::InvalidArgument("the message has neither Records nor Event: no S3 event");
  }
  if (!records->is_array()) {
    return Status::InvalidArgument("the S3 event's Records is not a list");
  }
  for (const Json& record : *records) {
    if (!record.is_object() ||
        !record.value("eventName", std::string()).starts_with("ObjectCreated:")) {
      continue;
    }
    const Json s3 = record.value("s3", Json::object());
    const Json bucket = s3.is_object() ? s3.value("bucket", Json::object()) : Json();
    const Json object = s3.is_object() ? s3.value("object", Json::object()) : Json();
    if (!bucket.is_object() || !object.is_object()) {
      return Status::InvalidArgument("an ObjectCreated record without s3.bucket or s3.object");
    }
    S3Location location{bucket.value("name", std::string()),
                        UrlDecode(object.value("key", std::string()))};
    if (location.bucket.empty() || location.key.empty()) {
      return Status::InvalidArgument("an ObjectCreated record without a bucket name or key");
    }
    created.push_back(std::move(location));
  }
  return created;
}

S3ObjectCreatedQueue::S3ObjectCreatedQueue(std::shared_ptr<SqsClient> sqs, std::string base_uri,
                                           S3Location base, std::string queue_url)
    : sqs_(std::move(sqs)),
      base_uri_(std::move(base_uri)),
      base_(std::move(base)),
      queue_url_(std::move(queue_url)) {}

Result<std::unique_ptr<S3ObjectCreatedQueue>> S3ObjectCreatedQueue::Open(
    const S3Config& config, std::string base_uri, std::string queue_url,
    const std::string& queue_name) {
  while (base_uri.ends_with('/')) {
    base_uri.pop_back();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(S3Location base, ParseS3Uri(base_uri));
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<SqsClient> sqs, SqsClient::Make(config));
  if (queue_url.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(queue_url, sqs->CreateQueue(queue_name));
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string queue_arn, sqs->GetQueueArn(queue_url));
    // Only S3, and only for this bucket, may send to the queue.
    const Json policy{
        {"Version", "2012-10-17"},
        {"Statement",
         Json::array({{{"Effect", "Allow"},
                       {"Principal", {{"Service", "s3.amazonaws.com"}}},
                       {"Action", "sqs:SendMessage"},
                       {"Resource", queue_arn},
                       {"Condition",
                        {{"ArnLike", {{"aws:SourceArn", "arn:aws:s3:::" + base.bucket}}}}}}})}};
    TRIBUTARY_RETURN_NOT_OK(sqs->SetQueuePolicy(queue_url, policy.dump()));
    TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<S3Client> s3, S3Client::Make(config));
    TRIBUTARY_RETURN_NOT_OK(s3->PutBucketQueueNotification(base.bucket, queue_name, queue_arn,
                                                           base.key.empty() ? "" : base.key + "/"));
  }
  return std::unique_ptr<S3ObjectCreatedQueue>(new S3ObjectCreatedQueue(
      std::move(sqs), std::move(base_uri), std::move(base), std::move(queue_url)));
}

Result<std::vector<std::string>> S3ObjectCreatedQueue::Receive(int max_receives) {
  std::vector<std::string> uris;
  const std::string key_prefix = base_.key.empty() ? "" : base_.key + "/";
  for (int i = 0; i < max_receives; ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<SqsMessage> messages, sqs_->ReceiveMessages(queue_url_));
    if (messages.empty()) {
      break;
    }
    for (const SqsMessage& message : messages) {
      Result<std::vector<S3Location>> created = ParseS3CreatedObjects(message.body);
      if (!created.ok()) {
        return created.status().WithContext(
            fmt::format("SQS message {} of {}", message.message_id, queue_url_));
      }
      for (const S3Location& object : *created) {
        // A queue given by the user may carry other buckets' or prefixes' events.
        if (object.bucket == base_.bucket && object.key.starts_with(key_prefix) &&
            object.key.size() > key_prefix.size()) {
          uris.push_back(
              JoinPath(base_uri_, std::string_view(object.key).substr(key_prefix.size())));
        }
      }
    }
    TRIBUTARY_RETURN_NOT_OK(sqs_->DeleteMessages(queue_url_, messages));
  }
  return uris;
}

}  // namespace tributary::storage

// SQS's JSON protocol (Amazon SQS API Reference): POST / with `X-Amz-Target: AmazonSQS.<Action>`
// and an application/x-amz-json-1.0 body; errors answer 4xx/5xx with {"__type":
// "com.amazonaws.sqs#<Code>", "message": ...}.

#include "storage/sqs_client.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tributary::storage {

namespace {

using Json = nlohmann::json;

}  // namespace

Result<std::shared_ptr<SqsClient>> SqsClient::Make(S3Config config,
                                                   std::shared_ptr<HttpTransport> transport) {
  AwsJsonService service{
      .display_name = "SQS",
      .signing_name = "sqs",
      .target_prefix = "AmazonSQS",
      .content_type = "application/x-amz-json-1.0",
      .transient_codes = {"ThrottlingException", "RequestThrottled", "KmsThrottled"}};
  TRIBUTARY_ASSIGN_OR_RAISE(auto client, AwsJsonClient::Make(std::move(service), std::move(config),
                                                             std::move(transport)));
  return std::shared_ptr<SqsClient>(new SqsClient(std::move(client)));
}

Result<std::string> SqsClient::CreateQueue(const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(Json response,
                            client_->Call("CreateQueue", name, Json{{"QueueName", name}}.dump()));
  std::string url = response.value("QueueUrl", std::string());
  if (url.empty()) {
    return Status::IOError(fmt::format("SQS CreateQueue {}: no QueueUrl in the response", name));
  }
  return url;
}

Result<std::string> SqsClient::GetQueueArn(const std::string& queue_url) {
  const Json request{{"QueueUrl", queue_url}, {"AttributeNames", Json::array({"QueueArn"})}};
  TRIBUTARY_ASSIGN_OR_RAISE(Json response,
                            client_->Call("GetQueueAttributes", queue_url, request.dump()));
  const Json attributes = response.value("Attributes", Json::object());
  std::string arn = attributes.is_object() ? attributes.value("QueueArn", std::string()) : "";
  if (arn.empty()) {
    return Status::IOError(
        fmt::format("SQS GetQueueAttributes {}: no QueueArn in the response", queue_url));
  }
  return arn;
}

Status SqsClient::SetQueuePolicy(const std::string& queue_url, const std::string& policy_json) {
  const Json request{{"QueueUrl", queue_url}, {"Attributes", {{"Policy", policy_json}}}};
  return client_->Call("SetQueueAttributes", queue_url, request.dump()).status();
}

Result<std::vector<SqsMessage>> SqsClient::ReceiveMessages(const std::string& queue_url) {
  // WaitTimeSeconds 0: a trigger never blocks on the queue; what is not there yet comes with a
  // later trigger.
  const Json request{{"QueueUrl", queue_url}, {"MaxNumberOfMessages", 10}, {"WaitTimeSeconds", 0}};
  TRIBUTARY_ASSIGN_OR_RAISE(Json response,
                            client_->Call("ReceiveMessage", queue_url, request.dump()));
  std::vector<SqsMessage> messages;
  const Json listed = response.value("Messages", Json::array());
  if (!listed.is_array()) {
    return Status::IOError(fmt::format("SQS ReceiveMessage {}: Messages is not a list", queue_url));
  }
  for (const Json& message : listed) {
    if (!message.is_object()) {
      continue;
    }
    messages.push_back({message.value("MessageId", std::string()),
                        message.value("ReceiptHandle", std::string()),
                        message.value("Body", std::string())});
  }
  return messages;
}

Status SqsClient::DeleteMessages(const std::string& queue_url,
                                 std::span<const SqsMessage> messages) {
  if (messages.empty()) {
    return Status::OK();
  }
  Json entries = Json::array();
  for (size_t i = 0; i < messages.size(); ++i) {
    entries.push_back({{"Id", std::to_string(i)}, {"ReceiptHandle", messages[i].receipt_handle}});
  }
  const Json request{{"QueueUrl", queue_url}, {"Entries", std::move(entries)}};
  TRIBUTARY_ASSIGN_OR_RAISE(Json response,
                            client_->Call("DeleteMessageBatch", queue_url, request.dump()));
  const Json failed = response.value("Failed", Json::array());
  if (!failed.is_array() || failed.empty() || !failed.front().is_object()) {
    return Status::OK();
  }
  const Json& first = failed.front();
  return Status::IOError(
      fmt::format("SQS DeleteMessageBatch {}: {} of {} messages not deleted, the first {}: {}",
                  queue_url, failed.size(), messages.size(), first.value("Code", std::string()),
                  first.value("Message", std::string())));
}

}  // namespace tributary::storage

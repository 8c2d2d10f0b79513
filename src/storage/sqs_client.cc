// SQS's JSON protocol (Amazon SQS API Reference): POST / with `X-Amz-Target: AmazonSQS.<Action>`
// and an application/x-amz-json-1.0 body; errors answer 4xx/5xx with {"__type":
// "com.amazonaws.sqs#<Code>", "message": ...}.

#include "storage/sqs_client.h"

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/sigv4.h"

namespace tributary::storage {

namespace {

using Json = nlohmann::json;

/// SQS's error code and message of a failed response.
struct SqsError {
  std::string code;
  std::string message;
};

SqsError SqsErrorOf(const HttpResponse& response) {
  SqsError error{fmt::format("HTTP{}", response.status), ""};
  Json body = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) {
    std::string type = body.value("__type", std::string());
    if (!type.empty()) {
      error.code = type.substr(type.find('#') + 1);
    }
    error.message = body.value("message", body.value("Message", std::string()));
  }
  return error;
}

bool IsTransientSqsError(int status, std::string_view code) {
  return status == 429 || status >= 500 || code == "ThrottlingException" ||
         code == "RequestThrottled" || code == "KmsThrottled";
}

Result<Json> ParseResponse(std::string_view operation, const std::string& queue,
                           const std::string& body) {
  Json json = Json::parse(body.empty() ? std::string("{}") : body, nullptr,
                          /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::IOError(
        fmt::format("SQS {} {}: the response is no JSON object", operation, queue));
  }
  return json;
}

}  // namespace

SqsClient::SqsClient(S3Config config, HttpEndpoint endpoint,
                     std::shared_ptr<HttpTransport> transport)
    : config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      transport_(std::move(transport)) {}

Result<std::shared_ptr<SqsClient>> SqsClient::Make(S3Config config,
                                                   std::shared_ptr<HttpTransport> transport) {
  TRIBUTARY_ASSIGN_OR_RAISE(HttpEndpoint endpoint, AwsServiceEndpoint(config, "sqs"));
  if (endpoint.host.ends_with(".amazonaws.com") || endpoint.host.ends_with(".amazonaws.com.cn")) {
    // An S3 endpoint of AWS's own (regional, FIPS, a VPC endpoint) is S3's alone: SQS answers
    // at its regional endpoint. Other overrides are emulators serving every service.
    S3Config regional = config;
    regional.endpoint.clear();
    TRIBUTARY_ASSIGN_OR_RAISE(endpoint, AwsServiceEndpoint(regional, "sqs"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(transport, TransportOrCurl(config, std::move(transport)));
  config.max_attempts = std::max(config.max_attempts, 1);
  return std::shared_ptr<SqsClient>(
      new SqsClient(std::move(config), std::move(endpoint), std::move(transport)));
}

Result<std::string> SqsClient::Call(std::string_view operation, const std::string& queue,
                                    const std::string& body) {
  const SigV4Request signed_request{
      .method = "POST",
      .host = endpoint_.host,
      .encoded_path = "/",
      .query = {},
      .headers = {{"Content-Type", "application/x-amz-json-1.0"},
                  {"X-Amz-Target", fmt::format("AmazonSQS.{}", operation)}},
      .payload_sha256_hex = Sha256Hex(body)};

  HttpRequest http;
  http.method = "POST";
  http.url = fmt::format("{}://{}/", endpoint_.scheme, endpoint_.host);
  http.body = body;
  for (int attempt = 1;; ++attempt) {
    http.headers = signed_request.headers;
    http.headers.emplace_back("Host", endpoint_.host);
    for (auto& header : SignV4(signed_request, config_.credentials, config_.region, "sqs",
                               static_cast<int64_t>(std::time(nullptr)))) {
      http.headers.push_back(std::move(header));
    }
    requests_.fetch_add(1, std::memory_order_relaxed);
    Result<HttpResponse> sent = transport_->Send(http);
    Status error;
    bool transient = false;
    if (!sent.ok()) {
      transient = sent.status().IsRetryable();
      error =
          Status::IOError(fmt::format("SQS {} {}: {}", operation, queue, sent.status().Message()));
    } else if (sent->status >= 200 && sent->status < 300) {
      return std::move(sent->body);
    } else {
      const SqsError sqs_error = SqsErrorOf(*sent);
      transient = IsTransientSqsError(sent->status, sqs_error.code);
      error = Status::IOError(
          fmt::format("SQS {} {}: HTTP {} {}{}{}", operation, queue, sent->status, sqs_error.code,
                      sqs_error.message.empty() ? "" : ": ", sqs_error.message));
    }
    TRIBUTARY_RETURN_NOT_OK(BackOffOrGiveUp(error, transient, attempt, config_.max_attempts));
  }
}

Result<std::string> SqsClient::CreateQueue(const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string body,
                            Call("CreateQueue", name, Json{{"QueueName", name}}.dump()));
  TRIBUTARY_ASSIGN_OR_RAISE(Json response, ParseResponse("CreateQueue", name, body));
  std::string url = response.value("QueueUrl", std::string());
  if (url.empty()) {
    return Status::IOError(fmt::format("SQS CreateQueue {}: no QueueUrl in the response", name));
  }
  return url;
}

Result<std::string> SqsClient::GetQueueArn(const std::string& queue_url) {
  const Json request{{"QueueUrl", queue_url}, {"AttributeNames", Json::array({"QueueArn"})}};
  TRIBUTARY_ASSIGN_OR_RAISE(std::string body,
                            Call("GetQueueAttributes", queue_url, request.dump()));
  TRIBUTARY_ASSIGN_OR_RAISE(Json response, ParseResponse("GetQueueAttributes", queue_url, body));
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
  return Call("SetQueueAttributes", queue_url, request.dump()).status();
}

Result<std::vector<SqsMessage>> SqsClient::ReceiveMessages(const std::string& queue_url) {
  // WaitTimeSeconds 0: a trigger never blocks on the queue; what is not there yet comes with a
  // later trigger.
  const Json request{{"QueueUrl", queue_url}, {"MaxNumberOfMessages", 10}, {"WaitTimeSeconds", 0}};
  TRIBUTARY_ASSIGN_OR_RAISE(std::string body, Call("ReceiveMessage", queue_url, request.dump()));
  TRIBUTARY_ASSIGN_OR_RAISE(Json response, ParseResponse("ReceiveMessage", queue_url, body));
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
  TRIBUTARY_ASSIGN_OR_RAISE(std::string body,
                            Call("DeleteMessageBatch", queue_url, request.dump()));
  TRIBUTARY_ASSIGN_OR_RAISE(Json response, ParseResponse("DeleteMessageBatch", queue_url, body));
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

#include "storage/aws_json_client.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/sigv4.h"

namespace tributary::storage {

namespace {

using Json = nlohmann::json;

/// The service's error code and message of a failed response.
struct AwsJsonFailure {
  std::string code;
  std::string message;
};

AwsJsonFailure AwsJsonFailureOf(const HttpResponse& response) {
  AwsJsonFailure failure{fmt::format("HTTP{}", response.status), ""};
  Json body = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) {
    std::string type = body.value("__type", std::string());
    if (!type.empty()) {
      failure.code = type.substr(type.find('#') + 1);
    }
    failure.message = body.value("message", body.value("Message", std::string()));
  }
  return failure;
}

}  // namespace

AwsJsonClient::AwsJsonClient(AwsJsonService service, S3Config config, HttpEndpoint endpoint,
                             std::shared_ptr<HttpTransport> transport)
    : service_(std::move(service)),
      config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      transport_(std::move(transport)) {}

Result<std::shared_ptr<AwsJsonClient>> AwsJsonClient::Make(
    AwsJsonService service, S3Config config, std::shared_ptr<HttpTransport> transport) {
  TRIBUTARY_ASSIGN_OR_RAISE(HttpEndpoint endpoint,
                            AwsServiceEndpoint(config, service.signing_name));
  if (endpoint.host.ends_with(".amazonaws.com") || endpoint.host.ends_with(".amazonaws.com.cn")) {
    // An S3 endpoint of AWS's own (regional, FIPS, a VPC endpoint) is S3's alone: the service
    // answers at its regional endpoint. Other overrides are emulators serving every service.
    S3Config regional = config;
    regional.endpoint.clear();
    TRIBUTARY_ASSIGN_OR_RAISE(endpoint, AwsServiceEndpoint(regional, service.signing_name));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(transport, TransportOrCurl(config, std::move(transport)));
  config.max_attempts = std::max(config.max_attempts, 1);
  return std::shared_ptr<AwsJsonClient>(new AwsJsonClient(
      std::move(service), std::move(config), std::move(endpoint), std::move(transport)));
}

Result<Json> AwsJsonClient::Call(std::string_view operation, std::string_view resource,
                                 const std::string& body, AwsJsonError* error_out) {
  const SigV4Request signed_request{
      .method = "POST",
      .host = endpoint_.host,
      .encoded_path = "/",
      .query = {},
      .headers = {{"Content-Type", service_.content_type},
                  {"X-Amz-Target", fmt::format("{}.{}", service_.target_prefix, operation)}},
      .payload_sha256_hex = Sha256Hex(body)};

  HttpRequest http;
  http.method = "POST";
  http.url = fmt::format("{}://{}/", endpoint_.scheme, endpoint_.host);
  http.body = body;
  for (int attempt = 1;; ++attempt) {
    http.headers = signed_request.headers;
    http.headers.emplace_back("Host", endpoint_.host);
    for (auto& header : SignV4(signed_request, config_.credentials, config_.region,
                               service_.signing_name, static_cast<int64_t>(std::time(nullptr)))) {
      http.headers.push_back(std::move(header));
    }
    requests_.fetch_add(1, std::memory_order_relaxed);
    Result<HttpResponse> sent = transport_->Send(http);
    Status error;
    bool transient = false;
    if (!sent.ok()) {
      transient = sent.status().IsRetryable();
      error = Status::IOError(fmt::format("{} {} {}: {}", service_.display_name, operation,
                                          resource, sent.status().Message()));
      if (error_out != nullptr) {
        *error_out = AwsJsonError{};
      }
    } else if (sent->status >= 200 && sent->status < 300) {
      Json json = Json::parse(sent->body.empty() ? std::string("{}") : sent->body, nullptr,
                              /*allow_exceptions=*/false);
      if (!json.is_object()) {
        return Status::IOError(fmt::format("{} {} {}: the response is no JSON object",
                                           service_.display_name, operation, resource));
      }
      return json;
    } else {
      const AwsJsonFailure failure = AwsJsonFailureOf(*sent);
      transient = sent->status == 429 || sent->status >= 500 ||
                  std::find(service_.transient_codes.begin(), service_.transient_codes.end(),
                            failure.code) != service_.transient_codes.end();
      error = Status::IOError(fmt::format("{} {} {}: HTTP {} {}{}{}", service_.display_name,
                                          operation, resource, sent->status, failure.code,
                                          failure.message.empty() ? "" : ": ", failure.message));
      if (error_out != nullptr) {
        *error_out = AwsJsonError{sent->status, failure.code};
      }
    }
    TRIBUTARY_RETURN_NOT_OK(BackOffOrGiveUp(error, transient, attempt, config_.max_attempts));
  }
}

}  // namespace tributary::storage

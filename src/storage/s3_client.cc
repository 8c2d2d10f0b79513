// The S3 REST API as tributary uses it (Amazon S3 API Reference): every operation is a Request
// that Execute builds into a URL, signs, sends and retries. XML bodies (ListObjectsV2,
// ListMultipartUploads, DeleteObjects, multipart uploads, errors) are read and written with
// pugixml.

#include "storage/s3_client.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <curl/curl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <pugixml.hpp>

#include "common/ascii.h"
#include "storage/sigv4.h"

namespace tributary::storage {

namespace {

/// Backoff bounds of BackOffOrGiveUp.
constexpr std::chrono::milliseconds kBaseBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{20000};
/// Idle curl handles kept for reuse; more concurrent requests make and free their own.
constexpr size_t kMaxIdleCurlHandles = 64;

/// Which counter of StorageRequestCounts a request adds to.
enum class RequestKind : int8_t { kList, kGet, kPut, kDelete };

// ---------------------------------------------------------------------------------------------
// libcurl transport

size_t AppendToString(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

/// Collects "Name: value" lines; a status line starts over (after "100 Continue").
size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::vector<std::pair<std::string, std::string>>*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers->clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string_view value = line.substr(colon + 1);
    size_t begin = value.find_first_not_of(" \t");
    size_t end = value.find_last_not_of(" \t\r\n");
    value =
        begin == std::string_view::npos ? std::string_view() : value.substr(begin, end - begin + 1);
    headers->emplace_back(AsciiLower(line.substr(0, colon)), std::string(value));
  }
  return size * count;
}

/// Failures after which repeating the request may succeed: the network or the server dropped
/// it, or it timed out.
bool IsTransientCurlError(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

struct CurlHandleDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlHandleDeleter>;

struct CurlHeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

/// Sends each request on a curl easy handle taken from a pool: a handle keeps its connections
/// open after a request, so the next request to the same host skips the TCP and TLS handshakes.
class CurlHttpTransport final : public HttpTransport {
 public:
  CurlHttpTransport(int64_t connect_timeout_ms, int64_t request_timeout_ms)
      : connect_timeout_ms_(connect_timeout_ms), request_timeout_ms_(request_timeout_ms) {}

  Result<HttpResponse> Send(const HttpRequest& request) override {
    CurlHandle handle = Acquire();
    if (handle == nullptr) {
      return Status::IOError("cannot create a curl handle", /*retryable=*/true);
    }
    CURL* curl = handle.get();
    curl_slist* raw_headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      raw_headers = curl_slist_append(raw_headers, fmt::format("{}: {}", name, value).c_str());
    }
    // curl would add "Expect: 100-continue" to large bodies; "Expect:" tells it not to send
    // the header at all (it is not signed, and S3 needs no handshake before the body).
    raw_headers = curl_slist_append(raw_headers, "Expect:");
    std::unique_ptr<curl_slist, CurlHeaderListDeleter> headers(raw_headers);

    HttpResponse response;
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);  // keys may hold "." or ".." segments
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout_ms_));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_ms_));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendToString);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
    if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (request.method == "GET") {
      curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      if (request.method != "DELETE") {
        // The body is sent from the caller's memory with a Content-Length, never chunked.
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
      }
    }
    CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    Release(std::move(handle));
    if (code != CURLE_OK) {
      return Status::IOError(
          fmt::format("{} {}: {} (curl error {})", request.method,
                      request.url.substr(0, request.url.find('?')),
                      error[0] != '\0' ? error : curl_easy_strerror(code), static_cast<int>(code)),
          IsTransientCurlError(code));
    }
    response.status = static_cast<int>(status);
    return response;
  }

 private:
  CurlHandle Acquire() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        CurlHandle handle = std::move(idle_.back());
        idle_.pop_back();
        return handle;
      }
    }
    return CurlHandle(curl_easy_init());
  }

  /// Returns `handle` to the pool with its options cleared; its connections stay open.
  void Release(CurlHandle handle) {
    curl_easy_reset(handle.get());
    std::lock_guard lock(mutex_);
    if (idle_.size() < kMaxIdleCurlHandles) {
      idle_.push_back(std::move(handle));
    }
  }

  const int64_t connect_timeout_ms_;
  const int64_t request_timeout_ms_;
  std::mutex mutex_;
  std::vector<CurlHandle> idle_;
};

// ---------------------------------------------------------------------------------------------
// Encodings

std::string LowerHex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xf]);
  }
  return hex;
}

/// The raw 16-byte MD5 of `data`.
std::string Md5(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

std::string Md5Hex(std::string_view data) {
  std::string digest = Md5(data);
  return LowerHex(reinterpret_cast<const unsigned char*>(digest.data()), digest.size());
}

std::string Base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int size = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                             reinterpret_cast<const unsigned char*>(data.data()),
                             static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(size));
  return out;
}

/// The bytes of hexadecimal `hex`; empty when it is not an even number of hex digits.
std::string HexBytes(std::string_view hex) {
  std::string bytes;
  if (hex.size() % 2 != 0) {
    return bytes;
  }
  for (size_t i = 0; i < hex.size(); i += 2) {
    int high = HexDigitValue(hex[i]);
    int low = HexDigitValue(hex[i + 1]);
    if (high < 0 || low < 0) {
      return {};
    }
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

}  // namespace

std::string UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && HexDigitValue(text[i + 1]) >= 0 &&
               HexDigitValue(text[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(HexDigitValue(text[i + 1]) * 16 + HexDigitValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

namespace {

/// An ETag without its quotes.
std::string_view Unquoted(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    return etag.substr(1, etag.size() - 2);
  }
  return etag;
}

/// Milliseconds since the epoch of an ISO 8601 UTC time as listings give it
/// ("2026-12-02T03:21:37.000Z"); 0 when it does not parse.
int64_t ParseIso8601Ms(const std::string& text) {
  struct tm parts = {};
  int millis = 0;
  int fields = std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%d", &parts.tm_year, &parts.tm_mon,
                           &parts.tm_mday, &parts.tm_hour, &parts.tm_min, &parts.tm_sec, &millis);
  if (fields < 6) {
    return 0;
  }
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&parts)) * 1000 + (fields == 7 ? millis : 0);
}

/// Milliseconds since the epoch of an HTTP date ("Wed, 02 Dec 2026 03:21:37 GMT"); 0 when it
/// does not parse.
int64_t ParseHttpDateMs(const std::string& text) {
  time_t seconds = curl_getdate(text.c_str(), nullptr);
  return seconds < 0 ? 0 : static_cast<int64_t>(seconds) * 1000;
}

int64_t ParseInt64(std::string_view text) {
  int64_t value = 0;
  for (char c : text) {
    if (!IsAsciiDigit(c)) {
      return -1;
    }
    value = value * 10 + (c - '0');
  }
  return text.empty() ? -1 : value;
}

// ---------------------------------------------------------------------------------------------
// Responses

/// The XML document of a response body; null when the body is not well-formed XML.
std::unique_ptr<pugi::xml_document> ParseXml(const std::string& body) {
  auto document = std::make_unique<pugi::xml_document>();
  if (!document->load_buffer(body.data(), body.size())) {
    return nullptr;
  }
  return document;
}

/// S3's error code and message of a failed response; for a body-less one (HEAD) a code named
/// after the HTTP status.
struct S3Error {
  std::string code;
  std::string message;
};

S3Error S3ErrorOf(const HttpResponse& response) {
  if (auto document = ParseXml(response.body)) {
    pugi::xml_node error = document->child("Error");
    if (error) {
      return {error.child_value("Code"), error.child_value("Message")};
    }
  }
  switch (response.status) {
    case 301:
      return {"PermanentRedirect", "the bucket is in another region or needs another endpoint"};
    case 400:
      return {"BadRequest", ""};
    case 403:
      return {"Forbidden", "access denied"};
    case 404:
      return {"NotFound", "not found"};
    case 412:
      return {"PreconditionFailed", "a precondition did not hold"};
    case 503:
      return {"ServiceUnavailable", ""};
    default:
      return {fmt::format("HTTP{}", response.status), ""};
  }
}

/// Whether a failure with this status and code may succeed when repeated: throttling, server
/// errors, a conditional write that raced another (409), a request S3 timed out reading.
bool IsTransientS3Error(int status, std::string_view code) {
  switch (status) {
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    case 409:
      return code == "ConditionalRequestConflict" || code == "OperationAborted";
    case 400:
      return code == "RequestTimeout";
    default:
      return false;
  }
}

/// Whether a 200 response carries an error after all: CompleteMultipartUpload and CopyObject
/// answer 200 at once and may fail while sending the body.
bool IsErrorDocument(const HttpResponse& response) {
  auto document = ParseXml(response.body);
  return document != nullptr && document->child("Error");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public types

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [header, value] : headers) {
    if (header == name) {
      return value;
    }
  }
  return {};
}

Result<std::shared_ptr<HttpTransport>> MakeCurlHttpTransport(int64_t connect_timeout_ms,
                                                             int64_t request_timeout_ms) {
  static std::once_flag once;
  static CURLcode init_code = CURLE_OK;
  std::call_once(once, [] { init_code = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init_code != CURLE_OK) {
    return Status::IOError(
        fmt::format("cannot initialize libcurl: {}", curl_easy_strerror(init_code)));
  }
  return std::shared_ptr<HttpTransport>(
      std::make_shared<CurlHttpTransport>(connect_timeout_ms, request_timeout_ms));
}

Result<HttpEndpoint> AwsServiceEndpoint(const S3Config& config, std::string_view service) {
  HttpEndpoint endpoint;
  if (config.endpoint.empty()) {
    endpoint = {"https", fmt::format("{}.{}.amazonaws.com", service, config.region)};
    return endpoint;
  }
  std::string_view rest = config.endpoint;
  size_t scheme_end = rest.find("://");
  endpoint.scheme =
      scheme_end == std::string_view::npos ? "https" : AsciiLower(rest.substr(0, scheme_end));
  if (scheme_end != std::string_view::npos) {
    rest.remove_prefix(scheme_end + 3);
  }
  while (rest.ends_with('/')) {
    rest.remove_suffix(1);
  }
  if ((endpoint.scheme != "http" && endpoint.scheme != "https") || rest.empty() ||
      rest.find_first_of("/?#@") != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("{} endpoint '{}' is not an http(s)://host[:port] URL", AsciiUpper(service),
                    config.endpoint));
  }
  endpoint.host = std::string(rest);
  return endpoint;
}

Result<std::shared_ptr<HttpTransport>> TransportOrCurl(const S3Config& config,
                                                       std::shared_ptr<HttpTransport> transport) {
  if (transport != nullptr) {
    return transport;
  }
  return MakeCurlHttpTransport(config.connect_timeout_ms, config.request_timeout_ms);
}

Status BackOffOrGiveUp(const Status& error, bool transient, int attempt, int max_attempts) {
  if (!transient || attempt >= max_attempts) {
    if (attempt == 1) {
      return error.WithRetryable(transient);
    }
    return Status(error.Code(), fmt::format("{} (after {} attempts)", error.Message(), attempt),
                  transient);
  }
  thread_local std::mt19937_64 random{std::random_device{}()};
  const int64_t ceiling = std::min<int64_t>(kMaxBackoff.count(),
                                            kBaseBackoff.count() << std::clamp(attempt - 1, 0, 20));
  std::uniform_int_distribution<int64_t> jitter(0, ceiling);
  std::this_thread::sleep_for(std::chrono::milliseconds(jitter(random)));
  return Status::OK();
}

std::string S3Location::ToString() const {
  return key.empty() ? fmt::format("s3://{}", bucket) : fmt::format("s3://{}/{}", bucket, key);
}

/// One S3 API call, before it is addressed and signed.
struct S3Client::Request {
  Request(std::string_view operation_name, RequestKind request_kind, std::string_view http_method,
          S3Location location)
      : operation(operation_name),
        kind(request_kind),
        method(http_method),
        object(std::move(location)) {}

  /// The API operation's name, for messages: "PutObject".
  std::string_view operation;
  RequestKind kind;
  std::string_view method;
  S3Location object;
  std::vector<std::pair<std::string, std::string>> query;
  /// Signed and sent (Host and the signature's headers are added).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  /// If-None-Match: * is set: 412 means the key exists (AlreadyExists).
  bool conditional_create = false;
  /// A 200 response may carry an <Error> document.
  bool error_in_ok_response = false;
};

S3Client::S3Client(S3Config config, Endpoint endpoint, std::shared_ptr<HttpTransport> transport)
    : config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      transport_(std::move(transport)) {}

S3Client::~S3Client() = default;

Result<std::shared_ptr<S3Client>> S3Client::Make(S3Config config,
                                                 std::shared_ptr<HttpTransport> transport) {
  if (config.part_size_bytes < kS3MinPartSizeBytes) {
    return Status::InvalidArgument(
        fmt::format("S3 part size {} is below S3's minimum of 5 MiB ({} bytes)",
                    config.part_size_bytes, kS3MinPartSizeBytes));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(Endpoint endpoint, AwsServiceEndpoint(config, "s3"));
  TRIBUTARY_ASSIGN_OR_RAISE(transport, TransportOrCurl(config, std::move(transport)));
  config.max_attempts = std::max(config.max_attempts, 1);
  return std::shared_ptr<S3Client>(
      new S3Client(std::move(config), std::move(endpoint), std::move(transport)));
}

Result<HttpResponse> S3Client::Execute(const Request& request, bool* outcome_unknown) {
  const S3Location& object = request.object;
  // Virtual-hosted addressing cannot carry a bucket with dots over TLS (the certificate is
  // for *.s3.<region>.amazonaws.com), so such buckets go path-style, as the AWS SDKs do.
  bool path_style = config_.path_style || object.bucket.find('.') != std::string::npos;
  SigV4Request signed_request;
  signed_request.method = std::string(request.method);
  signed_request.host = path_style ? endpoint_.host : object.bucket + "." + endpoint_.host;
  signed_request.encoded_path = path_style ? "/" + object.bucket : "";
  if (!path_style || !object.key.empty()) {
    signed_request.encoded_path += "/" + UriEncode(object.key, /*encode_slash=*/false);
  }
  signed_request.query = request.query;
  signed_request.headers = request.headers;
  signed_request.payload_sha256_hex = Sha256Hex(request.body);

  HttpRequest http;
  http.method = signed_request.method;
  http.url =
      fmt::format("{}://{}{}", endpoint_.scheme, signed_request.host, signed_request.encoded_path);
  if (!request.query.empty()) {
    http.url += "?" + CanonicalQueryString(request.query);
  }
  http.body = request.body;
  const bool mutating = request.method != "GET" && request.method != "HEAD";

  for (int attempt = 1;; ++attempt) {
    http.headers = request.headers;
    http.headers.emplace_back("Host", signed_request.host);
    for (auto& header : SignV4(signed_request, config_.credentials, config_.region, "s3",
                               static_cast<int64_t>(std::time(nullptr)))) {
      http.headers.push_back(std::move(header));
    }
    switch (request.kind) {
      case RequestKind::kList:
        list_requests_.fetch_add(1, std::memory_order_relaxed);
        break;
      case RequestKind::kGet:
        get_requests_.fetch_add(1, std::memory_order_relaxed);
        break;
      case RequestKind::kPut:
        put_requests_.fetch_add(1, std::memory_order_relaxed);
        bytes_written_.fetch_add(static_cast<int64_t>(request.body.size()),
                                 std::memory_order_relaxed);
        break;
      case RequestKind::kDelete:
        delete_requests_.fetch_add(1, std::memory_order_relaxed);
        break;
    }

    Result<HttpResponse> sent = transport_->Send(http);
    Status error;
    bool transient = false;
    bool maybe_applied = false;
    if (!sent.ok()) {
      transient = sent.status().IsRetryable();
      maybe_applied = true;
      error = Status::IOError(fmt::format("S3 {} {}: {}", request.operation, object.ToString(),
                                          sent.status().Message()));
    } else {
      HttpResponse& response = *sent;
      if (request.kind == RequestKind::kGet) {
        bytes_read_.fetch_add(static_cast<int64_t>(response.body.size()),
                              std::memory_order_relaxed);
      }
      bool success = response.status >= 200 && response.status < 300;
      if (success && !(request.error_in_ok_response && IsErrorDocument(response))) {
        return std::move(response);
      }
      // An error inside a 200 response is the server's failure after it accepted the request.
      S3Error s3_error = S3ErrorOf(response);
      transient = IsTransientS3Error(success ? 500 : response.status, s3_error.code);
      maybe_applied = success || response.status >= 500;
      std::string message = fmt::format("S3 {} {}: HTTP {} {}{}{}", request.operation,
                                        object.ToString(), response.status, s3_error.code,
                                        s3_error.message.empty() ? "" : ": ", s3_error.message);
      std::string_view region = response.Header("x-amz-bucket-region");
      if (!region.empty() && region != config_.region) {
        message += fmt::format(" (the bucket is in region {}, not {})", region, config_.region);
      }
      if (response.status == 404) {
        error = Status::NotFound(std::move(message));
      } else if (response.status == 412 && request.conditional_create) {
        error = Status::AlreadyExists(std::move(message));
      } else {
        error = Status::IOError(std::move(message));
      }
    }
    if (maybe_applied && mutating && outcome_unknown != nullptr) {
      *outcome_unknown = true;
    }
    TRIBUTARY_RETURN_NOT_OK(BackOffOrGiveUp(error, transient, attempt, config_.max_attempts));
  }
}

Result<bool> S3Client::HasEtag(const S3Location& object, std::string_view etag) {
  Result<S3ObjectInfo> info = HeadObject(object);
  if (info.status().IsNotFound()) {
    return false;
  }
  TRIBUTARY_RETURN_NOT_OK(info.status());
  return !etag.empty() && EqualsIgnoreAsciiCase(info->etag, etag);
}

Result<S3ObjectInfo> S3Client::HeadObject(const S3Location& object) {
  Request request("HeadObject", RequestKind::kGet, "HEAD", object);
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  S3ObjectInfo info;
  info.key = object.key;
  info.size = ParseInt64(response.Header("content-length"));
  info.modification_time_ms = ParseHttpDateMs(std::string(response.Header("last-modified")));
  info.etag = std::string(Unquoted(response.Header("etag")));
  if (info.size < 0) {
    return Status::IOError(fmt::format("S3 HeadObject {}: no valid Content-Length in the response",
                                       object.ToString()));
  }
  return info;
}

Status S3Client::GetObjectRange(const S3Location& object, int64_t offset, std::span<char> out,
                                std::string_view if_match_etag) {
  if (out.empty()) {
    return Status::OK();
  }
  const auto length = static_cast<int64_t>(out.size());
  Request request("GetObject", RequestKind::kGet, "GET", object);
  request.headers.emplace_back("Range", fmt::format("bytes={}-{}", offset, offset + length - 1));
  if (!if_match_etag.empty()) {
    request.headers.emplace_back("If-Match", fmt::format("\"{}\"", if_match_etag));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  std::string_view body = response.body;
  if (response.status == 200 && static_cast<int64_t>(body.size()) >= offset + length) {
    body = body.substr(static_cast<size_t>(offset));  // the server ignored the range
  }
  if (static_cast<int64_t>(body.size()) < length) {
    return Status::IOError(
        fmt::format("S3 GetObject {}: asked for {} bytes at offset {}, received {}",
                    object.ToString(), length, offset, body.size()),
        /*retryable=*/true);
  }
  std::copy_n(body.data(), out.size(), out.data());
  return Status::OK();
}

Status S3Client::PutObject(const S3Location& object, std::string_view body, WriteMode mode) {
  Request request("PutObject", RequestKind::kPut, "PUT", object);
  request.headers.emplace_back("Content-Type", "application/octet-stream");
  if (mode == WriteMode::kPutIfAbsent) {
    request.headers.emplace_back("If-None-Match", "*");
    request.conditional_create = true;
  }
  request.body = body;
  bool outcome_unknown = false;
  Result<HttpResponse> response = Execute(request, &outcome_unknown);
  if (response.status().IsAlreadyExists() && outcome_unknown) {
    // An earlier attempt may have created the object: if what is there is our body, the
    // write is ours and succeeded.
    TRIBUTARY_ASSIGN_OR_RAISE(bool ours, HasEtag(object, Md5Hex(body)));
    if (ours) {
      return Status::OK();
    }
  }
  return response.status();
}

Result<S3ListPage> S3Client::ListObjectsV2(const std::string& bucket, const S3ListRequest& list) {
  Request request("ListObjectsV2", RequestKind::kList, "GET", {bucket, ""});
  request.query = {{"list-type", "2"},
                   {"encoding-type", "url"},
                   {"max-keys", std::to_string(list.max_keys)},
                   {"prefix", list.prefix}};
  if (!list.delimiter.empty()) {
    request.query.emplace_back("delimiter", list.delimiter);
  }
  if (!list.start_after.empty()) {
    request.query.emplace_back("start-after", list.start_after);
  }
  if (!list.continuation_token.empty()) {
    request.query.emplace_back("continuation-token", list.continuation_token);
  }
  S3Location listed{bucket, list.prefix};
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  auto document = ParseXml(response.body);
  pugi::xml_node result = document ? document->child("ListBucketResult") : pugi::xml_node();
  if (!result) {
    return Status::IOError(
        fmt::format("S3 ListObjectsV2 {}: the response is no ListBucketResult", listed.ToString()));
  }
  const bool url_encoded = std::string_view(result.child_value("EncodingType")) == "url";
  auto decode = [&](const char* text) {
    return url_encoded ? UrlDecode(text) : std::string(text);
  };
  S3ListPage page;
  for (pugi::xml_node contents : result.children("Contents")) {
    S3ObjectInfo info;
    info.key = decode(contents.child_value("Key"));
    info.size = ParseInt64(contents.child_value("Size"));
    info.modification_time_ms = ParseIso8601Ms(contents.child_value("LastModified"));
    info.etag = std::string(Unquoted(contents.child_value("ETag")));
    page.objects.push_back(std::move(info));
  }
  for (pugi::xml_node common : result.children("CommonPrefixes")) {
    page.common_prefixes.push_back(decode(common.child_value("Prefix")));
  }
  if (std::string_view(result.child_value("IsTruncated")) == "true") {
    page.next_continuation_token = result.child_value("NextContinuationToken");
    if (page.next_continuation_token.empty()) {
      return Status::IOError(fmt::format(
          "S3 ListObjectsV2 {}: a truncated page without a continuation token", listed.ToString()));
    }
  }
  return page;
}

Status S3Client::DeleteObject(const S3Location& object) {
  return Execute(Request("DeleteObject", RequestKind::kDelete, "DELETE", object)).status();
}

Status S3Client::DeleteObjects(const std::string& bucket, std::span<const std::string> keys) {
  if (keys.empty()) {
    return Status::OK();
  }
  pugi::xml_document document;
  pugi::xml_node root = document.append_child("Delete");
  root.append_child("Quiet").text().set("true");
  for (const std::string& key : keys) {
    root.append_child("Object").append_child("Key").text().set(key.c_str());
  }
  std::ostringstream xml;
  document.save(xml, "", pugi::format_raw);
  const std::string body = xml.str();

  Request request("DeleteObjects", RequestKind::kDelete, "POST", {bucket, ""});
  request.query = {{"delete", ""}};
  request.headers = {{"Content-Type", "application/xml"}, {"Content-MD5", Base64(Md5(body))}};
  request.body = body;
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  auto result = ParseXml(response.body);
  pugi::xml_node errors = result ? result->child("DeleteResult").child("Error") : pugi::xml_node();
  if (!errors) {
    return Status::OK();
  }
  int failed = 0;
  bool transient = true;
  for (pugi::xml_node error : result->child("DeleteResult").children("Error")) {
    std::string_view code = error.child_value("Code");
    ++failed;
    transient = transient && (code == "InternalError" || code == "SlowDown");
  }
  return Status::IOError(
      fmt::format("S3 DeleteObjects {}: {} of {} keys not deleted, the first {}: {}: {}",
                  S3Location{bucket, ""}.ToString(), failed, keys.size(),
                  S3Location{bucket, errors.child_value("Key")}.ToString(),
                  errors.child_value("Code"), errors.child_value("Message")),
      transient);
}

Status S3Client::CopyObject(const S3Location& source, const S3Location& destination) {
  Request request("CopyObject", RequestKind::kPut, "PUT", destination);
  request.headers.emplace_back(
      "x-amz-copy-source",
      fmt::format("/{}/{}", source.bucket, UriEncode(source.key, /*encode_slash=*/false)));
  request.error_in_ok_response = true;
  return Execute(request).status().WithContext(fmt::format("copying {}", source.ToString()));
}

Result<std::string> S3Client::CreateMultipartUpload(const S3Location& object) {
  Request request("CreateMultipartUpload", RequestKind::kPut, "POST", object);
  request.query = {{"uploads", ""}};
  request.headers.emplace_back("Content-Type", "application/octet-stream");
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  auto document = ParseXml(response.body);
  std::string upload_id =
      document ? document->child("InitiateMultipartUploadResult").child_value("UploadId") : "";
  if (upload_id.empty()) {
    return Status::IOError(
        fmt::format("S3 CreateMultipartUpload {}: no UploadId in the response", object.ToString()));
  }
  return upload_id;
}

Result<std::string> S3Client::UploadPart(const S3Location& object, const std::string& upload_id,
                                         int part_number, std::string_view body) {
  Request request("UploadPart", RequestKind::kPut, "PUT", object);
  request.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  request.headers.emplace_back("Content-Type", "application/octet-stream");
  request.body = body;
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  std::string etag(Unquoted(response.Header("etag")));
  if (etag.empty()) {
    return Status::IOError(fmt::format("S3 UploadPart {} part {}: no ETag in the response",
                                       object.ToString(), part_number));
  }
  return etag;
}

Status S3Client::CompleteMultipartUpload(const S3Location& object, const std::string& upload_id,
                                         std::span<const std::string> part_etags, WriteMode mode) {
  std::string body = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < part_etags.size(); ++i) {
    body += fmt::format("<Part><ETag>\"{}\"</ETag><PartNumber>{}</PartNumber></Part>",
                        part_etags[i], i + 1);
  }
  body += "</CompleteMultipartUpload>";
  Request request("CompleteMultipartUpload", RequestKind::kPut, "POST", object);
  request.query = {{"uploadId", upload_id}};
  request.headers.emplace_back("Content-Type", "application/xml");
  if (mode == WriteMode::kPutIfAbsent) {
    request.headers.emplace_back("If-None-Match", "*");
    request.conditional_create = true;
  }
  request.body = body;
  request.error_in_ok_response = true;
  bool outcome_unknown = false;
  Result<HttpResponse> response = Execute(request, &outcome_unknown);
  if ((response.status().IsAlreadyExists() || response.status().IsNotFound()) && outcome_unknown) {
    // An earlier attempt may have completed the upload (a retry then finds it gone, or the
    // key taken): the object is ours when its ETag is our parts' multipart ETag.
    std::string part_md5s;
    for (const std::string& etag : part_etags) {
      part_md5s += HexBytes(etag);
    }
    if (part_md5s.size() == 16 * part_etags.size()) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          bool ours, HasEtag(object, fmt::format("{}-{}", Md5Hex(part_md5s), part_etags.size())));
      if (ours) {
        return Status::OK();
      }
    }
  }
  if (response.status().IsNotFound()) {
    // The upload vanished (aborted elsewhere, or expired): the write failed, the key is free.
    return Status::IOError(response.status().Message(), /*retryable=*/true);
  }
  return response.status();
}

Status S3Client::AbortMultipartUpload(const S3Location& object, const std::string& upload_id) {
  Request request("AbortMultipartUpload", RequestKind::kPut, "DELETE", object);
  request.query = {{"uploadId", upload_id}};
  Status status = Execute(request).status();
  return status.IsNotFound() ? Status::OK() : status;
}

Result<std::vector<S3MultipartUpload>> S3Client::ListMultipartUploads(const std::string& bucket,
                                                                      const std::string& prefix) {
  Request request("ListMultipartUploads", RequestKind::kList, "GET", {bucket, ""});
  request.query = {{"uploads", ""}, {"prefix", prefix}};
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse response, Execute(request));
  auto document = ParseXml(response.body);
  pugi::xml_node result =
      document ? document->child("ListMultipartUploadsResult") : pugi::xml_node();
  if (!result) {
    return Status::IOError(
        fmt::format("S3 ListMultipartUploads {}: the response is no ListMultipartUploadsResult",
                    S3Location{bucket, prefix}.ToString()));
  }
  std::vector<S3MultipartUpload> uploads;
  for (pugi::xml_node upload : result.children("Upload")) {
    uploads.push_back({upload.child_value("Key"), upload.child_value("UploadId")});
  }
  return uploads;
}

Status S3Client::PutBucketQueueNotification(const std::string& bucket, const std::string& id,
                                            const std::string& queue_arn,
                                            const std::string& key_prefix) {
  Request get("GetBucketNotificationConfiguration", RequestKind::kGet, "GET", {bucket, ""});
  get.query = {{"notification", ""}};
  TRIBUTARY_ASSIGN_OR_RAISE(HttpResponse current, Execute(get));
  pugi::xml_document document;
  pugi::xml_node root;
  if (auto parsed = ParseXml(current.body)) {
    document.reset(*parsed);
    root = document.child("NotificationConfiguration");
  }
  if (!root) {
    document.reset();
    root = document.append_child("NotificationConfiguration");
    root.append_attribute("xmlns").set_value("http://s3.amazonaws.com/doc/2006-03-01/");
  }
  for (pugi::xml_node queue = root.child("QueueConfiguration"); queue;) {
    pugi::xml_node next = queue.next_sibling("QueueConfiguration");
    if (std::string_view(queue.child_value("Id")) == id) {
      root.remove_child(queue);
    }
    queue = next;
  }
  pugi::xml_node queue = root.append_child("QueueConfiguration");
  queue.append_child("Id").text().set(id.c_str());
  queue.append_child("Queue").text().set(queue_arn.c_str());
  queue.append_child("Event").text().set("s3:ObjectCreated:*");
  if (!key_prefix.empty()) {
    pugi::xml_node rule =
        queue.append_child("Filter").append_child("S3Key").append_child("FilterRule");
    rule.append_child("Name").text().set("prefix");
    rule.append_child("Value").text().set(key_prefix.c_str());
  }
  std::ostringstream xml;
  document.save(xml, "", pugi::format_raw);
  const std::string body = xml.str();
  Request put("PutBucketNotificationConfiguration", RequestKind::kPut, "PUT", {bucket, ""});
  put.query = {{"notification", ""}};
  put.headers = {{"Content-Type", "application/xml"}};
  put.body = body;
  return Execute(put).status();
}

StorageRequestCounts S3Client::RequestCounts() const {
  StorageRequestCounts counts;
  counts.list_requests = list_requests_.load(std::memory_order_relaxed);
  counts.get_requests = get_requests_.load(std::memory_order_relaxed);
  counts.put_requests = put_requests_.load(std::memory_order_relaxed);
  counts.delete_requests = delete_requests_.load(std::memory_order_relaxed);
  counts.bytes_read = bytes_read_.load(std::memory_order_relaxed);
  counts.bytes_written = bytes_written_.load(std::memory_order_relaxed);
  return counts;
}

}  // namespace tributary::storage

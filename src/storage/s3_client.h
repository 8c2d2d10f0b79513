// S3Client: the S3 REST requests tributary makes, each one built, signed with SigV4
// (storage/sigv4.h), sent through an HttpTransport and retried with backoff; and HttpTransport,
// the seam between the client and the network, where tests inject faults.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/aws_config.h"
#include "storage/file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// One HTTP request as it goes on the wire.
struct HttpRequest {
  /// "GET", "HEAD", "PUT", "POST" or "DELETE".
  std::string method;
  /// The whole URL, path and query encoded: "http://127.0.0.1:5055/bucket/a%20b?uploads=".
  std::string url;
  /// Sent as given (Host, Authorization and the other signed headers included).
  std::vector<std::pair<std::string, std::string>> headers;
  /// The request body, not owned: valid until Send returns.
  std::string_view body;
};

/// One HTTP response, whatever its status.
struct HttpResponse {
  int status = 0;
  /// Names lower-cased, values trimmed, in the order received.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// The value of header `name` (lower-case); empty when absent.
  std::string_view Header(std::string_view name) const;
};

/// Sends HTTP requests. The client's one way to the network, so that tests can wrap it to drop,
/// fail or delay requests.
///
/// Thread-safety: Send may be called concurrently.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  /// Sends `request` and returns the response, whatever its status code. Failing to get a
  /// response (connection refused or reset, timeout) is an IOError, retryable when repeating
  /// the request may succeed. The request may have reached the server even then.
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

/// The libcurl transport: keeps connections alive for reuse (a pool of curl handles, one per
/// concurrent request), connects within `connect_timeout_ms` and fails a request that has not
/// completed within `request_timeout_ms`.
Result<std::shared_ptr<HttpTransport>> MakeCurlHttpTransport(int64_t connect_timeout_ms,
                                                             int64_t request_timeout_ms);

/// Where an AWS service answers: "http" or "https" and "host[:port]".
struct HttpEndpoint {
  std::string scheme;
  std::string host;
};

/// Where AWS service `service` ("s3", "sqs") answers with `config`: its endpoint override, an
/// `http(s)://host[:port]` URL (no scheme: https), or `https://<service>.<region>.amazonaws.com`.
/// InvalidArgument naming the service for a malformed override.
Result<HttpEndpoint> AwsServiceEndpoint(const S3Config& config, std::string_view service);

/// `transport`, or when null a curl transport with `config`'s timeouts.
Result<std::shared_ptr<HttpTransport>> TransportOrCurl(const S3Config& config,
                                                       std::shared_ptr<HttpTransport> transport);

/// After attempt `attempt` (from 1) of an AWS request failed with `error`: when the failure is
/// not `transient` or `max_attempts` were made, the error to return ("(after N attempts)"
/// appended when retried, retryable when transient); otherwise sleeps before the next attempt,
/// uniformly in [0, min(20 s, 100 ms * 2^(attempt-1))] (the "full jitter" AWS's SDKs retry
/// with), and returns OK.
Status BackOffOrGiveUp(const Status& error, bool transient, int attempt, int max_attempts);

/// Decodes an object key as S3 sends it URL-encoded (listings with encoding-type=url, event
/// notifications): '+' is a space, %XY a byte.
std::string UrlDecode(std::string_view text);

/// An object's bucket and key. The key has no leading '/'; empty for the bucket itself.
struct S3Location {
  std::string bucket;
  std::string key;

  /// "s3://bucket/key", for messages.
  std::string ToString() const;
  bool operator==(const S3Location& other) const = default;
};

/// What HeadObject and ListObjectsV2 report about an object.
struct S3ObjectInfo {
  std::string key;
  int64_t size = 0;
  /// Last-Modified, milliseconds since the Unix epoch.
  int64_t modification_time_ms = 0;
  /// The ETag without its quotes: the MD5 in hex of a single-PUT object.
  std::string etag;
};

/// One ListObjectsV2 request.
struct S3ListRequest {
  /// Keys that start with this.
  std::string prefix;
  /// Roll keys up to their first delimiter after the prefix into common prefixes; empty: none.
  std::string delimiter;
  /// Keys that sort after this one; empty: from the start.
  std::string start_after;
  /// The previous page's continuation token; empty for the first page.
  std::string continuation_token;
  /// Keys and common prefixes per page (S3 returns at most 1000).
  int max_keys = 1000;
};

/// One page of a listing.
struct S3ListPage {
  std::vector<S3ObjectInfo> objects;
  /// Common prefixes, each ending with the delimiter.
  std::vector<std::string> common_prefixes;
  /// The token for the next page; empty on the last page.
  std::string next_continuation_token;
};

/// A multipart upload in progress (ListMultipartUploads).
struct S3MultipartUpload {
  std::string key;
  std::string upload_id;
};

/// A client of one S3 endpoint with one set of credentials. Each operation is one S3 API call:
/// the request is signed with SigV4 (x-amz-content-sha256 always set), sent, and repeated with
/// exponential backoff and full jitter after throttling (503 SlowDown), a 500, 502 or 504, a
/// conditional-write conflict (409) or a connection failure, up to S3Config::max_attempts.
///
/// Errors name the operation, the object, the HTTP status and S3's error code and message
/// ("S3 PutObject s3://b/k: HTTP 503 SlowDown: Please reduce your request rate. (after 10
/// attempts)"); never a credential. 404 is NotFound, a failed If-None-Match is AlreadyExists,
/// anything else an IOError, retryable when the last attempt failed transiently.
///
/// Thread-safety: every method may be called concurrently.
class S3Client {
 public:
  /// A client sending through `transport`, or through a curl transport with `config`'s
  /// timeouts when null. InvalidArgument for a part size below S3's 5 MiB minimum or a
  /// malformed endpoint.
  static Result<std::shared_ptr<S3Client>> Make(S3Config config,
                                                std::shared_ptr<HttpTransport> transport = nullptr);

  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  const S3Config& Config() const { return config_; }

  /// HeadObject: size, modification time and ETag. NotFound when there is no such object.
  Result<S3ObjectInfo> HeadObject(const S3Location& object);

  /// GetObject of bytes [offset, offset + out.size()) into `out`. With a non-empty
  /// `if_match_etag` the read fails (retryable IOError) when the object was replaced since.
  Status GetObjectRange(const S3Location& object, int64_t offset, std::span<char> out,
                        std::string_view if_match_etag);

  /// PutObject of `body`; with kPutIfAbsent conditional (If-None-Match: *): AlreadyExists when
  /// the key exists, except when an earlier attempt of this call may have succeeded and the
  /// object now there is ours (its ETag is our body's MD5): then OK. kReplace overwrites.
  Status PutObject(const S3Location& object, std::string_view body, WriteMode mode);

  /// One page of ListObjectsV2. Keys are requested URL-encoded and returned decoded.
  Result<S3ListPage> ListObjectsV2(const std::string& bucket, const S3ListRequest& request);

  /// DeleteObject. OK when there is no such object (S3 says nothing).
  Status DeleteObject(const S3Location& object);

  /// DeleteObjects of up to 1000 keys of `bucket`, one request; an IOError names the first
  /// key S3 could not delete, its error code and how many failed.
  Status DeleteObjects(const std::string& bucket, std::span<const std::string> keys);

  /// CopyObject of `source` to `destination`, replacing it (objects up to 5 GiB).
  Status CopyObject(const S3Location& source, const S3Location& destination);

  /// CreateMultipartUpload; returns the upload id.
  Result<std::string> CreateMultipartUpload(const S3Location& object);

  /// UploadPart number `part_number` (from 1); returns the part's ETag.
  Result<std::string> UploadPart(const S3Location& object, const std::string& upload_id,
                                 int part_number, std::string_view body);

  /// CompleteMultipartUpload of parts 1..N with `part_etags`; with kPutIfAbsent conditional as
  /// PutObject, and recognizing our own completed upload after an unknown outcome by its
  /// multipart ETag (the MD5 of the parts' MD5s, "-N").
  Status CompleteMultipartUpload(const S3Location& object, const std::string& upload_id,
                                 std::span<const std::string> part_etags, WriteMode mode);

  /// AbortMultipartUpload: the parts uploaded so far are deleted. OK when the upload is gone.
  Status AbortMultipartUpload(const S3Location& object, const std::string& upload_id);

  /// The multipart uploads in progress under `prefix` (one page of up to 1000).
  Result<std::vector<S3MultipartUpload>> ListMultipartUploads(const std::string& bucket,
                                                              const std::string& prefix);

  /// Makes `bucket` send an event to the SQS queue `queue_arn` for every object created under
  /// `key_prefix` (s3:ObjectCreated:*), as notification configuration `id`: GET and PUT
  /// ?notification, replacing a configuration with this id and keeping the others.
  Status PutBucketQueueNotification(const std::string& bucket, const std::string& id,
                                    const std::string& queue_arn, const std::string& key_prefix);

  /// Requests sent so far, retries included.
  StorageRequestCounts RequestCounts() const;

 private:
  struct Request;
  /// "127.0.0.1:5055", "s3.us-east-1.amazonaws.com".
  using Endpoint = HttpEndpoint;

  S3Client(S3Config config, Endpoint endpoint, std::shared_ptr<HttpTransport> transport);

  /// Builds, signs and sends `request`, retrying transient failures. A 2xx response is
  /// returned; any other final status becomes an error. `outcome_unknown`, when given, is set
  /// when an attempt failed in a way that may have taken effect (no response, or a 5xx).
  Result<HttpResponse> Execute(const Request& request, bool* outcome_unknown = nullptr);

  /// Whether object's ETag is `etag` now: how a conditional write with an unknown outcome
  /// recognizes its own commit.
  Result<bool> HasEtag(const S3Location& object, std::string_view etag);

  const S3Config config_;
  const Endpoint endpoint_;
  const std::shared_ptr<HttpTransport> transport_;
  std::atomic<int64_t> list_requests_{0};
  std::atomic<int64_t> get_requests_{0};
  std::atomic<int64_t> put_requests_{0};
  std::atomic<int64_t> delete_requests_{0};
  std::atomic<int64_t> bytes_read_{0};
  std::atomic<int64_t> bytes_written_{0};
};

}  // namespace tributary::storage

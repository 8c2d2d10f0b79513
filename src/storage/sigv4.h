// AWS Signature Version 4 for S3 requests: the canonical request, string to sign and signing
// key of AWS's "Signature Calculations for the Authorization Header" (single chunk), computed
// with OpenSSL's HMAC-SHA256. Our own, not libcurl's CURLOPT_AWS_SIGV4: Debian 12's libcurl
// neither sorts nor encodes query parameters, so its list requests fail on AWS.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/aws_config.h"

namespace tributary::storage {

/// One HTTP request to sign, as it will be sent.
struct SigV4Request {
  std::string method;        // "GET"
  std::string host;          // "127.0.0.1:5055" or "bucket.s3.us-east-1.amazonaws.com"
  std::string encoded_path;  // the path exactly as sent, already URI-encoded ("/b/k%20x")
  std::vector<std::pair<std::string, std::string>> query;    // decoded names and values
  std::vector<std::pair<std::string, std::string>> headers;  // besides host/x-amz-*; signed
  std::string payload_sha256_hex;                            // or "UNSIGNED-PAYLOAD"
};

/// The headers to send in addition to `request.headers` and Host: Authorization, x-amz-date,
/// x-amz-content-sha256 and, with a session token, x-amz-security-token. All of them except
/// Authorization are signed, with Host and `request.headers`. `now_epoch_seconds` is the
/// signing time (UTC). With anonymous credentials only x-amz-content-sha256 is returned.
std::vector<std::pair<std::string, std::string>> SignV4(const SigV4Request& request,
                                                        const AwsCredentials& credentials,
                                                        std::string_view region,
                                                        std::string_view service,
                                                        int64_t now_epoch_seconds);

/// Lower-case hexadecimal SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// Raw HMAC-SHA256 of `data` under `key` (32 bytes).
std::string HmacSha256(std::string_view key, std::string_view data);

/// RFC 3986 encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - . _ ~) kept,
/// every other byte as %XY with upper-case hex; '/' kept when !encode_slash (object keys in
/// paths).
std::string UriEncode(std::string_view text, bool encode_slash);

/// The query string as sent and signed: names and values UriEncode'd (with '/'), pairs sorted
/// by encoded name then encoded value, joined by '&'; a name without value as "name=".
std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query);

}  // namespace tributary::storage

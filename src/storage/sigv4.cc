// AWS Signature Version 4, single-chunk payload, as the S3 API reference ("Signature
// Calculations for the Authorization Header: Transferring Payload in a Single Chunk") and the
// IAM user guide ("Create a signed AWS API request") define it:
//
//   canonical_request = method '\n' canonical_uri '\n' canonical_query '\n'
//                       canonical_headers '\n' signed_headers '\n' payload_hash
//   canonical_uri     = the path as sent (S3 encodes each key once and never normalizes it)
//   canonical_query   = UriEncode(name) '=' UriEncode(value), sorted, joined by '&'
//   canonical_headers = *(lower(name) ':' trimmed_value '\n'), sorted by name
//   signed_headers    = lower(name) *(';' lower(name))
//   string_to_sign    = "AWS4-HMAC-SHA256" '\n' timestamp '\n' scope '\n'
//                       hex(sha256(canonical_request))
//   scope             = yyyymmdd '/' region '/' service '/' "aws4_request"
//   signing_key       = HMAC(HMAC(HMAC(HMAC("AWS4" secret, yyyymmdd), region), service),
//                            "aws4_request")
//   Authorization     = "AWS4-HMAC-SHA256 Credential=" access_key '/' scope
//                       ",SignedHeaders=" signed_headers ",Signature=" hex(HMAC(signing_key,
//                       string_to_sign))

#include "storage/sigv4.h"

#include <algorithm>
#include <array>
#include <ctime>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/ascii.h"

namespace tributary::storage {

namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xF]);
  }
  return out;
}

bool IsUnreserved(char c) {
  return IsAsciiLetter(c) || IsAsciiDigit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/// The header value as SigV4 signs it: leading and trailing blanks removed, each run of
/// blanks inside replaced by one space.
std::string TrimmedHeaderValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) {
      out.push_back(' ');
      pending_space = false;
    }
    out.push_back(c);
  }
  return out;
}

/// "20130524T000000Z" (the x-amz-date header) for `epoch_seconds`.
std::string AmzTimestamp(int64_t epoch_seconds) {
  const auto seconds = static_cast<std::time_t>(epoch_seconds);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 32> buffer{};
  const size_t length = std::strftime(buffer.data(), buffer.size(), "%Y%m%dT%H%M%SZ", &utc);
  return {buffer.data(), length};
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return Hex({reinterpret_cast<const char*>(digest.data()), length});
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(), &length);
  return {reinterpret_cast<const char*>(mac.data()), length};
}

std::string UriEncode(std::string_view text, bool encode_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (IsUnreserved(c) || (c == '/' && !encode_slash)) {
      out.push_back(c);
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out.push_back('%');
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xF]);
  }
  return out;
}

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) {
    encoded.emplace_back(UriEncode(name, /*encode_slash=*/true),
                         UriEncode(value, /*encode_slash=*/true));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) {
      out.push_back('&');
    }
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> SignV4(const SigV4Request& request,
                                                        const AwsCredentials& credentials,
                                                        std::string_view region,
                                                        std::string_view service,
                                                        int64_t now_epoch_seconds) {
  std::vector<std::pair<std::string, std::string>> added;
  added.emplace_back("x-amz-content-sha256", request.payload_sha256_hex);
  if (credentials.Anonymous()) {
    return added;
  }
  const std::string timestamp = AmzTimestamp(now_epoch_seconds);
  const std::string date = timestamp.substr(0, 8);
  added.emplace_back("x-amz-date", timestamp);
  if (!credentials.session_token.empty()) {
    added.emplace_back("x-amz-security-token", credentials.session_token);
  }

  // Lower-cased names, sorted; a repeated header signs as its values joined by ','.
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(request.headers.size() + added.size() + 1);
  headers.emplace_back("host", TrimmedHeaderValue(request.host));
  for (const auto& [name, value] : request.headers) {
    headers.emplace_back(AsciiLower(name), TrimmedHeaderValue(value));
  }
  for (const auto& [name, value] : added) {
    headers.emplace_back(name, TrimmedHeaderValue(value));
  }
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  std::string signed_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.pop_back();  // the '\n' of the previous value of this header
      canonical_headers.push_back(',');
    } else {
      if (!signed_headers.empty()) {
        signed_headers.push_back(';');
      }
      signed_headers += headers[i].first;
      canonical_headers += headers[i].first;
      canonical_headers.push_back(':');
    }
    canonical_headers += headers[i].second;
    canonical_headers.push_back('\n');
  }

  std::string canonical_request = request.method;
  canonical_request.push_back('\n');
  canonical_request += request.encoded_path.empty() ? "/" : request.encoded_path;
  canonical_request.push_back('\n');
  canonical_request += CanonicalQueryString(request.query);
  canonical_request.push_back('\n');
  canonical_request += canonical_headers;
  canonical_request.push_back('\n');
  canonical_request += signed_headers;
  canonical_request.push_back('\n');
  canonical_request += request.payload_sha256_hex;

  std::string scope = date;
  scope.push_back('/');
  scope += region;
  scope.push_back('/');
  scope += service;
  scope += "/aws4_request";

  std::string string_to_sign(kAlgorithm);
  string_to_sign.push_back('\n');
  string_to_sign += timestamp;
  string_to_sign.push_back('\n');
  string_to_sign += scope;
  string_to_sign.push_back('\n');
  string_to_sign += Sha256Hex(canonical_request);

  std::string signing_key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  signing_key = HmacSha256(signing_key, region);
  signing_key = HmacSha256(signing_key, service);
  signing_key = HmacSha256(signing_key, "aws4_request");
  const std::string signature = Hex(HmacSha256(signing_key, string_to_sign));

  std::string authorization(kAlgorithm);
  authorization += " Credential=";
  authorization += credentials.access_key_id;
  authorization.push_back('/');
  authorization += scope;
  authorization += ",SignedHeaders=";
  authorization += signed_headers;
  authorization += ",Signature=";
  authorization += signature;
  added.emplace(added.begin(), "Authorization", std::move(authorization));
  return added;
}

}  // namespace tributary::storage

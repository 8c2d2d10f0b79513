// How tributary finds its S3 credentials, region, endpoint and client settings, the way AWS's
// SDKs and Hadoop's S3A connector read them: options first (Spark's `fs.s3a.*` names, also
// under `spark.hadoop.`), then the process environment (`AWS_*`), then the shared profile
// files (`~/.aws/credentials`, `~/.aws/config`).

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "tributary/result.h"

namespace tributary::storage {

/// An AWS access key pair and optional session token. All three may be empty: requests are
/// then sent unsigned (anonymous, for public buckets). Never print the fields: use Redacted().
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials (STS)

  bool Anonymous() const { return access_key_id.empty() && secret_access_key.empty(); }

  /// For messages and logs: the access key id's first 4 characters followed by "****", and
  /// whether a secret and a session token are set; never the secret or the token.
  std::string Redacted() const;
};

/// S3's smallest part of a multipart upload but the last (UploadPart).
inline constexpr int64_t kS3MinPartSizeBytes = int64_t{5} << 20;

/// Everything an S3 client needs to reach a bucket. Made by ResolveS3Config.
struct S3Config {
  AwsCredentials credentials;
  /// The signing region. Default: us-east-1.
  std::string region;
  /// An endpoint override ("http://127.0.0.1:5055", "https://minio.local"), empty for AWS
  /// (then https://<bucket>.s3.<region>.amazonaws.com). Default: empty.
  std::string endpoint;
  /// Path-style addressing (http://endpoint/bucket/key) instead of virtual-hosted
  /// (http://bucket.endpoint/key). Default: true when an endpoint other than an AWS one
  /// (*.amazonaws.com) is set, else false.
  bool path_style = false;
  /// Attempts of one request, the first included (Hadoop's fs.s3a.attempts.maximum).
  /// Default: 5, Hadoop 3.4's (with backoff from 100 ms doubling, a request gives up within
  /// about 2 s of sleeping, so a wrong endpoint fails fast; throttling rarely lasts longer).
  int max_attempts = 5;
  /// Connection establishment timeout (fs.s3a.connection.establish.timeout). Default: 5000.
  int64_t connect_timeout_ms = 5000;
  /// Whole-request timeout (fs.s3a.connection.timeout, fs.s3a.connection.request.timeout).
  /// Default: 200000.
  int64_t request_timeout_ms = 200000;
  /// Writes at least this large go up as a multipart upload (fs.s3a.multipart.threshold).
  /// Default: 16 MiB.
  int64_t multipart_threshold_bytes = int64_t{16} << 20;
  /// Size of each multipart part but the last (fs.s3a.multipart.size); at least 5 MiB, S3's
  /// minimum. Default: 8 MiB.
  int64_t part_size_bytes = int64_t{8} << 20;
  /// Parts uploaded at once by one output stream (fs.s3a.threads.max). Default: 4.
  int upload_parallelism = 4;
};

/// Reads an environment variable; std::nullopt when it is not set.
using GetEnvFunction = std::function<std::optional<std::string>(const std::string&)>;

/// The process environment (std::getenv).
std::optional<std::string> ProcessGetEnv(const std::string& name);

/// The S3 settings from `options` (keys `fs.s3a.*` or `spark.hadoop.fs.s3a.*`, compared
/// ignoring ASCII case; the short form wins when both are given), then the environment read
/// through `getenv`, then the profile named by AWS_PROFILE (else AWS_DEFAULT_PROFILE, else
/// "default") in AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials, sections `[x]`) and
/// AWS_CONFIG_FILE (default ~/.aws/config, sections `[profile x]`, `[default]`).
///
///   credentials  fs.s3a.access.key/secret.key/session.token; AWS_ACCESS_KEY_ID/
///                AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN; aws_access_key_id/
///                aws_secret_access_key/aws_session_token of the profile in the credentials
///                file, then in the config file. All three from the first source with an
///                access key; none at all is not an error (anonymous requests).
///   endpoint     fs.s3a.endpoint (a bare host gets https://, or http:// with
///                fs.s3a.connection.ssl.enabled=false); AWS_ENDPOINT_URL_S3; AWS_ENDPOINT_URL;
///                the profile's `s3 =` nested endpoint_url, then endpoint_url (all but the
///                option ignored when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true).
///   region       fs.s3a.endpoint.region; AWS_REGION; AWS_DEFAULT_REGION; the profile's region;
///                the region of an AWS endpoint (s3.eu-west-1.amazonaws.com); us-east-1.
///   path_style   fs.s3a.path.style.access, else true for a non-AWS endpoint.
///   numbers      fs.s3a.attempts.maximum (0 means 1), fs.s3a.connection.establish.timeout,
///                fs.s3a.connection.timeout (fs.s3a.connection.request.timeout wins when > 0;
///                plain numbers are milliseconds, units ms/s/m/h/d accepted),
///                fs.s3a.multipart.threshold, fs.s3a.multipart.size (bytes, suffixes K/M/G/T/P
///                binary), fs.s3a.threads.max.
///
/// InvalidArgument naming the key for an unparsable number or boolean, a part size below
/// 5 MiB, an access key without its secret, or an AWS_PROFILE found in neither file; IOError
/// naming the file for a profile file that exists but cannot be read. No message carries a
/// secret.
Result<S3Config> ResolveS3Config(const std::map<std::string, std::string>& options,
                                 const GetEnvFunction& getenv = ProcessGetEnv);

}  // namespace tributary::storage

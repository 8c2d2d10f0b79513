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

/// Everything an S3 client needs to reach a bucket. Made by ResolveS3Config.
struct S3Config {
  AwsCredentials credentials;
  /// The signing region. Default: us-east-1.
  std::string region;
  /// An endpoint override ("http://127.0.0.1:5055", "https://minio.local"), empty for AWS
  /// (then https://<bucket>.s3.<region>.amazonaws.com). Default: empty.
  std::string endpoint;
  /// Path-style addressing (http://endpoint/bucket/key) instead of virtual-hosted
  /// (http://bucket.endpoint/key). Default: true when an endpoint is set, else false.
  bool path_style = false;
  /// Attempts of one request, the first included (Hadoop's fs.s3a.attempts.maximum).
  /// Default: 10.
  int max_attempts = 10;
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

/// The S3 settings from `options` (keys `fs.s3a.*` or `spark.hadoop.fs.s3a.*`; the short form
/// wins when both are given), then the environment read through `getenv`, then the profile
/// named by AWS_PROFILE (default "default") in AWS_SHARED_CREDENTIALS_FILE (default
/// ~/.aws/credentials) and AWS_CONFIG_FILE (default ~/.aws/config, sections `[profile x]` and
/// `[default]`). Credentials come as a whole from the first source that has an access key.
/// Missing credentials are not an error (anonymous requests). InvalidArgument naming the key
/// for an unparsable number or boolean or a part size below 5 MiB; IOError naming the file
/// for an unreadable profile file that exists. No message carries a secret.
Result<S3Config> ResolveS3Config(const std::map<std::string, std::string>& options,
                                 const GetEnvFunction& getenv = ProcessGetEnv);

}  // namespace tributary::storage

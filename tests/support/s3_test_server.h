// A real S3 API server for tests: the moto server (TESTING.md, "S3: moto server"), one per test
// process, and the AWS SDK for JavaScript (tests/support/s3_oracle.mjs) as an independent
// client that lands objects and reads back what tributary wrote.
//
// Tests that need S3 never skip: when python3's moto, node or the npm package is missing, the
// server or the oracle fails with a message naming what is missing and how to install it.
//
// Thread-safety: Get() may be called from any thread; the other methods too (each request is
// its own HTTP exchange). Reset() wipes every bucket of the process's server, so tests of one
// process must not run concurrently (GoogleTest runs them one after another).

#pragma once

#include <map>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::testing {

/// One moto server per test process, on a free loopback port, started on first use: a fork of a
/// zygote that has imported and warmed moto once for every test process of the user
/// (tests/support/moto_server.py; started by the first test process that finds none, it ends
/// after two idle minutes). The server ends when this process ends, however it ends (a crash,
/// SIGKILL, a ctest timeout): it serves until the connection only this process holds reaches
/// EOF. Each server starts empty, so test processes never see each other's buckets.
class S3TestServer {
 public:
  /// The process's server, started on the first call (a tenth of a second; 1-2 s more when
  /// the zygote must start). ADD_FAILURE and abort when it cannot start: every test after it
  /// would fail the same way.
  static S3TestServer& Get();

  S3TestServer(const S3TestServer&) = delete;
  S3TestServer& operator=(const S3TestServer&) = delete;
  S3TestServer(S3TestServer&&) = delete;
  S3TestServer& operator=(S3TestServer&&) = delete;
  ~S3TestServer() = default;

  /// "http://127.0.0.1:<port>".
  const std::string& Endpoint() const { return endpoint_; }

  /// Deletes every bucket and object (POST /moto-api/reset). ADD_FAILURE when the server does
  /// not answer.
  void Reset();

  /// Creates bucket `name` (PUT /<name>). ADD_FAILURE when the server refuses.
  void CreateBucket(const std::string& name);

  /// The options an S3 FileSystem takes to reach this server: fs.s3a.endpoint,
  /// fs.s3a.path.style.access=true, fs.s3a.access.key/fs.s3a.secret.key "testing",
  /// fs.s3a.endpoint.region us-east-1.
  std::map<std::string, std::string> Options() const;

  /// Sets AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY ("testing"), AWS_REGION (us-east-1) and
  /// AWS_ENDPOINT_URL_S3 in this process's environment, so child processes (the CLI) and code
  /// that resolves its configuration from the environment find the server.
  void ExportEnvironment() const;

 private:
  explicit S3TestServer(std::string endpoint) : endpoint_(std::move(endpoint)) {}

  std::string endpoint_;
};

/// The access key, secret key and region the server's clients use.
inline constexpr const char* kS3TestAccessKey = "testing";
inline constexpr const char* kS3TestSecretKey = "testing";
inline constexpr const char* kS3TestRegion = "us-east-1";

/// Writes `bytes` as object `key` of `bucket` with the AWS SDK for JavaScript (PutObject,
/// path-style, against S3TestServer::Get()). IOError with the SDK's message on failure.
Status OraclePut(const std::string& bucket, const std::string& key, const std::string& bytes);

/// The bytes of object `key` of `bucket`, read with the AWS SDK for JavaScript. NotFound when
/// there is no such object (NoSuchKey); IOError otherwise.
Result<std::string> OracleGet(const std::string& bucket, const std::string& key);

/// The keys of `bucket` that start with `prefix`, at any depth (ListObjectsV2 without a
/// delimiter, every page), in S3's order (bytewise).
Result<std::vector<std::string>> OracleList(const std::string& bucket, const std::string& prefix);

/// Downloads object `key` of `bucket` with the AWS SDK into the local file `local_path`, so
/// DuckDB (which cannot read s3:// here) can check it.
Status OracleDownload(const std::string& bucket, const std::string& key,
                      const std::string& local_path);

/// The rows of the Parquet object at `uri` ("s3://bucket/key" or "s3a://..."), downloaded with
/// the AWS SDK and read by the DuckDB oracle: OracleCatParquet's result for the object.
Result<std::vector<std::string>> OracleCatS3Parquet(const std::string& uri,
                                                    const std::vector<std::string>& columns = {});

}  // namespace tributary::testing

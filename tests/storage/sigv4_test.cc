#include "storage/sigv4.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "storage/s3_client.h"
#include "support/s3_test_server.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared

namespace tributary::storage {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

constexpr int64_t k20130524 = 1369353600;  // 2013-05-24T00:00:00Z
constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

AwsCredentials ExampleCredentials() {
  return {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
}

/// The value of header `name` in `headers`, or "<missing>".
std::string HeaderValue(const Pairs& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (key == name) {
      return value;
    }
  }
  return "<missing>";
}

TEST(Sha256Test, HashesAsFips180) {
  EXPECT_EQ(Sha256Hex(""), kEmptySha256);
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(HmacSha256Test, MatchesRfc4231TestCase2) {
  std::string hex;
  for (const char c : HmacSha256("Jefe", "what do ya want for nothing?")) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    hex.push_back(kDigits[static_cast<unsigned char>(c) & 0xF]);
  }
  EXPECT_EQ(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(UriEncodeTest, KeepsUnreservedAndEncodesEveryOtherByteUpperCase) {
  EXPECT_EQ(UriEncode("AZaz09-._~", true), "AZaz09-._~");
  EXPECT_EQ(UriEncode("a b+c=d&e/f", true), "a%20b%2Bc%3Dd%26e%2Ff");
  EXPECT_EQ(UriEncode("a b+c=d&e/f", false), "a%20b%2Bc%3Dd%26e/f");
  EXPECT_EQ(UriEncode("test$file.text", false), "test%24file.text");
  EXPECT_EQ(UriEncode("\xC3\xA9\xE2\x82\xAC", true), "%C3%A9%E2%82%AC");  // "é€"
  EXPECT_EQ(UriEncode("%*", true), "%25%2A");
  EXPECT_EQ(UriEncode("", true), "");
}

TEST(CanonicalQueryStringTest, SortsEncodedNamesThenValues) {
  EXPECT_EQ(CanonicalQueryString({}), "");
  EXPECT_EQ(CanonicalQueryString({{"prefix", "J"}, {"max-keys", "2"}}), "max-keys=2&prefix=J");
  EXPECT_EQ(CanonicalQueryString({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(CanonicalQueryString({{"b", "2"}, {"a", "z"}, {"b", "1"}}), "a=z&b=1&b=2");
  EXPECT_EQ(CanonicalQueryString({{"start-after", "d/x y+z=1"}, {"list-type", "2"}}),
            "list-type=2&start-after=d%2Fx%20y%2Bz%3D1");
  // Upper case sorts before lower case (code points), '-' before letters.
  EXPECT_EQ(CanonicalQueryString({{"a", "1"}, {"B", "2"}, {"a-b", "3"}}), "B=2&a=1&a-b=3");
}

/// A request to examplebucket.s3.amazonaws.com, the host of AWS's examples.
SigV4Request ExampleRequest(std::string method, std::string encoded_path, Pairs query,
                            Pairs headers, std::string payload_sha256_hex = kEmptySha256) {
  return {std::move(method),       "examplebucket.s3.amazonaws.com",
          std::move(encoded_path), std::move(query),
          std::move(headers),      std::move(payload_sha256_hex)};
}

/// The Authorization header of `request` signed with AWS's example credentials at
/// 20130524T000000Z in us-east-1.
std::string ExampleAuthorization(const SigV4Request& request) {
  return HeaderValue(SignV4(request, ExampleCredentials(), "us-east-1", "s3", k20130524),
                     "Authorization");
}

constexpr const char* kExampleCredential =
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,";

// The four examples of AWS's S3 API reference, "Signature Calculations for the Authorization
// Header: Transferring Payload in a Single Chunk (AWS Signature Version 4)", with the
// signatures published there.
TEST(SignV4Test, GetObjectWithRangeMatchesAwsExample) {
  const SigV4Request request = ExampleRequest("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}});
  EXPECT_EQ(ExampleAuthorization(request),
            std::string(kExampleCredential) +
                "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  const Pairs added = SignV4(request, ExampleCredentials(), "us-east-1", "s3", k20130524);
  EXPECT_EQ(HeaderValue(added, "x-amz-date"), "20130524T000000Z");
  EXPECT_EQ(HeaderValue(added, "x-amz-content-sha256"), kEmptySha256);
  EXPECT_EQ(HeaderValue(added, "x-amz-security-token"), "<missing>");
}

TEST(SignV4Test, PutObjectMatchesAwsExample) {
  const std::string payload_hash = Sha256Hex("Welcome to Amazon S3.");
  EXPECT_EQ(payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const SigV4Request request = ExampleRequest(
      "PUT", "/" + UriEncode("test$file.text", /*encode_slash=*/false), {},
      {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
      payload_hash);
  EXPECT_EQ(ExampleAuthorization(request),
            std::string(kExampleCredential) +
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
                "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SignV4Test, GetBucketLifecycleMatchesAwsExample) {
  EXPECT_EQ(ExampleAuthorization(ExampleRequest("GET", "/", {{"lifecycle", ""}}, {})),
            std::string(kExampleCredential) +
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SignV4Test, ListObjectsMatchesAwsExampleWhateverTheParameterOrder) {
  const std::string expected =
      std::string(kExampleCredential) +
      "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
      "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7";
  EXPECT_EQ(
      ExampleAuthorization(ExampleRequest("GET", "/", {{"max-keys", "2"}, {"prefix", "J"}}, {})),
      expected);
  EXPECT_EQ(
      ExampleAuthorization(ExampleRequest("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {})),
      expected);
}

TEST(SignV4Test, AnonymousCredentialsSendOnlyThePayloadHash) {
  const SigV4Request request = ExampleRequest("GET", "/test.txt", {}, {}, "UNSIGNED-PAYLOAD");
  const Pairs added = SignV4(request, AwsCredentials{}, "us-east-1", "s3", k20130524);
  EXPECT_EQ(added, (Pairs{{"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}}));
}

TEST(SignV4Test, HeaderNamesFoldCaseAndValuesCollapseBlanks) {
  EXPECT_EQ(
      ExampleAuthorization(ExampleRequest("GET", "/test.txt", {}, {{"RANGE", "  bytes=0-9 "}})),
      ExampleAuthorization(ExampleRequest("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}})));
  EXPECT_EQ(ExampleAuthorization(ExampleRequest("GET", "/k", {}, {{"x-amz-meta-a", " x \t  y "}})),
            ExampleAuthorization(ExampleRequest("GET", "/k", {}, {{"x-amz-meta-a", "x y"}})));
  EXPECT_NE(ExampleAuthorization(ExampleRequest("GET", "/k", {}, {{"x-amz-meta-a", "x  y"}})),
            ExampleAuthorization(ExampleRequest("GET", "/k", {}, {{"x-amz-meta-a", "xy"}})));
}

TEST(SignV4Test, SessionTokenIsSentAndSigned) {
  const SigV4Request request = ExampleRequest("GET", "/test.txt", {}, {});
  AwsCredentials credentials = ExampleCredentials();
  credentials.session_token = "FQoGZXIvYXdzEXAMPLETOKEN+/=";
  const Pairs added = SignV4(request, credentials, "us-east-1", "s3", k20130524);
  EXPECT_EQ(HeaderValue(added, "x-amz-security-token"), "FQoGZXIvYXdzEXAMPLETOKEN+/=");
  EXPECT_THAT(HeaderValue(added, "Authorization"),
              ::testing::HasSubstr(
                  "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"));
  EXPECT_NE(HeaderValue(added, "Authorization"), ExampleAuthorization(request));
}

TEST(SignV4Test, RegionAndTimeAreInTheScope) {
  const SigV4Request request = ExampleRequest("GET", "/k", {}, {});
  const Pairs added =
      SignV4(request, ExampleCredentials(), "eu-west-3", "s3", k20130524 + 86400 + 3661);
  EXPECT_THAT(HeaderValue(added, "Authorization"),
              ::testing::HasSubstr("Credential=AKIAIOSFODNN7EXAMPLE/20130525/eu-west-3/s3/"
                                   "aws4_request,"));
  EXPECT_EQ(HeaderValue(added, "x-amz-date"), "20130525T010101Z");
}

// botocore (the AWS SDK for Python, installed with awscli) as an independent signer: it signs
// the same requests at the same time with S3SigV4Auth, taking the query as decoded pairs and
// encoding them itself, and encodes object keys as its S3 serializer does.
constexpr const char* kBotocoreSigner = R"PY(
import datetime, json, sys, types
import botocore.auth, botocore.utils
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

cases = json.load(open(sys.argv[1], encoding='utf-8'))
out = []
for case in cases:
    if 'key' in case:
        out.append(botocore.utils.percent_encode(case['key'], safe='/~'))
        continue
    when = datetime.datetime.fromtimestamp(case['time'], datetime.timezone.utc)
    botocore.auth.get_current_datetime = lambda when=when: when
    request = AWSRequest(method=case['method'], url=case['url'],
                         headers=dict(case['headers']),
                         data=bytes.fromhex(case['body_hex']),
                         params=[tuple(p) for p in case['query']])
    if not case['sign_payload']:
        request.context['client_config'] = types.SimpleNamespace(
            s3={'payload_signing_enabled': False})
    credentials = Credentials(case['access_key'], case['secret_key'], case['token'] or None)
    botocore.auth.S3SigV4Auth(credentials, 's3', case['region']).add_auth(request)
    out.append(request.headers['Authorization'])
json.dump(out, open(sys.argv[2], 'w', encoding='utf-8'))
)PY";

struct BotocoreCase {
  SigV4Request request;
  std::string body;
  AwsCredentials credentials;
  std::string region = "us-east-1";
  int64_t time = 0;
};

/// Runs `argv` with stdout and stderr into `log_path`; its exit status.
int RunProcess(const std::vector<std::string>& args, const std::string& log_path) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return 127;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
    return 128;
  }
  return WEXITSTATUS(status);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 0xF]);
  }
  return out;
}

/// What botocore answers for each of `cases` (an Authorization header for a request, an
/// encoded path for a key); fails the test when python3 or botocore is missing.
std::vector<std::string> AskBotocore(const nlohmann::json& cases) {
  const testing::TempDir dir;
  {
    std::ofstream(dir.Join("signer.py")) << kBotocoreSigner;
    std::ofstream(dir.Join("cases.json")) << cases.dump();
  }
  const int status = RunProcess(
      {"python3", dir.Join("signer.py"), dir.Join("cases.json"), dir.Join("answers.json")},
      dir.Join("log"));
  EXPECT_EQ(status, 0) << "python3 with botocore (pip install botocore, or awscli) failed:\n"
                       << ReadFile(dir.Join("log"));
  if (status != 0) {
    return {};
  }
  return nlohmann::json::parse(ReadFile(dir.Join("answers.json"))).get<std::vector<std::string>>();
}

/// The Authorization header's fields, whatever the separator (botocore puts ", " between
/// them, AWS's examples ","): "Credential=...|SignedHeaders=...|Signature=...".
std::string AuthorizationFields(std::string_view header) {
  std::string out;
  for (const char c : header) {
    if (c == ' ') {
      continue;
    }
    out.push_back(c == ',' ? '|' : c);
  }
  return out;
}

std::string TrickyKey() {
  return "dir with spaces/a+b=c&d/part-00001 (copy)~!$'*,;:@.snappy.parquet "
         "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
}

TEST(SignV4Test, MatchesBotocoreOnTrickyRequests) {
  const int64_t now = 1764646800;  // 2025-12-02T03:40:00Z
  const AwsCredentials keys{"AKIDTRIBUTARYTEST", "se/cr+et=key/with+odd=chars", ""};
  std::vector<BotocoreCase> cases;

  auto add = [&](std::string method, std::string host, std::string path, Pairs query, Pairs headers,
                 std::string body, bool sign_payload) {
    BotocoreCase c;
    c.request.method = std::move(method);
    c.request.host = std::move(host);
    c.request.encoded_path = std::move(path);
    c.request.query = std::move(query);
    c.request.headers = std::move(headers);
    c.request.payload_sha256_hex = sign_payload ? Sha256Hex(body) : "UNSIGNED-PAYLOAD";
    c.body = std::move(body);
    c.credentials = keys;
    c.time = now;
    cases.push_back(std::move(c));
  };
  const std::string moto = "127.0.0.1:5055";
  // ListObjectsV2 with every parameter the FileSystem sends, values full of reserved bytes.
  add("GET", moto, "/bucket",
      {{"list-type", "2"},
       {"prefix", "dir with spaces/a+b=c&d/"},
       {"start-after", "dir with spaces/a+b=c&d/_delta_log/00000000000000000009.json"},
       {"delimiter", "/"},
       {"continuation-token", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="},
       {"max-keys", "1000"}},
      {}, "", true);
  add("GET", moto, "/bucket",
      {{"list-type", "2"},
       {"prefix",
        "donn\xC3\xA9"
        "es/\xE2\x82\xAC \xF0\x9F\x98\x80/"},
       {"encoding-type", "url"}},
      {}, "", true);
  // Ranged GET of a key with every kind of byte, path-style and virtual-hosted.
  add("GET", moto, "/bucket/" + UriEncode(TrickyKey(), false), {}, {{"Range", "bytes=100-199"}}, "",
      true);
  add("GET", "my-bucket.s3.eu-central-1.amazonaws.com", "/" + UriEncode(TrickyKey(), false), {},
      {{"Range", "bytes=-8"}}, "", false);
  // Conditional PUT with a body; header values with runs of blanks.
  add("PUT", moto, "/bucket/" + UriEncode("_delta_log/00000000000000000010.json", false), {},
      {{"If-None-Match", "*"},
       {"Content-Type", "application/octet-stream"},
       {"x-amz-meta-note", "  two   spaces\tand a tab  "}},
      "{\"commitInfo\":{}}\n", true);
  // Multipart: create (a parameter without value), upload part, complete, batch delete.
  add("POST", moto, "/bucket/big%20file.parquet", {{"uploads", ""}}, {}, "", true);
  add("PUT", moto, "/bucket/big%20file.parquet",
      {{"partNumber", "3"}, {"uploadId", "VXBsb2FkIElE+/Zm9y=="}}, {}, std::string(1000, 'x'),
      true);
  add("POST", moto, "/bucket", {{"delete", ""}}, {{"Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="}},
      "<Delete><Object><Key>a b</Key></Object></Delete>", true);
  // A session token, and another region.
  {
    add("HEAD", moto, "/bucket/k", {}, {}, "", true);
    cases.back().credentials.session_token = "IQoJb3JpZ2luX2VjEXAMPLE+/==";
    cases.back().region = "ap-southeast-2";
  }

  nlohmann::json input = nlohmann::json::array();
  for (const BotocoreCase& c : cases) {
    std::string url = "http://" + c.request.host + c.request.encoded_path;
    if (c.request.host.find(".amazonaws.com") != std::string::npos) {
      url = "https://" + c.request.host + c.request.encoded_path;
    }
    input.push_back({{"method", c.request.method},
                     {"url", url},
                     {"headers", c.request.headers},
                     {"query", c.request.query},
                     {"body_hex", Hex(c.body)},
                     {"sign_payload", c.request.payload_sha256_hex != "UNSIGNED-PAYLOAD"},
                     {"access_key", c.credentials.access_key_id},
                     {"secret_key", c.credentials.secret_access_key},
                     {"token", c.credentials.session_token},
                     {"region", c.region},
                     {"time", c.time}});
  }
  const std::vector<std::string> keys_to_encode = {TrickyKey(), "a/b c/d+e=f", "~user/x%y"};
  for (const std::string& key : keys_to_encode) {
    input.push_back({{"key", key}});
  }

  const std::vector<std::string> answers = AskBotocore(input);
  ASSERT_EQ(answers.size(), cases.size() + keys_to_encode.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const BotocoreCase& c = cases[i];
    const Pairs added = SignV4(c.request, c.credentials, c.region, "s3", c.time);
    EXPECT_EQ(AuthorizationFields(HeaderValue(added, "Authorization")),
              AuthorizationFields(answers[i]))
        << "case " << i << ": " << c.request.method << " " << c.request.encoded_path << "?"
        << CanonicalQueryString(c.request.query);
  }
  for (size_t i = 0; i < keys_to_encode.size(); ++i) {
    EXPECT_EQ(UriEncode(keys_to_encode[i], /*encode_slash=*/false), answers[cases.size() + i]);
  }
}

// The moto server checks signatures once its auth mode is on (POST /moto-api/reset-auth with
// the number of requests still let through unchecked, here 0): against an IAM user's access
// key, which it makes first. Its own check re-encodes the query string differently from AWS
// (a '/', ' ', '+', '=' or non-ASCII byte in a query value or key fails even botocore's
// requests), so the names here avoid them; MatchesBotocoreOnTrickyRequests covers those.
constexpr const char* kMotoIamSetUp = R"PY(
import json, sys
import boto3
endpoint, out_path = sys.argv[1], sys.argv[2]
iam = boto3.client('iam', endpoint_url=endpoint, region_name='us-east-1',
                   aws_access_key_id='testing', aws_secret_access_key='testing')
iam.create_user(UserName='tributary-signer')
iam.put_user_policy(UserName='tributary-signer', PolicyName='everything',
                    PolicyDocument=json.dumps({'Version': '2012-10-17', 'Statement': [
                        {'Effect': 'Allow', 'Action': '*', 'Resource': '*'}]}))
key = iam.create_access_key(UserName='tributary-signer')['AccessKey']
with open(out_path, 'w') as out:
    out.write(key['AccessKeyId'] + '\n' + key['SecretAccessKey'] + '\n')
)PY";

/// Turns the moto server's signature checks on for its lifetime (off again at the end, so
/// later tests of the process find the server as usual).
class MotoAuthMode {
 public:
  explicit MotoAuthMode(std::shared_ptr<HttpTransport> transport)
      : transport_(std::move(transport)) {
    EXPECT_OK(SetUncheckedRequests("0"));
  }
  ~MotoAuthMode() { EXPECT_OK(SetUncheckedRequests("inf")); }
  MotoAuthMode(const MotoAuthMode&) = delete;
  MotoAuthMode& operator=(const MotoAuthMode&) = delete;

 private:
  Status SetUncheckedRequests(std::string_view count) {
    const std::string url = testing::S3TestServer::Get().Endpoint() + "/moto-api/reset-auth";
    TRIBUTARY_ASSIGN_OR_RAISE(
        const HttpResponse response,
        transport_->Send({"POST", url, {{"Content-Type", "text/plain"}}, count}));
    if (response.status != 200) {
      return Status::IOError("moto reset-auth answered HTTP " + std::to_string(response.status) +
                             ": " + response.body);
    }
    return Status::OK();
  }

  std::shared_ptr<HttpTransport> transport_;
};

TEST(SignV4Test, MotoInAuthModeAcceptsOurSignaturesAndRefusesAWrongSecret) {
  testing::S3TestServer& server = testing::S3TestServer::Get();
  server.Reset();
  const std::string bucket = "sigv4-smoke";
  server.CreateBucket(bucket);

  const testing::TempDir dir;
  std::ofstream(dir.Join("iam.py")) << kMotoIamSetUp;
  ASSERT_EQ(RunProcess({"python3", dir.Join("iam.py"), server.Endpoint(), dir.Join("key")},
                       dir.Join("log")),
            0)
      << "python3 with boto3 (pip install boto3, or awscli) failed:\n"
      << ReadFile(dir.Join("log"));
  std::istringstream key_lines(ReadFile(dir.Join("key")));
  AwsCredentials credentials;
  std::getline(key_lines, credentials.access_key_id);
  std::getline(key_lines, credentials.secret_access_key);
  ASSERT_FALSE(credentials.secret_access_key.empty());

  S3Config config;
  config.credentials = credentials;
  config.region = "us-east-1";
  config.endpoint = server.Endpoint();
  config.path_style = true;
  config.max_attempts = 1;
  ASSERT_OK_AND_ASSIGN(const std::shared_ptr<HttpTransport> transport,
                       MakeCurlHttpTransport(config.connect_timeout_ms, 30000));
  ASSERT_OK_AND_ASSIGN(const std::shared_ptr<S3Client> client, S3Client::Make(config, transport));
  for (const char* key : {"logs-2024.json", "logs-2025.json", "logs-2026_a~b.json", "other"}) {
    ASSERT_OK(client->PutObject({bucket, key}, key, WriteMode::kReplace));
  }

  const MotoAuthMode auth_mode(transport);
  // A signed PUT with a body, a ranged GET and a listing with prefix and start-after.
  ASSERT_OK(client->PutObject({bucket, "signed-put.json"}, "{\"a\":1}\n", WriteMode::kPutIfAbsent));
  std::string bytes(3, '\0');
  ASSERT_OK(client->GetObjectRange({bucket, "signed-put.json"}, 2, bytes, ""));
  EXPECT_EQ(bytes, "a\":");
  S3ListRequest list;
  list.prefix = "logs-";
  list.start_after = "logs-2024.json";
  ASSERT_OK_AND_ASSIGN(const S3ListPage page, client->ListObjectsV2(bucket, list));
  std::vector<std::string> keys;
  for (const S3ObjectInfo& object : page.objects) {
    keys.push_back(object.key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"logs-2025.json", "logs-2026_a~b.json"}));

  S3Config wrong = config;
  wrong.credentials.secret_access_key = "not-" + credentials.secret_access_key;
  ASSERT_OK_AND_ASSIGN(const std::shared_ptr<S3Client> wrong_client,
                       S3Client::Make(wrong, transport));
  const Result<S3ListPage> refused = wrong_client->ListObjectsV2(bucket, list);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().ToString(), ::testing::HasSubstr("HTTP 403 SignatureDoesNotMatch"));
  EXPECT_THAT(refused.status().ToString(),
              ::testing::Not(::testing::HasSubstr(credentials.secret_access_key)));
}

}  // namespace
}  // namespace tributary::storage

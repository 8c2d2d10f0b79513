#include "storage/aws_config.h"

#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::storage {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

/// A process environment for one test: HOME is a fresh directory (so the machine's own
/// ~/.aws is never read), other variables as the test sets them.
class AwsConfigTest : public ::testing::Test {
 protected:
  AwsConfigTest() { env_["HOME"] = home_.Path(); }

  GetEnvFunction Env() const {
    return [this](const std::string& name) -> std::optional<std::string> {
      const auto it = env_.find(name);
      return it == env_.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  }

  void WriteHomeFile(const std::string& relative, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(home_.Join(relative)).parent_path());
    std::ofstream(home_.Join(relative)) << text;
  }

  Result<S3Config> Resolve(const std::map<std::string, std::string>& options = {}) const {
    return ResolveS3Config(options, Env());
  }

  testing::TempDir home_;
  std::map<std::string, std::string> env_;
};

TEST_F(AwsConfigTest, DefaultsWithNothingConfigured) {
  ASSERT_OK_AND_ASSIGN(const S3Config config, Resolve());
  EXPECT_TRUE(config.credentials.Anonymous());
  EXPECT_EQ(config.region, "us-east-1");
  EXPECT_EQ(config.endpoint, "");
  EXPECT_FALSE(config.path_style);
  EXPECT_EQ(config.max_attempts, 5);
  EXPECT_EQ(config.connect_timeout_ms, 5000);
  EXPECT_EQ(config.request_timeout_ms, 200000);
  EXPECT_EQ(config.multipart_threshold_bytes, 16 << 20);
  EXPECT_EQ(config.part_size_bytes, 8 << 20);
  EXPECT_EQ(config.upload_parallelism, 4);
}

TEST_F(AwsConfigTest, OptionsWinOverEnvironmentWhichWinsOverProfile) {
  WriteHomeFile(".aws/credentials",
                "[default]\naws_access_key_id = PROFILEKEY\naws_secret_access_key = psecret\n");
  WriteHomeFile(".aws/config", "[default]\nregion = eu-west-3\n");
  ASSERT_OK_AND_ASSIGN(S3Config config, Resolve());
  EXPECT_EQ(config.credentials.access_key_id, "PROFILEKEY");
  EXPECT_EQ(config.credentials.secret_access_key, "psecret");
  EXPECT_EQ(config.region, "eu-west-3");

  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "esecret";
  env_["AWS_SESSION_TOKEN"] = "etoken";
  env_["AWS_DEFAULT_REGION"] = "ap-south-1";
  ASSERT_OK_AND_ASSIGN(config, Resolve());
  EXPECT_EQ(config.credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(config.credentials.secret_access_key, "esecret");
  EXPECT_EQ(config.credentials.session_token, "etoken");
  EXPECT_EQ(config.region, "ap-south-1");

  env_["AWS_REGION"] = "ca-central-1";
  ASSERT_OK_AND_ASSIGN(config, Resolve());
  EXPECT_EQ(config.region, "ca-central-1");

  // Credentials come whole from one source: the option's key never pairs with the
  // environment's token.
  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.access.key", "OPTKEY"},
                                        {"fs.s3a.secret.key", "osecret"},
                                        {"fs.s3a.endpoint.region", "sa-east-1"}}));
  EXPECT_EQ(config.credentials.access_key_id, "OPTKEY");
  EXPECT_EQ(config.credentials.secret_access_key, "osecret");
  EXPECT_EQ(config.credentials.session_token, "");
  EXPECT_EQ(config.region, "sa-east-1");
}

TEST_F(AwsConfigTest, ShortOptionNameWinsOverSparkHadoopForm) {
  ASSERT_OK_AND_ASSIGN(S3Config config,
                       Resolve({{"spark.hadoop.fs.s3a.access.key", "SPARKKEY"},
                                {"spark.hadoop.fs.s3a.secret.key", "ssecret"},
                                {"spark.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000"}}));
  EXPECT_EQ(config.credentials.access_key_id, "SPARKKEY");
  EXPECT_EQ(config.endpoint, "http://127.0.0.1:9000");

  ASSERT_OK_AND_ASSIGN(config, Resolve({{"spark.hadoop.fs.s3a.endpoint", "http://a:1"},
                                        {"fs.s3a.endpoint", "http://b:2"},
                                        {"Spark.Hadoop.FS.S3A.Multipart.Size", "32M"}}));
  EXPECT_EQ(config.endpoint, "http://b:2");
  EXPECT_EQ(config.part_size_bytes, 32 << 20);
}

TEST_F(AwsConfigTest, EndpointOrderAndPathStyle) {
  WriteHomeFile(".aws/config", "[default]\nendpoint_url = http://profile:1\n");
  ASSERT_OK_AND_ASSIGN(S3Config config, Resolve());
  EXPECT_EQ(config.endpoint, "http://profile:1");
  EXPECT_TRUE(config.path_style);

  env_["AWS_ENDPOINT_URL"] = "http://general:2/";
  ASSERT_OK_AND_ASSIGN(config, Resolve());
  EXPECT_EQ(config.endpoint, "http://general:2");

  env_["AWS_ENDPOINT_URL_S3"] = "http://s3-only:3";
  ASSERT_OK_AND_ASSIGN(config, Resolve());
  EXPECT_EQ(config.endpoint, "http://s3-only:3");

  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "http://option:4"}}));
  EXPECT_EQ(config.endpoint, "http://option:4");
  EXPECT_TRUE(config.path_style);

  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "http://option:4"},
                                        {"fs.s3a.path.style.access", "false"}}));
  EXPECT_FALSE(config.path_style);

  env_["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true";
  ASSERT_OK_AND_ASSIGN(config, Resolve());
  EXPECT_EQ(config.endpoint, "");
  EXPECT_FALSE(config.path_style);
  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.path.style.access", "TRUE"}}));
  EXPECT_TRUE(config.path_style);
}

TEST_F(AwsConfigTest, BareHostEndpointGetsASchemeAndAwsEndpointsGiveTheirRegion) {
  ASSERT_OK_AND_ASSIGN(S3Config config, Resolve({{"fs.s3a.endpoint", "minio.local:9000"}}));
  EXPECT_EQ(config.endpoint, "https://minio.local:9000");
  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "minio.local:9000"},
                                        {"fs.s3a.connection.ssl.enabled", "false"}}));
  EXPECT_EQ(config.endpoint, "http://minio.local:9000");

  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "s3.eu-central-1.amazonaws.com"}}));
  EXPECT_EQ(config.endpoint, "https://s3.eu-central-1.amazonaws.com");
  EXPECT_EQ(config.region, "eu-central-1");
  EXPECT_FALSE(config.path_style);
  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "s3.amazonaws.com"}}));
  EXPECT_EQ(config.region, "us-east-1");
  ASSERT_OK_AND_ASSIGN(config, Resolve({{"fs.s3a.endpoint", "https://s3-us-west-2.amazonaws.com"},
                                        {"fs.s3a.endpoint.region", "us-west-1"}}));
  EXPECT_EQ(config.region, "us-west-1");
}

TEST_F(AwsConfigTest, NamedProfileFromBothFilesWithCommentsAndNesting) {
  WriteHomeFile(".aws/credentials",
                "# the team's keys\n"
                "[default]\n"
                "aws_access_key_id=DEFAULTKEY\n"
                "aws_secret_access_key=dsecret\n"
                "\n"
                "  [ dev ]  \n"
                "; a comment\n"
                "AWS_ACCESS_KEY_ID = DEVKEY   # inline comment\n"
                "aws_secret_access_key =  dev/secret+with=chars  \n"
                "aws_session_token = devtoken\n");
  WriteHomeFile(".aws/config",
                "[default]\n"
                "region = us-west-2\n"
                "[dev]\n"
                "region = wrong-not-a-profile-section\n"
                "[profile dev]\n"
                "region = eu-north-1 ; inline\n"
                "endpoint_url = http://general:1\n"
                "s3 =\n"
                "  endpoint_url = http://nested-s3:2\n"
                "  addressing_style = path\n"
                "output = json\n");
  env_["AWS_PROFILE"] = "dev";
  ASSERT_OK_AND_ASSIGN(const S3Config config, Resolve());
  EXPECT_EQ(config.credentials.access_key_id, "DEVKEY");
  EXPECT_EQ(config.credentials.secret_access_key, "dev/secret+with=chars");
  EXPECT_EQ(config.credentials.session_token, "devtoken");
  EXPECT_EQ(config.region, "eu-north-1");
  EXPECT_EQ(config.endpoint, "http://nested-s3:2");
}

TEST_F(AwsConfigTest, ServicesSectionAndProfileDefaultSpelling) {
  WriteHomeFile(".aws/config",
                "[profile default]\n"
                "region = af-south-1\n"
                "services = local-s3\n"
                "aws_access_key_id = CONFIGKEY\n"
                "aws_secret_access_key = csecret\n"
                "[services local-s3]\n"
                "s3 =\n"
                "  endpoint_url = http://127.0.0.1:5055\n");
  ASSERT_OK_AND_ASSIGN(const S3Config config, Resolve());
  EXPECT_EQ(config.region, "af-south-1");
  EXPECT_EQ(config.endpoint, "http://127.0.0.1:5055");
  EXPECT_EQ(config.credentials.access_key_id, "CONFIGKEY");
}

TEST_F(AwsConfigTest, FileLocationsFromEnvironmentAndCredentialsFileBeforeConfigFile) {
  const testing::TempDir elsewhere;
  std::ofstream(elsewhere.Join("creds")) << "[ci]\naws_access_key_id = CREDSFILE\n"
                                            "aws_secret_access_key = s1\n";
  std::ofstream(elsewhere.Join("conf")) << "[profile ci]\naws_access_key_id = CONFFILE\n"
                                           "aws_secret_access_key = s2\nregion = me-south-1\n";
  WriteHomeFile(".aws/credentials",
                "[ci]\naws_access_key_id = HOMEKEY\n"
                "aws_secret_access_key = s3\n");
  env_["AWS_SHARED_CREDENTIALS_FILE"] = elsewhere.Join("creds");
  env_["AWS_CONFIG_FILE"] = elsewhere.Join("conf");
  env_["AWS_PROFILE"] = "ci";
  ASSERT_OK_AND_ASSIGN(const S3Config config, Resolve());
  EXPECT_EQ(config.credentials.access_key_id, "CREDSFILE");
  EXPECT_EQ(config.region, "me-south-1");

  env_["AWS_SHARED_CREDENTIALS_FILE"] = "~/missing";
  ASSERT_OK_AND_ASSIGN(const S3Config from_config, Resolve());
  EXPECT_EQ(from_config.credentials.access_key_id, "CONFFILE");
}

TEST_F(AwsConfigTest, MissingNamedProfileIsAnErrorNamingBothFiles) {
  WriteHomeFile(".aws/credentials",
                "[default]\naws_access_key_id = K\naws_secret_access_key = S\n");
  env_["AWS_PROFILE"] = "prod";
  const Result<S3Config> result = Resolve();
  ASSERT_RAISES(InvalidArgument, result.status());
  EXPECT_THAT(result.status().ToString(), HasSubstr("'prod'"));
  EXPECT_THAT(result.status().ToString(), HasSubstr(home_.Join(".aws/credentials")));
  EXPECT_THAT(result.status().ToString(), HasSubstr(home_.Join(".aws/config")));
}

TEST_F(AwsConfigTest, AccessKeyWithoutSecretIsAnErrorThatShowsNoSecret) {
  ASSERT_RAISES(InvalidArgument, Resolve({{"fs.s3a.access.key", "AKIAONLY"}}).status());
  env_["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  env_["AWS_SESSION_TOKEN"] = kSecret;
  const Status status = Resolve().status();
  ASSERT_RAISES(InvalidArgument, status);
  EXPECT_THAT(status.ToString(), HasSubstr("AWS_SECRET_ACCESS_KEY"));
  EXPECT_THAT(status.ToString(), Not(HasSubstr(kSecret)));
}

TEST_F(AwsConfigTest, NumbersWithHadoopSuffixes) {
  ASSERT_OK_AND_ASSIGN(const S3Config config,
                       Resolve({{"fs.s3a.attempts.maximum", "3"},
                                {"fs.s3a.connection.establish.timeout", "2s"},
                                {"fs.s3a.connection.timeout", "60000"},
                                {"fs.s3a.multipart.threshold", "128M"},
                                {"fs.s3a.multipart.size", "5242880"},
                                {"fs.s3a.threads.max", "16"}}));
  EXPECT_EQ(config.max_attempts, 3);
  EXPECT_EQ(config.connect_timeout_ms, 2000);
  EXPECT_EQ(config.request_timeout_ms, 60000);
  EXPECT_EQ(config.multipart_threshold_bytes, int64_t{128} << 20);
  EXPECT_EQ(config.part_size_bytes, 5 << 20);
  EXPECT_EQ(config.upload_parallelism, 16);

  ASSERT_OK_AND_ASSIGN(const S3Config other, Resolve({{"fs.s3a.attempts.maximum", "0"},
                                                      {"fs.s3a.connection.timeout", "5m"},
                                                      {"fs.s3a.connection.request.timeout", "90s"},
                                                      {"fs.s3a.multipart.size", "1g"}}));
  EXPECT_EQ(other.max_attempts, 1);
  EXPECT_EQ(other.request_timeout_ms, 90000);
  EXPECT_EQ(other.part_size_bytes, int64_t{1} << 30);
}

TEST_F(AwsConfigTest, InvalidValuesNameTheKey) {
  const std::map<std::string, std::string> bad[] = {
      {{"fs.s3a.attempts.maximum", "ten"}},
      {{"fs.s3a.attempts.maximum", "-1"}},
      {{"fs.s3a.connection.timeout", "5 parsecs"}},
      {{"spark.hadoop.fs.s3a.multipart.threshold", "16Q"}},
      {{"fs.s3a.multipart.size", "4M"}},
      {{"fs.s3a.threads.max", "0"}},
      {{"fs.s3a.path.style.access", "yes"}},
      {{"fs.s3a.multipart.size", "99999999999999999999"}},
  };
  for (const auto& options : bad) {
    const Status status = Resolve(options).status();
    ASSERT_RAISES(InvalidArgument, status);
    std::string key = options.begin()->first;
    if (key.starts_with("spark.hadoop.")) {
      key.erase(0, std::string("spark.hadoop.").size());
    }
    EXPECT_THAT(status.ToString(), HasSubstr(key));
  }
}

TEST_F(AwsConfigTest, EmptyValuesAreUnset) {
  env_["AWS_ACCESS_KEY_ID"] = "";
  env_["AWS_REGION"] = " ";
  ASSERT_OK_AND_ASSIGN(const S3Config config, Resolve({{"fs.s3a.endpoint", ""}}));
  EXPECT_TRUE(config.credentials.Anonymous());
  EXPECT_EQ(config.region, "us-east-1");
  EXPECT_EQ(config.endpoint, "");
}

TEST(AwsCredentialsTest, RedactedShowsOnlyTheStartOfTheAccessKey) {
  const AwsCredentials credentials{"AKIAIOSFODNN7EXAMPLE", kSecret, "FQoGZXIvYXdzEXAMPLE"};
  const std::string text = credentials.Redacted();
  EXPECT_THAT(text, HasSubstr("AKIA****"));
  EXPECT_THAT(text, Not(HasSubstr("AKIAI")));
  EXPECT_THAT(text, Not(HasSubstr("wJal")));
  EXPECT_THAT(text, Not(HasSubstr("FQoG")));
  EXPECT_EQ(AwsCredentials{}.Redacted(), "anonymous");
}

}  // namespace
}  // namespace tributary::storage

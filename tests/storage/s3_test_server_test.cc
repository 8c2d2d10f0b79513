// The S3 test fixture itself: the moto server answers, Reset wipes it, and the AWS SDK oracle
// reads and lists what it wrote (so the S3 suites' independent checks can be trusted).

#include "support/s3_test_server.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class S3TestServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    S3TestServer::Get().Reset();
    S3TestServer::Get().CreateBucket("fixture");
  }
};

TEST_F(S3TestServerTest, EndpointIsLoopbackWithPort) {
  EXPECT_THAT(S3TestServer::Get().Endpoint(), StartsWith("http://127.0.0.1:"));
  EXPECT_GT(S3TestServer::Get().Endpoint().size(), std::string("http://127.0.0.1:").size());
}

TEST_F(S3TestServerTest, OraclePutGetListRoundTripBinaryKeysAndBytes) {
  const std::string bytes("\0\x01\xff binary\n", 11);
  ASSERT_OK(OraclePut("fixture", "dir/a b+c=d.bin", bytes));
  ASSERT_OK(OraclePut("fixture", "dir/sub/z", "z"));
  ASSERT_OK(OraclePut("fixture", "other", ""));
  ASSERT_OK_AND_ASSIGN(std::string read, OracleGet("fixture", "dir/a b+c=d.bin"));
  EXPECT_EQ(read, bytes);
  ASSERT_OK_AND_ASSIGN(std::string empty, OracleGet("fixture", "other"));
  EXPECT_EQ(empty, "");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, OracleList("fixture", "dir/"));
  EXPECT_THAT(keys, ElementsAre("dir/a b+c=d.bin", "dir/sub/z"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> all, OracleList("fixture", ""));
  EXPECT_THAT(all, ElementsAre("dir/a b+c=d.bin", "dir/sub/z", "other"));
}

TEST_F(S3TestServerTest, OracleGetOfMissingKeyIsNotFound) {
  Result<std::string> read = OracleGet("fixture", "missing");
  EXPECT_TRUE(read.status().IsNotFound()) << read.status().ToString();
  Result<std::string> no_bucket = OracleGet("no-such-bucket", "x");
  EXPECT_FALSE(no_bucket.ok());
}

TEST_F(S3TestServerTest, OracleListOfEmptyPrefixIsEmpty) {
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, OracleList("fixture", "nothing/"));
  EXPECT_TRUE(keys.empty());
}

TEST_F(S3TestServerTest, ResetDeletesBucketsAndObjects) {
  ASSERT_OK(OraclePut("fixture", "k", "v"));
  S3TestServer::Get().Reset();
  Result<std::string> read = OracleGet("fixture", "k");
  EXPECT_FALSE(read.ok());
  EXPECT_THAT(read.status().ToString(), HasSubstr("NoSuchBucket"));
}

// Run only by ServersOfTwoProcessesAreSeparate, in a process of its own: its fixture reset its
// own server, and what it sees there is printed for the test to check.
TEST_F(S3TestServerTest, DISABLED_ReportsWhatItsOwnServerHolds) {
  std::printf("endpoint %s\n", S3TestServer::Get().Endpoint().c_str());
  std::printf("parent-bucket %s\n", OracleList("parent-only", "").ok() ? "found" : "missing");
  EXPECT_OK(OraclePut("fixture", "from-child", "x"));
}

TEST_F(S3TestServerTest, ServersOfTwoProcessesAreSeparate) {
  S3TestServer::Get().CreateBucket("parent-only");
  ASSERT_OK(OraclePut("parent-only", "kept", "1"));
  ChildOptions child;
  child.args = {"/proc/self/exe", "--gtest_also_run_disabled_tests",
                "--gtest_filter=S3TestServerTest.DISABLED_ReportsWhatItsOwnServerHolds"};
  TempDir dir;
  child.stdout_path = dir.Join("out");
  const ChildResult result = RunChild(child);
  ASSERT_EQ(result.exit_code, 0) << result.Describe() << result.stdout_text;
  EXPECT_THAT(result.stdout_text, HasSubstr("parent-bucket missing"));
  EXPECT_THAT(result.stdout_text, HasSubstr("endpoint http://127.0.0.1:"));
  EXPECT_THAT(result.stdout_text,
              ::testing::Not(HasSubstr("endpoint " + S3TestServer::Get().Endpoint() + "\n")));
  // The child's Reset and writes touched its own server only.
  ASSERT_OK_AND_ASSIGN(std::string kept, OracleGet("parent-only", "kept"));
  EXPECT_EQ(kept, "1");
  ASSERT_RAISES(NotFound, OracleGet("fixture", "from-child"));
}

TEST_F(S3TestServerTest, OptionsNameTheServerAndTestCredentials) {
  const std::map<std::string, std::string> options = S3TestServer::Get().Options();
  EXPECT_EQ(options.at("fs.s3a.endpoint"), S3TestServer::Get().Endpoint());
  EXPECT_EQ(options.at("fs.s3a.path.style.access"), "true");
  EXPECT_EQ(options.at("fs.s3a.access.key"), "testing");
  EXPECT_EQ(options.at("fs.s3a.secret.key"), "testing");
  EXPECT_EQ(options.at("fs.s3a.endpoint.region"), "us-east-1");
}

TEST_F(S3TestServerTest, ExportEnvironmentSetsAwsVariables) {
  S3TestServer::Get().ExportEnvironment();
  EXPECT_STREQ(std::getenv("AWS_ENDPOINT_URL_S3"), S3TestServer::Get().Endpoint().c_str());
  EXPECT_STREQ(std::getenv("AWS_ACCESS_KEY_ID"), "testing");
  EXPECT_STREQ(std::getenv("AWS_SECRET_ACCESS_KEY"), "testing");
  EXPECT_STREQ(std::getenv("AWS_REGION"), "us-east-1");
}

TEST_F(S3TestServerTest, OracleCatS3ParquetReadsAnObjectWithDuckDB) {
  TempDir dir;
  const std::string local = dir.Join("rows.parquet");
  ASSERT_OK(OracleWriteParquet(local, "SELECT range AS id, 'x' || range AS name FROM range(3)"));
  std::ifstream in(local, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_OK(OraclePut("fixture", "t/part-0.parquet", bytes));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows,
                       OracleCatS3Parquet("s3://fixture/t/part-0.parquet"));
  EXPECT_THAT(rows, ElementsAre(R"({"id":0,"name":"x0"})", R"({"id":1,"name":"x1"})",
                                R"({"id":2,"name":"x2"})"));
  Result<std::vector<std::string>> missing = OracleCatS3Parquet("s3a://fixture/t/none.parquet");
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
}

}  // namespace
}  // namespace tributary::testing

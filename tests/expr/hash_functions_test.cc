#include <gtest/gtest.h>

#include "expr/expression_fixture.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class HashFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("c1", DataType::String()), Field("c2", DataType::String())});
    batch_ = BatchFromJson(schema, R"([["ABC", "DEF"], [null, "DEF"], [null, null]])").ValueOrDie();
  }
};

// Expected values are the examples of Spark's documentation (hash, xxhash64, md5, sha1, sha2,
// crc32).
TEST_F(HashFunctionsTest, MatchesSparksMurmur3AndXxHash64) {
  EXPECT_EQ(Eval(Function("xxhash64", {Col("c1")}))[0], "4105715581806190027");
  EXPECT_EQ(Eval(Function("xxhash64", {Col("c1"), Col("c2")}))[0], "3233247871021311208");
  EXPECT_EQ(Eval(Function("hash", {Col("c1")}))[0], "-757602832");
  EXPECT_EQ(Eval(Function("hash", {Col("c1"), Col("c2")}))[0], "599895104");
  auto spark = {StrLit("Spark"), Function("array", {IntLit(123)}), IntLit(2)};
  EXPECT_EQ(Eval(Function("xxhash64", spark))[0], "5602566077635097486");
  EXPECT_EQ(Eval(Function("hash", spark))[0], "-1321691492");
  // Nulls leave the running seed unchanged: all-null rows hash to the seed 42.
  const Strings all_null = Eval(Function("hash", {Col("c1"), Col("c2")}));
  EXPECT_EQ(all_null[2], "42");
  EXPECT_EQ(Eval(Function("hash", {Col("c2")}))[1],
            Eval(Function("hash", {Col("c1"), Col("c2")}))[1]);
}

TEST_F(HashFunctionsTest, DigestsAndChecksums) {
  EXPECT_EQ(Eval(Function("md5", {StrLit("Spark")}))[0], "\"8cde774d6f7333752ed72cacddb05126\"");
  EXPECT_EQ(Eval(Function("sha1", {StrLit("Spark")}))[0],
            "\"85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c\"");
  EXPECT_EQ(Eval(Function("sha2", {StrLit("Spark"), IntLit(256)}))[0],
            "\"529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b\"");
  EXPECT_EQ(Eval(Function("sha2", {StrLit("Spark"), IntLit(100)}))[0], "null");
  EXPECT_EQ(Eval(Function("crc32", {StrLit("Spark")}))[0], "1557323817");
  EXPECT_EQ(Eval(Function("md5", {Col("c1")}))[1], "null");
}

}  // namespace
}  // namespace tributary::expr

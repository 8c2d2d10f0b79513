#include "columnar/canonical_json.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

using testing::BatchFromJson;
using testing::MakeSchema;

std::string DoubleText(double value, bool as_float32 = false) {
  std::string out;
  AppendJsonDouble(value, as_float32, &out);
  return out;
}

TEST(CanonicalJsonTest, DoublesPrintLikePythonRepr) {
  EXPECT_EQ(DoubleText(0.0), "0.0");
  EXPECT_EQ(DoubleText(1.0), "1.0");
  EXPECT_EQ(DoubleText(-2.5), "-2.5");
  EXPECT_EQ(DoubleText(0.1), "0.1");
  EXPECT_EQ(DoubleText(1.234567890123), "1.234567890123");
  EXPECT_EQ(DoubleText(123456789.0), "123456789.0");
  EXPECT_EQ(DoubleText(1e16), "1e+16");
  EXPECT_EQ(DoubleText(1.5e300), "1.5e+300");
  EXPECT_EQ(DoubleText(0.0001), "0.0001");
  EXPECT_EQ(DoubleText(0.00001), "1e-05");
  EXPECT_EQ(DoubleText(std::nan("")), "\"NaN\"");
  EXPECT_EQ(DoubleText(-std::numeric_limits<double>::infinity()), "\"-Infinity\"");
  // float32 values print at their own width: 3.4f is not 3.4000000953674316.
  EXPECT_EQ(DoubleText(3.4f, true), "3.4");
  EXPECT_EQ(DoubleText(3.4f, false), "3.4000000953674316");
}

TEST(CanonicalJsonTest, StringsEscapeOnlyQuotesBackslashesAndControls) {
  std::string out;
  AppendJsonString("a\"b\\c\n\t\x01 😈 é", &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\u0001 😈 é\"");
  out.clear();
  AppendJsonString("bad \xFF byte", &out);
  EXPECT_EQ(out, "\"bad \xEF\xBF\xBD byte\"");
}

// The same row as dat/all_primitive_types/expected/v0.jsonl, line 2.
TEST(CanonicalJsonTest, MatchesTheConformanceCorpusForAllPrimitiveTypes) {
  ASSERT_OK_AND_ASSIGN(auto decimal, DataType::Decimal(5, 3));
  auto schema =
      MakeSchema({Field("utf8", DataType::String()), Field("int64", DataType::Int64()),
                  Field("int32", DataType::Int32()), Field("int16", DataType::Int16()),
                  Field("int8", DataType::Int8()), Field("float32", DataType::Float32()),
                  Field("float64", DataType::Float64()), Field("bool", DataType::Boolean()),
                  Field("binary", DataType::Binary()), Field("decimal", decimal),
                  Field("date32", DataType::Date()), Field("timestamp", DataType::Timestamp())});
  ASSERT_OK_AND_ASSIGN(auto batch,
                       BatchFromJson(schema, R"([["1", 1, 1, 1, 1, 1.0, 1.0, false, "\u0000", 11000,
                                             1, 3600000000]])"));
  EXPECT_EQ(CanonicalJsonRows(*batch)[0],
            R"({"utf8":"1","int64":1,"int32":1,"int16":1,"int8":1,"float32":1.0,"float64":1.0,)"
            R"("bool":false,"binary":"00","decimal":"11.000","date32":"1970-01-02",)"
            R"("timestamp":"1970-01-01T01:00:00.000000Z"})");
}

TEST(CanonicalJsonTest, TemporalAndDecimalEdges) {
  ASSERT_OK_AND_ASSIGN(auto decimal, DataType::Decimal(38, 36));
  auto schema = MakeSchema({Field("d", DataType::Date()), Field("ts", DataType::Timestamp()),
                            Field("ntz", DataType::TimestampNtz()), Field("dec", decimal)});
  // 9999-12-31T23:59:59.999999Z; 1969-12-31T23:59:59.999999 (negative micros); -2.9546424e-20
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, R"([[2932896, 253402300799999999, -1,
                                                  "-29546424000000000000"], [-719528, null, 0, "5"]])"));
  auto rows = CanonicalJsonRows(*batch);
  EXPECT_EQ(
      rows[0],
      R"({"d":"9999-12-31","ts":"9999-12-31T23:59:59.999999Z",)"
      R"("ntz":"1969-12-31T23:59:59.999999","dec":"-0.000000000000000029546424000000000000"})");
  EXPECT_EQ(rows[1], R"({"d":"0000-01-01","ts":null,"ntz":"1970-01-01T00:00:00.000000",)"
                     R"("dec":"0.000000000000000000000000000000000005"})");
}

TEST(CanonicalJsonTest, MapEntriesAreSortedAndNestedValuesRecurse) {
  auto schema =
      MakeSchema({Field("m", DataType::Map(DataType::String(), DataType::Int32())),
                  Field("s", DataType::Struct({Field("a", DataType::Array(DataType::Float64())),
                                               Field("b", DataType::Boolean())}))});
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, R"([
      {"m": [["zeta", 1], ["alpha", 2], ["mid", null]], "s": {"a": [1.5, null], "b": true}},
      {"m": [], "s": null}])"));
  auto rows = CanonicalJsonRows(*batch);
  EXPECT_EQ(rows[0], R"({"m":[{"key":"alpha","value":2},{"key":"mid","value":null},)"
                     R"({"key":"zeta","value":1}],"s":{"a":[1.5,null],"b":true}})");
  EXPECT_EQ(rows[1], R"({"m":[],"s":null})");
}

}  // namespace
}  // namespace tributary::columnar

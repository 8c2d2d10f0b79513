// JsonReader: values of every type, projection, parse modes, the rescued-data and corrupt-record
// columns, and the accounting of every input line.

#include "formats/json/json_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/json/json_error_position.h"
#include "formats/json/lenient_json.h"
#include "formats/json/shaped_json_lines.h"
#include "formats/parquet/compression.h"
#include "formats/text/input_stream.h"
#include "formats/text/line_reader.h"
#include "formats/text/schema_hints.h"
#include "storage/local_file_system.h"
#include "support/file_reader_rows.h"
#include "support/status_matchers.h"

namespace tributary::json {
namespace {

using columnar::SchemaPtr;
using text::ParseMode;

SchemaPtr Ddl(const std::string& hints) {
  auto parsed = text::ParseSchemaHints(hints);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  auto schema = text::ApplySchemaHints(columnar::Schema({}), *parsed);
  EXPECT_TRUE(schema.ok()) << schema.status();
  return *schema;
}

struct ReadResult {
  std::vector<std::string> rows;
  JsonReadMetrics metrics;
  SchemaPtr schema;
  int batches = 0;
};

Result<ReadResult> Read(std::string_view data, const std::string& ddl,
                        const JsonReadOptions& options = {},
                        const std::vector<std::string>& columns = {},
                        const std::string& path = "in.json") {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, JsonReader::Make(path, data, Ddl(ddl), options, columns));
  ReadResult result;
  result.schema = reader->OutputSchema();
  TRIBUTARY_ASSIGN_OR_RAISE(result.rows, testing::ReadAllRows(*reader, &result.batches));
  result.metrics = reader->Metrics();
  return result;
}

void ExpectAccounted(const JsonReadMetrics& m) {
  EXPECT_EQ(m.num_records, m.num_rows_written + m.num_rows_rescued + m.num_rows_dropped);
  EXPECT_EQ(m.num_lines, m.num_records + m.num_blank_lines);
}

JsonReadOptions NoRescue() {
  JsonReadOptions options;
  options.rescued_data_column = "";
  return options;
}

TEST(JsonReaderTest, DecodesEveryPrimitiveType) {
  const std::string data =
      R"({"b":true,"i8":-128,"i16":32767,"i32":-5,"i64":9007199254740993,"f":1.5,"d":-2.25e3,)"
      R"("dec":"12.345","s":"h\u00e9\"llo","bin":"aGk=","dt":"2024-02-29",)"
      R"("ts":"2024-01-02T03:04:05.123456+01:00","ntz":"2024-01-02 03:04:05"})"
      "\n";
  ASSERT_OK_AND_ASSIGN(
      auto result,
      Read(data,
           "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f FLOAT, d DOUBLE, "
           "dec DECIMAL(6,2), s STRING, bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ",
           NoRescue()));
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0],
            R"({"b":true,"i8":-128,"i16":32767,"i32":-5,"i64":9007199254740993,"f":1.5,)"
            R"("d":-2250.0,"dec":"12.35","s":"hé\"llo","bin":"6869","dt":"2024-02-29",)"
            R"("ts":"2024-01-02T02:04:05.123456Z","ntz":"2024-01-02T03:04:05.000000"})");
  EXPECT_EQ(result.metrics.num_rows_written, 1);
}

TEST(JsonReaderTest, DecimalsAreReadExactlyFromTheNumberText) {
  // Numbers before and between the decimals sit in skipped, unknown, unprojected, string and
  // ill-typed values, so the decoder must keep its place in the document's numbers.
  const std::string data =
      R"({"d":12345678901234567.891,"n":[0.1,{"z":2.5}],"s":{"x":1e300,"e":1.005},"t":7.5})"
      "\n"
      R"({"u":[1,2,3.3],"t":{"q":9.99},"i":[4.4],"d":-0.125,"s":{"e":99999.999,"y":{"k":1.1}}})"
      "\n"
      R"([{"d":1.10},{"x":2.2,"d":3.30}])"
      "\n"
      R"({"f":NaN,"d":0.3,"i":12345678901234567890})"
      "\n";
  ASSERT_OK_AND_ASSIGN(
      auto result,
      Read(data, "d DECIMAL(20,3), i INT, s STRUCT<e: DECIMAL(8,3)>, t STRING, f DOUBLE",
           JsonReadOptions(), {"d", "s", "t", "_rescued_data"}));
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_EQ(
      result.rows[0],
      R"({"d":"12345678901234567.891","s":{"e":"1.005"},"t":"7.5","_rescued_data":)"
      R"("{\"n\":[0.1,{\"z\":2.5}],\"s\":{\"x\":1e+300,\"e\":1.005},\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(
      result.rows[1],
      R"({"d":"-0.125","s":{"e":"99999.999"},"t":"{\"q\":9.99}","_rescued_data":)"
      R"("{\"u\":[1,2,3.3],\"s\":{\"e\":99999.999,\"y\":{\"k\":1.1}},\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[2], R"({"d":"1.100","s":null,"t":null,"_rescued_data":null})");
  EXPECT_EQ(
      result.rows[3],
      R"({"d":"3.300","s":null,"t":null,"_rescued_data":"{\"x\":2.2,\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[4], R"({"d":"0.300","s":null,"t":null,"_rescued_data":null})");

  // DROPMALFORMED without a rescued column checks every record before decoding it.
  JsonReadOptions drop = NoRescue();
  drop.mode = ParseMode::kDropMalformed;
  ASSERT_OK_AND_ASSIGN(result, Read("{\"x\":0.5,\"d\":12345.6789}\n{\"x\":1.5,\"d\":123.456}\n",
                                    "d DECIMAL(7,3)", drop));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"d":"123.456"})"}));
  EXPECT_EQ(result.metrics.num_rows_dropped, 1);
}

TEST(JsonReaderTest, DecodesNestedStructArrayAndMap) {
  const std::string data =
      R"({"s":{"a":1,"b":[1,2,null]},"a":[{"x":"p"},null,{"x":null}],"m":{"k1":1,"k2":null}})"
      "\n"
      R"({"s":null,"a":[],"m":{}})"
      "\n";
  ASSERT_OK_AND_ASSIGN(
      auto result,
      Read(data, "s STRUCT<a:INT,b:ARRAY<BIGINT>>, a ARRAY<STRUCT<x:STRING>>, m MAP<STRING,INT>"));
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[0],
            R"({"s":{"a":1,"b":[1,2,null]},"a":[{"x":"p"},null,{"x":null}],)"
            R"("m":[{"key":"k1","value":1},{"key":"k2","value":null}],"_rescued_data":null})");
  EXPECT_EQ(result.rows[1], R"({"s":null,"a":[],"m":[],"_rescued_data":null})");
}

TEST(JsonReaderTest, MissingFieldsAreNullAndFieldOrderDoesNotMatter) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"b\":2,\"a\":1}\n{\"b\":3}\n{}\n", "a INT, b INT", NoRescue()));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"a":1,"b":2})", R"({"a":null,"b":3})",
                                                   R"({"a":null,"b":null})"}));
}

TEST(JsonReaderTest, NonStringValuesInStringColumnsKeepTheirJsonText) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read(R"({"s":12,"t":{"x":[1,true,null,"q"]},"u":1.5,"v":false})",
                            "s STRING, t STRING, u STRING, v STRING", NoRescue()));
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0],
            R"({"s":"12","t":"{\"x\":[1,true,null,\"q\"]}","u":"1.5","v":"false"})");
  EXPECT_EQ(result.metrics.num_rows_written, 1);
}

TEST(JsonReaderTest, FloatColumnsAcceptSparkNonNumericStrings) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"d\":\"NaN\"}\n{\"d\":\"-Infinity\"}\n{\"d\":\"+INF\"}\n{\"d\":3}\n",
                            "d DOUBLE", NoRescue()));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"d":"NaN"})", R"({"d":"-Infinity"})",
                                                   R"({"d":"Infinity"})", R"({"d":3.0})"}));
}

TEST(JsonReaderTest, TimestampsWithAndWithoutZoneAndEpochSeconds) {
  JsonReadOptions options = NoRescue();
  options.time_zone = "+02:00";
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"t\":\"2024-01-01T00:00:00Z\"}\n{\"t\":\"2024-01-01T00:00:00\"}\n"
                            "{\"t\":\"2024-01-01 10:30\"}\n{\"t\":86400}\n",
                            "t TIMESTAMP", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"t":"2024-01-01T00:00:00.000000Z"})",
                                                   R"({"t":"2023-12-31T22:00:00.000000Z"})",
                                                   R"({"t":"2024-01-01T08:30:00.000000Z"})",
                                                   R"({"t":"1970-01-02T00:00:00.000000Z"})"}));
}

TEST(JsonReaderTest, ProjectionSelectsAndOrdersColumnsAndSkipsOthers) {
  // "b" is unrequested: its ill-typed value is neither decoded nor rescued.
  ASSERT_OK_AND_ASSIGN(auto result, Read(R"({"a":1,"b":"not an int","c":"x"})",
                                         "a INT, b INT, c STRING", {}, {"c", "a"}));
  EXPECT_EQ(result.schema->NumFields(), 2);
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"c":"x","a":1})"}));
  EXPECT_EQ(result.metrics.num_rows_written, 1);
}

TEST(JsonReaderTest, UnknownProjectedColumnIsInvalidArgument) {
  ASSERT_RAISES(InvalidArgument, Read("{}", "a INT", {}, {"zz"}));
}

TEST(JsonReaderTest, RescuesTypeMismatchUnknownAndCaseOnlyDifferentFields) {
  const std::string data = R"({"a":"x","b":2,"extra":[1,{"k":null}],"B":5})"
                           "\n"
                           R"({"a":1,"b":2})"
                           "\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "a INT, b INT", {}, {}, "/data/f1.json"));
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[0],
            R"({"a":null,"b":2,"_rescued_data":"{\"a\":\"x\",\"extra\":[1,{\"k\":null}],)"
            R"(\"B\":5,\"_file_path\":\"/data/f1.json\"}"})");
  EXPECT_EQ(result.rows[1], R"({"a":1,"b":2,"_rescued_data":null})");
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  EXPECT_EQ(result.metrics.num_rows_written, 1);
  ExpectAccounted(result.metrics);
}

TEST(JsonReaderTest, RescuesWholeTopLevelFieldForNestedMismatchButKeepsWhatFits) {
  ASSERT_OK_AND_ASSIGN(auto result, Read(R"({"s":{"x":"bad","y":2,"z":3},"l":[1,"two",3]})",
                                         "s STRUCT<x:INT,y:INT>, l ARRAY<INT>"));
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0],
            R"({"s":{"x":null,"y":2},"l":[1,null,3],"_rescued_data":"{\"s\":{\"x\":\"bad\",)"
            R"(\"y\":2,\"z\":3},\"l\":[1,\"two\",3],\"_file_path\":\"in.json\"}"})");
}

TEST(JsonReaderTest, IntegerOverflowAndFractionsDoNotFitIntegerColumns) {
  ASSERT_OK_AND_ASSIGN(
      auto result,
      Read("{\"a\":128}\n{\"a\":1.0}\n{\"a\":18446744073709551615}\n{\"a\":-128}\n", "a TINYINT"));
  EXPECT_EQ(result.metrics.num_rows_rescued, 3);
  EXPECT_EQ(result.rows[3], R"({"a":-128,"_rescued_data":null})");
  EXPECT_EQ(
      result.rows[2],
      R"({"a":null,"_rescued_data":"{\"a\":18446744073709551615,\"_file_path\":\"in.json\"}"})");
}

// Numbers beyond int64, uint64 and double (which simdjson refuses to parse) are values like any
// other, as Spark's Jackson reads them: an integer column rescues that field only, keeping the
// record's other fields; a double or float column takes 1e400 as Infinity (Jackson's
// getDoubleValue) and a 22-digit integer as its nearest double; a decimal or string column its
// text.
TEST(JsonReaderTest, NumbersOutOfEveryRangeRescueOnlyTheirField) {
  ASSERT_OK_AND_ASSIGN(
      auto result,
      Read("{\"a\":-9223372036854775809,\"b\":\"kept\"}\n"
           "{\"a\":1234567890123456789012,\"b\":\"kept\",\"d\":1e400}\n"
           "{\"a\":1e400,\"d\":-1e400,\"f\":1e400,\"s\":1e400,\"m\":1234567890123456789012}\n"
           "{\"d\":1234567890123456789012,\"s\":-9223372036854775809,\"x\":[1,1e400]}\n",
           "a BIGINT, b STRING, d DOUBLE, f FLOAT, s STRING, m DECIMAL(25,2)"));
  ASSERT_EQ(result.rows.size(), 4u);
  EXPECT_EQ(result.rows[0],
            R"({"a":null,"b":"kept","d":null,"f":null,"s":null,"m":null,)"
            R"("_rescued_data":"{\"a\":-9223372036854775809,\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[1],
            R"({"a":null,"b":"kept","d":"Infinity","f":null,"s":null,"m":null,)"
            R"("_rescued_data":"{\"a\":1234567890123456789012,\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[2], R"({"a":null,"b":null,"d":"-Infinity","f":"Infinity","s":"1e400",)"
                            R"("m":"1234567890123456789012.00",)"
                            R"("_rescued_data":"{\"a\":1e400,\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[3],
            R"({"a":null,"b":null,"d":1.2345678901234568e+21,"f":null,"s":"-9223372036854775809",)"
            R"("m":null,"_rescued_data":"{\"x\":[1,1e400],\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.metrics.num_corrupt_records, 0);
  // A malformed number is still a corrupt record.
  ASSERT_OK_AND_ASSIGN(auto malformed, Read("{\"a\":1e400e1,\"b\":\"x\"}\n", "a BIGINT, b STRING"));
  EXPECT_EQ(malformed.metrics.num_corrupt_records, 1);
  EXPECT_EQ(malformed.rows[0],
            R"({"a":null,"b":null,"_rescued_data":"{\"_corrupt_record\":\"{\\\"a\\\":1e400e1,)"
            R"(\\\"b\\\":\\\"x\\\"}\",\"_file_path\":\"in.json\"}"})");
}

TEST(JsonReaderTest, DuplicateKeysKeepTheFirstAndRescueTheRest) {
  ASSERT_OK_AND_ASSIGN(auto result, Read(R"({"a":1,"a":2})", "a INT"));
  EXPECT_EQ(result.rows, (std::vector<std::string>{
                             R"({"a":1,"_rescued_data":"{\"a\":2,\"_file_path\":\"in.json\"}"})"}));
}

TEST(JsonReaderTest, UnparseableLineGivesNullRowWithRawTextInRescuedColumn) {
  const std::string data = "{\"a\":1}\n{\"a\":2, \"b\": tru\n{\"a\":3}\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "a INT, b BOOLEAN"));
  ASSERT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.rows[1],
            R"({"a":null,"b":null,"_rescued_data":"{\"_corrupt_record\":\"{\\\"a\\\":2, )"
            R"(\\\"b\\\": tru\",\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.metrics.num_corrupt_records, 1);
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  EXPECT_EQ(result.metrics.num_rows_written, 2);
  ExpectAccounted(result.metrics);
}

TEST(JsonReaderTest, ExplicitCorruptRecordColumnTakesRawTextInstead) {
  JsonReadOptions options;
  options.column_name_of_corrupt_record = "_corrupt";
  ASSERT_OK_AND_ASSIGN(auto result, Read("{\"a\":1,\"z\":0}\n[1,\n", "a INT", options));
  ASSERT_EQ(result.schema->NumFields(), 3);
  EXPECT_EQ(result.schema->FieldAt(1).Name(), "_corrupt");
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{
                R"({"a":1,"_corrupt":null,"_rescued_data":"{\"z\":0,\"_file_path\":\"in.json\"}"})",
                R"({"a":null,"_corrupt":"[1,","_rescued_data":null})"}));
}

TEST(JsonReaderTest, WithoutRescueColumnPermissiveNullsMismatchAndFillsCorruptColumn) {
  JsonReadOptions options = NoRescue();
  options.column_name_of_corrupt_record = "_corrupt_record";
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"a\":\"x\",\"b\":1,\"unknown\":1}\n{\"a\":2,\"unknown\":1}\n",
                            "a INT, b INT", options));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{
                R"({"a":null,"b":1,"_corrupt_record":"{\"a\":\"x\",\"b\":1,\"unknown\":1}"})",
                R"({"a":2,"b":null,"_corrupt_record":null})"}));
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  EXPECT_EQ(result.metrics.num_rows_written, 1);
}

TEST(JsonReaderTest, DropMalformedDropsUnparseableLinesButRescuesMismatches) {
  JsonReadOptions options;
  options.mode = ParseMode::kDropMalformed;
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"a\":1}\n{junk\n{\"a\":\"x\"}\n\n{\"a\":4}", "a INT", options));
  EXPECT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.metrics.num_rows_dropped, 1);
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  EXPECT_EQ(result.metrics.num_blank_lines, 1);
  ExpectAccounted(result.metrics);
}

TEST(JsonReaderTest, DropMalformedWithoutRescueColumnDropsMismatchedRecordsWhole) {
  JsonReadOptions options = NoRescue();
  options.mode = ParseMode::kDropMalformed;
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"a\":1,\"b\":[1]}\n{\"a\":2,\"b\":[\"x\"]}\n{\"a\":3}\n",
                            "a INT, b ARRAY<INT>", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"a":1,"b":[1]})", R"({"a":3,"b":null})"}));
  EXPECT_EQ(result.metrics.num_rows_dropped, 1);
  ExpectAccounted(result.metrics);
}

TEST(JsonReaderTest, FailFastNamesFileLineAndByteOffset) {
  JsonReadOptions options;
  options.mode = ParseMode::kFailFast;
  auto result = Read("{\"a\":1}\n\n{\"a\":\n", "a INT", options, {}, "/x/y.json");
  ASSERT_RAISES(Corruption, result);
  // The position is where the record goes wrong: here its end.
  EXPECT_NE(result.status().Message().find("/x/y.json at line 3 (byte offset 14)"),
            std::string::npos)
      << result.status();
}

TEST(JsonReaderTest, FailFastWithRescueColumnStillRescuesMismatches) {
  JsonReadOptions options;
  options.mode = ParseMode::kFailFast;
  ASSERT_OK_AND_ASSIGN(auto result, Read("{\"a\":\"x\"}\n", "a INT", options));
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  JsonReadOptions strict = NoRescue();
  strict.mode = ParseMode::kFailFast;
  ASSERT_RAISES(Corruption, Read("{\"a\":\"x\"}\n", "a INT", strict));
}

TEST(JsonReaderTest, HandlesBomCrlfBlankLinesAndMissingFinalNewline) {
  const std::string data = "\xEF\xBB\xBF{\"a\":1}\r\n\r\n   \n{\"a\":2}\r\n{\"a\":3}";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "a INT"));
  EXPECT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.metrics.num_lines, 5);
  EXPECT_EQ(result.metrics.num_blank_lines, 2);
  EXPECT_EQ(result.metrics.num_rows_written, 3);
  ExpectAccounted(result.metrics);
}

TEST(JsonReaderTest, InvalidUtf8IsRescuedAsValidUtf8) {
  const std::string data = "{\"s\":\"a\xFF\xFE\"}\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "s STRING"));
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(
      result.rows[0],
      "{\"s\":null,\"_rescued_data\":\"{\\\"_corrupt_record\\\":\\\"{\\\\\\\"s\\\\\\\":"
      "\\\\\\\"a\xEF\xBF\xBD\xEF\xBF\xBD\\\\\\\"}\\\",\\\"_file_path\\\":\\\"in.json\\\"}\"}");
}

TEST(JsonReaderTest, NestingPastTheBoundIsACorruptRecord) {
  JsonReadOptions options;
  options.max_nesting_depth = 8;
  std::string deep = "{\"a\":" + std::string(20, '[') + std::string(20, ']') + "}";
  ASSERT_OK_AND_ASSIGN(auto result, Read(deep + "\n{\"a\":\"ok\"}\n", "a STRING", options));
  EXPECT_EQ(result.metrics.num_corrupt_records, 1);
  EXPECT_EQ(result.metrics.num_rows_written, 1);
  options.mode = ParseMode::kFailFast;
  auto failed = Read(deep, "a STRING", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("line 1"), std::string::npos);
}

TEST(JsonReaderTest, VeryLongLinesAndManyBatches) {
  std::string big(3 << 20, 'x');
  std::string data = "{\"s\":\"" + big + "\"}\n";
  for (int i = 0; i < 25; ++i) {
    data += "{\"s\":\"" + std::to_string(i) + "\"}\n";
  }
  JsonReadOptions options;
  options.batch_size = 10;
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "s STRING", options));
  EXPECT_EQ(result.rows.size(), 26u);
  EXPECT_EQ(result.batches, 3);
  EXPECT_EQ(result.rows[0].size(), big.size() + 29);
}

TEST(JsonReaderTest, TopLevelArraysAndScalars) {
  ASSERT_OK_AND_ASSIGN(auto result, Read("[{\"a\":1},{\"a\":2}]\n[1]\n7\n", "a INT"));
  ASSERT_EQ(result.rows.size(), 4u);
  EXPECT_EQ(result.rows[0], R"({"a":1,"_rescued_data":null})");
  EXPECT_EQ(result.rows[1], R"({"a":2,"_rescued_data":null})");
  EXPECT_EQ(result.metrics.num_records, 4);
  EXPECT_EQ(result.metrics.num_corrupt_records, 2);
  EXPECT_EQ(result.metrics.num_lines, 3);
  EXPECT_EQ(result.metrics.num_records, result.metrics.num_rows_written +
                                            result.metrics.num_rows_rescued +
                                            result.metrics.num_rows_dropped);
}

TEST(JsonReaderTest, MultiLineReadsAnArrayOrAnObjectSpanningLines) {
  JsonReadOptions options;
  options.multi_line = true;
  ASSERT_OK_AND_ASSIGN(
      auto result, Read("[\n  {\"a\": 1},\n  {\"a\": 2,\n   \"b\": \"x\"}\n]\n", "a INT", options));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{
                R"({"a":1,"_rescued_data":null})",
                R"({"a":2,"_rescued_data":"{\"b\":\"x\",\"_file_path\":\"in.json\"}"})"}));
  std::string many = "[";
  for (int i = 0; i < 25; ++i) {
    many += std::string(i ? ",\n" : "") + "{\"a\":" + std::to_string(i) + "}";
  }
  options.batch_size = 10;
  ASSERT_OK_AND_ASSIGN(auto batched, Read(many + "]", "a INT", options));
  EXPECT_EQ(batched.rows.size(), 25u);
  EXPECT_EQ(batched.batches, 3);
  EXPECT_EQ(batched.rows[24], R"({"a":24,"_rescued_data":null})");
  // Lines holding arrays are cut into batches the same way.
  std::string one_line = many;
  std::erase(one_line, '\n');
  options.multi_line = false;
  ASSERT_OK_AND_ASSIGN(auto array_lines,
                       Read(one_line + "]\n{\"a\":99}\n" + one_line + "]", "a INT", options));
  EXPECT_EQ(array_lines.rows.size(), 51u);
  EXPECT_EQ(array_lines.batches, 6);
  EXPECT_EQ(array_lines.rows[25], R"({"a":99,"_rescued_data":null})");
  options.multi_line = true;
  ASSERT_OK_AND_ASSIGN(auto object, Read("{\n\"a\":\n5\n}", "a INT", options));
  EXPECT_EQ(object.rows, (std::vector<std::string>{R"({"a":5,"_rescued_data":null})"}));
  ASSERT_OK_AND_ASSIGN(auto broken, Read("[{\"a\":1},\n{\"a\":", "a INT", options));
  EXPECT_EQ(broken.metrics.num_corrupt_records, 1);
  EXPECT_EQ(broken.rows.size(), 1u);
}

TEST(JsonReaderTest, FailFastNamesTheLineAndByteOffsetOfTheErrorInsideTheRecord) {
  JsonReadOptions options;
  options.mode = ParseMode::kFailFast;
  options.multi_line = true;
  // The error is the "x" on the file's fourth line (after a CRLF line end, which the document
  // does not keep: offsets are the file's).
  const std::string data = "[\r\n  {\"a\": 1},\n  {\"a\": 2,\n   x \"b\": 3}\n]\n";
  auto failed = Read(data, "a INT", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("in.json at line 4 (byte offset 29)"), std::string::npos)
      << failed.status().Message();
  ASSERT_EQ(data[29], 'x');
  // A truncated document: the position is its end.
  failed = Read("{\n\"a\":\n[1,\n", "a INT", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("at line 3 (byte offset 11)"), std::string::npos)
      << failed.status().Message();
  // Newline-delimited records: the byte offset of the error in the line.
  options.multi_line = false;
  failed = Read("{\"a\":1}\n{\"a\":1,,}\n", "a INT", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("at line 2 (byte offset 15)"), std::string::npos)
      << failed.status().Message();
}

TEST(JsonErrorOffsetTest, PointsAtTheFirstByteThatBreaksTheGrammar) {
  struct Case {
    std::string_view text;
    size_t offset;
  };
  for (const Case& c : {Case{R"({"a":[1,2,{"b":null}],"c":"\u00e9"})", 35}, Case{R"({"a":01})", 6},
                        Case{R"({"a":1.})", 7}, Case{R"({"a" 1})", 5}, Case{R"({"a":tru})", 8},
                        Case{R"({"a":"\x"})", 7}, Case{"{\"a\":\"\xff\"}", 6},
                        Case{R"({"a":1} x)", 8}, Case{R"([1,2)", 4}, Case{R"({"a":[1,]})", 8},
                        Case{"[[[[1]]]]", 9}, Case{"[[[[1]]]]x", 9}}) {
    EXPECT_EQ(JsonErrorOffset(c.text, 1000), c.offset) << c.text;
  }
  EXPECT_EQ(JsonErrorOffset("[[[[1]]]]", 3), 3u);
}

TEST(LineReaderTest, LinesPastMaxLengthComeOutTruncatedWithoutBuffering) {
  std::string data = "short\n" + std::string(5000, 'x') + "\nafter\n" + std::string(3000, 'y');
  for (size_t chunk : {64, 1000, 100000}) {
    text::LineReader reader(
        text::InputStream::FromBuffer("mem", data, text::InputCompression::kNone), chunk,
        text::LineOptions{'\n', 100});
    text::Line line;
    std::vector<std::pair<std::string, bool>> got;
    std::vector<int64_t> offsets;
    while (reader.Next(&line)) {
      got.emplace_back(std::string(line.text), line.truncated);
      offsets.push_back(line.offset);
    }
    ASSERT_OK(reader.status());
    EXPECT_EQ(got, (std::vector<std::pair<std::string, bool>>{{"short", false},
                                                              {std::string(100, 'x'), true},
                                                              {"after", false},
                                                              {std::string(100, 'y'), true}}))
        << chunk;
    EXPECT_EQ(offsets, (std::vector<int64_t>{0, 6, 5007, 5013})) << chunk;
  }
}

TEST(JsonReaderTest, RecordsPastMaxRecordBytesAreMalformedAndNamed) {
  JsonReadOptions options;
  options.max_record_bytes = 32;
  const std::string data =
      "{\"a\":1}\n{\"a\":2,\"pad\":\"" + std::string(200, 'p') + "\"}\n{\"a\":3}\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "a INT", options));
  ASSERT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(
      result.rows[1],
      R"({"a":null,"_rescued_data":"{\"_corrupt_record\":\"{\\\"a\\\":2,\\\"pad\\\":\\\"pppppppppppppppppp\",\"_file_path\":\"in.json\"}"})");
  EXPECT_EQ(result.rows[2], R"({"a":3,"_rescued_data":null})");
  EXPECT_EQ(result.metrics.num_corrupt_records, 1);
  ExpectAccounted(result.metrics);
  options.mode = ParseMode::kFailFast;
  auto failed = Read(data, "a INT", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find(
                "in.json at line 2 (byte offset 8): the record is longer than max_record_bytes "
                "(32 bytes)"),
            std::string::npos)
      << failed.status().Message();
  options.multi_line = true;
  failed = Read("[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4}\n]\n", "a INT", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("longer than max_record_bytes"), std::string::npos);
}

TEST(JsonReaderTest, LineSepSplitsRecords) {
  JsonReadOptions options;
  options.line_sep = ';';
  ASSERT_OK_AND_ASSIGN(auto result, Read("{\"a\":1};{\"a\":\n2};;{\"a\":3}", "a INT", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"a":1,"_rescued_data":null})",
                                                   R"({"a":2,"_rescued_data":null})",
                                                   R"({"a":3,"_rescued_data":null})"}));
  EXPECT_EQ(result.metrics.num_blank_lines, 1);
}

TEST(JsonReaderTest, UtcIsoTimestampsReadAsTheGeneralParserReadsThem) {
  // Machine-written UTC text takes a fast path; everything near it must read the same.
  const std::string data = R"({"t":"2024-02-29T23:59:59Z"})"
                           "\n"
                           R"({"t":"2024-02-29T23:59:59.5Z"})"
                           "\n"
                           R"({"t":"1900-01-01T00:00:00.000001Z"})"
                           "\n"
                           R"({"t":"2023-02-29T00:00:00Z"})"
                           "\n"
                           R"({"t":"2024-01-01T24:00:00Z"})"
                           "\n"
                           R"({"t":"2024-01-01T00:00:00.Z"})"
                           "\n"
                           R"({"t":"2024-01-01T00:00:00.1234567Z"})"
                           "\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "t TIMESTAMP", NoRescue()));
  EXPECT_EQ(
      result.rows,
      (std::vector<std::string>{
          R"({"t":"2024-02-29T23:59:59.000000Z"})", R"({"t":"2024-02-29T23:59:59.500000Z"})",
          R"({"t":"1900-01-01T00:00:00.000001Z"})", R"({"t":null})", R"({"t":null})",
          R"({"t":"2024-01-01T00:00:00.000000Z"})", R"({"t":"2024-01-01T00:00:00.123456Z"})"}));
}

TEST(JsonReaderTest, RescuedFilePathCanBeTurnedOff) {
  JsonReadOptions options;
  options.rescued_data_file_path = false;
  ASSERT_OK_AND_ASSIGN(auto result, Read(R"({"z":1})", "a INT", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"a":null,"_rescued_data":"{\"z\":1}"})"}));
}

TEST(JsonReaderTest, TimestampAndDateFormatsAreSparkPatterns) {
  JsonReadOptions options;
  options.timestamp_format = "dd/MM/yyyy HH:mm[:ss][ XXX]";
  options.date_format = "MMM d, yyyy";
  options.time_zone = "+01:00";
  const std::string data =
      R"({"ts":"31/01/2024 10:20","d":"Feb 3, 2024","ntz":"2024-01-31T10:20:00"})"
      "\n"
      R"({"ts":"31/01/2024 10:20:30 Z","d":"feb 29, 2024","ntz":null})"
      "\n"
      // ISO text does not match a set timestampFormat (Spark has no CAST fallback then).
      R"({"ts":"2024-01-31T10:20:00","d":"2024-02-03","ntz":null})";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "ts TIMESTAMP, d DATE, ntz TIMESTAMP_NTZ", options));
  EXPECT_EQ(
      result.rows,
      (std::vector<std::string>{
          R"({"ts":"2024-01-31T09:20:00.000000Z","d":"2024-02-03","ntz":"2024-01-31T10:20:00.000000","_rescued_data":null})",
          R"({"ts":"2024-01-31T10:20:30.000000Z","d":"2024-02-29","ntz":null,"_rescued_data":null})",
          R"({"ts":null,"d":null,"ntz":null,"_rescued_data":"{\"ts\":\"2024-01-31T10:20:00\",\"d\":\"2024-02-03\",\"_file_path\":\"in.json\"}"})"}));
  ExpectAccounted(result.metrics);
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
}

TEST(JsonReaderTest, NonNumericNumbersAndSingleQuotesAreOnByDefault) {
  const std::string data =
      "{\"d\":NaN,\"f\":-Infinity,\"s\":'it\\'s'}\n"
      "{'d':+INF,\"f\":-INF,\"s\":'say \"hi\"'}\n"
      "{\"d\":Infinity,\"f\":+Infinity,\"s\":NaN}\n";
  ASSERT_OK_AND_ASSIGN(auto result, Read(data, "d DOUBLE, f FLOAT, s STRING", NoRescue()));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{R"({"d":"NaN","f":"-Infinity","s":"it's"})",
                                      R"({"d":"Infinity","f":"-Infinity","s":"say \"hi\""})",
                                      R"({"d":"Infinity","f":"Infinity","s":"NaN"})"}));
  EXPECT_EQ(result.metrics.num_rows_written, 3);
  EXPECT_EQ(result.metrics.num_corrupt_records, 0);

  JsonReadOptions strict = NoRescue();
  strict.allow_non_numeric_numbers = false;
  strict.allow_single_quotes = false;
  strict.column_name_of_corrupt_record = "_corrupt";
  ASSERT_OK_AND_ASSIGN(result, Read(data, "d DOUBLE, f FLOAT, s STRING", strict));
  EXPECT_EQ(result.metrics.num_corrupt_records, 3);
  EXPECT_EQ(
      result.rows[0],
      R"({"d":null,"f":null,"s":null,"_corrupt":"{\"d\":NaN,\"f\":-Infinity,\"s\":'it\\'s'}"})");
}

TEST(JsonReaderTest, EachLenientOptionAcceptsItsExtension) {
  struct Case {
    std::string record;
    bool JsonReadOptions::*option;
    std::string row;
  };
  const std::vector<Case> cases = {
      {"{a: 1, $b_2 : 'x'}", &JsonReadOptions::allow_unquoted_field_names, R"({"a":1,"$b_2":"x"})"},
      {"{\"a\": 1, /* note */ \"$b_2\": \"x\"} // end", &JsonReadOptions::allow_comments,
       R"({"a":1,"$b_2":"x"})"},
      {R"({"a": 1, "$b_2": "\q\'\"z"})", &JsonReadOptions::allow_backslash_escaping_any_character,
       R"({"a":1,"$b_2":"q'\"z"})"},
      {"{\"a\": 1, \"$b_2\": \"tab\there\"}", &JsonReadOptions::allow_unquoted_control_chars,
       R"({"a":1,"$b_2":"tab\there"})"},
      {"{\"a\": -007, \"$b_2\": \"x\"}", &JsonReadOptions::allow_numeric_leading_zeros,
       R"({"a":-7,"$b_2":"x"})"},
  };
  for (const Case& c : cases) {
    JsonReadOptions options = NoRescue();
    ASSERT_OK_AND_ASSIGN(auto off, Read(c.record, "a INT, `$b_2` STRING", options));
    EXPECT_EQ(off.metrics.num_corrupt_records, 1) << c.record;
    options.*c.option = true;
    ASSERT_OK_AND_ASSIGN(auto on, Read(c.record, "a INT, `$b_2` STRING", options));
    EXPECT_EQ(on.rows, std::vector<std::string>{c.row}) << c.record;
    EXPECT_EQ(on.metrics.num_corrupt_records, 0) << c.record;
  }
}

TEST(LenientJsonTest, RewritesOnlyTokensAndRejectsWhatNoOptionAllows) {
  LenientJsonOptions all;
  all.unquoted_field_names = all.comments = all.backslash_escaping_any_character =
      all.unquoted_control_chars = all.numeric_leading_zeros = true;
  std::string out;
  ASSERT_TRUE(RewriteLenientJson("{k:'v\"', \"NaN\":[NaN,-INF,00,0.5,-0,1e-5]} // c", all, &out));
  EXPECT_EQ(out, R"({"k":"v\"", "NaN":["NaN","-Infinity",0,0.5,-0,1e-5]}  )");
  EXPECT_FALSE(RewriteLenientJson("{\"a\":tru}", all, &out));
  EXPECT_FALSE(RewriteLenientJson("{\"a\":\"open", all, &out));
  EXPECT_FALSE(RewriteLenientJson("{\"a\":1} /* open", all, &out));
  EXPECT_FALSE(RewriteLenientJson("{a:1}", LenientJsonOptions(), &out));
}

TEST(JsonReaderTest, RejectsBadOptions) {
  JsonReadOptions options;
  options.timestamp_format = "dd/MM/YYYY";
  auto bad_pattern = Read("{}", "a INT", options);
  ASSERT_RAISES(InvalidArgument, bad_pattern);
  EXPECT_NE(bad_pattern.status().Message().find(
                "JSON reader: option timestampFormat: invalid datetime pattern 'dd/MM/YYYY' at "
                "position 6"),
            std::string::npos)
      << bad_pattern.status().Message();
  options = {};
  options.date_format = "yyyy-MM-dd'";
  ASSERT_RAISES(InvalidArgument, Read("{}", "a INT", options));
  options = {};
  options.column_name_of_corrupt_record = "_rescued_data";
  ASSERT_RAISES(InvalidArgument, Read("{}", "a INT", options));
  options = {};
  options.time_zone = "Mars/Olympus";
  EXPECT_FALSE(Read("{}", "a INT", options).ok());
  ASSERT_RAISES(NotImplemented, Read("{}", "m MAP<INT,INT>"));
}

// The builders are sized for a batch from its first rows: rows that turn out longer (strings
// growing along the file, longer arrays), nulls in fixed-width columns and a short last batch
// all come out as written.
TEST(JsonReaderTest, BatchesSizedFromTheirFirstRowsKeepEveryValue) {
  std::string data;
  std::vector<std::string> expected;
  for (int i = 0; i < 2000; ++i) {
    std::string row = "{\"s\":\"";
    row.append(static_cast<size_t>(i < 100 ? 1 : i % 300), static_cast<char>('a' + i % 26));
    row += "\",\"n\":";
    row += i % 7 == 0 ? "null" : std::to_string(i * 1000003LL);
    row += ",\"b\":";
    row += i % 5 == 0 ? "null" : (i % 2 == 0 ? "true" : "false");
    row += ",\"l\":[";
    for (int k = 0; k < (i < 100 ? 1 : i % 9); ++k) {
      row += k > 0 ? "," : "";
      row += std::to_string(k);
    }
    row += "]}";
    data += row;
    data += '\n';
    expected.push_back(std::move(row));
  }
  JsonReadOptions options = NoRescue();
  options.batch_size = 700;
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read(data, "s STRING, n BIGINT, b BOOLEAN, l ARRAY<INT>", options));
  EXPECT_EQ(result.batches, 3);
  EXPECT_EQ(result.rows, expected);
}

class JsonReaderFileTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JsonReaderFileTest, ReadsCompressedFilesByExtension) {
  const std::string extension = GetParam();
  const std::string dir = ::testing::TempDir() + "json_reader_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/data.json" + extension;
  std::string plain;
  for (int i = 0; i < 1000; ++i) {
    plain += "{\"a\":" + std::to_string(i) + "}\n";
  }
  std::string bytes = plain;
  if (extension == ".gz") {
    ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kGzip, plain, &bytes));
  } else if (extension == ".zst") {
    ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kZstd, plain, &bytes));
  }
  std::ofstream(path, std::ios::binary) << bytes;
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(auto reader, JsonReader::Open(fs, path, Ddl("a BIGINT"), {}));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (batch == nullptr) {
      break;
    }
    rows += batch->NumRows();
  }
  EXPECT_EQ(rows, 1000);
  EXPECT_EQ(reader->Metrics().num_rows_written, 1000);

  // A truncated compressed file is an error naming the file, met while streaming it.
  if (!extension.empty()) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
    ASSERT_OK_AND_ASSIGN(auto truncated, JsonReader::Open(fs, path, Ddl("a BIGINT"), {}));
    Status status;
    while (status.ok()) {
      auto batch = truncated->Next();
      status = batch.status();
      if (batch.ok() && *batch == nullptr) {
        break;
      }
    }
    ASSERT_RAISES(Corruption, status);
    EXPECT_NE(status.Message().find(path), std::string::npos) << status;
    EXPECT_NE(status.Message().find("truncated"), std::string::npos) << status;
  }
}

INSTANTIATE_TEST_SUITE_P(Extensions, JsonReaderFileTest, ::testing::Values("", ".gz", ".zst"));

TEST(JsonReaderFileTest, ReadsConcatenatedGzipMembersAndInfersFromFiles) {
  const std::string dir = ::testing::TempDir() + "json_reader_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/members.json.GZ";
  std::string first;
  std::string second;
  ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kGzip, "{\"a\":1}\n", &first));
  ASSERT_OK(
      parquet::Compress(parquet::CompressionCodec::kGzip, "{\"a\":2.5,\"b\":[true]}\n", &second));
  std::ofstream(path, std::ios::binary) << first + second;
  storage::LocalFileSystem fs;
  JsonReadOptions options;
  options.infer_column_types = true;
  ASSERT_OK_AND_ASSIGN(auto schema, InferJsonSchema(fs, {path}, options));
  EXPECT_EQ(schema->AsStruct()->ToString(), "struct<a:double,b:array<boolean>>");
  ASSERT_OK_AND_ASSIGN(auto reader, JsonReader::Open(fs, path, schema, options));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(columnar::CanonicalJsonRows(*batch),
            (std::vector<std::string>{R"({"a":1.0,"b":null,"_rescued_data":null})",
                                      R"({"a":2.5,"b":[true],"_rescued_data":null})"}));
  ASSERT_RAISES(NotFound, JsonReader::Open(fs, dir + "/missing.json", schema, options));
}

// Unselected schema fields are skipped, so only fields outside the schema are rescued.
TEST(JsonReaderTest, ProjectingOnlyTheRescuedColumnRescuesUnknownFields) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("{\"a\":\"x\",\"q\":1}\n{\"a\":1}\n", "a INT", {}, {"_rescued_data"}));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{R"({"_rescued_data":"{\"q\":1,\"_file_path\":\"in.json\"}"})",
                                      R"({"_rescued_data":null})"}));
}

TEST(JsonReaderTest, LoneSurrogateEscapesMakeACorruptRecord) {
  ASSERT_OK_AND_ASSIGN(auto result, Read(R"({"s":"\ud800"})", "s STRING"));
  EXPECT_EQ(result.metrics.num_corrupt_records, 1);
}

// Reads `first` then each line, and each alone, under every DDL with every parse mode and
// batch set-up: the rows, accounting and errors must be those of reading them apart.
void ExpectShapedRecordsReadAsAlone(const std::string& first, const std::vector<std::string>& lines,
                                    const std::vector<std::string>& ddls,
                                    const std::vector<std::string>& some_columns) {
  struct Setup {
    std::string ddl;
    JsonReadOptions options;
    std::vector<std::string> columns;
  };
  std::vector<Setup> setups;
  for (const std::string& ddl : ddls) {
    setups.push_back({ddl, {}, {}});
    JsonReadOptions drop = NoRescue();
    drop.mode = ParseMode::kDropMalformed;
    setups.push_back({ddl, drop, {}});
    JsonReadOptions corrupt = NoRescue();
    corrupt.column_name_of_corrupt_record = "_corrupt_record";
    corrupt.report_unknown_fields = true;
    setups.push_back({ddl, corrupt, {}});
    JsonReadOptions fail = NoRescue();
    fail.mode = ParseMode::kFailFast;
    setups.push_back({ddl, fail, {}});
    JsonReadOptions small_batches;
    small_batches.batch_size = 1;
    setups.push_back({ddl, small_batches, some_columns});
  }
  for (const Setup& setup : setups) {
    for (const std::string& line : lines) {
      SCOPED_TRACE(setup.ddl + " | " + line);
      auto both =
          Read(fmt::format("{}\n{}\n", first, line), setup.ddl, setup.options, setup.columns);
      auto alone_first = Read(first + "\n", setup.ddl, setup.options, setup.columns);
      auto alone = Read(line + "\n", setup.ddl, setup.options, setup.columns);
      if (!alone_first.ok()) {
        EXPECT_FALSE(both.ok());
        continue;
      }
      ASSERT_EQ(both.ok(), alone.ok()) << both.status() << alone.status();
      if (!both.ok()) {
        continue;
      }
      std::vector<std::string> rows = alone_first->rows;
      rows.insert(rows.end(), alone->rows.begin(), alone->rows.end());
      EXPECT_EQ(both->rows, rows);
      const JsonReadMetrics& m = both->metrics;
      const JsonReadMetrics& a = alone->metrics;
      const JsonReadMetrics& f = alone_first->metrics;
      EXPECT_EQ(m.num_records, f.num_records + a.num_records);
      EXPECT_EQ(m.num_rows_written, f.num_rows_written + a.num_rows_written);
      EXPECT_EQ(m.num_rows_rescued, f.num_rows_rescued + a.num_rows_rescued);
      EXPECT_EQ(m.num_rows_dropped, f.num_rows_dropped + a.num_rows_dropped);
      EXPECT_EQ(m.num_corrupt_records, f.num_corrupt_records + a.num_corrupt_records);
      EXPECT_EQ(m.num_blank_lines, f.num_blank_lines + a.num_blank_lines);
      std::vector<std::string> unknown = f.unknown_fields;
      for (const std::string& field : a.unknown_fields) {
        if (std::find(unknown.begin(), unknown.end(), field) == unknown.end()) {
          unknown.push_back(field);
        }
      }
      EXPECT_EQ(m.unknown_fields, unknown);
      ExpectAccounted(m);
    }
  }
}

// Records after the first of a shape are decoded without the DOM (record_shape.h) when they
// repeat it and their values fit; whatever a line holds, reading it after such a record gives
// the row, accounting and errors that reading it alone (through the DOM) gives.
TEST(JsonReaderTest, RecordsOfARepeatedFlatShapeReadAsAloneThroughTheDom) {
  ExpectShapedRecordsReadAsAlone(kFlatShapeFirstRecord, FlatShapeVariantLines(),
                                 {"s STRING, i BIGINT, d DOUBLE, b BOOLEAN, n STRING",
                                  "s STRING, i TINYINT, d FLOAT, b STRING, n BIGINT, extra INT",
                                  "s TIMESTAMP, i DOUBLE, d DECIMAL(5,2), b BOOLEAN, n DATE"},
                                 {"i", "_rescued_data", "s"});
}

// The same for records with nested objects, arrays of scalars and arrays of objects: into
// structs and arrays of the record's types, of other types, with fields the lines lack or
// lack fields the lines have, as JSON text in string columns, as maps, and not projected.
TEST(JsonReaderTest, RecordsOfARepeatedNestedShapeReadAsAloneThroughTheDom) {
  ExpectShapedRecordsReadAsAlone(
      kNestedShapeFirstRecord, NestedShapeVariantLines(),
      {std::string("s STRING, a ARRAY<STRING>, o STRUCT<x: BIGINT, y: STRING>, ") +
           "l ARRAY<STRUCT<k: STRING, v: DOUBLE>>, e ARRAY<STRING>, n STRING",
       std::string("s STRING, a ARRAY<INT>, o STRUCT<x: DOUBLE, y: STRING, z: STRING>, ") +
           "l ARRAY<STRUCT<k: STRING>>, e ARRAY<BIGINT>, n ARRAY<ARRAY<BIGINT>>",
       "s STRING, a STRING, o STRING, l STRING, e STRING, n STRING",
       std::string("s STRING, a ARRAY<TIMESTAMP>, o MAP<STRING, STRING>, ") +
           "l ARRAY<STRUCT<k: DATE, v: DECIMAL(5,2)>>, e ARRAY<DOUBLE>",
       "s STRING, o STRUCT<y: STRING, x: BIGINT>"},
      {"o", "_rescued_data", "s"});
}

// Records of more shapes than the fast path keeps, mixed: each row, and the accounting, as
// reading that line alone (through the DOM) gives, in every parse mode and batch size.
TEST(JsonReaderTest, RecordsOfManyShapesMixedReadAsEachAlone) {
  const std::vector<std::string> lines = MixedShapeLines(20261203, 400);
  const std::string ddl =
      std::string("s STRING, a ARRAY<STRING>, o STRUCT<x: BIGINT, y: STRING, w: ARRAY<BIGINT>>, ") +
      "l ARRAY<STRUCT<k: STRING, v: DOUBLE>>, e ARRAY<STRING>, n STRING, " +
      "error STRUCT<code: STRING, retry: BOOLEAN>, user STRUCT<id: BIGINT>";
  std::string data;
  for (const std::string& line : lines) {
    data += line + "\n";
  }
  JsonReadOptions drop = NoRescue();
  drop.mode = ParseMode::kDropMalformed;
  JsonReadOptions small_batches;
  small_batches.batch_size = 5;
  for (const JsonReadOptions& options : {JsonReadOptions{}, drop, small_batches}) {
    std::vector<std::string> expected;
    int64_t rescued = 0;
    int64_t dropped = 0;
    for (const std::string& line : lines) {
      ASSERT_OK_AND_ASSIGN(auto alone, Read(line + "\n", ddl, options));
      expected.insert(expected.end(), alone.rows.begin(), alone.rows.end());
      rescued += alone.metrics.num_rows_rescued;
      dropped += alone.metrics.num_rows_dropped;
    }
    ASSERT_OK_AND_ASSIGN(auto together, Read(data, ddl, options));
    ASSERT_EQ(together.rows.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(together.rows[i], expected[i]) << "row " << i;
    }
    EXPECT_EQ(together.metrics.num_rows_rescued, rescued);
    EXPECT_EQ(together.metrics.num_rows_dropped, dropped);
    ExpectAccounted(together.metrics);
  }
}

// Doubles of up to 19 digits with fractions and exponents, read after a record of their shape
// (without the DOM) and alone (through it), come out bit for bit the same; strings of every
// length around the matcher's 8-byte steps, closed, unclosed or with a broken UTF-8 tail, too.
TEST(JsonReaderTest, FlatRecordValuesAreTheDomsBitForBit) {
  std::mt19937_64 random(20261130);
  std::string after = "{\"d\":1.5,\"s\":\"x\"}\n";
  std::vector<std::string> expected_rows;
  for (int n = 0; n < 5000; ++n) {
    const int digits = 1 + static_cast<int>(random() % 19);
    std::string mantissa(1, static_cast<char>('1' + random() % 9));
    for (int d = 1; d < digits; ++d) {
      mantissa.push_back(static_cast<char>('0' + random() % 10));
    }
    const size_t point = random() % static_cast<size_t>(digits);
    std::string number;
    if (random() % 2) {
      number.push_back('-');
    }
    if (point == 0) {
      number.append("0.").append(mantissa);
    } else {
      number.append(mantissa, 0, point).append(".").append(mantissa, point);
    }
    if (random() % 3 == 0) {
      number.append("e").append(std::to_string(static_cast<int>(random() % 61) - 30));
    }
    const std::string text(random() % 40, static_cast<char>('a' + random() % 26));
    std::string record = "{\"d\":";
    record.append(number).append(",\"s\":\"").append(text);
    switch (random() % 4) {
      case 0:
        record.append("\xC3");
        break;
      case 1:
        break;
      default:
        record.append("\"}");
        break;
    }
    after.append(record).append("\n");
    ASSERT_OK_AND_ASSIGN(auto single, Read(record, "d DOUBLE, s STRING"));
    ASSERT_EQ(single.rows.size(), 1u);
    expected_rows.push_back(single.rows[0]);
  }
  ASSERT_OK_AND_ASSIGN(auto together, Read(after, "d DOUBLE, s STRING"));
  ASSERT_EQ(together.rows.size(), expected_rows.size() + 1);
  for (size_t i = 0; i < expected_rows.size(); ++i) {
    EXPECT_EQ(together.rows[i + 1], expected_rows[i]);
  }
  EXPECT_GT(together.metrics.num_rows_written, 1000);
}

// The flat fast path across batch boundaries and shape changes: a shape learned from one
// record serves the records after it in the next batches, and a record of another shape
// (or one that does not fit) goes through the DOM and teaches its own shape.
TEST(JsonReaderTest, FlatRecordsAcrossBatchesAndShapeChanges) {
  std::string data;
  std::vector<std::string> expected;
  for (int r = 0; r < 40; ++r) {
    const std::string i = std::to_string(r * 1000003 - 7);
    if (r % 13 == 5) {
      data += "{\"b\":" + std::string(r % 2 ? "true" : "false") + ",\"i\":" + i + "}\n";
      expected.push_back("{\"i\":" + i + ",\"s\":null,\"b\":" + (r % 2 ? "true" : "false") +
                         ",\"_rescued_data\":null}");
    } else if (r % 17 == 3) {
      data += "{\"i\":\"bad\",\"s\":\"v" + i + "\"}\n";
      expected.push_back(
          "{\"i\":null,\"s\":\"v" + i +
          "\",\"b\":null,\"_rescued_data\":\"{\\\"i\\\":\\\"bad\\\",\\\"_file_path\\\":"
          "\\\"in.json\\\"}\"}");
    } else {
      data += fmt::format("{{\"i\":{0},\"s\":\"v{0}\"}}\n", i);
      expected.push_back(
          fmt::format("{{\"i\":{0},\"s\":\"v{0}\",\"b\":null,\"_rescued_data\":null}}", i));
    }
  }
  for (const int64_t batch_size : {1, 3, 64, 8192}) {
    JsonReadOptions options;
    options.batch_size = batch_size;
    ASSERT_OK_AND_ASSIGN(auto result, Read(data, "i BIGINT, s STRING, b BOOLEAN", options));
    EXPECT_EQ(result.rows, expected) << batch_size;
    EXPECT_EQ(result.metrics.num_rows_rescued, 3);
    EXPECT_EQ(result.metrics.num_rows_written, 37);
    ExpectAccounted(result.metrics);
  }
}

// Lines come out whole and in order whatever the buffer size: lines longer than the buffer,
// "\r\n" split across refills, a byte order mark, no final newline.
TEST(LineReaderTest, SplitsLinesAcrossBufferRefillsAndGrowth) {
  std::string data = "\xEF\xBB\xBF";
  std::vector<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    std::string line(static_cast<size_t>((i * 37) % 211), static_cast<char>('a' + i % 26));
    expected.push_back(line);
    data += line + (i % 3 == 0 ? "\r\n" : "\n");
  }
  data += "tail";
  expected.emplace_back("tail");
  for (size_t chunk : {64, 100, 255, 4096}) {
    text::LineReader reader(
        text::InputStream::FromBuffer("mem", data, text::InputCompression::kNone), chunk);
    text::Line line;
    std::vector<std::string> got;
    int64_t previous_end = 3;
    while (reader.Next(&line)) {
      got.emplace_back(line.text);
      EXPECT_EQ(line.number, static_cast<int64_t>(got.size()));
      EXPECT_EQ(line.offset, previous_end) << "line " << line.number;
      previous_end = line.offset + static_cast<int64_t>(line.text.size()) + 1 +
                     (line.number % 3 == 1 && line.number <= 300 ? 1 : 0);
      // simdjson may read kLinePadding bytes past every line: the sanitizer build checks
      // that they are inside the buffer.
      const volatile char last_padding =
          line.text.data()[line.text.size() + text::kLinePadding - 1];
      (void)last_padding;
    }
    ASSERT_OK(reader.status());
    EXPECT_EQ(got, expected) << "chunk " << chunk;
    EXPECT_EQ(reader.Position(), static_cast<int64_t>(data.size()));
  }
}

// A reader may start with the buffer an earlier reader on the thread left behind: nothing of the
// earlier input shows through, whatever the sizes, and the last line is padded with spaces.
TEST(LineReaderTest, ReadersOneAfterAnotherSeeOnlyTheirOwnInput) {
  const std::string first = std::string(300000, 'x') + "\nlast line of the first";
  const std::string second = "ab\r\ncd";
  for (size_t chunk : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
    {
      text::LineReader reader(
          text::InputStream::FromBuffer("first", first, text::InputCompression::kNone), chunk);
      text::Line line;
      while (reader.Next(&line)) {
      }
      ASSERT_OK(reader.status());
    }
    text::LineReader reader(
        text::InputStream::FromBuffer("second", second, text::InputCompression::kNone), chunk);
    text::Line line;
    std::vector<std::string> got;
    while (reader.Next(&line)) {
      got.emplace_back(line.text);
    }
    ASSERT_OK(reader.status());
    EXPECT_EQ(got, (std::vector<std::string>{"ab", "cd"})) << chunk;
    EXPECT_EQ(std::string_view(line.text.data() + line.text.size(), text::kLinePadding),
              std::string(text::kLinePadding, ' '))
        << chunk;
    EXPECT_EQ(reader.Position(), static_cast<int64_t>(second.size()));
  }
}

TEST(ParseModeTest, ParsesSparkNamesInAnyCase) {
  ASSERT_OK_AND_ASSIGN(auto mode, text::ParseModeFromString("dropMalformed"));
  EXPECT_EQ(mode, ParseMode::kDropMalformed);
  ASSERT_OK_AND_ASSIGN(mode, text::ParseModeFromString("FAILFAST"));
  EXPECT_EQ(text::ParseModeName(mode), "FAILFAST");
  ASSERT_RAISES(InvalidArgument, text::ParseModeFromString("lenient"));
}

}  // namespace
}  // namespace tributary::json

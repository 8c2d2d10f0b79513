// CsvReader: RFC 4180 and Spark's options, typed values, parse modes, rescue, inference.

#include "formats/csv/csv_reader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/text/schema_hints.h"
#include "support/file_reader_rows.h"
#include "support/status_matchers.h"

namespace tributary::csv {
namespace {

using text::ParseMode;

columnar::SchemaPtr Ddl(const std::string& ddl) {
  return *text::ApplySchemaHints(columnar::Schema({}), *text::ParseSchemaHints(ddl));
}

struct ReadResult {
  std::vector<std::string> rows;
  CsvReadMetrics metrics;
};

Result<ReadResult> Read(std::string_view data, const std::string& ddl,
                        const CsvReadOptions& options = {},
                        const std::vector<std::string>& columns = {}) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                            CsvReader::Make("in.csv", data, Ddl(ddl), options, columns));
  ReadResult result;
  TRIBUTARY_ASSIGN_OR_RAISE(result.rows, testing::ReadAllRows(*reader));
  result.metrics = reader->Metrics();
  const CsvReadMetrics& m = result.metrics;
  if (m.num_records != m.num_rows_written + m.num_rows_rescued + m.num_rows_dropped) {
    return Status::Internal("records not accounted for");
  }
  return result;
}

CsvReadOptions NoRescue() {
  CsvReadOptions options;
  options.rescued_data_column = "";
  return options;
}

TEST(CsvReaderTest, ReadsTypedColumnsWithQuotesAndEscapes) {
  const std::string data =
      "1,2.5,true,\"a,b\",2024-01-02,2024-01-02T03:04:05Z,12.345\r\n"
      "-7,NaN,FALSE,\"say \"\"hi\"\" \\\"x\\\"\",,,\n";
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read(data,
                            "i INT, d DOUBLE, b BOOLEAN, s STRING, dt DATE, ts TIMESTAMP, "
                            "dec DECIMAL(5,2)",
                            NoRescue()));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{
                R"({"i":1,"d":2.5,"b":true,"s":"a,b","dt":"2024-01-02",)"
                R"("ts":"2024-01-02T03:04:05.000000Z","dec":"12.35"})",
                R"({"i":-7,"d":"NaN","b":false,"s":"say \"hi\" \"x\"","dt":null,"ts":null,)"
                R"("dec":null})"}));
}

TEST(CsvReaderTest, NullValueEmptyValueAndMissingTrailingFields) {
  CsvReadOptions options = NoRescue();
  options.null_value = "NA";
  options.empty_value = "<empty>";
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("NA,\"\",x\n,\"NA\"\nonly\n", "a STRING, b STRING, c STRING", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"a":null,"b":"<empty>","c":"x"})",
                                                   R"({"a":"","b":null,"c":null})",
                                                   R"({"a":"only","b":null,"c":null})"}));
}

TEST(CsvReaderTest, HeaderSepCommentAndBlankLines) {
  CsvReadOptions options = NoRescue();
  options.header = true;
  options.sep = ';';
  options.comment = '#';
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("\xEF\xBB\xBFx;y\n# a comment\n\n1;2\n3;4", "x INT, y INT", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"x":1,"y":2})", R"({"x":3,"y":4})"}));
  EXPECT_EQ(result.metrics.num_records, 2);
  EXPECT_EQ(result.metrics.num_skipped_lines, 2);
  EXPECT_EQ(result.metrics.num_lines, 5);
}

TEST(CsvReaderTest, RescuesIllTypedValuesAndExtraColumns) {
  CsvReadOptions options;
  options.header = true;
  ASSERT_OK_AND_ASSIGN(auto result, Read("a,b,extra\nx,2,e\n1,2\n", "a INT, b INT", options));
  EXPECT_EQ(
      result.rows,
      (std::vector<std::string>{
          R"({"a":null,"b":2,"_rescued_data":"{\"a\":\"x\",\"extra\":\"e\",\"_file_path\":\"in.csv\"}"})",
          R"({"a":1,"b":2,"_rescued_data":null})"}));
  EXPECT_EQ(result.metrics.num_rows_rescued, 1);
  ASSERT_OK_AND_ASSIGN(auto no_header, Read("1,2,3\n", "a INT", {}));
  EXPECT_EQ(
      no_header.rows,
      (std::vector<std::string>{
          R"({"a":1,"_rescued_data":"{\"_c1\":\"2\",\"_c2\":\"3\",\"_file_path\":\"in.csv\"}"})"}));
}

TEST(CsvReaderTest, WithoutEnforceSchemaMapsByHeaderNameAndRescuesCaseMismatch) {
  CsvReadOptions options;
  options.header = true;
  options.enforce_schema = false;
  ASSERT_OK_AND_ASSIGN(auto result, Read("b,A,a\n2,x,1\n", "a INT, b INT", options));
  EXPECT_EQ(result.rows,
            (std::vector<std::string>{
                R"({"a":1,"b":2,"_rescued_data":"{\"A\":\"x\",\"_file_path\":\"in.csv\"}"})"}));
}

TEST(CsvReaderTest, UnclosedQuoteIsCorruptUnlessMultiLine) {
  const std::string data = "1,\"two\nlines\"\n3,x\n";
  ASSERT_OK_AND_ASSIGN(auto single, Read(data, "a INT, s STRING"));
  ASSERT_EQ(single.rows.size(), 3u);
  EXPECT_EQ(single.rows[0],
            R"({"a":null,"s":null,"_rescued_data":"{\"_corrupt_record\":\"1,\\\"two\",)"
            R"(\"_file_path\":\"in.csv\"}"})");
  EXPECT_EQ(single.metrics.num_corrupt_records, 1);
  EXPECT_EQ(
      single.rows[1],
      R"({"a":null,"s":null,"_rescued_data":"{\"a\":\"lines\\\"\",\"_file_path\":\"in.csv\"}"})");
  CsvReadOptions options;
  options.multi_line = true;
  ASSERT_OK_AND_ASSIGN(auto multi, Read(data, "a INT, s STRING", options));
  EXPECT_EQ(multi.rows,
            (std::vector<std::string>{R"({"a":1,"s":"two\nlines","_rescued_data":null})",
                                      R"({"a":3,"s":"x","_rescued_data":null})"}));
  EXPECT_EQ(multi.metrics.num_lines, 3);
  ASSERT_OK_AND_ASSIGN(auto truncated, Read("1,\"never closed\n", "a INT, s STRING", options));
  EXPECT_EQ(truncated.metrics.num_corrupt_records, 1);
}

TEST(CsvReaderTest, ParseModesAndCorruptRecordColumn) {
  const std::string data = "1,a\n\"x\"y,b\nz,c\n";
  CsvReadOptions options = NoRescue();
  options.column_name_of_corrupt_record = "_corrupt_record";
  ASSERT_OK_AND_ASSIGN(auto permissive, Read(data, "a INT, s STRING", options));
  EXPECT_EQ(permissive.rows,
            (std::vector<std::string>{R"({"a":1,"s":"a","_corrupt_record":null})",
                                      R"({"a":null,"s":null,"_corrupt_record":"\"x\"y,b"})",
                                      R"({"a":null,"s":"c","_corrupt_record":"z,c"})"}));
  options.mode = ParseMode::kDropMalformed;
  ASSERT_OK_AND_ASSIGN(auto dropped, Read(data, "a INT, s STRING", options));
  EXPECT_EQ(dropped.rows.size(), 1u);
  EXPECT_EQ(dropped.metrics.num_rows_dropped, 2);
  options.mode = ParseMode::kFailFast;
  auto failed = Read(data, "a INT, s STRING", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find("in.csv at line 2 (byte offset 4)"), std::string::npos)
      << failed.status();
}

TEST(CsvReaderTest, InvalidUtf8IsACorruptRecordKeptAsValidUtf8) {
  ASSERT_OK_AND_ASSIGN(auto result, Read("ok\nbad\xff\n", "s STRING"));
  EXPECT_EQ(result.rows[1],
            "{\"s\":null,\"_rescued_data\":\"{\\\"_corrupt_record\\\":\\\"bad\xEF\xBF\xBD\\\","
            "\\\"_file_path\\\":\\\"in.csv\\\"}\"}");
}

TEST(CsvReaderTest, ProjectionAndBadOptions) {
  ASSERT_OK_AND_ASSIGN(auto result, Read("1,2,3\n", "a INT, b INT, c INT", NoRescue(), {"c", "a"}));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"c":3,"a":1})"}));
  ASSERT_RAISES(NotImplemented, Read("", "a ARRAY<INT>"));
  CsvReadOptions options;
  options.sep = '"';
  ASSERT_RAISES(InvalidArgument, Read("", "a INT", options));
}

std::string Infer(const std::vector<std::string_view>& files, const CsvReadOptions& options) {
  auto schema = InferCsvSchemaFromText(files, options);
  return schema.ok() ? (*schema)->AsStruct()->ToString() : schema.status().ToString();
}

TEST(CsvSchemaInferenceTest, InfersSparkTypesFromHeaderedFiles) {
  CsvReadOptions options;
  options.header = true;
  options.infer_schema = true;
  EXPECT_EQ(Infer({"i,l,d,b,s,n,ts\n1,3000000000,1.5,true,x,,2024-01-01T00:00:00\n"
                   "2,1,2,FALSE,1,,2024-01-02 10:00:00\n"},
                  options),
            "struct<i:int,l:bigint,d:double,b:boolean,s:string,n:string,ts:string>");
  options.infer_timestamp = true;
  options.schema_hints = "i BIGINT";
  EXPECT_EQ(Infer({"i,ts\n1,2024-01-01T00:00:00\n"}, options), "struct<i:bigint,ts:timestamp>");
  options.infer_schema = false;
  EXPECT_EQ(Infer({"i,ts\n1,2024-01-01T00:00:00\n"}, options), "struct<i:bigint,ts:string>");
  CsvReadOptions no_header;
  no_header.infer_schema = true;
  EXPECT_EQ(Infer({"1,a,x\n2,b\n"}, no_header), "struct<_c0:int,_c1:string,_c2:string>");
}

// As Spark's CSVDataSource: the header (or, without one, the first record) fixes the columns; a
// record with an extra value adds no `_c3`, nor does one of a later file.
TEST(CsvSchemaInferenceTest, FirstRecordFixesTheColumns) {
  CsvReadOptions options;
  options.header = true;
  options.infer_schema = true;
  EXPECT_EQ(Infer({"a,b,c\n1,x,2.5\n2,y,3,extra\n"}, options), "struct<a:int,b:string,c:double>");
  EXPECT_EQ(Infer({"a,b,c\n1,x,2.5\n", "a,b,c\n2,y,3,4,5\n"}, options),
            "struct<a:int,b:string,c:double>");
  CsvReadOptions no_header;
  no_header.infer_schema = true;
  EXPECT_EQ(Infer({"1,a\n2,b,c\n"}, no_header), "struct<_c0:int,_c1:string>");
}

TEST(CsvReaderTest, MaxCharsPerColumnMakesLongerFieldsMalformed) {
  CsvReadOptions options;
  options.max_chars_per_column = 5;
  ASSERT_OK_AND_ASSIGN(auto result,
                       Read("ab,cd\nabcdef,x\n\"12345\",y\n", "a STRING, b STRING", options));
  EXPECT_EQ(
      result.rows,
      (std::vector<std::string>{
          R"({"a":"ab","b":"cd","_rescued_data":null})",
          R"({"a":null,"b":null,"_rescued_data":"{\"_corrupt_record\":\"abcdef,x\",\"_file_path\":\"in.csv\"}"})",
          R"({"a":"12345","b":"y","_rescued_data":null})"}));
  EXPECT_EQ(result.metrics.num_corrupt_records, 1);
  // A quoted field spanning lines stops gathering them past the limit.
  options.multi_line = true;
  options.mode = ParseMode::kFailFast;
  auto failed = Read("a,\"x\n" + std::string(100, 'y') + "\n\"\n", "a STRING, b STRING", options);
  ASSERT_RAISES(Corruption, failed);
  EXPECT_NE(failed.status().Message().find(
                "in.csv at line 1 (byte offset 0): a field is longer than maxCharsPerColumn (5)"),
            std::string::npos)
      << failed.status().Message();
  options = {};
  options.max_chars_per_column = 0;
  ASSERT_RAISES(InvalidArgument, Read("", "a STRING", options));
}

TEST(CsvReaderTest, LineSepEndsRecords) {
  CsvReadOptions options;
  options.line_sep = '|';
  ASSERT_OK_AND_ASSIGN(auto result, Read("1,a|2,\"b\nc\"|3,d", "i INT, s STRING", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"i":1,"s":"a","_rescued_data":null})",
                                                   R"({"i":2,"s":"b\nc","_rescued_data":null})",
                                                   R"({"i":3,"s":"d","_rescued_data":null})"}));
  options.line_sep = ',';
  ASSERT_RAISES(InvalidArgument, Read("", "i INT", options));
}

TEST(CsvReaderTest, CrLfInsideAQuotedMultiLineFieldReadsAsLf) {
  // As Spark (univocity normalizes line ends within quotes); DuckDB keeps the "\r".
  CsvReadOptions options;
  options.multi_line = true;
  ASSERT_OK_AND_ASSIGN(auto result, Read("1,\"a\r\nb\"\r\n", "i INT, s STRING", options));
  EXPECT_EQ(result.rows, (std::vector<std::string>{R"({"i":1,"s":"a\nb","_rescued_data":null})"}));
}

TEST(CsvSchemaInferenceTest, TimestampAndDateFormatsInferMatchingText) {
  CsvReadOptions options;
  options.header = true;
  options.infer_schema = true;
  options.timestamp_format = "MM/dd/yyyy hh:mm a";
  options.date_format = "MM/dd/yyyy";
  EXPECT_EQ(Infer({"t,d,iso\n01/31/2024 09:05 PM,01/31/2024,2024-01-31T00:00:00\n"
                   "12/01/2023 12:00 AM,02/29/2024,2024-02-01T00:00:00\n"},
                  options),
            "struct<t:timestamp,d:date,iso:string>");
  // A date that is not a calendar date widens the column to string.
  EXPECT_EQ(Infer({"d\n01/31/2024\n02/30/2024\n"}, options), "struct<d:string>");
}

TEST(CsvReaderTest, ReadsTimestampAndDateFormats) {
  CsvReadOptions options;
  options.timestamp_format = "yyyyMMdd'T'HHmmss[.SSS]XX";
  options.date_format = "dd.MM.yy";
  ASSERT_OK_AND_ASSIGN(auto result, Read("20240131T102030.5+0100,31.01.24\n"
                                         "20240131T102030Z,29.02.23\n",
                                         "t TIMESTAMP, d DATE", options));
  EXPECT_EQ(
      result.rows,
      (std::vector<std::string>{
          R"({"t":"2024-01-31T09:20:30.500000Z","d":"2024-01-31","_rescued_data":null})",
          R"({"t":"2024-01-31T10:20:30.000000Z","d":null,"_rescued_data":"{\"d\":\"29.02.23\",\"_file_path\":\"in.csv\"}"})"}));
  options.date_format = "yyyy-MM-dd HH";
  auto bad = Read("", "d DATE", [&] {
    CsvReadOptions o;
    o.date_format = "yyyy-MM-dd hh:mm:ss.SSSSSSSSSS";
    return o;
  }());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("CSV reader: option dateFormat: invalid datetime pattern"),
            std::string::npos)
      << bad.status().Message();
}

}  // namespace
}  // namespace tributary::csv

#include "formats/reader_options.h"

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::formats {
namespace {

TEST(ReaderOptionsTest, DefaultsFollowTheReaderKind) {
  ASSERT_OK_AND_ASSIGN(auto spark, JsonOptionsFromMap({}, OptionDefaults::kSparkReader));
  EXPECT_TRUE(spark.infer_column_types);
  EXPECT_EQ(spark.rescued_data_column, "");
  ASSERT_OK_AND_ASSIGN(auto auto_loader, JsonOptionsFromMap({}, OptionDefaults::kAutoLoader));
  EXPECT_FALSE(auto_loader.infer_column_types);
  EXPECT_EQ(auto_loader.rescued_data_column, "_rescued_data");
  ASSERT_OK_AND_ASSIGN(auto csv_files, CsvOptionsFromMap({}, OptionDefaults::kReadFiles));
  EXPECT_TRUE(csv_files.infer_schema);
  ASSERT_OK_AND_ASSIGN(auto csv_spark, CsvOptionsFromMap({}, OptionDefaults::kSparkReader));
  EXPECT_FALSE(csv_spark.infer_schema);
}

TEST(ReaderOptionsTest, KeysIgnoreCaseAndTheCloudFilesPrefix) {
  ASSERT_OK_AND_ASSIGN(auto json, JsonOptionsFromMap({{"MULTILINE", "true"},
                                                      {"cloudFiles.inferColumnTypes", "TRUE"},
                                                      {"cloudFiles.schemaHints", "a INT"},
                                                      {"mode", "failfast"},
                                                      {"allowComments", "true"},
                                                      {"allowSingleQuotes", "false"},
                                                      {"prefersDecimal", "true"},
                                                      {"lineSep", "\\r"},
                                                      {"unknownOption", "ignored"}},
                                                     OptionDefaults::kAutoLoader));
  EXPECT_TRUE(json.multi_line);
  EXPECT_TRUE(json.infer_column_types);
  EXPECT_EQ(json.schema_hints, "a INT");
  EXPECT_EQ(json.mode, text::ParseMode::kFailFast);
  EXPECT_TRUE(json.allow_comments);
  EXPECT_FALSE(json.allow_single_quotes);
  EXPECT_TRUE(json.prefers_decimal);
  EXPECT_EQ(json.line_sep, '\r');
  ASSERT_OK_AND_ASSIGN(auto csv, CsvOptionsFromMap({{"header", "true"},
                                                    {"delimiter", "\\t"},
                                                    {"quote", ""},
                                                    {"nullValue", "NA"},
                                                    {"maxCharsPerColumn", "100"}},
                                                   OptionDefaults::kSparkReader));
  EXPECT_TRUE(csv.header);
  EXPECT_EQ(csv.sep, '\t');
  EXPECT_EQ(csv.quote, '\0');
  EXPECT_EQ(csv.null_value, "NA");
  EXPECT_EQ(csv.max_chars_per_column, 100);
}

TEST(ReaderOptionsTest, BadValuesNameTheOption) {
  auto bad_bool = JsonOptionsFromMap({{"multiLine", "yes"}}, OptionDefaults::kSparkReader);
  ASSERT_FALSE(bad_bool.ok());
  EXPECT_NE(bad_bool.status().ToString().find("multiLine"), std::string::npos);
  auto bad_sep = CsvOptionsFromMap({{"sep", "::"}}, OptionDefaults::kSparkReader);
  ASSERT_FALSE(bad_sep.ok());
  EXPECT_NE(bad_sep.status().ToString().find("sep"), std::string::npos);
  auto bad_mode = JsonOptionsFromMap({{"mode", "LENIENT"}}, OptionDefaults::kSparkReader);
  EXPECT_FALSE(bad_mode.ok());
}

}  // namespace
}  // namespace tributary::formats

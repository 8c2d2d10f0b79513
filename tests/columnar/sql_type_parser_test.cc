// Spark SQL type names: the parser CAST, DDL, from_json and schemaHints share.

#include "columnar/sql_type_parser.h"

#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

std::string TypeText(std::string_view sql) {
  auto type = ParseSqlType(sql);
  return type.ok() ? (*type)->ToString() : type.status().ToString();
}

TEST(SqlTypeParserTest, ParsesSparkSqlTypeNames) {
  EXPECT_EQ(TypeText("INT"), "int");
  EXPECT_EQ(TypeText("integer"), "int");
  EXPECT_EQ(TypeText("Long"), "bigint");
  EXPECT_EQ(TypeText("byte"), "tinyint");
  EXPECT_EQ(TypeText("short"), "smallint");
  EXPECT_EQ(TypeText("real"), "float");
  EXPECT_EQ(TypeText("DECIMAL"), "decimal(10,0)");
  EXPECT_EQ(TypeText("decimal(38, 9)"), "decimal(38,9)");
  EXPECT_EQ(TypeText("numeric(5)"), "decimal(5,0)");
  EXPECT_EQ(TypeText("varchar(10)"), "string");
  EXPECT_EQ(TypeText("timestamp_ltz"), "timestamp");
  EXPECT_EQ(TypeText("timestamp_ntz"), "timestamp_ntz");
  EXPECT_EQ(TypeText("ARRAY<MAP<STRING, ARRAY<DATE>>>"), "array<map<string,array<date>>>");
  EXPECT_EQ(TypeText("struct<a: int, `b c`:string NOT NULL COMMENT 'x', d struct<>>"),
            "struct<a:int,b c:string,d:struct<>>");
}

TEST(SqlTypeParserTest, RejectsMalformedTypesWithOffset) {
  auto bad = ParseSqlType("array<int");
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("offset 9"), std::string::npos) << bad.status();
  ASSERT_RAISES(InvalidArgument, ParseSqlType("decimal(40,2)"));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("uuid"));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("int int"));
}

TEST(SqlTypeParserTest, ParsesIntervalTypesOfEitherFamily) {
  for (const char* text : {"interval year to month", "INTERVAL YEAR", "interval Month"}) {
    ASSERT_OK_AND_ASSIGN(DataTypePtr type, ParseSqlType(text));
    EXPECT_EQ(type->Id(), TypeId::kYearMonthInterval) << text;
  }
  // Day-time intervals keep Spark's start and end fields, which their names show.
  const std::pair<const char*, const char*> day_time[] = {
      {"interval day to second", "interval day to second"},
      {"INTERVAL HOUR TO MINUTE", "interval hour to minute"},
      {"interval day", "interval day"},
      {"array<interval second>", "array<interval second>"}};
  for (const auto& [text, name] : day_time) {
    ASSERT_OK_AND_ASSIGN(DataTypePtr type, ParseSqlType(text));
    EXPECT_EQ(type->ToString(), name) << text;
  }
  ASSERT_OK_AND_ASSIGN(DataTypePtr year, ParseSqlType("INTERVAL YEAR"));
  EXPECT_EQ(year->IntervalStartField(), IntervalField::kYear);
  EXPECT_EQ(year->IntervalEndField(), IntervalField::kYear);
  // The fields do not make another type: values of either mix.
  EXPECT_TRUE(year->Equals(*DataType::YearMonthInterval()));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("interval month to year"));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("interval year to second"));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("interval day to month"));
  ASSERT_RAISES(InvalidArgument, ParseSqlType("interval weeks"));
}

TEST(SqlTypeParserTest, ParsesIntervalWithoutUnitsAsTheCalendarIntervalType) {
  const std::pair<const char*, const char*> cases[] = {
      {"interval", "interval"},
      {"INTERVAL", "interval"},
      {"struct<a:interval,b:interval day>", "struct<a:interval,b:interval day>"},
      {"array<interval>", "array<interval>"}};
  for (const auto& [text, name] : cases) {
    ASSERT_OK_AND_ASSIGN(DataTypePtr type, ParseSqlType(text));
    EXPECT_EQ(type->ToString(), name) << text;
  }
  ASSERT_OK_AND_ASSIGN(DataTypePtr type, ParseSqlType("interval"));
  EXPECT_EQ(type->Id(), TypeId::kCalendarInterval);
  EXPECT_EQ(type->Sql(), "INTERVAL");
  EXPECT_EQ(type->ByteWidth(), 16);
}

}  // namespace
}  // namespace tributary::columnar

// Spark SQL type names: the parser CAST, DDL, from_json and schemaHints share.

#include "columnar/sql_type_parser.h"

#include <string>
#include <string_view>

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

}  // namespace
}  // namespace tributary::columnar

#include "columnar/data_type.h"

#include <gtest/gtest.h>

#include "columnar/calendar.h"
#include "columnar/schema.h"
#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

TEST(DataTypeTest, NamesFollowSparkSql) {
  ASSERT_OK_AND_ASSIGN(auto decimal, DataType::Decimal(10, 2));
  auto nested = DataType::Struct({Field("id", DataType::Int64(), false),
                                  Field("tags", DataType::Array(DataType::String())),
                                  Field("attrs", DataType::Map(DataType::String(), decimal)),
                                  Field("at", DataType::TimestampNtz())});
  EXPECT_EQ(nested->ToString(),
            "struct<id:bigint,tags:array<string>,attrs:map<string,decimal(10,2)>,"
            "at:timestamp_ntz>");
  EXPECT_EQ(DataType::Int8()->ToString(), "tinyint");
  EXPECT_EQ(DataType::Int16()->ToString(), "smallint");
  EXPECT_EQ(DataType::Float32()->ToString(), "float");
  EXPECT_EQ(DataType::Date()->ToString(), "date");
  EXPECT_EQ(DataType::Null()->ToString(), "void");
}

TEST(DataTypeTest, DecimalRejectsPrecisionOutsideOneToThirtyEight) {
  ASSERT_OK(DataType::Decimal(38, 38));
  ASSERT_OK(DataType::Decimal(1, 0));
  ASSERT_RAISES(InvalidArgument, DataType::Decimal(39, 0));
  ASSERT_RAISES(InvalidArgument, DataType::Decimal(0, 0));
  ASSERT_RAISES(InvalidArgument, DataType::Decimal(5, 6));
  ASSERT_RAISES(InvalidArgument, DataType::Decimal(5, -1));
}

TEST(DataTypeTest, EqualsSeesNullabilityAndMetadataSameShapeDoesNot) {
  auto a = DataType::Struct({Field("x", DataType::Int32(), true)});
  auto b = DataType::Struct({Field("x", DataType::Int32(), false)});
  auto c =
      DataType::Struct({Field("x", DataType::Int32(), true, {{"delta.columnMapping.id", "1"}})});
  auto d = DataType::Struct({Field("y", DataType::Int32(), true)});
  EXPECT_TRUE(a->Equals(*DataType::Struct({Field("x", DataType::Int32())})));
  EXPECT_FALSE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*c));
  EXPECT_TRUE(a->SameShape(*b));
  EXPECT_TRUE(a->SameShape(*c));
  EXPECT_FALSE(a->SameShape(*d));
  EXPECT_FALSE(DataType::Array(DataType::Int32())->SameShape(*DataType::Array(DataType::Int64())));
}

TEST(DataTypeTest, ByteWidthsMatchTheDocumentedLayout) {
  ASSERT_OK_AND_ASSIGN(auto decimal, DataType::Decimal(38, 0));
  EXPECT_EQ(DataType::Boolean()->ByteWidth(), 1);
  EXPECT_EQ(DataType::Int16()->ByteWidth(), 2);
  EXPECT_EQ(DataType::Date()->ByteWidth(), 4);
  EXPECT_EQ(DataType::Timestamp()->ByteWidth(), 8);
  EXPECT_EQ(decimal->ByteWidth(), 16);
  EXPECT_EQ(DataType::String()->ByteWidth(), 0);
}

TEST(SchemaTest, ResolvesNamesExactlyThenIgnoringCase) {
  Schema schema({Field("Id", DataType::Int64()), Field("name", DataType::String()),
                 Field("NAME", DataType::String())});
  EXPECT_EQ(schema.FieldIndex("Id"), 0);
  EXPECT_EQ(schema.FieldIndex("id"), -1);
  ASSERT_OK_AND_ASSIGN(int id, schema.FieldIndexIgnoreCase("ID"));
  EXPECT_EQ(id, 0);
  auto ambiguous = schema.FieldIndexIgnoreCase("Name");
  ASSERT_RAISES(InvalidArgument, ambiguous);
  EXPECT_NE(ambiguous.status().Message().find("ambiguous"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(int missing, schema.FieldIndexIgnoreCase("other"));
  EXPECT_EQ(missing, -1);
}

TEST(DataTypeTest, YearMonthIntervalIsFourBytesOfMonthsPrintedAsSpark) {
  const DataTypePtr type = DataType::YearMonthInterval();
  EXPECT_EQ(type->Id(), TypeId::kYearMonthInterval);
  EXPECT_EQ(type->ByteWidth(), 4);
  EXPECT_EQ(type->ToString(), "interval year to month");
  EXPECT_EQ(type->Sql(), "INTERVAL YEAR TO MONTH");
  EXPECT_FALSE(type->IsNumeric());
  EXPECT_FALSE(type->SameShape(*DataType::DayTimeInterval()));
  EXPECT_FALSE(type->SameShape(*DataType::Int32()));
  std::string text;
  AppendYearMonthInterval(14, &text);
  EXPECT_EQ(text, "INTERVAL '1-2' YEAR TO MONTH");
  text.clear();
  AppendYearMonthInterval(-11, &text);
  EXPECT_EQ(text, "INTERVAL '-0-11' YEAR TO MONTH");
  text.clear();
  AppendYearMonthInterval(INT32_MIN, &text);
  EXPECT_EQ(text, "INTERVAL '-178956970-8' YEAR TO MONTH");
  text.clear();
  AppendYearMonthInterval(INT32_MAX, &text);
  EXPECT_EQ(text, "INTERVAL '178956970-7' YEAR TO MONTH");
}

TEST(DataTypeTest, IntervalFieldsNameTheTypeAndItsTextButNotItsIdentity) {
  const DataTypePtr day = DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kDay);
  const DataTypePtr hour_second =
      DataType::DayTimeInterval(IntervalField::kHour, IntervalField::kSecond);
  EXPECT_EQ(day->ToString(), "interval day");
  EXPECT_EQ(hour_second->Sql(), "INTERVAL HOUR TO SECOND");
  EXPECT_EQ(DataType::YearMonthInterval(IntervalField::kMonth, IntervalField::kMonth)->ToString(),
            "interval month");
  EXPECT_EQ(DataType::DayTimeInterval()->IntervalEndField(), IntervalField::kSecond);
  EXPECT_TRUE(day->Equals(*hour_second));
  EXPECT_TRUE(day->SameShape(*DataType::DayTimeInterval()));

  const int64_t micros = -((26 * 3600 + 3 * 60 + 4) * int64_t{1000000} + 500000);
  std::string text;
  AppendDayTimeInterval(micros, IntervalField::kHour, IntervalField::kSecond, &text);
  EXPECT_EQ(text, "INTERVAL '-26:03:04.5' HOUR TO SECOND");
  text.clear();
  AppendDayTimeInterval(micros, IntervalField::kDay, IntervalField::kMinute, &text);
  EXPECT_EQ(text, "INTERVAL '-1 02:03' DAY TO MINUTE");
  text.clear();
  AppendDayTimeInterval(micros, IntervalField::kSecond, IntervalField::kSecond, &text);
  EXPECT_EQ(text, "INTERVAL '-93784.5' SECOND");
  text.clear();
  AppendYearMonthInterval(-14, IntervalField::kYear, IntervalField::kYear, &text);
  EXPECT_EQ(text, "INTERVAL '-1' YEAR");
  text.clear();
  AppendYearMonthInterval(-14, IntervalField::kMonth, IntervalField::kMonth, &text);
  EXPECT_EQ(text, "INTERVAL '-14' MONTH");
}

}  // namespace
}  // namespace tributary::columnar

#include "columnar/column_builder.h"

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

TEST(ColumnBuilderTest, BuildsFixedWidthWithLazyValidity) {
  ColumnBuilder builder(DataType::Int32());
  builder.AppendInt(1);
  builder.AppendInt(2);
  ASSERT_OK_AND_ASSIGN(auto dense, builder.Finish());
  EXPECT_EQ(dense->Length(), 2);
  EXPECT_EQ(dense->NullCount(), 0);
  EXPECT_EQ(dense->ValidityBits(), nullptr);

  builder.AppendInt(7);
  builder.AppendNull();
  builder.AppendInt(-9);
  ASSERT_OK_AND_ASSIGN(auto sparse, builder.Finish());
  ASSERT_EQ(sparse->Length(), 3);
  EXPECT_EQ(sparse->NullCount(), 1);
  EXPECT_TRUE(sparse->IsValid(0));
  EXPECT_TRUE(sparse->IsNull(1));
  EXPECT_EQ(sparse->Values<int32_t>()[0], 7);
  EXPECT_EQ(sparse->Values<int32_t>()[2], -9);
}

TEST(ColumnBuilderTest, BuildsStringsWithOffsets) {
  ColumnBuilder builder(DataType::String());
  builder.AppendBytes("héllo");
  builder.AppendNull();
  builder.AppendBytes("");
  builder.AppendBytes("x");
  ASSERT_OK_AND_ASSIGN(auto column, builder.Finish());
  ASSERT_OK(column->ValidateFull());
  EXPECT_EQ(column->BytesAt(0), "héllo");
  EXPECT_TRUE(column->IsNull(1));
  EXPECT_EQ(column->BytesAt(2), "");
  EXPECT_EQ(column->BytesAt(3), "x");
  EXPECT_EQ(column->Offsets()[4], 7);
}

TEST(ColumnBuilderTest, BuildsNestedStructArrayAndMap) {
  auto type =
      DataType::Struct({Field("tags", DataType::Array(DataType::String())),
                        Field("counts", DataType::Map(DataType::String(), DataType::Int64()))});
  ColumnBuilder builder(type);
  // Row 0: {tags: ["a", "b"], counts: {"x": 1}}
  builder.Child(0).Child(0).AppendBytes("a");
  builder.Child(0).Child(0).AppendBytes("b");
  builder.Child(0).AppendArray();
  builder.Child(1).Child(0).AppendBytes("x");
  builder.Child(1).Child(1).AppendInt(1);
  builder.Child(1).AppendMap();
  builder.AppendStruct();
  // Row 1: null struct; children stay aligned.
  builder.AppendNull();
  // Row 2: {tags: [], counts: null}
  builder.Child(0).AppendArray();
  builder.Child(1).AppendNull();
  builder.AppendStruct();
  ASSERT_OK_AND_ASSIGN(auto column, builder.Finish());
  ASSERT_OK(column->ValidateFull());
  ASSERT_EQ(column->Length(), 3);
  EXPECT_EQ(column->Child(0)->Length(), 3);
  EXPECT_EQ(column->Child(1)->Length(), 3);
  std::vector<std::string> rows;
  for (int64_t i = 0; i < 3; ++i) {
    std::string text;
    AppendCanonicalJsonValue(*column, i, &text);
    rows.push_back(text);
  }
  EXPECT_EQ(rows[0], R"({"tags":["a","b"],"counts":[{"key":"x","value":1}]})");
  EXPECT_EQ(rows[1], "null");
  EXPECT_EQ(rows[2], R"({"tags":[],"counts":null})");
}

TEST(ColumnBuilderTest, PoolLimitSurfacesOnceAtFinishAndBuilderRecovers) {
  TrackingMemoryPool pool("tiny", DefaultMemoryPool(), /*limit_bytes=*/256);
  ColumnBuilder builder(DataType::Int64(), &pool);
  for (int i = 0; i < 1000; ++i) {
    builder.AppendInt(i);  // Never fails here; the error waits for Finish().
  }
  auto result = builder.Finish();
  ASSERT_RAISES(IOError, result);
  EXPECT_NE(result.status().Message().find("memory limit of pool 'tiny'"), std::string::npos);
  EXPECT_NE(result.status().Message().find("bigint"), std::string::npos);
  builder.AppendInt(5);
  ASSERT_OK_AND_ASSIGN(auto column, builder.Finish());
  EXPECT_EQ(column->Length(), 1);
}

TEST(ColumnBuilderTest, NullSlotsHoldZeroAndReservingChangesNoValue) {
  // Reserve (fixed width, known count) and ReserveRowsLikeSoFar (a forecast from the rows so
  // far) only make room: the finished columns are the same as without them.
  ColumnBuilder ints(DataType::Int64());
  ints.Reserve(3);
  ints.AppendInt(4);
  ints.AppendNull();
  ints.ReserveRowsLikeSoFar(1000);
  ints.AppendInt(6);
  ASSERT_OK_AND_ASSIGN(auto int_column, ints.Finish());
  ASSERT_EQ(int_column->Length(), 3);
  EXPECT_EQ(int_column->NullCount(), 1);
  EXPECT_EQ(int_column->Values<int64_t>()[0], 4);
  EXPECT_EQ(int_column->Values<int64_t>()[1], 0);
  EXPECT_EQ(int_column->Values<int64_t>()[2], 6);

  ColumnBuilder strings(DataType::Array(DataType::String()));
  strings.Child(0).AppendBytes("ab");
  strings.AppendArray();
  strings.ReserveRowsLikeSoFar(100);
  strings.AppendNull();
  strings.Child(0).AppendBytes("c");
  strings.Child(0).AppendBytes("d");
  strings.AppendArray();
  ASSERT_OK_AND_ASSIGN(auto list_column, strings.Finish());
  ASSERT_OK(list_column->ValidateFull());
  std::string text;
  for (int64_t i = 0; i < list_column->Length(); ++i) {
    AppendCanonicalJsonValue(*list_column, i, &text);
    text += ";";
  }
  EXPECT_EQ(text, R"(["ab"];null;["c","d"];)");

  ColumnBuilder nulls(DataType::Null());
  nulls.AppendNull();
  nulls.AppendNull();
  ASSERT_OK_AND_ASSIGN(auto null_column, nulls.Finish());
  EXPECT_EQ(null_column->Length(), 2);
  EXPECT_EQ(null_column->NullCount(), 2);
}

TEST(ColumnTest, MakeRejectsBuffersThatDoNotFit) {
  ASSERT_OK_AND_ASSIGN(auto small, Buffer::Allocate(8));
  auto result = Column::Make(DataType::Int64(), 2, nullptr, BufferPtr(std::move(small)));
  ASSERT_RAISES(Corruption, result);
  EXPECT_NE(result.status().Message().find("values buffer holds 8 bytes, needs 16"),
            std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto offsets, Buffer::Allocate(int64_t{3} * 8));
  offsets->MutableDataAs<int64_t>()[1] = 10;
  offsets->MutableDataAs<int64_t>()[2] = 4;
  ASSERT_OK_AND_ASSIGN(auto bytes, Buffer::CopyOf("abcdefghij"));
  ASSERT_OK_AND_ASSIGN(auto column,
                       Column::Make(DataType::String(), 2, nullptr, BufferPtr(std::move(bytes)),
                                    BufferPtr(std::move(offsets))));
  ASSERT_RAISES(Corruption, column->ValidateFull());
}

TEST(ColumnTest, ValidateFullFindsInvalidUtf8) {
  ASSERT_OK_AND_ASSIGN(auto column, testing::ColumnFromJson(DataType::Binary(), R"(["ok"])"));
  ColumnBuilder builder(DataType::String());
  builder.AppendBytes("fine");
  builder.AppendBytes("\xC3\x28");
  ASSERT_OK_AND_ASSIGN(auto strings, builder.Finish());
  auto st = strings->ValidateFull();
  ASSERT_RAISES(Corruption, st);
  EXPECT_NE(st.Message().find("row 1"), std::string::npos);
  EXPECT_TRUE(IsValidUtf8("plain ascii and ünïcödé 😈"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));      // overlong
}

}  // namespace
}  // namespace tributary::columnar

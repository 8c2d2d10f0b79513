#include "columnar/take.h"

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

using testing::BatchFromJson;
using testing::ColumnFromJson;
using testing::MakeSchema;

SchemaPtr NestedSchema() {
  return MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                     Field("tags", DataType::Array(DataType::String())),
                     Field("attrs", DataType::Map(DataType::String(), DataType::Int64())),
                     Field("point", DataType::Struct({Field("x", DataType::Float64())}))});
}

TEST(TakeTest, GathersEveryTypeIncludingNestedAndRepeats) {
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(NestedSchema(), R"([
      [1, "one", ["a"], [["k", 1]], {"x": 1.5}],
      [2, null, [], [], null],
      [3, "three", ["b", "c"], [["k", 3], ["j", 4]], {"x": null}]])"));
  std::vector<int64_t> indices = {2, 0, 2, 1};
  std::vector<ColumnPtr> columns;
  for (const auto& column : batch->Columns()) {
    ASSERT_OK_AND_ASSIGN(auto taken, Take(*column, indices));
    ASSERT_OK(taken->ValidateFull());
    columns.push_back(taken);
  }
  ASSERT_OK_AND_ASSIGN(auto result, RecordBatch::Make(batch->Schema(), 4, columns));
  auto rows = CanonicalJsonRows(*result);
  const std::string three =
      R"({"id":3,"name":"three","tags":["b","c"],"attrs":[{"key":"j","value":4},)"
      R"({"key":"k","value":3}],"point":{"x":null}})";
  EXPECT_EQ(rows[0], three);
  EXPECT_EQ(rows[1], R"({"id":1,"name":"one","tags":["a"],"attrs":[{"key":"k","value":1}],)"
                     R"("point":{"x":1.5}})");
  EXPECT_EQ(rows[2], three);
  EXPECT_EQ(rows[3], R"({"id":2,"name":null,"tags":[],"attrs":[],"point":null})");
}

TEST(TakeTest, RejectsIndexOutOfRange) {
  ASSERT_OK_AND_ASSIGN(auto column, ColumnFromJson(DataType::Int32(), "[1, 2]"));
  std::vector<int64_t> indices = {0, 2};
  auto result = Take(*column, indices);
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_NE(result.status().Message().find("index 2 at position 1"), std::string::npos);
}

TEST(ColumnarFilterTest, KeepsRowsWhereMaskIsTrueAndTreatsNullAsFalse) {
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(NestedSchema(), R"([
      [1, "a", null, null, null], [2, "b", null, null, null], [3, "c", null, null, null]])"));
  ASSERT_OK_AND_ASSIGN(auto mask, ColumnFromJson(DataType::Boolean(), "[true, null, true]"));
  ASSERT_OK_AND_ASSIGN(auto filtered, Filter(*batch, *mask));
  ASSERT_EQ(filtered->NumRows(), 2);
  EXPECT_EQ(filtered->ColumnAt(0)->Values<int64_t>()[1], 3);
  ASSERT_OK_AND_ASSIGN(auto not_bool, ColumnFromJson(DataType::Int32(), "[1, 0, 1]"));
  ASSERT_RAISES(InvalidArgument, Filter(*batch, *not_bool));
}

}  // namespace
}  // namespace tributary::columnar

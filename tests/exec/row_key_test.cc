#include "exec/row_key.h"

#include <cmath>
#include <limits>
#include <numeric>

#include <gtest/gtest.h>

#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::ColumnPtr;
using columnar::DataType;
using testing::ColumnFromJson;

std::vector<int32_t> GroupIds(std::vector<ColumnPtr> columns, GroupTable* table) {
  EncodedKeys keys;
  const int64_t rows = columns.empty() ? 0 : columns[0]->Length();
  EncodeGroupingKeys(columns, rows, &keys);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  EXPECT_OK(table->FindOrInsert(keys, ids.data()));
  return ids;
}

TEST(RowKeyTest, GroupsNullsTogetherNegativeZeroWithZeroAndAllNaNs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double other_nan = -std::numeric_limits<double>::signaling_NaN();
  ColumnPtr values = MakeColumn<double>(
      DataType::Float64(), {0.0, -0.0, nan, other_nan, std::nullopt, std::nullopt, 1.0});
  GroupTable table(columnar::DefaultMemoryPool());
  EXPECT_EQ(GroupIds({values}, &table), (std::vector<int32_t>{0, 0, 1, 1, 2, 2, 3}));
  EXPECT_EQ(table.NumGroups(), 4);
}

TEST(RowKeyTest, MultiColumnKeysDistinguishNullFromEmptyString) {
  ColumnPtr a = MakeColumn<std::string>(DataType::String(), {"", std::nullopt, "", "x", "x"});
  ColumnPtr b = MakeColumn<int64_t>(DataType::Int32(), {1, 1, 1, std::nullopt, std::nullopt});
  GroupTable table(columnar::DefaultMemoryPool());
  EXPECT_EQ(GroupIds({a, b}, &table), (std::vector<int32_t>{0, 1, 0, 2, 2}));
}

TEST(RowKeyTest, TableGrowsAndFindsEveryKey) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 100000; ++i) {
    values.emplace_back(i * 7919 % 100003);
  }
  ColumnPtr column = MakeColumn<int64_t>(DataType::Int64(), values);
  GroupTable table(columnar::DefaultMemoryPool());
  std::vector<int32_t> ids = GroupIds({column}, &table);
  ASSERT_EQ(table.NumGroups(), 100000);
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(ids[i], static_cast<int32_t>(i));
  }
  EncodedKeys keys;
  const ColumnPtr columns[] = {column};
  EncodeGroupingKeys(columns, column->Length(), &keys);
  std::vector<int32_t> found(ids.size());
  table.Find(keys, true, found.data());
  EXPECT_EQ(found, ids);
  ColumnPtr absent = MakeColumn<int64_t>(DataType::Int64(), {100004, std::nullopt});
  const ColumnPtr absent_columns[] = {absent};
  EncodeGroupingKeys(absent_columns, 2, &keys);
  table.Find(keys, true, found.data());
  EXPECT_EQ(found[0], -1);
  EXPECT_EQ(found[1], -1);
}

TEST(RowKeyTest, DecodesNestedKeysBackToTheirValues) {
  const auto type = DataType::Struct(
      {columnar::Field("s", DataType::String()),
       columnar::Field("l", DataType::Array(DataType::Int64())),
       columnar::Field("m", DataType::Map(DataType::String(), DataType::Float64()))});
  ASSERT_OK_AND_ASSIGN(
      ColumnPtr column,
      ColumnFromJson(type, R"([{"s": "a", "l": [1, null, 3], "m": [["k", 1.5]]}, null,
                              {"s": null, "l": [], "m": []}, {"s": "a", "l": [1, null, 3], "m": [["k", 1.5]]}])"));
  ASSERT_OK_AND_ASSIGN(auto decimal_type, DataType::Decimal(20, 3));
  ASSERT_OK_AND_ASSIGN(ColumnPtr decimals,
                       ColumnFromJson(decimal_type, R"(["-12345", null, "7", "-12345"])"));
  GroupTable table(columnar::DefaultMemoryPool());
  EXPECT_EQ(GroupIds({column, decimals}, &table), (std::vector<int32_t>{0, 1, 2, 0}));
  std::vector<std::string_view> keys;
  for (int64_t g = 0; g < table.NumGroups(); ++g) {
    keys.push_back(table.KeyOf(g));
  }
  const columnar::DataTypePtr types[] = {type, decimal_type};
  ASSERT_OK_AND_ASSIGN(auto decoded,
                       DecodeGroupingKeys(types, keys, columnar::DefaultMemoryPool()));
  for (int64_t row = 0; row < 3; ++row) {
    std::string expected;
    std::string actual;
    columnar::AppendCanonicalJsonValue(*column, row, &expected);
    columnar::AppendCanonicalJsonValue(*decoded[0], row, &actual);
    EXPECT_EQ(actual, expected);
    expected.clear();
    actual.clear();
    columnar::AppendCanonicalJsonValue(*decimals, row, &expected);
    columnar::AppendCanonicalJsonValue(*decoded[1], row, &actual);
    EXPECT_EQ(actual, expected);
  }
}

TEST(RowKeyTest, GroupsMapsOfTheSameEntriesInAnyOrderTogether) {
  const auto type = DataType::Array(DataType::Map(DataType::Int32(), DataType::String()));
  ASSERT_OK_AND_ASSIGN(ColumnPtr column, ColumnFromJson(type, R"([[[[1, "a"], [2, "b"]]],
                                                                 [[[2, "b"], [1, "a"]]],
                                                                 [[[2, "a"], [1, "b"]]],
                                                                 [[[1, "a"]]]])"));
  GroupTable table(columnar::DefaultMemoryPool());
  EXPECT_EQ(GroupIds({column}, &table), (std::vector<int32_t>{0, 0, 1, 2}));
}

std::vector<int64_t> SortedRows(const ColumnPtr& column, OrderingDirection direction) {
  EncodedKeys keys;
  const ColumnPtr columns[] = {column};
  const OrderingDirection directions[] = {direction};
  EncodeOrderingKeys(columns, directions, column->Length(), &keys);
  std::vector<int64_t> order(static_cast<size_t>(column->Length()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return keys.Key(a) < keys.Key(b); });
  return order;
}

TEST(RowKeyTest, OrderingKeysOrderDoublesAsSpark) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  //                                              0     1     2    3     4    5           6
  ColumnPtr column =
      MakeColumn<double>(DataType::Float64(), {nan, 0.0, -inf, -0.0, inf, std::nullopt, -1.5});
  EXPECT_EQ(SortedRows(column, {true, true}), (std::vector<int64_t>{5, 2, 6, 1, 3, 4, 0}));
  EXPECT_EQ(SortedRows(column, {false, false}), (std::vector<int64_t>{0, 4, 1, 3, 6, 2, 5}));
  EXPECT_EQ(SortedRows(column, {true, false}), (std::vector<int64_t>{2, 6, 1, 3, 4, 0, 5}));
}

TEST(RowKeyTest, OrderingKeysOrderIntegersStringsAndArrays) {
  ColumnPtr ints = MakeColumn<int64_t>(DataType::Int32(), {5, -3, INT32_MIN, INT32_MAX, 0});
  EXPECT_EQ(SortedRows(ints, {true, true}), (std::vector<int64_t>{2, 1, 4, 0, 3}));
  ColumnPtr strings = MakeColumn<std::string>(
      DataType::String(), {"b", "a", std::string("a\0", 2), "ab", "", "\xc3\xa9"});
  EXPECT_EQ(SortedRows(strings, {true, true}), (std::vector<int64_t>{4, 1, 2, 3, 0, 5}));
  EXPECT_EQ(SortedRows(strings, {false, true}), (std::vector<int64_t>{5, 0, 3, 2, 1, 4}));
  ASSERT_OK_AND_ASSIGN(ColumnPtr arrays,
                       ColumnFromJson(DataType::Array(DataType::Int64()),
                                      "[[1, 2], [1], [], [1, null], [0, 9], null]"));
  EXPECT_EQ(SortedRows(arrays, {true, true}), (std::vector<int64_t>{5, 2, 4, 1, 3, 0}));
}

TEST(RowKeyTest, ConcatenatesNestedColumns) {
  const auto type = DataType::Struct({columnar::Field("a", DataType::Int64()),
                                      columnar::Field("l", DataType::Array(DataType::String()))});
  ASSERT_OK_AND_ASSIGN(ColumnPtr first, ColumnFromJson(type, R"([{"a": 1, "l": ["x"]}, null])"));
  ASSERT_OK_AND_ASSIGN(
      ColumnPtr second,
      ColumnFromJson(type, R"([{"a": null, "l": ["y", null]}, {"a": 4, "l": []}])"));
  ASSERT_OK_AND_ASSIGN(ColumnPtr taken, columnar::Take(*second, std::vector<int64_t>{1, 0}));
  const ColumnPtr parts[] = {first, second, taken};
  ASSERT_OK_AND_ASSIGN(ColumnPtr all, columnar::Concatenate(parts));
  ASSERT_EQ(all->Length(), 6);
  std::string out;
  for (int64_t i = 0; i < all->Length(); ++i) {
    columnar::AppendCanonicalJsonValue(*all, i, &out);
    out += ";";
  }
  EXPECT_EQ(out, R"({"a":1,"l":["x"]};null;{"a":null,"l":["y",null]};{"a":4,"l":[]};)"
                 R"({"a":4,"l":[]};{"a":null,"l":["y",null]};)");
}

TEST(RowKeyTest, TakeOrNullGivesNullsForMissingRows) {
  ColumnPtr column = MakeColumn<std::string>(DataType::String(), {"a", "b"});
  ASSERT_OK_AND_ASSIGN(ColumnPtr taken, TakeOrNull(*column, std::vector<int64_t>{1, -1, 0},
                                                   columnar::DefaultMemoryPool()));
  ASSERT_EQ(taken->Length(), 3);
  EXPECT_EQ(taken->BytesAt(0), "b");
  EXPECT_TRUE(taken->IsNull(1));
  EXPECT_EQ(taken->BytesAt(2), "a");
}

}  // namespace
}  // namespace tributary::exec

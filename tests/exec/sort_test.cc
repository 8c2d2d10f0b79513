#include "exec/sort.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

struct RandomRows {
  std::vector<std::optional<int64_t>> a;
  std::vector<std::optional<double>> b;
  std::vector<std::optional<int64_t>> id;
};

RandomRows MakeRandomRows(int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double specials[] = {
      0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity(),
      2.5, -7.0};
  RandomRows out;
  for (int64_t i = 0; i < rows; ++i) {
    out.a.push_back(rng() % 9 == 0 ? std::nullopt
                                   : std::optional<int64_t>(static_cast<int64_t>(rng() % 30) - 15));
    out.b.push_back(rng() % 7 == 0 ? std::nullopt : std::optional<double>(specials[rng() % 6]));
    out.id.emplace_back(i);
  }
  return out;
}

// Spark: a ASC NULLS FIRST, then b DESC NULLS LAST (NaN largest, -0.0 == 0.0).
int CompareSpark(const RandomRows& rows, size_t x, size_t y) {
  const auto& ax = rows.a[x];
  const auto& ay = rows.a[y];
  if (ax.has_value() != ay.has_value()) {
    return ax.has_value() ? 1 : -1;
  }
  if (ax && *ax != *ay) {
    return *ax < *ay ? -1 : 1;
  }
  const auto& bx = rows.b[x];
  const auto& by = rows.b[y];
  if (bx.has_value() != by.has_value()) {
    return bx.has_value() ? -1 : 1;
  }
  if (!bx) {
    return 0;
  }
  const bool nx = std::isnan(*bx);
  const bool ny = std::isnan(*by);
  if (nx || ny) {
    return nx == ny ? 0 : (nx ? -1 : 1);
  }
  return *bx == *by ? 0 : (*bx > *by ? -1 : 1);
}

class SortRandomTest : public ::testing::TestWithParam<std::optional<int64_t>> {};

TEST_P(SortRandomTest, MatchesStableReferenceSort) {
  const std::optional<int64_t> limit = GetParam();
  const int64_t n = 10000;
  const RandomRows data = MakeRandomRows(n, 99);
  auto schema = MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::Float64()),
                            Field("id", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, columnar::RecordBatch::Make(schema, n,
                                              {MakeColumn<int64_t>(DataType::Int32(), data.a),
                                               MakeColumn<double>(DataType::Float64(), data.b),
                                               MakeColumn<int64_t>(DataType::Int64(), data.id)}));
  ExecContext context;
  OperatorPtr op = Instantiate(
      std::make_shared<SortNode>(Source(schema, Split(batch, 777)),
                                 std::vector<SortKey>{{ColumnRef(*schema, "a"), true, true},
                                                      {ColumnRef(*schema, "b"), false, false}},
                                 limit),
      context);
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*op));
  std::vector<int64_t> ids;
  for (const auto& out : batches) {
    EXPECT_LE(out->NumRows(), kTargetBatchRows);
    for (int64_t i = 0; i < out->NumRows(); ++i) {
      ids.push_back(out->ColumnAt(2)->Values<int64_t>()[i]);
    }
  }
  std::vector<int64_t> expected(static_cast<size_t>(n));
  std::iota(expected.begin(), expected.end(), 0);
  std::stable_sort(expected.begin(), expected.end(), [&](int64_t x, int64_t y) {
    return CompareSpark(data, static_cast<size_t>(x), static_cast<size_t>(y)) < 0;
  });
  expected.resize(static_cast<size_t>(std::min(n, limit.value_or(n))));
  EXPECT_EQ(ids, expected);
}

INSTANTIATE_TEST_SUITE_P(FullAndTopN, SortRandomTest,
                         ::testing::Values(std::nullopt, std::optional<int64_t>(0),
                                           std::optional<int64_t>(1), std::optional<int64_t>(37),
                                           std::optional<int64_t>(3000),
                                           std::optional<int64_t>(20000),
                                           std::optional<int64_t>(INT64_MAX)));

TEST(SortTest, OrdersStringsStructsAndArrays) {
  const auto point =
      DataType::Struct({Field("x", DataType::Int32()), Field("y", DataType::String())});
  auto schema = MakeSchema({Field("s", DataType::String()), Field("p", point),
                            Field("l", DataType::Array(DataType::Int32()))});
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, R"([
      ["b", {"x": 1, "y": "b"}, [2]],
      ["\u00e9", {"x": 1, "y": "a"}, [1, 5]],
      ["B", null, []],
      ["ab", {"x": null, "y": "z"}, null],
      ["a", {"x": 0, "y": "z"}, [1]]])"));
  ExecContext context;
  auto sorted_by = [&](const std::string& column, bool ascending) {
    OperatorPtr op =
        Instantiate(std::make_shared<SortNode>(
                        Source(schema, {batch}),
                        std::vector<SortKey>{{ColumnRef(*schema, column), ascending, ascending}}),
                    context);
    std::vector<std::string> firsts;
    auto batches = Drain(*op);
    EXPECT_OK(batches.status());
    for (const auto& out : *batches) {
      for (int64_t i = 0; i < out->NumRows(); ++i) {
        firsts.emplace_back(out->ColumnAt(0)->BytesAt(i));
      }
    }
    return firsts;
  };
  EXPECT_EQ(sorted_by("s", true), (std::vector<std::string>{"B", "a", "ab", "b", "\u00e9"}));
  EXPECT_EQ(sorted_by("p", true), (std::vector<std::string>{"B", "ab", "a", "\u00e9", "b"}));
  EXPECT_EQ(sorted_by("l", true), (std::vector<std::string>{"ab", "B", "a", "\u00e9", "b"}));
  EXPECT_EQ(sorted_by("l", false), (std::vector<std::string>{"b", "\u00e9", "a", "B", "ab"}));
}

TEST(SortTest, EmptyInputGivesNoRows) {
  auto schema = MakeSchema({Field("a", DataType::Int32())});
  ExecContext context;
  OperatorPtr op =
      Instantiate(std::make_shared<SortNode>(Source(schema, {}),
                                             std::vector<SortKey>{{ColumnRef(*schema, "a")}}, 5),
                  context);
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*op));
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(op->ToString(), "TopN(a ASC NULLS FIRST, limit=5)");
}

}  // namespace
}  // namespace tributary::exec

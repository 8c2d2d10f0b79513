#include "exec/hash_join.h"

#include <random>

#include <gtest/gtest.h>

#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

columnar::SchemaPtr JoinSchema(const columnar::Schema& left, const columnar::Schema& right,
                               JoinType type) {
  std::vector<Field> fields;
  for (const Field& field : left.Fields()) {
    fields.push_back(field.WithNullable(true));
  }
  if (type != JoinType::kLeftSemi && type != JoinType::kLeftAnti) {
    for (const Field& field : right.Fields()) {
      fields.push_back(field.WithNullable(true));
    }
  }
  return MakeSchema(fields);
}

// Joins on left.`lk` = right.`rk` with an optional residual over left ++ right.
Result<std::vector<std::string>> Join(columnar::SchemaPtr left_schema,
                                      std::vector<RecordBatchPtr> left,
                                      columnar::SchemaPtr right_schema,
                                      std::vector<RecordBatchPtr> right, JoinType type,
                                      const std::vector<std::string>& left_keys,
                                      const std::vector<std::string>& right_keys,
                                      expr::ExprPtr residual = nullptr) {
  ExecContext context;
  std::vector<expr::BoundExprPtr> lk;
  std::vector<expr::BoundExprPtr> rk;
  for (const std::string& key : left_keys) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*expr::Col(key), *left_schema));
    lk.push_back(bound);
  }
  for (const std::string& key : right_keys) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*expr::Col(key), *right_schema));
    rk.push_back(bound);
  }
  expr::BoundExprPtr bound_residual;
  if (residual != nullptr) {
    std::vector<Field> fields = left_schema->Fields();
    fields.insert(fields.end(), right_schema->Fields().begin(), right_schema->Fields().end());
    TRIBUTARY_ASSIGN_OR_RAISE(bound_residual, expr::Bind(*residual, *MakeSchema(fields)));
  }
  auto output = JoinSchema(*left_schema, *right_schema, type);
  OperatorPtr op =
      Instantiate(std::make_shared<HashJoinNode>(
                      Source(left_schema, std::move(left)), Source(right_schema, std::move(right)),
                      type, std::move(lk), std::move(rk), bound_residual, output),
                  context);
  return RowsOf(*op);
}

struct Side {
  std::vector<std::optional<int64_t>> keys;
  std::vector<std::optional<int64_t>> values;
};

// Nested-loop reference for rows as {"lk":..,"lv":..,"rk":..,"rv":..}.
std::vector<std::string> ReferenceJoin(const Side& left, const Side& right, JoinType type,
                                       bool with_residual) {
  auto text = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : "null";
  };
  auto matches = [&](size_t l, size_t r) {
    const bool keys = type == JoinType::kCross ||
                      (left.keys[l] && right.keys[r] && *left.keys[l] == *right.keys[r]);
    // residual: lv < rv (null -> no match)
    const bool residual =
        !with_residual || (left.values[l] && right.values[r] && *left.values[l] < *right.values[r]);
    return keys && residual;
  };
  std::vector<std::string> rows;
  std::vector<bool> right_matched(right.keys.size());
  for (size_t l = 0; l < left.keys.size(); ++l) {
    bool matched = false;
    for (size_t r = 0; r < right.keys.size(); ++r) {
      if (!matches(l, r)) {
        continue;
      }
      matched = true;
      right_matched[r] = true;
      if (type != JoinType::kLeftSemi && type != JoinType::kLeftAnti) {
        rows.push_back("{\"lk\":" + text(left.keys[l]) + ",\"lv\":" + text(left.values[l]) +
                       ",\"rk\":" + text(right.keys[r]) + ",\"rv\":" + text(right.values[r]) + "}");
      }
    }
    const std::string left_only =
        "{\"lk\":" + text(left.keys[l]) + ",\"lv\":" + text(left.values[l]);
    if ((type == JoinType::kLeftSemi && matched) || (type == JoinType::kLeftAnti && !matched)) {
      rows.push_back(left_only + "}");
    }
    if (!matched && (type == JoinType::kLeft || type == JoinType::kFull)) {
      rows.push_back(left_only + ",\"rk\":null,\"rv\":null}");
    }
  }
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t r = 0; r < right.keys.size(); ++r) {
      if (!right_matched[r]) {
        rows.push_back("{\"lk\":null,\"lv\":null,\"rk\":" + text(right.keys[r]) +
                       ",\"rv\":" + text(right.values[r]) + "}");
      }
    }
  }
  return rows;
}

// How a side's keys spread over int64: kDense keys fill a small range (the build side then
// gets a direct array), kSparse keys are the dense ones multiplied by an odd constant, which
// keeps them distinct but spreads them over all of int64, negatives included (open
// addressing).
enum class KeySpread { kDense, kSparse };

Side RandomSide(std::mt19937_64& rng, int64_t rows, int64_t key_range, KeySpread spread) {
  Side side;
  for (int64_t i = 0; i < rows; ++i) {
    const uint64_t key = rng() % static_cast<uint64_t>(key_range);
    side.keys.push_back(
        rng() % 8 == 0 ? std::nullopt
                       : std::optional<int64_t>(static_cast<int64_t>(
                             spread == KeySpread::kDense ? key : key * 0x9E3779B97F4A7C15ULL)));
    side.values.push_back(
        rng() % 10 == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(rng() % 100)));
  }
  return side;
}

RecordBatchPtr SideBatch(const columnar::SchemaPtr& schema, const Side& side) {
  return *columnar::RecordBatch::Make(schema, static_cast<int64_t>(side.keys.size()),
                                      {MakeColumn<int64_t>(DataType::Int64(), side.keys),
                                       MakeColumn<int64_t>(DataType::Int64(), side.values)});
}

class HashJoinRandomTest : public ::testing::TestWithParam<std::tuple<JoinType, bool, KeySpread>> {
};

TEST_P(HashJoinRandomTest, MatchesNestedLoopReference) {
  const auto [type, with_residual, spread] = GetParam();
  std::mt19937_64 rng(7 + static_cast<uint64_t>(type) * 2 + (with_residual ? 1 : 0));
  const int64_t left_rows = type == JoinType::kCross ? 150 : 3000;
  const int64_t right_rows = type == JoinType::kCross ? 60 : 700;
  const Side left = RandomSide(rng, left_rows, 500, spread);
  const Side right = RandomSide(rng, right_rows, 400, spread);
  auto left_schema = MakeSchema({Field("lk", DataType::Int64()), Field("lv", DataType::Int64())});
  auto right_schema = MakeSchema({Field("rk", DataType::Int64()), Field("rv", DataType::Int64())});
  expr::ExprPtr residual =
      with_residual ? expr::Call(expr::Op::kLess, {expr::Col("lv"), expr::Col("rv")}) : nullptr;
  const bool cross = type == JoinType::kCross;
  ASSERT_OK_AND_ASSIGN(
      auto rows,
      Join(left_schema, Split(SideBatch(left_schema, left), 512), right_schema,
           Split(SideBatch(right_schema, right), 300), type,
           cross ? std::vector<std::string>{} : std::vector<std::string>{"lk"},
           cross ? std::vector<std::string>{} : std::vector<std::string>{"rk"}, residual));
  EXPECT_EQ(Sorted(rows), Sorted(ReferenceJoin(left, right, type, with_residual)));
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, HashJoinRandomTest,
    ::testing::Combine(::testing::Values(JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                                         JoinType::kFull, JoinType::kLeftSemi, JoinType::kLeftAnti,
                                         JoinType::kCross),
                       ::testing::Bool(),
                       ::testing::Values(KeySpread::kDense, KeySpread::kSparse)));

// The keys a by-value index must get right at the edges of int64 (a span that overflows, the
// extremes themselves) and for narrower types (int32, dates) widened before lookup.
TEST(HashJoinTest, IntegerKeysMatchAtTheEdgesOfTheirRangeAndInNarrowTypes) {
  auto left_schema = MakeSchema({Field("a", DataType::Int64())});
  auto right_schema = MakeSchema({Field("b", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto left,
      BatchFromJson(left_schema,
                    R"([[-9223372036854775808], [9223372036854775807], [0], [-1], [null]])"));
  ASSERT_OK_AND_ASSIGN(auto right, BatchFromJson(right_schema,
                                                 R"([[9223372036854775807], [-1], [null],
                                                     [-9223372036854775808], [-1]])"));
  ASSERT_OK_AND_ASSIGN(
      auto rows, Join(left_schema, {left}, right_schema, {right}, JoinType::kInner, {"a"}, {"b"}));
  EXPECT_EQ(rows,
            (std::vector<std::string>{R"({"a":-9223372036854775808,"b":-9223372036854775808})",
                                      R"({"a":9223372036854775807,"b":9223372036854775807})",
                                      R"({"a":-1,"b":-1})", R"({"a":-1,"b":-1})"}));

  auto narrow_left = MakeSchema({Field("a", DataType::Int32()), Field("d", DataType::Date())});
  auto narrow_right = MakeSchema({Field("b", DataType::Int32()), Field("e", DataType::Date())});
  ASSERT_OK_AND_ASSIGN(left,
                       BatchFromJson(narrow_left, R"([[-2147483648, 0], [7, 20789], [8, null]])"));
  ASSERT_OK_AND_ASSIGN(
      right, BatchFromJson(narrow_right, R"([[7, 0], [-2147483648, 20789], [null, -1]])"));
  ASSERT_OK_AND_ASSIGN(
      rows, Join(narrow_left, {left}, narrow_right, {right}, JoinType::kLeft, {"a"}, {"b"}));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"a":-2147483648,"d":"1970-01-01","b":-2147483648,"e":"2026-12-02"})",
                      R"({"a":7,"d":"2026-12-02","b":7,"e":"1970-01-01"})",
                      R"({"a":8,"d":null,"b":null,"e":null})"}));
  ASSERT_OK_AND_ASSIGN(
      rows, Join(narrow_left, {left}, narrow_right, {right}, JoinType::kRight, {"d"}, {"e"}));
  EXPECT_EQ(Sorted(rows), Sorted({R"({"a":-2147483648,"d":"1970-01-01","b":7,"e":"1970-01-01"})",
                                  R"({"a":7,"d":"2026-12-02","b":-2147483648,"e":"2026-12-02"})",
                                  R"({"a":null,"d":null,"b":null,"e":"1969-12-31"})"}));
}

TEST(HashJoinTest, DuplicatesOnBothSidesMultiplyAndBatchesStayNearTarget) {
  auto left_schema = MakeSchema({Field("lk", DataType::Int64())});
  auto right_schema = MakeSchema({Field("rk", DataType::Int64())});
  std::vector<std::optional<int64_t>> ones(300, 1);
  auto left = *columnar::RecordBatch::Make(left_schema, 300,
                                           {MakeColumn<int64_t>(DataType::Int64(), ones)});
  auto right = *columnar::RecordBatch::Make(right_schema, 300,
                                            {MakeColumn<int64_t>(DataType::Int64(), ones)});
  ExecContext context;
  OperatorPtr op =
      Instantiate(std::make_shared<HashJoinNode>(
                      Source(left_schema, {left}), Source(right_schema, {right}), JoinType::kInner,
                      std::vector<expr::BoundExprPtr>{ColumnRef(*left_schema, "lk")},
                      std::vector<expr::BoundExprPtr>{ColumnRef(*right_schema, "rk")}, nullptr,
                      JoinSchema(*left_schema, *right_schema, JoinType::kInner)),
                  context);
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*op));
  int64_t total = 0;
  for (const auto& batch : batches) {
    EXPECT_LE(batch->NumRows(), kTargetBatchRows);
    total += batch->NumRows();
  }
  EXPECT_EQ(total, 90000);
  EXPECT_GE(batches.size(), 90000 / kTargetBatchRows);
}

TEST(HashJoinTest, EmptyBuildSideGivesNullsForLeftAndNothingForInner) {
  auto left_schema = MakeSchema({Field("lk", DataType::String())});
  auto right_schema = MakeSchema(
      {Field("rk", DataType::String()), Field("rl", DataType::Array(DataType::Int32()))});
  ASSERT_OK_AND_ASSIGN(auto left, BatchFromJson(left_schema, R"([["a"], [null]])"));
  ASSERT_OK_AND_ASSIGN(
      auto rows, Join(left_schema, {left}, right_schema, {}, JoinType::kLeft, {"lk"}, {"rk"}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"lk":"a","rk":null,"rl":null})",
                                            R"({"lk":null,"rk":null,"rl":null})"}));
  ASSERT_OK_AND_ASSIGN(
      rows, Join(left_schema, {left}, right_schema, {}, JoinType::kInner, {"lk"}, {"rk"}));
  EXPECT_TRUE(rows.empty());
  ASSERT_OK_AND_ASSIGN(
      rows, Join(left_schema, {left}, right_schema, {}, JoinType::kLeftAnti, {"lk"}, {"rk"}));
  EXPECT_EQ(rows.size(), 2u);
}

TEST(HashJoinTest, NullKeysNeverMatchButSurviveOuterAndAntiJoins) {
  auto left_schema = MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::String())});
  auto right_schema = MakeSchema({Field("c", DataType::Int32()), Field("d", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto left,
                       BatchFromJson(left_schema, R"([[1, "x"], [null, "x"], [1, null]])"));
  ASSERT_OK_AND_ASSIGN(auto right,
                       BatchFromJson(right_schema, R"([[1, "x"], [null, "x"], [null, null]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Join(left_schema, {left}, right_schema, {right}, JoinType::kFull,
                                       {"a", "b"}, {"c", "d"}));
  EXPECT_EQ(
      Sorted(rows),
      Sorted({R"({"a":1,"b":"x","c":1,"d":"x"})", R"({"a":null,"b":"x","c":null,"d":null})",
              R"({"a":1,"b":null,"c":null,"d":null})", R"({"a":null,"b":null,"c":null,"d":"x"})",
              R"({"a":null,"b":null,"c":null,"d":null})"}));
  ASSERT_OK_AND_ASSIGN(rows, Join(left_schema, {left}, right_schema, {right}, JoinType::kLeftAnti,
                                  {"a", "b"}, {"c", "d"}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":null,"b":"x"})", R"({"a":1,"b":null})"}));
}

TEST(HashJoinTest, DoubleKeysMatchAcrossSignedZerosAndNaNsAsSparkNormalizesThem) {
  auto left_schema = MakeSchema({Field("a", DataType::Float64())});
  auto right_schema = MakeSchema({Field("b", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(auto left,
                       BatchFromJson(left_schema, R"([[-0.0], ["NaN"], [1.0], [null]])"));
  ASSERT_OK_AND_ASSIGN(auto right, BatchFromJson(right_schema, R"([[0.0], ["NaN"], [null]])"));
  ASSERT_OK_AND_ASSIGN(
      auto rows, Join(left_schema, {left}, right_schema, {right}, JoinType::kInner, {"a"}, {"b"}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":-0.0,"b":0.0})", R"({"a":"NaN","b":"NaN"})"}));
}

TEST(HashJoinTest, AllNullKeysMatchNothing) {
  auto schema = MakeSchema({Field("a", DataType::Int64())});
  auto right_schema = MakeSchema({Field("b", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto left, BatchFromJson(schema, "[[null], [null]]"));
  ASSERT_OK_AND_ASSIGN(auto right, BatchFromJson(right_schema, "[[null]]"));
  ASSERT_OK_AND_ASSIGN(auto rows,
                       Join(schema, {left}, right_schema, {right}, JoinType::kInner, {"a"}, {"b"}));
  EXPECT_TRUE(rows.empty());
  ASSERT_OK_AND_ASSIGN(rows,
                       Join(schema, {left}, right_schema, {right}, JoinType::kFull, {"a"}, {"b"}));
  EXPECT_EQ(rows.size(), 3u);
  ASSERT_OK_AND_ASSIGN(
      rows, Join(schema, {left}, right_schema, {right}, JoinType::kLeftSemi, {"a"}, {"b"}));
  EXPECT_TRUE(rows.empty());
}

TEST(HashJoinTest, ResidualDecidesOuterRowsLikeOn) {
  auto left_schema = MakeSchema({Field("a", DataType::Int32()), Field("x", DataType::Int32())});
  auto right_schema = MakeSchema({Field("b", DataType::Int32()), Field("y", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(auto left, BatchFromJson(left_schema, R"([[1, 10], [2, 10]])"));
  ASSERT_OK_AND_ASSIGN(auto right, BatchFromJson(right_schema, R"([[1, 5], [1, 20], [2, 1]])"));
  auto residual = expr::Call(expr::Op::kLess, {expr::Col("x"), expr::Col("y")});
  ASSERT_OK_AND_ASSIGN(auto rows, Join(left_schema, {left}, right_schema, {right}, JoinType::kLeft,
                                       {"a"}, {"b"}, residual));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":1,"x":10,"b":1,"y":20})",
                                            R"({"a":2,"x":10,"b":null,"y":null})"}));
}

TEST(HashJoinTest, ExplainNamesTypeKeysAndResidual) {
  auto schema = MakeSchema({Field("a", DataType::Int32())});
  ExecContext context;
  OperatorPtr op =
      Instantiate(std::make_shared<HashJoinNode>(
                      Source(schema, {}), Source(schema, {}), JoinType::kLeftSemi,
                      std::vector<expr::BoundExprPtr>{ColumnRef(*schema, "a")},
                      std::vector<expr::BoundExprPtr>{ColumnRef(*schema, "a")}, nullptr, schema),
                  context);
  EXPECT_EQ(op->ToString(), "HashJoin(left_semi, keys=[a = a])");
}

}  // namespace
}  // namespace tributary::exec

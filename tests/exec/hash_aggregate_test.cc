#include "exec/hash_aggregate.h"

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

struct AggregateSpec {
  std::string name;
  std::string function;
  std::vector<expr::ExprPtr> arguments;
  bool distinct = false;
};

Result<OperatorPtr> MakeAggregate(columnar::SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                                  const std::vector<std::string>& keys,
                                  const std::vector<AggregateSpec>& specs,
                                  const ExecContext& context) {
  std::vector<expr::BoundExprPtr> bound_keys;
  std::vector<Field> fields;
  for (const std::string& key : keys) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*expr::Col(key), *schema));
    fields.emplace_back(key, bound->Type());
    bound_keys.push_back(std::move(bound));
  }
  std::vector<AggregateCall> calls;
  for (const AggregateSpec& spec : specs) {
    AggregateCall call{spec.function, {}, spec.distinct};
    std::vector<columnar::DataTypePtr> types;
    for (const expr::ExprPtr& argument : spec.arguments) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*argument, *schema));
      types.push_back(bound->Type());
      call.arguments.push_back(std::move(bound));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto type, AggregateResultType(spec.function, types, spec.distinct));
    fields.emplace_back(spec.name, type);
    calls.push_back(std::move(call));
  }
  return InstantiateOperators(
      std::make_shared<HashAggregateNode>(Source(schema, std::move(batches)), std::move(bound_keys),
                                          std::move(calls), MakeSchema(fields)),
      context);
}

Result<std::vector<std::string>> Aggregate(columnar::SchemaPtr schema,
                                           std::vector<RecordBatchPtr> batches,
                                           const std::vector<std::string>& keys,
                                           const std::vector<AggregateSpec>& specs) {
  ExecContext context;
  TRIBUTARY_ASSIGN_OR_RAISE(auto op,
                            MakeAggregate(schema, std::move(batches), keys, specs, context));
  return RowsOf(*op);
}

expr::ExprPtr C(std::string_view name) {
  return expr::Col(name);
}

// Spark's ordering of doubles: NaN above everything.
bool SparkLess(double a, double b) {
  if (std::isnan(b)) {
    return !std::isnan(a);
  }
  return !std::isnan(a) && a < b;
}

std::string DoubleJson(double v) {
  std::string out;
  columnar::AppendJsonDouble(v, false, &out);
  return out;
}

TEST(HashAggregateTest, RandomGroupByMatchesReference) {
  std::mt19937_64 rng(20261129);
  const int64_t rows = 20000;
  std::vector<std::optional<int64_t>> keys;
  std::vector<std::optional<int64_t>> values;
  std::vector<std::optional<double>> doubles;
  const double specials[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), 1.5, -2.25};
  for (int64_t i = 0; i < rows; ++i) {
    keys.push_back(rng() % 20 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 40));
    values.push_back(rng() % 10 == 0
                         ? std::nullopt
                         : std::optional<int64_t>(static_cast<int64_t>(rng() % 2001) - 1000));
    doubles.push_back(rng() % 10 == 0 ? std::nullopt
                                      : std::optional<double>(specials[rng() % 5] *
                                                              static_cast<double>(1 + rng() % 3)));
  }
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::Int64()),
                            Field("d", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, columnar::RecordBatch::Make(schema, rows,
                                              {MakeColumn<int64_t>(DataType::Int32(), keys),
                                               MakeColumn<int64_t>(DataType::Int64(), values),
                                               MakeColumn<double>(DataType::Float64(), doubles)}));
  ASSERT_OK_AND_ASSIGN(auto actual, Aggregate(schema, Split(batch, 1000), {"k"},
                                              {{"n", "count", {}},
                                               {"nv", "count", {C("v")}},
                                               {"s", "sum", {C("v")}},
                                               {"lo", "min", {C("v")}},
                                               {"hi", "max", {C("v")}},
                                               {"a", "avg", {C("v")}},
                                               {"dlo", "min", {C("d")}},
                                               {"dhi", "max", {C("d")}}}));

  struct Group {
    int64_t n = 0, nv = 0, sum = 0, lo = 0, hi = 0;
    double dsum = 0;
    bool has_d = false;
    double dlo = 0, dhi = 0;
  };
  std::map<std::optional<int64_t>, Group> groups;
  for (int64_t i = 0; i < rows; ++i) {
    Group& g = groups[keys[static_cast<size_t>(i)]];
    ++g.n;
    if (const auto& v = values[static_cast<size_t>(i)]) {
      g.lo = g.nv == 0 ? *v : std::min(g.lo, *v);
      g.hi = g.nv == 0 ? *v : std::max(g.hi, *v);
      ++g.nv;
      g.sum += *v;
      g.dsum += static_cast<double>(*v);
    }
    if (const auto& d = doubles[static_cast<size_t>(i)]) {
      if (!g.has_d || SparkLess(*d, g.dlo)) {
        g.dlo = *d;
      }
      if (!g.has_d || SparkLess(g.dhi, *d)) {
        g.dhi = *d;
      }
      g.has_d = true;
    }
  }
  std::vector<std::string> expected;
  for (const auto& [key, g] : groups) {
    auto or_null = [&](bool present, const std::string& text) {
      return present ? text : "null";
    };
    // min/max of doubles return one of the inputs: -0.0 vs 0.0 depends on which came first,
    // so compare through value equality by normalising -0.0 in the text.
    auto dj = [&](double v) {
      return DoubleJson(v == 0 ? 0.0 : v);
    };
    expected.push_back(
        "{\"k\":" + (key ? std::to_string(*key) : "null") + ",\"n\":" + std::to_string(g.n) +
        ",\"nv\":" + std::to_string(g.nv) + ",\"s\":" + or_null(g.nv > 0, std::to_string(g.sum)) +
        ",\"lo\":" + or_null(g.nv > 0, std::to_string(g.lo)) +
        ",\"hi\":" + or_null(g.nv > 0, std::to_string(g.hi)) +
        ",\"a\":" + or_null(g.nv > 0, DoubleJson(g.dsum / static_cast<double>(g.nv))) +
        ",\"dlo\":" + or_null(g.has_d, dj(g.dlo)) + ",\"dhi\":" + or_null(g.has_d, dj(g.dhi)) +
        "}");
  }
  for (std::string& row : actual) {
    for (std::string zero = "-0.0"; row.find(zero) != std::string::npos;) {
      row.replace(row.find(zero), zero.size(), "0.0");
    }
  }
  EXPECT_EQ(Sorted(actual), Sorted(expected));
}

TEST(HashAggregateTest, NoKeysOverEmptyInputGivesOneRow) {
  auto schema = MakeSchema({Field("v", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, {}, {},
                                            {{"n", "count", {}},
                                             {"s", "sum", {C("v")}},
                                             {"l", "collect_list", {C("v")}},
                                             {"c", "approx_count_distinct", {C("v")}}}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"n":0,"s":null,"l":[],"c":0})"}));
}

TEST(HashAggregateTest, KeysOverEmptyInputGiveNoRows) {
  auto schema = MakeSchema({Field("k", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, {}, {"k"}, {{"n", "count", {}}}));
  EXPECT_TRUE(rows.empty());
}

TEST(HashAggregateTest, GroupsNaNsNullsAndSignedZerosTogether) {
  auto schema = MakeSchema({Field("k", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, BatchFromJson(schema, R"([[0.0], [-0.0], ["NaN"], [null], ["NaN"], [null]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, {batch}, {"k"}, {{"n", "count", {}}}));
  EXPECT_EQ(Sorted(rows),
            Sorted({R"({"k":0.0,"n":2})", R"({"k":"NaN","n":2})", R"({"k":null,"n":2})"}));
}

TEST(HashAggregateTest, AllNullKeysFormOneGroup) {
  auto schema = MakeSchema({Field("k", DataType::String()), Field("j", DataType::Int32()),
                            Field("v", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, BatchFromJson(schema, "[[null, null, 1], [null, null, 2], [null, null, null]]"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 2), {"k", "j"},
                                            {{"n", "count", {}}, {"s", "sum", {C("v")}}}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"k":null,"j":null,"n":3,"s":3})"}));
}

TEST(HashAggregateTest, DistinctIsKeysWithoutAggregates) {
  auto schema = MakeSchema({Field("a", DataType::String()), Field("b", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, BatchFromJson(schema, R"([["x", 1], ["x", 1], [null, 1], ["x", 2], [null, 1]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 2), {"a", "b"}, {}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":"x","b":1})", R"({"a":null,"b":1})",
                                            R"({"a":"x","b":2})"}));
}

TEST(HashAggregateTest, SumOverflowIsAnErrorNamingTheGroup) {
  auto schema = MakeSchema({Field("k", DataType::String()), Field("v", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      BatchFromJson(schema, R"([["ok", 1], ["big", 9223372036854775807], ["big", 1]])"));
  auto rows = Aggregate(schema, {batch}, {"k"}, {{"s", "sum", {C("v")}}});
  ASSERT_RAISES(InvalidArgument, rows);
  EXPECT_NE(rows.status().ToString().find("k=\"big\""), std::string::npos)
      << rows.status().ToString();
}

TEST(HashAggregateTest, DistinctAggregatesCountEachValueOncePerGroup) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(
      auto batch, BatchFromJson(schema, R"([[1, 5], [1, 5], [1, null], [1, 6], [2, 5], [2, 5]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 4), {"k"},
                                            {{"cd", "count", {C("v")}, true},
                                             {"sd", "sum", {C("v")}, true},
                                             {"c", "count", {C("v")}},
                                             {"ad", "avg", {C("v")}, true}}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"k":1,"cd":2,"sd":11,"c":3,"ad":5.5})",
                                            R"({"k":2,"cd":1,"sd":5,"c":2,"ad":5.0})"}));
}

TEST(HashAggregateTest, FirstAndLastKeepNullsUnlessIgnoringThem) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::String())});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      BatchFromJson(schema, R"([[1, null], [1, "a"], [1, "b"], [1, null], [2, null]])"));
  auto ignore = expr::Lit(expr::Scalar::Boolean(true));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 2), {"k"},
                                            {{"f", "first", {C("v")}},
                                             {"fi", "first", {C("v"), ignore}},
                                             {"l", "last", {C("v")}},
                                             {"li", "last_value", {C("v"), ignore}}}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"k":1,"f":null,"fi":"a","l":null,"li":"b"})",
                                            R"({"k":2,"f":null,"fi":null,"l":null,"li":null})"}));
}

TEST(HashAggregateTest, CollectListKeepsOrderAndSetDropsDuplicates) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      BatchFromJson(schema, R"([[1, 3], [2, 1], [1, null], [1, 3], [1, 2], [3, null]])"));
  ASSERT_OK_AND_ASSIGN(
      auto rows, Aggregate(schema, Split(batch, 4), {"k"},
                           {{"l", "collect_list", {C("v")}}, {"s", "collect_set", {C("v")}}}));
  EXPECT_EQ(rows,
            (std::vector<std::string>{R"({"k":1,"l":[3,3,2],"s":[3,2]})",
                                      R"({"k":2,"l":[1],"s":[1]})", R"({"k":3,"l":[],"s":[]})"}));
}

TEST(HashAggregateTest, MinMaxOfStringsAndStructs) {
  const auto point =
      DataType::Struct({Field("x", DataType::Int32()), Field("y", DataType::String())});
  auto schema = MakeSchema({Field("s", DataType::String()), Field("p", point)});
  ASSERT_OK_AND_ASSIGN(
      auto batch, BatchFromJson(schema, R"([["b", {"x": 2, "y": "a"}], ["ab", {"x": 1, "y": "z"}],
                                                           [null, null], ["c", {"x": 2, "y": "b"}]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 3), {},
                                            {{"lo", "min", {C("s")}},
                                             {"hi", "max", {C("s")}},
                                             {"plo", "min", {C("p")}},
                                             {"phi", "max", {C("p")}}}));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"lo":"ab","hi":"c","plo":{"x":1,"y":"z"},"phi":{"x":2,"y":"b"}})"}));
}

TEST(HashAggregateTest, DecimalSumAndAverageFollowSparkTypes) {
  ASSERT_OK_AND_ASSIGN(auto decimal, DataType::Decimal(10, 2));
  auto schema = MakeSchema({Field("d", decimal)});
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, R"([["100"], ["201"], [null], ["-1"]])"));
  ASSERT_OK_AND_ASSIGN(auto sum_type, AggregateResultType("sum", {decimal}, false));
  ASSERT_OK_AND_ASSIGN(auto avg_type, AggregateResultType("avg", {decimal}, false));
  EXPECT_EQ(sum_type->ToString(), "decimal(20,2)");
  EXPECT_EQ(avg_type->ToString(), "decimal(14,6)");
  ASSERT_OK_AND_ASSIGN(
      auto rows, Aggregate(schema, {batch}, {}, {{"s", "sum", {C("d")}}, {"a", "avg", {C("d")}}}));
  // (1.00 + 2.01 - 0.01) / 3 = 1.000000
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"s":"3.00","a":"1.000000"})"}));
  ASSERT_OK_AND_ASSIGN(auto halves, BatchFromJson(schema, R"([["1"], ["0"], ["0"]])"));
  ASSERT_OK_AND_ASSIGN(rows, Aggregate(schema, {halves}, {}, {{"a", "avg", {C("d")}}}));
  // 0.01 / 3 = 0.0033333... -> 0.003333 (HALF_UP)
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":"0.003333"})"}));
}

TEST(HashAggregateTest, VarianceFamilyAndBooleans) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::Float64()),
                            Field("b", DataType::Boolean())});
  ASSERT_OK_AND_ASSIGN(auto batch,
                       BatchFromJson(schema, R"([[1, 2.0, true], [1, 4.0, false], [1, 4.0, null],
                                                           [1, 4.0, true], [1, 5.0, true], [1, 5.0, true],
                                                           [1, 7.0, true], [1, 9.0, true], [2, 3.0, true]])"));
  ASSERT_OK_AND_ASSIGN(auto rows, Aggregate(schema, Split(batch, 4), {"k"},
                                            {{"sp", "stddev_pop", {C("v")}},
                                             {"ss", "stddev", {C("v")}},
                                             {"vp", "var_pop", {C("v")}},
                                             {"band", "bool_and", {C("b")}},
                                             {"bor", "bool_or", {C("b")}},
                                             {"ci", "count_if", {C("b")}}}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], R"({"k":1,"sp":2.0,"ss":)" + DoubleJson(std::sqrt(32.0 / 7)) +
                         R"(,"vp":4.0,"band":false,"bor":true,"ci":6})");
  EXPECT_EQ(rows[1], R"({"k":2,"sp":0.0,"ss":null,"vp":0.0,"band":true,"bor":true,"ci":1})");
}

TEST(HashAggregateTest, ApproxCountDistinctIsWithinItsErrorBound) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("v", DataType::Int64())});
  const int64_t distinct[] = {1, 10, 300, 5000, 60000};
  std::vector<std::optional<int64_t>> keys;
  std::vector<std::optional<int64_t>> values;
  for (int64_t k = 0; k < 5; ++k) {
    for (int64_t i = 0; i < distinct[k] * 2; ++i) {
      keys.emplace_back(k);
      values.emplace_back(i % distinct[k] * 1000003);
    }
  }
  ASSERT_OK_AND_ASSIGN(
      auto batch, columnar::RecordBatch::Make(schema, static_cast<int64_t>(keys.size()),
                                              {MakeColumn<int64_t>(DataType::Int32(), keys),
                                               MakeColumn<int64_t>(DataType::Int64(), values)}));
  ExecContext context;
  ASSERT_OK_AND_ASSIGN(auto op, MakeAggregate(schema, Split(batch, 4096), {"k"},
                                              {{"c", "approx_count_distinct", {C("v")}}}, context));
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*op));
  ASSERT_EQ(batches.size(), 1u);
  const int64_t* estimates = batches[0]->ColumnAt(1)->Values<int64_t>();
  for (int64_t k = 0; k < 5; ++k) {
    const auto truth = static_cast<double>(distinct[k]);
    // Three standard deviations of 5%.
    EXPECT_NEAR(static_cast<double>(estimates[k]), truth, std::max(1.0, 0.15 * truth)) << k;
  }
}

TEST(HashAggregateTest, ApproxCountDistinctTakesARelativeStandardDeviation) {
  auto schema = MakeSchema({Field("v", DataType::Int64())});
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 200000; ++i) {
    values.emplace_back(i % 100000);
  }
  ASSERT_OK_AND_ASSIGN(
      auto batch, columnar::RecordBatch::Make(schema, 200000,
                                              {MakeColumn<int64_t>(DataType::Int64(), values)}));
  ASSERT_OK_AND_ASSIGN(auto rsd, expr::DecimalLiteral("0.01"));
  ASSERT_OK_AND_ASSIGN(auto rows,
                       Aggregate(schema, Split(batch, 4096), {},
                                 {{"c", "approx_count_distinct", {C("v"), expr::Lit(rsd)}}}));
  ASSERT_EQ(rows.size(), 1u);
  const double estimate = std::stod(rows[0].substr(5));
  EXPECT_NEAR(estimate, 100000, 3000) << rows[0];
  auto too_coarse =
      Aggregate(schema, {batch}, {},
                {{"c", "approx_count_distinct", {C("v"), expr::Lit(expr::Scalar::Float64(0.5))}}});
  ASSERT_RAISES(InvalidArgument, too_coarse);
}

TEST(HashAggregateTest, ResultTypesFollowSpark) {
  auto type_of = [](std::string_view function, const std::vector<columnar::DataTypePtr>& args) {
    auto type = AggregateResultType(function, args, false);
    return type.ok() ? (*type)->ToString() : "error";
  };
  EXPECT_EQ(type_of("count", {}), "bigint");
  EXPECT_EQ(type_of("sum", {DataType::Int8()}), "bigint");
  EXPECT_EQ(type_of("sum", {DataType::Float32()}), "double");
  EXPECT_EQ(type_of("avg", {DataType::Int32()}), "double");
  EXPECT_EQ(type_of("MEAN", {DataType::Int32()}), "double");
  EXPECT_EQ(type_of("min", {DataType::Date()}), "date");
  EXPECT_EQ(type_of("collect_list", {DataType::String()}), "array<string>");
  EXPECT_EQ(type_of("variance", {DataType::Int64()}), "double");
  EXPECT_EQ(type_of("sum", {DataType::String()}), "error");
  EXPECT_EQ(type_of("max", {DataType::Map(DataType::String(), DataType::Int32())}), "error");
  EXPECT_EQ(type_of("median_of_medians", {DataType::Int32()}), "error");
  ASSERT_OK_AND_ASSIGN(auto wide, DataType::Decimal(35, 30));
  EXPECT_EQ(type_of("sum", {wide}), "decimal(38,30)");
  EXPECT_EQ(type_of("avg", {wide}), "decimal(38,34)");
}

TEST(HashAggregateTest, StateIsAccountedInTheContextPool) {
  columnar::TrackingMemoryPool pool("aggregate");
  ExecContext context;
  context.pool = &pool;
  std::vector<std::optional<int64_t>> keys;
  for (int64_t i = 0; i < 50000; ++i) {
    keys.emplace_back(i);
  }
  auto schema = MakeSchema({Field("k", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      columnar::RecordBatch::Make(schema, 50000, {MakeColumn<int64_t>(DataType::Int64(), keys)}));
  ASSERT_OK_AND_ASSIGN(auto op,
                       MakeAggregate(schema, {batch}, {"k"}, {{"n", "count", {}}}, context));
  ASSERT_OK_AND_ASSIGN(auto first, op->Next());
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->NumRows(), kTargetBatchRows);
  EXPECT_GT(pool.PeakBytesAllocated(), 50000 * 8);
}

TEST(HashAggregateTest, PoolLimitFailsTheQueryInsteadOfGrowingPastIt) {
  columnar::TrackingMemoryPool pool("aggregate", columnar::DefaultMemoryPool(), 64 << 10);
  ExecContext context;
  context.pool = &pool;
  std::vector<std::optional<int64_t>> keys;
  for (int64_t i = 0; i < 50000; ++i) {
    keys.emplace_back(i);
  }
  auto schema = MakeSchema({Field("k", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      columnar::RecordBatch::Make(schema, 50000, {MakeColumn<int64_t>(DataType::Int64(), keys)}));
  ASSERT_OK_AND_ASSIGN(
      auto op, MakeAggregate(schema, Split(batch, 4096), {"k"}, {{"n", "count", {}}}, context));
  EXPECT_FALSE(op->Next().ok());
  EXPECT_LE(pool.PeakBytesAllocated(), 64 << 10);
}

}  // namespace
}  // namespace tributary::exec

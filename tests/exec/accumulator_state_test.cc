// Accumulator::SerializeState / DeserializeState: feeding the input in batches, with every
// group's state saved and restored into a fresh accumulator between batches (what a streaming
// aggregation does between micro-batches), gives exactly the one-shot result, for every
// aggregate family over several types.

#include <map>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/aggregate/aggregate_function.h"
#include "exec/operator_io.h"
#include "exec/row_key.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

columnar::SchemaPtr InputSchema() {
  return MakeSchema({
      Field("g", DataType::Int32()),
      Field("i", DataType::Int32()),
      Field("l", DataType::Int64()),
      Field("f", DataType::Float32()),
      Field("d", DataType::Float64()),
      Field("dec", *DataType::Decimal(10, 2)),
      Field("s", DataType::String()),
      Field("b", DataType::Boolean()),
      Field("ts", DataType::Timestamp()),
      Field("arr", DataType::Array(DataType::Int32())),
      Field("st",
            DataType::Struct({Field("a", DataType::Int32()), Field("t", DataType::String())})),
  });
}

// 300 rows over 7 groups, with nulls, repeated values (DISTINCT, collect_set), NaN and -0.0.
RecordBatchPtr InputRows() {
  std::mt19937 random(17);
  std::string json = "[";
  const char* strings[] = {"\"a\"", "\"bb\"", "\"\"", "\"zeta\"", "\"é\"", "null"};
  const char* doubles[] = {"1.5", "-2.25", "\"NaN\"", "-0.0", "0.0", "1e10", "null", "3.125"};
  for (int r = 0; r < 300; ++r) {
    const auto pick = [&](int n) {
      return static_cast<int>(random() % static_cast<unsigned>(n));
    };
    const std::string i = pick(9) == 0 ? "null" : std::to_string(pick(20) - 5);
    json += fmt::format(
        "{}{{\"g\": {}, \"i\": {}, \"l\": {}, \"f\": {}, \"d\": {}, \"dec\": {}, \"s\": {}, "
        "\"b\": {}, \"ts\": {}, \"arr\": {}, \"st\": {}}}",
        r > 0 ? "," : "", pick(7), i,
        pick(10) == 0 ? "null" : std::to_string(pick(1000) * 1000003LL), pick(4) * 0.5,
        doubles[pick(8)], pick(8) == 0 ? "null" : std::to_string(pick(100000) - 500),
        strings[pick(6)], pick(5) == 0 ? "null" : (pick(2) == 0 ? "true" : "false"),
        1700000000000000LL + pick(50) * 60000000LL,
        pick(6) == 0 ? "null" : fmt::format("[{}, {}]", pick(3), pick(3)),
        pick(6) == 0 ? "null" : fmt::format("{{\"a\": {}, \"t\": {}}}", pick(4), strings[pick(5)]));
  }
  json += "]";
  auto batch = BatchFromJson(InputSchema(), json);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

struct Case {
  std::string function;
  std::vector<expr::ExprPtr> arguments;
  bool distinct = false;
  std::string Name() const {
    std::string out = function + "(" + (distinct ? "DISTINCT " : "");
    for (size_t a = 0; a < arguments.size(); ++a) {
      out += (a > 0 ? ", " : "") + arguments[a]->ToString();
    }
    return out + ")";
  }
};

std::vector<Case> Cases() {
  const auto c = [](std::string_view name) {
    return expr::Col(name);
  };
  const expr::ExprPtr ignore = expr::Lit(expr::Scalar::Boolean(true));
  const expr::ExprPtr keep = expr::Lit(expr::Scalar::Boolean(false));
  std::vector<Case> cases = {
      {"count", {}},
      {"count", {c("i"), c("s")}},
      {"count", {c("i")}, true},
      {"count", {c("i"), c("s")}, true},
      {"count_if", {c("b")}},
      {"sum", {c("i")}, true},
      {"avg", {c("d")}, true},
      {"min", {c("s")}, true},
      {"collect_set", {c("s")}, true},
      {"first", {c("i")}, true},
      {"bool_and", {c("b")}},
      {"bool_or", {c("b")}},
      {"approx_count_distinct", {c("i")}},
      {"approx_count_distinct", {c("s"), expr::Lit(expr::Scalar::Float64(0.01))}},
      {"approx_count_distinct", {c("st")}},
      {"max_by", {c("s"), c("i")}},
      {"min_by", {c("i"), c("d")}},
      {"max_by", {c("st"), c("s")}},
      {"min_by", {c("arr"), c("ts")}},
      {"bit_and", {c("i")}},
      {"bit_or", {c("l")}},
      {"bit_xor", {c("i")}},
      {"regr_count", {c("i"), c("d")}},
      {"regr_avgx", {c("i"), c("dec")}},
      {"regr_avgy", {c("i"), c("dec")}},
      {"median", {c("i")}},
      {"percentile", {c("d"), expr::Lit(expr::Scalar::Float64(0.3))}},
      {"percentile",
       {c("i"), expr::Function("array", {expr::Lit(expr::Scalar::Float64(0.1)),
                                         expr::Lit(expr::Scalar::Float64(0.9))})}},
      {"percentile",
       {c("dec"), expr::Lit(expr::Scalar::Float64(0.5)), expr::Function("abs", {c("i")})}},
      {"percentile_approx", {c("l"), expr::Lit(expr::Scalar::Float64(0.5))}},
      {"percentile_approx", {c("ts"), expr::Lit(expr::Scalar::Float64(0.25))}},
      {"mode", {c("s")}},
      {"mode", {c("i")}},
      {"mode", {c("st")}},
      {"any_value", {c("s")}},
      {"any_value", {c("i"), ignore}},
      {"histogram_numeric", {c("d"), expr::Lit(expr::Scalar::Int32(3))}},
      {"histogram_numeric", {c("i"), expr::Lit(expr::Scalar::Int32(4))}},
      {"percentile_cont", {c("i"), expr::Lit(expr::Scalar::Float64(0.25)), keep}},
      {"percentile_disc", {c("d"), expr::Lit(expr::Scalar::Float64(0.25)), ignore}},
      {"mode", {c("i"), ignore, ignore}},
  };
  for (const char* column : {"i", "l", "f", "d", "dec", "s", "b", "ts", "arr", "st"}) {
    cases.push_back({"count", {c(column)}});
    cases.push_back({"min", {c(column)}});
    cases.push_back({"max", {c(column)}});
    cases.push_back({"first", {c(column)}});
    cases.push_back({"last", {c(column)}});
    cases.push_back({"first", {c(column), ignore}});
    cases.push_back({"last", {c(column), ignore}});
    cases.push_back({"last", {c(column), keep}});
    cases.push_back({"collect_list", {c(column)}});
    cases.push_back({"collect_set", {c(column)}});
  }
  for (const char* column : {"i", "l", "f", "d", "dec"}) {
    for (const char* function : {"sum", "avg", "stddev_samp", "stddev_pop", "var_samp", "var_pop",
                                 "try_sum", "try_avg", "skewness", "kurtosis"}) {
      cases.push_back({function, {c(column)}});
    }
    for (const char* function : {"corr", "covar_pop", "covar_samp", "regr_sxx", "regr_syy",
                                 "regr_sxy", "regr_slope", "regr_intercept", "regr_r2"}) {
      cases.push_back({function, {c(column), c("d")}});
    }
  }
  return cases;
}

// Evaluates one aggregate over `batches`; with `round_trip`, every group's state goes through
// SerializeState into a fresh accumulator's DeserializeState before each batch and before
// Finish. Returns the result as one JSON value per group.
Result<std::vector<std::string>> RunAggregate(const Case& test_case,
                                              const columnar::SchemaPtr& schema,
                                              const std::vector<RecordBatchPtr>& batches,
                                              bool round_trip) {
  AggregateCall call{test_case.function, {}, test_case.distinct};
  std::vector<columnar::DataTypePtr> types;
  for (const expr::ExprPtr& argument : test_case.arguments) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*argument, *schema));
    types.push_back(bound->Type());
    call.arguments.push_back(std::move(bound));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto result_type,
                            AggregateResultType(call.function, types, call.distinct));
  MemoryPool* pool = columnar::DefaultMemoryPool();
  const GroupNamer namer = [](int32_t group) {
    return std::to_string(group);
  };
  const expr::EvalContext eval;
  GroupTable groups(pool);
  size_t value_arguments = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator, MakeAccumulator(call, pool, &value_arguments));
  std::map<int32_t, std::string> saved;
  // A fresh accumulator holding every saved state.
  const auto restore = [&]() -> Status {
    TRIBUTARY_ASSIGN_OR_RAISE(accumulator, MakeAccumulator(call, pool, &value_arguments));
    TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(groups.NumGroups()));
    for (const auto& [group, bytes] : saved) {
      TRIBUTARY_RETURN_NOT_OK(accumulator->DeserializeState(group, bytes));
    }
    return Status::OK();
  };
  EncodedKeys encoded;
  for (const RecordBatchPtr& batch : batches) {
    const ColumnPtr keys[] = {batch->Columns()[0]};
    EncodeGroupingKeys(keys, batch->NumRows(), &encoded);
    std::vector<int32_t> ids(static_cast<size_t>(batch->NumRows()));
    TRIBUTARY_RETURN_NOT_OK(groups.FindOrInsert(encoded, ids.data()));
    if (round_trip) {
      TRIBUTARY_RETURN_NOT_OK(restore());
    }
    TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(groups.NumGroups()));
    std::vector<ColumnPtr> arguments;
    for (size_t a = 0; a < value_arguments; ++a) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(*call.arguments[a], *batch, eval));
      arguments.push_back(std::move(column));
    }
    TRIBUTARY_RETURN_NOT_OK(accumulator->Update(arguments, ids.data(), batch->NumRows(), namer));
    if (round_trip) {
      saved.clear();
      for (int32_t group = 0; group < groups.NumGroups(); ++group) {
        TRIBUTARY_RETURN_NOT_OK(accumulator->SerializeState(group, &saved[group]));
      }
    }
  }
  if (round_trip) {
    TRIBUTARY_RETURN_NOT_OK(restore());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto column,
                            accumulator->Finish(groups.NumGroups(), result_type, namer, pool));
  std::vector<std::string> values;
  for (int64_t g = 0; g < column->Length(); ++g) {
    std::string value;
    columnar::AppendCanonicalJsonValue(*column, g, &value);
    values.push_back(std::move(value));
  }
  return values;
}

TEST(AccumulatorStateTest, BatchesWithStateRoundTripsGiveTheOneShotResult) {
  const RecordBatchPtr input = InputRows();
  const columnar::SchemaPtr schema = input->Schema();
  for (const Case& test_case : Cases()) {
    SCOPED_TRACE(test_case.Name());
    // Groups are numbered by first appearance in both runs, so results line up by index.
    ASSERT_OK_AND_ASSIGN(auto expected, RunAggregate(test_case, schema, {input}, false));
    ASSERT_EQ(expected.size(), 7u);
    for (int64_t rows : {1, 7, 64}) {
      SCOPED_TRACE(fmt::format("batches of {} rows", rows));
      ASSERT_OK_AND_ASSIGN(auto actual, RunAggregate(test_case, schema, Split(input, rows), true));
      EXPECT_EQ(actual, expected);
    }
  }
}

// Saves group 0's state after one batch, for the corruption checks.
Result<std::string> SavedState(const Case& test_case) {
  const RecordBatchPtr input = InputRows();
  AggregateCall call{test_case.function, {}, test_case.distinct};
  for (const expr::ExprPtr& argument : test_case.arguments) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*argument, *input->Schema()));
    call.arguments.push_back(std::move(bound));
  }
  size_t value_arguments = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                            MakeAccumulator(call, columnar::DefaultMemoryPool(), &value_arguments));
  TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(1));
  std::vector<ColumnPtr> arguments;
  for (size_t a = 0; a < value_arguments; ++a) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(*call.arguments[a], *input, {}));
    arguments.push_back(std::move(column));
  }
  const std::vector<int32_t> groups(static_cast<size_t>(input->NumRows()), 0);
  TRIBUTARY_RETURN_NOT_OK(
      accumulator->Update(arguments, groups.data(), input->NumRows(), [](int32_t) { return ""; }));
  std::string bytes;
  TRIBUTARY_RETURN_NOT_OK(accumulator->SerializeState(0, &bytes));
  return bytes;
}

TEST(AccumulatorStateTest, TruncatedOrOverlongStateIsCorruption) {
  for (const Case& test_case : Cases()) {
    SCOPED_TRACE(test_case.Name());
    ASSERT_OK_AND_ASSIGN(std::string bytes, SavedState(test_case));
    AggregateCall call{test_case.function, {}, test_case.distinct};
    const columnar::SchemaPtr schema = InputSchema();
    for (const expr::ExprPtr& argument : test_case.arguments) {
      call.arguments.push_back(BindOrDie(argument, *schema));
    }
    size_t value_arguments = 0;
    const auto deserialize = [&](std::string_view state) -> Status {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto accumulator, MakeAccumulator(call, columnar::DefaultMemoryPool(), &value_arguments));
      TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(1));
      return accumulator->DeserializeState(0, state);
    };
    EXPECT_OK(deserialize(bytes));
    EXPECT_EQ(deserialize(bytes + "x").Code(), StatusCode::kCorruption);
    if (!bytes.empty()) {
      EXPECT_EQ(deserialize(std::string_view(bytes).substr(0, bytes.size() - 1)).Code(),
                StatusCode::kCorruption);
    }
  }
}

TEST(AccumulatorStateTest, MalformedGroupingValueIsCorruption) {
  const columnar::DataTypePtr type = DataType::String();
  // Valid flag, length 10, three bytes.
  const std::string bytes = std::string("\x01\x0a\x00\x00\x00", 5) + "abc";
  EXPECT_EQ(MeasureGroupingValue(*type, bytes).status().Code(), StatusCode::kCorruption);
  EXPECT_EQ(MeasureGroupingValue(*type, std::string("\x07", 1)).status().Code(),
            StatusCode::kCorruption);
  ASSERT_OK_AND_ASSIGN(size_t size,
                       MeasureGroupingValue(*type, std::string("\x01\x03\x00\x00\x00", 5) + "abc"));
  EXPECT_EQ(size, 8u);
}

}  // namespace
}  // namespace tributary::exec

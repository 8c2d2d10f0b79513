// Expression micro-benchmarks: tributary's evaluator over in-memory record batches.
//
// scripts/bench.sh runs this binary and bench/duckdb_expr.mjs on the same data in the same run
// and prints the ratios. Both sides build the same N rows (TRIBUTARY_BENCH_ROWS, Default:
// 8,000,000) from the row number i, outside the timed region:
//   a = i * 7919 % 1000003          bigint
//   b = i % 1000                    int
//   d = (i % 10007) * 0.25          double
//   s = CAST(i % 100000 AS string)  string
// Here they are 4096-row record batches; DuckDB holds them in an in-memory table.
//
// Binding happens once, outside the timed loop. One iteration evaluates the case's expression
// over every batch and reduces each result column in a tight loop (sum of a bigint or double
// column, count of the true rows of a boolean one), as DuckDB's query ends in sum(...) or
// count(*) FILTER (WHERE ...). The reduced value is reported as the counter `result` so the
// script can check that both engines computed the same thing. One thread.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "columnar/column_builder.h"
#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "expr/bound_expression.h"
#include "expr/evaluator.h"
#include "expr/expression.h"
#include "expr/scalar.h"

namespace tributary::expr {
namespace {

using columnar::Column;
using columnar::ColumnBuilder;
using columnar::ColumnPtr;
using columnar::Field;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::Schema;
using columnar::SchemaPtr;
using columnar::TypeId;

constexpr int64_t kDefaultRows = 8'000'000;
constexpr int64_t kBatchRows = 4096;

/// Rows in the data set: TRIBUTARY_BENCH_ROWS when it is a positive integer, else the default.
int64_t NumRows() {
  const char* text = std::getenv("TRIBUTARY_BENCH_ROWS");
  if (text == nullptr) {
    return kDefaultRows;
  }
  const std::string_view view(text);
  int64_t rows = 0;
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), rows);
  if (error != std::errc() || end != view.data() + view.size() || rows <= 0) {
    return kDefaultRows;
  }
  return rows;
}

/// The columns a, b, d, s described at the top of this file, in 4096-row batches.
struct Dataset {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  int64_t num_rows = 0;
};

Result<RecordBatchPtr> MakeBatch(const SchemaPtr& schema, int64_t first_row, int64_t num_rows) {
  ColumnBuilder a(DataType::Int64());
  ColumnBuilder b(DataType::Int32());
  ColumnBuilder d(DataType::Float64());
  ColumnBuilder s(DataType::String());
  a.Reserve(num_rows);
  b.Reserve(num_rows);
  d.Reserve(num_rows);
  for (int64_t i = first_row; i < first_row + num_rows; ++i) {
    a.AppendInt(i * 7919 % 1000003);
    b.AppendInt(i % 1000);
    d.AppendDouble(static_cast<double>(i % 10007) * 0.25);
    s.AppendBytes(std::to_string(i % 100000));
  }
  std::vector<ColumnPtr> columns;
  for (ColumnBuilder* builder : {&a, &b, &d, &s}) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, num_rows, std::move(columns));
}

Result<Dataset> MakeDataset(int64_t num_rows) {
  Dataset dataset;
  dataset.num_rows = num_rows;
  dataset.schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("a", DataType::Int64()), Field("b", DataType::Int32()),
                         Field("d", DataType::Float64()), Field("s", DataType::String())});
  for (int64_t first = 0; first < num_rows; first += kBatchRows) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        RecordBatchPtr batch,
        MakeBatch(dataset.schema, first, std::min(kBatchRows, num_rows - first)));
    dataset.batches.push_back(std::move(batch));
  }
  return dataset;
}

/// Built on first use and shared by every case; its construction is never timed.
const Result<Dataset>& SharedDataset() {
  static const Result<Dataset> dataset = MakeDataset(NumRows());
  return dataset;
}

/// Sum of the valid values of a fixed-width column viewed as T, accumulated as Sum.
template <typename T, typename Sum>
Sum SumValid(const Column& column) {
  const T* values = column.Values<T>();
  const int64_t n = column.Length();
  Sum total = 0;
  if (column.NullCount() == 0) {
    for (int64_t i = 0; i < n; ++i) {
      total += values[i];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (column.IsValid(i)) {
        total += values[i];
      }
    }
  }
  return total;
}

/// One pass of a case: `expr` evaluated over every batch, each result column reduced as
/// DuckDB's query reduces it. Booleans count true rows (their values are 0 or 1); bigint and
/// double results are summed. Integer totals are exact below 2^53, which the data keeps to.
Result<double> EvaluateAndReduce(const BoundExpression& expr, const Dataset& dataset) {
  const TypeId type = expr.Type()->Id();
  const EvalContext context;
  int64_t integer_total = 0;
  double double_total = 0;
  for (const RecordBatchPtr& batch : dataset.batches) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, Evaluate(expr, *batch, context));
    switch (type) {
      case TypeId::kBoolean:
        integer_total += SumValid<uint8_t, int64_t>(*column);
        break;
      case TypeId::kInt64:
        integer_total += SumValid<int64_t, int64_t>(*column);
        break;
      case TypeId::kFloat64:
        double_total += SumValid<double, double>(*column);
        break;
      default:
        return Status::InvalidArgument("no reduction for result type " + expr.Type()->ToString() +
                                       " of " + expr.ToString());
    }
  }
  return type == TypeId::kFloat64 ? double_total : static_cast<double>(integer_total);
}

/// DuckDB: SELECT sum(a + b * 3) FROM t
ExprPtr ArithBigint() {
  return Call(Op::kAdd, {Col("a"), Call(Op::kMultiply, {Col("b"), Lit(Scalar::Int32(3))})});
}

/// DuckDB: SELECT count(*) FILTER (WHERE a > 500000 AND b < 100) FROM t
ExprPtr AndPredicate() {
  return And(Call(Op::kGreater, {Col("a"), Lit(Scalar::Int32(500000))}),
             Call(Op::kLess, {Col("b"), Lit(Scalar::Int32(100))}));
}

/// DuckDB: SELECT sum(CAST(s AS BIGINT)) FROM t
ExprPtr CastStringBigint() {
  return Cast(Col("s"), DataType::Int64());
}

/// DuckDB: SELECT sum(d * 2.5 + 1) FROM t
ExprPtr DoubleArith() {
  return Call(Op::kAdd,
              {Call(Op::kMultiply, {Col("d"), Lit(Scalar::Float64(2.5))}), Lit(Scalar::Int32(1))});
}

void BM_Evaluate(benchmark::State& state, ExprPtr (*make_expression)()) {
  const Result<Dataset>& dataset = SharedDataset();
  if (!dataset.ok()) {
    state.SkipWithError(dataset.status().ToString().c_str());
    return;
  }
  const ExprPtr expression = make_expression();
  const Result<BoundExprPtr> bound = Bind(*expression, *dataset->schema);
  if (!bound.ok()) {
    state.SkipWithError(bound.status().ToString().c_str());
    return;
  }
  double result = 0;
  for (auto _ : state) {
    const Result<double> pass = EvaluateAndReduce(**bound, *dataset);
    if (!pass.ok()) {
      state.SkipWithError(pass.status().ToString().c_str());
      break;
    }
    result = *pass;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * dataset->num_rows);
  state.counters["rows"] = static_cast<double>(dataset->num_rows);
  state.counters["result"] = result;
}

BENCHMARK_CAPTURE(BM_Evaluate, arith_bigint, &ArithBigint)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Evaluate, and_predicate, &AndPredicate)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Evaluate, cast_string_bigint, &CastStringBigint)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Evaluate, double_arith, &DoubleArith)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tributary::expr

BENCHMARK_MAIN();

// Blocking-operator micro-benchmarks: hash aggregate and hash join over in-memory batches.
//
// scripts/bench.sh runs this binary and bench/duckdb_exec.mjs on the same data in the same run
// and prints the ratios. Both sides build the tables from the row number, outside the timed
// region (N = TRIBUTARY_BENCH_EXEC_ROWS, Default: 1,000,000; the build side is N / 10):
//   fact(i < N):      k  = i * 7919 % 10007           bigint   (~10k groups)
//                     v  = i % 1000                   bigint
//                     fk = i * 7919 % (2 * N / 10)    bigint   (half of them find a dim row)
//                     sk = fk * 1000003               bigint   (fk spread wide)
//                     tk = 'key-' || fk               string
//   dim(j < N / 10):  dk = 2 * j                      bigint
//                     dv = j % 100                    bigint
//                     sdk = dk * 1000003              bigint
//                     tdk = 'key-' || dk              string
// Here they are 4096-row record batches; DuckDB holds them in in-memory tables.
//
// Cases (the reduction makes DuckDB compute the same thing without sending rows to node; the
// join reads only fk from fact, as a plan with projection pushdown would):
//   group_by  SELECT k, sum(v), count(*) FROM fact GROUP BY k          result: sum(s) + sum(c)
//   join         SELECT ... FROM fact JOIN dim ON fk = dk              result: count(*) + sum(dv)
//   join_sparse  ... ON sk = sdk (keys over a wide range: no direct array)      same result
//   join_string  ... ON tk = tdk (string keys: the encoded-key hash table)      same result
// The join reads only its key from fact, and dim's key and dv.
// One thread.

#include <charconv>
#include <cstdlib>
#include <string_view>

#include <benchmark/benchmark.h>

#include "columnar/column_builder.h"
#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/physical_plan.h"
#include "exec/relational_operators.h"

namespace tributary::exec {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::Field;
using columnar::Schema;

constexpr int64_t kDefaultRows = 1'000'000;

int64_t NumRows() {
  const char* text = std::getenv("TRIBUTARY_BENCH_EXEC_ROWS");
  if (text == nullptr) {
    return kDefaultRows;
  }
  const std::string_view view(text);
  int64_t rows = 0;
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), rows);
  return error == std::errc() && end == view.data() + view.size() && rows >= 10 ? rows
                                                                                : kDefaultRows;
}

struct Table {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

constexpr int64_t kSpread = 1000003;

// A column of 'key-<n>' strings for the numbers of `numbers`.
Result<ColumnPtr> KeyStrings(const columnar::Column& numbers) {
  ColumnBuilder builder(DataType::String());
  builder.Reserve(numbers.Length());
  const int64_t* values = numbers.Values<int64_t>();
  for (int64_t i = 0; i < numbers.Length(); ++i) {
    builder.AppendBytes("key-" + std::to_string(values[i]));
  }
  return builder.Finish();
}

// `table` with a string column `name` of KeyStrings(column `from`).
Result<Table> WithKeyStrings(const Table& table, int from, const std::string& name) {
  Table out;
  std::vector<Field> fields = table.schema->Fields();
  fields.emplace_back(name, DataType::String(), false);
  out.schema = std::make_shared<const Schema>(std::move(fields));
  for (const RecordBatchPtr& batch : table.batches) {
    std::vector<ColumnPtr> columns = batch->Columns();
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr strings, KeyStrings(*batch->ColumnAt(from)));
    columns.push_back(std::move(strings));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto with, columnar::RecordBatch::Make(out.schema, batch->NumRows(), std::move(columns)));
    out.batches.push_back(std::move(with));
  }
  return out;
}

// Columns named `names`, each filled with formula(column, row) for rows 0..rows-1.
template <typename Formula>
Result<Table> MakeTable(const std::vector<std::string>& names, int64_t rows, Formula formula) {
  Table table;
  std::vector<Field> fields;
  fields.reserve(names.size());
  for (const std::string& name : names) {
    fields.emplace_back(name, DataType::Int64(), false);
  }
  table.schema = std::make_shared<const Schema>(std::move(fields));
  for (int64_t first = 0; first < rows; first += kTargetBatchRows) {
    const int64_t count = std::min(kTargetBatchRows, rows - first);
    std::vector<ColumnPtr> columns;
    for (size_t c = 0; c < names.size(); ++c) {
      ColumnBuilder builder(DataType::Int64());
      builder.Reserve(count);
      for (int64_t i = first; i < first + count; ++i) {
        builder.AppendInt(formula(c, i));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder.Finish());
      columns.push_back(std::move(column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch,
                              columnar::RecordBatch::Make(table.schema, count, std::move(columns)));
    table.batches.push_back(std::move(batch));
  }
  return table;
}

struct Dataset {
  Table fact;
  Table dim;
};

Result<Dataset> MakeDataset(int64_t rows) {
  const int64_t dim_rows = rows / 10;
  Dataset dataset;
  TRIBUTARY_ASSIGN_OR_RAISE(
      Table fact, MakeTable({"k", "v", "fk", "sk"}, rows, [&](size_t c, int64_t i) {
        const int64_t fk = i * 7919 % (2 * dim_rows);
        return c == 0 ? i * 7919 % 10007 : (c == 1 ? i % 1000 : (c == 2 ? fk : fk * kSpread));
      }));
  TRIBUTARY_ASSIGN_OR_RAISE(dataset.fact, WithKeyStrings(fact, 2, "tk"));
  TRIBUTARY_ASSIGN_OR_RAISE(Table dim,
                            MakeTable({"dk", "dv", "sdk"}, dim_rows, [](size_t c, int64_t j) {
                              return c == 0 ? 2 * j : (c == 1 ? j % 100 : 2 * j * kSpread);
                            }));
  TRIBUTARY_ASSIGN_OR_RAISE(dataset.dim, WithKeyStrings(dim, 0, "tdk"));
  return dataset;
}

const Result<Dataset>& SharedDataset() {
  static const Result<Dataset> kDataset = MakeDataset(NumRows());
  return kDataset;
}

expr::BoundExprPtr ColumnOf(const Table& table, std::string_view name) {
  return *expr::Bind(*expr::Col(name), *table.schema);
}

PhysicalNodePtr Scan(const Table& table) {
  return std::make_shared<ValuesNode>(table.schema, table.batches);
}

// The columns at `indices` of `table`, without copying: what a scan with projection pushdown
// returns, as DuckDB reads only the columns a query uses.
Table Project(const Table& table, const std::vector<int>& indices) {
  Table out;
  std::vector<Field> fields;
  fields.reserve(indices.size());
  for (int i : indices) {
    fields.push_back(table.schema->FieldAt(i));
  }
  out.schema = std::make_shared<const Schema>(std::move(fields));
  for (const RecordBatchPtr& batch : table.batches) {
    out.batches.push_back(*columnar::RecordBatch::Make(out.schema, batch->NumRows(), [&] {
      std::vector<ColumnPtr> columns;
      columns.reserve(indices.size());
      for (int i : indices) {
        columns.push_back(batch->ColumnAt(i));
      }
      return columns;
    }()));
  }
  return out;
}

int64_t SumColumn(const std::vector<RecordBatchPtr>& batches, int column) {
  int64_t total = 0;
  for (const RecordBatchPtr& batch : batches) {
    const int64_t* values = batch->ColumnAt(column)->Values<int64_t>();
    for (int64_t i = 0; i < batch->NumRows(); ++i) {
      total += values[i];
    }
  }
  return total;
}

Status GroupBy(const Dataset& data, const ExecContext& context, int64_t* result) {
  const Table& fact = data.fact;
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      Field("k", DataType::Int64()), Field("s", DataType::Int64()), Field("c", DataType::Int64())});
  auto plan = std::make_shared<HashAggregateNode>(
      Scan(fact), std::vector<expr::BoundExprPtr>{ColumnOf(fact, "k")},
      std::vector<AggregateCall>{{"sum", {ColumnOf(fact, "v")}}, {"count", {}}}, schema);
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr op, InstantiateOperators(plan, context));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, Drain(*op));
  *result = SumColumn(batches, 1) + SumColumn(batches, 2);
  return Status::OK();
}

// fact JOIN dim ON fact.<fact_key> = dim.<dim_key>, reading fact's key and dim's key and dv.
Status JoinOn(const Dataset& data, const ExecContext& context, int fact_key, int dim_key,
              int64_t* result) {
  const Table fact = Project(data.fact, {fact_key});
  const Table dim = Project(data.dim, {dim_key, 1});
  std::vector<Field> fields = fact.schema->Fields();
  fields.insert(fields.end(), dim.schema->Fields().begin(), dim.schema->Fields().end());
  auto plan = std::make_shared<HashJoinNode>(
      Scan(fact), Scan(dim), JoinType::kInner,
      std::vector<expr::BoundExprPtr>{ColumnOf(fact, fact.schema->FieldAt(0).Name())},
      std::vector<expr::BoundExprPtr>{ColumnOf(dim, dim.schema->FieldAt(0).Name())}, nullptr,
      std::make_shared<const Schema>(std::move(fields)));
  TRIBUTARY_ASSIGN_OR_RAISE(OperatorPtr op, InstantiateOperators(plan, context));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, Drain(*op));
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches) {
    rows += batch->NumRows();
  }
  *result = rows + SumColumn(batches, 2);
  return Status::OK();
}

Status Join(const Dataset& data, const ExecContext& context, int64_t* result) {
  return JoinOn(data, context, 2, 0, result);
}

Status JoinSparse(const Dataset& data, const ExecContext& context, int64_t* result) {
  return JoinOn(data, context, 3, 2, result);
}

Status JoinString(const Dataset& data, const ExecContext& context, int64_t* result) {
  return JoinOn(data, context, 4, 3, result);
}

// Google Benchmark's BM_ prefix: scripts/bench.sh reads the runs as "BM_Exec/<case>".
void BM_Exec(benchmark::State& state,  // NOLINT(readability-identifier-naming)
             Status (*run)(const Dataset&, const ExecContext&, int64_t* result)) {
  const Result<Dataset>& dataset = SharedDataset();
  if (!dataset.ok()) {
    state.SkipWithError(dataset.status().ToString().c_str());
    return;
  }
  const ExecContext context;
  int64_t result = 0;
  for (auto _ : state) {
    const Status status = run(*dataset, context, &result);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  // Exact: the totals of this data stay below 2^53.
  state.counters["result"] = static_cast<double>(result);
}

BENCHMARK_CAPTURE(BM_Exec, group_by, GroupBy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Exec, join, Join)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Exec, join_sparse, JoinSparse)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Exec, join_string, JoinString)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tributary::exec

BENCHMARK_MAIN();

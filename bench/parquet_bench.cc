// Parquet benchmarks: tributary's ParquetWriter and ParquetFileReader on a log-shaped table.
//
// scripts/bench.sh runs this binary and bench/duckdb_parquet.mjs on the same files in the same
// run and prints the ratios. duckdb_parquet.mjs generates the data first, in the directory
// TRIBUTARY_BENCH_PARQUET_DIR (required): base.parquet (the table, uncompressed) and
// scan.parquet (the same rows as DuckDB writes them with snappy). The table and its columns are
// described in duckdb_parquet.mjs (~1M rows of request id, timestamp, status, country, user id,
// bytes, latency, path, a list of tags and a client struct).
//
// Cases, each timed as one operation per iteration, one iteration per repetition, after one
// untimed warm-up run:
//   write/snappy, write/zstd  the table, loaded from base.parquet into memory beforehand (one
//                             record batch per row group, as the reader returns them), written
//                             to tributary_<codec>.parquet by ParquetWriter with default
//                             options but the codec, through LocalFileSystem: open, Write every
//                             batch, Close (which publishes the file). DuckDB times COPY TO.
//   read/scan                 every column of every row group of scan.parquet decoded by
//                             ParquetFileReader, and every result touched (ScanTotals).
//
// Counters: `rows` and `file_bytes` (the file written or read); the read case also reports its
// ScanTotals, which the script compares with DuckDB's aggregates of the same file. The written
// files stay in the directory so that the script can check that DuckDB reads the same rows back.
// One thread.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "columnar/column.h"
#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "formats/parquet/compression.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"
#include "storage/file_system.h"
#include "storage/local_file_system.h"

namespace tributary::parquet {
namespace {

using columnar::Column;
using columnar::RecordBatchPtr;
using columnar::SchemaPtr;
using columnar::TypeId;

/// The directory duckdb_parquet.mjs generated the data in.
Result<std::string> DataDir() {
  const char* dir = std::getenv("TRIBUTARY_BENCH_PARQUET_DIR");
  if (dir == nullptr || *dir == '\0') {
    return Status::InvalidArgument(
        "TRIBUTARY_BENCH_PARQUET_DIR is not set; run scripts/bench.sh, which generates the data");
  }
  return std::string(dir);
}

/// The log table in memory: one record batch per row group of base.parquet.
struct Dataset {
  std::string dir;
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  int64_t num_rows = 0;
};

Result<Dataset> LoadDataset() {
  Dataset dataset;
  TRIBUTARY_ASSIGN_OR_RAISE(dataset.dir, DataDir());
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                            ParquetFileReader::Open(fs, dataset.dir + "/base.parquet"));
  dataset.schema = reader->Schema();
  for (int i = 0; i < reader->NumRowGroups(); ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->ReadRowGroup(i));
    dataset.num_rows += batch->NumRows();
    dataset.batches.push_back(std::move(batch));
  }
  return dataset;
}

/// Loaded on first use and shared by every case; loading is never timed.
const Result<Dataset>& SharedDataset() {
  static const Result<Dataset> dataset = LoadDataset();
  return dataset;
}

/// True the first time a case asks, so that its first repetition can warm up untimed.
bool FirstRun(const std::string& case_name) {
  static std::set<std::string> seen;
  return seen.insert(case_name).second;
}

/// Writes the dataset to `path` with `codec`; returns the file's size.
Result<int64_t> WriteDataset(storage::FileSystem& fs, const std::string& path,
                             const Dataset& dataset, CompressionCodec codec) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, fs.OpenOutputStream(path, storage::WriteMode::kReplace));
  ParquetWriterOptions options;
  options.codec = codec;
  TRIBUTARY_ASSIGN_OR_RAISE(auto writer,
                            ParquetWriter::Open(std::move(out), dataset.schema, options));
  for (const RecordBatchPtr& batch : dataset.batches) {
    TRIBUTARY_RETURN_NOT_OK(writer->Write(*batch));
  }
  TRIBUTARY_RETURN_NOT_OK(writer->Close());
  if (writer->NumRows() != dataset.num_rows) {
    return Status::Internal("writer counted " + std::to_string(writer->NumRows()) + " rows of " +
                            std::to_string(dataset.num_rows) + " written to " + path);
  }
  return writer->BytesWritten();
}

/// What a scan touches, summed over the leaf columns (list elements and struct fields
/// included): duckdb_parquet.mjs computes the same with SQL. Integer and double sums read every
/// value of those columns; strings count their bytes from the offsets.
struct ScanTotals {
  int64_t rows = 0;
  int64_t non_null_values = 0;
  int64_t string_bytes = 0;
  int64_t int_sum = 0;
  double double_sum = 0;
};

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

/// Bytes of the valid values of a string or binary column. Null slots may span bytes (the
/// layout allows it), so a column with nulls is summed value by value.
int64_t ValidBytes(const Column& column) {
  const int64_t* offsets = column.Offsets();
  const int64_t n = column.Length();
  if (column.NullCount() == 0) {
    return offsets[n] - offsets[0];
  }
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (column.IsValid(i)) {
      total += offsets[i + 1] - offsets[i];
    }
  }
  return total;
}

void AddColumn(const Column& column, ScanTotals& totals) {
  if (column.NumChildren() > 0) {
    for (const columnar::ColumnPtr& child : column.Children()) {
      AddColumn(*child, totals);
    }
    return;
  }
  totals.non_null_values += column.Length() - column.NullCount();
  switch (column.Type()->Id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      totals.string_bytes += ValidBytes(column);
      break;
    case TypeId::kInt32:
      totals.int_sum += SumValid<int32_t, int64_t>(column);
      break;
    case TypeId::kInt64:
      totals.int_sum += SumValid<int64_t, int64_t>(column);
      break;
    case TypeId::kFloat64:
      totals.double_sum += SumValid<double, double>(column);
      break;
    default:
      break;
  }
}

/// Decodes every column of every row group of `path` and touches the results.
Result<ScanTotals> ScanFile(storage::FileSystem& fs, const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(fs, path));
  ScanTotals totals;
  for (int i = 0; i < reader->NumRowGroups(); ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->ReadRowGroup(i));
    totals.rows += batch->NumRows();
    for (const columnar::ColumnPtr& column : batch->Columns()) {
      AddColumn(*column, totals);
    }
  }
  return totals;
}

void BM_Write(benchmark::State& state, CompressionCodec codec, const char* codec_name) {
  const Result<Dataset>& dataset = SharedDataset();
  if (!dataset.ok()) {
    state.SkipWithError(dataset.status().ToString().c_str());
    return;
  }
  storage::LocalFileSystem fs;
  const std::string path = dataset->dir + "/tributary_" + codec_name + ".parquet";
  Result<int64_t> file_bytes = int64_t{0};
  if (FirstRun(std::string("write/") + codec_name)) {
    file_bytes = WriteDataset(fs, path, *dataset, codec);
    if (!file_bytes.ok()) {
      state.SkipWithError(file_bytes.status().ToString().c_str());
      return;
    }
  }
  for (auto _ : state) {
    file_bytes = WriteDataset(fs, path, *dataset, codec);
    if (!file_bytes.ok()) {
      state.SkipWithError(file_bytes.status().ToString().c_str());
      return;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * dataset->num_rows);
  state.counters["rows"] = static_cast<double>(dataset->num_rows);
  state.counters["file_bytes"] = static_cast<double>(*file_bytes);
}

void BM_Read(benchmark::State& state, const char* file_name) {
  const Result<std::string> dir = DataDir();
  if (!dir.ok()) {
    state.SkipWithError(dir.status().ToString().c_str());
    return;
  }
  storage::LocalFileSystem fs;
  const std::string path = *dir + "/" + file_name;
  Result<ScanTotals> totals = ScanTotals{};
  if (FirstRun(std::string("read/") + file_name)) {
    totals = ScanFile(fs, path);
    if (!totals.ok()) {
      state.SkipWithError(totals.status().ToString().c_str());
      return;
    }
  }
  for (auto _ : state) {
    totals = ScanFile(fs, path);
    if (!totals.ok()) {
      state.SkipWithError(totals.status().ToString().c_str());
      return;
    }
  }
  const Result<storage::FileInfo> info = fs.GetFileInfo(path);
  if (!info.ok()) {
    state.SkipWithError(info.status().ToString().c_str());
    return;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * totals->rows);
  state.counters["rows"] = static_cast<double>(totals->rows);
  state.counters["file_bytes"] = static_cast<double>(info->size);
  state.counters["non_null_values"] = static_cast<double>(totals->non_null_values);
  state.counters["string_bytes"] = static_cast<double>(totals->string_bytes);
  state.counters["int_sum"] = static_cast<double>(totals->int_sum);
  state.counters["double_sum"] = totals->double_sum;
}

BENCHMARK_CAPTURE(BM_Write, snappy, CompressionCodec::kSnappy, "snappy")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Write, zstd, CompressionCodec::kZstd, "zstd")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Read, scan, "scan.parquet")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace tributary::parquet

BENCHMARK_MAIN();

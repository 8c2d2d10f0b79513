// FileScanOperator over Parquet: row groups come as batches of at most
// parquet::kDefaultBatchRows rows, with the columns a file lacks as nulls, the rescued-data
// column, partition values and `_metadata` made for every batch.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/operator_io.h"
#include "exec/parallel_scan.h"
#include "exec/read_ahead.h"
#include "exec/scan.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/temp_dir.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;

class ParquetScanTest : public ::testing::Test {
 protected:
  // A file of 20,000 rows (id = row, name, extra = 2 * row) in row groups of 12,000 rows
  // under the partition directory k=5.
  void SetUp() override {
    path_ = dir_.Join("k=5/part.parquet");
    ASSERT_OK(fs_.CreateDir(dir_.Join("k=5")));
    auto schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                             Field("extra", DataType::Int64())});
    columnar::ColumnBuilder ids(DataType::Int64());
    columnar::ColumnBuilder names(DataType::String());
    columnar::ColumnBuilder extras(DataType::Int64());
    for (int64_t i = 0; i < kRows; ++i) {
      ids.AppendInt(i);
      names.AppendBytes(fmt::format("name{}", i % 100));
      extras.AppendInt(2 * i);
    }
    ASSERT_OK_AND_ASSIGN(auto id_column, ids.Finish());
    ASSERT_OK_AND_ASSIGN(auto name_column, names.Finish());
    ASSERT_OK_AND_ASSIGN(auto extra_column, extras.Finish());
    ASSERT_OK_AND_ASSIGN(auto batch, columnar::RecordBatch::Make(
                                         schema, kRows, {id_column, name_column, extra_column}));
    parquet::ParquetWriterOptions options;
    options.row_group_size_rows = 12000;
    ASSERT_OK(parquet::WriteParquetFile(fs_, path_, {batch}, schema, options));
  }

  // The batches of a scan of the file with `schema`, selecting `columns`; with `rescue`, the
  // file's other columns go to `_rescued_data`.
  std::vector<RecordBatchPtr> Scan(columnar::SchemaPtr schema,
                                   const std::vector<std::string>& columns, bool rescue = true) {
    FileScanSpec spec;
    spec.paths = {path_};
    spec.schema = std::move(schema);
    spec.partition_schema = testing::MakeSchema({Field("k", DataType::Int32())});
    spec.partition_root = dir_.Path();
    spec.metadata_column = true;
    spec.options.parquet_rescued_data_column = rescue ? "_rescued_data" : "";
    auto op = FileScanOperator::Make(spec, columns, context_);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    if (!op.ok()) {
      return {};
    }
    auto batches = Drain(**op);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    return batches.ok() ? *batches : std::vector<RecordBatchPtr>{};
  }

  // The batches' sizes, and their rows in order.
  static std::vector<int64_t> Sizes(const std::vector<RecordBatchPtr>& batches,
                                    std::vector<std::string>* rows) {
    std::vector<int64_t> sizes;
    for (const RecordBatchPtr& batch : batches) {
      sizes.push_back(batch->NumRows());
      for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
        rows->push_back(std::move(row));
      }
    }
    return sizes;
  }

  static constexpr int64_t kRows = 20000;
  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::string path_;
  ExecContext context_{expr::EvalContext{}, columnar::DefaultMemoryPool(), &fs_};
};

TEST_F(ParquetScanTest, RowGroupsComeInBoundedBatches) {
  std::vector<std::string> rows;
  const std::vector<int64_t> sizes = Sizes(
      Scan(testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                                Field("extra", DataType::Int64())}),
           {"id", "extra", "k"}),
      &rows);
  EXPECT_EQ(sizes, (std::vector<int64_t>{8192, 3808, 8000}));
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRows));
  for (int64_t i : {0, 8191, 8192, 11999, 12000, 19999}) {
    EXPECT_EQ(rows[static_cast<size_t>(i)],
              fmt::format(R"({{"id":{},"extra":{},"k":5}})", i, 2 * i));
  }
}

TEST_F(ParquetScanTest, MissingRescuedAndMetadataColumnsInEveryBatch) {
  // `name` and `extra` are outside the scan's schema (rescued); `missing` is not in the file
  // (nulls).
  std::vector<std::string> rows;
  const std::vector<int64_t> sizes = Sizes(
      Scan(
          testing::MakeSchema({Field("id", DataType::Int64()), Field("missing", DataType::String()),
                               Field("_rescued_data", DataType::String())}),
          {"id", "missing", "_rescued_data", "k", "_metadata"}),
      &rows);
  EXPECT_EQ(sizes, (std::vector<int64_t>{8192, 3808, 8000}));
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRows));
  for (int64_t i : {0, 8191, 8192, 11999, 12000, 19999}) {
    const std::string& row = rows[static_cast<size_t>(i)];
    const std::string expected_start = fmt::format(
        R"({{"id":{},"missing":null,"_rescued_data":"{{\"name\":\"name{}\",\"extra\":{},)", i,
        i % 100, 2 * i);
    EXPECT_EQ(row.rfind(expected_start, 0), 0u) << row;
    EXPECT_NE(row.find(R"("k":5,"_metadata":{"file_path":")" + path_), std::string::npos) << row;
    EXPECT_NE(row.find(R"("file_name":"part.parquet")"), std::string::npos) << row;
  }
}

TEST_F(ParquetScanTest, FileWithoutTheScansColumnsStillCountsItsRowsInBoundedBatches) {
  std::vector<std::string> rows;
  const std::vector<int64_t> sizes =
      Sizes(Scan(testing::MakeSchema({Field("missing", DataType::String())}), {"missing", "k"},
                 /*rescue=*/false),
            &rows);
  EXPECT_EQ(sizes, (std::vector<int64_t>{8192, 3808, 8000}));
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRows));
  EXPECT_EQ(rows.front(), R"({"missing":null,"k":5})");
  EXPECT_EQ(rows.back(), R"({"missing":null,"k":5})");
}

// With threads, a scan of several parts (here the file's two row groups) is read by several
// workers, and a grouped aggregate over it is split into a partial aggregation per part and a
// final one merging them; a scan of one part feeding a grouped aggregate reads ahead on its own
// thread, and a global aggregate keeps it on the caller's thread (handing batches across cores
// cost more than it saved there). The aggregate's rows are those of one thread either way.
TEST_F(ParquetScanTest, WithThreadsScansSplitByRowGroupOrReadAhead) {
  const std::string one_group = dir_.Join("one_group.parquet");
  {
    auto schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String())});
    ASSERT_OK_AND_ASSIGN(
        auto batch,
        testing::BatchFromJson(schema,
                               R"([{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"a"}])"));
    ASSERT_OK(parquet::WriteParquetFile(fs_, one_group, {batch}, schema, {}));
  }
  const auto aggregate = [&](const std::string& path, bool grouped) {
    FileScanSpec spec;
    spec.paths = {path};
    spec.schema =
        testing::MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String())});
    auto scan = FileScanNode::Make(spec, {"id", "name"}, context_);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    std::vector<expr::BoundExprPtr> keys;
    std::vector<Field> fields;
    if (grouped) {
      keys.push_back(ColumnRef(*(*scan)->Schema(), "name"));
      fields.emplace_back("name", DataType::String());
    }
    fields.emplace_back("n", DataType::Int64());
    fields.emplace_back("s", DataType::Int64());
    return std::make_shared<HashAggregateNode>(
        *scan, std::move(keys),
        std::vector<AggregateCall>{{"count", {}}, {"sum", {ColumnRef(*(*scan)->Schema(), "id")}}},
        testing::MakeSchema(fields));
  };
  ExecContext two = context_;
  two.threads = 2;
  for (const std::string& path : {path_, one_group}) {
    for (const bool grouped : {true, false}) {
      SCOPED_TRACE(path + (grouped ? " grouped" : " global"));
      OperatorPtr serial = Instantiate(aggregate(path, grouped), context_);
      OperatorPtr parallel = Instantiate(aggregate(path, grouped), two);
      ASSERT_NE(serial, nullptr);
      ASSERT_NE(parallel, nullptr);
      ASSERT_EQ(parallel->Children().size(), 1u);
      const Operator* input = parallel->Children()[0];
      EXPECT_EQ(dynamic_cast<const ParallelScanOperator*>(input) != nullptr, path == path_);
      EXPECT_EQ(dynamic_cast<const ReadAheadOperator*>(input) != nullptr,
                path == one_group && grouped);
      EXPECT_EQ(dynamic_cast<const FileScanOperator*>(serial->Children()[0]) != nullptr, true);
      if (path == path_ && grouped) {
        // Each row group aggregated by its worker, the groups merged on this thread.
        EXPECT_EQ(Explain(*parallel),
                  "HashAggregate(keys=[name], aggs=[sum(n), sum(s)])\n"
                  "  PartialHashAggregate(keys=[name], aggs=[count(*), sum(id)])\n"
                  "    FileScan(parquet, files=1)\n");
      } else {
        EXPECT_EQ(Explain(*serial), Explain(*parallel));
      }
      ASSERT_OK_AND_ASSIGN(auto serial_rows, RowsOf(*serial));
      ASSERT_OK_AND_ASSIGN(auto parallel_rows, RowsOf(*parallel));
      EXPECT_EQ(parallel_rows.size(), grouped ? (path == path_ ? 100u : 2u) : 1u);
      // The groups come out in the order one thread finds them.
      EXPECT_EQ(parallel_rows, serial_rows);
    }
  }
}

// A grouped aggregation over files whose groups first appear in later files, with null keys
// and null values, merges its parts' groups into exactly one thread's rows in one thread's
// order; an aggregate whose partial results do not merge exactly (avg) keeps one aggregation.
// Joins probing those files part by part give one thread's rows too.
TEST_F(ParquetScanTest, AggregationsSplitIntoPartsGiveTheRowsOfOneThread) {
  auto schema =
      testing::MakeSchema({Field("key", DataType::String()), Field("v", DataType::Int64())});
  FileScanSpec spec;
  spec.schema = schema;
  for (int file = 0; file < 6; ++file) {
    columnar::ColumnBuilder keys(DataType::String());
    columnar::ColumnBuilder values(DataType::Int64());
    for (int64_t row = 0; row < 500; ++row) {
      const int64_t n = int64_t{file} * 500 + row;
      if (n % 13 == 0) {
        keys.AppendNull();
      } else {
        // File f brings groups 7f .. 7f + 9: some seen before, some new.
        keys.AppendBytes(fmt::format("k{}", int64_t{file} * 7 + n % 10));
      }
      if (n % 5 == 0) {
        values.AppendNull();
      } else {
        values.AppendInt(n % 97 - 40);
      }
    }
    ASSERT_OK_AND_ASSIGN(auto key_column, keys.Finish());
    ASSERT_OK_AND_ASSIGN(auto value_column, values.Finish());
    ASSERT_OK_AND_ASSIGN(auto batch,
                         columnar::RecordBatch::Make(schema, 500, {key_column, value_column}));
    const std::string path = dir_.Join(fmt::format("agg-{}.parquet", file));
    ASSERT_OK(parquet::WriteParquetFile(fs_, path, {batch}, schema, {}));
    spec.paths.push_back(path);
  }
  ASSERT_OK_AND_ASSIGN(auto scan, FileScanNode::Make(spec, {"key", "v"}, context_));
  const auto aggregate = [&](bool with_avg) {
    std::vector<Field> fields = {Field("key", DataType::String()), Field("n", DataType::Int64()),
                                 Field("nv", DataType::Int64()),   Field("s", DataType::Int64()),
                                 Field("lo", DataType::Int64()),   Field("hi", DataType::String())};
    std::vector<AggregateCall> calls = {{"count", {}},
                                        {"count", {ColumnRef(*scan->Schema(), "v")}},
                                        {"sum", {ColumnRef(*scan->Schema(), "v")}},
                                        {"min", {ColumnRef(*scan->Schema(), "v")}},
                                        {"max", {ColumnRef(*scan->Schema(), "key")}}};
    if (with_avg) {
      fields.emplace_back("a", DataType::Float64());
      calls.push_back({"avg", {ColumnRef(*scan->Schema(), "v")}});
    }
    return std::make_shared<HashAggregateNode>(
        scan, std::vector<expr::BoundExprPtr>{ColumnRef(*scan->Schema(), "key")}, calls,
        testing::MakeSchema(fields));
  };
  for (const bool with_avg : {false, true}) {
    SCOPED_TRACE(with_avg ? "with avg" : "merging");
    OperatorPtr serial = Instantiate(aggregate(with_avg), context_);
    ASSERT_OK_AND_ASSIGN(auto serial_rows, RowsOf(*serial));
    ASSERT_EQ(serial_rows.size(), 46u);  // k0 .. k44 and null
    EXPECT_EQ(serial_rows.front().rfind(R"({"key":null,"n":)", 0), 0u) << serial_rows.front();
    for (const int threads : {2, 3, 8}) {
      SCOPED_TRACE(threads);
      ExecContext context = context_;
      context.threads = threads;
      OperatorPtr parallel = Instantiate(aggregate(with_avg), context);
      EXPECT_EQ(Explain(*parallel).find("PartialHashAggregate") != std::string::npos, !with_avg);
      ASSERT_OK_AND_ASSIGN(auto parallel_rows, RowsOf(*parallel));
      EXPECT_EQ(parallel_rows, serial_rows);
    }
  }

  // The same files as the probe side of joins with a small build side (keys k0 .. k9 twice,
  // k3 once, a null key): each part probed by its worker against one shared build.
  auto build_schema =
      testing::MakeSchema({Field("name", DataType::String()), Field("w", DataType::Int64())});
  columnar::ColumnBuilder names(DataType::String());
  columnar::ColumnBuilder weights(DataType::Int64());
  for (int64_t i = 0; i < 20; ++i) {
    if (i == 13) {
      names.AppendNull();
    } else if (i != 12) {
      names.AppendBytes(fmt::format("k{}", i % 10));
    } else {
      names.AppendBytes("k40");
    }
    weights.AppendInt(i);
  }
  ASSERT_OK_AND_ASSIGN(auto name_column, names.Finish());
  ASSERT_OK_AND_ASSIGN(auto weight_column, weights.Finish());
  ASSERT_OK_AND_ASSIGN(auto build_batch,
                       columnar::RecordBatch::Make(build_schema, 20, {name_column, weight_column}));
  for (const JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kLeftSemi,
                              JoinType::kLeftAnti, JoinType::kFull}) {
    SCOPED_TRACE(JoinTypeName(type));
    const bool left_only = type == JoinType::kLeftSemi || type == JoinType::kLeftAnti;
    auto join = std::make_shared<HashJoinNode>(
        scan, Source(build_schema, {build_batch}), type,
        std::vector<expr::BoundExprPtr>{ColumnRef(*scan->Schema(), "key")},
        std::vector<expr::BoundExprPtr>{ColumnRef(*build_schema, "name")}, nullptr,
        left_only ? scan->Schema() : ConcatSchemas(*scan->Schema(), *build_schema));
    OperatorPtr serial = Instantiate(join, context_);
    ASSERT_OK_AND_ASSIGN(auto serial_rows, RowsOf(*serial));
    ASSERT_FALSE(serial_rows.empty());
    ExecContext context = context_;
    context.threads = 3;
    OperatorPtr parallel = Instantiate(join, context);
    EXPECT_EQ(dynamic_cast<const ParallelScanOperator*>(parallel.get()) != nullptr,
              type != JoinType::kFull);
    EXPECT_EQ(Explain(*parallel), Explain(*serial));
    ASSERT_OK_AND_ASSIGN(auto parallel_rows, RowsOf(*parallel));
    EXPECT_EQ(parallel_rows, serial_rows);
    if (left_only) {
      continue;
    }
    // Grouped above the join: each part probed and aggregated by its worker.
    auto grouped = std::make_shared<HashAggregateNode>(
        join, std::vector<expr::BoundExprPtr>{ColumnRef(*join->Schema(), "w")},
        std::vector<AggregateCall>{{"count", {}}, {"max", {ColumnRef(*join->Schema(), "v")}}},
        testing::MakeSchema({Field("w", DataType::Int64()), Field("n", DataType::Int64()),
                             Field("m", DataType::Int64())}));
    OperatorPtr serial_grouped = Instantiate(grouped, context_);
    OperatorPtr parallel_grouped = Instantiate(grouped, context);
    EXPECT_EQ(Explain(*parallel_grouped).find("PartialHashAggregate") != std::string::npos,
              type != JoinType::kFull)
        << Explain(*parallel_grouped);
    ASSERT_OK_AND_ASSIGN(auto serial_groups, RowsOf(*serial_grouped));
    ASSERT_OK_AND_ASSIGN(auto parallel_groups, RowsOf(*parallel_grouped));
    EXPECT_GT(serial_groups.size(), 10u);
    EXPECT_EQ(parallel_groups, serial_groups);
  }
}

}  // namespace
}  // namespace tributary::exec

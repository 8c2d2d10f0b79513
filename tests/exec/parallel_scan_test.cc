// ParallelScanOperator: parts read on several threads come out in part order, errors in their
// place, and what the parts report reaches the spec's callbacks once, on the consumer's thread;
// a file scan of several files gives with threads exactly the rows of one thread.

#include "exec/parallel_scan.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/operator_io.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/temp_dir.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::MakeSchema;

constexpr int64_t kBatchesPerPart = 20;

// Part p's batches hold one row each: p * 1000, p * 1000 + 1, ...; part `fail_part` fails at
// its third batch. Records which threads read parts.
class PartSource final : public Operator {
 public:
  PartSource(size_t part, size_t fail_part, std::function<void()> on_next)
      : schema_(MakeSchema({Field("n", DataType::Int64(), false)})),
        part_(part),
        fail_part_(fail_part),
        on_next_(std::move(on_next)) {}

  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    on_next_();
    if (part_ == fail_part_ && next_ == 2) {
      return Status::IOError(fmt::format("part {} failed", part_));
    }
    if (next_ >= kBatchesPerPart) {
      return RecordBatchPtr{};
    }
    const int64_t n = static_cast<int64_t>(part_) * 1000 + next_++;
    return columnar::RecordBatch::Make(schema_, 1, {MakeColumn<int64_t>(DataType::Int64(), {n})});
  }
  std::string ToString() const override { return "PartSource"; }

 private:
  SchemaPtr schema_;
  const size_t part_;
  const size_t fail_part_;
  std::function<void()> on_next_;
  int64_t next_ = 0;
};

// What the parts of a ParallelScanOperator did, shared with the workers.
struct PartCalls {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int64_t> opened{0};
  std::atomic<int64_t> next{0};
};

// A scan of `parts` PartSources on `workers` threads; part `fail_part` fails. Part p reports
// corrupt file "c<p>" and unknown fields "u<p mod 3>" and "all".
std::unique_ptr<ParallelScanOperator> MakeScan(size_t parts, int workers, size_t fail_part,
                                               const std::shared_ptr<PartCalls>& calls,
                                               ParallelScanOperator::Reports reports = {}) {
  auto open = [calls, fail_part](const ScanPart& part) -> Result<OperatorPtr> {
    EXPECT_EQ(part.end_file, part.first_file + 1);
    ++calls->opened;
    part.report->corrupt_files.emplace_back(fmt::format("c{}", part.first_file),
                                            Status::IOError("corrupt"));
    part.report->unknown_fields = {fmt::format("u{}", part.first_file % 3), "all"};
    return OperatorPtr(std::make_unique<PartSource>(part.first_file, fail_part, [calls] {
      ++calls->next;
      std::lock_guard lock(calls->mutex);
      calls->threads.insert(std::this_thread::get_id());
    }));
  };
  std::vector<ScanPart> scan_parts;
  for (size_t part = 0; part < parts; ++part) {
    scan_parts.push_back(ScanPart::File(part));
  }
  return std::make_unique<ParallelScanOperator>(std::make_unique<PartSource>(0, SIZE_MAX, [] {}),
                                                std::move(scan_parts), workers, std::move(open),
                                                std::move(reports));
}

TEST(ParallelScanTest, PartsComeOutInOrderFromWorkerThreads) {
  auto calls = std::make_shared<PartCalls>();
  std::vector<std::string> corrupt;
  std::vector<std::vector<std::string>> unknown;
  std::thread::id reported_on;
  ParallelScanOperator::Reports reports;
  reports.on_corrupt_file = [&](const std::string& path, const Status& error) {
    corrupt.push_back(path + ": " + error.Message());
    reported_on = std::this_thread::get_id();
  };
  reports.on_unknown_fields = [&](const std::vector<std::string>& names) {
    unknown.push_back(names);
    EXPECT_EQ(std::this_thread::get_id(), reported_on);
    return Status::OK();
  };
  auto scan = MakeScan(25, 4, SIZE_MAX, calls, std::move(reports));
  EXPECT_EQ(scan->ToString(), "PartSource");  // EXPLAIN shows the pipeline as one thread runs it
  for (size_t part = 0; part < 25; ++part) {
    for (int64_t i = 0; i < kBatchesPerPart; ++i) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, scan->Next());
      ASSERT_NE(batch, nullptr);
      ASSERT_EQ(batch->ColumnAt(0)->Values<int64_t>()[0], static_cast<int64_t>(part) * 1000 + i);
    }
  }
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, scan->Next());
  EXPECT_EQ(end, nullptr);
  ASSERT_OK_AND_ASSIGN(end, scan->Next());
  EXPECT_EQ(end, nullptr);
  EXPECT_EQ(calls->opened.load(), 25);
  EXPECT_EQ(calls->next.load(), 25 * (kBatchesPerPart + 1));
  EXPECT_FALSE(calls->threads.contains(std::this_thread::get_id()));
  EXPECT_LE(calls->threads.size(), 4u);
  // Corrupt files in part order; unknown fields once, distinct, in order of first appearance,
  // all on the consumer's thread.
  ASSERT_EQ(corrupt.size(), 25u);
  for (size_t part = 0; part < 25; ++part) {
    EXPECT_EQ(corrupt[part], fmt::format("c{}: corrupt", part));
  }
  EXPECT_EQ(reported_on, std::this_thread::get_id());
  EXPECT_EQ(unknown, (std::vector<std::vector<std::string>>{{"u0", "all", "u1", "u2"}}));
}

TEST(ParallelScanTest, AnErrorComesAfterTheBatchesBeforeItAndEndsTheScan) {
  auto calls = std::make_shared<PartCalls>();
  bool unknown_reported = false;
  ParallelScanOperator::Reports reports;
  reports.on_unknown_fields = [&](const std::vector<std::string>&) {
    unknown_reported = true;
    return Status::OK();
  };
  auto scan = MakeScan(30, 3, 7, calls, std::move(reports));
  for (int64_t expected = 0; expected < 7 * kBatchesPerPart + 2; ++expected) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, scan->Next());
    ASSERT_NE(batch, nullptr);
    ASSERT_EQ(batch->ColumnAt(0)->Values<int64_t>()[0],
              expected / kBatchesPerPart * 1000 + expected % kBatchesPerPart);
  }
  auto failed = scan->Next();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().Message(), "part 7 failed");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, scan->Next());
  EXPECT_EQ(end, nullptr);
  EXPECT_FALSE(unknown_reported);  // the scan failed before its end
  // Parts after the failed one are taken only while it had not failed yet: at most a window.
  EXPECT_LT(calls->opened.load(), 30);
}

TEST(ParallelScanTest, TheUnknownFieldsCallbacksErrorIsTheScans) {
  auto calls = std::make_shared<PartCalls>();
  ParallelScanOperator::Reports reports;
  reports.on_unknown_fields = [](const std::vector<std::string>& names) {
    return Status::InvalidArgument(fmt::format("new columns: {}", fmt::join(names, ",")));
  };
  auto scan = MakeScan(2, 2, SIZE_MAX, calls, std::move(reports));
  auto rows = Drain(*scan);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().Message(), "new columns: u0,all,u1");
}

TEST(ParallelScanTest, NothingRunsUntilTheFirstNextAndAnEarlyStopEndsTheWorkers) {
  auto idle = std::make_shared<PartCalls>();
  { auto scan = MakeScan(1000, 2, SIZE_MAX, idle); }
  EXPECT_EQ(idle->opened.load(), 0);  // instantiated to be explained only: no work done
  auto calls = std::make_shared<PartCalls>();
  {
    auto scan = MakeScan(1000, 2, SIZE_MAX, calls);
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, scan->Next());
    ASSERT_NE(batch, nullptr);
  }
  // A LIMIT above stopped after one batch: the workers took at most a window of parts
  // (2 x workers) ahead of the first.
  EXPECT_GE(calls->opened.load(), 1);
  EXPECT_LE(calls->opened.load(), 5);
}

// Ten Parquet files and a corrupt one, read through a filter: with threads the scan is a
// ParallelScanOperator and gives the rows of one thread, in the same order, and the spec's
// callbacks are called exactly as with one thread, on the caller's thread.
TEST(ParallelScanTest, AFileScanOfSeveralFilesGivesTheRowsOfOneThread) {
  testing::TempDir dir;
  storage::LocalFileSystem fs;
  FileScanSpec spec;
  for (int file = 0; file < 10; ++file) {
    std::vector<Field> fields = {Field("id", DataType::Int64())};
    if (file % 4 == 1) {
      fields.emplace_back(fmt::format("extra{}", file % 3), DataType::Int64());
    }
    auto schema = MakeSchema(fields);
    std::vector<columnar::ColumnPtr> columns;
    std::vector<std::optional<int64_t>> ids;
    for (int64_t row = 0; row < 3000; ++row) {
      ids.emplace_back(int64_t{file} * 10000 + row);
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      columns.push_back(MakeColumn<int64_t>(DataType::Int64(), ids));
    }
    ASSERT_OK_AND_ASSIGN(auto batch, columnar::RecordBatch::Make(schema, 3000, columns));
    const std::string path = dir.Join(fmt::format("part-{:02}.parquet", file));
    parquet::ParquetWriterOptions options;
    options.row_group_size_rows = 1000;
    ASSERT_OK(parquet::WriteParquetFile(fs, path, {batch}, schema, options));
    spec.paths.push_back(path);
    if (file == 5) {
      const std::string corrupt = dir.Join("part-05b.parquet");
      ASSERT_OK(fs.WriteFile(corrupt, "not a parquet file, long enough to have a footer",
                             storage::WriteMode::kPutIfAbsent));
      spec.paths.push_back(corrupt);
    }
  }
  spec.schema = MakeSchema({Field("id", DataType::Int64())});
  std::vector<std::string> events;
  std::set<std::thread::id> callback_threads;
  spec.on_corrupt_file = [&](const std::string& path, const Status&) {
    events.push_back("corrupt " + path.substr(dir.Path().size()));
    callback_threads.insert(std::this_thread::get_id());
  };
  spec.on_unknown_fields = [&](const std::vector<std::string>& names,
                               const std::vector<std::string>& paths) {
    events.push_back(fmt::format("unknown {} of {} files", fmt::join(names, ","), paths.size()));
    callback_threads.insert(std::this_thread::get_id());
    return Status::OK();
  };
  ExecContext context{expr::EvalContext{}, columnar::DefaultMemoryPool(), &fs};
  ASSERT_OK_AND_ASSIGN(auto scan, FileScanNode::Make(spec, {"id"}, context));
  auto predicate = BindOrDie(
      expr::Call(
          expr::Op::kNotEqual,
          {expr::Call(expr::Op::kRemainder, {expr::Col("id"), expr::Lit(expr::Scalar::Int64(7))}),
           expr::Lit(expr::Scalar::Int64(0))}),
      *scan->Schema());
  PhysicalNodePtr plan = std::make_shared<FilterNode>(scan, predicate);

  OperatorPtr serial = Instantiate(plan, context);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> serial_rows, RowsOf(*serial));
  const std::vector<std::string> serial_events = events;
  ASSERT_EQ(serial_events.size(), 2u);
  EXPECT_EQ(serial_events[0], "corrupt /part-05b.parquet");
  EXPECT_EQ(serial_events[1], "unknown extra1,extra2,extra0 of 11 files");
  size_t expected_rows = 0;
  for (int64_t file = 0; file < 10; ++file) {
    for (int64_t row = 0; row < 3000; ++row) {
      expected_rows += (file * 10000 + row) % 7 != 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(serial_rows.size(), expected_rows);

  for (const int threads : {2, 3, 8}) {
    SCOPED_TRACE(threads);
    events.clear();
    callback_threads.clear();
    ExecContext parallel_context = context;
    parallel_context.threads = threads;
    OperatorPtr parallel = Instantiate(plan, parallel_context);
    ASSERT_NE(dynamic_cast<const ParallelScanOperator*>(parallel.get()), nullptr);
    EXPECT_EQ(Explain(*parallel), Explain(*serial));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> parallel_rows, RowsOf(*parallel));
    EXPECT_EQ(parallel_rows, serial_rows);
    EXPECT_EQ(events, serial_events);
    EXPECT_EQ(callback_threads, std::set<std::thread::id>{std::this_thread::get_id()});
  }

  // One file of three row groups splits by row group.
  events.clear();
  spec.paths = {spec.paths[1]};
  ASSERT_OK_AND_ASSIGN(auto one_file, FileScanNode::Make(spec, {"id"}, context));
  ExecContext two = context;
  two.threads = 2;
  OperatorPtr one_file_serial = Instantiate(one_file, context);
  OperatorPtr one_file_parallel = Instantiate(one_file, two);
  ASSERT_NE(dynamic_cast<const ParallelScanOperator*>(one_file_parallel.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> one_file_rows, RowsOf(*one_file_serial));
  ASSERT_EQ(one_file_rows.size(), 3000u);
  EXPECT_EQ(one_file_rows.front(), R"({"id":10000})");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> one_file_parallel_rows, RowsOf(*one_file_parallel));
  EXPECT_EQ(one_file_parallel_rows, one_file_rows);
  // The file's unknown field, found in each row group's part, is reported once.
  EXPECT_EQ(events,
            (std::vector<std::string>{"unknown extra1 of 1 files", "unknown extra1 of 1 files"}));
}

}  // namespace
}  // namespace tributary::exec

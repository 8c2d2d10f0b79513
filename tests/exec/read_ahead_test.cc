#include "exec/read_ahead.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "exec/operator_io.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::MakeSchema;

// What a CountingSource saw, readable after it is gone.
struct SourceCalls {
  std::atomic<int64_t> next{0};
  std::atomic<std::thread::id> thread;
};

// Returns batches of one row each holding 0, 1, 2, ...; fails with IOError at batch
// `fail_at` (when >= 0); counts its Next() calls in `calls`.
class CountingSource final : public Operator {
 public:
  CountingSource(int64_t batches, int64_t fail_at, std::shared_ptr<SourceCalls> calls)
      : schema_(MakeSchema({Field("n", DataType::Int64(), false)})),
        batches_(batches),
        fail_at_(fail_at),
        calls_(std::move(calls)) {}

  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    const int64_t n = calls_->next.fetch_add(1);
    calls_->thread = std::this_thread::get_id();
    if (n == fail_at_) {
      return Status::IOError("source failed at batch " + std::to_string(n));
    }
    if (n >= batches_) {
      return RecordBatchPtr{};
    }
    return columnar::RecordBatch::Make(schema_, 1, {MakeColumn<int64_t>(DataType::Int64(), {n})});
  }
  std::string ToString() const override { return "CountingSource"; }

 private:
  SchemaPtr schema_;
  const int64_t batches_;
  const int64_t fail_at_;
  std::shared_ptr<SourceCalls> calls_;
};

TEST(ReadAheadTest, ReturnsTheInputsBatchesInOrderFromAnotherThread) {
  auto calls = std::make_shared<SourceCalls>();
  ReadAheadOperator read_ahead(std::make_unique<CountingSource>(1000, -1, calls), 2);
  EXPECT_EQ(read_ahead.ToString(), "CountingSource");  // EXPLAIN shows the input alone
  for (int64_t n = 0; n < 1000; ++n) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, read_ahead.Next());
    ASSERT_NE(batch, nullptr);
    ASSERT_EQ(batch->ColumnAt(0)->Values<int64_t>()[0], n);
  }
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, read_ahead.Next());
  EXPECT_EQ(end, nullptr);
  ASSERT_OK_AND_ASSIGN(end, read_ahead.Next());
  EXPECT_EQ(end, nullptr);
  // The producer stopped at the end: 1000 batches and the end, nothing more.
  EXPECT_EQ(calls->next.load(), 1001);
  EXPECT_NE(calls->thread.load(), std::this_thread::get_id());
}

TEST(ReadAheadTest, AnErrorComesAfterTheBatchesBeforeItAndEndsTheInput) {
  auto calls = std::make_shared<SourceCalls>();
  ReadAheadOperator read_ahead(std::make_unique<CountingSource>(100, 3, calls), 2);
  for (int64_t n = 0; n < 3; ++n) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, read_ahead.Next());
    ASSERT_EQ(batch->ColumnAt(0)->Values<int64_t>()[0], n);
  }
  auto failed = read_ahead.Next();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().Message(), "source failed at batch 3");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, read_ahead.Next());
  EXPECT_EQ(end, nullptr);
  EXPECT_EQ(calls->next.load(), 4);  // never pulled again after the error
}

TEST(ReadAheadTest, NothingRunsUntilTheFirstNextAndAnEarlyStopEndsTheThread) {
  auto idle = std::make_shared<SourceCalls>();
  { ReadAheadOperator read_ahead(std::make_unique<CountingSource>(1'000'000, -1, idle), 2); }
  EXPECT_EQ(idle->next.load(), 0);  // instantiated to be explained only: no work done
  auto calls = std::make_shared<SourceCalls>();
  {
    ReadAheadOperator read_ahead(std::make_unique<CountingSource>(1'000'000, -1, calls), 2);
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, read_ahead.Next());
    ASSERT_NE(batch, nullptr);
  }
  // A LIMIT above stopped after one batch: the producer stopped with at most the depth (2)
  // ready, one more in its hands, and the one returned.
  EXPECT_GE(calls->next.load(), 1);
  EXPECT_LE(calls->next.load(), 4);
}

}  // namespace
}  // namespace tributary::exec

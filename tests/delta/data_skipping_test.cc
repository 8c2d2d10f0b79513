// Data skipping never drops a file that holds a matching row, and does drop files whose
// partition values or statistics rule them out.

#include "delta/data_skipping.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "columnar/take.h"
#include "delta/table_reader.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using expr::Call;
using expr::Col;
using expr::Lit;
using expr::Op;
using expr::Scalar;

class DataSkippingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tributary-skipping-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    root_ = dir_ + "/t";
    schema_ = testing::MakeSchema({Field("id", DataType::Int64()), Field("p", DataType::String()),
                                   Field("name", DataType::String()),
                                   Field("at", DataType::Timestamp())});
    // Ten files: file k holds ids 10k..10k+9, names "n<k>", partition p = k % 3, one with nulls.
    for (int k = 0; k < 10; ++k) {
      std::string rows = "[";
      for (int i = 0; i < 10; ++i) {
        rows += (i ? "," : "") + std::string("[") + std::to_string(10 * k + i) + ", \"p" +
                std::to_string(k % 3) + "\", " +
                (k == 4 ? "null" : "\"n" + std::to_string(k) + "\"") + ", " +
                std::to_string((10 * k + i) * 1000001LL) + "]";
      }
      rows += "]";
      TableWriteOptions options;
      options.mode = SaveMode::kAppend;
      options.partition_by = {"p"};
      ASSERT_OK(WriteTable(fs_, root_, schema_,
                           {testing::BatchFromJson(schema_, rows).ValueOrDie()}, options));
    }
    snapshot_ = Snapshot::Load(fs_, root_).ValueOrDie();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  size_t Kept(const expr::ExprPtr& predicate) {
    auto kept = PruneFiles(*snapshot_, *predicate);
    EXPECT_TRUE(kept.ok()) << kept.status();
    return kept.ok() ? kept->size() : 0;
  }

  // Rows matching `predicate` among the files kept must be all rows matching it.
  void ExpectNoMatchLost(const expr::ExprPtr& predicate) {
    auto bound = expr::Bind(*predicate, *schema_).ValueOrDie();
    auto count = [&](const std::vector<const AddFile*>& files) {
      int64_t matches = 0;
      for (const AddFile* add : files) {
        for (const auto& batch : ReadDataFile(fs_, *snapshot_, *add).ValueOrDie()) {
          auto mask = expr::Evaluate(*bound, *batch).ValueOrDie();
          matches += static_cast<int64_t>(columnar::SelectedRows(*mask).ValueOrDie().size());
        }
      }
      return matches;
    };
    std::vector<const AddFile*> all;
    for (const AddFile& add : snapshot_->Files()) {
      all.push_back(&add);
    }
    auto kept = PruneFiles(*snapshot_, *predicate).ValueOrDie();
    EXPECT_EQ(count(kept), count(all)) << predicate->ToString();
  }

  storage::LocalFileSystem fs_;
  std::string dir_;
  std::string root_;
  columnar::SchemaPtr schema_;
  std::shared_ptr<const Snapshot> snapshot_;
};

TEST_F(DataSkippingTest, PartitionValuesPruneExactly) {
  EXPECT_EQ(Kept(Call(Op::kEqual, {Col("p"), Lit(Scalar::String("p1"))})), 3u);
  EXPECT_EQ(Kept(expr::In(Col("p"), {Lit(Scalar::String("p0")), Lit(Scalar::String("p2"))})), 7u);
}

TEST_F(DataSkippingTest, MinMaxAndNullCountsPrune) {
  EXPECT_EQ(Kept(Call(Op::kEqual, {Col("id"), Lit(Scalar::Int64(42))})), 1u);
  EXPECT_EQ(Kept(Call(Op::kGreaterEqual, {Col("id"), Lit(Scalar::Int64(90))})), 1u);
  EXPECT_EQ(Kept(Call(Op::kLess, {Lit(Scalar::Int64(15)), Col("id")})), 9u);
  EXPECT_EQ(Kept(Call(Op::kEqual, {Col("name"), Lit(Scalar::String("n7"))})), 1u);
  EXPECT_EQ(Kept(expr::IsNull(Col("name"))), 1u);
  EXPECT_EQ(Kept(expr::And(Call(Op::kEqual, {Col("p"), Lit(Scalar::String("p1"))}),
                           Call(Op::kLess, {Col("id"), Lit(Scalar::Int64(20))}))),
            1u);
  EXPECT_EQ(Kept(expr::Or(Call(Op::kEqual, {Col("id"), Lit(Scalar::Int64(5))}),
                          Call(Op::kEqual, {Col("id"), Lit(Scalar::Int64(95))}))),
            2u);
  // Something metadata cannot judge keeps every file.
  EXPECT_EQ(Kept(Call(Op::kEqual,
                      {Call(Op::kAdd, {Col("id"), Lit(Scalar::Int64(1))}), Lit(Scalar::Int64(5))})),
            10u);
  ASSERT_RAISES(InvalidArgument, PruneFiles(*snapshot_, *Col("nope")));
}

TEST_F(DataSkippingTest, TimestampMaxIsWidenedBecauseStatsAreCutToMilliseconds) {
  // Row id 99 has at = 99000099 us; its file's max statistic is 99.000 s.
  EXPECT_EQ(Kept(Call(Op::kEqual, {Col("at"), Lit(Scalar::Timestamp(99000099))})), 1u);
  ExpectNoMatchLost(Call(Op::kEqual, {Col("at"), Lit(Scalar::Timestamp(99000099))}));
}

TEST_F(DataSkippingTest, RandomPredicatesNeverLoseAMatchingRow) {
  std::mt19937 rng(7);
  const Op ops[] = {Op::kEqual,     Op::kNotEqual, Op::kLess,
                    Op::kLessEqual, Op::kGreater,  Op::kGreaterEqual};
  for (int trial = 0; trial < 60; ++trial) {
    auto leaf = [&]() -> expr::ExprPtr {
      const Op op = ops[rng() % 6];
      switch (rng() % 3) {
        case 0:
          return Call(op, {Col("id"), Lit(Scalar::Int64(static_cast<int64_t>(rng() % 110) - 5))});
        case 1:
          return Call(op, {Col("name"), Lit(Scalar::String("n" + std::to_string(rng() % 12)))});
        default:
          return Call(op, {Col("p"), Lit(Scalar::String("p" + std::to_string(rng() % 3)))});
      }
    };
    expr::ExprPtr predicate = rng() % 2 ? expr::And(leaf(), leaf()) : expr::Or(leaf(), leaf());
    ExpectNoMatchLost(predicate);
  }
}

}  // namespace
}  // namespace tributary::delta

// Data file statistics: WriteDataFiles takes them from what the Parquet writer gathered while
// encoding, and they must be exactly what ComputeStats makes of the file's rows put together
// (every stats type, nulls, NaN, signed zeros, long and multi-byte strings, several batches,
// partitions).

#include "delta/file_writer.h"

#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "columnar/take.h"
#include "delta/snapshot.h"
#include "delta/table_writes.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

columnar::SchemaPtr FlatSchema() {
  return MakeSchema({
      Field("i8", DataType::Int8()),
      Field("i16", DataType::Int16()),
      Field("i32", DataType::Int32()),
      Field("i64", DataType::Int64(), false),
      Field("f32", DataType::Float32()),
      Field("f64", DataType::Float64()),
      Field("d9", DataType::Decimal(5, 2).ValueOrDie()),
      Field("d18", DataType::Decimal(15, 3).ValueOrDie()),
      Field("d38", DataType::Decimal(30, 4).ValueOrDie()),
      Field("day", DataType::Date()),
      Field("ts", DataType::Timestamp()),
      Field("ntz", DataType::TimestampNtz()),
      Field("s", DataType::String()),
      Field("bin", DataType::Binary()),
      Field("flag", DataType::Boolean()),
      Field("nothing", DataType::Null()),
      Field("part", DataType::String()),
  });
}

// The stats ComputeStats gives the rows of `batches` as one batch, without the partition
// columns.
nlohmann::json ReferenceStats(const std::vector<columnar::RecordBatchPtr>& batches,
                              const std::vector<std::string>& partition_columns) {
  const columnar::Schema& schema = *batches[0]->Schema();
  std::vector<Field> fields;
  std::vector<columnar::ColumnPtr> columns;
  int64_t rows = 0;
  for (const auto& b : batches) {
    rows += b->NumRows();
  }
  for (int c = 0; c < schema.NumFields(); ++c) {
    if (std::find(partition_columns.begin(), partition_columns.end(), schema.FieldAt(c).Name()) !=
        partition_columns.end()) {
      continue;
    }
    std::vector<columnar::ColumnPtr> pieces;
    pieces.reserve(batches.size());
    for (const auto& b : batches) {
      pieces.push_back(b->ColumnAt(c));
    }
    fields.push_back(schema.FieldAt(c));
    columns.push_back(columnar::Concatenate(pieces).ValueOrDie());
  }
  auto all = columnar::RecordBatch::Make(MakeSchema(fields), rows, std::move(columns));
  return nlohmann::json::parse(ComputeStats(*all.ValueOrDie(), 32));
}

class FileWriterStatsTest : public ::testing::Test {
 protected:
  // Writes `batches` unpartitioned and checks the one file's stats against ReferenceStats.
  void ExpectStatsOfConcatenation(const std::vector<columnar::RecordBatchPtr>& batches) {
    ASSERT_OK_AND_ASSIGN(auto adds, WriteDataFiles(fs_, dir_ + "/t" + std::to_string(tables_++),
                                                   batches[0]->Schema(), {}, batches));
    ASSERT_EQ(adds.size(), 1u);
    ASSERT_TRUE(adds[0].stats.has_value());
    EXPECT_EQ(nlohmann::json::parse(*adds[0].stats), ReferenceStats(batches, {}));
  }

  storage::LocalFileSystem fs_;
  testing::TempDir temp_;
  std::string dir_ = temp_.Path();
  int tables_ = 0;
};

TEST_F(FileWriterStatsTest, EveryTypeOverSeveralBatches) {
  const auto schema = FlatSchema();
  std::vector<columnar::RecordBatchPtr> batches = {
      BatchFromJson(schema,
                    R"([[1, 300, 7, 10, 1.5, -0.0, 12345, 9, "-12345678901234567890123456", 19000,
               1700000000123456, -1000001, "b", "ff", true, null, "x"],
              [null, null, null, 11, "NaN", 0.0, -99999, null, "5", null, null, null,
               "a rather long string of more than thirty-two characters, é", null, null, null,
               "y"]])")
          .ValueOrDie(),
      BatchFromJson(schema,
                    R"([[-128, -300, -7, -5, -0.0, "NaN", 1, -9, null, -3, -1700000000123999, 5, "",
               "00", false, null, "x"],
              [127, null, 2147483647, 9223372036854775807, "Infinity", -2.5, null,
               999999999999999, "99999999999999999999999999", 20000, 0, null,
               "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", null, true, null, null]])")
          .ValueOrDie(),
      BatchFromJson(schema,
                    R"([[null, null, null, -9223372036854775808, "NaN", null, null, null, null,
                         null, null, null, "日本語の文字列日本語の文字列日本語の文字列日本語の文字列日本語",
                         null, null, null, "y"]])")
          .ValueOrDie(),
  };
  ExpectStatsOfConcatenation(batches);
}

TEST_F(FileWriterStatsTest, ColumnsWithoutBoundsAndOneNestedBatch) {
  const auto schema = MakeSchema({
      Field("f", DataType::Float64()),
      Field("s", DataType::String()),
      Field("st",
            DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::String())})),
  });
  // Only NaN and nulls: no bounds, null counts only; the struct's leaves get theirs.
  ExpectStatsOfConcatenation(
      {BatchFromJson(schema, R"([["NaN", null, {"a": 3, "b": "q"}], [null, null, null],
                                 ["NaN", null, {"a": null, "b": "p"}]])")
           .ValueOrDie()});
}

TEST_F(FileWriterStatsTest, RandomBatchesMatchTheConcatenation) {
  std::mt19937_64 random(20261129);
  const auto schema = MakeSchema({
      Field("n", DataType::Int64()),
      Field("x", DataType::Float32()),
      Field("s", DataType::String()),
      Field("t", DataType::Timestamp()),
  });
  for (int round = 0; round < 5; ++round) {
    std::vector<columnar::RecordBatchPtr> batches;
    const int num_batches = 1 + static_cast<int>(random() % 4);
    for (int b = 0; b < num_batches; ++b) {
      std::string rows = "[";
      const int num_rows = 1 + static_cast<int>(random() % 3000);
      for (int r = 0; r < num_rows; ++r) {
        auto maybe = [&](const std::string& v) {
          return random() % 7 == 0 ? "null" : v;
        };
        std::string text;
        const int len = static_cast<int>(random() % 40);
        for (int i = 0; i < len; ++i) {
          text.push_back(static_cast<char>('a' + random() % 3));
        }
        rows += fmt::format(
            "{}[{}, {}, {}, {}]", r ? "," : "",
            maybe(std::to_string(static_cast<int64_t>(random()))),
            maybe(fmt::format("{}", static_cast<float>(random() % 2001) / 8 - 125)),
            maybe("\"" + text + "\""),
            maybe(std::to_string(static_cast<int64_t>(random() >> 12) - (int64_t{1} << 51))));
      }
      rows += "]";
      batches.push_back(BatchFromJson(schema, rows).ValueOrDie());
    }
    ExpectStatsOfConcatenation(batches);
  }
}

TEST_F(FileWriterStatsTest, PartitionsGetTheStatsOfTheirRows) {
  const auto schema = FlatSchema();
  std::vector<columnar::RecordBatchPtr> batches = {
      BatchFromJson(schema, R"([[1, 2, 3, 4, 1.5, 2.5, 1, 1, "1", 1, 1, 1, "b", "ff", true,
                                 null, "x"],
                                [5, 6, 7, 8, -1.5, -2.5, 2, 2, "2", 2, 2, 2, "a", "00", false,
                                 null, "y"]])")
          .ValueOrDie(),
      BatchFromJson(schema, R"([[9, 9, 9, 9, 9.5, 9.5, 9, 9, "9", 9, 9, 9, "c", "aa", true,
                                 null, "x"]])")
          .ValueOrDie(),
  };
  ASSERT_OK_AND_ASSIGN(auto adds, WriteDataFiles(fs_, dir_ + "/p", schema, {"part"}, batches));
  ASSERT_EQ(adds.size(), 2u);
  for (const AddFile& add : adds) {
    const std::string part = *add.partition_values.at("part");
    std::vector<columnar::RecordBatchPtr> rows;
    for (const auto& batch : batches) {
      std::vector<int64_t> keep;
      for (int64_t r = 0; r < batch->NumRows(); ++r) {
        if (batch->ColumnAt(16)->BytesAt(r) == part) {
          keep.push_back(r);
        }
      }
      if (keep.empty()) {
        continue;
      }
      std::vector<columnar::ColumnPtr> columns;
      columns.reserve(static_cast<size_t>(batch->NumColumns()));
      for (int c = 0; c < batch->NumColumns(); ++c) {
        columns.push_back(columnar::Take(*batch->ColumnAt(c), keep).ValueOrDie());
      }
      rows.push_back(
          columnar::RecordBatch::Make(schema, static_cast<int64_t>(keep.size()), std::move(columns))
              .ValueOrDie());
    }
    EXPECT_EQ(nlohmann::json::parse(*add.stats), ReferenceStats(rows, {"part"})) << part;
  }
}

TEST_F(FileWriterStatsTest, WriteTableFromPullsBatchesUntilTheEndAndNotForAKnownTxn) {
  const auto schema = MakeSchema({Field("n", DataType::Int64()), Field("s", DataType::String())});
  std::vector<columnar::RecordBatchPtr> batches = {
      BatchFromJson(schema, R"([[3, "c"], [null, "a"]])").ValueOrDie(),
      BatchFromJson(schema, R"([])").ValueOrDie(),
      BatchFromJson(schema, R"([[-1, null]])").ValueOrDie(),
  };
  size_t pulled = 0;
  const BatchSource next = [&]() -> Result<columnar::RecordBatchPtr> {
    return pulled < batches.size() ? batches[pulled++] : nullptr;
  };
  TableWriteOptions options;
  options.mode = SaveMode::kAppend;
  options.txn = std::make_pair(std::string("query"), int64_t{0});
  const std::string root = dir_ + "/streamed";
  ASSERT_OK_AND_ASSIGN(auto written, WriteTableFrom(fs_, root, schema, next, options));
  EXPECT_TRUE(written.committed);
  EXPECT_EQ(written.files_added, 1);
  EXPECT_EQ(pulled, batches.size());
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root));
  ASSERT_EQ(snapshot->Files().size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(*snapshot->Files()[0].stats), ReferenceStats(batches, {}));

  pulled = 0;
  ASSERT_OK_AND_ASSIGN(written, WriteTableFrom(fs_, root, schema, next, options));
  EXPECT_FALSE(written.committed);
  EXPECT_EQ(pulled, 0u);
}

}  // namespace
}  // namespace tributary::delta

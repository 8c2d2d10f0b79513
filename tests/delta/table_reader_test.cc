// Reading Delta data files in bounded batches (DataFileReader): every batch size gives the
// rows one whole-file read gives, with partition values, columns a file lacks and deletion
// vectors (file-wide row indexes) applied across batch boundaries.

#include "delta/table_reader.h"

#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
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
using parquet::kDefaultBatchRows;

// The rows of `add` read in batches of at most `max_rows`, in file order; each batch's size is
// checked.
std::vector<std::string> FileRows(storage::FileSystem& fs, const Snapshot& snapshot,
                                  const AddFile& add, int64_t max_rows,
                                  std::vector<int> columns = {}) {
  TableReadOptions options;
  options.max_batch_rows = max_rows;
  options.columns = std::move(columns);
  auto reader = DataFileReader::Open(fs, snapshot, add, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<std::string> rows;
  while (reader.ok()) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) {
      break;
    }
    EXPECT_GT((*batch)->NumRows(), 0);
    EXPECT_LE((*batch)->NumRows(), max_rows);
    for (auto& row : columnar::CanonicalJsonRows(**batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

TEST(DataFileReaderTest, PartitionAndMissingColumnsInEveryBatch) {
  testing::TempDir dir;
  const std::string root = dir.Join("events");
  storage::LocalFileSystem fs;
  auto schema =
      testing::MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("amount", DataType::Float64())});
  std::string json = "[";
  for (int i = 0; i < 100; ++i) {
    json += fmt::format("{}[{}, \"{}\", {}]", i ? "," : "", i, i % 3 ? "fr" : "de",
                        i % 4 ? std::to_string(i) + ".25" : "null");
  }
  json += "]";
  TableWriteOptions options;
  options.partition_by = {"country"};
  ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema, json));
  ASSERT_OK(WriteTable(fs, root, schema, {batch}, options).status());
  // A later column: the first files lack it and read it as nulls.
  auto wider = testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("country", DataType::String()),
       Field("amount", DataType::Float64()), Field("note", DataType::String())});
  options.mode = SaveMode::kAppend;
  options.merge_schema = true;
  ASSERT_OK_AND_ASSIGN(auto more, testing::BatchFromJson(wider, R"([[100, "de", 1.5, "x"]])"));
  ASSERT_OK(WriteTable(fs, root, wider, {more}, options).status());
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root));
  ASSERT_EQ(snapshot->Files().size(), 3u);
  int64_t total = 0;
  for (const AddFile& add : snapshot->Files()) {
    const std::vector<std::string> whole = FileRows(fs, *snapshot, add, kDefaultBatchRows);
    const std::vector<std::string> projected =
        FileRows(fs, *snapshot, add, kDefaultBatchRows, {3, 1});
    total += static_cast<int64_t>(whole.size());
    for (int64_t max_rows : {1, 4, 33}) {
      SCOPED_TRACE(fmt::format("{}, batches of {}", add.path, max_rows));
      EXPECT_EQ(FileRows(fs, *snapshot, add, max_rows), whole);
      EXPECT_EQ(FileRows(fs, *snapshot, add, max_rows, {3, 1}), projected);
    }
    // Every row has its file's partition value and the note (null in the older files).
    const std::string country = *add.partition_values.at("country");
    for (const std::string& row : whole) {
      EXPECT_NE(row.find("\"country\":\"" + country + "\""), std::string::npos) << row;
      EXPECT_NE(row.find("\"note\":"), std::string::npos) << row;
    }
  }
  EXPECT_EQ(total, 101);
}

// Tables of the corpus whose files carry deletion vectors: Spark deleted rows 0 and 9 of ten
// (kernel-rs-table-with-dv-small), and six of eight rows of one file
// (kernel-rs-compacted-log-files-table). Batches of every size, so that deleted rows fall on
// both sides of each batch boundary, give the live rows a whole-file read gives.
TEST(DataFileReaderTest, DeletionVectorsApplyAcrossBatchBoundaries) {
  storage::LocalFileSystem fs;
  const std::string corpus = std::string(TRIBUTARY_TESTDATA_DIR) + "/golden/";
  int files_with_deletions = 0;
  for (const char* table :
       {"kernel-rs-table-with-dv-small", "kernel-rs-compacted-log-files-table"}) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, corpus + table + "/delta"));
    for (const AddFile& add : snapshot->Files()) {
      if (!add.deletion_vector) {
        continue;
      }
      ++files_with_deletions;
      const std::vector<std::string> whole = FileRows(fs, *snapshot, add, kDefaultBatchRows);
      for (int64_t max_rows = 1; max_rows <= 11; ++max_rows) {
        SCOPED_TRACE(fmt::format("{}, batches of {}", table, max_rows));
        EXPECT_EQ(FileRows(fs, *snapshot, add, max_rows), whole);
      }
      if (std::string(table) == "kernel-rs-table-with-dv-small") {
        EXPECT_EQ(whole,
                  (std::vector<std::string>{R"({"value":1})", R"({"value":2})", R"({"value":3})",
                                            R"({"value":4})", R"({"value":5})", R"({"value":6})",
                                            R"({"value":7})", R"({"value":8})"}));
      }
    }
  }
  EXPECT_GE(files_with_deletions, 2);
}

// Spark wrote values 0..9 as rows 0..9 of one file and deleted rows 0 and 9: the row index
// column names each live row's position in the file, in batches of every size and projected.
TEST(DataFileReaderTest, RowIndexColumnCountsDeletedRows) {
  storage::LocalFileSystem fs;
  const std::string root =
      std::string(TRIBUTARY_TESTDATA_DIR) + "/golden/kernel-rs-table-with-dv-small/delta";
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root));
  ASSERT_EQ(snapshot->Files().size(), 1u);
  const AddFile& add = snapshot->Files().front();
  ASSERT_TRUE(add.deletion_vector.has_value());
  for (const int64_t max_rows : std::vector<int64_t>{1, 3, 10, kDefaultBatchRows}) {
    SCOPED_TRACE(fmt::format("batches of {}", max_rows));
    TableReadOptions options;
    options.max_batch_rows = max_rows;
    options.row_index_column = "_row_index";
    ASSERT_OK_AND_ASSIGN(auto batches, ReadDataFile(fs, *snapshot, add, options));
    std::vector<std::string> rows;
    for (const auto& batch : batches) {
      ASSERT_EQ(batch->NumColumns(), 2);
      const Field& index = batch->Schema()->FieldAt(1);
      EXPECT_EQ(index.Name(), "_row_index");
      EXPECT_EQ(index.Type()->Id(), columnar::TypeId::kInt64);
      EXPECT_FALSE(index.Nullable());
      for (auto& row : columnar::CanonicalJsonRows(*batch)) {
        rows.push_back(std::move(row));
      }
    }
    std::vector<std::string> expected;
    for (int i = 1; i <= 8; ++i) {
      expected.push_back(fmt::format(R"({{"value":{},"_row_index":{}}})", i, i));
    }
    EXPECT_EQ(rows, expected);
  }
  // A projection keeps the index last; ReadTable passes the option on.
  TableReadOptions options;
  options.columns = {0};
  options.row_index_column = "idx";
  ASSERT_OK_AND_ASSIGN(auto batches, ReadTable(fs, *snapshot, options));
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(columnar::CanonicalJsonRows(*batches[0]).back(), R"({"value":8,"idx":8})");
}

TEST(DataFilePathTest, FileUrisAreLocalPathsAndRelativePathsAreBelowTheRootsLocalPath) {
  // Action paths arrive percent-decoded: a '%' left in them is a character of the file name.
  EXPECT_EQ(DataFilePath("/t", "file://localhost/data/t/part-0.parquet"), "/data/t/part-0.parquet");
  EXPECT_EQ(DataFilePath("/t", "file:///data/my t/part-0.parquet"), "/data/my t/part-0.parquet");
  EXPECT_EQ(DataFilePath("/t", "file:/data/t/p=a%3Ab/part-0.parquet"),
            "/data/t/p=a%3Ab/part-0.parquet");
  EXPECT_EQ(DataFilePath("file:///data/t", "p=a%3Ab/part-0.parquet"),
            "/data/t/p=a%3Ab/part-0.parquet");
  EXPECT_EQ(DataFilePath("file:///data/my%20t", "part-0.parquet"), "/data/my t/part-0.parquet");
  EXPECT_EQ(DataFilePath("/data/t", "/elsewhere/part-0.parquet"), "/elsewhere/part-0.parquet");
  EXPECT_EQ(DataFilePath("/data/t", "p=1/part-0.parquet"), "/data/t/p=1/part-0.parquet");
}

// A table whose log names its data file by an absolute file URI, as Spark writes after a
// CONVERT or a SHALLOW CLONE: file://localhost/... is this machine's file, percent-escapes
// decoded once; a URI of object storage is refused by name.
TEST(DataFileReaderTest, ReadsDataFilesNamedByAbsoluteFileUris) {
  testing::TempDir dir;
  const std::string root = dir.Join("50% of events");
  storage::LocalFileSystem fs;
  auto schema = testing::MakeSchema({Field("id", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema, "[[1], [2]]"));
  ASSERT_OK(WriteTable(fs, root, schema, {batch}, {}).status());
  const std::string commit = root + "/_delta_log/00000000000000000000.json";
  ASSERT_OK_AND_ASSIGN(const std::string text, fs.ReadFile(commit));
  const size_t at = text.find("\"path\":\"part-");
  ASSERT_NE(at, std::string::npos) << text;
  const size_t path_at = at + std::string_view("\"path\":\"").size();
  auto rewrite = [&](const std::string& prefix) -> Status {
    std::string changed = text;
    changed.insert(path_at, prefix);
    return fs.WriteFile(commit, changed, storage::WriteMode::kReplace);
  };

  ASSERT_OK(rewrite("file://localhost" + EncodeUriPath(root) + "/"));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs, root));
  ASSERT_EQ(snapshot->Files().size(), 1u);
  EXPECT_EQ(FileRows(fs, *snapshot, snapshot->Files()[0], kDefaultBatchRows),
            (std::vector<std::string>{R"({"id":1})", R"({"id":2})"}));

  ASSERT_OK(rewrite("s3://bucket/events/"));
  ASSERT_OK_AND_ASSIGN(snapshot, Snapshot::Load(fs, root));
  Result<std::vector<columnar::RecordBatchPtr>> read = ReadTable(fs, *snapshot);
  ASSERT_RAISES(InvalidArgument, read);
  EXPECT_NE(read.status().Message().find("unsupported URI scheme 's3'"), std::string::npos)
      << read.status().ToString();
}

}  // namespace
}  // namespace tributary::delta

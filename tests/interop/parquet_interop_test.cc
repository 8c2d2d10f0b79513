// Every Parquet file of the conformance corpus decodes with tributary's reader to exactly the
// values DuckDB reads from it, and projection agrees with DuckDB's column selection.

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/reader.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

Result<std::vector<std::string>> ReadWithTributary(const std::string& path,
                                                   const std::vector<std::string>& columns = {}) {
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(fs, path));
  std::vector<std::string> rows;
  for (int g = 0; g < reader->NumRowGroups(); ++g) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->ReadRowGroup(g, columns));
    TRIBUTARY_RETURN_NOT_OK(batch->ColumnAt(0)->ValidateFull());
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<std::string> CorpusParquetFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::TestdataDir())) {
    if (entry.is_regular_file() && entry.path().extension() == ".parquet") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ParquetInteropTest, EveryCorpusFileMatchesDuckDBValueForValue) {
  const std::vector<std::string> files = CorpusParquetFiles();
  ASSERT_GE(files.size(), 650u) << "corpus at " << testing::TestdataDir() << " is incomplete";
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleCatParquetMany(files));
  ASSERT_EQ(expected.size(), files.size());
  int64_t rows = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    ASSERT_OK(expected[i].status);
    auto ours = ReadWithTributary(files[i]);
    ASSERT_OK(ours);
    ASSERT_EQ(*ours, expected[i].rows) << files[i];
    rows += static_cast<int64_t>(ours->size());
  }
  std::printf("tributary and DuckDB agree on %zu files, %lld rows\n", files.size(),
              static_cast<long long>(rows));
}

TEST(ParquetInteropTest, ProjectionMatchesDuckDBColumnSelection) {
  std::string part;
  for (const auto& entry : std::filesystem::directory_iterator(testing::TestdataDir() +
                                                               "/dat/all_primitive_types/delta")) {
    if (entry.path().extension() == ".parquet") {
      part = entry.path().string();
    }
  }
  ASSERT_FALSE(part.empty());
  const std::vector<std::string> columns = {"timestamp", "utf8", "decimal"};
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleCatParquet(part, columns));
  ASSERT_OK_AND_ASSIGN(auto ours, ReadWithTributary(part, columns));
  EXPECT_EQ(ours, expected);
}

TEST(ParquetInteropTest, NestedProjectionKeepsOnlySelectedStructFields) {
  std::string dir = testing::TestdataDir() + "/golden/delta-data-reader-nested-struct/delta";
  std::string part;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".parquet") {
      part = entry.path().string();
      break;
    }
  }
  ASSERT_FALSE(part.empty());
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs, part));
  ASSERT_OK_AND_ASSIGN(auto full, reader->ReadRowGroup(0));
  // Select the first nested field of the first struct column by its dotted path.
  const columnar::Field* struct_field = nullptr;
  for (const auto& field : full->Schema()->Fields()) {
    if (field.Type()->Id() == columnar::TypeId::kStruct) {
      struct_field = &field;
      break;
    }
  }
  ASSERT_NE(struct_field, nullptr);
  const std::string inner = struct_field->Type()->Fields()[0].Name();
  ASSERT_OK_AND_ASSIGN(auto projected,
                       reader->ReadRowGroup(0, {struct_field->Name() + "." + inner}));
  ASSERT_EQ(projected->NumColumns(), 1);
  ASSERT_EQ(projected->ColumnAt(0)->Type()->Fields().size(), 1u);
  EXPECT_EQ(projected->ColumnAt(0)->Type()->Fields()[0].Name(), inner);
  // DuckDB's struct_extract over the same file gives the same values.
  ASSERT_OK_AND_ASSIGN(
      auto expected,
      testing::OracleQuery("SELECT struct_pack(\"" + inner + "\" := \"" + struct_field->Name() +
                           "\".\"" + inner + "\") AS \"" + struct_field->Name() +
                           "\" FROM read_parquet('" + part + "')"));
  EXPECT_EQ(columnar::CanonicalJsonRows(*projected), expected);
}

TEST(ParquetInteropTest, UnknownColumnNamesTheFileAndItsColumns) {
  std::string dir = testing::TestdataDir() + "/dat/all_primitive_types/delta";
  std::string part;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".parquet") {
      part = entry.path().string();
    }
  }
  auto result = ReadWithTributary(part, {"nope"});
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_NE(result.status().Message().find("no column 'nope'"), std::string::npos);
  EXPECT_NE(result.status().Message().find("utf8, int64"), std::string::npos);
}

}  // namespace
}  // namespace tributary::parquet

namespace tributary::parquet {
namespace {

// Files DuckDB writes with data page v2 and its v2 encodings (DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT...) under every codec it has: an independent writer
// exercising the decoders end to end.
class DuckDBWrittenFilesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DuckDBWrittenFilesTest, DataPageV2AndEveryEncodingReadAsDuckDBReadsThem) {
  char pattern[] = "/tmp/tributary-duckdb-v2-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string file = dir + "/v2.parquet";
  const std::string sql =
      "SELECT i::BIGINT AS id, (i % 7)::INTEGER AS small, (i * 1.5)::DOUBLE AS d, "
      "(i / 3.0)::FLOAT AS f, CASE WHEN i % 5 = 0 THEN NULL ELSE 'name-' || (i % 100) END AS s, "
      "repeat('x', i % 13) AS padded, (i % 1000)::DECIMAL(9,2) AS dec, "
      "DATE '2024-01-01' + (i % 400)::INTEGER AS day, "
      "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (i) SECOND AS ts, "
      "[i, i + 1] AS list, {'a': i % 3, 'b': 'v' || i} AS st "
      "FROM range(20000) t(i)";
  ASSERT_OK(testing::RunOracle({"write-parquet", file, "--sql", sql, "--codec", GetParam(),
                                "--row-group-size", "5000", "--parquet-version", "v2"})
                .status());
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleCatParquet(file));
  ASSERT_OK_AND_ASSIGN(auto ours, ReadWithTributary(file));
  EXPECT_EQ(ours.size(), 20000u);
  EXPECT_EQ(ours, expected);
  std::filesystem::remove_all(dir);
}

// INT32 columns spanning INT32_MIN..INT32_MAX under data page v2: DuckDB takes INT32 deltas in
// 64 bits, so its DELTA_BINARY_PACKED miniblocks are 33 bits wide (PARQUET-2435).
TEST(DuckDBWrittenFilesWideTest, WideInt32DeltasReadExactly) {
  char pattern[] = "/tmp/tributary-duckdb-wide-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string file = dir + "/wide.parquet";
  const std::string sql =
      "SELECT i::INTEGER AS id, "
      "(CASE WHEN i % 2 = 0 THEN -2147483648 ELSE 2147483647 END)::INTEGER AS extremes, "
      "((hash(i) % 4294967296)::BIGINT - 2147483648)::INTEGER AS spread, "
      "CASE WHEN i % 3 = 0 THEN NULL ELSE ((hash(i + 7) % 4294967296)::BIGINT - 2147483648)"
      "::INTEGER END AS nullable "
      "FROM range(5000) t(i)";
  ASSERT_OK(testing::RunOracle({"write-parquet", file, "--sql", sql, "--parquet-version", "v2"})
                .status());
  ASSERT_OK_AND_ASSIGN(auto expected, testing::OracleCatParquet(file));
  ASSERT_OK_AND_ASSIGN(auto ours, ReadWithTributary(file));
  EXPECT_EQ(ours.size(), 5000u);
  EXPECT_EQ(ours, expected);
  ASSERT_OK_AND_ASSIGN(auto range, testing::OracleQuery("SELECT min(extremes) AS lo, "
                                                        "max(extremes) AS hi FROM '" +
                                                        file + "'"));
  EXPECT_EQ(range, (std::vector<std::string>{R"({"lo":-2147483648,"hi":2147483647})"}));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Codecs, DuckDBWrittenFilesTest,
                         ::testing::Values("snappy", "zstd", "gzip", "brotli", "uncompressed"));

}  // namespace
}  // namespace tributary::parquet

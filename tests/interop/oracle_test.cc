// Tests of the DuckDB oracle harness itself (tests/support/duckdb_oracle.h): DuckDB's rows must
// print exactly as MANIFEST.md's canonical form and as columnar::CanonicalJsonRows print them.

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"

namespace tributary::testing {
namespace {

using columnar::DataType;
using columnar::Field;

class OracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tributary-oracle-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

constexpr char kEveryTypeSql[] = R"(
SELECT * FROM (VALUES
 (1, 9007199254740993::BIGINT, 0.1::DOUBLE, 0.1::FLOAT, 12.5::DECIMAL(10,2),
  'say "hi" \ ñ 😀', DATE '2024-02-29', TIMESTAMP '2024-01-02 03:04:05.123456',
  TIMESTAMPTZ '2024-01-02 03:04:05.5+02', '\x00\xFFab'::BLOB, [1, NULL, 3],
  {'a': 1, 'b': 'x'}, MAP {'k2': 2, 'k1': 1}),
 (-2147483648, -9223372036854775807::BIGINT - 1, 1e16::DOUBLE, 'inf'::FLOAT,
  -0.05::DECIMAL(10,2), E'tab\tnl\n', DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999',
  TIMESTAMPTZ '1970-01-01 00:00:00+00', ''::BLOB, []::INT[], {'a': NULL, 'b': NULL},
  MAP {}::MAP(VARCHAR, INT)),
 (NULL, NULL, 'nan'::DOUBLE, 1.5e-5::FLOAT, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) t(i, big, d, f, dec, s, dt, ts, tstz, b, l, st, m))";

TEST_F(OracleTest, WritesParquetAndReadsItBackInCanonicalForm) {
  // Spaces, a quote and a percent sign in the name: no shell, no SQL or glob mix-ups.
  const std::string file = (dir_ / "every type's %d file.parquet").string();
  ASSERT_OK(OracleWriteParquet(file, kEveryTypeSql, "zstd"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows, OracleCatParquet(file));
  const std::vector<std::string> expected = {
      R"({"i":1,"big":9007199254740993,"d":0.1,"f":0.1,"dec":"12.50",)"
      R"("s":"say \"hi\" \\ ñ 😀","dt":"2024-02-29","ts":"2024-01-02T03:04:05.123456",)"
      R"("tstz":"2024-01-02T01:04:05.500000Z","b":"00ff6162","l":[1,null,3],)"
      R"("st":{"a":1,"b":"x"},"m":[{"key":"k1","value":1},{"key":"k2","value":2}]})",
      R"({"i":-2147483648,"big":-9223372036854775808,"d":1e+16,"f":"Infinity","dec":"-0.05",)"
      R"("s":"tab\tnl\n","dt":"1969-12-31","ts":"1969-12-31T23:59:59.999999",)"
      R"("tstz":"1970-01-01T00:00:00.000000Z","b":"","l":[],"st":{"a":null,"b":null},"m":[]})",
      R"({"i":null,"big":null,"d":"NaN","f":1.5e-05,"dec":null,"s":null,"dt":null,"ts":null,)"
      R"("tstz":null,"b":null,"l":null,"st":null,"m":null})",
  };
  EXPECT_EQ(rows, expected);
}

TEST_F(OracleTest, SelectsColumnsInTheGivenOrder) {
  const std::string file = (dir_ / "columns.parquet").string();
  ASSERT_OK(OracleWriteParquet(file, "SELECT range AS id, range * 2 AS twice FROM range(3)",
                               "uncompressed", /*row_group_size=*/2));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows, OracleCatParquet(file, {"twice", "id"}));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"twice":0,"id":0})", R"({"twice":2,"id":1})",
                                            R"({"twice":4,"id":2})"}));
}

TEST_F(OracleTest, QueryPrintsWideIntegersExactlyAndNumbersInReprForm) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<std::string> rows,
      OracleQuery("SELECT 170141183460469231731687303715884105727::HUGEINT AS h, "
                  "18446744073709551615::UBIGINT AS u, 1e-5::DOUBLE AS small, "
                  "-0.0::DOUBLE AS negative_zero, 3.4028235e38::FLOAT AS max_float, "
                  "16777217::FLOAT AS rounded, 123.0::DOUBLE AS whole, 5e-324::DOUBLE AS tiny, "
                  "DATE '10000-01-01' AS far, TIMESTAMP_NS '1969-12-31 23:59:59.9999999' AS ns"));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"h":170141183460469231731687303715884105727,"u":18446744073709551615,)"
                      R"("small":1e-05,"negative_zero":-0.0,"max_float":3.4028235e+38,)"
                      R"("rounded":16777216.0,"whole":123.0,"tiny":5e-324,)"
                      R"("far":"+10000-01-01","ns":"1969-12-31T23:59:59.999999"})"}));
}

TEST_F(OracleTest, SortsMapEntriesByTheirUtf8Bytes) {
  // UTF-16 order would put U+FFFD after the emoji; UTF-8 byte order puts it before.
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows,
                       OracleQuery("SELECT MAP {'😀': 1, '\uFFFD': 2, 'b': 3} AS m"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], R"({"m":[{"key":"b","value":3},{"key":"�","value":2},)"
                     R"({"key":"😀","value":1}]})");
}

// Random float and double bit patterns, printed by DuckDB through the oracle and by
// columnar::CanonicalJsonRows, must agree byte for byte.
TEST_F(OracleTest, FloatingPointTextMatchesColumnarPrinter) {
  std::mt19937_64 random(20240601);
  std::string values_sql;
  std::string json = "[";
  constexpr int kValues = 3000;
  for (int i = 0; i < kValues; ++i) {
    uint32_t float_bits = static_cast<uint32_t>(random());
    uint64_t double_bits = random();
    if (i % 3 == 0) {
      float_bits &= 0xFF800000u;  // powers of two: lopsided rounding intervals
      double_bits &= 0xFFF0000000000000ull;
    }
    float f = std::bit_cast<float>(float_bits);
    double d = std::bit_cast<double>(double_bits);
    if (!std::isfinite(f)) {
      f = 1.0f;
    }
    if (!std::isfinite(d)) {
      d = 1.0;
    }
    // %g prints zeros as "0" and "-0", which JSON readers take for the integer 0.
    char text[96];
    std::snprintf(text, sizeof(text), f == 0 ? "%.1f" : "%.9g", static_cast<double>(f));
    std::string float_text = text;
    std::snprintf(text, sizeof(text), d == 0 ? "%.1f" : "%.17g", d);
    std::string double_text = text;
    values_sql +=
        (i > 0 ? ",(" : "(") + std::to_string(i) + ",'" + float_text + "','" + double_text + "')";
    json += (i > 0 ? ",[" : "[") + float_text + "," + double_text + "]";
  }
  json += "]";
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> oracle_rows,
                       OracleQuery("SELECT f::FLOAT AS f, d::DOUBLE AS d FROM (VALUES " +
                                   values_sql + ") t(i, f, d) ORDER BY i"));
  auto schema = MakeSchema({Field("f", DataType::Float32()), Field("d", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema, json));
  const std::vector<std::string> ours = columnar::CanonicalJsonRows(*batch);
  ASSERT_EQ(oracle_rows.size(), ours.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(oracle_rows[i], ours[i]) << "row " << i;
  }
}

TEST_F(OracleTest, ReadsAllPrimitiveTypesAsExpected) {
  const std::filesystem::path table =
      std::filesystem::path(TestdataDir()) / "dat" / "all_primitive_types";
  std::string part;
  for (const auto& entry : std::filesystem::directory_iterator(table / "delta")) {
    if (entry.path().extension() == ".parquet") {
      part = entry.path().string();
    }
  }
  ASSERT_FALSE(part.empty()) << "no part file under " << table;
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows, OracleCatParquet(part));
  std::sort(rows.begin(), rows.end());
  const std::vector<std::string> expected = ReadLines((table / "expected" / "v0.jsonl").string());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(rows, expected);
}

TEST_F(OracleTest, ReadsEveryTestdataParquetFile) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TestdataDir())) {
    if (entry.is_regular_file() && entry.path().extension() == ".parquet") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 600u) << "test data missing under " << TestdataDir();
  ASSERT_OK_AND_ASSIGN(std::vector<OracleFileRows> results, OracleCatParquetMany(files));
  ASSERT_EQ(results.size(), files.size());
  size_t readable = 0;
  int64_t rows = 0;
  for (const OracleFileRows& result : results) {
    EXPECT_TRUE(result.status.ok()) << result.status;
    if (result.status.ok()) {
      ++readable;
      rows += static_cast<int64_t>(result.rows.size());
    }
  }
  std::printf("DuckDB read %zu of %zu test data Parquet files (%lld rows)\n", readable,
              files.size(), static_cast<long long>(rows));
}

TEST_F(OracleTest, FailsWithDuckDBsMessage) {
  Result<std::vector<std::string>> bad_sql = OracleQuery("SELEC 1");
  ASSERT_RAISES(IOError, bad_sql);
  EXPECT_NE(bad_sql.status().Message().find("syntax error"), std::string::npos) << bad_sql.status();
  ASSERT_RAISES(IOError, OracleCatParquet((dir_ / "missing.parquet").string()));
  ASSERT_RAISES(IOError, OracleWriteParquet((dir_ / "x.parquet").string(), "SELECT 1", "lz5"));
}

}  // namespace
}  // namespace tributary::testing

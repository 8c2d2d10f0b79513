// The CSV reader against DuckDB's read_csv on the same files: equal values over generated data
// of every type the CSV source supports, with nulls, quoting, embedded separators, quotes and
// newlines (multiLine), CRLF line ends and unicode.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/csv/csv_reader.h"
#include "formats/parquet/compression.h"
#include "formats/text/schema_hints.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/file_reader_rows.h"
#include "support/status_matchers.h"

namespace tributary::csv {
namespace {

std::string TempPath(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "csv_interop_test";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

// Deterministic rows over every type; each field is null (empty, unquoted) now and then.
class CsvGenerator {
 public:
  explicit CsvGenerator(uint32_t seed, bool newlines) : rng_(seed), newlines_(newlines) {}

  std::string Header() const { return "b,i8,i16,i32,i64,f32,f64,dec,s,dt,ts,ntz\r\n"; }

  std::string Row() {
    std::string out;
    auto field = [&](const std::string& value, bool last = false) {
      out += Pick(15) == 0 ? "" : value;
      out += last ? "\r\n" : ",";
    };
    field(Pick(2) ? "true" : "false");
    field(std::to_string(static_cast<int>(Pick(256)) - 128));
    field(std::to_string(static_cast<int>(Pick(65536)) - 32768));
    field(std::to_string(static_cast<int64_t>(rng_()) - 2147483648LL));
    field(std::to_string(static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_())));
    static const char* const kFloats[] = {"1.5", "-0.25", "3", "1e10", "0.5", "-7.75e-3"};
    field(kFloats[Pick(6)]);
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g",
                  (static_cast<double>(rng_()) - 2e9) / (1 + Pick(1000)));
    field(text);
    std::snprintf(text, sizeof(text), "%s%u.%03u", Pick(2) ? "-" : "", Pick(10000000), Pick(1000));
    field(text);
    field(String());
    const std::string date = Date();
    field(date);
    static const char* const kZones[] = {"Z", "+02:00", "-05:30", "+00:00"};
    field(date + "T" + Time() + kZones[Pick(4)]);
    field(Date() + " " + Time(), true);
    return out;
  }

 private:
  uint32_t Pick(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  // A quoted string (never empty: DuckDB and Spark disagree on "" versus null) with separators,
  // doubled quotes, unicode and, with multiLine, line breaks inside.
  std::string String() {
    static const char* const kPieces[] = {"plain", "caf\u00e9",      "\u4e2d\u6587", "\U0001F600",
                                          "a,b",   "say \"\"hi\"\"", "x;y",          "tab\there"};
    std::string s = "\"v";
    for (uint32_t i = 0, n = Pick(4); i < n; ++i) {
      s += kPieces[Pick(8)];
      if (newlines_ && Pick(4) == 0) {
        // Only "\n": a "\r\n" inside quotes reads as "\n" in Spark (univocity normalizes line
        // ends within quotes) and so in tributary, while DuckDB keeps the "\r".
        s += "\n";
      }
    }
    return s + "\"";
  }
  std::string Date() {
    char text[32];
    std::snprintf(text, sizeof(text), "%04u-%02u-%02u", 1900 + Pick(200), 1 + Pick(12),
                  1 + Pick(28));
    return text;
  }
  std::string Time() {
    char text[32];
    std::snprintf(text, sizeof(text), "%02u:%02u:%02u", Pick(24), Pick(60), Pick(60));
    std::string t = text;
    if (Pick(2)) {
      std::snprintf(text, sizeof(text), ".%06u", Pick(1000000));
      t += text;
    }
    return t;
  }

  std::mt19937 rng_;
  bool newlines_;
};

constexpr const char* kDdl =
    "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f32 FLOAT, f64 DOUBLE, "
    "dec DECIMAL(12,3), s STRING, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ";

constexpr const char* kDuckDbColumns =
    "{b:'BOOLEAN', i8:'TINYINT', i16:'SMALLINT', i32:'INTEGER', i64:'BIGINT', f32:'FLOAT', "
    "f64:'DOUBLE', dec:'DECIMAL(12,3)', s:'VARCHAR', dt:'DATE', ts:'TIMESTAMPTZ', "
    "ntz:'TIMESTAMP'}";

struct Case {
  const char* extension;
  bool multi_line;
};

class CsvInteropTest : public ::testing::TestWithParam<Case> {};

TEST_P(CsvInteropTest, GeneratedDataMatchesDuckDBReadCsv) {
  const Case c = GetParam();
  CsvGenerator generator(7, c.multi_line);
  std::string data = generator.Header();
  for (int i = 0; i < 2000; ++i) {
    data += generator.Row();
  }
  const std::string path =
      TempPath(std::string("data") + (c.multi_line ? "_ml" : "") + ".csv" + c.extension);
  std::string bytes = data;
  if (std::string_view(c.extension) == ".gz") {
    ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kGzip, data, &bytes));
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  CsvReadOptions options;
  options.header = true;
  options.escape = '"';  // RFC 4180: a quote inside quotes is doubled
  options.multi_line = c.multi_line;
  options.rescued_data_column = "";
  options.mode = text::ParseMode::kFailFast;
  storage::LocalFileSystem fs;
  ASSERT_OK_AND_ASSIGN(
      auto reader,
      CsvReader::Open(fs, path,
                      *text::ApplySchemaHints(columnar::Schema({}), *text::ParseSchemaHints(kDdl)),
                      options));
  ASSERT_OK_AND_ASSIGN(const std::vector<std::string> ours, testing::ReadAllRows(*reader));
  EXPECT_EQ(reader->Metrics().num_rows_written, 2000);
  ASSERT_OK_AND_ASSIGN(auto expected,
                       testing::OracleQuery("SELECT * FROM read_csv('" + path +
                                            "', header=true, delim=',', quote='\"', escape='\"', "
                                            "allow_quoted_nulls=false, columns=" +
                                            kDuckDbColumns + ")"));
  ASSERT_EQ(ours.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(ours[i], expected[i]) << "row " << i + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, CsvInteropTest,
                         ::testing::Values(Case{"", false}, Case{"", true}, Case{".gz", true}));

}  // namespace
}  // namespace tributary::csv

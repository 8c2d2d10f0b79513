// The JSON reader against DuckDB's read_json on the same files: equal values on well-formed
// data of every type, and exact per-line accounting on dirty data checked against DuckDB's
// json_valid of each line (TESTING.md's caveat: read_json itself loses lines on dirty input).

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/column.h"
#include "formats/json/json_reader.h"
#include "formats/parquet/compression.h"
#include "formats/text/schema_hints.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/file_reader_rows.h"
#include "support/status_matchers.h"

namespace tributary::json {
namespace {

std::string TempPath(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "json_interop_test";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

columnar::SchemaPtr Ddl(const std::string& ddl) {
  return *text::ApplySchemaHints(columnar::Schema({}), *text::ParseSchemaHints(ddl));
}

struct ReadOutcome {
  std::vector<std::string> rows;
  JsonReadMetrics metrics;
};

Result<ReadOutcome> ReadWithTributary(const std::string& path, const std::string& ddl,
                                      const JsonReadOptions& options) {
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, JsonReader::Open(fs, path, Ddl(ddl), options));
  ReadOutcome outcome;
  TRIBUTARY_ASSIGN_OR_RAISE(outcome.rows, testing::ReadAllRows(*reader));
  outcome.metrics = reader->Metrics();
  return outcome;
}

// Deterministic well-formed records over every type, with nulls, missing fields, nesting and
// unicode.
class CleanGenerator {
 public:
  explicit CleanGenerator(uint32_t seed) : rng_(seed) {}

  std::string Line() {
    std::string out = "{";
    bool first = true;
    auto field = [&](const char* name, const std::string& value) {
      const int roll = Pick(20);
      if (roll == 0) {
        return;  // missing
      }
      out += first ? "" : ",";
      first = false;
      out += "\"";
      out += name;
      out += "\":";
      out += roll == 1 ? "null" : value;
    };
    field("b", Pick(2) ? "true" : "false");
    field("i8", std::to_string(static_cast<int>(Pick(256)) - 128));
    field("i16", std::to_string(static_cast<int>(Pick(65536)) - 32768));
    field("i32", std::to_string(static_cast<int64_t>(rng_()) - 2147483648LL));
    field("i64", std::to_string(static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_())));
    field("f32", Float());
    field("f64", Double());
    field("dec", Decimal());
    field("s", String());
    field("dt", "\"" + Date() + "\"");
    field("ts", "\"" + Date() + "T" + Time() + Zone() + "\"");
    field("ntz", "\"" + Date() + " " + Time() + "\"");
    field("st", "{\"x\":" + std::to_string(Pick(1000)) + ",\"y\":" + String() + "}");
    std::string arr = "[";
    for (uint32_t i = 0, n = Pick(4); i < n; ++i) {
      arr += (i ? "," : "") + (Pick(6) == 0 ? std::string("null") : std::to_string(rng_()));
    }
    field("arr", arr + "]");
    std::string structs = "[";
    for (uint32_t i = 0, n = Pick(3); i < n; ++i) {
      structs += (i ? "," : "") + std::string("{\"k\":") + String() + "}";
    }
    field("arrs", structs + "]");
    std::string map = "{";
    for (uint32_t i = 0, n = Pick(3); i < n; ++i) {
      map += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(Pick(100));
    }
    field("m", map + "}");
    return out + "}";
  }

 private:
  uint32_t Pick(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  std::string Float() {
    static const char* const kValues[] = {"1.5", "-0.25",   "3",       "1e10",
                                          "0.1", "123.456", "-7.75e-3"};
    return kValues[Pick(7)];
  }
  std::string Double() {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g",
                  (static_cast<double>(rng_()) - 2e9) / (1 + Pick(1000)));
    return text;
  }
  std::string Decimal() {
    char text[64];
    std::snprintf(text, sizeof(text), "%s%u.%03u", Pick(2) ? "-" : "", Pick(10000000), Pick(1000));
    return text;
  }
  std::string String() {
    static const char* const kPieces[] = {"plain",
                                          "caf\u00e9",
                                          "\u4e2d\u6587",
                                          "\U0001F600",
                                          "\\\"quoted\\\"",
                                          "tab\\tnew\\nline",
                                          "back\\\\slash",
                                          "\\u00e9\\u4e2d",
                                          "\\ud83d\\ude00",
                                          "ctl\\u0001",
                                          " ",
                                          ""};
    std::string s = "\"";
    for (uint32_t i = 0, n = Pick(4); i < n; ++i) {
      s += kPieces[Pick(12)];
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
  std::string Zone() {
    static const char* const kZones[] = {"Z", "+02:00", "-05:30", "+00:00"};
    return kZones[Pick(4)];
  }

  std::mt19937 rng_;
};

constexpr const char* kCleanDdl =
    "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f32 FLOAT, f64 DOUBLE, "
    "dec DECIMAL(12,3), s STRING, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
    "st STRUCT<x:INT,y:STRING>, arr ARRAY<BIGINT>, arrs ARRAY<STRUCT<k:STRING>>, "
    "m MAP<STRING,INT>";

constexpr const char* kDuckDbColumns =
    "{b:'BOOLEAN', i8:'TINYINT', i16:'SMALLINT', i32:'INTEGER', i64:'BIGINT', f32:'FLOAT', "
    "f64:'DOUBLE', dec:'DECIMAL(12,3)', s:'VARCHAR', dt:'DATE', ts:'TIMESTAMPTZ', "
    "ntz:'TIMESTAMP', st:'STRUCT(x INTEGER, y VARCHAR)', arr:'BIGINT[]', "
    "arrs:'STRUCT(k VARCHAR)[]', m:'MAP(VARCHAR, INTEGER)'}";

constexpr const char* kTransformStructure =
    R"j({"b":"BOOLEAN","i8":"TINYINT","i16":"SMALLINT","i32":"INTEGER","i64":"BIGINT",)j"
    R"j("f32":"FLOAT","f64":"DOUBLE","dec":"DECIMAL(12,3)","s":"VARCHAR","dt":"DATE",)j"
    R"j("ts":"TIMESTAMPTZ","ntz":"TIMESTAMP","st":{"x":"INTEGER","y":"VARCHAR"},)j"
    R"j("arr":["BIGINT"],"arrs":[{"k":"VARCHAR"}],"m":"MAP(VARCHAR, INTEGER)"})j";

class JsonInteropTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JsonInteropTest, WellFormedDataMatchesDuckDBReadJson) {
  const std::string extension = GetParam();
  CleanGenerator generator(42);
  std::string data;
  for (int i = 0; i < 3000; ++i) {
    data += generator.Line();
    data += i % 97 == 0 ? "\r\n" : "\n";
  }
  const std::string path = TempPath("clean.json" + extension);
  std::string bytes = data;
  if (extension == ".gz") {
    ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kGzip, data, &bytes));
  } else if (extension == ".zst") {
    ASSERT_OK(parquet::Compress(parquet::CompressionCodec::kZstd, data, &bytes));
  }
  WriteFile(path, bytes);

  JsonReadOptions options;
  options.rescued_data_column = "";
  options.mode = text::ParseMode::kFailFast;
  ASSERT_OK_AND_ASSIGN(auto ours, ReadWithTributary(path, kCleanDdl, options));
  ASSERT_OK_AND_ASSIGN(
      auto expected,
      testing::OracleQuery("SELECT * FROM read_json('" + path +
                           "', format='newline_delimited', columns=" + kDuckDbColumns + ")"));
  ASSERT_EQ(ours.rows.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(ours.rows[i], expected[i]) << "line " << i + 1;
  }
  EXPECT_EQ(ours.metrics.num_rows_written, 3000);
}

INSTANTIATE_TEST_SUITE_P(Compression, JsonInteropTest, ::testing::Values("", ".gz", ".zst"));

// Dirty lines of the kinds real feeds carry, each tagged with what DuckDB should make of it.
std::vector<std::string> DirtyLines(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  CleanGenerator clean(seed + 1);
  std::vector<std::string> lines;
  for (int i = 0; i < count; ++i) {
    std::string line = clean.Line();
    switch (rng() % 16) {
      case 0:
        line = line.substr(0, rng() % line.size());  // truncated
        break;
      case 1:
        line = line.substr(0, line.find(':') + 1);  // cut right after "key":
        break;
      case 2:
        line = "\x01\x02garbage\xff";
        break;
      case 3:
        line = "";
        break;
      case 4:
        line += " trailing";
        break;
      case 5:
        line = "{'single': 'quotes'}";
        break;
      case 6:
        line = "{\"i32\": \"not a number\", \"extra\": 1}";
        break;
      case 7:
        line = "{\"s\": \"bad utf8 \xC3\x28\"}";
        break;
      case 8:
        line = "[1, 2, 3]";
        break;
      case 9:
        line = "   ";
        break;
      case 10:
        line = "{\"I32\": 5, \"i64\": 1.5}";
        break;
      default:
        break;
    }
    lines.push_back(line);
  }
  return lines;
}

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

TEST(JsonDirtyInteropTest, EveryLineIsAccountedForExactlyAsAnIndependentPerLineParse) {
  const std::vector<std::string> lines = DirtyLines(7, 4000);
  std::string data;
  std::string hex_csv;
  for (size_t i = 0; i < lines.size(); ++i) {
    data += lines[i] + "\n";
    // Lines that are not UTF-8 cannot be DuckDB text: they are corrupt by definition.
    if (columnar::IsValidUtf8(lines[i])) {
      hex_csv += std::to_string(i + 1) + "," + Hex(lines[i]) + "\n";
    }
  }
  const std::string path = TempPath("dirty.json");
  const std::string csv_path = TempPath("dirty_lines.csv");
  WriteFile(path, data);
  WriteFile(csv_path, hex_csv);

  // Per line: 'blank', 'object' (valid JSON object) or 'corrupt' (anything else).
  ASSERT_OK_AND_ASSIGN(
      auto verdicts,
      testing::OracleQuery(
          "SELECT n, CASE WHEN trim(coalesce(s, '')) = '' THEN 'blank' WHEN json_valid(s) AND "
          "json_type(s) = 'OBJECT' THEN 'object' ELSE 'corrupt' END AS kind FROM (SELECT n, "
          "decode(unhex(h)) AS s FROM read_csv('" +
          csv_path +
          "', columns={'n':'BIGINT','h':'VARCHAR'}, header=false, quote='', escape='')) "
          "ORDER BY n"));
  std::vector<std::string> kind(lines.size() + 1, "corrupt");
  for (const std::string& verdict : verdicts) {
    int64_t n = 0;
    char text[16] = {};
    ASSERT_EQ(std::sscanf(verdict.c_str(), "{\"n\":%" SCNd64 ",\"kind\":\"%15[a-z]", &n, text), 2)
        << verdict;
    kind[static_cast<size_t>(n)] = text;
  }
  int64_t blank = 0;
  int64_t objects = 0;
  int64_t corrupt = 0;
  std::vector<bool> expect_corrupt_row;
  for (size_t i = 1; i <= lines.size(); ++i) {
    if (kind[i] == "blank") {
      ++blank;
    } else {
      kind[i] == "object" ? ++objects : ++corrupt;
      expect_corrupt_row.push_back(kind[i] == "corrupt");
    }
  }
  ASSERT_GT(corrupt, 500);

  // The values of every well-formed object line, as DuckDB's json_transform types them.
  ASSERT_OK_AND_ASSIGN(
      auto transformed,
      testing::OracleQuery(
          "SELECT json_transform(s, '" + std::string(kTransformStructure) +
          "') AS t FROM (SELECT n, decode(unhex(h)) AS s FROM read_csv('" + csv_path +
          "', columns={'n':'BIGINT','h':'VARCHAR'}, header=false, quote='', escape='')) "
          "WHERE json_valid(s) AND json_type(s) = 'OBJECT' ORDER BY n"));
  ASSERT_EQ(static_cast<int64_t>(transformed.size()), objects);

  for (text::ParseMode mode : {text::ParseMode::kPermissive, text::ParseMode::kDropMalformed}) {
    JsonReadOptions options;
    options.mode = mode;
    // The oracle is strict JSON: turn off Spark's lenient defaults ('single quotes', NaN).
    options.allow_single_quotes = false;
    options.allow_non_numeric_numbers = false;
    ASSERT_OK_AND_ASSIGN(auto ours, ReadWithTributary(path, kCleanDdl, options));
    const JsonReadMetrics& m = ours.metrics;
    EXPECT_EQ(m.num_lines, static_cast<int64_t>(lines.size()));
    EXPECT_EQ(m.num_blank_lines, blank);
    EXPECT_EQ(m.num_records, objects + corrupt);
    EXPECT_EQ(m.num_corrupt_records, corrupt);
    EXPECT_EQ(m.num_rows_written + m.num_rows_rescued + m.num_rows_dropped, m.num_records);
    if (mode == text::ParseMode::kPermissive) {
      EXPECT_EQ(m.num_rows_dropped, 0);
      ASSERT_EQ(ours.rows.size(), expect_corrupt_row.size());
      for (size_t r = 0; r < ours.rows.size(); ++r) {
        const bool corrupt_row = ours.rows[r].find("_corrupt_record") != std::string::npos;
        EXPECT_EQ(corrupt_row, expect_corrupt_row[r]) << "row " << r << ": " << ours.rows[r];
      }
    } else {
      EXPECT_EQ(m.num_rows_dropped, corrupt);
      ASSERT_EQ(static_cast<int64_t>(ours.rows.size()), objects);
      // Rows with nothing rescued hold exactly DuckDB's values.
      const std::string_view no_rescue = ",\"_rescued_data\":null}";
      int64_t compared = 0;
      for (size_t r = 0; r < ours.rows.size(); ++r) {
        const std::string& row = ours.rows[r];
        if (row.size() < no_rescue.size() ||
            row.compare(row.size() - no_rescue.size(), no_rescue.size(), no_rescue) != 0) {
          continue;
        }
        const std::string values = row.substr(0, row.size() - no_rescue.size()) + "}";
        EXPECT_EQ("{\"t\":" + values + "}", transformed[r]) << "row " << r;
        ++compared;
      }
      EXPECT_GT(compared, objects / 2);
    }
  }
}

}  // namespace
}  // namespace tributary::json

// ParquetWriter: files are checked against DuckDB (the independent oracle) value for value and
// their footers decoded for schema, encodings and statistics.

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::parquet {
namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::RecordBatchPtr;
using columnar::SchemaPtr;
using testing::BatchFromJson;
using testing::MakeSchema;

DataTypePtr Dec(int p, int s) {
  return DataType::Decimal(p, s).ValueOrDie();
}

class ParquetWriterTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.Join(name); }

  // Writes `batches` to a new file and returns its path.
  std::string Write(const std::string& name, SchemaPtr schema,
                    const std::vector<RecordBatchPtr>& batches, ParquetWriterOptions options = {}) {
    std::string path = Path(name);
    Status st = WriteParquetFile(fs_, path, batches, std::move(schema), std::move(options));
    EXPECT_TRUE(st.ok()) << st.ToString();
    return path;
  }

  // The canonical rows of `batches`, in order.
  static std::vector<std::string> Rows(const std::vector<RecordBatchPtr>& batches) {
    std::vector<std::string> rows;
    for (const auto& b : batches) {
      for (std::string& r : columnar::CanonicalJsonRows(*b)) {
        rows.push_back(std::move(r));
      }
    }
    return rows;
  }

  // Asserts DuckDB reads exactly the rows of `batches` from `path`.
  static void ExpectOracleRows(const std::string& path,
                               const std::vector<RecordBatchPtr>& batches) {
    Result<std::vector<std::string>> got = testing::OracleCatParquet(path);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, Rows(batches));
  }

  FileMetaData Footer(const std::string& path) {
    Result<std::string> bytes = fs_.ReadFile(path);
    EXPECT_TRUE(bytes.ok());
    const std::string& b = *bytes;
    EXPECT_GE(b.size(), 12u);
    EXPECT_EQ(b.substr(0, 4), "PAR1");
    EXPECT_EQ(b.substr(b.size() - 4), "PAR1");
    uint32_t len = 0;
    std::memcpy(&len, b.data() + b.size() - 8, 4);
    Result<FileMetaData> meta =
        DecodeFileMetaData(std::string_view(b).substr(b.size() - 8 - len, len));
    EXPECT_TRUE(meta.ok()) << meta.status().ToString();
    return meta.ok() ? *meta : FileMetaData{};
  }

  static const ColumnMetaData& Chunk(const FileMetaData& m, size_t group, size_t column) {
    return *m.row_groups.at(group).columns.at(column).meta_data;
  }

  // Writes the rows `json` of `schema` with pages of at most 1000 rows, checks DuckDB reads
  // them back and returns the file's path.
  std::string WriteInPagesOf1000(const std::string& name, SchemaPtr schema,
                                 const std::string& json) {
    Result<RecordBatchPtr> batch = BatchFromJson(schema, json);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) {
      return Path(name);
    }
    ParquetWriterOptions options;
    options.page_value_limit = 1000;
    std::string path = Write(name, std::move(schema), {*batch}, options);
    ExpectOracleRows(path, {*batch});
    return path;
  }

  // The headers of the data pages of chunk `c` of the file at `path`, in order.
  std::vector<PageHeader> DataPageHeaders(const std::string& path, const ColumnMetaData& c) {
    std::vector<PageHeader> headers;
    Result<std::string> bytes = fs_.ReadFile(path);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    if (!bytes.ok()) {
      return headers;
    }
    int64_t pos = c.dictionary_page_offset.value_or(c.data_page_offset);
    const int64_t end = pos + c.total_compressed_size;
    while (pos < end) {
      int64_t header_size = 0;
      Result<PageHeader> h = DecodePageHeader(std::string_view(*bytes).substr(pos), &header_size);
      EXPECT_TRUE(h.ok()) << h.status().ToString();
      if (!h.ok()) {
        break;
      }
      pos += header_size + h->compressed_page_size;
      if (h->type == PageType::kDataPage) {
        headers.push_back(*std::move(h));
      }
    }
    EXPECT_EQ(pos, end);
    return headers;
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

SchemaPtr FlatSchema() {
  return MakeSchema({
      Field("b", DataType::Boolean()),
      Field("i8", DataType::Int8()),
      Field("i16", DataType::Int16()),
      Field("i32", DataType::Int32()),
      Field("i64", DataType::Int64(), false),
      Field("f", DataType::Float32()),
      Field("d", DataType::Float64()),
      Field("dec9", Dec(9, 2)),
      Field("dec18", Dec(18, 4)),
      Field("dec38", Dec(38, 10)),
      Field("dec20", Dec(20, 0)),
      Field("s", DataType::String()),
      Field("bin", DataType::Binary()),
      Field("dt", DataType::Date()),
      Field("ts", DataType::Timestamp()),
      Field("ntz", DataType::TimestampNtz()),
  });
}

constexpr const char* kFlatRows = R"([
  {"b": true, "i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807,
   "f": 1.5, "d": -0.0, "dec9": 12345, "dec18": -999999999999999999,
   "dec38": "-99999999999999999999999999999999999999", "dec20": "12345678901234567890",
   "s": "hello", "bin": "\u0000\u00ff", "dt": 19000, "ts": 1700000000123456,
   "ntz": -1000000},
  {"b": false, "i64": -9223372036854775808, "f": "NaN", "d": "Infinity", "s": "",
   "bin": "", "dt": -719162, "ts": 0, "ntz": 253402300799999999,
   "dec38": "99999999999999999999999999999999999999", "dec20": "-1"},
  {"i64": 0},
  {"b": true, "i8": 127, "i16": -32768, "i32": 2147483647, "i64": 42, "f": -3.25,
   "d": 2.5e-300, "dec9": -999999999, "dec18": 5, "dec38": "0", "dec20": "0",
   "s": "h\u00e9llo \ud83d\ude00", "bin": "abc", "dt": 0, "ts": -1, "ntz": 0},
  {"i64": 7, "s": "hello", "f": 0.0, "d": 0.0}
])";

struct CodecCase {
  CompressionCodec codec;
  bool dictionary;
};

class ParquetWriterCodecTest : public ParquetWriterTest,
                               public ::testing::WithParamInterface<CodecCase> {};

TEST_P(ParquetWriterCodecTest, FlatAllTypesReadBackByDuckDb) {
  SchemaPtr schema = FlatSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, kFlatRows));
  ParquetWriterOptions options;
  options.codec = GetParam().codec;
  options.enable_dictionary = GetParam().dictionary;
  const std::string path = Write("flat.parquet", schema, {batch, batch}, options);
  ExpectOracleRows(path, {batch, batch});

  const FileMetaData m = Footer(path);
  EXPECT_EQ(m.num_rows, 10);
  ASSERT_EQ(m.row_groups.size(), 1u);
  EXPECT_EQ(m.column_orders, std::vector<ColumnOrder>(16, 1));
  for (const ColumnChunk& c : m.row_groups[0].columns) {
    EXPECT_EQ(c.meta_data->codec, CompressionCodecToThrift(GetParam().codec));
    EXPECT_EQ(c.meta_data->num_values, 10);
    const auto& enc = c.meta_data->encodings;
    const bool has_dict = std::find(enc.begin(), enc.end(), Encoding::kRleDictionary) != enc.end();
    EXPECT_EQ(has_dict, GetParam().dictionary && c.meta_data->type != PhysicalType::kBoolean)
        << c.meta_data->path_in_schema[0];
    EXPECT_EQ(c.meta_data->dictionary_page_offset.has_value(), has_dict);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, ParquetWriterCodecTest,
                         ::testing::Values(CodecCase{CompressionCodec::kSnappy, true},
                                           CodecCase{CompressionCodec::kZstd, true},
                                           CodecCase{CompressionCodec::kUncompressed, true},
                                           CodecCase{CompressionCodec::kSnappy, false},
                                           CodecCase{CompressionCodec::kZstd, false},
                                           CodecCase{CompressionCodec::kBrotli, true}));

// Columns encoded on several threads: each column's pages are made by one thread in order, so
// the file is byte for byte the one-thread file (here 3 row groups of 3 pieces each, strings,
// integers, nested lists and structs, nulls), and DuckDB reads it back.
TEST_F(ParquetWriterTest, ColumnsEncodedOnThreadsWriteTheBytesOfOneThread) {
  SchemaPtr schema = MakeSchema({Field("id", DataType::Int64()), Field("name", DataType::String()),
                                 Field("tags", DataType::Array(DataType::String())),
                                 Field("point", DataType::Struct({{"x", DataType::Float64()},
                                                                  {"label", DataType::String()}})),
                                 Field("flag", DataType::Boolean())});
  std::string json = "[";
  for (int64_t i = 0; i < 400000; ++i) {
    json += fmt::format(
        R"({}{{"id":{},"name":{},"tags":["t{}","u{}"],"point":{},"flag":{}}})", i == 0 ? "" : ",",
        i * 7919 % 1000003, i % 13 == 0 ? "null" : fmt::format(R"("n{}")", i % 5000), i % 17, i % 3,
        i % 11 == 0 ? "null" : fmt::format(R"({{"x":{}.5,"label":"p{}"}})", i % 977, i % 31),
        i % 2 == 0 ? "true" : "false");
  }
  json += "]";
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, json));
  ParquetWriterOptions one;
  one.row_group_size_rows = 150000;
  ParquetWriterOptions three = one;
  three.threads = 3;
  const std::string serial = Write("serial.parquet", schema, {batch}, one);
  const std::string threaded = Write("threaded.parquet", schema, {batch}, three);
  ASSERT_OK_AND_ASSIGN(std::string serial_bytes, fs_.ReadFile(serial));
  ASSERT_OK_AND_ASSIGN(std::string threaded_bytes, fs_.ReadFile(threaded));
  EXPECT_EQ(Footer(threaded).row_groups.size(), 3u);
  EXPECT_TRUE(serial_bytes == threaded_bytes) << "the files differ";
  ExpectOracleRows(threaded, {batch});
}

TEST_F(ParquetWriterTest, SchemaUsesSparkPhysicalTypesAndAnnotations) {
  SchemaPtr schema = FlatSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, kFlatRows));
  const FileMetaData m = Footer(Write("schema.parquet", schema, {batch}));
  ASSERT_EQ(m.schema.size(), 17u);
  EXPECT_EQ(m.schema[0].num_children, 16);
  auto element = [&](const char* name) -> const SchemaElement& {
    for (const SchemaElement& e : m.schema) {
      if (e.name == name) {
        return e;
      }
    }
    ADD_FAILURE() << "no element " << name;
    return m.schema[0];
  };
  EXPECT_EQ(element("i8").type, PhysicalType::kInt32);
  EXPECT_EQ(element("i8").converted_type, ConvertedType::kInt8);
  EXPECT_EQ(element("i8").logical_type->bit_width, 8);
  EXPECT_EQ(element("i64").repetition_type, Repetition::kRequired);
  EXPECT_EQ(element("i32").repetition_type, Repetition::kOptional);
  EXPECT_EQ(element("dec9").type, PhysicalType::kInt32);
  EXPECT_EQ(element("dec18").type, PhysicalType::kInt64);
  EXPECT_EQ(element("dec38").type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(element("dec38").type_length, 16);
  EXPECT_EQ(element("dec20").type_length, 9);
  EXPECT_EQ(element("dec38").logical_type->precision, 38);
  EXPECT_EQ(element("dec38").scale, 10);
  EXPECT_EQ(element("s").converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(element("s").logical_type->kind, LogicalType::Kind::kString);
  EXPECT_FALSE(element("bin").logical_type.has_value());
  EXPECT_EQ(element("dt").converted_type, ConvertedType::kDate);
  EXPECT_TRUE(element("ts").logical_type->is_adjusted_to_utc);
  EXPECT_EQ(element("ts").converted_type, ConvertedType::kTimestampMicros);
  EXPECT_FALSE(element("ntz").logical_type->is_adjusted_to_utc);
  EXPECT_EQ(element("ntz").logical_type->unit, TimeUnit::kMicros);
  EXPECT_FALSE(element("ntz").converted_type.has_value());
}

std::string LE32(int32_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 4);
}
std::string LE64(int64_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 8);
}
template <typename T>
std::string Raw(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

TEST_F(ParquetWriterTest, StatisticsUseEachTypesOrder) {
  SchemaPtr schema = FlatSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, kFlatRows));
  const FileMetaData m = Footer(Write("stats.parquet", schema, {batch}));
  auto stats = [&](size_t column) {
    return *Chunk(m, 0, column).statistics;
  };
  // b
  EXPECT_EQ(stats(0).min_value, std::string(1, '\0'));
  EXPECT_EQ(stats(0).max_value, std::string(1, '\1'));
  EXPECT_EQ(stats(0).null_count, 2);
  // i8: signed
  EXPECT_EQ(stats(1).min_value, LE32(-128));
  EXPECT_EQ(stats(1).max_value, LE32(127));
  EXPECT_EQ(stats(1).null_count, 3);
  EXPECT_EQ(stats(3).min_value, LE32(-2147483648));
  EXPECT_EQ(stats(4).min_value, LE64(INT64_MIN));
  EXPECT_EQ(stats(4).max_value, LE64(INT64_MAX));
  EXPECT_EQ(stats(4).null_count, 0);
  // f: NaN ignored; a zero max is written as +0.0.
  EXPECT_EQ(stats(5).min_value, Raw(-3.25f));
  EXPECT_EQ(stats(5).max_value, Raw(1.5f));
  // d: -0.0, inf, 2.5e-300, 0.0: min -0.0 written as -0.0, max inf.
  EXPECT_EQ(stats(6).min_value, Raw(-0.0));
  EXPECT_EQ(stats(6).max_value, Raw(std::numeric_limits<double>::infinity()));
  // dec9 / dec18 in their physical little-endian form.
  EXPECT_EQ(stats(7).min_value, LE32(-999999999));
  EXPECT_EQ(stats(7).max_value, LE32(12345));
  EXPECT_EQ(stats(8).min_value, LE64(-999999999999999999));
  // dec38: signed, big-endian two's complement of 16 bytes.
  ASSERT_EQ(stats(9).min_value->size(), 16u);
  EXPECT_EQ(static_cast<uint8_t>((*stats(9).min_value)[0]), 0xb4);  // -(10^38 - 1)
  EXPECT_EQ(static_cast<uint8_t>((*stats(9).max_value)[0]), 0x4b);  // 10^38 - 1
  // dec20: 9 bytes; min -1 = ff..ff, max 12345678901234567890 = 00 ab 54 a9 8c eb 1f 0a d2.
  EXPECT_EQ(stats(10).min_value, std::string(9, '\xff'));
  EXPECT_EQ(stats(10).max_value, std::string("\x00\xab\x54\xa9\x8c\xeb\x1f\x0a\xd2", 9));
  // s: unsigned bytewise, so the 'é' string sorts after "hello".
  EXPECT_EQ(stats(11).min_value, "");
  EXPECT_EQ(stats(11).max_value, "h\xc3\xa9llo \xf0\x9f\x98\x80");
  EXPECT_EQ(stats(11).null_count, 1);
  EXPECT_EQ(stats(12).max_value, "abc");
  // ts
  EXPECT_EQ(stats(14).min_value, LE64(-1));
  EXPECT_EQ(stats(14).max_value, LE64(1700000000123456));
}

TEST_F(ParquetWriterTest, AllNaNFloatColumnHasNoBounds) {
  SchemaPtr schema = MakeSchema({Field("f", DataType::Float64())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch,
                       BatchFromJson(schema, R"([{"f": "NaN"}, {"f": null}, {"f": "NaN"}])"));
  const std::string path = Write("nan.parquet", schema, {batch});
  const Statistics s = *Chunk(Footer(path), 0, 0).statistics;
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_EQ(s.null_count, 1);
  ExpectOracleRows(path, {batch});
}

TEST_F(ParquetWriterTest, PositiveZeroMinimumIsWrittenAsNegativeZero) {
  SchemaPtr schema = MakeSchema({Field("f", DataType::Float32())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, R"([[0.0], [2.0]])"));
  const Statistics s = *Chunk(Footer(Write("zero.parquet", schema, {batch})), 0, 0).statistics;
  EXPECT_EQ(s.min_value, Raw(-0.0f));
  EXPECT_EQ(s.max_value, Raw(2.0f));
}

SchemaPtr NestedSchema() {
  DataTypePtr point =
      DataType::Struct({Field("x", DataType::Int32()), Field("label", DataType::String(), false)});
  return MakeSchema({
      Field("id", DataType::Int64(), false),
      Field("tags", DataType::Array(DataType::String())),
      Field("req_list", DataType::Array(DataType::Int32(), false), false),
      Field("st", DataType::Struct(
                      {Field("a", DataType::Int32()),
                       Field("inner", DataType::Struct({Field("z", DataType::Boolean())}))})),
      Field("points", DataType::Array(point)),
      Field("m", DataType::Map(DataType::String(), DataType::Array(point))),
      Field("mm", DataType::Map(DataType::Int32(),
                                DataType::Map(DataType::String(), DataType::Int64(), false))),
      Field("nested", DataType::Array(DataType::Array(DataType::Int64()))),
  });
}

constexpr const char* kNestedRows = R"([
  {"id": 1, "tags": ["a", null, ""], "req_list": [1, 2],
   "st": {"a": 1, "inner": {"z": true}},
   "points": [{"x": 1, "label": "p"}, null, {"x": null, "label": ""}],
   "m": [["k1", [{"x": 5, "label": "q"}, null]], ["k2", null], ["k3", []]],
   "mm": [[1, [["a", 1], ["b", 2]]], [2, []], [3, null]],
   "nested": [[1, 2], [], null, [null, 3]]},
  {"id": 2, "tags": null, "req_list": [], "st": null, "points": null, "m": null, "mm": null,
   "nested": null},
  {"id": 3, "tags": [], "req_list": [3], "st": {"a": null, "inner": null}, "points": [],
   "m": [], "mm": [], "nested": []},
  {"id": 4, "tags": [null], "req_list": [4, 5, 6], "st": {"a": 7, "inner": {"z": null}},
   "points": [null], "m": [["", [{"x": 9, "label": "r"}]]], "mm": [[7, [["c", 3]]]],
   "nested": [[null]]}
])";

TEST_F(ParquetWriterTest, NestedTypesWithNullsAtEveryLevelReadBackByDuckDb) {
  SchemaPtr schema = NestedSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, kNestedRows));
  const std::string path = Write("nested.parquet", schema, {batch, batch, batch});
  ExpectOracleRows(path, {batch, batch, batch});

  const FileMetaData m = Footer(path);
  // tags: optional group (LIST) { repeated group list { optional binary element (STRING) } }
  EXPECT_EQ(m.schema[2].name, "tags");
  EXPECT_EQ(m.schema[2].converted_type, ConvertedType::kList);
  EXPECT_EQ(m.schema[2].logical_type->kind, LogicalType::Kind::kList);
  EXPECT_EQ(m.schema[3].name, "list");
  EXPECT_EQ(m.schema[3].repetition_type, Repetition::kRepeated);
  EXPECT_EQ(m.schema[4].name, "element");
  EXPECT_EQ(m.schema[4].repetition_type, Repetition::kOptional);
  EXPECT_EQ(Chunk(m, 0, 1).path_in_schema, (std::vector<std::string>{"tags", "list", "element"}));
  // tags entries per copy: 3 + 1 (null list) + 1 (empty) + 1 = 6; nulls: 1 + 1 + 1 + 1.
  EXPECT_EQ(Chunk(m, 0, 1).num_values, 18);
  EXPECT_EQ(Chunk(m, 0, 1).statistics->null_count, 12);
}

TEST_F(ParquetWriterTest, MapSchemaIsKeyValueGroupWithRequiredKey) {
  SchemaPtr schema =
      MakeSchema({Field("m", DataType::Map(DataType::String(), DataType::Int32(), false), false)});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch,
                       BatchFromJson(schema, R"([{"m": [["a", 1], ["b", 2]]}, {"m": []}])"));
  const std::string path = Write("map.parquet", schema, {batch});
  ExpectOracleRows(path, {batch});
  const FileMetaData m = Footer(path);
  ASSERT_EQ(m.schema.size(), 5u);
  EXPECT_EQ(m.schema[1].repetition_type, Repetition::kRequired);
  EXPECT_EQ(m.schema[1].converted_type, ConvertedType::kMap);
  EXPECT_EQ(m.schema[2].name, "key_value");
  EXPECT_EQ(m.schema[2].num_children, 2);
  EXPECT_EQ(m.schema[3].name, "key");
  EXPECT_EQ(m.schema[3].repetition_type, Repetition::kRequired);
  EXPECT_EQ(m.schema[4].name, "value");
  EXPECT_EQ(m.schema[4].repetition_type, Repetition::kRequired);
}

TEST_F(ParquetWriterTest, ZeroRowsWritesSchemaOnlyFile) {
  SchemaPtr schema = NestedSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr empty, BatchFromJson(schema, "[]"));
  const std::string path = Write("empty.parquet", schema, {empty});
  ExpectOracleRows(path, {});
  const FileMetaData m = Footer(path);
  EXPECT_EQ(m.num_rows, 0);
  EXPECT_TRUE(m.row_groups.empty());
}

TEST_F(ParquetWriterTest, SmallRowGroupSizeSplitsBatchesIntoManyRowGroups) {
  SchemaPtr schema = NestedSchema();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, kNestedRows));
  std::vector<RecordBatchPtr> batches(5, batch);
  ParquetWriterOptions options;
  options.row_group_size_rows = 3;
  options.codec = CompressionCodec::kZstd;
  const std::string path = Write("groups.parquet", schema, batches, options);
  ExpectOracleRows(path, batches);
  const FileMetaData m = Footer(path);
  ASSERT_EQ(m.row_groups.size(), 7u);
  int64_t rows = 0;
  int64_t expected_offset = 4;
  for (size_t g = 0; g < m.row_groups.size(); ++g) {
    const RowGroup& group = m.row_groups[g];
    rows += group.num_rows;
    EXPECT_EQ(group.ordinal, static_cast<int16_t>(g));
    EXPECT_EQ(group.file_offset, expected_offset);
    int64_t compressed = 0;
    for (const ColumnChunk& c : group.columns) {
      const ColumnMetaData& md = *c.meta_data;
      const int64_t first = md.dictionary_page_offset.value_or(md.data_page_offset);
      EXPECT_EQ(c.file_offset, first);
      EXPECT_EQ(first, expected_offset);
      expected_offset += md.total_compressed_size;
      compressed += md.total_compressed_size;
    }
    EXPECT_EQ(group.total_compressed_size, compressed);
  }
  EXPECT_EQ(rows, 20);
}

TEST_F(ParquetWriterTest, DictionaryFallsBackToPlainWhenItOutgrowsItsLimit) {
  SchemaPtr schema =
      MakeSchema({Field("s", DataType::String()), Field("n", DataType::Int64(), false)});
  std::string json = "[";
  for (int i = 0; i < 20000; ++i) {
    json += i ? ",{\"s\": " : "{\"s\": ";
    if (i % 17 == 0) {
      json += "null";
    } else {
      json += "\"value-";
      json += std::to_string(i % 5000);
      json += '"';
    }
    json += ", \"n\": ";
    json += std::to_string(i % 3);
    json += '}';
  }
  json += "]";
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, json));
  ParquetWriterOptions options;
  options.dictionary_page_size_limit = int64_t{16} * 1024;
  options.page_size_bytes = 4096;
  const std::string path = Write("fallback.parquet", schema, {batch}, options);
  ExpectOracleRows(path, {batch});
  const FileMetaData m = Footer(path);
  const auto& s = Chunk(m, 0, 0);
  EXPECT_NE(std::find(s.encodings.begin(), s.encodings.end(), Encoding::kRleDictionary),
            s.encodings.end());
  EXPECT_NE(std::find(s.encodings.begin(), s.encodings.end(), Encoding::kPlain), s.encodings.end());
  EXPECT_EQ(s.statistics->min_value, "value-0");
  EXPECT_EQ(s.statistics->max_value, "value-999");
  EXPECT_EQ(s.statistics->null_count, 1177);
  // n stays dictionary encoded with 3 entries, every page.
  const auto& n = Chunk(m, 0, 1);
  EXPECT_TRUE(n.dictionary_page_offset.has_value());

  // Walk the pages of s: a dictionary page, then several data pages, the later ones PLAIN.
  ASSERT_OK_AND_ASSIGN(std::string bytes, fs_.ReadFile(path));
  int64_t pos = *s.dictionary_page_offset;
  const int64_t end = pos + s.total_compressed_size;
  int dictionary_pages = 0;
  int dict_data_pages = 0;
  int plain_data_pages = 0;
  while (pos < end) {
    int64_t header_size = 0;
    ASSERT_OK_AND_ASSIGN(PageHeader h,
                         DecodePageHeader(std::string_view(bytes).substr(pos), &header_size));
    if (h.type == PageType::kDictionaryPage) {
      ++dictionary_pages;
    } else if (h.data_page_header->encoding == Encoding::kPlain) {
      ++plain_data_pages;
    } else {
      EXPECT_EQ(plain_data_pages, 0) << "dictionary page after a PLAIN one";
      ++dict_data_pages;
    }
    pos += header_size + h.compressed_page_size;
  }
  EXPECT_EQ(pos, end);
  EXPECT_EQ(dictionary_pages, 1);
  EXPECT_GE(dict_data_pages, 1);
  EXPECT_GE(plain_data_pages, 2);
}

TEST_F(ParquetWriterTest, PagesEndAtTheValueLimit) {
  // Three distinct values dictionary-encode to one bit each: only the value limit ends pages.
  SchemaPtr schema = MakeSchema({Field("n", DataType::Int32())});
  std::string json = "[";
  for (int i = 0; i < 2500; ++i) {
    json += i > 0 ? ",[" : "[";
    json += i % 7 == 0 ? std::string("null") : std::to_string(i % 3);
    json += ']';
  }
  json += "]";
  const std::string path = WriteInPagesOf1000("value_limit.parquet", schema, json);
  const FileMetaData m = Footer(path);
  const auto& n = Chunk(m, 0, 0);
  EXPECT_TRUE(n.dictionary_page_offset.has_value());
  std::vector<int32_t> entries;
  for (const PageHeader& h : DataPageHeaders(path, n)) {
    entries.push_back(h.data_page_header->num_values);
  }
  EXPECT_EQ(entries, (std::vector<int32_t>{1000, 1000, 500}));
}

TEST_F(ParquetWriterTest, ColumnsOfDistinctValuesDropTheDictionaryAfterTheFirstPage) {
  // u (int64), d (double) and s (string) hold a distinct value per row, with nulls; k repeats
  // three values. With pages of 1000 rows, the first page shows the dictionary does not pay for
  // u, d and s, which are then PLAIN from their first page on; k keeps its dictionary.
  SchemaPtr schema = MakeSchema({Field("u", DataType::Int64()), Field("d", DataType::Float64()),
                                 Field("s", DataType::String()), Field("k", DataType::String())});
  std::string json = "[";
  for (int i = 0; i < 2500; ++i) {
    json += i > 0 ? ",[" : "[";
    json += i % 11 == 0 ? std::string("null") : std::to_string(int64_t{1000003} * i);
    json += ", " + (i % 13 == 0 ? std::string("null") : std::to_string(i) + ".25");
    json += ", " + (i % 7 == 0 ? std::string("null") : "\"id-" + std::to_string(i) + "\"");
    json += ", \"k" + std::to_string(i % 3) + "\"]";
  }
  json += "]";
  const std::string path = WriteInPagesOf1000("distinct.parquet", schema, json);
  const FileMetaData m = Footer(path);
  for (size_t column = 0; column < 4; ++column) {
    const ColumnMetaData& c = Chunk(m, 0, column);
    const bool dictionary = column == 3;
    EXPECT_EQ(c.dictionary_page_offset.has_value(), dictionary) << column;
    EXPECT_EQ(std::find(c.encodings.begin(), c.encodings.end(), Encoding::kRleDictionary) !=
                  c.encodings.end(),
              dictionary)
        << column;
    std::vector<int32_t> entries;
    for (const PageHeader& h : DataPageHeaders(path, c)) {
      EXPECT_EQ(h.data_page_header->encoding,
                dictionary ? Encoding::kRleDictionary : Encoding::kPlain)
          << column;
      entries.push_back(h.data_page_header->num_values);
    }
    EXPECT_EQ(entries, (std::vector<int32_t>{1000, 1000, 500})) << column;
  }
  const Statistics& u = *Chunk(m, 0, 0).statistics;
  int64_t bound = 0;
  std::memcpy(&bound, u.min_value->data(), 8);
  EXPECT_EQ(bound, 1000003);
  std::memcpy(&bound, u.max_value->data(), 8);
  EXPECT_EQ(bound, int64_t{1000003} * 2499);
  EXPECT_EQ(u.null_count, 228);
  EXPECT_EQ(Chunk(m, 0, 2).statistics->min_value, "id-1");
  EXPECT_EQ(Chunk(m, 0, 2).statistics->max_value, "id-999");
}

TEST_F(ParquetWriterTest, ChunkEndingWithinItsFirstPageKeepsItsDictionary) {
  // Distinct values, but the chunk ends before a page fills: no first-page check happens.
  SchemaPtr schema = MakeSchema({Field("u", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, "[[5], [null], [7], [9]]"));
  const std::string path = Write("small.parquet", schema, {batch});
  ExpectOracleRows(path, {batch});
  EXPECT_TRUE(Chunk(Footer(path), 0, 0).dictionary_page_offset.has_value());
}

TEST_F(ParquetWriterTest, PagesMixingBatchesWithAndWithoutNullsKeepEveryLevel) {
  // One page gets a batch without nulls (its levels kept as one run), then one with nulls, then
  // one without; a void column's levels are all 0; the single row batches are runs below 8.
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int64()), Field("v", DataType::Null())});
  auto rows = [](int from, int to, bool nulls) {
    std::string json = "[";
    for (int i = from; i < to; ++i) {
      json += i > from ? ",[" : "[";
      json += nulls && i % 3 == 0 ? std::string("null") : std::to_string(i % 5);
      json += ", null]";
    }
    return json + "]";
  };
  std::vector<RecordBatchPtr> batches;
  for (const auto& [from, to, nulls] : std::vector<std::tuple<int, int, bool>>{{0, 100, false},
                                                                               {100, 200, true},
                                                                               {200, 300, false},
                                                                               {300, 301, false},
                                                                               {301, 302, true}}) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, rows(from, to, nulls)));
    batches.push_back(batch);
  }
  const std::string path = Write("mixed_levels.parquet", schema, batches);
  ExpectOracleRows(path, batches);
  const FileMetaData m = Footer(path);
  EXPECT_EQ(Chunk(m, 0, 0).statistics->null_count, 33);
  EXPECT_EQ(Chunk(m, 0, 1).statistics->null_count, 302);

  // A lone row without nulls.
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr one, BatchFromJson(schema, rows(1, 2, false)));
  const std::string single = Write("single_row.parquet", schema, {one});
  ExpectOracleRows(single, {one});
}

TEST_F(ParquetWriterTest, StringsDifferingAnywhereStayDistinctAndBoundTheChunk) {
  // Strings of 0 to 20 bytes, each also with one byte changed at every position, some with bytes
  // above 0x7F (which order after ASCII), many sharing their first 8 bytes; each written twice,
  // with and without a dictionary.
  std::vector<std::string> values;
  for (size_t length = 0; length <= 20; ++length) {
    const std::string base(length, 'm');
    values.push_back(base);
    for (size_t at = 0; at < length; ++at) {
      for (const char* change : {"a", "z", "\xc3\xa9"}) {
        values.push_back(base.substr(0, at) + change + base.substr(at + 1));
      }
    }
  }
  std::string json = "[";
  for (int copy = 0; copy < 2; ++copy) {
    for (const std::string& value : values) {
      json += json.size() > 1 ? ",[\"" : "[\"";
      json += value + "\"]";
    }
  }
  json += "]";
  SchemaPtr schema = MakeSchema({Field("s", DataType::String())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, json));
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  for (const bool dictionary : {true, false}) {
    ParquetWriterOptions options;
    options.enable_dictionary = dictionary;
    const std::string path =
        Write(dictionary ? "strings_dictionary.parquet" : "strings_plain.parquet", schema, {batch},
              options);
    ExpectOracleRows(path, {batch});
    const FileMetaData m = Footer(path);
    const Statistics& stats = *Chunk(m, 0, 0).statistics;
    EXPECT_EQ(stats.min_value, *min) << dictionary;
    EXPECT_EQ(stats.max_value, *max) << dictionary;
  }
}

TEST_F(ParquetWriterTest, VoidColumnIsAnAllNullUnknownColumn) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32()), Field("v", DataType::Null())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, "[[1, null], [2, null]]"));
  const std::string path = Write("void.parquet", schema, {batch});
  ExpectOracleRows(path, {batch});
  const FileMetaData m = Footer(path);
  EXPECT_EQ(m.schema[2].logical_type->kind, LogicalType::Kind::kUnknown);
  const Statistics s = *Chunk(m, 0, 1).statistics;
  EXPECT_EQ(s.null_count, 2);
  EXPECT_FALSE(s.min_value.has_value());
}

TEST_F(ParquetWriterTest, KeyValueMetadataAndCreatedByAreInTheFooter) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, "[[1]]"));
  ParquetWriterOptions options;
  options.key_value_metadata = {{"k1", "v1"}, {"k2", ""}};
  const FileMetaData m = Footer(Write("kv.parquet", schema, {batch}, options));
  ASSERT_EQ(m.key_value_metadata.size(), 2u);
  EXPECT_EQ(m.key_value_metadata[0].key, "k1");
  EXPECT_EQ(m.key_value_metadata[0].value, "v1");
  EXPECT_EQ(m.created_by, "tributary version 0.1.0");
}

TEST_F(ParquetWriterTest, NullInRequiredColumnFailsAndPublishesNothing) {
  SchemaPtr nullable = MakeSchema({Field("a", DataType::Int32())});
  SchemaPtr required = MakeSchema({Field("a", DataType::Int32(), false)});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(nullable, "[[1], [null]]"));
  const std::string path = Path("required.parquet");
  ASSERT_RAISES(InvalidArgument, WriteParquetFile(fs_, path, {batch}, required));
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(path));
  EXPECT_FALSE(exists);
}

TEST_F(ParquetWriterTest, NullElementInRequiredListFails) {
  SchemaPtr nullable = MakeSchema({Field("a", DataType::Array(DataType::Int32()))});
  SchemaPtr required = MakeSchema({Field("a", DataType::Array(DataType::Int32(), false))});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(nullable, "[[[1, null]]]"));
  ASSERT_RAISES(InvalidArgument, WriteParquetFile(fs_, Path("x.parquet"), {batch}, required));
}

TEST_F(ParquetWriterTest, BatchOfAnotherTypeIsRejectedAndWriterStaysFailed) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32())});
  SchemaPtr other = MakeSchema({Field("a", DataType::Int64())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(other, "[[1]]"));
  ASSERT_OK_AND_ASSIGN(auto out,
                       fs_.OpenOutputStream(Path("t.parquet"), storage::WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(std::move(out), schema));
  ASSERT_RAISES(InvalidArgument, writer->Write(*batch));
  ASSERT_RAISES(InvalidArgument, writer->Close());
  ASSERT_OK_AND_ASSIGN(bool exists, fs_.Exists(Path("t.parquet")));
  EXPECT_FALSE(exists);
}

TEST_F(ParquetWriterTest, ExistingFileIsNotReplaced) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, "[[1]]"));
  const std::string path = Write("once.parquet", schema, {batch});
  ASSERT_RAISES(AlreadyExists, WriteParquetFile(fs_, path, {batch}, schema));
  ExpectOracleRows(path, {batch});
}

TEST_F(ParquetWriterTest, ManyPagesOfNestedValuesKeepRecordsWhole) {
  SchemaPtr schema = MakeSchema({Field("l", DataType::Array(DataType::Int64())),
                                 Field("s", DataType::Struct({Field("t", DataType::String())}))});
  std::string json = "[";
  for (int i = 0; i < 3000; ++i) {
    json += i ? ",{\"l\": [" : "{\"l\": [";
    for (int j = 0; j < i % 7; ++j) {
      json += j ? "," : "";
      json += std::to_string(i * 10 + j);
    }
    json += "], \"s\": ";
    if (i % 5 == 0) {
      json += "null}";
    } else {
      json += "{\"t\": \"r";
      json += std::to_string(i);
      json += "\"}}";
    }
  }
  json += "]";
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, json));
  ParquetWriterOptions options;
  options.page_size_bytes = 512;
  options.enable_dictionary = false;
  const std::string path = Write("pages.parquet", schema, {batch}, options);
  ExpectOracleRows(path, {batch});
}

TEST_F(ParquetWriterTest, RowCountsAreReported) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, BatchFromJson(schema, "[[1], [2], [3]]"));
  ASSERT_OK_AND_ASSIGN(auto out,
                       fs_.OpenOutputStream(Path("n.parquet"), storage::WriteMode::kPutIfAbsent));
  ParquetWriterOptions options;
  options.row_group_size_rows = 2;
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(std::move(out), schema, options));
  ASSERT_OK(writer->Write(*batch));
  EXPECT_EQ(writer->NumRows(), 3);
  EXPECT_EQ(writer->NumRowGroups(), 1);
  ASSERT_OK(writer->Close());
  EXPECT_EQ(writer->NumRowGroups(), 2);
  ASSERT_OK_AND_ASSIGN(storage::FileInfo info, fs_.GetFileInfo(Path("n.parquet")));
  EXPECT_EQ(info.size, writer->BytesWritten());
}

}  // namespace
}  // namespace tributary::parquet

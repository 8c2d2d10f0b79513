// Property test: random schemas (every type, nesting, nulls at every level, empty strings and
// lists, 0 rows, many row groups) and random data written by tributary's Parquet writer read
// back identically by tributary's reader and by DuckDB, with SNAPPY and with ZSTD.

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;

class RandomData {
 public:
  explicit RandomData(uint32_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }

  DataTypePtr Type(int depth) {
    const int pick = Uniform(0, depth >= 3 ? 13 : 16);
    switch (pick) {
      case 0:
        return DataType::Boolean();
      case 1:
        return DataType::Int8();
      case 2:
        return DataType::Int16();
      case 3:
        return DataType::Int32();
      case 4:
        return DataType::Int64();
      case 5:
        return DataType::Float32();
      case 6:
        return DataType::Float64();
      case 7: {
        const int precision = Uniform(1, 38);
        return DataType::Decimal(precision, Uniform(0, precision)).ValueOrDie();
      }
      case 8:
      case 9:
        return DataType::String();
      case 10:
        return DataType::Binary();
      case 11:
        return DataType::Date();
      case 12:
        return DataType::Timestamp();
      case 13:
        return DataType::TimestampNtz();
      case 14: {
        std::vector<Field> fields;
        const int n = Uniform(1, 3);
        for (int i = 0; i < n; ++i) {
          fields.emplace_back("f" + std::to_string(i), Type(depth + 1), Chance(70));
        }
        return DataType::Struct(std::move(fields));
      }
      case 15:
        return DataType::Array(Type(depth + 1), Chance(70));
      default: {
        // Map keys: a primitive DuckDB can hash, never null, unique per map.
        const DataTypePtr key = Chance(50) ? DataType::String() : DataType::Int64();
        return DataType::Map(key, Type(depth + 1), Chance(70));
      }
    }
  }

  void Value(ColumnBuilder& b, const DataType& type, bool nullable, int row) {
    if (nullable && Chance(15)) {
      b.AppendNull();
      return;
    }
    switch (type.Id()) {
      case TypeId::kBoolean:
        b.AppendBoolean(Chance(50));
        return;
      case TypeId::kInt8:
        b.AppendInt(Uniform(-128, 127));
        return;
      case TypeId::kInt16:
        b.AppendInt(Uniform(-32768, 32767));
        return;
      case TypeId::kInt32:
        b.AppendInt(Chance(5) ? INT32_MIN : Uniform(-1000000, 1000000));
        return;
      case TypeId::kInt64:
        b.AppendInt(Chance(5)
                        ? INT64_MAX
                        : std::uniform_int_distribution<int64_t>(-(1LL << 60), 1LL << 60)(rng_));
        return;
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        const int pick = Uniform(0, 20);
        const double value = pick == 0   ? std::nan("")
                             : pick == 1 ? -std::numeric_limits<double>::infinity()
                             : pick == 2 ? -0.0
                                         : std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
        b.AppendDouble(value);
        return;
      }
      case TypeId::kDecimal: {
        columnar::Int128 value = 0;
        const int digits = Uniform(0, type.Precision());
        for (int i = 0; i < digits; ++i) {
          value = value * 10 + Uniform(0, 9);
        }
        b.AppendDecimal(Chance(50) ? -value : value);
        return;
      }
      case TypeId::kString:
      case TypeId::kBinary: {
        static const char* kPieces[] = {"", "a", "héllo", "😈", "x y", "\"q\"", "long-ish text"};
        std::string text;
        const int n = Uniform(0, 3);
        for (int i = 0; i < n; ++i) {
          text += kPieces[Uniform(0, 6)];
        }
        if (row % 7 == 0) {
          text += std::to_string(row);  // enough distinct values to end some dictionaries
        }
        b.AppendBytes(text);
        return;
      }
      case TypeId::kDate:
        b.AppendInt(Uniform(-719162, 2932896));  // 0001-01-01 .. 9999-12-31
        return;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        b.AppendInt(std::uniform_int_distribution<int64_t>(-62135596800000000LL,
                                                           253402300799999999LL)(rng_));
        return;
      case TypeId::kStruct:
        for (size_t i = 0; i < type.Fields().size(); ++i) {
          Value(b.Child(static_cast<int>(i)), *type.Fields()[i].Type(), type.Fields()[i].Nullable(),
                row);
        }
        b.AppendStruct();
        return;
      case TypeId::kArray: {
        const int n = Uniform(0, 3);
        for (int i = 0; i < n; ++i) {
          Value(b.Child(0), *type.ElementType(), type.ContainsNull(), row);
        }
        b.AppendArray();
        return;
      }
      case TypeId::kMap: {
        const int n = Uniform(0, 3);
        for (int i = 0; i < n; ++i) {
          if (type.KeyType()->Id() == TypeId::kString) {
            b.Child(0).AppendBytes("k" + std::to_string(i));
          } else {
            b.Child(0).AppendInt(i * 1000 + Uniform(0, 999));
          }
          Value(b.Child(1), *type.ValueType(), type.ContainsNull(), row);
        }
        b.AppendMap();
        return;
      }
      default:
        b.AppendNull();
    }
  }

 private:
  std::mt19937 rng_;
};

class ParquetRoundTripPropertyTest : public ::testing::TestWithParam<CompressionCodec> {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tributary-roundtrip-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_P(ParquetRoundTripPropertyTest, RandomSchemasReadBackIdenticallyByUsAndDuckDB) {
  storage::LocalFileSystem fs;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    RandomData random(seed * 7919 + static_cast<uint32_t>(GetParam()));
    std::vector<Field> fields;
    const int num_fields = random.Uniform(1, 6);
    for (int i = 0; i < num_fields; ++i) {
      fields.emplace_back("c" + std::to_string(i), random.Type(0), random.Chance(75));
    }
    auto schema = std::make_shared<const columnar::Schema>(fields);
    const int rows = seed % 4 == 0 ? 0 : random.Uniform(1, 2500);
    std::vector<std::unique_ptr<ColumnBuilder>> builders;
    for (const Field& field : fields) {
      builders.push_back(std::make_unique<ColumnBuilder>(field.Type()));
    }
    for (int r = 0; r < rows; ++r) {
      for (size_t c = 0; c < fields.size(); ++c) {
        random.Value(*builders[c], *fields[c].Type(), fields[c].Nullable(), r);
      }
    }
    std::vector<columnar::ColumnPtr> columns;
    for (auto& builder : builders) {
      ASSERT_OK_AND_ASSIGN(auto column, builder->Finish());
      columns.push_back(column);
    }
    ASSERT_OK_AND_ASSIGN(auto batch, columnar::RecordBatch::Make(schema, rows, columns));
    const std::vector<std::string> expected = columnar::CanonicalJsonRows(*batch);

    ParquetWriterOptions options;
    options.codec = GetParam();
    options.row_group_size_rows = random.Uniform(100, 1000);
    options.page_size_bytes = 4096;
    options.dictionary_page_size_limit = random.Chance(50) ? 512 : 1 << 20;
    const std::string path = dir_ + "/seed-" + std::to_string(seed) + ".parquet";
    ASSERT_OK(WriteParquetFile(fs, path, {batch}, schema, options));

    ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs, path));
    std::vector<std::string> ours;
    for (int g = 0; g < reader->NumRowGroups(); ++g) {
      ASSERT_OK_AND_ASSIGN(auto group, reader->ReadRowGroup(g));
      for (auto& row : columnar::CanonicalJsonRows(*group)) {
        ours.push_back(std::move(row));
      }
    }
    const std::string label =
        "seed " + std::to_string(seed) + ", schema " + schema->AsStruct()->ToString();
    EXPECT_EQ(ours, expected) << label;
    ASSERT_OK_AND_ASSIGN(auto duckdb, testing::OracleCatParquet(path));
    EXPECT_EQ(duckdb, expected) << label;
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, ParquetRoundTripPropertyTest,
                         ::testing::Values(CompressionCodec::kSnappy, CompressionCodec::kZstd),
                         [](const auto& codec_info) {
                           return std::string(CompressionCodecName(codec_info.param));
                         });

}  // namespace
}  // namespace tributary::parquet

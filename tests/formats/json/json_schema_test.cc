// Schema hints (nested paths) and JSON schema inference rules.

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "formats/json/json_reader.h"
#include "formats/json/shaped_json_lines.h"
#include "formats/text/schema_hints.h"
#include "formats/text/schema_inference.h"
#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::json {
namespace {

using columnar::DataType;

std::string SchemaText(const columnar::Schema& schema) {
  return schema.AsStruct()->ToString();
}

TEST(SchemaHintsTest, RejectsHintsNotSeparatedByCommas) {
  ASSERT_RAISES(InvalidArgument, text::ParseSchemaHints("a INT b INT"));
}

TEST(SchemaHintsTest, OverridesAddsAndDescendsNestedPaths) {
  columnar::Schema schema({{"a", DataType::String()},
                           {"b", DataType::Struct({{"c", DataType::Int64()}})},
                           {"arr", DataType::Array(DataType::Struct({{"x", DataType::String()}}))},
                           {"m", DataType::Map(DataType::String(), DataType::String())}});
  ASSERT_OK_AND_ASSIGN(auto hints,
                       text::ParseSchemaHints("a INT, b.c STRING, B.new DATE, arr.element.x "
                                              "DOUBLE, m.value BIGINT, d MAP<STRING,BIGINT>, "
                                              "e.f.g BOOLEAN"));
  ASSERT_EQ(hints.size(), 7u);
  ASSERT_OK_AND_ASSIGN(auto hinted, text::ApplySchemaHints(schema, hints));
  EXPECT_EQ(SchemaText(*hinted),
            "struct<a:int,b:struct<c:string,new:date>,arr:array<struct<x:double>>,"
            "m:map<string,bigint>,d:map<string,bigint>,e:struct<f:struct<g:boolean>>>");
  ASSERT_OK_AND_ASSIGN(auto through_leaf, text::ParseSchemaHints("a.x INT"));
  ASSERT_RAISES(InvalidArgument, text::ApplySchemaHints(schema, through_leaf));
}

TEST(SchemaInferenceRulesTest, WidensLikeSpark) {
  using text::WidenInferredTypes;
  EXPECT_EQ(WidenInferredTypes(DataType::Int64(), DataType::Float64())->ToString(), "double");
  EXPECT_EQ(WidenInferredTypes(DataType::Int32(), DataType::Int64())->ToString(), "bigint");
  EXPECT_EQ(WidenInferredTypes(DataType::Null(), DataType::Boolean())->ToString(), "boolean");
  EXPECT_EQ(WidenInferredTypes(DataType::Boolean(), DataType::Int64())->ToString(), "string");
  EXPECT_EQ(WidenInferredTypes(DataType::String(), DataType::Int64())->ToString(), "string");
  EXPECT_EQ(WidenInferredTypes(*DataType::Decimal(20, 0), DataType::Int64())->ToString(),
            "decimal(20,0)");
  EXPECT_EQ(WidenInferredTypes(*DataType::Decimal(5, 2), DataType::Int32())->ToString(),
            "decimal(12,2)");
  EXPECT_EQ(WidenInferredTypes(DataType::Date(), DataType::Timestamp())->ToString(), "timestamp");
  EXPECT_EQ(
      WidenInferredTypes(DataType::Struct({{"b", DataType::Int64()}}),
                         DataType::Struct({{"a", DataType::Float64()}, {"b", DataType::Float64()}}))
          ->ToString(),
      "struct<a:double,b:double>");
  EXPECT_EQ(
      WidenInferredTypes(DataType::Array(DataType::Int64()), DataType::Array(DataType::String()))
          ->ToString(),
      "array<string>");
  EXPECT_EQ(WidenInferredTypes(DataType::Array(DataType::Int64()), DataType::Int64())->ToString(),
            "string");
}

std::string Infer(const std::vector<std::string_view>& files, const JsonReadOptions& options) {
  auto schema = InferJsonSchemaFromText(files, options);
  return schema.ok() ? SchemaText(**schema) : schema.status().ToString();
}

JsonReadOptions Typed() {
  JsonReadOptions options;
  options.infer_column_types = true;
  return options;
}

TEST(JsonSchemaInferenceTest, InfersSparkTypesSortedByName) {
  EXPECT_EQ(Infer({R"({"z":1,"y":1.5,"x":true,"w":"s","v":null,"u":{"b":1,"a":[1,2.5]},"t":[]})"},
                  Typed()),
            "struct<t:array<string>,u:struct<a:array<double>,b:bigint>,v:string,w:string,"
            "x:boolean,y:double,z:bigint>");
}

TEST(JsonSchemaInferenceTest, WidensAcrossRecordsAndFiles) {
  EXPECT_EQ(Infer({"{\"a\":1,\"b\":1}\n{\"a\":2.5,\"b\":\"x\"}\n",
                   "{\"c\":{\"d\":1}}\n"
                   "{\"c\":{\"e\":null}}\n{\"c\":null,\"a\":null}"},
                  Typed()),
            "struct<a:double,b:string,c:struct<d:bigint,e:string>>");
  EXPECT_EQ(Infer({"{\"a\":{\"x\":1}}\n{\"a\":[1]}\n{\"b\":[{\"p\":1},{\"q\":\"s\"}]}"}, Typed()),
            "struct<a:string,b:array<struct<p:bigint,q:string>>>");
  EXPECT_EQ(Infer({R"({"big":18446744073709551615})", R"({"big":1})"}, Typed()),
            "struct<big:decimal(20,0)>");
}

// Numbers beyond int64, uint64 and double no longer make their record corrupt (and skipped): an
// integer infers as Spark's BIG_INTEGER does (decimal of its digits, double past 38), a float
// that overflows as double.
TEST(JsonSchemaInferenceTest, NumbersOutOfEveryRangeInferAsSparkDoes) {
  EXPECT_EQ(Infer({R"({"big":1234567890123456789012,"neg":-9223372036854775809,"huge":1e400,)"
                   R"("vast":99999999999999999999999999999999999999999,"x":1})",
                   R"({"big":1,"x":2})"},
                  Typed()),
            "struct<big:decimal(22,0),huge:double,neg:decimal(19,0),vast:double,x:bigint>");
}

TEST(JsonSchemaInferenceTest, EveryLeafIsStringWithoutInferColumnTypes) {
  EXPECT_EQ(Infer({R"({"a":1,"b":{"c":true,"d":[1.5]},"e":{}})"}, {}),
            "struct<a:string,b:struct<c:string,d:array<string>>,e:string>");
}

TEST(JsonSchemaInferenceTest, TimestampsAndDatesOnlyWhenAsked) {
  const std::string_view data =
      R"({"ts":"2024-01-02T03:04:05Z","d":"2024-01-02","n":"2024","s":"12:00"})";
  EXPECT_EQ(Infer({data}, Typed()), "struct<d:string,n:string,s:string,ts:string>");
  JsonReadOptions options = Typed();
  options.infer_timestamp = true;
  EXPECT_EQ(Infer({data}, options), "struct<d:string,n:string,s:string,ts:timestamp>");
  options.date_format = "yyyy-MM-dd";
  EXPECT_EQ(Infer({data}, options), "struct<d:date,n:string,s:string,ts:timestamp>");
  EXPECT_EQ(Infer({data, R"({"ts":"2024-01-02"})"}, options),
            "struct<d:date,n:string,s:string,ts:timestamp>");
}

TEST(JsonSchemaInferenceTest, TimestampFormatInfersTextMatchingThePattern) {
  JsonReadOptions options = Typed();
  options.timestamp_format = "dd/MM/yyyy HH:mm";
  const std::string_view data =
      R"({"a":"31/01/2024 10:20","b":"2024-01-31T10:20:00","c":"31/02/2024 10:20"})";
  // b is ISO text, which the set pattern does not read; c is not a calendar date.
  EXPECT_EQ(Infer({data}, options), "struct<a:timestamp,b:string,c:string>");
  options = Typed();
  options.date_format = "d.M.yyyy";
  EXPECT_EQ(Infer({R"({"a":"1.2.2024","b":"2024-02-01"})"}, options), "struct<a:date,b:string>");
  options = Typed();
  options.infer_timestamp = true;
  EXPECT_EQ(Infer({R"({"a":"2024-13-01T00:00"})"}, options), "struct<a:string>");
}

TEST(JsonSchemaInferenceTest, PrefersDecimalInfersDecimalsFromTheText) {
  JsonReadOptions options = Typed();
  options.prefers_decimal = true;
  EXPECT_EQ(
      Infer({R"({"a":1.50,"b":0.001,"c":1e3,"d":"12.5","e":"x","f":1e-50,"i":[7,2.25]})"}, options),
      "struct<a:decimal(3,2),b:decimal(3,3),c:decimal(4,0),d:decimal(3,1),e:string,"
      "f:double,i:array<decimal(22,2)>>");
  EXPECT_EQ(Infer({R"({"a":1.5})", R"({"a":123.25})"}, options), "struct<a:decimal(5,2)>");
  options.prefers_decimal = false;
  EXPECT_EQ(Infer({R"({"a":1.50,"d":"12.5"})"}, options), "struct<a:double,d:string>");
}

TEST(JsonSchemaInferenceTest, LenientRecordsAreInferred) {
  EXPECT_EQ(Infer({"{'a':NaN,'b':'x'}"}, Typed()), "struct<a:string,b:string>");
  JsonReadOptions options = Typed();
  options.allow_unquoted_field_names = true;
  EXPECT_EQ(Infer({"{a:1}"}, options), "struct<a:bigint>");
}

TEST(JsonSchemaInferenceTest, SkipsCorruptRecordsAndNeverAddsCorruptColumn) {
  EXPECT_EQ(Infer({"{\"a\":1}\n{\"a\":\n[{\"b\":true}]\n\"scalar\"\n"}, Typed()),
            "struct<a:bigint,b:boolean>");
}

TEST(JsonSchemaInferenceTest, SchemaHintsOverrideInferredTypes) {
  JsonReadOptions options = Typed();
  options.schema_hints = "a INT, s.c DECIMAL(5,2), extra STRING";
  EXPECT_EQ(Infer({R"({"a":1,"s":{"c":1.5,"d":2}})"}, options),
            "struct<a:int,s:struct<c:decimal(5,2),d:bigint>,extra:string>");
  options.infer_column_types = false;
  EXPECT_EQ(Infer({R"({"a":1,"s":{"c":1.5,"d":2}})"}, options),
            "struct<a:int,s:struct<c:decimal(5,2),d:string>,extra:string>");
}

TEST(JsonSchemaInferenceTest, MultiLineInfersFromTheWholeFile) {
  JsonReadOptions options = Typed();
  options.multi_line = true;
  EXPECT_EQ(Infer({"[\n{\"a\": 1},\n{\"b\": \"x\"}\n]"}, options), "struct<a:bigint,b:string>");
}

// Records after the first of a shape skip the DOM (record_shape.h) when they repeat it;
// whatever a line holds, inferring it there gives what inferring it first (through the DOM)
// gives.
void ExpectShapedRecordsInferAsFirst(const std::string& first,
                                     const std::vector<std::string>& lines) {
  for (const bool timestamps : {false, true}) {
    JsonReadOptions options = Typed();
    options.infer_timestamp = timestamps;
    for (const std::string& line : lines) {
      std::string first_then_line = first + "\n";
      first_then_line += line + "\n";
      std::string line_then_first = line + "\n";
      line_then_first += first + "\n";
      EXPECT_EQ(Infer({first_then_line}, options), Infer({line_then_first}, options)) << line;
      // The line twice after the first: the second time it is matched against its own shape.
      EXPECT_EQ(Infer({first_then_line + line + "\n"}, options),
                Infer({line_then_first + line + "\n"}, options))
          << line;
    }
  }
}

TEST(JsonSchemaInferenceTest, RecordsOfARepeatedNestedShapeInferAsTheFirstRecordDoes) {
  ExpectShapedRecordsInferAsFirst(kNestedShapeFirstRecord, NestedShapeVariantLines());
  EXPECT_EQ(Infer({kNestedShapeFirstRecord + "\n" + NestedShapeVariantLines()[2] + "\n"}, Typed()),
            "struct<a:array<string>,e:array<string>,l:array<struct<k:string,v:double>>,n:string,"
            "o:struct<x:bigint,y:string>,s:string>");
}

// Records of more shapes than the fast path keeps, mixed: the schema does not depend on their
// order (which decides what the fast path matches and what it learns), and holds every field.
TEST(JsonSchemaInferenceTest, RecordsOfManyShapesMixedInferTheSameSchemaInAnyOrder) {
  std::vector<std::string> lines = MixedShapeLines(20261203, 400);
  const auto joined = [](const std::vector<std::string>& some) {
    std::string text;
    for (const std::string& line : some) {
      text += line + "\n";
    }
    return text;
  };
  for (const bool timestamps : {false, true}) {
    JsonReadOptions options = Typed();
    options.infer_timestamp = timestamps;
    std::vector<std::string> sorted = lines;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::string> reversed(lines.rbegin(), lines.rend());
    const std::string schema = Infer({joined(lines)}, options);
    EXPECT_EQ(schema, Infer({joined(sorted)}, options));
    EXPECT_EQ(schema, Infer({joined(reversed)}, options));
    EXPECT_NE(schema.find("error:struct<code:string,retry:boolean>"), std::string::npos) << schema;
    EXPECT_NE(schema.find("user:struct<id:bigint,plan:string>"), std::string::npos) << schema;
  }
}

// Files inferred on several threads give the schema of one thread: the trees of the files are
// merged in file order, the sample ends at the same file (sampleSize.numBytes), and the error
// is the first one a serial pass meets.
TEST(JsonSchemaInferenceTest, FilesInferredOnThreadsGiveTheSchemaOfOneThread) {
  testing::TempDir dir;
  storage::LocalFileSystem fs;
  const std::vector<std::string> lines = MixedShapeLines(20261204, 600);
  std::vector<std::string> paths;
  std::vector<int64_t> sizes;
  for (size_t file = 0; file < 12; ++file) {
    std::string text;
    for (size_t line = file * 50; line < (file + 1) * 50; ++line) {
      text += lines[line] + "\n";
    }
    if (file == 0) {
      // The first file takes longest, so while one thread infers it another takes every later
      // file, past the sample's end too, before that end is known.
      const std::string once = text;
      for (int copy = 1; copy < 400; ++copy) {
        text += once;
      }
    }
    if (file == 9) {
      text += R"({"late":{"x":1.5,"tags":[true]}})"
              "\n";
    }
    paths.push_back(dir.Join(fmt::format("part-{:02}.json", file)));
    ASSERT_OK(fs.WriteFile(paths.back(), text, storage::WriteMode::kPutIfAbsent));
    sizes.push_back(static_cast<int64_t>(text.size()));
  }
  const auto infer = [&](const std::vector<std::string>& files, const JsonReadOptions& options,
                         int threads) {
    auto schema = InferJsonSchema(fs, files, options, threads);
    return schema.ok() ? SchemaText(**schema) : schema.status().ToString();
  };
  JsonReadOptions options = Typed();
  const std::string all = infer(paths, options, 1);
  EXPECT_NE(all.find("late:struct<tags:array<boolean>,x:double>"), std::string::npos) << all;
  for (const int threads : {2, 3, 8}) {
    SCOPED_TRACE(threads);
    EXPECT_EQ(infer(paths, options, threads), all);
    // The sample ends after file 5: its bytes and those before reach the limit.
    JsonReadOptions limited = options;
    limited.sample_size_bytes = sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4] + 1;
    const std::string sampled = infer(paths, limited, 1);
    EXPECT_EQ(sampled.find("late:"), std::string::npos) << sampled;
    EXPECT_EQ(infer(paths, limited, threads), sampled);
    limited = options;
    limited.sample_size_files = 9;
    EXPECT_EQ(infer(paths, limited, threads), infer(paths, limited, 1));
    // A missing file: the error when the sample reaches it, nothing when it ends before.
    std::vector<std::string> with_missing = paths;
    with_missing[7] = dir.Join("missing.json");
    const std::string failed = infer(with_missing, options, 1);
    EXPECT_NE(failed.find("missing.json"), std::string::npos) << failed;
    EXPECT_EQ(infer(with_missing, options, threads), failed);
    limited = options;
    limited.sample_size_files = 7;
    EXPECT_EQ(infer(with_missing, limited, threads), infer(paths, limited, 1));
  }
}

TEST(JsonSchemaInferenceTest, RecordsOfARepeatedFlatShapeInferAsTheFirstRecordDoes) {
  const std::string& first = kFlatShapeFirstRecord;
  const auto with = FlatShapeRecordWith;
  ExpectShapedRecordsInferAsFirst(first, FlatShapeVariantLines());
  JsonReadOptions options = Typed();
  EXPECT_EQ(Infer({first + "\n" + with("\"y\"", "12345678901234567890", "1.5")}, options),
            "struct<b:boolean,d:double,i:decimal(20,0),n:string,s:string>");
  // Too big for any integer type: a decimal of its digits, as Spark's BIG_INTEGER.
  EXPECT_EQ(Infer({first + "\n" + with("1", "123456789012345678901", "1.5")}, options),
            "struct<b:boolean,d:double,i:decimal(21,0),n:string,s:string>");
  EXPECT_EQ(Infer({first + "\n" + with("\"y\"", "{\"x\":1}", "1.5")}, options),
            "struct<b:boolean,d:double,i:string,n:string,s:string>");
  EXPECT_EQ(
      Infer({first + "\n\n" + R"({"s":"y","s":1,"i":1,"d":1.5,"b":false,"n":null})"}, options),
      "struct<b:boolean,d:double,i:bigint,n:string,s:string>");
}

}  // namespace
}  // namespace tributary::json

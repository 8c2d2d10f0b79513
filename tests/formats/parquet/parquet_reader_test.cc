// Bad input for the Parquet reader: hand-built files, each broken in one way, must give a
// Corruption error naming the file, row group, column and byte offset; never a crash.

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/compression.h"
#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/rle_encoding.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/memory_limit.h"
#include "support/status_matchers.h"

namespace tributary::parquet {
namespace {

std::string Le32(uint32_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 4);
}

std::string Page(PageHeader header, const std::string& body) {
  if (header.compressed_page_size == 0) {
    header.compressed_page_size = static_cast<int32_t>(body.size());
  }
  if (header.uncompressed_page_size == 0) {
    header.uncompressed_page_size = static_cast<int32_t>(body.size());
  }
  std::string out;
  EncodePageHeader(header, &out);
  return out + body;
}

std::string DataPage(int32_t num_values, Encoding encoding, const std::string& body,
                     int32_t compressed_size = 0, int32_t uncompressed_size = 0) {
  PageHeader header;
  header.type = PageType::kDataPage;
  header.compressed_page_size = compressed_size;
  header.uncompressed_page_size = uncompressed_size;
  header.data_page_header.emplace();
  header.data_page_header->num_values = num_values;
  header.data_page_header->encoding = encoding;
  return Page(header, body);
}

std::string DictionaryPage(int32_t num_values, const std::string& body) {
  PageHeader header;
  header.type = PageType::kDictionaryPage;
  header.dictionary_page_header.emplace();
  header.dictionary_page_header->num_values = num_values;
  return Page(header, body);
}

// One optional (or `required`) column `x` of `type` in one row group whose chunk is `pages`.
std::string BuildFile(PhysicalType type, const std::string& pages, int64_t num_values,
                      int32_t codec = 0, bool dictionary = false, bool string = false,
                      bool required = false) {
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement leaf;
  leaf.name = "x";
  leaf.type = type;
  leaf.repetition_type = required ? Repetition::kRequired : Repetition::kOptional;
  if (string) {
    leaf.converted_type = ConvertedType::kUtf8;
  }
  md.schema = {root, leaf};
  md.num_rows = num_values;
  RowGroup group;
  group.num_rows = num_values;
  ColumnChunk chunk;
  chunk.file_offset = 4;
  ColumnMetaData& cmd = chunk.meta_data.emplace();
  cmd.type = type;
  cmd.encodings = {Encoding::kPlain, Encoding::kRle};
  cmd.path_in_schema = {"x"};
  cmd.codec = codec;
  cmd.num_values = num_values;
  cmd.total_compressed_size = static_cast<int64_t>(pages.size());
  cmd.total_uncompressed_size = static_cast<int64_t>(pages.size());
  cmd.data_page_offset = 4;
  if (dictionary) {
    cmd.dictionary_page_offset = 4;
  }
  group.columns.push_back(chunk);
  md.row_groups.push_back(group);
  std::string footer;
  EncodeFileMetaData(md, &footer);
  return "PAR1" + pages + footer + Le32(static_cast<uint32_t>(footer.size())) + "PAR1";
}

// Definition levels for `defs` (max level 1), length-prefixed as in data page v1.
std::string DefLevels(const std::vector<int16_t>& defs) {
  RleBitPackedEncoder encoder(1);
  encoder.PutBatch(defs);
  std::string levels = encoder.Flush();
  return Le32(static_cast<uint32_t>(levels.size())) + levels;
}

std::string Int32Plain(std::initializer_list<int32_t> values) {
  std::string out;
  for (int32_t v : values) {
    out += Le32(static_cast<uint32_t>(v));
  }
  return out;
}

class ParquetReaderBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tributary-parquet-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `bytes` and reads every row group; returns the rows or the error.
  Result<std::vector<std::string>> Read(const std::string& bytes) {
    path_ = dir_ + "/file-" + std::to_string(counter_++) + ".parquet";
    TRIBUTARY_RETURN_NOT_OK(fs_.WriteFile(path_, bytes, storage::WriteMode::kReplace));
    TRIBUTARY_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(fs_, path_));
    std::vector<std::string> rows;
    for (int g = 0; g < reader->NumRowGroups(); ++g) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->ReadRowGroup(g));
      for (auto& row : columnar::CanonicalJsonRows(*batch)) {
        rows.push_back(row);
      }
    }
    return rows;
  }

  // Asserts a Corruption error whose message names the file and each of `parts`.
  void ExpectCorruption(const std::string& bytes, std::initializer_list<std::string> parts) {
    auto result = Read(bytes);
    ASSERT_RAISES(Corruption, result);
    const std::string& message = result.status().Message();
    EXPECT_NE(message.find(path_), std::string::npos) << message;
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in " << message;
    }
  }

  storage::LocalFileSystem fs_;
  std::string dir_;
  std::string path_;
  int counter_ = 0;
};

TEST_F(ParquetReaderBadInputTest, HandBuiltFileReadsBack) {
  const std::string pages =
      DataPage(3, Encoding::kPlain, DefLevels({1, 0, 1}) + Int32Plain({7, -9}));
  ASSERT_OK_AND_ASSIGN(auto rows, Read(BuildFile(PhysicalType::kInt32, pages, 3)));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"x":7})", R"({"x":null})", R"({"x":-9})"}));
}

TEST_F(ParquetReaderBadInputTest, RejectsTruncatedFile) {
  const std::string file = BuildFile(
      PhysicalType::kInt32, DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({1})), 1);
  ExpectCorruption(file.substr(0, file.size() - 3), {"not a Parquet file"});
  ExpectCorruption(file.substr(0, 7), {"too short"});
}

TEST_F(ParquetReaderBadInputTest, RejectsBadMagic) {
  std::string file = BuildFile(PhysicalType::kInt32,
                               DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({1})), 1);
  file[0] = 'X';
  ExpectCorruption(file, {"magic", "PAR1"});
}

TEST_F(ParquetReaderBadInputTest, RejectsFooterLengthPastTheFile) {
  std::string file = BuildFile(PhysicalType::kInt32,
                               DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({1})), 1);
  const std::string huge = Le32(1u << 30);
  file.replace(file.size() - 8, 4, huge);
  ExpectCorruption(file, {"footer length 1073741824", "runs past the start"});
}

TEST_F(ParquetReaderBadInputTest, RejectsCorruptFooter) {
  std::string file = BuildFile(PhysicalType::kInt32,
                               DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({1})), 1);
  uint32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 8, 4);
  // Cut the footer short in the middle: its structs now run past their end.
  file.replace(file.size() - 8, 4, Le32(footer_length / 2));
  file.erase(file.size() - 8 - footer_length, footer_length - footer_length / 2);
  ExpectCorruption(file, {"footer at byte", "thrift"});
}

TEST_F(ParquetReaderBadInputTest, RejectsPageHeaderThatLiesAboutItsSize) {
  const std::string body = DefLevels({1}) + Int32Plain({1});
  const std::string pages =
      DataPage(1, Encoding::kPlain, body, /*compressed_size=*/4000, /*uncompressed_size=*/4000);
  ExpectCorruption(BuildFile(PhysicalType::kInt32, pages.substr(0, pages.size()), 1),
                   {"row group 0", "column x", "byte 4", "page header claims 4000 bytes"});
}

// Consecutive dictionary-encoded pages are taken from the dictionary together; a PLAIN page
// between them (a writer's fallback) keeps its place in the order.
TEST_F(ParquetReaderBadInputTest, DictionaryAndPlainPagesReadBackInOrder) {
  const auto dictionary_page = [](const std::vector<int16_t>& defs,
                                  std::initializer_list<int32_t> indexes) {
    RleBitPackedEncoder encoder(2);
    for (int32_t index : indexes) {
      encoder.Put(index);
    }
    return DataPage(static_cast<int32_t>(defs.size()), Encoding::kRleDictionary,
                    DefLevels(defs) + std::string(1, '\x02') + encoder.Flush());
  };
  const std::string pages = DictionaryPage(3, Int32Plain({10, 20, 30})) +
                            dictionary_page({1, 0, 1}, {2, 0}) + dictionary_page({1}, {1}) +
                            DataPage(2, Encoding::kPlain, DefLevels({0, 1}) + Int32Plain({5})) +
                            dictionary_page({1, 1}, {2, 2}) + dictionary_page({0}, {});
  ASSERT_OK_AND_ASSIGN(auto rows,
                       Read(BuildFile(PhysicalType::kInt32, pages, 9, 0, /*dictionary=*/true)));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"x":30})", R"({"x":null})", R"({"x":10})",
                                            R"({"x":20})", R"({"x":null})", R"({"x":5})",
                                            R"({"x":30})", R"({"x":30})", R"({"x":null})"}));
}

TEST_F(ParquetReaderBadInputTest, RejectsDictionaryIndexOutsideTheDictionary) {
  // Dictionary of two values; the data page refers to index 5.
  RleBitPackedEncoder indexes(3);
  indexes.Put(0);
  indexes.Put(5);
  const std::string data = DefLevels({1, 1}) + std::string(1, '\x03') + indexes.Flush();
  const std::string pages =
      DictionaryPage(2, Int32Plain({10, 20})) + DataPage(2, Encoding::kRleDictionary, data);
  ExpectCorruption(BuildFile(PhysicalType::kInt32, pages, 2, 0, /*dictionary=*/true),
                   {"row group 0", "column x", "dictionary index 5", "2 entries"});
}

TEST_F(ParquetReaderBadInputTest, RejectsLevelRunPastThePage) {
  // A bit-packed run header promising 8 levels with no bytes behind it.
  const std::string levels = std::string(1, '\x03');
  const std::string body = Le32(1) + levels + Int32Plain({1});
  ExpectCorruption(BuildFile(PhysicalType::kInt32, DataPage(3, Encoding::kPlain, body), 3),
                   {"row group 0", "column x", "levels"});
}

TEST_F(ParquetReaderBadInputTest, RejectsLevelsLengthPastThePage) {
  const std::string body = Le32(1000) + Int32Plain({1});
  ExpectCorruption(BuildFile(PhysicalType::kInt32, DataPage(1, Encoding::kPlain, body), 1),
                   {"column x", "levels claim 1000 bytes"});
}

TEST_F(ParquetReaderBadInputTest, RejectsTooFewValuesForThePage) {
  const std::string body = DefLevels({1, 1, 1}) + Int32Plain({1});
  ExpectCorruption(BuildFile(PhysicalType::kInt32, DataPage(3, Encoding::kPlain, body), 3),
                   {"column x", "3 PLAIN values need 12 bytes"});
}

TEST_F(ParquetReaderBadInputTest, RejectsDecompressionFailure) {
  const std::string garbage = "\xff\xff\xff\xff\x0f not snappy at all";
  const std::string pages = DataPage(1, Encoding::kPlain, garbage, 0, /*uncompressed_size=*/64);
  ExpectCorruption(BuildFile(PhysicalType::kInt32, pages, 1, /*codec=SNAPPY*/ 1),
                   {"row group 0", "column x", "byte"});
}

// Sizes a file declares are checked before they size an allocation. Each case runs in a child
// whose address space may grow by 512 MiB: trusting the 2^31-1 bytes or values it declares
// aborts the child (std::bad_alloc) instead of returning Corruption.
constexpr int64_t kHostileHeadroom = int64_t{512} << 20;
constexpr int32_t kHuge = std::numeric_limits<int32_t>::max();
constexpr int kCorruptionAsExpected = 0;
constexpr int kWrongOutcome = 1;

class ParquetDeclaredSizeTest : public ParquetReaderBadInputTest,
                                public ::testing::WithParamInterface<CompressionCodec> {
 protected:
  // Reads `bytes` in a memory-limited child: whether it failed with Corruption naming the file,
  // a byte offset and each of `parts`.
  int ReadInChild(const std::string& bytes, std::initializer_list<std::string> parts) {
    return testing::RunUnderMemoryLimit(kHostileHeadroom, [&] {
      auto result = Read(bytes);
      if (!result.status().IsCorruption()) {
        return kWrongOutcome;
      }
      const std::string& message = result.status().Message();
      bool named =
          message.find(path_) != std::string::npos && message.find("byte ") != std::string::npos;
      for (const std::string& part : parts) {
        named = named && message.find(part) != std::string::npos;
      }
      if (!named) {
        std::fprintf(stderr, "unexpected message: %s\n", message.c_str());
      }
      return named ? kCorruptionAsExpected : kWrongOutcome;
    });
  }
};

// A page whose body is one compressed value but whose header declares a 2^31-1-byte page: the
// codec's own header (or its largest expansion of the body) refutes it.
TEST_P(ParquetDeclaredSizeTest, RejectsPageDeclaringHugeUncompressedSize) {
  const CompressionCodec codec = GetParam();
  std::string body;
  ASSERT_OK(Compress(codec, DefLevels({1}) + Int32Plain({7}), &body));
  const std::string pages =
      DataPage(1, Encoding::kPlain, body, static_cast<int32_t>(body.size()), kHuge);
  const std::string file =
      BuildFile(PhysicalType::kInt32, pages, 1, CompressionCodecToThrift(codec));
  EXPECT_EQ(ReadInChild(file, {"row group 0", "column x", std::string(CompressionCodecName(codec)),
                               std::to_string(kHuge)}),
            kCorruptionAsExpected);
  // The same page with its true size reads back.
  const std::string honest = DataPage(1, Encoding::kPlain, body, static_cast<int32_t>(body.size()),
                                      static_cast<int32_t>(DefLevels({1}).size() + 4));
  ASSERT_OK_AND_ASSIGN(
      auto rows, Read(BuildFile(PhysicalType::kInt32, honest, 1, CompressionCodecToThrift(codec))));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"x":7})"}));
}

INSTANTIATE_TEST_SUITE_P(Codecs, ParquetDeclaredSizeTest,
                         ::testing::Values(CompressionCodec::kSnappy, CompressionCodec::kGzip,
                                           CompressionCodec::kZstd, CompressionCodec::kLz4Raw,
                                           CompressionCodec::kLz4Hadoop, CompressionCodec::kBrotli),
                         [](const ::testing::TestParamInfo<CompressionCodec>& codec) {
                           return std::string(CompressionCodecName(codec.param)) == "LZ4_RAW"
                                      ? std::string("LZ4Raw")
                                      : std::string(CompressionCodecName(codec.param));
                         });

// A dictionary page of 8 bytes declaring 2^31-1 strings: each needs a 4-byte length at least.
TEST_F(ParquetDeclaredSizeTest, RejectsDictionaryDeclaringHugeValueCount) {
  const std::string pages =
      DictionaryPage(kHuge, Le32(2) + "ok") +
      DataPage(1, Encoding::kRleDictionary, DefLevels({1}) + std::string("\x01\x02\x00", 3));
  const std::string file =
      BuildFile(PhysicalType::kByteArray, pages, 1, 0, /*dictionary=*/true, /*string=*/true);
  EXPECT_EQ(ReadInChild(file, {"row group 0", "column x", std::to_string(kHuge)}),
            kCorruptionAsExpected);
}

// A footer declaring 2^40 values (and rows) for a chunk of one page of one value: the request's
// buffers grow as pages prove their values, so the chunk's end is found, not a 4 TiB buffer.
TEST_F(ParquetDeclaredSizeTest, RejectsFooterDeclaringHugeValueCount) {
  constexpr int64_t kValues = int64_t{1} << 40;
  const std::string ints = DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({7}));
  EXPECT_EQ(ReadInChild(BuildFile(PhysicalType::kInt32, ints, kValues),
                        {"column x", "column chunk ends after 1 of 1099511627776 values"}),
            kCorruptionAsExpected);
  const std::string strings = DataPage(1, Encoding::kPlain, DefLevels({1}) + Le32(2) + "ok");
  EXPECT_EQ(ReadInChild(BuildFile(PhysicalType::kByteArray, strings, kValues, 0, false, true),
                        {"column x", "column chunk ends after 1 of 1099511627776 values"}),
            kCorruptionAsExpected);
}

// A page (and footer) declaring 2^31-1 values whose level or index runs hold one group: the runs
// are counted before the levels or indexes are allocated.
TEST_F(ParquetDeclaredSizeTest, RejectsPageDeclaringMoreValuesThanItsRunsHold) {
  const std::string levels = DataPage(kHuge, Encoding::kPlain, DefLevels({1}) + Int32Plain({7}));
  EXPECT_EQ(ReadInChild(BuildFile(PhysicalType::kInt32, levels, kHuge),
                        {"column x", "levels hold 8 values, the page declares 2147483647"}),
            kCorruptionAsExpected);
  // A required column: the page's count goes straight to its dictionary indexes.
  RleBitPackedEncoder indexes(1);
  indexes.Put(0);
  const std::string pages =
      DictionaryPage(1, Int32Plain({10})) +
      DataPage(kHuge, Encoding::kRleDictionary, std::string(1, '\x01') + indexes.Flush());
  EXPECT_EQ(ReadInChild(BuildFile(PhysicalType::kInt32, pages, kHuge, 0, /*dictionary=*/true, false,
                                  /*required=*/true),
                        {"column x", "dictionary indexes hold 8 values, the page 2147483647"}),
            kCorruptionAsExpected);
}

// A DELTA_BINARY_PACKED stream of one value under a page of three is refuted by the stream's own
// count before the page's count sizes the values.
TEST_F(ParquetReaderBadInputTest, RejectsDeltaPageDeclaringMoreValuesThanItsStream) {
  std::string stream;
  const std::vector<int32_t> one = {5};
  EncodeDeltaBinaryPacked(one, &stream);
  const std::string pages =
      DataPage(3, Encoding::kDeltaBinaryPacked, DefLevels({1, 1, 1}) + stream);
  ExpectCorruption(BuildFile(PhysicalType::kInt32, pages, 3),
                   {"row group 0", "column x", "the stream declares 1 values, the page 3"});
}

TEST_F(ParquetReaderBadInputTest, RejectsInvalidUtf8InStrings) {
  const std::string values = Le32(2) + "ok" + Le32(2) + "\xff\xfe";
  const std::string pages = DataPage(2, Encoding::kPlain, DefLevels({1, 1}) + values);
  ExpectCorruption(BuildFile(PhysicalType::kByteArray, pages, 2, 0, false, /*string=*/true),
                   {"column x", "value 1", "UTF-8"});
}

TEST_F(ParquetReaderBadInputTest, RejectsChunkPastTheEndOfTheFile) {
  std::string file = BuildFile(PhysicalType::kInt32,
                               DataPage(1, Encoding::kPlain, DefLevels({1}) + Int32Plain({1})), 1);
  // Rewrite the footer with a chunk size larger than the file.
  FileMetaData md;
  uint32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 8, 4);
  ASSERT_OK_AND_ASSIGN(md, DecodeFileMetaData(std::string_view(file).substr(
                               file.size() - 8 - footer_length, footer_length)));
  md.row_groups[0].columns[0].meta_data->total_compressed_size = 1 << 20;
  std::string footer;
  EncodeFileMetaData(md, &footer);
  file = file.substr(0, file.size() - 8 - footer_length) + footer +
         Le32(static_cast<uint32_t>(footer.size())) + "PAR1";
  ExpectCorruption(file, {"row group 0", "column x", "runs past the end"});
}

TEST_F(ParquetReaderBadInputTest, RejectsRowCountDisagreement) {
  const std::string pages = DataPage(2, Encoding::kPlain, DefLevels({1, 1}) + Int32Plain({1, 2}));
  std::string file = BuildFile(PhysicalType::kInt32, pages, 2);
  FileMetaData md;
  uint32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 8, 4);
  ASSERT_OK_AND_ASSIGN(md, DecodeFileMetaData(std::string_view(file).substr(
                               file.size() - 8 - footer_length, footer_length)));
  md.row_groups[0].num_rows = 5;
  std::string footer;
  EncodeFileMetaData(md, &footer);
  file = file.substr(0, file.size() - 8 - footer_length) + footer +
         Le32(static_cast<uint32_t>(footer.size())) + "PAR1";
  ExpectCorruption(file, {"column x", "2 rows, the row group says 5"});
}

}  // namespace
}  // namespace tributary::parquet

namespace tributary::parquet {
namespace {

// Old writers encoded levels with the deprecated BIT_PACKED encoding: no length, MSB first.
TEST_F(ParquetReaderBadInputTest, ReadsLegacyBitPackedLevels) {
  // Definition levels 1,0,1 at bit width 1, MSB first: 0b101xxxxx.
  const std::string levels(1, static_cast<char>(0xA0));
  PageHeader header;
  header.type = PageType::kDataPage;
  header.data_page_header.emplace();
  header.data_page_header->num_values = 3;
  header.data_page_header->encoding = Encoding::kPlain;
  header.data_page_header->definition_level_encoding = Encoding::kBitPacked;
  const std::string pages = Page(header, levels + Int32Plain({7, -9}));
  ASSERT_OK_AND_ASSIGN(auto rows, Read(BuildFile(PhysicalType::kInt32, pages, 3)));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"x":7})", R"({"x":null})", R"({"x":-9})"}));
}

}  // namespace
}  // namespace tributary::parquet

namespace tributary::parquet {
namespace {

// Streaming reads (RowGroupReader): one chunk of a dictionary page, a dictionary-encoded page,
// a PLAIN page (the fallback) and a data page v2, with nulls in each, read in batches of every
// size from 1 to past the row count. Batch boundaries fall inside pages, on page boundaries and
// across several pages; every size must give the same rows.
TEST_F(ParquetReaderBadInputTest, BatchesCutPagesAnywhere) {
  RleBitPackedEncoder index_encoder(2);
  index_encoder.PutBatch(std::vector<int32_t>{2, 0, 1});
  PageHeader dictionary_page;
  dictionary_page.type = PageType::kDataPage;
  dictionary_page.data_page_header.emplace();
  dictionary_page.data_page_header->num_values = 5;
  dictionary_page.data_page_header->encoding = Encoding::kRleDictionary;
  RleBitPackedEncoder v2_levels(1);
  v2_levels.PutBatch(std::vector<int16_t>{0, 1, 1});
  const std::string v2_defs = v2_levels.Flush();
  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.data_page_header_v2.emplace();
  v2.data_page_header_v2->num_values = 3;
  v2.data_page_header_v2->num_nulls = 1;
  v2.data_page_header_v2->num_rows = 3;
  v2.data_page_header_v2->encoding = Encoding::kPlain;
  v2.data_page_header_v2->definition_levels_byte_length = static_cast<int32_t>(v2_defs.size());
  v2.data_page_header_v2->is_compressed = false;
  const std::string pages =
      DictionaryPage(3, Int32Plain({10, 20, 30})) +
      Page(dictionary_page,
           DefLevels({1, 0, 1, 1, 0}) + std::string(1, '\2') + index_encoder.Flush()) +
      DataPage(4, Encoding::kPlain, DefLevels({1, 1, 0, 1}) + Int32Plain({1, 2, 3})) +
      Page(v2, v2_defs + Int32Plain({7, 8}));
  const std::string file = BuildFile(PhysicalType::kInt32, pages, 12, 0, /*dictionary=*/true);
  const std::vector<std::string> expected = {R"({"x":30})",   R"({"x":null})", R"({"x":10})",
                                             R"({"x":20})",   R"({"x":null})", R"({"x":1})",
                                             R"({"x":2})",    R"({"x":null})", R"({"x":3})",
                                             R"({"x":null})", R"({"x":7})",    R"({"x":8})"};
  ASSERT_OK_AND_ASSIGN(auto whole, Read(file));
  EXPECT_EQ(whole, expected);
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs_, path_));
  for (int64_t max_rows = 1; max_rows <= 13; ++max_rows) {
    SCOPED_TRACE(max_rows);
    ASSERT_OK_AND_ASSIGN(auto group, reader->OpenRowGroup(0, {}, max_rows));
    EXPECT_TRUE(group->Bounded());
    std::vector<std::string> rows;
    int64_t batches = 0;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto batch, group->Next());
      if (batch == nullptr) {
        break;
      }
      ++batches;
      EXPECT_EQ(batch->NumRows(), std::min(max_rows, 12 - static_cast<int64_t>(rows.size())));
      for (auto& row : columnar::CanonicalJsonRows(*batch)) {
        rows.push_back(row);
      }
    }
    EXPECT_EQ(rows, expected);
    EXPECT_EQ(batches, (12 + max_rows - 1) / max_rows);
    EXPECT_EQ(group->RowsLeft(), 0);
  }
}

// Pages are read one at a time: a header larger than the first read (page statistics of long
// values) and a body larger than it still read whole.
TEST_F(ParquetReaderBadInputTest, PageHeaderAndBodyLargerThanTheFirstRead) {
  const std::string long_value(20000, 'v');
  PageHeader header;
  header.type = PageType::kDataPage;
  header.data_page_header.emplace();
  header.data_page_header->num_values = 3;
  header.data_page_header->encoding = Encoding::kPlain;
  header.data_page_header->statistics.emplace().min_value = std::string(9000, 'a');
  const std::string body = DefLevels({1, 0, 1}) + Le32(20000) + long_value + Le32(1) + "w";
  const std::string pages =
      Page(header, body) + DataPage(1, Encoding::kPlain, DefLevels({1}) + Le32(1) + "z");
  ASSERT_OK_AND_ASSIGN(
      auto rows, Read(BuildFile(PhysicalType::kByteArray, pages, 4, 0, false, /*string=*/true)));
  EXPECT_EQ(rows, (std::vector<std::string>{"{\"x\":\"" + long_value + "\"}", R"({"x":null})",
                                            R"({"x":"w"})", R"({"x":"z"})"}));
}

// A corrupt page is reported by the batch that reaches it; the batches before it are fine.
TEST_F(ParquetReaderBadInputTest, CorruptPageFailsTheBatchThatReachesIt) {
  const std::string pages =
      DataPage(2, Encoding::kPlain, DefLevels({1, 1}) + Int32Plain({1, 2})) +
      DataPage(2, Encoding::kRleDictionary, DefLevels({1, 1}) + std::string(1, '\1') + "\x04\x01");
  const std::string file = BuildFile(PhysicalType::kInt32, pages, 4);
  ASSERT_RAISES(Corruption, Read(file));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs_, path_));
  ASSERT_OK_AND_ASSIGN(auto group, reader->OpenRowGroup(0, {}, 2));
  ASSERT_OK_AND_ASSIGN(auto first, group->Next());
  EXPECT_EQ(columnar::CanonicalJsonRows(*first),
            (std::vector<std::string>{R"({"x":1})", R"({"x":2})"}));
  auto second = group->Next();
  ASSERT_RAISES(Corruption, second);
  EXPECT_NE(second.status().Message().find("without a dictionary page"), std::string::npos)
      << second.status().Message();
}

}  // namespace
}  // namespace tributary::parquet

namespace tributary::parquet {
namespace {

using columnar::DataType;
using columnar::Field;

// The rows of row group `index` read in batches of at most `max_rows`, checking each batch's
// size.
std::vector<std::string> StreamedRows(const ParquetFileReader& reader, int index,
                                      const std::vector<std::string>& columns, int64_t max_rows) {
  auto group = reader.OpenRowGroup(index, columns, max_rows);
  EXPECT_TRUE(group.ok()) << group.status().ToString();
  std::vector<std::string> rows;
  while (group.ok()) {
    auto batch = (*group)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) {
      break;
    }
    EXPECT_LE((*batch)->NumRows(), max_rows);
    EXPECT_GT((*batch)->NumRows(), 0);
    for (auto& row : columnar::CanonicalJsonRows(**batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// A file of our writer with tiny pages (so each column's pages hold different numbers of
// values), a dictionary that overflows into PLAIN pages, nulls, a struct and three row groups:
// every batch size gives, concatenated, the rows ReadRowGroup gives, for all columns and for a
// projection.
TEST_F(ParquetReaderBadInputTest, BatchesConcatenateToTheRowGroup) {
  auto schema = testing::MakeSchema(
      {Field("id", DataType::Int64(), false), Field("name", DataType::String()),
       Field("score", DataType::Float64()), Field("flag", DataType::Boolean()),
       Field("s",
             DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::String())}))});
  std::string json = "[";
  for (int i = 0; i < 7000; ++i) {
    json += i ? "," : "";
    json += "{\"id\": " + std::to_string(i);
    if (i % 5 != 0) {
      // Few distinct names first (dictionary pages), then too many for the dictionary (PLAIN).
      json += ", \"name\": \"n" + std::to_string(i < 2000 ? i % 13 : i) + "\"";
    }
    if (i % 3 != 0) {
      json += ", \"score\": " + std::to_string(i) + ".5";
    }
    json += std::string(", \"flag\": ") + (i % 7 == 0 ? "null" : i % 2 ? "true" : "false");
    if (i % 11 != 0) {
      json += ", \"s\": {\"a\": " + (i % 4 ? std::to_string(i) : "null") + ", \"b\": \"b" +
              std::to_string(i % 17) + "\"}";
    }
    json += "}";
  }
  json += "]";
  ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema, json));
  ParquetWriterOptions options;
  options.page_size_bytes = 700;
  options.row_group_size_rows = 3000;
  options.dictionary_page_size_limit = 300;
  path_ = dir_ + "/written.parquet";
  ASSERT_OK(WriteParquetFile(fs_, path_, {batch}, schema, options));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs_, path_));
  ASSERT_EQ(reader->NumRowGroups(), 3);
  // The name chunk of the first row group has a dictionary and PLAIN pages after it.
  const ColumnMetaData& name = *reader->Metadata().row_groups[0].columns[1].meta_data;
  EXPECT_TRUE(name.dictionary_page_offset.has_value());
  EXPECT_NE(std::find(name.encodings.begin(), name.encodings.end(), Encoding::kPlain),
            name.encodings.end());
  const std::vector<std::string> all_rows = columnar::CanonicalJsonRows(*batch);
  std::vector<std::string> whole_file;
  for (int g = 0; g < reader->NumRowGroups(); ++g) {
    ASSERT_OK_AND_ASSIGN(auto whole, reader->ReadRowGroup(g));
    const std::vector<std::string> whole_rows = columnar::CanonicalJsonRows(*whole);
    whole_file.insert(whole_file.end(), whole_rows.begin(), whole_rows.end());
    ASSERT_OK_AND_ASSIGN(auto projected, reader->ReadRowGroup(g, {"s.b", "name"}));
    const std::vector<std::string> projected_rows = columnar::CanonicalJsonRows(*projected);
    for (int64_t max_rows : {1, 7, 333, 1024, 2999, 3000, 8192}) {
      SCOPED_TRACE(fmt::format("row group {}, batches of {}", g, max_rows));
      if (max_rows > 1) {
        EXPECT_EQ(StreamedRows(*reader, g, {}, max_rows), whole_rows);
      }
      EXPECT_EQ(StreamedRows(*reader, g, {"s.b", "name"}, max_rows), projected_rows);
    }
  }
  EXPECT_EQ(whole_file, all_rows);
}

// A selection with a list column is not cut into batches: its rows span level entries.
TEST_F(ParquetReaderBadInputTest, RepeatedColumnsComeAsWholeRowGroups) {
  auto schema = testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("l", DataType::Array(DataType::Int64()))});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema, R"([
    {"id": 1, "l": [1, 2]}, {"id": 2, "l": null}, {"id": 3, "l": []}, {"id": 4, "l": [3]}])"));
  path_ = dir_ + "/lists.parquet";
  ASSERT_OK(WriteParquetFile(fs_, path_, {batch}, schema));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(fs_, path_));
  ASSERT_OK_AND_ASSIGN(auto group, reader->OpenRowGroup(0, {}, 2));
  EXPECT_FALSE(group->Bounded());
  ASSERT_OK_AND_ASSIGN(auto first, group->Next());
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(columnar::CanonicalJsonRows(*first), columnar::CanonicalJsonRows(*batch));
  ASSERT_OK_AND_ASSIGN(auto end, group->Next());
  EXPECT_EQ(end, nullptr);
  // Without the list the same row group streams.
  EXPECT_EQ(StreamedRows(*reader, 0, {"id"}, 3),
            (std::vector<std::string>{R"({"id":1})", R"({"id":2})", R"({"id":3})", R"({"id":4})"}));
}

}  // namespace
}  // namespace tributary::parquet

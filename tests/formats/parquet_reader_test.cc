// Bad input for the Parquet reader: hand-built files, each broken in one way, must give a
// Corruption error naming the file, row group, column and byte offset; never a crash.

#include <cstdio>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/compression.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/rle_encoding.h"
#include "storage/local_file_system.h"
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

// One optional column `x` of `type` in one row group whose chunk is `pages`.
std::string BuildFile(PhysicalType type, const std::string& pages, int64_t num_values,
                      int32_t codec = 0, bool dictionary = false, bool string = false) {
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement leaf;
  leaf.name = "x";
  leaf.type = type;
  leaf.repetition_type = Repetition::kOptional;
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

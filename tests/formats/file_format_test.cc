// The FileReader seam: the factory by format and the whole-file readers (text, binaryFile).

#include "formats/file_format.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "formats/binary_file_reader.h"
#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::formats {
namespace {

using columnar::CanonicalJsonRows;

TEST(FileFormatTest, NamesRoundTripIgnoringCase) {
  for (FileFormat format : {FileFormat::kParquet, FileFormat::kJson, FileFormat::kCsv,
                            FileFormat::kText, FileFormat::kBinaryFile}) {
    ASSERT_OK_AND_ASSIGN(FileFormat parsed, FileFormatFromName(FileFormatName(format)));
    EXPECT_EQ(parsed, format);
  }
  ASSERT_OK_AND_ASSIGN(FileFormat binary, FileFormatFromName("BINARYFILE"));
  EXPECT_EQ(binary, FileFormat::kBinaryFile);
  EXPECT_EQ(FileFormatFromName("orc").status().Code(), StatusCode::kInvalidArgument);
}

class WholeFileReaderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, std::string_view data) {
    std::string path = dir_.Join(name);
    EXPECT_OK(fs_.WriteFile(path, data, storage::WriteMode::kReplace));
    return path;
  }

  // Every row of the reader's one batch; checks that the next call ends the file.
  std::vector<std::string> ReadAll(FileReader& reader) {
    auto batch = reader.Next();
    EXPECT_TRUE(batch.ok() && *batch != nullptr);
    if (!batch.ok() || *batch == nullptr) {
      return {};
    }
    auto end = reader.Next();
    EXPECT_TRUE(end.ok() && *end == nullptr);
    return CanonicalJsonRows(**batch);
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
};

TEST_F(WholeFileReaderTest, TextReadsALineOrTheWholeFilePerRow) {
  const std::string path = Write("a.txt", "one\r\ntwo\rthree\n\nfour\n");
  FileReadOptions options;
  ASSERT_OK_AND_ASSIGN(auto lines, OpenFileReader(FileFormat::kText, fs_, path, nullptr, options,
                                                  {"value"}, columnar::DefaultMemoryPool()));
  ASSERT_EQ(lines->OutputSchema()->NumFields(), 1);
  EXPECT_EQ(lines->OutputSchema()->FieldAt(0).Name(), "value");
  EXPECT_EQ(ReadAll(*lines), (std::vector<std::string>{R"({"value":"one"})", R"({"value":"two"})",
                                                       R"({"value":"three"})", R"({"value":""})",
                                                       R"({"value":"four"})"}));
  EXPECT_TRUE(lines->UnknownFields().empty());

  options.whole_text = true;
  ASSERT_OK_AND_ASSIGN(auto whole, OpenFileReader(FileFormat::kText, fs_, path, nullptr, options,
                                                  {"value"}, columnar::DefaultMemoryPool()));
  EXPECT_EQ(ReadAll(*whole),
            (std::vector<std::string>{R"({"value":"one\r\ntwo\rthree\n\nfour\n"})"}));
}

TEST_F(WholeFileReaderTest, BinaryFileSelectsColumnsInTheOrderAsked) {
  const std::string path = Write("b.bin", "xyz");
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenFileReader(FileFormat::kBinaryFile, fs_, path, nullptr, {},
                                      {"length", "path"}, columnar::DefaultMemoryPool()));
  ASSERT_EQ(reader->OutputSchema()->NumFields(), 2);
  EXPECT_EQ(reader->OutputSchema()->FieldAt(0).Name(), "length");
  EXPECT_EQ(reader->OutputSchema()->FieldAt(1).Name(), "path");
  EXPECT_EQ(ReadAll(*reader),
            (std::vector<std::string>{R"({"length":3,"path":")" + path + R"("})"}));
  EXPECT_EQ(OpenFileReader(FileFormat::kBinaryFile, fs_, path, nullptr, {}, {"size"},
                           columnar::DefaultMemoryPool())
                .status()
                .Code(),
            StatusCode::kInvalidArgument);
}

TEST_F(WholeFileReaderTest, ReadSchemaOfTheFixedFormats) {
  ASSERT_OK_AND_ASSIGN(columnar::SchemaPtr binary,
                       FileReadSchema(FileFormat::kBinaryFile, nullptr, {}, fs_, {}));
  EXPECT_TRUE(binary->Equals(*BinaryFileSchema()));
  EXPECT_EQ(FileReadSchema(FileFormat::kJson, nullptr, {}, fs_, {}).status().Code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FileReadSchema(FileFormat::kParquet, nullptr, {}, fs_, {}).status().Code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary::formats

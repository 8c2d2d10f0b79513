// Spark's text source: a row per line (any of Spark's line separators) or per file.

#include "formats/text/text_file_reader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "storage/local_file_system.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::text {
namespace {

std::vector<std::string> ReadAll(formats::FileReader& reader) {
  std::vector<std::string> rows;
  while (true) {
    auto batch = reader.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) {
      return rows;
    }
    for (std::string& row : columnar::CanonicalJsonRows(**batch)) {
      rows.push_back(std::move(row));
    }
  }
}

TEST(TextFileReaderTest, EmptyFileHasNoRows) {
  testing::TempDir dir;
  storage::LocalFileSystem fs;
  const std::string path = dir.Join("empty.txt");
  ASSERT_OK(fs.WriteFile(path, "", storage::WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenTextFile(fs, path, /*whole_text=*/false, {"value"},
                                                 columnar::DefaultMemoryPool()));
  EXPECT_TRUE(ReadAll(*reader).empty());
  ASSERT_OK_AND_ASSIGN(auto whole, OpenTextFile(fs, path, /*whole_text=*/true, {"value"},
                                                columnar::DefaultMemoryPool()));
  EXPECT_EQ(ReadAll(*whole), (std::vector<std::string>{R"({"value":""})"}));
}

TEST(TextFileReaderTest, LastLineNeedsNoSeparator) {
  testing::TempDir dir;
  storage::LocalFileSystem fs;
  const std::string path = dir.Join("a.txt");
  ASSERT_OK(fs.WriteFile(path, "a\r\n\r\nb", storage::WriteMode::kReplace));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenTextFile(fs, path, /*whole_text=*/false, {"value"},
                                                 columnar::DefaultMemoryPool()));
  EXPECT_EQ(ReadAll(*reader),
            (std::vector<std::string>{R"({"value":"a"})", R"({"value":""})", R"({"value":"b"})"}));
  EXPECT_TRUE(TextFileSchema()->Equals(*reader->OutputSchema()));
}

}  // namespace
}  // namespace tributary::text

#include "formats/text/text_file_reader.h"

#include <string_view>
#include <utility>

#include "columnar/column_builder.h"
#include "formats/whole_file_reader.h"

namespace tributary::text {

columnar::SchemaPtr TextFileSchema() {
  static const columnar::SchemaPtr kSchema = std::make_shared<const columnar::Schema>(
      std::vector<columnar::Field>{columnar::Field("value", columnar::DataType::String())});
  return kSchema;
}

Result<std::unique_ptr<formats::FileReader>> OpenTextFile(storage::FileSystem& fs,
                                                          const std::string& path, bool whole_text,
                                                          const std::vector<std::string>& columns,
                                                          columnar::MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(path));
  columnar::ColumnBuilder values(columnar::DataType::String(), pool);
  if (whole_text) {
    values.AppendBytes(text);
  } else {
    const std::string_view all(text);
    size_t start = 0;
    while (start < all.size()) {
      size_t end = all.find_first_of("\r\n", start);
      if (end == std::string_view::npos) {
        end = all.size();
      }
      values.AppendBytes(all.substr(start, end - start));
      start = end + (all.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    }
  }
  const int64_t num_rows = values.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, values.Finish());
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto reader,
      formats::WholeFileReader::Make(TextFileSchema(), {std::move(column)}, num_rows, columns));
  return std::unique_ptr<formats::FileReader>(std::move(reader));
}

}  // namespace tributary::text

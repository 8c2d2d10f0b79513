#include "formats/binary_file_reader.h"

#include <utility>

#include "columnar/column_builder.h"
#include "formats/whole_file_reader.h"

namespace tributary::formats {

columnar::SchemaPtr BinaryFileSchema() {
  static const columnar::SchemaPtr kSchema =
      std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
          columnar::Field("path", columnar::DataType::String()),
          columnar::Field("modificationTime", columnar::DataType::Timestamp()),
          columnar::Field("length", columnar::DataType::Int64()),
          columnar::Field("content", columnar::DataType::Binary())});
  return kSchema;
}

Result<std::unique_ptr<FileReader>> OpenBinaryFile(storage::FileSystem& fs, const std::string& path,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(storage::FileInfo info, fs.GetFileInfo(path));
  TRIBUTARY_ASSIGN_OR_RAISE(std::string content, fs.ReadFile(path));
  columnar::ColumnBuilder path_column(columnar::DataType::String(), pool);
  columnar::ColumnBuilder time_column(columnar::DataType::Timestamp(), pool);
  columnar::ColumnBuilder length_column(columnar::DataType::Int64(), pool);
  columnar::ColumnBuilder content_column(columnar::DataType::Binary(), pool);
  path_column.AppendBytes(path);
  time_column.AppendInt(info.modification_time_ms * 1000);
  length_column.AppendInt(static_cast<int64_t>(content.size()));
  content_column.AppendBytes(content);
  std::vector<columnar::ColumnPtr> values;
  for (columnar::ColumnBuilder* builder :
       {&path_column, &time_column, &length_column, &content_column}) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder->Finish());
    values.push_back(std::move(column));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto reader, WholeFileReader::Make(BinaryFileSchema(), std::move(values), 1, columns));
  return std::unique_ptr<FileReader>(std::move(reader));
}

}  // namespace tributary::formats

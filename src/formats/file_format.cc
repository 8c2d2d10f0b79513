#include "formats/file_format.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "formats/binary_file_reader.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/reconciling_reader.h"
#include "formats/text/text_file_reader.h"

namespace tributary::formats {

Result<FileFormat> FileFormatFromName(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "parquet") {
    return FileFormat::kParquet;
  }
  if (lower == "json") {
    return FileFormat::kJson;
  }
  if (lower == "csv") {
    return FileFormat::kCsv;
  }
  if (lower == "text") {
    return FileFormat::kText;
  }
  if (lower == "binaryfile") {
    return FileFormat::kBinaryFile;
  }
  return Status::InvalidArgument(fmt::format(
      "unknown file format '{}': expected parquet, json, csv, text or binaryFile", name));
}

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "parquet";
    case FileFormat::kJson:
      return "json";
    case FileFormat::kCsv:
      return "csv";
    case FileFormat::kText:
      return "text";
    case FileFormat::kBinaryFile:
      return "binaryFile";
  }
  return "unknown";
}

Result<columnar::SchemaPtr> FileReadSchema(FileFormat format, const columnar::SchemaPtr& schema,
                                           const FileReadOptions& options, storage::FileSystem& fs,
                                           const std::vector<std::string>& paths) {
  switch (format) {
    case FileFormat::kParquet: {
      if (schema != nullptr) {
        return schema;
      }
      if (paths.empty()) {
        return Status::InvalidArgument("parquet scan of no files needs a schema");
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::Open(fs, paths[0]));
      return reader->Schema();
    }
    case FileFormat::kJson:
      if (schema == nullptr) {
        return Status::InvalidArgument("json scan without a schema");
      }
      return json::JsonOutputSchema(*schema, options.json);
    case FileFormat::kCsv:
      if (schema == nullptr) {
        return Status::InvalidArgument("csv scan without a schema");
      }
      return csv::CsvOutputSchema(*schema, options.csv);
    case FileFormat::kText:
      return text::TextFileSchema();
    case FileFormat::kBinaryFile:
      return BinaryFileSchema();
  }
  return Status::Internal("unknown file format");
}

Result<std::unique_ptr<FileReader>> OpenFileReader(FileFormat format, storage::FileSystem& fs,
                                                   const std::string& path,
                                                   const columnar::SchemaPtr& schema,
                                                   const FileReadOptions& options,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool) {
  switch (format) {
    case FileFormat::kParquet: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto reader, parquet::ReconcilingReader::Open(
                           fs, path, schema, columns, options.parquet_rescued_data_column, pool,
                           options.parquet_row_groups.first, options.parquet_row_groups.end));
      return std::unique_ptr<FileReader>(std::move(reader));
    }
    case FileFormat::kJson: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto reader, json::JsonReader::Open(fs, path, schema, options.json, columns, pool));
      return std::unique_ptr<FileReader>(std::move(reader));
    }
    case FileFormat::kCsv: {
      TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                                csv::CsvReader::Open(fs, path, schema, options.csv, columns, pool));
      return std::unique_ptr<FileReader>(std::move(reader));
    }
    case FileFormat::kText:
      return text::OpenTextFile(fs, path, options.whole_text, columns, pool);
    case FileFormat::kBinaryFile:
      return OpenBinaryFile(fs, path, columns, pool);
  }
  return Status::Internal("unknown file format");
}

}  // namespace tributary::formats

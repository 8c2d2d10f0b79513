// The file formats a scan reads, what a scan reads them with (FileReadOptions) and the factory
// that opens the right formats::FileReader for a file (as Arrow's dataset FileFormat makes a
// fragment's scanner).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/schema.h"
#include "formats/csv/csv_reader.h"
#include "formats/file_reader.h"
#include "formats/json/json_reader.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::formats {

/// The file formats a scan reads.
/// kText: Spark's text source, one row per line (or per file with whole_text) in a string
/// column `value`. kBinaryFile: Spark's binaryFile source, one row per file (path,
/// modificationTime, length, content).
enum class FileFormat : uint8_t { kParquet, kJson, kCsv, kText, kBinaryFile };

/// "parquet", "json", "csv", "text", "binaryFile" (any case) -> FileFormat; InvalidArgument
/// otherwise.
Result<FileFormat> FileFormatFromName(std::string_view name);
/// The name Spark gives `format`: "parquet", "json", "csv", "text" or "binaryFile".
std::string_view FileFormatName(FileFormat format);

/// How one scan reads its files: one value per scan, of which the reader of the scan's format
/// reads its part.
struct FileReadOptions {
  /// kJson. Default: JsonReadOptions's.
  json::JsonReadOptions json;
  /// kCsv. Default: CsvReadOptions's.
  csv::CsvReadOptions csv;
  /// kText: one row per file instead of per line (Spark's wholeText). Default: false.
  bool whole_text = false;
  /// kParquet: a string column of the data schema that no file has, filled per row with the
  /// values the schema cannot hold: of the file's columns outside the schema, and of columns
  /// whose type differs from the schema's (those read as null), as a JSON object keyed by
  /// column name with the file's path under "_file_path"; null when a row has none. Auto
  /// Loader's rescued-data column. Default: "" (none).
  std::string parquet_rescued_data_column;
  /// kParquet: the row groups [first, end) of the file are read, the others skipped: a part of
  /// a file for one thread (exec/parallel_scan.h). Default: all.
  struct RowGroupRange {
    int first = 0;
    int end = INT32_MAX;
  };
  RowGroupRange parquet_row_groups;
};

/// The columns a reader of `format` can return for data schema `schema` (null for Parquet
/// means the schema of `paths`' first file; required for JSON and CSV): Parquet's data schema,
/// JSON's and CSV's output schema (with the corrupt-record and rescued-data columns), the
/// fixed columns of text and binaryFile.
Result<columnar::SchemaPtr> FileReadSchema(FileFormat format, const columnar::SchemaPtr& schema,
                                           const FileReadOptions& options, storage::FileSystem& fs,
                                           const std::vector<std::string>& paths);

/// Opens the reader of `format` for the file at `path` on `fs`. `schema` is the scan's data
/// schema (Parquet: the reconciled one, not null; JSON, CSV: as for their readers; text and
/// binaryFile: ignored); `columns` selects the columns of FileReadSchema to return, by name, in
/// that order (not empty). Opening text and binaryFile reads the whole file.
Result<std::unique_ptr<FileReader>> OpenFileReader(FileFormat format, storage::FileSystem& fs,
                                                   const std::string& path,
                                                   const columnar::SchemaPtr& schema,
                                                   const FileReadOptions& options,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool);

}  // namespace tributary::formats

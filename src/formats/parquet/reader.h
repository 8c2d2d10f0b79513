// ParquetFileReader: opens a Parquet file, exposes its metadata, schema and statistics, and
// decodes row groups into record batches, with column projection.

#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/reader_schema.h"
#include "storage/file_system.h"

namespace tributary::parquet {

/// Min/max/null count of one leaf column in one row group, decoded into the column's tributary
/// type (a one-row column each, or null when the file has no usable statistic).
struct ColumnStatistics {
  columnar::ColumnPtr min;
  columnar::ColumnPtr max;
  std::optional<int64_t> null_count;
};

/// Reads one Parquet file. Opening reads and validates the footer; row groups are decoded on
/// request, each into one record batch.
///
/// Thread-safety: const methods may be called concurrently (reads are positional).
class ParquetFileReader {
 public:
  /// Opens `file`. Corruption names the file when it is too short, lacks the "PAR1" magic, has
  /// a footer length past its start, or a footer that does not decode.
  static Result<std::unique_ptr<ParquetFileReader>> Open(
      std::shared_ptr<storage::RandomAccessFile> file,
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());
  /// Opens `path` on `fs`.
  static Result<std::unique_ptr<ParquetFileReader>> Open(
      storage::FileSystem& fs, const std::string& path,
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());

  const FileMetaData& Metadata() const { return metadata_; }
  /// The file's columns in tributary types, typed by the file itself.
  const columnar::SchemaPtr& Schema() const { return schema_.schema; }
  const FileSchema& Tree() const { return schema_; }
  int NumRowGroups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t NumRows() const { return metadata_.num_rows; }

  /// Decodes row group `index`. `columns` selects top-level columns or nested struct fields by
  /// dotted path ("a", "b.c"), in the order given; empty means every column. Unknown names are
  /// an InvalidArgument error listing the file's columns.
  Result<columnar::RecordBatchPtr> ReadRowGroup(int index,
                                                const std::vector<std::string>& columns = {}) const;

  /// Statistics of leaf column `path` (dotted, as in the schema) in row group `index`.
  Result<ColumnStatistics> RowGroupStatistics(int index, const std::string& path) const;

 private:
  ParquetFileReader(std::shared_ptr<storage::RandomAccessFile> file, FileMetaData metadata,
                    FileSchema schema, columnar::MemoryPool* pool)
      : file_(std::move(file)),
        metadata_(std::move(metadata)),
        schema_(std::move(schema)),
        pool_(pool) {}

  std::shared_ptr<storage::RandomAccessFile> file_;
  FileMetaData metadata_;
  FileSchema schema_;
  columnar::MemoryPool* pool_;
};

}  // namespace tributary::parquet

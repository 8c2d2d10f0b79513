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

/// Rows per batch of a RowGroupReader unless asked otherwise: the batches stay in the CPU's
/// caches through the operators above the scan, where a row group of a million rows in one
/// batch would not.
inline constexpr int64_t kDefaultBatchRows = 8192;

/// Decodes the selected columns of one row group page by page into batches of at most
/// `max_rows` rows (ParquetFileReader::OpenRowGroup). Each column keeps its decoder state
/// (current page, dictionary, values of a page that straddles two batches) between batches.
///
/// A selection with a repeated column (a list or map, at any depth) is not cut into batches:
/// Next returns the whole row group as one batch, since its rows span level entries that
/// differ per leaf (Bounded() is false then).
///
/// Reads through its ParquetFileReader's file and schema: that reader must outlive it.
/// Thread-safety: one thread at a time.
class RowGroupReader {
 public:
  ~RowGroupReader();
  RowGroupReader(const RowGroupReader&) = delete;
  RowGroupReader& operator=(const RowGroupReader&) = delete;

  /// The next batch of at most max_rows rows, or null once every row was returned. Corruption
  /// errors name the file, row group, column and byte offset, for the pages this batch reads.
  Result<columnar::RecordBatchPtr> Next();
  /// The rows not yet returned as one batch (an empty batch when none are left).
  Result<columnar::RecordBatchPtr> ReadRest();
  int64_t NumRows() const;
  int64_t RowsLeft() const;
  /// Whether Next bounds its batches by max_rows (false with a repeated column selected).
  bool Bounded() const;

  /// Not for direct use: ParquetFileReader::OpenRowGroup makes row group readers.
  class Impl;
  explicit RowGroupReader(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

/// Reads one Parquet file. Opening reads and validates the footer; row groups are decoded on
/// request, into one record batch each (ReadRowGroup) or into bounded batches (OpenRowGroup).
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

  /// A reader of row group `index` returning batches of at most `max_rows` rows (at least 1),
  /// `columns` as in ReadRowGroup. Checks the selected column chunks' metadata; their pages
  /// are read and decoded as batches are asked for. The same rows and errors as ReadRowGroup,
  /// over all batches.
  Result<std::unique_ptr<RowGroupReader>> OpenRowGroup(int index,
                                                       const std::vector<std::string>& columns = {},
                                                       int64_t max_rows = kDefaultBatchRows) const;

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

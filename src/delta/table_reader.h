// Reads the rows of a snapshot: every live data file decoded, mapped onto the table's logical
// schema (column mapping, type widening, missing columns as nulls), partition values added and
// deleted rows (deletion vectors) dropped.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/snapshot.h"
#include "expr/time_zone.h"
#include "formats/parquet/reader.h"

namespace tributary::delta {

struct TableReadOptions {
  /// Zone of zone-less timestamp partition values. Default: UTC.
  expr::TimeZone session_time_zone;
  /// Where column memory comes from. Default: the process-wide pool.
  columnar::MemoryPool* pool = columnar::DefaultMemoryPool();
  /// The logical columns to read (indices into the snapshot's schema, in output order); only
  /// their file columns are decoded. Default: empty, every column.
  std::vector<int> columns;
  /// Rows per batch at most (at least 1): row groups are decoded in batches this size, before
  /// deleted rows are dropped. Default: parquet::kDefaultBatchRows.
  int64_t max_batch_rows = parquet::kDefaultBatchRows;
  /// When not empty, every batch has one more, last, non-null int64 column of this name: each
  /// row's file-wide physical row index (Spark's `_metadata.row_index`; the index deletion
  /// vectors name), counted before deleted rows are dropped. Default: none.
  std::string row_index_column;
};

/// Reads the live rows of one data file of a snapshot, a batch at a time: row groups are
/// decoded in batches of at most `options.max_batch_rows` rows, mapped onto the table's
/// logical schema (column mapping, type widening, missing columns as nulls), partition values
/// added and the rows of the file's deletion vector (file-wide row indexes) dropped.
///
/// Keeps references to `fs`, `snapshot` and `add`: they must outlive the reader.
/// Thread-safety: one thread at a time.
class DataFileReader {
 public:
  /// Opens the file and loads its deletion vector. Errors name the data file.
  static Result<std::unique_ptr<DataFileReader>> Open(storage::FileSystem& fs,
                                                      const Snapshot& snapshot, const AddFile& add,
                                                      const TableReadOptions& options = {});
  ~DataFileReader();
  DataFileReader(const DataFileReader&) = delete;
  DataFileReader& operator=(const DataFileReader&) = delete;

  /// The next batch of live rows (1 to max_batch_rows of them), or null after the last.
  Result<columnar::RecordBatchPtr> Next();

  /// Not for direct use: Open makes readers.
  class Impl;
  explicit DataFileReader(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

/// Every live row of `snapshot` as batches in the snapshot's schema, or the projection of
/// `options.columns` (DataFileReader's batches, file after file).
/// Errors name the data file.
Result<std::vector<columnar::RecordBatchPtr>> ReadTable(storage::FileSystem& fs,
                                                        const Snapshot& snapshot,
                                                        const TableReadOptions& options = {});

/// The live rows of one data file of `snapshot`, as ReadTable reads them: all of
/// DataFileReader's batches.
Result<std::vector<columnar::RecordBatchPtr>> ReadDataFile(storage::FileSystem& fs,
                                                           const Snapshot& snapshot,
                                                           const AddFile& add,
                                                           const TableReadOptions& options = {});

/// The local path of a data file of the table at `table_root`, from an action's `path` as read
/// (percent-decoded): a URI (Delta's absolute paths, "file:///data/t/part-0.parquet") is
/// storage::LocalPath's local path; an absolute path stays; a relative one is below the root's
/// local path. A URI LocalPath refuses (another scheme, another host, no path) is returned as
/// it is, which no local file has; DataFileReader names the cause.
std::string DataFilePath(const std::string& table_root, const std::string& path);

}  // namespace tributary::delta

// Reads the rows of a snapshot: every live data file decoded, mapped onto the table's logical
// schema (column mapping, type widening, missing columns as nulls), partition values added and
// deleted rows (deletion vectors) dropped.

#pragma once

#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/snapshot.h"
#include "expr/time_zone.h"

namespace tributary::delta {

struct TableReadOptions {
  /// Zone of zone-less timestamp partition values. Default: UTC.
  expr::TimeZone session_time_zone;
  /// Where column memory comes from. Default: the process-wide pool.
  columnar::MemoryPool* pool = columnar::DefaultMemoryPool();
  /// The logical columns to read (indices into the snapshot's schema, in output order); only
  /// their file columns are decoded. Default: empty, every column.
  std::vector<int> columns;
};

/// Every live row of `snapshot` as batches in the snapshot's schema, or the projection of
/// `options.columns` (one or more batches per file).
/// Errors name the data file.
Result<std::vector<columnar::RecordBatchPtr>> ReadTable(storage::FileSystem& fs,
                                                        const Snapshot& snapshot,
                                                        const TableReadOptions& options = {});

/// The live rows of one data file of `snapshot`, as ReadTable reads them.
Result<std::vector<columnar::RecordBatchPtr>> ReadDataFile(storage::FileSystem& fs,
                                                           const Snapshot& snapshot,
                                                           const AddFile& add,
                                                           const TableReadOptions& options = {});

/// The absolute path of a data file of the table (`add.path` may be relative or absolute).
std::string DataFilePath(const std::string& table_root, const std::string& path);

}  // namespace tributary::delta

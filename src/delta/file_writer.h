// Writing table data: rows split by partition into Parquet files under Hive-style directories,
// with the per-file statistics Delta readers use for skipping (PROTOCOL.md "Per-file
// Statistics", "Partition Value Serialization").

#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/actions.h"
#include "expr/time_zone.h"
#include "formats/parquet/writer.h"
#include "storage/file_system.h"

namespace tributary::delta {

struct DataWriteOptions {
  /// Parquet options of the data files. Default: SNAPPY, 128 MiB row groups.
  parquet::ParquetWriterOptions parquet;
  /// String min/max statistics keep this many characters, as Spark. Default: 32.
  int stats_string_prefix = 32;
  /// First part of each file's name: "part" for data files, "cdc" for change data files.
  std::string file_prefix = "part";
};

/// Writes `batches` (in the table's logical `schema`) as new data files under `table_root`:
/// one file per distinct partition, data columns only, named part-<n>-<uuid>.c000.<codec>.parquet
/// under escaped `col=value/` directories. Returns one AddFile per file (path relative and
/// URI-decoded as Snapshot holds them, partitionValues, size, modificationTime, stats JSON).
/// Files are published atomically but are invisible to readers until committed.
Result<std::vector<AddFile>> WriteDataFiles(storage::FileSystem& fs, const std::string& table_root,
                                            const columnar::SchemaPtr& schema,
                                            const std::vector<std::string>& partition_columns,
                                            const std::vector<columnar::RecordBatchPtr>& batches,
                                            const DataWriteOptions& options = {});

/// Writes a table's data files from batches that come one at a time: WriteDataFiles in steps.
/// Each partition's file stays open until Finish, so what is held is the files' encoded pages,
/// not the batches. Destroying the writer before Finish publishes nothing.
///
/// Thread-safety: one thread at a time.
class DataFileWriter {
 public:
  /// A writer of files of `schema` (the table's logical schema) under `table_root`.
  /// InvalidArgument when a partition column is not in the schema or is nested.
  static Result<std::unique_ptr<DataFileWriter>> Make(storage::FileSystem& fs,
                                                      std::string table_root,
                                                      columnar::SchemaPtr schema,
                                                      std::vector<std::string> partition_columns,
                                                      DataWriteOptions options = {});
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  /// Adds the rows of `batch` (of `schema`) to the files of their partitions.
  [[nodiscard]] Status Append(const columnar::RecordBatchPtr& batch);
  /// Closes (publishes) every file and returns their AddFiles (as WriteDataFiles), in partition
  /// directory order.
  Result<std::vector<AddFile>> Finish();

 private:
  struct OpenFile;
  DataFileWriter(storage::FileSystem& fs, std::string table_root, columnar::SchemaPtr schema,
                 columnar::SchemaPtr data_schema, std::vector<std::string> partition_columns,
                 std::vector<int> partition_index, std::vector<int> data_index,
                 DataWriteOptions options);
  Result<OpenFile*> FileFor(const std::string& dir, const PartitionValues& values);
  Status AddRows(OpenFile* file, const columnar::RecordBatchPtr& rows);

  storage::FileSystem& fs_;
  std::string table_root_;
  columnar::SchemaPtr schema_;
  columnar::SchemaPtr data_schema_;
  std::vector<std::string> partition_columns_;
  std::vector<int> partition_index_;
  std::vector<int> data_index_;
  DataWriteOptions options_;
  bool has_nested_ = false;
  /// Partition directory -> its open file.
  std::map<std::string, std::unique_ptr<OpenFile>> files_;
};

/// Hive's escaping of a partition directory value (`/` -> %2F, `%` -> %25, ...), and
/// __HIVE_DEFAULT_PARTITION__ for null.
std::string EscapePartitionValue(const std::optional<std::string>& value);

/// The partitionValues text of row `row` of a partition column (PROTOCOL.md "Partition Value
/// Serialization"): nullopt for null; timestamps as ISO-8601 UTC with microseconds.
std::optional<std::string> SerializePartitionValue(const columnar::Column& column, int64_t row);

/// The stats JSON of `batch` (data columns): numRecords, minValues, maxValues, nullCount.
std::string ComputeStats(const columnar::RecordBatch& batch, int string_prefix);

}  // namespace tributary::delta

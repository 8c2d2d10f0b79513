// Leaf operators that read storage: a Delta snapshot, or a list of Parquet/JSON/CSV/text/
// binaryFile files. Both read one file at a time and hand out the bounded batches of their
// file reader (delta::DataFileReader, formats::FileReader), so memory holds a batch, not a file
// (text and binaryFile files are read whole).

#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "exec/operator.h"
#include "expr/expression.h"
#include "formats/file_format.h"
#include "formats/file_reader.h"

namespace tributary::exec {

/// Reads the live rows of a Delta snapshot. Files are pruned with `filter` (partition values and
/// min/max/nullCount statistics); the filter is NOT applied to rows: the planner keeps a
/// FilterOperator above the scan. `columns` names the output columns in order (empty: all).
class DeltaScanOperator final : public Operator {
 public:
  static Result<OperatorPtr> Make(std::shared_ptr<const delta::Snapshot> snapshot,
                                  const std::vector<std::string>& columns, expr::ExprPtr filter,
                                  const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;

  /// Files left after pruning, and before.
  size_t NumFilesSelected() const { return files_.size(); }
  size_t NumFilesTotal() const { return snapshot_->Files().size(); }

 private:
  DeltaScanOperator(std::shared_ptr<const delta::Snapshot> snapshot, std::vector<int> indices,
                    SchemaPtr schema, std::vector<const delta::AddFile*> files,
                    expr::ExprPtr filter, const ExecContext& context);

  std::shared_ptr<const delta::Snapshot> snapshot_;
  std::vector<int> indices_;
  SchemaPtr schema_;
  std::vector<const delta::AddFile*> files_;
  expr::ExprPtr filter_;
  const ExecContext& context_;
  size_t next_file_ = 0;
  /// The file being read, a bounded batch at a time.
  std::unique_ptr<delta::DataFileReader> file_reader_;
};

/// What FileScanOperator reads: the files, their format and reader options, the data schema
/// (required for JSON and CSV; for Parquet, null means the first file's schema).
struct FileScanSpec {
  formats::FileFormat format = formats::FileFormat::kParquet;
  std::vector<std::string> paths;
  columnar::SchemaPtr schema;
  /// How the files are read (formats::OpenFileReader). Default: each format's defaults.
  formats::FileReadOptions options;
  /// When set, the readers (JSON, CSV; Parquet by its footer) report top-level fields outside
  /// `schema`, and once every file was read the scan calls this with their distinct names, in
  /// order of first appearance, and `paths`, if there were any; an error from it is the scan's
  /// error. Auto Loader's schema evolution sets it, so that finding new columns costs no second
  /// parse (the scan stays ignorant of what a new column means). A Parquet file lacking some of
  /// `schema`'s columns reads them as nulls.
  std::function<Status(const std::vector<std::string>& unknown_fields,
                       const std::vector<std::string>& paths)>
      on_unknown_fields;
  /// When set, a file that fails to open or read with a non-transient error (corrupt, not in
  /// the format, unreadable) is skipped, its remaining rows dropped, and reported here instead
  /// of failing the scan: Spark's ignoreCorruptFiles. Missing files (NotFound) still fail.
  std::function<void(const std::string& path, const Status& error)> on_corrupt_file;
  /// Partition columns (Spark's file-source partitioning). Each file's values come from the
  /// `key=value` directories between `partition_root` and the file (hive_partitioning.h),
  /// converted to the column's type; a value that is absent or does not convert is null. A
  /// partition column also in the data schema takes its place and type there and its value
  /// from the directory, as Spark's; the others follow the data columns. Default: none.
  columnar::SchemaPtr partition_schema;
  std::string partition_root;
  /// Whether the scan offers Spark's hidden file metadata column `_metadata` (type
  /// MetadataColumnType()) after every other column, unless a data or partition column has
  /// that name (the data wins, as Spark's). Computed only when selected. Default: false.
  bool metadata_column = false;
};

/// The name of the file metadata column.
inline constexpr std::string_view kMetadataColumnName = "_metadata";
/// struct<file_path: string, file_name: string, file_size: bigint, file_block_start: bigint,
/// file_block_length: bigint, file_modification_time: timestamp>: Spark's file metadata
/// fields. A file is read as one block (start 0, length its size).
columnar::DataTypePtr MetadataColumnType();

/// Reads files one after the other, each through the formats::FileReader of the spec's format
/// (formats::OpenFileReader), which decodes the file and reconciles it with the data schema;
/// the scan adds what comes from outside the file. `columns` selects output columns by name,
/// in order (empty: all but the hidden `_metadata`); unselected columns are not decoded where
/// the format allows it. Partition and `_metadata` values are made once per file and repeated
/// into each of its batches.
class FileScanOperator final : public Operator {
 public:
  static Result<OperatorPtr> Make(FileScanSpec spec, const std::vector<std::string>& columns,
                                  const ExecContext& context);
  /// The schema of the rows this spec reads (before column selection): the data columns
  /// (Parquet's file schema, or the JSON/CSV output schema including the rescued-data column),
  /// the partition columns not among them, then `_metadata` when offered. `num_hidden`, when
  /// given, receives how many of the last columns are hidden (1 with `_metadata`, else 0).
  static Result<SchemaPtr> ScanSchema(const FileScanSpec& spec, storage::FileSystem& fs,
                                      int* num_hidden = nullptr);

  const SchemaPtr& OutputSchema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override;

 private:
  /// Where an output column's values come from: the reader's column `index`, partition
  /// column `index` of the spec, or the file's metadata.
  struct OutputColumn {
    enum class Kind : uint8_t { kRead, kPartition, kMetadata } kind = Kind::kRead;
    int index = 0;
  };

  FileScanOperator(FileScanSpec spec, std::vector<std::string> columns,
                   std::vector<OutputColumn> outputs, SchemaPtr schema, const ExecContext& context);
  Status OpenNextFile();
  /// The one-row columns of the file at `path` for the partition and metadata outputs.
  Status MakeFileConstants(const std::string& path);
  /// The scan's batch of `read` (the reader's columns) with the file's constants added.
  Result<RecordBatchPtr> Assemble(const RecordBatchPtr& read);
  /// Adds `names` to unknown_fields_, skipping those already there.
  void NoteUnknownFields(const std::vector<std::string>& names);

  FileScanSpec spec_;
  /// The columns the readers decode, by their names.
  std::vector<std::string> columns_;
  std::vector<OutputColumn> outputs_;
  SchemaPtr schema_;
  /// Per output, the current file's one-row column (kPartition, kMetadata), else null.
  std::vector<columnar::ColumnPtr> file_constants_;
  /// Zeros for Take: repeats a one-row column into a batch.
  std::vector<int64_t> zeros_;
  const ExecContext& context_;
  size_t next_file_ = 0;
  /// The open file's reader; null between files.
  std::unique_ptr<formats::FileReader> reader_;
  /// The unknown fields the finished files reported (with on_unknown_fields).
  std::vector<std::string> unknown_fields_;
  bool unknown_fields_reported_ = false;
};

}  // namespace tributary::exec

// What a file scan reads (FileScanSpec), apart from the scan operator so that the physical plan's
// FileScanNode can hold it, and the hidden `_metadata` column a file scan may offer.

#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/schema.h"
#include "formats/file_format.h"
#include "tributary/status.h"

namespace tributary::exec {

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

}  // namespace tributary::exec

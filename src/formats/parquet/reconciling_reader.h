// ReconcilingReader: reads a Parquet file under a scan's data schema, which may differ from the
// file's (the files of one scan, a stream's files over time, need not have the same columns).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "formats/file_reader.h"
#include "formats/parquet/reader.h"
#include "storage/file_system.h"

namespace tributary::parquet {

/// Reads the selected columns of a Parquet file in batches of at most kDefaultBatchRows rows
/// (or a whole row group when a list or map column is decoded), reconciled with the scan's
/// schema:
///   * a selected column the file lacks reads as nulls;
///   * a column the file stores with another shape is an InvalidArgument naming the file,
///     unless there is a rescued-data column: then it reads as null and its values are rescued;
///   * the file's columns outside the scan's schema are UnknownFields() (from the footer, at
///     Open) and, with a rescued-data column, rescued;
///   * the rescued-data column holds, per row, the rescued values as a JSON object keyed by
///     column name with the file's path under "_file_path", or null when a row has none.
/// Nullability and field metadata may differ between the file and the schema.
///
/// Thread-safety: none; one reader per thread.
class ReconcilingReader final : public formats::FileReader {
 public:
  /// Opens `path` on `fs` (reading its footer) for data schema `schema`; `columns` names the
  /// columns of `schema` to return, in that order. `rescued_data_column`: a string column of
  /// `schema` no file has, or "" for none. Only the row groups [first_row_group,
  /// end_row_group) of the file are read.
  static Result<std::unique_ptr<ReconcilingReader>> Open(
      storage::FileSystem& fs, const std::string& path, const columnar::SchemaPtr& schema,
      const std::vector<std::string>& columns, std::string rescued_data_column,
      columnar::MemoryPool* pool, int first_row_group = 0, int end_row_group = INT32_MAX);

  const columnar::SchemaPtr& OutputSchema() const override { return schema_; }
  /// Batches of the file's own schema when the file has every selected column with the
  /// scan's type; of OutputSchema() otherwise.
  Result<columnar::RecordBatchPtr> Next() override;
  const std::vector<std::string>& UnknownFields() const override { return unknown_fields_; }

 private:
  ReconcilingReader(std::string path, std::unique_ptr<ParquetFileReader> file,
                    columnar::SchemaPtr schema, std::vector<std::string> columns,
                    std::string rescued_data_column, columnar::MemoryPool* pool);
  /// Sorts the file's columns into present_, rescued_ and unknown_fields_.
  Status Reconcile(const columnar::Schema& data_schema);
  /// The batch of `num_rows` rows from `present` (the file's present_ then rescued_ columns,
  /// or null when it has none): the columns the file lacks as nulls, the rescued-data column
  /// made from the rescued ones.
  Result<columnar::RecordBatchPtr> WithNulls(const columnar::RecordBatchPtr& present,
                                             int64_t num_rows);
  /// The rescued-data column of `num_rows` rows from `read`'s columns `first`.. (rescued_).
  Result<columnar::ColumnPtr> RescuedValues(const columnar::RecordBatch& read, int first,
                                            int64_t num_rows);

  std::string path_;
  std::unique_ptr<ParquetFileReader> file_;
  /// The selected columns with the scan's types.
  columnar::SchemaPtr schema_;
  std::vector<std::string> columns_;
  std::string rescued_data_column_;
  /// The columns_ the file has with the scan's types, in columns_' order.
  std::vector<std::string> present_;
  /// With a rescued-data column: the file's columns whose values go there.
  std::vector<std::string> rescued_;
  std::vector<std::string> unknown_fields_;
  columnar::MemoryPool* pool_;
  int next_row_group_ = 0;
  int end_row_group_ = 0;
  /// The row group being read; reads through file_, so it is declared (and reset) after it.
  std::unique_ptr<RowGroupReader> group_;
  /// Rows of the open row group not yet returned when the file has none of the columns read.
  int64_t null_rows_ = 0;
};

}  // namespace tributary::parquet

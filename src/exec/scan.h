// Leaf operators that read storage: a Delta snapshot, or a list of Parquet/JSON/CSV/text/
// binaryFile files. Both read one file at a time and hand out the bounded batches of their
// file reader (delta::DataFileReader, formats::FileReader), so memory holds a batch, not a file
// (text and binaryFile files are read whole).

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "delta/table_reader.h"
#include "exec/file_scan_spec.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "formats/file_reader.h"

namespace tributary::exec {

/// Reads the live rows of the node's Delta snapshot: its files left after pruning, one after
/// the other, decoding only the node's columns.
class DeltaScanOperator final : public Operator {
 public:
  /// InvalidArgument when `context` has no file system.
  static Result<OperatorPtr> Make(std::shared_ptr<const DeltaScanNode> node,
                                  const ExecContext& context);
  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }

 private:
  /// Where the scan is: the next file to open, and the file being read, a bounded batch at a
  /// time.
  struct State {
    size_t next_file = 0;
    std::unique_ptr<delta::DataFileReader> file_reader;
  };

  DeltaScanOperator(std::shared_ptr<const DeltaScanNode> node, const ExecContext& context);

  std::shared_ptr<const DeltaScanNode> node_;
  const ExecContext& context_;
  State state_;
};

/// Reads the node's files one after the other, each through the formats::FileReader of the
/// spec's format (formats::OpenFileReader), which decodes the file and reconciles it with the
/// data schema; the scan adds what comes from outside the file. Unselected columns are not
/// decoded where the format allows it. Partition and `_metadata` values are made once per file
/// and repeated into each of its batches.
class FileScanOperator final : public Operator {
 public:
  /// InvalidArgument when `context` has no file system.
  static Result<OperatorPtr> Make(std::shared_ptr<const FileScanNode> node,
                                  const ExecContext& context);
  /// The scan of `spec` with output `columns` (FileScanNode::Make, then the operator), for a
  /// scan without a plan.
  static Result<OperatorPtr> Make(FileScanSpec spec, const std::vector<std::string>& columns,
                                  const ExecContext& context);
  /// The schema of the rows this spec reads (before column selection): the data columns
  /// (Parquet's file schema, or the JSON/CSV output schema including the rescued-data column),
  /// the partition columns not among them, then `_metadata` when offered. `num_hidden`, when
  /// given, receives how many of the last columns are hidden (1 with `_metadata`, else 0).
  static Result<SchemaPtr> ScanSchema(const FileScanSpec& spec, storage::FileSystem& fs,
                                      int* num_hidden = nullptr);

  const SchemaPtr& OutputSchema() const override { return node_->Schema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }

 private:
  using OutputColumn = FileScanNode::OutputColumn;

  /// Where the scan is: the next file to open, the open file's reader (null between files)
  /// and its one-row constants, and the unknown fields the finished files reported.
  struct State {
    size_t next_file = 0;
    std::unique_ptr<formats::FileReader> reader;
    /// Per output, the current file's one-row column (kPartition, kMetadata), else null.
    std::vector<columnar::ColumnPtr> file_constants;
    /// Zeros for Take: repeats a one-row column into a batch.
    std::vector<int64_t> zeros;
    /// With on_unknown_fields: the distinct names, in order of first appearance.
    std::vector<std::string> unknown_fields;
    bool unknown_fields_reported = false;
  };

  FileScanOperator(std::shared_ptr<const FileScanNode> node, const ExecContext& context);
  Status OpenNextFile();
  /// The one-row columns of the file at `path` for the partition and metadata outputs.
  Status MakeFileConstants(const std::string& path);
  /// The scan's batch of `read` (the reader's columns) with the file's constants added.
  Result<RecordBatchPtr> Assemble(const RecordBatchPtr& read);
  /// Adds `names` to the state's unknown fields, skipping those already there.
  void NoteUnknownFields(const std::vector<std::string>& names);

  std::shared_ptr<const FileScanNode> node_;
  const ExecContext& context_;
  State state_;
};

}  // namespace tributary::exec

// Leaf operators that read storage: a Delta snapshot, or a list of Parquet/JSON/CSV/text/
// binaryFile files. Both read one file at a time and hand out the bounded batches of their
// file reader (delta::DataFileReader, formats::FileReader), so memory holds a batch, not a file
// (text and binaryFile files are read whole).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "delta/table_reader.h"
#include "exec/file_scan_spec.h"
#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "formats/file_reader.h"

namespace tributary::exec {

/// What the files of a scan part reported, kept for the parallel scan to pass on in order on
/// its consumer's thread: the spec's callbacks are neither thread-safe nor meant to be called
/// once per part.
struct ScanPartReport {
  /// Top-level fields outside the data schema (FileScanSpec::on_unknown_fields), distinct, in
  /// order of first appearance.
  std::vector<std::string> unknown_fields;
  /// Files skipped as corrupt (FileScanSpec::on_corrupt_file), in order, with their errors.
  std::vector<std::pair<std::string, Status>> corrupt_files;
};

/// A part of a scan that one thread reads (exec/parallel_scan.h): the files
/// [first_file, end_file) of the node's list, and of a Parquet file scan's files the row groups
/// `row_groups`. With a `report`, the part's unknown fields and corrupt files go there instead
/// of to the spec's callbacks. The default is the whole scan.
struct ScanPart {
  size_t first_file = 0;
  size_t end_file = SIZE_MAX;
  formats::FileReadOptions::RowGroupRange row_groups;
  ScanPartReport* report = nullptr;

  /// The part that is the node's file `file`, or of it the row groups `groups`.
  static ScanPart File(size_t file, formats::FileReadOptions::RowGroupRange groups = {}) {
    ScanPart part;
    part.first_file = file;
    part.end_file = file + 1;
    part.row_groups = groups;
    return part;
  }
};

/// Reads the live rows of the node's Delta snapshot: its files left after pruning, one after
/// the other, decoding only the node's columns.
class DeltaScanOperator final : public Operator {
 public:
  /// InvalidArgument when `context` has no file system. Reads the files of `part` only.
  static Result<OperatorPtr> Make(std::shared_ptr<const DeltaScanNode> node,
                                  const ExecContext& context, const ScanPart& part = {});
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

  DeltaScanOperator(std::shared_ptr<const DeltaScanNode> node, const ExecContext& context,
                    const ScanPart& part);

  std::shared_ptr<const DeltaScanNode> node_;
  const ExecContext& context_;
  const size_t end_file_;
  State state_;
};

/// Reads the node's files one after the other, each through the formats::FileReader of the
/// spec's format (formats::OpenFileReader), which decodes the file and reconciles it with the
/// data schema; the scan adds what comes from outside the file. Unselected columns are not
/// decoded where the format allows it. Partition and `_metadata` values are made once per file
/// and repeated into each of its batches.
class FileScanOperator final : public Operator {
 public:
  /// InvalidArgument when `context` has no file system. Reads the files of `part` only.
  static Result<OperatorPtr> Make(std::shared_ptr<const FileScanNode> node,
                                  const ExecContext& context, const ScanPart& part = {});
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

  FileScanOperator(std::shared_ptr<const FileScanNode> node, const ExecContext& context,
                   const ScanPart& part);
  Status OpenNextFile();
  /// The one-row columns of the file at `path` for the partition and metadata outputs.
  Status MakeFileConstants(const std::string& path);
  /// The scan's batch of `read` (the reader's columns) with the file's constants added.
  Result<RecordBatchPtr> Assemble(const RecordBatchPtr& read);
  /// Adds `names` to the state's unknown fields, skipping those already there.
  void NoteUnknownFields(const std::vector<std::string>& names);

  std::shared_ptr<const FileScanNode> node_;
  const ExecContext& context_;
  const size_t end_file_;
  const formats::FileReadOptions::RowGroupRange row_groups_;
  ScanPartReport* const report_;
  State state_;
};

}  // namespace tributary::exec

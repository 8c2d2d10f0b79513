#include "exec/scan.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "common/ascii.h"
#include "delta/data_skipping.h"
#include "delta/table_reader.h"
#include "exec/hive_partitioning.h"
#include "storage/path.h"

namespace tributary::exec {

namespace {

// Indices of `columns` in `schema` (Spark's case-insensitive resolution); all when empty.
Result<std::vector<int>> ResolveColumns(const columnar::Schema& schema,
                                        const std::vector<std::string>& columns) {
  std::vector<int> indices;
  if (columns.empty()) {
    for (int i = 0; i < schema.NumFields(); ++i) {
      indices.push_back(i);
    }
    return indices;
  }
  for (const std::string& name : columns) {
    int index = schema.FieldIndex(name);
    if (index < 0) {
      TRIBUTARY_ASSIGN_OR_RAISE(index, schema.FieldIndexIgnoreCase(name));
    }
    if (index < 0) {
      return Status::InvalidArgument(
          fmt::format("scan: no column '{}' among: {}", name, schema.ToString()));
    }
    indices.push_back(index);
  }
  return indices;
}

SchemaPtr SelectFields(const columnar::Schema& schema, const std::vector<int>& indices) {
  std::vector<columnar::Field> fields;
  fields.reserve(indices.size());
  for (int index : indices) {
    fields.push_back(schema.FieldAt(index));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

// Whether `context` lets a scan open files.
Status CheckFileSystem(const ExecContext& context, std::string_view scan) {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{} scan without a file system", scan));
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const DeltaScanNode>> DeltaScanNode::Make(
    std::shared_ptr<const delta::Snapshot> snapshot, const std::vector<std::string>& columns,
    expr::ExprPtr filter, const ExecContext& context) {
  TRIBUTARY_RETURN_NOT_OK(CheckFileSystem(context, "Delta"));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int> indices, ResolveColumns(*snapshot->Schema(), columns));
  std::vector<const delta::AddFile*> files;
  if (filter != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(files, delta::PruneFiles(*snapshot, *filter, context.eval));
  } else {
    for (const delta::AddFile& add : snapshot->Files()) {
      files.push_back(&add);
    }
  }
  SchemaPtr schema = SelectFields(*snapshot->Schema(), indices);
  return std::shared_ptr<const DeltaScanNode>(
      new DeltaScanNode(std::move(snapshot), std::move(indices), std::move(schema),
                        std::move(files), std::move(filter)));
}

DeltaScanNode::DeltaScanNode(std::shared_ptr<const delta::Snapshot> snapshot,
                             std::vector<int> column_indices, SchemaPtr schema,
                             std::vector<const delta::AddFile*> files, expr::ExprPtr filter)
    : PhysicalNode(PhysicalNodeKind::kDeltaScan, {}),
      snapshot_(std::move(snapshot)),
      column_indices_(std::move(column_indices)),
      schema_(std::move(schema)),
      files_(std::move(files)),
      filter_(std::move(filter)) {}

std::string DeltaScanNode::ToString() const {
  std::string out = fmt::format("DeltaScan({} v{}, files={}/{}", snapshot_->TableRoot(),
                                snapshot_->Version(), files_.size(), snapshot_->Files().size());
  if (filter_ != nullptr) {
    out += ", pushed=" + filter_->ToString();
  }
  return out + ")";
}

Result<OperatorPtr> DeltaScanOperator::Make(std::shared_ptr<const DeltaScanNode> node,
                                            const ExecContext& context, const ScanPart& part) {
  TRIBUTARY_RETURN_NOT_OK(CheckFileSystem(context, "Delta"));
  return OperatorPtr(new DeltaScanOperator(std::move(node), context, part));
}

DeltaScanOperator::DeltaScanOperator(std::shared_ptr<const DeltaScanNode> node,
                                     const ExecContext& context, const ScanPart& part)
    : node_(std::move(node)),
      context_(context),
      end_file_(std::min(part.end_file, node_->Files().size())) {
  state_.next_file = part.first_file;
}

Result<RecordBatchPtr> DeltaScanOperator::Next() {
  const std::vector<const delta::AddFile*>& files = node_->Files();
  while (true) {
    if (state_.file_reader == nullptr) {
      if (state_.next_file >= end_file_) {
        return RecordBatchPtr{};
      }
      delta::TableReadOptions options;
      options.session_time_zone = context_.eval.session_time_zone;
      options.pool = context_.eval.pool;
      // Only the scan's columns are decoded from each file.
      options.columns = node_->ColumnIndices();
      TRIBUTARY_ASSIGN_OR_RAISE(state_.file_reader,
                                delta::DataFileReader::Open(*context_.fs, *node_->Snapshot(),
                                                            *files[state_.next_file++], options));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, state_.file_reader->Next());
    if (batch != nullptr) {
      return batch;
    }
    state_.file_reader.reset();
  }
}

namespace {

// The readers' output schema: the data columns (Parquet: the spec's, else the first file's).
Result<SchemaPtr> ReaderSchema(const FileScanSpec& spec, storage::FileSystem& fs) {
  return formats::FileReadSchema(spec.format, spec.schema, spec.options, fs, spec.paths);
}

// The index of the field named `name` ignoring case, or -1 (also when several match).
int FieldIgnoringCase(const columnar::Schema& schema, const std::string& name) {
  Result<int> index = schema.FieldIndexIgnoreCase(name);
  return index.ok() ? *index : -1;
}

int PartitionIndex(const FileScanSpec& spec, const std::string& name) {
  return spec.partition_schema == nullptr ? -1 : FieldIgnoringCase(*spec.partition_schema, name);
}

}  // namespace

columnar::DataTypePtr MetadataColumnType() {
  static const columnar::DataTypePtr kType = columnar::DataType::Struct({
      columnar::Field("file_path", columnar::DataType::String()),
      columnar::Field("file_name", columnar::DataType::String()),
      columnar::Field("file_size", columnar::DataType::Int64()),
      columnar::Field("file_block_start", columnar::DataType::Int64()),
      columnar::Field("file_block_length", columnar::DataType::Int64()),
      columnar::Field("file_modification_time", columnar::DataType::Timestamp()),
  });
  return kType;
}

Result<SchemaPtr> FileScanOperator::ScanSchema(const FileScanSpec& spec, storage::FileSystem& fs,
                                               int* num_hidden) {
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr data, ReaderSchema(spec, fs));
  if (num_hidden != nullptr) {
    *num_hidden = 0;
  }
  const bool has_partitions =
      spec.partition_schema != nullptr && spec.partition_schema->NumFields() > 0;
  if (!has_partitions && !spec.metadata_column) {
    return data;
  }
  std::vector<columnar::Field> fields = data->Fields();
  if (has_partitions) {
    for (const columnar::Field& partition : spec.partition_schema->Fields()) {
      const int index = FieldIgnoringCase(*data, partition.Name());
      if (index >= 0) {
        fields[static_cast<size_t>(index)] =
            fields[static_cast<size_t>(index)].WithType(partition.Type()).WithNullable(true);
      } else {
        fields.push_back(partition.WithNullable(true));
      }
    }
  }
  const bool named_metadata =
      std::any_of(fields.begin(), fields.end(), [](const columnar::Field& field) {
        return EqualsIgnoreAsciiCase(field.Name(), kMetadataColumnName);
      });
  if (spec.metadata_column && !named_metadata) {
    fields.emplace_back(std::string(kMetadataColumnName), MetadataColumnType());
    if (num_hidden != nullptr) {
      *num_hidden = 1;
    }
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

Result<std::shared_ptr<const FileScanNode>> FileScanNode::Make(
    FileScanSpec spec, const std::vector<std::string>& columns, const ExecContext& context) {
  TRIBUTARY_RETURN_NOT_OK(CheckFileSystem(context, "file"));
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr reader_schema, ReaderSchema(spec, *context.fs));
  if (spec.format == formats::FileFormat::kParquet) {
    spec.schema = reader_schema;
  }
  int num_hidden = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full,
                            FileScanOperator::ScanSchema(spec, *context.fs, &num_hidden));
  if (spec.on_unknown_fields) {
    spec.options.json.report_unknown_fields = true;
    spec.options.csv.report_unknown_fields = true;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int> indices, ResolveColumns(*full, columns));
  if (columns.empty() && num_hidden > 0) {
    // All columns are the visible ones.
    indices.resize(indices.size() - static_cast<size_t>(num_hidden));
  }
  std::vector<std::string> read_names;
  std::vector<OutputColumn> outputs;
  for (int index : indices) {
    const std::string& name = full->FieldAt(index).Name();
    OutputColumn output;
    if (num_hidden > 0 && index == full->NumFields() - 1) {
      output.kind = OutputColumn::Kind::kMetadata;
    } else if (const int partition = PartitionIndex(spec, name); partition >= 0) {
      output.kind = OutputColumn::Kind::kPartition;
      output.index = partition;
    } else {
      output.index = static_cast<int>(read_names.size());
      read_names.push_back(name);
    }
    outputs.push_back(output);
  }
  if (read_names.empty() && reader_schema->NumFields() > 0) {
    // Only constants selected: the readers still decode one column to count the rows.
    read_names.push_back(reader_schema->FieldAt(0).Name());
  }
  SchemaPtr schema = SelectFields(*full, indices);
  return std::shared_ptr<const FileScanNode>(new FileScanNode(
      std::move(spec), std::move(read_names), std::move(outputs), std::move(schema)));
}

FileScanNode::FileScanNode(FileScanSpec spec, std::vector<std::string> read_columns,
                           std::vector<OutputColumn> outputs, SchemaPtr schema)
    : PhysicalNode(PhysicalNodeKind::kFileScan, {}),
      spec_(std::move(spec)),
      read_columns_(std::move(read_columns)),
      outputs_(std::move(outputs)),
      schema_(std::move(schema)),
      has_file_constants_(std::any_of(
          outputs_.begin(), outputs_.end(),
          [](const OutputColumn& output) { return output.kind != OutputColumn::Kind::kRead; })) {}

std::string FileScanNode::ToString() const {
  return fmt::format("FileScan({}, files={})", formats::FileFormatName(spec_.format),
                     spec_.paths.size());
}

Result<OperatorPtr> FileScanOperator::Make(std::shared_ptr<const FileScanNode> node,
                                           const ExecContext& context, const ScanPart& part) {
  TRIBUTARY_RETURN_NOT_OK(CheckFileSystem(context, "file"));
  return OperatorPtr(new FileScanOperator(std::move(node), context, part));
}

Result<OperatorPtr> FileScanOperator::Make(FileScanSpec spec,
                                           const std::vector<std::string>& columns,
                                           const ExecContext& context) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<const FileScanNode> node,
                            FileScanNode::Make(std::move(spec), columns, context));
  return Make(std::move(node), context);
}

FileScanOperator::FileScanOperator(std::shared_ptr<const FileScanNode> node,
                                   const ExecContext& context, const ScanPart& part)
    : node_(std::move(node)),
      context_(context),
      end_file_(std::min(part.end_file, node_->Spec().paths.size())),
      row_groups_(part.row_groups),
      report_(part.report) {
  state_.next_file = part.first_file;
}

Status FileScanOperator::MakeFileConstants(const std::string& path) {
  const FileScanSpec& spec = node_->Spec();
  const std::vector<OutputColumn>& outputs = node_->Outputs();
  state_.file_constants.assign(outputs.size(), nullptr);
  std::optional<std::vector<PartitionDirectory>> directories;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputColumn& output = outputs[i];
    if (output.kind == OutputColumn::Kind::kPartition) {
      if (!directories.has_value()) {
        directories = PartitionDirectories(spec.partition_root, path);
      }
      const columnar::Field& field = spec.partition_schema->FieldAt(output.index);
      std::optional<std::string> value;
      for (const PartitionDirectory& directory : *directories) {
        if (EqualsIgnoreAsciiCase(directory.key, field.Name())) {
          value = directory.value;
          break;
        }
      }
      TRIBUTARY_ASSIGN_OR_RAISE(state_.file_constants[i],
                                PartitionValueColumn(value, field.Type(), context_.eval));
    } else if (output.kind == OutputColumn::Kind::kMetadata) {
      auto info = context_.fs->GetFileInfo(path);
      if (!info.ok()) {
        return info.status().WithContext(fmt::format("the _metadata of {}", path));
      }
      columnar::ColumnBuilder builder(MetadataColumnType(), context_.eval.pool);
      builder.Child(0).AppendBytes(path);
      builder.Child(1).AppendBytes(storage::BaseName(path));
      builder.Child(2).AppendInt(info->size);
      builder.Child(3).AppendInt(0);
      builder.Child(4).AppendInt(info->size);
      builder.Child(5).AppendInt(info->modification_time_ms * 1000);
      builder.AppendStruct();
      TRIBUTARY_ASSIGN_OR_RAISE(state_.file_constants[i], builder.Finish());
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> FileScanOperator::Assemble(const RecordBatchPtr& read) {
  const SchemaPtr& schema = node_->Schema();
  const std::vector<OutputColumn>& outputs = node_->Outputs();
  if (read->NumColumns() != static_cast<int>(node_->ReadColumns().size())) {
    return Status::InvalidArgument(fmt::format("file {} has {} columns where the scan expects {}",
                                               node_->Spec().paths[state_.next_file - 1],
                                               read->NumColumns(), node_->ReadColumns().size()));
  }
  const int64_t rows = read->NumRows();
  if (state_.file_constants.empty()) {
    // Only read columns, in the scan's order.
    return read->Schema()->Equals(*schema)
               ? read
               : columnar::RecordBatch::Make(schema, rows, read->Columns());
  }
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].kind == OutputColumn::Kind::kRead) {
      columns.push_back(read->ColumnAt(outputs[i].index));
      continue;
    }
    if (state_.zeros.size() < static_cast<size_t>(rows)) {
      state_.zeros.resize(static_cast<size_t>(rows), 0);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::ColumnPtr repeated,
        columnar::Take(*state_.file_constants[i],
                       std::span<const int64_t>(state_.zeros.data(), static_cast<size_t>(rows)),
                       context_.eval.pool));
    columns.push_back(std::move(repeated));
  }
  return columnar::RecordBatch::Make(schema, rows, std::move(columns));
}

Status FileScanOperator::OpenNextFile() {
  const FileScanSpec& spec = node_->Spec();
  const std::string& path = spec.paths[state_.next_file++];
  if (node_->HasFileConstants()) {
    TRIBUTARY_RETURN_NOT_OK(MakeFileConstants(path));
  }
  const formats::FileReadOptions* options = &spec.options;
  formats::FileReadOptions part_options;
  if (row_groups_.first != 0 || row_groups_.end != INT32_MAX) {
    part_options = spec.options;
    part_options.parquet_row_groups = row_groups_;
    options = &part_options;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      state_.reader, formats::OpenFileReader(spec.format, *context_.fs, path, spec.schema, *options,
                                             node_->ReadColumns(), context_.eval.pool));
  if (spec.on_unknown_fields) {
    // Parquet knows its file's unknown fields from the footer, before any row is read.
    NoteUnknownFields(state_.reader->UnknownFields());
  }
  return Status::OK();
}

Result<RecordBatchPtr> FileScanOperator::Next() {
  const FileScanSpec& spec = node_->Spec();
  while (true) {
    RecordBatchPtr batch;
    Status failed;
    if (state_.reader != nullptr) {
      auto read = state_.reader->Next();
      if (!read.ok()) {
        failed = read.status();
      } else if (*read != nullptr) {
        batch = std::move(*read);
      } else {
        if (spec.on_unknown_fields) {
          NoteUnknownFields(state_.reader->UnknownFields());
        }
        state_.reader.reset();
      }
    } else if (state_.next_file < end_file_) {
      failed = OpenNextFile();
      if (failed.ok()) {
        continue;
      }
    } else {
      if (!state_.unknown_fields.empty() && !state_.unknown_fields_reported) {
        state_.unknown_fields_reported = true;
        if (report_ != nullptr) {
          report_->unknown_fields = state_.unknown_fields;
        } else {
          TRIBUTARY_RETURN_NOT_OK(spec.on_unknown_fields(state_.unknown_fields, spec.paths));
        }
      }
      return RecordBatchPtr{};
    }
    if (!failed.ok()) {
      const bool skippable = spec.on_corrupt_file && !failed.IsNotFound() && !failed.IsRetryable();
      if (!skippable) {
        return failed;
      }
      const std::string& path = spec.paths[state_.next_file - 1];
      if (report_ != nullptr) {
        report_->corrupt_files.emplace_back(path, failed);
      } else {
        spec.on_corrupt_file(path, failed);
      }
      state_.reader.reset();
      continue;
    }
    if (batch != nullptr && batch->NumRows() > 0) {
      // Readers name fields as the file does; the scan's schema (made once) is what
      // consumers bound their expressions against.
      return Assemble(batch);
    }
  }
}

void FileScanOperator::NoteUnknownFields(const std::vector<std::string>& names) {
  std::vector<std::string>& known = state_.unknown_fields;
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      known.push_back(name);
    }
  }
}

}  // namespace tributary::exec

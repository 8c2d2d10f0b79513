#include "exec/scan.h"

#include <algorithm>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
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
Result<std::vector<int>> ColumnIndices(const columnar::Schema& schema,
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

}  // namespace

Result<OperatorPtr> DeltaScanOperator::Make(std::shared_ptr<const delta::Snapshot> snapshot,
                                            std::vector<std::string> columns, expr::ExprPtr filter,
                                            const ExecContext& context) {
  if (context.fs == nullptr) {
    return Status::InvalidArgument("Delta scan without a file system");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int> indices, ColumnIndices(*snapshot->Schema(), columns));
  std::vector<const delta::AddFile*> files;
  if (filter != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(files, delta::PruneFiles(*snapshot, *filter, context.eval));
  } else {
    for (const delta::AddFile& add : snapshot->Files()) {
      files.push_back(&add);
    }
  }
  SchemaPtr schema = SelectFields(*snapshot->Schema(), indices);
  return OperatorPtr(new DeltaScanOperator(std::move(snapshot), std::move(indices),
                                           std::move(schema), std::move(files), std::move(filter),
                                           context));
}

DeltaScanOperator::DeltaScanOperator(std::shared_ptr<const delta::Snapshot> snapshot,
                                     std::vector<int> indices, SchemaPtr schema,
                                     std::vector<const delta::AddFile*> files, expr::ExprPtr filter,
                                     const ExecContext& context)
    : snapshot_(std::move(snapshot)),
      indices_(std::move(indices)),
      schema_(std::move(schema)),
      files_(std::move(files)),
      filter_(std::move(filter)),
      context_(context) {}

Result<RecordBatchPtr> DeltaScanOperator::Next() {
  while (true) {
    if (file_reader_ == nullptr) {
      if (next_file_ >= files_.size()) {
        return RecordBatchPtr{};
      }
      delta::TableReadOptions options;
      options.session_time_zone = context_.eval.session_time_zone;
      options.pool = context_.eval.pool;
      // Only the scan's columns are decoded from each file.
      options.columns = indices_;
      TRIBUTARY_ASSIGN_OR_RAISE(
          file_reader_,
          delta::DataFileReader::Open(*context_.fs, *snapshot_, *files_[next_file_++], options));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, file_reader_->Next());
    if (batch != nullptr) {
      return batch;
    }
    file_reader_.reset();
  }
}

std::string DeltaScanOperator::ToString() const {
  std::string out = fmt::format("DeltaScan({} v{}, files={}/{}", snapshot_->TableRoot(),
                                snapshot_->Version(), files_.size(), snapshot_->Files().size());
  if (filter_ != nullptr) {
    out += ", pushed=" + filter_->ToString();
  }
  return out + ")";
}

Result<FileFormat> FileFormatFromName(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "parquet") {
    return FileFormat::kParquet;
  }
  if (lower == "json") {
    return FileFormat::kJson;
  }
  if (lower == "csv") {
    return FileFormat::kCsv;
  }
  if (lower == "text") {
    return FileFormat::kText;
  }
  if (lower == "binaryfile") {
    return FileFormat::kBinaryFile;
  }
  return Status::InvalidArgument(fmt::format(
      "unknown file format '{}': expected parquet, json, csv, text or binaryFile", name));
}

namespace {

// The readers' output schema: the data columns (Parquet: the spec's, else the first file's).
Result<SchemaPtr> ReaderSchema(const FileScanSpec& spec, storage::FileSystem& fs) {
  switch (spec.format) {
    case FileFormat::kParquet: {
      if (spec.schema != nullptr) {
        return spec.schema;
      }
      if (spec.paths.empty()) {
        return Status::InvalidArgument("parquet scan of no files needs a schema");
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::Open(fs, spec.paths[0]));
      return reader->Schema();
    }
    case FileFormat::kJson:
      if (spec.schema == nullptr) {
        return Status::InvalidArgument("json scan without a schema");
      }
      return json::JsonOutputSchema(*spec.schema, spec.json);
    case FileFormat::kCsv:
      if (spec.schema == nullptr) {
        return Status::InvalidArgument("csv scan without a schema");
      }
      return csv::CsvOutputSchema(*spec.schema, spec.csv);
    case FileFormat::kText:
      return std::make_shared<const columnar::Schema>(
          std::vector<columnar::Field>{columnar::Field("value", columnar::DataType::String())});
    case FileFormat::kBinaryFile:
      return std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
          columnar::Field("path", columnar::DataType::String()),
          columnar::Field("modificationTime", columnar::DataType::Timestamp()),
          columnar::Field("length", columnar::DataType::Int64()),
          columnar::Field("content", columnar::DataType::Binary())});
  }
  return Status::Internal("unknown file format");
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
  static const columnar::DataTypePtr type = columnar::DataType::Struct({
      columnar::Field("file_path", columnar::DataType::String()),
      columnar::Field("file_name", columnar::DataType::String()),
      columnar::Field("file_size", columnar::DataType::Int64()),
      columnar::Field("file_block_start", columnar::DataType::Int64()),
      columnar::Field("file_block_length", columnar::DataType::Int64()),
      columnar::Field("file_modification_time", columnar::DataType::Timestamp()),
  });
  return type;
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

Result<OperatorPtr> FileScanOperator::Make(FileScanSpec spec, std::vector<std::string> columns,
                                           const ExecContext& context) {
  if (context.fs == nullptr) {
    return Status::InvalidArgument("file scan without a file system");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr reader_schema, ReaderSchema(spec, *context.fs));
  if (spec.format == FileFormat::kParquet) {
    spec.schema = reader_schema;
  }
  int num_hidden = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full, ScanSchema(spec, *context.fs, &num_hidden));
  if (spec.on_unknown_fields) {
    spec.json.report_unknown_fields = true;
    spec.csv.report_unknown_fields = true;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int> indices, ColumnIndices(*full, columns));
  if (columns.empty() && num_hidden > 0) {
    // All columns are the visible ones.
    indices.resize(indices.size() - static_cast<size_t>(num_hidden));
  }
  std::vector<std::string> read_names;
  std::vector<int> read_indices;
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
      read_indices.push_back(reader_schema->FieldIndex(name));
    }
    outputs.push_back(output);
  }
  if (read_names.empty() && reader_schema->NumFields() > 0) {
    // Only constants selected: the readers still decode one column to count the rows.
    read_names.push_back(reader_schema->FieldAt(0).Name());
    read_indices.push_back(0);
  }
  SchemaPtr read_schema = SelectFields(*reader_schema, read_indices);
  SchemaPtr schema = SelectFields(*full, indices);
  return OperatorPtr(new FileScanOperator(std::move(spec), std::move(read_names),
                                          std::move(read_schema), std::move(outputs),
                                          std::move(schema), context));
}

FileScanOperator::FileScanOperator(FileScanSpec spec, std::vector<std::string> columns,
                                   SchemaPtr read_schema, std::vector<OutputColumn> outputs,
                                   SchemaPtr schema, const ExecContext& context)
    : spec_(std::move(spec)),
      columns_(std::move(columns)),
      read_schema_(std::move(read_schema)),
      outputs_(std::move(outputs)),
      schema_(std::move(schema)),
      context_(context) {}

Status FileScanOperator::MakeFileConstants(const std::string& path) {
  file_constants_.assign(outputs_.size(), nullptr);
  std::optional<std::vector<PartitionDirectory>> directories;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const OutputColumn& output = outputs_[i];
    if (output.kind == OutputColumn::Kind::kPartition) {
      if (!directories.has_value()) {
        directories = PartitionDirectories(spec_.partition_root, path);
      }
      const columnar::Field& field = spec_.partition_schema->FieldAt(output.index);
      std::optional<std::string> value;
      for (const PartitionDirectory& directory : *directories) {
        if (EqualsIgnoreAsciiCase(directory.key, field.Name())) {
          value = directory.value;
          break;
        }
      }
      TRIBUTARY_ASSIGN_OR_RAISE(file_constants_[i],
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
      TRIBUTARY_ASSIGN_OR_RAISE(file_constants_[i], builder.Finish());
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> FileScanOperator::Assemble(const RecordBatchPtr& read) {
  if (read->NumColumns() != static_cast<int>(columns_.size())) {
    return Status::InvalidArgument(fmt::format("file {} has {} columns where the scan expects {}",
                                               spec_.paths[next_file_ - 1], read->NumColumns(),
                                               columns_.size()));
  }
  const int64_t rows = read->NumRows();
  if (file_constants_.empty()) {
    // Only read columns, in the scan's order.
    return read->Schema()->Equals(*schema_)
               ? read
               : columnar::RecordBatch::Make(schema_, rows, read->Columns());
  }
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].kind == OutputColumn::Kind::kRead) {
      columns.push_back(read->ColumnAt(outputs_[i].index));
      continue;
    }
    if (zeros_.size() < static_cast<size_t>(rows)) {
      zeros_.resize(static_cast<size_t>(rows), 0);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::ColumnPtr repeated,
        columnar::Take(*file_constants_[i],
                       std::span<const int64_t>(zeros_.data(), static_cast<size_t>(rows)),
                       context_.eval.pool));
    columns.push_back(std::move(repeated));
  }
  return columnar::RecordBatch::Make(schema_, rows, std::move(columns));
}

Status FileScanOperator::OpenNextFile() {
  const std::string& path = spec_.paths[next_file_++];
  if (std::any_of(outputs_.begin(), outputs_.end(), [](const OutputColumn& output) {
        return output.kind != OutputColumn::Kind::kRead;
      })) {
    TRIBUTARY_RETURN_NOT_OK(MakeFileConstants(path));
  }
  switch (spec_.format) {
    case FileFormat::kParquet: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          parquet_, parquet::ParquetFileReader::Open(*context_.fs, path, context_.pool));
      next_row_group_ = 0;
      parquet_group_.reset();
      parquet_null_rows_ = 0;
      // The files of one scan may differ in columns (a stream's files over time): the columns
      // a file lacks read as nulls, and with on_unknown_fields its columns outside the spec's
      // schema are reported, from the footer alone.
      const columnar::Schema& file_schema = *parquet_->Schema();
      const bool rescue = !spec_.parquet_rescued_data_column.empty();
      parquet_columns_.clear();
      parquet_rescued_.clear();
      for (size_t i = 0; i < columns_.size(); ++i) {
        const int at = file_schema.FieldIndex(columns_[i]);
        if (at < 0) {
          continue;
        }
        // Nullability and field metadata may differ between writers; the shape may not.
        const columnar::DataType& found = *file_schema.FieldAt(at).Type();
        const columnar::DataType& expected = *read_schema_->FieldAt(static_cast<int>(i)).Type();
        if (found.SameShape(expected)) {
          parquet_columns_.push_back(columns_[i]);
        } else if (rescue) {
          parquet_rescued_.push_back(columns_[i]);
        } else {
          // Spark: "Parquet column cannot be converted in file ...". Reading the file's values
          // under the scan's type would misread them.
          return Status::InvalidArgument(
              fmt::format("{}: Parquet column '{}' cannot be read as {}: the file stores it as {}",
                          path, columns_[i], expected.ToString(), found.ToString()));
        }
      }
      std::vector<std::string> extra;
      for (const columnar::Field& field : file_schema.Fields()) {
        if (spec_.schema->FieldIndex(field.Name()) < 0) {
          extra.push_back(field.Name());
          if (rescue) {
            parquet_rescued_.push_back(field.Name());
          }
        }
      }
      if (spec_.on_unknown_fields) {
        NoteUnknownFields(extra);
      }
      return Status::OK();
    }
    case FileFormat::kJson: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          json_, json::JsonReader::Open(*context_.fs, path, spec_.schema, spec_.json, columns_,
                                        context_.eval.pool));
      return Status::OK();
    }
    case FileFormat::kCsv: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          csv_, csv::CsvReader::Open(*context_.fs, path, spec_.schema, spec_.csv, columns_,
                                     context_.eval.pool));
      return Status::OK();
    }
    case FileFormat::kText:
    case FileFormat::kBinaryFile: {
      TRIBUTARY_ASSIGN_OR_RAISE(whole_file_, ReadWholeFile(path));
      return Status::OK();
    }
  }
  return Status::Internal("unknown file format");
}

Result<RecordBatchPtr> FileScanOperator::ReadWholeFile(const std::string& path) {
  std::vector<columnar::ColumnPtr> columns;
  int64_t num_rows = 0;
  if (spec_.format == FileFormat::kText) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, context_.fs->ReadFile(path));
    columnar::ColumnBuilder values(columnar::DataType::String(), context_.eval.pool);
    if (spec_.whole_text) {
      values.AppendBytes(text);
    } else {
      // Spark's default line separators: \n, \r\n and \r; no row after a final separator.
      const std::string_view all(text);
      size_t start = 0;
      while (start < all.size()) {
        size_t end = all.find_first_of("\r\n", start);
        if (end == std::string_view::npos) {
          end = all.size();
        }
        values.AppendBytes(all.substr(start, end - start));
        start = end + (all.compare(end, 2, "\r\n") == 0 ? 2 : 1);
      }
    }
    num_rows = values.Length();
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, values.Finish());
    columns.push_back(std::move(column));
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(storage::FileInfo info, context_.fs->GetFileInfo(path));
    TRIBUTARY_ASSIGN_OR_RAISE(std::string content, context_.fs->ReadFile(path));
    columnar::ColumnBuilder path_column(columnar::DataType::String(), context_.eval.pool);
    columnar::ColumnBuilder time_column(columnar::DataType::Timestamp(), context_.eval.pool);
    columnar::ColumnBuilder length_column(columnar::DataType::Int64(), context_.eval.pool);
    columnar::ColumnBuilder content_column(columnar::DataType::Binary(), context_.eval.pool);
    path_column.AppendBytes(path);
    time_column.AppendInt(info.modification_time_ms * 1000);
    length_column.AppendInt(static_cast<int64_t>(content.size()));
    content_column.AppendBytes(content);
    num_rows = 1;
    for (columnar::ColumnBuilder* builder :
         {&path_column, &time_column, &length_column, &content_column}) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder->Finish());
      columns.push_back(std::move(column));
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full, ReaderSchema(spec_, *context_.fs));
  std::vector<columnar::ColumnPtr> selected;
  for (const std::string& name : columns_) {
    selected.push_back(columns[static_cast<size_t>(full->FieldIndex(name))]);
  }
  return columnar::RecordBatch::Make(read_schema_, num_rows, std::move(selected));
}

Result<RecordBatchPtr> FileScanOperator::ReadOpenFile() {
  RecordBatchPtr batch;
  if (whole_file_ != nullptr) {
    batch = std::move(whole_file_);
    whole_file_.reset();
    // A file of no rows is done; the caller goes on to the next file.
    return batch;
  }
  if (parquet_ != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(batch, ReadParquetBatch());
    if (batch == nullptr) {
      parquet_group_.reset();
      parquet_.reset();
    }
  } else if (json_ != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(batch, json_->Next());
    if (batch == nullptr) {
      NoteUnknownFields(json_->Metrics().unknown_fields);
      json_.reset();
    }
  } else if (csv_ != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(batch, csv_->Next());
    if (batch == nullptr) {
      NoteUnknownFields(csv_->Metrics().unknown_fields);
      csv_.reset();
    }
  }
  return batch;
}

Result<columnar::ColumnPtr> FileScanOperator::RescuedParquetValues(
    const columnar::RecordBatch& read, int first, int64_t num_rows) {
  columnar::ColumnBuilder rescued(columnar::DataType::String(), context_.pool);
  std::string object;
  for (int64_t row = 0; row < num_rows; ++row) {
    object.clear();
    for (int c = first; c < read.NumColumns(); ++c) {
      const columnar::Column& column = *read.ColumnAt(c);
      if (column.IsNull(row)) {
        continue;
      }
      object += object.empty() ? "{" : ",";
      columnar::AppendJsonString(parquet_rescued_[static_cast<size_t>(c - first)], &object);
      object += ':';
      columnar::AppendCanonicalJsonValue(column, row, &object);
    }
    if (object.empty()) {
      rescued.AppendNull();
      continue;
    }
    object += ",\"_file_path\":";
    columnar::AppendJsonString(spec_.paths[next_file_ - 1], &object);
    object += '}';
    rescued.AppendBytes(object);
  }
  return rescued.Finish();
}

Result<RecordBatchPtr> FileScanOperator::ReadParquetBatch() {
  // The file has every column with the scan's type: its batches are the scan's.
  const bool as_read = parquet_columns_.size() == columns_.size() && parquet_rescued_.empty();
  std::vector<std::string> names = parquet_columns_;
  names.insert(names.end(), parquet_rescued_.begin(), parquet_rescued_.end());
  while (true) {
    if (parquet_null_rows_ > 0) {
      const int64_t rows = std::min(parquet_null_rows_, parquet::kDefaultBatchRows);
      parquet_null_rows_ -= rows;
      return WithNulls(nullptr, rows);
    }
    if (parquet_group_ == nullptr) {
      if (next_row_group_ >= parquet_->NumRowGroups()) {
        return RecordBatchPtr();
      }
      const int index = next_row_group_++;
      if (!as_read && names.empty()) {
        // No column to decode: the row group's rows are all null, counted from its metadata.
        parquet_null_rows_ = parquet_->Metadata().row_groups[static_cast<size_t>(index)].num_rows;
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(parquet_group_,
                                parquet_->OpenRowGroup(index, as_read ? columns_ : names));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr read, parquet_group_->Next());
    if (read == nullptr) {
      parquet_group_.reset();
      continue;
    }
    if (as_read) {
      return read;
    }
    return WithNulls(read, read->NumRows());
  }
}

Result<RecordBatchPtr> FileScanOperator::WithNulls(const RecordBatchPtr& present,
                                                   int64_t num_rows) {
  std::vector<columnar::ColumnPtr> columns;
  size_t next_present = 0;
  for (int i = 0; i < read_schema_->NumFields(); ++i) {
    if (next_present < parquet_columns_.size() &&
        parquet_columns_[next_present] == columns_[static_cast<size_t>(i)]) {
      columns.push_back(present->ColumnAt(static_cast<int>(next_present++)));
      continue;
    }
    if (present != nullptr && !spec_.parquet_rescued_data_column.empty() &&
        columns_[static_cast<size_t>(i)] == spec_.parquet_rescued_data_column) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          columnar::ColumnPtr rescued,
          RescuedParquetValues(*present, static_cast<int>(parquet_columns_.size()), num_rows));
      columns.push_back(std::move(rescued));
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::ColumnPtr nulls,
        columnar::Column::MakeAllNull(read_schema_->FieldAt(i).Type(), num_rows, context_.pool));
    columns.push_back(std::move(nulls));
  }
  return columnar::RecordBatch::Make(read_schema_, num_rows, std::move(columns));
}

Result<RecordBatchPtr> FileScanOperator::Next() {
  while (true) {
    RecordBatchPtr batch;
    Status failed;
    if (parquet_ != nullptr || json_ != nullptr || csv_ != nullptr || whole_file_ != nullptr) {
      auto read = ReadOpenFile();
      if (read.ok()) {
        batch = std::move(*read);
      } else {
        failed = read.status();
      }
    } else if (next_file_ < spec_.paths.size()) {
      failed = OpenNextFile();
      if (failed.ok()) {
        continue;
      }
    } else {
      if (!unknown_fields_.empty() && !unknown_fields_reported_) {
        unknown_fields_reported_ = true;
        TRIBUTARY_RETURN_NOT_OK(spec_.on_unknown_fields(unknown_fields_, spec_.paths));
      }
      return RecordBatchPtr{};
    }
    if (!failed.ok()) {
      const bool skippable = spec_.on_corrupt_file && !failed.IsNotFound() && !failed.IsRetryable();
      if (!skippable) {
        return failed;
      }
      spec_.on_corrupt_file(spec_.paths[next_file_ - 1], failed);
      parquet_group_.reset();
      parquet_.reset();
      json_.reset();
      csv_.reset();
      whole_file_.reset();
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
  for (const std::string& name : names) {
    if (std::find(unknown_fields_.begin(), unknown_fields_.end(), name) == unknown_fields_.end()) {
      unknown_fields_.push_back(name);
    }
  }
}

std::string FileScanOperator::ToString() const {
  static constexpr const char* kNames[] = {"parquet", "json", "csv", "text", "binaryFile"};
  return fmt::format("FileScan({}, files={})", kNames[static_cast<int>(spec_.format)],
                     spec_.paths.size());
}

}  // namespace tributary::exec

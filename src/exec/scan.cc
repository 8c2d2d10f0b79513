#include "exec/scan.h"

#include <algorithm>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "common/ascii.h"
#include "delta/data_skipping.h"
#include "delta/table_reader.h"

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
  while (next_pending_ >= pending_.size()) {
    if (next_file_ >= files_.size()) {
      return RecordBatchPtr{};
    }
    delta::TableReadOptions options;
    options.session_time_zone = context_.eval.session_time_zone;
    options.pool = context_.eval.pool;
    // Only the scan's columns are decoded from each file.
    options.columns = indices_;
    TRIBUTARY_ASSIGN_OR_RAISE(
        pending_, delta::ReadDataFile(*context_.fs, *snapshot_, *files_[next_file_++], options));
    next_pending_ = 0;
  }
  return pending_[next_pending_++];
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

Result<SchemaPtr> FileScanOperator::ScanSchema(const FileScanSpec& spec, storage::FileSystem& fs) {
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

Result<OperatorPtr> FileScanOperator::Make(FileScanSpec spec, std::vector<std::string> columns,
                                           const ExecContext& context) {
  if (context.fs == nullptr) {
    return Status::InvalidArgument("file scan without a file system");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full, ScanSchema(spec, *context.fs));
  if (spec.format == FileFormat::kParquet) {
    spec.schema = full;
  }
  if (spec.on_unknown_fields) {
    spec.json.report_unknown_fields = true;
    spec.csv.report_unknown_fields = true;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int> indices, ColumnIndices(*full, columns));
  std::vector<std::string> names;
  for (int index : indices) {
    names.push_back(full->FieldAt(index).Name());
  }
  SchemaPtr schema = SelectFields(*full, indices);
  return OperatorPtr(
      new FileScanOperator(std::move(spec), std::move(names), std::move(schema), context));
}

FileScanOperator::FileScanOperator(FileScanSpec spec, std::vector<std::string> columns,
                                   SchemaPtr schema, const ExecContext& context)
    : spec_(std::move(spec)),
      columns_(std::move(columns)),
      schema_(std::move(schema)),
      context_(context) {}

Status FileScanOperator::OpenNextFile() {
  const std::string& path = spec_.paths[next_file_++];
  switch (spec_.format) {
    case FileFormat::kParquet: {
      TRIBUTARY_ASSIGN_OR_RAISE(
          parquet_, parquet::ParquetFileReader::Open(*context_.fs, path, context_.pool));
      next_row_group_ = 0;
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
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full, ScanSchema(spec_, *context_.fs));
  std::vector<columnar::ColumnPtr> selected;
  for (const std::string& name : columns_) {
    selected.push_back(columns[static_cast<size_t>(full->FieldIndex(name))]);
  }
  return columnar::RecordBatch::Make(schema_, num_rows, std::move(selected));
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
    if (next_row_group_ < parquet_->NumRowGroups()) {
      TRIBUTARY_ASSIGN_OR_RAISE(batch, parquet_->ReadRowGroup(next_row_group_++, columns_));
    } else {
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
      parquet_.reset();
      json_.reset();
      csv_.reset();
      whole_file_.reset();
      continue;
    }
    if (batch != nullptr && batch->NumRows() > 0) {
      // Readers name fields as the file does; the scan's schema (made once) is what
      // consumers bound their expressions against.
      if (!batch->Schema()->Equals(*schema_)) {
        if (batch->NumColumns() != schema_->NumFields()) {
          return Status::InvalidArgument(
              fmt::format("file {} has {} columns where the scan expects {}",
                          spec_.paths[next_file_ - 1], batch->NumColumns(), schema_->NumFields()));
        }
        return columnar::RecordBatch::Make(schema_, batch->NumRows(), batch->Columns());
      }
      return batch;
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

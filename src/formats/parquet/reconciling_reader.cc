#include "formats/parquet/reconciling_reader.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"

namespace tributary::parquet {

Result<std::unique_ptr<ReconcilingReader>> ReconcilingReader::Open(
    storage::FileSystem& fs, const std::string& path, const columnar::SchemaPtr& schema,
    const std::vector<std::string>& columns, std::string rescued_data_column,
    columnar::MemoryPool* pool, int first_row_group, int end_row_group) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (const std::string& name : columns) {
    const int index = schema->FieldIndex(name);
    if (index < 0) {
      return Status::InvalidArgument(
          fmt::format("Parquet scan: no column '{}' among: {}", name, schema->ToString()));
    }
    fields.push_back(schema->FieldAt(index));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<ParquetFileReader> file,
                            ParquetFileReader::Open(fs, path, pool));
  std::unique_ptr<ReconcilingReader> reader(new ReconcilingReader(
      path, std::move(file), std::make_shared<columnar::Schema>(std::move(fields)), columns,
      std::move(rescued_data_column), pool));
  TRIBUTARY_RETURN_NOT_OK(reader->Reconcile(*schema));
  reader->next_row_group_ = std::max(0, first_row_group);
  reader->end_row_group_ = std::min(end_row_group, reader->file_->NumRowGroups());
  return reader;
}

ReconcilingReader::ReconcilingReader(std::string path, std::unique_ptr<ParquetFileReader> file,
                                     columnar::SchemaPtr schema, std::vector<std::string> columns,
                                     std::string rescued_data_column, columnar::MemoryPool* pool)
    : path_(std::move(path)),
      file_(std::move(file)),
      schema_(std::move(schema)),
      columns_(std::move(columns)),
      rescued_data_column_(std::move(rescued_data_column)),
      pool_(pool) {}

Status ReconcilingReader::Reconcile(const columnar::Schema& data_schema) {
  // Decided from the footer alone: the columns the file lacks read as nulls, its columns
  // outside the scan's schema are unknown fields.
  const columnar::Schema& file_schema = *file_->Schema();
  const bool rescue = !rescued_data_column_.empty();
  for (size_t i = 0; i < columns_.size(); ++i) {
    const int at = file_schema.FieldIndex(columns_[i]);
    if (at < 0) {
      continue;
    }
    // Nullability and field metadata may differ between writers; the shape may not.
    const columnar::DataType& found = *file_schema.FieldAt(at).Type();
    const columnar::DataType& expected = *schema_->FieldAt(static_cast<int>(i)).Type();
    if (found.SameShape(expected)) {
      present_.push_back(columns_[i]);
    } else if (rescue) {
      rescued_.push_back(columns_[i]);
    } else {
      // Spark: "Parquet column cannot be converted in file ...". Reading the file's values
      // under the scan's type would misread them.
      return Status::InvalidArgument(
          fmt::format("{}: Parquet column '{}' cannot be read as {}: the file stores it as {}",
                      path_, columns_[i], expected.ToString(), found.ToString()));
    }
  }
  for (const columnar::Field& field : file_schema.Fields()) {
    if (data_schema.FieldIndex(field.Name()) < 0) {
      if (std::find(unknown_fields_.begin(), unknown_fields_.end(), field.Name()) ==
          unknown_fields_.end()) {
        unknown_fields_.push_back(field.Name());
      }
      if (rescue) {
        rescued_.push_back(field.Name());
      }
    }
  }
  return Status::OK();
}

Result<columnar::RecordBatchPtr> ReconcilingReader::Next() {
  // The file has every column with the scan's type: its batches are the scan's.
  const bool as_read = present_.size() == columns_.size() && rescued_.empty();
  while (true) {
    if (null_rows_ > 0) {
      const int64_t rows = std::min(null_rows_, kDefaultBatchRows);
      null_rows_ -= rows;
      return WithNulls(nullptr, rows);
    }
    if (group_ == nullptr) {
      if (file_ == nullptr || next_row_group_ >= end_row_group_) {
        file_.reset();
        return columnar::RecordBatchPtr();
      }
      const int index = next_row_group_++;
      if (!as_read && present_.empty() && rescued_.empty()) {
        // No column to decode: the row group's rows are all null, counted from its metadata.
        null_rows_ = file_->Metadata().row_groups[static_cast<size_t>(index)].num_rows;
        continue;
      }
      std::vector<std::string> names = present_;
      names.insert(names.end(), rescued_.begin(), rescued_.end());
      TRIBUTARY_ASSIGN_OR_RAISE(group_, file_->OpenRowGroup(index, as_read ? columns_ : names));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr read, group_->Next());
    if (read == nullptr) {
      group_.reset();
      continue;
    }
    if (as_read) {
      return read;
    }
    return WithNulls(read, read->NumRows());
  }
}

Result<columnar::RecordBatchPtr> ReconcilingReader::WithNulls(
    const columnar::RecordBatchPtr& present, int64_t num_rows) {
  std::vector<columnar::ColumnPtr> columns;
  size_t next_present = 0;
  for (int i = 0; i < schema_->NumFields(); ++i) {
    if (next_present < present_.size() &&
        present_[next_present] == columns_[static_cast<size_t>(i)]) {
      columns.push_back(present->ColumnAt(static_cast<int>(next_present++)));
      continue;
    }
    if (present != nullptr && !rescued_data_column_.empty() &&
        columns_[static_cast<size_t>(i)] == rescued_data_column_) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          columnar::ColumnPtr rescued,
          RescuedValues(*present, static_cast<int>(present_.size()), num_rows));
      columns.push_back(std::move(rescued));
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::ColumnPtr nulls,
        columnar::Column::MakeAllNull(schema_->FieldAt(i).Type(), num_rows, pool_));
    columns.push_back(std::move(nulls));
  }
  return columnar::RecordBatch::Make(schema_, num_rows, std::move(columns));
}

Result<columnar::ColumnPtr> ReconcilingReader::RescuedValues(const columnar::RecordBatch& read,
                                                             int first, int64_t num_rows) {
  columnar::ColumnBuilder rescued(columnar::DataType::String(), pool_);
  std::string object;
  for (int64_t row = 0; row < num_rows; ++row) {
    object.clear();
    for (int c = first; c < read.NumColumns(); ++c) {
      const columnar::Column& column = *read.ColumnAt(c);
      if (column.IsNull(row)) {
        continue;
      }
      object += object.empty() ? "{" : ",";
      columnar::AppendJsonString(rescued_[static_cast<size_t>(c - first)], &object);
      object += ':';
      columnar::AppendCanonicalJsonValue(column, row, &object);
    }
    if (object.empty()) {
      rescued.AppendNull();
      continue;
    }
    object += ",\"_file_path\":";
    columnar::AppendJsonString(path_, &object);
    object += '}';
    rescued.AppendBytes(object);
  }
  return rescued.Finish();
}

}  // namespace tributary::parquet

#include "columnar/record_batch.h"

#include <fmt/format.h>

namespace tributary::columnar {

RecordBatch::RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ColumnPtr> columns)
    : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ColumnPtr> columns) {
  if (schema == nullptr || num_rows < 0) {
    return Status::InvalidArgument("record batch needs a schema and a non-negative row count");
  }
  if (static_cast<int>(columns.size()) != schema->NumFields()) {
    return Status::InvalidArgument(fmt::format("record batch has {} columns, schema has {}",
                                               columns.size(), schema->NumFields()));
  }
  for (int i = 0; i < schema->NumFields(); ++i) {
    const ColumnPtr& column = columns[static_cast<size_t>(i)];
    const Field& field = schema->FieldAt(i);
    if (column == nullptr || column->Length() != num_rows) {
      return Status::InvalidArgument(fmt::format("column '{}' has {} rows, batch has {}",
                                                 field.Name(), column ? column->Length() : -1,
                                                 num_rows));
    }
    if (!column->Type()->SameShape(*field.Type())) {
      return Status::InvalidArgument(fmt::format("column '{}' has type {}, schema says {}",
                                                 field.Name(), column->Type()->ToString(),
                                                 field.Type()->ToString()));
    }
  }
  return std::make_shared<const RecordBatch>(std::move(schema), num_rows, std::move(columns));
}

ColumnPtr RecordBatch::ColumnByName(const std::string& name) const {
  const int index = schema_->FieldIndex(name);
  return index < 0 ? nullptr : columns_[static_cast<size_t>(index)];
}

Result<RecordBatchPtr> RecordBatch::SelectColumns(const std::vector<int>& indices) const {
  std::vector<Field> fields;
  std::vector<ColumnPtr> columns;
  for (int index : indices) {
    if (index < 0 || index >= NumColumns()) {
      return Status::InvalidArgument(
          fmt::format("column index {} out of range 0..{}", index, NumColumns() - 1));
    }
    fields.push_back(schema_->FieldAt(index));
    columns.push_back(columns_[static_cast<size_t>(index)]);
  }
  return Make(std::make_shared<const columnar::Schema>(std::move(fields), schema_->Metadata()),
              num_rows_, std::move(columns));
}

}  // namespace tributary::columnar

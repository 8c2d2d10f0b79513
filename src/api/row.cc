#include "tributary/row.h"

#include <fmt/format.h>

#include "api/api_access.h"
#include "columnar/canonical_json.h"
#include "columnar/record_batch.h"
#include "columnar/show_string.h"

namespace tributary {

using columnar::TypeId;

int StructType::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string StructType::TreeString() const {
  std::string out = "root\n";
  for (const StructField& field : fields) {
    out += fmt::format(" |-- {}: {} (nullable = {})\n", field.name, field.type,
                       field.nullable ? "true" : "false");
  }
  return out;
}

Row::Row(std::shared_ptr<const Impl> rows, int64_t row) : rows_(std::move(rows)), row_(row) {}

int Row::Size() const {
  return rows_->batch->NumColumns();
}

bool Row::IsNull(int i) const {
  return rows_->batch->ColumnAt(i)->IsNull(row_);
}

namespace {

Status TypeError(const columnar::RecordBatch& batch, int i, std::string_view wanted) {
  return Status::InvalidArgument(fmt::format("column {} ('{}') is {}, not {}", i,
                                             batch.Schema()->FieldAt(i).Name(),
                                             batch.ColumnAt(i)->Type()->ToString(), wanted));
}

Status NullError(const columnar::RecordBatch& batch, int i) {
  return Status::InvalidArgument(
      fmt::format("column {} ('{}') is null", i, batch.Schema()->FieldAt(i).Name()));
}

}  // namespace

Result<bool> Row::GetBoolean(int i) const {
  const columnar::Column& column = *rows_->batch->ColumnAt(i);
  if (column.Type()->Id() != TypeId::kBoolean) {
    return TypeError(*rows_->batch, i, "boolean");
  }
  if (column.IsNull(row_)) {
    return NullError(*rows_->batch, i);
  }
  return column.Values<uint8_t>()[row_] != 0;
}

Result<int64_t> Row::GetLong(int i) const {
  const columnar::Column& column = *rows_->batch->ColumnAt(i);
  if (column.IsNull(row_)) {
    return NullError(*rows_->batch, i);
  }
  switch (column.Type()->Id()) {
    case TypeId::kInt8:
      return column.Values<int8_t>()[row_];
    case TypeId::kInt16:
      return column.Values<int16_t>()[row_];
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return column.Values<int32_t>()[row_];
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return column.Values<int64_t>()[row_];
    default:
      return TypeError(*rows_->batch, i, "an integer");
  }
}

Result<double> Row::GetDouble(int i) const {
  const columnar::Column& column = *rows_->batch->ColumnAt(i);
  if (column.IsNull(row_)) {
    return NullError(*rows_->batch, i);
  }
  switch (column.Type()->Id()) {
    case TypeId::kFloat32:
      return column.Values<float>()[row_];
    case TypeId::kFloat64:
      return column.Values<double>()[row_];
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      TRIBUTARY_ASSIGN_OR_RAISE(int64_t value, GetLong(i));
      return static_cast<double>(value);
    }
    default:
      return TypeError(*rows_->batch, i, "a number");
  }
}

Result<std::string> Row::GetString(int i) const {
  const columnar::Column& column = *rows_->batch->ColumnAt(i);
  if (column.IsNull(row_)) {
    return NullError(*rows_->batch, i);
  }
  return columnar::ShowCellText(column, row_);
}

std::string Row::ToJson() const {
  std::string out;
  columnar::AppendCanonicalJsonRow(*rows_->batch, row_, &out);
  return out;
}

}  // namespace tributary

#include "support/batch_from_json.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "columnar/calendar_interval.h"
#include "columnar/column_builder.h"

namespace tributary::testing {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::TypeId;
using nlohmann::json;

Status AppendJson(const json& value, ColumnBuilder* builder) {
  if (value.is_null()) {
    builder->AppendNull();
    return Status::OK();
  }
  const DataType& type = *builder->Type();
  switch (type.Id()) {
    case TypeId::kNull:
      return Status::InvalidArgument("non-null value for a null column: " + value.dump());
    case TypeId::kBoolean:
      builder->AppendBoolean(value.get<bool>());
      return Status::OK();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      builder->AppendInt(value.get<int64_t>());
      return Status::OK();
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      if (value.is_string()) {
        const auto text = value.get<std::string>();
        const double inf = std::numeric_limits<double>::infinity();
        builder->AppendDouble(text == "NaN" ? std::nan("") : text == "-Infinity" ? -inf : inf);
      } else {
        builder->AppendDouble(value.get<double>());
      }
      return Status::OK();
    case TypeId::kDecimal: {
      std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      columnar::Int128 unscaled = 0;
      bool negative = !text.empty() && text[0] == '-';
      for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
        unscaled = unscaled * 10 + (text[i] - '0');
      }
      builder->AppendDecimal(negative ? -unscaled : unscaled);
      return Status::OK();
    }
    case TypeId::kCalendarInterval: {
      columnar::CalendarInterval interval;
      if (!value.is_string() ||
          !columnar::ParseCalendarInterval(value.get<std::string>(), &interval)) {
        return Status::InvalidArgument("not an interval: " + value.dump());
      }
      builder->AppendCalendarInterval(interval);
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      builder->AppendBytes(value.get<std::string>());
      return Status::OK();
    case TypeId::kStruct: {
      const auto& fields = type.Fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        const json& field_value =
            value.is_array()
                ? value.at(i)
                : (value.contains(fields[i].Name()) ? value.at(fields[i].Name()) : json());
        TRIBUTARY_RETURN_NOT_OK(AppendJson(field_value, &builder->Child(static_cast<int>(i))));
      }
      builder->AppendStruct();
      return Status::OK();
    }
    case TypeId::kArray:
      for (const json& element : value) {
        TRIBUTARY_RETURN_NOT_OK(AppendJson(element, &builder->Child(0)));
      }
      builder->AppendArray();
      return Status::OK();
    case TypeId::kMap:
      for (const json& entry : value) {
        TRIBUTARY_RETURN_NOT_OK(AppendJson(entry.at(0), &builder->Child(0)));
        TRIBUTARY_RETURN_NOT_OK(AppendJson(entry.at(1), &builder->Child(1)));
      }
      builder->AppendMap();
      return Status::OK();
  }
  return Status::Internal("unhandled type");
}

Result<json> Parse(std::string_view text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_array()) {
    return Status::InvalidArgument("test JSON is not an array: " + std::string(text));
  }
  return parsed;
}

}  // namespace

Result<columnar::ColumnPtr> ColumnFromJson(columnar::DataTypePtr type,
                                           std::string_view values_json) {
  TRIBUTARY_ASSIGN_OR_RAISE(json values, Parse(values_json));
  ColumnBuilder builder(std::move(type));
  for (const json& value : values) {
    TRIBUTARY_RETURN_NOT_OK(AppendJson(value, &builder));
  }
  return builder.Finish();
}

Result<columnar::RecordBatchPtr> BatchFromJson(columnar::SchemaPtr schema,
                                               std::string_view rows_json) {
  TRIBUTARY_ASSIGN_OR_RAISE(json rows, Parse(rows_json));
  std::vector<std::unique_ptr<ColumnBuilder>> builders;
  for (const auto& field : schema->Fields()) {
    builders.push_back(std::make_unique<ColumnBuilder>(field.Type()));
  }
  for (const json& row : rows) {
    for (int i = 0; i < schema->NumFields(); ++i) {
      const std::string& name = schema->FieldAt(i).Name();
      const json& value = row.is_array() ? row.at(static_cast<size_t>(i))
                                         : (row.contains(name) ? row.at(name) : json());
      TRIBUTARY_RETURN_NOT_OK(AppendJson(value, builders[static_cast<size_t>(i)].get()));
    }
  }
  std::vector<columnar::ColumnPtr> columns;
  for (auto& builder : builders) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(std::move(schema), static_cast<int64_t>(rows.size()),
                                     std::move(columns));
}

columnar::SchemaPtr MakeSchema(std::vector<columnar::Field> fields) {
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

}  // namespace tributary::testing

#include "formats/text/schema_inference.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "columnar/decimal.h"
#include "expr/coercion.h"

namespace tributary::text {
namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;

DataTypePtr WidenDecimals(int p1, int s1, int p2, int s2) {
  const int scale = std::max(s1, s2);
  const int range = std::max(p1 - s1, p2 - s2);
  if (range + scale > columnar::kMaxDecimalPrecision) {
    return DataType::Float64();
  }
  return DataType::Decimal(range + scale, scale).ValueOr(DataType::Float64());
}

std::vector<Field> MergeFields(const std::vector<Field>& a, const std::vector<Field>& b) {
  std::vector<Field> merged = a;
  for (const Field& field : b) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const Field& f) { return f.Name() == field.Name(); });
    if (it == merged.end()) {
      merged.push_back(field);
    } else {
      *it = it->WithType(WidenInferredTypes(it->Type(), field.Type()));
    }
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const Field& x, const Field& y) { return x.Name() < y.Name(); });
  return merged;
}

}  // namespace

DataTypePtr WidenInferredTypes(const DataTypePtr& a, const DataTypePtr& b) {
  if (DataTypePtr other = expr::OtherIfNullType(a, b)) {
    return other;
  }
  const TypeId x = a->Id();
  const TypeId y = b->Id();
  if (x == TypeId::kStruct && y == TypeId::kStruct) {
    return DataType::Struct(MergeFields(a->Fields(), b->Fields()));
  }
  if (x == TypeId::kArray && y == TypeId::kArray) {
    return DataType::Array(WidenInferredTypes(a->ElementType(), b->ElementType()));
  }
  if (x == TypeId::kMap && y == TypeId::kMap) {
    return DataType::Map(WidenInferredTypes(a->KeyType(), b->KeyType()),
                         WidenInferredTypes(a->ValueType(), b->ValueType()));
  }
  if (a->SameShape(*b)) {
    return a;
  }
  if (a->IsInteger() && b->IsInteger()) {
    return columnar::DecimalDigitsOfInteger(x) >= columnar::DecimalDigitsOfInteger(y) ? a : b;
  }
  if (a->IsNumeric() && b->IsNumeric()) {
    if (a->IsFloatingPoint() || b->IsFloatingPoint()) {
      return DataType::Float64();
    }
    const int p1 = x == TypeId::kDecimal ? a->Precision() : columnar::DecimalDigitsOfInteger(x);
    const int s1 = x == TypeId::kDecimal ? a->Scale() : 0;
    const int p2 = y == TypeId::kDecimal ? b->Precision() : columnar::DecimalDigitsOfInteger(y);
    const int s2 = y == TypeId::kDecimal ? b->Scale() : 0;
    return WidenDecimals(p1, s1, p2, s2);
  }
  const auto is_temporal = [](TypeId id) {
    return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
  };
  if (is_temporal(x) && is_temporal(y)) {
    if (x == TypeId::kTimestamp || y == TypeId::kTimestamp) {
      return DataType::Timestamp();
    }
    return DataType::TimestampNtz();
  }
  return DataType::String();
}

DataTypePtr FinalizeInferredType(const DataTypePtr& type) {
  switch (type->Id()) {
    case TypeId::kNull:
      return DataType::String();
    case TypeId::kStruct: {
      if (type->Fields().empty()) {
        return DataType::String();
      }
      std::vector<Field> fields;
      for (const Field& field : type->Fields()) {
        fields.push_back(field.WithType(FinalizeInferredType(field.Type())));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray:
      return DataType::Array(FinalizeInferredType(type->ElementType()));
    case TypeId::kMap:
      return DataType::Map(FinalizeInferredType(type->KeyType()),
                           FinalizeInferredType(type->ValueType()));
    default:
      return type;
  }
}

DataTypePtr LeavesAsString(const DataTypePtr& type) {
  switch (type->Id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->Fields()) {
        fields.push_back(field.WithType(LeavesAsString(field.Type())));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray:
      return DataType::Array(LeavesAsString(type->ElementType()));
    case TypeId::kMap:
      return DataType::Map(LeavesAsString(type->KeyType()), LeavesAsString(type->ValueType()));
    default:
      return DataType::String();
  }
}

namespace {

DataTypePtr NullableType(const DataTypePtr& type) {
  switch (type->Id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->Fields()) {
        fields.push_back(field.WithNullable(true).WithType(NullableType(field.Type())));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray:
      return DataType::Array(NullableType(type->ElementType()), true);
    case TypeId::kMap:
      return DataType::Map(NullableType(type->KeyType()), NullableType(type->ValueType()), true);
    default:
      return type;
  }
}

}  // namespace

columnar::SchemaPtr AsNullable(const columnar::Schema& schema) {
  std::vector<Field> fields;
  for (const Field& field : schema.Fields()) {
    fields.push_back(field.WithNullable(true).WithType(NullableType(field.Type())));
  }
  return std::make_shared<const columnar::Schema>(std::move(fields), schema.Metadata());
}

Result<columnar::SchemaPtr> TextReaderOutputSchema(const columnar::Schema& schema,
                                                   const std::string& corrupt_record_column,
                                                   const std::string& rescued_data_column,
                                                   std::string_view reader) {
  std::vector<columnar::Field> fields = AsNullable(schema)->Fields();
  for (const std::string* name : {&corrupt_record_column, &rescued_data_column}) {
    if (name->empty()) {
      continue;
    }
    const int i = schema.FieldIndex(*name);
    if (i < 0) {
      fields.emplace_back(*name, columnar::DataType::String());
    } else if (schema.FieldAt(i).Type()->Id() != columnar::TypeId::kString) {
      return Status::InvalidArgument(
          fmt::format("{}: column '{}' must be a string column, but the schema has it as {}",
                      reader, *name, schema.FieldAt(i).Type()->ToString()));
    }
  }
  return std::make_shared<const columnar::Schema>(std::move(fields), schema.Metadata());
}

}  // namespace tributary::text

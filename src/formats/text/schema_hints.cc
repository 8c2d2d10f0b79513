#include "formats/text/schema_hints.h"

#include <utility>

#include <fmt/format.h>

#include "columnar/sql_type_parser.h"
#include "common/ascii.h"

namespace tributary::text {
namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;

int FindField(const std::vector<Field>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].Name() == name) {
      return static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreAsciiCase(fields[i].Name(), name)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// `type` (null when the path does not exist yet) with the hint applied at path[depth..].
Result<DataTypePtr> ApplyHint(const DataTypePtr& type, const SchemaHint& hint, size_t depth);

Result<std::vector<Field>> ApplyHintToFields(std::vector<Field> fields, const SchemaHint& hint,
                                             size_t depth) {
  const std::string& name = hint.path[depth];
  const int index = FindField(fields, name);
  if (index < 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, ApplyHint(nullptr, hint, depth + 1));
    fields.emplace_back(name, std::move(type));
    return fields;
  }
  Field& field = fields[static_cast<size_t>(index)];
  TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, ApplyHint(field.Type(), hint, depth + 1));
  field = field.WithType(std::move(type));
  return fields;
}

std::string PathText(const SchemaHint& hint) {
  std::string text;
  for (const std::string& part : hint.path) {
    if (!text.empty()) {
      text.push_back('.');
    }
    text += part;
  }
  return text;
}

Result<DataTypePtr> ApplyHint(const DataTypePtr& type, const SchemaHint& hint, size_t depth) {
  if (depth == hint.path.size()) {
    return hint.type;
  }
  if (type == nullptr || type->Id() == TypeId::kStruct) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        std::vector<Field> fields,
        ApplyHintToFields(type == nullptr ? std::vector<Field>{} : type->Fields(), hint, depth));
    return DataType::Struct(std::move(fields));
  }
  const std::string& step = hint.path[depth];
  if (type->Id() == TypeId::kArray && EqualsIgnoreAsciiCase(step, "element")) {
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr element, ApplyHint(type->ElementType(), hint, depth + 1));
    return DataType::Array(std::move(element), type->ContainsNull());
  }
  if (type->Id() == TypeId::kMap && EqualsIgnoreAsciiCase(step, "key")) {
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr key, ApplyHint(type->KeyType(), hint, depth + 1));
    return DataType::Map(std::move(key), type->ValueType(), type->ContainsNull());
  }
  if (type->Id() == TypeId::kMap && EqualsIgnoreAsciiCase(step, "value")) {
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr value, ApplyHint(type->ValueType(), hint, depth + 1));
    return DataType::Map(type->KeyType(), std::move(value), type->ContainsNull());
  }
  return Status::InvalidArgument(
      fmt::format("schema hint '{}' steps into '{}' of type {}, which has no member '{}'",
                  PathText(hint), hint.path[depth - 1], type->ToString(), step));
}

}  // namespace

Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text) {
  columnar::SqlTypeParser parser(text);
  std::vector<SchemaHint> hints;
  if (parser.AtEnd()) {
    return hints;
  }
  do {
    SchemaHint hint;
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string name, parser.Name());
      hint.path.push_back(std::move(name));
    } while (parser.TryConsume('.'));
    TRIBUTARY_ASSIGN_OR_RAISE(hint.type, parser.Type());
    auto suffix = parser.MemberSuffix();
    TRIBUTARY_RETURN_NOT_OK(suffix.status());
    hints.push_back(std::move(hint));
  } while (parser.TryConsume(','));
  if (!parser.AtEnd()) {
    return parser.Error("expected ',' between schema hints");
  }
  return hints;
}

Result<columnar::SchemaPtr> ApplySchemaHints(const columnar::Schema& schema,
                                             const std::vector<SchemaHint>& hints) {
  std::vector<Field> fields = schema.Fields();
  for (const SchemaHint& hint : hints) {
    TRIBUTARY_ASSIGN_OR_RAISE(fields, ApplyHintToFields(std::move(fields), hint, 0));
  }
  return std::make_shared<const columnar::Schema>(std::move(fields), schema.Metadata());
}

}  // namespace tributary::text

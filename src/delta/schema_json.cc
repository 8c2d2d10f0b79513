// Schema serialization (PROTOCOL.md "Schema Serialization Format"):
//
//   struct = {"type":"struct","fields":[field...]}
//   field  = {"name":s,"type":type,"nullable":b,"metadata":{...}}
//   type   = primitive-name | struct | array | map
//   array  = {"type":"array","elementType":type,"containsNull":b}
//   map    = {"type":"map","keyType":type,"valueType":type,"valueContainsNull":b}
//   primitive-name = "string" | "long" | "integer" | "short" | "byte" | "float" | "double"
//                  | "decimal(p,s)" | "boolean" | "binary" | "date" | "timestamp"
//                  | "timestamp_ntz" | "void"

#include "delta/schema_json.h"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tributary::delta {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using nlohmann::json;

namespace {

Result<DataTypePtr> ParseType(const json& type, const std::string& path);

Result<DataTypePtr> ParsePrimitive(const std::string& name, const std::string& path) {
  if (name == "string") {
    return DataType::String();
  }
  if (name == "long") {
    return DataType::Int64();
  }
  if (name == "integer") {
    return DataType::Int32();
  }
  if (name == "short") {
    return DataType::Int16();
  }
  if (name == "byte") {
    return DataType::Int8();
  }
  if (name == "float") {
    return DataType::Float32();
  }
  if (name == "double") {
    return DataType::Float64();
  }
  if (name == "boolean") {
    return DataType::Boolean();
  }
  if (name == "binary") {
    return DataType::Binary();
  }
  if (name == "date") {
    return DataType::Date();
  }
  if (name == "timestamp") {
    return DataType::Timestamp();
  }
  if (name == "timestamp_ntz") {
    return DataType::TimestampNtz();
  }
  if (name == "void") {
    return DataType::Null();
  }
  if (name == "decimal") {
    return DataType::Decimal(10, 0);
  }
  if (name.rfind("decimal(", 0) == 0 && name.back() == ')') {
    int precision = 0;
    int scale = 0;
    const std::string inner = name.substr(8, name.size() - 9);
    const size_t comma = inner.find(',');
    if (comma != std::string::npos) {
      std::string p = inner.substr(0, comma);
      std::string s = inner.substr(comma + 1);
      while (!s.empty() && s.front() == ' ') {
        s.erase(0, 1);
      }
      auto r1 = std::from_chars(p.data(), p.data() + p.size(), precision);
      auto r2 = std::from_chars(s.data(), s.data() + s.size(), scale);
      if (r1.ec == std::errc() && r2.ec == std::errc()) {
        auto type = DataType::Decimal(precision, scale);
        if (type.ok()) {
          return type;
        }
      }
    }
  }
  return Status::NotImplemented(
      fmt::format("schema: column '{}' has unsupported type '{}'", path, name));
}

Result<std::vector<Field>> ParseFields(const json& fields, const std::string& prefix) {
  if (!fields.is_array()) {
    return Status::Corruption(fmt::format("schema: fields of '{}' is not an array", prefix));
  }
  std::vector<Field> out;
  for (const json& f : fields) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
      return Status::Corruption(fmt::format("schema: a field of '{}' lacks name or type",
                                            prefix.empty() ? "<root>" : prefix));
    }
    const std::string name = f["name"].get<std::string>();
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    TRIBUTARY_ASSIGN_OR_RAISE(auto type, ParseType(f["type"], path));
    bool nullable = true;
    if (f.contains("nullable") && f["nullable"].is_boolean()) {
      nullable = f["nullable"].get<bool>();
    }
    columnar::FieldMetadata metadata;
    if (f.contains("metadata") && f["metadata"].is_object()) {
      for (const auto& [key, value] : f["metadata"].items()) {
        metadata.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
    out.emplace_back(name, std::move(type), nullable, std::move(metadata));
  }
  return out;
}

Result<DataTypePtr> ParseType(const json& type, const std::string& path) {
  if (type.is_string()) {
    return ParsePrimitive(type.get<std::string>(), path);
  }
  if (!type.is_object() || !type.contains("type") || !type["type"].is_string()) {
    return Status::Corruption(fmt::format("schema: column '{}' has a malformed type", path));
  }
  const std::string kind = type["type"].get<std::string>();
  auto flag = [&](const char* name) {
    return !type.contains(name) || !type[name].is_boolean() || type[name].get<bool>();
  };
  if (kind == "struct") {
    TRIBUTARY_ASSIGN_OR_RAISE(auto fields, ParseFields(type.value("fields", json::array()), path));
    return DataType::Struct(std::move(fields));
  }
  if (kind == "array") {
    if (!type.contains("elementType")) {
      return Status::Corruption(fmt::format("schema: array '{}' has no elementType", path));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto element, ParseType(type["elementType"], path + ".element"));
    return DataType::Array(std::move(element), flag("containsNull"));
  }
  if (kind == "map") {
    if (!type.contains("keyType") || !type.contains("valueType")) {
      return Status::Corruption(fmt::format("schema: map '{}' lacks keyType or valueType", path));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto key, ParseType(type["keyType"], path + ".key"));
    TRIBUTARY_ASSIGN_OR_RAISE(auto value, ParseType(type["valueType"], path + ".value"));
    return DataType::Map(std::move(key), std::move(value), flag("valueContainsNull"));
  }
  return ParsePrimitive(kind, path);
}

json TypeToJson(const DataType& type);

json FieldsToJson(const std::vector<Field>& fields) {
  json out = json::array();
  for (const Field& f : fields) {
    json metadata = json::object();
    for (const auto& [key, value] : f.Metadata()) {
      json parsed = json::parse(value, nullptr, false);
      metadata[key] = parsed.is_discarded() || parsed.is_string() ? json(value) : parsed;
    }
    out.push_back({{"name", f.Name()},
                   {"type", TypeToJson(*f.Type())},
                   {"nullable", f.Nullable()},
                   {"metadata", metadata}});
  }
  return out;
}

json TypeToJson(const DataType& type) {
  switch (type.Id()) {
    case columnar::TypeId::kStruct:
      return {{"type", "struct"}, {"fields", FieldsToJson(type.Fields())}};
    case columnar::TypeId::kArray:
      return {{"type", "array"},
              {"elementType", TypeToJson(*type.ElementType())},
              {"containsNull", type.ContainsNull()}};
    case columnar::TypeId::kMap:
      return {{"type", "map"},
              {"keyType", TypeToJson(*type.KeyType())},
              {"valueType", TypeToJson(*type.ValueType())},
              {"valueContainsNull", type.ContainsNull()}};
    default:
      return SparkTypeName(type);
  }
}

}  // namespace

std::string SparkTypeName(const DataType& type) {
  switch (type.Id()) {
    case columnar::TypeId::kInt8:
      return "byte";
    case columnar::TypeId::kInt16:
      return "short";
    case columnar::TypeId::kInt32:
      return "integer";
    case columnar::TypeId::kInt64:
      return "long";
    case columnar::TypeId::kNull:
      return "void";
    default:
      return type.ToString();  // boolean, float, double, string, binary, date, timestamp...
  }
}

Result<columnar::SchemaPtr> ParseSchemaString(std::string_view text) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    return Status::Corruption("schemaString is not a JSON object");
  }
  auto kind = root.find("type");
  if (kind == root.end() || !kind->is_string() || kind->get<std::string>() != "struct") {
    return Status::Corruption("schemaString is not a struct type");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto fields, ParseFields(root.value("fields", json::array()), ""));
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

std::string SchemaToJson(const columnar::Schema& schema) {
  return json({{"type", "struct"}, {"fields", FieldsToJson(schema.Fields())}}).dump();
}

}  // namespace tributary::delta

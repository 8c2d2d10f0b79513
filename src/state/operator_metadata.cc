// `<checkpoint>/state/<operatorId>/_metadata/metadata`, one JSON object:
//
//   {"version": 1, "operatorId": 0, "operatorName": "stateStoreSave", "numPartitions": 4,
//    "stateFormatVersion": 1, "keySchema": {<Delta schemaString>}, "valueSchema": {...}}
//
// "version" is the version of this file's layout; the schemas are Spark's JSON form of a
// struct type, as Delta's schemaString (delta/schema_json.h).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "delta/schema_json.h"
#include "state/state_store.h"
#include "storage/path.h"

namespace tributary::state {

namespace {

constexpr int kMetadataFileVersion = 1;

std::string MetadataPath(const std::string& checkpoint, int64_t operator_id) {
  return storage::JoinPath(
      storage::JoinPath(
          storage::JoinPath(storage::JoinPath(checkpoint, "state"), std::to_string(operator_id)),
          "_metadata"),
      "metadata");
}

}  // namespace

Status WriteOperatorMetadata(storage::FileSystem* fs, const std::string& checkpoint,
                             const OperatorStateMetadata& metadata) {
  if (metadata.key_schema == nullptr || metadata.value_schema == nullptr) {
    return Status::InvalidArgument("operator state metadata needs a key and a value schema");
  }
  const nlohmann::json json = {
      {"version", kMetadataFileVersion},
      {"operatorId", metadata.operator_id},
      {"operatorName", metadata.operator_name},
      {"numPartitions", metadata.num_partitions},
      {"stateFormatVersion", metadata.format_version},
      {"keySchema", nlohmann::json::parse(delta::SchemaToJson(*metadata.key_schema))},
      {"valueSchema", nlohmann::json::parse(delta::SchemaToJson(*metadata.value_schema))}};
  return fs->WriteFile(MetadataPath(checkpoint, metadata.operator_id), json.dump(),
                       storage::WriteMode::kReplace);
}

Result<std::optional<OperatorStateMetadata>> ReadOperatorMetadata(storage::FileSystem* fs,
                                                                  const std::string& checkpoint,
                                                                  int64_t operator_id) {
  const std::string path = MetadataPath(checkpoint, operator_id);
  auto text = fs->ReadFile(path);
  if (!text.ok() && text.status().IsNotFound()) {
    return std::optional<OperatorStateMetadata>();
  }
  TRIBUTARY_RETURN_NOT_OK(text.status());
  const auto corrupt = [&path](std::string_view what) {
    return Status::Corruption(fmt::format("operator state metadata {}: {}", path, what));
  };
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return corrupt("not a JSON object");
  }
  const auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer() ||
      version->get<int>() != kMetadataFileVersion) {
    return corrupt(fmt::format("version is not {}", kMetadataFileVersion));
  }
  OperatorStateMetadata metadata;
  const auto id = json.find("operatorId");
  const auto name = json.find("operatorName");
  const auto partitions = json.find("numPartitions");
  const auto format = json.find("stateFormatVersion");
  const auto key_schema = json.find("keySchema");
  const auto value_schema = json.find("valueSchema");
  if (id == json.end() || !id->is_number_integer() || name == json.end() || !name->is_string() ||
      partitions == json.end() || !partitions->is_number_integer() || format == json.end() ||
      !format->is_number_integer() || key_schema == json.end() || !key_schema->is_object() ||
      value_schema == json.end() || !value_schema->is_object()) {
    return corrupt(
        "needs operatorId, operatorName, numPartitions, stateFormatVersion, keySchema and "
        "valueSchema");
  }
  metadata.operator_id = id->get<int64_t>();
  metadata.operator_name = name->get<std::string>();
  metadata.num_partitions = partitions->get<int32_t>();
  metadata.format_version = format->get<int32_t>();
  auto keys = delta::ParseSchemaString(key_schema->dump());
  auto values = delta::ParseSchemaString(value_schema->dump());
  if (!keys.ok() || !values.ok()) {
    return corrupt(
        fmt::format("schema: {}", (!keys.ok() ? keys.status() : values.status()).ToString()));
  }
  metadata.key_schema = std::move(*keys);
  metadata.value_schema = std::move(*values);
  return std::optional<OperatorStateMetadata>(std::move(metadata));
}

}  // namespace tributary::state

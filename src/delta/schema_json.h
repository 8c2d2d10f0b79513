// Delta's schemaString: the Spark JSON form of a table schema (PROTOCOL.md "Schema
// Serialization Format"), to and from tributary schemas.

#pragma once

#include <string>
#include <string_view>

#include "columnar/schema.h"

namespace tributary::delta {

/// Parses a schemaString. Field metadata keeps string values as strings and other values as
/// their JSON text. Corruption names the field whose type is not understood.
Result<columnar::SchemaPtr> ParseSchemaString(std::string_view json);

/// Serializes `schema` as Spark does (field order kept, "nullable" and "metadata" on every
/// field).
std::string SchemaToJson(const columnar::Schema& schema);

/// Spark's JSON name of a primitive type ("long", "integer", "decimal(10,2)", ...).
std::string SparkTypeName(const columnar::DataType& type);

}  // namespace tributary::delta

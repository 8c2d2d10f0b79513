// Spark SQL type names and Auto Loader's `schemaHints` (cloudFiles.schemaHints).
//
// Grammar (keywords and type names in any case; identifiers may be `back-quoted`):
//
//   hints      = hint *( "," hint )
//   hint       = path type
//   path       = name *( "." name )        ; "element" steps into an array, "key"/"value" a map
//   type       = "BOOLEAN" | "TINYINT" | "BYTE" | "SMALLINT" | "SHORT" | "INT" | "INTEGER"
//              | "BIGINT" | "LONG" | "FLOAT" | "REAL" | "DOUBLE" | "STRING" | "BINARY" | "DATE"
//              | "TIMESTAMP" | "TIMESTAMP_LTZ" | "TIMESTAMP_NTZ" | "VOID"
//              | ("VARCHAR" | "CHAR") "(" int ")"                      ; read as string
//              | ("DECIMAL" | "DEC" | "NUMERIC") [ "(" int [ "," int ] ")" ]  ; default (10,0)
//              | "ARRAY" "<" type ">" | "MAP" "<" type "," type ">"
//              | "STRUCT" "<" [ member *( "," member ) ] ">"
//   member     = name [ ":" ] type [ "NOT" "NULL" ] [ "COMMENT" quoted-string ]

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "columnar/schema.h"
#include "tributary/result.h"

namespace tributary::text {

/// Parses one Spark SQL type ("decimal(10,2)", "array<struct<a:int>>"). InvalidArgument names
/// the character offset of the first thing that does not parse.
Result<columnar::DataTypePtr> ParseSqlType(std::string_view text);

/// One entry of a schemaHints string: the column path and the type it must have.
struct SchemaHint {
  /// Names from the top-level column down ("b", "c" for `b.c`).
  std::vector<std::string> path;
  columnar::DataTypePtr type;
};

/// Parses a schemaHints string such as "a INT, b.c STRING, d MAP<STRING,BIGINT>". An empty
/// string gives no hints.
Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text);

/// `schema` with every hint applied: the field at the hint's path gets the hint's type (names
/// match exactly, else ignoring case); a path that does not exist is added as a new nullable
/// field at the end of its struct, creating missing parent structs. InvalidArgument when a path
/// steps through something that is not a struct, array ("element") or map ("key", "value").
Result<columnar::SchemaPtr> ApplySchemaHints(const columnar::Schema& schema,
                                             const std::vector<SchemaHint>& hints);

}  // namespace tributary::text

// Auto Loader's `schemaHints` (cloudFiles.schemaHints): column paths and the Spark SQL types
// they must have.
//
// Grammar (keywords and type names in any case; identifiers may be `back-quoted`; `type`,
// `member-suffix` and `name` are columnar/sql_type_parser.h's):
//
//   hints      = hint *( "," hint )
//   hint       = path type member-suffix
//   path       = name *( "." name )        ; "element" steps into an array, "key"/"value" a map

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "columnar/schema.h"
#include "tributary/result.h"

namespace tributary::text {

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

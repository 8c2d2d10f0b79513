// Spark SQL type names: the parser of "decimal(10,2)", "array<struct<a:int>>" that CAST,
// from_json schemas, DDL column lists and Auto Loader's schemaHints (formats/text/
// schema_hints.h, which reads its paths with the same parser) share.
//
// Grammar (keywords and type names in any case; identifiers may be `back-quoted`):
//
//   type       = "BOOLEAN" | "TINYINT" | "BYTE" | "SMALLINT" | "SHORT" | "INT" | "INTEGER"
//              | "BIGINT" | "LONG" | "FLOAT" | "REAL" | "DOUBLE" | "STRING" | "BINARY" | "DATE"
//              | "TIMESTAMP" | "TIMESTAMP_LTZ" | "TIMESTAMP_NTZ" | "VOID"
//              | "INTERVAL" unit [ "TO" unit ]   ; unit YEAR|MONTH or DAY|HOUR|MINUTE|SECOND
//              | ("VARCHAR" | "CHAR") "(" int ")"                      ; read as string
//              | ("DECIMAL" | "DEC" | "NUMERIC") [ "(" int [ "," int ] ")" ]  ; default (10,0)
//              | "ARRAY" "<" type ">" | "MAP" "<" type "," type ">"
//              | "STRUCT" "<" [ member *( "," member ) ] ">"
//   member     = name [ ":" ] type member-suffix
//   member-suffix = [ "NOT" "NULL" ] [ "COMMENT" quoted-string ]
//   name       = 1*( ALPHA | DIGIT | "_" ) | "`" *( any | "``" ) "`"

#pragma once

#include <string>
#include <string_view>

#include "columnar/data_type.h"
#include "tributary/result.h"

namespace tributary::columnar {

/// Parses one Spark SQL type ("decimal(10,2)", "array<struct<a:int>>"). InvalidArgument names
/// the character offset of the first thing that does not parse.
Result<DataTypePtr> ParseSqlType(std::string_view text);

/// A recursive-descent reader of the grammar above over `text` (which must outlive it), for
/// grammars built on Spark SQL types (schemaHints). Each step skips leading spaces; errors are
/// InvalidArgument naming the offset and the text.
class SqlTypeParser {
 public:
  explicit SqlTypeParser(std::string_view text);

  /// Whether only spaces are left.
  bool AtEnd();
  /// Consumes `c` if it comes next.
  bool TryConsume(char c);
  /// Consumes `c`, or fails naming it.
  Status Expect(char c);
  /// A `name` of the grammar (a `quoted` name unquoted).
  Result<std::string> Name();
  /// A `type` of the grammar.
  Result<DataTypePtr> Type();
  /// A `member-suffix` of the grammar: whether the member is nullable.
  Result<bool> MemberSuffix();
  /// InvalidArgument: `what` at the current offset of the text.
  Status Error(std::string_view what) const;

 private:
  Result<int> Integer();
  Result<DataTypePtr> TypeAtThisLevel();
  Result<DataTypePtr> IntervalType();
  void SkipSpaces();

  std::string_view text_;
  size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace tributary::columnar

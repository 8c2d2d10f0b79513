#include "sql/keywords.h"

#include <algorithm>

#include "common/ascii.h"

namespace tributary::sql {

bool IsReservedWord(std::string_view word) {
  static const std::vector<std::string_view> kReserved = {
      "AND",     "ANTI",   "AS",    "BETWEEN", "BY",     "CASE",      "CAST",   "CROSS", "DISTINCT",
      "DIV",     "ELSE",   "END",   "ESCAPE",  "EXCEPT", "EXISTS",    "FALSE",  "FROM",  "FULL",
      "GROUP",   "HAVING", "ILIKE", "IN",      "INNER",  "INTERSECT", "INTO",   "IS",    "JOIN",
      "LATERAL", "LEFT",   "LIKE",  "LIMIT",   "MINUS",  "NATURAL",   "NOT",    "NULL",  "ON",
      "OR",      "ORDER",  "OUTER", "REGEXP",  "RIGHT",  "RLIKE",     "SELECT", "SEMI",  "THEN",
      "TRUE",    "UNION",  "USING", "WHEN",    "WHERE",  "WINDOW",    "WITH"};
  return std::any_of(kReserved.begin(), kReserved.end(), [&](std::string_view reserved) {
    return EqualsIgnoreAsciiCase(word, reserved);
  });
}

const std::vector<std::string_view> kClauseKeywords = {
    "FROM",    "WHERE", "GROUP",    "ORDER",  "HAVING", "LIMIT",  "UNION", "JOIN", "ON", "USING",
    "LEFT",    "RIGHT", "INNER",    "FULL",   "CROSS",  "SELECT", "AS",    "AND",  "OR", "NOT",
    "BETWEEN", "LIKE",  "DISTINCT", "VALUES", "TABLE",  "WHEN",   "THEN",  "ELSE", "END"};

const std::vector<std::string_view> kStatementKeywords = {
    "SELECT",   "WITH",   "VALUES", "CREATE", "INSERT", "DESCRIBE", "DESC", "SHOW",
    "OPTIMIZE", "VACUUM", "DROP",   "DELETE", "UPDATE", "MERGE",    "AUTO", "APPLY"};

const std::vector<std::string_view> kTypeNames = {
    "BOOLEAN", "TINYINT",   "BYTE",          "SMALLINT",      "SHORT",  "INT",     "INTEGER",
    "BIGINT",  "LONG",      "FLOAT",         "REAL",          "DOUBLE", "STRING",  "BINARY",
    "DATE",    "TIMESTAMP", "TIMESTAMP_LTZ", "TIMESTAMP_NTZ", "VOID",   "VARCHAR", "CHAR",
    "DECIMAL", "DEC",       "NUMERIC",       "ARRAY",         "MAP",    "STRUCT"};

const std::vector<std::string_view> kIntervalUnits = {
    "YEAR",   "YEARS",   "MONTH",       "MONTHS",       "WEEK",        "WEEKS",
    "DAY",    "DAYS",    "HOUR",        "HOURS",        "MINUTE",      "MINUTES",
    "SECOND", "SECONDS", "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"};

bool IsIntervalUnit(const Token& token) {
  return token.kind == TokenKind::kWord &&
         std::any_of(kIntervalUnits.begin(), kIntervalUnits.end(),
                     [&](std::string_view unit) { return token.IsKeyword(unit); });
}

}  // namespace tributary::sql

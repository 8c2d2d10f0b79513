// Spark SQL's word lists: reserved words, and the keyword and type names errors compare a
// misspelt word with ("did you mean ...?").

#pragma once

#include <string_view>
#include <vector>

#include "sql/lexer.h"

namespace tributary::sql {

/// Words that end an expression or a relation (FROM, JOIN, WHERE, ...), so they are never read
/// as a bare name or an alias without AS; back-quoted they are names like any other.
bool IsReservedWord(std::string_view word);

/// Keywords a misspelt word is compared with when an error follows it.
extern const std::vector<std::string_view> kClauseKeywords;
/// Words that start a statement.
extern const std::vector<std::string_view> kStatementKeywords;
/// Type names of CAST and DDL.
extern const std::vector<std::string_view> kTypeNames;
/// Units of INTERVAL literals.
extern const std::vector<std::string_view> kIntervalUnits;

/// Whether `token` is a word naming an interval unit.
bool IsIntervalUnit(const Token& token);

}  // namespace tributary::sql

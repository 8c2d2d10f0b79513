// The SQL lexer: Spark SQL text into tokens with positions, and statement splitting.
//
// Token grammar (Spark's SqlBaseLexer; keywords and number suffixes in any case):
//
//   word        = (letter | digit | "_")+          ; not all digits; keywords are words too
//   quoted-word = "`" ( any-but-backquote | "``" )* "`"
//   string      = "'" ( any-but-'-or-\ | "\" any )* "'"  |  '"' ( ... same with " ) '"'
//                 ; adjacent strings are concatenated by the parser: 'a' 'b' is 'ab', so
//                 ; 'it''s' is "its" as in Spark 3 (use 'it\'s')
//   binary      = ("X" | "x") "'" hex-digit* "'"
//   number      = digits [suffix]                      ; integer (suffix L, S, Y, D, F, BD)
//               | decimal-digits [exponent] [suffix]   ; exact decimal; with an exponent a
//               | digits exponent [suffix]             ; double (suffix D, F, BD)
//   decimal-digits = digits "." digit* | "." digits ;  exponent = ("E"|"e") ["+"|"-"] digits
//   operator    = "<=>" | "<=" | ">=" | "<>" | "!=" | "==" | "=>" | "||" | "::" | "->"
//               | one of = < > + - * / % & | ^ ~ ! . , ; : ( ) [ ] { }
//   comment     = "--" to end of line | "/*" ... "*/" (nested, as Spark's BRACKETED_COMMENT)
//
// String escapes follow Spark's unescapeSQLString: \0 \b \n \r \t \Z (0x1A) \' \" \\ and
// \uXXXX, \ddd octal (first digit 0-3); \% and \_ keep their backslash (LIKE patterns); any
// other escaped character stands for itself.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::sql {

/// A place in the SQL text: 1-based line and column (in characters, so a caret lines up under
/// UTF-8 text) and the 0-based byte offset.
struct SourcePosition {
  int line = 1;
  int column = 1;
  size_t offset = 0;

  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

enum class TokenKind : uint8_t {
  kWord,        // identifier or keyword; `text` as written
  kQuotedWord,  // `back-quoted` identifier; `text` is the name with `` undoubled
  kString,      // `text` is the unescaped value
  kBinary,      // X'..': `text` is the hex digits
  kNumber,      // `text` as written, suffix included; see NumberKind
  kOperator,    // `text` is the operator
  kEnd,         // end of the text
};

/// What a number token is, by Spark's lexer rules.
enum class NumberKind : uint8_t {
  kInteger,     // 42: int, bigint or decimal(p,0) by magnitude
  kDecimal,     // 1.5, .5, 5.: exact decimal
  kExponent,    // 1e3, 1.5E-2: double
  kBigint,      // 42L
  kSmallint,    // 42S
  kTinyint,     // 42Y
  kDouble,      // 1.5D
  kFloat,       // 1.5F
  kBigDecimal,  // 1.5BD
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  NumberKind number_kind = NumberKind::kInteger;
  std::string text;
  /// Where the token starts.
  SourcePosition position;
  /// Byte length of the token in the source.
  size_t length = 0;

  /// True for an unquoted word equal to `keyword` ignoring ASCII case.
  bool IsKeyword(std::string_view keyword) const;
  /// True for the operator `op`.
  bool IsOperator(std::string_view op) const;
  /// How the token is spelled in the source, for messages ("end of input" at the end).
  std::string Describe() const;
};

/// Splits `text` into tokens, ending with one kEnd token. Comments and white space are
/// skipped. InvalidArgument (with line, column, source line and caret) for an unterminated
/// string, quoted identifier or comment (naming where it starts), or a character that starts
/// no token.
Result<std::vector<Token>> Tokenize(std::string_view text);

/// One statement of a script: its text without the terminating ';' and where it starts.
struct StatementText {
  std::string_view text;
  SourcePosition position;
};

/// Splits a script at the ';' tokens (a ';' inside a string literal, quoted identifier or
/// comment is just a character). Statements that hold only white space and comments are
/// dropped. Errors are Tokenize's.
Result<std::vector<StatementText>> SplitStatements(std::string_view text);

/// The InvalidArgument every SQL error uses: "<what> at line L, column C:" followed by the
/// source line and a caret under the column.
Status SyntaxError(std::string_view text, const SourcePosition& position, std::string_view what);

}  // namespace tributary::sql

// libFuzzer harness: arbitrary text through the SQL lexer, statement splitter and parser, and
// every parsed statement back through the printer. Nothing may crash or trip a sanitizer, and
// every failure must be an InvalidArgument (a syntax error with its position).

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto split = tributary::sql::SplitStatements(text);
  if (!split.ok() && !split.status().IsInvalidArgument()) {
    std::abort();
  }
  auto statements = tributary::sql::ParseScript(text);
  if (!statements.ok()) {
    if (!statements.status().IsInvalidArgument()) {
      std::abort();
    }
    return 0;
  }
  for (const tributary::sql::Statement& statement : *statements) {
    (void)tributary::sql::ToString(statement);
  }
  auto expression = tributary::sql::ParseExpression(text);
  if (!expression.ok() && !expression.status().IsInvalidArgument()) {
    std::abort();
  }
  return 0;
}

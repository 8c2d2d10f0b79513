// `tributary sql`: runs SQL statements against a warehouse and prints their results.

#pragma once

#include <iosfwd>
#include <string>

#include "tributary/status.h"

namespace tributary::tools {

struct SqlCommandOptions {
  /// Tables by name live here (default: $TRIBUTARY_WAREHOUSE, else ./warehouse).
  std::string warehouse;
  /// table (aligned columns), json (one canonical JSON object per row), csv (with header).
  std::string format = "table";
  /// Session time zone ("" = TZ, else UTC).
  std::string time_zone;
};

/// Runs every statement of `script` (split by the SQL lexer, so a ';' in a string literal is
/// just a character) in order, printing each result; stops at the first error.
Status RunSqlScript(const SqlCommandOptions& options, const std::string& script, std::ostream& out);

/// The interactive prompt: reads statements from `in` until end of input, running each as it
/// is completed by a ';' (errors are printed and the prompt goes on).
Status RunSqlPrompt(const SqlCommandOptions& options, std::istream& in, std::ostream& out,
                    std::ostream& err, bool show_prompt);

}  // namespace tributary::tools

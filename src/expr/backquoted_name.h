// Spark's backquoted identifiers: how a name with any characters (dots, spaces, backquotes) is
// written so that a column reference (expr::Col) or SQL text names exactly it.

#pragma once

#include <string>
#include <string_view>

namespace tributary::expr {

/// `name` between backquotes with each backquote in it doubled: "a.b" -> "`a.b`",
/// "x`y" -> "`x``y`".
std::string BackquotedName(std::string_view name);

}  // namespace tributary::expr

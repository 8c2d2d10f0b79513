// UTF-8 validity of string values as Spark checks and repairs it (internal to the expr layer;
// defined in binary_functions.cc).

#pragma once

#include <string>
#include <string_view>

namespace tributary::expr {

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF).
bool IsValidUtf8(std::string_view text);

/// `text` into `out` with each maximal ill-formed subsequence replaced by U+FFFD, as Java's
/// UTF-8 decoder reads it.
void MakeValidUtf8(std::string_view text, std::string* out);

}  // namespace tributary::expr

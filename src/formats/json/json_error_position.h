// Where strict JSON text stops being valid: simdjson's DOM parser says that a document is
// malformed but not where, and a multi-line document's error must name its own line. Only
// called for records that failed to parse. Internal to formats/json.

#pragma once

#include <cstddef>
#include <string_view>

namespace tributary::json {

/// The byte offset in `text` of the first byte at which `text` is not one valid JSON value
/// (RFC 8259, UTF-8, nesting at most `max_depth`), or text.size() when it ends too early.
/// Returns text.size() also for valid text.
size_t JsonErrorOffset(std::string_view text, int max_depth);

}  // namespace tributary::json

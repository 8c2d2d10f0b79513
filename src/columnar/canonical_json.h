// The canonical JSON row form of ../shared/testdata/MANIFEST.md, used by every `cat` command,
// every `--format json` output and the conformance tests:
//
//   row        = "{" [ key ":" value *( "," key ":" value ) ] "}"   keys in schema order
//   null       -> null            boolean -> true | false      integers -> JSON integer
//   float/double -> shortest text that round-trips at the declared width, Python-repr style
//                   ("1.0", "0.1", "1e+16", "1e-05"); NaN/inf -> "NaN" "Infinity" "-Infinity"
//   decimal(p,s) -> string with exactly s fraction digits ("10.000")
//   date       -> "YYYY-MM-DD"    timestamp -> "YYYY-MM-DDTHH:MM:SS.ffffffZ" (UTC)
//   timestamp_ntz -> "YYYY-MM-DDTHH:MM:SS.ffffff"   binary -> lowercase hex string
//   string     -> JSON string, UTF-8 kept as is; only '"', '\\' and controls escaped;
//                 invalid UTF-8 bytes become U+FFFD
//   struct     -> object          array -> array
//   map        -> array of {"key":k,"value":v} objects, sorted by their JSON text

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"

namespace tributary::columnar {

/// Appends row `row` of `batch` in canonical form (no newline).
void AppendCanonicalJsonRow(const RecordBatch& batch, int64_t row, std::string* out);
/// Appends the canonical JSON value of row `row` of `column`.
void AppendCanonicalJsonValue(const Column& column, int64_t row, std::string* out);
/// Every row of `batch` in canonical form, in row order.
std::vector<std::string> CanonicalJsonRows(const RecordBatch& batch);

/// Appends `text` as a JSON string literal.
void AppendJsonString(std::string_view text, std::string* out);
/// Appends a double in canonical form; `as_float32` formats the shortest float32 text.
void AppendJsonDouble(double value, bool as_float32, std::string* out);

}  // namespace tributary::columnar

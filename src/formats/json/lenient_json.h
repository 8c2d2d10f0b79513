// Spark's lenient JSON (Jackson's parser features behind the JSON source's allow* options),
// rewritten into strict JSON so simdjson can parse it. Only records simdjson rejects go through
// here; the fast path never does. Internal to formats/json.

#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "formats/json/json_reader.h"

namespace tributary::json {

/// Which non-standard JSON a reader accepts, under Spark's option names.
struct LenientJsonOptions {
  /// `allowNonNumericNumbers`: NaN, Infinity, +Infinity, -Infinity, INF, +INF, -INF as values
  /// (rewritten to the strings "NaN", "Infinity", "-Infinity", which float and double columns
  /// read as those values).
  bool non_numeric_numbers = true;
  /// `allowSingleQuotes`: 'strings' and 'names'.
  bool single_quotes = true;
  /// `allowUnquotedFieldNames`: {name: 1} with names of letters, digits, '_' and '$'.
  bool unquoted_field_names = false;
  /// `allowComments`: /* ... */ and // ... to the end of the line.
  bool comments = false;
  /// `allowBackslashEscapingAnyCharacter`: "\q" reads as "q".
  bool backslash_escaping_any_character = false;
  /// `allowUnquotedControlChars`: raw control characters (below U+0020) inside strings.
  bool unquoted_control_chars = false;
  /// `allowNumericLeadingZeros`: 007 reads as 7.
  bool numeric_leading_zeros = false;

  /// Whether any extension beyond strict JSON is on.
  bool Any() const {
    return non_numeric_numbers || single_quotes || unquoted_field_names || comments ||
           backslash_escaping_any_character || unquoted_control_chars || numeric_leading_zeros;
  }
};

/// The lenient-JSON switches of the reader's options.
LenientJsonOptions LenientOptionsOf(const JsonReadOptions& options);

/// Rewrites `text` into strict JSON in `*out` (cleared first) following `options`. Returns false
/// when `text` uses something no enabled option allows, or is not JSON at all; a true result may
/// still fail to parse (the rewrite fixes tokens, it does not check the structure).
bool RewriteLenientJson(std::string_view text, const LenientJsonOptions& options, std::string* out);

/// Parses `text` (followed by readable padding) with `parser`. When simdjson rejects it and
/// `options` allow anything beyond strict JSON, parses its rewrite instead, kept (padded) in
/// `*rewritten`. Sets `*parsed` to the text the parser read (for positions of values); returns
/// simdjson's error for the original text when neither parses.
simdjson::error_code ParseJsonRecord(simdjson::dom::parser& parser, std::string_view text,
                                     const LenientJsonOptions& options, std::string* rewritten,
                                     simdjson::dom::element* root, std::string_view* parsed);

}  // namespace tributary::json

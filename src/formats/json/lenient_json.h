// Spark's lenient JSON (Jackson's parser features behind the JSON source's allow* options),
// rewritten into strict JSON so simdjson can parse it. Only records simdjson rejects go through
// here; the fast path never does. Internal to formats/json.

#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

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

/// Numbers of a record beyond what simdjson represents (integers outside int64 and uint64,
/// finite-looking doubles that overflow, such as 1e400), which ParseJsonRecord replaced by 0 so
/// that the rest of the record parses.
struct OverflowNumbers {
  /// The record with those numbers replaced (padded), which the parser read.
  std::string text;
  /// Their ordinals among the record's numbers in document order (the order of
  /// LexJsonNumbers over `*parsed`), ascending; empty when the record needed no replacement.
  std::vector<size_t> ordinals;

  /// Whether the number of ordinal `ordinal` was replaced.
  bool Contains(size_t ordinal) const;
};

/// Parses `text` (followed by readable padding) with `parser`. When simdjson rejects it and
/// `options` allow anything beyond strict JSON, parses its rewrite instead, kept (padded) in
/// `*rewritten`. When it still fails on a number out of range and `overflow` is not null, parses
/// it with those numbers replaced (see OverflowNumbers). Sets `*parsed` to the text whose numbers
/// the parsed values are, in order (the original numbers where some were replaced); returns
/// simdjson's error for the original text when nothing parses.
simdjson::error_code ParseJsonRecord(simdjson::dom::parser& parser, std::string_view text,
                                     const LenientJsonOptions& options, std::string* rewritten,
                                     simdjson::dom::element* root, std::string_view* parsed,
                                     OverflowNumbers* overflow = nullptr);

}  // namespace tributary::json

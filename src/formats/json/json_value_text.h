// JSON text of parsed simdjson values, for string columns that receive non-string values and
// for the rescued-data column. Internal to formats/json.

#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace simdjson::dom {
class element;
}  // namespace simdjson::dom

namespace tributary::json {

/// JSON's insignificant whitespace (RFC 8259): space, tab, line feed and carriage return.
constexpr bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Appends `value` as compact JSON: strings escaped as columnar::AppendJsonString does,
/// integers exactly, doubles in canonical form ("1.0", "1e+16"), objects and arrays without
/// spaces and in input order.
void AppendElementJson(const simdjson::dom::element& value, std::string* out);

/// As above, but the k-th number of `value` (in document order, from 0) is written as
/// `number_text(k)` when that is not empty.
void AppendElementJson(const simdjson::dom::element& value, std::string* out,
                       const std::function<std::string_view(size_t)>& number_text);

/// The number tokens of strict JSON `text`, in document order (the order in which simdjson's
/// DOM visits number values), replacing `*tokens`. Lets decimal values be read exactly.
void LexJsonNumbers(std::string_view text, std::vector<std::string_view>* tokens);

/// How many number values `value` is or holds.
size_t CountNumbers(const simdjson::dom::element& value);

}  // namespace tributary::json

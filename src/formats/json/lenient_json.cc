#include "formats/json/lenient_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/ascii.h"
#include "formats/json/json_value_text.h"
#include "formats/text/line_reader.h"

namespace tributary::json {
namespace {

bool IsNameChar(char c) {
  return IsAsciiLetter(c) || IsAsciiDigit(c) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

void AppendControlEscape(unsigned char c, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("\\u00");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 15]);
}

// Copies the string starting at text[*pos] (an opening `quote`) as a double-quoted JSON string.
bool RewriteString(std::string_view text, size_t* pos, char quote,
                   const LenientJsonOptions& options, std::string* out) {
  size_t i = *pos + 1;
  out->push_back('"');
  while (i < text.size()) {
    const char c = text[i];
    if (c == quote) {
      out->push_back('"');
      *pos = i + 1;
      return true;
    }
    if (c == '\\') {
      if (i + 1 >= text.size()) {
        return false;
      }
      const char e = text[i + 1];
      switch (e) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
        case 'u':
          out->push_back('\\');
          out->push_back(e);
          break;
        case '\'':
          // \' is how a single-quoted string holds a quote; in double quotes it needs none.
          if (quote != '\'' && !options.backslash_escaping_any_character) {
            return false;
          }
          out->push_back('\'');
          break;
        default:
          if (!options.backslash_escaping_any_character) {
            return false;
          }
          if (static_cast<unsigned char>(e) < 0x20) {
            AppendControlEscape(static_cast<unsigned char>(e), out);
          } else {
            out->push_back(e);
          }
          break;
      }
      i += 2;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      if (!options.unquoted_control_chars) {
        return false;
      }
      AppendControlEscape(static_cast<unsigned char>(c), out);
    } else if (c == '"') {
      out->append("\\\"");  // a double quote inside a single-quoted string
    } else {
      out->push_back(c);
    }
    ++i;
  }
  return false;
}

// Skips a comment at text[*pos] ('/' seen); false when it is not one.
bool SkipComment(std::string_view text, size_t* pos) {
  if (*pos + 1 >= text.size()) {
    return false;
  }
  if (text[*pos + 1] == '/') {
    const size_t end = text.find('\n', *pos + 2);
    *pos = end == std::string_view::npos ? text.size() : end;
    return true;
  }
  if (text[*pos + 1] == '*') {
    const size_t end = text.find("*/", *pos + 2);
    if (end == std::string_view::npos) {
      return false;
    }
    *pos = end + 2;
    return true;
  }
  return false;
}

// The non-numeric number at text[pos..end) as the string it becomes, or "".
std::string_view NonNumericNumber(std::string_view word) {
  if (word == "NaN" || word == "+NaN" || word == "-NaN") {
    return "\"NaN\"";
  }
  if (word == "Infinity" || word == "+Infinity" || word == "INF" || word == "+INF") {
    return "\"Infinity\"";
  }
  if (word == "-Infinity" || word == "-INF") {
    return "\"-Infinity\"";
  }
  return "";
}

}  // namespace

LenientJsonOptions LenientOptionsOf(const JsonReadOptions& options) {
  LenientJsonOptions lenient;
  lenient.non_numeric_numbers = options.allow_non_numeric_numbers;
  lenient.single_quotes = options.allow_single_quotes;
  lenient.unquoted_field_names = options.allow_unquoted_field_names;
  lenient.comments = options.allow_comments;
  lenient.backslash_escaping_any_character = options.allow_backslash_escaping_any_character;
  lenient.unquoted_control_chars = options.allow_unquoted_control_chars;
  lenient.numeric_leading_zeros = options.allow_numeric_leading_zeros;
  return lenient;
}

bool RewriteLenientJson(std::string_view text, const LenientJsonOptions& options,
                        std::string* out) {
  out->clear();
  out->reserve(text.size() + 16);
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' || (c == '\'' && options.single_quotes)) {
      if (!RewriteString(text, &i, c, options, out)) {
        return false;
      }
      continue;
    }
    if (c == '/' && options.comments) {
      if (!SkipComment(text, &i)) {
        return false;
      }
      out->push_back(' ');
      continue;
    }
    if (IsJsonSpace(c) || c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') {
      out->push_back(c);
      ++i;
      continue;
    }
    // A bare word: a number, a literal, a non-numeric number or an unquoted field name.
    size_t end = i + 1;
    while (end < text.size() &&
           (IsNameChar(text[end]) || text[end] == '+' || text[end] == '-' || text[end] == '.')) {
      ++end;
    }
    const std::string_view word = text.substr(i, end - i);
    size_t next = end;
    while (next < text.size() && IsJsonSpace(text[next])) {
      ++next;
    }
    const bool is_name = next < text.size() && text[next] == ':';
    if (is_name) {
      if (!options.unquoted_field_names) {
        return false;
      }
      for (char n : word) {
        if (!IsNameChar(n)) {
          return false;
        }
      }
      out->push_back('"');
      out->append(word);
      out->push_back('"');
    } else if (word == "true" || word == "false" || word == "null") {
      out->append(word);
    } else if (const std::string_view special = NonNumericNumber(word);
               !special.empty() && options.non_numeric_numbers) {
      out->append(special);
    } else if (IsAsciiDigit(c) || c == '-') {
      // A number: drop leading zeros of its integer part when allowed.
      size_t digits = c == '-' ? i + 1 : i;
      if (c == '-') {
        out->push_back('-');
      }
      if (options.numeric_leading_zeros) {
        while (digits + 1 < end && text[digits] == '0' && IsAsciiDigit(text[digits + 1])) {
          ++digits;
        }
      }
      out->append(text.substr(digits, end - digits));
    } else {
      return false;
    }
    i = end;
  }
  return true;
}

bool OverflowNumbers::Contains(size_t ordinal) const {
  return std::binary_search(ordinals.begin(), ordinals.end(), ordinal);
}

namespace {

// Whether the number token `token` is beyond what simdjson's DOM represents: an integer outside
// int64 and uint64, or a double whose magnitude overflows (underflow reads as 0 there).
bool Overflows(std::string_view token) {
  // JSON's number grammar (RFC 8259 section 6), so that only well-formed numbers are replaced.
  size_t i = token.starts_with('-') ? 1 : 0;
  const auto digits = [&] {
    const size_t start = i;
    while (i < token.size() && IsAsciiDigit(token[i])) {
      ++i;
    }
    return i - start;
  };
  const size_t start = i;
  const size_t integer_digits = digits();
  if (integer_digits == 0 || (integer_digits > 1 && token[start] == '0')) {
    return false;
  }
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (digits() == 0) {
      return false;
    }
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) {
      ++i;
    }
    if (digits() == 0) {
      return false;
    }
  }
  if (i != token.size()) {
    return false;
  }
  if (token.find_first_of(".eE") == std::string_view::npos) {
    int64_t signed_value;
    uint64_t unsigned_value;
    const char* end = token.data() + token.size();
    return std::from_chars(token.data(), end, signed_value).ec != std::errc() &&
           std::from_chars(token.data(), end, unsigned_value).ec != std::errc();
  }
  const std::string copy(token);
  return std::isinf(std::strtod(copy.c_str(), nullptr));
}

// Copies `text` to `out->text` with its overflowing numbers replaced by 0, noting their
// ordinals; false when it has none.
bool ReplaceOverflowingNumbers(std::string_view text, OverflowNumbers* out) {
  std::vector<std::string_view> tokens;
  LexJsonNumbers(text, &tokens);
  out->text.clear();
  out->ordinals.clear();
  size_t copied = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!Overflows(tokens[i])) {
      continue;
    }
    const auto start = static_cast<size_t>(tokens[i].data() - text.data());
    out->text.append(text.substr(copied, start - copied));
    out->text.push_back('0');
    copied = start + tokens[i].size();
    out->ordinals.push_back(i);
  }
  if (out->ordinals.empty()) {
    return false;
  }
  out->text.append(text.substr(copied));
  return true;
}

}  // namespace

simdjson::error_code ParseJsonRecord(simdjson::dom::parser& parser, std::string_view text,
                                     const LenientJsonOptions& options, std::string* rewritten,
                                     simdjson::dom::element* root, std::string_view* parsed,
                                     OverflowNumbers* overflow) {
  *parsed = text;
  if (overflow != nullptr) {
    overflow->ordinals.clear();
  }
  const simdjson::error_code error =
      parser.parse(reinterpret_cast<const uint8_t*>(text.data()), text.size(), false).get(*root);
  if (error == simdjson::SUCCESS) {
    return error;
  }
  // The text whose numbers are checked for overflow: the lenient rewrite when there is one.
  std::string_view strict = text;
  simdjson::error_code last = error;
  if (options.Any() && RewriteLenientJson(text, options, rewritten)) {
    const size_t size = rewritten->size();
    rewritten->append(text::kLinePadding, ' ');
    last =
        parser.parse(reinterpret_cast<const uint8_t*>(rewritten->data()), size, false).get(*root);
    if (last == simdjson::SUCCESS) {
      *parsed = std::string_view(rewritten->data(), size);
      return simdjson::SUCCESS;
    }
    strict = std::string_view(rewritten->data(), size);
  }
  if (overflow == nullptr || last != simdjson::NUMBER_ERROR ||
      !ReplaceOverflowingNumbers(strict, overflow)) {
    return error;
  }
  const size_t size = overflow->text.size();
  overflow->text.append(text::kLinePadding, ' ');
  if (parser.parse(reinterpret_cast<const uint8_t*>(overflow->text.data()), size, false)
          .get(*root) != simdjson::SUCCESS) {
    overflow->ordinals.clear();
    return error;
  }
  *parsed = strict;
  return simdjson::SUCCESS;
}

}  // namespace tributary::json

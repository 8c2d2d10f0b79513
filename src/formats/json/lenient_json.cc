#include "formats/json/lenient_json.h"

#include <cstdint>

#include "formats/text/line_reader.h"

namespace tributary::json {
namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
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
    if (IsSpace(c) || c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') {
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
    while (next < text.size() && IsSpace(text[next])) {
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
    } else if (IsDigit(c) || c == '-') {
      // A number: drop leading zeros of its integer part when allowed.
      size_t digits = c == '-' ? i + 1 : i;
      if (c == '-') {
        out->push_back('-');
      }
      if (options.numeric_leading_zeros) {
        while (digits + 1 < end && text[digits] == '0' && IsDigit(text[digits + 1])) {
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

simdjson::error_code ParseJsonRecord(simdjson::dom::parser& parser, std::string_view text,
                                     const LenientJsonOptions& options, std::string* rewritten,
                                     simdjson::dom::element* root, std::string_view* parsed) {
  *parsed = text;
  const simdjson::error_code error =
      parser.parse(reinterpret_cast<const uint8_t*>(text.data()), text.size(), false).get(*root);
  if (error == simdjson::SUCCESS || !options.Any() ||
      !RewriteLenientJson(text, options, rewritten)) {
    return error;
  }
  const size_t size = rewritten->size();
  rewritten->append(text::kLinePadding, ' ');
  if (parser.parse(reinterpret_cast<const uint8_t*>(rewritten->data()), size, false).get(*root) !=
      simdjson::SUCCESS) {
    return error;
  }
  *parsed = std::string_view(rewritten->data(), size);
  return simdjson::SUCCESS;
}

}  // namespace tributary::json

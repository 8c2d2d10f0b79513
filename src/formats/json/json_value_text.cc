#include "formats/json/json_value_text.h"

#include <simdjson.h>

#include <charconv>

#include "columnar/canonical_json.h"

namespace tributary::json {
namespace {

template <typename T>
void AppendInteger(T value, std::string* out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), value);
  out->append(digits, static_cast<size_t>(end.ptr - digits));
}

}  // namespace

void AppendElementJson(const simdjson::dom::element& value, std::string* out) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      for (simdjson::dom::element item : simdjson::dom::array(value.get_array().value_unsafe())) {
        if (!first) {
          out->push_back(',');
        }
        first = false;
        AppendElementJson(item, out);
      }
      out->push_back(']');
      return;
    }
    case element_type::OBJECT: {
      out->push_back('{');
      bool first = true;
      for (simdjson::dom::key_value_pair member :
           simdjson::dom::object(value.get_object().value_unsafe())) {
        if (!first) {
          out->push_back(',');
        }
        first = false;
        columnar::AppendJsonString(member.key, out);
        out->push_back(':');
        AppendElementJson(member.value, out);
      }
      out->push_back('}');
      return;
    }
    case element_type::INT64:
      AppendInteger(value.get_int64().value_unsafe(), out);
      return;
    case element_type::UINT64:
      AppendInteger(value.get_uint64().value_unsafe(), out);
      return;
    case element_type::DOUBLE:
      columnar::AppendJsonDouble(value.get_double().value_unsafe(), false, out);
      return;
    case element_type::STRING:
      columnar::AppendJsonString(value.get_string().value_unsafe(), out);
      return;
    case element_type::BOOL:
      out->append(value.get_bool().value_unsafe() ? "true" : "false");
      return;
    case element_type::NULL_VALUE:
      out->append("null");
      return;
  }
}

void LexJsonNumbers(std::string_view text, std::vector<std::string_view>* tokens) {
  tokens->clear();
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '"') {
      // Skip the string: it ends at the first quote not escaped.
      ++i;
      while (i < n && text[i] != '"') {
        i += text[i] == '\\' ? 2 : 1;
      }
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const size_t start = i;
      while (i < n && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' || text[i] == 'e' ||
                       text[i] == 'E' || text[i] == '+' || text[i] == '-')) {
        ++i;
      }
      tokens->push_back(text.substr(start, i - start));
    } else {
      ++i;
    }
  }
}

size_t CountNumbers(const simdjson::dom::element& value) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return 1;
    case element_type::ARRAY: {
      size_t count = 0;
      for (simdjson::dom::element item : simdjson::dom::array(value.get_array().value_unsafe())) {
        count += CountNumbers(item);
      }
      return count;
    }
    case element_type::OBJECT: {
      size_t count = 0;
      for (simdjson::dom::key_value_pair member :
           simdjson::dom::object(value.get_object().value_unsafe())) {
        count += CountNumbers(member.value);
      }
      return count;
    }
    default:
      return 0;
  }
}

}  // namespace tributary::json

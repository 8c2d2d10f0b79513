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

using NumberText = std::function<std::string_view(size_t)>;

// AppendElementJson; `number_text` (may be null) overrides numbers, `*ordinal` counts them.
void AppendJson(const simdjson::dom::element& value, std::string* out,
                const NumberText* number_text, size_t* ordinal) {
  using simdjson::dom::element_type;
  const element_type type = value.type();
  if (number_text != nullptr && (type == element_type::INT64 || type == element_type::UINT64 ||
                                 type == element_type::DOUBLE)) {
    const std::string_view text = (*number_text)((*ordinal)++);
    if (!text.empty()) {
      out->append(text);
      return;
    }
  }
  switch (value.type()) {
    case element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      for (simdjson::dom::element item : simdjson::dom::array(value.get_array().value_unsafe())) {
        if (!first) {
          out->push_back(',');
        }
        first = false;
        AppendJson(item, out, number_text, ordinal);
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
        AppendJson(member.value, out, number_text, ordinal);
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

}  // namespace

void AppendElementJson(const simdjson::dom::element& value, std::string* out) {
  size_t ordinal = 0;
  AppendJson(value, out, nullptr, &ordinal);
}

void AppendElementJson(const simdjson::dom::element& value, std::string* out,
                       const std::function<std::string_view(size_t)>& number_text) {
  size_t ordinal = 0;
  AppendJson(value, out, &number_text, &ordinal);
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

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

// Length of the well-formed UTF-8 sequence starting at s[0] (at most n bytes), or 0.
size_t Utf8Length(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) {
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (len > n) {
    return 0;
  }
  uint32_t cp = c & (0x7F >> len);
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
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
      for (simdjson::dom::key_value_pair member : simdjson::dom::object(value.get_object().value_unsafe())) {
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

void AppendValidUtf8(std::string_view text, std::string* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = Utf8Length(s + i, n - i);
    if (len == 0) {
      out->append(text.data() + run, i - run);
      out->append("\xEF\xBF\xBD");
      ++i;
      run = i;
    } else {
      i += len;
    }
  }
  out->append(text.data() + run, n - run);
}

}  // namespace tributary::json

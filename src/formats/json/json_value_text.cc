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

}  // namespace tributary::json

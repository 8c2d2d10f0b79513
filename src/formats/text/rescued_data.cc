#include "formats/text/rescued_data.h"

#include "columnar/canonical_json.h"

namespace tributary::text {
namespace {

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

std::string* RescuedRecord::AddKey(std::string_view name) {
  text_.push_back(empty_ ? '{' : ',');
  empty_ = false;
  columnar::AppendJsonString(name, &text_);
  text_.push_back(':');
  return &text_;
}

void RescuedRecord::AddJson(std::string_view name, std::string_view value_json) {
  AddKey(name)->append(value_json);
}

void RescuedRecord::AddString(std::string_view name, std::string_view text) {
  columnar::AppendJsonString(text, AddKey(name));
}

std::string_view RescuedRecord::Finish(std::string_view file_path) {
  if (!file_path.empty()) {
    AddString(kFilePathKey, file_path);
  }
  text_.push_back(empty_ ? '{' : '}');
  if (empty_) {
    text_.push_back('}');
  }
  return text_;
}

}  // namespace tributary::text

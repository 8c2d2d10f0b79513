#include "formats/text/rescued_data.h"

#include "columnar/canonical_json.h"
#include "common/utf8.h"

namespace tributary::text {
namespace {}  // namespace

void AppendValidUtf8(std::string_view text, std::string* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = Utf8SequenceLength(text.substr(i));
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

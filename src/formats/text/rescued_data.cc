#include "formats/text/rescued_data.h"

#include "columnar/canonical_json.h"

namespace tributary::text {

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

#include "formats/json/record_splitter.h"

#include <cstring>
#include <string>

namespace tributary::json {

size_t BomLength(std::string_view data) {
  return data.size() >= 3 && data.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

LineSplitter::LineSplitter(std::string_view data) : data_(data), pos_(BomLength(data)) {}

bool LineSplitter::Next(Line* line) {
  if (pos_ >= data_.size()) {
    return false;
  }
  const char* start = data_.data() + pos_;
  const size_t remaining = data_.size() - pos_;
  const void* newline = std::memchr(start, '\n', remaining);
  size_t length = newline == nullptr ? remaining : static_cast<size_t>(
                                                       static_cast<const char*>(newline) - start);
  line->offset = static_cast<int64_t>(pos_);
  line->number = ++number_;
  pos_ += newline == nullptr ? length : length + 1;
  if (length > 0 && start[length - 1] == '\r') {
    --length;
  }
  line->text = std::string_view(start, length);
  return true;
}

bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      return false;
    }
  }
  return true;
}

Status CheckDateTimeFormats(std::string_view timestamp_format, std::string_view date_format) {
  if (!timestamp_format.empty() && timestamp_format.substr(0, 10) != "yyyy-MM-dd") {
    return Status::NotImplemented("timestampFormat '" + std::string(timestamp_format) +
                                  "' is not supported: only ISO-8601 patterns starting "
                                  "yyyy-MM-dd are");
  }
  if (!date_format.empty() && date_format != "yyyy-MM-dd") {
    return Status::NotImplemented("dateFormat '" + std::string(date_format) +
                                  "' is not supported: only yyyy-MM-dd is");
  }
  return Status::OK();
}

namespace {

bool DigitsAt(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) {
    return false;
  }
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
  }
  return true;
}

bool IsoDatePrefix(std::string_view text) {
  return DigitsAt(text, 0, 4) && text.size() >= 10 && text[4] == '-' && DigitsAt(text, 5, 2) &&
         text[7] == '-' && DigitsAt(text, 8, 2);
}

}  // namespace

bool LooksLikeIsoDate(std::string_view text) {
  return text.size() == 10 && IsoDatePrefix(text);
}

bool LooksLikeIsoTimestamp(std::string_view text) {
  return text.size() >= 16 && IsoDatePrefix(text) && (text[10] == 'T' || text[10] == ' ') &&
         DigitsAt(text, 11, 2) && text[13] == ':' && DigitsAt(text, 14, 2);
}

}  // namespace tributary::json

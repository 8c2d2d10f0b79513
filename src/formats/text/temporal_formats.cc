#include "formats/text/temporal_formats.h"

#include <string>

#include <fmt/format.h>
namespace tributary::text {
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

Result<std::optional<expr::DateTimePattern>> CompileOption(std::string_view pattern,
                                                           std::string_view option,
                                                           std::string_view reader) {
  if (pattern.empty()) {
    return std::optional<expr::DateTimePattern>();
  }
  auto compiled = expr::DateTimePattern::Compile(pattern);
  if (!compiled.ok()) {
    return compiled.status().WithContext(fmt::format("{}: option {}", reader, option));
  }
  return std::optional<expr::DateTimePattern>(compiled.MoveValueUnsafe());
}

}  // namespace

Result<TemporalFormats> TemporalFormats::Make(std::string_view timestamp_format,
                                              std::string_view date_format,
                                              std::string_view time_zone, std::string_view reader) {
  TemporalFormats formats;
  TRIBUTARY_ASSIGN_OR_RAISE(formats.timestamp_,
                            CompileOption(timestamp_format, "timestampFormat", reader));
  TRIBUTARY_ASSIGN_OR_RAISE(formats.date_, CompileOption(date_format, "dateFormat", reader));
  auto zone = expr::TimeZone::Make(time_zone);
  if (!zone.ok()) {
    return zone.status().WithContext(fmt::format("{}: option timeZone", reader));
  }
  formats.zone_ = zone.MoveValueUnsafe();
  return formats;
}

bool TemporalFormats::IsTimestamp(std::string_view text) const {
  if (timestamp_.has_value()) {
    int64_t micros = 0;
    return timestamp_->ParseTimestamp(text, zone_, false, &micros);
  }
  int64_t micros = 0;
  return text.size() >= 16 && IsoDatePrefix(text) && (text[10] == 'T' || text[10] == ' ') &&
         DigitsAt(text, 11, 2) && text[13] == ':' && DigitsAt(text, 14, 2) &&
         expr::ParseTimestamp(text, zone_, false, &micros);
}

bool TemporalFormats::IsDate(std::string_view text) const {
  int32_t days = 0;
  if (date_.has_value()) {
    return date_->ParseDate(text, &days);
  }
  return text.size() == 10 && IsoDatePrefix(text) && expr::ParseDate(text, &days);
}

}  // namespace tributary::text

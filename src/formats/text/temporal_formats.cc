#include "formats/text/temporal_formats.h"

#include <string>

#include <fmt/format.h>

#include "columnar/calendar.h"

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

bool TemporalFormats::ParseUtcIso(std::string_view text, int64_t* micros) {
  const size_t n = text.size();
  if (n < 20 || n > 27 || text[n - 1] != 'Z' || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':') {
    return false;
  }
  int digits[14];
  static constexpr size_t kPositions[14] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
  for (size_t i = 0; i < 14; ++i) {
    const unsigned d = static_cast<unsigned>(text[kPositions[i]] - '0');
    if (d > 9) {
      return false;
    }
    digits[i] = static_cast<int>(d);
  }
  int64_t fraction = 0;
  if (n > 20) {
    if (text[19] != '.' || n == 21) {
      return false;
    }
    size_t k = 20;
    for (; k < n - 1; ++k) {
      const unsigned d = static_cast<unsigned>(text[k] - '0');
      if (d > 9) {
        return false;
      }
      fraction = fraction * 10 + d;
    }
    for (; k < 26; ++k) {
      fraction *= 10;
    }
  }
  const int64_t year = digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3];
  const int month = digits[4] * 10 + digits[5];
  const int day = digits[6] * 10 + digits[7];
  const int64_t hour = digits[8] * 10 + digits[9];
  const int64_t minute = digits[10] * 10 + digits[11];
  const int64_t second = digits[12] * 10 + digits[13];
  if (month < 1 || month > 12 || day < 1 || day > columnar::DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return false;
  }
  *micros = columnar::DaysFromCivil(year, month, day) * columnar::kMicrosPerDay +
            ((hour * 60 + minute) * 60 + second) * columnar::kMicrosPerSecond + fraction;
  return true;
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

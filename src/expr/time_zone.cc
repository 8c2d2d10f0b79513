#include "expr/time_zone.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "columnar/column.h"
#include "common/ascii.h"

namespace tributary::expr {

// Transitions of a region from its TZif file, plus the POSIX TZ rule for instants past the
// last transition (RFC 8536).
struct ZoneRules {
  std::vector<int64_t> transitions;  // UTC seconds, ascending
  std::vector<int32_t> offsets;      // offset in force from transitions[i]
  int32_t initial_offset = 0;        // before the first transition
  // POSIX TZ footer: std offset, and optionally DST with its rules.
  bool has_rule = false;
  int32_t std_offset = 0;
  bool has_dst = false;
  int32_t dst_offset = 0;
  struct Date {
    char kind = 'M';  // M: month.week.day, J: julian 1..365 without Feb 29, D: 0..365
    int month = 0;
    int week = 0;
    int weekday = 0;
    int day = 0;
    int32_t time = 7200;  // seconds after local midnight
  };
  Date start;
  Date end;

  int64_t OffsetAt(int64_t utc) const;
  int64_t RuleOffsetAt(int64_t utc) const;
};

namespace {

int64_t FloorDivide(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && (a < 0));
}

int64_t DaysFromCivilDate(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = FloorDivide(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

int64_t YearOf(int64_t seconds) {
  const int64_t days = FloorDivide(seconds, 86400) + 719468;
  const int64_t era = FloorDivide(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10);
}

bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// Local seconds since the epoch of a rule date in `year`.
int64_t RuleLocalTime(const ZoneRules::Date& date, int64_t year) {
  int64_t days = 0;
  if (date.kind == 'M') {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const int64_t first = DaysFromCivilDate(year, date.month, 1);
    // 1970-01-01 was a Thursday (weekday 4).
    const int first_weekday = static_cast<int>(((first % 7) + 7 + 4) % 7);
    int day = 1 + (date.weekday - first_weekday + 7) % 7 + 7 * (date.week - 1);
    const int length = kDays[date.month - 1] + (date.month == 2 && IsLeap(year) ? 1 : 0);
    while (day > length) {
      day -= 7;
    }
    days = first + day - 1;
  } else if (date.kind == 'J') {
    int n = date.day;
    if (IsLeap(year) && n >= 60) {
      ++n;
    }
    days = DaysFromCivilDate(year, 1, 1) + n - 1;
  } else {
    days = DaysFromCivilDate(year, 1, 1) + date.day;
  }
  return days * 86400 + date.time;
}

// The POSIX TZ string of a TZif footer (RFC 8536 section 3.3).
class PosixParser {
 public:
  explicit PosixParser(std::string_view text) : text_(text) {}

  /// Without `default_rules`, a daylight-saving zone must state its rules (tzdata footers
  /// always do); with it, omitted rules are POSIX's and glibc's default, the US rules
  /// ",M3.2.0,M11.1.0" (a TZ variable such as "EST5EDT").
  bool Parse(ZoneRules* rules, bool default_rules = false) {
    if (!Name() || !Offset(&rules->std_offset)) {
      return false;
    }
    rules->std_offset = -rules->std_offset;  // POSIX offsets are west-positive
    rules->has_rule = true;
    if (pos_ == text_.size()) {
      return true;
    }
    if (!Name()) {
      return false;
    }
    rules->has_dst = true;
    rules->dst_offset = rules->std_offset + 3600;
    if (pos_ < text_.size() && text_[pos_] != ',') {
      int32_t dst = 0;
      if (!Offset(&dst)) {
        return false;
      }
      rules->dst_offset = -dst;
    }
    if (pos_ == text_.size()) {
      if (!default_rules) {
        return false;
      }
      rules->start = {'M', 3, 2, 0, 0, 7200};
      rules->end = {'M', 11, 1, 0, 0, 7200};
      return true;
    }
    return Consume(',') && Rule(&rules->start) && Consume(',') && Rule(&rules->end) &&
           pos_ == text_.size();
  }

 private:
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Name() {
    if (Consume('<')) {
      const size_t close = text_.find('>', pos_);
      if (close == std::string_view::npos) {
        return false;
      }
      pos_ = close + 1;
      return true;
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    return pos_ - start >= 3;
  }
  bool Number(int* out) {
    const size_t start = pos_;
    int value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      value = value * 10 + (text_[pos_++] - '0');
      if (value > 100000) {
        return false;
      }
    }
    *out = value;
    return pos_ > start;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  bool Offset(int32_t* out) {
    int sign = 1;
    if (Consume('-')) {
      sign = -1;
    } else {
      Consume('+');
    }
    int h = 0;
    int m = 0;
    int s = 0;
    if (!Number(&h)) {
      return false;
    }
    if (Consume(':')) {
      if (!Number(&m)) {
        return false;
      }
      if (Consume(':') && !Number(&s)) {
        return false;
      }
    }
    *out = sign * (h * 3600 + m * 60 + s);
    return true;
  }
  bool Rule(ZoneRules::Date* date) {
    if (Consume('M')) {
      date->kind = 'M';
      if (!Number(&date->month) || !Consume('.') || !Number(&date->week) || !Consume('.') ||
          !Number(&date->weekday) || date->month < 1 || date->month > 12 || date->week < 1 ||
          date->week > 5 || date->weekday > 6) {
        return false;
      }
    } else if (Consume('J')) {
      date->kind = 'J';
      if (!Number(&date->day) || date->day < 1 || date->day > 365) {
        return false;
      }
    } else {
      date->kind = 'D';
      if (!Number(&date->day) || date->day > 365) {
        return false;
      }
    }
    date->time = 7200;
    if (Consume('/')) {
      return Offset(&date->time);
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t Be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

constexpr const char* kZoneInfoDir = "/usr/share/zoneinfo/";

// Reads a TZif file (RFC 8536): header, 32-bit block, then (version 2+) a 64-bit block and the
// POSIX TZ footer that rules instants after the last transition.
Result<std::shared_ptr<const ZoneRules>> LoadZoneRules(std::string_view name) {
  auto unknown = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("unknown time zone '{}' ({}): use UTC, an offset such as +02:00, a "
                    "region such as Europe/Paris or a short id such as PST",
                    name, why));
  };
  if (name.empty() || name.find("..") != std::string_view::npos || name[0] == '/') {
    return unknown("not a zone name");
  }
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '/' && ch != '_' && ch != '-' &&
        ch != '+') {
      return unknown("not a zone name");
    }
  }
  const std::string path = kZoneInfoDir + std::string(name);
  // A region's folder (`America`) is no zone: reading a directory throws in the stream.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return unknown(fmt::format("not found under {}", kZoneInfoDir));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return unknown(fmt::format("not found under {}", kZoneInfoDir));
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t size = data.size();
  auto corrupt = [&](std::string_view what) {
    return Status::Corruption(fmt::format("{}: {}", path, what));
  };
  if (size < 44 || data.compare(0, 4, "TZif") != 0) {
    return corrupt("not a TZif file");
  }
  const char version = data[4];
  // Header counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  uint32_t c[6];
  auto read_counts = [&](size_t at) {
    for (int i = 0; i < 6; ++i) {
      c[i] = Be32(p + at + 20 + 4 * static_cast<size_t>(i));
    }
  };
  read_counts(0);
  size_t pos = 44;
  size_t time_size = 4;
  if (version >= '2') {
    pos += static_cast<size_t>(c[3]) * 4 + c[3] + static_cast<size_t>(c[4]) * 6 + c[5] +
           static_cast<size_t>(c[2]) * 8 + c[1] + c[0];
    if (pos + 44 > size || data.compare(pos, 4, "TZif") != 0) {
      return corrupt("second TZif header missing");
    }
    read_counts(pos);
    pos += 44;
    time_size = 8;
  }
  const uint32_t timecnt = c[3];
  const uint32_t typecnt = c[4];
  const size_t need = timecnt * time_size + timecnt + static_cast<size_t>(typecnt) * 6;
  if (typecnt == 0 || pos + need > size) {
    return corrupt("data block runs past the end");
  }
  auto rules = std::make_shared<ZoneRules>();
  std::vector<int32_t> type_offsets(typecnt);
  const size_t types_at = pos + timecnt * time_size + timecnt;
  for (uint32_t t = 0; t < typecnt; ++t) {
    type_offsets[t] = static_cast<int32_t>(Be32(p + types_at + 6 * static_cast<size_t>(t)));
  }
  rules->initial_offset = type_offsets[0];
  for (uint32_t i = 0; i < timecnt; ++i) {
    int64_t when = 0;
    if (time_size == 8) {
      const size_t at = pos + 8 * static_cast<size_t>(i);
      when = static_cast<int64_t>((uint64_t{Be32(p + at)} << 32) | Be32(p + at + 4));
    } else {
      when = static_cast<int32_t>(Be32(p + pos + 4 * static_cast<size_t>(i)));
    }
    const uint8_t type = p[pos + timecnt * time_size + i];
    if (type >= typecnt) {
      return corrupt("transition type out of range");
    }
    rules->transitions.push_back(when);
    rules->offsets.push_back(type_offsets[type]);
  }
  if (version >= '2') {
    const size_t footer = pos + need + c[5] + static_cast<size_t>(c[2]) * 12 + c[1] + c[0];
    if (footer < size && data[footer] == '\n') {
      const size_t close = data.find('\n', footer + 1);
      if (close != std::string::npos && close > footer + 1) {
        PosixParser parser(std::string_view(data).substr(footer + 1, close - footer - 1));
        if (!parser.Parse(rules.get())) {
          return corrupt("unreadable POSIX TZ footer");
        }
      }
    }
  }
  return std::shared_ptr<const ZoneRules>(std::move(rules));
}

}  // namespace

int64_t ZoneRules::RuleOffsetAt(int64_t utc) const {
  if (!has_dst) {
    return std_offset;
  }
  const int64_t year = YearOf(utc + std_offset);
  // DST starts at a standard-time wall clock and ends at a daylight-time wall clock.
  const int64_t start_utc = RuleLocalTime(start, year) - std_offset;
  const int64_t end_utc = RuleLocalTime(end, year) - dst_offset;
  const bool in_dst = start_utc < end_utc ? (utc >= start_utc && utc < end_utc)
                                          : (utc >= start_utc || utc < end_utc);
  return in_dst ? dst_offset : std_offset;
}

int64_t ZoneRules::OffsetAt(int64_t utc) const {
  if (transitions.empty()) {
    return has_rule ? RuleOffsetAt(utc) : initial_offset;
  }
  if (utc < transitions.front()) {
    return initial_offset;
  }
  if (utc >= transitions.back() && has_rule) {
    return RuleOffsetAt(utc);
  }
  const auto it = std::upper_bound(transitions.begin(), transitions.end(), utc);
  return offsets[static_cast<size_t>(it - transitions.begin()) - 1];
}

namespace {

bool ParseDigits(std::string_view text, size_t count, size_t* pos, int* out) {
  if (*pos + count > text.size()) {
    return false;
  }
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  *pos += count;
  *out = value;
  return true;
}

}  // namespace

Result<int64_t> ParseZoneOffset(std::string_view text) {
  auto invalid = [&] {
    return Status::InvalidArgument(
        fmt::format("invalid time zone '{}': expected UTC, Z or an offset such as +02:00", text));
  };
  std::string_view rest = text;
  if (EqualsIgnoreAsciiCase(rest, "Z") || EqualsIgnoreAsciiCase(rest, "UTC") ||
      EqualsIgnoreAsciiCase(rest, "GMT") || EqualsIgnoreAsciiCase(rest, "UT")) {
    return 0;
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (rest.size() > prefix.size() &&
        EqualsIgnoreAsciiCase(rest.substr(0, prefix.size()), prefix) &&
        (rest[prefix.size()] == '+' || rest[prefix.size()] == '-')) {
      rest.remove_prefix(prefix.size());
      break;
    }
  }
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) {
    return invalid();
  }
  const int sign = rest[0] == '-' ? -1 : 1;
  size_t pos = 1;
  int hours = 0;
  int minutes = 0;
  // One or two hour digits, then optionally [:]mm.
  const size_t hour_digits =
      rest.size() >= 3 && std::isdigit(static_cast<unsigned char>(rest[2])) ? 2 : 1;
  if (!ParseDigits(rest, hour_digits, &pos, &hours)) {
    return invalid();
  }
  int seconds = 0;
  if (pos < rest.size()) {
    const bool colon = rest[pos] == ':';
    if (colon) {
      ++pos;
    }
    if (!ParseDigits(rest, 2, &pos, &minutes)) {
      return invalid();
    }
    if (pos < rest.size()) {
      if (colon && rest[pos] == ':') {
        ++pos;
      }
      if (!ParseDigits(rest, 2, &pos, &seconds) || pos != rest.size()) {
        return invalid();
      }
    }
  }
  if (hours > 18 || minutes > 59 || seconds > 59) {
    return invalid();
  }
  return sign * (hours * 3600 + minutes * 60 + seconds);
}

namespace {

// java.time.ZoneId.SHORT_IDS, which Spark passes to ZoneId.of for every zone name (session
// time zone, from_utc_timestamp, zone ids in timestamp text). Sorted by short id.
constexpr std::pair<std::string_view, std::string_view> kShortIds[] = {
    {"ACT", "Australia/Darwin"},
    {"AET", "Australia/Sydney"},
    {"AGT", "America/Argentina/Buenos_Aires"},
    {"ART", "Africa/Cairo"},
    {"AST", "America/Anchorage"},
    {"BET", "America/Sao_Paulo"},
    {"BST", "Asia/Dhaka"},
    {"CAT", "Africa/Harare"},
    {"CNT", "America/St_Johns"},
    {"CST", "America/Chicago"},
    {"CTT", "Asia/Shanghai"},
    {"EAT", "Africa/Addis_Ababa"},
    {"ECT", "Europe/Paris"},
    {"EST", "-05:00"},
    {"HST", "-10:00"},
    {"IET", "America/Indiana/Indianapolis"},
    {"IST", "Asia/Kolkata"},
    {"JST", "Asia/Tokyo"},
    {"MIT", "Pacific/Apia"},
    {"MST", "-07:00"},
    {"NET", "Asia/Yerevan"},
    {"NST", "Pacific/Auckland"},
    {"PLT", "Asia/Karachi"},
    {"PNT", "America/Phoenix"},
    {"PRT", "America/Puerto_Rico"},
    {"PST", "America/Los_Angeles"},
    {"SST", "Pacific/Guadalcanal"},
    {"VST", "Asia/Ho_Chi_Minh"},
};

}  // namespace

Result<TimeZone> TimeZone::Make(std::string_view name) {
  std::string_view id = name;
  // glibc's TZ forms: ":Area/City", and a path under the zoneinfo directory.
  if (id.starts_with(':')) {
    id.remove_prefix(1);
  }
  if (id.starts_with(kZoneInfoDir)) {
    id.remove_prefix(std::string_view(kZoneInfoDir).size());
  }
  auto offset = ParseZoneOffset(id);
  if (offset.ok()) {
    return TimeZone(std::string(id), *offset, nullptr);
  }
  const auto* short_id =
      std::lower_bound(std::begin(kShortIds), std::end(kShortIds), id,
                       [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (short_id != std::end(kShortIds) && short_id->first == id) {
    return Make(short_id->second);
  }
  auto rules = LoadZoneRules(id);
  if (rules.ok()) {
    return TimeZone(std::string(id), 0, std::move(*rules));
  }
  if (!rules.status().IsInvalidArgument()) {
    return rules.status();
  }
  // Not a file of the tz database: a POSIX TZ rule string as glibc reads one ("JST-9",
  // "CET-1CEST,M3.5.0,M10.5.0/3"). Its offsets are west-positive, unlike "UTC+3" above, which
  // Spark (java.time) reads east-positive and so is taken before this.
  auto posix = std::make_shared<ZoneRules>();
  PosixParser parser(id);
  if (!parser.Parse(posix.get(), /*default_rules=*/true)) {
    return rules.status();
  }
  if (!posix->has_dst) {
    return TimeZone(std::string(id), posix->std_offset, nullptr);
  }
  return TimeZone(std::string(id), 0, std::move(posix));
}

int64_t TimeZone::OffsetAt(int64_t utc_seconds) const {
  return rules_ ? rules_->OffsetAt(utc_seconds) : offset_seconds_;
}

int64_t TimeZone::LocalFromUtc(int64_t utc_micros) const {
  if (!rules_) {
    return utc_micros + offset_seconds_ * 1'000'000;
  }
  return utc_micros + OffsetAt(FloorDivide(utc_micros, 1'000'000)) * 1'000'000;
}

int64_t TimeZone::UtcFromLocal(int64_t local_micros) const {
  if (!rules_) {
    return local_micros - offset_seconds_ * 1'000'000;
  }
  const int64_t local = FloorDivide(local_micros, 1'000'000);
  // Offsets in force a day either side; transitions are never closer than that.
  const int64_t before = OffsetAt(local - 86400);
  const int64_t after = OffsetAt(local + 86400);
  const bool before_valid = OffsetAt(local - before) == before;
  const bool after_valid = OffsetAt(local - after) == after;
  // Overlap: both valid and the earlier offset (before) wins. Gap: neither is valid, and the
  // offset before the transition moves the wall-clock time forward by the gap.
  const int64_t offset = before_valid || !after_valid ? before : after;
  return local_micros - offset * 1'000'000;
}

Result<const TimeZone*> ZoneNameCache::At(const columnar::Column& names, int64_t row) {
  const std::string_view name = names.BytesAt(row);
  if (!zone_.has_value() || name != name_) {
    auto zone = TimeZone::Make(name);
    if (!zone.ok()) {
      return Status::InvalidArgument(
          fmt::format("[INVALID_TIMEZONE] row {}: {}", row, zone.status().Message()));
    }
    zone_ = std::move(*zone);
    name_ = std::string(name);
  }
  return &*zone_;
}

}  // namespace tributary::expr

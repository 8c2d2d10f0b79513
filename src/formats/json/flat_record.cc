#include "formats/json/flat_record.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <system_error>

#include "common/ascii.h"
#include "formats/json/json_value_text.h"

namespace tributary::json {
namespace {

// The word tricks below find the first byte of a loaded word with its lowest set bit.
static_assert(std::endian::native == std::endian::little);

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// Bytes equal to `byte` get their high bit set (exact for the lowest one; bytes above it may be
// false positives, which only the lowest match makes irrelevant).
uint64_t BytesEqualTo(uint64_t word, uint8_t byte) {
  const uint64_t x = word ^ (kOnes * byte);
  return (x - kOnes) & ~x & kHighBits;
}

// Bytes below 0x20 (control characters) get their high bit set, with the same caveat.
uint64_t ControlBytes(uint64_t word) {
  return (word - kOnes * 0x20) & ~word & kHighBits;
}

uint64_t Load64(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

uint32_t Load32(const char* p) {
  uint32_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

// memcmp(a, b, n) == 0 for the short keys of records, without a library call: two overlapping
// loads cover 4 to 16 bytes.
bool BytesEqual(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 16) {
    return Load64(a) == Load64(b) && Load64(a + n - 8) == Load64(b + n - 8);
  }
  if (n >= 4 && n < 8) {
    return Load32(a) == Load32(b) && Load32(a + n - 4) == Load32(b + n - 4);
  }
  return std::memcmp(a, b, n) == 0;
}

constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The bytes of a line and the cursor of the match.
struct Cursor {
  const char* p;
  const char* end;

  void SkipSpace() {
    while (p < end && IsJsonSpace(*p)) {
      ++p;
    }
  }
  bool Take(char c) {
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool TakeBytes(std::string_view bytes) {
    if (static_cast<size_t>(end - p) < bytes.size() || !BytesEqual(p, bytes.data(), bytes.size())) {
      return false;
    }
    p += bytes.size();
    return true;
  }
};

// A string without escapes or control characters starting at the opening quote; `text` is its
// content. Reads up to 8 bytes past the line, which the line padding allows.
bool MatchString(Cursor& in, std::string_view* text) {
  const char* start = in.p + 1;
  const char* s = start;
  uint64_t high = 0;
  while (s < in.end) {
    const uint64_t word = Load64(s);
    const uint64_t special =
        BytesEqualTo(word, '"') | BytesEqualTo(word, '\\') | ControlBytes(word);
    if (special == 0) {
      high |= word;
      s += sizeof(word);
      continue;
    }
    const int index = __builtin_ctzll(special) / 8;
    const char* stop = s + index;
    // Only the bytes before `stop` belong to the string.
    high |= index == 0 ? 0 : word & (~uint64_t{0} >> (64 - 8 * index));
    if (stop >= in.end || *stop != '"') {
      return false;
    }
    *text = std::string_view(start, static_cast<size_t>(stop - start));
    if ((high & kHighBits) != 0 && !simdjson::validate_utf8(text->data(), text->size())) {
      return false;
    }
    in.p = stop + 1;
    return true;
  }
  return false;
}

// A number in the JSON grammar whose value simdjson's DOM gives exactly: integers of at most
// 18 digits (int64), and fractions of at most 19 digits with an exponent within +-200, which
// are finite normal doubles whatever their digits (so never a range error).
bool MatchNumber(Cursor& in, bool parse_double, FlatValue* value) {
  const char* start = in.p;
  const char* p = start;
  const bool negative = *p == '-';
  p += negative ? 1 : 0;
  const char* digits = p;
  uint64_t mantissa = 0;
  while (p < in.end && IsAsciiDigit(*p)) {
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
  }
  const size_t int_digits = static_cast<size_t>(p - digits);
  if (int_digits == 0 || int_digits > 19 || (*digits == '0' && int_digits > 1)) {
    return false;
  }
  size_t fraction_digits = 0;
  bool is_float = false;
  if (p < in.end && *p == '.') {
    is_float = true;
    const char* fraction = ++p;
    while (p < in.end && IsAsciiDigit(*p)) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
      ++p;
    }
    fraction_digits = static_cast<size_t>(p - fraction);
    if (fraction_digits == 0) {
      return false;
    }
  }
  int magnitude = 0;
  bool negative_exponent = false;
  if (p < in.end && (*p == 'e' || *p == 'E')) {
    is_float = true;
    ++p;
    if (p < in.end && (*p == '+' || *p == '-')) {
      negative_exponent = *p == '-';
      ++p;
    }
    const char* exponent = p;
    while (p < in.end && IsAsciiDigit(*p) && p - exponent < 4) {
      magnitude = magnitude * 10 + (*p - '0');
      ++p;
    }
    if (p == exponent || (p < in.end && IsAsciiDigit(*p)) || magnitude > 200) {
      return false;
    }
  }
  if (!is_float) {
    if (int_digits > 18) {
      return false;
    }
    value->kind = FlatValueKind::kInt64;
    value->int_value = negative ? -static_cast<int64_t>(mantissa) : static_cast<int64_t>(mantissa);
  } else {
    if (int_digits + fraction_digits > 19) {
      return false;
    }
    value->kind = FlatValueKind::kDouble;
    value->text = std::string_view(start, static_cast<size_t>(p - start));
    value->double_value = 0;
    const int power =
        (negative_exponent ? -magnitude : magnitude) - static_cast<int>(fraction_digits);
    if (parse_double && mantissa <= (uint64_t{1} << 53) && power >= -22 && power <= 22) {
      // Clinger's fast path: the mantissa and the power of ten are exact doubles, so one
      // correctly rounded multiplication or division gives the correctly rounded value.
      const double scaled = power < 0 ? static_cast<double>(mantissa) / kPowersOfTen[-power]
                                      : static_cast<double>(mantissa) * kPowersOfTen[power];
      value->double_value = negative ? -scaled : scaled;
    } else if (parse_double) {
      const auto parsed = std::from_chars(start, p, value->double_value);
      if (parsed.ec != std::errc() || parsed.ptr != p) {
        return false;
      }
    }
  }
  in.p = p;
  return true;
}

bool MatchValue(Cursor& in, bool parse_double, FlatValue* value) {
  if (in.p >= in.end) {
    return false;
  }
  switch (*in.p) {
    case '"':
      value->kind = FlatValueKind::kString;
      return MatchString(in, &value->text);
    case 't':
      value->kind = FlatValueKind::kBool;
      value->bool_value = true;
      return in.TakeBytes("true");
    case 'f':
      value->kind = FlatValueKind::kBool;
      value->bool_value = false;
      return in.TakeBytes("false");
    case 'n':
      value->kind = FlatValueKind::kNull;
      return in.TakeBytes("null");
    default:
      return MatchNumber(in, parse_double, value);
  }
}

// Whether `key` appears in a line exactly as its bytes between quotes.
bool IsPlainKey(std::string_view key) {
  return std::none_of(key.begin(), key.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
}

}  // namespace

bool FlatRecordShape::Learn(simdjson::dom::object object) {
  quoted_keys_.clear();
  for (auto it = object.begin(), end = object.end(); it != end; ++it) {
    const std::string_view key = it.key();
    const simdjson::dom::element_type type = it.value().type();
    if (type == simdjson::dom::element_type::OBJECT || type == simdjson::dom::element_type::ARRAY ||
        quoted_keys_.size() == kMaxKeys || !IsPlainKey(key)) {
      quoted_keys_.clear();
      return false;
    }
    for (const std::string& known : quoted_keys_) {
      if (known.size() == key.size() + 2 && known.compare(1, key.size(), key) == 0) {
        quoted_keys_.clear();
        return false;
      }
    }
    std::string quoted;
    quoted.reserve(key.size() + 2);
    quoted.push_back('"');
    quoted.append(key);
    quoted.push_back('"');
    quoted_keys_.push_back(std::move(quoted));
  }
  return !quoted_keys_.empty();
}

bool FlatRecordShape::Match(std::string_view line, bool parse_doubles, FlatValue* values) const {
  Cursor in{line.data(), line.data() + line.size()};
  in.SkipSpace();
  if (!in.Take('{')) {
    return false;
  }
  for (size_t k = 0; k < quoted_keys_.size(); ++k) {
    in.SkipSpace();
    if (k > 0) {
      if (!in.Take(',')) {
        return false;
      }
      in.SkipSpace();
    }
    if (!in.TakeBytes(quoted_keys_[k])) {
      return false;
    }
    in.SkipSpace();
    if (!in.Take(':')) {
      return false;
    }
    in.SkipSpace();
    if (!MatchValue(in, parse_doubles, &values[k])) {
      return false;
    }
  }
  in.SkipSpace();
  if (!in.Take('}')) {
    return false;
  }
  in.SkipSpace();
  return in.p == in.end;
}

}  // namespace tributary::json

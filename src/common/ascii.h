// ASCII character classes, case folding, hexadecimal digits and option-list splitting: the one
// home of these small helpers, which answer for ASCII bytes whatever the C locale says. SQL
// identifiers, option keys and format names compare ignoring ASCII case (Spark's default
// resolution); UTF-8 bytes above 0x7F are left alone, so a name's non-ASCII letters must match
// exactly, as in Spark.

#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace tributary {

constexpr bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

constexpr bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// Whether `text` is not empty and holds only ASCII digits.
constexpr bool IsAsciiDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), IsAsciiDigit);
}

constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) { return AsciiLower(c); });
  return out;
}

inline std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; });
  return out;
}

inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         });
}

/// The value of the hexadecimal digit `c` (either case), or -1 when `c` is none.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

/// `text` without its leading and trailing spaces and tabs.
inline std::string_view TrimBlanks(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  return first == std::string_view::npos
             ? std::string_view()
             : text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// The items of a comma-separated option value, each trimmed of spaces and tabs, empty ones
/// dropped: how Spark reads Kafka's `subscribe` and Databricks Kinesis's `streamName`
/// (split(",").map(_.trim).filter(_.nonEmpty)).
inline std::vector<std::string> SplitCommaList(std::string_view text) {
  std::vector<std::string> items;
  for (size_t begin = 0; begin <= text.size();) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view item = TrimBlanks(text.substr(begin, comma - begin));
    if (!item.empty()) {
      items.emplace_back(item);
    }
    begin = comma + 1;
  }
  return items;
}

}  // namespace tributary

// UTF-8 and argument helpers shared by the string function families (string_functions.cc,
// regexp_functions.cc, format_string_functions.cc); internal to the expr layer. Lengths and
// positions count characters (code points), as Spark's UTF8String.

#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

inline int Utf8Width(unsigned char lead) {
  if (lead < 0x80) {
    return 1;
  }
  if ((lead >> 5) == 0x6) {
    return 2;
  }
  if ((lead >> 4) == 0xE) {
    return 3;
  }
  if ((lead >> 3) == 0x1E) {
    return 4;
  }
  return 1;  // a stray continuation byte counts as one character, as Spark's UTF8String
}

inline int64_t NumChars(std::string_view s) {
  int64_t count = 0;
  for (size_t i = 0; i < s.size();
       i += static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[i])))) {
    ++count;
  }
  return count;
}

// Byte offset of character `chars` (clamped to the end).
inline size_t ByteOffsetOfChar(std::string_view s, int64_t chars) {
  size_t i = 0;
  for (int64_t c = 0; c < chars && i < s.size(); ++c) {
    i += static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[i])));
  }
  return std::min(i, s.size());
}

inline uint32_t DecodeAt(std::string_view s, size_t i, int* width) {
  const auto lead = static_cast<unsigned char>(s[i]);
  *width = std::min<int>(Utf8Width(lead), static_cast<int>(s.size() - i));
  if (*width == 1) {
    return lead;
  }
  uint32_t cp = lead & (0x7F >> *width);
  for (int k = 1; k < *width; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
  }
  return cp;
}

// Case mapping for ASCII, Latin-1, Greek and Cyrillic letters (the alphabets of the data this
// engine meets; other scripts pass through unchanged).
inline uint32_t ToUpper(uint32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 0xE0 && c <= 0xFE && c != 0xF7) ||
      (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F)) {
    return c - 0x20;
  }
  if (c >= 0x450 && c <= 0x45F) {
    return c - 0x50;
  }
  return c;
}
inline uint32_t ToLower(uint32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
      (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x410 && c <= 0x42F)) {
    return c + 0x20;
  }
  if (c >= 0x400 && c <= 0x40F) {
    return c + 0x50;
  }
  return c;
}

template <typename Map>
void MapChars(std::string_view s, Map map, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size();) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (byte < 0x80) {
      out->push_back(static_cast<char>(map(byte)));
      ++i;
      continue;
    }
    int width = 1;
    const uint32_t cp = DecodeAt(s, i, &width);
    AppendUtf8(map(cp), out);
    i += static_cast<size_t>(width);
  }
}

inline std::vector<DataTypePtr> Strings(size_t n) {
  return std::vector<DataTypePtr>(n, DataType::String());
}

// Spark casts a string argument where an integer is expected (under ANSI a text that is no
// number fails at run time), which CoerceArgs does not: cast those at `positions` first.
inline void CastStringsToInt(std::vector<BoundExprPtr>* args,
                             std::initializer_list<size_t> positions) {
  for (const size_t k : positions) {
    if (k < args->size() && (*args)[k]->Type()->Id() == TypeId::kString) {
      (*args)[k] = CastTo(std::move((*args)[k]), DataType::Int32());
    }
  }
}

}  // namespace tributary::expr

// String functions and pattern predicates, with Spark's semantics: lengths and positions count
// characters (UTF-8 code points), positions are 1-based, regular expressions are Java's syntax
// as far as RE2 implements it. Where Java's java.util.regex and RE2 differ: backreferences,
// lookaround and possessive quantifiers are errors at bind time; \w, \d, \s and \b are ASCII-only
// in both, but RE2's '.' and classes match whole code points where Java matches UTF-16 units
// (the same for text in the Basic Multilingual Plane); Java's embedded flags (?i) (?s) (?m)
// work, (?x) and (?u) do not; named groups are (?P<name>...) or (?<name>...).
//
// lower, upper, lcase, ucase, length/char_length/character_length/len, substring/substr,
// concat, concat_ws, trim/ltrim/rtrim/btrim, split, split_part, regexp_extract,
// regexp_extract_all, regexp_replace, regexp_count, regexp_substr, regexp_instr, replace,
// starts_with/startswith, ends_with/endswith, contains, lpad, rpad, instr, locate/position,
// initcap, reverse, left, right, elt, overlay, soundex, levenshtein, luhn_check, mask, ascii,
// chr/char, repeat, space, translate, substring_index, find_in_set, bit_length, octet_length,
// quote, format_string/printf, uuid, sentences, like, rlike/regexp/regexp_like.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <re2/re2.h>

#include "columnar/column_builder.h"
#include "common/utf8.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::TypeId;

namespace {

// ---- UTF-8 helpers -------------------------------------------------------------------------

int Utf8Width(unsigned char lead) {
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

int64_t NumChars(std::string_view s) {
  int64_t count = 0;
  for (size_t i = 0; i < s.size();
       i += static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[i])))) {
    ++count;
  }
  return count;
}

// Byte offset of character `chars` (clamped to the end).
size_t ByteOffsetOfChar(std::string_view s, int64_t chars) {
  size_t i = 0;
  for (int64_t c = 0; c < chars && i < s.size(); ++c) {
    i += static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[i])));
  }
  return std::min(i, s.size());
}

uint32_t DecodeAt(std::string_view s, size_t i, int* width) {
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
uint32_t ToUpper(uint32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 0xE0 && c <= 0xFE && c != 0xF7) ||
      (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F)) {
    return c - 0x20;
  }
  if (c >= 0x450 && c <= 0x45F) {
    return c - 0x50;
  }
  return c;
}
uint32_t ToLower(uint32_t c) {
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

std::vector<DataTypePtr> Strings(size_t n) {
  return std::vector<DataTypePtr>(n, DataType::String());
}

// Spark casts a string argument where an integer is expected (under ANSI a text that is no
// number fails at run time), which CoerceArgs does not: cast those at `positions` first.
void CastStringsToInt(std::vector<BoundExprPtr>* args, std::initializer_list<size_t> positions) {
  for (const size_t k : positions) {
    if (k < args->size() && (*args)[k]->Type()->Id() == TypeId::kString) {
      (*args)[k] = CastTo(std::move((*args)[k]), DataType::Int32());
    }
  }
}

// ---- simple per-string functions -----------------------------------------------------------

Result<BoundExprPtr> BindCase(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  const bool upper = call.Name() == "upper" || call.Name() == "ucase";
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [upper](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       MapChars(a[0]->BytesAt(i), upper ? ToUpper : ToLower, out);
                       return true;
                     });
}

Result<BoundExprPtr> BindLength(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const bool binary = args[0]->Type()->Id() == TypeId::kBinary;
  if (!binary) {
    TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  }
  return PerRowFixed<int32_t>(
      call, DataType::Int32(), std::move(args),
      [binary](const std::vector<ColumnPtr>& a, int64_t i) {
        const std::string_view s = a[0]->BytesAt(i);
        return static_cast<int32_t>(binary ? static_cast<int64_t>(s.size()) : NumChars(s));
      });
}

// Spark's UTF8String.substringSQL.
std::string_view SubstringSql(std::string_view s, int64_t pos, int64_t length) {
  const int64_t len = NumChars(s);
  int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? len + pos : 0);
  const int64_t end = length >= INT32_MAX ? len : start + length;
  start = std::max<int64_t>(start, 0);
  if (start >= end) {
    return {};
  }
  const size_t from = ByteOffsetOfChar(s, start);
  const size_t to = ByteOffsetOfChar(s, std::min(end, len));
  return s.substr(from, to - from);
}

Result<BoundExprPtr> BindSubstring(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  CastStringsToInt(&args, {1, 2});
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::Int32(), DataType::Int32()}));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const int64_t length = a.size() > 2 ? IntAt(*a[2], i) : INT32_MAX;
                       out->assign(SubstringSql(a[0]->BytesAt(i), IntAt(*a[1], i), length));
                       return true;
                     });
}

Result<BoundExprPtr> BindConcat(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, SIZE_MAX));
  bool all_binary = true;
  for (const auto& arg : args) {
    all_binary = all_binary && arg->Type()->Id() == TypeId::kBinary;
  }
  const DataTypePtr type = all_binary ? DataType::Binary() : DataType::String();
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {type}));
  return MakeFunctionCall(call.Name(), type, std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool* pool) -> Result<ColumnPtr> {
                            Status status;
                            auto result =
                                BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
                                  int64_t bytes = 0;
                                  for (const ColumnPtr& arg : a) {
                                    bytes += static_cast<int64_t>(arg->BytesAt(i).size());
                                  }
                                  if (bytes > kMaxStringBytes) {
                                    status = StringTooLong(i, bytes);
                                    return false;
                                  }
                                  out->reserve(static_cast<size_t>(bytes));
                                  for (const ColumnPtr& arg : a) {
                                    out->append(arg->BytesAt(i));
                                  }
                                  return true;
                                });
                            TRIBUTARY_RETURN_NOT_OK(status);
                            return result;
                          }));
}

// concat_ws(sep, s_or_array, ...): null arguments and null elements are skipped; null only
// when the separator is.
Result<BoundExprPtr> BindConcatWs(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, SIZE_MAX));
  for (size_t i = 0; i < args.size(); ++i) {
    const DataType& type = *args[i]->Type();
    if (i > 0 && type.Id() == TypeId::kArray) {
      if (type.ElementType()->Id() != TypeId::kString) {
        args[i] = CastTo(std::move(args[i]), DataType::Array(DataType::String()));
      }
    } else if (type.IsNested()) {
      return CallError(call, fmt::format("argument {} must be a string or an array of strings, "
                                         "got {}",
                                         i + 1, type.ToString()));
    } else {
      args[i] = CastTo(std::move(args[i]), DataType::String());
    }
  }
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const std::vector<ColumnPtr> separator = {a[0]};
        return BuildBytes(c.Type(), separator, pool, [&](int64_t i, std::string* out) {
          const std::string_view sep = a[0]->BytesAt(i);
          bool first = true;
          auto add = [&](std::string_view part) {
            if (!first) {
              out->append(sep);
            }
            out->append(part);
            first = false;
          };
          for (size_t k = 1; k < a.size(); ++k) {
            const Column& arg = *a[k];
            if (arg.IsNull(i)) {
              continue;
            }
            if (arg.Type()->Id() == TypeId::kArray) {
              const Column& elements = *arg.Child(0);
              for (int64_t j = arg.Offsets()[i]; j < arg.Offsets()[i + 1]; ++j) {
                if (elements.IsValid(j)) {
                  add(elements.BytesAt(j));
                }
              }
            } else {
              add(arg.BytesAt(i));
            }
          }
          return true;
        });
      }));
}

// trim(str), trim(trim_chars, str), btrim(str[, trim_chars]) as Spark's StringTrim(trimStr, srcStr)
// constructor; the one-argument form removes spaces (' ') only.
Result<BoundExprPtr> BindTrim(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  if (call.Name() == "btrim" && args.size() == 2) {
    // btrim(str, trim_chars) takes its arguments the other way round (StringTrimBoth).
    std::swap(args[0], args[1]);
  }
  const bool left = call.Name() != "rtrim";
  const bool right = call.Name() != "ltrim";
  return PerRowBytes(
      call, DataType::String(), std::move(args),
      [left, right](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
        std::string_view s = a.size() == 2 ? a[1]->BytesAt(i) : a[0]->BytesAt(i);
        const std::string_view chars = a.size() == 2 ? a[0]->BytesAt(i) : " ";
        // Characters to trim may be multi-byte: compare whole code points.
        auto is_trim = [&](std::string_view ch) {
          for (size_t k = 0; k < chars.size();) {
            const auto w = static_cast<size_t>(Utf8Width(static_cast<unsigned char>(chars[k])));
            if (chars.substr(k, w) == ch) {
              return true;
            }
            k += w;
          }
          return false;
        };
        if (left) {
          while (!s.empty()) {
            const auto w = static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[0])));
            if (!is_trim(s.substr(0, w))) {
              break;
            }
            s.remove_prefix(std::min(w, s.size()));
          }
        }
        if (right) {
          while (!s.empty()) {
            size_t start = s.size() - 1;
            while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
              --start;
            }
            if (!is_trim(s.substr(start))) {
              break;
            }
            s.remove_suffix(s.size() - start);
          }
        }
        out->assign(s);
        return true;
      });
}

// replace(str, search[, replacement = '']): the result's size is counted before it is built,
// so one past kMaxStringBytes is an error without being allocated.
Result<BoundExprPtr> BindReplace(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(3)));
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view s = a[0]->BytesAt(i);
          const std::string_view search = a[1]->BytesAt(i);
          const std::string_view replacement = a.size() > 2 ? a[2]->BytesAt(i) : "";
          if (search.empty()) {
            out->assign(s);
            return true;
          }
          int64_t count = 0;
          for (size_t at = s.find(search); at != std::string_view::npos;
               at = s.find(search, at + search.size())) {
            ++count;
          }
          const int64_t bytes =
              static_cast<int64_t>(s.size()) + count * (static_cast<int64_t>(replacement.size()) -
                                                        static_cast<int64_t>(search.size()));
          if (bytes > kMaxStringBytes) {
            status = StringTooLong(i, bytes);
            return false;
          }
          out->reserve(static_cast<size_t>(bytes));
          size_t from = 0;
          for (size_t at = s.find(search); at != std::string_view::npos;
               at = s.find(search, from)) {
            out->append(s.substr(from, at - from));
            out->append(replacement);
            from = at + search.size();
          }
          out->append(s.substr(from));
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

Result<BoundExprPtr> BindStringPredicate(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  const char kind = call.Name() == "contains" ? 'c' : call.Name().starts_with("s") ? 's' : 'e';
  return PerRowFixed<uint8_t>(call, DataType::Boolean(), std::move(args),
                              [kind](const std::vector<ColumnPtr>& a, int64_t i) {
                                const std::string_view s = a[0]->BytesAt(i);
                                const std::string_view part = a[1]->BytesAt(i);
                                const bool result = kind == 'c'
                                                        ? s.find(part) != std::string_view::npos
                                                    : kind == 's' ? s.starts_with(part)
                                                                  : s.ends_with(part);
                                return static_cast<uint8_t>(result);
                              });
}

// `pad` `whole` times, then its first `part` bytes, at `out`.
void WriteRepeated(std::string_view pad, int64_t whole, size_t part, char* out) {
  const auto total = static_cast<size_t>(whole) * pad.size();
  if (total > 0) {
    std::memcpy(out, pad.data(), pad.size());
    for (size_t done = pad.size(); done < total;) {
      const size_t chunk = std::min(done, total - done);
      std::memcpy(out + done, out, chunk);
      done += chunk;
    }
  }
  std::memcpy(out + total, pad.data(), part);
}

// lpad/rpad(str, len[, pad = ' ']): the result is exactly `len` characters (cut when longer);
// on binary str and pad, `len` bytes, the pad defaulting to X'00'.
// Its size is known before it is built: past kMaxStringBytes it is an error, and a long one is
// written into a buffer of the query's pool, so a memory limit refuses it before it exists.
Result<BoundExprPtr> BindPad(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  CastStringsToInt(&args, {1});
  // Binary when str (and pad, if given) are: then lengths count bytes and the pad is X'00'.
  const bool binary = args[0]->Type()->Id() == TypeId::kBinary &&
                      (args.size() < 3 || args[2]->Type()->Id() == TypeId::kBinary);
  const DataTypePtr type = binary ? DataType::Binary() : DataType::String();
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {type, DataType::Int32(), type}));
  const bool left = call.Name() == "lpad";
  return MakeFunctionCall(
      call.Name(), type, std::move(args),
      Lambda([left, binary](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                            MemoryPool* pool) -> Result<ColumnPtr> {
        auto num_chars = [binary](std::string_view s) {
          return binary ? static_cast<int64_t>(s.size()) : NumChars(s);
        };
        auto offset_of_char = [binary](std::string_view s, int64_t chars) {
          return binary
                     ? static_cast<size_t>(std::min<int64_t>(chars, static_cast<int64_t>(s.size())))
                     : ByteOffsetOfChar(s, chars);
        };
        constexpr int64_t kPooledAbove = 1 << 16;
        const int64_t n = a[0]->Length();
        ColumnBuilder builder(c.Type(), pool);
        std::string small;
        for (int64_t i = 0; i < n; ++i) {
          if (std::any_of(a.begin(), a.end(),
                          [i](const ColumnPtr& arg) { return arg->IsNull(i); })) {
            builder.AppendNull();
            continue;
          }
          const std::string_view s = a[0]->BytesAt(i);
          const int64_t target = std::max<int64_t>(IntAt(*a[1], i), 0);
          const std::string_view pad = a.size() > 2 ? a[2]->BytesAt(i)
                                       : binary     ? std::string_view("\0", 1)
                                                    : std::string_view(" ");
          const int64_t have = num_chars(s);
          if (have >= target || pad.empty()) {
            builder.AppendBytes(s.substr(0, offset_of_char(s, std::min(have, target))));
            continue;
          }
          const int64_t pad_chars = num_chars(pad);
          const int64_t whole = (target - have) / pad_chars;
          const size_t part = offset_of_char(pad, (target - have) % pad_chars);
          const int64_t bytes = static_cast<int64_t>(s.size()) +
                                whole * static_cast<int64_t>(pad.size()) +
                                static_cast<int64_t>(part);
          if (bytes > kMaxStringBytes) {
            return StringTooLong(i, bytes);
          }
          auto write = [&](char* out) {
            const size_t filler = static_cast<size_t>(bytes) - s.size();
            std::memcpy(left ? out + filler : out, s.data(), s.size());
            WriteRepeated(pad, whole, part, left ? out : out + s.size());
          };
          if (bytes <= kPooledAbove) {
            small.resize(static_cast<size_t>(bytes));
            write(small.data());
            builder.AppendBytes(small);
            continue;
          }
          TRIBUTARY_ASSIGN_OR_RAISE(auto buffer,
                                    columnar::Buffer::AllocateUninitialized(bytes, pool));
          write(reinterpret_cast<char*>(buffer->mutable_data()));
          builder.AppendBytes(buffer->View());
        }
        return builder.Finish();
      }));
}

Result<BoundExprPtr> BindInstr(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  return PerRowFixed<int32_t>(
      call, DataType::Int32(), std::move(args), [](const std::vector<ColumnPtr>& a, int64_t i) {
        const std::string_view s = a[0]->BytesAt(i);
        const size_t at = s.find(a[1]->BytesAt(i));
        return at == std::string_view::npos ? 0
                                            : static_cast<int32_t>(NumChars(s.substr(0, at)) + 1);
      });
}

// initcap: lower case, then the first letter after each space upper case (Spark's
// UTF8String.toLowerCase().toTitleCase()).
Result<BoundExprPtr> BindInitcap(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       bool word_start = true;
                       MapChars(
                           a[0]->BytesAt(i),
                           [&](uint32_t ch) {
                             const uint32_t mapped = word_start ? ToUpper(ch) : ToLower(ch);
                             word_start = ch == ' ';
                             return mapped;
                           },
                           out);
                       return true;
                     });
}

Result<BoundExprPtr> BindReverse(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const std::string_view s = a[0]->BytesAt(i);
                       out->resize(s.size());
                       size_t write = s.size();
                       for (size_t k = 0; k < s.size();) {
                         const size_t w = std::min(
                             static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[k]))),
                             s.size() - k);
                         write -= w;
                         std::copy_n(s.data() + k, w, out->data() + write);
                         k += w;
                       }
                       return true;
                     });
}

// ---- functions built on positions and characters -------------------------------------------

// split_part(str, delimiter, part): the part-th piece (negative counts from the end), "" past
// either end; an empty delimiter leaves the whole string as the only piece.
Result<BoundExprPtr> BindSplitPart(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  CastStringsToInt(&args, {2});
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::String(), DataType::Int32()}));
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        std::vector<std::string_view> parts;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const int64_t index = IntAt(*a[2], i);
          if (index == 0) {
            status = Status::InvalidArgument(
                "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or "
                "> 0 (the first element has index 1).");
            return false;
          }
          const std::string_view s = a[0]->BytesAt(i);
          const std::string_view delimiter = a[1]->BytesAt(i);
          parts.clear();
          if (delimiter.empty()) {
            parts.push_back(s);
          } else {
            size_t from = 0;
            for (size_t at = s.find(delimiter); at != std::string_view::npos;
                 at = s.find(delimiter, from)) {
              parts.push_back(s.substr(from, at - from));
              from = at + delimiter.size();
            }
            parts.push_back(s.substr(from));
          }
          const auto count = static_cast<int64_t>(parts.size());
          const int64_t k = index > 0 ? index - 1 : count + index;
          if (k >= 0 && k < count) {
            out->assign(parts[static_cast<size_t>(k)]);
          }
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// left(str, len) / right(str, len): "" when len <= 0, the whole string when len passes it.
Result<BoundExprPtr> BindLeftRight(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  CastStringsToInt(&args, {1});
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String(), DataType::Int32()}));
  const bool left = call.Name() == "left";
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [left](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const int64_t len = IntAt(*a[1], i);
                       if (len > 0) {
                         out->assign(left ? SubstringSql(a[0]->BytesAt(i), 1, len)
                                          : SubstringSql(a[0]->BytesAt(i), -len, INT32_MAX));
                       }
                       return true;
                     });
}

// elt(n, input1, input2, ...): the n-th input; null when n is; an n outside the inputs is an
// ANSI error.
Result<BoundExprPtr> BindElt(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, SIZE_MAX));
  CastStringsToInt(&args, {0});
  bool all_binary = true;
  for (size_t k = 1; k < args.size(); ++k) {
    all_binary = all_binary && args[k]->Type()->Id() == TypeId::kBinary;
  }
  const DataTypePtr type = all_binary ? DataType::Binary() : DataType::String();
  std::vector<DataTypePtr> types(args.size(), type);
  types[0] = DataType::Int32();
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, types));
  return MakeFunctionCall(
      call.Name(), type, std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const int64_t n = a[0]->Length();
        const auto inputs = static_cast<int64_t>(a.size()) - 1;
        ColumnBuilder builder(c.Type(), pool);
        for (int64_t i = 0; i < n; ++i) {
          if (a[0]->IsNull(i)) {
            builder.AppendNull();
            continue;
          }
          const int64_t index = IntAt(*a[0], i);
          if (index < 1 || index > inputs) {
            return Status::InvalidArgument(fmt::format(
                "[INVALID_ARRAY_INDEX] The index {} is out of bounds. The array has {} elements. "
                "Use the SQL function `get()` to tolerate accessing element at invalid index and "
                "return NULL instead.",
                index, inputs));
          }
          const Column& chosen = *a[static_cast<size_t>(index)];
          if (chosen.IsNull(i)) {
            builder.AppendNull();
          } else {
            builder.AppendBytes(chosen.BytesAt(i));
          }
        }
        return builder.Finish();
      }));
}

// overlay(input, replace, pos[, len = -1]): input's characters [pos, pos + len) replaced by
// `replace`; a negative len means the length of `replace` (Spark's Overlay on
// UTF8String.substringSQL). On binary inputs positions count bytes.
Result<BoundExprPtr> BindOverlay(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 4));
  CastStringsToInt(&args, {2, 3});
  const bool binary =
      args[0]->Type()->Id() == TypeId::kBinary && args[1]->Type()->Id() == TypeId::kBinary;
  const DataTypePtr type = binary ? DataType::Binary() : DataType::String();
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {type, type, DataType::Int32(), DataType::Int32()}));
  return PerRowBytes(
      call, type, std::move(args),
      [binary](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
        const std::string_view s = a[0]->BytesAt(i);
        const std::string_view replace = a[1]->BytesAt(i);
        const int64_t pos = IntAt(*a[2], i);
        const int64_t given = a.size() > 3 ? IntAt(*a[3], i) : -1;
        if (binary) {
          auto slice = [&](int64_t from, int64_t length) {
            const auto size = static_cast<int64_t>(s.size());
            int64_t start = from > 0 ? from - 1 : (from < 0 ? size + from : 0);
            const int64_t end = length >= INT32_MAX ? size : std::min(start + length, size);
            start = std::max<int64_t>(start, 0);
            return start >= end
                       ? std::string_view()
                       : s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
          };
          const int64_t len = given >= 0 ? given : static_cast<int64_t>(replace.size());
          out->assign(slice(1, pos - 1));
          out->append(replace);
          out->append(slice(pos + len, INT32_MAX));
          return true;
        }
        const int64_t len = given >= 0 ? given : NumChars(replace);
        out->assign(SubstringSql(s, 1, pos - 1));
        out->append(replace);
        out->append(SubstringSql(s, pos + len, INT32_MAX));
        return true;
      });
}

// soundex(str): the American Soundex code of ASCII letters; a string not starting with a
// letter is returned as it is (Spark's UTF8String.soundex).
Result<BoundExprPtr> BindSoundex(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       // Codes of A..Z; '7' (H, W) neither codes nor separates equal codes.
                       static constexpr std::string_view kCodes = "01230127022455012623017202";
                       const std::string_view s = a[0]->BytesAt(i);
                       auto upper = [](char c) {
                         return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
                       };
                       if (s.empty() || upper(s[0]) < 'A' || upper(s[0]) > 'Z') {
                         out->assign(s);
                         return true;
                       }
                       out->assign({upper(s[0]), '0', '0', '0'});
                       size_t filled = 1;
                       char last = kCodes[static_cast<size_t>(upper(s[0]) - 'A')];
                       for (size_t k = 1; k < s.size() && filled < 4; ++k) {
                         const char c = upper(s[k]);
                         if (c < 'A' || c > 'Z') {
                           last = '0';
                           continue;
                         }
                         const char code = kCodes[static_cast<size_t>(c - 'A')];
                         if (code == '7') {
                           continue;
                         }
                         if (code != '0' && code != last) {
                           (*out)[filled++] = code;
                         }
                         last = code;
                       }
                       return true;
                     });
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    int width = 1;
    out.push_back(DecodeAt(s, i, &width));
    i += static_cast<size_t>(width);
  }
  return out;
}

// levenshtein(a, b[, threshold]): the edit distance in characters; with a threshold, -1 when
// the distance is above it.
Result<BoundExprPtr> BindLevenshtein(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::String(), DataType::Int32()}));
  return PerRowFixed<int32_t>(
      call, DataType::Int32(), std::move(args), [](const std::vector<ColumnPtr>& a, int64_t i) {
        const std::vector<uint32_t> x = CodePoints(a[0]->BytesAt(i));
        const std::vector<uint32_t> y = CodePoints(a[1]->BytesAt(i));
        std::vector<int64_t> row(y.size() + 1);
        for (size_t j = 0; j <= y.size(); ++j) {
          row[j] = static_cast<int64_t>(j);
        }
        for (size_t k = 1; k <= x.size(); ++k) {
          int64_t diagonal = row[0];
          row[0] = static_cast<int64_t>(k);
          for (size_t j = 1; j <= y.size(); ++j) {
            const int64_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[k - 1] == y[j - 1] ? 0 : 1)});
            diagonal = above;
          }
        }
        const int64_t distance = row[y.size()];
        if (a.size() > 2 && distance > IntAt(*a[2], i)) {
          return -1;
        }
        return static_cast<int32_t>(distance);
      });
}

// luhn_check(str): whether str is a non-empty run of digits passing the Luhn checksum.
Result<BoundExprPtr> BindLuhnCheck(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowFixed<uint8_t>(call, DataType::Boolean(), std::move(args),
                              [](const std::vector<ColumnPtr>& a, int64_t i) -> uint8_t {
                                const std::string_view s = a[0]->BytesAt(i);
                                if (s.empty()) {
                                  return 0;
                                }
                                int sum = 0;
                                bool second = false;
                                for (size_t k = s.size(); k-- > 0;) {
                                  if (s[k] < '0' || s[k] > '9') {
                                    return 0;
                                  }
                                  int digit = s[k] - '0';
                                  if (second) {
                                    digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
                                  }
                                  sum += digit;
                                  second = !second;
                                }
                                return static_cast<uint8_t>(sum % 10 == 0);
                              });
}

// mask(str[, upperChar = 'X', lowerChar = 'x', digitChar = 'n', otherChar = NULL]): each
// replacement is a one-character literal, or NULL to leave that class of characters as is.
Result<BoundExprPtr> BindMask(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 5));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(5)));
  static constexpr std::array<std::string_view, 4> kNames = {"upperChar", "lowerChar", "digitChar",
                                                             "otherChar"};
  // std::nullopt: leave the class unmasked.
  std::array<std::optional<uint32_t>, 4> with = {'X', 'x', 'n', std::nullopt};
  for (size_t k = 1; k < args.size(); ++k) {
    const BoundExpression& arg = *args[k];
    if (arg.GetOp() != Op::kLiteral) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input `{}` "
                                         "should be a foldable STRING expression",
                                         kNames[k - 1]));
    }
    if (arg.Literal().IsNull()) {
      with[k - 1] = std::nullopt;
      continue;
    }
    const std::string& text = arg.Literal().BytesValue();
    if (text.empty() || NumChars(text) != 1) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE] Length of `{}` "
                                         "should be 1.",
                                         kNames[k - 1]));
    }
    int width = 1;
    with[k - 1] = DecodeAt(text, 0, &width);
  }
  args.resize(1);
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [with](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       MapChars(
                           a[0]->BytesAt(i),
                           [&](uint32_t c) {
                             const size_t kind = ToLower(c) != c        ? 0
                                                 : ToUpper(c) != c      ? 1
                                                 : c >= '0' && c <= '9' ? 2
                                                                        : 3;
                             return with[kind].value_or(c);
                           },
                           out);
                       return true;
                     });
}

// locate(substr, str[, pos = 1]) / position(substr, str[, pos = 1]): the 1-based character
// position of substr in str at or after pos, 0 when absent or pos < 1. A null pos gives 0, not
// null (Spark keeps Hive's rule).
Result<BoundExprPtr> BindLocate(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  CastStringsToInt(&args, {2});
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::String(), DataType::Int32()}));
  return MakeFunctionCall(
      call.Name(), DataType::Int32(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const std::vector<ColumnPtr> strings = {a[0], a[1]};
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int32_t>(c.Type(), strings, pool, [&](int64_t i) -> int32_t {
              const int64_t start = a.size() > 2 && a[2]->IsValid(i) ? IntAt(*a[2], i) : 1;
              if (start < 1) {
                return 0;
              }
              const std::string_view s = a[1]->BytesAt(i);
              const std::string_view part = a[0]->BytesAt(i);
              if (part.empty()) {
                return 1;
              }
              const size_t from = ByteOffsetOfChar(s, start - 1);
              const size_t at = s.find(part, from);
              return at == std::string_view::npos
                         ? 0
                         : static_cast<int32_t>(start + NumChars(s.substr(from, at - from)));
            }));
        if (a.size() < 3) {
          return result;
        }
        // A null pos makes the row 0 even where substr or str is null.
        const Column& pos = *a[2];
        TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                                  columnar::Buffer::Allocate(result->Length() * 4, pool));
        auto* out = reinterpret_cast<int32_t*>(values->mutable_data());
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto validity,
            columnar::Buffer::Allocate(columnar::BitmapBytes(result->Length()), pool));
        for (int64_t i = 0; i < result->Length(); ++i) {
          const bool zero = pos.IsNull(i);
          out[i] = zero || result->IsNull(i) ? 0 : result->Values<int32_t>()[i];
          columnar::SetBitTo(validity->mutable_data(), i, zero || result->IsValid(i));
        }
        return Column::Make(c.Type(), result->Length(), std::move(validity), std::move(values));
      }));
}

// ---- more per-string functions -------------------------------------------------------------

// ascii(str): the code point of the first character, 0 for "".
Result<BoundExprPtr> BindAscii(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowFixed<int32_t>(call, DataType::Int32(), std::move(args),
                              [](const std::vector<ColumnPtr>& a, int64_t i) {
                                const std::string_view s = a[0]->BytesAt(i);
                                int width = 1;
                                return s.empty() ? 0 : static_cast<int32_t>(DecodeAt(s, 0, &width));
                              });
}

// chr(n) / char(n): the character n mod 256 (Latin-1), "" for a negative n.
Result<BoundExprPtr> BindChr(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Int64()}));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const int64_t n = IntAt(*a[0], i);
                       if (n >= 0) {
                         AppendUtf8(static_cast<uint32_t>(n & 0xFF), out);
                       }
                       return true;
                     });
}

// repeat(str, n): str n times, "" when n <= 0; space(n): n spaces.
Result<BoundExprPtr> BindRepeat(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool space = call.Name() == "space";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, space ? 1 : 2, space ? 1 : 2));
  CastStringsToInt(&args, {space ? size_t{0} : size_t{1}});
  if (space) {
    TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Int32()}));
  } else {
    TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String(), DataType::Int32()}));
  }
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([space](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                     MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view s = space ? " " : a[0]->BytesAt(i);
          const int64_t times = std::max<int64_t>(IntAt(*a[space ? 0 : 1], i), 0);
          const int64_t bytes = times * static_cast<int64_t>(s.size());
          if (bytes > kMaxStringBytes) {
            status = StringTooLong(i, bytes);
            return false;
          }
          out->resize(static_cast<size_t>(bytes));
          if (bytes > 0) {
            WriteRepeated(s, times, 0, out->data());
          }
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// translate(input, from, to): each character of input found in `from` becomes the character
// at the same place in `to`, or is dropped when `to` is shorter; the first occurrence in
// `from` wins.
Result<BoundExprPtr> BindTranslate(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(3)));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const std::vector<uint32_t> from = CodePoints(a[1]->BytesAt(i));
                       const std::vector<uint32_t> to = CodePoints(a[2]->BytesAt(i));
                       const std::string_view s = a[0]->BytesAt(i);
                       for (size_t k = 0; k < s.size();) {
                         int width = 1;
                         const uint32_t c = DecodeAt(s, k, &width);
                         const auto it = std::find(from.begin(), from.end(), c);
                         if (it == from.end()) {
                           out->append(s.substr(k, static_cast<size_t>(width)));
                         } else if (static_cast<size_t>(it - from.begin()) < to.size()) {
                           AppendUtf8(to[static_cast<size_t>(it - from.begin())], out);
                         }
                         k += static_cast<size_t>(width);
                       }
                       return true;
                     });
}

// substring_index(str, delim, count): the text before the count-th delim (from the right when
// count < 0); "" when count is 0 or delim is empty, str when it has fewer delims.
Result<BoundExprPtr> BindSubstringIndex(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  CastStringsToInt(&args, {2});
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::String(), DataType::Int32()}));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const std::string_view s = a[0]->BytesAt(i);
                       const std::string_view delim = a[1]->BytesAt(i);
                       int64_t count = IntAt(*a[2], i);
                       if (count == 0 || delim.empty()) {
                         return true;
                       }
                       if (count > 0) {
                         size_t at = std::string_view::npos;
                         for (size_t from = 0; count > 0; --count) {
                           at = s.find(delim, from);
                           if (at == std::string_view::npos) {
                             out->assign(s);
                             return true;
                           }
                           from = at + delim.size();
                         }
                         out->assign(s.substr(0, at));
                       } else {
                         size_t at = s.size();
                         for (; count < 0; ++count) {
                           if (at < delim.size()) {
                             out->assign(s);
                             return true;
                           }
                           at = s.rfind(delim, at - delim.size());
                           if (at == std::string_view::npos) {
                             out->assign(s);
                             return true;
                           }
                         }
                         out->assign(s.substr(at + delim.size()));
                       }
                       return true;
                     });
}

// find_in_set(str, str_list): the 1-based place of str in the comma-separated str_list, 0 when
// absent or when str holds a comma.
Result<BoundExprPtr> BindFindInSet(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  return PerRowFixed<int32_t>(call, DataType::Int32(), std::move(args),
                              [](const std::vector<ColumnPtr>& a, int64_t i) {
                                const std::string_view s = a[0]->BytesAt(i);
                                const std::string_view list = a[1]->BytesAt(i);
                                if (s.find(',') != std::string_view::npos) {
                                  return 0;
                                }
                                int32_t index = 1;
                                for (size_t from = 0;; ++index) {
                                  const size_t comma = std::min(list.find(',', from), list.size());
                                  if (list.substr(from, comma - from) == s) {
                                    return index;
                                  }
                                  if (comma == list.size()) {
                                    return 0;
                                  }
                                  from = comma + 1;
                                }
                              });
}

// quote(str): str in single quotes, each single quote inside preceded by a backslash.
Result<BoundExprPtr> BindQuote(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       out->push_back('\'');
                       for (const char c : a[0]->BytesAt(i)) {
                         if (c == '\'') {
                           out->push_back('\\');
                         }
                         out->push_back(c);
                       }
                       out->push_back('\'');
                       return true;
                     });
}

// bit_length / octet_length of a string's UTF-8 bytes or of a binary.
Result<BoundExprPtr> BindByteLength(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  if (args[0]->Type()->Id() != TypeId::kBinary) {
    TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(1)));
  }
  const int32_t scale = call.Name() == "bit_length" ? 8 : 1;
  return PerRowFixed<int32_t>(call, DataType::Int32(), std::move(args),
                              [scale](const std::vector<ColumnPtr>& a, int64_t i) {
                                return static_cast<int32_t>(a[0]->BytesAt(i).size()) * scale;
                              });
}

// ---- uuid, sentences -----------------------------------------------------------------------

// uuid(): a random (version 4, IETF variant) UUID per row, in canonical lower-case text. The
// optimizer knows the name as nondeterministic, so it is never folded into a constant.
class UuidFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const columnar::RecordBatch& batch,
                             const EvalContext& context) const override {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    ColumnBuilder builder(call.Type(), context.pool);
    std::string text;
    for (int64_t i = 0; i < batch.NumRows(); ++i) {
      uint64_t high = engine();
      uint64_t low = engine();
      high = (high & ~uint64_t{0xF000}) | 0x4000;
      low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
      text = fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                         high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFULL);
      builder.AppendBytes(text);
    }
    return builder.Finish();
  }
};

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindUuid(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 0));
  return MakeFunctionCall(call.Name(), DataType::String(), {},
                          std::make_shared<const UuidFunction>());
}

bool IsWordChar(uint32_t c) {
  return (c >= '0' && c <= '9') || ToLower(c) != c || ToUpper(c) != c || c >= 0x80;
}

// sentences(str[, lang, country]): str split into sentences (ended by '.', '!' or '?' before
// white space or the end, a '.' before a lower-case word excepted) and those into words (runs
// of letters and digits, an apostrophe or '.' between letters kept), as java.text.BreakIterator
// does for English text. lang and country select the locale in Spark; the rules here are the same
// for all.
Result<BoundExprPtr> BindSentences(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 3));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(3)));
  args.resize(1);
  return MakeFunctionCall(
      call.Name(), DataType::Array(DataType::Array(DataType::String())), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        ColumnBuilder builder(c.Type(), pool);
        ColumnBuilder& sentences = builder.Child(0);
        ColumnBuilder& words = sentences.Child(0);
        for (int64_t i = 0; i < a[0]->Length(); ++i) {
          if (a[0]->IsNull(i)) {
            builder.AppendNull();
            continue;
          }
          const std::string_view s = a[0]->BytesAt(i);
          int64_t in_sentence = 0;
          size_t word_start = std::string_view::npos;
          auto end_word = [&](size_t at) {
            if (word_start != std::string_view::npos) {
              words.AppendBytes(s.substr(word_start, at - word_start));
              ++in_sentence;
              word_start = std::string_view::npos;
            }
          };
          auto end_sentence = [&]() {
            if (in_sentence > 0) {
              sentences.AppendArray();
              in_sentence = 0;
            }
          };
          for (size_t k = 0; k < s.size();) {
            int width = 1;
            const uint32_t ch = DecodeAt(s, k, &width);
            const size_t next = k + static_cast<size_t>(width);
            if (IsWordChar(ch)) {
              if (word_start == std::string_view::npos) {
                word_start = k;
              }
            } else if ((ch == '\'' || ch == '.') && word_start != std::string_view::npos &&
                       next < s.size() && IsWordChar(static_cast<unsigned char>(s[next]))) {
              // "don't" and "p.m" are one word each.
            } else {
              end_word(k);
              size_t after = next;
              while (after < s.size() && (s[after] == ' ' || s[after] == '\n' || s[after] == '\t' ||
                                          s[after] == '\r')) {
                ++after;
              }
              // A '.' before a lower-case word ends an abbreviation, not the sentence.
              const bool lower_next = after < s.size() && s[after] >= 'a' && s[after] <= 'z';
              if ((ch == '!' || ch == '?' || (ch == '.' && !lower_next)) &&
                  (after > next || next >= s.size())) {
                end_sentence();
              }
            }
            k = next;
          }
          end_word(s.size());
          end_sentence();
          builder.AppendArray();
        }
        return builder.Finish();
      }));
}

// ---- format_string / printf: java.util.Formatter -------------------------------------------
//
// A specifier is %[index$][flags][width][.precision]conversion with the conversions Spark users
// meet: s S b B c d o x X f e E g G % n. Arguments are the values Spark hands to Java: strings,
// boxed numbers and booleans, dates as their day count and timestamps as microseconds; a null
// prints "null" (false for %b).

struct FormatSpec {
  std::string text;  // literal text (conversion == 0)
  char conversion = 0;
  int argument = -1;  // 0-based argument, -1 for %% and %n
  std::string flags;
  int width = -1;
  int precision = -1;
};

Result<std::vector<FormatSpec>> ParseFormat(std::string_view format) {
  std::vector<FormatSpec> specs;
  int ordinary = 0;
  int previous = -1;
  size_t i = 0;
  while (i < format.size()) {
    const size_t percent = format.find('%', i);
    if (percent != i) {
      FormatSpec literal;
      literal.text = std::string(format.substr(i, percent - i));
      specs.push_back(std::move(literal));
      if (percent == std::string_view::npos) {
        break;
      }
    }
    i = percent + 1;
    FormatSpec spec;
    auto digits = [&]() {
      int value = 0;
      size_t start = i;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        value = std::min(value * 10 + (format[i] - '0'), 1 << 24);
        ++i;
      }
      return i == start ? -1 : value;
    };
    const size_t start = i;
    int index = digits();
    if (index >= 0 && i < format.size() && format[i] == '$') {
      ++i;
      if (index == 0) {
        return Status::InvalidArgument(
            "[INVALID_PARAMETER_VALUE.ZERO_INDEX] The value of parameter(s) `strfmt` in "
            "`format_string` is invalid: expects %1$, %2$ and so on, but got %0$.");
      }
      spec.argument = index - 1;
    } else {
      i = start;
      index = -1;
    }
    while (i < format.size() &&
           std::string_view("-#+ 0,(<").find(format[i]) != std::string_view::npos) {
      spec.flags.push_back(format[i++]);
    }
    spec.width = digits();
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = digits();
      if (spec.precision < 0) {
        return Status::InvalidArgument(
            fmt::format("format_string: illegal precision in '{}'", format.substr(percent)));
      }
    }
    if (i >= format.size()) {
      return Status::InvalidArgument(fmt::format(
          "format_string: UnknownFormatConversionException: Conversion = '%' at the end of '{}'",
          format));
    }
    spec.conversion = format[i++];
    if (std::string_view("sSbBcdoxXfeEgG%n").find(spec.conversion) == std::string_view::npos) {
      return Status::InvalidArgument(fmt::format(
          "format_string: UnknownFormatConversionException: Conversion = '{}'", spec.conversion));
    }
    if (spec.conversion == '%' || spec.conversion == 'n') {
      spec.argument = -1;
    } else if (spec.flags.find('<') != std::string::npos) {
      if (previous < 0) {
        return Status::InvalidArgument(
            fmt::format("format_string: MissingFormatArgumentException: Format specifier '%{}'",
                        format.substr(percent + 1, i - percent - 1)));
      }
      spec.argument = previous;
    } else if (index < 0) {
      spec.argument = ordinary++;
    }
    if (spec.argument >= 0) {
      previous = spec.argument;
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The shortest decimal digits of finite |v| > 0 and the position of the decimal point: v =
// 0.<digits> * 10^point.
void ShortestDigits(double v, std::string* digits, int* point) {
  char buffer[64];
  const auto end =
      std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(v), std::chars_format::scientific)
          .ptr;
  const std::string_view text(buffer, static_cast<size_t>(end - buffer));
  const size_t e = text.find('e');
  digits->clear();
  for (const char c : text.substr(0, e)) {
    if (c != '.') {
      digits->push_back(c);
    }
  }
  int exponent = 0;
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                  exponent);
  *point = exponent + 1;
}

// `digits` (v = 0.<digits> * 10^point) rounded half up to `keep` leading digits.
void RoundDigits(std::string* digits, int* point, int keep) {
  if (keep < 0) {
    digits->clear();
    return;
  }
  if (static_cast<size_t>(keep) >= digits->size()) {
    return;
  }
  const bool up = (*digits)[static_cast<size_t>(keep)] >= '5';
  digits->resize(static_cast<size_t>(keep));
  if (!up) {
    return;
  }
  for (size_t k = digits->size(); k-- > 0;) {
    if ((*digits)[k] != '9') {
      ++(*digits)[k];
      return;
    }
    (*digits)[k] = '0';
  }
  digits->insert(digits->begin(), '1');
  ++*point;
}

std::string Grouped(std::string_view integer) {
  std::string out;
  for (size_t k = 0; k < integer.size(); ++k) {
    if (k > 0 && (integer.size() - k) % 3 == 0) {
      out.push_back(',');
    }
    out.push_back(integer[k]);
  }
  return out;
}

// Java's %f / %e of |v| with `precision` digits after the point.
std::string FixedText(double v, int precision, bool group) {
  std::string digits;
  int point = 0;
  if (v != 0) {
    ShortestDigits(v, &digits, &point);
    RoundDigits(&digits, &point, point + precision);
  }
  std::string integer;
  std::string fraction;
  for (int k = 0; k < point; ++k) {
    integer.push_back(static_cast<size_t>(k) < digits.size() ? digits[static_cast<size_t>(k)]
                                                             : '0');
  }
  if (integer.empty()) {
    integer = "0";
  }
  for (int k = 0; k < precision; ++k) {
    const int at = point + k;
    fraction.push_back(
        at >= 0 && static_cast<size_t>(at) < digits.size() ? digits[static_cast<size_t>(at)] : '0');
  }
  std::string out = group ? Grouped(integer) : integer;
  if (precision > 0) {
    out.push_back('.');
    out += fraction;
  }
  return out;
}

std::string ScientificText(double v, int precision, bool upper) {
  std::string digits;
  int point = 1;
  if (v != 0) {
    ShortestDigits(v, &digits, &point);
    RoundDigits(&digits, &point, precision + 1);
  }
  digits.resize(static_cast<size_t>(precision) + 1, '0');
  std::string out(1, digits[0]);
  if (precision > 0) {
    out.push_back('.');
    out.append(digits, 1);
  }
  const int exponent = v == 0 ? 0 : point - 1;
  out += fmt::format("{}{}{:02}", upper ? 'E' : 'e', exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

// Pads `body` (after `sign`) to the spec's width: zeros between sign and digits with '0',
// spaces on the right with '-', else spaces on the left.
void AppendPadded(const FormatSpec& spec, std::string_view sign, std::string_view body,
                  std::string* out) {
  const int64_t length = NumChars(sign) + NumChars(body);
  const int64_t fill = spec.width > length ? spec.width - length : 0;
  const bool zero = spec.flags.find('0') != std::string::npos;
  const bool left = spec.flags.find('-') != std::string::npos;
  if (!left && !zero) {
    out->append(static_cast<size_t>(fill), ' ');
  }
  out->append(sign);
  if (zero && !left) {
    out->append(static_cast<size_t>(fill), '0');
  }
  out->append(body);
  if (left) {
    out->append(static_cast<size_t>(fill), ' ');
  }
}

std::string_view JavaClassName(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kBoolean:
      return "java.lang.Boolean";
    case TypeId::kInt8:
      return "java.lang.Byte";
    case TypeId::kInt16:
      return "java.lang.Short";
    case TypeId::kInt32:
    case TypeId::kDate:
      return "java.lang.Integer";
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return "java.lang.Long";
    case TypeId::kFloat32:
      return "java.lang.Float";
    case TypeId::kFloat64:
      return "java.lang.Double";
    case TypeId::kDecimal:
      return "org.apache.spark.sql.types.Decimal";
    case TypeId::kString:
      return "org.apache.spark.unsafe.types.UTF8String";
    default:
      return "java.lang.Object";
  }
}

bool IsJavaIntegral(const DataType& type) {
  return type.IsInteger() || type.Id() == TypeId::kDate || type.Id() == TypeId::kTimestamp ||
         type.Id() == TypeId::kTimestampNtz;
}

double DoubleAt(const Column& column, int64_t row) {
  return column.Type()->Id() == TypeId::kFloat32 ? column.Values<float>()[row]
                                                 : column.Values<double>()[row];
}

// Appends one conversion of `arg` (nullptr: no such argument was given) at `row`.
Status AppendConversion(const FormatSpec& spec, const Column* arg, int64_t row,
                        const EvalContext& context, std::string* out) {
  const char conversion = spec.conversion;
  const bool upper = conversion >= 'A' && conversion <= 'Z';
  const char lower = static_cast<char>(upper ? conversion + 32 : conversion);
  auto has = [&](char flag) {
    return spec.flags.find(flag) != std::string::npos;
  };
  std::string body;
  std::string sign;
  const bool null = arg->IsNull(row);
  auto mismatch = [&]() {
    return Status::InvalidArgument(
        fmt::format("format_string: IllegalFormatConversionException: {} != {}", conversion,
                    JavaClassName(*arg->Type())));
  };
  if (lower == 'b') {
    body = null ? "false"
           : arg->Type()->Id() == TypeId::kBoolean
               ? (arg->Values<uint8_t>()[row] != 0 ? "true" : "false")
               : "true";
  } else if (null) {
    body = "null";
  } else if (lower == 's') {
    const DataType& type = *arg->Type();
    if (type.Id() == TypeId::kString) {
      body.assign(arg->BytesAt(row));
    } else if (IsJavaIntegral(type)) {
      body = fmt::format("{}", IntAt(*arg, row));
    } else {
      AppendCastString(*arg, row, context, &body);
    }
  } else if (lower == 'c') {
    if (!arg->Type()->IsInteger()) {
      return mismatch();
    }
    AppendUtf8(static_cast<uint32_t>(IntAt(*arg, row)), &body);
  } else if (lower == 'd' || lower == 'o' || lower == 'x') {
    if (!IsJavaIntegral(*arg->Type())) {
      return mismatch();
    }
    const int64_t value = IntAt(*arg, row);
    if (lower == 'd') {
      const std::string digits = fmt::format(
          "{}", value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
      body = has(',') ? Grouped(digits) : digits;
      if (value < 0) {
        if (has('(')) {
          sign = "(";
          body.push_back(')');
        } else {
          sign = "-";
        }
      } else if (has('+')) {
        sign = "+";
      } else if (has(' ')) {
        sign = " ";
      }
    } else {
      // Java prints a negative value as its two's complement in the boxed type's width.
      int bits = 64;
      switch (arg->Type()->Id()) {
        case TypeId::kInt8:
          bits = 8;
          break;
        case TypeId::kInt16:
          bits = 16;
          break;
        case TypeId::kInt32:
        case TypeId::kDate:
          bits = 32;
          break;
        default:
          break;
      }
      auto bits_value = static_cast<uint64_t>(value);
      if (bits < 64) {
        bits_value &= (uint64_t{1} << bits) - 1;
      }
      body = lower == 'x' ? fmt::format("{:x}", bits_value) : fmt::format("{:o}", bits_value);
      if (has('#')) {
        sign = lower == 'x' ? "0x" : "0";
      }
    }
  } else {
    if (!arg->Type()->IsFloatingPoint()) {
      return mismatch();
    }
    const double value = DoubleAt(*arg, row);
    if (std::isnan(value)) {
      body = "NaN";
    } else if (std::isinf(value)) {
      body = "Infinity";
    } else {
      const int precision = spec.precision >= 0 ? spec.precision : 6;
      if (lower == 'f') {
        body = FixedText(value, precision, has(','));
      } else if (lower == 'e') {
        body = ScientificText(value, precision, false);
      } else {
        // %g: scientific unless 10^-4 <= the rounded value < 10^precision.
        const int significant = precision == 0 ? 1 : precision;
        std::string digits;
        int point = 1;
        if (value != 0) {
          ShortestDigits(value, &digits, &point);
          RoundDigits(&digits, &point, significant);
        }
        if (value != 0 && (point - 1 < -4 || point - 1 >= significant)) {
          body = ScientificText(value, significant - 1, false);
        } else {
          body = FixedText(value, std::max(significant - point, 0), has(','));
        }
      }
    }
    if (std::signbit(value) && !std::isnan(value)) {
      if (has('(')) {
        sign = "(";
        body.push_back(')');
      } else {
        sign = "-";
      }
    } else if (has('+') && !std::isnan(value)) {
      sign = "+";
    } else if (has(' ') && !std::isnan(value)) {
      sign = " ";
    }
    if (!std::isfinite(value)) {
      FormatSpec no_zero = spec;
      no_zero.flags.erase(std::remove(no_zero.flags.begin(), no_zero.flags.end(), '0'),
                          no_zero.flags.end());
      AppendPadded(no_zero, sign, body, out);
      return Status::OK();
    }
  }
  if ((lower == 's' || lower == 'b') && spec.precision >= 0) {
    body.resize(ByteOffsetOfChar(body, spec.precision));
  }
  if (upper) {
    MapChars(std::string(body), ToUpper, &body);
  }
  AppendPadded(spec, sign, body, out);
  return Status::OK();
}

// format_string(strfmt, obj, ...) / printf: null only when strfmt is.
Result<BoundExprPtr> BindFormatString(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, SIZE_MAX));
  args[0] = CastTo(std::move(args[0]), DataType::String());
  for (size_t k = 1; k < args.size(); ++k) {
    if (args[k]->Type()->IsNested()) {
      args[k] = CastTo(std::move(args[k]), DataType::String());
    }
  }
  std::optional<std::vector<FormatSpec>> constant;
  if (args[0]->GetOp() == Op::kLiteral && !args[0]->Literal().IsNull()) {
    auto parsed = ParseFormat(args[0]->Literal().BytesValue());
    if (!parsed.ok()) {
      return CallError(call, parsed.status().Message());
    }
    constant = std::move(*parsed);
  }
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([constant](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                        const EvalContext& context) -> Result<ColumnPtr> {
        Status status;
        const std::vector<ColumnPtr> format = {a[0]};
        auto result = BuildBytes(c.Type(), format, context.pool, [&](int64_t i, std::string* out) {
          std::vector<FormatSpec> parsed;
          if (!constant) {
            auto row_specs = ParseFormat(a[0]->BytesAt(i));
            if (!row_specs.ok()) {
              status = row_specs.status();
              return false;
            }
            parsed = std::move(*row_specs);
          }
          for (const FormatSpec& spec : constant ? *constant : parsed) {
            if (spec.conversion == 0) {
              out->append(spec.text);
            } else if (spec.conversion == '%') {
              AppendPadded(spec, "", "%", out);
            } else if (spec.conversion == 'n') {
              out->push_back('\n');
            } else if (static_cast<size_t>(spec.argument) + 1 >= a.size()) {
              status = Status::InvalidArgument(fmt::format(
                  "MissingFormatArgumentException: Format specifier '%{}{}{}'", spec.flags,
                  spec.width >= 0 ? fmt::format("{}", spec.width) : "", spec.conversion));
              return false;
            } else {
              status = AppendConversion(spec, a[static_cast<size_t>(spec.argument) + 1].get(), i,
                                        context, out);
              if (!status.ok()) {
                return false;
              }
            }
          }
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// ---- regular expressions -------------------------------------------------------------------

Result<std::shared_ptr<const RE2>> CompileRegex(std::string_view pattern, std::string_view what) {
  RE2::Options options;
  options.set_log_errors(false);
  auto regex =
      std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!regex->ok()) {
    return Status::InvalidArgument(
        fmt::format("invalid {} '{}': {}", what, pattern, regex->error()));
  }
  return regex;
}

// A regex argument: compiled once when it is a literal, else per distinct value of a batch.
class RegexArgument {
 public:
  static Result<RegexArgument> Make(const BoundExpression& arg, std::string_view what) {
    RegexArgument result;
    result.what_ = std::string(what);
    if (arg.GetOp() == Op::kLiteral && !arg.Literal().IsNull()) {
      TRIBUTARY_ASSIGN_OR_RAISE(result.constant_, CompileRegex(arg.Literal().BytesValue(), what));
    }
    return result;
  }

  // The regex of row `row` of `patterns`; `cache` holds per-batch compilations.
  Result<const RE2*> At(
      const Column& patterns, int64_t row,
      std::map<std::string, std::shared_ptr<const RE2>, std::less<>>* cache) const {
    if (constant_) {
      return constant_.get();
    }
    const std::string_view text = patterns.BytesAt(row);
    auto it = cache->find(text);
    if (it == cache->end()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto regex, CompileRegex(text, what_));
      it = cache->emplace(std::string(text), std::move(regex)).first;
    }
    return it->second.get();
  }

 private:
  std::shared_ptr<const RE2> constant_;
  std::string what_;
};

using RegexCache = std::map<std::string, std::shared_ptr<const RE2>, std::less<>>;

re2::StringPiece Piece(std::string_view s) {
  return {s.data(), s.size()};
}

// BuildBytes for a function whose args[1] is `regex`: `row(i, regex_of_row_i, out, status)`
// makes row i's string; it returns false with `*status` set to fail the call.
template <typename Row>
Result<ColumnPtr> BuildBytesWithRegex(const RegexArgument& regex, const BoundExpression& call,
                                      const std::vector<ColumnPtr>& args,
                                      const EvalContext& context, Row row) {
  RegexCache cache;
  Status status;
  auto result = BuildBytes(call.Type(), args, context.pool, [&](int64_t i, std::string* out) {
    auto compiled = regex.At(*args[1], i, &cache);
    if (!compiled.ok()) {
      status = compiled.status();
      return false;
    }
    return row(i, **compiled, out, &status);
  });
  TRIBUTARY_RETURN_NOT_OK(status);
  return result;
}

// Binds a `Function` whose args[1] is a regular expression: `call` takes from `min_args` to
// arg_types.size() arguments, coerced to `arg_types`.
template <typename Function>
Result<BoundExprPtr> BindRegexCall(const Expression& call, std::vector<BoundExprPtr> args,
                                   size_t min_args, const std::vector<DataTypePtr>& arg_types,
                                   DataTypePtr result_type) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, min_args, arg_types.size()));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, arg_types));
  TRIBUTARY_ASSIGN_OR_RAISE(auto regex, RegexArgument::Make(*args[1], "regular expression"));
  return MakeFunctionCall(call.Name(), std::move(result_type), std::move(args),
                          std::make_shared<const Function>(std::move(regex)));
}

class RlikeFunction final : public EagerFunction {
 public:
  explicit RlikeFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<uint8_t>(call.Type(), args, context.pool, [&](int64_t i) -> uint8_t {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      return static_cast<uint8_t>(RE2::PartialMatch(Piece(args[0]->BytesAt(i)), **regex));
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRlike(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RlikeFunction>(call, std::move(args), 2, Strings(2), DataType::Boolean());
}

// LIKE pattern -> an anchored RE2 pattern: '_' one character, '%' any run, `escape` makes the
// next character literal (only '_', '%' or the escape itself may follow it, as Spark checks).
Result<std::string> LikeToRegex(std::string_view pattern, char escape) {
  std::string out = "(?s)";
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == escape) {
      if (i + 1 == pattern.size()) {
        return Status::InvalidArgument(
            fmt::format("the LIKE pattern '{}' ends with the escape character", pattern));
      }
      const char next = pattern[++i];
      if (next != '_' && next != '%' && next != escape) {
        return Status::InvalidArgument(fmt::format(
            "the escape character is not allowed to precede '{}' in the LIKE pattern '{}' "
            "(offset {})",
            next, pattern, i));
      }
      out += RE2::QuoteMeta(std::string(1, next));
    } else if (c == '%') {
      out += ".*";
    } else if (c == '_') {
      out += ".";
    } else {
      // Quote a whole UTF-8 character at once.
      const size_t w = std::min(static_cast<size_t>(Utf8Width(static_cast<unsigned char>(c))),
                                pattern.size() - i);
      out += RE2::QuoteMeta(Piece(pattern.substr(i, w)));
      i += w - 1;
    }
  }
  return out;
}

class LikeFunction final : public EagerFunction {
 public:
  LikeFunction(std::shared_ptr<const RE2> constant, char escape)
      : constant_(std::move(constant)), escape_(escape) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<uint8_t>(call.Type(), args, context.pool, [&](int64_t i) -> uint8_t {
      const RE2* regex = constant_.get();
      if (regex == nullptr) {
        const std::string_view pattern = args[1]->BytesAt(i);
        auto it = cache.find(pattern);
        if (it == cache.end()) {
          auto translated = LikeToRegex(pattern, escape_);
          if (!translated.ok()) {
            status = translated.status();
            return 0;
          }
          auto compiled = CompileRegex(*translated, "LIKE pattern");
          if (!compiled.ok()) {
            status = compiled.status();
            return 0;
          }
          it = cache.emplace(std::string(pattern), *compiled).first;
        }
        regex = it->second.get();
      }
      return static_cast<uint8_t>(RE2::FullMatch(Piece(args[0]->BytesAt(i)), *regex));
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  std::shared_ptr<const RE2> constant_;
  char escape_;
};

Result<BoundExprPtr> BindLike(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  char escape = '\\';
  if (args.size() == 3) {
    const BoundExpression& e = *args[2];
    if (e.GetOp() != Op::kLiteral || e.Literal().IsNull() || e.Type()->Id() != TypeId::kString ||
        e.Literal().BytesValue().size() != 1) {
      return CallError(call, "the escape must be a one-character string literal");
    }
    escape = e.Literal().BytesValue()[0];
    args.pop_back();
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  std::shared_ptr<const RE2> constant;
  if (args[1]->GetOp() == Op::kLiteral && !args[1]->Literal().IsNull()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto translated,
                              LikeToRegex(args[1]->Literal().BytesValue(), escape));
    TRIBUTARY_ASSIGN_OR_RAISE(constant, CompileRegex(translated, "LIKE pattern"));
  }
  return MakeFunctionCall(call.Name(), DataType::Boolean(), std::move(args),
                          std::make_shared<const LikeFunction>(std::move(constant), escape));
}

// regexp_extract(str, regex[, group = 1]): "" when nothing matches or the group did not take
// part; a group past the regex's count is an error.
class RegexpExtractFunction final : public EagerFunction {
 public:
  explicit RegexpExtractFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context,
        [&](int64_t i, const RE2& regex, std::string* out, Status* status) {
          // As Spark, the group index is checked only once something matched.
          const int64_t group = args.size() > 2 ? IntAt(*args[2], i) : 1;
          const int groups = regex.NumberOfCapturingGroups();
          std::vector<re2::StringPiece> matches(static_cast<size_t>(groups) + 1);
          const std::string_view s = args[0]->BytesAt(i);
          if (!regex.Match(Piece(s), 0, s.size(), RE2::UNANCHORED, matches.data(), groups + 1)) {
            return true;
          }
          if (group < 0 || group > groups) {
            *status = Status::InvalidArgument(fmt::format(
                "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in "
                "`regexp_extract` is invalid: Expects group index between 0 and {}, but got {}.",
                groups, group));
            return false;
          }
          const re2::StringPiece& m = matches[static_cast<size_t>(group)];
          if (m.data() != nullptr) {
            out->assign(m.data(), m.size());
          }
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpExtract(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpExtractFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::String());
}

// Java's replacement syntax ($1, ${name} not supported, \$ literal) -> RE2's (\1).
std::string JavaReplacementToRe2(std::string_view replacement) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      const char next = replacement[++i];
      if (next == '\\') {
        out += "\\\\";
      } else {
        out.push_back(next);
      }
    } else if (c == '$' && i + 1 < replacement.size() && replacement[i + 1] >= '0' &&
               replacement[i + 1] <= '9') {
      out.push_back('\\');
      out.push_back(replacement[++i]);
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// regexp_replace(str, regex, replacement[, position = 1]): every match from `position` on.
class RegexpReplaceFunction final : public EagerFunction {
 public:
  explicit RegexpReplaceFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context,
        [&](int64_t i, const RE2& regex, std::string* out, Status* status) {
          const std::string_view s = args[0]->BytesAt(i);
          const int64_t position = args.size() > 3 ? IntAt(*args[3], i) : 1;
          if (position < 1) {
            *status = Status::InvalidArgument(fmt::format(
                "row {}: regexp_replace position must be at least 1, got {}", i, position));
            return false;
          }
          if (position > 1 && position - 1 >= NumChars(s)) {
            // Spark leaves the string alone when the search would start past its end.
            out->assign(s);
            return true;
          }
          const size_t from = ByteOffsetOfChar(s, position - 1);
          std::string tail(s.substr(from));
          RE2::GlobalReplace(&tail, regex, JavaReplacementToRe2(args[2]->BytesAt(i)));
          out->assign(s.substr(0, from));
          out->append(tail);
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpReplace(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpReplaceFunction>(
      call, std::move(args), 3,
      {DataType::String(), DataType::String(), DataType::String(), DataType::Int32()},
      DataType::String());
}

// split(str, regex[, limit = -1]) as Java's String.split with that limit: trailing empty
// strings are kept, a zero-width match at the start yields no leading empty string, limit > 0
// caps the number of parts (the last one holds the rest).
class SplitFunction final : public EagerFunction {
 public:
  explicit SplitFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    const int64_t n = args[0]->Length();
    ColumnBuilder builder(call.Type(), context.pool);
    ColumnBuilder& parts = builder.Child(0);
    for (int64_t i = 0; i < n; ++i) {
      bool any_null = false;
      for (const ColumnPtr& arg : args) {
        any_null = any_null || arg->IsNull(i);
      }
      if (any_null) {
        builder.AppendNull();
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const RE2* regex, regex_.At(*args[1], i, &cache));
      const int64_t limit = args.size() > 2 ? IntAt(*args[2], i) : -1;
      const std::string_view s = args[0]->BytesAt(i);
      size_t start = 0;
      size_t search = 0;
      int64_t count = 0;
      re2::StringPiece match;
      while (search <= s.size() && (limit <= 0 || count < limit - 1) &&
             regex->Match(Piece(s), search, s.size(), RE2::UNANCHORED, &match, 1)) {
        const auto at = static_cast<size_t>(match.data() - s.data());
        const size_t end = at + match.size();
        if (match.empty()) {
          if (at >= s.size()) {
            break;
          }
          if (at == 0) {
            search = static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[0])));
            continue;
          }
        }
        parts.AppendBytes(s.substr(start, at - start));
        ++count;
        start = end;
        search = match.empty()
                     ? end + static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[end])))
                     : end;
      }
      parts.AppendBytes(s.substr(start));
      builder.AppendArray();
    }
    return builder.Finish();
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindSplit(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<SplitFunction>(call, std::move(args), 2,
                                      {DataType::String(), DataType::String(), DataType::Int32()},
                                      DataType::Array(DataType::String(), false));
}

// Calls `on_match(groups)` for each match of `regex` in `s` in the order of Java's
// Matcher.find loop: after an empty match the search goes on one character later.
template <typename OnMatch>
void ForEachMatch(const RE2& regex, std::string_view s, int groups, OnMatch on_match) {
  std::vector<re2::StringPiece> m(static_cast<size_t>(groups) + 1);
  size_t search = 0;
  while (search <= s.size() &&
         regex.Match(Piece(s), search, s.size(), RE2::UNANCHORED, m.data(), groups + 1)) {
    if (!on_match(m)) {
      return;
    }
    const size_t end = static_cast<size_t>(m[0].data() - s.data()) + m[0].size();
    if (!m[0].empty()) {
      search = end;
    } else if (end >= s.size()) {
      return;
    } else {
      search = end + static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[end])));
    }
  }
}

Status CheckGroupIndex(const RE2& regex, int64_t group, std::string_view function) {
  const int groups = regex.NumberOfCapturingGroups();
  if (group < 0 || group > groups) {
    return Status::InvalidArgument(fmt::format(
        "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in `{}` is "
        "invalid: Expects group index between 0 and {}, but got {}.",
        function, groups, group));
  }
  return Status::OK();
}

// regexp_extract_all(str, regex[, group = 1]): the group of every match ("" where it did not
// take part).
class RegexpExtractAllFunction final : public EagerFunction {
 public:
  explicit RegexpExtractAllFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    const int64_t n = args[0]->Length();
    ColumnBuilder builder(call.Type(), context.pool);
    ColumnBuilder& parts = builder.Child(0);
    for (int64_t i = 0; i < n; ++i) {
      if (std::any_of(args.begin(), args.end(),
                      [i](const ColumnPtr& arg) { return arg->IsNull(i); })) {
        builder.AppendNull();
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const RE2* regex, regex_.At(*args[1], i, &cache));
      const int64_t group = args.size() > 2 ? IntAt(*args[2], i) : 1;
      // As Spark, the group index is checked only once something matched.
      Status status;
      ForEachMatch(*regex, args[0]->BytesAt(i), regex->NumberOfCapturingGroups(),
                   [&](const std::vector<re2::StringPiece>& m) {
                     status = CheckGroupIndex(*regex, group, "regexp_extract_all");
                     if (!status.ok()) {
                       return false;
                     }
                     const re2::StringPiece& g = m[static_cast<size_t>(group)];
                     parts.AppendBytes(std::string_view(g.data() == nullptr ? "" : g.data(),
                                                        g.data() == nullptr ? 0 : g.size()));
                     return true;
                   });
      TRIBUTARY_RETURN_NOT_OK(status);
      builder.AppendArray();
    }
    return builder.Finish();
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpExtractAll(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpExtractAllFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::Array(DataType::String(), false));
}

// regexp_count(str, regex): the number of matches, empty ones included.
class RegexpCountFunction final : public EagerFunction {
 public:
  explicit RegexpCountFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      int32_t count = 0;
      ForEachMatch(**regex, args[0]->BytesAt(i), 0, [&](const std::vector<re2::StringPiece>&) {
        ++count;
        return true;
      });
      return count;
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpCount(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpCountFunction>(call, std::move(args), 2, Strings(2),
                                            DataType::Int32());
}

// regexp_substr(str, regex): the first match, null when there is none or it is empty.
class RegexpSubstrFunction final : public EagerFunction {
 public:
  explicit RegexpSubstrFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context, [&](int64_t i, const RE2& regex, std::string* out, Status*) {
          re2::StringPiece match;
          const std::string_view s = args[0]->BytesAt(i);
          if (!regex.Match(Piece(s), 0, s.size(), RE2::UNANCHORED, &match, 1) || match.empty()) {
            return false;
          }
          out->assign(match.data(), match.size());
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpSubstr(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpSubstrFunction>(call, std::move(args), 2, Strings(2),
                                             DataType::String());
}

// regexp_instr(str, regex[, idx]): the 1-based character position where the first match
// starts, 0 when nothing matches. Spark accepts idx but ignores it (RegExpInStr always reports
// the start of the whole match); a null idx still makes the row null.
class RegexpInstrFunction final : public EagerFunction {
 public:
  explicit RegexpInstrFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      const std::string_view s = args[0]->BytesAt(i);
      re2::StringPiece match;
      if (!(*regex)->Match(Piece(s), 0, s.size(), RE2::UNANCHORED, &match, 1)) {
        return 0;
      }
      const auto at = static_cast<size_t>(match.data() - s.data());
      return static_cast<int32_t>(NumChars(s.substr(0, at)) + 1);
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpInstr(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpInstrFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::Int32());
}

}  // namespace

void AddStringFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"lower", BindCase},
                               {"lcase", BindCase},
                               {"upper", BindCase},
                               {"ucase", BindCase},
                               {"length", BindLength},
                               {"char_length", BindLength},
                               {"character_length", BindLength},
                               {"substring", BindSubstring},
                               {"substr", BindSubstring},
                               {"concat", BindConcat},
                               {"concat_ws", BindConcatWs},
                               {"trim", BindTrim},
                               {"ltrim", BindTrim},
                               {"rtrim", BindTrim},
                               {"replace", BindReplace},
                               {"starts_with", BindStringPredicate},
                               {"startswith", BindStringPredicate},
                               {"ends_with", BindStringPredicate},
                               {"endswith", BindStringPredicate},
                               {"contains", BindStringPredicate},
                               {"lpad", BindPad},
                               {"rpad", BindPad},
                               {"instr", BindInstr},
                               {"initcap", BindInitcap},
                               {"reverse", BindReverse},
                               {"like", BindLike},
                               {"rlike", BindRlike},
                               {"regexp", BindRlike},
                               {"regexp_like", BindRlike},
                               {"regexp_extract", BindRegexpExtract},
                               {"regexp_replace", BindRegexpReplace},
                               {"split", BindSplit},
                               {"split_part", BindSplitPart},
                               {"btrim", BindTrim},
                               {"left", BindLeftRight},
                               {"right", BindLeftRight},
                               {"elt", BindElt},
                               {"overlay", BindOverlay},
                               {"soundex", BindSoundex},
                               {"levenshtein", BindLevenshtein},
                               {"luhn_check", BindLuhnCheck},
                               {"mask", BindMask},
                               {"locate", BindLocate},
                               {"position", BindLocate},
                               {"format_string", BindFormatString},
                               {"printf", BindFormatString},
                               {"regexp_extract_all", BindRegexpExtractAll},
                               {"regexp_count", BindRegexpCount},
                               {"regexp_substr", BindRegexpSubstr},
                               {"regexp_instr", BindRegexpInstr},
                               {"len", BindLength},
                               {"ascii", BindAscii},
                               {"chr", BindChr},
                               {"char", BindChr},
                               {"repeat", BindRepeat},
                               {"space", BindRepeat},
                               {"translate", BindTranslate},
                               {"substring_index", BindSubstringIndex},
                               {"find_in_set", BindFindInSet},
                               {"bit_length", BindByteLength},
                               {"octet_length", BindByteLength},
                               {"quote", BindQuote},
                               {"uuid", BindUuid},
                               {"sentences", BindSentences}});
}

}  // namespace tributary::expr

// String functions with Spark's semantics: lengths and positions count characters (UTF-8 code
// points), positions are 1-based. Regular expressions are regexp_functions.cc, format_string
// format_string_functions.cc.
//
// lower, upper, lcase, ucase, length/char_length/character_length/len, substring/substr,
// concat, concat_ws, trim/ltrim/rtrim/btrim, split_part, replace, starts_with/startswith,
// ends_with/endswith, contains, lpad, rpad, instr, locate/position, initcap, reverse, left,
// right, elt, overlay, soundex, levenshtein, luhn_check, mask, ascii, chr/char, repeat, space,
// translate, substring_index, find_in_set, bit_length, octet_length, quote, uuid, sentences.

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
#include "expr/string_helpers.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::TypeId;

namespace {

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
  bool any_array = false;
  for (const auto& arg : args) {
    all_binary = all_binary && arg->Type()->Id() == TypeId::kBinary;
    any_array = any_array || arg->Type()->Id() == TypeId::kArray;
  }
  if (any_array) {
    // concat of arrays (Spark's Concat over ArrayType): the elements one after the other, null
    // when any array is; that is flatten(array(a, b, ...)).
    const ExprPtr packed = Function("array", call.Children());
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr arrays,
                              BindAs("array", call.Children(), std::move(args)));
    return BindAs("flatten", {packed}, {std::move(arrays)});
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

// String functions and pattern predicates, with Spark's semantics: lengths and positions count
// characters (UTF-8 code points), positions are 1-based, regular expressions are Java's syntax
// as far as RE2 implements it (no backreferences or lookaround: such a pattern is an error at
// bind time).
//
// lower, upper, lcase, ucase, length/char_length/character_length, substring/substr, concat,
// concat_ws, trim/ltrim/rtrim, split, regexp_extract, regexp_replace, replace, starts_with/
// startswith, ends_with/endswith, contains, lpad, rpad, instr, initcap, reverse, like, rlike/
// regexp/regexp_like.

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

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

// trim(str), trim(trim_chars, str) as Spark's StringTrim(trimStr, srcStr) constructor; the
// one-argument form removes spaces (' ') only.
Result<BoundExprPtr> BindTrim(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
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

// lpad/rpad(str, len[, pad = ' ']): the result is exactly `len` characters (cut when longer).
// Its size is known before it is built: past kMaxStringBytes it is an error, and a long one is
// written into a buffer of the query's pool, so a memory limit refuses it before it exists.
Result<BoundExprPtr> BindPad(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::Int32(), DataType::String()}));
  const bool left = call.Name() == "lpad";
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([left](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
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
          const std::string_view pad = a.size() > 2 ? a[2]->BytesAt(i) : " ";
          const int64_t have = NumChars(s);
          if (have >= target || pad.empty()) {
            builder.AppendBytes(s.substr(0, ByteOffsetOfChar(s, std::min(have, target))));
            continue;
          }
          const int64_t pad_chars = NumChars(pad);
          const int64_t whole = (target - have) / pad_chars;
          const size_t part = ByteOffsetOfChar(pad, (target - have) % pad_chars);
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
          const int64_t group = args.size() > 2 ? IntAt(*args[2], i) : 1;
          const int groups = regex.NumberOfCapturingGroups();
          if (group < 0 || group > groups) {
            *status = Status::InvalidArgument(fmt::format(
                "row {}: regexp_extract group {} does not exist: the regex '{}' has {} groups", i,
                group, regex.pattern(), groups));
            return false;
          }
          std::vector<re2::StringPiece> matches(static_cast<size_t>(group + 1));
          const std::string_view s = args[0]->BytesAt(i);
          if (regex.Match(Piece(s), 0, s.size(), RE2::UNANCHORED, matches.data(),
                          static_cast<int>(group + 1))) {
            const re2::StringPiece& m = matches[static_cast<size_t>(group)];
            if (m.data() != nullptr) {
              out->assign(m.data(), m.size());
            }
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
                               {"split", BindSplit}});
}

}  // namespace tributary::expr

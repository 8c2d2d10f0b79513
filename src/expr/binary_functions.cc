// Binary and character-set functions with Spark's semantics: text <-> bytes in hex, base64 and
// the charsets Spark accepts, and UTF-8 validity checks.
//
// hex, unhex, to_binary, try_to_binary, base64, unbase64, encode, decode(bin, charset) and
// decode(expr, search, result, ...),
// is_valid_utf8, make_valid_utf8, validate_utf8, try_validate_utf8.
//
// Invalid UTF-8 in a string (a CAST from binary can make it) reads as Java reads it: each
// maximal ill-formed subsequence is one U+FFFD.

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "common/ascii.h"
#include "common/utf8.h"
#include "expr/function_kernels.h"
#include "expr/utf8_validity.h"

namespace tributary::expr {

namespace {

// ---- hex and base64 ------------------------------------------------------------------------

// Spark's Hex.unhex: an odd-length text reads as if it had a leading '0'. False when a
// character is not a hex digit.
bool Unhex(std::string_view text, std::string* out) {
  out->clear();
  out->reserve((text.size() + 1) / 2);
  size_t i = 0;
  if (text.size() % 2 == 1) {
    const int low = HexDigitValue(text[0]);
    if (low < 0) {
      return false;
    }
    out->push_back(static_cast<char>(low));
    i = 1;
  }
  for (; i < text.size(); i += 2) {
    const int high = HexDigitValue(text[i]);
    const int low = HexDigitValue(text[i + 1]);
    if (high < 0 || low < 0) {
      return false;
    }
    out->push_back(static_cast<char>(high * 16 + low));
  }
  return true;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '+') {
    return 62;
  }
  if (c == '/') {
    return 63;
  }
  return -1;
}

// Spark's UnBase64.isValidBase64 (RFC 4648): groups of 4 alphabet characters, white space
// ignored, and a last group of at least 2 characters, padded with '=' to 4 when padded at all;
// nothing after the padding.
bool IsStrictBase64(std::string_view text) {
  int64_t position = 0;
  int padding = 0;
  for (const char c : text) {
    if (Base64Value(c) >= 0) {
      if (padding != 0) {
        return false;
      }
      ++position;
    } else if (c == '=') {
      ++padding;
      if (padding > 2 || position % 4 < 2) {
        return false;
      }
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (padding != 0) {
        return false;
      }
    } else {
      return false;
    }
  }
  return padding > 0 ? (position + padding) % 4 == 0 : position % 4 != 1;
}

// Java's MIME base64 decoder, as Spark's unbase64 uses it: characters outside the alphabet
// are skipped and decoding stops at the first '='. False when the last unit has a single
// character, which holds no whole byte.
bool DecodeBase64(std::string_view text, std::string* out) {
  out->clear();
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=') {
      break;
    }
    const int value = Base64Value(c);
    if (value < 0) {
      continue;
    }
    bits = (bits << 6) | static_cast<uint32_t>(value);
    if (++count == 4) {
      out->push_back(static_cast<char>(bits >> 16));
      out->push_back(static_cast<char>(bits >> 8));
      out->push_back(static_cast<char>(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) {
    return false;
  }
  if (count == 2) {
    out->push_back(static_cast<char>(bits >> 4));
  } else if (count == 3) {
    out->push_back(static_cast<char>(bits >> 10));
    out->push_back(static_cast<char>(bits >> 2));
  }
  return true;
}

Status MalformedBinary(std::string_view text, std::string_view format,
                       std::string_view suggestion) {
  return Status::InvalidArgument(
      fmt::format("[CONVERSION_INVALID_INPUT] The value '{}' ({}) cannot be converted to "
                  "\"BINARY\" because it is malformed. Correct the value as per the syntax, or "
                  "change its format. Use {} to tolerate malformed input and return NULL instead.",
                  text, format, suggestion));
}

// hex(x): upper-case hex of an integer's 64-bit two's complement (no leading zeros), or of a
// string's or binary's bytes.
Result<BoundExprPtr> BindHex(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const DataType& type = *args[0]->Type();
  const bool integer = type.IsInteger();
  if (integer) {
    args[0] = CastTo(std::move(args[0]), DataType::Int64());
  } else if (type.Id() != TypeId::kBinary) {
    TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  }
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [integer](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       if (integer) {
                         *out = fmt::format("{:X}", static_cast<uint64_t>(IntAt(*a[0], i)));
                         return true;
                       }
                       static constexpr char kHex[] = "0123456789ABCDEF";
                       for (const char c : a[0]->BytesAt(i)) {
                         out->push_back(kHex[static_cast<unsigned char>(c) >> 4]);
                         out->push_back(kHex[static_cast<unsigned char>(c) & 0xF]);
                       }
                       return true;
                     });
}

Result<BoundExprPtr> BindUnhex(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return PerRowBytes(call, DataType::Binary(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       return Unhex(a[0]->BytesAt(i), out);
                     });
}

Result<BoundExprPtr> BindBase64(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Binary()}));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const std::string_view bytes = a[0]->BytesAt(i);
                       out->resize((bytes.size() + 2) / 3 * 4 + 1);
                       const int written =
                           EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out->data()),
                                           reinterpret_cast<const unsigned char*>(bytes.data()),
                                           static_cast<int>(bytes.size()));
                       out->resize(static_cast<size_t>(written));
                       return true;
                     });
}

Result<BoundExprPtr> BindUnbase64(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(
      call.Name(), DataType::Binary(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          if (!DecodeBase64(a[0]->BytesAt(i), out)) {
            status = MalformedBinary(a[0]->BytesAt(i), "BASE64", "`try_to_binary`");
            return false;
          }
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// The kind of to_binary format `name` ('h'ex, 'u'tf-8, 'b'ase64; any case), 0 when unknown.
char BinaryFormatKind(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  return lower == "hex"                        ? 'h'
         : lower == "utf-8" || lower == "utf8" ? 'u'
         : lower == "base64"                   ? 'b'
                                               : 0;
}

Status InvalidBinaryFormat(std::string_view name) {
  return Status::InvalidArgument(
      fmt::format("[DATATYPE_MISMATCH.INVALID_ARG_VALUE] The fmt value must be a "
                  "case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or 'base64', "
                  "but got '{}'.",
                  name));
}

// to_binary(str[, fmt = 'hex']) and try_to_binary: fmt is 'hex', 'utf-8' (or 'utf8') or
// 'base64', any case: a string literal, checked when bound, or a constant expression, read per
// row. Malformed input is an error for to_binary and null for try_to_binary; so is an unknown
// fmt.
Result<BoundExprPtr> BindToBinary(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 2));
  const bool safe = call.Name() == "try_to_binary";
  if (args.size() == 2 && args[1]->Type()->Id() != TypeId::kString &&
      args[1]->Type()->Id() != TypeId::kNull) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.INVALID_ARG_VALUE] The fmt value must "
                                       "be a case-insensitive \"STRING\" literal of 'hex', "
                                       "'utf-8', 'utf8', or 'base64', but got {}.",
                                       args[1]->ToString()));
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String(), DataType::String()}));
  char constant = 'h';
  if (args.size() == 2 && args[1]->GetOp() == Op::kLiteral) {
    if (args[1]->Literal().IsNull()) {
      return MakeBound(Op::kLiteral, DataType::Binary(), {}, -1, Scalar::Null(DataType::Binary()));
    }
    constant = BinaryFormatKind(args[1]->Literal().BytesValue());
    if (constant == 0) {
      if (safe) {
        return MakeBound(Op::kLiteral, DataType::Binary(), {}, -1,
                         Scalar::Null(DataType::Binary()));
      }
      return CallError(call, InvalidBinaryFormat(args[1]->Literal().BytesValue()).Message());
    }
    args.pop_back();
  }
  return MakeFunctionCall(
      call.Name(), DataType::Binary(), std::move(args),
      Lambda([constant, safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                              MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view text = a[0]->BytesAt(i);
          const char kind = a.size() > 1 ? BinaryFormatKind(a[1]->BytesAt(i)) : constant;
          if (kind == 0) {
            if (!safe) {
              status = InvalidBinaryFormat(a[1]->BytesAt(i));
            }
            return false;
          }
          bool ok = true;
          if (kind == 'u') {
            out->assign(text);
          } else if (kind == 'h') {
            ok = Unhex(text, out);
          } else {
            ok = IsStrictBase64(text) && DecodeBase64(text, out);
          }
          if (!ok && !safe) {
            status = MalformedBinary(text, kind == 'h' ? "HEX" : "BASE64", "`try_to_binary`");
          }
          return ok;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// ---- UTF-8 validity ------------------------------------------------------------------------

// The length of the maximal ill-formed subsequence at the start of `text` (which does not
// start with a well-formed character): the lead byte and the continuation bytes that could
// still have completed it (Unicode's "maximal subpart" rule, as Java's decoder applies it).
size_t IllFormedLength(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  size_t want = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    want = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    want = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    want = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 1;
  }
  size_t length = 1;
  while (length < want && length < text.size()) {
    const auto next = static_cast<unsigned char>(text[length]);
    if (next < (length == 1 ? low : 0x80) || next > (length == 1 ? high : 0xBF)) {
      break;
    }
    ++length;
  }
  return length;
}

Result<BoundExprPtr> BindIsValidUtf8(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return PerRowFixed<uint8_t>(call, DataType::Boolean(), std::move(args),
                              [](const std::vector<ColumnPtr>& a, int64_t i) {
                                return static_cast<uint8_t>(IsValidUtf8(a[0]->BytesAt(i)));
                              });
}

Result<BoundExprPtr> BindMakeValidUtf8(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       MakeValidUtf8(a[0]->BytesAt(i), out);
                       return true;
                     });
}

// The bytes of `text` with non-ASCII ones as \xHH, for messages about invalid UTF-8.
std::string EscapedBytes(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02X}", byte);
    }
  }
  return out;
}

// validate_utf8(str): str, or an error when it is not valid UTF-8; try_validate_utf8: null.
Result<BoundExprPtr> BindValidateUtf8(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  const bool safe = call.Name() == "try_validate_utf8";
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view text = a[0]->BytesAt(i);
          if (IsValidUtf8(text)) {
            out->assign(text);
            return true;
          }
          if (!safe) {
            status = Status::InvalidArgument(
                fmt::format("[INVALID_UTF8_STRING] Invalid UTF8 byte sequence found in string: {}",
                            EscapedBytes(text)));
          }
          return false;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// ---- encode / decode -----------------------------------------------------------------------

enum class Charset { kUsAscii, kIso88591, kUtf8, kUtf16Be, kUtf16Le, kUtf16, kUtf32 };

std::optional<Charset> ParseCharset(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; });
  static constexpr std::array<std::pair<std::string_view, Charset>, 7> kCharsets = {{
      {"US-ASCII", Charset::kUsAscii},
      {"ISO-8859-1", Charset::kIso88591},
      {"UTF-8", Charset::kUtf8},
      {"UTF-16BE", Charset::kUtf16Be},
      {"UTF-16LE", Charset::kUtf16Le},
      {"UTF-16", Charset::kUtf16},
      {"UTF-32", Charset::kUtf32},
  }};
  for (const auto& [known, charset] : kCharsets) {
    if (upper == known) {
      return charset;
    }
  }
  return std::nullopt;
}

Status InvalidCharset(std::string_view function, std::string_view name) {
  return Status::InvalidArgument(fmt::format(
      "[INVALID_PARAMETER_VALUE.CHARSET] The value of parameter(s) `charset` in `{}` is invalid: "
      "expects one of the charsets 'US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', "
      "'UTF-16', 'UTF-32', but got '{}'.",
      function, name));
}

Status MalformedCoding(std::string_view function, std::string_view charset) {
  return Status::InvalidArgument(
      fmt::format("[MALFORMED_CHARACTER_CODING] Invalid value found when performing `{}` with "
                  "`{}`",
                  function, charset));
}

void AppendUnit(uint32_t unit, int bytes, bool little_endian, std::string* out) {
  for (int k = 0; k < bytes; ++k) {
    const int shift = little_endian ? 8 * k : 8 * (bytes - 1 - k);
    out->push_back(static_cast<char>((unit >> shift) & 0xFF));
  }
}

// The code points of `text`, ill-formed subsequences read as U+FFFD.
template <typename Visit>
void ForEachCodePoint(std::string_view text, Visit visit) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length == 0) {
      visit(0xFFFD);
      i += IllFormedLength(text.substr(i));
      continue;
    }
    uint32_t cp = static_cast<unsigned char>(text[i]);
    if (length > 1) {
      cp &= 0x7F >> length;
      for (size_t k = 1; k < length; ++k) {
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      }
    }
    visit(cp);
    i += length;
  }
}

// `text` in `charset`; false when a character has no encoding in it (Java's REPORT action).
bool EncodeText(std::string_view text, Charset charset, std::string* out) {
  out->clear();
  bool ok = true;
  const bool little = charset == Charset::kUtf16Le;
  if (charset == Charset::kUtf16) {
    out->append("\xFE\xFF");
  }
  ForEachCodePoint(text, [&](uint32_t cp) {
    switch (charset) {
      case Charset::kUsAscii:
      case Charset::kIso88591:
        if (cp >= (charset == Charset::kUsAscii ? 0x80U : 0x100U)) {
          ok = false;
        }
        out->push_back(static_cast<char>(cp));
        break;
      case Charset::kUtf8:
        AppendUtf8(cp, out);
        break;
      case Charset::kUtf32:
        AppendUnit(cp, 4, false, out);
        break;
      default:
        if (cp >= 0x10000) {
          AppendUnit(0xD800 + ((cp - 0x10000) >> 10), 2, little, out);
          AppendUnit(0xDC00 + ((cp - 0x10000) & 0x3FF), 2, little, out);
        } else {
          AppendUnit(cp, 2, little, out);
        }
        break;
    }
  });
  return ok;
}

// `bytes` read in `charset` into UTF-8; false on a malformed or unmappable sequence. UTF-16
// and UTF-32 follow a byte-order mark and are big-endian without one.
bool DecodeText(std::string_view bytes, Charset charset, std::string* out) {
  out->clear();
  auto byte = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  switch (charset) {
    case Charset::kUsAscii:
    case Charset::kIso88591:
      for (size_t k = 0; k < bytes.size(); ++k) {
        if (charset == Charset::kUsAscii && byte(k) >= 0x80) {
          return false;
        }
        AppendUtf8(byte(k), out);
      }
      return true;
    case Charset::kUtf8:
      if (!IsValidUtf8(bytes)) {
        return false;
      }
      out->assign(bytes);
      return true;
    case Charset::kUtf32: {
      if (bytes.size() % 4 != 0) {
        return false;
      }
      bool little = false;
      size_t k = 0;
      if (bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4)) {
        k = 4;
      } else if (bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view("\xFF\xFE\0\0", 4)) {
        k = 4;
        little = true;
      }
      for (; k < bytes.size(); k += 4) {
        const uint32_t cp =
            little ? byte(k) | byte(k + 1) << 8 | byte(k + 2) << 16 | byte(k + 3) << 24
                   : byte(k) << 24 | byte(k + 1) << 16 | byte(k + 2) << 8 | byte(k + 3);
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          return false;
        }
        AppendUtf8(cp, out);
      }
      return true;
    }
    default: {
      if (bytes.size() % 2 != 0) {
        return false;
      }
      bool little = charset == Charset::kUtf16Le;
      size_t k = 0;
      if (charset == Charset::kUtf16 && bytes.size() >= 2) {
        if (byte(0) == 0xFE && byte(1) == 0xFF) {
          k = 2;
        } else if (byte(0) == 0xFF && byte(1) == 0xFE) {
          k = 2;
          little = true;
        }
      }
      auto unit = [&](size_t at) {
        return little ? byte(at) | byte(at + 1) << 8 : byte(at) << 8 | byte(at + 1);
      };
      for (; k < bytes.size(); k += 2) {
        uint32_t cp = unit(k);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (k + 2 >= bytes.size() || unit(k + 2) < 0xDC00 || unit(k + 2) > 0xDFFF) {
            return false;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (unit(k + 2) - 0xDC00);
          k += 2;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        AppendUtf8(cp, out);
      }
      return true;
    }
  }
}

// decode(expr, search1, result1, ..., [default]): the result of the first search that expr
// equals, nulls equal to nulls (Spark's Decode is CASE WHEN expr <=> search THEN result ...).
Result<BoundExprPtr> BindDecodeCase(const Expression& call, std::vector<BoundExprPtr> args) {
  std::vector<DataTypePtr> result_types;
  for (size_t k = 2; k < args.size(); k += 2) {
    result_types.push_back(args[k]->Type());
  }
  const bool has_default = args.size() % 2 == 0;
  if (has_default) {
    result_types.push_back(args.back()->Type());
  }
  const DataTypePtr type = CommonType(result_types);
  if (type == nullptr) {
    return CallError(call, "the results have no common type");
  }
  std::vector<BoundExprPtr> children;
  for (size_t k = 1; k + 1 < args.size(); k += 2) {
    DataTypePtr compared = ComparisonType(args[0]->Type(), args[k]->Type());
    if (compared == nullptr || compared->IsNested()) {
      return CallError(call, fmt::format("cannot compare {} with {}", args[0]->Type()->ToString(),
                                         args[k]->Type()->ToString()));
    }
    if (compared->Id() == TypeId::kNull) {
      compared = DataType::Boolean();
    }
    children.push_back(MakeBound(Op::kNullSafeEqual, DataType::Boolean(),
                                 {CastTo(args[0], compared), CastTo(args[k], compared)}));
    children.push_back(CastTo(args[k + 1], type));
  }
  if (has_default) {
    children.push_back(CastTo(args.back(), type));
  }
  return MakeBound(Op::kCaseWhen, type, std::move(children));
}

// encode(str, charset) -> binary and decode(bin, charset) -> string. A constant charset is
// checked when the call is bound, others per row.
Result<BoundExprPtr> BindEncodeDecode(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool encode = call.Name() == "encode";
  if (!encode && args.size() > 2) {
    return BindDecodeCase(call, std::move(args));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(
      call, &args, {encode ? DataType::String() : DataType::Binary(), DataType::String()}));
  // encode checks its charset per row, after passing "" and UTF-8 through (Spark's
  // Encode.encode); decode always checks it.
  if (!encode && args[1]->GetOp() == Op::kLiteral && !args[1]->Literal().IsNull() &&
      !ParseCharset(args[1]->Literal().BytesValue())) {
    return CallError(call, InvalidCharset(call.Name(), args[1]->Literal().BytesValue()).Message());
  }
  return MakeFunctionCall(
      call.Name(), encode ? DataType::Binary() : DataType::String(), std::move(args),
      Lambda([encode](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                      MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view name = a[1]->BytesAt(i);
          if (encode && (a[0]->BytesAt(i).empty() || ParseCharset(name) == Charset::kUtf8)) {
            out->assign(a[0]->BytesAt(i));
            return true;
          }
          const std::optional<Charset> charset = ParseCharset(name);
          if (!charset) {
            status = InvalidCharset(encode ? "encode" : "decode", name);
            return false;
          }
          const bool ok = encode ? EncodeText(a[0]->BytesAt(i), *charset, out)
                                 : DecodeText(a[0]->BytesAt(i), *charset, out);
          if (!ok) {
            status = MalformedCoding(encode ? "encode" : "decode", name);
          }
          return ok;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length == 0) {
      return false;
    }
    i += length;
  }
  return true;
}

// `text` with each maximal ill-formed subsequence replaced by U+FFFD.
void MakeValidUtf8(std::string_view text, std::string* out) {
  out->clear();
  out->reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length > 0) {
      out->append(text.substr(i, length));
      i += length;
    } else {
      AppendUtf8(0xFFFD, out);
      i += IllFormedLength(text.substr(i));
    }
  }
}

void AddBinaryFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"hex", BindHex},
                               {"unhex", BindUnhex},
                               {"base64", BindBase64},
                               {"unbase64", BindUnbase64},
                               {"to_binary", BindToBinary},
                               {"try_to_binary", BindToBinary},
                               {"encode", BindEncodeDecode},
                               {"decode", BindEncodeDecode},
                               {"is_valid_utf8", BindIsValidUtf8},
                               {"make_valid_utf8", BindMakeValidUtf8},
                               {"validate_utf8", BindValidateUtf8},
                               {"try_validate_utf8", BindValidateUtf8}});
}

}  // namespace tributary::expr

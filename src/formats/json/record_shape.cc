#include "formats/json/record_shape.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <system_error>
#include <utility>

#include "common/ascii.h"
#include "formats/json/json_value_text.h"

namespace tributary::json {
namespace {

// Key comparisons load words; they compare them whole, so the byte order does not matter.
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

}  // namespace

struct RecordShape::Cursor {
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

namespace {

#if defined(__SSE2__)

// A string without escapes or control characters starting at the opening quote; `text` is its
// content. Reads up to 16 bytes past the line, which the line padding allows. Sixteen bytes
// a step (SSE2, every x86-64): 3% of the nested-logs bench against the 8-byte words below.
bool MatchString(RecordShape::Cursor& in, std::string_view* text) {
  const char* start = in.p + 1;
  const char* s = start;
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i below_space = _mm_set1_epi8(0x1f);
  int high = 0;  // whether a byte of the string has its high bit set (not ASCII)
  while (s < in.end) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    // A control character is an unsigned byte at most 0x1f: min(b, 0x1f) == b.
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
                     _mm_cmpeq_epi8(_mm_min_epu8(bytes, below_space), bytes));
    const int mask = _mm_movemask_epi8(special);
    const int high_bits = _mm_movemask_epi8(bytes);
    if (mask == 0) {
      high |= high_bits;
      s += 16;
      continue;
    }
    const int index = __builtin_ctz(static_cast<unsigned>(mask));
    const char* stop = s + index;
    // Only the bytes before `stop` belong to the string.
    high |= high_bits & ((1 << index) - 1);
    if (stop >= in.end || *stop != '"') {
      return false;
    }
    *text = std::string_view(start, static_cast<size_t>(stop - start));
    if (high != 0 && !simdjson::validate_utf8(text->data(), text->size())) {
      return false;
    }
    in.p = stop + 1;
    return true;
  }
  return false;
}

#else

// Without SSE2: 8-byte words. The word tricks below find the first byte of a loaded word with its
// lowest set bit.
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

// A string without escapes or control characters starting at the opening quote; `text` is its
// content. Reads up to 8 bytes past the line, which the line padding allows.
bool MatchString(RecordShape::Cursor& in, std::string_view* text) {
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

#endif  // defined(__SSE2__)

// A number in the JSON grammar whose value simdjson's DOM gives exactly: integers of at most
// 18 digits (int64), and fractions of at most 19 digits with an exponent within +-200, which
// are finite normal doubles whatever their digits (so never a range error).
bool MatchNumber(RecordShape::Cursor& in, bool parse_double, ShapeValue* value) {
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
    value->kind = ShapeValueKind::kInt64;
    value->int_value = negative ? -static_cast<int64_t>(mantissa) : static_cast<int64_t>(mantissa);
  } else {
    if (int_digits + fraction_digits > 19) {
      return false;
    }
    value->kind = ShapeValueKind::kDouble;
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

bool MatchScalar(RecordShape::Cursor& in, bool parse_double, ShapeValue* value) {
  if (in.p >= in.end) {
    return false;
  }
  switch (*in.p) {
    case '"':
      value->kind = ShapeValueKind::kString;
      return MatchString(in, &value->text);
    case 't':
      value->kind = ShapeValueKind::kBool;
      value->bool_value = true;
      return in.TakeBytes("true");
    case 'f':
      value->kind = ShapeValueKind::kBool;
      value->bool_value = false;
      return in.TakeBytes("false");
    case 'n':
      value->kind = ShapeValueKind::kNull;
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

size_t RecordShape::AddNode(NodeKind kind, std::string_view key, bool optional) {
  Node node;
  node.kind = kind;
  node.optional = optional;
  if (!key.empty()) {
    node.key_offset = static_cast<uint32_t>(keys_.size());
    node.key_size = static_cast<uint32_t>(key.size() + 2);
    keys_.push_back('"');
    keys_.append(key);
    keys_.push_back('"');
  }
  nodes_.push_back(node);
  return nodes_.size() - 1;
}

bool RecordShape::LearnObject(simdjson::dom::object object, std::string_view key, int depth) {
  if (nodes_.size() >= kMaxNodes || depth > kMaxDepth) {
    return false;
  }
  const size_t node = AddNode(NodeKind::kObject, key, false);
  uint32_t members = 0;
  for (auto it = object.begin(), end = object.end(); it != end; ++it) {
    const std::string_view member = it.key();
    // A key that needs escaping never appears as its bytes; a repeated key is read as the DOM
    // reads it (the last one wins), not matched.
    if (member.empty() || !IsPlainKey(member)) {
      return false;
    }
    for (size_t sibling = node + 1; sibling < nodes_.size(); sibling = Next(sibling)) {
      if (Key(sibling) == member) {
        return false;
      }
    }
    if (!LearnValue(it.value(), member, depth + 1)) {
      return false;
    }
    ++members;
  }
  nodes_[node].num_members = members;
  nodes_[node].subtree_size = static_cast<uint32_t>(nodes_.size() - node);
  return true;
}

bool RecordShape::LearnValue(simdjson::dom::element value, std::string_view key, int depth) {
  if (nodes_.size() >= kMaxNodes || depth > kMaxDepth) {
    return false;
  }
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT:
      return LearnObject(value.get_object().value_unsafe(), key, depth);
    case simdjson::dom::element_type::ARRAY: {
      const size_t node = AddNode(NodeKind::kArray, key, false);
      const simdjson::dom::array array = value.get_array().value_unsafe();
      // The element shape is the first non-null element's, objects of other keys merged into
      // it (an array of objects with optional keys); an array of nulls or none at all is taken
      // for an array of scalars.
      bool learned = false;
      for (simdjson::dom::element item : array) {
        if (item.type() == simdjson::dom::element_type::OBJECT) {
          if (!LearnObjectElements(array, depth + 1)) {
            return false;
          }
          learned = true;
          break;
        }
        if (item.type() != simdjson::dom::element_type::NULL_VALUE) {
          if (!LearnValue(item, {}, depth + 1)) {
            return false;
          }
          learned = true;
          break;
        }
      }
      if (!learned) {
        nodes_[AddNode(NodeKind::kScalar, {}, false)].placeholder = true;
      }
      for (simdjson::dom::element item : array) {
        if (!Conforms(item, node + 1)) {
          return false;
        }
      }
      nodes_[node].subtree_size = static_cast<uint32_t>(nodes_.size() - node);
      return true;
    }
    default:
      nodes_[AddNode(NodeKind::kScalar, key, false)].placeholder =
          value.type() == simdjson::dom::element_type::NULL_VALUE;
      return true;
  }
}

bool RecordShape::LearnObjectElements(simdjson::dom::array array, int depth) {
  RecordShape element;
  for (simdjson::dom::element item : array) {
    if (item.type() != simdjson::dom::element_type::OBJECT) {
      continue;  // nulls conform; any other kind fails the caller's check
    }
    const simdjson::dom::object object = item.get_object().value_unsafe();
    if (element.Empty()) {
      if (!element.LearnObject(object, {}, 0)) {
        return false;
      }
    } else if (!element.Conforms(item, 0)) {
      RecordShape merged;
      if (!merged.MergeFrom(element, object)) {
        return false;
      }
      element = std::move(merged);
    }
  }
  if (depth > kMaxDepth) {
    return false;
  }
  CopySubtree(element, 0, false);
  return nodes_.size() <= kMaxNodes;
}

bool RecordShape::Conforms(simdjson::dom::element value, size_t node) const {
  const simdjson::dom::element_type type = value.type();
  if (type == simdjson::dom::element_type::NULL_VALUE) {
    return true;
  }
  switch (nodes_[node].kind) {
    case NodeKind::kScalar:
      return type != simdjson::dom::element_type::OBJECT &&
             type != simdjson::dom::element_type::ARRAY;
    case NodeKind::kObject: {
      if (type != simdjson::dom::element_type::OBJECT) {
        return false;
      }
      // The object's keys in the shape's order, optional members perhaps left out.
      size_t member = node + 1;
      uint32_t next = 0;
      const uint32_t members = nodes_[node].num_members;
      const simdjson::dom::object object = value.get_object().value_unsafe();
      for (auto it = object.begin(), end = object.end(); it != end; ++it) {
        while (next < members && it.key() != Key(member) && nodes_[member].optional) {
          ++next;
          member = Next(member);
        }
        if (next == members || it.key() != Key(member) || !Conforms(it.value(), member)) {
          return false;
        }
        ++next;
        member = Next(member);
      }
      for (; next < members; ++next, member = Next(member)) {
        if (!nodes_[member].optional) {
          return false;
        }
      }
      return true;
    }
    case NodeKind::kArray:
      if (type != simdjson::dom::element_type::ARRAY) {
        return false;
      }
      const simdjson::dom::array array = value.get_array().value_unsafe();
      for (simdjson::dom::element item : array) {
        if (!Conforms(item, node + 1)) {
          return false;
        }
      }
      return true;
  }
  return false;
}

bool RecordShape::Learn(simdjson::dom::object object) {
  Clear();
  merges_ = 0;
  if (!LearnObject(object, {}, 0) || nodes_[0].num_members == 0) {
    Clear();
    return false;
  }
  return true;
}

bool RecordShape::MergeFrom(const RecordShape& old, simdjson::dom::object object) {
  Clear();
  if (old.Empty() || old.merges_ >= kMaxMerges || !MergeObject(old, 0, object, {}, false, 0)) {
    Clear();
    return false;
  }
  merges_ = old.merges_ + 1;
  return true;
}

void RecordShape::CopySubtree(const RecordShape& old, size_t node, bool optional) {
  const size_t first = nodes_.size();
  for (size_t n = node; n < old.Next(node); ++n) {
    const Node& from = old.nodes_[n];
    Node& to = nodes_[AddNode(from.kind, old.Key(n), from.optional)];
    to.placeholder = from.placeholder;
    to.num_members = from.num_members;
    to.subtree_size = from.subtree_size;
  }
  nodes_[first].optional = optional;
}

bool RecordShape::MergeObject(const RecordShape& old, size_t node, simdjson::dom::object object,
                              std::string_view key, bool optional, int depth) {
  if (nodes_.size() >= kMaxNodes || depth > kMaxDepth) {
    return false;
  }
  std::vector<size_t> old_members;
  for (size_t m = node + 1; m < old.Next(node); m = old.Next(m)) {
    old_members.push_back(m);
  }
  std::vector<std::pair<std::string_view, simdjson::dom::element>> members;
  for (auto it = object.begin(), end = object.end(); it != end; ++it) {
    const std::string_view member = it.key();
    if (member.empty() || !IsPlainKey(member) ||
        std::any_of(members.begin(), members.end(),
                    [member](const auto& seen) { return seen.first == member; })) {
      return false;
    }
    members.emplace_back(member, it.value());
  }
  const auto in_old = [&](std::string_view name) {
    return std::any_of(old_members.begin(), old_members.end(),
                       [&](size_t m) { return old.Key(m) == name; });
  };
  const auto in_new = [&](std::string_view name) {
    return std::any_of(members.begin(), members.end(),
                       [name](const auto& member) { return member.first == name; });
  };
  const size_t merged = AddNode(NodeKind::kObject, key, optional);
  uint32_t count = 0;
  size_t i = 0;
  size_t j = 0;
  // Both key orders must be kept: the keys of both, each once, in an order where each record's
  // keys come in its own order. A key of one only is optional.
  while (i < old_members.size() || j < members.size()) {
    if (i < old_members.size() && j < members.size() &&
        old.Key(old_members[i]) == members[j].first) {
      if (!MergeValue(old, old_members[i], members[j].second, members[j].first,
                      old.nodes_[old_members[i]].optional, depth + 1)) {
        return false;
      }
      ++i;
      ++j;
    } else if (j < members.size() && !in_old(members[j].first)) {
      const size_t added = nodes_.size();
      if (!LearnValue(members[j].second, members[j].first, depth + 1)) {
        return false;
      }
      nodes_[added].optional = true;
      ++j;
    } else if (i < old_members.size() && !in_new(old.Key(old_members[i]))) {
      CopySubtree(old, old_members[i], /*optional=*/true);
      ++i;
    } else {
      return false;  // the two orders disagree
    }
    ++count;
    if (nodes_.size() > kMaxNodes) {
      return false;
    }
  }
  nodes_[merged].num_members = count;
  nodes_[merged].subtree_size = static_cast<uint32_t>(nodes_.size() - merged);
  return true;
}

bool RecordShape::MergeValue(const RecordShape& old, size_t node, simdjson::dom::element value,
                             std::string_view key, bool optional, int depth) {
  const Node& from = old.nodes_[node];
  const simdjson::dom::element_type type = value.type();
  if (type == simdjson::dom::element_type::NULL_VALUE) {
    CopySubtree(old, node, optional);
    return true;
  }
  if (from.placeholder) {
    const size_t added = nodes_.size();
    if (!LearnValue(value, key, depth)) {
      return false;
    }
    nodes_[added].optional = optional;
    return true;
  }
  switch (from.kind) {
    case NodeKind::kScalar:
      if (type == simdjson::dom::element_type::OBJECT ||
          type == simdjson::dom::element_type::ARRAY) {
        return false;
      }
      AddNode(NodeKind::kScalar, key, optional);
      return true;
    case NodeKind::kObject:
      return type == simdjson::dom::element_type::OBJECT &&
             MergeObject(old, node, value.get_object().value_unsafe(), key, optional, depth);
    case NodeKind::kArray: {
      if (type != simdjson::dom::element_type::ARRAY || depth > kMaxDepth) {
        return false;
      }
      const size_t merged = AddNode(NodeKind::kArray, key, optional);
      // The old element merged with the first non-null element; every element must then
      // conform to the merged one.
      const simdjson::dom::array array = value.get_array().value_unsafe();
      bool found = false;
      for (simdjson::dom::element item : array) {
        if (item.type() != simdjson::dom::element_type::NULL_VALUE) {
          if (!MergeValue(old, node + 1, item, {}, false, depth + 1)) {
            return false;
          }
          found = true;
          break;
        }
      }
      if (!found) {
        CopySubtree(old, node + 1, false);
      }
      for (simdjson::dom::element item : array) {
        if (!Conforms(item, merged + 1)) {
          return false;
        }
      }
      nodes_[merged].subtree_size = static_cast<uint32_t>(nodes_.size() - merged);
      return true;
    }
  }
  return false;
}

bool RecordShape::MatchNode(Cursor& in, size_t node, bool parse_doubles,
                            std::vector<ShapeValue>* values) const {
  if (in.p < in.end && *in.p == 'n') {
    values->emplace_back().kind = ShapeValueKind::kNull;
    return in.TakeBytes("null");
  }
  switch (nodes_[node].kind) {
    case NodeKind::kScalar:
      return MatchScalar(in, parse_doubles, &values->emplace_back());
    case NodeKind::kObject: {
      if (!in.Take('{')) {
        return false;
      }
      values->emplace_back().kind = ShapeValueKind::kObject;
      size_t member = node + 1;
      bool any = false;  // whether a member was read: the next one follows a comma
      for (uint32_t m = 0; m < nodes_[node].num_members; ++m, member = Next(member)) {
        in.SkipSpace();
        const char* const before = in.p;
        const Node& key = nodes_[member];
        const bool present =
            (!any || (in.Take(',') && (in.SkipSpace(), true))) &&
            in.TakeBytes(std::string_view(keys_).substr(key.key_offset, key.key_size));
        if (!present) {
          if (!key.optional) {
            return false;
          }
          in.p = before;
          values->emplace_back().kind = ShapeValueKind::kAbsent;
          continue;
        }
        any = true;
        in.SkipSpace();
        if (!in.Take(':')) {
          return false;
        }
        in.SkipSpace();
        if (!MatchNode(in, member, parse_doubles, values)) {
          return false;
        }
      }
      in.SkipSpace();
      return in.Take('}');
    }
    case NodeKind::kArray: {
      if (!in.Take('[')) {
        return false;
      }
      const size_t array = values->size();
      values->emplace_back().kind = ShapeValueKind::kArray;
      in.SkipSpace();
      uint32_t count = 0;
      if (!in.Take(']')) {
        while (true) {
          if (!MatchNode(in, node + 1, parse_doubles, values)) {
            return false;
          }
          ++count;
          in.SkipSpace();
          if (in.Take(']')) {
            break;
          }
          if (!in.Take(',')) {
            return false;
          }
          in.SkipSpace();
        }
      }
      (*values)[array].count = count;
      return true;
    }
  }
  return false;
}

bool RecordShape::Match(std::string_view line, bool parse_doubles,
                        std::vector<ShapeValue>* values) const {
  values->clear();
  Cursor in{line.data(), line.data() + line.size()};
  in.SkipSpace();
  if (in.p >= in.end || *in.p != '{' || !MatchNode(in, 0, parse_doubles, values)) {
    return false;
  }
  in.SkipSpace();
  return in.p == in.end;
}

int RecordShapeCache::Match(std::string_view line, bool parse_doubles,
                            std::vector<ShapeValue>* values) {
  if (last_ >= 0 && shapes_[static_cast<size_t>(last_)].Match(line, parse_doubles, values)) {
    last_used_[static_cast<size_t>(last_)] = ++clock_;
    return last_;
  }
  for (int i = 0; i < kCapacity; ++i) {
    const RecordShape& shape = shapes_[static_cast<size_t>(i)];
    if (i != last_ && !shape.Empty() && shape.Match(line, parse_doubles, values)) {
      last_ = i;
      last_used_[static_cast<size_t>(i)] = ++clock_;
      return i;
    }
  }
  return -1;
}

int RecordShapeCache::MergeIntoLast(simdjson::dom::object object) {
  merged_ = -1;
  if (last_ < 0 || !spare_.MergeFrom(shapes_[static_cast<size_t>(last_)], object)) {
    return -1;
  }
  std::swap(spare_, shapes_[static_cast<size_t>(last_)]);
  last_used_[static_cast<size_t>(last_)] = ++clock_;
  merged_ = last_;
  return last_;
}

void RecordShapeCache::UndoMerge() {
  if (merged_ >= 0) {
    std::swap(spare_, shapes_[static_cast<size_t>(merged_)]);
    merged_ = -1;
  }
}

int RecordShapeCache::Learn(simdjson::dom::object object) {
  merged_ = -1;
  int victim = 0;
  for (int i = 1; i < kCapacity; ++i) {
    if (last_used_[static_cast<size_t>(i)] < last_used_[static_cast<size_t>(victim)]) {
      victim = i;
    }
  }
  // Learned aside, so a record that is not a shape leaves the victim in place.
  if (!spare_.Learn(object)) {
    return -1;
  }
  std::swap(spare_, shapes_[static_cast<size_t>(victim)]);
  last_ = victim;
  last_used_[static_cast<size_t>(victim)] = ++clock_;
  return victim;
}

}  // namespace tributary::json

// The writer's dictionary encoder (Encodings.md, "Dictionary Encoding"): the distinct values of
// a column chunk, the index of each value, and the PLAIN dictionary page body.

#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "columnar/data_type.h"
#include "formats/parquet/byte_compare.h"
#include "formats/parquet/plain_encoding.h"

namespace tributary::parquet {
namespace dictionary_internal {

using columnar::Int128;

// Dictionary hash key and equality: floats by bit pattern, so -0.0 and +0.0 (and NaN payloads)
// stay distinct values.
template <typename T>
auto KeyOf(const T& v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<uint64_t>(v);
  } else {
    return v;
  }
}

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// A hash of short strings (dictionary values are mostly a few dozen bytes): whole 8-byte words
// folded with one multiply each, the tail as one overlapping or composed load, one final Mix.
inline uint64_t HashBytes(std::string_view v) {
  constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;
  const char* p = v.data();
  const size_t n = v.size();
  uint64_t h = n * kMultiplier;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      h = std::rotl((h ^ Load64(p + i)) * kMultiplier, 29);
    }
    // The last (possibly overlapping) word covers the rest.
    return Mix(h ^ Load64(p + n - 8));
  }
  uint64_t tail = 0;
  if (n >= 4) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    tail = uint64_t{lo} | uint64_t{hi} << 32;
  } else if (n > 0) {
    tail = uint64_t{static_cast<uint8_t>(p[0])} | uint64_t{static_cast<uint8_t>(p[n / 2])} << 8 |
           uint64_t{static_cast<uint8_t>(p[n - 1])} << 16;
  }
  return Mix(h ^ tail);
}

template <typename T>
uint64_t HashOf(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return HashBytes(v);
  } else if constexpr (std::is_same_v<T, Int128>) {
    const auto u = static_cast<unsigned __int128>(v);
    return Mix(static_cast<uint64_t>(u) ^ Mix(static_cast<uint64_t>(u >> 64)));
  } else {
    return Mix(static_cast<uint64_t>(KeyOf(v)));
  }
}

}  // namespace dictionary_internal

/// The dictionary of one column chunk: an open-addressing table of indexes into the distinct
/// values, which are also kept PLAIN-encoded as the dictionary page body. T is the writer's
/// physical value type (plain_encoding.h, AppendPlain); BOOLEAN columns are never
/// dictionary-encoded.
template <typename T>
class DictionaryEncoder {
 public:
  explicit DictionaryEncoder(int32_t type_length) : type_length_(type_length) { Clear(); }

  void Clear() {
    values_.clear();
    offsets_.clear();
    plain_.clear();
    slots_.assign(1024, -1);
    mask_ = slots_.size() - 1;
  }

  int32_t Size() const { return static_cast<int32_t>(values_.size()); }
  int64_t PlainBytes() const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return static_cast<int64_t>(plain_.size());
    } else if constexpr (std::is_same_v<T, columnar::Int128>) {
      return static_cast<int64_t>(values_.size()) * type_length_;
    } else {
      return static_cast<int64_t>(values_.size() * sizeof(T));
    }
  }

  // Appends the dictionary index of each of `values` to `indexes`, adding new values.
  void Encode(std::span<const T> values, std::vector<int32_t>* indexes) {
    const size_t base = indexes->size();
    indexes->resize(base + values.size());
    int32_t* out = indexes->data() + base;
    for (size_t i = 0; i < values.size(); ++i) {
      out[i] = IndexOf(values[i]);
    }
  }

  // The values entered since the dictionary held `from` values, in the order they came.
  void ValuesSince(int32_t from, std::vector<T>* out) const {
    out->clear();
    for (auto i = static_cast<size_t>(from); i < values_.size(); ++i) {
      if constexpr (std::is_same_v<T, std::string_view>) {
        out->push_back(Stored(i));
      } else {
        out->push_back(values_[i]);
      }
    }
  }

  // Appends the values at `indexes` PLAIN-encoded to `out`: a page's values when the chunk
  // abandons the dictionary before writing its first dictionary-encoded page.
  void AppendPlainOf(std::span<const int32_t> indexes, std::string* out) const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      // Each plain_ entry already is uint32le(length) bytes.
      for (const int32_t i : indexes) {
        const auto& [offset, length] = offsets_[static_cast<size_t>(i)];
        out->append(plain_, static_cast<size_t>(offset - 4), static_cast<size_t>(length + 4));
      }
    } else {
      std::vector<T> values(indexes.size());
      for (size_t k = 0; k < indexes.size(); ++k) {
        values[k] = values_[static_cast<size_t>(indexes[k])];
      }
      AppendPlain<T>(std::span<const T>(values), type_length_, out);
    }
  }

  // The PLAIN dictionary page body.
  std::string PlainPage() const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return plain_;
    } else {
      std::string out;
      AppendPlain<T>(std::span<const T>(values_), type_length_, &out);
      return out;
    }
  }

 private:
  // For BYTE_ARRAY, values_ entries are views into plain_, rebuilt after it reallocates.
  std::string_view Stored(size_t i) const {
    return std::string_view(plain_.data() + offsets_[i].first,
                            static_cast<size_t>(offsets_[i].second));
  }

  bool Equal(size_t i, const T& v) const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return BytesEqual(Stored(i), v);
    } else {
      return dictionary_internal::KeyOf(values_[i]) == dictionary_internal::KeyOf(v);
    }
  }

  int32_t IndexOf(const T& v) {
    size_t slot = dictionary_internal::HashOf(v) & mask_;
    while (true) {
      const int32_t at = slots_[slot];
      if (at < 0) {
        break;
      }
      if (Equal(static_cast<size_t>(at), v)) {
        return at;
      }
      slot = (slot + 1) & mask_;
    }
    const auto index = static_cast<int32_t>(values_.size());
    slots_[slot] = index;
    if constexpr (std::is_same_v<T, std::string_view>) {
      const uint32_t len = static_cast<uint32_t>(v.size());
      char prefix[4];
      std::memcpy(prefix, &len, 4);
      plain_.append(prefix, 4);
      offsets_.emplace_back(static_cast<int64_t>(plain_.size()), static_cast<int64_t>(v.size()));
      plain_.append(v);
      values_.push_back({});
    } else {
      values_.push_back(v);
    }
    if (values_.size() * 2 > slots_.size()) {
      Rehash();
    }
    return index;
  }

  void Rehash() {
    slots_.assign(slots_.size() * 2, -1);
    mask_ = slots_.size() - 1;
    for (size_t i = 0; i < values_.size(); ++i) {
      uint64_t h = 0;
      if constexpr (std::is_same_v<T, std::string_view>) {
        h = dictionary_internal::HashOf(Stored(i));
      } else {
        h = dictionary_internal::HashOf(values_[i]);
      }
      size_t slot = h & mask_;
      while (slots_[slot] >= 0) {
        slot = (slot + 1) & mask_;
      }
      slots_[slot] = static_cast<int32_t>(i);
    }
  }

  int32_t type_length_;
  std::vector<T> values_;
  std::vector<std::pair<int64_t, int64_t>> offsets_;
  std::string plain_;
  std::vector<int32_t> slots_;
  size_t mask_ = 0;
};

}  // namespace tributary::parquet

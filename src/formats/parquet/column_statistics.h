// Column chunk statistics of the writer: the minimum and maximum value in each type's TYPE_ORDER,
// as the footer's Statistics (with its signed-zero rule for floats) and as the exact bounds
// ParquetWriter::FileStatistics reports.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "columnar/data_type.h"
#include "formats/parquet/byte_compare.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/plain_encoding.h"
#include "formats/parquet/writer.h"

namespace tributary::parquet {

/// Encodes a statistics bound in the column's physical PLAIN form (BOOLEAN as one byte).
template <typename T>
std::string EncodeBound(const T& v, int32_t type_length) {
  std::string out;
  if constexpr (std::is_same_v<T, std::string_view>) {
    out.assign(v);
  } else if constexpr (std::is_same_v<T, columnar::Int128>) {
    AppendBigEndian(v, type_length, &out);
  } else {
    out.assign(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  return out;
}

/// Running minimum and maximum of a column chunk's values in their TYPE_ORDER (parquet.thrift
/// ColumnOrder): signed for integers and decimals, unsigned bytewise for BYTE_ARRAY, false <
/// true for BOOLEAN; floats ignore NaN. T is the writer's physical value type
/// (plain_encoding.h, AppendPlain). Null counts come from the levels (writer.cc).
template <typename T>
class ValueBounds {
 public:
  // Always inlined into the chunk writer's loop, as it was when it lived in writer.cc: compiled
  // apart it costs string columns a few percent more instructions per value.
  [[gnu::always_inline]] void Update(std::span<const T> values) {
    if (values.empty()) {
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      T lo = std::numeric_limits<T>::infinity();
      T hi = -std::numeric_limits<T>::infinity();
      bool any = false;
      for (T v : values) {
        if (!std::isnan(v)) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          any = true;
        }
      }
      if (any) {
        Merge(lo, hi);
      }
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      std::string_view lo = values[0];
      std::string_view hi = values[0];
      // lo <= hi throughout, so a value above hi cannot be below lo: one comparison for values
      // that raise the maximum (ascending data such as timestamps).
      for (std::string_view v : values) {
        if (BytesLess(hi, v)) {
          hi = v;
        } else if (BytesLess(v, lo)) {
          lo = v;
        }
      }
      if (!has_ || std::string_view(min_bytes_) > lo) {
        min_bytes_.assign(lo);
      }
      if (!has_ || std::string_view(max_bytes_) < hi) {
        max_bytes_.assign(hi);
      }
      has_ = true;
    } else {
      T lo = values[0];
      T hi = values[0];
      for (const T& v : values) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      Merge(lo, hi);
    }
  }

  void Clear() {
    has_ = false;
    min_bytes_.clear();
    max_bytes_.clear();
  }

  void MergeFrom(const ValueBounds& other) {
    if (!other.has_) {
      return;
    }
    if constexpr (std::is_same_v<T, std::string_view>) {
      if (!has_ || other.min_bytes_ < min_bytes_) {
        min_bytes_ = other.min_bytes_;
      }
      if (!has_ || other.max_bytes_ > max_bytes_) {
        max_bytes_ = other.max_bytes_;
      }
      has_ = true;
    } else {
      Merge(other.min_, other.max_);
    }
  }

  // The bounds as they are, without Fill's signed-zero rule.
  void FillExact(int32_t type_length, LeafStatistics* out) const {
    if (!has_) {
      return;
    }
    if constexpr (std::is_same_v<T, std::string_view>) {
      out->min = min_bytes_;
      out->max = max_bytes_;
    } else {
      out->min = EncodeBound(min_, type_length);
      out->max = EncodeBound(max_, type_length);
    }
  }

  // Sets statistics.min_value/max_value when any value (other than NaN) was seen.
  void Fill(int32_t type_length, Statistics* stats) const {
    if (!has_) {
      return;
    }
    if constexpr (std::is_same_v<T, std::string_view>) {
      stats->min_value = min_bytes_;
      stats->max_value = max_bytes_;
    } else if constexpr (std::is_floating_point_v<T>) {
      const T lo = min_ == 0 ? -T{0} : min_;
      const T hi = max_ == 0 ? T{0} : max_;
      stats->min_value = EncodeBound(lo, type_length);
      stats->max_value = EncodeBound(hi, type_length);
    } else {
      stats->min_value = EncodeBound(min_, type_length);
      stats->max_value = EncodeBound(max_, type_length);
    }
    stats->is_min_value_exact = true;
    stats->is_max_value_exact = true;
  }

 private:
  void Merge(T lo, T hi) {
    if (!has_) {
      min_ = lo;
      max_ = hi;
      has_ = true;
      return;
    }
    min_ = lo < min_ ? lo : min_;
    max_ = hi > max_ ? hi : max_;
  }

  bool has_ = false;
  T min_{};
  T max_{};
  std::string min_bytes_;
  std::string max_bytes_;
};

}  // namespace tributary::parquet

// The accumulators of exec/aggregate/, one factory per family (each defined in the family's
// file), and the typed loops and value stores they share. Internal to exec/aggregate/.

#pragma once

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "columnar/decimal.h"
#include "exec/aggregate/aggregate_function.h"
#include "exec/row_key.h"

namespace tributary::exec::aggregate {

using columnar::Buffer;
using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;
using expr::AggregateKind;

/// count(...) (rows where every argument is non-null; all rows for count(*)) and count_if.
std::unique_ptr<Accumulator> MakeCountAccumulator(AggregateKind kind, MemoryPool* pool);
/// sum and avg of an `input`-typed argument: bigint sums for integers, double for floating
/// point (and every avg but decimal's), 128-bit sums for decimals.
/// `try_mode`: try_sum/try_avg, a null result for a group whose sum overflows instead of the
/// error.
std::unique_ptr<Accumulator> MakeSumAccumulator(const DataType& input, bool average, bool try_mode,
                                                MemoryPool* pool);
/// min or max of `type`: a typed loop for fixed-width types, ordering keys for the others.
std::unique_ptr<Accumulator> MakeMinMaxAccumulator(const DataTypePtr& type, bool max,
                                                   MemoryPool* pool);
/// first/last (kind kFirst or kLast) of any type; min/max (kMin, kMax) of types without a
/// fixed width, by their ordering keys. `type` is the argument's.
std::unique_ptr<Accumulator> MakeSelectValueAccumulator(AggregateKind kind, bool ignore_nulls,
                                                        DataTypePtr type, MemoryPool* pool);
/// collect_list, or collect_set when `set`, of `element` values.
std::unique_ptr<Accumulator> MakeCollectAccumulator(bool set, DataTypePtr element,
                                                    MemoryPool* pool);
/// approx_count_distinct with relative standard deviation `relative_sd`; InvalidArgument
/// outside what HyperLogLog++ can address.
Result<std::unique_ptr<Accumulator>> MakeApproxCountDistinctAccumulator(double relative_sd,
                                                                        MemoryPool* pool);
/// stddev_samp, stddev_pop, var_samp, var_pop.
std::unique_ptr<Accumulator> MakeVarianceAccumulator(AggregateKind kind, MemoryPool* pool);
/// bool_and (`all`) or bool_or.
std::unique_ptr<Accumulator> MakeBooleanAccumulator(bool all, MemoryPool* pool);
/// max_by (`max`) or min_by: the value of the row with the greatest (least) ordering.
std::unique_ptr<Accumulator> MakeValueByOrderingAccumulator(bool max, DataTypePtr value_type,
                                                            DataTypePtr ordering_type,
                                                            MemoryPool* pool);
/// bit_and, bit_or or bit_xor (`kind`) of an integral `type`.
std::unique_ptr<Accumulator> MakeBitwiseAccumulator(AggregateKind kind, const DataType& type,
                                                    MemoryPool* pool);
/// corr, covar_pop, covar_samp, regr_sxx, regr_syy, regr_sxy, regr_slope, regr_intercept,
/// regr_r2 of two numeric arguments.
std::unique_ptr<Accumulator> MakeCoMomentAccumulator(AggregateKind kind, MemoryPool* pool);
/// Feeds `inner` argument `value_index` alone, null on rows where any argument is null
/// (regr_avgx, regr_avgy).
std::unique_ptr<Accumulator> MakePairFilterAccumulator(std::unique_ptr<Accumulator> inner,
                                                       size_t value_index, MemoryPool* pool);
/// What median, percentile and percentile_approx compute.
struct PercentileOptions {
  /// The percentages, each within [0, 1].
  std::vector<double> percentages;
  /// Whether the result is an array (percentages given as an array).
  bool array = false;
  /// percentile_approx: the rank rule of Spark's summary, the value's own type.
  bool approximate = false;
  /// percentile_approx's accuracy (> 0).
  int64_t accuracy = 10000;
  /// percentile's third argument: each value counts that many times.
  bool frequency = false;
  /// percentile_disc: the first value whose cumulative distribution reaches the percentage,
  /// instead of interpolating.
  bool discrete = false;
  /// percentile_cont/percentile_disc WITHIN GROUP (ORDER BY ... DESC): values in descending
  /// order.
  bool reverse = false;
};
std::unique_ptr<Accumulator> MakePercentileAccumulator(PercentileOptions options, MemoryPool* pool);
/// mode: the most frequent non-null value; ties go to the least value (the greatest with
/// `greatest`).
std::unique_ptr<Accumulator> MakeModeAccumulator(DataTypePtr type, bool greatest, MemoryPool* pool);
/// histogram_numeric with at most `max_bins` bins (>= 2).
std::unique_ptr<Accumulator> MakeHistogramAccumulator(int64_t max_bins, MemoryPool* pool);
/// skewness or kurtosis (`kind`).
std::unique_ptr<Accumulator> MakeCentralMomentAccumulator(AggregateKind kind, MemoryPool* pool);
/// Passes only the first occurrence of each (group, arguments) to `inner`: DISTINCT.
std::unique_ptr<Accumulator> MakeDistinctAccumulator(std::unique_ptr<Accumulator> inner,
                                                     MemoryPool* pool);

// Appends the bytes of `value` (native byte order) to serialized state.
template <typename T>
inline void AppendRaw(std::string* out, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Reads serialized accumulator state front to back, every read bounds-checked: Corruption
// naming `what` when the bytes run out or (Finish) some are left over.
class StateReader {
 public:
  StateReader(std::string_view bytes, std::string_view what) : rest_(bytes), what_(what) {}
  template <typename T>
  Status Read(T* value) {
    static_assert(std::is_trivially_copyable_v<T>);
    TRIBUTARY_RETURN_NOT_OK(Need(sizeof(T)));
    std::memcpy(value, rest_.data(), sizeof(T));
    rest_.remove_prefix(sizeof(T));
    return Status::OK();
  }
  Status ReadBytes(size_t size, std::string_view* bytes) {
    TRIBUTARY_RETURN_NOT_OK(Need(size));
    *bytes = rest_.substr(0, size);
    rest_.remove_prefix(size);
    return Status::OK();
  }
  // u32 length + that many bytes.
  Status ReadLengthPrefixed(std::string_view* bytes) {
    uint32_t size = 0;
    TRIBUTARY_RETURN_NOT_OK(Read(&size));
    return ReadBytes(size, bytes);
  }
  // One grouping-encoded value of `type`.
  Status ReadGroupingValue(const DataType& type, std::string_view* bytes);
  Status Finish() const;
  std::string_view Rest() const { return rest_; }

 private:
  Status Need(size_t size) const;

  std::string_view rest_;
  std::string_view what_;
};

// Appends u32 length + bytes.
inline void AppendLengthPrefixed(std::string* out, std::string_view bytes) {
  AppendRaw(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes);
}

// Calls f(row, value) for every valid row of a numeric column, converted to double; one typed
// loop per column type.
template <typename T, typename F>
inline void VisitValidAs(const Column& column, int64_t rows, F&& f) {
  if (column.Type()->Id() == TypeId::kNull) {
    return;
  }
  const T* values = column.Values<T>();
  const uint8_t* validity = column.ValidityBits();
  for (int64_t i = 0; i < rows; ++i) {
    if (validity == nullptr || columnar::GetBit(validity, i)) {
      f(i, values[i]);
    }
  }
}

// Integers and floating point in their own C++ type.
template <typename F>
inline void VisitValidNative(const Column& column, int64_t rows, F&& f) {
  switch (column.Type()->Id()) {
    case TypeId::kInt8:
      return VisitValidAs<int8_t>(column, rows, f);
    case TypeId::kInt16:
      return VisitValidAs<int16_t>(column, rows, f);
    case TypeId::kInt32:
      return VisitValidAs<int32_t>(column, rows, f);
    case TypeId::kInt64:
      return VisitValidAs<int64_t>(column, rows, f);
    case TypeId::kFloat32:
      return VisitValidAs<float>(column, rows, f);
    case TypeId::kFloat64:
      return VisitValidAs<double>(column, rows, f);
    default:
      return;
  }
}

// Every numeric type; decimals scaled to their double value.
template <typename F>
inline void VisitValidDoubles(const Column& column, int64_t rows, F&& f) {
  if (column.Type()->Id() == TypeId::kDecimal) {
    const double scale = std::pow(10.0, column.Type()->Scale());
    return VisitValidAs<Int128>(column, rows,
                                [&](int64_t i, Int128 v) { f(i, static_cast<double>(v) / scale); });
  }
  VisitValidNative(column, rows, f);
}

// A column of `type` from fixed-width values, valid where seen[g] != 0 (all valid when `seen`
// is null).
template <typename T>
Result<ColumnPtr> MakeFixedColumn(const DataTypePtr& type, const T* values, const uint8_t* seen,
                                  int64_t groups, MemoryPool* pool) {
  const int64_t width = type->ByteWidth();
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::AllocateUninitialized(groups * width, pool));
  uint8_t* data = out->mutable_data();
  if constexpr (sizeof(T) == 1) {
    // One-byte values (booleans, tinyint) only come from one-byte columns: their bytes as is.
    std::memcpy(data, values, static_cast<size_t>(groups));
  } else {
    for (int64_t g = 0; g < groups; ++g) {
      // Narrowing to the column's width (float32 min/max, int32 dates) is exact: the values
      // came from such a column.
      switch (width) {
        case 1: {
          const auto v = static_cast<uint8_t>(values[g]);
          std::memcpy(data + g, &v, 1);
          break;
        }
        case 2: {
          const auto v = static_cast<int16_t>(values[g]);
          std::memcpy(data + g * 2, &v, 2);
          break;
        }
        case 4: {
          if constexpr (std::is_floating_point_v<T>) {
            const auto v = static_cast<float>(values[g]);
            std::memcpy(data + g * 4, &v, 4);
          } else {
            const auto v = static_cast<int32_t>(values[g]);
            std::memcpy(data + g * 4, &v, 4);
          }
          break;
        }
        case 8: {
          if constexpr (std::is_floating_point_v<T>) {
            const auto v = static_cast<double>(values[g]);
            std::memcpy(data + g * 8, &v, 8);
          } else {
            const auto v = static_cast<int64_t>(values[g]);
            std::memcpy(data + g * 8, &v, 8);
          }
          break;
        }
        default: {
          const auto v = static_cast<Int128>(values[g]);
          std::memcpy(data + g * 16, &v, 16);
          break;
        }
      }
    }
  }
  columnar::BufferPtr validity;
  if (seen != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(groups), pool));
    for (int64_t g = 0; g < groups; ++g) {
      columnar::SetBitTo(bits->mutable_data(), g, seen[g] != 0);
    }
    validity = std::move(bits);
  }
  return Column::Make(type, groups, std::move(validity), std::move(out));
}

template <typename T>
inline bool OrderedLess(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // Spark orders NaN above every number (and equal to itself).
    if (std::isnan(b)) {
      return !std::isnan(a);
    }
    if (std::isnan(a)) {
      return false;
    }
  }
  return a < b;
}

// ids[i] = the id in `table` of row i's (group, arguments) pair, new pairs inserted with the
// next ids in row order; has_null[i] = 1 where an argument of row i is null.
Status FindOrInsertPairs(GroupTable& table, std::span<const ColumnPtr> args, int64_t rows,
                         const int32_t* groups, std::vector<int32_t>* ids,
                         std::vector<uint8_t>* has_null);

// Rows of `args` whose (group, arguments) pair is new to `seen` (with `skip_nulls`, only those
// whose arguments have no null).
Result<std::vector<int64_t>> FirstOccurrences(GroupTable& seen, std::span<const ColumnPtr> args,
                                              int64_t rows, const int32_t* groups, bool skip_nulls);

// Values of any type kept for groups, as rows of taken chunks: first/last, min/max of
// non-fixed-width types. Compacted when superseded rows pile up.
class ValueStore {
 public:
  explicit ValueStore(MemoryPool* pool) : pool_(pool), refs_(pool) {}

  Status Resize(int64_t groups) { return refs_.Resize(groups); }

  // Stores row pending[k].second of `column` for group pending[k].first; later entries for a
  // group win.
  Status Commit(const Column& column, const std::vector<std::pair<int32_t, int64_t>>& pending);

  // One row per group: its stored value, or null.
  Result<ColumnPtr> Gather(int64_t groups) const;

  bool Empty() const { return chunks_.empty(); }

 private:
  MemoryPool* pool_;
  PoolArray<int64_t> refs_;  // stored row + 1; 0: none
  std::vector<ColumnPtr> chunks_;
  int64_t stored_rows_ = 0;
};

}  // namespace tributary::exec::aggregate

#include "exec/hash_aggregate.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <functional>
#include <numeric>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/decimal.h"
#include "columnar/take.h"

namespace tributary::exec {

using columnar::Buffer;
using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;

namespace {

enum class AggregateKind {
  kCount,
  kCountIf,
  kSum,
  kAvg,
  kMin,
  kMax,
  kFirst,
  kLast,
  kCollectList,
  kCollectSet,
  kApproxCountDistinct,
  kStddevSamp,
  kStddevPop,
  kVarSamp,
  kVarPop,
  kBoolAnd,
  kBoolOr,
};

Result<AggregateKind> KindOf(std::string_view function) {
  std::string name(function);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<const char*, AggregateKind> kNames[] = {
      {"count", AggregateKind::kCount},
      {"count_if", AggregateKind::kCountIf},
      {"sum", AggregateKind::kSum},
      {"avg", AggregateKind::kAvg},
      {"mean", AggregateKind::kAvg},
      {"min", AggregateKind::kMin},
      {"max", AggregateKind::kMax},
      {"first", AggregateKind::kFirst},
      {"first_value", AggregateKind::kFirst},
      {"last", AggregateKind::kLast},
      {"last_value", AggregateKind::kLast},
      {"collect_list", AggregateKind::kCollectList},
      {"collect_set", AggregateKind::kCollectSet},
      {"approx_count_distinct", AggregateKind::kApproxCountDistinct},
      {"stddev", AggregateKind::kStddevSamp},
      {"std", AggregateKind::kStddevSamp},
      {"stddev_samp", AggregateKind::kStddevSamp},
      {"stddev_pop", AggregateKind::kStddevPop},
      {"variance", AggregateKind::kVarSamp},
      {"var_samp", AggregateKind::kVarSamp},
      {"var_pop", AggregateKind::kVarPop},
      {"bool_and", AggregateKind::kBoolAnd},
      {"every", AggregateKind::kBoolAnd},
      {"bool_or", AggregateKind::kBoolOr},
      {"some", AggregateKind::kBoolOr},
      {"any", AggregateKind::kBoolOr},
  };
  for (const auto& [candidate, kind] : kNames) {
    if (name == candidate) {
      return kind;
    }
  }
  return Status::InvalidArgument(fmt::format("unknown aggregate function {}", function));
}

bool IsOrderable(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kMap:
      return false;
    case TypeId::kArray:
      return IsOrderable(*type.ElementType());
    case TypeId::kStruct:
      for (const columnar::Field& field : type.Fields()) {
        if (!IsOrderable(*field.Type())) {
          return false;
        }
      }
      return true;
    default:
      return true;
  }
}

using GroupNamer = std::function<std::string(int32_t)>;

// Calls f(row, value) for every valid row of a numeric column, converted to double; one typed
// loop per column type.
template <typename T, typename F>
void VisitValidAs(const Column& column, int64_t rows, F&& f) {
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
void VisitValidNative(const Column& column, int64_t rows, F&& f) {
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
void VisitValidDoubles(const Column& column, int64_t rows, F&& f) {
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

// Keys (group id, grouping key of the arguments) for DISTINCT and collect_set: a row is the
// first of its (group, value) when its id in a GroupTable of these keys is new.
void PrefixWithGroups(const EncodedKeys& keys, const int32_t* groups, EncodedKeys* out) {
  const int64_t rows = keys.NumRows();
  out->offsets.resize(static_cast<size_t>(rows) + 1);
  out->bytes.resize(keys.bytes.size() + static_cast<size_t>(rows) * 4);
  out->hashes.resize(static_cast<size_t>(rows));
  out->has_null = keys.has_null;
  out->offsets[0] = 0;
  uint8_t* bytes = out->bytes.data();
  for (int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<size_t>(i);
    const int64_t begin = out->offsets[r];
    std::memcpy(bytes + begin, &groups[i], 4);
    std::string_view key = keys.Key(i);
    if (!key.empty()) {
      std::memcpy(bytes + begin + 4, key.data(), key.size());
    }
    out->offsets[r + 1] = begin + 4 + static_cast<int64_t>(key.size());
    out->hashes[r] = HashBytes(bytes + begin, 4 + key.size());
  }
}

// Rows of `keys` that are the first of their (group, key) pair in `seen`.
Result<std::vector<int64_t>> FirstOccurrences(GroupTable& seen, std::span<const ColumnPtr> args,
                                              int64_t rows, const int32_t* groups,
                                              bool skip_nulls) {
  EncodedKeys keys;
  EncodeGroupingKeys(args, rows, &keys);
  EncodedKeys prefixed;
  PrefixWithGroups(keys, groups, &prefixed);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  int64_t next_new = seen.NumGroups();
  TRIBUTARY_RETURN_NOT_OK(seen.FindOrInsert(prefixed, ids.data()));
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < rows; ++i) {
    if (ids[static_cast<size_t>(i)] == next_new) {
      ++next_new;
      if (!skip_nulls || keys.has_null[static_cast<size_t>(i)] == 0) {
        selected.push_back(i);
      }
    }
  }
  return selected;
}

// Values of any type kept for groups, as rows of taken chunks: first/last, min/max of
// non-fixed-width types. Compacted when superseded rows pile up.
class ValueStore {
 public:
  explicit ValueStore(MemoryPool* pool) : pool_(pool), refs_(pool) {}

  Status Resize(int64_t groups) { return refs_.Resize(groups); }

  // Stores row pending[k].second of `column` for group pending[k].first; later entries for a
  // group win.
  Status Commit(const Column& column, const std::vector<std::pair<int32_t, int64_t>>& pending) {
    if (pending.empty()) {
      return Status::OK();
    }
    std::vector<int64_t> rows;
    rows.reserve(pending.size());
    for (const auto& [group, row] : pending) {
      rows.push_back(row);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(column, rows, pool_));
    for (size_t k = 0; k < pending.size(); ++k) {
      refs_[pending[k].first] = stored_rows_ + static_cast<int64_t>(k) + 1;
    }
    stored_rows_ += chunk->Length();
    chunks_.push_back(std::move(chunk));
    if (stored_rows_ > 2 * refs_.size() + kTargetBatchRows) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr compact, Gather(refs_.size()));
      chunks_ = {compact};
      stored_rows_ = compact->Length();
      for (int64_t g = 0; g < refs_.size(); ++g) {
        refs_[g] = refs_[g] == 0 ? 0 : g + 1;
      }
    }
    return Status::OK();
  }

  // One row per group: its stored value, or null.
  Result<ColumnPtr> Gather(int64_t groups) const {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool_));
    std::vector<int64_t> indices(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      indices[static_cast<size_t>(g)] = refs_[g] - 1;
    }
    return TakeOrNull(*all, indices, pool_);
  }

  bool Empty() const { return chunks_.empty(); }

 private:
  MemoryPool* pool_;
  PoolArray<int64_t> refs_;  // stored row + 1; 0: none
  std::vector<ColumnPtr> chunks_;
  int64_t stored_rows_ = 0;
};

}  // namespace

class HashAggregateOperator::Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual Status Resize(int64_t groups) = 0;
  /// Folds `rows` rows of `args` into the groups `groups[i]`.
  virtual Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                        const GroupNamer& namer) = 0;
  /// One value per group, of `type`.
  virtual Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                                   MemoryPool* pool) = 0;
};

namespace {

using Accumulator = HashAggregateOperator::Accumulator;

class CountAccumulator final : public Accumulator {
 public:
  CountAccumulator(AggregateKind kind, MemoryPool* pool) : kind_(kind), counts_(pool) {}
  Status Resize(int64_t groups) override { return counts_.Resize(groups); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    int64_t* counts = counts_.data();
    if (kind_ == AggregateKind::kCountIf) {
      const Column& arg = *args[0];
      const uint8_t* values = arg.Values<uint8_t>();
      const uint8_t* validity = arg.ValidityBits();
      for (int64_t i = 0; i < rows; ++i) {
        const bool valid = validity == nullptr || columnar::GetBit(validity, i);
        counts[groups[i]] += (valid && values[i] != 0) ? 1 : 0;
      }
      return Status::OK();
    }
    bool any_nulls = false;
    for (const ColumnPtr& arg : args) {
      any_nulls = any_nulls || arg->NullCount() > 0;
    }
    if (!any_nulls) {
      for (int64_t i = 0; i < rows; ++i) {
        ++counts[groups[i]];
      }
      return Status::OK();
    }
    for (int64_t i = 0; i < rows; ++i) {
      bool valid = true;
      for (const ColumnPtr& arg : args) {
        valid = valid && arg->IsValid(i);
      }
      counts[groups[i]] += valid ? 1 : 0;
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<int64_t>(type, counts_.data(), nullptr, groups, pool);
  }

 private:
  AggregateKind kind_;
  PoolArray<int64_t> counts_;
};

class SumIntegerAccumulator final : public Accumulator {
 public:
  explicit SumIntegerAccumulator(MemoryPool* pool) : sums_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    int64_t* sums = sums_.data();
    uint8_t* seen = seen_.data();
    int64_t overflow_row = -1;
    VisitValidNative(*args[0], rows, [&](int64_t i, auto v) {
      const int32_t g = groups[i];
      seen[g] = 1;
      if (__builtin_add_overflow(sums[g], static_cast<int64_t>(v), &sums[g]) && overflow_row < 0) {
        overflow_row = i;
      }
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(
          fmt::format("[ARITHMETIC_OVERFLOW] sum overflows bigint in group {} (input row {} of "
                      "the batch)",
                      namer(groups[overflow_row]), overflow_row));
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<int64_t>(type, sums_.data(), seen_.data(), groups, pool);
  }

 private:
  PoolArray<int64_t> sums_;
  PoolArray<uint8_t> seen_;
};

// sum and avg of integers and floating point: Spark adds them as double.
class SumDoubleAccumulator final : public Accumulator {
 public:
  SumDoubleAccumulator(bool average, MemoryPool* pool)
      : average_(average), sums_(pool), counts_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return counts_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    double* sums = sums_.data();
    int64_t* counts = counts_.data();
    VisitValidDoubles(*args[0], rows, [&](int64_t i, auto v) {
      sums[groups[i]] += static_cast<double>(v);
      ++counts[groups[i]];
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<double> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = counts_[g];
      seen[static_cast<size_t>(g)] = n > 0 ? 1 : 0;
      values[static_cast<size_t>(g)] =
          average_ && n > 0 ? sums_[g] / static_cast<double>(n) : sums_[g];
    }
    return MakeFixedColumn<double>(type, values.data(), seen.data(), groups, pool);
  }

 private:
  bool average_;
  PoolArray<double> sums_;
  PoolArray<int64_t> counts_;
};

class SumDecimalAccumulator final : public Accumulator {
 public:
  SumDecimalAccumulator(bool average, int input_scale, MemoryPool* pool)
      : average_(average), input_scale_(input_scale), sums_(pool), counts_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(sums_.Resize(groups));
    return counts_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    Int128* sums = sums_.data();
    int64_t* counts = counts_.data();
    int64_t overflow_row = -1;
    VisitValidAs<Int128>(*args[0], rows, [&](int64_t i, Int128 v) {
      const int32_t g = groups[i];
      ++counts[g];
      if (__builtin_add_overflow(sums[g], v, &sums[g]) && overflow_row < 0) {
        overflow_row = i;
      }
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[ARITHMETIC_OVERFLOW] decimal sum overflows in group {}", namer(groups[overflow_row])));
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                           MemoryPool* pool) override {
    std::vector<Int128> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    const Int128 factor = columnar::PowerOfTen(type->Scale() - input_scale_);
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = counts_[g];
      if (n == 0) {
        continue;
      }
      seen[static_cast<size_t>(g)] = 1;
      Int128 value = sums_[g];
      if (average_) {
        Int128 scaled;
        if (__builtin_mul_overflow(value, factor, &scaled)) {
          return Status::InvalidArgument(
              fmt::format("[ARITHMETIC_OVERFLOW] avg overflows {} in group {}", type->ToString(),
                          namer(static_cast<int32_t>(g))));
        }
        // HALF_UP: round the quotient away from zero when the remainder is at least half.
        Int128 quotient = scaled / n;
        const Int128 remainder = scaled % n;
        const Int128 twice = remainder < 0 ? -2 * remainder : 2 * remainder;
        if (twice >= n) {
          quotient += scaled < 0 ? -1 : 1;
        }
        value = quotient;
      }
      if (!columnar::FitsPrecision(value, type->Precision())) {
        return Status::InvalidArgument(fmt::format(
            "[ARITHMETIC_OVERFLOW] {} result does not fit {} in group {}", average_ ? "avg" : "sum",
            type->ToString(), namer(static_cast<int32_t>(g))));
      }
      values[static_cast<size_t>(g)] = value;
    }
    return MakeFixedColumn<Int128>(type, values.data(), seen.data(), groups, pool);
  }

 private:
  bool average_;
  int input_scale_;
  PoolArray<Int128> sums_;
  PoolArray<int64_t> counts_;
};

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

// min/max of fixed-width types, one typed loop per batch.
template <typename T>
class MinMaxAccumulator final : public Accumulator {
 public:
  MinMaxAccumulator(bool max, MemoryPool* pool) : max_(max), best_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(best_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    T* best = best_.data();
    uint8_t* seen = seen_.data();
    VisitValidAs<T>(*args[0], rows, [&](int64_t i, T v) {
      const int32_t g = groups[i];
      if (seen[g] == 0 || (max_ ? OrderedLess(best[g], v) : OrderedLess(v, best[g]))) {
        best[g] = v;
        seen[g] = 1;
      }
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<T>(type, best_.data(), seen_.data(), groups, pool);
  }

 private:
  bool max_;
  PoolArray<T> best_;
  PoolArray<uint8_t> seen_;
};

// first/last of any type, min/max of strings, binary and nested types.
class SelectValueAccumulator final : public Accumulator {
 public:
  SelectValueAccumulator(AggregateKind kind, bool ignore_nulls, MemoryPool* pool)
      : kind_(kind), ignore_nulls_(ignore_nulls), seen_(pool), store_(pool) {}
  Status Resize(int64_t groups) override {
    if (kind_ == AggregateKind::kMin || kind_ == AggregateKind::kMax) {
      best_keys_.resize(static_cast<size_t>(groups));
    }
    TRIBUTARY_RETURN_NOT_OK(seen_.Resize(groups));
    return store_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    const Column& arg = *args[0];
    uint8_t* seen = seen_.data();
    pending_.clear();
    switch (kind_) {
      case AggregateKind::kFirst:
        for (int64_t i = 0; i < rows; ++i) {
          const int32_t g = groups[i];
          if (seen[g] == 0 && (!ignore_nulls_ || arg.IsValid(i))) {
            seen[g] = 1;
            pending_.emplace_back(g, i);
          }
        }
        break;
      case AggregateKind::kLast:
        for (int64_t i = 0; i < rows; ++i) {
          if (!ignore_nulls_ || arg.IsValid(i)) {
            seen[groups[i]] = 1;
            pending_.emplace_back(groups[i], i);
          }
        }
        break;
      default: {
        const bool max = kind_ == AggregateKind::kMax;
        const ColumnPtr columns[] = {args[0]};
        const OrderingDirection ascending[] = {{}};
        EncodeOrderingKeys(columns, ascending, rows, &keys_);
        for (int64_t i = 0; i < rows; ++i) {
          if (!arg.IsValid(i)) {
            continue;
          }
          const int32_t g = groups[i];
          std::string_view key = keys_.Key(i);
          std::string& best = best_keys_[static_cast<size_t>(g)];
          if (seen[g] == 0 || (max ? key > best : key < best)) {
            seen[g] = 1;
            best.assign(key);
            pending_.emplace_back(g, i);
          }
        }
        break;
      }
    }
    return store_.Commit(arg, pending_);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    if (store_.Empty()) {
      return Column::MakeAllNull(type, groups, pool);
    }
    return store_.Gather(groups);
  }

 private:
  AggregateKind kind_;
  bool ignore_nulls_;
  PoolArray<uint8_t> seen_;
  ValueStore store_;
  std::vector<std::string> best_keys_;
  std::vector<std::pair<int32_t, int64_t>> pending_;
  EncodedKeys keys_;
};

class CollectAccumulator final : public Accumulator {
 public:
  CollectAccumulator(bool set, MemoryPool* pool)
      : set_(set), pool_(pool), heads_(pool), tails_(pool), next_(pool), seen_values_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(heads_.Resize(groups));
    return tails_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    const Column& arg = *args[0];
    std::vector<int64_t> selected;
    if (set_) {
      TRIBUTARY_ASSIGN_OR_RAISE(selected, FirstOccurrences(seen_values_, args, rows, groups, true));
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        if (arg.IsValid(i)) {
          selected.push_back(i);
        }
      }
    }
    if (selected.empty()) {
      return Status::OK();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(arg, selected, pool_));
    TRIBUTARY_RETURN_NOT_OK(next_.Resize(stored_ + chunk->Length()));
    for (size_t k = 0; k < selected.size(); ++k) {
      const int32_t g = groups[selected[k]];
      const int64_t position = stored_ + static_cast<int64_t>(k) + 1;
      if (tails_[g] == 0) {
        heads_[g] = position;
      } else {
        next_[tails_[g] - 1] = position;
      }
      tails_[g] = position;
    }
    stored_ += chunk->Length();
    chunks_.push_back(std::move(chunk));
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((groups + 1) * 8, pool));
    int64_t* out_offsets = offsets->MutableDataAs<int64_t>();
    std::vector<int64_t> order;
    order.reserve(static_cast<size_t>(stored_));
    for (int64_t g = 0; g < groups; ++g) {
      out_offsets[g] = static_cast<int64_t>(order.size());
      for (int64_t p = heads_[g]; p != 0; p = next_[p - 1]) {
        order.push_back(p - 1);
      }
    }
    out_offsets[groups] = static_cast<int64_t>(order.size());
    ColumnPtr elements;
    if (chunks_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(elements, Column::MakeAllNull(type->ElementType(), 0, pool));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool));
      TRIBUTARY_ASSIGN_OR_RAISE(elements, columnar::Take(*all, order, pool));
    }
    return Column::Make(type, groups, nullptr, nullptr, std::move(offsets), {elements});
  }

 private:
  bool set_;
  MemoryPool* pool_;
  PoolArray<int64_t> heads_;  // first stored position + 1 per group; 0: none
  PoolArray<int64_t> tails_;
  PoolArray<int64_t> next_;  // per stored value: the next of its group + 1
  GroupTable seen_values_;   // collect_set: (group, value) pairs seen
  std::vector<ColumnPtr> chunks_;
  int64_t stored_ = 0;
};

// Passes only the first occurrence of each (group, arguments) to the wrapped accumulator.
class DistinctAccumulator final : public Accumulator {
 public:
  DistinctAccumulator(std::unique_ptr<Accumulator> inner, MemoryPool* pool)
      : inner_(std::move(inner)), pool_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override { return inner_->Resize(groups); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> selected,
                              FirstOccurrences(seen_, args, rows, groups, false));
    if (selected.empty()) {
      return Status::OK();
    }
    std::vector<ColumnPtr> taken;
    for (const ColumnPtr& arg : args) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Take(*arg, selected, pool_));
      taken.push_back(std::move(column));
    }
    std::vector<int32_t> taken_groups;
    taken_groups.reserve(selected.size());
    for (int64_t row : selected) {
      taken_groups.push_back(groups[row]);
    }
    return inner_->Update(taken, taken_groups.data(), static_cast<int64_t>(selected.size()), namer);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                           MemoryPool* pool) override {
    return inner_->Finish(groups, type, namer, pool);
  }

 private:
  std::unique_ptr<Accumulator> inner_;
  MemoryPool* pool_;
  GroupTable seen_;
};

// HyperLogLog++ (Heule, Nunkesser, Hall 2013) as Spark configures it: for a relative standard
// deviation rsd (Default: 0.05) p = ceil(2 * log2(1.106 / rsd)) index bits (9 by default), so
// m = 2^p registers per group (one byte each here). Estimates use linear counting while it is
// below the paper's threshold for p or the raw estimate is below 2.5m; the empirical
// bias-correction tables are not used.
class ApproxCountDistinctAccumulator final : public Accumulator {
 public:
  ApproxCountDistinctAccumulator(int precision, MemoryPool* pool)
      : precision_(precision), registers_per_group_(int64_t{1} << precision), registers_(pool) {}

  // The p of `relative_sd`, or an error outside what HLL++ can address (Spark: p >= 4).
  static Result<int> PrecisionFor(double relative_sd) {
    const double p = std::ceil(2.0 * std::log2(1.106 / relative_sd));
    if (!(relative_sd > 0) || p < 4 || p > 18) {
      return Status::InvalidArgument(fmt::format(
          "approx_count_distinct: relativeSD {} is outside 0.0003..0.39 (HLL++ needs 4 to 18 "
          "index bits)",
          relative_sd));
    }
    return static_cast<int>(p);
  }

  Status Resize(int64_t groups) override {
    return registers_.Resize(groups * registers_per_group_);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    EncodeGroupingKeys(args.subspan(0, 1), rows, &keys_);
    uint8_t* registers = registers_.data();
    for (int64_t i = 0; i < rows; ++i) {
      if (keys_.has_null[static_cast<size_t>(i)] != 0) {
        continue;
      }
      const uint64_t hash = keys_.hashes[static_cast<size_t>(i)];
      const uint64_t index = hash >> (64 - precision_);
      // The sentinel bit bounds the run of zeros at 64 - p.
      const uint64_t rest = (hash << precision_) | (uint64_t{1} << (precision_ - 1));
      const auto rank = static_cast<uint8_t>(std::countl_zero(rest) + 1);
      uint8_t& reg = registers[groups[i] * registers_per_group_ + static_cast<int64_t>(index)];
      reg = std::max(reg, rank);
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<int64_t> estimates(static_cast<size_t>(groups));
    // The paper's linear-counting thresholds for p = 4..18.
    static constexpr double kThresholds[] = {10,   20,   40,    80,    220,   400,    900,   1800,
                                             3100, 6500, 11500, 20000, 50000, 120000, 350000};
    const double threshold = kThresholds[precision_ - 4];
    const auto m = static_cast<double>(registers_per_group_);
    const double alpha = 0.7213 / (1.0 + 1.079 / m);
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* reg = registers_.data() + g * registers_per_group_;
      double sum = 0;
      int64_t zeros = 0;
      for (int64_t j = 0; j < registers_per_group_; ++j) {
        sum += std::ldexp(1.0, -reg[j]);
        zeros += reg[j] == 0 ? 1 : 0;
      }
      const double raw = alpha * m * m / sum;
      double estimate = raw;
      if (zeros > 0) {
        const double linear = m * std::log(m / static_cast<double>(zeros));
        if (linear <= threshold || raw <= 2.5 * m) {
          estimate = linear;
        }
      }
      estimates[static_cast<size_t>(g)] = std::llround(estimate);
    }
    return MakeFixedColumn<int64_t>(type, estimates.data(), nullptr, groups, pool);
  }

 private:
  int precision_;
  int64_t registers_per_group_;
  PoolArray<uint8_t> registers_;
  EncodedKeys keys_;
};

// Welford's running mean and sum of squared deviations.
class VarianceAccumulator final : public Accumulator {
 public:
  VarianceAccumulator(AggregateKind kind, MemoryPool* pool)
      : kind_(kind), counts_(pool), means_(pool), m2_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(counts_.Resize(groups));
    TRIBUTARY_RETURN_NOT_OK(means_.Resize(groups));
    return m2_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    double* counts = counts_.data();
    double* means = means_.data();
    double* m2 = m2_.data();
    VisitValidDoubles(*args[0], rows, [&](int64_t i, auto raw) {
      const auto v = static_cast<double>(raw);
      const int32_t g = groups[i];
      counts[g] += 1;
      const double delta = v - means[g];
      means[g] += delta / counts[g];
      m2[g] += delta * (v - means[g]);
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<double> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    const bool sample = kind_ == AggregateKind::kStddevSamp || kind_ == AggregateKind::kVarSamp;
    const bool root = kind_ == AggregateKind::kStddevSamp || kind_ == AggregateKind::kStddevPop;
    for (int64_t g = 0; g < groups; ++g) {
      const double n = counts_[g];
      // Spark 3 returns NULL (not NaN) for the sample statistics of a single value.
      if (n == 0 || (sample && n == 1)) {
        continue;
      }
      const double variance = m2_[g] / (sample ? n - 1 : n);
      values[static_cast<size_t>(g)] = root ? std::sqrt(variance) : variance;
      seen[static_cast<size_t>(g)] = 1;
    }
    return MakeFixedColumn<double>(type, values.data(), seen.data(), groups, pool);
  }

 private:
  AggregateKind kind_;
  PoolArray<double> counts_;
  PoolArray<double> means_;
  PoolArray<double> m2_;
};

class BoolAccumulator final : public Accumulator {
 public:
  BoolAccumulator(bool all, MemoryPool* pool) : all_(all), values_(pool), seen_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(values_.Resize(groups));
    return seen_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    uint8_t* values = values_.data();
    uint8_t* seen = seen_.data();
    VisitValidAs<uint8_t>(*args[0], rows, [&](int64_t i, uint8_t v) {
      const int32_t g = groups[i];
      values[g] = seen[g] == 0 ? v : (all_ ? (values[g] & v) : (values[g] | v));
      seen[g] = 1;
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    return MakeFixedColumn<uint8_t>(type, values_.data(), seen_.data(), groups, pool);
  }

 private:
  bool all_;
  PoolArray<uint8_t> values_;
  PoolArray<uint8_t> seen_;
};

Result<std::unique_ptr<Accumulator>> MakeMinMax(const DataType& type, bool max, MemoryPool* pool) {
  switch (type.Id()) {
    case TypeId::kBoolean:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<uint8_t>(max, pool));
    case TypeId::kInt8:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<int8_t>(max, pool));
    case TypeId::kInt16:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<int16_t>(max, pool));
    case TypeId::kInt32:
    case TypeId::kDate:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<int32_t>(max, pool));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<int64_t>(max, pool));
    case TypeId::kFloat32:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<float>(max, pool));
    case TypeId::kFloat64:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<double>(max, pool));
    case TypeId::kDecimal:
      return std::unique_ptr<Accumulator>(new MinMaxAccumulator<Int128>(max, pool));
    default:
      return std::unique_ptr<Accumulator>(
          new SelectValueAccumulator(max ? AggregateKind::kMax : AggregateKind::kMin, false, pool));
  }
}

// The value of a numeric literal argument (approx_count_distinct's relativeSD: 0.01 is a
// decimal literal in SQL).
Result<double> LiteralDouble(const expr::BoundExpression& argument) {
  if (argument.GetOp() != expr::Op::kLiteral || argument.Literal().IsNull()) {
    return Status::InvalidArgument(
        "approx_count_distinct: relativeSD must be a numeric literal, got " + argument.ToString());
  }
  const expr::Scalar& literal = argument.Literal();
  if (const auto* d = std::get_if<double>(&literal.Get())) {
    return *d;
  }
  if (const auto* i = std::get_if<int64_t>(&literal.Get())) {
    return static_cast<double>(*i);
  }
  if (const auto* u = std::get_if<Int128>(&literal.Get())) {
    return static_cast<double>(*u) / std::pow(10.0, literal.Type()->Scale());
  }
  return Status::InvalidArgument("approx_count_distinct: relativeSD must be numeric, got " +
                                 argument.ToString());
}

// Builds the accumulator of `call`; `value_arguments` is how many leading arguments are
// evaluated per batch.
Result<std::unique_ptr<Accumulator>> MakeAccumulator(const AggregateCall& call, MemoryPool* pool,
                                                     size_t* value_arguments) {
  TRIBUTARY_ASSIGN_OR_RAISE(AggregateKind kind, KindOf(call.function));
  std::vector<DataTypePtr> types;
  for (const expr::BoundExprPtr& argument : call.arguments) {
    types.push_back(argument->Type());
  }
  TRIBUTARY_RETURN_NOT_OK(AggregateResultType(call.function, types, call.distinct).status());
  *value_arguments = call.arguments.size();
  std::unique_ptr<Accumulator> accumulator;
  switch (kind) {
    case AggregateKind::kCount:
    case AggregateKind::kCountIf:
      accumulator = std::make_unique<CountAccumulator>(kind, pool);
      break;
    case AggregateKind::kSum:
    case AggregateKind::kAvg: {
      const DataType& type = *types[0];
      const bool average = kind == AggregateKind::kAvg;
      if (type.Id() == TypeId::kDecimal) {
        accumulator = std::make_unique<SumDecimalAccumulator>(average, type.Scale(), pool);
      } else if (type.IsInteger() && !average) {
        accumulator = std::make_unique<SumIntegerAccumulator>(pool);
      } else {
        accumulator = std::make_unique<SumDoubleAccumulator>(average, pool);
      }
      break;
    }
    case AggregateKind::kMin:
    case AggregateKind::kMax: {
      TRIBUTARY_ASSIGN_OR_RAISE(accumulator,
                                MakeMinMax(*types[0], kind == AggregateKind::kMax, pool));
      break;
    }
    case AggregateKind::kFirst:
    case AggregateKind::kLast: {
      bool ignore_nulls = false;
      if (call.arguments.size() == 2) {
        const expr::BoundExpression& flag = *call.arguments[1];
        if (flag.GetOp() != expr::Op::kLiteral || flag.Type()->Id() != TypeId::kBoolean) {
          return Status::InvalidArgument(
              fmt::format("{}: the second argument (ignoreNulls) must be a boolean literal, got {}",
                          call.function, flag.ToString()));
        }
        ignore_nulls = !flag.Literal().IsNull() && flag.Literal().BoolValue();
      }
      *value_arguments = 1;
      accumulator = std::make_unique<SelectValueAccumulator>(kind, ignore_nulls, pool);
      break;
    }
    case AggregateKind::kCollectList:
    case AggregateKind::kCollectSet:
      accumulator = std::make_unique<CollectAccumulator>(kind == AggregateKind::kCollectSet, pool);
      break;
    case AggregateKind::kApproxCountDistinct: {
      double relative_sd = 0.05;
      if (call.arguments.size() == 2) {
        TRIBUTARY_ASSIGN_OR_RAISE(relative_sd, LiteralDouble(*call.arguments[1]));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(int precision,
                                ApproxCountDistinctAccumulator::PrecisionFor(relative_sd));
      *value_arguments = 1;
      accumulator = std::make_unique<ApproxCountDistinctAccumulator>(precision, pool);
      break;
    }
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
      accumulator = std::make_unique<VarianceAccumulator>(kind, pool);
      break;
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      accumulator = std::make_unique<BoolAccumulator>(kind == AggregateKind::kBoolAnd, pool);
      break;
  }
  if (call.distinct && *value_arguments > 0) {
    accumulator = std::make_unique<DistinctAccumulator>(std::move(accumulator), pool);
  }
  return accumulator;
}

}  // namespace

Result<DataTypePtr> AggregateResultType(std::string_view function,
                                        const std::vector<DataTypePtr>& argument_types,
                                        bool distinct) {
  TRIBUTARY_ASSIGN_OR_RAISE(AggregateKind kind, KindOf(function));
  auto wrong_arguments = [&](std::string_view expected) {
    std::string got;
    for (size_t i = 0; i < argument_types.size(); ++i) {
      got += (i > 0 ? ", " : "") + argument_types[i]->ToString();
    }
    return Status::InvalidArgument(fmt::format("{}{} takes {}, got ({})", function,
                                               distinct ? " DISTINCT" : "", expected, got));
  };
  if (kind == AggregateKind::kCount) {
    if (distinct && argument_types.empty()) {
      return wrong_arguments("at least one argument");
    }
    return DataType::Int64();
  }
  const bool two_allowed = kind == AggregateKind::kFirst || kind == AggregateKind::kLast ||
                           kind == AggregateKind::kApproxCountDistinct;
  if (argument_types.empty() || argument_types.size() > (two_allowed ? 2u : 1u)) {
    return wrong_arguments(two_allowed ? "one or two arguments" : "one argument");
  }
  const DataTypePtr& type = argument_types[0];
  const bool numeric = type->IsNumeric() || type->Id() == TypeId::kNull;
  switch (kind) {
    case AggregateKind::kCountIf:
      if (type->Id() != TypeId::kBoolean) {
        return wrong_arguments("a boolean");
      }
      return DataType::Int64();
    case AggregateKind::kApproxCountDistinct:
      if (argument_types.size() == 2 && !argument_types[1]->IsNumeric()) {
        return wrong_arguments("a value and a numeric relativeSD");
      }
      return DataType::Int64();
    case AggregateKind::kSum:
      if (!numeric) {
        return wrong_arguments("a numeric argument");
      }
      if (type->Id() == TypeId::kDecimal) {
        return DataType::Decimal(std::min(columnar::kMaxDecimalPrecision, type->Precision() + 10),
                                 type->Scale());
      }
      return type->IsInteger() ? DataType::Int64() : DataType::Float64();
    case AggregateKind::kAvg:
      if (!numeric) {
        return wrong_arguments("a numeric argument");
      }
      if (type->Id() == TypeId::kDecimal) {
        return DataType::Decimal(std::min(columnar::kMaxDecimalPrecision, type->Precision() + 4),
                                 std::min(columnar::kMaxDecimalPrecision, type->Scale() + 4));
      }
      return DataType::Float64();
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      if (!IsOrderable(*type)) {
        return wrong_arguments("an orderable argument");
      }
      return type;
    case AggregateKind::kFirst:
    case AggregateKind::kLast:
      if (argument_types.size() == 2 && argument_types[1]->Id() != TypeId::kBoolean) {
        return wrong_arguments("a value and a boolean ignoreNulls");
      }
      return type;
    case AggregateKind::kCollectList:
    case AggregateKind::kCollectSet:
      return DataType::Array(type, false);
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
      if (!numeric) {
        return wrong_arguments("a numeric argument");
      }
      return DataType::Float64();
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      if (type->Id() != TypeId::kBoolean) {
        return wrong_arguments("a boolean");
      }
      return DataType::Boolean();
    case AggregateKind::kCount:
      break;
  }
  return DataType::Int64();
}

HashAggregateOperator::HashAggregateOperator(OperatorPtr input,
                                             std::vector<expr::BoundExprPtr> keys,
                                             std::vector<AggregateCall> aggregates,
                                             SchemaPtr output_schema, const ExecContext& context)
    : input_(std::move(input)),
      keys_(std::move(keys)),
      aggregates_(std::move(aggregates)),
      schema_(std::move(output_schema)),
      context_(context),
      groups_(context.pool) {}

HashAggregateOperator::~HashAggregateOperator() = default;

std::string HashAggregateOperator::DescribeGroup(int32_t group) const {
  if (keys_.empty()) {
    return "()";
  }
  std::vector<DataTypePtr> types;
  for (const expr::BoundExprPtr& key : keys_) {
    types.push_back(key->Type());
  }
  const std::string_view key_bytes[] = {groups_.KeyOf(group)};
  auto columns = DecodeGroupingKeys(types, key_bytes, columnar::DefaultMemoryPool());
  if (!columns.ok()) {
    return fmt::format("#{}", group);
  }
  std::string out = "(";
  for (size_t k = 0; k < keys_.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys_[k]->ToString() + "=";
    columnar::AppendCanonicalJsonValue(*(*columns)[k], 0, &out);
  }
  return out + ")";
}

Status HashAggregateOperator::Consume() {
  std::vector<size_t> value_arguments(aggregates_.size());
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                              MakeAccumulator(aggregates_[a], context_.pool, &value_arguments[a]));
    accumulators_.push_back(std::move(accumulator));
  }
  const GroupNamer namer = [this](int32_t group) {
    return DescribeGroup(group);
  };
  EncodedKeys encoded;
  std::vector<int32_t> group_ids;
  std::vector<ColumnPtr> key_columns;
  std::vector<ColumnPtr> arguments;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    const int64_t rows = batch->NumRows();
    if (rows == 0) {
      continue;
    }
    key_columns.clear();
    for (const expr::BoundExprPtr& key : keys_) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*key, *batch, context_.eval));
      key_columns.push_back(std::move(column));
    }
    EncodeGroupingKeys(key_columns, rows, &encoded);
    group_ids.resize(static_cast<size_t>(rows));
    TRIBUTARY_RETURN_NOT_OK(groups_.FindOrInsert(encoded, group_ids.data()));
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      Accumulator& accumulator = *accumulators_[a];
      TRIBUTARY_RETURN_NOT_OK(accumulator.Resize(groups_.NumGroups()));
      arguments.clear();
      for (size_t i = 0; i < value_arguments[a]; ++i) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            ColumnPtr column, expr::Evaluate(*aggregates_[a].arguments[i], *batch, context_.eval));
        arguments.push_back(std::move(column));
      }
      TRIBUTARY_RETURN_NOT_OK(
          accumulator.Update(arguments, group_ids.data(), rows, namer)
              .WithContext(fmt::format("computing {}", aggregates_[a].function)));
    }
  }
  if (keys_.empty() && groups_.NumGroups() == 0) {
    // SQL: an aggregate without GROUP BY returns one row even over no input.
    EncodeGroupingKeys({}, 1, &encoded);
    int32_t group = 0;
    TRIBUTARY_RETURN_NOT_OK(groups_.FindOrInsert(encoded, &group));
  }
  const int64_t num_groups = groups_.NumGroups();
  std::vector<DataTypePtr> key_types;
  for (size_t k = 0; k < keys_.size(); ++k) {
    key_types.push_back(schema_->FieldAt(static_cast<int>(k)).Type());
  }
  std::vector<std::string_view> key_bytes(static_cast<size_t>(num_groups));
  for (int64_t g = 0; g < num_groups; ++g) {
    key_bytes[static_cast<size_t>(g)] = groups_.KeyOf(g);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(result_columns_,
                            DecodeGroupingKeys(key_types, key_bytes, context_.eval.pool));
  for (size_t a = 0; a < accumulators_.size(); ++a) {
    TRIBUTARY_RETURN_NOT_OK(accumulators_[a]->Resize(num_groups));
    const DataTypePtr& type = schema_->FieldAt(static_cast<int>(keys_.size() + a)).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(
        ColumnPtr column, accumulators_[a]->Finish(num_groups, type, namer, context_.eval.pool));
    result_columns_.push_back(std::move(column));
  }
  result_rows_ = num_groups;
  accumulators_.clear();
  return Status::OK();
}

Result<RecordBatchPtr> HashAggregateOperator::Next() {
  if (!consumed_) {
    consumed_ = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("hash aggregate"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, NextSlice(schema_, result_columns_, result_rows_,
                                                            &emitted_rows_, context_.eval.pool));
  if (batch == nullptr) {
    result_columns_.clear();
  }
  return batch;
}

std::string HashAggregateOperator::ToString() const {
  std::string out = "HashAggregate(keys=[";
  for (size_t k = 0; k < keys_.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys_[k]->ToString();
  }
  out += "], aggs=[";
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    const AggregateCall& call = aggregates_[a];
    out += (a > 0 ? ", " : "") + call.function + "(" + (call.distinct ? "DISTINCT " : "");
    if (call.arguments.empty()) {
      out += "*";
    }
    for (size_t i = 0; i < call.arguments.size(); ++i) {
      out += (i > 0 ? ", " : "") + call.arguments[i]->ToString();
    }
    out += ")";
  }
  return out + "])";
}

}  // namespace tributary::exec

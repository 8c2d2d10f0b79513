#include "exec/window.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "columnar/take.h"
#include "exec/row_key.h"

namespace tributary::exec {

using columnar::Column;
using columnar::Int128;
using columnar::RecordBatch;
using columnar::TypeId;
using expr::WindowFrameBound;
using expr::WindowSpec;

namespace {

// Frames of aggregates are folded in chunks of about this many (row, frame row) pairs, so a
// sliding frame's gathered arguments stay bounded.
constexpr int64_t kFrameChunkRows = int64_t{1} << 20;

// The rows of the input in one window ordering: sorted by partition keys, then ordering keys
// (stable: ties keep input order). Positions index `rows`.
struct WindowOrder {
  std::vector<int64_t> rows;  // position -> input row
  // Positions where partitions begin, then the number of rows.
  std::vector<int64_t> partition_starts;
  // Per position: the first position of its peer group and one past its last.
  std::vector<int64_t> peer_start;
  std::vector<int64_t> peer_end;
};

Result<std::vector<ColumnPtr>> EvaluateAll(const std::vector<expr::BoundExprPtr>& expressions,
                                           const RecordBatch& batch,
                                           const expr::EvalContext& context) {
  std::vector<ColumnPtr> columns;
  columns.reserve(expressions.size());
  for (const expr::BoundExprPtr& e : expressions) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*e, batch, context));
    columns.push_back(std::move(column));
  }
  return columns;
}

// A function's partition and ordering keys of every row of `batch`, in the ordering encoding
// (byte order is the window's order).
struct WindowKeys {
  EncodedKeys partition;
  EncodedKeys order;
};

Result<WindowKeys> EncodeWindowKeys(const WindowFunction& function, const RecordBatch& batch,
                                    const expr::EvalContext& context) {
  const int64_t n = batch.NumRows();
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> partition_columns,
                            EvaluateAll(function.partition_keys, batch, context));
  std::vector<expr::BoundExprPtr> order_expressions;
  std::vector<OrderingDirection> order_directions;
  for (const SortKey& key : function.order_keys) {
    order_expressions.push_back(key.expression);
    order_directions.push_back({key.ascending, key.nulls_first});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> order_columns,
                            EvaluateAll(order_expressions, batch, context));
  WindowKeys keys;
  const std::vector<OrderingDirection> partition_directions(partition_columns.size());
  EncodeOrderingKeys(partition_columns, partition_directions, n, &keys.partition);
  EncodeOrderingKeys(order_columns, order_directions, n, &keys.order);
  return keys;
}

// Spark's WindowGroupLimit: the rows of `batch` to which the rank-like `function` (row_number,
// rank or dense_rank) can give a value of at most `function.group_limit` in their partition.
// A filter above the window drops every other row, so only these need sorting. They are the
// rows whose ordering key is at most the partition's limit-th smallest key (counting equal keys
// once for dense_rank): rank and dense_rank are exact so; for row_number the ties at that key
// stay too, and the window numbers them in some order as Spark does.
Result<RecordBatchPtr> RowsWithinGroupLimit(const WindowFunction& function,
                                            const RecordBatchPtr& batch,
                                            const expr::EvalContext& context,
                                            columnar::MemoryPool* pool) {
  const int64_t limit = *function.group_limit;
  const int64_t n = batch->NumRows();
  std::vector<int64_t> kept;
  if (limit >= 1) {
    TRIBUTARY_ASSIGN_OR_RAISE(WindowKeys keys, EncodeWindowKeys(function, *batch, context));
    // Rows compare by ordering key; the key's first 8 bytes as a big-endian number settle
    // most comparisons without a memcmp.
    std::vector<uint64_t> prefix(static_cast<size_t>(n));
    for (int64_t row = 0; row < n; ++row) {
      const std::string_view key = keys.order.Key(row);
      uint64_t value = 0;
      for (size_t i = 0; i < 8; ++i) {
        value = (value << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
      }
      prefix[static_cast<size_t>(row)] = value;
    }
    auto less = [&](int64_t a, int64_t b) {
      const uint64_t pa = prefix[static_cast<size_t>(a)];
      const uint64_t pb = prefix[static_cast<size_t>(b)];
      return pa != pb ? pa < pb : keys.order.Key(a) < keys.order.Key(b);
    };
    // Each row's partition, numbered in order of appearance.
    std::vector<uint32_t> partition_of(static_cast<size_t>(n), 0);
    uint32_t partitions = 1;
    if (!function.partition_keys.empty()) {
      std::unordered_map<std::string_view, uint32_t> ids;
      for (int64_t row = 0; row < n; ++row) {
        const auto [it, inserted] = ids.try_emplace(keys.partition.Key(row), ids.size());
        partition_of[static_cast<size_t>(row)] = it->second;
      }
      partitions = static_cast<uint32_t>(std::max<size_t>(ids.size(), 1));
    }
    // Per partition the rows of the `limit` smallest keys, the largest first (a max-heap), or
    // for dense_rank one row per distinct key among the `limit` smallest (an ordered set).
    const auto cap = static_cast<size_t>(limit);
    const bool distinct_keys = function.function == "dense_rank";
    std::vector<std::vector<int64_t>> heaps(distinct_keys ? 0 : partitions);
    using DistinctKeys = std::set<int64_t, decltype(less)>;
    std::vector<DistinctKeys> distinct(distinct_keys ? partitions : 0, DistinctKeys(less));
    for (int64_t row = 0; row < n; ++row) {
      const uint32_t p = partition_of[static_cast<size_t>(row)];
      if (distinct_keys) {
        DistinctKeys& smallest = distinct[p];
        if (smallest.size() < cap || less(row, *smallest.rbegin())) {
          smallest.insert(row);
          if (smallest.size() > cap) {
            smallest.erase(std::prev(smallest.end()));
          }
        }
        continue;
      }
      std::vector<int64_t>& heap = heaps[p];
      if (heap.size() < cap) {
        heap.push_back(row);
        std::push_heap(heap.begin(), heap.end(), less);
      } else if (less(row, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), less);
        heap.back() = row;
        std::push_heap(heap.begin(), heap.end(), less);
      }
    }
    // The largest key a partition keeps, or -1 when it has fewer than `limit` (distinct) keys
    // and keeps every row.
    std::vector<int64_t> threshold(partitions, -1);
    for (uint32_t p = 0; p < partitions; ++p) {
      if (distinct_keys ? distinct[p].size() == cap : heaps[p].size() == cap) {
        threshold[p] = distinct_keys ? *distinct[p].rbegin() : heaps[p].front();
      }
    }
    for (int64_t row = 0; row < n; ++row) {
      const int64_t last = threshold[partition_of[static_cast<size_t>(row)]];
      if (last < 0 || !less(last, row)) {
        kept.push_back(row);
      }
    }
  }
  if (static_cast<int64_t>(kept.size()) == n) {
    return batch;
  }
  return columnar::TakeRows(*batch, kept, pool);
}

Result<WindowOrder> SortRows(const WindowFunction& function, const RecordBatch& batch,
                             const expr::EvalContext& context) {
  const int64_t n = batch.NumRows();
  TRIBUTARY_ASSIGN_OR_RAISE(WindowKeys keys, EncodeWindowKeys(function, batch, context));
  const EncodedKeys& partition_keys = keys.partition;
  const EncodedKeys& order_keys = keys.order;

  WindowOrder order;
  order.rows.resize(static_cast<size_t>(n));
  std::iota(order.rows.begin(), order.rows.end(), 0);
  if (!function.partition_keys.empty() || !function.order_keys.empty()) {
    std::stable_sort(order.rows.begin(), order.rows.end(), [&](int64_t a, int64_t b) {
      const int c = partition_keys.Key(a).compare(partition_keys.Key(b));
      return c < 0 || (c == 0 && order_keys.Key(a) < order_keys.Key(b));
    });
  }
  order.peer_start.resize(static_cast<size_t>(n));
  order.peer_end.resize(static_cast<size_t>(n));
  int64_t peer_first = 0;
  for (int64_t k = 0; k < n; ++k) {
    const auto at = static_cast<size_t>(k);
    const bool new_partition =
        k == 0 || partition_keys.Key(order.rows[at]) != partition_keys.Key(order.rows[at - 1]);
    if (new_partition) {
      order.partition_starts.push_back(k);
    }
    if (new_partition || order_keys.Key(order.rows[at]) != order_keys.Key(order.rows[at - 1])) {
      for (int64_t j = peer_first; j < k; ++j) {
        order.peer_end[static_cast<size_t>(j)] = k;
      }
      peer_first = k;
    }
    order.peer_start[at] = peer_first;
  }
  for (int64_t j = peer_first; j < n; ++j) {
    order.peer_end[static_cast<size_t>(j)] = n;
  }
  order.partition_starts.push_back(n);
  return order;
}

// Calls `visit(start, end)` for each partition [start, end) of positions.
template <typename Visit>
void ForEachPartition(const WindowOrder& order, Visit&& visit) {
  for (size_t p = 0; p + 1 < order.partition_starts.size(); ++p) {
    visit(order.partition_starts[p], order.partition_starts[p + 1]);
  }
}

// ---- frames

double OffsetValue(const expr::Scalar& offset) {
  const columnar::DataType& type = *offset.Type();
  if (type.Id() == TypeId::kFloat32 || type.Id() == TypeId::kFloat64) {
    return offset.DoubleValue();
  }
  if (type.Id() == TypeId::kDecimal) {
    return static_cast<double>(offset.DecimalValue()) /
           static_cast<double>(columnar::PowerOfTen(type.Scale()));
  }
  return static_cast<double>(offset.IntValue());
}

// The single ordering key of a RANGE frame with offsets, as numbers in sort direction (so that
// they ascend within a partition's non-null rows), per input row; nullopt for a null.
Result<std::vector<std::optional<double>>> RangeValues(const Column& column, bool ascending) {
  const int64_t n = column.Length();
  std::vector<std::optional<double>> values(static_cast<size_t>(n));
  auto fill = [&](auto read) {
    for (int64_t i = 0; i < n; ++i) {
      if (column.IsValid(i)) {
        const double v = read(i);
        values[static_cast<size_t>(i)] = ascending ? v : -v;
      }
    }
  };
  switch (column.Type()->Id()) {
    case TypeId::kInt8:
      fill([&](int64_t i) { return static_cast<double>(column.Values<int8_t>()[i]); });
      break;
    case TypeId::kInt16:
      fill([&](int64_t i) { return static_cast<double>(column.Values<int16_t>()[i]); });
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      fill([&](int64_t i) { return static_cast<double>(column.Values<int32_t>()[i]); });
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      fill([&](int64_t i) { return static_cast<double>(column.Values<int64_t>()[i]); });
      break;
    case TypeId::kFloat32:
      fill([&](int64_t i) { return static_cast<double>(column.Values<float>()[i]); });
      break;
    case TypeId::kFloat64:
      fill([&](int64_t i) { return column.Values<double>()[i]; });
      break;
    case TypeId::kDecimal: {
      const double scale = static_cast<double>(columnar::PowerOfTen(column.Type()->Scale()));
      fill([&](int64_t i) { return static_cast<double>(column.Values<Int128>()[i]) / scale; });
      break;
    }
    default:
      return Status::InvalidArgument(
          fmt::format("a RANGE frame with an offset needs a numeric, date or timestamp ordering "
                      "key, not {}",
                      column.Type()->ToString()));
  }
  return values;
}

// A date (days) or timestamp (microseconds) ordering key moved by `months` calendar months,
// the day clamped to the month's end, as Spark's DateAddYMInterval and TimestampAddYMInterval
// bound a RANGE frame with a year-month offset (a timestamp moves in the session zone's
// wall-clock time).
double WindowKeyPlusMonths(double key, int64_t months, TypeId key_type,
                           const expr::TimeZone& zone) {
  const auto shift_days = [months](int64_t days) {
    return columnar::AddMonthsToDays(days, months);
  };
  if (key_type == TypeId::kDate) {
    return static_cast<double>(shift_days(static_cast<int64_t>(key)));
  }
  const auto micros = static_cast<int64_t>(key);
  const int64_t local = key_type == TypeId::kTimestamp ? zone.LocalFromUtc(micros) : micros;
  const int64_t day = columnar::FloorDiv(local, columnar::kMicrosPerDay);
  const int64_t shifted =
      shift_days(day) * columnar::kMicrosPerDay + (local - day * columnar::kMicrosPerDay);
  return static_cast<double>(key_type == TypeId::kTimestamp ? zone.UtcFromLocal(shifted) : shifted);
}

// Resolves each position's frame [start, end) of positions within its partition.
class FrameResolver {
 public:
  FrameResolver(const WindowFunction& function, const WindowOrder& order,
                std::vector<std::optional<double>> range_values, TypeId key_type,
                expr::TimeZone zone)
      : function_(function),
        order_(order),
        range_values_(std::move(range_values)),
        key_type_(key_type),
        zone_(std::move(zone)) {}

  /// Must be called for each partition before Frame() on its positions.
  void StartPartition(int64_t start, int64_t end) {
    partition_start_ = start;
    partition_end_ = end;
    if (range_values_.empty()) {
      return;
    }
    // Null ordering keys sort together at one end: the non-null positions are a range.
    non_null_start_ = start;
    while (non_null_start_ < end && !Value(non_null_start_)) {
      ++non_null_start_;
    }
    non_null_end_ = non_null_start_;
    while (non_null_end_ < end && Value(non_null_end_)) {
      ++non_null_end_;
    }
  }

  std::pair<int64_t, int64_t> Frame(int64_t k) const {
    const int64_t start = Bound(function_.frame_start, k, /*is_end=*/false);
    const int64_t end = Bound(function_.frame_end, k, /*is_end=*/true);
    return {start, std::max(start, end)};
  }

 private:
  const std::optional<double>& Value(int64_t k) const {
    return range_values_[static_cast<size_t>(order_.rows[static_cast<size_t>(k)])];
  }

  int64_t Bound(const WindowFrameBound& bound, int64_t k, bool is_end) const {
    const auto at = static_cast<size_t>(k);
    switch (bound.kind) {
      case WindowFrameBound::Kind::kUnboundedPreceding:
        return partition_start_;
      case WindowFrameBound::Kind::kUnboundedFollowing:
        return partition_end_;
      case WindowFrameBound::Kind::kCurrentRow:
        if (function_.frame_type == WindowSpec::FrameType::kRows) {
          return is_end ? k + 1 : k;
        }
        return is_end ? order_.peer_end[at] : order_.peer_start[at];
      case WindowFrameBound::Kind::kPreceding:
      case WindowFrameBound::Kind::kFollowing:
        break;
    }
    const bool preceding = bound.kind == WindowFrameBound::Kind::kPreceding;
    if (function_.frame_type == WindowSpec::FrameType::kRows) {
      const auto offset = bound.offset.IntValue();
      const int64_t row = (preceding ? k - offset : k + offset) + (is_end ? 1 : 0);
      return std::clamp(row, partition_start_, partition_end_);
    }
    const std::optional<double>& value = Value(k);
    if (!value) {
      // A null ordering key is a peer of the other nulls only.
      return is_end ? order_.peer_end[at] : order_.peer_start[at];
    }
    double target = 0;
    if (bound.offset.Type()->Id() == TypeId::kYearMonthInterval) {
      // Months move a date or timestamp by calendar, in the key's own (unnegated) terms.
      const bool ascending = function_.order_keys[0].ascending;
      const int64_t months = bound.offset.IntValue();
      const double key = ascending ? *value : -*value;
      const double moved =
          WindowKeyPlusMonths(key, preceding == ascending ? -months : months, key_type_, zone_);
      target = ascending ? moved : -moved;
    } else {
      const double offset = OffsetValue(bound.offset);
      target = preceding ? *value - offset : *value + offset;
    }
    auto first = order_.rows.begin() + non_null_start_;
    auto last = order_.rows.begin() + non_null_end_;
    auto value_of = [&](int64_t row) {
      return *range_values_[static_cast<size_t>(row)];
    };
    auto found = is_end ? std::upper_bound(first, last, target,
                                           [&](double t, int64_t row) { return t < value_of(row); })
                        : std::lower_bound(first, last, target, [&](int64_t row, double t) {
                            return value_of(row) < t;
                          });
    return found - order_.rows.begin();
  }

  const WindowFunction& function_;
  const WindowOrder& order_;
  std::vector<std::optional<double>> range_values_;
  TypeId key_type_;
  expr::TimeZone zone_;
  int64_t partition_start_ = 0;
  int64_t partition_end_ = 0;
  int64_t non_null_start_ = 0;
  int64_t non_null_end_ = 0;
};

bool NeedsRangeValues(const WindowFunction& function) {
  auto has_offset = [](const WindowFrameBound& bound) {
    return bound.kind == WindowFrameBound::Kind::kPreceding ||
           bound.kind == WindowFrameBound::Kind::kFollowing;
  };
  return function.frame_type == WindowSpec::FrameType::kRange &&
         (has_offset(function.frame_start) || has_offset(function.frame_end));
}

Result<FrameResolver> MakeFrameResolver(const WindowFunction& function, const WindowOrder& order,
                                        const RecordBatch& batch,
                                        const expr::EvalContext& context) {
  std::vector<std::optional<double>> values;
  TypeId key_type = TypeId::kNull;
  if (NeedsRangeValues(function)) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr key,
                              expr::Evaluate(*function.order_keys[0].expression, batch, context));
    key_type = key->Type()->Id();
    TRIBUTARY_ASSIGN_OR_RAISE(values, RangeValues(*key, function.order_keys[0].ascending));
  }
  return FrameResolver(function, order, std::move(values), key_type, context.session_time_zone);
}

// ---- ranking functions

Result<ColumnPtr> IntColumn(const std::vector<int32_t>& values, MemoryPool* pool) {
  columnar::ColumnBuilder builder(columnar::DataType::Int32(), pool);
  builder.Reserve(static_cast<int64_t>(values.size()));
  for (int32_t v : values) {
    builder.AppendInt(v);
  }
  return builder.Finish();
}

Result<ColumnPtr> DoubleColumn(const std::vector<double>& values, MemoryPool* pool) {
  columnar::ColumnBuilder builder(columnar::DataType::Float64(), pool);
  builder.Reserve(static_cast<int64_t>(values.size()));
  for (double v : values) {
    builder.AppendDouble(v);
  }
  return builder.Finish();
}

// A positive integral literal argument (ntile's buckets, nth_value's n).
Result<int64_t> PositiveLiteral(const WindowFunction& function, size_t argument) {
  const expr::BoundExpression& e = *function.arguments.at(argument);
  if (e.GetOp() != expr::Op::kLiteral || e.Literal().IsNull() || !e.Type()->IsInteger() ||
      e.Literal().IntValue() <= 0) {
    return Status::InvalidArgument(
        fmt::format("{}: argument {} must be a positive integer literal, got {}", function.function,
                    argument + 1, e.ToString()));
  }
  return e.Literal().IntValue();
}

Result<ColumnPtr> Ranking(const WindowFunction& function, const WindowOrder& order,
                          MemoryPool* pool) {
  const std::string& name = function.function;
  const size_t n = order.rows.size();
  int64_t buckets = 0;
  if (name == "ntile") {
    TRIBUTARY_ASSIGN_OR_RAISE(buckets, PositiveLiteral(function, 0));
  }
  std::vector<int32_t> ints(name == "percent_rank" || name == "cume_dist" ? 0 : n);
  std::vector<double> doubles(ints.empty() ? n : 0);
  ForEachPartition(order, [&](int64_t start, int64_t end) {
    const int64_t size = end - start;
    int64_t dense = 0;
    for (int64_t k = start; k < end; ++k) {
      const auto at = static_cast<size_t>(k);
      const auto row = static_cast<size_t>(order.rows[at]);
      const int64_t rank = order.peer_start[at] - start + 1;
      dense += order.peer_start[at] == k ? 1 : 0;
      if (name == "row_number") {
        ints[row] = static_cast<int32_t>(k - start + 1);
      } else if (name == "rank") {
        ints[row] = static_cast<int32_t>(rank);
      } else if (name == "dense_rank") {
        ints[row] = static_cast<int32_t>(dense);
      } else if (name == "percent_rank") {
        doubles[row] = size > 1 ? static_cast<double>(rank - 1) / static_cast<double>(size - 1) : 0;
      } else if (name == "cume_dist") {
        doubles[row] = static_cast<double>(order.peer_end[at] - start) / static_cast<double>(size);
      } else {
        // ntile: the first size % buckets buckets hold one row more than the others.
        const int64_t base = size / buckets;
        const int64_t larger = size % buckets;
        const int64_t i = k - start;
        const int64_t in_larger = larger * (base + 1);
        ints[row] = static_cast<int32_t>(i < in_larger ? i / (base + 1) + 1
                                                       : (i - in_larger) / base + larger + 1);
      }
    }
  });
  return ints.empty() ? DoubleColumn(doubles, pool) : IntColumn(ints, pool);
}

// ---- offset functions

// The values of `values` at `sources` (input rows), where -1 takes the row's `fallback`
// instead (null when there is none).
Result<ColumnPtr> TakeWithFallback(const ColumnPtr& values, const ColumnPtr& fallback,
                                   std::vector<int64_t> sources, MemoryPool* pool) {
  if (fallback == nullptr) {
    return TakeOrNull(*values, sources, pool);
  }
  const int64_t n = values->Length();
  for (size_t r = 0; r < sources.size(); ++r) {
    if (sources[r] < 0) {
      sources[r] = n + static_cast<int64_t>(r);
    }
  }
  const ColumnPtr both_parts[] = {values, fallback};
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr both, columnar::Concatenate(both_parts, pool));
  return columnar::Take(*both, sources, pool);
}

Result<ColumnPtr> LagLead(const WindowFunction& function, const WindowOrder& order,
                          const RecordBatch& batch, const expr::EvalContext& context,
                          MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> args,
                            EvaluateAll(function.arguments, batch, context));
  int64_t offset = 1;
  if (args.size() > 1) {
    const expr::BoundExpression& e = *function.arguments[1];
    if (e.GetOp() != expr::Op::kLiteral || e.Literal().IsNull() || !e.Type()->IsInteger()) {
      return Status::InvalidArgument(fmt::format(
          "{}: the offset must be an integer literal, got {}", function.function, e.ToString()));
    }
    offset = e.Literal().IntValue();
  }
  if (function.function == "lag") {
    offset = -offset;
  }
  std::vector<int64_t> sources(order.rows.size(), -1);
  ForEachPartition(order, [&](int64_t start, int64_t end) {
    for (int64_t k = start; k < end; ++k) {
      const int64_t source = k + offset;
      if (source >= start && source < end) {
        sources[static_cast<size_t>(order.rows[static_cast<size_t>(k)])] =
            order.rows[static_cast<size_t>(source)];
      }
    }
  });
  return TakeWithFallback(args[0], args.size() > 2 ? args[2] : nullptr, std::move(sources), pool);
}

Result<ColumnPtr> NthValue(const WindowFunction& function, const WindowOrder& order,
                           FrameResolver& frames, const RecordBatch& batch,
                           const expr::EvalContext& context, MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t nth, PositiveLiteral(function, 1));
  bool ignore_nulls = false;
  if (function.arguments.size() > 2) {
    const expr::BoundExpression& e = *function.arguments[2];
    if (e.GetOp() != expr::Op::kLiteral || e.Type()->Id() != TypeId::kBoolean ||
        e.Literal().IsNull()) {
      return Status::InvalidArgument(
          fmt::format("nth_value: ignoreNulls must be a boolean literal, got {}", e.ToString()));
    }
    ignore_nulls = e.Literal().BoolValue();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values,
                            expr::Evaluate(*function.arguments[0], batch, context));
  std::vector<int64_t> sources(order.rows.size(), -1);
  ForEachPartition(order, [&](int64_t start, int64_t end) {
    frames.StartPartition(start, end);
    for (int64_t k = start; k < end; ++k) {
      const auto [first, last] = frames.Frame(k);
      int64_t seen = 0;
      int64_t found = -1;
      for (int64_t j = first; j < last && found < 0; ++j) {
        const int64_t row = order.rows[static_cast<size_t>(j)];
        if (!ignore_nulls || values->IsValid(row)) {
          found = ++seen == nth ? row : -1;
        }
      }
      sources[static_cast<size_t>(order.rows[static_cast<size_t>(k)])] = found;
    }
  });
  return TakeOrNull(*values, sources, pool);
}

// ---- aggregates over frames

bool IsIntegerType(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}

// Whether a running frame of `function` is computed by RunningNumeric: count, and sum/avg of
// integers and floating point, min/max of integers (the cases where one pass with a running
// value gives exactly what the accumulator gives).
bool HasNumericRunningForm(const WindowFunction& function) {
  const std::string& name = function.function;
  if (function.distinct || function.arguments.size() > 1) {
    return false;
  }
  if (name == "count") {
    return true;
  }
  if (function.arguments.empty()) {
    return false;
  }
  const TypeId id = function.arguments[0]->Type()->Id();
  const bool floating = id == TypeId::kFloat32 || id == TypeId::kFloat64;
  if (name == "sum" || name == "avg" || name == "mean") {
    return IsIntegerType(id) || floating;
  }
  return (name == "min" || name == "max") && IsIntegerType(id);
}

// A running count/sum/avg/min/max (HasNumericRunningForm) in one pass over each partition:
// `sorted` is the argument in window order (null for count(*)).
Result<ColumnPtr> RunningNumeric(const WindowFunction& function, const WindowOrder& order,
                                 FrameResolver& frames, const ColumnPtr& sorted, MemoryPool* pool) {
  const std::string& name = function.function;
  const size_t n = order.rows.size();
  const bool floating_input = sorted != nullptr && (sorted->Type()->Id() == TypeId::kFloat32 ||
                                                    sorted->Type()->Id() == TypeId::kFloat64);
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  if (sorted != nullptr) {
    auto load = [&](auto* values, auto& out) {
      out.resize(n);
      for (size_t k = 0; k < n; ++k) {
        // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 values are numbers, sign kept
        out[k] = static_cast<std::remove_reference_t<decltype(out[0])>>(values[k]);
      }
    };
    switch (sorted->Type()->Id()) {
      case TypeId::kInt8:
        load(sorted->Values<int8_t>(), ints);
        break;
      case TypeId::kInt16:
        load(sorted->Values<int16_t>(), ints);
        break;
      case TypeId::kInt32:
        load(sorted->Values<int32_t>(), ints);
        break;
      case TypeId::kInt64:
        load(sorted->Values<int64_t>(), ints);
        break;
      case TypeId::kFloat32:
        load(sorted->Values<float>(), doubles);
        break;
      case TypeId::kFloat64:
        load(sorted->Values<double>(), doubles);
        break;
      default:
        // Only count takes other types: it reads validity alone.
        break;
    }
  }
  const bool is_count = name == "count";
  const bool is_average = name == "avg" || name == "mean";
  const bool is_min = name == "min";
  const bool is_max = name == "max";
  const bool double_result = is_average || floating_input;
  std::vector<int64_t> int_out(double_result ? 0 : n);
  std::vector<double> double_out(double_result ? n : 0);
  std::vector<uint8_t> valid_out(n);
  Status status;
  ForEachPartition(order, [&](int64_t start, int64_t end) {
    if (!status.ok()) {
      return;
    }
    frames.StartPartition(start, end);
    int64_t count = 0;
    int64_t int_value = 0;
    double double_sum = 0;
    int64_t folded = start;
    for (int64_t k = start; k < end; ++k) {
      const int64_t frame_end = frames.Frame(k).second;
      for (; folded < frame_end; ++folded) {
        const auto j = static_cast<size_t>(folded);
        if (sorted != nullptr && !sorted->IsValid(folded)) {
          continue;
        }
        if (is_count) {
          ++count;
        } else if (double_result) {
          double_sum += floating_input ? doubles[j] : static_cast<double>(ints[j]);
          ++count;
        } else if (is_min || is_max) {
          int_value = count == 0 ? ints[j]
                      : is_min   ? std::min(int_value, ints[j])
                                 : std::max(int_value, ints[j]);
          ++count;
        } else {
          if (__builtin_add_overflow(int_value, ints[j], &int_value)) {
            status = Status::InvalidArgument(fmt::format(
                "[ARITHMETIC_OVERFLOW] sum overflows bigint in a window frame (input row {})",
                order.rows[j]));
            return;
          }
          ++count;
        }
      }
      const auto row = static_cast<size_t>(order.rows[static_cast<size_t>(k)]);
      valid_out[row] = is_count || count > 0 ? 1 : 0;
      if (is_count) {
        int_out[row] = count;
      } else if (double_result) {
        double_out[row] =
            is_average && count > 0 ? double_sum / static_cast<double>(count) : double_sum;
      } else {
        int_out[row] = int_value;
      }
    }
  });
  TRIBUTARY_RETURN_NOT_OK(status);
  columnar::ColumnBuilder builder(function.type, pool);
  builder.Reserve(static_cast<int64_t>(n));
  for (size_t r = 0; r < n; ++r) {
    if (valid_out[r] == 0) {
      builder.AppendNull();
    } else if (double_result) {
      builder.AppendDouble(double_out[r]);
    } else {
      builder.AppendInt(int_out[r]);
    }
  }
  return builder.Finish();
}

class FrameAggregation {
 public:
  FrameAggregation(const WindowFunction& function, const WindowOrder& order, MemoryPool* pool)
      : function_(function), order_(order), pool_(pool), index_(order.rows.size(), -1) {}

  Status Run(const RecordBatch& batch, const expr::EvalContext& context, FrameResolver& frames) {
    call_.function = function_.function;
    call_.arguments = function_.arguments;
    call_.distinct = function_.distinct;
    TRIBUTARY_ASSIGN_OR_RAISE(auto probe, MakeAccumulator(call_, pool_, &value_arguments_));
    (void)probe;
    const std::vector<expr::BoundExprPtr> evaluated(
        function_.arguments.begin(),
        function_.arguments.begin() + static_cast<std::ptrdiff_t>(value_arguments_));
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> args, EvaluateAll(evaluated, batch, context));
    // The arguments in window order: frames are ranges of positions.
    for (const ColumnPtr& arg : args) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr sorted, columnar::Take(*arg, order_.rows, pool_));
      sorted_args_.push_back(std::move(sorted));
    }
    const bool from_partition_start =
        function_.frame_start.kind == WindowFrameBound::Kind::kUnboundedPreceding;
    const bool to_partition_end =
        function_.frame_end.kind == WindowFrameBound::Kind::kUnboundedFollowing;
    if (from_partition_start && to_partition_end) {
      return WholePartitions();
    }
    if (from_partition_start && HasNumericRunningForm(function_)) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          ColumnPtr values,
          RunningNumeric(function_, order_, frames,
                         sorted_args_.empty() ? nullptr : sorted_args_.front(), pool_));
      pieces_.push_back(std::move(values));
      std::iota(index_.begin(), index_.end(), 0);
      return Status::OK();
    }
    if (from_partition_start) {
      return RunningFrames(frames);
    }
    return SlidingFrames(frames);
  }

  /// The result, one value per input row.
  Result<ColumnPtr> Values() {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values, columnar::Concatenate(pieces_, pool_));
    return columnar::Take(*values, index_, pool_);
  }

 private:
  Result<std::unique_ptr<Accumulator>> NewAccumulator() {
    size_t ignored = 0;
    return MakeAccumulator(call_, pool_, &ignored);
  }

  GroupNamer Namer() const {
    return [this](int32_t) {
      return fmt::format("(window function {})", function_.function);
    };
  }

  // Each partition is one group, folded once.
  Status WholePartitions() {
    const int64_t partitions = static_cast<int64_t>(order_.partition_starts.size()) - 1;
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Accumulator> accumulator, NewAccumulator());
    TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(partitions));
    std::vector<int32_t> groups(order_.rows.size());
    int32_t partition = 0;
    ForEachPartition(order_, [&](int64_t start, int64_t end) {
      for (int64_t k = start; k < end; ++k) {
        groups[static_cast<size_t>(k)] = partition;
        index_[static_cast<size_t>(order_.rows[static_cast<size_t>(k)])] = partition;
      }
      ++partition;
    });
    TRIBUTARY_RETURN_NOT_OK(accumulator->Update(sorted_args_, groups.data(),
                                                static_cast<int64_t>(groups.size()), Namer()));
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values,
                              accumulator->Finish(partitions, function_.type, Namer(), pool_));
    pieces_.push_back(std::move(values));
    return Status::OK();
  }

  // Frames that start at the partition's start and whose end never moves back: each row is
  // folded once, and the value is read whenever the frame's end has moved.
  Status RunningFrames(FrameResolver& frames) {
    int64_t piece = 0;
    Status status;
    ForEachPartition(order_, [&](int64_t start, int64_t end) {
      if (!status.ok()) {
        return;
      }
      status = [&]() -> Status {
        frames.StartPartition(start, end);
        TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Accumulator> accumulator, NewAccumulator());
        TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(1));
        int64_t folded = start;
        int64_t last_end = -1;
        std::vector<int32_t> zeros;
        for (int64_t k = start; k < end; ++k) {
          const int64_t frame_end = frames.Frame(k).second;
          if (frame_end != last_end) {
            if (frame_end > folded) {
              zeros.assign(static_cast<size_t>(frame_end - folded), 0);
              std::vector<ColumnPtr> slice;
              for (const ColumnPtr& arg : sorted_args_) {
                TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr part, Slice(*arg, folded, frame_end));
                slice.push_back(std::move(part));
              }
              TRIBUTARY_RETURN_NOT_OK(
                  accumulator->Update(slice, zeros.data(), frame_end - folded, Namer()));
              folded = frame_end;
            }
            TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr value,
                                      accumulator->Finish(1, function_.type, Namer(), pool_));
            pieces_.push_back(std::move(value));
            ++piece;
            last_end = frame_end;
          }
          index_[static_cast<size_t>(order_.rows[static_cast<size_t>(k)])] = piece - 1;
        }
        return Status::OK();
      }();
    });
    return status;
  }

  // Any other frame: each row is a group of its own, fed its frame's rows, a chunk of rows at
  // a time.
  Status SlidingFrames(FrameResolver& frames) {
    std::vector<int64_t> gathered;
    std::vector<int32_t> groups;
    std::vector<int64_t> chunk_rows;
    int64_t produced = 0;
    auto flush = [&]() -> Status {
      if (chunk_rows.empty()) {
        return Status::OK();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Accumulator> accumulator, NewAccumulator());
      const auto chunk = static_cast<int64_t>(chunk_rows.size());
      TRIBUTARY_RETURN_NOT_OK(accumulator->Resize(chunk));
      std::vector<ColumnPtr> args;
      for (const ColumnPtr& arg : sorted_args_) {
        TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr part, columnar::Take(*arg, gathered, pool_));
        args.push_back(std::move(part));
      }
      TRIBUTARY_RETURN_NOT_OK(
          accumulator->Update(args, groups.data(), static_cast<int64_t>(groups.size()), Namer()));
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values,
                                accumulator->Finish(chunk, function_.type, Namer(), pool_));
      pieces_.push_back(std::move(values));
      for (size_t i = 0; i < chunk_rows.size(); ++i) {
        index_[static_cast<size_t>(chunk_rows[i])] = produced + static_cast<int64_t>(i);
      }
      produced += chunk;
      gathered.clear();
      groups.clear();
      chunk_rows.clear();
      return Status::OK();
    };
    Status status;
    ForEachPartition(order_, [&](int64_t start, int64_t end) {
      frames.StartPartition(start, end);
      for (int64_t k = start; k < end && status.ok(); ++k) {
        const auto [first, last] = frames.Frame(k);
        const auto group = static_cast<int32_t>(chunk_rows.size());
        for (int64_t j = first; j < last; ++j) {
          gathered.push_back(j);
          groups.push_back(group);
        }
        chunk_rows.push_back(order_.rows[static_cast<size_t>(k)]);
        if (static_cast<int64_t>(gathered.size()) >= kFrameChunkRows) {
          status = flush();
        }
      }
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return flush();
  }

  Result<ColumnPtr> Slice(const Column& column, int64_t begin, int64_t end) {
    std::vector<int64_t> rows(static_cast<size_t>(end - begin));
    std::iota(rows.begin(), rows.end(), begin);
    return columnar::Take(column, rows, pool_);
  }

  const WindowFunction& function_;
  const WindowOrder& order_;
  MemoryPool* pool_;
  AggregateCall call_;
  size_t value_arguments_ = 0;
  std::vector<ColumnPtr> sorted_args_;
  std::vector<ColumnPtr> pieces_;
  // Per input row: its value's index in the concatenated pieces.
  std::vector<int64_t> index_;
};

bool IsRankingFunction(const std::string& name) {
  return name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
         name == "cume_dist" || name == "ntile";
}

Result<ColumnPtr> ComputeWindowFunction(const WindowFunction& function, const WindowOrder& order,
                                        const RecordBatch& batch, const expr::EvalContext& context,
                                        MemoryPool* pool) {
  if (IsRankingFunction(function.function)) {
    return Ranking(function, order, pool);
  }
  if (function.function == "lag" || function.function == "lead") {
    return LagLead(function, order, batch, context, pool);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(FrameResolver frames,
                            MakeFrameResolver(function, order, batch, context));
  if (function.function == "nth_value") {
    return NthValue(function, order, frames, batch, context, pool);
  }
  FrameAggregation aggregation(function, order, pool);
  TRIBUTARY_RETURN_NOT_OK(aggregation.Run(batch, context, frames));
  return aggregation.Values();
}

// The text identifying a function's ordering: functions with equal texts share one sort.
std::string OrderingText(const WindowFunction& function) {
  std::string text;
  for (const expr::BoundExprPtr& key : function.partition_keys) {
    text += key->ToString() + ",";
  }
  text += "|";
  for (const SortKey& key : function.order_keys) {
    text += fmt::format("{} {} {},", key.expression->ToString(), key.ascending, key.nulls_first);
  }
  return text;
}

}  // namespace

WindowOperator::WindowOperator(std::shared_ptr<const WindowNode> node, OperatorPtr input,
                               const ExecContext& context)
    : node_(std::move(node)), input_(std::move(input)), context_(context) {}

Status WindowOperator::Consume() {
  std::vector<std::vector<ColumnPtr>> parts;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    if (batch->NumRows() > 0) {
      parts.push_back(batch->Columns());
    }
  }
  if (parts.empty()) {
    return Status::OK();
  }
  const columnar::SchemaPtr& input_schema = input_->OutputSchema();
  std::vector<ColumnPtr> columns;
  for (int c = 0; c < input_schema->NumFields(); ++c) {
    std::vector<ColumnPtr> pieces;
    pieces.reserve(parts.size());
    for (const std::vector<ColumnPtr>& part : parts) {
      pieces.push_back(part[static_cast<size_t>(c)]);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Concatenate(pieces, context_.pool));
    columns.push_back(std::move(column));
  }
  parts.clear();
  rows_ = columns.empty() ? 0 : columns.front()->Length();
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr all, RecordBatch::Make(input_schema, rows_, columns));
  const std::vector<WindowFunction>& functions = node_->Functions();
  if (functions.size() == 1 && functions.front().group_limit.has_value()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        all, RowsWithinGroupLimit(functions.front(), all, context_.eval, context_.pool));
    rows_ = all->NumRows();
    columns = all->Columns();
  }
  std::vector<std::pair<std::string, WindowOrder>> orders;
  for (const WindowFunction& function : functions) {
    const std::string text = OrderingText(function);
    auto same = std::find_if(orders.begin(), orders.end(),
                             [&](const auto& entry) { return entry.first == text; });
    if (same == orders.end()) {
      TRIBUTARY_ASSIGN_OR_RAISE(WindowOrder order, SortRows(function, *all, context_.eval));
      orders.emplace_back(text, std::move(order));
      same = orders.end() - 1;
    }
    auto result = ComputeWindowFunction(function, same->second, *all, context_.eval, context_.pool);
    if (!result.ok()) {
      return result.status().WithContext(fmt::format("in window function {}", function.function));
    }
    columns.push_back(*std::move(result));
  }
  output_ = std::move(columns);
  return Status::OK();
}

Result<RecordBatchPtr> WindowOperator::Next() {
  if (!consumed_) {
    consumed_ = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("window"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, NextSlice(OutputSchema(), output_, rows_,
                                                            &emitted_, context_.eval.pool));
  if (batch == nullptr) {
    output_.clear();
  }
  return batch;
}

}  // namespace tributary::exec

// median, percentile and percentile_approx. Serialized state (Accumulator::SerializeState):
//   count: u32, then count entries of value: f64, frequency: i64
// (the group's values in arrival order; percentile's frequencies, 1 for the others).

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

using Entry = std::pair<double, int64_t>;

// Calls f(row, value) for every valid row, as a double: numbers, and percentile_approx's dates
// (days) and timestamps (microseconds).
template <typename F>
void VisitValidValues(const Column& column, int64_t rows, F&& f) {
  switch (column.Type()->Id()) {
    case TypeId::kDate:
      return VisitValidAs<int32_t>(column, rows, f);
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return VisitValidAs<int64_t>(column, rows, f);
    default:
      return VisitValidDoubles(column, rows, f);
  }
}

// Keeps every value of each group (as a double, as Spark's percentile does) and computes the
// percentages at Finish. percentile_approx is computed exactly: the value Spark's
// Greenwald-Khanna summary returns while it holds every value (up to `accuracy` values), and
// within its error bound beyond.
class PercentileAccumulator final : public Accumulator {
 public:
  PercentileAccumulator(PercentileOptions options, MemoryPool*) : options_(std::move(options)) {}
  Status Resize(int64_t groups) override {
    entries_.resize(static_cast<size_t>(groups));
    return Status::OK();
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    if (!options_.frequency) {
      VisitValidValues(*args[0], rows, [&](int64_t i, auto v) {
        entries_[static_cast<size_t>(groups[i])].emplace_back(static_cast<double>(v), 1);
      });
      return Status::OK();
    }
    // percentile(value, p, frequency): rows with a null value or frequency, or a zero
    // frequency, count for nothing; a negative frequency is an error.
    const Column& frequency = *args[2];
    frequencies_.assign(static_cast<size_t>(rows), 0);
    int64_t negative_row = -1;
    VisitValidNative(frequency, rows, [&](int64_t i, auto f) {
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): a tinyint frequency is a number
      frequencies_[static_cast<size_t>(i)] = static_cast<int64_t>(f);
      if (f < 0 && negative_row < 0) {
        negative_row = i;
      }
    });
    if (negative_row >= 0) {
      return Status::InvalidArgument(fmt::format(
          "[NEGATIVE_VALUES_NOT_ALLOWED] percentile: the frequency must not be negative, got {} "
          "in group {}",
          frequencies_[static_cast<size_t>(negative_row)], namer(groups[negative_row])));
    }
    VisitValidValues(*args[0], rows, [&](int64_t i, auto v) {
      const int64_t f = frequencies_[static_cast<size_t>(i)];
      if (f > 0) {
        entries_[static_cast<size_t>(groups[i])].emplace_back(static_cast<double>(v), f);
      }
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    const size_t per_group = options_.percentages.size();
    std::vector<double> results;
    results.reserve(static_cast<size_t>(groups) * per_group);
    std::vector<uint8_t> valid(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      std::vector<Entry>& entries = entries_[static_cast<size_t>(g)];
      if (entries.empty()) {
        continue;
      }
      valid[static_cast<size_t>(g)] = 1;
      // Spark's order of doubles: NaN above every number.
      std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
        return options_.reverse ? OrderedLess(b.first, a.first) : OrderedLess(a.first, b.first);
      });
      for (double percentage : options_.percentages) {
        if (options_.approximate) {
          results.push_back(Approximate(entries, percentage));
        } else if (options_.discrete) {
          results.push_back(Discrete(entries, percentage));
        } else {
          results.push_back(Interpolate(entries, percentage));
        }
      }
    }
    const DataTypePtr& value_type = options_.array ? type->ElementType() : type;
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr values, ToValues(results, value_type, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(groups), pool));
    for (int64_t g = 0; g < groups; ++g) {
      columnar::SetBitTo(bits->mutable_data(), g, valid[static_cast<size_t>(g)] != 0);
    }
    if (!options_.array) {
      // One result per valid group: spread them to their groups' rows.
      std::vector<int64_t> rows(static_cast<size_t>(groups), -1);
      int64_t next = 0;
      for (int64_t g = 0; g < groups; ++g) {
        if (valid[static_cast<size_t>(g)] != 0) {
          rows[static_cast<size_t>(g)] = next++;
        }
      }
      return TakeOrNull(*values, rows, pool);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((groups + 1) * 8, pool));
    int64_t* out_offsets = offsets->MutableDataAs<int64_t>();
    int64_t at = 0;
    for (int64_t g = 0; g < groups; ++g) {
      out_offsets[g] = at;
      at += valid[static_cast<size_t>(g)] != 0 ? static_cast<int64_t>(per_group) : 0;
    }
    out_offsets[groups] = at;
    return Column::Make(type, groups, std::move(bits), nullptr, std::move(offsets), {values});
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    const std::vector<Entry>& entries = entries_[static_cast<size_t>(group)];
    AppendRaw(out, static_cast<uint32_t>(entries.size()));
    for (const Entry& entry : entries) {
      AppendRaw(out, entry.first);
      AppendRaw(out, entry.second);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "percentile state");
    uint32_t count = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&count));
    std::vector<Entry>& entries = entries_[static_cast<size_t>(group)];
    entries.clear();
    for (uint32_t k = 0; k < count; ++k) {
      Entry entry;
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&entry.first));
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&entry.second));
      if (entry.second <= 0) {
        return Status::Corruption(
            fmt::format("percentile state: frequency {} of entry {}", entry.second, k));
      }
      entries.push_back(entry);
    }
    return reader.Finish();
  }

 private:
  // Spark's percentile: the value at position (n - 1) * p of the sorted values (each repeated
  // by its frequency), interpolated linearly between its neighbours.
  static double Interpolate(const std::vector<Entry>& sorted, double percentage) {
    int64_t total = 0;
    for (const Entry& entry : sorted) {
      total += entry.second;
    }
    const double position = static_cast<double>(total - 1) * percentage;
    const auto lower = static_cast<int64_t>(std::floor(position));
    const auto higher = static_cast<int64_t>(std::ceil(position));
    const double lower_value = ValueAtRank(sorted, lower);
    if (lower == higher) {
      return lower_value;
    }
    const double higher_value = ValueAtRank(sorted, higher);
    if (higher_value == lower_value) {
      return lower_value;
    }
    return (static_cast<double>(higher) - position) * lower_value +
           (position - static_cast<double>(lower)) * higher_value;
  }

  // Spark 4's percentile_disc: the first value whose cumulative count reaches n * p.
  static double Discrete(const std::vector<Entry>& sorted, double percentage) {
    int64_t total = 0;
    for (const Entry& entry : sorted) {
      total += entry.second;
    }
    const auto higher = static_cast<int64_t>(std::ceil(static_cast<double>(total) * percentage));
    return ValueAtRank(sorted, std::max<int64_t>(higher, 1) - 1);
  }

  // The value at 0-based `rank` of the sorted values repeated by their frequencies.
  static double ValueAtRank(const std::vector<Entry>& sorted, int64_t rank) {
    int64_t seen = 0;
    for (const Entry& entry : sorted) {
      seen += entry.second;
      if (seen > rank) {
        return entry.first;
      }
    }
    return sorted.back().first;
  }

  // What Spark's summary returns holding every value: the first value for p <= 1/accuracy, the
  // last for p >= 1 - 1/accuracy, otherwise the value of rank ceil(p * n) (1-based).
  double Approximate(const std::vector<Entry>& sorted, double percentage) const {
    const double relative_error = 1.0 / static_cast<double>(options_.accuracy);
    const auto n = static_cast<int64_t>(sorted.size());
    if (percentage <= relative_error) {
      return sorted.front().first;
    }
    if (percentage >= 1 - relative_error) {
      return sorted.back().first;
    }
    const auto rank = static_cast<int64_t>(std::ceil(percentage * static_cast<double>(n)));
    return sorted[static_cast<size_t>(std::clamp<int64_t>(rank - 1, 0, n - 1))].first;
  }

  // `results` as a column of `type`: double for percentile; the value's own type for
  // percentile_approx, converted back as Spark does (truncating integers, decimals rounded to
  // the type's scale).
  static Result<ColumnPtr> ToValues(const std::vector<double>& results, const DataTypePtr& type,
                                    MemoryPool* pool) {
    const auto n = static_cast<int64_t>(results.size());
    switch (type->Id()) {
      case TypeId::kFloat64:
      case TypeId::kFloat32:
        return MakeFixedColumn<double>(type, results.data(), nullptr, n, pool);
      case TypeId::kDecimal: {
        const double scale = std::pow(10.0, type->Scale());
        std::vector<Int128> unscaled(results.size());
        for (size_t k = 0; k < results.size(); ++k) {
          unscaled[k] = static_cast<Int128>(std::llround(results[k] * scale));
        }
        return MakeFixedColumn<Int128>(type, unscaled.data(), nullptr, n, pool);
      }
      default: {
        std::vector<int64_t> integers(results.size());
        for (size_t k = 0; k < results.size(); ++k) {
          integers[k] = static_cast<int64_t>(results[k]);
        }
        return MakeFixedColumn<int64_t>(type, integers.data(), nullptr, n, pool);
      }
    }
  }

  PercentileOptions options_;
  std::vector<std::vector<Entry>> entries_;
  std::vector<int64_t> frequencies_;  // per-batch scratch
};

}  // namespace

std::unique_ptr<Accumulator> MakePercentileAccumulator(PercentileOptions options,
                                                       MemoryPool* pool) {
  return std::make_unique<PercentileAccumulator>(std::move(options), pool);
}

}  // namespace tributary::exec::aggregate

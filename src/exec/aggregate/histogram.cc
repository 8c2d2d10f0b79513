// histogram_numeric's serialized state (Accumulator::SerializeState):
//   random: u64 (the tie-breaking generator's 48-bit state), count: u32, then count bins of
//   x: f64 (centre), y: f64 (height), in ascending x.

#include <algorithm>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// java.util.Random's generator, which Spark's histogram uses (seeded with 31183) to choose
// among equally close pairs of bins: the same seed gives the same merges, so the same bins.
class JavaRandom {
 public:
  static constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr uint64_t kMask = (1ULL << 48) - 1;

  static uint64_t Seeded(uint64_t seed) { return (seed ^ kMultiplier) & kMask; }

  static double NextDouble(uint64_t* state) {
    const auto high = static_cast<uint64_t>(Next(state, 26));
    const auto low = static_cast<uint64_t>(Next(state, 27));
    return static_cast<double>((high << 27) + low) * 0x1.0p-53;
  }

 private:
  static uint32_t Next(uint64_t* state, int bits) {
    *state = (*state * kMultiplier + 0xBULL) & kMask;
    return static_cast<uint32_t>(*state >> (48 - bits));
  }
};

struct Bin {
  double x;
  double y;
};

struct Histogram {
  uint64_t random = JavaRandom::Seeded(31183);
  std::vector<Bin> bins;
};

// The streaming histogram of Ben-Haim and Tom-Tov as Spark (after Hive) builds it: each value
// joins the bin centred on it or becomes a bin of its own, and while there are more than
// `bins` bins the two closest merge into their weighted mean.
class HistogramAccumulator final : public Accumulator {
 public:
  HistogramAccumulator(int64_t max_bins, MemoryPool*) : max_bins_(max_bins) {}
  Status Resize(int64_t groups) override {
    histograms_.resize(static_cast<size_t>(groups));
    return Status::OK();
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    const auto add = [&](int64_t i, auto v) {
      Add(&histograms_[static_cast<size_t>(groups[i])], static_cast<double>(v));
    };
    switch (args[0]->Type()->Id()) {
      case TypeId::kDate:
      case TypeId::kYearMonthInterval:
        VisitValidAs<int32_t>(*args[0], rows, add);
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
      case TypeId::kDayTimeInterval:
        VisitValidAs<int64_t>(*args[0], rows, add);
        break;
      default:
        VisitValidDoubles(*args[0], rows, add);
        break;
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    const DataTypePtr& bin_type = type->ElementType();
    const DataTypePtr& x_type = bin_type->Fields()[0].Type();
    std::vector<double> xs;
    std::vector<double> ys;
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((groups + 1) * 8, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity, Buffer::Allocate(columnar::BitmapBytes(groups), pool));
    int64_t* out_offsets = offsets->MutableDataAs<int64_t>();
    for (int64_t g = 0; g < groups; ++g) {
      out_offsets[g] = static_cast<int64_t>(xs.size());
      const std::vector<Bin>& bins = histograms_[static_cast<size_t>(g)].bins;
      columnar::SetBitTo(validity->mutable_data(), g, !bins.empty());
      for (const Bin& bin : bins) {
        xs.push_back(bin.x);
        ys.push_back(bin.y);
      }
    }
    out_offsets[groups] = static_cast<int64_t>(xs.size());
    const auto n = static_cast<int64_t>(xs.size());
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr x, CenterColumn(xs, x_type, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(
        ColumnPtr y, MakeFixedColumn<double>(DataType::Float64(), ys.data(), nullptr, n, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr bins,
                              Column::Make(bin_type, n, nullptr, nullptr, nullptr, {x, y}));
    return Column::Make(type, groups, std::move(validity), nullptr, std::move(offsets), {bins});
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    const Histogram& histogram = histograms_[static_cast<size_t>(group)];
    AppendRaw(out, histogram.random);
    AppendRaw(out, static_cast<uint32_t>(histogram.bins.size()));
    for (const Bin& bin : histogram.bins) {
      AppendRaw(out, bin.x);
      AppendRaw(out, bin.y);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "histogram_numeric state");
    Histogram histogram;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&histogram.random));
    uint32_t count = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&count));
    if (count > max_bins_) {
      return Status::Corruption(
          fmt::format("histogram_numeric state: {} bins, at most {}", count, max_bins_));
    }
    for (uint32_t k = 0; k < count; ++k) {
      Bin bin{};
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&bin.x));
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&bin.y));
      histogram.bins.push_back(bin);
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    histograms_[static_cast<size_t>(group)] = std::move(histogram);
    return Status::OK();
  }

 private:
  void Add(Histogram* histogram, double v) const {
    std::vector<Bin>& bins = histogram->bins;
    // The first bin not below v (Spark's binary search lands on the same one).
    const auto at = std::lower_bound(bins.begin(), bins.end(), v,
                                     [](const Bin& bin, double value) { return bin.x < value; });
    if (at != bins.end() && at->x == v) {
      at->y += 1;
      return;
    }
    bins.insert(at, Bin{v, 1});
    while (static_cast<int64_t>(bins.size()) > max_bins_) {
      Trim(histogram);
    }
  }

  // Merges the closest pair of bins; ties are broken as Spark breaks them (reservoir choice
  // with its generator).
  static void Trim(Histogram* histogram) {
    std::vector<Bin>& bins = histogram->bins;
    double smallest = bins[1].x - bins[0].x;
    size_t location = 0;
    int64_t ties = 1;
    for (size_t i = 1; i + 1 < bins.size(); ++i) {
      const double diff = bins[i + 1].x - bins[i].x;
      if (diff < smallest) {
        smallest = diff;
        location = i;
        ties = 1;
      } else if (diff == smallest &&
                 JavaRandom::NextDouble(&histogram->random) <= 1.0 / static_cast<double>(++ties)) {
        location = i;
      }
    }
    Bin& merged = bins[location];
    const Bin& next = bins[location + 1];
    const double d = merged.y + next.y;
    merged.x *= merged.y / d;
    merged.x += next.x / d * next.y;
    merged.y = d;
    bins.erase(bins.begin() + static_cast<std::ptrdiff_t>(location) + 1);
  }

  // Bin centres in the value's type, converted as Spark converts them (truncating to integers,
  // decimals rounded to their scale).
  static Result<ColumnPtr> CenterColumn(const std::vector<double>& xs, const DataTypePtr& type,
                                        MemoryPool* pool) {
    const auto n = static_cast<int64_t>(xs.size());
    switch (type->Id()) {
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        return MakeFixedColumn<double>(type, xs.data(), nullptr, n, pool);
      case TypeId::kDecimal: {
        const double scale = std::pow(10.0, type->Scale());
        std::vector<Int128> unscaled(xs.size());
        for (size_t k = 0; k < xs.size(); ++k) {
          unscaled[k] = static_cast<Int128>(std::llround(xs[k] * scale));
        }
        return MakeFixedColumn<Int128>(type, unscaled.data(), nullptr, n, pool);
      }
      default: {
        std::vector<int64_t> integers(xs.size());
        for (size_t k = 0; k < xs.size(); ++k) {
          integers[k] = static_cast<int64_t>(xs[k]);
        }
        return MakeFixedColumn<int64_t>(type, integers.data(), nullptr, n, pool);
      }
    }
  }

  int64_t max_bins_;
  std::vector<Histogram> histograms_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeHistogramAccumulator(int64_t max_bins, MemoryPool* pool) {
  return std::make_unique<HistogramAccumulator>(max_bins, pool);
}

}  // namespace tributary::exec::aggregate

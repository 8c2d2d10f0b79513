// approx_count_distinct's serialized state (Accumulator::SerializeState): the group's 2^p
// registers, one byte each (p fixed by relativeSD, so the size is known to the reader).

#include <bit>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

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
  Status SerializeState(int32_t group, std::string* out) const override {
    out->append(reinterpret_cast<const char*>(registers_.data() + group * registers_per_group_),
                static_cast<size_t>(registers_per_group_));
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "approx_count_distinct state");
    std::string_view registers;
    TRIBUTARY_RETURN_NOT_OK(
        reader.ReadBytes(static_cast<size_t>(registers_per_group_), &registers));
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    // A rank is at most 64 - p + 1 (the sentinel bit).
    for (const char c : registers) {
      if (static_cast<uint8_t>(c) > 65 - precision_) {
        return Status::Corruption(
            fmt::format("approx_count_distinct state: register value {} above {}",
                        static_cast<uint8_t>(c), 65 - precision_));
      }
    }
    std::memcpy(registers_.data() + group * registers_per_group_, registers.data(),
                registers.size());
    return Status::OK();
  }

 private:
  int precision_;
  int64_t registers_per_group_;
  PoolArray<uint8_t> registers_;
  EncodedKeys keys_;
};

}  // namespace

Result<std::unique_ptr<Accumulator>> MakeApproxCountDistinctAccumulator(double relative_sd,
                                                                        MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(int precision,
                            ApproxCountDistinctAccumulator::PrecisionFor(relative_sd));
  return std::unique_ptr<Accumulator>(
      std::make_unique<ApproxCountDistinctAccumulator>(precision, pool));
}

}  // namespace tributary::exec::aggregate

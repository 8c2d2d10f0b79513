// The variance family's serialized state (Accumulator::SerializeState): Welford's running
// count: f64, mean: f64, m2: f64 (sum of squared deviations).

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

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
  Status SerializeState(int32_t group, std::string* out) const override {
    AppendRaw(out, counts_[group]);
    AppendRaw(out, means_[group]);
    AppendRaw(out, m2_[group]);
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "variance state");
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&counts_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&means_[group]));
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&m2_[group]));
    return reader.Finish();
  }

 private:
  AggregateKind kind_;
  PoolArray<double> counts_;
  PoolArray<double> means_;
  PoolArray<double> m2_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeVarianceAccumulator(AggregateKind kind, MemoryPool* pool) {
  return std::make_unique<VarianceAccumulator>(kind, pool);
}

}  // namespace tributary::exec::aggregate

// The variance family's serialized state (Accumulator::SerializeState): Welford's running
// count: f64, mean: f64, m2: f64 (sum of squared deviations); skewness and kurtosis add
// m3: f64, m4: f64 (sums of cubed and fourth-power deviations).

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

// skewness and kurtosis: the higher central moments, stepped as Spark's CentralMomentAgg
// steps them (so that results agree to the last bit).
class CentralMomentAccumulator final : public Accumulator {
 public:
  CentralMomentAccumulator(AggregateKind kind, MemoryPool* pool)
      : kind_(kind), n_(pool), avg_(pool), m2_(pool), m3_(pool), m4_(pool) {}
  Status Resize(int64_t groups) override {
    for (PoolArray<double>* array : {&n_, &avg_, &m2_, &m3_, &m4_}) {
      TRIBUTARY_RETURN_NOT_OK(array->Resize(groups));
    }
    return Status::OK();
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    double* n = n_.data();
    double* avg = avg_.data();
    double* m2 = m2_.data();
    double* m3 = m3_.data();
    double* m4 = m4_.data();
    VisitValidDoubles(*args[0], rows, [&](int64_t i, auto raw) {
      const auto v = static_cast<double>(raw);
      const int32_t g = groups[i];
      const double new_n = n[g] + 1.0;
      const double delta = v - avg[g];
      const double delta_n = delta / new_n;
      const double new_m2 = m2[g] + delta * (delta - delta_n);
      const double delta2 = delta * delta;
      const double delta_n2 = delta_n * delta_n;
      const double new_m3 = m3[g] - 3.0 * delta_n * new_m2 + delta * (delta2 - delta_n2);
      m4[g] = m4[g] - 4.0 * delta_n * new_m3 - 6.0 * delta_n2 * new_m2 +
              delta * (delta * delta2 - delta_n * delta_n2);
      m3[g] = new_m3;
      m2[g] = new_m2;
      avg[g] += delta_n;
      n[g] = new_n;
    });
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<double> values(static_cast<size_t>(groups));
    std::vector<uint8_t> seen(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      const double n = n_[g];
      const double m2 = m2_[g];
      // No values, or all equal: NULL (Spark 3.1+ without the legacy statistical flag).
      if (n == 0 || m2 == 0) {
        continue;
      }
      values[static_cast<size_t>(g)] = kind_ == AggregateKind::kSkewness
                                           ? std::sqrt(n) * m3_[g] / std::sqrt(m2 * m2 * m2)
                                           : n * m4_[g] / (m2 * m2) - 3.0;
      seen[static_cast<size_t>(g)] = 1;
    }
    return MakeFixedColumn<double>(type, values.data(), seen.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    for (const PoolArray<double>* array : {&n_, &avg_, &m2_, &m3_, &m4_}) {
      AppendRaw(out, (*array)[group]);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "skewness/kurtosis state");
    for (PoolArray<double>* array : {&n_, &avg_, &m2_, &m3_, &m4_}) {
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&(*array)[group]));
    }
    return reader.Finish();
  }

 private:
  AggregateKind kind_;
  PoolArray<double> n_;
  PoolArray<double> avg_;
  PoolArray<double> m2_;
  PoolArray<double> m3_;
  PoolArray<double> m4_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeCentralMomentAccumulator(AggregateKind kind, MemoryPool* pool) {
  return std::make_unique<CentralMomentAccumulator>(kind, pool);
}

std::unique_ptr<Accumulator> MakeVarianceAccumulator(AggregateKind kind, MemoryPool* pool) {
  return std::make_unique<VarianceAccumulator>(kind, pool);
}

}  // namespace tributary::exec::aggregate

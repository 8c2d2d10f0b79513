// The two-variable statistics: corr, covar_pop, covar_samp and the regr_* family (but
// regr_count, which is count(y, x)), and regr_avgx/regr_avgy's filter of rows where y or x is
// null. Serialized state (Accumulator::SerializeState) of the statistics: Welford's running
//   n: f64, avg_a: f64, avg_b: f64, ck: f64, m2_a: f64, m2_b: f64
// over the (a, b) pairs with neither null; regr_avgx/regr_avgy: their avg's state.

#include <cmath>

#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// The values of `column` as doubles, and which rows are non-null (one typed loop).
void ToDoubles(const Column& column, int64_t rows, std::vector<double>* values,
               std::vector<uint8_t>* valid) {
  values->assign(static_cast<size_t>(rows), 0.0);
  valid->assign(static_cast<size_t>(rows), 0);
  VisitValidDoubles(column, rows, [&](int64_t i, auto v) {
    (*values)[static_cast<size_t>(i)] = static_cast<double>(v);
    (*valid)[static_cast<size_t>(i)] = 1;
  });
}

// Co-moments of (a, b) pairs, updated as Spark updates them so that results agree to the last
// bit: a is the first argument except for regr_slope/regr_intercept, which Spark computes as
// covar_pop(x, y) and var_pop(x) (a = x, the second argument).
class CoMomentAccumulator final : public Accumulator {
 public:
  CoMomentAccumulator(AggregateKind kind, MemoryPool* pool)
      : kind_(kind), n_(pool), avg_a_(pool), avg_b_(pool), ck_(pool), m2_a_(pool), m2_b_(pool) {}
  Status Resize(int64_t groups) override {
    for (PoolArray<double>* array : {&n_, &avg_a_, &avg_b_, &ck_, &m2_a_, &m2_b_}) {
      TRIBUTARY_RETURN_NOT_OK(array->Resize(groups));
    }
    return Status::OK();
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    const bool swap = kind_ == AggregateKind::kRegrSlope || kind_ == AggregateKind::kRegrIntercept;
    ToDoubles(*args[swap ? 1 : 0], rows, &a_, &valid_a_);
    ToDoubles(*args[swap ? 0 : 1], rows, &b_, &valid_b_);
    // regr_sxx/syy/slope/intercept are Spark's central-moment aggregates, whose m2 step is
    // delta * (delta - delta / n); corr and regr_r2 step by delta * (value - new mean).
    const bool central =
        kind_ == AggregateKind::kRegrSxx || kind_ == AggregateKind::kRegrSyy || swap;
    double* n = n_.data();
    double* avg_a = avg_a_.data();
    double* avg_b = avg_b_.data();
    double* ck = ck_.data();
    double* m2_a = m2_a_.data();
    double* m2_b = m2_b_.data();
    for (int64_t i = 0; i < rows; ++i) {
      const auto r = static_cast<size_t>(i);
      if ((valid_a_[r] & valid_b_[r]) == 0) {
        continue;
      }
      const int32_t g = groups[i];
      const double a = a_[r];
      const double b = b_[r];
      const double new_n = n[g] + 1.0;
      const double da = a - avg_a[g];
      const double da_n = da / new_n;
      const double db = b - avg_b[g];
      const double db_n = db / new_n;
      const double new_avg_a = avg_a[g] + da_n;
      const double new_avg_b = avg_b[g] + db_n;
      ck[g] += da * (b - new_avg_b);
      if (central) {
        m2_a[g] += da * (da - da_n);
        m2_b[g] += db * (db - db_n);
      } else {
        m2_a[g] += da * (a - new_avg_a);
        m2_b[g] += db * (b - new_avg_b);
      }
      n[g] = new_n;
      avg_a[g] = new_avg_a;
      avg_b[g] = new_avg_b;
    }
    return Status::OK();
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    std::vector<double> values(static_cast<size_t>(groups));
    std::vector<uint8_t> valid(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      if (std::optional<double> value = Evaluate(g)) {
        values[static_cast<size_t>(g)] = *value;
        valid[static_cast<size_t>(g)] = 1;
      }
    }
    return MakeFixedColumn<double>(type, values.data(), valid.data(), groups, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    for (const PoolArray<double>* array : {&n_, &avg_a_, &avg_b_, &ck_, &m2_a_, &m2_b_}) {
      AppendRaw(out, (*array)[group]);
    }
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, "covariance/correlation state");
    for (PoolArray<double>* array : {&n_, &avg_a_, &avg_b_, &ck_, &m2_a_, &m2_b_}) {
      TRIBUTARY_RETURN_NOT_OK(reader.Read(&(*array)[group]));
    }
    return reader.Finish();
  }

 private:
  // Spark's result for group g; nullopt: NULL (no pairs, one pair of a sample statistic, a
  // zero variance under a division).
  std::optional<double> Evaluate(int64_t g) const {
    const double n = n_[g];
    const double ck = ck_[g];
    switch (kind_) {
      case AggregateKind::kCorr:
        // A constant column leaves the correlation undefined: NULL. (Spark 4.0 divides by zero
        // here, DIVIDE_BY_ZERO under ANSI; SPARK-58213 proposes this NULL.)
        if (n < 2 || m2_a_[g] == 0 || m2_b_[g] == 0) {
          return std::nullopt;
        }
        return ck / std::sqrt(m2_a_[g] * m2_b_[g]);
      case AggregateKind::kCovarPop:
        return n == 0 ? std::nullopt : std::optional<double>(ck / n);
      case AggregateKind::kCovarSamp:
        return n < 2 ? std::nullopt : std::optional<double>(ck / (n - 1.0));
      case AggregateKind::kRegrSxx:
        return n == 0 ? std::nullopt : std::optional<double>(m2_b_[g]);
      case AggregateKind::kRegrSyy:
        return n == 0 ? std::nullopt : std::optional<double>(m2_a_[g]);
      case AggregateKind::kRegrSxy:
        return n == 0 ? std::nullopt : std::optional<double>(ck);
      case AggregateKind::kRegrSlope:
        return m2_a_[g] == 0 ? std::nullopt : std::optional<double>(ck / m2_a_[g]);
      case AggregateKind::kRegrIntercept:
        return m2_a_[g] == 0 ? std::nullopt
                             : std::optional<double>(avg_b_[g] - ck / m2_a_[g] * avg_a_[g]);
      default: {
        // regr_r2(y, x): NULL when y is constant, 1 when x is (Spark's order of the checks).
        if (m2_a_[g] == 0) {
          return std::nullopt;
        }
        if (m2_b_[g] == 0) {
          return 1.0;
        }
        const double corr = ck / std::sqrt(m2_a_[g] * m2_b_[g]);
        return corr * corr;
      }
    }
  }

  AggregateKind kind_;
  PoolArray<double> n_;
  PoolArray<double> avg_a_;
  PoolArray<double> avg_b_;
  PoolArray<double> ck_;
  PoolArray<double> m2_a_;
  PoolArray<double> m2_b_;
  // Per-batch scratch.
  std::vector<double> a_;
  std::vector<double> b_;
  std::vector<uint8_t> valid_a_;
  std::vector<uint8_t> valid_b_;
};

// Passes `inner` argument `value_index` alone, nulled on the rows where any argument is null.
class PairFilterAccumulator final : public Accumulator {
 public:
  PairFilterAccumulator(std::unique_ptr<Accumulator> inner, size_t value_index, MemoryPool* pool)
      : inner_(std::move(inner)), value_index_(value_index), pool_(pool) {}
  Status Resize(int64_t groups) override { return inner_->Resize(groups); }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer& namer) override {
    const Column& value = *args[value_index_];
    for (const ColumnPtr& arg : args) {
      if (arg->Type()->Id() == TypeId::kNull) {
        return Status::OK();  // no pair of this batch has both values
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(rows), pool_));
    for (int64_t i = 0; i < rows; ++i) {
      bool valid = true;
      for (const ColumnPtr& arg : args) {
        valid = valid && arg->IsValid(i);
      }
      columnar::SetBitTo(bits->mutable_data(), i, valid);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        ColumnPtr filtered, Column::Make(value.Type(), rows, std::move(bits), value.ValuesBuffer(),
                                         value.OffsetsBuffer(), value.Children()));
    const ColumnPtr inner_args[] = {filtered};
    return inner_->Update(inner_args, groups, rows, namer);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                           MemoryPool* pool) override {
    return inner_->Finish(groups, type, namer, pool);
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    return inner_->SerializeState(group, out);
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    return inner_->DeserializeState(group, bytes);
  }

 private:
  std::unique_ptr<Accumulator> inner_;
  size_t value_index_;
  MemoryPool* pool_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeCoMomentAccumulator(AggregateKind kind, MemoryPool* pool) {
  return std::make_unique<CoMomentAccumulator>(kind, pool);
}

std::unique_ptr<Accumulator> MakePairFilterAccumulator(std::unique_ptr<Accumulator> inner,
                                                       size_t value_index, MemoryPool* pool) {
  return std::make_unique<PairFilterAccumulator>(std::move(inner), value_index, pool);
}

}  // namespace tributary::exec::aggregate

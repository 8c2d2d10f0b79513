#include "expr/aggregate_signatures.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "columnar/decimal.h"
#include "common/ascii.h"
#include "expr/nested_values.h"

namespace tributary::expr {

namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::TypeId;
using Types = std::vector<DataTypePtr>;

bool IsNumericOrNull(const DataType& type) {
  return type.IsNumeric() || type.Id() == TypeId::kNull;
}

Result<DataTypePtr> BigintResult(const Types&) {
  return DataType::Int64();
}

Result<DataTypePtr> CountIfResult(const Types& types) {
  return types[0]->Id() == TypeId::kBoolean ? DataType::Int64() : DataTypePtr();
}

// Spark's Sum and Average also take ANSI intervals, and give the interval's type.
bool IsAnsiIntervalArgument(const DataType& type) {
  return type.Id() == TypeId::kYearMonthInterval || type.Id() == TypeId::kDayTimeInterval;
}

Result<DataTypePtr> SumResult(const Types& types) {
  const DataTypePtr& type = types[0];
  if (IsAnsiIntervalArgument(*type)) {
    return type;
  }
  if (!IsNumericOrNull(*type)) {
    return DataTypePtr();
  }
  if (type->Id() == TypeId::kDecimal) {
    return DataType::Decimal(std::min(columnar::kMaxDecimalPrecision, type->Precision() + 10),
                             type->Scale());
  }
  return type->IsInteger() ? DataType::Int64() : DataType::Float64();
}

Result<DataTypePtr> AvgResult(const Types& types) {
  const DataTypePtr& type = types[0];
  if (IsAnsiIntervalArgument(*type)) {
    return type;
  }
  if (!IsNumericOrNull(*type)) {
    return DataTypePtr();
  }
  if (type->Id() == TypeId::kDecimal) {
    return DataType::Decimal(std::min(columnar::kMaxDecimalPrecision, type->Precision() + 4),
                             std::min(columnar::kMaxDecimalPrecision, type->Scale() + 4));
  }
  return DataType::Float64();
}

Result<DataTypePtr> MinMaxResult(const Types& types) {
  return IsOrderable(*types[0]) ? types[0] : DataTypePtr();
}

Result<DataTypePtr> FirstLastResult(const Types& types) {
  if (types.size() == 2 && types[1]->Id() != TypeId::kBoolean) {
    return DataTypePtr();
  }
  return types[0];
}

Result<DataTypePtr> CollectResult(const Types& types) {
  return DataType::Array(types[0], false);
}

Result<DataTypePtr> ApproxCountDistinctResult(const Types& types) {
  if (types.size() == 2 && !types[1]->IsNumeric()) {
    return DataTypePtr();
  }
  return DataType::Int64();
}

Result<DataTypePtr> StatisticResult(const Types& types) {
  return IsNumericOrNull(*types[0]) ? DataType::Float64() : DataTypePtr();
}

Result<DataTypePtr> BooleanResult(const Types& types) {
  return types[0]->Id() == TypeId::kBoolean ? DataType::Boolean() : DataTypePtr();
}

Result<DataTypePtr> ValueByOrderingResult(const Types& types) {
  return IsOrderable(*types[1]) ? types[0] : DataTypePtr();
}

Result<DataTypePtr> BitwiseResult(const Types& types) {
  return types[0]->IsInteger() ? types[0] : DataTypePtr();
}

bool BothNumeric(const Types& types) {
  return IsNumericOrNull(*types[0]) && IsNumericOrNull(*types[1]);
}

Result<DataTypePtr> PairStatisticResult(const Types& types) {
  return BothNumeric(types) ? DataType::Float64() : DataTypePtr();
}

Result<DataTypePtr> PairCountResult(const Types& types) {
  return BothNumeric(types) ? DataType::Int64() : DataTypePtr();
}

// regr_avgx(y, x) is avg(x) over the rows where both are non-null (regr_avgy: avg(y)).
Result<DataTypePtr> RegrAvgXResult(const Types& types) {
  return BothNumeric(types) ? AvgResult({types[1]}) : DataTypePtr();
}

Result<DataTypePtr> RegrAvgYResult(const Types& types) {
  return BothNumeric(types) ? AvgResult({types[0]}) : DataTypePtr();
}

// A percentage argument: a number, or an array of numbers.
bool IsPercentageType(const DataType& type) {
  return IsNumericOrNull(type) ||
         (type.Id() == TypeId::kArray && IsNumericOrNull(*type.ElementType()));
}

Result<DataTypePtr> PercentileResult(const Types& types) {
  if (!IsNumericOrNull(*types[0]) || !IsPercentageType(*types[1]) ||
      (types.size() == 3 && !types[2]->IsInteger())) {
    return DataTypePtr();
  }
  return types[1]->Id() == TypeId::kArray ? DataType::Array(DataType::Float64(), false)
                                          : DataType::Float64();
}

// percentile_cont(p) WITHIN GROUP (ORDER BY v [DESC]), as the parser passes it: (v, p, desc).
Result<DataTypePtr> InverseDistributionResult(const Types& types) {
  if (types.size() == 3 && types[2]->Id() != TypeId::kBoolean) {
    return DataTypePtr();
  }
  return PercentileResult({types[0], types[1]});
}

Result<DataTypePtr> PercentileApproxResult(const Types& types) {
  const TypeId id = types[0]->Id();
  // Spark's HistogramNumeric takes numbers, datetimes and ANSI intervals alike (and NULL,
  // which gives no bins).
  const bool value_ok = types[0]->IsNumeric() || id == TypeId::kDate || id == TypeId::kTimestamp ||
                        id == TypeId::kTimestampNtz || id == TypeId::kYearMonthInterval ||
                        id == TypeId::kDayTimeInterval || id == TypeId::kNull;
  if (!value_ok || !IsPercentageType(*types[1]) || (types.size() == 3 && !types[2]->IsInteger())) {
    return DataTypePtr();
  }
  return types[1]->Id() == TypeId::kArray ? DataType::Array(types[0], false) : types[0];
}

Result<DataTypePtr> HistogramResult(const Types& types) {
  const TypeId id = types[0]->Id();
  // Spark's HistogramNumeric takes numbers, datetimes and ANSI intervals alike (and NULL,
  // which gives no bins).
  const bool value_ok = types[0]->IsNumeric() || id == TypeId::kDate || id == TypeId::kTimestamp ||
                        id == TypeId::kTimestampNtz || id == TypeId::kYearMonthInterval ||
                        id == TypeId::kDayTimeInterval || id == TypeId::kNull;
  if (!value_ok || !types[1]->IsInteger()) {
    return DataTypePtr();
  }
  return DataType::Array(DataType::Struct(
      {columnar::Field("x", types[0]), columnar::Field("y", DataType::Float64())}));
}

// mode(v [, deterministic]); mode() WITHIN GROUP (ORDER BY v [DESC]) arrives as
// mode(v, true, desc).
Result<DataTypePtr> ModeResult(const Types& types) {
  for (size_t i = 1; i < types.size(); ++i) {
    if (types[i]->Id() != TypeId::kBoolean) {
      return DataTypePtr();
    }
  }
  return IsOrderable(*types[0]) ? types[0] : DataTypePtr();
}

constexpr size_t kAny = std::numeric_limits<size_t>::max();

constexpr std::string_view kAvgAliases[] = {"mean"};
constexpr std::string_view kFirstAliases[] = {"first_value"};
constexpr std::string_view kLastAliases[] = {"last_value"};
constexpr std::string_view kStddevAliases[] = {"stddev", "std"};
constexpr std::string_view kVarianceAliases[] = {"variance"};
constexpr std::string_view kBoolAndAliases[] = {"every"};
constexpr std::string_view kBoolOrAliases[] = {"some", "any"};
constexpr std::string_view kPercentileApproxAliases[] = {"approx_percentile"};
constexpr std::string_view kCollectListAliases[] = {"array_agg"};

const AggregateSignature kSignatures[] = {
    {AggregateKind::kCount, "count", {}, 0, kAny, "", BigintResult},
    {AggregateKind::kCountIf, "count_if", {}, 1, 1, "a boolean", CountIfResult},
    {AggregateKind::kSum, "sum", {}, 1, 1, "a numeric argument", SumResult},
    {AggregateKind::kAvg, "avg", kAvgAliases, 1, 1, "a numeric argument", AvgResult},
    {AggregateKind::kMin, "min", {}, 1, 1, "an orderable argument", MinMaxResult},
    {AggregateKind::kMax, "max", {}, 1, 1, "an orderable argument", MinMaxResult},
    {AggregateKind::kFirst, "first", kFirstAliases, 1, 2, "a value and a boolean ignoreNulls",
     FirstLastResult},
    {AggregateKind::kLast, "last", kLastAliases, 1, 2, "a value and a boolean ignoreNulls",
     FirstLastResult},
    {AggregateKind::kCollectList, "collect_list", kCollectListAliases, 1, 1, "", CollectResult},
    {AggregateKind::kCollectSet, "collect_set", {}, 1, 1, "", CollectResult},
    {AggregateKind::kApproxCountDistinct,
     "approx_count_distinct",
     {},
     1,
     2,
     "a value and a numeric relativeSD",
     ApproxCountDistinctResult},
    {AggregateKind::kStddevSamp, "stddev_samp", kStddevAliases, 1, 1, "a numeric argument",
     StatisticResult},
    {AggregateKind::kStddevPop, "stddev_pop", {}, 1, 1, "a numeric argument", StatisticResult},
    {AggregateKind::kVarSamp, "var_samp", kVarianceAliases, 1, 1, "a numeric argument",
     StatisticResult},
    {AggregateKind::kVarPop, "var_pop", {}, 1, 1, "a numeric argument", StatisticResult},
    {AggregateKind::kBoolAnd, "bool_and", kBoolAndAliases, 1, 1, "a boolean", BooleanResult},
    {AggregateKind::kBoolOr, "bool_or", kBoolOrAliases, 1, 1, "a boolean", BooleanResult},
    {AggregateKind::kMaxBy,
     "max_by",
     {},
     2,
     2,
     "a value and an orderable ordering",
     ValueByOrderingResult},
    {AggregateKind::kMinBy,
     "min_by",
     {},
     2,
     2,
     "a value and an orderable ordering",
     ValueByOrderingResult},
    {AggregateKind::kTrySum, "try_sum", {}, 1, 1, "a numeric argument", SumResult},
    {AggregateKind::kTryAvg, "try_avg", {}, 1, 1, "a numeric argument", AvgResult},
    {AggregateKind::kBitAnd, "bit_and", {}, 1, 1, "an integral argument", BitwiseResult},
    {AggregateKind::kBitOr, "bit_or", {}, 1, 1, "an integral argument", BitwiseResult},
    {AggregateKind::kBitXor, "bit_xor", {}, 1, 1, "an integral argument", BitwiseResult},
    {AggregateKind::kCorr, "corr", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kCovarPop, "covar_pop", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kCovarSamp,
     "covar_samp",
     {},
     2,
     2,
     "two numeric arguments",
     PairStatisticResult},
    {AggregateKind::kRegrCount, "regr_count", {}, 2, 2, "two numeric arguments", PairCountResult},
    {AggregateKind::kRegrAvgX, "regr_avgx", {}, 2, 2, "two numeric arguments", RegrAvgXResult},
    {AggregateKind::kRegrAvgY, "regr_avgy", {}, 2, 2, "two numeric arguments", RegrAvgYResult},
    {AggregateKind::kRegrSxx, "regr_sxx", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kRegrSyy, "regr_syy", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kRegrSxy, "regr_sxy", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kRegrSlope,
     "regr_slope",
     {},
     2,
     2,
     "two numeric arguments",
     PairStatisticResult},
    {AggregateKind::kRegrIntercept,
     "regr_intercept",
     {},
     2,
     2,
     "two numeric arguments",
     PairStatisticResult},
    {AggregateKind::kRegrR2, "regr_r2", {}, 2, 2, "two numeric arguments", PairStatisticResult},
    {AggregateKind::kMedian, "median", {}, 1, 1, "a numeric argument", StatisticResult},
    {AggregateKind::kPercentile,
     "percentile",
     {},
     2,
     3,
     "a numeric value, a percentage or an array of them, and an integral frequency",
     PercentileResult},
    {AggregateKind::kPercentileApprox, "percentile_approx", kPercentileApproxAliases, 2, 3,
     "a numeric, date or timestamp value, a percentage or an array of them, and an integral "
     "accuracy",
     PercentileApproxResult},
    {AggregateKind::kPercentileCont,
     "percentile_cont",
     {},
     2,
     3,
     "a percentage and a numeric WITHIN GROUP (ORDER BY ...) value",
     InverseDistributionResult},
    {AggregateKind::kPercentileDisc,
     "percentile_disc",
     {},
     2,
     3,
     "a percentage and a numeric WITHIN GROUP (ORDER BY ...) value",
     InverseDistributionResult},
    {AggregateKind::kMode,
     "mode",
     {},
     1,
     3,
     "an orderable value and a boolean deterministic",
     ModeResult},
    {AggregateKind::kSkewness, "skewness", {}, 1, 1, "a numeric argument", StatisticResult},
    {AggregateKind::kKurtosis, "kurtosis", {}, 1, 1, "a numeric argument", StatisticResult},
    {AggregateKind::kAnyValue,
     "any_value",
     {},
     1,
     2,
     "a value and a boolean ignoreNulls",
     FirstLastResult},
    {AggregateKind::kHistogramNumeric,
     "histogram_numeric",
     {},
     2,
     2,
     "a numeric, date, timestamp or interval value and an integral number of bins",
     HistogramResult},
};

std::string_view ArgumentCountText(const AggregateSignature& signature) {
  if (signature.max_arguments == kAny) {
    return "at least one argument";
  }
  if (signature.min_arguments == 2) {
    return signature.max_arguments == 3 ? "two or three arguments" : "two arguments";
  }
  return signature.max_arguments == 2 ? "one or two arguments" : "one argument";
}

}  // namespace

const AggregateSignature* FindAggregateSignature(std::string_view name) {
  const std::string lower = AsciiLower(name);
  for (const AggregateSignature& signature : kSignatures) {
    if (signature.name == lower || std::find(signature.aliases.begin(), signature.aliases.end(),
                                             lower) != signature.aliases.end()) {
      return &signature;
    }
  }
  return nullptr;
}

std::vector<DataTypePtr> AggregateArgumentCasts(std::string_view function,
                                                const std::vector<DataTypePtr>& argument_types) {
  std::vector<DataTypePtr> casts(argument_types.size());
  const AggregateSignature* signature = FindAggregateSignature(function);
  if (signature == nullptr || argument_types.empty()) {
    return casts;
  }
  const TypeId first = argument_types[0]->Id();
  switch (signature->kind) {
    case AggregateKind::kSum:
    case AggregateKind::kAvg:
    case AggregateKind::kTrySum:
    case AggregateKind::kTryAvg:
      if (first == TypeId::kTimestamp || first == TypeId::kString) {
        casts[0] = DataType::Float64();
      }
      break;
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
    case AggregateKind::kSkewness:
    case AggregateKind::kKurtosis:
      if (first == TypeId::kString) {
        casts[0] = DataType::Float64();
      }
      break;
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
    case AggregateKind::kCountIf:
      // An all-NULL (void) column is a boolean one (Spark's implicit cast of NullType).
      if (first == TypeId::kString || first == TypeId::kNull) {
        casts[0] = DataType::Boolean();
      }
      break;
    default:
      break;
  }
  return casts;
}

Result<DataTypePtr> AggregateResultType(std::string_view function,
                                        const std::vector<DataTypePtr>& argument_types,
                                        bool distinct) {
  const AggregateSignature* signature = FindAggregateSignature(function);
  if (signature == nullptr) {
    return Status::InvalidArgument(fmt::format("unknown aggregate function {}", function));
  }
  auto wrong_arguments = [&](std::string_view expected) {
    std::string got;
    for (size_t i = 0; i < argument_types.size(); ++i) {
      got += (i > 0 ? ", " : "") + argument_types[i]->ToString();
    }
    return Status::InvalidArgument(fmt::format("{}{} takes {}, got ({})", function,
                                               distinct ? " DISTINCT" : "", expected, got));
  };
  // DISTINCT needs a value to tell rows apart: count(DISTINCT) without one is refused.
  const size_t min_arguments = std::max<size_t>(signature->min_arguments, distinct ? 1 : 0);
  if (argument_types.size() < min_arguments || argument_types.size() > signature->max_arguments) {
    return wrong_arguments(ArgumentCountText(*signature));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, signature->result_type(argument_types));
  if (type == nullptr) {
    return wrong_arguments(signature->expected_arguments);
  }
  return type;
}

}  // namespace tributary::expr

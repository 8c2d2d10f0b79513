// The aggregate functions' signatures: one table of names (Spark's, with their aliases),
// argument counts and result-type rules. expr types aggregate calls with it, and exec
// (exec/aggregate/) builds one accumulator per AggregateKind; no other list of aggregate
// names exists.

#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "columnar/data_type.h"
#include "tributary/result.h"

namespace tributary::expr {

/// One aggregate function, whatever name it was called by.
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
  kMaxBy,
  kMinBy,
  kTrySum,
  kTryAvg,
  kBitAnd,
  kBitOr,
  kBitXor,
  kCorr,
  kCovarPop,
  kCovarSamp,
  kRegrCount,
  kRegrAvgX,
  kRegrAvgY,
  kRegrSxx,
  kRegrSyy,
  kRegrSxy,
  kRegrSlope,
  kRegrIntercept,
  kRegrR2,
  kMedian,
  kPercentile,
  kPercentileApprox,
  kPercentileCont,
  kPercentileDisc,
  kMode,
  kSkewness,
  kKurtosis,
  kAnyValue,
  kHistogramNumeric,
};

/// Maps argument types (whose count AggregateSignature has checked) to the result type, or to
/// a null type when the function does not take them.
using AggregateResultRule =
    Result<columnar::DataTypePtr> (*)(const std::vector<columnar::DataTypePtr>& argument_types);

/// What a name of the table means.
struct AggregateSignature {
  AggregateKind kind;
  /// Spark's name (lowercase) and its aliases: "avg" and "mean" are one function.
  std::string_view name;
  std::span<const std::string_view> aliases;
  /// Argument counts taken; count(*) takes none, first/last and approx_count_distinct an
  /// optional literal second argument, percentile an optional frequency.
  size_t min_arguments;
  size_t max_arguments;
  /// What the arguments must be, for the error naming a call that does not fit ("a boolean").
  std::string_view expected_arguments;
  AggregateResultRule result_type;
};

/// The signature of the aggregate named `name` (any case, an alias too), or null when `name`
/// is not an aggregate function.
const AggregateSignature* FindAggregateSignature(std::string_view name);

/// The result type of `function` over arguments of `argument_types`, Spark's rules:
/// count/count_if/approx_count_distinct -> bigint; sum: integral -> bigint, decimal(p,s) ->
/// decimal(min(38,p+10),s), float/double -> double; avg: decimal(p,s) ->
/// decimal(min(38,p+4),min(38,s+4)), other numeric -> double; min/max/first/last -> the
/// argument's type; collect_list/collect_set -> array<T> (no null elements); stddev/variance
/// family -> double; bool_and/bool_or -> boolean; max_by/min_by/mode/any_value -> the value's
/// type; try_sum/try_avg as sum/avg; bit_and/bit_or/bit_xor -> the integral argument's type;
/// corr, covar_*, regr_* but regr_count/regr_avgx/regr_avgy, median, skewness, kurtosis ->
/// double; regr_count -> bigint; regr_avgx/regr_avgy -> avg of x/y; percentile -> double (an
/// array of them for an array of percentages), as percentile_cont/percentile_disc (which the
/// parser gives the WITHIN GROUP ordering as first argument and its DESC as a third, boolean
/// one); percentile_approx -> the value's type (or an array of it); histogram_numeric ->
/// array<struct<x: the value's type, y: double>>. InvalidArgument names an unknown function or
/// an argument type the function does not take.
/// The types Spark's analyzer casts the arguments of `function` to before the aggregate sees
/// them, one per argument (null: kept as is). sum/avg (and try_sum/try_avg) of a timestamp
/// take its seconds since the epoch as a double (Spark's FunctionArgumentConversion: "Hive lets
/// you do aggregation of timestamps"); a string where a number is expected becomes a double,
/// where a boolean is expected a boolean (ANSI implicit casts of strings). An unknown function
/// gets no casts.
std::vector<columnar::DataTypePtr> AggregateArgumentCasts(
    std::string_view function, const std::vector<columnar::DataTypePtr>& argument_types);

Result<columnar::DataTypePtr> AggregateResultType(
    std::string_view function, const std::vector<columnar::DataTypePtr>& argument_types,
    bool distinct);

}  // namespace tributary::expr

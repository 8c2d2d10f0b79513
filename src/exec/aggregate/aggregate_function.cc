#include "exec/aggregate/aggregate_function.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "columnar/record_batch.h"
#include "common/ascii.h"
#include "exec/aggregate/accumulators.h"
#include "expr/evaluator.h"

namespace tributary::exec {

namespace {

using columnar::Int128;
using columnar::TypeId;
using expr::AggregateKind;

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

bool ReferencesColumns(const expr::BoundExpression& expression) {
  if (expression.GetOp() == expr::Op::kColumn) {
    return true;
  }
  for (const expr::BoundExprPtr& child : expression.Children()) {
    if (ReferencesColumns(*child)) {
      return true;
    }
  }
  return false;
}

// The value of a constant argument (`array(0.25, 0.75)` is a call, not a literal): evaluated
// once over a batch of one row and no columns. [DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] when it
// reads a column.
Result<ColumnPtr> ConstantArgument(const AggregateCall& call, size_t index, std::string_view what) {
  const expr::BoundExpression& argument = *call.arguments[index];
  if (ReferencesColumns(argument)) {
    return Status::InvalidArgument(
        fmt::format("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] {}: the {} must be a constant, got {}",
                    call.function, what, argument.ToString()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto batch, columnar::RecordBatch::Make(
                      std::make_shared<columnar::Schema>(std::vector<columnar::Field>{}), 1, {}));
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr value, expr::Evaluate(argument, *batch));
  if (value->IsNull(0)) {
    return Status::InvalidArgument(
        fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_NULL] {}: the {} must not be null, got {}",
                    call.function, what, argument.ToString()));
  }
  return value;
}

// percentile's and percentile_approx's percentages (argument 1): a number or an array of
// numbers, each within [0, 1].
Status ReadPercentages(const AggregateCall& call, aggregate::PercentileOptions* options) {
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr value, ConstantArgument(call, 1, "percentage"));
  ColumnPtr numbers = value;
  int64_t begin = 0;
  int64_t end = 1;
  if (value->Type()->Id() == TypeId::kArray) {
    options->array = true;
    numbers = value->Child(0);
    begin = value->Offsets()[0];
    end = value->Offsets()[1];
  }
  for (int64_t i = begin; i < end; ++i) {
    if (numbers->IsNull(i)) {
      return Status::InvalidArgument(
          fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_NULL] {}: a percentage is null in {}",
                      call.function, call.arguments[1]->ToString()));
    }
  }
  std::vector<double> all(static_cast<size_t>(numbers->Length()));
  aggregate::VisitValidDoubles(*numbers, numbers->Length(), [&](int64_t i, auto v) {
    all[static_cast<size_t>(i)] = static_cast<double>(v);
  });
  for (int64_t i = begin; i < end; ++i) {
    const double percentage = all[static_cast<size_t>(i)];
    if (!(percentage >= 0.0 && percentage <= 1.0)) {
      return Status::InvalidArgument(fmt::format(
          "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] {}: the percentage must be between [0.0, 1.0], "
          "but got {}",
          call.function, call.arguments[1]->ToString()));
    }
    options->percentages.push_back(percentage);
  }
  return Status::OK();
}

// percentile_approx's accuracy (argument 2): an integer constant within [1, 2147483647].
Result<int64_t> ReadAccuracy(const AggregateCall& call) {
  if (call.arguments.size() < 3) {
    return 10000;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr value, ConstantArgument(call, 2, "accuracy"));
  int64_t accuracy = 0;
  aggregate::VisitValidNative(*value, 1, [&](int64_t, auto v) {
    // NOLINTNEXTLINE(bugprone-signed-char-misuse): a tinyint accuracy is a number
    accuracy = static_cast<int64_t>(v);
  });
  if (accuracy <= 0 || accuracy > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(
        fmt::format("[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] {}: the accuracy must be between [1, "
                    "2147483647], but got {}",
                    call.function, call.arguments[2]->ToString()));
  }
  return accuracy;
}

// first/last's ignoreNulls: a boolean literal.
Result<bool> IgnoreNulls(const AggregateCall& call) {
  if (call.arguments.size() < 2) {
    return false;
  }
  const expr::BoundExpression& flag = *call.arguments[1];
  if (flag.GetOp() != expr::Op::kLiteral || flag.Type()->Id() != TypeId::kBoolean) {
    return Status::InvalidArgument(
        fmt::format("{}: the second argument (ignoreNulls) must be a boolean literal, got {}",
                    call.function, flag.ToString()));
  }
  return !flag.Literal().IsNull() && flag.Literal().BoolValue();
}

// The accumulator of signature `kind` over arguments of `types` (which the signature takes).
Result<std::unique_ptr<Accumulator>> MakeForKind(AggregateKind kind, const AggregateCall& call,
                                                 const std::vector<DataTypePtr>& types,
                                                 MemoryPool* pool) {
  switch (kind) {
    case AggregateKind::kCount:
    case AggregateKind::kCountIf:
      return aggregate::MakeCountAccumulator(kind, pool);
    case AggregateKind::kSum:
    case AggregateKind::kAvg:
      return aggregate::MakeSumAccumulator(*types[0], kind == AggregateKind::kAvg, false, pool);
    case AggregateKind::kTrySum:
    case AggregateKind::kTryAvg:
      return aggregate::MakeSumAccumulator(*types[0], kind == AggregateKind::kTryAvg, true, pool);
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      return aggregate::MakeMinMaxAccumulator(types[0], kind == AggregateKind::kMax, pool);
    case AggregateKind::kFirst:
    case AggregateKind::kLast: {
      TRIBUTARY_ASSIGN_OR_RAISE(bool ignore_nulls, IgnoreNulls(call));
      return aggregate::MakeSelectValueAccumulator(kind, ignore_nulls, types[0], pool);
    }
    case AggregateKind::kAnyValue: {
      // Spark's any_value is first's implementation (and just as order-dependent).
      TRIBUTARY_ASSIGN_OR_RAISE(bool ignore_nulls, IgnoreNulls(call));
      return aggregate::MakeSelectValueAccumulator(AggregateKind::kFirst, ignore_nulls, types[0],
                                                   pool);
    }
    case AggregateKind::kCollectList:
    case AggregateKind::kCollectSet:
      return aggregate::MakeCollectAccumulator(kind == AggregateKind::kCollectSet, types[0], pool);
    case AggregateKind::kApproxCountDistinct: {
      double relative_sd = 0.05;
      if (call.arguments.size() == 2) {
        TRIBUTARY_ASSIGN_OR_RAISE(relative_sd, LiteralDouble(*call.arguments[1]));
      }
      return aggregate::MakeApproxCountDistinctAccumulator(relative_sd, pool);
    }
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
      return aggregate::MakeVarianceAccumulator(kind, pool);
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      return aggregate::MakeBooleanAccumulator(kind == AggregateKind::kBoolAnd, pool);
    case AggregateKind::kMaxBy:
    case AggregateKind::kMinBy:
      return aggregate::MakeValueByOrderingAccumulator(kind == AggregateKind::kMaxBy, types[0],
                                                       types[1], pool);
    case AggregateKind::kBitAnd:
    case AggregateKind::kBitOr:
    case AggregateKind::kBitXor:
      return aggregate::MakeBitwiseAccumulator(kind, *types[0], pool);
    case AggregateKind::kCorr:
    case AggregateKind::kCovarPop:
    case AggregateKind::kCovarSamp:
    case AggregateKind::kRegrSxx:
    case AggregateKind::kRegrSyy:
    case AggregateKind::kRegrSxy:
    case AggregateKind::kRegrSlope:
    case AggregateKind::kRegrIntercept:
    case AggregateKind::kRegrR2:
      return aggregate::MakeCoMomentAccumulator(kind, pool);
    case AggregateKind::kRegrCount:
      // Spark's regr_count(y, x) is count(y, x): rows where neither is null.
      return aggregate::MakeCountAccumulator(AggregateKind::kCount, pool);
    case AggregateKind::kRegrAvgX:
    case AggregateKind::kRegrAvgY: {
      const size_t value_index = kind == AggregateKind::kRegrAvgX ? 1 : 0;
      return aggregate::MakePairFilterAccumulator(
          aggregate::MakeSumAccumulator(*types[value_index], true, false, pool), value_index, pool);
    }
    case AggregateKind::kMedian: {
      aggregate::PercentileOptions options;
      options.percentages = {0.5};
      return aggregate::MakePercentileAccumulator(std::move(options), pool);
    }
    case AggregateKind::kPercentile:
    case AggregateKind::kPercentileApprox: {
      aggregate::PercentileOptions options;
      TRIBUTARY_RETURN_NOT_OK(ReadPercentages(call, &options));
      if (kind == AggregateKind::kPercentileApprox) {
        options.approximate = true;
        TRIBUTARY_ASSIGN_OR_RAISE(options.accuracy, ReadAccuracy(call));
      } else {
        options.frequency = call.arguments.size() == 3;
      }
      return aggregate::MakePercentileAccumulator(std::move(options), pool);
    }
    case AggregateKind::kPercentileCont:
    case AggregateKind::kPercentileDisc: {
      aggregate::PercentileOptions options;
      TRIBUTARY_RETURN_NOT_OK(ReadPercentages(call, &options));
      options.discrete = kind == AggregateKind::kPercentileDisc;
      if (call.arguments.size() == 3) {
        const expr::BoundExpression& reverse = *call.arguments[2];
        if (reverse.GetOp() != expr::Op::kLiteral || reverse.Literal().IsNull()) {
          return Status::InvalidArgument(
              fmt::format("{}: the ordering direction must be a boolean literal, got {}",
                          call.function, reverse.ToString()));
        }
        options.reverse = reverse.Literal().BoolValue();
      }
      return aggregate::MakePercentileAccumulator(std::move(options), pool);
    }
    case AggregateKind::kMode: {
      for (size_t i = 1; i < call.arguments.size(); ++i) {
        const expr::BoundExpression& flag = *call.arguments[i];
        if (flag.GetOp() != expr::Op::kLiteral || flag.Literal().IsNull()) {
          return Status::InvalidArgument(
              fmt::format("mode: the argument deterministic must be a boolean literal, got {}",
                          flag.ToString()));
        }
      }
      // The third argument is WITHIN GROUP (ORDER BY ... DESC): ties go to the greatest value.
      const bool greatest = call.arguments.size() == 3 && call.arguments[2]->Literal().BoolValue();
      return aggregate::MakeModeAccumulator(types[0], greatest, pool);
    }
    case AggregateKind::kSkewness:
    case AggregateKind::kKurtosis:
      return aggregate::MakeCentralMomentAccumulator(kind, pool);
    case AggregateKind::kHistogramNumeric: {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr bins, ConstantArgument(call, 1, "nb"));
      int64_t max_bins = 0;
      aggregate::VisitValidNative(*bins, 1, [&](int64_t, auto v) {
        // NOLINTNEXTLINE(bugprone-signed-char-misuse): a tinyint bin count is a number
        max_bins = static_cast<int64_t>(v);
      });
      if (max_bins < 2 || max_bins > std::numeric_limits<int32_t>::max()) {
        return Status::InvalidArgument(fmt::format(
            "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] histogram_numeric: nb must be between [2, "
            "2147483647], but got {}",
            call.arguments[1]->ToString()));
      }
      return aggregate::MakeHistogramAccumulator(max_bins, pool);
    }
  }
  return Status::Internal(fmt::format("no accumulator for aggregate {}", call.function));
}

}  // namespace

std::string MergingFunction(const AggregateCall& call, const columnar::DataType& result) {
  if (call.distinct) {
    return {};
  }
  std::string name = AsciiLower(call.function);
  if ((name == "count" || name == "sum") && result.Id() == TypeId::kInt64) {
    return "sum";
  }
  if (name == "min" || name == "max") {
    return name;
  }
  return {};
}

Result<std::unique_ptr<Accumulator>> MakeAccumulator(const AggregateCall& call, MemoryPool* pool,
                                                     size_t* value_arguments) {
  const expr::AggregateSignature* signature = expr::FindAggregateSignature(call.function);
  if (signature == nullptr) {
    return Status::InvalidArgument(fmt::format("unknown aggregate function {}", call.function));
  }
  std::vector<DataTypePtr> types;
  for (const expr::BoundExprPtr& argument : call.arguments) {
    types.push_back(argument->Type());
  }
  TRIBUTARY_RETURN_NOT_OK(AggregateResultType(call.function, types, call.distinct).status());
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Accumulator> accumulator,
                            MakeForKind(signature->kind, call, types, pool));
  // first/last's ignoreNulls, approx_count_distinct's relativeSD, percentile's percentages and
  // the like were read from their constants: only the value is evaluated per batch
  // (percentile's frequency, after its percentages, is evaluated too).
  switch (signature->kind) {
    case AggregateKind::kFirst:
    case AggregateKind::kLast:
    case AggregateKind::kAnyValue:
    case AggregateKind::kApproxCountDistinct:
    case AggregateKind::kPercentileApprox:
    case AggregateKind::kPercentileCont:
    case AggregateKind::kPercentileDisc:
    case AggregateKind::kMode:
    case AggregateKind::kHistogramNumeric:
      *value_arguments = 1;
      break;
    case AggregateKind::kPercentile:
      *value_arguments = call.arguments.size() == 3 ? 3 : 1;
      break;
    default:
      *value_arguments = call.arguments.size();
      break;
  }
  if (call.distinct && *value_arguments > 0) {
    accumulator = aggregate::MakeDistinctAccumulator(std::move(accumulator), pool);
  }
  return accumulator;
}

}  // namespace tributary::exec

#include "exec/aggregate/aggregate_function.h"

#include <cmath>

#include <fmt/format.h>

#include "exec/aggregate/accumulators.h"

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
      return aggregate::MakeSumAccumulator(*types[0], kind == AggregateKind::kAvg, pool);
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      return aggregate::MakeMinMaxAccumulator(types[0], kind == AggregateKind::kMax, pool);
    case AggregateKind::kFirst:
    case AggregateKind::kLast: {
      TRIBUTARY_ASSIGN_OR_RAISE(bool ignore_nulls, IgnoreNulls(call));
      return aggregate::MakeSelectValueAccumulator(kind, ignore_nulls, types[0], pool);
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
  }
  return Status::Internal(fmt::format("no accumulator for aggregate {}", call.function));
}

}  // namespace

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
  // first/last's ignoreNulls and approx_count_distinct's relativeSD were read from their
  // literals: only the value is evaluated per batch.
  const bool literal_second = signature->kind == AggregateKind::kFirst ||
                              signature->kind == AggregateKind::kLast ||
                              signature->kind == AggregateKind::kApproxCountDistinct;
  *value_arguments = literal_second ? 1 : call.arguments.size();
  if (call.distinct && *value_arguments > 0) {
    accumulator = aggregate::MakeDistinctAccumulator(std::move(accumulator), pool);
  }
  return accumulator;
}

}  // namespace tributary::exec

#include "expr/aggregate_signatures.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "columnar/decimal.h"
#include "common/ascii.h"

namespace tributary::expr {

namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::TypeId;
using Types = std::vector<DataTypePtr>;

bool IsNumericOrNull(const DataType& type) {
  return type.IsNumeric() || type.Id() == TypeId::kNull;
}

bool IsOrderable(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kMap:
      return false;
    case TypeId::kArray:
      return IsOrderable(*type.ElementType());
    case TypeId::kStruct:
      for (const columnar::Field& field : type.Fields()) {
        if (!IsOrderable(*field.Type())) {
          return false;
        }
      }
      return true;
    default:
      return true;
  }
}

Result<DataTypePtr> BigintResult(const Types&) {
  return DataType::Int64();
}

Result<DataTypePtr> CountIfResult(const Types& types) {
  return types[0]->Id() == TypeId::kBoolean ? DataType::Int64() : DataTypePtr();
}

Result<DataTypePtr> SumResult(const Types& types) {
  const DataTypePtr& type = types[0];
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

constexpr size_t kAny = std::numeric_limits<size_t>::max();

constexpr std::string_view kAvgAliases[] = {"mean"};
constexpr std::string_view kFirstAliases[] = {"first_value"};
constexpr std::string_view kLastAliases[] = {"last_value"};
constexpr std::string_view kStddevAliases[] = {"stddev", "std"};
constexpr std::string_view kVarianceAliases[] = {"variance"};
constexpr std::string_view kBoolAndAliases[] = {"every"};
constexpr std::string_view kBoolOrAliases[] = {"some", "any"};

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
    {AggregateKind::kCollectList, "collect_list", {}, 1, 1, "", CollectResult},
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
};

std::string_view ArgumentCountText(const AggregateSignature& signature) {
  if (signature.max_arguments == kAny) {
    return "at least one argument";
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

#include "expr/function_registry.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "common/closest_match.h"
#include "expr/backquoted_name.h"
#include "expr/coercion.h"

namespace tributary::expr {

namespace {

const std::vector<FunctionEntry>& Registry() {
  static const std::vector<FunctionEntry> kTable = [] {
    std::vector<FunctionEntry> entries;
    AddConditionalFunctions(&entries);
    AddCollectionFunctions(&entries);
    AddMapFunctions(&entries);
    AddStringFunctions(&entries);
    AddRegexpFunctions(&entries);
    AddFormatStringFunctions(&entries);
    AddBinaryFunctions(&entries);
    AddUrlFunctions(&entries);
    AddNumberFormatFunctions(&entries);
    AddDatetimeFunctions(&entries);
    AddIntervalFunctions(&entries);
    AddHashFunctions(&entries);
    AddJsonFunctions(&entries);
    AddCsvFunctions(&entries);
    AddMathFunctions(&entries);
    AddOperatorFunctions(&entries);
    AddTimeWindowFunctions(&entries);
    AddScalarSubqueryFunctions(&entries);
    AddCatalogFunctions(&entries);
    AddRandomFunctions(&entries);
    AddMiscFunctions(&entries);
    std::sort(entries.begin(), entries.end(),
              [](const FunctionEntry& a, const FunctionEntry& b) { return a.name < b.name; });
    return entries;
  }();
  return kTable;
}

}  // namespace

Result<columnar::ColumnPtr> EagerFunction::Evaluate(const BoundExpression& call,
                                                    const columnar::RecordBatch& batch,
                                                    const EvalContext& context) const {
  std::vector<columnar::ColumnPtr> args;
  args.reserve(call.Children().size());
  for (const BoundExprPtr& child : call.Children()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(*child, batch, context));
    args.push_back(std::move(column));
  }
  return Compute(call, args, context);
}

BoundExprPtr MakeFunctionCall(std::string name, DataTypePtr type, std::vector<BoundExprPtr> args,
                              std::shared_ptr<const ScalarFunction> function) {
  return std::make_shared<const BoundExpression>(Op::kFunction, std::move(type), std::move(args),
                                                 -1, Scalar::Null(), std::move(name),
                                                 std::move(function));
}

Status CallError(const Expression& call, std::string_view what) {
  return Status::InvalidArgument(fmt::format("{}: {}", call.SqlText(), what));
}

Status CheckArity(const Expression& call, const std::vector<BoundExprPtr>& args, size_t min_args,
                  size_t max_args) {
  if (args.size() >= min_args && args.size() <= max_args) {
    return Status::OK();
  }
  std::string wanted = min_args == max_args   ? fmt::format("{}", min_args)
                       : max_args == SIZE_MAX ? fmt::format("at least {}", min_args)
                                              : fmt::format("{} to {}", min_args, max_args);
  return CallError(call, fmt::format("{} takes {} argument{}, got {}", call.Name(), wanted,
                                     max_args == 1 && min_args == 1 ? "" : "s", args.size()));
}

Result<BoundExprPtr> BindFunction(const Expression& call, std::vector<BoundExprPtr> args) {
  const std::string& name = call.Name();
  if (IsAggregateFunctionName(name)) {
    return Status::InvalidArgument(fmt::format(
        "aggregate function {} is not allowed here (only in SELECT or HAVING of an aggregation): "
        "{}",
        name, call.ToString()));
  }
  if (IsGeneratorFunctionName(name)) {
    return Status::InvalidArgument(
        fmt::format("{} is only allowed in SELECT: {}", name, call.SqlText()));
  }
  const auto& registry = Registry();
  auto it =
      std::lower_bound(registry.begin(), registry.end(), name,
                       [](const FunctionEntry& e, const std::string& n) { return e.name < n; });
  if (it != registry.end() && it->name == name) {
    return it->bind(call, std::move(args));
  }
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (const FunctionEntry& entry : registry) {
    const size_t distance = EditDistance(name, entry.name);
    if (distance < best_distance) {
      best_distance = distance;
      best = entry.name;
    }
  }
  // Spark's UNRESOLVED_ROUTINE, with the closest built-in name when one is near.
  std::string message = fmt::format(
      "[UNRESOLVED_ROUTINE] Cannot resolve routine {} on search path [`system`.`builtin`, "
      "`system`.`session`, `spark_catalog`.`default`].",
      BackquotedName(name));
  if (!best.empty() && best_distance <= std::max<size_t>(2, name.size() / 3)) {
    message += fmt::format(" Did you mean {}?", BackquotedName(best));
  }
  return Status::InvalidArgument(std::move(message));
}

}  // namespace tributary::expr

// scalar_subquery_value(rows, value): how the SQL binder (sql/binder.cc) turns an uncorrelated
// scalar subquery into a one-row plan. The subquery's rows are aggregated into their count and
// first value; this function passes the value through, or fails with Spark's error when the
// subquery returned more than one row, which no aggregate or cast reports under its own name.

#include <fmt/format.h>

#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

using columnar::ColumnPtr;
using columnar::TypeId;

class ScalarSubqueryValueFunction final : public EagerFunction {
 public:
  Result<ColumnPtr> Compute(const BoundExpression& /*call*/, const std::vector<ColumnPtr>& args,
                            const EvalContext& /*context*/) const override {
    const columnar::Column& rows = *args[0];
    const int64_t* counts = rows.Values<int64_t>();
    for (int64_t i = 0; i < rows.Length(); ++i) {
      if (rows.IsValid(i) && counts[i] > 1) {
        return Status::InvalidArgument(
            "[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as an "
            "expression.");
      }
    }
    return args[1];
  }
};

Result<BoundExprPtr> BindScalarSubqueryValue(const Expression& call,
                                             std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  if (args[0]->Type()->Id() != TypeId::kInt64) {
    return CallError(
        call, fmt::format("the row count must be bigint, got {}", args[0]->Type()->ToString()));
  }
  DataTypePtr type = args[1]->Type();
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          std::make_shared<const ScalarSubqueryValueFunction>());
}

}  // namespace

void AddScalarSubqueryFunctions(std::vector<FunctionEntry>* table) {
  table->push_back({"scalar_subquery_value", BindScalarSubqueryValue});
}

}  // namespace tributary::expr

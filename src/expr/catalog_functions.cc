// current_catalog(), current_schema() and current_database(): the session catalog's name
// (always spark_catalog) and the schema unqualified table names are in (USE schema), which
// whoever runs the plan puts in EvalContext::current_schema.

#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

class CurrentNamespaceFunction final : public ScalarFunction {
 public:
  Result<columnar::ColumnPtr> Evaluate(const BoundExpression& call,
                                       const columnar::RecordBatch& batch,
                                       const EvalContext& context) const override {
    const std::string value =
        call.Name() == "current_catalog" ? std::string("spark_catalog") : context.current_schema;
    return MakeConstantColumn(Scalar::String(value), batch.NumRows(), context.pool);
  }
};

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindCurrentNamespace(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 0));
  return MakeFunctionCall(call.Name(), columnar::DataType::String(), {},
                          std::make_shared<const CurrentNamespaceFunction>());
}

}  // namespace

void AddCatalogFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"current_catalog", BindCurrentNamespace},
                               {"current_schema", BindCurrentNamespace},
                               {"current_database", BindCurrentNamespace}});
}

}  // namespace tributary::expr

// typeof(x): the argument's type as Spark's DataType.catalogString names it ("int",
// "decimal(6,0)", "array<string>"), a constant. nanvl(a, b): b where a is NaN, else a (null
// where a is null), as Spark's NaNvl.

#include <cmath>

#include "columnar/column_builder.h"
#include "expr/evaluator.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

class TypeNameFunction final : public ScalarFunction {
 public:
  explicit TypeNameFunction(std::string name) : name_(std::move(name)) {}

  Result<columnar::ColumnPtr> Evaluate(const BoundExpression& /*call*/,
                                       const columnar::RecordBatch& batch,
                                       const EvalContext& context) const override {
    return MakeConstantColumn(Scalar::String(name_), batch.NumRows(), context.pool);
  }

 private:
  std::string name_;
};

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindTypeOf(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  return MakeFunctionCall(call.Name(), columnar::DataType::String(), {},
                          std::make_shared<const TypeNameFunction>(args[0]->Type()->ToString()));
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindNanvl(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (const BoundExprPtr& arg : args) {
    if (!arg->Type()->IsNumeric() && arg->Type()->Id() != TypeId::kNull) {
      return CallError(call, fmt::format("arguments must be numbers, got {}",
                                         arg->Type()->ToString()));
    }
  }
  const bool both_float = args[0]->Type()->Id() == TypeId::kFloat32 &&
                          args[1]->Type()->Id() == TypeId::kFloat32;
  const DataTypePtr type =
      both_float ? columnar::DataType::Float32() : columnar::DataType::Float64();
  for (BoundExprPtr& arg : args) {
    arg = CastTo(std::move(arg), type);
  }
  return MakeFunctionCall(
      call.Name(), type, std::move(args),
      Lambda([both_float](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                          MemoryPool* pool) -> Result<ColumnPtr> {
        columnar::ColumnBuilder builder(c.Type(), pool);
        const int64_t n = a[0]->Length();
        builder.Reserve(n);
        auto value = [&](const Column& column, int64_t i) {
          return both_float ? double{column.Values<float>()[i]} : column.Values<double>()[i];
        };
        for (int64_t i = 0; i < n; ++i) {
          const bool nan = a[0]->IsValid(i) && std::isnan(value(*a[0], i));
          const Column& from = nan ? *a[1] : *a[0];
          if (!from.IsValid(i)) {
            builder.AppendNull();
          } else {
            builder.AppendDouble(value(from, i));
          }
        }
        return builder.Finish();
      }));
}

}  // namespace

void AddMiscFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"typeof", BindTypeOf}, {"nanvl", BindNanvl}});
}

}  // namespace tributary::expr

// typeof(x): the argument's type as Spark's DataType.catalogString names it ("int",
// "decimal(6,0)", "array<string>"), a constant. isnan(x), and nanvl(a, b): b where a is NaN,
// else a (null where a is null), as Spark's NaNvl.

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

// isnan(x): whether x is NaN; false for null, as Spark's IsNaN.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindIsNan(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  if (!args[0]->Type()->IsNumeric() && args[0]->Type()->Id() != TypeId::kNull) {
    return CallError(
        call, fmt::format("argument 1 must be a number, got {}", args[0]->Type()->ToString()));
  }
  args[0] = CastTo(std::move(args[0]), columnar::DataType::Float64());
  return MakeFunctionCall(
      call.Name(), columnar::DataType::Boolean(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        columnar::ColumnBuilder builder(c.Type(), pool);
        const int64_t n = a[0]->Length();
        builder.Reserve(n);
        for (int64_t i = 0; i < n; ++i) {
          builder.AppendBoolean(a[0]->IsValid(i) && std::isnan(a[0]->Values<double>()[i]));
        }
        return builder.Finish();
      }));
}

// nanvl(a, b): if(isnan(a), b, a), so b is evaluated only for the rows that need it (Spark's
// NaNvl evaluates its right side only when the left is NaN).
Result<BoundExprPtr> BindNanvl(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (const BoundExprPtr& arg : args) {
    if (!arg->Type()->IsNumeric() && arg->Type()->Id() != TypeId::kNull) {
      return CallError(call,
                       fmt::format("arguments must be numbers, got {}", arg->Type()->ToString()));
    }
  }
  const bool both_float =
      args[0]->Type()->Id() == TypeId::kFloat32 && args[1]->Type()->Id() == TypeId::kFloat32;
  const DataTypePtr type =
      both_float ? columnar::DataType::Float32() : columnar::DataType::Float64();
  for (BoundExprPtr& arg : args) {
    arg = CastTo(std::move(arg), type);
  }
  const ExprPtr& value = call.Child(0);
  const ExprPtr& replacement = call.Child(1);
  const ExprPtr is_nan = Function("isnan", {value});
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr nan, BindIsNan(*is_nan, {args[0]}));
  return BindAs("if", {is_nan, replacement, value},
                {std::move(nan), std::move(args[1]), std::move(args[0])});
}

}  // namespace

void AddMiscFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"typeof", BindTypeOf}, {"isnan", BindIsNan}, {"nanvl", BindNanvl}});
}

}  // namespace tributary::expr

// Scalar functions by name: how a call is type-checked and which kernel computes it
// (internal to the expr layer). Each function family registers itself from its own file
// (string_functions.cc, datetime_functions.cc, ...).

#pragma once

#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "expr/bound_expression.h"
#include "expr/evaluator.h"

namespace tributary::expr {

/// The computation behind a bound function call. Made by the function's binder with whatever
/// it prepared from constant arguments (a compiled regex, a parsed JSON path), then immutable.
///
/// Thread-safety: immutable after binding; Evaluate may run on many threads at once.
class ScalarFunction {
 public:
  virtual ~ScalarFunction() = default;
  /// The result column of `call` (whose children are the bound arguments) over `batch`.
  /// Functions that evaluate arguments lazily (coalesce) evaluate the children themselves.
  virtual Result<columnar::ColumnPtr> Evaluate(const BoundExpression& call,
                                               const columnar::RecordBatch& batch,
                                               const EvalContext& context) const = 0;
};

/// A function whose arguments are all evaluated over the whole batch first.
class EagerFunction : public ScalarFunction {
 public:
  Result<columnar::ColumnPtr> Evaluate(const BoundExpression& call,
                                       const columnar::RecordBatch& batch,
                                       const EvalContext& context) const final;
  /// The result from the argument columns (each of the batch's length).
  virtual Result<columnar::ColumnPtr> Compute(const BoundExpression& call,
                                              const std::vector<columnar::ColumnPtr>& args,
                                              const EvalContext& context) const = 0;
};

/// Type-checks a call: `call` is the unbound call (for messages), `args` its bound arguments;
/// returns the bound node, normally MakeFunctionCall(...) with implicit casts on the
/// arguments, or an InvalidArgument naming the call.
using FunctionBinder = Result<BoundExprPtr> (*)(const Expression& call,
                                                std::vector<BoundExprPtr> args);

struct FunctionEntry {
  std::string_view name;
  FunctionBinder bind;
};

/// Families register their entries here (one function per family file).
void AddConditionalFunctions(std::vector<FunctionEntry>* table);
void AddStringFunctions(std::vector<FunctionEntry>* table);
void AddRegexpFunctions(std::vector<FunctionEntry>* table);
void AddFormatStringFunctions(std::vector<FunctionEntry>* table);
void AddBinaryFunctions(std::vector<FunctionEntry>* table);
void AddUrlFunctions(std::vector<FunctionEntry>* table);
void AddNumberFormatFunctions(std::vector<FunctionEntry>* table);
void AddMathFunctions(std::vector<FunctionEntry>* table);
void AddDatetimeFunctions(std::vector<FunctionEntry>* table);
void AddIntervalFunctions(std::vector<FunctionEntry>* table);
void AddHashFunctions(std::vector<FunctionEntry>* table);
void AddCollectionFunctions(std::vector<FunctionEntry>* table);
void AddMapFunctions(std::vector<FunctionEntry>* table);
void AddJsonFunctions(std::vector<FunctionEntry>* table);
void AddCsvFunctions(std::vector<FunctionEntry>* table);
void AddOperatorFunctions(std::vector<FunctionEntry>* table);
void AddTimeWindowFunctions(std::vector<FunctionEntry>* table);
void AddScalarSubqueryFunctions(std::vector<FunctionEntry>* table);
void AddCatalogFunctions(std::vector<FunctionEntry>* table);
void AddRandomFunctions(std::vector<FunctionEntry>* table);
void AddMiscFunctions(std::vector<FunctionEntry>* table);

/// Binds `name(arguments...)` through the registry where `arguments` are already bound (their
/// unbound forms are `unbound`, for messages): a function Spark defines by another.
Result<BoundExprPtr> BindAs(const std::string& name, const std::vector<ExprPtr>& unbound,
                            std::vector<BoundExprPtr> arguments);

/// Binds a kFunction call through the registry: unknown names, aggregates and generators are
/// InvalidArgument errors naming the function (unknown ones with a "did you mean" suggestion).
Result<BoundExprPtr> BindFunction(const Expression& call, std::vector<BoundExprPtr> args);

/// Binds a + b / a - b where an operand is an interval or both are timestamps
/// (timestamp +/- interval, date +/- year-month interval, interval +/- interval,
/// timestamp - timestamp), and interval * number, interval / number (BindIntervalScale); null
/// when neither operand is such a type, so numeric arithmetic applies.
Result<BoundExprPtr> BindIntervalArithmetic(const Expression& expr,
                                            std::vector<BoundExprPtr>& children);

/// Unary minus of a calendar interval (Spark's UnaryMinus over IntervalUtils.negateExact:
/// each field negated, overflow an [ARITHMETIC_OVERFLOW] error).
BoundExprPtr BindCalendarIntervalNegate(BoundExprPtr operand);

/// Binds interval * number, number * interval and interval / number for day-time and
/// year-month intervals (Spark's Multiply/DivideDTInterval and Multiply/DivideYMInterval,
/// rounding half up); null when no operand is such an interval. `safe` (try_multiply,
/// try_divide) makes a row that overflows or divides by zero null instead of an error.
Result<BoundExprPtr> BindIntervalScale(const Expression& call, Op op,
                                       std::vector<BoundExprPtr>& args, bool safe);

/// A bound kFunction node named `name` of result `type` computed by `function`.
BoundExprPtr MakeFunctionCall(std::string name, DataTypePtr type, std::vector<BoundExprPtr> args,
                              std::shared_ptr<const ScalarFunction> function);

/// An InvalidArgument "<call>: <what>" for a call whose arguments do not fit.
Status CallError(const Expression& call, std::string_view what);
/// Checks the argument count is within [min_args, max_args].
Status CheckArity(const Expression& call, const std::vector<BoundExprPtr>& args, size_t min_args,
                  size_t max_args);

}  // namespace tributary::expr

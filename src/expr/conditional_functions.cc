// CASE WHEN, if, coalesce/ifnull/nvl, nvl2, nullif, isnull/isnotnull, greatest, least.
//
// CASE WHEN, if and coalesce are lazy as in Spark: a branch is evaluated only over the rows
// that reach it, so `CASE WHEN d <> 0 THEN n / d END` never divides by zero. The rows still
// undecided are gathered into a smaller batch (TakeRows) and the branch results interleaved
// back in row order.

#include <fmt/format.h>

#include "columnar/take.h"
#include "expr/coercion.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"
#include "expr/row_gather.h"

namespace tributary::expr {

using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::TypeId;

namespace {

// Rows of an original batch still to be decided, and the batch of just those rows.
struct PendingRows {
  std::vector<int64_t> rows;  // indices into the original batch
  RecordBatchPtr batch;       // those rows; the original batch while all rows are pending
};

// Collects per-row results from partial evaluations.
class ResultAssembler {
 public:
  explicit ResultAssembler(int64_t length)
      : source_(static_cast<size_t>(length), -1), source_row_(static_cast<size_t>(length), 0) {}

  // `values` holds one value per entry of `rows` (original row indices), in that order.
  void Add(ColumnPtr values, std::span<const int64_t> rows) {
    const auto index = static_cast<int32_t>(sources_.size());
    for (size_t j = 0; j < rows.size(); ++j) {
      source_[static_cast<size_t>(rows[j])] = index;
      source_row_[static_cast<size_t>(rows[j])] = static_cast<int64_t>(j);
    }
    sources_.push_back(std::move(values));
  }

  Result<ColumnPtr> Finish(const DataTypePtr& type, int64_t length, MemoryPool* pool) {
    // One source covering every row in order is the answer as it is.
    if (sources_.size() == 1 && sources_[0]->Length() == length) {
      bool identity = true;
      for (size_t i = 0; i < source_.size() && identity; ++i) {
        identity = source_[i] == 0 && source_row_[i] == static_cast<int64_t>(i);
      }
      if (identity) {
        return sources_[0];
      }
    }
    return Interleave(type, sources_, source_, source_row_, pool);
  }

 private:
  std::vector<ColumnPtr> sources_;
  std::vector<int32_t> source_;
  std::vector<int64_t> source_row_;
};

std::vector<int64_t> AllRows(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    rows[static_cast<size_t>(i)] = i;
  }
  return rows;
}

// Splits `pending` by `keep(j)` for j over its rows: returns the rows kept (original indices,
// and their positions in pending.batch) and leaves the others in `pending`.
template <typename Keep>
Status Split(PendingRows* pending, Keep keep, std::vector<int64_t>* taken_rows,
             RecordBatchPtr* taken_batch, MemoryPool* pool) {
  std::vector<int64_t> taken_positions;
  std::vector<int64_t> rest_positions;
  std::vector<int64_t> rest_rows;
  for (size_t j = 0; j < pending->rows.size(); ++j) {
    if (keep(static_cast<int64_t>(j))) {
      taken_positions.push_back(static_cast<int64_t>(j));
      taken_rows->push_back(pending->rows[j]);
    } else {
      rest_positions.push_back(static_cast<int64_t>(j));
      rest_rows.push_back(pending->rows[j]);
    }
  }
  if (rest_positions.empty()) {
    *taken_batch = pending->batch;
    pending->batch = nullptr;
    pending->rows.clear();
    return Status::OK();
  }
  if (!taken_positions.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(*taken_batch,
                              columnar::TakeRows(*pending->batch, taken_positions, pool));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(pending->batch,
                            columnar::TakeRows(*pending->batch, rest_positions, pool));
  pending->rows = std::move(rest_rows);
  return Status::OK();
}

// The error of evaluating `expr` over `batch`, whose rows are rows `rows` of the caller's
// batch, with the row it names counted in the caller's batch: the failing row is found by
// evaluating one row at a time (only on this error path).
Status LocateError(const BoundExpression& expr, const RecordBatch& batch,
                   std::span<const int64_t> rows, const EvalContext& context, Status error) {
  if (batch.NumRows() == static_cast<int64_t>(rows.size()) && !rows.empty() &&
      rows.back() == static_cast<int64_t>(rows.size()) - 1) {
    return error;  // the rows are the caller's rows in order: row numbers already match
  }
  for (size_t j = 0; j < rows.size(); ++j) {
    const int64_t position = static_cast<int64_t>(j);
    auto one = columnar::TakeRows(batch, std::span<const int64_t>(&position, 1), context.pool);
    if (!one.ok()) {
      return error;
    }
    auto result = expr::Evaluate(expr, **one, context);
    if (!result.ok()) {
      std::string message = result.status().Message();
      const std::string row_text = fmt::format("row {}", rows[j]);
      if (const size_t at = message.find("row 0"); at != std::string::npos) {
        message.replace(at, 5, row_text);
      } else {
        message += " (at " + row_text + ")";
      }
      return Status(result.status().Code(), std::move(message));
    }
  }
  return error;
}

// Evaluate(expr) over `batch` (rows `rows` of the caller's batch), errors naming the caller's
// row.
Result<ColumnPtr> EvaluateRows(const BoundExpression& expr, const RecordBatch& batch,
                               std::span<const int64_t> rows, const EvalContext& context) {
  auto result = expr::Evaluate(expr, batch, context);
  if (!result.ok()) {
    return LocateError(expr, batch, rows, context, result.status());
  }
  return result;
}

RecordBatchPtr Share(const RecordBatch& batch) {
  // Evaluation only reads the batch; an aliasing pointer lets pending sets hold it uniformly.
  return RecordBatchPtr(std::shared_ptr<const RecordBatch>(), &batch);
}

class CoalesceFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const RecordBatch& batch,
                             const EvalContext& context) const override {
    PendingRows pending{AllRows(batch.NumRows()), Share(batch)};
    ResultAssembler result(batch.NumRows());
    for (size_t k = 0; k < call.Children().size() && !pending.rows.empty(); ++k) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                                EvaluateRows(call.Child(k), *pending.batch, pending.rows, context));
      std::vector<int64_t> positions;
      std::vector<int64_t> valid_rows;
      std::vector<int64_t> null_rows;
      std::vector<int64_t> null_positions;
      for (size_t j = 0; j < pending.rows.size(); ++j) {
        if (values->IsValid(static_cast<int64_t>(j))) {
          positions.push_back(static_cast<int64_t>(j));
          valid_rows.push_back(pending.rows[j]);
        } else {
          null_positions.push_back(static_cast<int64_t>(j));
          null_rows.push_back(pending.rows[j]);
        }
      }
      if (null_rows.empty()) {
        result.Add(std::move(values), pending.rows);
        pending.rows.clear();
        break;
      }
      if (!valid_rows.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto kept, columnar::Take(*values, positions, context.pool));
        result.Add(std::move(kept), valid_rows);
        TRIBUTARY_ASSIGN_OR_RAISE(pending.batch,
                                  columnar::TakeRows(*pending.batch, null_positions, context.pool));
        pending.rows = std::move(null_rows);
      }
    }
    return result.Finish(call.Type(), batch.NumRows(), context.pool);
  }
};

Result<BoundExprPtr> BindCoalesce(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool two = call.Name() != "coalesce";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, two ? 2 : 1, two ? 2 : SIZE_MAX));
  std::vector<DataTypePtr> types;
  types.reserve(args.size());
  for (const auto& arg : args) {
    types.push_back(arg->Type());
  }
  DataTypePtr type = CommonType(types);
  if (type == nullptr) {
    return CallError(call, "the arguments have no common type");
  }
  for (auto& arg : args) {
    arg = CastTo(std::move(arg), type);
  }
  return MakeFunctionCall(call.Name(), type, std::move(args),
                          std::make_shared<const CoalesceFunction>());
}

Result<BoundExprPtr> BindIf(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  const TypeId condition = args[0]->Type()->Id();
  if (condition != TypeId::kBoolean && condition != TypeId::kNull) {
    return CallError(call, "the condition must be boolean, got " + args[0]->Type()->ToString());
  }
  const DataTypePtr types[] = {args[1]->Type(), args[2]->Type()};
  DataTypePtr type = CommonType(types);
  if (type == nullptr) {
    return CallError(call, "the two values have no common type");
  }
  return MakeBound(Op::kCaseWhen, type,
                   {CastTo(std::move(args[0]), DataType::Boolean()),
                    CastTo(std::move(args[1]), type), CastTo(std::move(args[2]), type)});
}

// isnull(x) / isnotnull(x): the IS [NOT] NULL operators as functions.
Result<BoundExprPtr> BindIsNull(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  return MakeBound(call.Name() == "isnull" ? Op::kIsNull : Op::kIsNotNull, DataType::Boolean(),
                   std::move(args));
}

// nvl2(x, a, b) is CASE WHEN x IS NOT NULL THEN a ELSE b END.
Result<BoundExprPtr> BindNvl2(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  const DataTypePtr types[] = {args[1]->Type(), args[2]->Type()};
  DataTypePtr type = CommonType(types);
  if (type == nullptr) {
    return CallError(call, "the two values have no common type");
  }
  auto present = MakeBound(Op::kIsNotNull, DataType::Boolean(), {std::move(args[0])});
  return MakeBound(
      Op::kCaseWhen, type,
      {std::move(present), CastTo(std::move(args[1]), type), CastTo(std::move(args[2]), type)});
}

// nullif(a, b) is CASE WHEN a = b THEN NULL ELSE a END (Spark's rewrite).
Result<BoundExprPtr> BindNullIf(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  DataTypePtr compare = ComparisonType(args[0]->Type(), args[1]->Type());
  if (compare == nullptr || compare->IsNested()) {
    return CallError(call, fmt::format("cannot compare {} with {}", args[0]->Type()->ToString(),
                                       args[1]->Type()->ToString()));
  }
  if (compare->Id() == TypeId::kNull) {
    compare = DataType::Boolean();
  }
  DataTypePtr type = args[0]->Type();
  auto equal = MakeBound(Op::kEqual, DataType::Boolean(),
                         {CastTo(args[0], compare), CastTo(std::move(args[1]), compare)});
  return MakeBound(Op::kCaseWhen, type,
                   {std::move(equal), MakeBound(Op::kLiteral, type, {}, -1, Scalar::Null(type)),
                    std::move(args[0])});
}

// greatest/least: the largest (smallest) non-null argument; null only when all are.
class ExtremumFunction final : public EagerFunction {
 public:
  explicit ExtremumFunction(bool greatest) : greatest_(greatest) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t n = args[0]->Length();
    std::vector<int32_t> source(static_cast<size_t>(n), -1);
    std::vector<int64_t> source_row(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      source_row[static_cast<size_t>(i)] = i;
      if (args[0]->IsValid(i)) {
        source[static_cast<size_t>(i)] = 0;
      }
    }
    for (size_t k = 1; k < args.size(); ++k) {
      // Compare candidate k with the current best of each row.
      TRIBUTARY_ASSIGN_OR_RAISE(auto current,
                                Interleave(call.Type(), args, source, source_row, context.pool));
      TRIBUTARY_ASSIGN_OR_RAISE(auto better, CompareKernel(greatest_ ? Op::kGreater : Op::kLess,
                                                           *args[k], *current, context.pool));
      const uint8_t* is_better = better->Values<uint8_t>();
      for (int64_t i = 0; i < n; ++i) {
        const auto row = static_cast<size_t>(i);
        if (args[k]->IsValid(i) && (source[row] < 0 || is_better[i] != 0)) {
          source[row] = static_cast<int32_t>(k);
        }
      }
    }
    return Interleave(call.Type(), args, source, source_row, context.pool);
  }

 private:
  bool greatest_;
};

Result<BoundExprPtr> BindExtremum(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, SIZE_MAX));
  std::vector<DataTypePtr> types;
  types.reserve(args.size());
  for (const auto& arg : args) {
    types.push_back(arg->Type());
  }
  DataTypePtr type = CommonType(types);
  if (type == nullptr || type->IsNested()) {
    return CallError(call, "the arguments have no common orderable type");
  }
  if (type->Id() == TypeId::kNull) {
    type = DataType::Boolean();
  }
  for (auto& arg : args) {
    arg = CastTo(std::move(arg), type);
  }
  return MakeFunctionCall(call.Name(), type, std::move(args),
                          std::make_shared<const ExtremumFunction>(call.Name() == "greatest"));
}

}  // namespace

Result<ColumnPtr> EvaluateCaseWhen(const BoundExpression& expr, const RecordBatch& batch,
                                   const EvalContext& context) {
  const size_t branches = expr.Children().size() / 2;
  PendingRows pending{AllRows(batch.NumRows()), Share(batch)};
  ResultAssembler result(batch.NumRows());
  for (size_t k = 0; k < branches && !pending.rows.empty(); ++k) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto condition, EvaluateRows(expr.Child(2 * k), *pending.batch, pending.rows, context));
    const uint8_t* values = condition->Values<uint8_t>();
    std::vector<int64_t> taken_rows;
    RecordBatchPtr taken_batch;
    TRIBUTARY_RETURN_NOT_OK(Split(
        &pending, [&](int64_t j) { return condition->IsValid(j) && values[j] != 0; }, &taken_rows,
        &taken_batch, context.pool));
    if (!taken_rows.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto then_values, EvaluateRows(expr.Child(2 * k + 1), *taken_batch, taken_rows, context));
      result.Add(std::move(then_values), taken_rows);
    }
  }
  if (expr.HasElse() && !pending.rows.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto else_values,
        EvaluateRows(*expr.Children().back(), *pending.batch, pending.rows, context));
    result.Add(std::move(else_values), pending.rows);
  }
  return result.Finish(expr.Type(), batch.NumRows(), context.pool);
}

void AddConditionalFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"coalesce", BindCoalesce},
                               {"ifnull", BindCoalesce},
                               {"nvl", BindCoalesce},
                               {"if", BindIf},
                               {"iff", BindIf},
                               {"nullif", BindNullIf},
                               {"nvl2", BindNvl2},
                               {"isnull", BindIsNull},
                               {"isnotnull", BindIsNull},
                               {"greatest", BindExtremum},
                               {"least", BindExtremum}});
}

}  // namespace tributary::expr

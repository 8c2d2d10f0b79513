// Building blocks of function kernels: whole-column loops that handle nulls by validity, and
// argument coercion for function binders (internal to the expr layer).

#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "expr/coercion.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::TypeId;

// `validity` narrowed to rows where `column` is valid too (nullptr: all valid).
inline Result<BufferPtr> AndValidity(BufferPtr validity, const Column& column, int64_t n,
                                     MemoryPool* pool) {
  const bool all_null = column.Type()->Id() == TypeId::kNull;
  if (column.ValidityBits() == nullptr && !all_null) {
    return validity;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, columnar::Buffer::Allocate(columnar::BitmapBytes(n), pool));
  if (all_null) {
    return BufferPtr(std::move(out));
  }
  if (validity == nullptr) {
    return column.ValidityBuffer();
  }
  columnar::BitmapAnd(validity->data(), column.ValidityBits(), n, out->mutable_data());
  return BufferPtr(std::move(out));
}

// The longest string or binary value, in bytes: Spark's ByteArrayMethods.
// MAX_ROUNDED_ARRAY_LENGTH (Integer.MAX_VALUE - 15), the longest byte array a JVM allocates. A
// function whose result would be longer fails instead of allocating it.
inline constexpr int64_t kMaxStringBytes = 2147483632;

// The error for row `row` whose result would be `bytes` long (the evaluator names the call).
inline Status StringTooLong(int64_t row, int64_t bytes) {
  return Status::InvalidArgument(
      fmt::format("the result of row {} would be {} bytes, more than the {} bytes a string can "
                  "hold",
                  row, bytes, kMaxStringBytes));
}

// A string (or binary) result per row from `fn(row, &out) -> bool valid`, rows null where any
// input is null skipped before `fn` runs. A result longer than kMaxStringBytes is an error
// (functions whose results can grow past it check before building them).
template <typename Fn>
Result<ColumnPtr> BuildBytes(const DataTypePtr& type, const std::vector<ColumnPtr>& inputs,
                             MemoryPool* pool, Fn fn) {
  const int64_t n = inputs.empty() ? 0 : inputs[0]->Length();
  ColumnBuilder builder(type, pool);
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    bool any_null = false;
    for (const ColumnPtr& input : inputs) {
      any_null = any_null || input->IsNull(i);
    }
    out.clear();
    if (any_null || !fn(i, &out)) {
      builder.AppendNull();
    } else if (static_cast<int64_t>(out.size()) > kMaxStringBytes) {
      return StringTooLong(i, static_cast<int64_t>(out.size()));
    } else {
      builder.AppendBytes(out);
    }
  }
  return builder.Finish();
}

// A fixed-width result per row (int32, boolean) from `fn(row) -> T`; null where any input is.
template <typename T, typename Fn>
Result<ColumnPtr> BuildFixed(const DataTypePtr& type, const std::vector<ColumnPtr>& inputs,
                             MemoryPool* pool, Fn fn) {
  const int64_t n = inputs[0]->Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                            columnar::Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)), pool));
  auto* out = reinterpret_cast<T*>(values->mutable_data());
  BufferPtr validity;
  for (const ColumnPtr& input : inputs) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, AndValidity(std::move(validity), *input, n, pool));
  }
  const uint8_t* valid = validity ? validity->data() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    if (valid == nullptr || columnar::GetBit(valid, i)) {
      out[i] = fn(i);
    }
  }
  return Column::Make(type, n, std::move(validity), std::move(values));
}

// `column` with rows where `is_null(row)` holds (checked on valid rows only) made null.
template <typename Pred>
Result<ColumnPtr> NullWhere(ColumnPtr column, MemoryPool* pool, Pred is_null) {
  const int64_t n = column->Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                            columnar::Buffer::Allocate(columnar::BitmapBytes(n), pool));
  uint8_t* valid = validity->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    columnar::SetBitTo(valid, i, column->IsValid(i) && !is_null(i));
  }
  return Column::Make(column->Type(), n, std::move(validity), column->ValuesBuffer());
}

/// Row `row` of an integer column, or of a date, timestamp or interval column by its physical
/// integer.
inline int64_t IntAt(const Column& column, int64_t row) {
  switch (column.Type()->Id()) {
    case TypeId::kInt8:
      return column.Values<int8_t>()[row];
    case TypeId::kInt16:
      return column.Values<int16_t>()[row];
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return column.Values<int32_t>()[row];
    default:
      return column.Values<int64_t>()[row];
  }
}

// A function given as a plain lambda over argument columns: fn(call, args, pool) or, for
// functions that need the session (time zone, current time), fn(call, args, context).
template <typename Fn>
class LambdaFunction final : public EagerFunction {
 public:
  explicit LambdaFunction(Fn fn) : fn_(std::move(fn)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    if constexpr (std::is_invocable_v<const Fn&, const BoundExpression&,
                                      const std::vector<ColumnPtr>&, const EvalContext&>) {
      return fn_(call, args, context);
    } else {
      return fn_(call, args, context.pool);
    }
  }

 private:
  Fn fn_;
};

template <typename Fn>
std::shared_ptr<const ScalarFunction> Lambda(Fn fn) {
  return std::make_shared<const LambdaFunction<Fn>>(std::move(fn));
}

/// A call computed row by row into bytes: `row(args, i, &out)` returns whether row i is valid;
/// rows where an argument is null are null without calling it.
template <typename Row>
BoundExprPtr PerRowBytes(const Expression& call, DataTypePtr type, std::vector<BoundExprPtr> args,
                         Row row) {
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([row](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        return BuildBytes(c.Type(), a, pool,
                          [&](int64_t i, std::string* out) { return row(a, i, out); });
      }));
}

/// A call computed row by row into fixed-width values T: `row(args, i)`; null where an
/// argument is null.
template <typename T, typename Row>
BoundExprPtr PerRowFixed(const Expression& call, DataTypePtr type, std::vector<BoundExprPtr> args,
                         Row row) {
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([row](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        return BuildFixed<T>(c.Type(), a, pool, [&](int64_t i) { return row(a, i); });
      }));
}

// Casts each argument to `types[i]` after checking it is a string, binary or castable type.
inline Status CoerceArgs(const Expression& call, std::vector<BoundExprPtr>* args,
                         const std::vector<DataTypePtr>& types) {
  for (size_t i = 0; i < args->size(); ++i) {
    const DataTypePtr& want = types[std::min(i, types.size() - 1)];
    const DataType& have = *(*args)[i]->Type();
    const bool ok = have.Id() == TypeId::kNull || have.SameShape(*want) ||
                    (want->Id() == TypeId::kString && !have.IsNested()) ||
                    (want->IsInteger() && have.IsInteger()) ||
                    (want->Id() == TypeId::kBinary && have.Id() == TypeId::kString);
    if (!ok) {
      return CallError(call, fmt::format("argument {} must be {}, got {}", i + 1, want->ToString(),
                                         have.ToString()));
    }
    (*args)[i] = CastTo(std::move((*args)[i]), want);
  }
  return Status::OK();
}

}  // namespace tributary::expr

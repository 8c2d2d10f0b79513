#include "expr/evaluator.h"

#include <cstring>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"

namespace tributary::expr {

using columnar::Buffer;
using columnar::TypeId;

namespace {

Result<ColumnPtr> EvaluateNode(const BoundExpression& expr, const columnar::RecordBatch& batch,
                               const EvalContext& context);

// Field `index` of a struct column: null wherever the struct itself is null.
Result<ColumnPtr> GetFieldColumn(const Column& input, int index, MemoryPool* pool) {
  const ColumnPtr& child = input.Child(index);
  if (input.ValidityBits() == nullptr) {
    return child;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, IntersectValidity(input, *child, pool));
  return Column::Make(child->Type(), child->Length(), std::move(validity), child->ValuesBuffer(),
                      child->OffsetsBuffer(), child->Children());
}

Result<ColumnPtr> IsNullColumn(const Column& input, bool want_null, MemoryPool* pool) {
  const int64_t n = input.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n, pool));
  uint8_t* out = values->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint8_t>(input.IsNull(i) == want_null);
  }
  return Column::Make(DataType::Boolean(), n, nullptr, std::move(values));
}

Result<ColumnPtr> NotColumn(const Column& input, MemoryPool* pool) {
  const int64_t n = input.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n, pool));
  const uint8_t* in = input.Values<uint8_t>();
  uint8_t* out = values->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = in[i] ^ 1;
  }
  return Column::Make(DataType::Boolean(), n, input.ValidityBuffer(), std::move(values));
}

// SQL's three-valued AND/OR: a false (AND) or true (OR) operand decides the result even when
// the other side is null.
Result<ColumnPtr> LogicColumn(bool is_and, const Column& a, const Column& b, MemoryPool* pool) {
  const int64_t n = a.Length();
  const uint8_t* va = a.Values<uint8_t>();
  const uint8_t* vb = b.Values<uint8_t>();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n, pool));
  uint8_t* out = values->mutable_data();
  if (a.ValidityBits() == nullptr && b.ValidityBits() == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = is_and ? (va[i] & vb[i]) : (va[i] | vb[i]);
    }
    return Column::Make(DataType::Boolean(), n, nullptr, std::move(values));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity, Buffer::Allocate(columnar::BitmapBytes(n), pool));
  uint8_t* out_valid = validity->mutable_data();
  const uint8_t decisive = is_and ? 0 : 1;
  for (int64_t i = 0; i < n; ++i) {
    const bool a_valid = a.IsValid(i);
    const bool b_valid = b.IsValid(i);
    const bool a_decides = a_valid && va[i] == decisive;
    const bool b_decides = b_valid && vb[i] == decisive;
    const bool valid = (a_valid && b_valid) || a_decides || b_decides;
    // Undecided valid rows have both operands non-decisive, so the result is the other value.
    out[i] = (a_decides || b_decides) ? decisive : static_cast<uint8_t>(1 - decisive);
    columnar::SetBitTo(out_valid, i, valid);
  }
  return Column::Make(DataType::Boolean(), n, std::move(validity), std::move(values));
}

Result<ColumnPtr> Dispatch(const BoundExpression& expr, const columnar::RecordBatch& batch,
                           const EvalContext& context, const std::vector<ColumnPtr>& inputs) {
  MemoryPool* pool = context.pool;
  if (IsComparison(expr.GetOp())) {
    return CompareKernel(expr.GetOp(), *inputs[0], *inputs[1], pool);
  }
  switch (expr.GetOp()) {
    case Op::kColumn:
      return batch.ColumnAt(expr.Index());
    case Op::kGetField:
      return GetFieldColumn(*inputs[0], expr.Index(), pool);
    case Op::kLiteral:
      return MakeConstantColumn(expr.Literal(), batch.NumRows(), pool);
    case Op::kAdd:
    case Op::kSubtract:
    case Op::kMultiply:
    case Op::kDivide:
    case Op::kRemainder:
      return ArithmeticKernel(expr.GetOp(), *inputs[0], *inputs[1], expr.Type(), pool);
    case Op::kNegate:
      return NegateKernel(*inputs[0], pool);
    case Op::kAnd:
    case Op::kOr:
      return LogicColumn(expr.GetOp() == Op::kAnd, *inputs[0], *inputs[1], pool);
    case Op::kNot:
      return NotColumn(*inputs[0], pool);
    case Op::kIsNull:
    case Op::kIsNotNull:
      return IsNullColumn(*inputs[0], expr.GetOp() == Op::kIsNull, pool);
    case Op::kCast:
    case Op::kTryCast:
      return CastKernel(*inputs[0], expr.Type(), expr.GetOp() == Op::kTryCast, context);
    case Op::kSubscript:
      return SubscriptKernel(*inputs[0], *inputs[1], pool);
    default:
      break;
  }
  return Status::Internal("unbound operator in evaluation: " + expr.ToString());
}

Result<ColumnPtr> EvaluateNode(const BoundExpression& expr, const columnar::RecordBatch& batch,
                               const EvalContext& context);

// Op::kGreater for Op::kLess and so on: `literal <op> x` is `x <mirrored op> literal`.
Op Mirrored(Op op) {
  switch (op) {
    case Op::kLess:
      return Op::kGreater;
    case Op::kLessEqual:
      return Op::kGreaterEqual;
    case Op::kGreater:
      return Op::kLess;
    case Op::kGreaterEqual:
      return Op::kLessEqual;
    default:
      return op;  // =, !=, <=> are symmetric
  }
}

// A comparison with a non-null literal on one side (`status = 'active'`), compared against the
// one value instead of a column repeating it for every row; nullptr for other comparisons.
Result<ColumnPtr> CompareWithLiteral(const BoundExpression& expr,
                                     const columnar::RecordBatch& batch,
                                     const EvalContext& context) {
  const auto is_literal = [](const BoundExpression& e) {
    return e.GetOp() == Op::kLiteral && e.Function() == nullptr && !e.Literal().IsNull();
  };
  const BoundExpression& left = *expr.Children()[0];
  const BoundExpression& right = *expr.Children()[1];
  if (is_literal(left) == is_literal(right)) {
    return ColumnPtr();
  }
  const bool literal_on_right = is_literal(right);
  const BoundExpression& operand = literal_on_right ? left : right;
  const BoundExpression& literal = literal_on_right ? right : left;
  if (operand.Type()->Id() == TypeId::kNull || !operand.Type()->SameShape(*literal.Type())) {
    return ColumnPtr();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto column, EvaluateNode(operand, batch, context));
  TRIBUTARY_ASSIGN_OR_RAISE(auto constant, MakeConstantColumn(literal.Literal(), 1, context.pool));
  auto result = CompareWithConstantKernel(literal_on_right ? expr.GetOp() : Mirrored(expr.GetOp()),
                                          *column, *constant, context.pool);
  if (!result.ok()) {
    return result.status().WithContext("in " + expr.SqlText());
  }
  return result;
}

Result<ColumnPtr> EvaluateNode(const BoundExpression& expr, const columnar::RecordBatch& batch,
                               const EvalContext& context) {
  // Functions and CASE evaluate their own arguments (some lazily, over part of the batch).
  if (expr.Function() != nullptr || expr.GetOp() == Op::kCaseWhen) {
    auto result = expr.Function() != nullptr ? expr.Function()->Evaluate(expr, batch, context)
                                             : EvaluateCaseWhen(expr, batch, context);
    if (!result.ok()) {
      return result.status().WithContext("in " + expr.SqlText());
    }
    return result;
  }
  if (IsComparison(expr.GetOp())) {
    auto compared = CompareWithLiteral(expr, batch, context);
    if (!compared.ok() || *compared != nullptr) {
      return compared;
    }
  }
  std::vector<ColumnPtr> inputs;
  for (const BoundExprPtr& child : expr.Children()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, EvaluateNode(*child, batch, context));
    inputs.push_back(std::move(column));
  }
  auto result = Dispatch(expr, batch, context, inputs);
  if (!result.ok()) {
    return result.status().WithContext("in " + expr.SqlText());
  }
  return result;
}

}  // namespace

Result<ColumnPtr> MakeConstantColumn(const Scalar& value, int64_t length, MemoryPool* pool) {
  if (value.IsNull()) {
    return Column::MakeAllNull(value.Type(), length, pool);
  }
  const DataType& type = *value.Type();
  if (const int width = type.ByteWidth(); width > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(length * width, pool));
    uint8_t* out = values->mutable_data();
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate> || std::is_same_v<V, std::string>) {
            return;
          } else {
            auto fill = [&](auto typed) {
              for (int64_t i = 0; i < length; ++i) {
                std::memcpy(out + i * width, &typed, sizeof(typed));
              }
            };
            switch (type.Id()) {
              case TypeId::kBoolean:
                fill(static_cast<uint8_t>(v));
                break;
              case TypeId::kInt8:
                fill(static_cast<int8_t>(v));
                break;
              case TypeId::kInt16:
                fill(static_cast<int16_t>(v));
                break;
              case TypeId::kInt32:
              case TypeId::kDate:
              case TypeId::kYearMonthInterval:
                fill(static_cast<int32_t>(v));
                break;
              case TypeId::kFloat32:
                fill(static_cast<float>(v));
                break;
              case TypeId::kFloat64:
                fill(static_cast<double>(v));
                break;
              case TypeId::kDecimal:
                fill(static_cast<columnar::Int128>(v));
                break;
              default:
                fill(static_cast<int64_t>(v));
                break;
            }
          }
        },
        value.Get());
    return Column::Make(value.Type(), length, nullptr, std::move(values));
  }
  columnar::ColumnBuilder builder(value.Type(), pool);
  for (int64_t i = 0; i < length; ++i) {
    builder.AppendBytes(value.BytesValue());
  }
  return builder.Finish();
}

Result<ColumnPtr> Evaluate(const BoundExpression& expr, const columnar::RecordBatch& batch,
                           const EvalContext& context) {
  return EvaluateNode(expr, batch, context);
}

}  // namespace tributary::expr

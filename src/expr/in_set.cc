#include "expr/in_set.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "columnar/bitmap.h"
#include "columnar/record_batch.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

using columnar::Buffer;
using columnar::Column;
using columnar::ColumnPtr;
using columnar::TypeId;

namespace {

// Spark's spark.sql.optimizer.inSetConversionThreshold: lists longer than this become a set.
constexpr size_t kInSetThreshold = 10;

enum class KeyKind { kInteger, kFloating, kBytes };

// How values of `type` are kept in the set; nullopt for types compared otherwise (decimal,
// boolean, nested), which keep the OR of equalities.
std::optional<KeyKind> KeyKindOf(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return KeyKind::kInteger;
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return KeyKind::kFloating;
    case TypeId::kString:
    case TypeId::kBinary:
      return KeyKind::kBytes;
    default:
      return std::nullopt;
  }
}

// The bits of `value` with the `=` operator's equalities folded in: every NaN one pattern,
// -0.0 as 0.0.
int64_t NormalizedBits(double value) {
  if (std::isnan(value)) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (value == 0.0) {
    value = 0.0;
  }
  return std::bit_cast<int64_t>(value);
}

double FloatingAt(const Column& column, int64_t i) {
  return column.Type()->Id() == TypeId::kFloat32 ? column.Values<float>()[i]
                                                 : column.Values<double>()[i];
}

// Whether `constant` (a list entry after coercion) has the same value whatever the session:
// a literal, or casts of one that read no time zone.
bool IsContextFreeConstant(const BoundExpression& constant) {
  switch (constant.GetOp()) {
    case Op::kLiteral:
      return true;
    case Op::kCast:
    case Op::kTryCast:
      return constant.Type()->Id() != TypeId::kTimestamp &&
             constant.Child(0).Type()->Id() != TypeId::kTimestamp &&
             IsContextFreeConstant(constant.Child(0));
    default:
      return false;
  }
}

struct BytesHash {
  using is_transparent = void;  // NOLINT(readability-identifier-naming): the std protocol name
  size_t operator()(std::string_view bytes) const { return std::hash<std::string_view>{}(bytes); }
};

}  // namespace

struct InSetFunction::Keys {
  KeyKind kind = KeyKind::kInteger;
  // kInteger: the values; kFloating: their NormalizedBits.
  std::unordered_set<int64_t> numbers;
  std::unordered_set<std::string, BytesHash, std::equal_to<>> bytes;
  bool has_null = false;

  // found[i]: whether row i's value is in the set (whatever it is for a null row). One typed
  // loop per kind and width, not a switch per row.
  void Lookup(const Column& column, uint8_t* found) const {
    const int64_t n = column.Length();
    const auto each = [n, found](auto&& contains) {
      for (int64_t i = 0; i < n; ++i) {
        found[i] = contains(i) ? 1 : 0;
      }
    };
    switch (kind) {
      case KeyKind::kInteger:
        switch (column.Type()->Id()) {
          case TypeId::kInt8:
            each([&](int64_t i) { return numbers.contains(column.Values<int8_t>()[i]); });
            return;
          case TypeId::kInt16:
            each([&](int64_t i) { return numbers.contains(column.Values<int16_t>()[i]); });
            return;
          case TypeId::kInt32:
          case TypeId::kDate:
          case TypeId::kYearMonthInterval:
            each([&](int64_t i) { return numbers.contains(column.Values<int32_t>()[i]); });
            return;
          default:
            each([&](int64_t i) { return numbers.contains(column.Values<int64_t>()[i]); });
            return;
        }
      case KeyKind::kFloating:
        if (column.Type()->Id() == TypeId::kFloat32) {
          each([&](int64_t i) {
            return numbers.contains(NormalizedBits(column.Values<float>()[i]));
          });
        } else {
          each([&](int64_t i) {
            return numbers.contains(NormalizedBits(column.Values<double>()[i]));
          });
        }
        return;
      case KeyKind::kBytes:
        each([&](int64_t i) { return bytes.contains(column.BytesAt(i)); });
        return;
    }
  }
};

BoundExprPtr InSetFunction::MakeInSet(const std::vector<BoundExprPtr>& equalities) {
  if (equalities.size() <= kInSetThreshold) {
    return nullptr;
  }
  const BoundExprPtr& value = equalities.front()->Children()[0];
  const std::optional<KeyKind> kind = KeyKindOf(value->Type()->Id());
  if (!kind) {
    return nullptr;
  }
  const std::string value_text = value->ToString();
  auto keys = std::make_shared<Keys>();
  keys->kind = *kind;
  // Each constant is folded over a one-row batch with no columns; the session context does
  // not matter (IsContextFreeConstant), and a constant that fails to fold (an ANSI cast error)
  // leaves the equalities to fail where they always did, at evaluation.
  const columnar::RecordBatchPtr one_row =
      columnar::RecordBatch::Make(
          std::make_shared<columnar::Schema>(std::vector<columnar::Field>{}), 1, {})
          .ValueOrDie();
  BoundExprPtr min;
  BoundExprPtr max;
  ColumnPtr min_value;  // null until the first non-null constant
  ColumnPtr max_value;
  bool has_nan = false;
  for (const BoundExprPtr& equality : equalities) {
    const BoundExprPtr& left = equality->Children()[0];
    const BoundExprPtr& constant = equality->Children()[1];
    if (equality->GetOp() != Op::kEqual || !left->Type()->SameShape(*value->Type()) ||
        !IsContextFreeConstant(*constant) || left->ToString() != value_text) {
      return nullptr;
    }
    Result<ColumnPtr> folded = expr::Evaluate(*constant, *one_row);
    if (!folded.ok()) {
      return nullptr;
    }
    const Column& column = **folded;
    if (column.IsNull(0)) {
      keys->has_null = true;
      continue;
    }
    bool below = min_value == nullptr;
    bool above = max_value == nullptr;
    switch (*kind) {
      case KeyKind::kInteger: {
        const int64_t number = IntAt(column, 0);
        keys->numbers.insert(number);
        below = below || number < IntAt(*min_value, 0);
        above = above || number > IntAt(*max_value, 0);
        break;
      }
      case KeyKind::kFloating: {
        const double number = FloatingAt(column, 0);
        keys->numbers.insert(NormalizedBits(number));
        has_nan = has_nan || std::isnan(number);
        below = below || number < FloatingAt(*min_value, 0);
        above = above || number > FloatingAt(*max_value, 0);
        break;
      }
      case KeyKind::kBytes: {
        const std::string_view bytes = column.BytesAt(0);
        keys->bytes.emplace(bytes);
        below = below || bytes < min_value->BytesAt(0);
        above = above || bytes > max_value->BytesAt(0);
        break;
      }
    }
    if (below) {
      min = constant;
      min_value = *folded;
    }
    if (above) {
      max = constant;
      max_value = *folded;
    }
  }
  if (has_nan) {
    // NaN sorts above every number in Spark, but file statistics leave it out: no range.
    min = nullptr;
    max = nullptr;
  }
  auto function = std::make_shared<InSetFunction>(std::move(keys), std::move(min), std::move(max));
  return MakeFunctionCall(kInSetFunctionName, DataType::Boolean(), {value}, std::move(function));
}

Result<ColumnPtr> InSetFunction::Compute(const BoundExpression& /*call*/,
                                         const std::vector<ColumnPtr>& args,
                                         const EvalContext& context) const {
  const Column& value = *args[0];
  const int64_t n = value.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::AllocateUninitialized(n, context.pool));
  uint8_t* out = values->mutable_data();
  keys_->Lookup(value, out);
  int64_t misses = 0;
  if (value.NullCount() == 0) {
    for (int64_t i = 0; i < n; ++i) {
      misses += out[i] == 0 ? 1 : 0;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = value.IsValid(i) && out[i] != 0;
      misses += out[i] == 0 && value.IsValid(i);
    }
  }
  if (value.NullCount() == 0 && (misses == 0 || !keys_->has_null)) {
    return Column::Make(DataType::Boolean(), n, nullptr, std::move(values));
  }
  // Null for a null value, and for a value not found in a list that holds a null.
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                            Buffer::AllocateUninitialized(columnar::BitmapBytes(n), context.pool));
  uint8_t* bits = validity->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    columnar::SetBitTo(bits, i, value.IsValid(i) && (out[i] != 0 || !keys_->has_null));
  }
  return Column::Make(DataType::Boolean(), n, std::move(validity), std::move(values));
}

}  // namespace tributary::expr

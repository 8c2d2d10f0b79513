// Comparison kernels. Floating point follows Spark: NaN equals NaN and sorts above every other
// value, and -0.0 equals 0.0. Strings and binary compare by unsigned bytes (UTF-8 order).

#include <cmath>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "expr/kernels.h"
#include "expr/nested_values.h"

namespace tributary::expr {

using columnar::Buffer;
using columnar::Int128;
using columnar::TypeId;

namespace {

// -1, 0, 1 for a < b, a == b, a > b.
template <typename T>
int Compare3(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool a_nan = std::isnan(a);
    const bool b_nan = std::isnan(b);
    if (a_nan || b_nan) {
      return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
    }
  }
  return (a > b) - (a < b);
}

int Compare3(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return (c > 0) - (c < 0);
}

// Fills out[i] with the comparison of row i; `get` reads a value of either side.
template <typename GetA, typename GetB>
void CompareLoop(Op op, int64_t n, GetA get_a, GetB get_b, uint8_t* out) {
  // One loop per operator keeps the body branch-free for the compiler to vectorize.
  switch (op) {
    case Op::kEqual:
    case Op::kNullSafeEqual:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) == 0;
      }
      break;
    case Op::kNotEqual:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) != 0;
      }
      break;
    case Op::kLess:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) < 0;
      }
      break;
    case Op::kLessEqual:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) <= 0;
      }
      break;
    case Op::kGreater:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) > 0;
      }
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = Compare3(get_a(i), get_b(i)) >= 0;
      }
      break;
  }
}

// Row i of `b` is `b_row(i)`: i itself, or 0 when `b` is a one-row constant.
template <bool kConstantB>
int64_t RowOfB(int64_t i) {
  return kConstantB ? 0 : i;
}

template <typename T, bool kConstantB>
void CompareFixed(Op op, const Column& a, const Column& b, uint8_t* out) {
  const T* x = a.Values<T>();
  const T* y = b.Values<T>();
  CompareLoop(
      op, a.Length(), [x](int64_t i) { return x[i]; },
      [y](int64_t i) { return y[RowOfB<kConstantB>(i)]; }, out);
}

template <bool kConstantB>
void CompareBytes(Op op, const Column& a, const Column& b, uint8_t* out) {
  const int64_t n = a.Length();
  if (op == Op::kEqual || op == Op::kNullSafeEqual || op == Op::kNotEqual) {
    // Equality needs no ordering: a length check settles most rows without a memcmp.
    const uint8_t equal = op == Op::kNotEqual ? 0 : 1;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = (a.BytesAt(i) == b.BytesAt(RowOfB<kConstantB>(i))) ? equal : 1 - equal;
    }
    return;
  }
  CompareLoop(
      op, n, [&a](int64_t i) { return a.BytesAt(i); },
      [&b](int64_t i) { return b.BytesAt(RowOfB<kConstantB>(i)); }, out);
}

// Structs and arrays row by row under Spark's ordering (nulls inside equal each other and sort
// first: EqualTo on structs is ordering.equiv, null only when a whole side is). Null rows get 0.
template <bool kConstantB>
void CompareNested(Op op, const Column& a, const Column& b, uint8_t* out) {
  CompareLoop(
      op, a.Length(),
      [&a, &b](int64_t i) {
        const int64_t j = RowOfB<kConstantB>(i);
        return a.IsValid(i) && b.IsValid(j) ? CompareValues(a, i, b, j) : 0;
      },
      [](int64_t) { return 0; }, out);
}

template <bool kConstantB>
Status CompareColumnValues(Op op, const Column& a, const Column& b, uint8_t* out) {
  switch (a.Type()->Id()) {
    case TypeId::kBoolean:
      CompareFixed<uint8_t, kConstantB>(op, a, b, out);
      break;
    case TypeId::kInt8:
      CompareFixed<int8_t, kConstantB>(op, a, b, out);
      break;
    case TypeId::kInt16:
      CompareFixed<int16_t, kConstantB>(op, a, b, out);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      CompareFixed<int32_t, kConstantB>(op, a, b, out);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      CompareFixed<int64_t, kConstantB>(op, a, b, out);
      break;
    case TypeId::kFloat32:
      CompareFixed<float, kConstantB>(op, a, b, out);
      break;
    case TypeId::kFloat64:
      CompareFixed<double, kConstantB>(op, a, b, out);
      break;
    case TypeId::kDecimal:
      CompareFixed<Int128, kConstantB>(op, a, b, out);
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      CompareBytes<kConstantB>(op, a, b, out);
      break;
    case TypeId::kStruct:
    case TypeId::kArray:
      CompareNested<kConstantB>(op, a, b, out);
      break;
    case TypeId::kNull:
      // Every row is null on both sides: only <=> keeps this (null <=> null is true); the other
      // operators give null rows.
      std::memset(out, 1, static_cast<size_t>(a.Length()));
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("comparison of {} values is not supported", a.Type()->ToString()));
  }
  return Status::OK();
}

}  // namespace

Result<ColumnPtr> CompareKernel(Op op, const Column& a, const Column& b, MemoryPool* pool) {
  const int64_t n = a.Length();
  if (!a.Type()->SameShape(*b.Type())) {
    return Status::Internal(fmt::format("comparing {} with {} without a cast", a.Type()->ToString(),
                                        b.Type()->ToString()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::AllocateUninitialized(n, pool));
  uint8_t* out = values->mutable_data();
  TRIBUTARY_RETURN_NOT_OK(CompareColumnValues<false>(op, a, b, out));
  if (op == Op::kNullSafeEqual) {
    // Never null: two nulls are equal, a null and a value are not.
    if (a.ValidityBits() != nullptr || b.ValidityBits() != nullptr) {
      for (int64_t i = 0; i < n; ++i) {
        const bool a_valid = a.IsValid(i);
        const bool b_valid = b.IsValid(i);
        if (!a_valid || !b_valid) {
          out[i] = a_valid == b_valid;
        }
      }
    }
    return Column::Make(DataType::Boolean(), n, nullptr, std::move(values));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, IntersectValidity(a, b, pool));
  if (a.Type()->Id() == TypeId::kNull) {
    return Column::MakeAllNull(DataType::Boolean(), n, pool);
  }
  return Column::Make(DataType::Boolean(), n, std::move(validity), std::move(values));
}

Result<ColumnPtr> CompareWithConstantKernel(Op op, const Column& a, const Column& constant,
                                            MemoryPool* pool) {
  if (!a.Type()->SameShape(*constant.Type()) || constant.Length() != 1 || !constant.IsValid(0)) {
    return Status::Internal(fmt::format("comparing {} with a constant {} of {} rows",
                                        a.Type()->ToString(), constant.Type()->ToString(),
                                        constant.Length()));
  }
  const int64_t n = a.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::AllocateUninitialized(n, pool));
  uint8_t* out = values->mutable_data();
  TRIBUTARY_RETURN_NOT_OK(CompareColumnValues<true>(op, a, constant, out));
  if (op != Op::kNullSafeEqual) {
    // The constant is valid, so a row is null exactly where `a` is.
    return Column::Make(DataType::Boolean(), n, a.ValidityBuffer(), std::move(values));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!a.IsValid(i)) {
      out[i] = 0;  // null <=> value is false, never null
    }
  }
  return Column::Make(DataType::Boolean(), n, nullptr, std::move(values));
}

}  // namespace tributary::expr

// Arithmetic kernels with Spark's ANSI semantics: integer and decimal overflow and division by
// zero are errors; floating point follows IEEE 754 except that dividing by zero is an error.
// Loops run unchecked over whole columns and only record that something went wrong; the
// offending row is looked up afterwards, so the common path has no per-row Status.

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "expr/kernels.h"

namespace tributary::expr {

using columnar::Buffer;
using columnar::Int128;
using columnar::TypeId;

Result<BufferPtr> IntersectValidity(const Column& a, const Column& b, MemoryPool* pool) {
  const uint8_t* va = a.ValidityBits();
  const uint8_t* vb = b.ValidityBits();
  if (va == nullptr && vb == nullptr) {
    return BufferPtr();
  }
  if (va == nullptr || vb == nullptr) {
    return va == nullptr ? b.ValidityBuffer() : a.ValidityBuffer();
  }
  const int64_t n = a.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::Allocate(columnar::BitmapBytes(n), pool));
  columnar::BitmapAnd(va, vb, n, out->mutable_data());
  return BufferPtr(std::move(out));
}

namespace {

std::string ValueText(const Column& column, int64_t row) {
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kInt8:
      return std::to_string(column.Values<int8_t>()[row]);
    case TypeId::kInt16:
      return std::to_string(column.Values<int16_t>()[row]);
    case TypeId::kInt32:
      return std::to_string(column.Values<int32_t>()[row]);
    case TypeId::kInt64:
      return std::to_string(column.Values<int64_t>()[row]);
    case TypeId::kFloat32:
      return fmt::format("{}", column.Values<float>()[row]);
    case TypeId::kFloat64:
      return fmt::format("{}", column.Values<double>()[row]);
    case TypeId::kDecimal: {
      std::string text;
      columnar::AppendDecimal(column.Values<Int128>()[row], type.Scale(), &text);
      return text;
    }
    case TypeId::kYearMonthInterval: {
      std::string text;
      columnar::AppendYearMonthInterval(column.Values<int32_t>()[row], &text);
      return text;
    }
    case TypeId::kDayTimeInterval: {
      std::string text;
      columnar::AppendDayTimeInterval(column.Values<int64_t>()[row], &text);
      return text;
    }
    default:
      return "?";
  }
}

Status ArithmeticError(Op op, const Column& a, const Column& b, int64_t row, bool divide_by_zero,
                       const DataType& type) {
  if (divide_by_zero) {
    return Status::InvalidArgument(
        fmt::format("[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor "
                    "being 0 and return NULL instead. (row {}: {} {} {})",
                    row, ValueText(a, row), OpName(op), ValueText(b, row)));
  }
  if (type.Id() == TypeId::kYearMonthInterval || type.Id() == TypeId::kDayTimeInterval) {
    // Spark's ANSI interval +, - and negation (Math.addExact and friends on months or
    // microseconds).
    return Status::InvalidArgument(fmt::format(
        "[INTERVAL_ARITHMETIC_OVERFLOW] {} overflow at row {}: {} {} {}. Use '{}' to tolerate "
        "overflow and return NULL instead.",
        type.Id() == TypeId::kYearMonthInterval ? "integer" : "long", row, ValueText(a, row),
        OpName(op), ValueText(b, row), op == Op::kAdd ? "try_add" : "try_subtract"));
  }
  return Status::InvalidArgument(
      fmt::format("[ARITHMETIC_OVERFLOW] {} overflow at row {}: {} {} {}", type.ToString(), row,
                  ValueText(a, row), OpName(op), ValueText(b, row)));
}

// Which rows failed: flags are computed for every row, valid or not; only valid ones count.
Result<int64_t> FirstFailedValidRow(const std::vector<uint8_t>& failed, const Column& a,
                                    const Column& b) {
  for (size_t i = 0; i < failed.size(); ++i) {
    const auto row = static_cast<int64_t>(i);
    if (failed[i] && a.IsValid(row) && b.IsValid(row)) {
      return row;
    }
  }
  return int64_t{-1};
}

// Sets out[i] from x[i] and y[i] for every row through `row`, which returns whether the row
// failed (f[i]); returns whether any did. A template so that `row` inlines into the loop.
template <typename T, typename Row>
uint8_t FlaggedLoop(const T* x, const T* y, T* out, int64_t n, uint8_t* f, Row row) {
  uint8_t any = 0;
  for (int64_t i = 0; i < n; ++i) {
    f[i] = row(x[i], y[i], &out[i]);
    any |= f[i];
  }
  return any;
}

template <typename T>
Status IntegerLoop(Op op, const T* x, const T* y, T* out, int64_t n, std::vector<uint8_t>* failed,
                   bool* any_failed) {
  uint8_t any = 0;
  uint8_t* f = failed->data();
  switch (op) {
    case Op::kAdd:
      any = FlaggedLoop(x, y, out, n, f,
                        [](T a, T b, T* r) -> uint8_t { return __builtin_add_overflow(a, b, r); });
      break;
    case Op::kSubtract:
      any = FlaggedLoop(x, y, out, n, f,
                        [](T a, T b, T* r) -> uint8_t { return __builtin_sub_overflow(a, b, r); });
      break;
    case Op::kMultiply:
      any = FlaggedLoop(x, y, out, n, f,
                        [](T a, T b, T* r) -> uint8_t { return __builtin_mul_overflow(a, b, r); });
      break;
    case Op::kRemainder:
      any = FlaggedLoop(x, y, out, n, f, [](T a, T d, T* r) -> uint8_t {
        // x % -1 is 0; computing it would trap for the most negative x.
        *r = (d == 0 || d == -1) ? T{0} : static_cast<T>(a % d);
        return d == 0;
      });
      break;
    default:
      return Status::Internal(fmt::format("integer kernel for {}", OpName(op)));
  }
  *any_failed = any != 0;
  return Status::OK();
}

template <typename T>
void FloatLoop(Op op, const T* x, const T* y, T* out, int64_t n, std::vector<uint8_t>* failed,
               bool* any_failed) {
  uint8_t any = 0;
  uint8_t* f = failed->data();
  switch (op) {
    case Op::kAdd:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = x[i] + y[i];
      }
      break;
    case Op::kSubtract:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = x[i] - y[i];
      }
      break;
    case Op::kMultiply:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = x[i] * y[i];
      }
      break;
    case Op::kDivide:
      any = FlaggedLoop(x, y, out, n, f, [](T a, T b, T* r) -> uint8_t {
        *r = a / b;
        return b == 0;
      });
      break;
    default:
      any = FlaggedLoop(x, y, out, n, f, [](T a, T b, T* r) -> uint8_t {
        *r = std::fmod(a, b);
        return b == 0;
      });
      break;
  }
  *any_failed = any != 0;
}

// Rounds num / den half away from zero (Spark's ROUND_HALF_UP); den != 0.
Int128 DivideRoundHalfUp(Int128 num, Int128 den) {
  Int128 quotient = num / den;
  Int128 remainder = num % den;
  if (remainder != 0) {
    const unsigned __int128 r = remainder < 0 ? -static_cast<unsigned __int128>(remainder)
                                              : static_cast<unsigned __int128>(remainder);
    const unsigned __int128 d =
        den < 0 ? -static_cast<unsigned __int128>(den) : static_cast<unsigned __int128>(den);
    if (r >= d - r) {
      quotient += ((num < 0) != (den < 0)) ? -1 : 1;
    }
  }
  return quotient;
}

// value * 10^exponent (exponent >= 0) with overflow detection.
bool ScaleUp(Int128 value, int exponent, Int128* out) {
  return __builtin_mul_overflow(value, columnar::PowerOfTen(exponent), out);
}

// Moves `value` from scale `from` to scale `to`, rounding half up; false on overflow.
bool Rescale(Int128 value, int from, int to, Int128* out) {
  if (to >= from) {
    return !ScaleUp(value, to - from, out);
  }
  *out = DivideRoundHalfUp(value, columnar::PowerOfTen(from - to));
  return true;
}

using Uint128 = unsigned __int128;

Uint128 Magnitude(Int128 value) {
  return value < 0 ? -static_cast<Uint128>(value) : static_cast<Uint128>(value);
}

// An unsigned 256-bit integer, four 64-bit limbs from the least significant: the exact
// intermediate of a decimal operation that passes 128 bits before it is rounded to the result
// type (two 38-digit operands make a 76-digit product; 2^256 is about 1.16e77).
struct WideMagnitude {
  std::array<uint64_t, 4> limbs{};
};

constexpr uint64_t kTenToThe19 = 10'000'000'000'000'000'000ULL;

WideMagnitude WideFrom(Uint128 value) {
  WideMagnitude out;
  out.limbs[0] = static_cast<uint64_t>(value);
  out.limbs[1] = static_cast<uint64_t>(value >> 64);
  return out;
}

bool WideFitsUint128(const WideMagnitude& value) {
  return value.limbs[2] == 0 && value.limbs[3] == 0;
}

Uint128 WideLow128(const WideMagnitude& value) {
  return (static_cast<Uint128>(value.limbs[1]) << 64) | value.limbs[0];
}

bool WideLess(const WideMagnitude& a, const WideMagnitude& b) {
  for (size_t i = 4; i-- > 0;) {
    if (a.limbs[i] != b.limbs[i]) {
      return a.limbs[i] < b.limbs[i];
    }
  }
  return false;
}

// a * m; false when the product passes 256 bits.
bool WideMultiplySmall(const WideMagnitude& a, uint64_t m, WideMagnitude* out) {
  Uint128 carry = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Uint128 t = static_cast<Uint128>(a.limbs[i]) * m + carry;
    out->limbs[i] = static_cast<uint64_t>(t);
    carry = t >> 64;
  }
  return carry == 0;
}

// a * 10^exponent; false when the product passes 256 bits.
bool WideScaleUp(WideMagnitude a, int exponent, WideMagnitude* out) {
  for (; exponent > 0; exponent -= 19) {
    const auto step = static_cast<uint64_t>(columnar::PowerOfTen(std::min(exponent, 19)));
    if (!WideMultiplySmall(a, step, &a)) {
      return false;
    }
  }
  *out = a;
  return true;
}

// a / d truncated, the remainder in `*remainder`.
WideMagnitude WideDivideSmall(const WideMagnitude& a, uint64_t d, uint64_t* remainder) {
  WideMagnitude out;
  Uint128 rest = 0;
  for (size_t i = 4; i-- > 0;) {
    const Uint128 current = (rest << 64) | a.limbs[i];
    out.limbs[i] = static_cast<uint64_t>(current / d);
    rest = current % d;
  }
  *remainder = static_cast<uint64_t>(rest);
  return out;
}

WideMagnitude WideProduct(Uint128 a, Uint128 b) {
  const uint64_t x[2] = {static_cast<uint64_t>(a), static_cast<uint64_t>(a >> 64)};
  const uint64_t y[2] = {static_cast<uint64_t>(b), static_cast<uint64_t>(b >> 64)};
  WideMagnitude out;
  for (size_t i = 0; i < 2; ++i) {
    Uint128 carry = 0;
    for (size_t j = 0; j < 2; ++j) {
      const Uint128 t = static_cast<Uint128>(x[i]) * y[j] + out.limbs[i + j] + carry;
      out.limbs[i + j] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    out.limbs[i + 2] = static_cast<uint64_t>(carry);
  }
  return out;
}

// a + b; false when the sum passes 256 bits.
bool WideAdd(const WideMagnitude& a, const WideMagnitude& b, WideMagnitude* out) {
  Uint128 carry = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Uint128 t = static_cast<Uint128>(a.limbs[i]) + b.limbs[i] + carry;
    out->limbs[i] = static_cast<uint64_t>(t);
    carry = t >> 64;
  }
  return carry == 0;
}

// a - b for a >= b.
WideMagnitude WideSubtract(const WideMagnitude& a, const WideMagnitude& b) {
  WideMagnitude out;
  uint64_t borrow = 0;
  for (size_t i = 0; i < 4; ++i) {
    const uint64_t t = a.limbs[i] - b.limbs[i];
    const uint64_t next_borrow = (a.limbs[i] < b.limbs[i] || t < borrow) ? 1 : 0;
    out.limbs[i] = t - borrow;
    borrow = next_borrow;
  }
  return out;
}

// num / den (den != 0, below 2^255) truncated, bit by bit; the remainder in `*remainder`.
WideMagnitude WideDivide(const WideMagnitude& num, const WideMagnitude& den,
                         WideMagnitude* remainder) {
  WideMagnitude quotient;
  WideMagnitude rest;
  for (int bit = 255; bit >= 0; --bit) {
    for (size_t i = 4; i-- > 1;) {
      rest.limbs[i] = (rest.limbs[i] << 1) | (rest.limbs[i - 1] >> 63);
    }
    rest.limbs[0] =
        (rest.limbs[0] << 1) | ((num.limbs[static_cast<size_t>(bit / 64)] >> (bit % 64)) & 1);
    if (!WideLess(rest, den)) {
      rest = WideSubtract(rest, den);
      quotient.limbs[static_cast<size_t>(bit / 64)] |= uint64_t{1} << (bit % 64);
    }
  }
  *remainder = rest;
  return quotient;
}

int WideDigits(WideMagnitude value) {
  int digits = 0;
  uint64_t ignored = 0;
  while (!(value.limbs[1] == 0 && value.limbs[2] == 0 && value.limbs[3] == 0 &&
           value.limbs[0] < kTenToThe19)) {
    value = WideDivideSmall(value, kTenToThe19, &ignored);
    digits += 19;
  }
  for (uint64_t rest = value.limbs[0]; rest > 0; rest /= 10) {
    ++digits;
  }
  return digits;
}

// value / 10^drop (drop >= 1) rounded half up: only the first digit dropped decides.
WideMagnitude WideRoundOff(WideMagnitude value, int drop) {
  uint64_t digit = 0;
  for (int left = drop - 1; left > 0; left -= 19) {
    value = WideDivideSmall(value, static_cast<uint64_t>(columnar::PowerOfTen(std::min(left, 19))),
                            &digit);
  }
  value = WideDivideSmall(value, 10, &digit);
  // A value below 2^256 / 10 has room for the carry.
  if (digit >= 5 && !WideAdd(value, WideFrom(1), &value)) {
    return WideMagnitude{};
  }
  return value;
}

// The exact `magnitude` (negated when `negative`) at scale `scale`, rounded half up to the
// scale of `type`; false when it does not fit the type's precision.
bool WideToDecimal(WideMagnitude magnitude, bool negative, int scale, const DataType& type,
                   Int128* out) {
  const int s = type.Scale();
  if (scale > s) {
    magnitude = WideRoundOff(magnitude, scale - s);
  } else if (scale < s && !WideScaleUp(magnitude, s - scale, &magnitude)) {
    return false;
  }
  if (!WideFitsUint128(magnitude) ||
      WideLow128(magnitude) >
          static_cast<Uint128>(columnar::PowerOfTen(columnar::kMaxDecimalPrecision))) {
    return false;
  }
  const auto value = static_cast<Int128>(WideLow128(magnitude));
  *out = negative ? -value : value;
  return columnar::FitsPrecision(*out, type.Precision());
}

// x + y or x - y exactly, then rounded to the result's scale (Spark adds BigDecimals exactly).
bool WideAddDecimal(Int128 x, int s1, Int128 y, int s2, bool subtract, const DataType& type,
                    Int128* out) {
  const int scale = std::max(s1, s2);
  WideMagnitude a;
  WideMagnitude b;
  if (!WideScaleUp(WideFrom(Magnitude(x)), scale - s1, &a) ||
      !WideScaleUp(WideFrom(Magnitude(y)), scale - s2, &b)) {
    return false;
  }
  const bool negative_a = x < 0;
  const bool negative_b = (y < 0) != subtract;
  WideMagnitude sum;
  bool negative = negative_a;
  if (negative_a == negative_b) {
    if (!WideAdd(a, b, &sum)) {
      return false;
    }
  } else if (WideLess(a, b)) {
    sum = WideSubtract(b, a);
    negative = negative_b;
  } else {
    sum = WideSubtract(a, b);
  }
  return WideToDecimal(sum, negative, scale, type, out);
}

// x * y as Spark's Decimal.*: the exact product rounded half up to 38 significant digits
// (MathContext(38, HALF_UP)), then to the result's scale.
bool WideMultiplyDecimal(Int128 x, int s1, Int128 y, int s2, const DataType& type, Int128* out) {
  WideMagnitude product = WideProduct(Magnitude(x), Magnitude(y));
  int scale = s1 + s2;
  const int digits = WideDigits(product);
  if (digits > columnar::kMaxDecimalPrecision) {
    product = WideRoundOff(product, digits - columnar::kMaxDecimalPrecision);
    scale -= digits - columnar::kMaxDecimalPrecision;
  }
  return WideToDecimal(product, (x < 0) != (y < 0), scale, type, out);
}

// Whether a quotient truncated at scale s with remainder r of divisor den (r < den) goes up
// under Spark's Decimal./: the exact quotient is rounded half up to scale 38, then to scale s,
// so a tail of 0.4999..95 or more (k = 38 - s digits) goes up too: 2r >= den, or
// (den - 2r) * 10^k <= den.
bool QuotientRoundsUp(Uint128 r, Uint128 den, int k) {
  if (r >= den - r) {
    return true;
  }
  Uint128 scaled = 0;
  return k > 0 &&
         !__builtin_mul_overflow(den - r - r, static_cast<Uint128>(columnar::PowerOfTen(k)),
                                 &scaled) &&
         scaled <= den;
}

bool WideQuotientRoundsUp(const WideMagnitude& r, const WideMagnitude& den, int k) {
  WideMagnitude twice;
  // r < den < 2^255: twice fits.
  if (!WideAdd(r, r, &twice) || !WideLess(twice, den)) {
    return true;
  }
  WideMagnitude scaled;
  return k > 0 && WideScaleUp(WideSubtract(den, twice), k, &scaled) && !WideLess(den, scaled);
}

// x / y at the result's scale s, when x * 10^(s - s1 + s2) passes 128 bits.
bool WideDivideDecimal(Int128 x, int s1, Int128 y, int s2, const DataType& type, Int128* out) {
  const int s = type.Scale();
  const int shift = s - s1 + s2;
  WideMagnitude num = WideFrom(Magnitude(x));
  WideMagnitude den = WideFrom(Magnitude(y));
  // A dividend past 256 bits over a divisor below 10^38 leaves a quotient past 38 digits.
  if (shift >= 0 ? !WideScaleUp(num, shift, &num) : !WideScaleUp(den, -shift, &den)) {
    return false;
  }
  WideMagnitude remainder;
  WideMagnitude quotient = WideDivide(num, den, &remainder);
  if (WideQuotientRoundsUp(remainder, den, columnar::kMaxDecimalPrecision - s) &&
      !WideAdd(quotient, WideFrom(1), &quotient)) {
    return false;
  }
  return WideToDecimal(quotient, (x < 0) != (y < 0), s, type, out);
}

// One decimal operation; false on overflow. `*divide_by_zero` is set for a zero divisor.
// Operands and results fit 128 bits; an intermediate that does not (an aligned sum, a product,
// a scaled dividend) is redone exactly in 256 bits, so only a result that does not fit the
// result type overflows.
bool DecimalOp(Op op, Int128 x, int s1, Int128 y, int s2, const DataType& type, Int128* out,
               bool* divide_by_zero) {
  const int s = type.Scale();
  Int128 raw = 0;
  int raw_scale = 0;
  switch (op) {
    case Op::kAdd:
    case Op::kSubtract:
    case Op::kRemainder: {
      raw_scale = std::max(s1, s2);
      Int128 xa = 0;
      Int128 ya = 0;
      const bool aligned = !ScaleUp(x, raw_scale - s1, &xa) && !ScaleUp(y, raw_scale - s2, &ya);
      if (op == Op::kRemainder) {
        if (y == 0) {
          *divide_by_zero = true;
          return false;
        }
        if (!aligned) {
          return false;
        }
        raw = xa % ya;
      } else if (!aligned || (op == Op::kAdd ? __builtin_add_overflow(xa, ya, &raw)
                                             : __builtin_sub_overflow(xa, ya, &raw))) {
        return WideAddDecimal(x, s1, y, s2, op == Op::kSubtract, type, out);
      }
      break;
    }
    case Op::kMultiply: {
      raw_scale = s1 + s2;
      // A product of 39 digits is first rounded to 38 (Spark's MathContext): the wide path.
      const Int128 limit = columnar::PowerOfTen(columnar::kMaxDecimalPrecision);
      if (__builtin_mul_overflow(x, y, &raw) || raw >= limit || raw <= -limit) {
        return WideMultiplyDecimal(x, s1, y, s2, type, out);
      }
      break;
    }
    case Op::kDivide: {
      if (y == 0) {
        *divide_by_zero = true;
        return false;
      }
      // x / y at scale s: (x * 10^(s - s1 + s2)) / y, rounded as QuotientRoundsUp.
      const int shift = s - s1 + s2;
      Int128 num = x;
      Int128 den = y;
      if (shift >= 0 ? ScaleUp(x, shift, &num) : ScaleUp(y, -shift, &den)) {
        return WideDivideDecimal(x, s1, y, s2, type, out);
      }
      *out = num / den;
      if (QuotientRoundsUp(Magnitude(num % den), Magnitude(den),
                           columnar::kMaxDecimalPrecision - s)) {
        *out += (num < 0) != (den < 0) ? -1 : 1;
      }
      return columnar::FitsPrecision(*out, type.Precision());
    }
    default:
      return false;
  }
  return Rescale(raw, raw_scale, s, out) && columnar::FitsPrecision(*out, type.Precision());
}

// `validity` (nullptr: all valid) without the rows flagged in `failed`.
Result<BufferPtr> ClearFailedRows(const BufferPtr& validity, const std::vector<uint8_t>& failed,
                                  MemoryPool* pool) {
  const auto n = static_cast<int64_t>(failed.size());
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::Allocate(columnar::BitmapBytes(n), pool));
  uint8_t* bits = out->mutable_data();
  const uint8_t* in = validity ? validity->data() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    columnar::SetBitTo(
        bits, i, failed[static_cast<size_t>(i)] == 0 && (in == nullptr || columnar::GetBit(in, i)));
  }
  return BufferPtr(std::move(out));
}

// `safe` (try_add and friends) makes failed rows null instead of failing the batch.
template <typename T>
Result<ColumnPtr> NumericArithmetic(Op op, const Column& a, const Column& b,
                                    const DataTypePtr& type, bool safe, MemoryPool* pool) {
  const int64_t n = a.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, IntersectValidity(a, b, pool));
  TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                            Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)), pool));
  std::vector<uint8_t> failed(static_cast<size_t>(n), 0);
  bool any_failed = false;
  if constexpr (std::is_floating_point_v<T>) {
    FloatLoop<T>(op, a.Values<T>(), b.Values<T>(), values->MutableDataAs<T>(), n, &failed,
                 &any_failed);
  } else {
    TRIBUTARY_RETURN_NOT_OK(IntegerLoop<T>(op, a.Values<T>(), b.Values<T>(),
                                           values->MutableDataAs<T>(), n, &failed, &any_failed));
  }
  if (any_failed && safe) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, ClearFailedRows(validity, failed, pool));
  } else if (any_failed) {
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t row, FirstFailedValidRow(failed, a, b));
    if (row >= 0) {
      const bool by_zero = op == Op::kDivide || op == Op::kRemainder;
      return ArithmeticError(op, a, b, row, by_zero, *type);
    }
  }
  return Column::Make(type, n, std::move(validity), std::move(values));
}

Result<ColumnPtr> DecimalArithmetic(Op op, const Column& a, const Column& b,
                                    const DataTypePtr& type, bool safe, MemoryPool* pool) {
  const int64_t n = a.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, IntersectValidity(a, b, pool));
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * 16, pool));
  const Int128* x = a.Values<Int128>();
  const Int128* y = b.Values<Int128>();
  Int128* out = values->MutableDataAs<Int128>();
  const int s1 = a.Type()->Scale();
  const int s2 = b.Type()->Scale();
  const uint8_t* bits = validity ? validity->data() : nullptr;
  std::vector<uint8_t> failed;
  for (int64_t i = 0; i < n; ++i) {
    if (bits != nullptr && !columnar::GetBit(bits, i)) {
      out[i] = 0;
      continue;
    }
    bool by_zero = false;
    if (!DecimalOp(op, x[i], s1, y[i], s2, *type, &out[i], &by_zero)) {
      if (!safe) {
        return ArithmeticError(op, a, b, i, by_zero, *type);
      }
      failed.resize(static_cast<size_t>(n), 0);
      failed[static_cast<size_t>(i)] = 1;
      out[i] = 0;
    }
  }
  if (!failed.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, ClearFailedRows(validity, failed, pool));
  }
  return Column::Make(type, n, std::move(validity), std::move(values));
}

Result<ColumnPtr> DispatchArithmetic(Op op, const Column& a, const Column& b,
                                     const DataTypePtr& type, bool safe, MemoryPool* pool) {
  switch (type->Id()) {
    case TypeId::kInt8:
      return NumericArithmetic<int8_t>(op, a, b, type, safe, pool);
    case TypeId::kInt16:
      return NumericArithmetic<int16_t>(op, a, b, type, safe, pool);
    case TypeId::kInt32:
    case TypeId::kYearMonthInterval:
      return NumericArithmetic<int32_t>(op, a, b, type, safe, pool);
    case TypeId::kInt64:
    case TypeId::kDayTimeInterval:
      return NumericArithmetic<int64_t>(op, a, b, type, safe, pool);
    case TypeId::kFloat32:
      return NumericArithmetic<float>(op, a, b, type, safe, pool);
    case TypeId::kFloat64:
      return NumericArithmetic<double>(op, a, b, type, safe, pool);
    case TypeId::kDecimal:
      return DecimalArithmetic(op, a, b, type, safe, pool);
    default:
      return Status::Internal("arithmetic on " + type->ToString());
  }
}

}  // namespace

Result<ColumnPtr> ArithmeticKernel(Op op, const Column& a, const Column& b, const DataTypePtr& type,
                                   MemoryPool* pool) {
  return DispatchArithmetic(op, a, b, type, /*safe=*/false, pool);
}

Result<ColumnPtr> TryArithmeticKernel(Op op, const Column& a, const Column& b,
                                      const DataTypePtr& type, MemoryPool* pool) {
  return DispatchArithmetic(op, a, b, type, /*safe=*/true, pool);
}

Result<ColumnPtr> NegateKernel(const Column& input, MemoryPool* pool) {
  const int64_t n = input.Length();
  const DataTypePtr& type = input.Type();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), pool));
  if (type->IsFloatingPoint()) {
    // Flip the sign directly so that -(0.0) is -0.0, as in Spark.
    if (type->Id() == TypeId::kFloat32) {
      for (int64_t i = 0; i < n; ++i) {
        values->MutableDataAs<float>()[i] = -input.Values<float>()[i];
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        values->MutableDataAs<double>()[i] = -input.Values<double>()[i];
      }
    }
    return Column::Make(type, n, input.ValidityBuffer(), std::move(values));
  }
  // 0 - x, which reports the overflow of negating the most negative integer.
  TRIBUTARY_ASSIGN_OR_RAISE(auto zero, Column::Make(type, n, nullptr, std::move(values)));
  return ArithmeticKernel(Op::kSubtract, *zero, input, type, pool);
}

}  // namespace tributary::expr

// Math functions with Spark's types and ANSI semantics: abs, round/bround, floor, ceil/
// ceiling, sqrt, exp, ln/log/log10/log2, pow/power (Java's Math.pow special cases), sign/signum,
// sinh/cosh/tanh/asinh/acosh/atanh; try_add, try_subtract,
// try_multiply, try_divide, try_mod; positive, nullifzero, zeroifnull, width_bucket; the bit
// operators & | ^ ~ and shifts (<< >> >>> and shiftleft/shiftright/shiftrightunsigned),
// bit_count, getbit/bit_get, bin, conv. (mod and pmod are rewritten into % by the binder, so
// they share its division-by-zero error.)
//
// round/bround work on the decimal value as Spark does: doubles through their shortest
// decimal text (so round(0.125, 2) is 0.13, like Scala's BigDecimal(0.125)), decimals exactly,
// integers with negative scales. Logarithms of values <= 0 are null, as in Spark.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "columnar/decimal.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

using columnar::PowerOfTen;

// ---- double -> double functions --------------------------------------------------------------

enum class UnaryMath : uint8_t {
  kSqrt,
  kExp,
  kLn,
  kLog10,
  kLog2,
  kSign,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kCot,
  kSec,
  kCsc,
  kDegrees,
  kRadians,
  kCbrt,
  kExpm1,
  kLog1p,
  kRint
};

UnaryMath UnaryMathOf(std::string_view name) {
  static constexpr std::pair<std::string_view, UnaryMath> kNames[] = {
      {"sqrt", UnaryMath::kSqrt},       {"exp", UnaryMath::kExp},
      {"log10", UnaryMath::kLog10},     {"log2", UnaryMath::kLog2},
      {"sign", UnaryMath::kSign},       {"signum", UnaryMath::kSign},
      {"sinh", UnaryMath::kSinh},       {"cosh", UnaryMath::kCosh},
      {"tanh", UnaryMath::kTanh},       {"asinh", UnaryMath::kAsinh},
      {"acosh", UnaryMath::kAcosh},     {"atanh", UnaryMath::kAtanh},
      {"sin", UnaryMath::kSin},         {"cos", UnaryMath::kCos},
      {"tan", UnaryMath::kTan},         {"asin", UnaryMath::kAsin},
      {"acos", UnaryMath::kAcos},       {"atan", UnaryMath::kAtan},
      {"cot", UnaryMath::kCot},         {"sec", UnaryMath::kSec},
      {"csc", UnaryMath::kCsc},         {"degrees", UnaryMath::kDegrees},
      {"radians", UnaryMath::kRadians}, {"cbrt", UnaryMath::kCbrt},
      {"expm1", UnaryMath::kExpm1},     {"log1p", UnaryMath::kLog1p},
      {"rint", UnaryMath::kRint}};
  for (const auto& [text, op] : kNames) {
    if (text == name) {
      return op;
    }
  }
  return UnaryMath::kLn;
}

// Java's StrictMath (fdlibm) exp, which Java's sinh and cosh build on: it is not always
// correctly rounded (exp(1) is 2.7182818284590455), so the C library's exp would differ from
// Spark in the last bit. Argument reduction x = k*ln2 + r, then a degree-5 rational
// approximation of exp(r), then scaling by 2^k (fdlibm e_exp.c).
double FdlibmExp(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  constexpr double kP1 = 1.66666666666666019037e-01;
  constexpr double kP2 = -2.77777777770155933842e-03;
  constexpr double kP3 = 6.61375632143793436117e-05;
  constexpr double kP4 = -1.65339022054652515390e-06;
  constexpr double kP5 = 4.13813679705723846039e-08;
  if (std::isnan(x)) {
    return x;
  }
  if (x > 7.09782712893383973096e+02) {
    return std::numeric_limits<double>::infinity();
  }
  if (x < -7.45133219101941108420e+02) {
    return 0.0;
  }
  const uint32_t high = static_cast<uint32_t>(std::bit_cast<uint64_t>(x) >> 32) & 0x7fffffffU;
  const bool negative = x < 0;
  int k = 0;
  double hi = 0;
  double lo = 0;
  if (high > 0x3fd62e42U) {    // |x| > ln2 / 2
    if (high < 0x3ff0a2b2U) {  // and |x| < 1.5 ln2
      hi = negative ? x + kLn2Hi : x - kLn2Hi;
      lo = negative ? -kLn2Lo : kLn2Lo;
      k = negative ? -1 : 1;
    } else {
      k = static_cast<int>(kInvLn2 * x + (negative ? -0.5 : 0.5));
      const double t = k;
      hi = x - t * kLn2Hi;
      lo = t * kLn2Lo;
    }
    x = hi - lo;
  } else if (high < 0x3e300000U) {  // |x| < 2^-28
    return 1.0 + x;
  }
  const double t = x * x;
  const double c = x - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
  if (k == 0) {
    return 1.0 - ((x * c) / (c - 2.0) - x);
  }
  const double y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
  if (k >= -1021) {
    return std::bit_cast<double>(std::bit_cast<uint64_t>(y) + (static_cast<uint64_t>(k) << 52));
  }
  const double scaled =
      std::bit_cast<double>(std::bit_cast<uint64_t>(y) + (static_cast<uint64_t>(k + 1000) << 52));
  return scaled * 9.33263618503218878990e-302;  // 2^-1000
}

// Java's sinh and cosh (fdlibm e_sinh.c, e_cosh.c) over FdlibmExp.
double JavaSinh(double x) {
  if (!std::isfinite(x)) {
    return x;
  }
  const double a = std::fabs(x);
  const double h = x < 0 ? -0.5 : 0.5;
  if (a < 22) {
    if (a < 0x1p-28) {
      return x;
    }
    const double t = std::expm1(a);
    return a < 1 ? h * (2.0 * t - t * t / (t + 1.0)) : h * (t + t / (t + 1.0));
  }
  if (a < 7.09782712893383973096e+02) {
    return h * FdlibmExp(a);
  }
  const double w = FdlibmExp(0.5 * a);
  return h * w * w;
}

double JavaCosh(double x) {
  if (std::isnan(x)) {
    return x;
  }
  const double a = std::fabs(x);
  if (a < 0.5 * 6.93147180369123816490e-01) {
    const double t = std::expm1(a);
    const double w = 1.0 + t;
    return a < 0x1p-55 ? w : 1.0 + (t * t) / (w + w);
  }
  if (a < 22) {
    const double t = FdlibmExp(a);
    return 0.5 * t + 0.5 / t;
  }
  if (a < 7.09782712893383973096e+02) {
    return 0.5 * FdlibmExp(a);
  }
  const double w = FdlibmExp(0.5 * a);
  return 0.5 * w * w;
}

// The inverse hyperbolic functions as Spark computes them (mathExpressions.scala), not as the C
// library does, so results agree to the last bit.
double SparkAsinh(double x) {
  return x == -std::numeric_limits<double>::infinity() ? x : std::log(x + std::sqrt(x * x + 1.0));
}
double SparkAcosh(double x) {
  return std::log(x + std::sqrt(x * x - 1.0));
}
double SparkAtanh(double x) {
  return 0.5 * (std::log1p(x) - std::log1p(-x));
}

// Java's Math.pow where it differs from C's pow: a NaN exponent, or a base of magnitude 1 with
// an infinite exponent, gives NaN (C gives 1.0 for pow(1, NaN) and pow(-1, Infinity)).
double JavaPow(double x, double y) {
  if (std::isnan(y) || (std::fabs(x) == 1.0 && std::isinf(y))) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return std::pow(x, y);
}

Result<BoundExprPtr> RequireNumeric(const Expression& call, BoundExprPtr arg) {
  if (!arg->Type()->IsNumeric() && arg->Type()->Id() != TypeId::kNull &&
      arg->Type()->Id() != TypeId::kString) {
    return CallError(call, "needs a numeric argument, got " + arg->Type()->ToString());
  }
  return arg;
}

Result<BoundExprPtr> BindUnaryMath(const Expression& call, std::vector<BoundExprPtr> args) {
  const std::string& name = call.Name();
  if (name == "log" && args.size() == 2) {
    // log(base, x) = ln(x) / ln(base); null when either is <= 0.
    for (auto& arg : args) {
      TRIBUTARY_ASSIGN_OR_RAISE(arg, RequireNumeric(call, std::move(arg)));
      arg = CastTo(std::move(arg), DataType::Float64());
    }
    return MakeFunctionCall(
        name, DataType::Float64(), std::move(args),
        Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                  MemoryPool* pool) -> Result<ColumnPtr> {
          const double* base = a[0]->Values<double>();
          const double* x = a[1]->Values<double>();
          TRIBUTARY_ASSIGN_OR_RAISE(auto result,
                                    BuildFixed<double>(c.Type(), a, pool, [&](int64_t i) {
                                      return std::log(x[i]) / std::log(base[i]);
                                    }));
          return NullWhere(std::move(result), pool,
                           [&](int64_t i) { return base[i] <= 0 || x[i] <= 0; });
        }));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
  args[0] = CastTo(std::move(args[0]), DataType::Float64());
  const UnaryMath op = UnaryMathOf(name);
  return MakeFunctionCall(
      name, DataType::Float64(), std::move(args),
      Lambda([op](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                  MemoryPool* pool) -> Result<ColumnPtr> {
        const double* x = a[0]->Values<double>();
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<double>(c.Type(), a, pool, [&](int64_t i) {
              switch (op) {
                case UnaryMath::kSqrt:
                  return std::sqrt(x[i]);
                case UnaryMath::kExp:
                  return std::exp(x[i]);
                case UnaryMath::kLog10:
                  return std::log10(x[i]);
                case UnaryMath::kLog2:
                  return std::log2(x[i]);
                case UnaryMath::kSign:
                  return x[i] > 0 ? 1.0 : x[i] < 0 ? -1.0 : x[i];  // keeps NaN and -0.0
                case UnaryMath::kSinh:
                  return JavaSinh(x[i]);
                case UnaryMath::kCosh:
                  return JavaCosh(x[i]);
                case UnaryMath::kTanh:
                  return std::tanh(x[i]);
                case UnaryMath::kAsinh:
                  return SparkAsinh(x[i]);
                case UnaryMath::kAcosh:
                  return SparkAcosh(x[i]);
                case UnaryMath::kAtanh:
                  return SparkAtanh(x[i]);
                case UnaryMath::kSin:
                  return std::sin(x[i]);
                case UnaryMath::kCos:
                  return std::cos(x[i]);
                case UnaryMath::kTan:
                  return std::tan(x[i]);
                case UnaryMath::kAsin:
                  return std::asin(x[i]);
                case UnaryMath::kAcos:
                  return std::acos(x[i]);
                case UnaryMath::kAtan:
                  return std::atan(x[i]);
                // Spark's Cot, Sec and Csc are 1 / tan, 1 / cos and 1 / sin.
                case UnaryMath::kCot:
                  return 1.0 / std::tan(x[i]);
                case UnaryMath::kSec:
                  return 1.0 / std::cos(x[i]);
                case UnaryMath::kCsc:
                  return 1.0 / std::sin(x[i]);
                // Java's Math.toDegrees / toRadians multiply by these constants.
                case UnaryMath::kDegrees:
                  return x[i] * 57.29577951308232;
                case UnaryMath::kRadians:
                  return x[i] * 0.017453292519943295;
                case UnaryMath::kCbrt: {
                  // glibc's cbrt may be an ulp off where Java's is exact: a perfect cube's
                  // root is its integer (cbrt(27) is 3.0, not 3.0000000000000004).
                  const double root = std::cbrt(x[i]);
                  const double whole = std::round(root);
                  return whole * whole * whole == x[i] ? whole : root;
                }
                case UnaryMath::kExpm1:
                  return std::expm1(x[i]);
                case UnaryMath::kLog1p:
                  return std::log1p(x[i]);
                case UnaryMath::kRint:
                  return std::nearbyint(x[i]);  // half to even, as Java's Math.rint
                case UnaryMath::kLn:
                  break;
              }
              return std::log(x[i]);
            }));
        const bool is_log =
            op == UnaryMath::kLn || op == UnaryMath::kLog10 || op == UnaryMath::kLog2;
        if (op == UnaryMath::kLog1p) {
          // Spark's Log1p is null at or below -1 (its log's domain shifted by one).
          return NullWhere(std::move(result), pool, [&](int64_t i) { return x[i] <= -1; });
        }
        if (!is_log) {
          return result;
        }
        return NullWhere(std::move(result), pool, [&](int64_t i) { return x[i] <= 0; });
      }));
}

Result<BoundExprPtr> BindPow(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (auto& arg : args) {
    TRIBUTARY_ASSIGN_OR_RAISE(arg, RequireNumeric(call, std::move(arg)));
    arg = CastTo(std::move(arg), DataType::Float64());
  }
  return MakeFunctionCall(
      call.Name(), DataType::Float64(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const double* x = a[0]->Values<double>();
        const double* y = a[1]->Values<double>();
        return BuildFixed<double>(c.Type(), a, pool,
                                  [&](int64_t i) { return JavaPow(x[i], y[i]); });
      }));
}

// atan2(y, x) and hypot(a, b) over doubles. Spark's Atan2 adds 0.0 to both arguments, so a
// -0.0 reads as 0.0.
Result<BoundExprPtr> BindBinaryMath(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (auto& arg : args) {
    TRIBUTARY_ASSIGN_OR_RAISE(arg, RequireNumeric(call, std::move(arg)));
    arg = CastTo(std::move(arg), DataType::Float64());
  }
  const bool atan2 = call.Name() == "atan2";
  return MakeFunctionCall(
      call.Name(), DataType::Float64(), std::move(args),
      Lambda([atan2](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const double* x = a[0]->Values<double>();
        const double* y = a[1]->Values<double>();
        return BuildFixed<double>(c.Type(), a, pool, [&](int64_t i) {
          return atan2 ? std::atan2(x[i] + 0.0, y[i] + 0.0) : std::hypot(x[i], y[i]);
        });
      }));
}

// e() and pi(): Java's Math.E and Math.PI.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindMathConstant(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 0));
  const double value = call.Name() == "e" ? 2.718281828459045 : 3.141592653589793;
  return MakeBound(Op::kLiteral, DataType::Float64(), {}, -1, Scalar::Float64(value));
}

// factorial(n): bigint n! for an integral n in [0, 20], else null (Spark's Factorial).
Result<BoundExprPtr> BindFactorial(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  if (!args[0]->Type()->IsInteger() && args[0]->Type()->Id() != TypeId::kNull) {
    return CallError(call, "needs an integral argument, got " + args[0]->Type()->ToString());
  }
  args[0] = CastTo(std::move(args[0]), DataType::Int64());
  return MakeFunctionCall(call.Name(), DataType::Int64(), std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool* pool) -> Result<ColumnPtr> {
                            const int64_t* n = a[0]->Values<int64_t>();
                            TRIBUTARY_ASSIGN_OR_RAISE(
                                auto result, BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
                                  int64_t product = 1;
                                  for (int64_t k = 2; k <= n[i] && k <= 20; ++k) {
                                    product *= k;
                                  }
                                  return product;
                                }));
                            return NullWhere(std::move(result), pool,
                                             [&](int64_t i) { return n[i] < 0 || n[i] > 20; });
                          }));
}

// ---- abs ---------------------------------------------------------------------------------

template <typename T>
Result<ColumnPtr> AbsOf(const BoundExpression& c, const std::vector<ColumnPtr>& a,
                        MemoryPool* pool) {
  const T* x = a[0]->Values<T>();
  int64_t overflow_row = -1;
  auto result = BuildFixed<T>(c.Type(), a, pool, [&](int64_t i) {
    if constexpr (std::is_integral_v<T>) {
      if (x[i] == std::numeric_limits<T>::min()) {
        overflow_row = overflow_row < 0 ? i : overflow_row;
        return x[i];
      }
    }
    return x[i] < 0 ? static_cast<T>(-x[i]) : x[i];
  });
  if (overflow_row >= 0) {
    return Status::InvalidArgument(fmt::format("[ARITHMETIC_OVERFLOW] row {}: abs({}) overflows {}",
                                               overflow_row, static_cast<int64_t>(x[overflow_row]),
                                               c.Type()->ToString()));
  }
  return result;
}

Result<BoundExprPtr> BindAbs(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const TypeId id = args[0]->Type()->Id();
  // Spark's Abs takes ANSI intervals too: the interval's magnitude, of the same type.
  if (id != TypeId::kDayTimeInterval && id != TypeId::kYearMonthInterval) {
    TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
    if (!args[0]->Type()->IsNumeric()) {
      args[0] = CastTo(std::move(args[0]), DataType::Float64());
    }
  }
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(call.Name(), type, std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool* pool) -> Result<ColumnPtr> {
                            switch (c.Type()->Id()) {
                              case TypeId::kInt8:
                                return AbsOf<int8_t>(c, a, pool);
                              case TypeId::kInt16:
                                return AbsOf<int16_t>(c, a, pool);
                              case TypeId::kInt32:
                              case TypeId::kYearMonthInterval:
                                return AbsOf<int32_t>(c, a, pool);
                              case TypeId::kInt64:
                              case TypeId::kDayTimeInterval:
                                return AbsOf<int64_t>(c, a, pool);
                              case TypeId::kFloat32:
                                return AbsOf<float>(c, a, pool);
                              case TypeId::kDecimal:
                                return AbsOf<Int128>(c, a, pool);
                              default:
                                return AbsOf<double>(c, a, pool);
                            }
                          }));
}

// ---- rounding ----------------------------------------------------------------------------

enum class Rounding : uint8_t { kHalfUp, kHalfEven, kFloor, kCeil };

// `unscaled` / 10^drop rounded by `mode` (drop >= 0).
Int128 DivideRounded(Int128 unscaled, int drop, Rounding mode) {
  if (drop <= 0) {
    return unscaled;
  }
  if (drop > 38) {
    return 0;  // |unscaled| < 10^38: every digit goes (ceil/floor of tiny values aside)
  }
  const Int128 divisor = PowerOfTen(drop);
  Int128 quotient = unscaled / divisor;
  const Int128 remainder = unscaled % divisor;
  if (remainder == 0) {
    return quotient;
  }
  const bool negative = unscaled < 0;
  const Int128 twice = (negative ? -remainder : remainder) * 2;
  switch (mode) {
    case Rounding::kHalfUp:
      if (twice >= divisor) {
        quotient += negative ? -1 : 1;
      }
      break;
    case Rounding::kHalfEven:
      if (twice > divisor || (twice == divisor && quotient % 2 != 0)) {
        quotient += negative ? -1 : 1;
      }
      break;
    case Rounding::kFloor:
      quotient -= negative ? 1 : 0;
      break;
    case Rounding::kCeil:
      quotient += negative ? 0 : 1;
      break;
  }
  return quotient;
}

// A double rounded at `scale` decimal digits through its shortest decimal text.
double RoundDouble(double value, int scale, Rounding mode) {
  if (!std::isfinite(value)) {
    return value;
  }
  char buffer[64];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  if (ec != std::errc()) {
    return value;
  }
  // d.ddddde[+-]x -> digits and a decimal exponent.
  std::string_view text(buffer, static_cast<size_t>(end - buffer));
  const size_t e = text.find('e');
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  std::string digits;
  bool negative = false;
  for (char c : text.substr(0, e)) {
    if (c == '-') {
      negative = true;
    } else if (c != '.') {
      digits.push_back(c);
    }
  }
  // value = 0.d1d2... * 10^(exponent + 1); keep digits before position exponent + 1 + scale.
  const int keep = exponent + 1 + scale;
  if (keep < 0) {
    return mode == Rounding::kCeil && !negative && value != 0 ? std::pow(10.0, -scale)
           : mode == Rounding::kFloor && negative             ? -std::pow(10.0, -scale)
                                                              : 0.0 * value;
  }
  if (keep >= static_cast<int>(digits.size()) || keep > 36) {
    return value;
  }
  Int128 unscaled = 0;
  for (char c : digits) {
    unscaled = unscaled * 10 + (c - '0');
  }
  unscaled = negative ? -unscaled : unscaled;
  const Int128 rounded = DivideRounded(unscaled, static_cast<int>(digits.size()) - keep, mode);
  std::string out;
  columnar::AppendDecimal(rounded, 0, &out);
  out.push_back('e');
  out += std::to_string(-scale);
  return std::strtod(out.c_str(), nullptr);
}

// round/bround(x, d) for each input type; floor/ceil as rounding at 0 digits.
class RoundFunction final : public EagerFunction {
 public:
  RoundFunction(Rounding mode, int scale) : mode_(mode), scale_(scale) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& x = *args[0];
    const std::vector<ColumnPtr> input = {args[0]};
    const DataType& from = *x.Type();
    const DataType& to = *call.Type();
    int64_t overflow_row = -1;
    auto note = [&](int64_t i) {
      overflow_row = overflow_row < 0 ? i : overflow_row;
    };
    if (from.IsFloatingPoint()) {
      auto value = [&](int64_t i) {
        return from.Id() == TypeId::kFloat32 ? double{x.Values<float>()[i]} : x.Values<double>()[i];
      };
      if (to.Id() == TypeId::kInt64) {  // floor/ceil of a double: saturating, as Spark's toLong
        return BuildFixed<int64_t>(call.Type(), input, context.pool, [&](int64_t i) {
          const double r = mode_ == Rounding::kFloor ? std::floor(value(i)) : std::ceil(value(i));
          if (r != r) {
            return int64_t{0};
          }
          if (r >= 9.2233720368547758e18) {
            return std::numeric_limits<int64_t>::max();
          }
          if (r <= -9.2233720368547758e18) {
            return std::numeric_limits<int64_t>::min();
          }
          return static_cast<int64_t>(r);
        });
      }
      if (to.Id() == TypeId::kFloat32) {
        return BuildFixed<float>(call.Type(), input, context.pool, [&](int64_t i) {
          return static_cast<float>(RoundDouble(value(i), scale_, mode_));
        });
      }
      return BuildFixed<double>(call.Type(), input, context.pool,
                                [&](int64_t i) { return RoundDouble(value(i), scale_, mode_); });
    }
    if (from.Id() == TypeId::kDecimal) {
      const int drop = from.Scale() - std::max(scale_, 0);
      const int negative_scale = std::max(-scale_, 0);
      auto result = BuildFixed<Int128>(call.Type(), input, context.pool, [&](int64_t i) {
        Int128 v = DivideRounded(x.Values<Int128>()[i], drop, mode_);
        if (negative_scale > 0) {
          v = DivideRounded(v, negative_scale, mode_) * PowerOfTen(negative_scale);
        }
        if (!columnar::FitsPrecision(v, to.Precision())) {
          note(i);
        }
        return v;
      });
      if (overflow_row >= 0) {
        return Status::InvalidArgument(
            fmt::format("[NUMERIC_VALUE_OUT_OF_RANGE] row {}: {} does not fit {}", overflow_row,
                        call.ToString(), to.ToString()));
      }
      return result;
    }
    // Integers: only a negative scale changes them.
    const int drop = std::max(-scale_, 0);
    auto result = BuildFixed<int64_t>(DataType::Int64(), input, context.pool, [&](int64_t i) {
      const int64_t v = IntAt(x, i);
      if (drop == 0) {
        return v;
      }
      const Int128 rounded = DivideRounded(v, drop, mode_) * PowerOfTen(std::min(drop, 38));
      const int bits = to.ByteWidth() * 8;
      const Int128 limit = static_cast<Int128>(1) << (bits - 1);
      if (rounded < -limit || rounded >= limit) {
        note(i);
        return int64_t{0};
      }
      return static_cast<int64_t>(rounded);
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(fmt::format("[ARITHMETIC_OVERFLOW] row {}: {} overflows {}",
                                                 overflow_row, call.ToString(), to.ToString()));
    }
    if (to.Id() == TypeId::kInt64) {
      return result;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto longs, std::move(result));
    return CastKernel(*longs, call.Type(), /*safe=*/false, context);
  }

 private:
  Rounding mode_;
  int scale_;
};

Result<BoundExprPtr> BindRound(const Expression& call, std::vector<BoundExprPtr> args) {
  const std::string& name = call.Name();
  const bool floor_or_ceil = name == "floor" || name == "ceil" || name == "ceiling";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 2));
  // floor/ceil(x, d): Spark's RoundFloor/RoundCeil, over x as a decimal.
  const bool scaled_floor_or_ceil = floor_or_ceil && args.size() == 2;
  int scale = 0;
  if (args.size() == 2) {
    const BoundExpression& d = *args[1];
    if (d.GetOp() != Op::kLiteral || !d.Type()->IsInteger() || d.Literal().IsNull()) {
      return CallError(call, "the scale must be an integer literal");
    }
    scale = static_cast<int>(std::clamp<int64_t>(d.Literal().IntValue(), -38, 38));
    args.pop_back();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
  if (!args[0]->Type()->IsNumeric()) {
    args[0] = CastTo(std::move(args[0]), DataType::Float64());
  }
  if (scaled_floor_or_ceil && args[0]->Type()->Id() != TypeId::kDecimal) {
    // Spark's DecimalType.forType: float as decimal(14,7), double as decimal(30,15).
    const TypeId id = args[0]->Type()->Id();
    DataTypePtr as_decimal = id == TypeId::kFloat32   ? DecimalOrDie(14, 7)
                             : id == TypeId::kFloat64 ? DecimalOrDie(30, 15)
                                                      : AsDecimal(args[0]->Type());
    args[0] = CastTo(std::move(args[0]), as_decimal);
  }
  const DataTypePtr& from = args[0]->Type();
  const Rounding mode = name == "floor"    ? Rounding::kFloor
                        : floor_or_ceil    ? Rounding::kCeil
                        : name == "bround" ? Rounding::kHalfEven
                                           : Rounding::kHalfUp;
  DataTypePtr type = from;
  if (scaled_floor_or_ceil) {
    // Spark's RoundCeil/RoundFloor type: decimal(max(p, 1 - d), 0) for d < 0, else
    // decimal(p, min(s, d)).
    const int p = from->Precision();
    type = scale < 0
               ? DecimalOrDie(std::min(std::max(p, 1 - scale), columnar::kMaxDecimalPrecision), 0)
               : DecimalOrDie(p, std::min(from->Scale(), scale));
  } else if (from->Id() == TypeId::kDecimal) {
    const int p = from->Precision();
    const int s = from->Scale();
    // Spark's RoundBase/Floor/Ceil: integral digits plus one, scale min(s, d) (d >= 0).
    const int new_scale = std::min(s, std::max(scale, 0));
    type = DecimalOrDie(std::min(p - s + 1 + new_scale, columnar::kMaxDecimalPrecision), new_scale);
  } else if (floor_or_ceil) {
    type = DataType::Int64();
  }
  return MakeFunctionCall(name, std::move(type), std::move(args),
                          std::make_shared<const RoundFunction>(mode, scale));
}

// ---- try_add, try_subtract, try_multiply, try_divide, try_mod -------------------------------

// The operator bound over two stand-in columns (the binder's own typing rules: decimal result
// types, timestamp and interval arithmetic), evaluated with the call's argument columns in
// their place. Rows that overflow or divide by zero are null; arguments themselves are
// evaluated as usual, so an overflow inside an argument stays an error, as in Spark.
class TryArithmeticFunction final : public EagerFunction {
 public:
  TryArithmeticFunction(BoundExprPtr op, columnar::SchemaPtr operands)
      : op_(std::move(op)), operands_(std::move(operands)) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t n = args[0]->Length();
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, columnar::RecordBatch::Make(operands_, n, args));
    if (op_->Function() == nullptr) {
      // Numbers: the operands' implicit casts, then the vectorized kernel that nulls failures.
      TRIBUTARY_ASSIGN_OR_RAISE(auto a, expr::Evaluate(*op_->Children()[0], *batch, context));
      TRIBUTARY_ASSIGN_OR_RAISE(auto b, expr::Evaluate(*op_->Children()[1], *batch, context));
      return TryArithmeticKernel(op_->GetOp(), *a, *b, call.Type(), context.pool);
    }
    auto whole = expr::Evaluate(*op_, *batch, context);
    const auto fixed_width = [](const ColumnPtr& c) {
      return c->Type()->ByteWidth() > 0;
    };
    if (whole.ok() || !whole.status().IsInvalidArgument() || call.Type()->ByteWidth() <= 0 ||
        !std::all_of(args.begin(), args.end(), fixed_width)) {
      return whole;
    }
    // Datetime and interval arithmetic fails the batch on the first overflow; the rare batch
    // that has one is redone row by row, failing rows null.
    return RowByRow(call, args, context);
  }

 private:
  static Result<ColumnPtr> OneRow(const Column& column, int64_t row, MemoryPool* pool) {
    if (column.IsNull(row)) {
      return Column::MakeAllNull(column.Type(), 1, pool);
    }
    const int width = column.Type()->ByteWidth();
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(width, pool));
    std::memcpy(values->mutable_data(), column.Values<uint8_t>() + row * width,
                static_cast<size_t>(width));
    return Column::Make(column.Type(), 1, nullptr, std::move(values));
  }

  Result<ColumnPtr> RowByRow(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                             const EvalContext& context) const {
    const int64_t n = args[0]->Length();
    const int width = call.Type()->ByteWidth();
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(n * width, context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), context.pool));
    std::memset(values->mutable_data(), 0, static_cast<size_t>(n * width));
    for (int64_t i = 0; i < n; ++i) {
      std::vector<ColumnPtr> row;
      for (const ColumnPtr& arg : args) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto one, OneRow(*arg, i, context.pool));
        row.push_back(std::move(one));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch,
                                columnar::RecordBatch::Make(operands_, 1, std::move(row)));
      auto result = expr::Evaluate(*op_, *batch, context);
      if (!result.ok() && !result.status().IsInvalidArgument()) {
        return result.status();
      }
      const bool valid = result.ok() && (*result)->IsValid(0);
      columnar::SetBitTo(validity->mutable_data(), i, valid);
      if (valid) {
        std::memcpy(values->mutable_data() + i * width, (*result)->Values<uint8_t>(),
                    static_cast<size_t>(width));
      }
    }
    return Column::Make(call.Type(), n, std::move(validity), std::move(values));
  }

  BoundExprPtr op_;
  columnar::SchemaPtr operands_;
};

// Spark coerces a string operand of try_* to bigint (double beside a fractional or decimal
// operand); under try_* a string that does not convert gives null.
BoundExprPtr TryOperand(BoundExprPtr arg, const DataType& other) {
  if (arg->Type()->Id() != TypeId::kString) {
    return arg;
  }
  const bool fractional = other.IsFloatingPoint() || other.Id() == TypeId::kDecimal;
  DataTypePtr type = fractional ? DataType::Float64() : DataType::Int64();
  return MakeBound(Op::kTryCast, std::move(type), {std::move(arg)});
}

// An interval's value (day-time microseconds, or year-month months, which the caller then
// checks against int32) times (or divided by) a number as Spark's Multiply/DivideDTInterval
// and Multiply/DivideYMInterval round it (half up); false where Spark fails (overflow, division
// by zero, a NaN or infinite result), which try_multiply/try_divide turn into null.
bool ScaleInterval(int64_t micros, const Column& number, int64_t row, bool divide, int64_t* out) {
  const DataType& type = *number.Type();
  if (type.IsFloatingPoint()) {
    const double x = type.Id() == TypeId::kFloat32 ? double{number.Values<float>()[row]}
                                                   : number.Values<double>()[row];
    if (divide && x == 0) {
      return false;
    }
    const double r =
        std::round(divide ? static_cast<double>(micros) / x : static_cast<double>(micros) * x);
    if (!(r >= -9.2233720368547758e18 && r < 9.2233720368547758e18)) {
      return false;
    }
    *out = static_cast<int64_t>(r);
    return true;
  }
  Int128 unscaled = 0;
  int scale = 0;
  if (type.Id() == TypeId::kDecimal) {
    unscaled = number.Values<Int128>()[row];
    scale = type.Scale();
  } else {
    unscaled = IntAt(number, row);
  }
  Int128 result = 0;
  if (divide) {
    // micros / (unscaled / 10^scale) = micros * 10^scale / unscaled.
    Int128 numerator = 0;
    if (unscaled == 0 ||
        __builtin_mul_overflow(static_cast<Int128>(micros), PowerOfTen(scale), &numerator)) {
      return false;
    }
    const Int128 quotient = numerator / unscaled;
    const Int128 remainder = numerator % unscaled;
    const Int128 twice = (remainder < 0 ? -remainder : remainder) * 2;
    const Int128 divisor = unscaled < 0 ? -unscaled : unscaled;
    result = quotient + (twice >= divisor ? ((numerator < 0) != (unscaled < 0) ? -1 : 1) : 0);
  } else {
    Int128 product = 0;
    if (__builtin_mul_overflow(static_cast<Int128>(micros), unscaled, &product)) {
      return false;
    }
    result = DivideRounded(product, scale, Rounding::kHalfUp);
  }
  if (result < std::numeric_limits<int64_t>::min() ||
      result > std::numeric_limits<int64_t>::max()) {
    return false;
  }
  *out = static_cast<int64_t>(result);
  return true;
}

bool IsAnsiInterval(const DataType& type) {
  return type.Id() == TypeId::kDayTimeInterval || type.Id() == TypeId::kYearMonthInterval;
}

// Why row `row` of interval * number or interval / number failed, as Spark's MultiplyYMInterval,
// MultiplyDTInterval, DivideYMInterval and DivideDTInterval report it.
Status IntervalScaleError(const Column& interval, const Column& number, int64_t row, bool divide) {
  const bool months = interval.Type()->Id() == TypeId::kYearMonthInterval;
  if (divide) {
    const DataType& type = *number.Type();
    const bool zero = type.IsFloatingPoint()
                          ? (type.Id() == TypeId::kFloat32 ? number.Values<float>()[row] == 0
                                                           : number.Values<double>()[row] == 0)
                      : type.Id() == TypeId::kDecimal ? number.Values<Int128>()[row] == 0
                                                      : IntAt(number, row) == 0;
    if (zero) {
      return Status::InvalidArgument(fmt::format(
          "[INTERVAL_DIVIDED_BY_ZERO] Division by zero at row {}. Use `try_divide` to tolerate "
          "divisor being 0 and return NULL instead.",
          row));
    }
    if (type.IsInteger() && IntAt(number, row) == -1) {
      return Status::InvalidArgument(fmt::format(
          "[INTERVAL_ARITHMETIC_OVERFLOW] Interval value overflows after being divided by -1 at "
          "row {}. Use 'try_divide' to tolerate overflow and return NULL instead.",
          row));
    }
  }
  return Status::InvalidArgument(fmt::format(
      "[ARITHMETIC_OVERFLOW] {} overflow at row {}: the {} does not fit. Use '{}' to tolerate "
      "overflow and return NULL instead.",
      months ? "integer" : "long", row, interval.Type()->ToString(),
      divide ? "try_divide" : "try_multiply"));
}

}  // namespace

// interval * number, number * interval and interval / number for both ANSI interval types;
// nullptr for other operands. Under `safe` (try_multiply, try_divide) a failing row is null,
// otherwise the first one fails the batch.
Result<BoundExprPtr> BindIntervalScale(const Expression& call, Op op,
                                       std::vector<BoundExprPtr>& args, bool safe) {
  if (op != Op::kMultiply && op != Op::kDivide) {
    return BoundExprPtr();
  }
  if (op == Op::kMultiply && IsAnsiInterval(*args[1]->Type())) {
    std::swap(args[0], args[1]);
  }
  if (!IsAnsiInterval(*args[0]->Type())) {
    return BoundExprPtr();
  }
  const DataType& number = *args[1]->Type();
  if (number.Id() == TypeId::kNull || number.Id() == TypeId::kString) {
    args[1] = CastTo(std::move(args[1]), DataType::Float64());
  } else if (!number.IsNumeric()) {
    return CallError(call, "an interval can only be scaled by a number, not " + number.ToString());
  }
  const bool divide = op == Op::kDivide;
  // Spark's Multiply/DivideYMInterval and DTInterval types: the whole range, whatever fields
  // the operand had (INTERVAL 2 SECOND * 2 is an INTERVAL DAY TO SECOND).
  DataTypePtr type = args[0]->Type()->Id() == TypeId::kYearMonthInterval
                         ? DataType::YearMonthInterval()
                         : DataType::DayTimeInterval();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([divide, safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                            MemoryPool* pool) -> Result<ColumnPtr> {
        const bool months = c.Type()->Id() == TypeId::kYearMonthInterval;
        std::vector<uint8_t> failed(static_cast<size_t>(a[0]->Length()), 0);
        int64_t first_failed = -1;
        auto scale = [&](int64_t i) {
          int64_t out = 0;
          bool ok = ScaleInterval(IntAt(*a[0], i), *a[1], i, divide, &out);
          ok = ok && (!months || (out >= INT32_MIN && out <= INT32_MAX));
          if (!ok) {
            failed[static_cast<size_t>(i)] = 1;
            first_failed = first_failed < 0 ? i : first_failed;
          }
          return out;
        };
        ColumnPtr result;
        if (months) {
          TRIBUTARY_ASSIGN_OR_RAISE(result, BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
                                      return static_cast<int32_t>(scale(i));
                                    }));
        } else {
          TRIBUTARY_ASSIGN_OR_RAISE(result, BuildFixed<int64_t>(c.Type(), a, pool, scale));
        }
        if (first_failed < 0) {
          return result;
        }
        if (!safe) {
          return IntervalScaleError(*a[0], *a[1], first_failed, divide);
        }
        return NullWhere(std::move(result), pool,
                         [&](int64_t i) { return failed[static_cast<size_t>(i)] != 0; });
      }));
}

namespace {

Result<BoundExprPtr> BindTryArithmetic(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const std::string& name = call.Name();
  const Op op = name == "try_add"        ? Op::kAdd
                : name == "try_subtract" ? Op::kSubtract
                : name == "try_multiply" ? Op::kMultiply
                : name == "try_divide"   ? Op::kDivide
                                         : Op::kRemainder;
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr scaled, BindIntervalScale(call, op, args, /*safe=*/true));
  if (scaled != nullptr) {
    return scaled;
  }
  // date +/- days is date_add/date_sub, as Spark's DateTimeOperations rule rewrites it.
  const auto days = [](const BoundExprPtr& arg) {
    return arg->Type()->IsInteger() || arg->Type()->Id() == TypeId::kNull;
  };
  if (op == Op::kAdd && args[1]->Type()->Id() == TypeId::kDate && days(args[0])) {
    std::swap(args[0], args[1]);
  }
  const bool date_days = (op == Op::kAdd || op == Op::kSubtract) &&
                         args[0]->Type()->Id() == TypeId::kDate && days(args[1]);
  args[0] = TryOperand(std::move(args[0]), *args[1]->Type());
  args[1] = TryOperand(std::move(args[1]), *args[0]->Type());
  auto operands = std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
      columnar::Field("left", args[0]->Type()), columnar::Field("right", args[1]->Type())});
  Result<BoundExprPtr> bound = BoundExprPtr();
  if (date_days) {
    std::vector<BoundExprPtr> columns;
    for (int i = 0; i < 2; ++i) {
      const columnar::Field& field = operands->FieldAt(i);
      columns.push_back(MakeBound(Op::kColumn, field.Type(), {}, i, Scalar::Null(), field.Name()));
    }
    bound = BindFunction(
        *Function(op == Op::kAdd ? "date_add" : "date_sub", {Col("left"), Col("right")}),
        std::move(columns));
  } else {
    bound = Bind(*Call(op, {Col("left"), Col("right")}), *operands);
  }
  if (!bound.ok()) {
    return CallError(call, bound.status().Message());
  }
  DataTypePtr type = (*bound)->Type();
  return MakeFunctionCall(
      name, std::move(type), std::move(args),
      std::make_shared<const TryArithmeticFunction>(std::move(*bound), std::move(operands)));
}

// ---- positive, nullifzero, zeroifnull, width_bucket -----------------------------------------

BoundExprPtr IntLiteral(int32_t value) {
  return MakeBound(Op::kLiteral, DataType::Int32(), {}, -1, Scalar::Int32(value));
}

Result<BoundExprPtr> BindPositive(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  if (IsAnsiInterval(*args[0]->Type())) {
    return args[0];
  }
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
  if (!args[0]->Type()->IsNumeric()) {
    return CastTo(std::move(args[0]), DataType::Float64());
  }
  return args[0];
}

// nullifzero(x) is nullif(x, 0); zeroifnull(x) is coalesce(x, 0), as Spark defines them
// (RuntimeReplaceable): any x those take, a string as well (nullifzero('0') is a null string;
// zeroifnull('5') is the bigint 5, as ANSI coalesce widens a string beside an int to bigint).
Result<BoundExprPtr> BindZeroNull(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const bool nullif = call.Name() == "nullifzero";
  if (!nullif && args[0]->Type()->Id() == TypeId::kString) {
    // coalesce(string, int) widens to bigint under ANSI (zeroifnull('abc') fails the cast).
    args[0] = CastTo(std::move(args[0]), DataType::Int64());
  }
  args.push_back(IntLiteral(0));
  return BindAs(nullif ? "nullif" : "coalesce", {call.Child(0), Lit(Scalar::Int32(0))},
                std::move(args));
}

// Spark's WidthBucket.computeBucketNumber: the 1-based bucket of `value` among `buckets`
// equal ranges from `min` to `max` (either order); 0 below them, buckets + 1 above; valid
// false where Spark returns null.
int64_t WidthBucket(double value, double min, double max, int64_t buckets, bool* valid) {
  *valid = buckets > 0 && buckets != std::numeric_limits<int64_t>::max() && !std::isnan(value) &&
           min != max && std::isfinite(min) && std::isfinite(max);
  if (!*valid) {
    return 0;
  }
  const double lower = std::min(min, max);
  const double upper = std::max(min, max);
  if (min < max) {
    if (value < lower) {
      return 0;
    }
    if (value >= upper) {
      return buckets + 1;
    }
    return static_cast<int64_t>(static_cast<double>(buckets) * (value - lower) / (upper - lower)) +
           1;
  }
  if (value > upper) {
    return 0;
  }
  if (value <= lower) {
    return buckets + 1;
  }
  return static_cast<int64_t>(static_cast<double>(buckets) * (upper - value) / (upper - lower)) + 1;
}

Result<BoundExprPtr> BindWidthBucket(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 4, 4));
  for (size_t i = 0; i < 4; ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(args[i], RequireNumeric(call, std::move(args[i])));
    if (i == 3 && !args[i]->Type()->IsInteger() && args[i]->Type()->Id() != TypeId::kNull) {
      return CallError(
          call, "the number of buckets must be an integer, got " + args[i]->Type()->ToString());
    }
    args[i] = CastTo(std::move(args[i]), i == 3 ? DataType::Int64() : DataType::Float64());
  }
  return MakeFunctionCall(
      call.Name(), DataType::Int64(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const double* value = a[0]->Values<double>();
        const double* min = a[1]->Values<double>();
        const double* max = a[2]->Values<double>();
        const int64_t* buckets = a[3]->Values<int64_t>();
        std::vector<uint8_t> invalid(static_cast<size_t>(a[0]->Length()), 0);
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
              bool valid = true;
              const int64_t bucket = WidthBucket(value[i], min[i], max[i], buckets[i], &valid);
              invalid[static_cast<size_t>(i)] = !valid;
              return bucket;
            }));
        return NullWhere(std::move(result), pool,
                         [&](int64_t i) { return invalid[static_cast<size_t>(i)] != 0; });
      }));
}

// ---- bits: & | ^ ~, shifts, bit_count, bit_get, bin, conv -----------------------------------

// The argument as an integer type (`widen_to_int`: tinyint and smallint become int, as for
// Spark's shifts), an error for anything else.
Result<BoundExprPtr> RequireIntegral(const Expression& call, BoundExprPtr arg, bool widen_to_int) {
  const DataType& type = *arg->Type();
  if (type.Id() == TypeId::kNull) {
    return CastTo(std::move(arg), widen_to_int ? DataType::Int32() : DataType::Int64());
  }
  if (!type.IsInteger()) {
    return CallError(call, "needs an integer argument, got " + type.ToString());
  }
  if (widen_to_int && type.ByteWidth() < 4) {
    return CastTo(std::move(arg), DataType::Int32());
  }
  return arg;
}

// A per-row integer kernel templated on the physical type of the call's result `c.Type()`
// (which the first argument shares): `fn(T x, int64_t row) -> T`.
template <typename Fn>
Result<ColumnPtr> IntegralKernel(const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                 MemoryPool* pool, Fn fn) {
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* x = a[0]->Values<T>();
    return BuildFixed<T>(c.Type(), a, pool, [&](int64_t i) { return fn(x[i], i); });
  };
  switch (c.Type()->Id()) {
    case TypeId::kInt8:
      return run(int8_t{0});
    case TypeId::kInt16:
      return run(int16_t{0});
    case TypeId::kInt32:
      return run(int32_t{0});
    default:
      return run(int64_t{0});
  }
}

enum class BitOp : uint8_t { kAnd, kOr, kXor };

// a & b, a | b, a ^ b (the parser's names for the operators): both sides widened to one
// integer type, as Spark's BitwiseAnd/Or/Xor.
Result<BoundExprPtr> BindBitwise(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (auto& arg : args) {
    TRIBUTARY_ASSIGN_OR_RAISE(arg, RequireIntegral(call, std::move(arg), false));
  }
  const DataTypePtr type = WiderNumeric(args[0]->Type(), args[1]->Type());
  for (auto& arg : args) {
    arg = CastTo(std::move(arg), type);
  }
  const BitOp op = call.Name() == "&" ? BitOp::kAnd : call.Name() == "|" ? BitOp::kOr : BitOp::kXor;
  return MakeFunctionCall(
      call.Name(), type, std::move(args),
      Lambda([op](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        return IntegralKernel(c, a, pool, [&](auto x, int64_t i) {
          using T = decltype(x);
          const T y = a[1]->Values<T>()[i];
          return static_cast<T>(op == BitOp::kAnd ? (x & y) : op == BitOp::kOr ? (x | y) : (x ^ y));
        });
      }));
}

Result<BoundExprPtr> BindBitwiseNot(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireIntegral(call, std::move(args[0]), false));
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        return IntegralKernel(c, a, pool,
                              [](auto x, int64_t) { return static_cast<decltype(x)>(~x); });
      }));
}

enum class Shift : uint8_t { kLeft, kRight, kRightUnsigned };

// shiftleft/shiftright/shiftrightunsigned (and <<, >>, >>>): int or bigint by an int, the
// distance taken modulo the width as Java does.
Result<BoundExprPtr> BindShift(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireIntegral(call, std::move(args[0]), true));
  TRIBUTARY_ASSIGN_OR_RAISE(args[1], RequireIntegral(call, std::move(args[1]), true));
  if (args[1]->Type()->Id() != TypeId::kInt32) {
    return CallError(call, "the shift distance must be an int, got " + args[1]->Type()->ToString());
  }
  const std::string& name = call.Name();
  const Shift shift = name == "shiftleft"    ? Shift::kLeft
                      : name == "shiftright" ? Shift::kRight
                                             : Shift::kRightUnsigned;
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      name, std::move(type), std::move(args),
      Lambda([shift](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const int32_t* distance = a[1]->Values<int32_t>();
        return IntegralKernel(c, a, pool, [&](auto x, int64_t i) {
          using T = decltype(x);
          using U = std::make_unsigned_t<T>;
          const int bits = static_cast<int>(sizeof(T) * 8);
          const int d = distance[i] & (bits - 1);
          switch (shift) {
            case Shift::kLeft:
              return static_cast<T>(static_cast<U>(x) << d);
            case Shift::kRight:
              return static_cast<T>(x >> d);
            case Shift::kRightUnsigned:
              break;
          }
          return static_cast<T>(static_cast<U>(x) >> d);
        });
      }));
}

// bit_count: the set bits of the value sign-extended to 64 bits (Spark's Long.bitCount);
// booleans count 1 or 0.
Result<BoundExprPtr> BindBitCount(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  if (args[0]->Type()->Id() == TypeId::kBoolean) {
    args[0] = CastTo(std::move(args[0]), DataType::Int64());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireIntegral(call, std::move(args[0]), false));
  return PerRowFixed<int32_t>(
      call, DataType::Int32(), std::move(args), [](const std::vector<ColumnPtr>& a, int64_t i) {
        return static_cast<int32_t>(__builtin_popcountll(static_cast<uint64_t>(IntAt(*a[0], i))));
      });
}

// getbit/bit_get(x, pos): bit `pos` (0 = least significant) as a tinyint; a position outside
// the type's width is an error, as in Spark.
Result<BoundExprPtr> BindBitGet(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireIntegral(call, std::move(args[0]), false));
  TRIBUTARY_ASSIGN_OR_RAISE(args[1], RequireIntegral(call, std::move(args[1]), true));
  args[1] = CastTo(std::move(args[1]), DataType::Int32());
  return MakeFunctionCall(
      call.Name(), DataType::Int8(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const int bits = a[0]->Type()->ByteWidth() * 8;
        const int32_t* pos = a[1]->Values<int32_t>();
        int64_t bad_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int8_t>(c.Type(), a, pool, [&](int64_t i) {
              if (pos[i] < 0 || pos[i] >= bits) {
                bad_row = bad_row < 0 ? i : bad_row;
                return int8_t{0};
              }
              return static_cast<int8_t>((static_cast<uint64_t>(IntAt(*a[0], i)) >> pos[i]) & 1);
            }));
        if (bad_row >= 0) {
          return Status::InvalidArgument(fmt::format(
              "[INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE] The value of parameter(s) `pos` in "
              "`{}` is invalid: expects an integer value in [0, {}), but got {} (row {})",
              c.Name(), bits, pos[bad_row], bad_row));
        }
        return result;
      }));
}

// Digits of `value` read as unsigned in `radix` (2..36), most significant first, uppercase.
std::string UnsignedDigits(uint64_t value, int radix) {
  if (value == 0) {
    return "0";
  }
  std::string digits;
  while (value != 0) {
    const auto digit = static_cast<int>(value % static_cast<uint64_t>(radix));
    digits.push_back(static_cast<char>(digit < 10 ? '0' + digit : 'A' + digit - 10));
    value /= static_cast<uint64_t>(radix);
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

Result<BoundExprPtr> BindBin(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
  args[0] = CastTo(std::move(args[0]), DataType::Int64());
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       *out = UnsignedDigits(static_cast<uint64_t>(a[0]->Values<int64_t>()[i]), 2);
                       return true;
                     });
}

// conv(num, from_base, to_base), Spark's NumberConverter: the digits of `num` (after an
// optional '-', up to the first character that is not a digit of `from_base`) as an unsigned
// 64-bit number; a negative `to_base` prints it signed. Bases outside [2, 36] (by absolute
// value for `to_base`) give null; more than 64 bits is an ANSI overflow error.
enum class ConvResult : uint8_t { kOk, kNull, kOverflow };

ConvResult Conv(std::string_view text, int64_t from_base, int64_t to_base, std::string* out) {
  if (from_base < 2 || from_base > 36 || to_base < -36 || to_base > 36 ||
      (to_base > -2 && to_base < 2)) {
    return ConvResult::kNull;
  }
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  if (text.empty()) {
    return ConvResult::kNull;
  }
  bool negative = text.front() == '-';
  if (negative) {
    text.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char ch : text) {
    const int digit = ch >= '0' && ch <= '9'   ? ch - '0'
                      : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10
                      : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10
                                               : 99;
    if (digit >= from_base) {
      break;
    }
    if (__builtin_mul_overflow(value, static_cast<uint64_t>(from_base), &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(digit), &value)) {
      return ConvResult::kOverflow;
    }
  }
  if (negative && to_base > 0) {
    value = static_cast<int64_t>(value) < 0 ? ~uint64_t{0} : uint64_t{0} - value;
  }
  if (to_base < 0 && static_cast<int64_t>(value) < 0) {
    value = uint64_t{0} - value;
    negative = true;
  }
  if (negative && to_base < 0) {
    out->push_back('-');
  }
  out->append(UnsignedDigits(value, static_cast<int>(to_base < 0 ? -to_base : to_base)));
  return ConvResult::kOk;
}

Result<BoundExprPtr> BindConv(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_RETURN_NOT_OK(
      CoerceArgs(call, &args, {DataType::String(), DataType::Int32(), DataType::Int32()}));
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        int64_t overflow_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
              const ConvResult r = Conv(a[0]->BytesAt(i), a[1]->Values<int32_t>()[i],
                                        a[2]->Values<int32_t>()[i], out);
              if (r == ConvResult::kOverflow && overflow_row < 0) {
                overflow_row = i;
              }
              return r == ConvResult::kOk;
            }));
        if (overflow_row >= 0) {
          return Status::InvalidArgument(fmt::format(
              "[ARITHMETIC_OVERFLOW] Overflow in function conv() at row {}: '{}' does not fit 64 "
              "bits",
              overflow_row, a[0]->BytesAt(overflow_row)));
        }
        return result;
      }));
}

}  // namespace

void AddMathFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"abs", BindAbs},
                               {"round", BindRound},
                               {"bround", BindRound},
                               {"floor", BindRound},
                               {"ceil", BindRound},
                               {"ceiling", BindRound},
                               {"sqrt", BindUnaryMath},
                               {"exp", BindUnaryMath},
                               {"ln", BindUnaryMath},
                               {"log", BindUnaryMath},
                               {"log10", BindUnaryMath},
                               {"log2", BindUnaryMath},
                               {"sign", BindUnaryMath},
                               {"signum", BindUnaryMath},
                               {"sinh", BindUnaryMath},
                               {"cosh", BindUnaryMath},
                               {"tanh", BindUnaryMath},
                               {"asinh", BindUnaryMath},
                               {"acosh", BindUnaryMath},
                               {"atanh", BindUnaryMath},
                               {"sin", BindUnaryMath},
                               {"cos", BindUnaryMath},
                               {"tan", BindUnaryMath},
                               {"asin", BindUnaryMath},
                               {"acos", BindUnaryMath},
                               {"atan", BindUnaryMath},
                               {"cot", BindUnaryMath},
                               {"sec", BindUnaryMath},
                               {"csc", BindUnaryMath},
                               {"degrees", BindUnaryMath},
                               {"radians", BindUnaryMath},
                               {"cbrt", BindUnaryMath},
                               {"expm1", BindUnaryMath},
                               {"log1p", BindUnaryMath},
                               {"rint", BindUnaryMath},
                               {"atan2", BindBinaryMath},
                               {"hypot", BindBinaryMath},
                               {"e", BindMathConstant},
                               {"pi", BindMathConstant},
                               {"factorial", BindFactorial},
                               {"try_add", BindTryArithmetic},
                               {"try_subtract", BindTryArithmetic},
                               {"try_multiply", BindTryArithmetic},
                               {"try_divide", BindTryArithmetic},
                               {"try_mod", BindTryArithmetic},
                               {"positive", BindPositive},
                               {"nullifzero", BindZeroNull},
                               {"zeroifnull", BindZeroNull},
                               {"width_bucket", BindWidthBucket},
                               {"&", BindBitwise},
                               {"|", BindBitwise},
                               {"^", BindBitwise},
                               {"~", BindBitwiseNot},
                               {"shiftleft", BindShift},
                               {"shiftright", BindShift},
                               {"shiftrightunsigned", BindShift},
                               {"bit_count", BindBitCount},
                               {"bit_get", BindBitGet},
                               {"getbit", BindBitGet},
                               {"bin", BindBin},
                               {"conv", BindConv},
                               {"pow", BindPow},
                               {"power", BindPow}});
}

}  // namespace tributary::expr

// Math functions with Spark's types and ANSI semantics: abs, round/bround, floor, ceil/
// ceiling, sqrt, exp, ln/log/log10/log2, pow/power, sign/signum. (mod and pmod are rewritten
// into % by the binder, so they share its division-by-zero error.)
//
// round/bround work on the decimal value as Spark does: doubles through their shortest
// decimal text (so round(0.125, 2) is 0.13, like Scala's BigDecimal(0.125)), decimals exactly,
// integers with negative scales. Logarithms of values <= 0 are null, as in Spark.

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "columnar/decimal.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

using columnar::PowerOfTen;

// ---- double -> double functions --------------------------------------------------------------

enum class UnaryMath : uint8_t { kSqrt, kExp, kLn, kLog10, kLog2, kSign };

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
  const UnaryMath op = name == "sqrt"                       ? UnaryMath::kSqrt
                       : name == "exp"                      ? UnaryMath::kExp
                       : name == "log10"                    ? UnaryMath::kLog10
                       : name == "log2"                     ? UnaryMath::kLog2
                       : name == "sign" || name == "signum" ? UnaryMath::kSign
                                                            : UnaryMath::kLn;
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
                case UnaryMath::kLn:
                  break;
              }
              return std::log(x[i]);
            }));
        const bool is_log =
            op == UnaryMath::kLn || op == UnaryMath::kLog10 || op == UnaryMath::kLog2;
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
                                  [&](int64_t i) { return std::pow(x[i], y[i]); });
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
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], RequireNumeric(call, std::move(args[0])));
  if (!args[0]->Type()->IsNumeric()) {
    args[0] = CastTo(std::move(args[0]), DataType::Float64());
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
                                return AbsOf<int32_t>(c, a, pool);
                              case TypeId::kInt64:
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
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, floor_or_ceil ? 1 : 2));
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
  const DataTypePtr& from = args[0]->Type();
  const Rounding mode = name == "floor"    ? Rounding::kFloor
                        : floor_or_ceil    ? Rounding::kCeil
                        : name == "bround" ? Rounding::kHalfEven
                                           : Rounding::kHalfUp;
  DataTypePtr type = from;
  if (from->Id() == TypeId::kDecimal) {
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
                               {"pow", BindPow},
                               {"power", BindPow}});
}

}  // namespace tributary::expr

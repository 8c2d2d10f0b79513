// rand/random(seed) and randn(seed): Spark's values for a seed. Spark draws from its
// XORShiftRandom, seeded per partition with seed + partition index; a query here is one
// partition, index 0, so `SELECT rand(0)` gives Spark's 0.7604953758285915. The generator is
// Marsaglia's xorshift with the shifts (21, 35, 4) over a 64-bit state, the state being the
// seed's 8 big-endian bytes hashed by MurmurHash3 (x86, 32-bit) twice, as XORShiftRandom's
// hashSeed; doubles and Gaussians are drawn as java.util.Random draws them from next(bits).
// Without a seed, a random one is taken, as Spark does. A seed is any foldable INT or BIGINT
// expression (folded here, at bind time); a NULL seed is 0.
//
// Spark 4's uniform(min, max[, seed]) is bound as Spark's replacement tree:
// CAST(CAST(min AS double) + (CAST(max AS double) - CAST(min AS double)) * rand(seed) AS t),
// t the wider of min's and max's types. randstr(length[, seed]) draws abs(nextInt() % 62) per
// character and maps it onto 0-9, a-z, A-Z.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>

#include "columnar/column_builder.h"
#include "columnar/record_batch.h"
#include "expr/coercion.h"
#include "expr/evaluator.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

uint32_t RotateLeft(uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

uint32_t MurmurMixLast(uint32_t h, uint32_t k) {
  k *= 0xcc9e2d51U;
  k = RotateLeft(k, 15);
  k *= 0x1b873593U;
  return h ^ k;
}

// Scala's MurmurHash3.bytesHash of the 8 bytes.
uint32_t MurmurBytesHash(const uint8_t (&bytes)[8], uint32_t seed) {
  uint32_t h = seed;
  for (int i = 0; i < 8; i += 4) {
    const uint32_t k = uint32_t{bytes[i]} | (uint32_t{bytes[i + 1]} << 8) |
                       (uint32_t{bytes[i + 2]} << 16) | (uint32_t{bytes[i + 3]} << 24);
    h = RotateLeft(MurmurMixLast(h, k), 13) * 5 + 0xe6546b64U;
  }
  h ^= 8;  // the length
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}

class XorShiftRandom {
 public:
  explicit XorShiftRandom(int64_t seed) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i) {
      bytes[i] = static_cast<uint8_t>(static_cast<uint64_t>(seed) >> (56 - 8 * i));
    }
    constexpr uint32_t kArraySeed = 0x3c074a61U;
    const uint32_t low = MurmurBytesHash(bytes, kArraySeed);
    const uint32_t high = MurmurBytesHash(bytes, low);
    state_ = (uint64_t{high} << 32) | low;
  }

  double NextDouble() {
    const uint64_t high = Next(26);
    const uint64_t low = Next(27);
    return static_cast<double>((high << 27) + low) * 0x1.0p-53;
  }

  // java.util.Random.nextInt(): next(32) as a signed int.
  int32_t NextInt() { return static_cast<int32_t>(static_cast<uint32_t>(Next(32))); }

  // java.util.Random.nextGaussian: the polar method, the second value of a pair kept.
  double NextGaussian() {
    if (have_next_gaussian_) {
      have_next_gaussian_ = false;
      return next_gaussian_;
    }
    double v1 = 0;
    double v2 = 0;
    double s = 0;
    do {
      v1 = 2 * NextDouble() - 1;
      v2 = 2 * NextDouble() - 1;
      s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    const double multiplier = std::sqrt(-2 * std::log(s) / s);
    next_gaussian_ = v2 * multiplier;
    have_next_gaussian_ = true;
    return v1 * multiplier;
  }

 private:
  uint64_t Next(int bits) {
    uint64_t next = state_ ^ (state_ << 21);
    next ^= next >> 35;
    next ^= next << 4;
    state_ = next;
    return next & ((uint64_t{1} << bits) - 1);
  }

  uint64_t state_ = 0;
  bool have_next_gaussian_ = false;
  double next_gaussian_ = 0;
};

// One generator per bound call, drawn from in row order across the batches of a run.
class RandomFunction final : public ScalarFunction {
 public:
  RandomFunction(int64_t seed, bool gaussian) : random_(seed), gaussian_(gaussian) {}

  Result<columnar::ColumnPtr> Evaluate(const BoundExpression& call,
                                       const columnar::RecordBatch& batch,
                                       const EvalContext& context) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    columnar::ColumnBuilder builder(call.Type(), context.pool);
    builder.Reserve(batch.NumRows());
    for (int64_t i = 0; i < batch.NumRows(); ++i) {
      builder.AppendDouble(gaussian_ ? random_.NextGaussian() : random_.NextDouble());
    }
    return builder.Finish();
  }

 private:
  mutable std::mutex mutex_;
  mutable XorShiftRandom random_;
  bool gaussian_;
};

// One generator per bound randstr call, drawn from in row order across the batches of a run.
class RandStrFunction final : public ScalarFunction {
 public:
  RandStrFunction(int32_t length, int64_t seed) : length_(length), random_(seed) {}

  Result<columnar::ColumnPtr> Evaluate(const BoundExpression& call,
                                       const columnar::RecordBatch& batch,
                                       const EvalContext& context) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    columnar::ColumnBuilder builder(call.Type(), context.pool);
    builder.Reserve(batch.NumRows());
    std::string text(static_cast<size_t>(length_), '0');
    for (int64_t i = 0; i < batch.NumRows(); ++i) {
      for (char& c : text) {
        // Java's % keeps the dividend's sign; the absolute value is then 0..61.
        const int32_t pick = std::abs(random_.NextInt() % 62);
        c = pick < 10   ? static_cast<char>('0' + pick)
            : pick < 36 ? static_cast<char>('a' + (pick - 10))
                        : static_cast<char>('A' + (pick - 36));
      }
      builder.AppendBytes(text);
    }
    return builder.Finish();
  }

 private:
  int32_t length_;
  mutable std::mutex mutex_;
  mutable XorShiftRandom random_;
};

bool IsRandomCallName(const std::string& name) {
  return name == "rand" || name == "randn" || name == "random" || name == "uniform" ||
         name == "randstr" || name == "uuid" || name == "shuffle";
}

// Whether `e` has one value for a whole query (Spark's foldable): no column, lambda variable or
// random call under it.
bool IsFoldableArgument(const BoundExpression& e) {
  if (e.GetOp() == Op::kColumn || e.GetOp() == Op::kLambdaVariable || e.GetOp() == Op::kWindow ||
      (e.GetOp() == Op::kFunction && IsRandomCallName(e.Name()))) {
    return false;
  }
  return std::all_of(e.Children().begin(), e.Children().end(),
                     [](const BoundExprPtr& child) { return IsFoldableArgument(*child); });
}

// A foldable argument's value: the one-row column it evaluates to without input columns.
Result<columnar::ColumnPtr> FoldRandomArgument(const BoundExpression& e) {
  auto schema = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{});
  TRIBUTARY_ASSIGN_OR_RAISE(auto batch, columnar::RecordBatch::Make(schema, 1, {}));
  return Evaluate(e, *batch);
}

int64_t FreshSeed() {
  return static_cast<int64_t>(std::random_device{}() | (uint64_t{std::random_device{}()} << 32));
}

// The seed argument: a foldable INT or BIGINT expression, NULL meaning 0 (Spark's
// ExpressionWithRandomSeed).
Result<int64_t> SeedValue(const Expression& call, const BoundExpression& seed) {
  const TypeId id = seed.Type()->Id();
  if (!IsFoldableArgument(seed)) {
    return CallError(call,
                     fmt::format("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input seed should be "
                                 "a foldable INT or BIGINT expression; however, got {}",
                                 seed.ToString()));
  }
  if (id == TypeId::kNull) {
    return 0;
  }
  if (id != TypeId::kInt32 && id != TypeId::kInt64) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the seed "
                                       "requires the INT or BIGINT type, got {}",
                                       seed.Type()->ToString()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr value, FoldRandomArgument(seed));
  if (value->IsNull(0)) {
    return 0;
  }
  return id == TypeId::kInt32 ? int64_t{value->Values<int32_t>()[0]} : value->Values<int64_t>()[0];
}

Status WrongRandomArity(const Expression& call, size_t got, std::string_view wanted) {
  return CallError(call, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] {} requires {} "
                                     "parameters, got {}",
                                     call.Name(), wanted, got));
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindRandom(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 1));
  int64_t seed = FreshSeed();
  if (!args.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(seed, SeedValue(call, *args[0]));
  }
  return MakeFunctionCall(call.Name(), columnar::DataType::Float64(), {},
                          std::make_shared<const RandomFunction>(seed, call.Name() == "randn"));
}

bool IsUniformBoundType(TypeId id) {
  switch (id) {
    case TypeId::kNull:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
      return true;
    default:
      return false;
  }
}

// uniform(min, max[, seed]) as Spark's replacement: min + (max - min) * rand(seed) in double,
// cast to the wider of min's and max's types; NULL when min or max is the NULL type, and for
// a NULL value through the arithmetic.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindUniform(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.size() < 2 || args.size() > 3) {
    return WrongRandomArity(call, args.size(), "[2, 3]");
  }
  constexpr std::string_view kNames[] = {"min", "max", "seed"};
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsFoldableArgument(*args[i])) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input {} "
                                         "should be a foldable integer or floating-point "
                                         "expression; however, got {}",
                                         kNames[i], args[i]->ToString()));
    }
    if (i < 2 && !IsUniformBoundType(args[i]->Type()->Id())) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the input {} "
                                         "requires an integer or floating-point type, got {}",
                                         kNames[i], args[i]->Type()->ToString()));
    }
  }
  int64_t seed = FreshSeed();
  if (args.size() == 3) {
    TRIBUTARY_ASSIGN_OR_RAISE(seed, SeedValue(call, *args[2]));
  }
  const DataTypePtr& low_type = args[0]->Type();
  const DataTypePtr& high_type = args[1]->Type();
  if (low_type->Id() == TypeId::kNull || high_type->Id() == TypeId::kNull) {
    return MakeBound(Op::kLiteral, columnar::DataType::Null(), {});
  }
  const DataTypePtr type = WiderNumeric(low_type, high_type);
  if (type == nullptr) {
    return CallError(call,
                     "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] min and max have no "
                     "common numeric type");
  }
  const DataTypePtr f64 = columnar::DataType::Float64();
  BoundExprPtr low = CastTo(args[0], f64);
  BoundExprPtr high = CastTo(args[1], f64);
  BoundExprPtr draw =
      MakeFunctionCall("rand", f64, {}, std::make_shared<const RandomFunction>(seed, false));
  BoundExprPtr span = MakeBound(Op::kSubtract, f64, {high, low});
  BoundExprPtr offset = MakeBound(Op::kMultiply, f64, {std::move(span), std::move(draw)});
  return CastTo(MakeBound(Op::kAdd, f64, {std::move(low), std::move(offset)}), type);
}

// randstr(length[, seed]): `length` a foldable number, cast to INT, at least 0.
// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindRandStr(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() || args.size() > 2) {
    return WrongRandomArity(call, args.size(), "[1, 2]");
  }
  const BoundExpression& length = *args[0];
  if (!IsFoldableArgument(length)) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input length "
                                       "should be a foldable INT or SMALLINT expression; "
                                       "however, got {}",
                                       length.ToString()));
  }
  if (!length.Type()->IsNumeric()) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the length "
                                       "requires the INT or SMALLINT type, got {}",
                                       length.Type()->ToString()));
  }
  int64_t seed = FreshSeed();
  if (args.size() == 2) {
    TRIBUTARY_ASSIGN_OR_RAISE(seed, SeedValue(call, *args[1]));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr value,
                            FoldRandomArgument(*CastTo(args[0], columnar::DataType::Int32())));
  if (value->IsNull(0) || value->Values<int32_t>()[0] < 0) {
    return CallError(call,
                     "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the RANDSTR function desired "
                     "string length must be positive or zero");
  }
  return MakeFunctionCall(
      call.Name(), columnar::DataType::String(), {},
      std::make_shared<const RandStrFunction>(value->Values<int32_t>()[0], seed));
}

}  // namespace

void AddRandomFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"rand", BindRandom},
                               {"random", BindRandom},
                               {"randn", BindRandom},
                               {"uniform", BindUniform},
                               {"randstr", BindRandStr}});
}

}  // namespace tributary::expr

// rand/random(seed) and randn(seed): Spark's values for a seed. Spark draws from its
// XORShiftRandom, seeded per partition with seed + partition index; a query here is one
// partition, index 0, so `SELECT rand(0)` gives Spark's 0.7604953758285915. The generator is
// Marsaglia's xorshift with the shifts (21, 35, 4) over a 64-bit state, the state being the
// seed's 8 big-endian bytes hashed by MurmurHash3 (x86, 32-bit) twice, as XORShiftRandom's
// hashSeed; doubles and Gaussians are drawn as java.util.Random draws them from next(bits).
// Without a seed, a random one is taken, as Spark does.

#include <cmath>
#include <mutex>
#include <random>

#include "columnar/column_builder.h"
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

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindRandom(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 1));
  int64_t seed = 0;
  if (args.empty()) {
    seed = static_cast<int64_t>(std::random_device{}() | (uint64_t{std::random_device{}()} << 32));
  } else {
    const BoundExpression& given = *args[0];
    if (given.GetOp() != Op::kLiteral ||
        (!given.Type()->IsInteger() && !given.Literal().IsNull())) {
      return CallError(call,
                       "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the seed must be an integer "
                       "literal");
    }
    seed = given.Literal().IsNull() ? 0 : given.Literal().IntValue();
  }
  return MakeFunctionCall(call.Name(), columnar::DataType::Float64(), {},
                          std::make_shared<const RandomFunction>(seed, call.Name() == "randn"));
}

}  // namespace

void AddRandomFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(),
                {{"rand", BindRandom}, {"random", BindRandom}, {"randn", BindRandom}});
}

}  // namespace tributary::expr

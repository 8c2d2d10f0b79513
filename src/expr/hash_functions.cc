// Hash functions as Spark computes them, so values hash to the same numbers as in Spark (for
// bucketing and for users comparing results).
//
// hash(...) is Spark's Murmur3Hash: murmur3 x86_32 with seed 42, folded over the arguments
// (each argument's hash is the seed of the next; nulls leave it unchanged). Spark's variant
// hashes the tail bytes of a byte string one signed byte at a time as ints, unlike standard
// murmur3. xxhash64(...) is Spark's XxHash64, the standard XXH64 with seed 42, folded alike.
// Per type (Spark's HashExpression): boolean, tinyint, smallint, int, date -> the int;
// bigint, timestamp, timestamp_ntz, interval -> the long; float/double -> their IEEE bits with
// -0.0 as 0.0 and one NaN; decimal(p <= 18) -> the unscaled long, wider decimals -> the
// minimal big-endian two's complement bytes of the unscaled value; string/binary -> the bytes;
// struct -> fields in order; array -> elements in order; map -> key then value per entry.
//
// md5, sha1, sha2(x, bits) return lowercase hex (OpenSSL); crc32 returns a bigint (zlib).

#include <xxhash.h>
#include <zlib.h>

#include <bit>
#include <cstring>

#include <openssl/evp.h>

#include "columnar/calendar_interval.h"
#include "expr/function_kernels.h"

namespace tributary::expr {

namespace {

// ---- Spark's murmur3 x86_32 --------------------------------------------------------------

uint32_t Rotl32(uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}
uint32_t MixK1(uint32_t k1) {
  return Rotl32(k1 * 0xcc9e2d51U, 15) * 0x1b873593U;
}
uint32_t MixH1(uint32_t h1, uint32_t k1) {
  return Rotl32(h1 ^ k1, 13) * 5 + 0xe6546b64U;
}
uint32_t Fmix32(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bU;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35U;
  return h1 ^ (h1 >> 16);
}

struct Murmur3 {
  using Seed = uint32_t;
  static Seed Int(int32_t value, Seed seed) {
    return Fmix32(MixH1(seed, MixK1(static_cast<uint32_t>(value))), 4);
  }
  static Seed Long(int64_t value, Seed seed) {
    const auto bits = static_cast<uint64_t>(value);
    uint32_t h1 = MixH1(seed, MixK1(static_cast<uint32_t>(bits)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(bits >> 32)));
    return Fmix32(h1, 8);
  }
  static Seed Bytes(std::string_view bytes, Seed seed) {
    const size_t aligned = bytes.size() - bytes.size() % 4;
    uint32_t h1 = seed;
    for (size_t i = 0; i < aligned; i += 4) {
      uint32_t word = 0;
      std::memcpy(&word, bytes.data() + i, 4);  // little-endian, as Spark reads it
      h1 = MixH1(h1, MixK1(word));
    }
    for (size_t i = aligned; i < bytes.size(); ++i) {
      // Spark reads the tail as signed bytes (Java's byte): 0x80..0xFF are -128..-1.
      const int32_t unsigned_byte = static_cast<unsigned char>(bytes[i]);
      const int32_t byte = unsigned_byte >= 128 ? unsigned_byte - 256 : unsigned_byte;
      h1 = MixH1(h1, MixK1(static_cast<uint32_t>(byte)));
    }
    return Fmix32(h1, static_cast<uint32_t>(bytes.size()));
  }
};

struct XxHash64 {
  using Seed = uint64_t;
  static Seed Int(int32_t value, Seed seed) { return XXH64(&value, 4, seed); }
  static Seed Long(int64_t value, Seed seed) { return XXH64(&value, 8, seed); }
  static Seed Bytes(std::string_view bytes, Seed seed) {
    return XXH64(bytes.data(), bytes.size(), seed);
  }
};

// The minimal big-endian two's complement bytes of `value` (Java's BigInteger.toByteArray).
std::string BigIntegerBytes(Int128 value) {
  std::string out;
  for (int i = 15; i >= 0; --i) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(value >> (8 * i))));
  }
  size_t skip = 0;
  while (skip + 1 < out.size()) {
    const auto first = static_cast<uint8_t>(out[skip]);
    const auto next = static_cast<uint8_t>(out[skip + 1]);
    if ((first == 0x00 && (next & 0x80) == 0) || (first == 0xFF && (next & 0x80) != 0)) {
      ++skip;
    } else {
      break;
    }
  }
  return out.substr(skip);
}

// Row i's hash of a valid value of `column`, for any type (nested ones recursively).
template <typename H>
typename H::Seed HashValue(const Column& column, int64_t i, typename H::Seed seed) {
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kBoolean:
      return H::Int(column.Values<uint8_t>()[i] != 0 ? 1 : 0, seed);
    case TypeId::kInt8:
      return H::Int(column.Values<int8_t>()[i], seed);
    case TypeId::kInt16:
      return H::Int(column.Values<int16_t>()[i], seed);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return H::Int(column.Values<int32_t>()[i], seed);
    case TypeId::kFloat32: {
      float value = column.Values<float>()[i];
      value = value == 0.0f ? 0.0f : value;
      const uint32_t bits = value != value ? 0x7fc00000U : std::bit_cast<uint32_t>(value);
      return H::Int(static_cast<int32_t>(bits), seed);
    }
    case TypeId::kFloat64: {
      double value = column.Values<double>()[i];
      value = value == 0.0 ? 0.0 : value;
      const uint64_t bits = value != value ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(value);
      return H::Long(static_cast<int64_t>(bits), seed);
    }
    case TypeId::kDecimal: {
      const Int128 unscaled = column.Values<Int128>()[i];
      if (type.Precision() <= 18) {
        return H::Long(static_cast<int64_t>(unscaled), seed);
      }
      return H::Bytes(BigIntegerBytes(unscaled), seed);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return H::Bytes(column.BytesAt(i), seed);
    case TypeId::kStruct:
      for (const ColumnPtr& field : column.Children()) {
        if (field->IsValid(i)) {
          seed = HashValue<H>(*field, i, seed);
        }
      }
      return seed;
    case TypeId::kArray:
    case TypeId::kMap: {
      const int64_t* offsets = column.Offsets();
      for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
        for (const ColumnPtr& child : column.Children()) {
          if (child->IsValid(j)) {
            seed = HashValue<H>(*child, j, seed);
          }
        }
      }
      return seed;
    }
    case TypeId::kCalendarInterval: {
      // Spark's hash of a CalendarInterval: microseconds, then days, then months.
      const columnar::CalendarInterval& value = column.Values<columnar::CalendarInterval>()[i];
      return H::Int(value.months, H::Int(value.days, H::Long(value.microseconds, seed)));
    }
    case TypeId::kNull:
      return seed;
    default:
      return H::Long(column.Values<int64_t>()[i], seed);
  }
}

// Folds every argument into per-row seeds: typed loops for the common flat types.
template <typename H>
void HashColumn(const Column& column, std::vector<typename H::Seed>* seeds) {
  const auto n = static_cast<int64_t>(seeds->size());
  auto* out = seeds->data();
  const bool all_valid = column.ValidityBits() == nullptr && column.Type()->Id() != TypeId::kNull;
  switch (column.Type()->Id()) {
    case TypeId::kInt32:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate: {
      const int32_t* values = column.Values<int32_t>();
      for (int64_t i = 0; i < n; ++i) {
        if (all_valid || column.IsValid(i)) {
          out[i] = H::Int(values[i], out[i]);
        }
      }
      return;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      const int64_t* values = column.Values<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        if (all_valid || column.IsValid(i)) {
          out[i] = H::Long(values[i], out[i]);
        }
      }
      return;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      for (int64_t i = 0; i < n; ++i) {
        if (all_valid || column.IsValid(i)) {
          out[i] = H::Bytes(column.BytesAt(i), out[i]);
        }
      }
      return;
    default:
      for (int64_t i = 0; i < n; ++i) {
        if (column.IsValid(i)) {
          out[i] = HashValue<H>(column, i, out[i]);
        }
      }
      return;
  }
}

template <typename H, typename Out>
class HashFunction final : public EagerFunction {
 public:
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t n = args[0]->Length();
    std::vector<typename H::Seed> seeds(static_cast<size_t>(n), 42);
    for (const ColumnPtr& arg : args) {
      HashColumn<H>(*arg, &seeds);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                              columnar::Buffer::Allocate(n * sizeof(Out), context.pool));
    auto* out = values->template MutableDataAs<Out>();
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<Out>(seeds[static_cast<size_t>(i)]);
    }
    return Column::Make(call.Type(), n, nullptr, std::move(values));
  }
};

Result<BoundExprPtr> BindHash(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, SIZE_MAX));
  if (call.Name() == "xxhash64") {
    return MakeFunctionCall(call.Name(), DataType::Int64(), std::move(args),
                            std::make_shared<const HashFunction<XxHash64, int64_t>>());
  }
  return MakeFunctionCall(call.Name(), DataType::Int32(), std::move(args),
                          std::make_shared<const HashFunction<Murmur3, int32_t>>());
}

// ---- digests -------------------------------------------------------------------------------

const EVP_MD* DigestOf(std::string_view name, int64_t bits) {
  if (name == "md5") {
    return EVP_md5();
  }
  if (name == "sha1" || name == "sha") {
    return EVP_sha1();
  }
  switch (bits) {
    case 0:
    case 256:
      return EVP_sha256();
    case 224:
      return EVP_sha224();
    case 384:
      return EVP_sha384();
    case 512:
      return EVP_sha512();
    default:
      return nullptr;  // Spark returns null for other bit lengths
  }
}

Result<BoundExprPtr> BindDigest(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool sha2 = call.Name() == "sha2";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, sha2 ? 2 : 1, sha2 ? 2 : 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Binary(), DataType::Int32()}));
  std::string name = call.Name();
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([name](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        EVP_MD_CTX* md = EVP_MD_CTX_new();
        if (md == nullptr) {
          return Status::Internal("OpenSSL could not allocate a digest context");
        }
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const EVP_MD* digest = DigestOf(name, a.size() > 1 ? IntAt(*a[1], i) : 0);
          if (digest == nullptr) {
            return false;
          }
          unsigned char bytes[EVP_MAX_MD_SIZE];
          unsigned int length = 0;
          const std::string_view input = a[0]->BytesAt(i);
          if (EVP_DigestInit_ex(md, digest, nullptr) != 1 ||
              EVP_DigestUpdate(md, input.data(), input.size()) != 1 ||
              EVP_DigestFinal_ex(md, bytes, &length) != 1) {
            status = Status::Internal(fmt::format("OpenSSL {} failed at row {}", name, i));
            return false;
          }
          static constexpr char kHex[] = "0123456789abcdef";
          for (unsigned int k = 0; k < length; ++k) {
            out->push_back(kHex[bytes[k] >> 4]);
            out->push_back(kHex[bytes[k] & 15]);
          }
          return true;
        });
        EVP_MD_CTX_free(md);
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

Result<BoundExprPtr> BindCrc32(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Binary()}));
  return MakeFunctionCall(
      call.Name(), DataType::Int64(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        return BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
          const std::string_view bytes = a[0]->BytesAt(i);
          uLong crc = crc32(0L, Z_NULL, 0);
          crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()),
                      static_cast<uInt>(bytes.size()));
          return static_cast<int64_t>(crc);
        });
      }));
}

}  // namespace

void AddHashFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"hash", BindHash},
                               {"xxhash64", BindHash},
                               {"md5", BindDigest},
                               {"sha1", BindDigest},
                               {"sha", BindDigest},
                               {"sha2", BindDigest},
                               {"crc32", BindCrc32}});
}

}  // namespace tributary::expr

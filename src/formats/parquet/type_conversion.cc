#include "formats/parquet/type_conversion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "common/short_copy.h"
#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

using columnar::Buffer;
using columnar::BufferPtr;
using columnar::Column;
using columnar::ColumnPtr;
using columnar::Int128;
using columnar::TypeId;

namespace {

// Byte arrays read as they are: offsets plus bytes.
bool IsByteArrayIdentity(const SchemaNode& leaf) {
  return leaf.physical_type == PhysicalType::kByteArray &&
         leaf.conversion == LeafConversion::kIdentity;
}

// Bytes per converted value of a fixed-width leaf (at least one, as the buffers were sized).
int OutputWidth(const SchemaNode& leaf) {
  return std::max(leaf.type->ByteWidth(), 1);
}

// Big-endian two's complement of 1..16 bytes to Int128.
bool BigEndianToInt128(const char* p, int64_t length, Int128* out) {
  if (length > 16 || length <= 0) {
    // Longer encodings are allowed if the extra bytes are sign extension.
    if (length <= 0) {
      *out = 0;
      return length == 0;
    }
    const char sign = (p[0] & 0x80) ? static_cast<char>(0xFF) : 0;
    for (int64_t i = 0; i < length - 16; ++i) {
      if (p[i] != sign) {
        return false;
      }
    }
    p += length - 16;
    length = 16;
  }
  unsigned __int128 value =
      (static_cast<uint8_t>(p[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (int64_t i = 0; i < length; ++i) {
    value = (value << 8) | static_cast<uint8_t>(p[i]);
  }
  *out = static_cast<Int128>(value);
  return true;
}

}  // namespace

Status ValueConverter::ConvertInto(const PhysicalValues& values, int64_t begin, int64_t count,
                                   int64_t entries, int64_t offset, ValueSink* sink) const {
  const int64_t n = count;
  const columnar::DataTypePtr& type = leaf_.type;
  if (n > sink->capacity - sink->length || begin + n > values.count) {
    return Status::Internal(fmt::format(
        "column {}: values {}..{} of a page of {} into {} of {} slots", location_.column, begin,
        begin + n, values.count, sink->length + n, sink->capacity));
  }
  TRIBUTARY_RETURN_NOT_OK(EnsureRoom(sink, n));
  if (IsByteArrayIdentity(leaf_)) {
    // The range's offsets; they address the page's bytes (or the PLAIN page, see ValueData).
    const int64_t* offs = values.offsets.data() + begin;
    const int64_t base = offs[0];
    const int64_t range_bytes = offs[n] - base;
    TRIBUTARY_RETURN_NOT_OK(ReserveBytes(sink, range_bytes, entries));
    char* out = reinterpret_cast<char*>(sink->values->mutable_data()) + sink->byte_length;
    if (!values.plain_page.empty()) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + (offs[i] - base), values.ValueData(begin + i),
                    static_cast<size_t>(offs[i + 1] - offs[i]));
      }
    } else if (range_bytes > 0) {
      std::memcpy(out, values.bytes.data() + base, static_cast<size_t>(range_bytes));
    }
    // The range's values as the offsets address them.
    const char* data = out - base;
    if (type->Id() == TypeId::kString) {
      // One pass over the range's bytes; if it is valid, each value is valid unless a character
      // straddles two values, i.e. some value starts with a continuation byte.
      bool valid = columnar::IsValidUtf8(std::string_view(out, static_cast<size_t>(range_bytes)));
      for (int64_t i = 0; valid && i < n; ++i) {
        if (offs[i + 1] > offs[i] && (static_cast<uint8_t>(data[offs[i]]) & 0xC0) == 0x80) {
          valid = false;
        }
      }
      if (!valid) {
        for (int64_t i = 0; i < n; ++i) {
          if (!columnar::IsValidUtf8(
                  std::string_view(data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])))) {
            return location_.Fault(
                offset, fmt::format("value {} of the page is not valid UTF-8", begin + i));
          }
        }
      }
    }
    int64_t* offsets = sink->offsets->MutableDataAs<int64_t>() + sink->length;
    const int64_t shift = sink->byte_length - base;
    for (int64_t i = 1; i <= n; ++i) {
      offsets[i] = offs[i] + shift;
    }
    sink->length += n;
    sink->byte_length += range_bytes;
    return Status::OK();
  }
  const int width = values.width;
  const char* in = values.fixed_view.data() + begin * width;
  // Every byte of the n values is written by the conversion below.
  uint8_t* const out = sink->values->mutable_data() + sink->length * OutputWidth(leaf_);
  auto fail = [&](int64_t i, std::string_view what) {
    return location_.Fault(offset, fmt::format("value {}: {}", begin + i, what));
  };
  switch (leaf_.conversion) {
    case LeafConversion::kIdentity:
      if (type->ByteWidth() != width) {
        return Status::Internal(fmt::format("column {}: {} from physical width {}",
                                            location_.column, type->ToString(), width));
      }
      std::memcpy(out, in, static_cast<size_t>(n * width));
      break;
    case LeafConversion::kInt32ToInt8:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int8_t*>(out)[i] = static_cast<int8_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kInt32ToInt16:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int16_t*>(out)[i] = static_cast<int16_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kUint32ToInt64:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int64_t*>(out)[i] = static_cast<uint32_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kUint64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<Int128*>(out)[i] = static_cast<Int128>(v);
      }
      break;
    case LeafConversion::kInt32ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<Int128*>(out)[i] = LoadLe32(in + i * 4);
      }
      break;
    case LeafConversion::kInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<Int128*>(out)[i] = v;
      }
      break;
    case LeafConversion::kBytesToDecimal: {
      const bool fixed = leaf_.physical_type == PhysicalType::kFixedLenByteArray;
      for (int64_t i = 0; i < n; ++i) {
        const auto v = static_cast<size_t>(begin + i);
        const char* p = fixed ? in + i * width : values.ValueData(begin + i);
        const int64_t length = fixed ? width : values.offsets[v + 1] - values.offsets[v];
        Int128 value = 0;
        if (!BigEndianToInt128(p, length, &value) ||
            !columnar::FitsPrecision(value, type->Precision())) {
          return fail(i, fmt::format("does not fit {}", type->ToString()));
        }
        reinterpret_cast<Int128*>(out)[i] = value;
      }
      break;
    }
    case LeafConversion::kInt96ToTimestamp:
      // INT96: 8 bytes nanoseconds of the day, then 4 bytes Julian day number, little-endian.
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos;
        std::memcpy(&nanos, in + i * 12, 8);
        const int64_t julian_day = LoadLe32(in + i * 12 + 8);
        constexpr int64_t kJulianDayOfEpoch = 2440588;
        int64_t micros = 0;
        if (__builtin_mul_overflow(julian_day - kJulianDayOfEpoch, columnar::kMicrosPerDay,
                                   &micros) ||
            __builtin_add_overflow(micros, nanos / 1000, &micros)) {
          return fail(i, "INT96 timestamp out of range");
        }
        reinterpret_cast<int64_t*>(out)[i] = micros;
      }
      break;
    case LeafConversion::kMillisToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        if (__builtin_mul_overflow(v, int64_t{1000}, &reinterpret_cast<int64_t*>(out)[i])) {
          return fail(i, "millisecond timestamp out of range");
        }
      }
      break;
    case LeafConversion::kNanosToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<int64_t*>(out)[i] = columnar::FloorDiv(v, 1000);
      }
      break;
    case LeafConversion::kFixedToBinary:
    case LeafConversion::kUuidToString:
      return Status::Internal(
          fmt::format("column {}: {} is built per page", location_.column, type->ToString()));
    case LeafConversion::kFloat16ToFloat:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, in + i * 2, 2);
        const uint32_t sign = (h & 0x8000u) << 16;
        const uint32_t exponent = (h >> 10) & 0x1F;
        const uint32_t mantissa = h & 0x3FF;
        float f;
        if (exponent == 0) {
          f = std::ldexp(static_cast<float>(mantissa), -24);
        } else if (exponent == 31) {
          f = mantissa ? std::numeric_limits<float>::quiet_NaN()
                       : std::numeric_limits<float>::infinity();
        } else {
          f = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
        }
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits |= sign;
        std::memcpy(&reinterpret_cast<float*>(out)[i], &bits, 4);
      }
      break;
  }
  if (leaf_.physical_type == PhysicalType::kBoolean) {
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<uint8_t>(in[i]) > 1) {
        return fail(i, "boolean that is neither 0 nor 1");
      }
    }
  }
  sink->length += n;
  return Status::OK();
}

Result<ColumnPtr> ValueConverter::Convert(PhysicalValues& values, int64_t offset) const {
  const int64_t n = values.count;
  values.Normalize();
  if (leaf_.conversion == LeafConversion::kFixedToBinary ||
      leaf_.conversion == LeafConversion::kUuidToString) {
    if (values.fixed_view.empty()) {
      values.fixed_view = values.fixed;
    }
    const char* in = values.fixed_view.data();
    const int width = values.width;
    columnar::ColumnBuilder builder(leaf_.type, pool_);
    static constexpr char kHex[] = "0123456789abcdef";
    for (int64_t i = 0; i < n; ++i) {
      std::string_view value(in + i * width, static_cast<size_t>(width));
      if (leaf_.conversion == LeafConversion::kFixedToBinary) {
        builder.AppendBytes(value);
        continue;
      }
      std::string text;
      for (int b = 0; b < 16; ++b) {
        if (b == 4 || b == 6 || b == 8 || b == 10) {
          text.push_back('-');
        }
        text.push_back(kHex[static_cast<uint8_t>(value[static_cast<size_t>(b)]) >> 4]);
        text.push_back(kHex[static_cast<uint8_t>(value[static_cast<size_t>(b)]) & 15]);
      }
      builder.AppendBytes(text);
    }
    return builder.Finish();
  }
  ValueSink sink;
  TRIBUTARY_RETURN_NOT_OK(StartSink(&sink, n));
  TRIBUTARY_RETURN_NOT_OK(ConvertInto(values, 0, n, n, offset, &sink));
  return FinishSink(&sink);
}

bool ValueConverter::Sinkable() const {
  if (leaf_.conversion == LeafConversion::kFixedToBinary ||
      leaf_.conversion == LeafConversion::kUuidToString) {
    return false;
  }
  return IsByteArrayIdentity(leaf_) || leaf_.type->ByteWidth() > 0;
}

Status ValueConverter::StartSink(ValueSink* sink, int64_t capacity) const {
  // Bit-packed booleans and 1-bit dictionary indexes hold 8 values a byte; only RLE runs hold
  // more, and a request that large grows from here.
  constexpr int64_t kMinPlausibleValues = int64_t{1} << 16;
  constexpr int64_t kMaxValuesPerByte = 8;
  const int64_t plausible = std::max(kMinPlausibleValues, chunk_size_ * kMaxValuesPerByte);
  sink->capacity = capacity;
  sink->allocated = std::min(capacity, plausible);
  if (IsByteArrayIdentity(leaf_)) {
    TRIBUTARY_ASSIGN_OR_RAISE(sink->offsets,
                              Buffer::AllocateUninitialized((sink->allocated + 1) * 8, pool_));
    sink->offsets->MutableDataAs<int64_t>()[0] = 0;
    return Status::OK();  // the bytes are reserved as pages arrive
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      sink->values, Buffer::AllocateUninitialized(sink->allocated * OutputWidth(leaf_), pool_));
  return Status::OK();
}

Status ValueConverter::EnsureRoom(ValueSink* sink, int64_t more) const {
  const int64_t needed = sink->length + more;
  if (needed <= sink->allocated) {
    return Status::OK();
  }
  sink->allocated = std::min(sink->capacity, std::max(needed, sink->allocated * 2));
  if (IsByteArrayIdentity(leaf_)) {
    return sink->offsets->ResizeUninitialized((sink->allocated + 1) * 8);
  }
  return sink->values->ResizeUninitialized(sink->allocated * OutputWidth(leaf_));
}

Status ValueConverter::ReserveBytes(ValueSink* sink, int64_t more, int64_t entries) const {
  const int64_t needed = sink->byte_length + more;
  if (sink->values == nullptr) {
    // The first slice's bytes per entry (nulls included) times the request's entries.
    int64_t expected = needed;
    if (entries > 0 && sink->allocated > entries) {
      expected = static_cast<int64_t>(static_cast<double>(more) / static_cast<double>(entries) *
                                      static_cast<double>(sink->allocated));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(sink->values,
                              Buffer::AllocateUninitialized(std::max(needed, expected), pool_));
    return Status::OK();
  }
  if (needed > sink->values->size()) {
    return sink->values->ResizeUninitialized(needed);  // grows capacity geometrically
  }
  return Status::OK();
}

Status ValueConverter::GatherInto(const Column& dictionary, std::span<const int32_t> indexes,
                                  int64_t entries, ValueSink* sink) const {
  const auto n = static_cast<int64_t>(indexes.size());
  if (n > sink->capacity - sink->length) {
    return Status::Internal(fmt::format("column {}: {} values past the {} the request holds",
                                        location_.column, sink->length + n, sink->capacity));
  }
  TRIBUTARY_RETURN_NOT_OK(EnsureRoom(sink, n));
  if (IsByteArrayIdentity(leaf_)) {
    const int64_t* from = dictionary.Offsets();
    int64_t total = 0;
    for (const int32_t index : indexes) {
      total += from[index + 1] - from[index];
    }
    TRIBUTARY_RETURN_NOT_OK(ReserveBytes(sink, total, entries));
    const auto* bytes = dictionary.ValuesBuffer()->data();
    uint8_t* out = sink->values->mutable_data();
    int64_t* offsets = sink->offsets->MutableDataAs<int64_t>() + sink->length;
    int64_t end = sink->byte_length;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t index = indexes[static_cast<size_t>(i)];
      const int64_t length = from[index + 1] - from[index];
      CopyShortBytes(out + end, bytes + from[index], static_cast<size_t>(length));
      end += length;
      offsets[i + 1] = end;
    }
    sink->length += n;
    sink->byte_length = end;
    return Status::OK();
  }
  const int width = OutputWidth(leaf_);
  const uint8_t* in = dictionary.ValuesBuffer()->data();
  uint8_t* out = sink->values->mutable_data() + sink->length * width;
  auto gather = [&](auto width_constant) {
    constexpr int kWidth = decltype(width_constant)::value;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(out + i * kWidth, in + int64_t{indexes[static_cast<size_t>(i)]} * kWidth, kWidth);
    }
  };
  switch (width) {
    case 1:
      gather(std::integral_constant<int, 1>());
      break;
    case 4:
      gather(std::integral_constant<int, 4>());
      break;
    case 8:
      gather(std::integral_constant<int, 8>());
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + i * width, in + int64_t{indexes[static_cast<size_t>(i)]} * width,
                    static_cast<size_t>(width));
      }
      break;
  }
  sink->length += n;
  return Status::OK();
}

Result<ColumnPtr> ValueConverter::FinishSink(ValueSink* sink) const {
  if (IsByteArrayIdentity(leaf_)) {
    if (sink->values == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(sink->values, Buffer::AllocateUninitialized(0, pool_));
    }
    TRIBUTARY_RETURN_NOT_OK(sink->values->ResizeUninitialized(sink->byte_length));
    TRIBUTARY_RETURN_NOT_OK(sink->offsets->ResizeUninitialized((sink->length + 1) * 8));
    return Column::Make(leaf_.type, sink->length, nullptr, BufferPtr(std::move(sink->values)),
                        BufferPtr(std::move(sink->offsets)));
  }
  TRIBUTARY_RETURN_NOT_OK(sink->values->ResizeUninitialized(sink->length * OutputWidth(leaf_)));
  return Column::Make(leaf_.type, sink->length, nullptr, BufferPtr(std::move(sink->values)));
}

}  // namespace tributary::parquet

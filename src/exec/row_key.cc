#include "exec/row_key.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "common/short_copy.h"
#include "expr/nested_values.h"

namespace tributary::exec {

using columnar::Column;
using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;

namespace {

// -0.0 -> 0.0 and every NaN -> the quiet NaN, so equal values under Spark's rules have equal
// bits.
inline double NormalizeDouble(double v) {
  if (std::isnan(v)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return v == 0.0 ? 0.0 : v;
}
inline float NormalizeFloat(float v) {
  if (std::isnan(v)) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  return v == 0.0f ? 0.0f : v;
}

inline void PutU32(uint8_t* out, uint32_t v) {
  std::memcpy(out, &v, 4);
}

// ---- grouping encoding: nested values row by row ----

int64_t GroupingValueSize(const Column& column, int64_t row) {
  if (!column.IsValid(row)) {
    return 1 + column.Type()->ByteWidth();
  }
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return 1 + 4 + static_cast<int64_t>(column.BytesAt(row).size());
    case TypeId::kStruct: {
      int64_t size = 1;
      for (const ColumnPtr& child : column.Children()) {
        size += GroupingValueSize(*child, row);
      }
      return size;
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      int64_t size = 1 + 4;
      const int64_t* offsets = column.Offsets();
      for (int64_t k = offsets[row]; k < offsets[row + 1]; ++k) {
        for (const ColumnPtr& child : column.Children()) {
          size += GroupingValueSize(*child, k);
        }
      }
      return size;
    }
    default:
      return 1 + type.ByteWidth();
  }
}

// kNormalize: floats as grouping compares them (-0.0 -> 0.0, one NaN); without it their bits
// as they are (EncodeValues).
template <bool kNormalize>
uint8_t* EncodeGroupingValue(const Column& column, int64_t row, uint8_t* out) {
  if (!column.IsValid(row)) {
    const int width = column.Type()->ByteWidth();
    *out = 0;
    std::memset(out + 1, 0, static_cast<size_t>(width));
    return out + 1 + width;
  }
  *out++ = 1;
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view bytes = column.BytesAt(row);
      PutU32(out, static_cast<uint32_t>(bytes.size()));
      if (!bytes.empty()) {
        std::memcpy(out + 4, bytes.data(), bytes.size());
      }
      return out + 4 + bytes.size();
    }
    case TypeId::kStruct:
      for (const ColumnPtr& child : column.Children()) {
        out = EncodeGroupingValue<kNormalize>(*child, row, out);
      }
      return out;
    case TypeId::kArray:
    case TypeId::kMap: {
      const int64_t* offsets = column.Offsets();
      PutU32(out, static_cast<uint32_t>(offsets[row + 1] - offsets[row]));
      out += 4;
      if (kNormalize && type.Id() == TypeId::kMap && offsets[row + 1] - offsets[row] > 1) {
        // Spark 4 groups maps with the same entries in any order together (its grouping
        // sorts them, InsertMapSortInGroupingExpressions): entries in key order.
        const Column& keys = *column.Child(0);
        std::vector<int64_t> entries(static_cast<size_t>(offsets[row + 1] - offsets[row]));
        std::iota(entries.begin(), entries.end(), offsets[row]);
        std::sort(entries.begin(), entries.end(), [&keys](int64_t x, int64_t y) {
          return expr::CompareValues(keys, x, keys, y) < 0;
        });
        for (const int64_t k : entries) {
          out = EncodeGroupingValue<kNormalize>(keys, k, out);
          out = EncodeGroupingValue<kNormalize>(*column.Child(1), k, out);
        }
        return out;
      }
      for (int64_t k = offsets[row]; k < offsets[row + 1]; ++k) {
        for (const ColumnPtr& child : column.Children()) {
          out = EncodeGroupingValue<kNormalize>(*child, k, out);
        }
      }
      return out;
    }
    case TypeId::kFloat32: {
      const float raw = column.Values<float>()[row];
      const float v = kNormalize ? NormalizeFloat(raw) : raw;
      std::memcpy(out, &v, 4);
      return out + 4;
    }
    case TypeId::kFloat64: {
      const double raw = column.Values<double>()[row];
      const double v = kNormalize ? NormalizeDouble(raw) : raw;
      std::memcpy(out, &v, 8);
      return out + 8;
    }
    default: {
      const int width = type.ByteWidth();
      std::memcpy(out, column.ValuesBuffer()->data() + row * width, static_cast<size_t>(width));
      return out + width;
    }
  }
}

// ---- grouping encoding: flat columns, one typed loop per column ----

template <int kWidth>
void WriteFixedColumn(const Column& column, int64_t num_rows, uint8_t* bytes, int64_t* cursor) {
  const uint8_t* values = column.ValuesBuffer()->data();
  const uint8_t* validity = column.ValidityBits();
  for (int64_t i = 0; i < num_rows; ++i) {
    uint8_t* out = bytes + cursor[i];
    const bool valid = validity == nullptr || columnar::GetBit(validity, i);
    *out = valid ? 1 : 0;
    std::memcpy(out + 1, values + i * kWidth, kWidth);
    if (!valid) {
      std::memset(out + 1, 0, kWidth);
    }
    cursor[i] += 1 + kWidth;
  }
}

template <typename Float, typename Normalize>
void WriteFloatColumn(const Column& column, int64_t num_rows, uint8_t* bytes, int64_t* cursor,
                      Normalize normalize) {
  const Float* values = column.Values<Float>();
  const uint8_t* validity = column.ValidityBits();
  for (int64_t i = 0; i < num_rows; ++i) {
    uint8_t* out = bytes + cursor[i];
    const bool valid = validity == nullptr || columnar::GetBit(validity, i);
    *out = valid ? 1 : 0;
    const Float v = valid ? normalize(values[i]) : Float{0};
    std::memcpy(out + 1, &v, sizeof(Float));
    cursor[i] += 1 + static_cast<int64_t>(sizeof(Float));
  }
}

template <typename Float>
inline Float SameFloat(Float v) {
  return v;
}

template <bool kNormalize>
void WriteGroupingColumn(const Column& column, int64_t num_rows, uint8_t* bytes, int64_t* cursor) {
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kNull:
      for (int64_t i = 0; i < num_rows; ++i) {
        bytes[cursor[i]++] = 0;
      }
      return;
    case TypeId::kFloat32:
      WriteFloatColumn<float>(column, num_rows, bytes, cursor,
                              kNormalize ? NormalizeFloat : SameFloat<float>);
      return;
    case TypeId::kFloat64:
      WriteFloatColumn<double>(column, num_rows, bytes, cursor,
                               kNormalize ? NormalizeDouble : SameFloat<double>);
      return;
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint8_t* validity = column.ValidityBits();
      for (int64_t i = 0; i < num_rows; ++i) {
        uint8_t* out = bytes + cursor[i];
        if (validity != nullptr && !columnar::GetBit(validity, i)) {
          *out = 0;
          cursor[i] += 1;
          continue;
        }
        std::string_view value = column.BytesAt(i);
        *out = 1;
        PutU32(out + 1, static_cast<uint32_t>(value.size()));
        CopyShortBytes(out + 5, value.data(), value.size());
        cursor[i] += 5 + static_cast<int64_t>(value.size());
      }
      return;
    }
    case TypeId::kStruct:
      if (column.NullCount() == 0) {
        // Every row valid: its flag, then each field column by column (a window struct).
        for (int64_t i = 0; i < num_rows; ++i) {
          bytes[cursor[i]++] = 1;
        }
        for (const ColumnPtr& child : column.Children()) {
          WriteGroupingColumn<kNormalize>(*child, num_rows, bytes, cursor);
        }
        return;
      }
      [[fallthrough]];
    case TypeId::kArray:
    case TypeId::kMap:
      for (int64_t i = 0; i < num_rows; ++i) {
        cursor[i] = EncodeGroupingValue<kNormalize>(column, i, bytes + cursor[i]) - bytes;
      }
      return;
    default:
      switch (type.ByteWidth()) {
        case 1:
          WriteFixedColumn<1>(column, num_rows, bytes, cursor);
          return;
        case 2:
          WriteFixedColumn<2>(column, num_rows, bytes, cursor);
          return;
        case 4:
          WriteFixedColumn<4>(column, num_rows, bytes, cursor);
          return;
        case 8:
          WriteFixedColumn<8>(column, num_rows, bytes, cursor);
          return;
        default:
          WriteFixedColumn<16>(column, num_rows, bytes, cursor);
          return;
      }
  }
}

void AddGroupingSizes(const Column& column, int64_t num_rows, int64_t* sizes) {
  const DataType& type = *column.Type();
  const uint8_t* validity = column.ValidityBits();
  if (type.Id() == TypeId::kNull) {
    for (int64_t i = 0; i < num_rows; ++i) {
      sizes[i] += 1;
    }
  } else if (type.IsBinaryLike()) {
    const int64_t* offsets = column.Offsets();
    for (int64_t i = 0; i < num_rows; ++i) {
      const bool valid = validity == nullptr || columnar::GetBit(validity, i);
      sizes[i] += valid ? 5 + offsets[i + 1] - offsets[i] : 1;
    }
  } else if (type.Id() == TypeId::kStruct && column.NullCount() == 0) {
    for (int64_t i = 0; i < num_rows; ++i) {
      sizes[i] += 1;
    }
    for (const ColumnPtr& child : column.Children()) {
      AddGroupingSizes(*child, num_rows, sizes);
    }
  } else if (type.IsNested()) {
    for (int64_t i = 0; i < num_rows; ++i) {
      sizes[i] += GroupingValueSize(column, i);
    }
  } else {
    const int64_t width = type.ByteWidth();
    for (int64_t i = 0; i < num_rows; ++i) {
      sizes[i] += 1 + width;
    }
  }
}

// ---- ordering encoding ----

template <typename Unsigned>
inline uint8_t* PutBigEndian(Unsigned v, uint8_t* out) {
  for (int b = static_cast<int>(sizeof(Unsigned)) - 1; b >= 0; --b) {
    *out++ = static_cast<uint8_t>(v >> (8 * b));
  }
  return out;
}

template <typename Signed, typename Unsigned>
inline uint8_t* PutOrderedSigned(Signed v, uint8_t* out) {
  constexpr Unsigned kSign = Unsigned{1} << (8 * sizeof(Unsigned) - 1);
  return PutBigEndian<Unsigned>(static_cast<Unsigned>(v) ^ kSign, out);
}

template <typename Float, typename Unsigned>
inline uint8_t* PutOrderedFloat(Float v, uint8_t* out) {
  v = std::isnan(v) ? std::numeric_limits<Float>::quiet_NaN() : (v == 0 ? Float{0} : v);
  constexpr Unsigned kSign = Unsigned{1} << (8 * sizeof(Unsigned) - 1);
  Unsigned bits = std::bit_cast<Unsigned>(v);
  bits = (bits & kSign) != 0 ? ~bits : bits | kSign;
  return PutBigEndian<Unsigned>(bits, out);
}

int64_t OrderingPayloadSize(const Column& column, int64_t row) {
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view bytes = column.BytesAt(row);
      int64_t size = static_cast<int64_t>(bytes.size()) + 2;
      for (char c : bytes) {
        size += c == 0 ? 1 : 0;
      }
      return size;
    }
    case TypeId::kStruct: {
      int64_t size = 0;
      for (const ColumnPtr& child : column.Children()) {
        size += 1 + (child->IsValid(row) ? OrderingPayloadSize(*child, row) : 0);
      }
      return size;
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      int64_t size = 1;
      const int64_t* offsets = column.Offsets();
      for (int64_t k = offsets[row]; k < offsets[row + 1]; ++k) {
        size += 1;
        for (const ColumnPtr& child : column.Children()) {
          size += 1 + (child->IsValid(k) ? OrderingPayloadSize(*child, k) : 0);
        }
      }
      return size;
    }
    default:
      return type.ByteWidth();
  }
}

uint8_t* EncodeOrderingPayload(const Column& column, int64_t row, uint8_t* out);

// Nested elements order ascending with nulls first; a DESC key inverts them with the rest.
uint8_t* EncodeOrderingNested(const Column& column, int64_t row, uint8_t* out) {
  if (!column.IsValid(row)) {
    *out = 0;
    return out + 1;
  }
  *out++ = 1;
  return EncodeOrderingPayload(column, row, out);
}

uint8_t* EncodeOrderingPayload(const Column& column, int64_t row, uint8_t* out) {
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kBoolean:
      *out = column.Values<uint8_t>()[row];
      return out + 1;
    case TypeId::kInt8:
      return PutOrderedSigned<int8_t, uint8_t>(column.Values<int8_t>()[row], out);
    case TypeId::kInt16:
      return PutOrderedSigned<int16_t, uint16_t>(column.Values<int16_t>()[row], out);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return PutOrderedSigned<int32_t, uint32_t>(column.Values<int32_t>()[row], out);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return PutOrderedSigned<int64_t, uint64_t>(column.Values<int64_t>()[row], out);
    case TypeId::kDecimal: {
      Int128 v;
      std::memcpy(&v, column.ValuesBuffer()->data() + row * 16, 16);
      return PutOrderedSigned<Int128, unsigned __int128>(v, out);
    }
    case TypeId::kFloat32:
      return PutOrderedFloat<float, uint32_t>(column.Values<float>()[row], out);
    case TypeId::kFloat64:
      return PutOrderedFloat<double, uint64_t>(column.Values<double>()[row], out);
    case TypeId::kString:
    case TypeId::kBinary: {
      for (char c : column.BytesAt(row)) {
        *out++ = static_cast<uint8_t>(c);
        if (c == 0) {
          *out++ = 0xFF;
        }
      }
      *out++ = 0;
      *out++ = 0;
      return out;
    }
    case TypeId::kStruct:
      for (const ColumnPtr& child : column.Children()) {
        out = EncodeOrderingNested(*child, row, out);
      }
      return out;
    case TypeId::kArray:
    case TypeId::kMap: {
      const int64_t* offsets = column.Offsets();
      for (int64_t k = offsets[row]; k < offsets[row + 1]; ++k) {
        *out++ = 1;
        for (const ColumnPtr& child : column.Children()) {
          out = EncodeOrderingNested(*child, k, out);
        }
      }
      *out++ = 0;
      return out;
    }
    default:
      return out;
  }
}

// ---- decoding grouping keys ----

template <typename T>
inline T Load(const uint8_t* in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  return v;
}

const uint8_t* DecodeGroupingValue(ColumnBuilder& builder, const uint8_t* in) {
  const DataType& type = *builder.Type();
  if (*in++ == 0) {
    builder.AppendNull();
    return in + type.ByteWidth();
  }
  switch (type.Id()) {
    case TypeId::kBoolean:
      builder.AppendBoolean(*in != 0);
      return in + 1;
    case TypeId::kInt8:
      builder.AppendInt(Load<int8_t>(in));
      return in + 1;
    case TypeId::kInt16:
      builder.AppendInt(Load<int16_t>(in));
      return in + 2;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      builder.AppendInt(Load<int32_t>(in));
      return in + 4;
    case TypeId::kFloat32:
      builder.AppendDouble(Load<float>(in));
      return in + 4;
    case TypeId::kFloat64:
      builder.AppendDouble(Load<double>(in));
      return in + 8;
    case TypeId::kDecimal:
      builder.AppendDecimal(Load<Int128>(in));
      return in + 16;
    case TypeId::kCalendarInterval:
      builder.AppendCalendarInterval(Load<columnar::CalendarInterval>(in));
      return in + 16;
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint32_t size = Load<uint32_t>(in);
      builder.AppendBytes({reinterpret_cast<const char*>(in + 4), size});
      return in + 4 + size;
    }
    case TypeId::kStruct:
      for (int f = 0; f < static_cast<int>(type.Fields().size()); ++f) {
        in = DecodeGroupingValue(builder.Child(f), in);
      }
      builder.AppendStruct();
      return in;
    case TypeId::kArray:
    case TypeId::kMap: {
      const uint32_t count = Load<uint32_t>(in);
      in += 4;
      const int children = type.Id() == TypeId::kMap ? 2 : 1;
      for (uint32_t k = 0; k < count; ++k) {
        for (int c = 0; c < children; ++c) {
          in = DecodeGroupingValue(builder.Child(c), in);
        }
      }
      builder.AppendArray();
      return in;
    }
    default:
      builder.AppendInt(Load<int64_t>(in));
      return in + 8;
  }
}

// Turns the row sizes in offsets[1..n] into offsets, sizes the bytes and clears the null
// flags; returns where each row's bytes start.
std::vector<int64_t> LayOutRows(EncodedKeys* out) {
  const size_t n = out->offsets.size() - 1;
  for (size_t i = 1; i <= n; ++i) {
    out->offsets[i] += out->offsets[i - 1];
  }
  out->bytes.resize(static_cast<size_t>(out->offsets[n]));
  out->has_null.assign(n, 0);
  return {out->offsets.begin(), out->offsets.end() - 1};
}

// Key equality without a call to memcmp: keys are mostly a few words long.
inline bool BytesEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  const char* x = a.data();
  const char* y = b.data();
  size_t n = a.size();
  while (n >= 8) {
    uint64_t u;
    uint64_t v;
    std::memcpy(&u, x, 8);
    std::memcpy(&v, y, 8);
    if (u != v) {
      return false;
    }
    x += 8;
    y += 8;
    n -= 8;
  }
  while (n > 0) {
    if (*x++ != *y++) {
      return false;
    }
    --n;
  }
  return true;
}

}  // namespace

Result<RecordBatchPtr> NextSlice(const SchemaPtr& schema, const std::vector<ColumnPtr>& columns,
                                 int64_t rows, int64_t* emitted, MemoryPool* pool) {
  if (*emitted >= rows) {
    return RecordBatchPtr{};
  }
  if (*emitted == 0 && rows <= kTargetBatchRows) {
    *emitted = rows;
    return columnar::RecordBatch::Make(schema, rows, columns);
  }
  const int64_t count = std::min(kTargetBatchRows, rows - *emitted);
  std::vector<int64_t> indices(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    indices[static_cast<size_t>(i)] = *emitted + i;
  }
  std::vector<ColumnPtr> slices;
  for (const ColumnPtr& column : columns) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr slice, columnar::Take(*column, indices, pool));
    slices.push_back(std::move(slice));
  }
  *emitted += count;
  return columnar::RecordBatch::Make(schema, count, std::move(slices));
}

Result<ColumnPtr> TakeOrNull(const Column& column, std::span<const int64_t> indices,
                             MemoryPool* pool) {
  const auto n = static_cast<int64_t>(indices.size());
  int64_t missing = 0;
  for (int64_t index : indices) {
    missing += index < 0 ? 1 : 0;
  }
  if (missing == 0) {
    return columnar::Take(column, indices, pool);
  }
  if (missing == n || column.Length() == 0) {
    return Column::MakeAllNull(column.Type(), n, pool);
  }
  std::vector<int64_t> clamped(indices.begin(), indices.end());
  for (int64_t& index : clamped) {
    index = index < 0 ? 0 : index;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken, columnar::Take(column, clamped, pool));
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                            columnar::Buffer::Allocate(columnar::BitmapBytes(n), pool));
  uint8_t* bits = validity->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    columnar::SetBitTo(bits, i, indices[static_cast<size_t>(i)] >= 0 && taken->IsValid(i));
  }
  return Column::Make(taken->Type(), n, std::move(validity), taken->ValuesBuffer(),
                      taken->OffsetsBuffer(), taken->Children());
}

uint64_t HashBytes(const uint8_t* data, size_t size) {
  constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ULL;
  constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4FULL;
  uint64_t h = kMul1 ^ (static_cast<uint64_t>(size) * kMul2);
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    h = std::rotl(h ^ (word * kMul2), 29) * kMul1;
    data += 8;
    size -= 8;
  }
  if (size > 0) {
    uint64_t word = 0;
    for (size_t k = 0; k < size; ++k) {
      word |= static_cast<uint64_t>(data[k]) << (8 * k);
    }
    h = std::rotl(h ^ (word * kMul2), 29) * kMul1;
  }
  // Final avalanche so that the low bits (the slot index) depend on every input bit.
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

namespace {

template <bool kNormalize>
void EncodeRows(std::span<const ColumnPtr> columns, int64_t num_rows, EncodedKeys* out) {
  const auto n = static_cast<size_t>(num_rows);
  out->offsets.assign(n + 1, 0);
  int64_t* sizes = out->offsets.data() + 1;
  for (const ColumnPtr& column : columns) {
    AddGroupingSizes(*column, num_rows, sizes);
  }
  std::vector<int64_t> cursor = LayOutRows(out);
  for (const ColumnPtr& column : columns) {
    WriteGroupingColumn<kNormalize>(*column, num_rows, out->bytes.data(), cursor.data());
    if (column->NullCount() > 0) {
      for (int64_t i = 0; i < num_rows; ++i) {
        out->has_null[static_cast<size_t>(i)] |= column->IsNull(i) ? 1 : 0;
      }
    }
  }
  out->hashes.resize(n);
  const uint8_t* bytes = out->bytes.data();
  const int64_t* offsets = out->offsets.data();
  for (size_t i = 0; i < n; ++i) {
    out->hashes[i] =
        HashBytes(bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
}

}  // namespace

void EncodeGroupingKeys(std::span<const ColumnPtr> columns, int64_t num_rows, EncodedKeys* out) {
  EncodeRows<true>(columns, num_rows, out);
}

void EncodeValues(std::span<const ColumnPtr> columns, int64_t num_rows, EncodedKeys* out) {
  EncodeRows<false>(columns, num_rows, out);
}

void EncodeOrderingKeys(std::span<const ColumnPtr> columns,
                        std::span<const OrderingDirection> directions, int64_t num_rows,
                        EncodedKeys* out) {
  const auto n = static_cast<size_t>(num_rows);
  out->offsets.assign(n + 1, 0);
  int64_t* sizes = out->offsets.data() + 1;
  for (const ColumnPtr& column : columns) {
    const int width = column->Type()->ByteWidth();
    const bool fixed = width > 0 || column->Type()->Id() == TypeId::kNull;
    for (int64_t i = 0; i < num_rows; ++i) {
      sizes[i] += 1 + (column->IsValid(i) ? (fixed ? width : OrderingPayloadSize(*column, i)) : 0);
    }
  }
  std::vector<int64_t> cursor = LayOutRows(out);
  uint8_t* bytes = out->bytes.data();
  for (size_t c = 0; c < columns.size(); ++c) {
    const Column& column = *columns[c];
    const OrderingDirection direction = directions[c];
    const uint8_t null_flag = direction.nulls_first ? 0 : 2;
    for (int64_t i = 0; i < num_rows; ++i) {
      uint8_t* start = bytes + cursor[static_cast<size_t>(i)];
      if (!column.IsValid(i)) {
        *start = null_flag;
        cursor[static_cast<size_t>(i)] += 1;
        out->has_null[static_cast<size_t>(i)] = 1;
        continue;
      }
      *start = 1;
      uint8_t* end = EncodeOrderingPayload(column, i, start + 1);
      if (!direction.ascending) {
        for (uint8_t* p = start + 1; p < end; ++p) {
          *p = static_cast<uint8_t>(~*p);
        }
      }
      cursor[static_cast<size_t>(i)] = end - bytes;
    }
  }
  out->hashes.clear();
}

Result<size_t> MeasureGroupingValue(const DataType& type, std::string_view bytes) {
  const auto truncated = [&] {
    return Status::Corruption(fmt::format("grouping-encoded {} value truncated ({} bytes left)",
                                          type.ToString(), bytes.size()));
  };
  if (bytes.empty()) {
    return truncated();
  }
  const auto fixed = [&](size_t width) -> Result<size_t> {
    if (bytes.size() < 1 + width) {
      return truncated();
    }
    return 1 + width;
  };
  if (bytes[0] == 0) {
    return fixed(static_cast<size_t>(type.ByteWidth()));
  }
  if (bytes[0] != 1) {
    return Status::Corruption(fmt::format("grouping-encoded {} value has null flag {}",
                                          type.ToString(),
                                          static_cast<int>(static_cast<uint8_t>(bytes[0]))));
  }
  switch (type.Id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return fixed(1);
    case TypeId::kInt16:
      return fixed(2);
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat32:
      return fixed(4);
    case TypeId::kFloat64:
      return fixed(8);
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return fixed(16);
    case TypeId::kString:
    case TypeId::kBinary: {
      if (bytes.size() < 5) {
        return truncated();
      }
      const auto size = Load<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 1);
      if (bytes.size() - 5 < size) {
        return truncated();
      }
      return 5 + static_cast<size_t>(size);
    }
    case TypeId::kStruct: {
      size_t used = 1;
      for (const auto& field : type.Fields()) {
        TRIBUTARY_ASSIGN_OR_RAISE(size_t size,
                                  MeasureGroupingValue(*field.Type(), bytes.substr(used)));
        used += size;
      }
      return used;
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      if (bytes.size() < 5) {
        return truncated();
      }
      const auto count = Load<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 1);
      size_t used = 5;
      for (uint32_t k = 0; k < count; ++k) {
        const DataTypePtr children[] = {
            type.Id() == TypeId::kMap ? type.KeyType() : type.ElementType(), type.ValueType()};
        for (int c = 0; c < (type.Id() == TypeId::kMap ? 2 : 1); ++c) {
          TRIBUTARY_ASSIGN_OR_RAISE(size_t size,
                                    MeasureGroupingValue(*children[c], bytes.substr(used)));
          used += size;
        }
      }
      return used;
    }
    default:
      return fixed(8);
  }
}

Status ValidateGroupingKey(std::span<const DataTypePtr> types, std::string_view key) {
  size_t used = 0;
  for (const DataTypePtr& type : types) {
    TRIBUTARY_ASSIGN_OR_RAISE(size_t size, MeasureGroupingValue(*type, key.substr(used)));
    used += size;
  }
  if (used != key.size()) {
    return Status::Corruption(fmt::format("grouping-encoded key has {} bytes after its {} values",
                                          key.size() - used, types.size()));
  }
  return Status::OK();
}

Result<std::vector<ColumnPtr>> DecodeGroupingKeys(std::span<const DataTypePtr> types,
                                                  std::span<const std::string_view> keys,
                                                  MemoryPool* pool) {
  std::vector<std::unique_ptr<ColumnBuilder>> builders;
  for (const DataTypePtr& type : types) {
    builders.push_back(std::make_unique<ColumnBuilder>(type, pool));
    builders.back()->Reserve(static_cast<int64_t>(keys.size()));
  }
  for (std::string_view key : keys) {
    const auto* in = reinterpret_cast<const uint8_t*>(key.data());
    for (auto& builder : builders) {
      in = DecodeGroupingValue(*builder, in);
    }
  }
  std::vector<ColumnPtr> columns;
  for (auto& builder : builders) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return columns;
}

GroupTable::GroupTable(MemoryPool* pool)
    : pool_(pool), slots_(pool), arena_(pool), key_offsets_(pool) {}

int64_t GroupTable::Probe(std::string_view key, uint64_t hash) const {
  const uint64_t tag = hash >> 32;
  uint64_t index = hash & mask_;
  while (true) {
    const uint64_t slot = slots_[static_cast<int64_t>(index)];
    if (slot == 0) {
      return -static_cast<int64_t>(index) - 1;
    }
    if ((slot >> 32) == tag) {
      const int64_t group = static_cast<int64_t>(slot & 0xFFFFFFFFu) - 1;
      if (BytesEqual(KeyOf(group), key)) {
        return group;
      }
    }
    index = (index + 1) & mask_;
  }
}

Status GroupTable::Reserve(int64_t groups) {
  while ((groups + 1) * 2 > slots_.size()) {
    TRIBUTARY_RETURN_NOT_OK(Grow());
  }
  return Status::OK();
}

Status GroupTable::Grow() {
  const int64_t capacity = slots_.size() == 0 ? 1024 : slots_.size() * 2;
  PoolArray<uint64_t> old = std::move(slots_);
  slots_ = PoolArray<uint64_t>(pool_);
  TRIBUTARY_RETURN_NOT_OK(slots_.Resize(capacity));
  mask_ = static_cast<uint64_t>(capacity - 1);
  for (int64_t s = 0; s < old.size(); ++s) {
    const uint64_t slot = old[s];
    if (slot == 0) {
      continue;
    }
    std::string_view key = KeyOf(static_cast<int64_t>(slot & 0xFFFFFFFFu) - 1);
    uint64_t index = HashBytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()) & mask_;
    while (slots_[static_cast<int64_t>(index)] != 0) {
      index = (index + 1) & mask_;
    }
    slots_[static_cast<int64_t>(index)] = slot;
  }
  return Status::OK();
}

Status GroupTable::FindOrInsert(const EncodedKeys& keys, int32_t* group_ids) {
  if (key_offsets_.size() == 0) {
    TRIBUTARY_RETURN_NOT_OK(key_offsets_.Resize(1));
  }
  const int64_t rows = keys.NumRows();
  for (int64_t i = 0; i < rows; ++i) {
    if (i + kPrefetchDistance < rows && slots_.size() > 0) {
      __builtin_prefetch(&slots_[static_cast<int64_t>(
          keys.hashes[static_cast<size_t>(i + kPrefetchDistance)] & mask_)]);
    }
    if ((num_groups_ + 1) * 2 > slots_.size()) {
      TRIBUTARY_RETURN_NOT_OK(Grow());
    }
    const uint64_t hash = keys.hashes[static_cast<size_t>(i)];
    std::string_view key = keys.Key(i);
    const int64_t found = Probe(key, hash);
    if (found >= 0) {
      group_ids[i] = static_cast<int32_t>(found);
      continue;
    }
    if (num_groups_ >= INT32_MAX - 1) {
      return Status::NotImplemented("more than 2^31 groups in one hash table");
    }
    const auto key_size = static_cast<int64_t>(key.size());
    if (arena_used_ + key_size > arena_.size()) {
      TRIBUTARY_RETURN_NOT_OK(arena_.Resize(std::max(arena_used_ + key_size, arena_.size() * 2)));
    }
    if (key_size > 0) {
      std::memcpy(arena_.data() + arena_used_, key.data(), key.size());
    }
    arena_used_ += key_size;
    TRIBUTARY_RETURN_NOT_OK(key_offsets_.Resize(num_groups_ + 2));
    key_offsets_[num_groups_ + 1] = arena_used_;
    if (num_groups_ == 0) {
      uniform_key_size_ = key_size;
    } else if (key_size != uniform_key_size_) {
      uniform_key_size_ = -1;
    }
    slots_[-found - 1] = (hash >> 32 << 32) | static_cast<uint64_t>(num_groups_ + 1);
    group_ids[i] = static_cast<int32_t>(num_groups_);
    ++num_groups_;
  }
  return Status::OK();
}

void GroupTable::Find(const EncodedKeys& keys, bool skip_nulls, int32_t* group_ids) const {
  const int64_t rows = keys.NumRows();
  for (int64_t i = 0; i < rows; ++i) {
    if (i + kPrefetchDistance < rows && num_groups_ > 0) {
      __builtin_prefetch(&slots_[static_cast<int64_t>(
          keys.hashes[static_cast<size_t>(i + kPrefetchDistance)] & mask_)]);
    }
    if (num_groups_ == 0 || (skip_nulls && keys.has_null[static_cast<size_t>(i)] != 0)) {
      group_ids[i] = -1;
      continue;
    }
    const int64_t found = Probe(keys.Key(i), keys.hashes[static_cast<size_t>(i)]);
    group_ids[i] = found >= 0 ? static_cast<int32_t>(found) : -1;
  }
}

}  // namespace tributary::exec

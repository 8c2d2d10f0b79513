#include "expr/row_gather.h"

#include <cstring>

#include "columnar/take.h"

namespace tributary::expr {

using columnar::Column;
using columnar::ColumnBuilder;
using columnar::ColumnPtr;
using columnar::TypeId;

void AppendValueFrom(const Column& column, int64_t row, ColumnBuilder* builder) {
  if (column.IsNull(row)) {
    builder->AppendNull();
    return;
  }
  switch (column.Type()->Id()) {
    case TypeId::kNull:
      builder->AppendNull();
      return;
    case TypeId::kBoolean:
      builder->AppendBoolean(column.Values<uint8_t>()[row] != 0);
      return;
    case TypeId::kInt8:
      builder->AppendInt(column.Values<int8_t>()[row]);
      return;
    case TypeId::kInt16:
      builder->AppendInt(column.Values<int16_t>()[row]);
      return;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      builder->AppendInt(column.Values<int32_t>()[row]);
      return;
    case TypeId::kFloat32:
      builder->AppendDouble(column.Values<float>()[row]);
      return;
    case TypeId::kFloat64:
      builder->AppendDouble(column.Values<double>()[row]);
      return;
    case TypeId::kDecimal:
      builder->AppendDecimal(column.Values<columnar::Int128>()[row]);
      return;
    case TypeId::kCalendarInterval:
      builder->AppendCalendarInterval(column.Values<columnar::CalendarInterval>()[row]);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      builder->AppendBytes(column.BytesAt(row));
      return;
    case TypeId::kStruct:
      for (int i = 0; i < column.NumChildren(); ++i) {
        AppendValueFrom(*column.Child(i), row, &builder->Child(i));
      }
      builder->AppendStruct();
      return;
    case TypeId::kArray:
    case TypeId::kMap: {
      const int64_t* offsets = column.Offsets();
      for (int64_t j = offsets[row]; j < offsets[row + 1]; ++j) {
        for (int c = 0; c < column.NumChildren(); ++c) {
          AppendValueFrom(*column.Child(c), j, &builder->Child(c));
        }
      }
      builder->AppendArray();
      return;
    }
    default:
      builder->AppendInt(column.Values<int64_t>()[row]);
      return;
  }
}

Result<ColumnPtr> Interleave(const columnar::DataTypePtr& type, std::span<const ColumnPtr> sources,
                             std::span<const int32_t> source, std::span<const int64_t> source_row,
                             columnar::MemoryPool* pool) {
  const auto length = static_cast<int64_t>(source.size());
  const int width = type->ByteWidth();
  if (width > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(length * width, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(length), pool));
    uint8_t* out = values->mutable_data();
    uint8_t* valid = validity->mutable_data();
    for (int64_t i = 0; i < length; ++i) {
      const int32_t s = source[static_cast<size_t>(i)];
      const bool is_valid = s >= 0 && sources[static_cast<size_t>(s)]->IsValid(source_row[i]);
      columnar::SetBitTo(valid, i, is_valid);
      if (is_valid) {
        const Column& from = *sources[static_cast<size_t>(s)];
        std::memcpy(out + i * width, from.ValuesBuffer()->data() + source_row[i] * width,
                    static_cast<size_t>(width));
      }
    }
    return Column::Make(type, length, std::move(validity), std::move(values));
  }
  ColumnBuilder builder(type, pool);
  for (int64_t i = 0; i < length; ++i) {
    const int32_t s = source[static_cast<size_t>(i)];
    if (s < 0) {
      builder.AppendNull();
    } else {
      AppendValueFrom(*sources[static_cast<size_t>(s)], source_row[i], &builder);
    }
  }
  return builder.Finish();
}

}  // namespace tributary::expr

#include "columnar/take.h"

#include <cstring>

#include <fmt/format.h>

namespace tributary::columnar {
namespace {

Result<BufferPtr> TakeValidity(const Column& column, std::span<const int64_t> indices,
                               MemoryPool* pool) {
  const uint8_t* bits = column.ValidityBits();
  if (bits == nullptr) {
    return BufferPtr();
  }
  const auto n = static_cast<int64_t>(indices.size());
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity, Buffer::Allocate(BitmapBytes(n), pool));
  uint8_t* out = validity->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    SetBitTo(out, i, GetBit(bits, indices[static_cast<size_t>(i)]));
  }
  return BufferPtr(std::move(validity));
}

template <int kWidth>
void GatherFixed(const uint8_t* values, std::span<const int64_t> indices, uint8_t* out) {
  for (size_t i = 0; i < indices.size(); ++i) {
    std::memcpy(out + i * kWidth, values + indices[i] * kWidth, kWidth);
  }
}

// Offsets of the gathered ranges plus the child/byte positions they come from.
Result<BufferPtr> TakeOffsets(const Column& column, std::span<const int64_t> indices,
                              MemoryPool* pool, std::vector<int64_t>* sources) {
  const int64_t* offsets = column.Offsets();
  // Every entry is written below: no zero-filling first.
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::AllocateUninitialized(
                                          (static_cast<int64_t>(indices.size()) + 1) * 8, pool));
  int64_t* out_offsets = out->MutableDataAs<int64_t>();
  int64_t total = 0;
  out_offsets[0] = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    total += offsets[indices[i] + 1] - offsets[indices[i]];
    out_offsets[i + 1] = total;
  }
  if (sources != nullptr) {
    sources->reserve(static_cast<size_t>(total));
    for (int64_t index : indices) {
      for (int64_t k = offsets[index]; k < offsets[index + 1]; ++k) {
        sources->push_back(k);
      }
    }
  }
  return BufferPtr(std::move(out));
}

// Rows begin..begin+count-1 of `column`, sharing its buffers when that is all of it.
Result<ColumnPtr> SliceRows(const ColumnPtr& column, int64_t begin, int64_t count,
                            MemoryPool* pool) {
  if (begin == 0 && count == column->Length()) {
    return column;
  }
  std::vector<int64_t> indices(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    indices[static_cast<size_t>(i)] = begin + i;
  }
  return Take(*column, indices, pool);
}

// Children (and, for arrays and maps, rebased offsets) of nested `columns` one after the
// other. A struct's children may be longer than the struct and a list's elements may start
// past 0: only the rows the parents refer to are concatenated.
Status ConcatenateNested(std::span<const ColumnPtr> columns, int64_t length, MemoryPool* pool,
                         BufferPtr* offsets, std::vector<ColumnPtr>* children) {
  const DataTypePtr& type = columns[0]->Type();
  const int num_children = columns[0]->NumChildren();
  const bool has_offsets = type->Id() != TypeId::kStruct;
  if (has_offsets) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto out_offsets,
                              Buffer::AllocateUninitialized((length + 1) * 8, pool));
    int64_t* offs = out_offsets->MutableDataAs<int64_t>();
    int64_t row = 0;
    int64_t base = 0;
    offs[0] = 0;
    for (const ColumnPtr& column : columns) {
      const int64_t* in = column->Offsets();
      for (int64_t i = 1; i <= column->Length(); ++i) {
        offs[++row] = base + in[i] - in[0];
      }
      base += in[column->Length()] - in[0];
    }
    *offsets = std::move(out_offsets);
  }
  for (int c = 0; c < num_children; ++c) {
    std::vector<ColumnPtr> pieces;
    for (const ColumnPtr& column : columns) {
      const int64_t begin = has_offsets ? column->Offsets()[0] : 0;
      const int64_t count =
          has_offsets ? column->Offsets()[column->Length()] - begin : column->Length();
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr piece, SliceRows(column->Child(c), begin, count, pool));
      pieces.push_back(std::move(piece));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr child, Concatenate(pieces, pool));
    children->push_back(std::move(child));
  }
  return Status::OK();
}

}  // namespace

Result<ColumnPtr> Take(const Column& column, std::span<const int64_t> indices, MemoryPool* pool) {
  const int64_t length = column.Length();
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= length) {
      return Status::InvalidArgument(
          fmt::format("take: index {} at position {} is outside 0..{}", indices[i], i, length - 1));
    }
  }
  const auto n = static_cast<int64_t>(indices.size());
  const DataTypePtr& type = column.Type();
  TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, TakeValidity(column, indices, pool));
  BufferPtr values;
  BufferPtr offsets;
  std::vector<ColumnPtr> children;
  switch (type->Id()) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      TRIBUTARY_ASSIGN_OR_RAISE(offsets, TakeOffsets(column, indices, pool, nullptr));
      const int64_t* out_offsets = offsets->DataAs<int64_t>();
      TRIBUTARY_ASSIGN_OR_RAISE(auto bytes, Buffer::AllocateUninitialized(out_offsets[n], pool));
      for (int64_t i = 0; i < n; ++i) {
        std::string_view value = column.BytesAt(indices[static_cast<size_t>(i)]);
        if (!value.empty()) {
          std::memcpy(bytes->mutable_data() + out_offsets[i], value.data(), value.size());
        }
      }
      values = std::move(bytes);
      break;
    }
    case TypeId::kStruct:
      for (const ColumnPtr& child : column.Children()) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto taken, Take(*child, indices, pool));
        children.push_back(std::move(taken));
      }
      break;
    case TypeId::kArray:
    case TypeId::kMap: {
      std::vector<int64_t> sources;
      TRIBUTARY_ASSIGN_OR_RAISE(offsets, TakeOffsets(column, indices, pool, &sources));
      for (const ColumnPtr& child : column.Children()) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto taken, Take(*child, sources, pool));
        children.push_back(std::move(taken));
      }
      break;
    }
    default: {
      const int width = type->ByteWidth();
      TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::AllocateUninitialized(n * width, pool));
      const uint8_t* in = column.ValuesBuffer()->data();
      switch (width) {
        case 1:
          GatherFixed<1>(in, indices, out->mutable_data());
          break;
        case 2:
          GatherFixed<2>(in, indices, out->mutable_data());
          break;
        case 4:
          GatherFixed<4>(in, indices, out->mutable_data());
          break;
        case 8:
          GatherFixed<8>(in, indices, out->mutable_data());
          break;
        default:
          GatherFixed<16>(in, indices, out->mutable_data());
          break;
      }
      values = std::move(out);
      break;
    }
  }
  return Column::Make(type, n, std::move(validity), std::move(values), std::move(offsets),
                      std::move(children));
}

Result<std::vector<int64_t>> SelectedRows(const Column& mask) {
  if (mask.Type()->Id() != TypeId::kBoolean) {
    return Status::InvalidArgument(
        fmt::format("filter mask must be boolean, got {}", mask.Type()->ToString()));
  }
  std::vector<int64_t> selected;
  const uint8_t* values = mask.Values<uint8_t>();
  const uint8_t* bits = mask.ValidityBits();
  for (int64_t i = 0; i < mask.Length(); ++i) {
    if (values[i] != 0 && (bits == nullptr || GetBit(bits, i))) {
      selected.push_back(i);
    }
  }
  return selected;
}

Result<RecordBatchPtr> TakeRows(const RecordBatch& batch, std::span<const int64_t> rows,
                                MemoryPool* pool) {
  std::vector<ColumnPtr> columns;
  columns.reserve(static_cast<size_t>(batch.NumColumns()));
  for (const ColumnPtr& column : batch.Columns()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto taken, Take(*column, rows, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.Schema(), static_cast<int64_t>(rows.size()), std::move(columns));
}

Result<RecordBatchPtr> Filter(const RecordBatch& batch, const Column& mask, MemoryPool* pool) {
  if (mask.Length() != batch.NumRows()) {
    return Status::InvalidArgument(
        fmt::format("filter mask has {} rows, batch has {}", mask.Length(), batch.NumRows()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto selected, SelectedRows(mask));
  return TakeRows(batch, selected, pool);
}

Result<ColumnPtr> Concatenate(std::span<const ColumnPtr> columns, MemoryPool* pool) {
  if (columns.empty()) {
    return Status::InvalidArgument("concatenate needs at least one column");
  }
  if (columns.size() == 1) {
    return columns[0];
  }
  const DataTypePtr& type = columns[0]->Type();
  int64_t length = 0;
  int64_t nulls = 0;
  int64_t bytes = 0;
  for (const ColumnPtr& column : columns) {
    if (!column->Type()->SameShape(*type)) {
      return Status::InvalidArgument(fmt::format("concatenate: {} column among {} columns",
                                                 column->Type()->ToString(), type->ToString()));
    }
    length += column->Length();
    nulls += column->NullCount();
    if (type->IsBinaryLike()) {
      bytes += column->Offsets()[column->Length()] - column->Offsets()[0];
    }
  }
  BufferPtr validity;
  if (nulls > 0 && type->Id() != TypeId::kNull) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(BitmapBytes(length), pool));
    int64_t row = 0;
    for (const ColumnPtr& column : columns) {
      for (int64_t i = 0; i < column->Length(); ++i) {
        SetBitTo(bits->mutable_data(), row++, column->IsValid(i));
      }
    }
    validity = std::move(bits);
  }
  BufferPtr values;
  BufferPtr offsets;
  if (const int width = type->ByteWidth(); width > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto out, Buffer::AllocateUninitialized(length * width, pool));
    int64_t pos = 0;
    for (const ColumnPtr& column : columns) {
      const int64_t size = column->Length() * width;
      if (size > 0) {
        std::memcpy(out->mutable_data() + pos, column->ValuesBuffer()->data(),
                    static_cast<size_t>(size));
      }
      pos += size;
    }
    values = std::move(out);
  } else if (type->IsBinaryLike()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto out_offsets,
                              Buffer::AllocateUninitialized((length + 1) * 8, pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto out_bytes, Buffer::AllocateUninitialized(bytes, pool));
    int64_t* offs = out_offsets->MutableDataAs<int64_t>();
    int64_t row = 0;
    int64_t pos = 0;
    offs[0] = 0;
    for (const ColumnPtr& column : columns) {
      const int64_t* in = column->Offsets();
      const int64_t size = in[column->Length()] - in[0];
      if (size > 0) {
        std::memcpy(out_bytes->mutable_data() + pos, column->ValuesBuffer()->data() + in[0],
                    static_cast<size_t>(size));
      }
      for (int64_t i = 1; i <= column->Length(); ++i) {
        offs[++row] = pos + in[i] - in[0];
      }
      pos += size;
    }
    values = std::move(out_bytes);
    offsets = std::move(out_offsets);
  }
  std::vector<ColumnPtr> children;
  if (type->IsNested()) {
    TRIBUTARY_RETURN_NOT_OK(ConcatenateNested(columns, length, pool, &offsets, &children));
  }
  return Column::Make(type, length, std::move(validity), std::move(values), std::move(offsets),
                      std::move(children));
}

}  // namespace tributary::columnar

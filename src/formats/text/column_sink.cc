#include "formats/text/column_sink.h"

#include <algorithm>
#include <cstring>

namespace tributary::text {

using columnar::Buffer;
using columnar::TypeId;

ColumnSink::ColumnSink(columnar::DataTypePtr type, columnar::MemoryPool* pool)
    : type_(std::move(type)), pool_(pool), width_(type_->ByteWidth()) {
  switch (type_->Id()) {
    case TypeId::kNull:
      kind_ = Kind::kNull;
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      kind_ = Kind::kBytes;
      break;
    case TypeId::kArray:
      kind_ = Kind::kList;
      children_.push_back(std::make_unique<ColumnSink>(type_->ElementType(), pool_));
      break;
    case TypeId::kMap:
      kind_ = Kind::kList;
      children_.push_back(std::make_unique<ColumnSink>(type_->KeyType(), pool_));
      children_.push_back(std::make_unique<ColumnSink>(type_->ValueType(), pool_));
      break;
    case TypeId::kStruct:
      kind_ = Kind::kStruct;
      for (const columnar::Field& field : type_->Fields()) {
        children_.push_back(std::make_unique<ColumnSink>(field.Type(), pool_));
      }
      break;
    default:
      kind_ = Kind::kFixed;
      break;
  }
  for (Region* region : {&validity_, &values_, &offsets_}) {
    region->status = &status_;
    region->pool = pool_;
  }
  Reset();
}

void ColumnSink::Reset() {
  length_ = 0;
  null_count_ = 0;
  for (Region* region : {&validity_, &values_, &offsets_}) {
    region->buffer.reset();
    region->data = nullptr;
    region->size = 0;
    region->capacity = 0;
  }
  if (kind_ == Kind::kBytes || kind_ == Kind::kList) {
    AppendOffset(0);
  }
}

bool ColumnSink::Region::Grow(int64_t needed) {
  if (!status->ok()) {
    return false;
  }
  Status grown = Reallocate(std::max<int64_t>({needed, capacity * 2, 4096}));
  if (!grown.ok()) {
    *status = std::move(grown);
    return false;
  }
  return true;
}

Status ColumnSink::Region::Reallocate(int64_t new_capacity) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Buffer> fresh,
                            Buffer::AllocateUninitialized(new_capacity, pool));
  if (size > 0) {
    std::memcpy(fresh->mutable_data(), data, static_cast<size_t>(size));
  }
  buffer = std::move(fresh);
  data = buffer->mutable_data();
  capacity = new_capacity;
  return Status::OK();
}

void ColumnSink::Region::Reserve(int64_t rows, int64_t rows_so_far) {
  if (size == 0 || rows_so_far <= 0 || !status->ok()) {
    return;
  }
  // Per-row sizes vary (strings): 1/16 more than the average so far absorbs most of that, and
  // an append past it grows the buffer as usual.
  const int64_t expected = size * rows / rows_so_far;
  const int64_t target = size + expected + expected / 16 + 64;
  if (target > capacity) {
    // Only a forecast: when it cannot be had, appends grow the buffer and report what fails.
    Status ignored = Reallocate(target);
    (void)ignored;
  }
}

void ColumnSink::Reserve(int64_t rows) {
  if (rows <= 0 || length_ == 0 || !status_.ok()) {
    return;
  }
  validity_.Reserve(rows, length_);
  values_.Reserve(rows, length_);
  offsets_.Reserve(rows, length_);
  for (auto& child : children_) {
    // A struct's children have a row per row; a list's elements, per row as many as so far.
    child->Reserve(kind_ == Kind::kStruct ? rows : child->Length() * rows / length_);
  }
}

Result<columnar::BufferPtr> ColumnSink::Region::Take() {
  if (buffer == nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(buffer, Buffer::Allocate(size, pool));
  } else {
    TRIBUTARY_RETURN_NOT_OK(buffer->Resize(size));
  }
  return columnar::BufferPtr(std::move(buffer));
}

Result<columnar::ColumnPtr> ColumnSink::Finish() {
  std::vector<columnar::ColumnPtr> children;
  for (auto& child : children_) {
    auto column = child->Finish();
    if (!column.ok() && status_.ok()) {
      status_ = column.status();
    }
    if (column.ok()) {
      children.push_back(column.MoveValueUnsafe());
    }
  }
  if (!status_.ok()) {
    Status failed = std::move(status_);
    status_ = Status::OK();
    Reset();
    return failed.WithContext("building a " + type_->ToString() + " column");
  }
  columnar::BufferPtr validity;
  columnar::BufferPtr values;
  columnar::BufferPtr offsets;
  if (null_count_ > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, validity_.Take());
  }
  if (kind_ == Kind::kFixed || kind_ == Kind::kBytes) {
    TRIBUTARY_ASSIGN_OR_RAISE(values, values_.Take());
  }
  if (kind_ == Kind::kBytes || kind_ == Kind::kList) {
    TRIBUTARY_ASSIGN_OR_RAISE(offsets, offsets_.Take());
  }
  auto column = columnar::Column::Make(type_, length_, std::move(validity), std::move(values),
                                       std::move(offsets), std::move(children));
  Reset();
  return column;
}

}  // namespace tributary::text

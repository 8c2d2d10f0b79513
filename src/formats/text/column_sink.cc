#include "formats/text/column_sink.h"

#include <algorithm>

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
  const int64_t new_capacity = std::max<int64_t>({needed, capacity * 2, 4096});
  Status st;
  if (buffer == nullptr) {
    auto allocated = Buffer::Allocate(new_capacity, pool);
    if (allocated.ok()) {
      buffer = allocated.MoveValueUnsafe();
    } else {
      st = allocated.status();
    }
  } else {
    st = buffer->Resize(new_capacity);
  }
  if (!st.ok()) {
    *status = st;
    return false;
  }
  data = buffer->mutable_data();
  capacity = new_capacity;
  return true;
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

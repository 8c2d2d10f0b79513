#include "columnar/column_builder.h"

#include <algorithm>
#include <cstring>

namespace tributary::columnar {

namespace {

// The first allocation of a region: small, since many builders (one per output column of
// every operator) finish only a few rows; doubling reaches batch sizes in a few steps.
constexpr int64_t kMinRegionCapacity = 64;

}  // namespace

ColumnBuilder::ColumnBuilder(DataTypePtr type, MemoryPool* pool)
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
      children_.push_back(std::make_unique<ColumnBuilder>(type_->ElementType(), pool_));
      break;
    case TypeId::kMap:
      kind_ = Kind::kList;
      children_.push_back(std::make_unique<ColumnBuilder>(type_->KeyType(), pool_));
      children_.push_back(std::make_unique<ColumnBuilder>(type_->ValueType(), pool_));
      break;
    case TypeId::kStruct:
      kind_ = Kind::kStruct;
      for (const Field& field : type_->Fields()) {
        children_.push_back(std::make_unique<ColumnBuilder>(field.Type(), pool_));
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

ColumnBuilder::~ColumnBuilder() = default;

void ColumnBuilder::Reset() {
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

bool ColumnBuilder::Region::Grow(int64_t needed) {
  if (!status->ok()) {
    return false;
  }
  Status grown = Reallocate(std::max<int64_t>({needed, capacity * 2, kMinRegionCapacity}));
  if (!grown.ok()) {
    *status = std::move(grown);
    return false;
  }
  return true;
}

Status ColumnBuilder::Region::Reallocate(int64_t new_capacity) {
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

void ColumnBuilder::Region::ReserveCapacity(int64_t wanted) {
  if (wanted <= capacity || !status->ok()) {
    return;
  }
  Status reserved = Reallocate(wanted);
  if (!reserved.ok()) {
    *status = std::move(reserved);
  }
}

void ColumnBuilder::Region::ReserveLikeSoFar(int64_t rows, int64_t rows_so_far) {
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

Result<BufferPtr> ColumnBuilder::Region::Take() {
  if (buffer == nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(buffer, Buffer::Allocate(size, pool));
  } else {
    TRIBUTARY_RETURN_NOT_OK(buffer->Resize(size));
  }
  return BufferPtr(std::move(buffer));
}

void ColumnBuilder::Reserve(int64_t additional) {
  if (kind_ != Kind::kFixed || additional <= 0) {
    return;
  }
  const int64_t rows = length_ + additional;
  values_.ReserveCapacity(rows * width_);
  validity_.ReserveCapacity(BitmapBytes(rows));
}

void ColumnBuilder::ReserveRowsLikeSoFar(int64_t rows) {
  if (rows <= 0 || length_ == 0 || !status_.ok()) {
    return;
  }
  validity_.ReserveLikeSoFar(rows, length_);
  values_.ReserveLikeSoFar(rows, length_);
  offsets_.ReserveLikeSoFar(rows, length_);
  for (auto& child : children_) {
    // A struct's children have a row per row; a list's elements, per row as many as so far.
    child->ReserveRowsLikeSoFar(kind_ == Kind::kStruct ? rows : child->Length() * rows / length_);
  }
}

Result<ColumnPtr> ColumnBuilder::Finish() {
  // This builder's own error comes first, then the first child's; each carries the type of
  // the builder whose allocation was refused.
  Status failed;
  if (!status_.ok()) {
    failed = status_.WithContext("building a " + type_->ToString() + " column");
    status_ = Status::OK();
  }
  std::vector<ColumnPtr> children;
  for (auto& child : children_) {
    auto finished = child->Finish();
    if (!finished.ok() && failed.ok()) {
      failed = finished.status();
    }
    if (finished.ok()) {
      children.push_back(finished.MoveValueUnsafe());
    }
  }
  if (!failed.ok()) {
    Reset();
    return failed;
  }
  BufferPtr validity;
  BufferPtr values;
  BufferPtr offsets;
  if (null_count_ > 0 && kind_ != Kind::kNull) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, validity_.Take());
  }
  if (kind_ == Kind::kFixed || kind_ == Kind::kBytes) {
    TRIBUTARY_ASSIGN_OR_RAISE(values, values_.Take());
  }
  if (kind_ == Kind::kBytes || kind_ == Kind::kList) {
    TRIBUTARY_ASSIGN_OR_RAISE(offsets, offsets_.Take());
  }
  auto column = Column::Make(type_, length_, std::move(validity), std::move(values),
                             std::move(offsets), std::move(children));
  Reset();
  return column;
}

}  // namespace tributary::columnar

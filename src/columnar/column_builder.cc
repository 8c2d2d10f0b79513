#include "columnar/column_builder.h"

#include <cstring>

namespace tributary::columnar {

ColumnBuilder::ColumnBuilder(DataTypePtr type, MemoryPool* pool)
    : type_(std::move(type)), pool_(pool) {
  switch (type_->Id()) {
    case TypeId::kStruct:
      for (const Field& field : type_->Fields()) {
        children_.push_back(std::make_unique<ColumnBuilder>(field.Type(), pool_));
      }
      break;
    case TypeId::kArray:
      children_.push_back(std::make_unique<ColumnBuilder>(type_->ElementType(), pool_));
      break;
    case TypeId::kMap:
      children_.push_back(std::make_unique<ColumnBuilder>(type_->KeyType(), pool_));
      children_.push_back(std::make_unique<ColumnBuilder>(type_->ValueType(), pool_));
      break;
    default:
      break;
  }
  Reset();
}

ColumnBuilder::~ColumnBuilder() = default;

void ColumnBuilder::Reset() {
  length_ = 0;
  null_count_ = 0;
  validity_.reset();
  values_.reset();
  offsets_.reset();
  const bool has_offsets =
      type_->IsBinaryLike() || type_->Id() == TypeId::kArray || type_->Id() == TypeId::kMap;
  if (has_offsets && Grow(offsets_, sizeof(int64_t))) {
    offsets_->MutableDataAs<int64_t>()[0] = 0;
  }
  if (type_->ByteWidth() > 0 || type_->IsBinaryLike()) {
    Grow(values_, 0);
  }
}

bool ColumnBuilder::Grow(std::unique_ptr<Buffer>& buffer, int64_t new_size) {
  if (!status_.ok()) {
    return false;
  }
  Status st;
  if (buffer == nullptr) {
    auto allocated = Buffer::Allocate(new_size, pool_);
    if (allocated.ok()) {
      buffer = allocated.MoveValueUnsafe();
    } else {
      st = allocated.status();
    }
  } else {
    st = buffer->Resize(new_size);
  }
  if (!st.ok()) {
    status_ = st.WithContext("building a " + type_->ToString() + " column");
    return false;
  }
  return true;
}

void ColumnBuilder::Reserve(int64_t additional) {
  if (values_ != nullptr && type_->ByteWidth() > 0) {
    const int64_t size = values_->size();
    const int64_t wanted = (length_ + additional) * type_->ByteWidth();
    if (wanted > values_->Capacity() && Grow(values_, wanted)) {
      // Reserve only changes capacity: shrink back to the bytes actually used.
      status_ = values_->Resize(size);
    }
  }
}

void ColumnBuilder::AppendValidity(bool valid) {
  if (!valid) {
    if (validity_ == nullptr) {
      if (!Grow(validity_, BitmapBytes(length_ + 1))) {
        return;
      }
      FillBitmap(validity_->mutable_data(), length_, true);
    }
    ++null_count_;
  }
  if (validity_ != nullptr) {
    if (!Grow(validity_, BitmapBytes(length_ + 1))) {
      return;
    }
    SetBitTo(validity_->mutable_data(), length_, valid);
  }
  ++length_;
}

void ColumnBuilder::AppendOffset(int64_t end) {
  if (Grow(offsets_, (length_ + 2) * static_cast<int64_t>(sizeof(int64_t)))) {
    offsets_->MutableDataAs<int64_t>()[length_ + 1] = end;
  }
}

template <typename T>
void ColumnBuilder::AppendFixed(T value) {
  if (Grow(values_, (length_ + 1) * static_cast<int64_t>(sizeof(T)))) {
    std::memcpy(values_->mutable_data() + length_ * static_cast<int64_t>(sizeof(T)), &value,
                sizeof(T));
  }
}

void ColumnBuilder::AppendNull() {
  switch (type_->Id()) {
    case TypeId::kNull:
      ++length_;
      ++null_count_;
      return;
    case TypeId::kStruct:
      for (auto& child : children_) {
        child->AppendNull();
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      AppendOffset(values_ ? values_->size() : 0);
      break;
    case TypeId::kArray:
    case TypeId::kMap:
      AppendOffset(children_[0]->Length());
      break;
    default:
      Grow(values_, (length_ + 1) * type_->ByteWidth());
      break;
  }
  AppendValidity(false);
}

void ColumnBuilder::AppendBoolean(bool value) {
  AppendFixed<uint8_t>(value ? 1 : 0);
  AppendValidity(true);
}

void ColumnBuilder::AppendInt(int64_t value) {
  switch (type_->ByteWidth()) {
    case 1:
      AppendFixed(static_cast<int8_t>(value));
      break;
    case 2:
      AppendFixed(static_cast<int16_t>(value));
      break;
    case 4:
      AppendFixed(static_cast<int32_t>(value));
      break;
    default:
      AppendFixed(value);
      break;
  }
  AppendValidity(true);
}

void ColumnBuilder::AppendDouble(double value) {
  if (type_->Id() == TypeId::kFloat32) {
    AppendFixed(static_cast<float>(value));
  } else {
    AppendFixed(value);
  }
  AppendValidity(true);
}

void ColumnBuilder::AppendDecimal(Int128 unscaled) {
  AppendFixed(unscaled);
  AppendValidity(true);
}

void ColumnBuilder::AppendBytes(std::string_view bytes) {
  const int64_t start = values_ ? values_->size() : 0;
  const int64_t end = start + static_cast<int64_t>(bytes.size());
  if (Grow(values_, end) && !bytes.empty()) {
    std::memcpy(values_->mutable_data() + start, bytes.data(), bytes.size());
  }
  AppendOffset(end);
  AppendValidity(true);
}

void ColumnBuilder::AppendStruct() {
  AppendValidity(true);
}

void ColumnBuilder::AppendArray() {
  AppendOffset(children_[0]->Length());
  AppendValidity(true);
}

Result<ColumnPtr> ColumnBuilder::Finish() {
  std::vector<ColumnPtr> children;
  for (auto& child : children_) {
    auto finished = child->Finish();
    if (!finished.ok() && status_.ok()) {
      status_ = finished.status();
    }
    if (finished.ok()) {
      children.push_back(finished.MoveValueUnsafe());
    }
  }
  if (!status_.ok()) {
    Status failed = std::move(status_);
    status_ = Status::OK();
    Reset();
    return failed;
  }
  auto column = Column::Make(type_, length_, std::move(validity_), std::move(values_),
                             std::move(offsets_), std::move(children));
  status_ = Status::OK();
  Reset();
  return column;
}

}  // namespace tributary::columnar

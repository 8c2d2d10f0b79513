#include "columnar/column.h"

#include <fmt/format.h>

#include "common/utf8.h"

namespace tributary::columnar {
namespace {

Status CheckBuffer(const BufferPtr& buffer, int64_t min_size, std::string_view what,
                   const DataType& type) {
  if (buffer == nullptr) {
    return Status::Corruption(fmt::format("{} column has no {} buffer", type.ToString(), what));
  }
  if (buffer->size() < min_size) {
    return Status::Corruption(fmt::format("{} column: {} buffer holds {} bytes, needs {}",
                                          type.ToString(), what, buffer->size(), min_size));
  }
  return Status::OK();
}

int ExpectedChildren(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kStruct:
      return static_cast<int>(type.Fields().size());
    case TypeId::kArray:
      return 1;
    case TypeId::kMap:
      return 2;
    default:
      return 0;
  }
}

}  // namespace

Column::Column(Parts parts)
    : type_(std::move(parts.type)),
      length_(parts.length),
      null_count_(parts.null_count),
      validity_(std::move(parts.validity)),
      values_(std::move(parts.values)),
      offsets_(std::move(parts.offsets)),
      children_(std::move(parts.children)) {}

Result<ColumnPtr> Column::Make(DataTypePtr type, int64_t length, BufferPtr validity,
                               BufferPtr values, BufferPtr offsets,
                               std::vector<ColumnPtr> children) {
  if (type == nullptr || length < 0) {
    return Status::InvalidArgument("column needs a type and a non-negative length");
  }
  const DataType& t = *type;
  int64_t null_count = 0;
  if (t.Id() == TypeId::kNull) {
    null_count = length;
    validity = nullptr;
  } else if (validity != nullptr) {
    TRIBUTARY_RETURN_NOT_OK(CheckBuffer(validity, BitmapBytes(length), "validity", t));
    null_count = length - CountSetBits(validity->data(), length);
  }
  if (const int width = t.ByteWidth(); width > 0) {
    TRIBUTARY_RETURN_NOT_OK(CheckBuffer(values, length * width, "values", t));
  }
  const bool has_offsets = t.IsBinaryLike() || t.Id() == TypeId::kArray || t.Id() == TypeId::kMap;
  if (has_offsets) {
    TRIBUTARY_RETURN_NOT_OK(
        CheckBuffer(offsets, (length + 1) * static_cast<int64_t>(sizeof(int64_t)), "offsets", t));
    const int64_t* offs = offsets->DataAs<int64_t>();
    if (offs[0] < 0 || offs[length] < offs[0]) {
      return Status::Corruption(
          fmt::format("{} column: offsets run from {} to {}", t.ToString(), offs[0], offs[length]));
    }
    if (t.IsBinaryLike()) {
      TRIBUTARY_RETURN_NOT_OK(CheckBuffer(values, offs[length], "values", t));
    }
  }
  const int expected_children = ExpectedChildren(t);
  if (static_cast<int>(children.size()) != expected_children) {
    return Status::Corruption(fmt::format("{} column has {} children, needs {}", t.ToString(),
                                          children.size(), expected_children));
  }
  for (int i = 0; i < expected_children; ++i) {
    const ColumnPtr& child = children[static_cast<size_t>(i)];
    const DataTypePtr& child_type = t.Id() == TypeId::kStruct
                                        ? t.Fields()[static_cast<size_t>(i)].Type()
                                        : (i == 0 ? t.ElementType() : t.ValueType());
    if (child == nullptr || !child->Type()->SameShape(*child_type)) {
      return Status::Corruption(
          fmt::format("{} column: child {} has type {}, needs {}", t.ToString(), i,
                      child ? child->Type()->ToString() : "none", child_type->ToString()));
    }
    const int64_t needed = t.Id() == TypeId::kStruct ? length : offsets->DataAs<int64_t>()[length];
    if (child->Length() < needed) {
      return Status::Corruption(fmt::format("{} column: child {} has {} rows, needs {}",
                                            t.ToString(), i, child->Length(), needed));
    }
  }
  return std::make_shared<const Column>(Parts{std::move(type), length, null_count,
                                              std::move(validity), std::move(values),
                                              std::move(offsets), std::move(children)});
}

Result<ColumnPtr> Column::MakeAllNull(DataTypePtr type, int64_t length, MemoryPool* pool) {
  BufferPtr validity;
  if (type->Id() != TypeId::kNull) {
    TRIBUTARY_ASSIGN_OR_RAISE(validity, Buffer::Allocate(BitmapBytes(length), pool));
  }
  BufferPtr values;
  BufferPtr offsets;
  if (type->ByteWidth() > 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(values, Buffer::Allocate(length * type->ByteWidth(), pool));
  }
  if (type->IsBinaryLike() || type->Id() == TypeId::kArray || type->Id() == TypeId::kMap) {
    TRIBUTARY_ASSIGN_OR_RAISE(offsets, Buffer::Allocate((length + 1) * 8, pool));
    if (type->IsBinaryLike()) {
      TRIBUTARY_ASSIGN_OR_RAISE(values, Buffer::Allocate(0, pool));
    }
  }
  std::vector<ColumnPtr> children;
  if (type->Id() == TypeId::kStruct) {
    for (const Field& field : type->Fields()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto child, MakeAllNull(field.Type(), length, pool));
      children.push_back(std::move(child));
    }
  } else if (type->Id() == TypeId::kArray || type->Id() == TypeId::kMap) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto first, MakeAllNull(type->ElementType(), 0, pool));
    children.push_back(std::move(first));
    if (type->Id() == TypeId::kMap) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto second, MakeAllNull(type->ValueType(), 0, pool));
      children.push_back(std::move(second));
    }
  }
  return Make(std::move(type), length, std::move(validity), std::move(values), std::move(offsets),
              std::move(children));
}

Status Column::ValidateFull() const {
  const DataType& t = *type_;
  if (offsets_ != nullptr) {
    const int64_t* offs = Offsets();
    for (int64_t i = 0; i < length_; ++i) {
      if (offs[i + 1] < offs[i]) {
        return Status::Corruption(fmt::format("{} column: offsets decrease at row {} ({} > {})",
                                              t.ToString(), i, offs[i], offs[i + 1]));
      }
    }
  }
  if (t.Id() == TypeId::kBoolean) {
    const uint8_t* values = values_->data();
    for (int64_t i = 0; i < length_; ++i) {
      if (values[i] > 1) {
        return Status::Corruption(
            fmt::format("boolean column: row {} holds byte {}", i, values[i]));
      }
    }
  }
  if (t.Id() == TypeId::kString) {
    for (int64_t i = 0; i < length_; ++i) {
      if (IsValid(i) && !IsValidUtf8(BytesAt(i))) {
        return Status::Corruption(fmt::format("string column: row {} is not valid UTF-8", i));
      }
    }
  }
  for (const ColumnPtr& child : children_) {
    TRIBUTARY_RETURN_NOT_OK(child->ValidateFull());
  }
  return Status::OK();
}

bool IsValidUtf8(std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    // Fast path over ASCII, eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t word;
      __builtin_memcpy(&word, s + i, 8);
      if (word & 0x8080808080808080ULL) {
        break;
      }
      i += 8;
    }
    if (i >= n) {
      break;
    }
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = Utf8SequenceLength(bytes.substr(i));
    if (len == 0) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace tributary::columnar

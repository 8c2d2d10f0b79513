// Thrift compact protocol, as Parquet uses it (apache/thrift
// doc/specs/thrift-compact-protocol.md):
//
//   struct        = *field stop
//   field         = field-header value
//   field-header  = byte(delta << 4 | type)            ; delta = id - previous id, 1..15
//                 | byte(type) zigzag-varint(i16 id)   ; otherwise
//   stop          = byte(0)
//   bool field    = its value is the type: 1 true, 2 false (no value bytes)
//   i8            = byte;  i16, i32, i64 = zigzag ULEB128 varint;  double = 8 bytes LE
//   binary        = varint(length) bytes
//   list / set    = byte(size << 4 | element-type)     ; size 0..14
//                 | byte(0xF0 | element-type) varint(size)
//   map           = varint(0) | varint(size) byte(key-type << 4 | value-type) *(key value)

#include "formats/parquet/thrift_compact.h"

#include <cstring>

#include <fmt/format.h>

#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {
namespace {

constexpr int kMaxDepth = 64;

}  // namespace

Status CompactReader::Fault(std::string_view what) const {
  return Status::Corruption(fmt::format("thrift: {} at byte {}", what, pos_));
}

Status CompactReader::BeginStruct() {
  if (depth_ >= kMaxDepth) {
    return Fault("structs nested deeper than 64");
  }
  saved_ids_[depth_++] = last_field_id_;
  last_field_id_ = 0;
  return Status::OK();
}

void CompactReader::EndStruct() {
  if (depth_ > 0) {
    last_field_id_ = saved_ids_[--depth_];
  }
}

Status CompactReader::ReadVarint(uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) {
      return Fault("varint runs past the end");
    }
    const auto byte = static_cast<uint8_t>(data_[pos_++]);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return Status::OK();
    }
  }
  return Fault("varint longer than 10 bytes");
}

Status CompactReader::ReadFieldHeader(int16_t* id, CompactType* type) {
  if (pos_ >= data_.size()) {
    return Fault("struct runs past the end");
  }
  const auto byte = static_cast<uint8_t>(data_[pos_++]);
  const uint8_t type_bits = byte & 0x0F;
  if (type_bits > static_cast<uint8_t>(CompactType::kStruct)) {
    return Fault(fmt::format("unknown field type {}", type_bits));
  }
  *type = static_cast<CompactType>(type_bits);
  if (*type == CompactType::kStop) {
    *id = 0;
    return Status::OK();
  }
  const int delta = byte >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_field_id_ + delta);
  } else {
    int16_t explicit_id = 0;
    TRIBUTARY_RETURN_NOT_OK(ReadI16(&explicit_id));
    *id = explicit_id;
  }
  last_field_id_ = *id;
  return Status::OK();
}

Status CompactReader::ReadListHeader(CompactType* element_type, int32_t* size) {
  if (pos_ >= data_.size()) {
    return Fault("list header past the end");
  }
  const auto byte = static_cast<uint8_t>(data_[pos_++]);
  const uint8_t type_bits = byte & 0x0F;
  if (type_bits > static_cast<uint8_t>(CompactType::kStruct)) {
    return Fault(fmt::format("unknown list element type {}", type_bits));
  }
  *element_type = static_cast<CompactType>(type_bits);
  uint64_t count = byte >> 4;
  if (count == 15) {
    TRIBUTARY_RETURN_NOT_OK(ReadVarint(&count));
  }
  // Every element takes at least one byte, so a count past the remaining bytes is a lie.
  if (count > data_.size() - pos_) {
    return Fault(fmt::format("list of {} elements with {} bytes left", count, data_.size() - pos_));
  }
  *size = static_cast<int32_t>(count);
  return Status::OK();
}

Status CompactReader::ReadBool(CompactType field_type, bool* value) {
  if (field_type != CompactType::kBooleanTrue && field_type != CompactType::kBooleanFalse) {
    return Fault("expected a boolean field");
  }
  *value = field_type == CompactType::kBooleanTrue;
  return Status::OK();
}

Status CompactReader::ReadBoolElement(bool* value) {
  int8_t byte = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadI8(&byte));
  *value = byte == 1;
  return Status::OK();
}

Status CompactReader::ReadI8(int8_t* value) {
  if (pos_ >= data_.size()) {
    return Fault("byte past the end");
  }
  *value = static_cast<int8_t>(data_[pos_++]);
  return Status::OK();
}

Status CompactReader::ReadI16(int16_t* value) {
  int64_t wide = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadI64(&wide));
  if (wide < INT16_MIN || wide > INT16_MAX) {
    return Fault(fmt::format("i16 out of range: {}", wide));
  }
  *value = static_cast<int16_t>(wide);
  return Status::OK();
}

Status CompactReader::ReadI32(int32_t* value) {
  int64_t wide = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadI64(&wide));
  if (wide < INT32_MIN || wide > INT32_MAX) {
    return Fault(fmt::format("i32 out of range: {}", wide));
  }
  *value = static_cast<int32_t>(wide);
  return Status::OK();
}

Status CompactReader::ReadI64(int64_t* value) {
  uint64_t raw = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadVarint(&raw));
  *value = ZigZagDecode(raw);
  return Status::OK();
}

Status CompactReader::ReadDouble(double* value) {
  if (data_.size() - pos_ < 8) {
    return Fault("double past the end");
  }
  std::memcpy(value, data_.data() + pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status CompactReader::ReadBinary(std::string* value) {
  uint64_t length = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadVarint(&length));
  if (length > data_.size() - pos_) {
    return Fault(fmt::format("binary of {} bytes with {} bytes left", length, data_.size() - pos_));
  }
  value->assign(data_.data() + pos_, static_cast<size_t>(length));
  pos_ += static_cast<size_t>(length);
  return Status::OK();
}

Status CompactReader::Skip(CompactType type) {
  switch (type) {
    case CompactType::kBooleanTrue:
    case CompactType::kBooleanFalse:
      return Status::OK();
    case CompactType::kByte: {
      int8_t ignored;
      return ReadI8(&ignored);
    }
    case CompactType::kI16:
    case CompactType::kI32:
    case CompactType::kI64: {
      uint64_t ignored;
      return ReadVarint(&ignored);
    }
    case CompactType::kDouble: {
      double ignored;
      return ReadDouble(&ignored);
    }
    case CompactType::kBinary: {
      uint64_t length = 0;
      TRIBUTARY_RETURN_NOT_OK(ReadVarint(&length));
      if (length > data_.size() - pos_) {
        return Fault("binary past the end");
      }
      pos_ += static_cast<size_t>(length);
      return Status::OK();
    }
    case CompactType::kList:
    case CompactType::kSet: {
      CompactType element_type;
      int32_t size = 0;
      TRIBUTARY_RETURN_NOT_OK(ReadListHeader(&element_type, &size));
      if (depth_ >= kMaxDepth) {
        return Fault("values nested deeper than 64");
      }
      ++depth_;
      for (int32_t i = 0; i < size; ++i) {
        // Booleans inside lists take one byte each, unlike boolean fields.
        if (element_type == CompactType::kBooleanTrue ||
            element_type == CompactType::kBooleanFalse) {
          TRIBUTARY_RETURN_NOT_OK(Skip(CompactType::kByte));
        } else {
          TRIBUTARY_RETURN_NOT_OK(Skip(element_type));
        }
      }
      --depth_;
      return Status::OK();
    }
    case CompactType::kMap: {
      uint64_t size = 0;
      TRIBUTARY_RETURN_NOT_OK(ReadVarint(&size));
      if (size == 0) {
        return Status::OK();
      }
      if (size > data_.size() - pos_) {
        return Fault("map past the end");
      }
      int8_t types = 0;
      TRIBUTARY_RETURN_NOT_OK(ReadI8(&types));
      const auto key_type = static_cast<CompactType>((static_cast<uint8_t>(types) >> 4) & 0x0F);
      const auto value_type = static_cast<CompactType>(static_cast<uint8_t>(types) & 0x0F);
      if (static_cast<uint8_t>(key_type) > 12 || static_cast<uint8_t>(value_type) > 12) {
        return Fault("unknown map element type");
      }
      for (uint64_t i = 0; i < size; ++i) {
        TRIBUTARY_RETURN_NOT_OK(Skip(key_type));
        TRIBUTARY_RETURN_NOT_OK(Skip(value_type));
      }
      return Status::OK();
    }
    case CompactType::kStruct: {
      TRIBUTARY_RETURN_NOT_OK(BeginStruct());
      while (true) {
        int16_t id;
        CompactType field_type;
        TRIBUTARY_RETURN_NOT_OK(ReadFieldHeader(&id, &field_type));
        if (field_type == CompactType::kStop) {
          break;
        }
        TRIBUTARY_RETURN_NOT_OK(Skip(field_type));
      }
      EndStruct();
      return Status::OK();
    }
    case CompactType::kStop:
      break;
  }
  return Fault("cannot skip a stop marker");
}

void CompactWriter::WriteVarint(uint64_t value) {
  while (value >= 0x80) {
    out_->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out_->push_back(static_cast<char>(value));
}

void CompactWriter::BeginStruct() {
  saved_ids_[depth_++] = last_field_id_;
  last_field_id_ = 0;
}

void CompactWriter::EndStruct() {
  out_->push_back(0);
  last_field_id_ = saved_ids_[--depth_];
}

void CompactWriter::WriteFieldHeader(int16_t id, CompactType type) {
  const int delta = id - last_field_id_;
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_->push_back(static_cast<char>(type));
    WriteVarint(ZigZagEncode(id));
  }
  last_field_id_ = id;
}

void CompactWriter::WriteListHeader(CompactType element_type, int32_t size) {
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | static_cast<int>(element_type)));
  } else {
    out_->push_back(static_cast<char>(0xF0 | static_cast<int>(element_type)));
    WriteVarint(static_cast<uint64_t>(size));
  }
}

void CompactWriter::WriteBoolField(int16_t id, bool value) {
  WriteFieldHeader(id, value ? CompactType::kBooleanTrue : CompactType::kBooleanFalse);
}

void CompactWriter::WriteI32Field(int16_t id, int32_t value) {
  WriteFieldHeader(id, CompactType::kI32);
  WriteI32(value);
}

void CompactWriter::WriteI64Field(int16_t id, int64_t value) {
  WriteFieldHeader(id, CompactType::kI64);
  WriteI64(value);
}

void CompactWriter::WriteBinaryField(int16_t id, std::string_view value) {
  WriteFieldHeader(id, CompactType::kBinary);
  WriteBinary(value);
}

void CompactWriter::WriteI32(int32_t value) {
  WriteVarint(ZigZagEncode(value));
}
void CompactWriter::WriteI64(int64_t value) {
  WriteVarint(ZigZagEncode(value));
}

void CompactWriter::WriteBinary(std::string_view value) {
  WriteVarint(value.size());
  out_->append(value);
}

}  // namespace tributary::parquet

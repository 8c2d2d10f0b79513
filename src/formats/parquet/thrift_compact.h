// A reader and a writer of the Thrift compact protocol, the encoding of Parquet's footer and
// page headers (apache/thrift doc/specs/thrift-compact-protocol.md).
//
// tributary encodes Parquet's metadata with this small codec of its own rather than libthrift:
// Parquet uses one protocol and a handful of structs, a hand-written decoder bounds-checks every
// read of an untrusted footer and names the byte offset of a fault, and the build needs neither
// the Thrift compiler nor generated sources.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::parquet {

/// Wire types of the compact protocol (the low nibble of a field header).
enum class CompactType : uint8_t {
  kStop = 0,
  kBooleanTrue = 1,
  kBooleanFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

/// Reads compact-protocol values from an untrusted buffer. Every read checks bounds; a fault is
/// a Corruption error naming the byte offset within the buffer. Nesting is bounded so a hostile
/// footer cannot exhaust the stack.
///
/// Thread-safety: none; one reader per thread.
class CompactReader {
 public:
  explicit CompactReader(std::string_view data) : data_(data) {}

  /// Bytes consumed so far.
  int64_t Position() const { return static_cast<int64_t>(pos_); }

  /// Enters a struct: field ids restart from 0.
  Status BeginStruct();
  /// Leaves the struct entered last.
  void EndStruct();
  /// The next field's id and type; type kStop ends the struct. A boolean field's value is in
  /// its type (kBooleanTrue/kBooleanFalse).
  Status ReadFieldHeader(int16_t* id, CompactType* type);
  /// A list (or set) header: element type and count.
  Status ReadListHeader(CompactType* element_type, int32_t* size);

  Status ReadBool(CompactType field_type, bool* value);
  /// A boolean list element (one byte).
  Status ReadBoolElement(bool* value);
  Status ReadI8(int8_t* value);
  Status ReadI16(int16_t* value);
  Status ReadI32(int32_t* value);
  Status ReadI64(int64_t* value);
  Status ReadDouble(double* value);
  Status ReadBinary(std::string* value);

  /// Skips a value of `type`, nested ones included.
  Status Skip(CompactType type);

 private:
  Status ReadVarint(uint64_t* value);
  Status Fault(std::string_view what) const;

  std::string_view data_;
  size_t pos_ = 0;
  int16_t last_field_id_ = 0;
  // Field ids of enclosing structs, restored by EndStruct.
  int16_t saved_ids_[64] = {};
  int depth_ = 0;
};

/// Appends compact-protocol values to a string.
///
/// Thread-safety: none; one writer per thread.
class CompactWriter {
 public:
  explicit CompactWriter(std::string* out) : out_(out) {}

  void BeginStruct();
  /// Writes the stop byte and leaves the struct.
  void EndStruct();
  void WriteFieldHeader(int16_t id, CompactType type);
  void WriteListHeader(CompactType element_type, int32_t size);

  void WriteBoolField(int16_t id, bool value);
  void WriteI32Field(int16_t id, int32_t value);
  void WriteI64Field(int16_t id, int64_t value);
  void WriteBinaryField(int16_t id, std::string_view value);

  void WriteI8(int8_t value) { out_->push_back(static_cast<char>(value)); }
  void WriteI32(int32_t value);
  void WriteI64(int64_t value);
  void WriteBinary(std::string_view value);

 private:
  void WriteVarint(uint64_t value);

  std::string* out_;
  int16_t last_field_id_ = 0;
  int16_t saved_ids_[64] = {};
  int depth_ = 0;
};

}  // namespace tributary::parquet

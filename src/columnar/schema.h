// Schema: the ordered, named columns of a record batch or table.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/data_type.h"
#include "tributary/result.h"

namespace tributary::columnar {

/// An ordered list of top-level fields plus schema-level metadata. Immutable; shared as
/// `std::shared_ptr<const Schema>`.
///
/// Thread-safety: immutable, safe to share between threads.
class Schema {
 public:
  explicit Schema(std::vector<Field> fields, FieldMetadata metadata = {});

  const std::vector<Field>& Fields() const { return fields_; }
  int NumFields() const { return static_cast<int>(fields_.size()); }
  const Field& FieldAt(int i) const { return fields_[static_cast<size_t>(i)]; }
  const FieldMetadata& Metadata() const { return metadata_; }

  /// Index of the field named exactly `name`, or -1.
  int FieldIndex(const std::string& name) const;
  /// Index of the field whose name equals `name` ignoring ASCII case (Spark's default name
  /// resolution), or -1. An InvalidArgument error when several fields match.
  Result<int> FieldIndexIgnoreCase(const std::string& name) const;

  /// The schema as a struct type, for code that treats rows as structs.
  DataTypePtr AsStruct() const;
  /// Same fields in the same order (metadata included).
  bool Equals(const Schema& other) const;
  /// One "name: type" per line.
  std::string ToString() const;

 private:
  std::vector<Field> fields_;
  FieldMetadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace tributary::columnar

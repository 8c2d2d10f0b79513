// Rows of a collected result and the schema describing them.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {

/// One column of a result schema. `type` is Spark's SQL spelling ("bigint",
/// "decimal(10,2)", "array<string>", "struct<a:int,b:string>").
struct StructField {
  std::string name;
  std::string type;
  bool nullable = true;
};

/// A result schema: its fields, in order.
struct StructType {
  std::vector<StructField> fields;
  /// Index of the field named `name` (exactly), or -1.
  int FieldIndex(std::string_view name) const;
  /// Spark's treeString: "root\n |-- a: bigint (nullable = true)\n...".
  std::string TreeString() const;
};

/// One row of a result. Getters take the column index and fail with InvalidArgument when the
/// value is null (check IsNull first) or the column's type does not fit.
///
/// Thread-safety: immutable; shares the result's memory.
class Row {
 public:
  int Size() const;
  bool IsNull(int i) const;
  /// boolean columns.
  Result<bool> GetBoolean(int i) const;
  /// tinyint, smallint, int, bigint; dates as days since 1970-01-01, timestamps as
  /// microseconds since the epoch (UTC).
  Result<int64_t> GetLong(int i) const;
  /// float, double, and the integer types.
  Result<double> GetDouble(int i) const;
  /// string and binary as their bytes; any other type as its canonical JSON text
  /// (decimals "1.50", dates "2024-05-01", timestamps ISO-8601 in UTC, nested as JSON).
  Result<std::string> GetString(int i) const;
  /// The row as one canonical JSON object ({"a":1,"b":"x"}, as the test corpus writes rows).
  std::string ToJson() const;

 private:
  friend class ApiAccess;

  /// The result's batch of rows this row is one of, shared by all of them.
  struct Impl;

  Row(std::shared_ptr<const Impl> rows, int64_t row);

  std::shared_ptr<const Impl> rows_;
  int64_t row_;
};

}  // namespace tributary

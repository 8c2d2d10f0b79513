// Logical types of tributary columns (Spark SQL's and Delta's type system) and their fields.
//
// Physical layout per type, one buffer set per column (see column.h):
//   null                   no buffers; every row is null
//   boolean                values: 1 byte per row, 0 or 1 (DuckDB's layout: kernels need no
//                          bit twiddling)
//   int8/16/32/64          values: little-endian two's complement of that width
//   float32/float64        values: IEEE 754
//   decimal(p,s)           values: 16-byte two's complement unscaled integer (__int128), p <= 38
//   date                   values: int32 days since 1970-01-01
//   timestamp              values: int64 microseconds since 1970-01-01T00:00:00Z (UTC instant)
//   timestamp_ntz          values: int64 microseconds of a zone-less wall-clock time
//   interval day to second values: int64 microseconds (Spark's DayTimeIntervalType); only
//                          expressions produce it, no file format stores it
//   interval year to month values: int32 months (Spark's YearMonthIntervalType); like day-time
//                          intervals, only expressions produce it
//   interval               values: 16 bytes per row, Spark's CalendarIntervalType as
//                          calendar_interval.h's CalendarInterval {int32 months, int32 days,
//                          int64 microseconds}; only expressions produce it
//   string/binary          offsets: int64[length + 1]; values: the bytes (UTF-8 for string)
//   struct                 children: one column per field, same length
//   array                  offsets: int64[length + 1]; children[0]: the elements
//   map                    offsets: int64[length + 1]; children[0]: keys, children[1]: values
// Every column may carry a validity bitmap (bitmap.h).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tributary/result.h"

namespace tributary::columnar {

enum class TypeId : uint8_t {
  kNull,
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kDecimal,
  kString,
  kBinary,
  kDate,
  kTimestamp,
  kTimestampNtz,
  kStruct,
  kArray,
  kMap,
  kDayTimeInterval,
  kYearMonthInterval,
  kCalendarInterval,
};

/// Spark's interval fields, as DataType's interval start and end fields hold them: year-month
/// intervals use kYear..kMonth, day-time intervals kDay..kSecond.
struct IntervalField {
  static constexpr int kYear = 0;
  static constexpr int kMonth = 1;
  static constexpr int kDay = 0;
  static constexpr int kHour = 1;
  static constexpr int kMinute = 2;
  static constexpr int kSecond = 3;
};

/// Largest decimal precision (Spark's DecimalType.MAX_PRECISION).
inline constexpr int kMaxDecimalPrecision = 38;

using Int128 = __int128;

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

/// Ordered key-value metadata of a field. String values are kept as the string; other JSON
/// values (numbers, objects) as their JSON text, e.g. {"delta.columnMapping.id", "5"}.
using FieldMetadata = std::vector<std::pair<std::string, std::string>>;

/// A named, typed, possibly nullable member of a schema or struct. Immutable value.
class Field {
 public:
  Field(std::string name, DataTypePtr type, bool nullable = true, FieldMetadata metadata = {});

  const std::string& Name() const { return name_; }
  const DataTypePtr& Type() const { return type_; }
  bool Nullable() const { return nullable_; }
  const FieldMetadata& Metadata() const { return metadata_; }
  /// The metadata value for `key`, or nullptr.
  const std::string* MetadataValue(const std::string& key) const;

  Field WithName(std::string name) const;
  Field WithType(DataTypePtr type) const;
  Field WithNullable(bool nullable) const;

  /// Same name, type, nullability and metadata.
  bool Equals(const Field& other) const;
  /// "name: type" plus " not null" when not nullable.
  std::string ToString() const;

 private:
  std::string name_;
  DataTypePtr type_;
  bool nullable_;
  FieldMetadata metadata_;
};

/// A logical type. Instances are immutable and shared; create them with the factories below.
///
/// Thread-safety: immutable, safe to share between threads.
class DataType {
 public:
  static DataTypePtr Null();
  static DataTypePtr Boolean();
  static DataTypePtr Int8();
  static DataTypePtr Int16();
  static DataTypePtr Int32();
  static DataTypePtr Int64();
  static DataTypePtr Float32();
  static DataTypePtr Float64();
  static DataTypePtr String();
  static DataTypePtr Binary();
  static DataTypePtr Date();
  static DataTypePtr Timestamp();
  static DataTypePtr TimestampNtz();
  /// Spark's DayTimeIntervalType (INTERVAL DAY TO SECOND), microseconds.
  static DataTypePtr DayTimeInterval();
  /// Spark's YearMonthIntervalType (INTERVAL YEAR TO MONTH), months.
  static DataTypePtr YearMonthInterval();
  /// An interval type with Spark's start and end fields (IntervalField values, start <= end):
  /// INTERVAL DAY is DayTimeInterval(kDay, kDay). The fields only decide how casts to and from
  /// numbers scale a value and how it prints; Equals and SameShape ignore them, so values of
  /// one interval kind mix freely whatever their fields.
  static DataTypePtr DayTimeInterval(int start_field, int end_field);
  static DataTypePtr YearMonthInterval(int start_field, int end_field);
  /// Spark's CalendarIntervalType (SQL `interval`): months, days and microseconds.
  static DataTypePtr CalendarInterval();
  /// decimal(precision, scale): 1 <= precision <= 38, 0 <= scale <= precision.
  static Result<DataTypePtr> Decimal(int precision, int scale);
  static DataTypePtr Struct(std::vector<Field> fields);
  static DataTypePtr Array(DataTypePtr element, bool contains_null = true);
  static DataTypePtr Map(DataTypePtr key, DataTypePtr value, bool value_contains_null = true);

  TypeId Id() const { return id_; }

  /// Interval types only: Spark's start and end fields (IntervalField values).
  int IntervalStartField() const { return interval_start_; }
  int IntervalEndField() const { return interval_end_; }

  /// Decimal only.
  int Precision() const { return precision_; }
  int Scale() const { return scale_; }
  /// Struct only.
  const std::vector<Field>& Fields() const { return fields_; }
  /// Index of the first field named exactly `name`, or -1. Struct only.
  int FieldIndex(const std::string& name) const;
  /// Array: the element type; map: the key type.
  const DataTypePtr& ElementType() const { return first_; }
  const DataTypePtr& KeyType() const { return first_; }
  /// Map only.
  const DataTypePtr& ValueType() const { return second_; }
  /// Array: elements may be null; map: values may be null.
  bool ContainsNull() const { return contains_null_; }

  /// Bytes per value for fixed-width types, 0 for null, string, binary and nested types.
  int ByteWidth() const;
  bool IsInteger() const;
  /// Integer, floating point or decimal.
  bool IsNumeric() const;
  bool IsFloatingPoint() const { return id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64; }
  bool IsNested() const;
  /// String or binary: offsets plus bytes.
  bool IsBinaryLike() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }

  /// Structural equality including nullability and field metadata.
  bool Equals(const DataType& other) const;
  /// Equality of ids, parameters and nested shapes, ignoring nullability and metadata.
  bool SameShape(const DataType& other) const;

  /// Spark's SQL name: "int", "bigint", "decimal(10,2)", "struct<a:int,b:string>",
  /// "array<string>", "map<string,bigint>", "timestamp_ntz", ...
  std::string ToString() const;

  /// Spark's DataType.sql, as casts, DDL and schema_of_json print a type: "INT",
  /// "DECIMAL(10,2)", "STRUCT<a: BIGINT, `b c`: ARRAY<STRING> NOT NULL>", "MAP<STRING, INT>".
  std::string Sql() const;

  /// Not for direct use: the factories above build types.
  struct Parts {
    TypeId id = TypeId::kNull;
    int precision = 0;
    int scale = 0;
    std::vector<Field> fields;
    DataTypePtr first;
    DataTypePtr second;
    bool contains_null = true;
    int interval_start = 0;
    int interval_end = 0;
  };
  explicit DataType(Parts parts);

 private:
  TypeId id_;
  int precision_;
  int scale_;
  std::vector<Field> fields_;
  DataTypePtr first_;
  DataTypePtr second_;
  bool contains_null_;
  int interval_start_;
  int interval_end_;
};

inline bool operator==(const DataType& a, const DataType& b) {
  return a.Equals(b);
}

}  // namespace tributary::columnar

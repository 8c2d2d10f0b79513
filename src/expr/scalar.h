// Scalar: one typed value (or null), the payload of literals and of constant-folded results.

#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "columnar/data_type.h"

namespace tributary::expr {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Int128;

/// A single value of a primitive type. Storage by type: boolean -> bool; int8..int64, date,
/// timestamp, timestamp_ntz,
/// interval day to second -> int64_t; float32/float64 -> double; decimal -> Int128 unscaled;
/// string/binary -> std::string. Immutable value type.
class Scalar {
 public:
  using Value = std::variant<std::monostate, bool, int64_t, double, Int128, std::string>;

  /// A null of `type` (default: the null type).
  static Scalar Null(DataTypePtr type = DataType::Null());
  static Scalar Boolean(bool value);
  static Scalar Int8(int8_t value);
  static Scalar Int16(int16_t value);
  static Scalar Int32(int32_t value);
  static Scalar Int64(int64_t value);
  static Scalar Float32(float value);
  static Scalar Float64(double value);
  /// unscaled * 10^-scale as decimal(precision, scale); InvalidArgument when it does not fit.
  static Result<Scalar> Decimal(Int128 unscaled, int precision, int scale);
  static Scalar String(std::string value);
  static Scalar Binary(std::string value);
  /// Days since 1970-01-01.
  static Scalar Date(int32_t days);
  /// Microseconds since the epoch, UTC.
  static Scalar Timestamp(int64_t micros);
  /// Microseconds of a zone-less wall-clock time.
  static Scalar TimestampNtz(int64_t micros);
  /// A day-time interval of `micros` microseconds, typed with Spark's start and end fields.
  static Scalar DayTimeInterval(int64_t micros, int start_field = columnar::IntervalField::kDay,
                                int end_field = columnar::IntervalField::kSecond);
  /// A year-month interval of `months` months, typed with Spark's start and end fields.
  static Scalar YearMonthInterval(int32_t months, int start_field = columnar::IntervalField::kYear,
                                  int end_field = columnar::IntervalField::kMonth);

  const DataTypePtr& Type() const { return type_; }
  bool IsNull() const { return std::holds_alternative<std::monostate>(value_); }
  const Value& Get() const { return value_; }
  bool BoolValue() const { return std::get<bool>(value_); }
  int64_t IntValue() const { return std::get<int64_t>(value_); }
  double DoubleValue() const { return std::get<double>(value_); }
  Int128 DecimalValue() const { return std::get<Int128>(value_); }
  const std::string& BytesValue() const { return std::get<std::string>(value_); }

  /// SQL literal text: 42, 'it''s', DATE '2024-05-01', 1.50BD is written as 1.50, NULL.
  std::string ToString() const;
  /// As ToString, but numbers without type suffixes (7, 1.5): the value as SQL text shows it.
  std::string SqlText() const;

 private:
  Scalar(DataTypePtr type, Value value) : type_(std::move(type)), value_(std::move(value)) {}

  DataTypePtr type_;
  Value value_;
};

}  // namespace tributary::expr

#include "expr/scalar.h"

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/canonical_json.h"
#include "columnar/decimal.h"

namespace tributary::expr {

Scalar Scalar::Null(DataTypePtr type) {
  return {std::move(type), std::monostate{}};
}
Scalar Scalar::Boolean(bool value) {
  return {DataType::Boolean(), value};
}
Scalar Scalar::Int8(int8_t value) {
  return {DataType::Int8(), int64_t{value}};
}
Scalar Scalar::Int16(int16_t value) {
  return {DataType::Int16(), int64_t{value}};
}
Scalar Scalar::Int32(int32_t value) {
  return {DataType::Int32(), int64_t{value}};
}
Scalar Scalar::Int64(int64_t value) {
  return {DataType::Int64(), value};
}
Scalar Scalar::Float32(float value) {
  return {DataType::Float32(), double{value}};
}
Scalar Scalar::Float64(double value) {
  return {DataType::Float64(), value};
}
Scalar Scalar::String(std::string value) {
  return {DataType::String(), std::move(value)};
}
Scalar Scalar::Binary(std::string value) {
  return {DataType::Binary(), std::move(value)};
}
Scalar Scalar::Date(int32_t days) {
  return {DataType::Date(), int64_t{days}};
}
Scalar Scalar::Timestamp(int64_t micros) {
  return {DataType::Timestamp(), micros};
}
Scalar Scalar::TimestampNtz(int64_t micros) {
  return {DataType::TimestampNtz(), micros};
}
Scalar Scalar::DayTimeInterval(int64_t micros, int start_field, int end_field) {
  if (start_field == columnar::IntervalField::kDay &&
      end_field == columnar::IntervalField::kSecond) {
    return {DataType::DayTimeInterval(), micros};
  }
  return {DataType::DayTimeInterval(start_field, end_field), micros};
}
Scalar Scalar::YearMonthInterval(int32_t months, int start_field, int end_field) {
  if (start_field == columnar::IntervalField::kYear &&
      end_field == columnar::IntervalField::kMonth) {
    return {DataType::YearMonthInterval(), int64_t{months}};
  }
  return {DataType::YearMonthInterval(start_field, end_field), int64_t{months}};
}

Result<Scalar> Scalar::Decimal(Int128 unscaled, int precision, int scale) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto type, DataType::Decimal(precision, scale));
  if (!columnar::FitsPrecision(unscaled, precision)) {
    std::string text;
    columnar::AppendDecimal(unscaled, scale, &text);
    return Status::InvalidArgument(
        fmt::format("decimal literal {} does not fit decimal({},{})", text, precision, scale));
  }
  return Scalar(std::move(type), unscaled);
}

std::string Scalar::ToString() const {
  if (IsNull()) {
    return "NULL";
  }
  std::string out;
  switch (type_->Id()) {
    case columnar::TypeId::kBoolean:
      return BoolValue() ? "true" : "false";
    case columnar::TypeId::kInt8:
      return fmt::format("{}Y", IntValue());
    case columnar::TypeId::kInt16:
      return fmt::format("{}S", IntValue());
    case columnar::TypeId::kInt32:
      return fmt::format("{}", IntValue());
    case columnar::TypeId::kInt64:
      return fmt::format("{}L", IntValue());
    case columnar::TypeId::kFloat32:
    case columnar::TypeId::kFloat64:
      columnar::AppendJsonDouble(DoubleValue(), type_->Id() == columnar::TypeId::kFloat32, &out);
      return out;
    case columnar::TypeId::kDecimal:
      columnar::AppendDecimal(DecimalValue(), type_->Scale(), &out);
      return out + "BD";
    case columnar::TypeId::kString: {
      out = "'";
      for (char c : BytesValue()) {
        out.push_back(c);
        if (c == '\'') {
          out.push_back(c);
        }
      }
      return out + "'";
    }
    case columnar::TypeId::kBinary: {
      out = "X'";
      for (unsigned char c : BytesValue()) {
        out += fmt::format("{:02X}", c);
      }
      return out + "'";
    }
    case columnar::TypeId::kDate:
      out = "DATE '";
      columnar::AppendDate(IntValue(), &out);
      return out + "'";
    case columnar::TypeId::kTimestamp:
    case columnar::TypeId::kTimestampNtz:
      out = type_->Id() == columnar::TypeId::kTimestamp ? "TIMESTAMP '" : "TIMESTAMP_NTZ '";
      columnar::AppendTimestampSpark(IntValue(), &out);
      return out + (type_->Id() == columnar::TypeId::kTimestamp ? "Z'" : "'");
    case columnar::TypeId::kDayTimeInterval:
      columnar::AppendDayTimeInterval(IntValue(), type_->IntervalStartField(),
                                      type_->IntervalEndField(), &out);
      return out;
    case columnar::TypeId::kYearMonthInterval:
      columnar::AppendYearMonthInterval(static_cast<int32_t>(IntValue()),
                                        type_->IntervalStartField(), type_->IntervalEndField(),
                                        &out);
      return out;
    default:
      return fmt::format("<{}>", type_->ToString());
  }
}

std::string Scalar::SqlText() const {
  if (IsNull() || !type_->IsNumeric()) {
    return ToString();
  }
  if (type_->IsInteger()) {
    return fmt::format("{}", IntValue());
  }
  std::string out;
  if (type_->Id() == columnar::TypeId::kDecimal) {
    columnar::AppendDecimal(DecimalValue(), type_->Scale(), &out);
  } else {
    columnar::AppendJsonDouble(DoubleValue(), type_->Id() == columnar::TypeId::kFloat32, &out);
  }
  return out;
}

}  // namespace tributary::expr

#include "columnar/data_type.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string_view>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::columnar {
namespace {

DataTypePtr MakeType(TypeId id, const std::function<void(DataType::Parts&)>& fill = {}) {
  DataType::Parts parts;
  parts.id = id;
  if (fill) {
    fill(parts);
  }
  return std::make_shared<const DataType>(std::move(parts));
}

bool MetadataEquals(const FieldMetadata& a, const FieldMetadata& b) {
  return a == b;
}

}  // namespace

Field::Field(std::string name, DataTypePtr type, bool nullable, FieldMetadata metadata)
    : name_(std::move(name)),
      type_(std::move(type)),
      nullable_(nullable),
      metadata_(std::move(metadata)) {}

const std::string* Field::MetadataValue(const std::string& key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

Field Field::WithName(std::string name) const {
  return {std::move(name), type_, nullable_, metadata_};
}
Field Field::WithType(DataTypePtr type) const {
  return {name_, std::move(type), nullable_, metadata_};
}
Field Field::WithNullable(bool nullable) const {
  return {name_, type_, nullable, metadata_};
}

bool Field::Equals(const Field& other) const {
  return name_ == other.name_ && nullable_ == other.nullable_ && type_->Equals(*other.type_) &&
         MetadataEquals(metadata_, other.metadata_);
}

std::string Field::ToString() const {
  return fmt::format("{}: {}{}", name_, type_->ToString(), nullable_ ? "" : " not null");
}

DataType::DataType(Parts parts)
    : id_(parts.id),
      precision_(parts.precision),
      scale_(parts.scale),
      fields_(std::move(parts.fields)),
      first_(std::move(parts.first)),
      second_(std::move(parts.second)),
      contains_null_(parts.contains_null),
      interval_start_(parts.interval_start),
      interval_end_(parts.interval_end) {}

#define TRIBUTARY_PRIMITIVE_FACTORY(Name, id)     \
  DataTypePtr DataType::Name() {                  \
    static const DataTypePtr type = MakeType(id); \
    return type;                                  \
  }
TRIBUTARY_PRIMITIVE_FACTORY(Null, TypeId::kNull)
TRIBUTARY_PRIMITIVE_FACTORY(Boolean, TypeId::kBoolean)
TRIBUTARY_PRIMITIVE_FACTORY(Int8, TypeId::kInt8)
TRIBUTARY_PRIMITIVE_FACTORY(Int16, TypeId::kInt16)
TRIBUTARY_PRIMITIVE_FACTORY(Int32, TypeId::kInt32)
TRIBUTARY_PRIMITIVE_FACTORY(Int64, TypeId::kInt64)
TRIBUTARY_PRIMITIVE_FACTORY(Float32, TypeId::kFloat32)
TRIBUTARY_PRIMITIVE_FACTORY(Float64, TypeId::kFloat64)
TRIBUTARY_PRIMITIVE_FACTORY(String, TypeId::kString)
TRIBUTARY_PRIMITIVE_FACTORY(Binary, TypeId::kBinary)
TRIBUTARY_PRIMITIVE_FACTORY(Date, TypeId::kDate)
TRIBUTARY_PRIMITIVE_FACTORY(Timestamp, TypeId::kTimestamp)
TRIBUTARY_PRIMITIVE_FACTORY(TimestampNtz, TypeId::kTimestampNtz)
TRIBUTARY_PRIMITIVE_FACTORY(CalendarInterval, TypeId::kCalendarInterval)
#undef TRIBUTARY_PRIMITIVE_FACTORY

DataTypePtr DataType::DayTimeInterval() {
  static const DataTypePtr kType = DayTimeInterval(IntervalField::kDay, IntervalField::kSecond);
  return kType;
}

DataTypePtr DataType::YearMonthInterval() {
  static const DataTypePtr kType = YearMonthInterval(IntervalField::kYear, IntervalField::kMonth);
  return kType;
}

DataTypePtr DataType::DayTimeInterval(int start_field, int end_field) {
  return MakeType(TypeId::kDayTimeInterval, [&](Parts& parts) {
    parts.interval_start = start_field;
    parts.interval_end = end_field;
  });
}

DataTypePtr DataType::YearMonthInterval(int start_field, int end_field) {
  return MakeType(TypeId::kYearMonthInterval, [&](Parts& parts) {
    parts.interval_start = start_field;
    parts.interval_end = end_field;
  });
}

Result<DataTypePtr> DataType::Decimal(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 || scale > precision) {
    return Status::InvalidArgument(
        fmt::format("invalid decimal({},{}): precision must be 1..38 and scale 0..precision",
                    precision, scale));
  }
  return MakeType(TypeId::kDecimal, [&](Parts& parts) {
    parts.precision = precision;
    parts.scale = scale;
  });
}

DataTypePtr DataType::Struct(std::vector<Field> fields) {
  return MakeType(TypeId::kStruct, [&](Parts& parts) { parts.fields = std::move(fields); });
}

DataTypePtr DataType::Array(DataTypePtr element, bool contains_null) {
  return MakeType(TypeId::kArray, [&](Parts& parts) {
    parts.first = std::move(element);
    parts.contains_null = contains_null;
  });
}

DataTypePtr DataType::Map(DataTypePtr key, DataTypePtr value, bool value_contains_null) {
  return MakeType(TypeId::kMap, [&](Parts& parts) {
    parts.first = std::move(key);
    parts.second = std::move(value);
    parts.contains_null = value_contains_null;
  });
}

int DataType::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].Name() == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int DataType::ByteWidth() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kFloat32:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return 4;
    case TypeId::kInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return 8;
    case TypeId::kDecimal:
    case TypeId::kCalendarInterval:
      return 16;
    default:
      return 0;
  }
}

bool DataType::IsInteger() const {
  return id_ == TypeId::kInt8 || id_ == TypeId::kInt16 || id_ == TypeId::kInt32 ||
         id_ == TypeId::kInt64;
}

bool DataType::IsNumeric() const {
  return IsInteger() || IsFloatingPoint() || id_ == TypeId::kDecimal;
}

bool DataType::IsNested() const {
  return id_ == TypeId::kStruct || id_ == TypeId::kArray || id_ == TypeId::kMap;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) {
    return true;
  }
  if (id_ != other.id_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      contains_null_ != other.contains_null_ || fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) {
      return false;
    }
  }
  auto same = [](const DataTypePtr& a, const DataTypePtr& b) {
    return (a == nullptr) == (b == nullptr) && (a == nullptr || a->Equals(*b));
  };
  return same(first_, other.first_) && same(second_, other.second_);
}

bool DataType::SameShape(const DataType& other) const {
  if (id_ != other.id_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].Name() != other.fields_[i].Name() ||
        !fields_[i].Type()->SameShape(*other.fields_[i].Type())) {
      return false;
    }
  }
  auto same = [](const DataTypePtr& a, const DataTypePtr& b) {
    return (a == nullptr) == (b == nullptr) && (a == nullptr || a->SameShape(*b));
  };
  return same(first_, other.first_) && same(second_, other.second_);
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kNull:
      return "void";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "int";
    case TypeId::kInt64:
      return "bigint";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kDecimal:
      return fmt::format("decimal({},{})", precision_, scale_);
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    case TypeId::kCalendarInterval:
      return "interval";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) {
          out += ',';
        }
        out += fields_[i].Name();
        out += ':';
        out += fields_[i].Type()->ToString();
      }
      return out + ">";
    }
    case TypeId::kArray:
      return fmt::format("array<{}>", first_->ToString());
    case TypeId::kMap:
      return fmt::format("map<{},{}>", first_->ToString(), second_->ToString());
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval: {
      // Spark's typeName: "interval day", "interval hour to second", "interval year to month".
      static constexpr std::string_view kDayTime[] = {"day", "hour", "minute", "second"};
      static constexpr std::string_view kYearMonth[] = {"year", "month"};
      const bool day_time = id_ == TypeId::kDayTimeInterval;
      const auto name = [&](int field) {
        return day_time ? kDayTime[field] : kYearMonth[field];
      };
      if (interval_start_ == interval_end_) {
        return fmt::format("interval {}", name(interval_start_));
      }
      return fmt::format("interval {} to {}", name(interval_start_), name(interval_end_));
    }
  }
  return "unknown";
}

std::string DataType::Sql() const {
  switch (id_) {
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& field = fields_[i];
        if (i > 0) {
          out += ", ";
        }
        // Spark's quoteIfNeeded: a name of letters, digits and '_' (not all digits) stays bare.
        const std::string& name = field.Name();
        const bool bare = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
        }) && !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        });
        if (bare) {
          out += name;
        } else {
          out.push_back('`');
          for (char c : name) {
            out.push_back(c);
            if (c == '`') {
              out.push_back(c);
            }
          }
          out.push_back('`');
        }
        out += ": ";
        out += field.Type()->Sql();
        if (!field.Nullable()) {
          out += " NOT NULL";
        }
      }
      return out + ">";
    }
    case TypeId::kArray:
      return fmt::format("ARRAY<{}>", first_->Sql());
    case TypeId::kMap:
      return fmt::format("MAP<{}, {}>", first_->Sql(), second_->Sql());
    default:
      return AsciiUpper(ToString());
  }
}

}  // namespace tributary::columnar

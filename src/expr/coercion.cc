#include "expr/coercion.h"

#include <algorithm>

#include "columnar/decimal.h"

namespace tributary::expr {

using columnar::TypeId;

bool IsDatetime(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
}

BoundExprPtr MakeBound(Op op, DataTypePtr type, std::vector<BoundExprPtr> children, int index,
                       Scalar literal, std::string name) {
  return std::make_shared<const BoundExpression>(op, std::move(type), std::move(children), index,
                                                 std::move(literal), std::move(name));
}

BoundExprPtr CastTo(BoundExprPtr input, const DataTypePtr& type) {
  const DataType& from = *input->Type();
  // Intervals of one kind share a shape whatever their fields, but the fields decide how a
  // value prints and casts to numbers: a widened one is relabelled (a free cast).
  const bool same_fields = from.IntervalStartField() == type->IntervalStartField() &&
                           from.IntervalEndField() == type->IntervalEndField();
  if (from.SameShape(*type) && same_fields) {
    return input;
  }
  if (input->GetOp() == Op::kLiteral && input->Literal().IsNull()) {
    return MakeBound(Op::kLiteral, type, {}, -1, Scalar::Null(type));
  }
  return MakeBound(Op::kCast, type, {std::move(input)});
}

DataTypePtr DecimalOrDie(int precision, int scale) {
  return DataType::Decimal(precision, scale).ValueOrDie();
}

DataTypePtr AsDecimal(const DataTypePtr& type) {
  if (type->Id() == TypeId::kDecimal) {
    return type;
  }
  return DecimalOrDie(columnar::DecimalDigitsOfInteger(type->Id()), 0);
}

DataTypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= columnar::kMaxDecimalPrecision) {
    return DecimalOrDie(precision, scale);
  }
  const int int_digits = precision - scale;
  const int min_scale = std::min(scale, 6);
  const int adjusted_scale = std::max(columnar::kMaxDecimalPrecision - int_digits, min_scale);
  return DecimalOrDie(columnar::kMaxDecimalPrecision, adjusted_scale);
}

namespace {

int Rank(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
      return 3;
    case TypeId::kInt64:
      return 4;
    case TypeId::kFloat32:
      return 6;
    case TypeId::kFloat64:
      return 7;
    default:
      return 0;
  }
}

}  // namespace

DataTypePtr WiderNumeric(const DataTypePtr& a, const DataTypePtr& b) {
  const bool a_dec = a->Id() == TypeId::kDecimal;
  const bool b_dec = b->Id() == TypeId::kDecimal;
  if (a_dec || b_dec) {
    if (a->IsFloatingPoint() || b->IsFloatingPoint()) {
      return DataType::Float64();
    }
    const DataTypePtr da = AsDecimal(a);
    const DataTypePtr db = AsDecimal(b);
    const int scale = std::max(da->Scale(), db->Scale());
    const int int_digits = std::max(da->Precision() - da->Scale(), db->Precision() - db->Scale());
    return DecimalOrDie(std::min(int_digits + scale, columnar::kMaxDecimalPrecision),
                        std::min(scale, columnar::kMaxDecimalPrecision));
  }
  return Rank(a->Id()) >= Rank(b->Id()) ? a : b;
}

DataTypePtr OtherIfNullType(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->Id() == TypeId::kNull) {
    return b;
  }
  return b->Id() == TypeId::kNull ? a : nullptr;
}

namespace {

// The rules comparison and widening start with (Spark's findTightestCommonType): a null type
// takes the other type, two numbers widen; null when neither applies.
DataTypePtr TightestOfNullOrNumeric(const DataTypePtr& a, const DataTypePtr& b) {
  if (DataTypePtr other = OtherIfNullType(a, b)) {
    return other;
  }
  return a->IsNumeric() && b->IsNumeric() ? WiderNumeric(a, b) : nullptr;
}

}  // namespace

DataTypePtr StringPromotionType(const DataTypePtr& a, const DataTypePtr& b) {
  const bool a_string = a->Id() == TypeId::kString;
  const bool b_string = b->Id() == TypeId::kString;
  if (a_string == b_string) {
    return nullptr;
  }
  const DataTypePtr& other = a_string ? b : a;
  const TypeId id = other->Id();
  if (other->IsInteger()) {
    return DataType::Int64();
  }
  if (other->IsNumeric()) {
    return DataType::Float64();  // float, double and decimal: Spark's FractionalType
  }
  if (id == TypeId::kBoolean || id == TypeId::kBinary || IsDatetime(id)) {
    return other;
  }
  return nullptr;
}

DataTypePtr ComparisonType(const DataTypePtr& a, const DataTypePtr& b) {
  if (DataTypePtr tightest = TightestOfNullOrNumeric(a, b)) {
    return tightest;
  }
  const TypeId x = a->Id();
  const TypeId y = b->Id();
  if ((x == TypeId::kDayTimeInterval || x == TypeId::kYearMonthInterval) && x == y) {
    // Spark's wider interval: the coarsest start and finest end field of the two.
    const int start = std::min(a->IntervalStartField(), b->IntervalStartField());
    const int end = std::max(a->IntervalEndField(), b->IntervalEndField());
    return x == TypeId::kYearMonthInterval ? DataType::YearMonthInterval(start, end)
                                           : DataType::DayTimeInterval(start, end);
  }
  if (a->SameShape(*b)) {
    return a;
  }
  if (a->IsNested() && b->IsNested()) {
    // array<int> against array<bigint>: both widen to one type (Spark's findWiderTypeForTwo).
    const DataTypePtr both[] = {a, b};
    return CommonType(both);
  }
  if (IsDatetime(x) && IsDatetime(y)) {
    if (x == TypeId::kTimestamp || y == TypeId::kTimestamp) {
      return DataType::Timestamp();
    }
    return DataType::TimestampNtz();
  }
  // Spark's ANSI string promotion: a string compared with an integer is read as a bigint, with
  // a float, double or decimal as a double (so 1.5 = '1.51' is false, not '1.51' cut to
  // decimal(2,1)), with a boolean, date, timestamp or binary as that type.
  return StringPromotionType(a, b);
}

namespace {

DataTypePtr WiderOfTwo(const DataTypePtr& a, const DataTypePtr& b) {
  if (DataTypePtr tightest = TightestOfNullOrNumeric(a, b)) {
    return tightest;
  }
  const TypeId x = a->Id();
  const TypeId y = b->Id();
  if (x == TypeId::kArray && y == TypeId::kArray) {
    DataTypePtr element = WiderOfTwo(a->ElementType(), b->ElementType());
    return element ? DataType::Array(element, a->ContainsNull() || b->ContainsNull()) : nullptr;
  }
  if (x == TypeId::kMap && y == TypeId::kMap) {
    DataTypePtr key = WiderOfTwo(a->KeyType(), b->KeyType());
    DataTypePtr value = WiderOfTwo(a->ValueType(), b->ValueType());
    return key && value ? DataType::Map(key, value, a->ContainsNull() || b->ContainsNull())
                        : nullptr;
  }
  if ((x == TypeId::kDayTimeInterval || x == TypeId::kYearMonthInterval) && x == y) {
    // Spark's wider interval: the coarsest start and finest end field of the two.
    const int start = std::min(a->IntervalStartField(), b->IntervalStartField());
    const int end = std::max(a->IntervalEndField(), b->IntervalEndField());
    return x == TypeId::kYearMonthInterval ? DataType::YearMonthInterval(start, end)
                                           : DataType::DayTimeInterval(start, end);
  }
  if (a->SameShape(*b)) {
    return a;
  }
  if (IsDatetime(x) && IsDatetime(y)) {
    return x == TypeId::kTimestamp || y == TypeId::kTimestamp ? DataType::Timestamp()
                                                              : DataType::TimestampNtz();
  }
  // Spark's ANSI findWiderTypeForTwo promotes a string to the other side's atomic type
  // (coalesce(1, '2') is a bigint); beside an interval or a nested type there is none.
  return StringPromotionType(a, b);
}

}  // namespace

DataTypePtr CommonType(std::span<const DataTypePtr> types) {
  DataTypePtr result = DataType::Null();
  for (const DataTypePtr& type : types) {
    result = WiderOfTwo(result, type);
    if (result == nullptr) {
      return nullptr;
    }
  }
  return result;
}

}  // namespace tributary::expr

// CAST between tributary's types with Spark's ANSI semantics: a value that does not convert
// (unparsable text, out of range, NaN to an integer) fails the cast, or becomes null under
// try_cast. Conversion loops only mark failed rows; the error or the nulls follow per batch.

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/calendar_interval.h"
#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "expr/interval_text.h"
#include "expr/kernels.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

using columnar::Buffer;
using columnar::Int128;
using columnar::TypeId;

namespace {

using Failed = std::vector<uint8_t>;

// Turns the marked rows of a finished conversion into an ANSI error or, for try_cast, nulls.
Result<ColumnPtr> Conclude(const Column& input, const DataTypePtr& type, bool safe,
                           const Failed& failed, BufferPtr values, BufferPtr offsets,
                           MemoryPool* pool) {
  const int64_t n = input.Length();
  BufferPtr validity = input.ValidityBuffer();
  int64_t first = -1;
  for (int64_t i = 0; i < n && !failed.empty(); ++i) {
    if (failed[static_cast<size_t>(i)] && input.IsValid(i)) {
      first = i;
      break;
    }
  }
  if (first >= 0) {
    if (!safe) {
      std::string value;
      columnar::AppendCanonicalJsonValue(input, first, &value);
      const bool parse = input.Type()->Id() == TypeId::kString;
      if (parse && value.size() >= 2 && value.front() == '"') {
        // Spark shows the string as a SQL literal.
        value.front() = '\'';
        value.back() = '\'';
      }
      // Spark's messages, then the row.
      if (parse) {
        return Status::InvalidArgument(fmt::format(
            "[CAST_INVALID_INPUT] The value {} of the type \"{}\" cannot be cast to \"{}\" "
            "because it is malformed. Correct the value as per the syntax, or change its target "
            "type. Use `try_cast` to tolerate malformed input and return NULL instead. (row {})",
            value, input.Type()->Sql(), type->Sql(), first));
      }
      return Status::InvalidArgument(fmt::format(
          "[CAST_OVERFLOW] The value {} of the type \"{}\" cannot be cast to \"{}\" due to an "
          "overflow. Use `try_cast` to tolerate overflow and return NULL instead. (row {})",
          value, input.Type()->Sql(), type->Sql(), first));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(n), pool));
    for (int64_t i = 0; i < n; ++i) {
      columnar::SetBitTo(bits->mutable_data(), i,
                         input.IsValid(i) && !failed[static_cast<size_t>(i)]);
    }
    validity = std::move(bits);
  }
  return Column::Make(type, n, std::move(validity), std::move(values), std::move(offsets));
}

template <typename To, typename From>
bool InRange(From v) {
  if constexpr (std::is_floating_point_v<From>) {
    // Spark truncates toward zero before the range check (smallint(-32768.6) is -32768). NaN
    // fails both comparisons. Bounds are exact powers of two, so they convert exactly.
    const From truncated = std::trunc(v);
    return truncated >= static_cast<From>(std::numeric_limits<To>::min()) &&
           truncated < -static_cast<From>(std::numeric_limits<To>::min());
  } else {
    return v >= std::numeric_limits<To>::min() && v <= std::numeric_limits<To>::max();
  }
}

// Integer/float/boolean sources to integer/float targets. Booleans are stored as uint8_t.
template <typename From, typename To>
void NumericLoop(const From* in, To* out, int64_t n, Failed* failed) {
  for (int64_t i = 0; i < n; ++i) {
    const From v = in[i];
    if constexpr (std::is_integral_v<To> && !std::is_same_v<To, uint8_t>) {
      const bool ok = InRange<To>(v);
      if constexpr (std::is_floating_point_v<From> && std::is_same_v<To, int64_t>) {
        // Spark compares floor(v) with Long.MaxValue as a double, which is 2^63: 2^63 itself
        // passes and Java's toLong saturates it (bigint(float('9223372036854775807'))).
        if (v == -static_cast<From>(std::numeric_limits<int64_t>::min())) {
          out[i] = std::numeric_limits<int64_t>::max();
          continue;
        }
      }
      (*failed)[static_cast<size_t>(i)] = !ok;
      out[i] = ok ? static_cast<To>(v) : To{0};
    } else {
      out[i] = static_cast<To>(v);
    }
  }
}

template <typename From>
Result<ColumnPtr> FromPrimitive(const Column& input, const From* in, const DataTypePtr& type,
                                bool safe, MemoryPool* pool) {
  const int64_t n = input.Length();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), pool));
  Failed failed(static_cast<size_t>(n), 0);
  switch (type->Id()) {
    case TypeId::kBoolean:
      for (int64_t i = 0; i < n; ++i) {
        values->mutable_data()[i] = in[i] != From{0};
      }
      break;
    case TypeId::kInt8:
      NumericLoop(in, values->MutableDataAs<int8_t>(), n, &failed);
      break;
    case TypeId::kInt16:
      NumericLoop(in, values->MutableDataAs<int16_t>(), n, &failed);
      break;
    case TypeId::kInt32:
      NumericLoop(in, values->MutableDataAs<int32_t>(), n, &failed);
      break;
    case TypeId::kInt64:
      NumericLoop(in, values->MutableDataAs<int64_t>(), n, &failed);
      break;
    case TypeId::kFloat32:
      NumericLoop(in, values->MutableDataAs<float>(), n, &failed);
      break;
    case TypeId::kFloat64:
      NumericLoop(in, values->MutableDataAs<double>(), n, &failed);
      break;
    case TypeId::kDecimal: {
      Int128* out = values->MutableDataAs<Int128>();
      for (int64_t i = 0; i < n; ++i) {
        bool ok;
        if constexpr (std::is_floating_point_v<From>) {
          // Through the shortest text of the value, as Spark converts doubles to decimals.
          char text[64];
          auto result = std::to_chars(text, text + sizeof(text), in[i]);
          ok = std::isfinite(in[i]) &&
               ParseDecimal(std::string_view(text, static_cast<size_t>(result.ptr - text)),
                            type->Precision(), type->Scale(), &out[i]);
        } else {
          ok = !__builtin_mul_overflow(static_cast<Int128>(in[i]),
                                       columnar::PowerOfTen(type->Scale()), &out[i]) &&
               columnar::FitsPrecision(out[i], type->Precision());
        }
        failed[static_cast<size_t>(i)] = !ok;
      }
      break;
    }
    case TypeId::kTimestamp:
      if constexpr (std::is_integral_v<From>) {
        int64_t* out = values->MutableDataAs<int64_t>();
        for (int64_t i = 0; i < n; ++i) {
          failed[static_cast<size_t>(i)] = __builtin_mul_overflow(
              static_cast<int64_t>(in[i]), columnar::kMicrosPerSecond, &out[i]);
        }
        break;
      }
      [[fallthrough]];
    default:
      return Status::Internal(
          fmt::format("cast from {} to {}", input.Type()->ToString(), type->ToString()));
  }
  return Conclude(input, type, safe, failed, std::move(values), nullptr, pool);
}

Result<ColumnPtr> FromDecimal(const Column& input, const DataTypePtr& type, bool safe,
                              MemoryPool* pool) {
  const int64_t n = input.Length();
  const Int128* in = input.Values<Int128>();
  const int scale = input.Type()->Scale();
  if (type->Id() == TypeId::kDecimal) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * 16, pool));
    Int128* out = values->MutableDataAs<Int128>();
    Failed failed(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {
      bool ok;
      if (type->Scale() >= scale) {
        ok = !__builtin_mul_overflow(in[i], columnar::PowerOfTen(type->Scale() - scale), &out[i]);
      } else {
        const Int128 divisor = columnar::PowerOfTen(scale - type->Scale());
        Int128 q = in[i] / divisor;
        const Int128 r = in[i] % divisor;
        if ((r < 0 ? -r : r) * 2 >= divisor) {
          q += in[i] < 0 ? -1 : 1;
        }
        out[i] = q;
        ok = true;
      }
      failed[static_cast<size_t>(i)] = !(ok && columnar::FitsPrecision(out[i], type->Precision()));
    }
    return Conclude(input, type, safe, failed, std::move(values), nullptr, pool);
  }
  if (type->IsFloatingPoint()) {
    // Through the decimal text, which strtod-style parsing rounds correctly.
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), pool));
    std::string text;
    for (int64_t i = 0; i < n; ++i) {
      text.clear();
      columnar::AppendDecimal(in[i], scale, &text);
      double value = 0;
      std::from_chars(text.data(), text.data() + text.size(), value);
      if (type->Id() == TypeId::kFloat32) {
        values->MutableDataAs<float>()[i] = static_cast<float>(value);
      } else {
        values->MutableDataAs<double>()[i] = value;
      }
    }
    return Column::Make(type, n, input.ValidityBuffer(), std::move(values));
  }
  // Integers and booleans: truncate the fraction toward zero, then range-check as int64.
  std::vector<int64_t> truncated(static_cast<size_t>(n));
  Failed overflow(static_cast<size_t>(n), 0);
  const Int128 divisor = columnar::PowerOfTen(scale);
  for (int64_t i = 0; i < n; ++i) {
    const Int128 whole = in[i] / divisor;
    overflow[static_cast<size_t>(i)] = !InRange<int64_t>(whole);
    truncated[static_cast<size_t>(i)] = static_cast<int64_t>(whole);
  }
  if (type->Id() == TypeId::kBoolean) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n, pool));
    for (int64_t i = 0; i < n; ++i) {
      values->mutable_data()[i] = in[i] != 0;
    }
    return Column::Make(type, n, input.ValidityBuffer(), std::move(values));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto as_long, Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(truncated.data()),
                                                    truncated.size() * 8),
                                   pool));
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto long_column,
      Column::Make(DataType::Int64(), n, input.ValidityBuffer(), std::move(as_long)));
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto result, FromPrimitive(*long_column, long_column->Values<int64_t>(), type, true, pool));
  // Report against the decimal input, not the intermediate long.
  Failed failed(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    failed[static_cast<size_t>(i)] =
        overflow[static_cast<size_t>(i)] || (input.IsValid(i) && result->IsNull(i));
  }
  return Conclude(input, type, safe, failed, result->ValuesBuffer(), nullptr, pool);
}

// Java's Double.toString, which Spark's CAST(double AS STRING) prints: plain between 1e-3 and
// 1e7 ("0.001", "1234567.0"), else computerized scientific ("1.0E7", "1.5E-4").
void AppendJavaDouble(double value, bool is_float, std::string* out) {
  if (std::isnan(value)) {
    *out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    *out += value > 0 ? "Infinity" : "-Infinity";
    return;
  }
  const double magnitude = std::fabs(value);
  if (magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
    std::string repr;
    columnar::AppendJsonDouble(value, is_float, &repr);
    *out += repr;
    return;
  }
  char buffer[64];
  auto result = is_float ? std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(value),
                                         std::chars_format::scientific)
                         : std::to_chars(buffer, buffer + sizeof(buffer), value,
                                         std::chars_format::scientific);
  std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));
  const size_t e = sci.find('e');
  std::string_view mantissa = sci.substr(0, e);
  int exponent = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (exp_text[0] == '+') {
    exp_text.remove_prefix(1);
  }
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  *out += mantissa;
  if (mantissa.find('.') == std::string_view::npos) {
    *out += ".0";
  }
  fmt::format_to(std::back_inserter(*out), "E{}", exponent);
}

void AppendValueAsString(const Column& column, int64_t row, const EvalContext& context,
                         std::string* out);

void AppendNestedAsString(const Column& column, int64_t row, const EvalContext& context,
                          std::string* out) {
  const DataType& type = *column.Type();
  auto element = [&](const Column& child, int64_t i) {
    if (child.IsNull(i)) {
      *out += "null";
    } else {
      AppendValueAsString(child, i, context, out);
    }
  };
  if (type.Id() == TypeId::kStruct) {
    out->push_back('{');
    for (int c = 0; c < column.NumChildren(); ++c) {
      *out += c > 0 ? ", " : "";
      element(*column.Child(c), row);
    }
    out->push_back('}');
    return;
  }
  const int64_t begin = column.Offsets()[row];
  const int64_t end = column.Offsets()[row + 1];
  out->push_back(type.Id() == TypeId::kArray ? '[' : '{');
  for (int64_t i = begin; i < end; ++i) {
    *out += i > begin ? ", " : "";
    element(*column.Child(0), i);
    if (type.Id() == TypeId::kMap) {
      *out += " -> ";
      element(*column.Child(1), i);
    }
  }
  out->push_back(type.Id() == TypeId::kArray ? ']' : '}');
}

// Spark's text of one non-null value (CAST(x AS STRING)).
void AppendValueAsString(const Column& column, int64_t row, const EvalContext& context,
                         std::string* out) {
  switch (column.Type()->Id()) {
    case TypeId::kBoolean:
      *out += column.Values<uint8_t>()[row] ? "true" : "false";
      return;
    case TypeId::kFloat32:
      AppendJavaDouble(column.Values<float>()[row], true, out);
      return;
    case TypeId::kFloat64:
      AppendJavaDouble(column.Values<double>()[row], false, out);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      *out += column.BytesAt(row);
      return;
    case TypeId::kDecimal:
      columnar::AppendDecimal(column.Values<Int128>()[row], column.Type()->Scale(), out);
      return;
    case TypeId::kDate:
      columnar::AppendDate(column.Values<int32_t>()[row], out);
      return;
    case TypeId::kTimestamp:
      columnar::AppendTimestampSpark(
          context.session_time_zone.LocalFromUtc(column.Values<int64_t>()[row]), out);
      return;
    case TypeId::kTimestampNtz:
      columnar::AppendTimestampSpark(column.Values<int64_t>()[row], out);
      return;
    case TypeId::kDayTimeInterval:
      columnar::AppendDayTimeInterval(column.Values<int64_t>()[row],
                                      column.Type()->IntervalStartField(),
                                      column.Type()->IntervalEndField(), out);
      return;
    case TypeId::kYearMonthInterval:
      columnar::AppendYearMonthInterval(column.Values<int32_t>()[row],
                                        column.Type()->IntervalStartField(),
                                        column.Type()->IntervalEndField(), out);
      return;
    case TypeId::kCalendarInterval:
      columnar::AppendCalendarInterval(column.Values<columnar::CalendarInterval>()[row], out);
      return;
    case TypeId::kStruct:
    case TypeId::kArray:
    case TypeId::kMap:
      AppendNestedAsString(column, row, context, out);
      return;
    default:
      columnar::AppendCanonicalJsonValue(column, row, out);  // integers print alike
      return;
  }
}

Result<ColumnPtr> ToStringColumn(const Column& input, const DataTypePtr& type,
                                 const EvalContext& context) {
  columnar::ColumnBuilder builder(type, context.pool);
  std::string text;
  for (int64_t i = 0; i < input.Length(); ++i) {
    if (input.IsNull(i)) {
      builder.AppendNull();
      continue;
    }
    text.clear();
    AppendValueAsString(input, i, context, &text);
    builder.AppendBytes(text);
  }
  return builder.Finish();
}

Result<ColumnPtr> FromString(const Column& input, const DataTypePtr& type,
                             const EvalContext& context, bool safe) {
  const int64_t n = input.Length();
  if (type->Id() == TypeId::kBinary) {
    return Column::Make(type, n, input.ValidityBuffer(), input.ValuesBuffer(),
                        input.OffsetsBuffer());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), context.pool));
  Failed failed(static_cast<size_t>(n), 0);
  uint8_t* out = values->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (input.IsNull(i)) {
      continue;
    }
    const std::string_view text = input.BytesAt(i);
    bool ok = false;
    switch (type->Id()) {
      case TypeId::kBoolean: {
        bool value = false;
        ok = ParseBoolean(text, &value);
        out[i] = value;
        break;
      }
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64: {
        int64_t value = 0;
        ok = ParseInt64(text, &value);
        switch (type->Id()) {
          case TypeId::kInt8:
            ok = ok && InRange<int8_t>(value);
            reinterpret_cast<int8_t*>(out)[i] = static_cast<int8_t>(value);
            break;
          case TypeId::kInt16:
            ok = ok && InRange<int16_t>(value);
            reinterpret_cast<int16_t*>(out)[i] = static_cast<int16_t>(value);
            break;
          case TypeId::kInt32:
            ok = ok && InRange<int32_t>(value);
            reinterpret_cast<int32_t*>(out)[i] = static_cast<int32_t>(value);
            break;
          default:
            reinterpret_cast<int64_t*>(out)[i] = value;
            break;
        }
        break;
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        double value = 0;
        ok = ParseDouble(text, &value);
        if (type->Id() == TypeId::kFloat32) {
          reinterpret_cast<float*>(out)[i] = static_cast<float>(value);
        } else {
          reinterpret_cast<double*>(out)[i] = value;
        }
        break;
      }
      case TypeId::kDecimal:
        ok = ParseDecimal(text, type->Precision(), type->Scale(),
                          &reinterpret_cast<Int128*>(out)[i]);
        break;
      case TypeId::kDate:
        ok = ParseDate(text, &reinterpret_cast<int32_t*>(out)[i]);
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        ok = ParseTimestamp(text, context.session_time_zone, type->Id() == TypeId::kTimestampNtz,
                            &reinterpret_cast<int64_t*>(out)[i]);
        break;
      case TypeId::kYearMonthInterval:
        ok = ParseYearMonthIntervalText(text, &reinterpret_cast<int32_t*>(out)[i]);
        break;
      case TypeId::kDayTimeInterval:
        ok = ParseDayTimeIntervalText(text, type->IntervalStartField(), type->IntervalEndField(),
                                      &reinterpret_cast<int64_t*>(out)[i]);
        break;
      case TypeId::kCalendarInterval:
        ok = columnar::ParseCalendarInterval(
            text, &reinterpret_cast<columnar::CalendarInterval*>(out)[i]);
        break;
      default:
        return Status::Internal("cast from string to " + type->ToString());
    }
    failed[static_cast<size_t>(i)] = !ok;
  }
  // Spark's CAST(string AS interval) is null for text that is not an interval even under ANSI
  // (Cast.castToInterval: IntervalUtils.safeStringToInterval).
  const bool null_on_failure = safe || type->Id() == TypeId::kCalendarInterval;
  return Conclude(input, type, null_on_failure, failed, std::move(values), nullptr, context.pool);
}

Result<ColumnPtr> FromTemporal(const Column& input, const DataTypePtr& type, bool safe,
                               const EvalContext& context) {
  const int64_t n = input.Length();
  const TypeId from = input.Type()->Id();
  const TimeZone& zone = context.session_time_zone;
  if (type->IsNumeric() && !type->IsInteger()) {
    // timestamp -> seconds since the epoch with their fraction, as Spark's timestampToDouble
    // (float and decimal through that double).
    std::vector<double> seconds(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      seconds[static_cast<size_t>(i)] = static_cast<double>(input.Values<int64_t>()[i]) /
                                        static_cast<double>(columnar::kMicrosPerSecond);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto buffer, Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(seconds.data()),
                                                     seconds.size() * 8),
                                    context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto doubles,
        Column::Make(DataType::Float64(), n, input.ValidityBuffer(), std::move(buffer)));
    if (type->Id() == TypeId::kFloat64) {
      return doubles;
    }
    return FromPrimitive(*doubles, doubles->Values<double>(), type, safe, context.pool);
  }
  if (type->IsInteger()) {  // timestamp -> whole seconds since the epoch
    std::vector<int64_t> seconds(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      seconds[static_cast<size_t>(i)] =
          columnar::FloorDiv(input.Values<int64_t>()[i], columnar::kMicrosPerSecond);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto buffer, Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(seconds.data()),
                                                     seconds.size() * 8),
                                    context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto longs, Column::Make(DataType::Int64(), n, input.ValidityBuffer(), std::move(buffer)));
    return FromPrimitive(*longs, longs->Values<int64_t>(), type, safe, context.pool);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), context.pool));
  Failed failed(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    // Wall-clock microseconds of the input in the session zone.
    int64_t local = 0;
    if (from == TypeId::kDate) {
      failed[static_cast<size_t>(i)] = __builtin_mul_overflow(
          static_cast<int64_t>(input.Values<int32_t>()[i]), columnar::kMicrosPerDay, &local);
    } else {
      local = from == TypeId::kTimestamp ? zone.LocalFromUtc(input.Values<int64_t>()[i])
                                         : input.Values<int64_t>()[i];
    }
    switch (type->Id()) {
      case TypeId::kDate:
        values->MutableDataAs<int32_t>()[i] =
            static_cast<int32_t>(columnar::FloorDiv(local, columnar::kMicrosPerDay));
        break;
      case TypeId::kTimestamp:
        values->MutableDataAs<int64_t>()[i] = zone.UtcFromLocal(local);
        break;
      default:
        values->MutableDataAs<int64_t>()[i] = local;
        break;
    }
  }
  return Conclude(input, type, safe, failed, std::move(values), nullptr, context.pool);
}

// How many of an interval's stored units (microseconds, months) make one unit of its end
// field: casts between intervals and numbers count in that field, as Spark's
// dayTimeIntervalToLong and longToDayTimeInterval do (INTERVAL '10' DAY is 10).
int64_t IntervalCastUnit(const DataType& interval) {
  static constexpr int64_t kDayTimeUnits[] = {
      columnar::kMicrosPerDay, 3600 * columnar::kMicrosPerSecond, 60 * columnar::kMicrosPerSecond,
      columnar::kMicrosPerSecond};
  if (interval.Id() == TypeId::kYearMonthInterval) {
    return interval.IntervalEndField() == columnar::IntervalField::kYear ? 12 : 1;
  }
  return kDayTimeUnits[interval.IntervalEndField()];
}

// Interval -> integral or decimal. Integers take the whole count of end-field units (toward
// zero); decimals keep a seconds fraction, rounded half up to the target's scale.
Result<ColumnPtr> FromIntervalToNumber(const Column& input, const DataTypePtr& type, bool safe,
                                       MemoryPool* pool) {
  const int64_t n = input.Length();
  const bool months = input.Type()->Id() == TypeId::kYearMonthInterval;
  const int64_t unit = IntervalCastUnit(*input.Type());
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), pool));
  Failed failed(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = months ? input.Values<int32_t>()[i] : input.Values<int64_t>()[i];
    bool ok = true;
    if (type->Id() == TypeId::kDecimal) {
      // The value as a decimal of scale 6 for a seconds end field (microseconds), else whole.
      const bool seconds = !months && unit == columnar::kMicrosPerSecond;
      const Int128 unscaled = seconds ? Int128{v} : Int128{v / unit};
      const int scale = seconds ? 6 : 0;
      Int128 out = 0;
      if (type->Scale() >= scale) {
        ok = !__builtin_mul_overflow(unscaled, columnar::PowerOfTen(type->Scale() - scale), &out);
      } else {
        const Int128 divisor = columnar::PowerOfTen(scale - type->Scale());
        out = unscaled / divisor;
        const Int128 rest = unscaled % divisor;
        if ((rest < 0 ? -rest : rest) * 2 >= divisor) {
          out += unscaled < 0 ? -1 : 1;
        }
      }
      ok = ok && columnar::FitsPrecision(out, type->Precision());
      values->MutableDataAs<Int128>()[i] = ok ? out : Int128{0};
    } else {
      const int64_t whole = v / unit;
      switch (type->Id()) {
        case TypeId::kInt8:
          ok = InRange<int8_t>(whole);
          values->MutableDataAs<int8_t>()[i] = static_cast<int8_t>(whole);
          break;
        case TypeId::kInt16:
          ok = InRange<int16_t>(whole);
          values->MutableDataAs<int16_t>()[i] = static_cast<int16_t>(whole);
          break;
        case TypeId::kInt32:
          ok = InRange<int32_t>(whole);
          values->MutableDataAs<int32_t>()[i] = static_cast<int32_t>(whole);
          break;
        case TypeId::kInt64:
          values->MutableDataAs<int64_t>()[i] = whole;
          break;
        default:
          return Status::Internal(
              fmt::format("cast from {} to {}", input.Type()->ToString(), type->ToString()));
      }
    }
    failed[static_cast<size_t>(i)] = !ok;
  }
  return Conclude(input, type, safe, failed, std::move(values), nullptr, pool);
}

// Integral or decimal -> interval: the number counts units of the target's end field
// (CAST(10 AS INTERVAL DAY) is ten days); decimals round half up to whole microseconds or
// months. Values outside the interval's range fail.
Result<ColumnPtr> FromNumberToInterval(const Column& input, const DataTypePtr& type, bool safe,
                                       MemoryPool* pool) {
  const int64_t n = input.Length();
  const DataType& from = *input.Type();
  const bool months = type->Id() == TypeId::kYearMonthInterval;
  const Int128 unit = IntervalCastUnit(*type);
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::Allocate(n * type->ByteWidth(), pool));
  Failed failed(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (input.IsNull(i)) {
      continue;
    }
    Int128 number = 0;
    int scale = 0;
    switch (from.Id()) {
      case TypeId::kInt8:
        // NOLINTNEXTLINE(bugprone-signed-char-misuse): a tinyint is a number
        number = input.Values<int8_t>()[i];
        break;
      case TypeId::kInt16:
        number = input.Values<int16_t>()[i];
        break;
      case TypeId::kInt32:
        number = input.Values<int32_t>()[i];
        break;
      case TypeId::kInt64:
        number = input.Values<int64_t>()[i];
        break;
      case TypeId::kDecimal:
        number = input.Values<Int128>()[i];
        scale = from.Scale();
        break;
      default:
        return Status::Internal(
            fmt::format("cast from {} to {}", from.ToString(), type->ToString()));
    }
    Int128 product = 0;
    bool ok = !__builtin_mul_overflow(number, unit, &product);
    if (ok && scale > 0) {
      const Int128 divisor = columnar::PowerOfTen(scale);
      const Int128 rest = product % divisor;
      product /= divisor;
      if ((rest < 0 ? -rest : rest) * 2 >= divisor) {
        product += rest < 0 ? -1 : 1;
      }
    }
    if (months) {
      ok = ok && product >= INT32_MIN && product <= INT32_MAX;
      values->MutableDataAs<int32_t>()[i] = ok ? static_cast<int32_t>(product) : 0;
    } else {
      ok = ok && product >= INT64_MIN && product <= INT64_MAX;
      values->MutableDataAs<int64_t>()[i] = ok ? static_cast<int64_t>(product) : 0;
    }
    failed[static_cast<size_t>(i)] = !ok;
  }
  return Conclude(input, type, safe, failed, std::move(values), nullptr, pool);
}

Result<ColumnPtr> FromNested(const Column& input, const DataTypePtr& type, bool safe,
                             const EvalContext& context) {
  std::vector<ColumnPtr> children;
  for (int c = 0; c < input.NumChildren(); ++c) {
    const DataTypePtr& child_type = type->Id() == TypeId::kStruct
                                        ? type->Fields()[static_cast<size_t>(c)].Type()
                                        : (c == 0 ? type->ElementType() : type->ValueType());
    TRIBUTARY_ASSIGN_OR_RAISE(auto child, CastKernel(*input.Child(c), child_type, safe, context));
    children.push_back(std::move(child));
  }
  return Column::Make(type, input.Length(), input.ValidityBuffer(), nullptr, input.OffsetsBuffer(),
                      std::move(children));
}

}  // namespace

void AppendCastString(const Column& column, int64_t row, const EvalContext& context,
                      std::string* out) {
  AppendValueAsString(column, row, context, out);
}

Result<ColumnPtr> CastKernel(const Column& input, const DataTypePtr& type, bool safe,
                             const EvalContext& context) {
  const DataType& from = *input.Type();
  MemoryPool* pool = context.pool;
  if (from.Id() == TypeId::kNull) {
    return Column::MakeAllNull(type, input.Length(), pool);
  }
  if (from.Equals(*type)) {
    return Column::Make(type, input.Length(), input.ValidityBuffer(), input.ValuesBuffer(),
                        input.OffsetsBuffer(), input.Children());
  }
  if (type->Id() == TypeId::kString) {
    return ToStringColumn(input, type, context);
  }
  const bool to_interval =
      type->Id() == TypeId::kDayTimeInterval || type->Id() == TypeId::kYearMonthInterval;
  if (to_interval && (from.IsInteger() || from.Id() == TypeId::kDecimal)) {
    return FromNumberToInterval(input, type, safe, pool);
  }
  switch (from.Id()) {
    case TypeId::kString:
      return FromString(input, type, context, safe);
    case TypeId::kBinary:
      break;
    case TypeId::kBoolean:
      return FromPrimitive(input, input.Values<uint8_t>(), type, safe, pool);
    case TypeId::kInt8:
      return FromPrimitive(input, input.Values<int8_t>(), type, safe, pool);
    case TypeId::kInt16:
      return FromPrimitive(input, input.Values<int16_t>(), type, safe, pool);
    case TypeId::kInt32:
      return FromPrimitive(input, input.Values<int32_t>(), type, safe, pool);
    case TypeId::kInt64:
      return FromPrimitive(input, input.Values<int64_t>(), type, safe, pool);
    case TypeId::kFloat32:
      return FromPrimitive(input, input.Values<float>(), type, safe, pool);
    case TypeId::kFloat64:
      return FromPrimitive(input, input.Values<double>(), type, safe, pool);
    case TypeId::kDecimal:
      return FromDecimal(input, type, safe, pool);
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return FromTemporal(input, type, safe, context);
    case TypeId::kStruct:
    case TypeId::kArray:
    case TypeId::kMap:
      if (from.Id() == type->Id()) {
        return FromNested(input, type, safe, context);
      }
      break;
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      if (type->IsInteger() || type->Id() == TypeId::kDecimal) {
        return FromIntervalToNumber(input, type, safe, pool);
      }
      break;
    case TypeId::kCalendarInterval:
    case TypeId::kNull:
      break;
  }
  return Status::InvalidArgument(
      fmt::format("cannot cast {} to {}", from.ToString(), type->ToString()));
}

}  // namespace tributary::expr

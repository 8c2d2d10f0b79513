// ISO week fields and seconds with their fraction for weekofyear and date_part/extract.

#include "expr/calendar_fields.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"

namespace tributary::expr {

using columnar::DataType;
using columnar::FloorMod;
using columnar::Int128;
using columnar::kMicrosPerSecond;

namespace {

enum class IsoWeekField : uint8_t { kWeek, kYear, kDayOfWeek };

// ISO 8601 week date of `days` since 1970-01-01: the week (and its year) is that of the
// week's Thursday, and the week's first Thursday is in week 1.
int32_t IsoWeekFieldOf(int64_t days, IsoWeekField field) {
  const int64_t weekday = FloorMod(days + 3, 7);  // Monday = 0; 1970-01-01 was a Thursday
  if (field == IsoWeekField::kDayOfWeek) {
    return static_cast<int32_t>(weekday) + 1;
  }
  const int64_t thursday = days - weekday + 3;
  const int64_t year = columnar::CivilFromDays(thursday).year;
  if (field == IsoWeekField::kYear) {
    return static_cast<int32_t>(year);
  }
  return static_cast<int32_t>((thursday - columnar::DaysFromCivil(year, 1, 1)) / 7 + 1);
}

Result<BoundExprPtr> BindIsoWeekField(const Expression& call, BoundExprPtr source,
                                      IsoWeekField field) {
  const TypeId id = source->Type()->Id();
  if (!IsDatetime(id) && id != TypeId::kString && id != TypeId::kNull) {
    return CallError(call, "needs a date, timestamp or string, got " + source->Type()->ToString());
  }
  std::vector<BoundExprPtr> args{CastTo(std::move(source), DataType::Date())};
  return PerRowFixed<int32_t>(call, DataType::Int32(), std::move(args),
                              [field](const std::vector<ColumnPtr>& a, int64_t i) {
                                return IsoWeekFieldOf(a[0]->Values<int32_t>()[i], field);
                              });
}

// SECOND with its fraction: the wall clock's seconds of the minute in microseconds, which
// is the unscaled value of a decimal(8,6).
Result<BoundExprPtr> BindSecondWithFraction(const Expression& call, BoundExprPtr source) {
  const TypeId id = source->Type()->Id();
  if (!IsDatetime(id) && id != TypeId::kString && id != TypeId::kNull) {
    return CallError(call, "needs a timestamp, date or string, got " + source->Type()->ToString());
  }
  if (id != TypeId::kTimestampNtz) {
    source = CastTo(std::move(source), DataType::Timestamp());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::DataTypePtr type, DataType::Decimal(8, 6));
  return MakeFunctionCall(
      call.Name(), std::move(type), {std::move(source)},
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) {
        const Column& input = *a[0];
        const bool ntz = input.Type()->Id() == TypeId::kTimestampNtz;
        const int64_t* values = input.Values<int64_t>();
        return BuildFixed<Int128>(c.Type(), a, context.pool, [&](int64_t i) {
          const int64_t local = ntz ? values[i] : context.session_time_zone.LocalFromUtc(values[i]);
          return Int128{FloorMod(local, 60 * kMicrosPerSecond)};
        });
      }));
}

}  // namespace

Result<BoundExprPtr> BindWeekOfYear(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  return BindIsoWeekField(call, std::move(args[0]), IsoWeekField::kWeek);
}

Result<BoundExprPtr> BindCalendarDatePart(const Expression& call, std::string_view field,
                                          BoundExprPtr source) {
  if (field == "yearofweek") {
    return BindIsoWeekField(call, std::move(source), IsoWeekField::kYear);
  }
  if (field == "week" || field == "w" || field == "weeks") {
    return BindIsoWeekField(call, std::move(source), IsoWeekField::kWeek);
  }
  if (field == "dayofweek_iso" || field == "dow_iso") {
    return BindIsoWeekField(call, std::move(source), IsoWeekField::kDayOfWeek);
  }
  static constexpr std::array<std::string_view, 5> kSecondNames = {"second", "s", "sec", "seconds",
                                                                   "secs"};
  for (std::string_view name : kSecondNames) {
    if (field == name) {
      return BindSecondWithFraction(call, std::move(source));
    }
  }
  return BoundExprPtr();
}

}  // namespace tributary::expr

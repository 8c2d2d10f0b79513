// add_months, last_day, months_between, dayname, monthname and convert_timezone.

#include "expr/calendar_functions.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"
#include "expr/time_zone.h"

namespace tributary::expr {

using columnar::DataType;
using columnar::FloorDiv;
using columnar::FloorMod;
using columnar::kMicrosPerDay;
using columnar::kMicrosPerSecond;

namespace {

bool IsDateLikeOperand(TypeId id) {
  return IsDatetime(id) || id == TypeId::kString || id == TypeId::kNull;
}

Result<BoundExprPtr> DateOperand(const Expression& call, BoundExprPtr arg) {
  if (!IsDateLikeOperand(arg->Type()->Id())) {
    return CallError(call, "needs a date, timestamp or string, got " + arg->Type()->ToString());
  }
  return CastTo(std::move(arg), DataType::Date());
}

// An int argument: integers up to int and strings (read as an int, as Spark's implicit cast).
Result<BoundExprPtr> IntOperand(const Expression& call, BoundExprPtr arg, std::string_view what) {
  const TypeId id = arg->Type()->Id();
  if (id != TypeId::kNull && id != TypeId::kInt8 && id != TypeId::kInt16 && id != TypeId::kInt32 &&
      id != TypeId::kString) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {} must be "
                                       "tinyint, smallint or int, got {}",
                                       what, arg->Type()->ToString()));
  }
  return CastTo(std::move(arg), DataType::Int32());
}

bool IsLastDayOfMonth(const columnar::CivilDate& date) {
  return date.day == columnar::DaysInMonth(date.year, date.month);
}

}  // namespace

Result<BoundExprPtr> BindAddMonths(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], DateOperand(call, std::move(args[0])));
  TRIBUTARY_ASSIGN_OR_RAISE(args[1], IntOperand(call, std::move(args[1]), "num_months"));
  return MakeFunctionCall(call.Name(), DataType::Date(), std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool* pool) -> Result<ColumnPtr> {
                            const int32_t* days = a[0]->Values<int32_t>();
                            const int32_t* months = a[1]->Values<int32_t>();
                            int64_t overflow_row = -1;
                            TRIBUTARY_ASSIGN_OR_RAISE(
                                auto result, BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
                                  const int64_t shifted =
                                      columnar::AddMonthsToDays(days[i], months[i]);
                                  if (shifted < std::numeric_limits<int32_t>::min() ||
                                      shifted > std::numeric_limits<int32_t>::max()) {
                                    overflow_row = overflow_row < 0 ? i : overflow_row;
                                    return int32_t{0};
                                  }
                                  return static_cast<int32_t>(shifted);
                                }));
                            if (overflow_row >= 0) {
                              return Status::InvalidArgument(fmt::format(
                                  "[DATETIME_OVERFLOW] row {}: {} overflows the date range",
                                  overflow_row, c.ToString()));
                            }
                            return result;
                          }));
}

Result<BoundExprPtr> BindLastDay(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], DateOperand(call, std::move(args[0])));
  return PerRowFixed<int32_t>(
      call, DataType::Date(), std::move(args), [](const std::vector<ColumnPtr>& a, int64_t i) {
        const int32_t days = a[0]->Values<int32_t>()[i];
        const columnar::CivilDate date = columnar::CivilFromDays(days);
        return static_cast<int32_t>(days + columnar::DaysInMonth(date.year, date.month) - date.day);
      });
}

Result<BoundExprPtr> BindMonthsBetween(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  for (size_t i = 0; i < 2; ++i) {
    if (!IsDateLikeOperand(args[i]->Type()->Id())) {
      return CallError(call,
                       "needs timestamps, dates or strings, got " + args[i]->Type()->ToString());
    }
    args[i] = CastTo(std::move(args[i]), DataType::Timestamp());
  }
  if (args.size() == 2) {
    args.push_back(MakeBound(Op::kLiteral, DataType::Boolean(), {}, -1, Scalar::Boolean(true)));
  } else if (args[2]->Type()->Id() != TypeId::kBoolean && args[2]->Type()->Id() != TypeId::kNull) {
    return CallError(call, "roundOff must be a boolean, got " + args[2]->Type()->ToString());
  }
  args[2] = CastTo(std::move(args[2]), DataType::Boolean());
  return MakeFunctionCall(
      call.Name(), DataType::Float64(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) {
        const TimeZone& zone = context.session_time_zone;
        const int64_t* first = a[0]->Values<int64_t>();
        const int64_t* second = a[1]->Values<int64_t>();
        const Column& round_off = *a[2];
        return BuildFixed<double>(c.Type(), a, context.pool, [&](int64_t i) {
          const int64_t local1 = zone.LocalFromUtc(first[i]);
          const int64_t local2 = zone.LocalFromUtc(second[i]);
          const columnar::CivilDate date1 =
              columnar::CivilFromDays(FloorDiv(local1, kMicrosPerDay));
          const columnar::CivilDate date2 =
              columnar::CivilFromDays(FloorDiv(local2, kMicrosPerDay));
          const int64_t months = (date1.year * 12 + date1.month) - (date2.year * 12 + date2.month);
          if (date1.day == date2.day || (IsLastDayOfMonth(date1) && IsLastDayOfMonth(date2))) {
            return static_cast<double>(months);
          }
          const int64_t seconds1 = FloorMod(local1, kMicrosPerDay) / kMicrosPerSecond;
          const int64_t seconds2 = FloorMod(local2, kMicrosPerDay) / kMicrosPerSecond;
          const int64_t seconds = int64_t{date1.day - date2.day} * 86400 + seconds1 - seconds2;
          const double diff =
              static_cast<double>(months) + static_cast<double>(seconds) / 2678400.0;
          if (round_off.Values<uint8_t>()[i] == 0) {
            return diff;
          }
          return std::round(diff * 1e8) / 1e8;
        });
      }));
}

Result<BoundExprPtr> BindDayOrMonthName(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], DateOperand(call, std::move(args[0])));
  static constexpr std::array<std::string_view, 7> kDays = {"Mon", "Tue", "Wed", "Thu",
                                                            "Fri", "Sat", "Sun"};
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const bool day = call.Name() == "dayname";
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [day](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const int32_t days = a[0]->Values<int32_t>()[i];
                       if (day) {
                         // 1970-01-01 was a Thursday (index 3, Monday first).
                         out->append(kDays[static_cast<size_t>(FloorMod(days + 3, 7))]);
                       } else {
                         const int month = columnar::CivilFromDays(days).month;
                         out->append(kMonths[static_cast<size_t>(month - 1)]);
                       }
                       return true;
                     });
}

namespace {}  // namespace

Result<BoundExprPtr> BindConvertTimezone(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  const bool has_source = args.size() == 3;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const TypeId id = args[i]->Type()->Id();
    if (id != TypeId::kString && id != TypeId::kNull) {
      return CallError(call, "the time zones must be strings, got " + args[i]->Type()->ToString());
    }
    args[i] = CastTo(std::move(args[i]), DataType::String());
  }
  BoundExprPtr& source = args.back();
  if (!IsDateLikeOperand(source->Type()->Id())) {
    return CallError(call, "needs a timestamp_ntz, got " + source->Type()->ToString());
  }
  source = CastTo(std::move(source), DataType::TimestampNtz());
  return MakeFunctionCall(
      call.Name(), DataType::TimestampNtz(), std::move(args),
      Lambda([has_source](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                          const EvalContext& context) -> Result<ColumnPtr> {
        ZoneNameCache sources;
        ZoneNameCache targets;
        const Column& wall = *a.back();
        const Column& target_names = *a[has_source ? 1 : 0];
        Status status;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, context.pool, [&](int64_t i) {
              if (!status.ok()) {
                return int64_t{0};
              }
              const TimeZone* source_zone = &context.session_time_zone;
              if (has_source) {
                auto zone = sources.At(*a[0], i);
                if (!zone.ok()) {
                  status = zone.status();
                  return int64_t{0};
                }
                source_zone = *zone;
              }
              auto target_zone = targets.At(target_names, i);
              if (!target_zone.ok()) {
                status = target_zone.status();
                return int64_t{0};
              }
              const int64_t instant = source_zone->UtcFromLocal(wall.Values<int64_t>()[i]);
              return (*target_zone)->LocalFromUtc(instant);
            }));
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

}  // namespace tributary::expr

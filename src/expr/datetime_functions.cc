// Date and time functions with Spark's semantics. Timestamps are UTC instants shown and taken
// apart in the session time zone (EvalContext); timestamp_ntz values are wall-clock times used
// as they are. Parse failures are ANSI errors naming the row and the text (Spark 3.4+ with
// spark.sql.ansi.enabled); try_to_timestamp returns null instead.
//
// year, quarter, month, day/dayofmonth, dayofweek (1 = Sunday), weekday (0 = Monday),
// dayofyear, hour, minute, second; to_timestamp, to_timestamp_ntz, to_timestamp_ltz,
// try_to_timestamp, to_date, unix_timestamp,
// to_unix_timestamp, from_unixtime, date_format; date_trunc, trunc; date_add, date_sub,
// datediff/date_diff; timestampadd/dateadd and timestampdiff (a unit keyword first: the
// parser passes it as a string literal); make_date, make_timestamp[_ltz|_ntz] and their try_
// forms; next_day; timestamp_seconds/_millis/_micros, unix_seconds/_millis/
// _micros, unix_date, date_from_unix_date; from_utc_timestamp, to_utc_timestamp;
// current_timestamp/now, current_date/curdate, current_timezone, localtimestamp. weekofyear is in
// calendar_fields.cc; add_months, last_day, months_between, dayname, monthname and
// convert_timezone in calendar_functions.cc.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "expr/calendar_fields.h"
#include "expr/calendar_functions.h"
#include "expr/datetime_pattern.h"
#include "expr/function_kernels.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

using columnar::FloorDiv;
using columnar::FloorMod;
using columnar::kMicrosPerDay;
using columnar::kMicrosPerSecond;

namespace {

constexpr std::string_view kDefaultFormat = "yyyy-MM-dd HH:mm:ss";

bool IsTemporalOrString(TypeId id) {
  return IsDatetime(id) || id == TypeId::kString || id == TypeId::kNull;
}

// The argument as a date (strings and timestamps cast as Spark casts them).
Result<BoundExprPtr> AsDate(const Expression& call, BoundExprPtr arg) {
  if (!IsTemporalOrString(arg->Type()->Id())) {
    return CallError(call, "needs a date, timestamp or string, got " + arg->Type()->ToString());
  }
  return CastTo(std::move(arg), DataType::Date());
}

// The argument as a timestamp; timestamp_ntz stays as it is (its wall clock is its value).
Result<BoundExprPtr> AsTimestamp(const Expression& call, BoundExprPtr arg) {
  if (!IsTemporalOrString(arg->Type()->Id())) {
    return CallError(call, "needs a timestamp, date or string, got " + arg->Type()->ToString());
  }
  if (arg->Type()->Id() == TypeId::kTimestampNtz) {
    return arg;
  }
  return CastTo(std::move(arg), DataType::Timestamp());
}

// Wall-clock microseconds of row i of a timestamp or timestamp_ntz column.
int64_t LocalMicros(const Column& column, int64_t i, const TimeZone& zone) {
  const int64_t value = column.Values<int64_t>()[i];
  return column.Type()->Id() == TypeId::kTimestamp ? zone.LocalFromUtc(value) : value;
}

// ---- fields ----------------------------------------------------------------------------------

enum class DateField : uint8_t { kYear, kQuarter, kMonth, kDay, kDayOfWeek, kWeekday, kDayOfYear };
enum class TimeField : uint8_t { kHour, kMinute, kSecond };

int32_t DateFieldOf(int32_t days, DateField field) {
  const columnar::CivilDate date = columnar::CivilFromDays(days);
  switch (field) {
    case DateField::kYear:
      return static_cast<int32_t>(date.year);
    case DateField::kQuarter:
      return (date.month - 1) / 3 + 1;
    case DateField::kMonth:
      return date.month;
    case DateField::kDay:
      return date.day;
    case DateField::kDayOfWeek:  // 1970-01-01 was a Thursday; Sunday = 1
      return static_cast<int32_t>(FloorMod(days + 4, 7)) + 1;
    case DateField::kWeekday:  // Monday = 0
      return static_cast<int32_t>(FloorMod(days + 3, 7));
    case DateField::kDayOfYear:
      return static_cast<int32_t>(days - columnar::DaysFromCivil(date.year, 1, 1)) + 1;
  }
  return 0;
}

Result<BoundExprPtr> BindDateField(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsDate(call, std::move(args[0])));
  const std::string& name = call.Name();
  const DateField field = name == "year"        ? DateField::kYear
                          : name == "quarter"   ? DateField::kQuarter
                          : name == "month"     ? DateField::kMonth
                          : name == "dayofweek" ? DateField::kDayOfWeek
                          : name == "weekday"   ? DateField::kWeekday
                          : name == "dayofyear" ? DateField::kDayOfYear
                                                : DateField::kDay;
  return MakeFunctionCall(
      name, DataType::Int32(), std::move(args),
      Lambda([field](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const int32_t* days = a[0]->Values<int32_t>();
        return BuildFixed<int32_t>(c.Type(), a, pool,
                                   [&](int64_t i) { return DateFieldOf(days[i], field); });
      }));
}

Result<BoundExprPtr> BindTimeField(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, std::move(args[0])));
  const TimeField field = call.Name() == "hour"     ? TimeField::kHour
                          : call.Name() == "minute" ? TimeField::kMinute
                                                    : TimeField::kSecond;
  return MakeFunctionCall(
      call.Name(), DataType::Int32(), std::move(args),
      Lambda([field](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                     const EvalContext& context) {
        return BuildFixed<int32_t>(c.Type(), a, context.pool, [&](int64_t i) {
          const int64_t seconds =
              FloorDiv(FloorMod(LocalMicros(*a[0], i, context.session_time_zone), kMicrosPerDay),
                       kMicrosPerSecond);
          switch (field) {
            case TimeField::kHour:
              return static_cast<int32_t>(seconds / 3600);
            case TimeField::kMinute:
              return static_cast<int32_t>(seconds / 60 % 60);
            case TimeField::kSecond:
              break;
          }
          return static_cast<int32_t>(seconds % 60);
        });
      }));
}

// ---- parsing and formatting ------------------------------------------------------------------

// A constant pattern argument compiled at bind time (absent: `fallback`, or CAST's formats).
Result<std::shared_ptr<const DateTimePattern>> PatternArgument(
    const Expression& call, const std::vector<BoundExprPtr>& args, size_t index,
    std::string_view fallback) {
  std::string_view text = fallback;
  if (args.size() > index) {
    const BoundExpression& arg = *args[index];
    if (arg.GetOp() != Op::kLiteral || arg.Literal().IsNull() ||
        arg.Type()->Id() != TypeId::kString) {
      return CallError(call, "the format must be a string literal");
    }
    text = arg.Literal().BytesValue();
  }
  if (text.empty()) {
    return std::shared_ptr<const DateTimePattern>();
  }
  auto compiled = DateTimePattern::Compile(text);
  if (!compiled.ok()) {
    return CallError(call, compiled.status().Message());
  }
  return std::make_shared<const DateTimePattern>(std::move(*compiled));
}

enum class ParseTarget : uint8_t { kTimestamp, kDate, kUnixSeconds };

// to_timestamp / try_to_timestamp / to_date / unix_timestamp over a string column.
class ParseFunction final : public EagerFunction {
 public:
  ParseFunction(std::shared_ptr<const DateTimePattern> pattern, ParseTarget target, bool safe)
      : pattern_(std::move(pattern)), target_(target), safe_(safe) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& text = *args[0];
    const TimeZone& zone = context.session_time_zone;
    const int64_t n = text.Length();
    const int width = call.Type()->ByteWidth();
    // to_timestamp_ntz reads the wall clock and ignores a zone in the text, as Spark does.
    const bool ntz = call.Type()->Id() == TypeId::kTimestampNtz;
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(n * width, context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), context.pool));
    uint8_t* valid = validity->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (text.IsNull(i)) {
        continue;
      }
      const std::string_view s = text.BytesAt(i);
      bool ok = false;
      int64_t micros = 0;
      int32_t days = 0;
      if (target_ == ParseTarget::kDate) {
        ok = pattern_ ? pattern_->ParseDate(s, &days) : ParseDate(s, &days);
        values->MutableDataAs<int32_t>()[i] = days;
      } else {
        ok = pattern_ ? pattern_->ParseTimestamp(s, zone, ntz, &micros)
                      : ParseTimestamp(s, zone, ntz, &micros);
        values->MutableDataAs<int64_t>()[i] =
            target_ == ParseTarget::kUnixSeconds ? FloorDiv(micros, kMicrosPerSecond) : micros;
      }
      if (!ok && !safe_) {
        return Status::InvalidArgument(fmt::format(
            "[CANNOT_PARSE_TIMESTAMP] row {}: '{}' does not match {}; use try_to_timestamp or "
            "try_cast to tolerate it",
            i, s,
            pattern_ ? fmt::format("the pattern '{}'", pattern_->Pattern())
                     : std::string("a date or timestamp")));
      }
      columnar::SetBitTo(valid, i, ok);
    }
    return Column::Make(call.Type(), n, std::move(validity), std::move(values));
  }

 private:
  std::shared_ptr<const DateTimePattern> pattern_;
  ParseTarget target_;
  bool safe_;
};

Result<BoundExprPtr> BindParse(const Expression& call, std::vector<BoundExprPtr> args) {
  const std::string& name = call.Name();
  const bool unix = name == "unix_timestamp" || name == "to_unix_timestamp";
  const ParseTarget target = unix                ? ParseTarget::kUnixSeconds
                             : name == "to_date" ? ParseTarget::kDate
                                                 : ParseTarget::kTimestamp;
  const DataTypePtr type = target == ParseTarget::kDate          ? DataType::Date()
                           : name == "to_timestamp_ntz"          ? DataType::TimestampNtz()
                           : target == ParseTarget::kUnixSeconds ? DataType::Int64()
                                                                 : DataType::Timestamp();
  if (name == "unix_timestamp" && args.empty()) {
    // unix_timestamp() is the current time.
    return MakeFunctionCall(
        name, type, {},
        Lambda([](const BoundExpression&, const std::vector<ColumnPtr>&,
                  const EvalContext&) -> Result<ColumnPtr> {
          return Status::Internal("unreachable: unix_timestamp() is bound as a constant");
        }));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 2));
  const TypeId input = args[0]->Type()->Id();
  if (input != TypeId::kString && input != TypeId::kNull) {
    // Spark's ParseToTimestamp casts a non-string argument; integers are seconds since the
    // epoch, as CAST reads them (only towards timestamp: CAST rejects number to
    // timestamp_ntz and to date). Fractional seconds are not taken: CAST from decimal and
    // double to timestamp drops or rejects the fraction here.
    if (args[0]->Type()->IsInteger() && type->Id() == TypeId::kTimestamp && !unix) {
      return CastTo(std::move(args[0]), type);
    }
    if (!IsDatetime(input)) {
      return CallError(call,
                       "needs a string, date or timestamp, got " + args[0]->Type()->ToString());
    }
    // Already temporal: the pattern does not apply, the value converts as CAST does.
    BoundExprPtr converted = CastTo(std::move(args[0]), type);
    return converted;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto pattern,
                            PatternArgument(call, args, 1, unix ? kDefaultFormat : ""));
  args.resize(1);
  args[0] = CastTo(std::move(args[0]), DataType::String());
  return MakeFunctionCall(name, type, std::move(args),
                          std::make_shared<const ParseFunction>(std::move(pattern), target,
                                                                name == "try_to_timestamp"));
}

// date_format(ts, fmt) and from_unixtime(seconds[, fmt]).
Result<BoundExprPtr> BindFormat(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool from_unix = call.Name() == "from_unixtime";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, from_unix ? 1 : 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(auto pattern, PatternArgument(call, args, 1, kDefaultFormat));
  if (pattern == nullptr) {
    // An empty pattern formats every value as '' (PatternArgument maps '' to "no pattern").
    TRIBUTARY_ASSIGN_OR_RAISE(auto empty, DateTimePattern::Compile(""));
    pattern = std::make_shared<const DateTimePattern>(std::move(empty));
  }
  args.resize(1);
  if (from_unix) {
    if (!args[0]->Type()->IsInteger() && args[0]->Type()->Id() != TypeId::kNull) {
      return CallError(call, "needs integer seconds, got " + args[0]->Type()->ToString());
    }
    args[0] = CastTo(std::move(args[0]), DataType::Int64());
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, std::move(args[0])));
  }
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([pattern, from_unix](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                  const EvalContext& context) -> Result<ColumnPtr> {
        const Column& input = *a[0];
        const bool ntz = input.Type()->Id() == TypeId::kTimestampNtz;
        const TimeZone utc;
        Status status;
        auto result = BuildBytes(c.Type(), a, context.pool, [&](int64_t i, std::string* out) {
          int64_t micros = input.Values<int64_t>()[i];
          if (from_unix && __builtin_mul_overflow(micros, kMicrosPerSecond, &micros)) {
            status = Status::InvalidArgument(fmt::format(
                "row {}: from_unixtime of {} seconds overflows", i, input.Values<int64_t>()[i]));
            return false;
          }
          pattern->Format(micros, ntz ? utc : context.session_time_zone, out);
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// ---- truncation ------------------------------------------------------------------------------

enum class TruncUnit : uint8_t {
  kInvalid,
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond
};

TruncUnit ParseTruncUnit(std::string_view text) {
  std::string unit(text);
  for (char& c : unit) {
    c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  if (unit == "YEAR" || unit == "YYYY" || unit == "YY") {
    return TruncUnit::kYear;
  }
  if (unit == "QUARTER") {
    return TruncUnit::kQuarter;
  }
  if (unit == "MONTH" || unit == "MM" || unit == "MON") {
    return TruncUnit::kMonth;
  }
  if (unit == "WEEK") {
    return TruncUnit::kWeek;
  }
  if (unit == "DAY" || unit == "DD") {
    return TruncUnit::kDay;
  }
  if (unit == "HOUR") {
    return TruncUnit::kHour;
  }
  if (unit == "MINUTE") {
    return TruncUnit::kMinute;
  }
  if (unit == "SECOND") {
    return TruncUnit::kSecond;
  }
  if (unit == "MILLISECOND") {
    return TruncUnit::kMillisecond;
  }
  if (unit == "MICROSECOND") {
    return TruncUnit::kMicrosecond;
  }
  return TruncUnit::kInvalid;
}

int64_t TruncateDays(int64_t days, TruncUnit unit) {
  const columnar::CivilDate date = columnar::CivilFromDays(days);
  switch (unit) {
    case TruncUnit::kYear:
      return columnar::DaysFromCivil(date.year, 1, 1);
    case TruncUnit::kQuarter:
      return columnar::DaysFromCivil(date.year, (date.month - 1) / 3 * 3 + 1, 1);
    case TruncUnit::kMonth:
      return columnar::DaysFromCivil(date.year, date.month, 1);
    case TruncUnit::kWeek:  // back to Monday
      return days - FloorMod(days + 3, 7);
    default:
      return days;
  }
}

int64_t TruncateLocalMicros(int64_t local, TruncUnit unit) {
  switch (unit) {
    case TruncUnit::kHour:
      return local - FloorMod(local, 3600 * kMicrosPerSecond);
    case TruncUnit::kMinute:
      return local - FloorMod(local, 60 * kMicrosPerSecond);
    case TruncUnit::kSecond:
      return local - FloorMod(local, kMicrosPerSecond);
    case TruncUnit::kMillisecond:
      return local - FloorMod(local, 1000);
    case TruncUnit::kMicrosecond:
      return local;
    default:
      return TruncateDays(FloorDiv(local, kMicrosPerDay), unit) * kMicrosPerDay;
  }
}

// date_trunc(unit, ts) -> timestamp; an unknown unit gives null, as Spark.
Result<BoundExprPtr> BindDateTrunc(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const BoundExpression& unit_arg = *args[0];
  if (unit_arg.GetOp() != Op::kLiteral || unit_arg.Type()->Id() != TypeId::kString) {
    return CallError(call, "the unit must be a string literal");
  }
  const TruncUnit unit = unit_arg.Literal().IsNull()
                             ? TruncUnit::kInvalid
                             : ParseTruncUnit(unit_arg.Literal().BytesValue());
  TRIBUTARY_ASSIGN_OR_RAISE(auto input, AsTimestamp(call, std::move(args[1])));
  DataTypePtr type = input->Type();
  return MakeFunctionCall(call.Name(), std::move(type), {std::move(input)},
                          Lambda([unit](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                        const EvalContext& context) -> Result<ColumnPtr> {
                            const int64_t n = a[0]->Length();
                            if (unit == TruncUnit::kInvalid) {
                              return Column::MakeAllNull(c.Type(), n, context.pool);
                            }
                            const TimeZone& zone = context.session_time_zone;
                            const bool ntz = c.Type()->Id() == TypeId::kTimestampNtz;
                            return BuildFixed<int64_t>(c.Type(), a, context.pool, [&](int64_t i) {
                              const int64_t local =
                                  TruncateLocalMicros(LocalMicros(*a[0], i, zone), unit);
                              return ntz ? local : zone.UtcFromLocal(local);
                            });
                          }));
}

// trunc(date, unit) -> date: YEAR, QUARTER, MONTH, WEEK (else null, as Spark).
Result<BoundExprPtr> BindTrunc(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const BoundExpression& unit_arg = *args[1];
  if (unit_arg.GetOp() != Op::kLiteral || unit_arg.Type()->Id() != TypeId::kString) {
    return CallError(call, "the unit must be a string literal");
  }
  TruncUnit unit = unit_arg.Literal().IsNull() ? TruncUnit::kInvalid
                                               : ParseTruncUnit(unit_arg.Literal().BytesValue());
  if (unit > TruncUnit::kWeek) {
    unit = TruncUnit::kInvalid;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto input, AsDate(call, std::move(args[0])));
  return MakeFunctionCall(call.Name(), DataType::Date(), {std::move(input)},
                          Lambda([unit](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                        MemoryPool* pool) -> Result<ColumnPtr> {
                            if (unit == TruncUnit::kInvalid) {
                              return Column::MakeAllNull(c.Type(), a[0]->Length(), pool);
                            }
                            const int32_t* days = a[0]->Values<int32_t>();
                            return BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
                              return static_cast<int32_t>(TruncateDays(days[i], unit));
                            });
                          }));
}

// ---- date arithmetic -------------------------------------------------------------------------

Result<BoundExprPtr> BindTimestampAdd(const Expression& call, std::vector<BoundExprPtr> args);
Result<BoundExprPtr> BindTimestampDiff(const Expression& call, std::vector<BoundExprPtr> args);

Result<BoundExprPtr> BindDateAdd(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.size() == 3 && call.Name() != "date_sub") {
    return BindTimestampAdd(call, std::move(args));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsDate(call, std::move(args[0])));
  const DataType& days = *args[1]->Type();
  if (days.Id() == TypeId::kString) {
    // Spark's ANSI coercion reads a string day count as an int: a literal that is not one is
    // an analysis error, other strings cast (and fail) per row.
    const BoundExpression& count = *args[1];
    int64_t value = 0;
    if (count.GetOp() == Op::kLiteral && !count.Literal().IsNull() &&
        (!ParseInt64(count.Literal().BytesValue(), &value) ||
         value < std::numeric_limits<int32_t>::min() ||
         value > std::numeric_limits<int32_t>::max())) {
      return CallError(call, fmt::format("[SECOND_FUNCTION_ARGUMENT_NOT_INTEGER] the number of "
                                         "days must be an integer, got '{}'",
                                         count.Literal().BytesValue()));
    }
  } else if (days.Id() != TypeId::kNull && days.Id() != TypeId::kInt8 &&
             days.Id() != TypeId::kInt16 && days.Id() != TypeId::kInt32) {
    return CallError(call,
                     "the number of days must be tinyint, smallint or int, got " + days.ToString());
  }
  args[1] = CastTo(std::move(args[1]), DataType::Int32());
  const int sign = call.Name() == "date_sub" ? -1 : 1;
  return MakeFunctionCall(
      call.Name(), DataType::Date(), std::move(args),
      Lambda([sign](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        const int32_t* start = a[0]->Values<int32_t>();
        const int32_t* delta = a[1]->Values<int32_t>();
        int64_t overflow_row = -1;
        auto result = BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
          const int64_t result_days = int64_t{start[i]} + sign * int64_t{delta[i]};
          if (result_days < INT32_MIN || result_days > INT32_MAX) {
            overflow_row = overflow_row < 0 ? i : overflow_row;
            return int32_t{0};
          }
          return static_cast<int32_t>(result_days);
        });
        if (overflow_row >= 0) {
          return Status::InvalidArgument(
              fmt::format("row {}: {} overflows the date range", overflow_row, c.ToString()));
        }
        return result;
      }));
}

Result<BoundExprPtr> BindDateDiff(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.size() == 3) {
    return BindTimestampDiff(call, std::move(args));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (auto& arg : args) {
    TRIBUTARY_ASSIGN_OR_RAISE(arg, AsDate(call, std::move(arg)));
  }
  return MakeFunctionCall(
      call.Name(), DataType::Int32(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        const int32_t* end = a[0]->Values<int32_t>();
        const int32_t* start = a[1]->Values<int32_t>();
        return BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
          return static_cast<int32_t>(int64_t{end[i]} - start[i]);
        });
      }));
}

// ---- constructors: make_date, make_timestamp[_ltz|_ntz] --------------------------------------

// Java's LocalDate.of checks, worded as java.time words them (Spark's ANSI errors quote them);
// empty when the date exists.
std::string CivilDateError(int64_t year, int64_t month, int64_t day) {
  static constexpr const char* kMonths[] = {"JANUARY",   "FEBRUARY", "MARCH",    "APRIL",
                                            "MAY",       "JUNE",     "JULY",     "AUGUST",
                                            "SEPTEMBER", "OCTOBER",  "NOVEMBER", "DECEMBER"};
  if (year < -999999999 || year > 999999999) {
    return fmt::format("Invalid value for Year (valid values -999999999 - 999999999): {}", year);
  }
  if (month < 1 || month > 12) {
    return fmt::format("Invalid value for MonthOfYear (valid values 1 - 12): {}", month);
  }
  if (day < 1 || day > 31) {
    return fmt::format("Invalid value for DayOfMonth (valid values 1 - 28/31): {}", day);
  }
  if (day > columnar::DaysInMonth(year, static_cast<int>(month))) {
    if (month == 2 && day == 29) {
      return fmt::format("Invalid date 'February 29' as '{}' is not a leap year", year);
    }
    return fmt::format("Invalid date '{} {}'", kMonths[month - 1], day);
  }
  return {};
}

// What a constructor row produced: a value, null (try_ variants) or the first error.
struct RowFailure {
  int64_t row = -1;
  std::string message;
  void Note(int64_t i, std::string text) {
    if (row < 0) {
      row = i;
      message = std::move(text);
    }
  }
};

Status DatetimeFieldError(const RowFailure& failure) {
  return Status::InvalidArgument(
      fmt::format("[DATETIME_FIELD_OUT_OF_BOUNDS] {} (row {})", failure.message, failure.row));
}

Result<BoundExprPtr> BindMakeDate(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Int32()}));
  const bool safe = call.Name() == "try_make_date";
  return MakeFunctionCall(
      call.Name(), DataType::Date(), std::move(args),
      Lambda([safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        const int32_t* y = a[0]->Values<int32_t>();
        const int32_t* m = a[1]->Values<int32_t>();
        const int32_t* d = a[2]->Values<int32_t>();
        RowFailure failure;
        std::vector<uint8_t> invalid(static_cast<size_t>(a[0]->Length()), 0);
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
              std::string error = CivilDateError(y[i], m[i], d[i]);
              if (error.empty()) {
                const int64_t days = columnar::DaysFromCivil(y[i], m[i], d[i]);
                if (days >= INT32_MIN && days <= INT32_MAX) {
                  return static_cast<int32_t>(days);
                }
                error = fmt::format("the year {} is outside the range of a date", y[i]);
              }
              invalid[static_cast<size_t>(i)] = 1;
              failure.Note(i, std::move(error));
              return int32_t{0};
            }));
        if (failure.row >= 0 && !safe) {
          return DatetimeFieldError(failure);
        }
        return NullWhere(std::move(result), pool,
                         [&](int64_t i) { return invalid[static_cast<size_t>(i)] != 0; });
      }));
}

// make_timestamp(year, month, day, hour, min, sec[, zone]) and its _ltz/_ntz/try_ forms, as
// Spark's MakeTimestamp: sec is decimal(16, 6); 60 with no fraction is the next minute.
class MakeTimestampFunction final : public EagerFunction {
 public:
  explicit MakeTimestampFunction(bool safe) : safe_(safe) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t n = args[0]->Length();
    const bool ntz = call.Type()->Id() == TypeId::kTimestampNtz;
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(n * 8, context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), context.pool));
    uint8_t* valid = validity->mutable_data();
    int64_t* out = values->MutableDataAs<int64_t>();
    ZoneNameCache zones;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = 0;
      bool any_null = false;
      for (const ColumnPtr& arg : args) {
        any_null = any_null || arg->IsNull(i);
      }
      columnar::SetBitTo(valid, i, false);
      if (any_null) {
        continue;
      }
      std::string error;
      bool fraction_error = false;
      const int64_t local = LocalMicros(args, i, &error, &fraction_error);
      if (!error.empty()) {
        if (safe_) {
          continue;
        }
        if (fraction_error) {
          return Status::InvalidArgument(
              fmt::format("[INVALID_FRACTION_OF_SECOND] {} (row {})", error, i));
        }
        return DatetimeFieldError(RowFailure{i, std::move(error)});
      }
      const TimeZone* zone = &context.session_time_zone;
      if (args.size() == 7) {
        auto named = zones.At(*args[6], i);
        if (!named.ok()) {
          if (safe_) {
            continue;
          }
          return named.status();
        }
        zone = *named;
      }
      out[i] = ntz ? local : zone->UtcFromLocal(local);
      columnar::SetBitTo(valid, i, true);
    }
    return Column::Make(call.Type(), n, std::move(validity), std::move(values));
  }

 private:
  // Wall-clock microseconds of row i, or `error` set.
  static int64_t LocalMicros(const std::vector<ColumnPtr>& a, int64_t i, std::string* error,
                             bool* fraction_error) {
    auto field = [&](int k) {
      return int64_t{a[static_cast<size_t>(k)]->Values<int32_t>()[i]};
    };
    const int64_t year = field(0);
    const int64_t month = field(1);
    const int64_t day = field(2);
    const int64_t hour = field(3);
    const int64_t minute = field(4);
    const Int128 sec_micros = a[5]->Values<Int128>()[i];  // decimal(16, 6)
    *error = CivilDateError(year, month, day);
    if (!error->empty()) {
      return 0;
    }
    if (hour < 0 || hour > 23) {
      *error = fmt::format("Invalid value for HourOfDay (valid values 0 - 23): {}", hour);
      return 0;
    }
    if (minute < 0 || minute > 59) {
      *error = fmt::format("Invalid value for MinuteOfHour (valid values 0 - 59): {}", minute);
      return 0;
    }
    const auto seconds =
        static_cast<int64_t>(FloorDiv(static_cast<int64_t>(sec_micros), kMicrosPerSecond));
    const int64_t fraction = FloorMod(static_cast<int64_t>(sec_micros), kMicrosPerSecond);
    if (seconds == 60 && fraction != 0) {
      std::string text;
      columnar::AppendDecimal(sec_micros, 6, &text);
      *error = fmt::format(
          "Valid range for seconds is [0, 60] (inclusive), but the provided "
          "value is {}",
          text);
      *fraction_error = true;
      return 0;
    }
    if (seconds < 0 || seconds > 60) {
      *error = fmt::format("Invalid value for SecondOfMinute (valid values 0 - 59): {}", seconds);
      return 0;
    }
    const int64_t days =
        columnar::DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
    // A whole 60 seconds rolls into the next minute.
    Int128 micros = (static_cast<Int128>(days) * 86400 + static_cast<Int128>(hour) * 3600 +
                     static_cast<Int128>(minute) * 60 + seconds) *
                        kMicrosPerSecond +
                    fraction;
    if (micros < std::numeric_limits<int64_t>::min() ||
        micros > std::numeric_limits<int64_t>::max()) {
      *error = fmt::format("the timestamp of year {} does not fit 64-bit microseconds", year);
      return 0;
    }
    return static_cast<int64_t>(micros);
  }

  bool safe_;
};

Result<BoundExprPtr> BindMakeTimestamp(const Expression& call, std::vector<BoundExprPtr> args) {
  const std::string& name = call.Name();
  const bool ntz = name.ends_with("_ntz");
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 6, ntz ? 6 : 7));
  const DataType& seconds = *args[5]->Type();
  if (!seconds.IsNumeric() && seconds.Id() != TypeId::kNull && seconds.Id() != TypeId::kString) {
    return CallError(call, "the seconds must be a number, got " + seconds.ToString());
  }
  args[5] = CastTo(std::move(args[5]), DecimalOrDie(16, 6));
  std::vector<DataTypePtr> types(5, DataType::Int32());
  types.push_back(DecimalOrDie(16, 6));
  types.push_back(DataType::String());
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, types));
  return MakeFunctionCall(name, ntz ? DataType::TimestampNtz() : DataType::Timestamp(),
                          std::move(args),
                          std::make_shared<const MakeTimestampFunction>(name.starts_with("try_")));
}

// ---- next_day, epoch conversions, time zone shifts -------------------------------------------

// Spark's DateTimeUtils.getDayOfWeekFromString: SU/SUN/SUNDAY ... in any case; Monday = 0.
int DayOfWeekFromName(std::string_view text) {
  static constexpr const char* kDays[] = {"MONDAY", "TUESDAY",  "WEDNESDAY", "THURSDAY",
                                          "FRIDAY", "SATURDAY", "SUNDAY"};
  std::string upper(text);
  for (char& ch : upper) {
    ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  }
  for (int d = 0; d < 7; ++d) {
    const std::string_view full = kDays[d];
    if (upper == full || upper == full.substr(0, 2) || upper == full.substr(0, 3)) {
      return d;
    }
  }
  return -1;
}

Result<BoundExprPtr> BindNextDay(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsDate(call, std::move(args[0])));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Date(), DataType::String()}));
  return MakeFunctionCall(
      call.Name(), DataType::Date(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const int32_t* start = a[0]->Values<int32_t>();
        int64_t bad_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int32_t>(c.Type(), a, pool, [&](int64_t i) {
              const int target = DayOfWeekFromName(a[1]->BytesAt(i));
              if (target < 0) {
                bad_row = bad_row < 0 ? i : bad_row;
                return int32_t{0};
              }
              const int64_t current = FloorMod(start[i] + 3, 7);
              return static_cast<int32_t>(start[i] + FloorMod(target - current - 1, 7) + 1);
            }));
        if (bad_row >= 0) {
          return Status::InvalidArgument(
              fmt::format("[ILLEGAL_DAY_OF_WEEK] Illegal input for day of week: {} (row {})",
                          a[1]->BytesAt(bad_row), bad_row));
        }
        return result;
      }));
}

// Decimal seconds (unscaled at `scale`) as exact microseconds; false when a digit below the
// microsecond is not zero or the result leaves 64 bits (Spark's longValueExact fails then).
bool DecimalSecondsToMicros(Int128 unscaled, int scale, int64_t* out) {
  Int128 micros = unscaled;
  if (scale <= 6) {
    if (__builtin_mul_overflow(unscaled, columnar::PowerOfTen(6 - scale), &micros)) {
      return false;
    }
  } else {
    const Int128 divisor = columnar::PowerOfTen(scale - 6);
    if (unscaled % divisor != 0) {
      return false;
    }
    micros = unscaled / divisor;
  }
  if (micros < std::numeric_limits<int64_t>::min() ||
      micros > std::numeric_limits<int64_t>::max()) {
    return false;
  }
  *out = static_cast<int64_t>(micros);
  return true;
}

// timestamp_seconds/_millis/_micros: numbers since the epoch to a timestamp. Integers scale
// exactly (overflow is an error), and so do decimals (a digit below the microsecond is an
// error too); floating-point seconds truncate to microseconds, NaN and infinities give null,
// as Spark's SecondsToTimestamp.
Result<BoundExprPtr> BindEpochToTimestamp(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const std::string& name = call.Name();
  const int64_t scale = name == "timestamp_seconds"  ? kMicrosPerSecond
                        : name == "timestamp_millis" ? 1000
                                                     : 1;
  const DataType& type = *args[0]->Type();
  const bool fractional = type.IsFloatingPoint() || type.Id() == TypeId::kDecimal;
  if (!(type.IsInteger() || type.Id() == TypeId::kNull || (fractional && scale > 1000))) {
    return CallError(call, fmt::format("needs {}, got {}", scale > 1000 ? "a number" : "an integer",
                                       type.ToString()));
  }
  if (type.Id() == TypeId::kDecimal) {
    // Decimals stay exact (Spark's longValueExact): see DecimalSecondsToMicros.
  } else if (fractional) {
    args[0] = CastTo(std::move(args[0]), DataType::Float64());
  } else {
    args[0] = CastTo(std::move(args[0]), DataType::Int64());
  }
  return MakeFunctionCall(
      name, DataType::Timestamp(), std::move(args),
      Lambda([scale](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                     MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& x = *a[0];
        const TypeId id = x.Type()->Id();
        int64_t overflow_row = -1;
        std::vector<uint8_t> invalid(static_cast<size_t>(x.Length()), 0);
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
              int64_t micros = 0;
              if (id == TypeId::kFloat64) {
                const double value = x.Values<double>()[i] * static_cast<double>(scale);
                if (!std::isfinite(value)) {
                  invalid[static_cast<size_t>(i)] = 1;
                  return int64_t{0};
                }
                // Java's double-to-long conversion saturates.
                return value >= 9.2233720368547758e18    ? std::numeric_limits<int64_t>::max()
                       : value <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                                         : static_cast<int64_t>(value);
              }
              if (id == TypeId::kDecimal) {
                if (!DecimalSecondsToMicros(x.Values<Int128>()[i], x.Type()->Scale(), &micros)) {
                  overflow_row = overflow_row < 0 ? i : overflow_row;
                }
                return micros;
              }
              if (__builtin_mul_overflow(x.Values<int64_t>()[i], scale, &micros)) {
                overflow_row = overflow_row < 0 ? i : overflow_row;
              }
              return micros;
            }));
        if (overflow_row >= 0) {
          return Status::InvalidArgument(fmt::format(
              "[ARITHMETIC_OVERFLOW] row {}: {} is not a whole number of microseconds within the "
              "timestamp range",
              overflow_row, c.ToString()));
        }
        return NullWhere(std::move(result), pool,
                         [&](int64_t i) { return invalid[static_cast<size_t>(i)] != 0; });
      }));
}

// unix_seconds/_millis/_micros(timestamp) -> bigint (rounded down); unix_date(date) -> int;
// date_from_unix_date(int) -> date.
Result<BoundExprPtr> BindEpochFrom(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const std::string& name = call.Name();
  if (name == "unix_date") {
    TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsDate(call, std::move(args[0])));
    return PerRowFixed<int32_t>(
        call, DataType::Int32(), std::move(args),
        [](const std::vector<ColumnPtr>& a, int64_t i) { return a[0]->Values<int32_t>()[i]; });
  }
  if (name == "date_from_unix_date") {
    if (!args[0]->Type()->IsInteger() && args[0]->Type()->Id() != TypeId::kNull) {
      return CallError(call, "needs an integer, got " + args[0]->Type()->ToString());
    }
    args[0] = CastTo(std::move(args[0]), DataType::Int32());
    return PerRowFixed<int32_t>(
        call, DataType::Date(), std::move(args),
        [](const std::vector<ColumnPtr>& a, int64_t i) { return a[0]->Values<int32_t>()[i]; });
  }
  const TypeId id = args[0]->Type()->Id();
  if (id != TypeId::kTimestamp && id != TypeId::kNull && id != TypeId::kString &&
      id != TypeId::kDate) {
    return CallError(call, "needs a timestamp, got " + args[0]->Type()->ToString());
  }
  args[0] = CastTo(std::move(args[0]), DataType::Timestamp());
  const int64_t divisor = name == "unix_seconds"  ? kMicrosPerSecond
                          : name == "unix_millis" ? 1000
                                                  : 1;
  return PerRowFixed<int64_t>(call, DataType::Int64(), std::move(args),
                              [divisor](const std::vector<ColumnPtr>& a, int64_t i) {
                                return FloorDiv(a[0]->Values<int64_t>()[i], divisor);
                              });
}

// from_utc_timestamp(ts, zone): the wall clock of `zone` at the instant whose UTC wall clock
// `ts` shows; to_utc_timestamp(ts, zone) the reverse (Spark's DateTimeUtils.convertTz).
Result<BoundExprPtr> BindUtcShift(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, std::move(args[0])));
  if (args[0]->Type()->Id() == TypeId::kTimestampNtz) {
    return CallError(call, "needs a timestamp, got timestamp_ntz");
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::Timestamp(), DataType::String()}));
  const bool from_utc = call.Name() == "from_utc_timestamp";
  return MakeFunctionCall(
      call.Name(), DataType::Timestamp(), std::move(args),
      Lambda([from_utc](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                        MemoryPool* pool) -> Result<ColumnPtr> {
        ZoneNameCache zones;
        Status status;
        const int64_t* ts = a[0]->Values<int64_t>();
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, pool, [&](int64_t i) {
              auto zone = zones.At(*a[1], i);
              if (!zone.ok()) {
                status = zone.status();
                return int64_t{0};
              }
              return from_utc ? (*zone)->LocalFromUtc(ts[i]) : (*zone)->UtcFromLocal(ts[i]);
            }));
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// ---- timestampadd / timestampdiff (unit as the first argument) ------------------------------

enum class StampUnit : uint8_t {
  kInvalid,
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear
};

StampUnit ParseStampUnit(std::string_view text) {
  std::string unit(text);
  for (char& ch : unit) {
    ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  }
  static const std::vector<std::pair<std::string_view, StampUnit>> kUnits = {
      {"MICROSECOND", StampUnit::kMicrosecond},
      {"MILLISECOND", StampUnit::kMillisecond},
      {"SECOND", StampUnit::kSecond},
      {"MINUTE", StampUnit::kMinute},
      {"HOUR", StampUnit::kHour},
      {"DAY", StampUnit::kDay},
      {"DAYOFYEAR", StampUnit::kDay},
      {"WEEK", StampUnit::kWeek},
      {"MONTH", StampUnit::kMonth},
      {"QUARTER", StampUnit::kQuarter},
      {"YEAR", StampUnit::kYear}};
  for (const auto& [name, unit_value] : kUnits) {
    if (unit == name) {
      return unit_value;
    }
  }
  return StampUnit::kInvalid;
}

// Microseconds per unit for the units of fixed length (0 for calendar units).
int64_t FixedUnitMicros(StampUnit unit) {
  switch (unit) {
    case StampUnit::kMicrosecond:
      return 1;
    case StampUnit::kMillisecond:
      return 1000;
    case StampUnit::kSecond:
      return kMicrosPerSecond;
    case StampUnit::kMinute:
      return 60 * kMicrosPerSecond;
    case StampUnit::kHour:
      return 3600 * kMicrosPerSecond;
    default:
      return 0;
  }
}

int64_t MonthsOfUnit(StampUnit unit) {
  return unit == StampUnit::kYear ? 12 : unit == StampUnit::kQuarter ? 3 : 1;
}

// The unit of a timestampadd/timestampdiff call: the parser turns the unit keyword into a
// string literal.
Result<StampUnit> UnitArgument(const Expression& call, const BoundExpression& arg) {
  if (arg.GetOp() != Op::kLiteral || arg.Type()->Id() != TypeId::kString ||
      arg.Literal().IsNull()) {
    return CallError(call, "the unit must be a keyword such as DAY or HOUR");
  }
  const StampUnit unit = ParseStampUnit(arg.Literal().BytesValue());
  if (unit == StampUnit::kInvalid) {
    return CallError(call, fmt::format("[INVALID_PARAMETER_VALUE.DATETIME_UNIT] unknown unit "
                                       "'{}': use YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, "
                                       "HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND",
                                       arg.Literal().BytesValue()));
  }
  return unit;
}

// timestampadd(unit, n, ts) (also dateadd/date_add with three arguments): Spark's
// DateTimeUtils.timestampAdd; fixed units add to the instant, calendar units to the wall
// clock of the session zone (timestamp_ntz: to its own wall clock).
Result<BoundExprPtr> BindTimestampAdd(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_ASSIGN_OR_RAISE(const StampUnit unit, UnitArgument(call, *args[0]));
  if (!args[1]->Type()->IsInteger() && args[1]->Type()->Id() != TypeId::kNull) {
    return CallError(call, "the quantity must be an integer, got " + args[1]->Type()->ToString());
  }
  args[1] = CastTo(std::move(args[1]), DataType::Int64());
  TRIBUTARY_ASSIGN_OR_RAISE(args[2], AsTimestamp(call, std::move(args[2])));
  DataTypePtr type = args[2]->Type();
  args.erase(args.begin());
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([unit](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    const EvalContext& context) -> Result<ColumnPtr> {
        const bool ntz = c.Type()->Id() == TypeId::kTimestampNtz;
        const TimeZone utc;
        const TimeZone& zone = ntz ? utc : context.session_time_zone;
        const int64_t* quantity = a[0]->Values<int64_t>();
        const int64_t* ts = a[1]->Values<int64_t>();
        const int64_t fixed = FixedUnitMicros(unit);
        int64_t overflow_row = -1;
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, BuildFixed<int64_t>(c.Type(), a, context.pool, [&](int64_t i) {
              int64_t out = 0;
              bool ok = true;
              if (fixed > 0) {
                int64_t delta = 0;
                ok = !__builtin_mul_overflow(quantity[i], fixed, &delta) &&
                     !__builtin_add_overflow(ts[i], delta, &out);
              } else if (quantity[i] < INT32_MIN || quantity[i] > INT32_MAX) {
                ok = false;  // Spark takes the count of days or months as an int
              } else if (unit == StampUnit::kDay || unit == StampUnit::kWeek) {
                const int64_t days = quantity[i] * (unit == StampUnit::kWeek ? 7 : 1);
                int64_t local = 0;
                ok =
                    !__builtin_add_overflow(zone.LocalFromUtc(ts[i]), days * kMicrosPerDay, &local);
                out = ok ? zone.UtcFromLocal(local) : 0;
              } else {
                int64_t local = 0;
                ok = columnar::AddMonthsToMicros(zone.LocalFromUtc(ts[i]),
                                                 quantity[i] * MonthsOfUnit(unit), &local);
                out = ok ? zone.UtcFromLocal(local) : 0;
              }
              if (!ok && overflow_row < 0) {
                overflow_row = i;
              }
              return out;
            }));
        if (overflow_row >= 0) {
          return Status::InvalidArgument(
              fmt::format("[DATETIME_OVERFLOW] row {}: adding {} to the timestamp overflows",
                          overflow_row, quantity[overflow_row]));
        }
        return result;
      }));
}

// Whole calendar months from `start` to `end` (wall clocks), as java.time's
// LocalDateTime.until: an end whose time of day is before the start's does not complete its
// last day.
int64_t MonthsBetween(int64_t start, int64_t end) {
  int64_t start_days = FloorDiv(start, kMicrosPerDay);
  int64_t end_days = FloorDiv(end, kMicrosPerDay);
  const int64_t start_time = FloorMod(start, kMicrosPerDay);
  const int64_t end_time = FloorMod(end, kMicrosPerDay);
  if (end_days > start_days && end_time < start_time) {
    --end_days;
  } else if (end_days < start_days && end_time > start_time) {
    ++end_days;
  }
  const columnar::CivilDate a = columnar::CivilFromDays(start_days);
  const columnar::CivilDate b = columnar::CivilFromDays(end_days);
  const int64_t packed_a = (a.year * 12 + a.month - 1) * 32 + a.day;
  const int64_t packed_b = (b.year * 12 + b.month - 1) * 32 + b.day;
  return (packed_b - packed_a) / 32;
}

int64_t DaysBetween(int64_t start, int64_t end) {
  int64_t start_days = FloorDiv(start, kMicrosPerDay);
  int64_t end_days = FloorDiv(end, kMicrosPerDay);
  const int64_t start_time = FloorMod(start, kMicrosPerDay);
  const int64_t end_time = FloorMod(end, kMicrosPerDay);
  if (end_days > start_days && end_time < start_time) {
    --end_days;
  } else if (end_days < start_days && end_time > start_time) {
    ++end_days;
  }
  return end_days - start_days;
}

// timestampdiff(unit, start, end) (also datediff/date_diff with three arguments): whole units
// from start to end on the session zone's wall clock, truncated toward zero.
Result<BoundExprPtr> BindTimestampDiff(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_ASSIGN_OR_RAISE(const StampUnit unit, UnitArgument(call, *args[0]));
  args.erase(args.begin());
  for (auto& arg : args) {
    TRIBUTARY_ASSIGN_OR_RAISE(arg, AsTimestamp(call, std::move(arg)));
  }
  if (args[0]->Type()->Id() != args[1]->Type()->Id()) {
    for (auto& arg : args) {
      arg = CastTo(std::move(arg), DataType::Timestamp());
    }
  }
  return MakeFunctionCall(
      call.Name(), DataType::Int64(), std::move(args),
      Lambda([unit](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    const EvalContext& context) -> Result<ColumnPtr> {
        const TimeZone& zone = context.session_time_zone;
        const int64_t fixed = FixedUnitMicros(unit);
        return BuildFixed<int64_t>(c.Type(), a, context.pool, [&](int64_t i) {
          const int64_t start = LocalMicros(*a[0], i, zone);
          const int64_t end = LocalMicros(*a[1], i, zone);
          if (fixed > 0) {
            return static_cast<int64_t>((static_cast<Int128>(end) - start) / fixed);
          }
          if (unit == StampUnit::kDay || unit == StampUnit::kWeek) {
            return DaysBetween(start, end) / (unit == StampUnit::kWeek ? 7 : 1);
          }
          return MonthsBetween(start, end) / MonthsOfUnit(unit);
        });
      }));
}

// ---- the current time ------------------------------------------------------------------------

// current_timestamp(), now(), current_date(), curdate(), current_timezone(),
// unix_timestamp(): values fixed per query or micro-batch by EvalContext.
class CurrentTimeFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const columnar::RecordBatch& batch,
                             const EvalContext& context) const override {
    const std::string& name = call.Name();
    if (name == "current_timezone") {
      return MakeConstantColumn(Scalar::String(context.session_time_zone.Name()), batch.NumRows(),
                                context.pool);
    }
    if (!context.current_timestamp_micros.has_value()) {
      return Status::InvalidArgument(
          fmt::format("{}() needs the query's start time, which this evaluation was not given "
                      "(EvalContext::current_timestamp_micros)",
                      name));
    }
    const int64_t now = *context.current_timestamp_micros;
    Scalar value = Scalar::Timestamp(now);
    if (name == "current_date" || name == "curdate") {
      value = Scalar::Date(static_cast<int32_t>(
          FloorDiv(context.session_time_zone.LocalFromUtc(now), kMicrosPerDay)));
    } else if (name == "unix_timestamp") {
      value = Scalar::Int64(FloorDiv(now, kMicrosPerSecond));
    } else if (name == "localtimestamp") {
      value = Scalar::TimestampNtz(context.session_time_zone.LocalFromUtc(now));
    }
    return MakeConstantColumn(value, batch.NumRows(), context.pool);
  }
};

// NOLINTNEXTLINE(performance-unnecessary-value-param): the FunctionBinder signature
Result<BoundExprPtr> BindCurrent(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 0));
  const std::string& name = call.Name();
  const DataTypePtr type = name == "current_date" || name == "curdate" ? DataType::Date()
                           : name == "current_timezone"                ? DataType::String()
                           : name == "unix_timestamp"                  ? DataType::Int64()
                           : name == "localtimestamp"                  ? DataType::TimestampNtz()
                                                                       : DataType::Timestamp();
  return MakeFunctionCall(name, type, {}, std::make_shared<const CurrentTimeFunction>());
}

Result<BoundExprPtr> BindUnixTimestamp(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() && call.Name() == "unix_timestamp") {
    return BindCurrent(call, std::move(args));
  }
  return BindParse(call, std::move(args));
}

}  // namespace

void AddDatetimeFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"year", BindDateField},
                               {"quarter", BindDateField},
                               {"month", BindDateField},
                               {"day", BindDateField},
                               {"dayofmonth", BindDateField},
                               {"dayofweek", BindDateField},
                               {"weekday", BindDateField},
                               {"dayofyear", BindDateField},
                               {"hour", BindTimeField},
                               {"minute", BindTimeField},
                               {"second", BindTimeField},
                               {"to_timestamp", BindParse},
                               {"try_to_timestamp", BindParse},
                               {"to_date", BindParse},
                               {"unix_timestamp", BindUnixTimestamp},
                               {"to_unix_timestamp", BindParse},
                               {"from_unixtime", BindFormat},
                               {"date_format", BindFormat},
                               {"date_trunc", BindDateTrunc},
                               {"trunc", BindTrunc},
                               {"date_add", BindDateAdd},
                               {"date_sub", BindDateAdd},
                               {"datediff", BindDateDiff},
                               {"date_diff", BindDateDiff},
                               {"timestampdiff", BindTimestampDiff},
                               {"dateadd", BindDateAdd},
                               {"timestampadd", BindTimestampAdd},
                               {"make_date", BindMakeDate},
                               {"try_make_date", BindMakeDate},
                               {"make_timestamp", BindMakeTimestamp},
                               {"make_timestamp_ltz", BindMakeTimestamp},
                               {"make_timestamp_ntz", BindMakeTimestamp},
                               {"try_make_timestamp", BindMakeTimestamp},
                               {"try_make_timestamp_ltz", BindMakeTimestamp},
                               {"try_make_timestamp_ntz", BindMakeTimestamp},
                               {"next_day", BindNextDay},
                               {"timestamp_seconds", BindEpochToTimestamp},
                               {"timestamp_millis", BindEpochToTimestamp},
                               {"timestamp_micros", BindEpochToTimestamp},
                               {"unix_seconds", BindEpochFrom},
                               {"unix_millis", BindEpochFrom},
                               {"unix_micros", BindEpochFrom},
                               {"unix_date", BindEpochFrom},
                               {"date_from_unix_date", BindEpochFrom},
                               {"from_utc_timestamp", BindUtcShift},
                               {"to_utc_timestamp", BindUtcShift},
                               {"current_timestamp", BindCurrent},
                               {"now", BindCurrent},
                               {"current_date", BindCurrent},
                               {"curdate", BindCurrent},
                               {"current_timezone", BindCurrent},
                               {"localtimestamp", BindCurrent},
                               {"to_timestamp_ntz", BindParse},
                               {"to_timestamp_ltz", BindParse},
                               {"weekofyear", BindWeekOfYear},
                               {"add_months", BindAddMonths},
                               {"last_day", BindLastDay},
                               {"months_between", BindMonthsBetween},
                               {"dayname", BindDayOrMonthName},
                               {"monthname", BindDayOrMonthName},
                               {"convert_timezone", BindConvertTimezone}});
}

}  // namespace tributary::expr

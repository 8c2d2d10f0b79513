// Date and time functions with Spark's semantics. Timestamps are UTC instants shown and taken
// apart in the session time zone (EvalContext); timestamp_ntz values are wall-clock times used
// as they are. Parse failures are ANSI errors naming the row and the text (Spark 3.4+ with
// spark.sql.ansi.enabled); try_to_timestamp returns null instead.
//
// year, quarter, month, day/dayofmonth, dayofweek (1 = Sunday), weekday (0 = Monday),
// dayofyear, hour, minute, second; to_timestamp, try_to_timestamp, to_date, unix_timestamp,
// to_unix_timestamp, from_unixtime, date_format; date_trunc, trunc; date_add, date_sub,
// datediff; current_timestamp/now, current_date/curdate, current_timezone; and timestamp
// arithmetic with day-time intervals (BindIntervalArithmetic).

#include <fmt/format.h>

#include "columnar/calendar.h"
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
        ok = pattern_ ? pattern_->ParseTimestamp(s, zone, false, &micros)
                      : ParseTimestamp(s, zone, false, &micros);
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
  const DataTypePtr type = target == ParseTarget::kDate        ? DataType::Date()
                           : target == ParseTarget::kTimestamp ? DataType::Timestamp()
                                                               : DataType::Int64();
  if (name == "unix_timestamp" && args.empty()) {
    // unix_timestamp() is the current time.
    return MakeFunctionCall(
        name, type, {},
        Lambda([](const BoundExpression&, const std::vector<ColumnPtr>&,
                  const EvalContext&) -> Result<ColumnPtr> {
          return Status::Internal("unreachable: unix_timestamp() is bound as a constant");
        }));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, unix ? 1 : 1, 2));
  const TypeId input = args[0]->Type()->Id();
  if (input != TypeId::kString && input != TypeId::kNull) {
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

Result<BoundExprPtr> BindDateAdd(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(args[0], AsDate(call, std::move(args[0])));
  const DataType& days = *args[1]->Type();
  if (days.Id() != TypeId::kNull && days.Id() != TypeId::kInt8 && days.Id() != TypeId::kInt16 &&
      days.Id() != TypeId::kInt32) {
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
    }
    return MakeConstantColumn(value, batch.NumRows(), context.pool);
  }
};

Result<BoundExprPtr> BindCurrent(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 0, 0));
  const std::string& name = call.Name();
  const DataTypePtr type = name == "current_date" || name == "curdate" ? DataType::Date()
                           : name == "current_timezone"                ? DataType::String()
                           : name == "unix_timestamp"                  ? DataType::Int64()
                                                                       : DataType::Timestamp();
  return MakeFunctionCall(name, type, {}, std::make_shared<const CurrentTimeFunction>());
}

Result<BoundExprPtr> BindUnixTimestamp(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() && call.Name() == "unix_timestamp") {
    return BindCurrent(call, std::move(args));
  }
  return BindParse(call, std::move(args));
}

// ---- interval arithmetic ---------------------------------------------------------------------

// a + b or a - b over int64 microsecond values (timestamps, intervals), overflow an ANSI error.
class MicrosArithmetic final : public EagerFunction {
 public:
  explicit MicrosArithmetic(bool subtract) : subtract_(subtract) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t* a = args[0]->Values<int64_t>();
    const int64_t* b = args[1]->Values<int64_t>();
    int64_t overflow_row = -1;
    auto result = BuildFixed<int64_t>(call.Type(), args, context.pool, [&](int64_t i) {
      int64_t out = 0;
      const bool overflow = subtract_ ? __builtin_sub_overflow(a[i], b[i], &out)
                                      : __builtin_add_overflow(a[i], b[i], &out);
      if (overflow && overflow_row < 0) {
        overflow_row = i;
      }
      return out;
    });
    if (overflow_row >= 0) {
      return Status::InvalidArgument(
          fmt::format("[DATETIME_OVERFLOW] row {}: {} overflows", overflow_row, call.ToString()));
    }
    return result;
  }

 private:
  bool subtract_;
};

}  // namespace

Result<BoundExprPtr> BindIntervalArithmetic(const Expression& expr,
                                            std::vector<BoundExprPtr>& children) {
  const Op op = expr.GetOp();
  if (op != Op::kAdd && op != Op::kSubtract) {
    return BoundExprPtr();
  }
  TypeId a = children[0]->Type()->Id();
  TypeId b = children[1]->Type()->Id();
  const bool a_interval = a == TypeId::kDayTimeInterval;
  const bool b_interval = b == TypeId::kDayTimeInterval;
  auto make = [&](DataTypePtr type, BoundExprPtr left, BoundExprPtr right) {
    return std::make_shared<const BoundExpression>(
        op, std::move(type), std::vector<BoundExprPtr>{std::move(left), std::move(right)}, -1,
        Scalar::Null(), std::string(),
        std::make_shared<const MicrosArithmetic>(op == Op::kSubtract));
  };
  auto as_timestamp = [](BoundExprPtr e) {
    return e->Type()->Id() == TypeId::kDate ? CastTo(std::move(e), DataType::Timestamp()) : e;
  };
  if (a_interval && b_interval) {
    return make(DataType::DayTimeInterval(), children[0], children[1]);
  }
  if (IsDatetime(a) && b_interval) {
    BoundExprPtr left = as_timestamp(children[0]);
    DataTypePtr type = left->Type();
    return make(std::move(type), std::move(left), children[1]);
  }
  if (a_interval && IsDatetime(b) && op == Op::kAdd) {
    BoundExprPtr right = as_timestamp(children[1]);
    DataTypePtr type = right->Type();
    return make(std::move(type), std::move(right), children[0]);
  }
  if (op == Op::kSubtract && (a == TypeId::kTimestamp || a == TypeId::kTimestampNtz) &&
      (b == TypeId::kTimestamp || b == TypeId::kTimestampNtz || b == TypeId::kDate)) {
    DataTypePtr common = a == TypeId::kTimestamp || b == TypeId::kTimestamp
                             ? DataType::Timestamp()
                             : DataType::TimestampNtz();
    return make(DataType::DayTimeInterval(), CastTo(children[0], common),
                CastTo(children[1], common));
  }
  if (op == Op::kSubtract && a == TypeId::kDate && b == TypeId::kDate) {
    // Spark's SubtractDates (ANSI): the whole days between them as an interval, the same in
    // every time zone (a DST change does not make a day 23 hours), so through timestamp_ntz.
    return make(DataType::DayTimeInterval(), CastTo(children[0], DataType::TimestampNtz()),
                CastTo(children[1], DataType::TimestampNtz()));
  }
  if (a_interval || b_interval) {
    return Status::InvalidArgument(fmt::format("type mismatch in {}: cannot combine {} and {}",
                                               expr.ToString(), children[0]->Type()->ToString(),
                                               children[1]->Type()->ToString()));
  }
  return BoundExprPtr();
}

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
                               {"current_timestamp", BindCurrent},
                               {"now", BindCurrent},
                               {"current_date", BindCurrent},
                               {"curdate", BindCurrent},
                               {"current_timezone", BindCurrent}});
}

}  // namespace tributary::expr

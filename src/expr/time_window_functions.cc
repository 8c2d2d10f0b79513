// Event-time windows, as Spark's TimeWindow and its TimeWindowing analyzer rule compute them.
//
// window(time, windowDuration[, slideDuration[, startTime]]) -> struct<start, end> (of the
// time column's type: timestamp or timestamp_ntz). Durations are literals: interval strings
// ("10 minutes", interval_text.h), day-time interval literals, or integers (microseconds).
// Windows start at startTime + k * slideDuration for every integer k and last windowDuration;
// the window of a time is the latest one starting at or before it (Spark's
//   remainder = (time - startTime) % slide
//   lastStart = time - (remainder < 0 ? remainder + slide : remainder)).
// A tumbling window (slide = duration) is that one window, a null time a null window. A
// sliding window puts a time in several windows: the plan layer turns such a call into one
// row per window through time_windows(time, duration, slide, startTime), an array of the
// windows containing the time, latest first (the ceil(duration / slide) candidates that Spark's
// Expand makes, minus those its filter drops), which `explode` spreads over rows; binding a
// sliding window() as a scalar is an error.
//
// session_window(time, gapDuration) -> struct<start, end>: a row's initial session
// [time, time + gap), as Spark's SessionWindowing rule computes it. The gap is an interval
// string (literal or per row), or a day-time interval; a row whose time or gap is null, or
// whose gap is not positive, has a null session, which the plan layer filters out (Spark
// filters these rows). Merging the sessions of a key (start <= the current end) happens in the
// aggregation (exec/session_window.h), not here.

#include <optional>

#include <fmt/format.h>

#include "expr/function_kernels.h"
#include "expr/interval_text.h"

namespace tributary::expr {

namespace {

struct WindowSpec {
  int64_t duration = 0;
  int64_t slide = 0;
  int64_t start = 0;
};

// A duration argument in microseconds, as Spark's TimeWindow.parseExpression reads it.
Result<int64_t> DurationArgument(const Expression& call, const BoundExpression& arg) {
  if (arg.GetOp() == Op::kLiteral && !arg.Literal().IsNull()) {
    switch (arg.Type()->Id()) {
      case TypeId::kString: {
        const std::string& text = arg.Literal().BytesValue();
        auto micros = ParseIntervalMicros(text);
        if (micros.status().IsNotImplemented()) {
          return CallError(
              call, fmt::format("Intervals greater than a month is not supported ({}).", text));
        }
        if (!micros.ok()) {
          return CallError(call, micros.status().Message());
        }
        return *micros;
      }
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kDayTimeInterval:
        return arg.Literal().IntValue();
      default:
        break;
    }
  }
  return CallError(call,
                   "The duration and time inputs to window must be an integer, long or string "
                   "literal.");
}

// The arguments checked as Spark's TimeWindow.checkInputDataTypes: the time as a timestamp
// (timestamp_ntz kept), then the durations.
Result<WindowSpec> BindWindowArguments(const Expression& call, std::vector<BoundExprPtr>* args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, *args, 2, 4));
  BoundExprPtr& time = (*args)[0];
  const TypeId id = time->Type()->Id();
  if (id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
    if (id != TypeId::kString && id != TypeId::kDate && id != TypeId::kNull) {
      return CallError(call,
                       "the time column must be a timestamp, got " + time->Type()->ToString());
    }
    time = CastTo(std::move(time), DataType::Timestamp());
  }
  WindowSpec spec;
  TRIBUTARY_ASSIGN_OR_RAISE(spec.duration, DurationArgument(call, *(*args)[1]));
  spec.slide = spec.duration;
  if (args->size() > 2) {
    TRIBUTARY_ASSIGN_OR_RAISE(spec.slide, DurationArgument(call, *(*args)[2]));
  }
  if (args->size() > 3) {
    TRIBUTARY_ASSIGN_OR_RAISE(spec.start, DurationArgument(call, *(*args)[3]));
  }
  if (spec.duration <= 0) {
    return CallError(
        call, fmt::format("The window duration ({}) must be greater than 0.", spec.duration));
  }
  if (spec.slide <= 0) {
    return CallError(call,
                     fmt::format("The slide duration ({}) must be greater than 0.", spec.slide));
  }
  if (spec.slide > spec.duration) {
    return CallError(call, fmt::format("The slide duration ({}) must be less than or equal to the "
                                       "windowDuration ({}).",
                                       spec.slide, spec.duration));
  }
  if (spec.start <= -spec.slide || spec.start >= spec.slide) {
    return CallError(call, fmt::format("The absolute value of start time ({}) must be less than "
                                       "the slideDuration ({}).",
                                       spec.start, spec.slide));
  }
  // The durations as bigint literals (microseconds), so the call prints as Spark's does:
  // window(ts, 60000000, 60000000, 0).
  auto literal = [](int64_t micros) {
    return std::make_shared<BoundExpression>(Op::kLiteral, DataType::Int64(),
                                             std::vector<BoundExprPtr>{}, -1, Scalar::Int64(micros),
                                             std::string{});
  };
  *args = {std::move(time), literal(spec.duration), literal(spec.slide), literal(spec.start)};
  return spec;
}

DataTypePtr WindowType(const DataTypePtr& time) {
  return DataType::Struct({columnar::Field("start", time), columnar::Field("end", time)});
}

// The start of the latest window starting at or before `time`; false on overflow.
bool LastStart(int64_t time, const WindowSpec& spec, int64_t* out) {
  int64_t offset = 0;
  if (__builtin_sub_overflow(time, spec.start, &offset)) {
    return false;
  }
  const int64_t remainder = offset % spec.slide;
  return !__builtin_sub_overflow(time, remainder < 0 ? remainder + spec.slide : remainder, out);
}

Status WindowOverflow(int64_t row) {
  return Status::InvalidArgument(
      fmt::format("row {}: the window of this time is outside the range of timestamps", row));
}

Result<BoundExprPtr> BindWindow(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_ASSIGN_OR_RAISE(WindowSpec spec, BindWindowArguments(call, &args));
  if (spec.slide != spec.duration) {
    return CallError(call,
                     "a sliding window puts a row in several windows: use it in a SELECT list, "
                     "GROUP BY or withColumn, where the plan makes one row per window");
  }
  DataTypePtr type = WindowType(args[0]->Type());
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          Lambda([spec](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                        MemoryPool* pool) -> Result<ColumnPtr> {
                            const Column& time = *a[0];
                            const int64_t n = time.Length();
                            ColumnBuilder builder(c.Type(), pool);
                            builder.Reserve(n);
                            const int64_t* values = time.Values<int64_t>();
                            for (int64_t i = 0; i < n; ++i) {
                              int64_t start = 0;
                              int64_t end = 0;
                              if (time.IsNull(i)) {
                                builder.AppendNull();
                                continue;
                              }
                              if (!LastStart(values[i], spec, &start) ||
                                  __builtin_add_overflow(start, spec.duration, &end)) {
                                return WindowOverflow(i);
                              }
                              builder.Child(0).AppendInt(start);
                              builder.Child(1).AppendInt(end);
                              builder.AppendStruct();
                            }
                            return builder.Finish();
                          }));
}

Result<BoundExprPtr> BindTimeWindows(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 4, 4));
  TRIBUTARY_ASSIGN_OR_RAISE(WindowSpec spec, BindWindowArguments(call, &args));
  DataTypePtr type = DataType::Array(WindowType(args[0]->Type()));
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          Lambda([spec](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                        MemoryPool* pool) -> Result<ColumnPtr> {
                            const Column& time = *a[0];
                            const int64_t n = time.Length();
                            const int64_t candidates =
                                (spec.duration + spec.slide - 1) / spec.slide;
                            ColumnBuilder builder(c.Type(), pool);
                            builder.Reserve(n);
                            ColumnBuilder& window = builder.Child(0);
                            const int64_t* values = time.Values<int64_t>();
                            for (int64_t i = 0; i < n; ++i) {
                              if (time.IsNull(i)) {
                                builder.AppendNull();
                                continue;
                              }
                              int64_t last = 0;
                              if (!LastStart(values[i], spec, &last)) {
                                return WindowOverflow(i);
                              }
                              for (int64_t k = 0; k < candidates; ++k) {
                                // start = last - k * slide >= last - duration: no overflow once
                                // `last` exists unless near the minimum timestamp, which the
                                // checked forms catch.
                                int64_t start = 0;
                                int64_t end = 0;
                                if (__builtin_sub_overflow(last, k * spec.slide, &start) ||
                                    __builtin_add_overflow(start, spec.duration, &end)) {
                                  return WindowOverflow(i);
                                }
                                if (values[i] >= start && values[i] < end) {
                                  window.Child(0).AppendInt(start);
                                  window.Child(1).AppendInt(end);
                                  window.AppendStruct();
                                }
                              }
                              builder.AppendArray();
                            }
                            return builder.Finish();
                          }));
}

// A session's gap in microseconds from a literal: an interval string or a day-time interval.
Result<int64_t> LiteralGap(const Expression& call, const Scalar& literal) {
  if (literal.Type()->Id() == TypeId::kDayTimeInterval) {
    return literal.IntValue();
  }
  const std::string& text = literal.BytesValue();
  auto micros = ParseIntervalMicros(text);
  if (micros.status().IsNotImplemented()) {
    return CallError(call,
                     fmt::format("Intervals greater than a month is not supported ({}).", text));
  }
  if (!micros.ok()) {
    return CallError(call, micros.status().Message());
  }
  return *micros;
}

Result<BoundExprPtr> BindSessionWindow(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  BoundExprPtr& time_argument = args[0];
  const TypeId id = time_argument->Type()->Id();
  if (id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
    if (id != TypeId::kString && id != TypeId::kDate && id != TypeId::kNull) {
      return CallError(
          call, "the time column must be a timestamp, got " + time_argument->Type()->ToString());
    }
    time_argument = CastTo(std::move(time_argument), DataType::Timestamp());
  }
  const BoundExpression& gap_argument = *args[1];
  const TypeId gap_id = gap_argument.Type()->Id();
  if (gap_id != TypeId::kString && gap_id != TypeId::kDayTimeInterval && gap_id != TypeId::kNull) {
    return CallError(call, fmt::format("Gap duration expression used in session window must be "
                                       "CalendarIntervalType, but got {}",
                                       gap_argument.Type()->ToString()));
  }
  // A literal gap is parsed once (and a bad one is an error at planning, as Spark's analyzer
  // reports it); a per-row string that does not parse is a null gap (Spark's cast to interval).
  std::optional<int64_t> literal_gap;
  if (gap_argument.GetOp() == Op::kLiteral && !gap_argument.Literal().IsNull()) {
    TRIBUTARY_ASSIGN_OR_RAISE(literal_gap, LiteralGap(call, gap_argument.Literal()));
  }
  DataTypePtr type = WindowType(args[0]->Type());
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([literal_gap](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                           MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& time = *a[0];
        const Column& gaps = *a[1];
        const int64_t n = time.Length();
        ColumnBuilder builder(c.Type(), pool);
        builder.Reserve(n);
        const int64_t* values = time.Values<int64_t>();
        const TypeId gap_type = gaps.Type()->Id();
        for (int64_t i = 0; i < n; ++i) {
          std::optional<int64_t> gap = literal_gap;
          if (!gap && gap_type != TypeId::kNull && gaps.IsValid(i)) {
            if (gap_type == TypeId::kDayTimeInterval) {
              gap = gaps.Values<int64_t>()[i];
            } else if (auto parsed = ParseIntervalMicros(gaps.BytesAt(i)); parsed.ok()) {
              gap = *parsed;
            }
          }
          int64_t end = 0;
          if (time.IsNull(i) || !gap || *gap <= 0) {
            builder.AppendNull();
            continue;
          }
          if (__builtin_add_overflow(values[i], *gap, &end)) {
            return WindowOverflow(i);
          }
          builder.Child(0).AppendInt(values[i]);
          builder.Child(1).AppendInt(end);
          builder.AppendStruct();
        }
        return builder.Finish();
      }));
}

}  // namespace

void AddTimeWindowFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"window", BindWindow},
                               {"time_windows", BindTimeWindows},
                               {"session_window", BindSessionWindow}});
}

}  // namespace tributary::expr

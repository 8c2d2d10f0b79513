// Windows in plans: event-time windows (Spark's TimeWindowing and SessionWindowing rules:
// window(...) and session_window(...) calls become a column of the input) and window functions
// in a SELECT list (Spark's ExtractWindowExpressions: each distinct window call is bound, given
// Spark's default frame, and computed by one WindowNode under the projection).

#include <algorithm>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "common/ascii.h"
#include "expr/aggregate_signatures.h"
#include "plan/plan_builder.h"
#include "plan/plan_builder_internal.h"

namespace tributary::plan::internal {

namespace {

using expr::Expression;
using expr::Op;

constexpr std::string_view kWindowColumn = "window";

bool IsTimeWindowCall(const Expression& e) {
  return e.GetOp() == Op::kFunction && e.Name() == kWindowColumn;
}

void CollectTimeWindows(const Expression& e, std::vector<const Expression*>* calls) {
  if (IsTimeWindowCall(e)) {
    if (std::none_of(calls->begin(), calls->end(),
                     [&](const Expression* c) { return c->ToString() == e.ToString(); })) {
      calls->push_back(&e);
    }
    return;
  }
  for (const ExprPtr& child : e.Children()) {
    CollectTimeWindows(*child, calls);
  }
}

bool IsSessionWindowCall(const Expression& e) {
  return e.GetOp() == Op::kFunction && e.Name() == "session_window";
}

void CollectSessionWindows(const ExprPtr& e, std::vector<ExprPtr>* calls) {
  if (IsSessionWindowCall(*e)) {
    if (std::none_of(calls->begin(), calls->end(),
                     [&](const ExprPtr& c) { return c->ToString() == e->ToString(); })) {
      calls->push_back(e);
    }
    return;
  }
  for (const ExprPtr& child : e->Children()) {
    CollectSessionWindows(child, calls);
  }
}

// `e` with references to a `session_window` column (and its fields) read from `call`, for an
// input without such a column: SELECT session_window.start ... GROUP BY session_window(...)
// reads the key, as Spark's SessionWindowing names the session column so.
ExprPtr ReadSessionColumnFromCall(const ExprPtr& e, const ExprPtr& call) {
  if (e == nullptr || e == call) {
    return e;
  }
  if (e->GetOp() == Op::kColumn) {
    constexpr std::string_view kSession = "session_window";
    const std::string& name = e->Name();
    if (name == kSession) {
      return call;
    }
    if (name.size() > kSession.size() + 1 && name.starts_with(kSession) &&
        name[kSession.size()] == '.' && name.find('.', kSession.size() + 1) == std::string::npos) {
      return expr::GetField(call, name.substr(kSession.size() + 1));
    }
    return e;
  }
  std::vector<ExprPtr> children;
  children.reserve(e->Children().size());
  bool changed = false;
  for (const ExprPtr& child : e->Children()) {
    children.push_back(ReadSessionColumnFromCall(child, call));
    changed = changed || children.back() != child;
  }
  return changed ? Rebuild(*e, std::move(children)) : e;
}

// `e` with every window(...) call replaced by a reference to the window column.
ExprPtr ReplaceTimeWindows(const ExprPtr& e) {
  if (e == nullptr) {
    return e;
  }
  if (IsTimeWindowCall(*e)) {
    return ExactColumn(std::string(kWindowColumn));
  }
  std::vector<ExprPtr> children;
  children.reserve(e->Children().size());
  bool changed = false;
  for (const ExprPtr& child : e->Children()) {
    children.push_back(ReplaceTimeWindows(child));
    changed = changed || children.back() != child;
  }
  return changed ? Rebuild(*e, std::move(children)) : e;
}

// ---- window functions (Spark's ExtractWindowExpressions analyzer rule)

void CollectWindows(const ExprPtr& e, std::vector<ExprPtr>* windows) {
  if (e->GetOp() == Op::kWindow) {
    const std::string text = e->ToString();
    if (std::none_of(windows->begin(), windows->end(),
                     [&](const ExprPtr& w) { return w->ToString() == text; })) {
      windows->push_back(e);
    }
    return;
  }
  for (const ExprPtr& child : e->Children()) {
    CollectWindows(child, windows);
  }
}

ExprPtr ReplaceWindows(const ExprPtr& e, const std::vector<ExprPtr>& windows,
                       const std::vector<ExprPtr>& columns) {
  if (e->GetOp() == Op::kWindow) {
    const std::string text = e->ToString();
    for (size_t i = 0; i < windows.size(); ++i) {
      if (windows[i]->ToString() == text) {
        return columns[i];
      }
    }
  }
  if (!expr::ContainsWindow(*e)) {
    return e;
  }
  std::vector<ExprPtr> children;
  for (const ExprPtr& child : e->Children()) {
    children.push_back(ReplaceWindows(child, windows, columns));
  }
  return Rebuild(*e, std::move(children));
}

bool IsRankingWindowFunction(std::string_view name) {
  return name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
         name == "cume_dist" || name == "ntile";
}

Status CheckFrameOffset(const expr::WindowFrameBound& bound, const exec::WindowFunction& window,
                        const std::string& call) {
  using Kind = expr::WindowFrameBound::Kind;
  if (bound.kind != Kind::kPreceding && bound.kind != Kind::kFollowing) {
    return Status::OK();
  }
  const columnar::DataType& type = *bound.offset.Type();
  if (window.frame_type == expr::WindowSpec::FrameType::kRows) {
    // Spark's SpecifiedWindowFrame takes an int for ROWS (a bigint such as 2147483648 is
    // SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE).
    if (type.Id() == columnar::TypeId::kInt64) {
      return Status::InvalidArgument(fmt::format(
          "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE] The data type used in the "
          "window frame must be \"INT\", got {} in '{}'",
          bound.offset.ToString(), call));
    }
    if (!type.IsInteger() || bound.offset.IntValue() < 0) {
      return Status::InvalidArgument(fmt::format(
          "a ROWS frame boundary must be a non-negative integer literal, got {} in '{}'",
          bound.offset.ToString(), call));
    }
    return Status::OK();
  }
  if (window.order_keys.size() != 1) {
    return Status::InvalidArgument(fmt::format(
        "a RANGE frame with a PRECEDING or FOLLOWING offset needs exactly one ORDER BY key: '{}'",
        call));
  }
  const columnar::TypeId key = window.order_keys[0].expression->Type()->Id();
  const bool temporal_key = key == columnar::TypeId::kTimestamp ||
                            key == columnar::TypeId::kTimestampNtz ||
                            key == columnar::TypeId::kDate;
  const bool numeric_offset = type.IsNumeric() && !temporal_key;
  const bool interval_offset = type.Id() == columnar::TypeId::kDayTimeInterval &&
                               key != columnar::TypeId::kDate && temporal_key;
  const bool day_offset = key == columnar::TypeId::kDate && type.IsInteger();
  // Year-month offsets move dates and timestamps by calendar months.
  const bool month_offset = type.Id() == columnar::TypeId::kYearMonthInterval && temporal_key;
  if (!(numeric_offset && window.order_keys[0].expression->Type()->IsNumeric()) &&
      !interval_offset && !day_offset && !month_offset) {
    return Status::InvalidArgument(
        fmt::format("a RANGE frame offset of {} does not fit the ORDER BY key of type {} in '{}'",
                    type.ToString(), window.order_keys[0].expression->Type()->ToString(), call));
  }
  const bool negative =
      type.Id() == columnar::TypeId::kDecimal ? bound.offset.DecimalValue() < 0
      : type.Id() == columnar::TypeId::kFloat32 || type.Id() == columnar::TypeId::kFloat64
          ? bound.offset.DoubleValue() < 0
          : bound.offset.IntValue() < 0;
  if (negative) {
    return Status::InvalidArgument(
        fmt::format("a window frame boundary must not be negative: '{}'", call));
  }
  return Status::OK();
}

// The window function call `e` (kWindow) bound through `bind`, with Spark's default frame
// made explicit.
Result<exec::WindowFunction> BindWindow(const Expression& e, const BindOverInput& bind) {
  const expr::WindowSpec& spec = *e.Window();
  const std::string call = e.SqlText();
  exec::WindowFunction window;
  window.function = e.Name();
  window.distinct = e.IsDistinct();
  size_t child = 0;
  for (; child < spec.num_arguments; ++child) {
    const Expression& argument = *e.Child(child);
    // count(*) arrives as count(<*>): no argument.
    if (argument.GetOp() == Op::kColumn && argument.Name() == "*") {
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, bind(argument));
    window.arguments.push_back(std::move(bound));
  }
  for (size_t k = 0; k < spec.num_partition_keys; ++k, ++child) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, bind(*e.Child(child)));
    window.partition_keys.push_back(std::move(bound));
  }
  for (const expr::WindowSpec::Direction& direction : spec.order) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, bind(*e.Child(child++)));
    if (bound->Type()->Id() == columnar::TypeId::kMap) {
      return Status::InvalidArgument(
          fmt::format("a map cannot be a window ORDER BY key: '{}'", call));
    }
    window.order_keys.push_back({std::move(bound), direction.ascending, direction.nulls_first});
  }
  // Spark's SupportsOrderingWithinGroup aggregates order by their WITHIN GROUP only.
  if ((window.function == "median" || window.function == "percentile_cont" ||
       window.function == "percentile_disc") &&
      (!spec.order.empty() || spec.has_frame)) {
    return Status::InvalidArgument(
        fmt::format("[INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC] Cannot specify ORDER BY or a "
                    "window frame for {}: '{}'",
                    window.function, call));
  }
  using Kind = expr::WindowFrameBound::Kind;
  if (spec.has_frame) {
    window.frame_type = spec.frame_type;
    window.frame_start = spec.start;
    window.frame_end = spec.end;
  } else if (spec.order.empty()) {
    window.frame_type = expr::WindowSpec::FrameType::kRows;
    window.frame_start.kind = Kind::kUnboundedPreceding;
    window.frame_end.kind = Kind::kUnboundedFollowing;
  } else {
    window.frame_type = expr::WindowSpec::FrameType::kRange;
    window.frame_start.kind = Kind::kUnboundedPreceding;
    window.frame_end.kind = Kind::kCurrentRow;
  }
  if (window.frame_start.kind == Kind::kUnboundedFollowing ||
      window.frame_end.kind == Kind::kUnboundedPreceding) {
    return Status::InvalidArgument(fmt::format(
        "a window frame cannot start at UNBOUNDED FOLLOWING or end at UNBOUNDED PRECEDING: '{}'",
        call));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckFrameOffset(window.frame_start, window, call));
  TRIBUTARY_RETURN_NOT_OK(CheckFrameOffset(window.frame_end, window, call));
  // A frame whose lower bound lies after its upper one (1 FOLLOWING AND 1 PRECEDING) is
  // Spark's SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON; numeric offsets only.
  const auto frame_position = [](const expr::WindowFrameBound& bound) -> std::optional<double> {
    if (bound.kind == Kind::kCurrentRow) {
      return 0.0;
    }
    if (bound.kind != Kind::kPreceding && bound.kind != Kind::kFollowing) {
      return std::nullopt;
    }
    const columnar::DataType& type = *bound.offset.Type();
    double offset = 0;
    if (type.IsInteger()) {
      offset = static_cast<double>(bound.offset.IntValue());
    } else if (type.Id() == columnar::TypeId::kFloat32 || type.Id() == columnar::TypeId::kFloat64) {
      offset = bound.offset.DoubleValue();
    } else {
      return std::nullopt;
    }
    return bound.kind == Kind::kPreceding ? -offset : offset;
  };
  const std::optional<double> lower = frame_position(window.frame_start);
  const std::optional<double> upper = frame_position(window.frame_end);
  if (lower && upper && *lower > *upper) {
    return Status::InvalidArgument(fmt::format(
        "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON] The lower bound of a "
        "window frame must be less than or equal to the upper bound: '{}'",
        call));
  }

  const std::string& name = window.function;
  auto argument_count = [&](size_t min, size_t max) -> Status {
    if (window.arguments.size() < min || window.arguments.size() > max) {
      return Status::InvalidArgument(fmt::format("{} takes {} to {} arguments, got {}: '{}'", name,
                                                 min, max, window.arguments.size(), call));
    }
    return Status::OK();
  };
  if (IsRankingWindowFunction(name) || name == "lag" || name == "lead") {
    if (window.order_keys.empty()) {
      // Spark: "Window function row_number() requires window to be ordered".
      return Status::InvalidArgument(fmt::format(
          "Window function {}() requires window to be ordered, please add ORDER BY clause: '{}'",
          name, call));
    }
  }
  if (IsRankingWindowFunction(name)) {
    TRIBUTARY_RETURN_NOT_OK(argument_count(name == "ntile" ? 1 : 0, name == "ntile" ? 1 : 0));
    window.type = name == "percent_rank" || name == "cume_dist" ? columnar::DataType::Float64()
                                                                : columnar::DataType::Int32();
    return window;
  }
  if (name == "lag" || name == "lead") {
    TRIBUTARY_RETURN_NOT_OK(argument_count(1, 3));
    window.type = window.arguments[0]->Type();
    if (window.arguments.size() == 3 && window.arguments[2]->Type()->Id() != window.type->Id()) {
      // The default takes the value's type (Spark's implicit cast of the default).
      TRIBUTARY_ASSIGN_OR_RAISE(window.arguments[2], bind(*expr::Cast(e.Child(2), window.type)));
    }
    return window;
  }
  if (name == "nth_value") {
    TRIBUTARY_RETURN_NOT_OK(argument_count(2, 3));
    window.type = window.arguments[0]->Type();
    return window;
  }
  if (expr::FindAggregateSignature(name) == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{} is not a window function or an aggregate: '{}'", name, call));
  }
  std::vector<columnar::DataTypePtr> types;
  for (const BoundExprPtr& argument : window.arguments) {
    types.push_back(argument->Type());
  }
  const std::vector<columnar::DataTypePtr> casts = expr::AggregateArgumentCasts(name, types);
  for (size_t i = 0; i < casts.size(); ++i) {
    // Only count(*) skips a child, and it takes no casts: argument i is child i.
    if (casts[i] != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(window.arguments[i], bind(*expr::Cast(e.Child(i), casts[i])));
      types[i] = casts[i];
    }
  }
  auto type = expr::AggregateResultType(name, types, window.distinct);
  if (!type.ok()) {
    return type.status().WithContext(fmt::format("in '{}'", call));
  }
  window.type = *type;
  return window;
}

}  // namespace

// When `exprs` call window(...): `input` with the column `window` appended, computed as Spark's
// TimeWindowing rule does, and each call in `exprs` replaced by a reference to it. A tumbling
// window is the scalar window() over the rows whose time is not null; a sliding one is one row
// per window containing the time (explode of time_windows(...)). One distinct window per
// operator, as Spark.
Result<LogicalPlanPtr> PlanTimeWindow(LogicalPlanPtr input, const std::vector<ExprPtr*>& exprs) {
  std::vector<const Expression*> calls;
  for (const ExprPtr* e : exprs) {
    if (*e != nullptr) {
      CollectTimeWindows(**e, &calls);
    }
  }
  std::vector<ExprPtr> sessions;
  for (const ExprPtr* e : exprs) {
    if (*e != nullptr) {
      CollectSessionWindows(*e, &sessions);
    }
  }
  for (const ExprPtr& session : sessions) {
    calls.push_back(session.get());
  }
  if (calls.empty()) {
    return input;
  }
  if (calls.size() > 1) {
    return Status::InvalidArgument(fmt::format(
        "Multiple time/session window expressions would result in a cartesian product of rows, "
        "therefore they are currently not supported: '{}' and '{}'",
        calls[0]->ToString(), calls[1]->ToString()));
  }
  if (!sessions.empty()) {
    // Spark's SessionWindowing: the rows whose session exists (time not null, gap positive);
    // the call stays where it is, and an aggregation grouped by it merges the sessions of
    // each key (exec/session_window.h).
    const ExprPtr& call = sessions.front();
    const columnar::Schema& schema = *input->Schema();
    bool has_session_column = false;
    for (int i = 0; i < schema.NumFields(); ++i) {
      has_session_column =
          has_session_column || EqualsIgnoreAsciiCase(schema.FieldAt(i).Name(), "session_window");
    }
    if (!has_session_column) {
      for (ExprPtr* e : exprs) {
        *e = ReadSessionColumnFromCall(*e, call);
      }
    }
    return Filter(input, expr::Call(Op::kIsNotNull, {call}));
  }
  const Expression& call = *calls.front();
  // time_windows(time, duration, slide, start) checks the arguments as window() does.
  std::vector<ExprPtr> arguments = call.Children();
  if (arguments.size() >= 2 && arguments.size() <= 4) {
    if (arguments.size() == 2) {
      arguments.push_back(arguments[1]);
    }
    if (arguments.size() == 3) {
      arguments.push_back(expr::Lit(expr::Scalar::Int64(0)));
    }
  }
  auto resolved = Resolve(*expr::Function("time_windows", arguments), *input);
  if (!resolved.ok()) {
    // The same problem, named after the user's call.
    TRIBUTARY_RETURN_NOT_OK(Resolve(call, *input).status());
    return resolved.status();
  }
  BoundExprPtr windows = std::move(*resolved);
  const bool tumbling =
      windows->Child(1).Literal().IntValue() == windows->Child(2).Literal().IntValue();
  LogicalPlanPtr windowed;
  if (tumbling) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr present,
                              Filter(input, expr::Call(Op::kIsNotNull, {call.Children().front()})));
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr window, Resolve(call, *present));
    std::vector<BoundExprPtr> outputs;
    std::vector<std::string> names;
    for (int i = 0; i < present->Schema()->NumFields(); ++i) {
      outputs.push_back(ColumnRef(*present, i));
      names.push_back(present->Schema()->FieldAt(i).Name());
    }
    outputs.push_back(std::move(window));
    names.emplace_back(kWindowColumn);
    std::vector<std::string> qualifiers = present->Qualifiers();
    qualifiers.emplace_back();
    windowed =
        std::make_shared<ProjectNode>(present, std::move(outputs), names, std::move(qualifiers));
  } else {
    exec::GenerateSpec spec;
    spec.collection = windows;
    std::vector<columnar::Field> generated = {
        columnar::Field(std::string(kWindowColumn), windows->Type()->ElementType(), true)};
    windowed = std::make_shared<GenerateNode>(input, std::move(spec), std::move(generated));
  }
  for (ExprPtr* e : exprs) {
    *e = ReplaceTimeWindows(*e);
  }
  return windowed;
}

// `input` with a WindowNode computing the window calls in `*items` (each bound through `bind`,
// over `input`) on top; the items then read the window node's columns instead.
Result<LogicalPlanPtr> PlanWindows(LogicalPlanPtr input, const std::vector<ExprPtr*>& items,
                                   const BindOverInput& bind) {
  std::vector<ExprPtr> windows;
  for (const ExprPtr* item : items) {
    CollectWindows(*item, &windows);
  }
  if (windows.empty()) {
    return input;
  }
  std::vector<exec::WindowFunction> functions;
  std::vector<columnar::Field> outputs;
  for (const ExprPtr& window : windows) {
    for (const ExprPtr& child : window->Children()) {
      if (expr::ContainsWindow(*child)) {
        return Status::InvalidArgument(
            fmt::format("window function calls may not be nested: '{}'", window->ToString()));
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(exec::WindowFunction function, BindWindow(*window, bind));
    outputs.emplace_back(window->ToString(), function.type, true);
    functions.push_back(std::move(function));
  }
  const int first = input->Schema()->NumFields();
  auto node =
      std::make_shared<WindowNode>(std::move(input), std::move(functions), std::move(outputs));
  std::vector<ExprPtr> columns;
  for (size_t i = 0; i < windows.size(); ++i) {
    columns.push_back(ExactColumn(InternalName(*node, first + static_cast<int>(i))));
  }
  for (ExprPtr* item : items) {
    *item = ReplaceWindows(*item, windows, columns);
  }
  return LogicalPlanPtr(node);
}

}  // namespace tributary::plan::internal

// Expression trees as users and planners build them, before binding to a schema.
//
// An Expression names columns and functions; Bind() (binder.h) resolves it against a schema
// into a typed BoundExpression that the evaluator runs a batch at a time.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr/scalar.h"

namespace tributary::expr {

/// What an expression node does.
enum class Op : uint8_t {
  kColumn,    // a top-level column by name
  kGetField,  // child 0 is a struct; field `name`
  kLiteral,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,     // Spark's '/': integers divide as double, decimals as decimal
  kRemainder,  // '%'
  kNegate,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kNullSafeEqual,  // '<=>'
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kIn,       // child 0 IN (children 1..n)
  kBetween,  // child 0 BETWEEN child 1 AND child 2
  kCast,     // ANSI cast: a value that does not convert is an error
  kTryCast,  // try_cast: a value that does not convert becomes null
  // A call by name: Name() is the function name, lowercased; Children() are the arguments;
  // IsDistinct() for `count(DISTINCT x)`-style aggregate calls.
  kFunction,
  // CASE WHEN when_1 THEN then_1 ... [ELSE else] END: children when_1, then_1, ..., when_n,
  // then_n, [else]; HasElse() tells whether the last child is the ELSE value.
  kCaseWhen,
  // child 0 is an array or a map, child 1 the index or key: arr[0] (0-based), m['k'].
  kSubscript,
  // A window function call, `f(args) OVER (PARTITION BY ... ORDER BY ... frame)`: Name() is
  // the function, lowercased; Window() the specification; Children() are the arguments, then
  // the partition keys, then the ordering keys (WindowSpec tells how many of each).
  kWindow,
  // A lambda function argument of a higher-order function (transform, filter, ...): child 0 is
  // the body, children 1..n its parameters (kLambdaVariable), as in `(x, i) -> x + i`.
  kLambda,
  // A lambda parameter named Name() where the body uses it; bound to the value it takes in
  // the enclosing lambda (a variable, not a column, so column resolution passes it by).
  kLambdaVariable,
};

/// Operator name as SQL spells it ("+", "<=>", "AND", "CAST").
std::string_view OpName(Op op);

/// SQL text of `op` applied to already printed operands, shared by unbound and bound trees:
/// "(a + b)", "(NOT a)", "(a IN (1, 2))", "CAST(a AS int)" (`cast_type` for kCast/kTryCast).
std::string FormatOperator(Op op, const std::vector<std::string>& operands,
                           const DataType* cast_type);

/// "name(a, b)" or "name(DISTINCT a)", shared by unbound and bound trees.
std::string FormatFunctionCall(std::string_view name, const std::vector<std::string>& arguments,
                               bool distinct);

/// True for =, !=, <, <=, >, >= and <=>.
bool IsComparison(Op op);

class Expression;
using ExprPtr = std::shared_ptr<const Expression>;

/// One end of a window frame (Spark's frame boundaries).
struct WindowFrameBound {
  enum class Kind : uint8_t {
    kUnboundedPreceding,
    kPreceding,  // `offset` rows (ROWS) or order-key units (RANGE) before the current row
    kCurrentRow,
    kFollowing,  // `offset` after the current row
    kUnboundedFollowing,
  };
  Kind kind = Kind::kUnboundedPreceding;
  /// kPreceding/kFollowing: a non-negative literal (integral for ROWS; for RANGE a number,
  /// in the units of the ordering key).
  Scalar offset = Scalar::Null();
};

/// The OVER clause of a window function call (the expressions are the call's children).
struct WindowSpec {
  enum class FrameType : uint8_t { kRows, kRange };
  struct Direction {
    bool ascending = true;
    bool nulls_first = true;
  };
  size_t num_arguments = 0;
  size_t num_partition_keys = 0;
  /// One per ordering key (the children after the partition keys).
  std::vector<Direction> order;
  /// Whether the query wrote a frame; without one Spark's default applies: the whole partition
  /// without ORDER BY, else RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
  bool has_frame = false;
  /// `OVER w`: the name of a WINDOW clause definition the parser has yet to substitute.
  std::string reference;
  FrameType frame_type = FrameType::kRange;
  WindowFrameBound start;
  WindowFrameBound end;

  /// "PARTITION BY a ORDER BY b DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW" over the
  /// printed keys (partition keys, then ordering keys).
  std::string ToString(const std::vector<std::string>& keys) const;
};

/// An unbound expression node. Immutable; share subtrees freely.
///
/// Thread-safety: immutable, safe to share between threads.
class Expression {
 public:
  Op GetOp() const { return op_; }
  const std::vector<ExprPtr>& Children() const { return children_; }
  const ExprPtr& Child(size_t i) const { return children_[i]; }
  /// kColumn: the column name; kGetField: the field name.
  const std::string& Name() const { return name_; }
  /// kLiteral only.
  const Scalar& Literal() const { return literal_; }
  /// kCast/kTryCast only.
  const DataTypePtr& TargetType() const { return target_type_; }
  /// kFunction only: an aggregate over distinct values (`count(DISTINCT x)`).
  bool IsDistinct() const { return distinct_; }
  /// kCaseWhen only: whether the last child is the ELSE value.
  bool HasElse() const { return op_ == Op::kCaseWhen && children_.size() % 2 == 1; }
  /// kWindow only: the OVER clause.
  const std::shared_ptr<const WindowSpec>& Window() const { return window_; }

  /// SQL-like text: (a + 1), CAST(b AS int), s.f IN (1, 2); literals keep their type suffixes
  /// (1L, 0.5BD), so the text reads back as the same expression.
  std::string ToString() const;
  /// As ToString, but literals as a user wrote them (1, 0.5): how error messages quote it.
  std::string SqlText() const;

  /// Not for direct use: the builder functions below make expressions.
  Expression(Op op, std::vector<ExprPtr> children, std::string name, Scalar literal,
             DataTypePtr target_type, bool distinct = false,
             std::shared_ptr<const WindowSpec> window = nullptr);

 private:
  std::string Text(bool sql_literals) const;
  Op op_;
  std::vector<ExprPtr> children_;
  std::string name_;
  Scalar literal_;
  DataTypePtr target_type_;
  bool distinct_;
  std::shared_ptr<const WindowSpec> window_;
};

/// The column name Spark derives for an unaliased SELECT expression (its toPrettySQL): the
/// text of ToString, except that literals print as their values (`1` for 1L, `abc` for 'abc',
/// `1.5` for 1.5BD), a cast names its type as Spark's SQL does (`CAST(x AS DOUBLE)`), count(*)
/// is `count(1)`, `a != b` is `(NOT (a = b))`, `if` and LIKE print as Spark prints them.
std::string PrettyName(const Expression& e);

/// A column reference. Dots separate nested struct fields ("address.city"); backticks quote a
/// name that contains dots ("`a.b`.c"), doubled backticks stand for one.
ExprPtr Col(std::string_view path);
/// Field `name` of a struct-valued expression.
ExprPtr GetField(ExprPtr input, std::string name);
ExprPtr Lit(Scalar value);
ExprPtr Call(Op op, std::vector<ExprPtr> children);
ExprPtr Cast(ExprPtr input, DataTypePtr type);
ExprPtr TryCast(ExprPtr input, DataTypePtr type);
ExprPtr In(ExprPtr value, std::vector<ExprPtr> list);
ExprPtr Between(ExprPtr value, ExprPtr low, ExprPtr high);
ExprPtr IsNull(ExprPtr input);
ExprPtr IsNotNull(ExprPtr input);
ExprPtr Not(ExprPtr input);
ExprPtr And(ExprPtr left, ExprPtr right);
ExprPtr Or(ExprPtr left, ExprPtr right);

/// A call of the function `name` (stored lowercased: SQL function names ignore case). Scalar
/// functions are resolved by Bind; aggregate calls (IsAggregateFunctionName) are extracted by
/// the planner, and Bind rejects them outside an aggregation. Operators SQL spells as words
/// are calls too: LIKE is like(value, pattern[, escape]), RLIKE/REGEXP is rlike(value, regex),
/// and COALESCE, IFNULL/NVL, NULLIF, IF are coalesce(...), ifnull(a, b), nullif(a, b), if(c, a,
/// b).
ExprPtr Function(const std::string& name, std::vector<ExprPtr> args, bool distinct = false);
/// `function(arguments) OVER (spec)`: `keys` are the partition keys then the ordering keys.
ExprPtr WindowCall(const std::string& function, std::vector<ExprPtr> arguments, bool distinct,
                   std::vector<ExprPtr> keys, WindowSpec spec);
/// Whether `e` contains a window function call.
bool ContainsWindow(const Expression& e);
/// The names of functions that are only window functions (row_number, rank, lag, ...): a
/// call of one needs an OVER clause.
bool IsWindowOnlyFunctionName(std::string_view name);

/// CASE WHEN branches[0].first THEN branches[0].second ... ELSE else_value END; `else_value`
/// may be null (no ELSE: rows no branch matches are null).
ExprPtr CaseWhen(std::vector<std::pair<ExprPtr, ExprPtr>> branches, ExprPtr else_value);
/// A lambda `(params...) -> body`. Column references in `body` named like a parameter
/// (ignoring case, as Spark) become LambdaVariable(name): parsers build the body as ordinary
/// expressions and need not know which names are parameters.
ExprPtr LambdaExpr(std::vector<std::string> params, ExprPtr body);
/// A reference to the lambda parameter `name` inside a lambda body.
ExprPtr LambdaVariable(std::string name);
/// base[key]: element `key` (0-based) of an array, or the value under `key` of a map; null
/// when the index is out of range or the key is absent.
ExprPtr Subscript(ExprPtr base, ExprPtr key);

/// from_json(json, schema) with the schema as a type (a struct, array or map type): Spark's
/// `from_json(col, schema)`. SQL's from_json(json, 'a INT, b STRING') is built by the SQL
/// layer, which parses the DDL text into the type. (Internally the type travels as a typed
/// NULL literal second argument, and the options as name and value string literals after it.)
///
/// `options` (names ignore case): `mode` PERMISSIVE (default: what does not fit is null) or
/// FAILFAST (an error quoting the record); `columnNameOfCorruptRecord` (default
/// "_corrupt_record"): a string field of the struct schema so named takes the text of a
/// malformed record (not JSON, not an object, or a value that does not fit its field);
/// `rescuedDataColumn`: a string field (appended to the struct when the schema lacks it) that
/// takes, as Auto Loader's rescued-data column, a JSON object of the top-level fields outside
/// the schema and of those whose value does not fit (left null), or {"_corrupt_record": text}
/// for a record that is not a JSON object (when there is no corrupt-record field). Other Spark
/// JSON options are accepted without effect.
ExprPtr FromJson(ExprPtr json, DataTypePtr schema,
                 const std::vector<std::pair<std::string, std::string>>& options = {});

/// Aggregate function names the planner extracts from expressions: count, sum, avg, mean,
/// min, max, first, first_value, last, last_value, collect_list, collect_set,
/// approx_count_distinct, count_if, bool_and, every, bool_or, any, some, stddev, stddev_samp,
/// stddev_pop, std, variance, var_samp, var_pop. `name` is matched ignoring case.
bool IsAggregateFunctionName(std::string_view name);
/// Whether `e` or an expression below it calls an aggregate function (IsAggregateFunctionName).
bool ContainsAggregate(const Expression& e);
/// Generator names (explode, posexplode, inline, explode_outer, posexplode_outer,
/// inline_outer): they produce rows, so only SELECT lists may use them and the planner
/// handles them; Bind rejects them.
bool IsGeneratorFunctionName(std::string_view name);

// Typed literals, as the SQL parser builds them:
//   DATE '2024-05-01'            DateLiteral(text): a date scalar, parsed now (dates have no
//                                zone).
//   TIMESTAMP '2024-05-01 10:00' TimestampLiteral(text): CAST('...' AS timestamp), so the
//                                session time zone of the evaluation applies to zone-less
//                                text; the syntax is checked now.
//   TIMESTAMP_NTZ '...'          TimestampNtzLiteral(text): a timestamp_ntz scalar.
//   X'0a0b'                      BinaryLiteral(hex): a binary scalar.
//   1.23, 1.23BD                 DecimalLiteral(digits): decimal(3,2), as Spark types exact
//                                numeric literals (precision = digits, scale = digits after
//                                the point; more than 38 digits is an error).
//   INTERVAL '10' MINUTE         ParseIntervalLiteral("10", "MINUTE"): a day-time interval.
//   INTERVAL '1 day 2 hours'     ParseIntervalLiteral("1 day 2 hours", ""): multi-unit text.
// Each returns InvalidArgument naming the literal when its text does not parse.

Result<Scalar> DateLiteral(std::string_view text);
Result<ExprPtr> TimestampLiteral(std::string_view text);
Result<Scalar> TimestampNtzLiteral(std::string_view text);
/// `hex` without the X'' quotes; an odd number of digits is padded with a leading 0 as Spark.
Result<Scalar> BinaryLiteral(std::string_view hex);
/// [+-]digits[.digits], optionally followed by BD (any case).
Result<Scalar> DecimalLiteral(std::string_view text);
/// A day-time interval (Spark's DayTimeIntervalType, microseconds): `value` is a signed
/// number in `unit` (DAY, HOUR, MINUTE, SECOND with fraction, MILLISECOND, MICROSECOND, WEEK,
/// singular or plural, any case), or with an empty unit a list "<n> <unit> [<n> <unit>...]"
/// ("1 day 2 hours 30 minutes"). Whole numbers of YEAR and MONTH units, and '[+|-]y-m' with
/// unit "YEAR TO MONTH", make a year-month interval (YearMonthIntervalType, int32 months);
/// mixing the two families in one literal is InvalidArgument, as in Spark.
Result<Scalar> ParseIntervalLiteral(std::string_view value, std::string_view unit);

}  // namespace tributary::expr

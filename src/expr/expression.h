// Expression trees as users and planners build them, before binding to a schema.
//
// An Expression names columns and functions; Bind() (binder.h) resolves it against a schema
// into a typed BoundExpression that the evaluator runs a batch at a time.

#pragma once

#include <memory>
#include <string>
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
};

/// Operator name as SQL spells it ("+", "<=>", "AND", "CAST").
std::string_view OpName(Op op);

/// SQL text of `op` applied to already printed operands, shared by unbound and bound trees:
/// "(a + b)", "(NOT a)", "(a IN (1, 2))", "CAST(a AS int)" (`cast_type` for kCast/kTryCast).
std::string FormatOperator(Op op, const std::vector<std::string>& operands,
                           const DataType* cast_type);

/// True for =, !=, <, <=, >, >= and <=>.
bool IsComparison(Op op);

class Expression;
using ExprPtr = std::shared_ptr<const Expression>;

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

  /// SQL-like text: (a + 1), CAST(b AS int), s.f IN (1, 2).
  std::string ToString() const;

  /// Not for direct use: the builder functions below make expressions.
  Expression(Op op, std::vector<ExprPtr> children, std::string name, Scalar literal,
             DataTypePtr target_type);

 private:
  Op op_;
  std::vector<ExprPtr> children_;
  std::string name_;
  Scalar literal_;
  DataTypePtr target_type_;
};

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

}  // namespace tributary::expr

// Spark's implicit type coercion, shared by the binder and the function binders (internal to
// the expr layer).

#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "expr/bound_expression.h"

namespace tributary::expr {

BoundExprPtr MakeBound(Op op, DataTypePtr type, std::vector<BoundExprPtr> children, int index = -1,
                       Scalar literal = Scalar::Null(), std::string name = {});

/// `input` as `type`: itself when the shape already matches, a typed null for a NULL literal,
/// else an explicit ANSI cast.
BoundExprPtr CastTo(BoundExprPtr input, const DataTypePtr& type);

/// decimal(precision, scale) for parameters known to be valid.
DataTypePtr DecimalOrDie(int precision, int scale);
/// An integer type as the decimal that holds all its values; decimals unchanged.
DataTypePtr AsDecimal(const DataTypePtr& type);
/// Spark's DecimalType.bounded plus the precision-loss adjustment of DecimalPrecision.
DataTypePtr AdjustedDecimal(int precision, int scale);

/// The type two numeric operands are compared or combined in (Spark's findWiderTypeForTwo).
DataTypePtr WiderNumeric(const DataTypePtr& a, const DataTypePtr& b);
/// The first rule of every widening of two types: where one is the null type, the other one
/// (`b` when both are); null when neither is.
DataTypePtr OtherIfNullType(const DataTypePtr& a, const DataTypePtr& b);
/// The type a string operand of a binary operator and the other operand are both cast to
/// (Spark's ANSI AnsiStringPromotionTypeCoercion.findWiderTypeForString): bigint beside an
/// integer, double beside a float, double or decimal, the other type beside a boolean, date,
/// timestamp or binary; null when neither operand is a string, beside an interval or a nested
/// type, and for two strings.
DataTypePtr StringPromotionType(const DataTypePtr& a, const DataTypePtr& b);
/// The common type of two comparison operands, or null when they cannot be compared.
DataTypePtr ComparisonType(const DataTypePtr& a, const DataTypePtr& b);
/// The type values of all `types` can be returned as (CASE branches, coalesce, greatest,
/// array(...) elements: Spark's findWiderCommonType): nulls take the other type, numbers
/// widen, dates widen to timestamps, a string beside another atomic type is promoted as by
/// StringPromotionType (Spark's ANSI findWiderTypeForTwo: coalesce(1, '2') is a bigint), nested
/// types combine element-wise. Null when there is none.
DataTypePtr CommonType(std::span<const DataTypePtr> types);

bool IsDatetime(columnar::TypeId id);

}  // namespace tributary::expr

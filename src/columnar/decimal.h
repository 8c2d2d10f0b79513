// Decimal values: unscaled 128-bit integers with a scale, up to 38 digits (Spark's Decimal).

#pragma once

#include <cstdint>
#include <string>

#include "columnar/data_type.h"

namespace tributary::columnar {

/// 10^exponent for 0 <= exponent <= 38.
Int128 PowerOfTen(int exponent);

/// Decimal digits that hold every value of integer type `id` (Spark's DecimalType.forType):
/// tinyint 3, smallint 5, int 10, bigint 20.
int DecimalDigitsOfInteger(TypeId id);

/// True when |unscaled| < 10^precision.
inline bool FitsPrecision(Int128 unscaled, int precision) {
  const Int128 bound = PowerOfTen(precision);
  return unscaled < bound && unscaled > -bound;
}

/// Appends the plain decimal text of unscaled * 10^-scale with exactly `scale` fraction digits:
/// (1234, 2) -> "12.34", (-5, 3) -> "-0.005", (7, 0) -> "7".
void AppendDecimal(Int128 unscaled, int scale, std::string* out);

}  // namespace tributary::columnar

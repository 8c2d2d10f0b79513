#include "columnar/decimal.h"

#include <algorithm>
#include <array>

namespace tributary::columnar {

Int128 PowerOfTen(int exponent) {
  static const std::array<Int128, kMaxDecimalPrecision + 1> kPowers = [] {
    std::array<Int128, kMaxDecimalPrecision + 1> powers{};
    powers[0] = 1;
    for (size_t i = 1; i < powers.size(); ++i) {
      powers[i] = powers[i - 1] * 10;
    }
    return powers;
  }();
  return kPowers[static_cast<size_t>(exponent)];
}

int DecimalDigitsOfInteger(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 3;
    case TypeId::kInt16:
      return 5;
    case TypeId::kInt32:
      return 10;
    default:
      return 20;
  }
}

void AppendDecimal(Int128 unscaled, int scale, std::string* out) {
  // Work on the magnitude as unsigned so that the most negative value does not overflow.
  const bool negative = unscaled < 0;
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(unscaled)
                                         : static_cast<unsigned __int128>(unscaled);
  char digits[48];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  while (n <= scale) {
    digits[n++] = '0';
  }
  if (negative) {
    out->push_back('-');
  }
  for (int i = n - 1; i >= 0; --i) {
    out->push_back(digits[i]);
    if (i == scale && scale > 0) {
      out->push_back('.');
    }
  }
}

}  // namespace tributary::columnar

#include "exec/hive_partitioning.h"

#include <limits>

#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "common/ascii.h"
#include "delta/actions.h"
#include "expr/kernels.h"
#include "expr/temporal_parsing.h"

namespace tributary::exec {

namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::TypeId;

// Spark's unescapePathName: `%XX` is the byte XX. Text with a malformed escape stays as it is.
std::string Unescape(std::string_view text) {
  Result<std::string> decoded = delta::DecodeUriPath(text);
  return decoded.ok() ? std::move(*decoded) : std::string(text);
}

// yyyy-MM-dd exactly (Spark's partition date pattern).
bool IsDateText(std::string_view text) {
  return text.size() == 10 && IsAsciiDigits(text.substr(0, 4)) && text[4] == '-' &&
         IsAsciiDigits(text.substr(5, 2)) && text[7] == '-' && IsAsciiDigits(text.substr(8, 2));
}

// yyyy-MM-dd HH:mm:ss[.fraction] (Spark's partition timestamp pattern).
bool IsTimestampText(std::string_view text) {
  if (text.size() < 19 || !IsDateText(text.substr(0, 10)) || text[10] != ' ' ||
      !IsAsciiDigits(text.substr(11, 2)) || text[13] != ':' || !IsAsciiDigits(text.substr(14, 2)) ||
      text[16] != ':' || !IsAsciiDigits(text.substr(17, 2))) {
    return false;
  }
  return text.size() == 19 || (text[19] == '.' && IsAsciiDigits(text.substr(20)));
}

// The type of one value: int, bigint, decimal(p,0), double, date, timestamp, else string.
DataTypePtr ValueType(const std::string& text, const expr::TimeZone& zone) {
  int64_t integer = 0;
  if (expr::ParseInt64(text, &integer)) {
    const bool fits_int = integer >= std::numeric_limits<int32_t>::min() &&
                          integer <= std::numeric_limits<int32_t>::max();
    return fits_int ? DataType::Int32() : DataType::Int64();
  }
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    digits.remove_prefix(1);
  }
  if (IsAsciiDigits(digits)) {
    columnar::Int128 unscaled{};
    if (digits.size() <= 38 && expr::ParseDecimal(text, 38, 0, &unscaled)) {
      auto type = DataType::Decimal(static_cast<int>(digits.size()), 0);
      if (type.ok()) {
        return *type;
      }
    }
    return DataType::String();
  }
  double real = 0;
  if (expr::ParseDouble(text, &real)) {
    return DataType::Float64();
  }
  int32_t days = 0;
  if (IsDateText(text) && expr::ParseDate(text, &days)) {
    return DataType::Date();
  }
  int64_t micros = 0;
  if (IsTimestampText(text) && expr::ParseTimestamp(text, zone, false, &micros)) {
    return DataType::Timestamp();
  }
  return DataType::String();
}

// Rank within a family that widens: numbers (int < bigint < decimal < double) and times
// (date < timestamp); 0 for string.
int NumericRank(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kInt32:
      return 1;
    case TypeId::kInt64:
      return 2;
    case TypeId::kDecimal:
      return 3;
    case TypeId::kFloat64:
      return 4;
    default:
      return 0;
  }
}

int TemporalRank(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kDate:
      return 1;
    case TypeId::kTimestamp:
      return 2;
    default:
      return 0;
  }
}

// Spark's findWiderTypeForPartitionColumn over the types above.
DataTypePtr Wider(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->Id() == TypeId::kDecimal && b->Id() == TypeId::kDecimal) {
    return a->Precision() >= b->Precision() ? a : b;
  }
  const int na = NumericRank(*a);
  const int nb = NumericRank(*b);
  if (na > 0 && nb > 0) {
    if (na == 3 && nb < 3) {
      // A decimal wide enough for every bigint.
      return a->Precision() >= 20 ? a : *DataType::Decimal(20, 0);
    }
    if (nb == 3 && na < 3) {
      return b->Precision() >= 20 ? b : *DataType::Decimal(20, 0);
    }
    return na >= nb ? a : b;
  }
  const int ta = TemporalRank(*a);
  const int tb = TemporalRank(*b);
  if (ta > 0 && tb > 0) {
    return ta >= tb ? a : b;
  }
  return DataType::String();
}

}  // namespace

std::vector<PartitionDirectory> PartitionDirectories(std::string_view root, std::string_view path) {
  std::vector<PartitionDirectory> directories;
  while (!root.empty() && root.back() == '/') {
    root.remove_suffix(1);
  }
  if (path.size() <= root.size() + 1 || path.compare(0, root.size(), root) != 0 ||
      path[root.size()] != '/') {
    return directories;
  }
  std::string_view rest = path.substr(root.size() + 1);
  for (size_t slash = rest.find('/'); slash != std::string_view::npos; slash = rest.find('/')) {
    const std::string_view directory = rest.substr(0, slash);
    rest.remove_prefix(slash + 1);
    const size_t equals = directory.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      continue;
    }
    PartitionDirectory entry;
    entry.key = Unescape(directory.substr(0, equals));
    const std::string_view value = directory.substr(equals + 1);
    if (value != kHiveDefaultPartition) {
      entry.value = Unescape(value);
    }
    directories.push_back(std::move(entry));
  }
  return directories;
}

DataTypePtr InferPartitionType(const std::vector<std::optional<std::string>>& values,
                               const expr::TimeZone& zone) {
  DataTypePtr type;
  for (const std::optional<std::string>& value : values) {
    if (!value.has_value()) {
      continue;
    }
    DataTypePtr one = ValueType(*value, zone);
    type = type == nullptr ? one : Wider(type, one);
    if (type->Id() == TypeId::kString) {
      break;
    }
  }
  return type != nullptr ? type : DataType::String();
}

Result<columnar::ColumnPtr> PartitionValueColumn(const std::optional<std::string>& text,
                                                 const DataTypePtr& type,
                                                 const expr::EvalContext& context) {
  if (!text.has_value()) {
    return columnar::Column::MakeAllNull(type, 1, context.pool);
  }
  columnar::ColumnBuilder builder(DataType::String(), context.pool);
  builder.AppendBytes(*text);
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder.Finish());
  if (type->Id() == TypeId::kString) {
    return column;
  }
  return expr::CastKernel(*column, type, /*safe=*/true, context);
}

}  // namespace tributary::exec

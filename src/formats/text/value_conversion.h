// The conversions of text to column values that the CSV and JSON readers make alike: decimals,
// dates and timestamps, read as Spark's readers read them (dateFormat and timestampFormat
// through TemporalFormats). Each reader keeps its own rules for the other types.

#pragma once

#include <cstdint>
#include <string_view>

#include "columnar/column_builder.h"
#include "columnar/data_type.h"
#include "expr/interval_text.h"
#include "expr/temporal_parsing.h"
#include "formats/text/temporal_formats.h"

namespace tributary::text {

/// Parses `text` as a value of a column of type `id` when that is a decimal (of `precision`
/// and `scale`), a date, a timestamp, a timestamp_ntz or a year-month interval, and with kAppend
/// appends the value to `sink` (unused without). Returns false, appending nothing, when the text
/// does not parse or `id` is another type. Inline: the readers call it for every value of such a
/// column.
template <bool kAppend>
inline bool ConvertTextValue(columnar::TypeId id, int precision, int scale, std::string_view text,
                             const TemporalFormats& temporal, columnar::ColumnBuilder* sink) {
  switch (id) {
    case columnar::TypeId::kDecimal: {
      columnar::Int128 unscaled;
      if (!expr::ParseDecimal(text, precision, scale, &unscaled)) {
        return false;
      }
      if constexpr (kAppend) {
        sink->AppendDecimal(unscaled);
      }
      return true;
    }
    case columnar::TypeId::kDate: {
      int32_t days;
      if (!temporal.ParseDate(text, &days)) {
        return false;
      }
      if constexpr (kAppend) {
        sink->AppendInt(days);
      }
      return true;
    }
    case columnar::TypeId::kTimestamp:
    case columnar::TypeId::kTimestampNtz: {
      int64_t micros;
      if (!temporal.ParseTimestamp(text, id == columnar::TypeId::kTimestampNtz, &micros)) {
        return false;
      }
      if constexpr (kAppend) {
        sink->AppendInt(micros);
      }
      return true;
    }
    case columnar::TypeId::kYearMonthInterval: {
      // "[+|-]y-m" or the INTERVAL '...' YEAR TO MONTH text to_json and to_csv write.
      int32_t months;
      if (!expr::ParseYearMonthIntervalText(text, &months)) {
        return false;
      }
      if constexpr (kAppend) {
        sink->AppendInt(months);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace tributary::text

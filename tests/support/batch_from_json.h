// Record batches for tests, written as JSON literals (STYLE.md, "Tests").
//
// Rows are a JSON array of objects keyed by field name (missing key = null) or of arrays in
// field order. Values by type: booleans, numbers for integers and floats, "NaN"/"Infinity"
// strings for floats, decimal as the unscaled integer (number or string), date as days and
// timestamps and day-time intervals as microseconds (numbers), string/binary as JSON strings,
// struct as object or array, array as array, map as an array of [key, value] pairs.

#pragma once

#include <string_view>

#include "columnar/record_batch.h"

namespace tributary::testing {

Result<columnar::RecordBatchPtr> BatchFromJson(columnar::SchemaPtr schema,
                                               std::string_view rows_json);

/// A single column of `type` from a JSON array of values.
Result<columnar::ColumnPtr> ColumnFromJson(columnar::DataTypePtr type,
                                           std::string_view values_json);

/// Shorthand for building schemas in tests.
columnar::SchemaPtr MakeSchema(std::vector<columnar::Field> fields);

}  // namespace tributary::testing

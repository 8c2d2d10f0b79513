// Spark's Dataset.show text: the table DataFrame::Show and the console sink print.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "columnar/record_batch.h"

namespace tributary::columnar {

/// The text show() prints for row `row` of `column`: "NULL" for null, strings and binary as
/// their bytes, any other type as its canonical JSON text (canonical_json.h) without the
/// quotes around decimals, dates and timestamps.
std::string ShowCellText(const Column& column, int64_t row);

/// Appends to `out` Spark's showString of `rows` (columns named `names`): a grid of the first
/// `num_rows` rows, cells longer than 20 characters cut to 17 and "..." when `truncate` (and
/// then right-aligned), and "only showing top n rows" when `rows` holds more. Callers pass at
/// most num_rows + 1 rows, as show() fetches them.
void AppendShowString(const std::vector<std::string>& names,
                      const std::vector<RecordBatchPtr>& rows, int64_t num_rows, bool truncate,
                      std::string* out);

}  // namespace tributary::columnar
